// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// The write path of PostgresDeliveryStore: publishes, group commits of delivery changes, the
// delivery log, resubmissions and the removal of dead letters. Each call is one transaction sent
// as one pipeline (PostgresConnection::transaction()).

#include "PostgresDeliveryStore.h"

#include "../DeadLetterRows.h"
#include "PostgresStoreState.h"

#include <QSet>

#include <cmath>
#include <vector>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

// Many rows in one statement: each column is one array parameter (binary format), unnest() turns
// them back into rows. Against one statement per row (a Bind/Execute each, and its answer), an
// event with its delivery costs 1.2 µs of client CPU instead of 7-8 and 11 µs of server CPU
// instead of 18 (bench_postgres_insert, bench/RESULTS.md "The insert path").
const QByteArray InsertEventsSql
    = "INSERT INTO events (seq, topic, event_id, event_type, subject, data_version, event_time,"
      " publish_ms, body) SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[],"
      " $5::text[], $6::text[], $7::text[], $8::bigint[], $9::bytea[])"_ba;
// The owner ($14) is the same for every row: the registered instance, or NULL.
const QByteArray InsertDeliveriesSql
    = "INSERT INTO deliveries (id, event_seq, topic, subscription, state, attempts, due_ms,"
      " publish_ms, last_outcome, last_http_status, last_attempt_ms, reason,"
      " dl_unavailable_since_ms, owner)"
      " SELECT rows.*, $14::bigint FROM unnest($1::bigint[], $2::bigint[], $3::text[],"
      " $4::text[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[], $9::bigint[],"
      " $10::bigint[], $11::bigint[], $12::bigint[], $13::bigint[]) AS rows"_ba;
// The same one row at a time: only to name the row that failed (PostgresCommand::singleRows).
const QByteArray InsertEventSql
    = "INSERT INTO events (seq, topic, event_id, event_type, subject, data_version, event_time,"
      " publish_ms, body) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"_ba;
const QByteArray InsertDeliverySql
    = "INSERT INTO deliveries (id, event_seq, topic, subscription, state, attempts, due_ms,"
      " publish_ms, last_outcome, last_http_status, last_attempt_ms, reason,"
      " dl_unavailable_since_ms, owner)"
      " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)"_ba;
// Rows per statement: large enough that the per-statement cost vanishes, small enough that no
// parameter grows without bound (a resubmission of a million dead letters) and that the server
// works on one statement while the next is still being sent (100 to 2000 rows measured alike
// within the noise, bench_postgres_insert; 500 was at least as fast as any).
constexpr qsizetype RowsPerStatement = 500;
const QByteArray RaiseMaximumSql = "UPDATE meta SET value = GREATEST(value, $1) WHERE key = $2"_ba;
const QByteArray UpdateDeliverySql
    = "UPDATE deliveries SET state = $1, attempts = $2, due_ms = $3, last_outcome = $4,"
      " last_http_status = $5, last_attempt_ms = $6, reason = $7, dl_unavailable_since_ms = $8"
      " WHERE id = $9 AND owner IS NOT DISTINCT FROM $10 RETURNING id"_ba;
// Finished deliveries, then their events that have no delivery left (deliveries_by_event keeps
// NOT EXISTS a lookup): a whole batch is one statement each. Like the update above, fenced: only
// the rows this instance owns (InstanceLeases), the others are reported lost.
const QByteArray RemoveDeliveriesSql
    = "DELETE FROM deliveries WHERE id = ANY($1) AND owner IS NOT DISTINCT FROM $2 RETURNING id"_ba;
const QByteArray RemoveFinishedEventsSql
    = "DELETE FROM events WHERE seq = ANY($1) AND NOT EXISTS"
      " (SELECT 1 FROM deliveries WHERE event_seq = events.seq)"_ba;
const QByteArray InsertDroppedSql
    = "INSERT INTO dropped (topic, subscription, event_id, reason, last_outcome,"
      " last_http_status, attempts, dropped_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"_ba;
// Several instances write the row of one subscription: each write takes the next revision, and
// one that was overtaken by a later write (a higher revision committed first) changes nothing.
const QByteArray UpsertProbationSql
    = "INSERT INTO probation (topic, subscription, state, cause, until_ms, duration_ms, failures,"
      " revision, instance)"
      " VALUES (coalesce($1, ''), coalesce($2, ''), $3, $4, $5, $6, $7,"
      " nextval('probation_revisions'), $8)"
      " ON CONFLICT (topic, subscription) DO UPDATE SET state = EXCLUDED.state,"
      " cause = EXCLUDED.cause, until_ms = EXCLUDED.until_ms,"
      " duration_ms = EXCLUDED.duration_ms, failures = EXCLUDED.failures,"
      " revision = EXCLUDED.revision, instance = EXCLUDED.instance"
      " WHERE probation.revision < EXCLUDED.revision"_ba;
// Many attempts and the ids of their events in one statement: the attempts as arrays $1-$8, their
// events flattened into $9 (the attempt's place in $1-$8, from 1), $10 (the event's position in
// its request) and $11 (its id); $12 the instance that made them. The attempt rows take their ids
// from the table's identity in the order given (the log is read and trimmed by id), and the events'
// rows need those ids: hence nextval() first, then both inserts. One statement per attempt cost
// ~14 µs of server CPU per delivery with batching off (bench_cluster).
const QByteArray InsertAttemptsWithEventsSql
    = "WITH attempts AS (SELECT nextval(pg_get_serial_sequence('attempt_log', 'id')::regclass)"
      " AS id, given.* FROM (SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[],"
      " $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[]) WITH ORDINALITY"
      " AS rows (time_ms, topic, subscription, attempt, http_status, outcome, duration_ms,"
      " next_due_ms, ordinal) ORDER BY ordinal) AS given),"
      " logged AS (INSERT INTO attempt_log (id, time_ms, topic, subscription, attempt,"
      " http_status, outcome, duration_ms, next_due_ms, instance) OVERRIDING SYSTEM VALUE"
      " SELECT id, time_ms, topic, subscription, attempt, http_status, outcome, duration_ms,"
      " next_due_ms, $12::bigint FROM attempts ORDER BY ordinal)"
      " INSERT INTO attempt_events (attempt_id, position, event_id)"
      " SELECT attempts.id, event.position, event.event_id FROM unnest($9::bigint[],"
      " $10::bigint[], $11::text[]) AS event (ordinal, position, event_id)"
      " JOIN attempts USING (ordinal)"_ba;
// Keeps the newest $1 attempts: the rows from $2 (already trimmed, see
// PostgresStoreState::attemptLogTrimmedThrough) to the newest id - $1 go, events first; answers
// that bound. In the same transaction as the attempts, so the log never holds more than $1 rows.
const QByteArray TrimAttemptLogWithEventsSql
    = "WITH bound AS (SELECT coalesce(max(id), 0) - $1 AS id FROM attempt_log),"
      " events_gone AS (DELETE FROM attempt_events USING bound"
      " WHERE attempt_id > $2 AND attempt_id <= bound.id),"
      " attempts_gone AS (DELETE FROM attempt_log USING bound"
      " WHERE attempt_log.id > $2 AND attempt_log.id <= bound.id)"
      " SELECT GREATEST(bound.id, $2) FROM bound"_ba;
const QByteArray RemoveDeadLettersSql = "DELETE FROM dead_letters WHERE id = ANY($1)"_ba;
// The changes of a transaction in one statement (StoreTotals.h; an append that waits for nobody).
const QByteArray InsertTotalChangesSql
    = "INSERT INTO total_changes (topic, subscription, counter, value)"
      " SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[])"_ba;
// Moves every change committed so far into totals, when no other instance is doing it (the
// transaction-scoped advisory lock; the others skip theirs): a single compactor takes the rows of
// totals one by one in key order, and a reader's one statement sees each change in exactly one
// of the two tables.
const QByteArray CompactTotalsSql
    = "WITH allowed AS (SELECT pg_try_advisory_xact_lock(4572175232684362) AS locked),"
      " moved AS (DELETE FROM total_changes WHERE (SELECT locked FROM allowed)"
      " RETURNING topic, subscription, counter, value)"
      " INSERT INTO totals (topic, subscription, counter, value)"
      " SELECT topic, subscription, counter, sum(value) FROM moved"
      " GROUP BY topic, subscription, counter ORDER BY topic, subscription, counter"
      " ON CONFLICT (topic, subscription, counter)"
      " DO UPDATE SET value = totals.value + excluded.value"_ba;

} // namespace

void PostgresStoreState::bindInstance(PostgresParameters &parameters, qint64 instance)
{
    if (instance > 0)
        parameters.bind(instance);
    else
        parameters.bindNull();
}

void PostgresStoreState::addPublished(PostgresTransaction &transaction,
                                      const QList<StoredEvent> &events,
                                      const QList<DeliveryRecord> &deliveries,
                                      qint64 instance) const
{
    using Element = PostgresArray::Element;
    qint64 maxSeq = 0;
    for (qsizetype first = 0; first < events.size(); first += RowsPerStatement) {
        const qsizetype count = std::min(RowsPerStatement, events.size() - first);
        PostgresArray seqs(Element::BigInt, count), topics(Element::Text, count, count * 16),
            ids(Element::Text, count, count * 40), types(Element::Text, count, count * 32),
            subjects(Element::Text, count, count * 32), versions(Element::Text, count, count * 4),
            times(Element::Text, count, count * 28), publishMs(Element::BigInt, count);
        qsizetype bodyBytes = 0;
        for (qsizetype i = first; i < first + count; ++i)
            bodyBytes += events.at(i).body.size();
        PostgresArray bodies(Element::Bytea, count, bodyBytes);
        for (qsizetype i = first; i < first + count; ++i) {
            const StoredEvent &event = events.at(i);
            seqs.append(event.seq);
            topics.append(event.topic);
            ids.append(event.id);
            types.append(event.eventType);
            subjects.append(event.subject);
            versions.append(event.dataVersion);
            times.append(event.eventTime);
            publishMs.append(event.publishMs);
            bodies.append(event.body);
            maxSeq = std::max(maxSeq, event.seq);
        }
        // One message for the chunk: built once, not once per row.
        PostgresParameters &parameters
            = transaction.add(InsertEventsSql,
                              u"store %1 events (seq %2 to %3)"_s.arg(count)
                                  .arg(events.at(first).seq)
                                  .arg(events.at(first + count - 1).seq));
        for (PostgresArray *column :
             {&seqs, &topics, &ids, &types, &subjects, &versions, &times, &publishMs, &bodies})
            parameters.bindArray(std::move(*column));
        transaction.commands.last().singleRows = [events, first, count] {
            PostgresTransaction rows;
            for (qsizetype i = first; i < first + count; ++i) {
                const StoredEvent &event = events.at(i);
                rows.add(InsertEventSql, u"store event %1 (seq %2)"_s.arg(event.id).arg(event.seq))
                    .bindAll(event.seq, event.topic, event.id, event.eventType, event.subject,
                             event.dataVersion, event.eventTime, event.publishMs, event.body);
            }
            return PostgresSingleRows {rows.commands, rows.whats};
        };
    }
    qint64 maxDeliveryId = 0;
    for (qsizetype first = 0; first < deliveries.size(); first += RowsPerStatement) {
        const qsizetype count = std::min(RowsPerStatement, deliveries.size() - first);
        PostgresArray ids(Element::BigInt, count), eventSeqs(Element::BigInt, count),
            topics(Element::Text, count, count * 16),
            subscriptions(Element::Text, count, count * 16), states(Element::BigInt, count),
            attempts(Element::BigInt, count), dueMs(Element::BigInt, count),
            publishMs(Element::BigInt, count), outcomes(Element::BigInt, count),
            statuses(Element::BigInt, count), attemptMs(Element::BigInt, count),
            reasons(Element::BigInt, count), unavailableSinceMs(Element::BigInt, count);
        for (qsizetype i = first; i < first + count; ++i) {
            const DeliveryRecord &delivery = deliveries.at(i);
            ids.append(delivery.id);
            eventSeqs.append(delivery.eventSeq);
            topics.append(delivery.topic);
            subscriptions.append(delivery.subscription);
            states.append(static_cast<int>(delivery.state));
            attempts.append(delivery.attempts);
            dueMs.append(delivery.dueMs);
            publishMs.append(delivery.publishMs);
            outcomes.append(static_cast<int>(delivery.lastOutcome));
            statuses.append(delivery.lastHttpStatus);
            attemptMs.append(delivery.lastAttemptMs);
            reasons.append(static_cast<int>(delivery.reason));
            unavailableSinceMs.append(delivery.deadLetterUnavailableSinceMs);
            maxDeliveryId = std::max(maxDeliveryId, delivery.id);
        }
        PostgresParameters &parameters
            = transaction.add(InsertDeliveriesSql,
                              u"store %1 deliveries (id %2 to %3)"_s.arg(count)
                                  .arg(deliveries.at(first).id)
                                  .arg(deliveries.at(first + count - 1).id));
        for (PostgresArray *column :
             {&ids, &eventSeqs, &topics, &subscriptions, &states, &attempts, &dueMs, &publishMs,
              &outcomes, &statuses, &attemptMs, &reasons, &unavailableSinceMs})
            parameters.bindArray(std::move(*column));
        bindInstance(parameters, instance);
        transaction.commands.last().singleRows = [deliveries, first, count, instance] {
            PostgresTransaction rows;
            for (qsizetype i = first; i < first + count; ++i) {
                const DeliveryRecord &delivery = deliveries.at(i);
                PostgresParameters &row = rows.add(
                    InsertDeliverySql,
                    u"store delivery %1 (event seq %2, subscription %3)"_s.arg(delivery.id)
                        .arg(delivery.eventSeq)
                        .arg(delivery.subscription));
                row.bindAll(delivery.id, delivery.eventSeq, delivery.topic, delivery.subscription,
                            static_cast<int>(delivery.state), delivery.attempts, delivery.dueMs,
                            delivery.publishMs, static_cast<int>(delivery.lastOutcome),
                            delivery.lastHttpStatus, delivery.lastAttemptMs,
                            static_cast<int>(delivery.reason),
                            delivery.deadLetterUnavailableSinceMs);
                if (instance > 0)
                    row.bind(instance);
                else
                    row.bindNull();
            }
            return PostgresSingleRows {rows.commands, rows.whats};
        };
    }
    // A registered instance numbers from blocks it reserved (reserveIds()), which meta already
    // counts: raising the marks would only make every publish of every instance wait for the
    // others' on the two rows of meta.
    if (instance > 0)
        return;
    transaction.add(RaiseMaximumSql, u"record the highest ids"_s)
        .bindAll(maxSeq, u"max_event_seq"_s);
    transaction.add(RaiseMaximumSql, u"record the highest ids"_s)
        .bindAll(maxDeliveryId, u"max_delivery_id"_s);
}

void PostgresStoreState::addAttempts(PostgresTransaction &transaction,
                                     const QList<AttemptLogEntry> &attempts) const
{
    using Element = PostgresArray::Element;
    static const QString emptyId = u""_s;
    for (qsizetype first = 0; first < attempts.size(); first += RowsPerStatement) {
        const qsizetype count = std::min(RowsPerStatement, attempts.size() - first);
        qsizetype eventCount = 0;
        for (qsizetype i = first; i < first + count; ++i)
            eventCount += attempts.at(i).eventIds.size();
        PostgresArray timesMs(Element::BigInt, count), topics(Element::Text, count, count * 16),
            subscriptions(Element::Text, count, count * 16), numbers(Element::BigInt, count),
            statuses(Element::BigInt, count), outcomes(Element::BigInt, count),
            durationsMs(Element::BigInt, count), nextDueMs(Element::BigInt, count),
            ordinals(Element::BigInt, eventCount), positions(Element::BigInt, eventCount),
            eventIds(Element::Text, eventCount, eventCount * 40);
        for (qsizetype i = first; i < first + count; ++i) {
            const AttemptLogEntry &entry = attempts.at(i);
            timesMs.append(entry.timeMs);
            topics.append(entry.topic);
            subscriptions.append(entry.subscription);
            numbers.append(entry.attempt);
            statuses.append(entry.httpStatus);
            outcomes.append(static_cast<int>(entry.outcome));
            durationsMs.append(entry.durationMs);
            nextDueMs.append(entry.nextDueMs);
            for (qsizetype position = 0; position < entry.eventIds.size(); ++position) {
                ordinals.append(qint64(i - first + 1));
                positions.append(qint64(position));
                // attempt_events requires an id: a null one is stored empty, as before.
                const QString &id = entry.eventIds.at(position);
                eventIds.append(id.isNull() ? emptyId : id);
            }
        }
        PostgresParameters &parameters
            = transaction.add(InsertAttemptsWithEventsSql, u"write the delivery log"_s);
        for (PostgresArray *column :
             {&timesMs, &topics, &subscriptions, &numbers, &statuses, &outcomes, &durationsMs,
              &nextDueMs, &ordinals, &positions, &eventIds})
            parameters.bindArray(std::move(*column));
        bindInstance(parameters);
    }
    transaction.add(TrimAttemptLogWithEventsSql, u"trim the delivery log"_s)
        .bindAll(qint64(maxAttemptLogRows), attemptLogTrimmedThrough);
}

void PostgresStoreState::addTotals(PostgresTransaction &transaction,
                                   const QList<TotalChange> &changes)
{
    if (changes.isEmpty())
        return;
    using Element = PostgresArray::Element;
    const qsizetype count = changes.size();
    PostgresArray topics(Element::Text, count, count * 16),
        subscriptions(Element::Text, count, count * 16), counters(Element::BigInt, count),
        values(Element::BigInt, count);
    for (const TotalChange &change : changes) {
        topics.append(change.topic); // never null (totalsOfPublish(), totalsOfBatch())
        subscriptions.append(change.subscription);
        counters.append(qint64(change.counter));
        values.append(change.value);
    }
    PostgresParameters &parameters
        = transaction.add(InsertTotalChangesSql, u"count the totals"_s);
    for (PostgresArray *column : {&topics, &subscriptions, &counters, &values})
        parameters.bindArray(std::move(*column));
}

void PostgresStoreState::addTotalsCompaction(PostgresTransaction &transaction)
{
    if (++commitsSinceCompaction < TotalsCompactionInterval)
        return;
    commitsSinceCompaction = 0;
    transaction.add(CompactTotalsSql, u"add up the totals"_s);
}

// The publishes run on the publish connection, beside the group commit on the first one. No
// change can overtake the insert that creates its rows: the engine adopts the deliveries of a
// publish (Ingest::adopt() on its own thread, DeadLettering and TopicResubmit after the call) only
// once this call returned, so commit() sees them only after their transaction committed, and a
// statement of the first connection (READ COMMITTED) sees every row committed before it started.
// The two transactions touch different rows: a publish inserts new ones (and, without a
// registered instance, raises meta's marks, which commit() never writes), commit() changes and
// removes rows that an earlier publish created.
Expected<void> PostgresDeliveryStore::insertPublished(const QList<StoredEvent> &events,
                                                      const QList<DeliveryRecord> &deliveries)
{
    const std::lock_guard lock(d->publishMutex);
    if (!d->publishConnection)
        return d->notOpen();
    if (events.isEmpty() && deliveries.isEmpty())
        return {};
    // SPEC D1: the publish is acknowledged only after this transaction commits, and a failure
    // leaves nothing behind.
    PostgresTransaction transaction;
    d->addPublished(transaction, events, deliveries, d->instanceId);
    PostgresStoreState::addTotals(transaction, totalsOfPublish(events, deliveries, true));
    auto done = d->publishConnection->transaction(transaction.commands, transaction.whats);
    if (!done)
        return Error(done.error());
    return {};
}

Expected<void> PostgresDeliveryStore::commit(const StoreBatch &batch)
{
    const std::lock_guard lock(d->mutex);
    if (!d->connection)
        return d->notOpen();
    if (batch.isEmpty())
        return {};
    PostgresTransaction transaction;
    for (const DeliveryRecord &delivery : batch.updates) {
        PostgresParameters &parameters
            = transaction.add(UpdateDeliverySql, u"update delivery %1"_s.arg(delivery.id));
        parameters.bindAll(static_cast<int>(delivery.state), delivery.attempts, delivery.dueMs,
                           static_cast<int>(delivery.lastOutcome), delivery.lastHttpStatus,
                           delivery.lastAttemptMs, static_cast<int>(delivery.reason),
                           delivery.deadLetterUnavailableSinceMs, delivery.id);
        d->bindInstance(parameters);
    }
    // results[i] below answers transaction.commands[i].
    qsizetype removeIndex = -1;
    if (!batch.finished.isEmpty()) {
        std::vector<qint64> deliveryIds;
        std::vector<qint64> eventSeqs;
        deliveryIds.reserve(size_t(batch.finished.size()));
        eventSeqs.reserve(size_t(batch.finished.size()));
        for (const FinishedDelivery &delivery : batch.finished) {
            deliveryIds.push_back(delivery.id);
            eventSeqs.push_back(delivery.eventSeq);
        }
        removeIndex = transaction.commands.size();
        PostgresParameters &parameters
            = transaction.add(RemoveDeliveriesSql, u"remove finished deliveries"_s);
        parameters.bindArray(deliveryIds);
        d->bindInstance(parameters);
        transaction.add(RemoveFinishedEventsSql, u"remove finished events"_s).bindArray(eventSeqs);
    }
    const QByteArray insertDeadLetterSql = postgresPlaceholders(InsertDeadLetterSql);
    for (const DeadLetterEntry &entry : batch.deadLetters) {
        bindDeadLetter(transaction.add(insertDeadLetterSql,
                                       u"index dead letter of event %1"_s.arg(entry.eventId)),
                       entry);
    }
    for (const DroppedEntry &entry : batch.drops) {
        transaction.add(InsertDroppedSql, u"record dropped event %1"_s.arg(entry.eventId))
            .bindAll(entry.topic, entry.subscription, entry.eventId, static_cast<int>(entry.reason),
                     static_cast<int>(entry.lastOutcome), entry.lastHttpStatus, entry.attempts,
                     entry.droppedMs);
    }
    const bool trims = !batch.attempts.isEmpty();
    if (trims)
        d->addAttempts(transaction, batch.attempts);
    for (const ProbationRecord &record : batch.probation) {
        PostgresParameters &parameters = transaction.add(
            UpsertProbationSql, u"store probation of %1"_s.arg(record.subscription));
        parameters.bindAll(record.topic, record.subscription, record.state,
                           static_cast<int>(record.cause), record.untilMs, record.durationMs,
                           record.consecutiveFailures);
        d->bindInstance(parameters);
    }
    PostgresStoreState::addTotals(transaction, totalsOfBatch(batch));
    d->addTotalsCompaction(transaction);

    auto results = d->connection->transaction(transaction.commands, transaction.whats);
    if (!results)
        return Error(results.error());
    // Fencing: a row another instance owns now was neither updated nor removed.
    for (qsizetype i = 0; i < batch.updates.size(); ++i) {
        if (results.value()[size_t(i)].rowCount() == 0)
            d->lostDeliveries.append(batch.updates.at(i).id);
    }
    if (removeIndex >= 0) {
        PostgresResult &removed = results.value()[size_t(removeIndex)];
        QSet<qint64> gone;
        for (int row = 0; row < removed.rowCount(); ++row) {
            removed.setRow(row);
            gone.insert(removed.columnInt64(0));
        }
        for (const FinishedDelivery &delivery : batch.finished) {
            if (!gone.contains(delivery.id))
                d->lostDeliveries.append(delivery.id);
        }
    }
    if (trims) {
        // The trim's answer: the newest id it removed (or had removed before).
        const qsizetype trim = transaction.whats.lastIndexOf(u"trim the delivery log"_s);
        PostgresResult &bound = results.value()[size_t(trim)];
        if (bound.rowCount() == 1)
            d->attemptLogTrimmedThrough = bound.columnInt64(0);
    }
    return {};
}

Expected<void> PostgresDeliveryStore::recordTimeScale(double scale)
{
    const std::lock_guard lock(d->mutex);
    if (!d->connection)
        return d->notOpen();
    const auto permille = qint64(std::llround(scale * 1000.0));
    PostgresTransaction transaction;
    transaction
        .add("INSERT INTO meta (key, value) VALUES ('time_scale_permille', $1)"
             " ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value"_ba,
             u"record the time scale"_s)
        .bindAll(permille);
    transaction
        .add("INSERT INTO meta (key, value) VALUES ('fastest_time_scale_permille', $1)"
             " ON CONFLICT (key) DO UPDATE SET value = GREATEST(meta.value, EXCLUDED.value)"_ba,
             u"record the fastest time scale"_s)
        .bindAll(permille);
    auto done = d->connection->transaction(transaction.commands, transaction.whats);
    if (!done)
        return Error(done.error());
    return {};
}

Expected<void> PostgresDeliveryStore::removeDeadLetters(const QList<qint64> &ids)
{
    const std::lock_guard lock(d->mutex);
    if (!d->connection)
        return d->notOpen();
    if (ids.isEmpty())
        return {};
    PostgresParameters parameters;
    parameters.bindArray(std::vector<qint64>(ids.cbegin(), ids.cend()));
    auto removed = d->connection->execute(RemoveDeadLettersSql, parameters,
                                          u"remove %1 dead letters"_s.arg(ids.size()));
    if (!removed)
        return Error(removed.error());
    return {};
}

Expected<void> PostgresDeliveryStore::insertResubmitted(
    const QList<StoredEvent> &events, const QList<DeliveryRecord> &deliveries,
    const QList<ResubmissionEntry> &resubmissions, const QList<qint64> &deadLetterIds)
{
    // On the publish connection too (see insertPublished()): the dead letters it removes were
    // indexed by a commit() that returned before the engine offered them for resubmission.
    const std::lock_guard lock(d->publishMutex);
    if (!d->publishConnection)
        return d->notOpen();
    if (events.isEmpty() && deadLetterIds.isEmpty())
        return {};
    PostgresTransaction transaction;
    d->addPublished(transaction, events, deliveries, d->instanceId);
    PostgresStoreState::addTotals(transaction, totalsOfPublish(events, deliveries, false));
    const QByteArray insertResubmissionSql = postgresPlaceholders(InsertResubmissionSql);
    for (const ResubmissionEntry &entry : resubmissions) {
        bindResubmission(
            transaction.add(insertResubmissionSql,
                            u"record the resubmission of dead letter %1"_s.arg(entry.deadLetterId)),
            entry);
    }
    transaction.add(RemoveDeadLettersSql, u"remove the resubmitted dead letters"_s)
        .bindArray(std::vector<qint64>(deadLetterIds.cbegin(), deadLetterIds.cend()));
    auto done = d->publishConnection->transaction(transaction.commands, transaction.whats);
    if (!done)
        return Error(done.error());
    return {};
}

} // namespace EventDesk
