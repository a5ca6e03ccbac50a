// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// The write path of SqliteDeliveryStore: publishes, group commits of delivery changes, the
// delivery log and the removal of dead letters.

#include "SqliteDeliveryStore.h"

#include "SqliteStoreSchema.h"
#include "SqliteStoreState.h"

#include <cmath>
#include <vector>

using namespace Qt::StringLiterals;

namespace EventDesk {

Expected<void> SqliteStoreState::removeFinished(const QList<FinishedDelivery> &finished)
{
    // Ids are handed out in order and deliveries mostly finish in order, so the finished rows
    // come in runs of consecutive ids: each run is one range DELETE, which walks the leaf pages
    // once instead of descending the B-tree per row (a batch of 1000 deliveries is one
    // statement). First the deliveries, then their events that have no delivery left.
    //
    // Whether an event of a run still has a delivery is asked once per run, from the index on
    // deliveries(event_seq): mostly none has (one subscription, or all of them done), and the
    // run's events go in one plain range DELETE. Only a run where some event still has a
    // delivery (another subscription has not finished it yet) checks each event with NOT EXISTS.
    // Checking every event cost an index lookup per delivered event, and a DELETE with a
    // subquery collects its rows before deleting them, inside the one writer that publishes
    // wait for (bench/RESULTS.md, "Removing delivered events").
    QString errorText;
    SqliteStatement *removeDeliveries
        = statement("DELETE FROM deliveries WHERE id BETWEEN ? AND ?"_ba, &errorText);
    SqliteStatement *anyLeft = removeDeliveries
        ? statement("SELECT 1 FROM deliveries WHERE event_seq BETWEEN ? AND ? LIMIT 1"_ba,
                    &errorText)
        : nullptr;
    SqliteStatement *removeEvents = anyLeft
        ? statement("DELETE FROM events WHERE seq BETWEEN ? AND ?"_ba, &errorText)
        : nullptr;
    SqliteStatement *removeUnreferencedEvents = removeEvents
        ? statement("DELETE FROM events WHERE seq BETWEEN ? AND ? AND NOT EXISTS"
                    " (SELECT 1 FROM deliveries WHERE event_seq = events.seq)"_ba,
                    &errorText)
        : nullptr;
    if (!removeUnreferencedEvents)
        return error(u"prepare removing finished deliveries: %1"_s.arg(errorText));

    // Calls remove(first, last) for each run of consecutive keys, in ascending order.
    const auto forEachRun = [](std::vector<qint64> keys, const auto &remove) -> Expected<void> {
        std::sort(keys.begin(), keys.end());
        keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
        for (size_t first = 0; first < keys.size();) {
            size_t last = first;
            while (last + 1 < keys.size() && keys[last + 1] == keys[last] + 1)
                ++last;
            if (auto removed = remove(keys[first], keys[last]); !removed)
                return removed;
            first = last + 1;
        }
        return {};
    };
    const auto removeRange = [this](SqliteStatement *remove, qint64 first, qint64 last,
                                    const QString &what) -> Expected<void> {
        remove->bind(1, first);
        remove->bind(2, last);
        if (!remove->execute())
            return sqlError(u"%1 %2 to %3"_s.arg(what).arg(first).arg(last), remove->errorText());
        return {};
    };

    std::vector<qint64> deliveryIds;
    std::vector<qint64> eventSeqs;
    deliveryIds.reserve(size_t(finished.size()));
    eventSeqs.reserve(size_t(finished.size()));
    for (const FinishedDelivery &delivery : finished) {
        deliveryIds.push_back(delivery.id);
        eventSeqs.push_back(delivery.eventSeq);
    }
    const auto removeDeliveryRun = [&](qint64 first, qint64 last) {
        return removeRange(removeDeliveries, first, last, u"remove finished deliveries"_s);
    };
    if (auto removed = forEachRun(std::move(deliveryIds), removeDeliveryRun); !removed)
        return removed;
    return forEachRun(std::move(eventSeqs), [&](qint64 first, qint64 last) -> Expected<void> {
        anyLeft->bind(1, first);
        anyLeft->bind(2, last);
        const int found = anyLeft->step();
        anyLeft->reset();
        if (found != SQLITE_ROW && found != SQLITE_DONE) {
            return sqlError(
                u"look up the deliveries left of events %1 to %2"_s.arg(first).arg(last),
                anyLeft->errorText());
        }
        return removeRange(found == SQLITE_ROW ? removeUnreferencedEvents : removeEvents, first,
                           last, u"remove finished events (seq)"_s);
    });
}

Expected<void> SqliteStoreState::trimAttemptLog(qint64 previousId, qint64 lastId)
{
    if (previousId / attemptLogTrimStep == lastId / attemptLogTrimStep)
        return {};
    // Keeping maxAttemptLogRows - step + 1 rows leaves room for the step - 1 rows written
    // before the next trim, so the log never holds more than maxAttemptLogRows rows.
    const qint64 newestRemovedId = lastId - maxAttemptLogRows + attemptLogTrimStep - 1;
    if (newestRemovedId <= 0)
        return {};
    QString errorText;
    SqliteStatement *trimEvents = statement(TrimAttemptEventsSql, &errorText);
    SqliteStatement *trimLog = trimEvents ? statement(TrimAttemptLogSql, &errorText) : nullptr;
    if (!trimLog)
        return error(u"prepare trimming the delivery log: %1"_s.arg(errorText));
    for (SqliteStatement *trim : {trimEvents, trimLog}) {
        trim->bind(1, newestRemovedId);
        if (!trim->execute())
            return sqlError(u"trim the delivery log"_s, trim->errorText());
    }
    return {};
}

Expected<void> SqliteStoreState::writeAttempts(const QList<AttemptLogEntry> &attempts)
{
    QString errorText;
    SqliteStatement *insertAttempt = statement(InsertAttemptSql, &errorText);
    if (!insertAttempt)
        return error(u"prepare writing the delivery log: %1"_s.arg(errorText));
    qint64 firstId = 0;
    qint64 lastId = 0;
    for (const AttemptLogEntry &entry : attempts) {
        bindAttempt(*insertAttempt, entry);
        if (!insertAttempt->execute())
            return sqlError(u"write the delivery log"_s, insertAttempt->errorText());
        lastId = sqlite3_last_insert_rowid(database);
        if (firstId == 0)
            firstId = lastId;
        if (auto written = insertAttemptEvents(lastId, entry.eventIds); !written)
            return written;
    }
    return trimAttemptLog(firstId - 1, lastId);
}

Expected<void> SqliteStoreState::insertAttemptEvents(qint64 attemptId, const QStringList &eventIds)
{
    if (eventIds.isEmpty())
        return {};
    static_assert(AttemptEventsPerInsert * 3 <= MaxParametersPerQuery);
    static const QByteArray insertRowsSql = insertAttemptEventsSql();
    QString errorText;
    SqliteStatement *insertRows = statement(insertRowsSql, &errorText);
    SqliteStatement *insertRow
        = insertRows ? statement(InsertAttemptEventSql, &errorText) : nullptr;
    if (!insertRow)
        return error(u"prepare writing the events of attempts: %1"_s.arg(errorText));
    const qsizetype count = eventIds.size();
    for (qsizetype position = 0; position < count;) {
        const bool fullStatement = count - position >= AttemptEventsPerInsert;
        SqliteStatement *insert = fullStatement ? insertRows : insertRow;
        const qsizetype rows = fullStatement ? AttemptEventsPerInsert : 1;
        bindAttemptEvents(*insert, attemptId, eventIds, position, rows);
        if (!insert->execute()) {
            return sqlError(u"write the events of attempt %1 to the delivery log"_s.arg(attemptId),
                            insert->errorText());
        }
        position += rows;
    }
    return {};
}

Expected<void> SqliteStoreState::addTotals(const QList<TotalChange> &changes)
{
    if (changes.isEmpty())
        return {};
    QString errorText;
    SqliteStatement *add = statement(QByteArray(AddTotalSql), &errorText);
    if (!add)
        return error(u"prepare counting the totals: %1"_s.arg(errorText));
    for (const TotalChange &change : changes) {
        add->bindAll(change.topic, change.subscription, change.counter, change.value);
        if (!add->execute())
            return sqlError(u"count the totals of %1"_s.arg(change.topic), add->errorText());
    }
    return {};
}

Expected<void> SqliteStoreState::insertPublishedRows(const QList<StoredEvent> &events,
                                                     const QList<DeliveryRecord> &deliveries)
{
    QString errorText;
    SqliteStatement *insertEvent
        = statement("INSERT INTO events (seq, topic, event_id, event_type, subject,"
                    " data_version, event_time, publish_ms, body)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"_ba,
                    &errorText);
    SqliteStatement *insertDelivery = insertEvent
        ? statement("INSERT INTO deliveries (id, event_seq, topic,"
                    " subscription, state, attempts, due_ms, publish_ms,"
                    " last_outcome, last_http_status, last_attempt_ms, reason,"
                    " dl_unavailable_since_ms)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"_ba,
                    &errorText)
        : nullptr;
    SqliteStatement *raiseMaximum = insertDelivery
        ? statement("UPDATE meta SET value = max(value, ?) WHERE key = ?"_ba, &errorText)
        : nullptr;
    if (!raiseMaximum)
        return error(u"prepare storing published events: %1"_s.arg(errorText));

    qint64 maxSeq = 0;
    for (const StoredEvent &event : events) {
        insertEvent->bindAll(event.seq, event.topic, event.id, event.eventType, event.subject,
                             event.dataVersion, event.eventTime, event.publishMs, event.body);
        if (!insertEvent->execute()) {
            return sqlError(u"store event %1 (seq %2)"_s.arg(event.id).arg(event.seq),
                            insertEvent->errorText());
        }
        maxSeq = std::max(maxSeq, event.seq);
    }
    qint64 maxDeliveryId = 0;
    for (const DeliveryRecord &delivery : deliveries) {
        insertDelivery->bindAll(
            delivery.id, delivery.eventSeq, delivery.topic, delivery.subscription,
            static_cast<int>(delivery.state), delivery.attempts, delivery.dueMs, delivery.publishMs,
            static_cast<int>(delivery.lastOutcome), delivery.lastHttpStatus, delivery.lastAttemptMs,
            static_cast<int>(delivery.reason), delivery.deadLetterUnavailableSinceMs);
        if (!insertDelivery->execute()) {
            return sqlError(u"store delivery %1 (event seq %2, subscription %3)"_s.arg(delivery.id)
                                .arg(delivery.eventSeq)
                                .arg(delivery.subscription),
                            insertDelivery->errorText());
        }
        maxDeliveryId = std::max(maxDeliveryId, delivery.id);
    }
    raiseMaximum->bindAll(maxSeq, SqliteStoreState::maxEventSeqKey());
    bool raised = raiseMaximum->execute();
    if (raised) {
        raiseMaximum->bindAll(maxDeliveryId, SqliteStoreState::maxDeliveryIdKey());
        raised = raiseMaximum->execute();
    }
    if (!raised)
        return sqlError(u"record the highest ids"_s, raiseMaximum->errorText());
    return {};
}

Expected<void> SqliteDeliveryStore::insertPublished(const QList<StoredEvent> &events,
                                                    const QList<DeliveryRecord> &deliveries)
{
    const std::lock_guard lock(d->mutex);
    if (!d->database)
        return d->notOpen();
    if (events.isEmpty() && deliveries.isEmpty())
        return {};
    const QString what = u"store %1 published events"_s.arg(events.size());
    // SPEC D1: the publish is acknowledged only after this transaction commits, and a failure
    // leaves nothing behind.
    return d->inTransaction(what, [&]() -> Expected<void> {
        if (auto stored = d->insertPublishedRows(events, deliveries); !stored)
            return stored;
        return d->addTotals(totalsOfPublish(events, deliveries, true));
    });
}

Expected<void> SqliteDeliveryStore::commit(const StoreBatch &batch)
{
    const std::lock_guard lock(d->mutex);
    if (!d->database)
        return d->notOpen();
    if (batch.isEmpty())
        return {};
    return d->inTransaction(u"commit delivery changes"_s, [&]() -> Expected<void> {
        QString errorText;
        auto prepared = [&](const QByteArray &sql) {
            return d->statement(sql, &errorText);
        };
        auto prepareFailed = [&] {
            return d->error(u"prepare committing delivery changes: %1"_s.arg(errorText));
        };

        if (!batch.updates.isEmpty()) {
            SqliteStatement *update = prepared(
                "UPDATE deliveries SET state = ?, attempts = ?, due_ms = ?, last_outcome = ?,"
                " last_http_status = ?, last_attempt_ms = ?, reason = ?,"
                " dl_unavailable_since_ms = ? WHERE id = ?"_ba);
            if (!update)
                return prepareFailed();
            for (const DeliveryRecord &delivery : batch.updates) {
                update->bindAll(static_cast<int>(delivery.state), delivery.attempts, delivery.dueMs,
                                static_cast<int>(delivery.lastOutcome), delivery.lastHttpStatus,
                                delivery.lastAttemptMs, static_cast<int>(delivery.reason),
                                delivery.deadLetterUnavailableSinceMs, delivery.id);
                if (!update->execute()) {
                    return d->sqlError(u"update delivery %1"_s.arg(delivery.id),
                                       update->errorText());
                }
            }
        }

        if (!batch.finished.isEmpty()) {
            if (auto removed = d->removeFinished(batch.finished); !removed)
                return removed;
        }

        if (!batch.deadLetters.isEmpty()) {
            SqliteStatement *insert = prepared(InsertDeadLetterSql);
            if (!insert)
                return prepareFailed();
            for (const DeadLetterEntry &entry : batch.deadLetters) {
                bindDeadLetter(*insert, entry);
                if (!insert->execute()) {
                    return d->sqlError(u"index dead letter of event %1"_s.arg(entry.eventId),
                                       insert->errorText());
                }
            }
        }

        if (!batch.drops.isEmpty()) {
            SqliteStatement *insert = prepared(
                "INSERT INTO dropped (topic, subscription, event_id, reason, last_outcome,"
                " last_http_status, attempts, dropped_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"_ba);
            if (!insert)
                return prepareFailed();
            for (const DroppedEntry &entry : batch.drops) {
                insert->bindAll(entry.topic, entry.subscription, entry.eventId,
                                static_cast<int>(entry.reason), static_cast<int>(entry.lastOutcome),
                                entry.lastHttpStatus, entry.attempts, entry.droppedMs);
                if (!insert->execute()) {
                    return d->sqlError(u"record dropped event %1"_s.arg(entry.eventId),
                                       insert->errorText());
                }
            }
        }

        if (!batch.attempts.isEmpty()) {
            if (auto written = d->writeAttempts(batch.attempts); !written)
                return written;
        }

        if (!batch.probation.isEmpty()) {
            SqliteStatement *upsert = prepared(
                "INSERT OR REPLACE INTO probation (topic, subscription, state, cause, until_ms,"
                " duration_ms, failures) VALUES (?, ?, ?, ?, ?, ?, ?)"_ba);
            if (!upsert)
                return prepareFailed();
            for (const ProbationRecord &record : batch.probation) {
                upsert->bindAll(record.topic, record.subscription, record.state,
                                static_cast<int>(record.cause), record.untilMs, record.durationMs,
                                record.consecutiveFailures);
                if (!upsert->execute()) {
                    return d->sqlError(u"store probation of %1"_s.arg(record.subscription),
                                       upsert->errorText());
                }
            }
        }
        return d->addTotals(totalsOfBatch(batch));
    });
}

Expected<void> SqliteDeliveryStore::recordTimeScale(double scale)
{
    const std::lock_guard lock(d->mutex);
    if (!d->database)
        return d->notOpen();
    const auto permille = qint64(std::llround(scale * 1000.0));
    return d->inTransaction(u"record the time scale"_s, [&]() -> Expected<void> {
        QString errorText;
        SqliteStatement *last = d->statement(
            "INSERT INTO meta (key, value) VALUES ('time_scale_permille', ?)"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value"_ba,
            &errorText);
        SqliteStatement *fastest = last
            ? d->statement("INSERT INTO meta (key, value) VALUES ('fastest_time_scale_permille', ?)"
                           " ON CONFLICT (key) DO UPDATE SET value = max(meta.value, excluded.value)"_ba,
                           &errorText)
            : nullptr;
        if (!fastest)
            return d->error(u"prepare recording the time scale: %1"_s.arg(errorText));
        for (SqliteStatement *record : {last, fastest}) {
            record->bind(1, permille);
            if (!record->execute())
                return d->sqlError(u"record the time scale"_s, record->errorText());
        }
        return {};
    });
}

Expected<void> SqliteDeliveryStore::removeDeadLetters(const QList<qint64> &ids)
{
    const std::lock_guard lock(d->mutex);
    if (!d->database)
        return d->notOpen();
    if (ids.isEmpty())
        return {};
    return d->inTransaction(u"remove dead letters"_s, [&]() -> Expected<void> {
        QString errorText;
        SqliteStatement *remove
            = d->statement("DELETE FROM dead_letters WHERE id = ?"_ba, &errorText);
        if (!remove)
            return d->error(u"prepare removing dead letters: %1"_s.arg(errorText));
        for (const qint64 id : ids) {
            remove->bind(1, id);
            if (!remove->execute())
                return d->sqlError(u"remove dead letter %1"_s.arg(id), remove->errorText());
        }
        return {};
    });
}

Expected<void> SqliteDeliveryStore::insertResubmitted(const QList<StoredEvent> &events,
                                                      const QList<DeliveryRecord> &deliveries,
                                                      const QList<ResubmissionEntry> &resubmissions,
                                                      const QList<qint64> &deadLetterIds)
{
    const std::lock_guard lock(d->mutex);
    if (!d->database)
        return d->notOpen();
    if (events.isEmpty() && deadLetterIds.isEmpty())
        return {};
    const QString what = u"resubmit %1 dead letters"_s.arg(deadLetterIds.size());
    return d->inTransaction(what, [&]() -> Expected<void> {
        if (auto stored = d->insertPublishedRows(events, deliveries); !stored)
            return stored;
        if (auto counted = d->addTotals(totalsOfPublish(events, deliveries, false)); !counted)
            return counted;
        QString errorText;
        SqliteStatement *insert = d->statement(InsertResubmissionSql, &errorText);
        SqliteStatement *remove = insert
            ? d->statement("DELETE FROM dead_letters WHERE id = ?"_ba, &errorText)
            : nullptr;
        if (!remove)
            return d->error(u"prepare resubmitting dead letters: %1"_s.arg(errorText));
        for (const ResubmissionEntry &entry : resubmissions) {
            bindResubmission(*insert, entry);
            if (!insert->execute()) {
                return d->sqlError(
                    u"record the resubmission of dead letter %1"_s.arg(entry.deadLetterId),
                    insert->errorText());
            }
        }
        for (const qint64 id : deadLetterIds) {
            remove->bind(1, id);
            if (!remove->execute())
                return d->sqlError(u"remove dead letter %1"_s.arg(id), remove->errorText());
        }
        return {};
    });
}

} // namespace EventDesk
