// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "PostgresStoreReader.h"

#include "../AttemptLogRows.h"
#include "../ReaderSql.h"
#include "../StoreLocation.h"
#include "../StoreRows.h"
#include "PostgresStoreState.h"

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

void bindLimit(PostgresParameters &parameters, int limit)
{
    if (limit > 0)
        parameters.bind(qint64(limit));
    else
        parameters.bindNull(); // LIMIT NULL: no limit
}

} // namespace

PostgresStoreReader::PostgresStoreReader(const QString &url)
    : m_url(url)
    , d(std::make_unique<PostgresStoreState>(1))
{
}

PostgresStoreReader::~PostgresStoreReader() = default;

QString PostgresStoreReader::displayName() const
{
    return redactedStoreLocation(m_url);
}

Expected<void> PostgresStoreReader::open()
{
    if (!d->connection)
        d->connection = std::make_unique<PostgresConnection>(m_url);
    if (m_sessionReady && d->connection->isConnected())
        return {};
    m_sessionReady = false;
    if (auto connected = d->connection->ensureConnected(); !connected)
        return connected;
    // Per session: a connection opened again (after the server went away) is set up again here
    // before anything else runs on it.
    if (auto readOnly = d->connection->run("SET default_transaction_read_only = on"_ba,
                                           u"make the session read-only"_s);
        !readOnly)
        return Error(readOnly.error());
    const QString what = u"read the store's schema version"_s;
    auto exists = d->connection->run("SELECT to_regclass('eventdesk_store') IS NOT NULL"_ba, what);
    if (!exists)
        return Error(exists.error());
    if (exists->rowCount() != 1 || exists->columnInt64(0) == 0) {
        return d->connection->error(
            what,
            u"the database holds no EventDesk store yet (an eventdeskd started with "
            "--store on it creates one)"_s);
    }
    auto version = d->connection->run("SELECT max(version) FROM eventdesk_store"_ba, what);
    if (!version)
        return Error(version.error());
    const qint64 found = version->rowCount() == 1 ? version->columnInt64(0) : 0;
    if (found > PostgresSchemaVersion) {
        return d->connection->error(what,
                                    u"it was written by a newer EventDesk (store version "
                                    "%1, this build reads version %2)"_s.arg(found)
                                        .arg(PostgresSchemaVersion));
    }
    if (found < PostgresSchemaVersion) {
        return d->connection->error(what,
                                    u"it is of store version %1; an eventdeskd of this "
                                    "build migrates it to version %2 when it opens it"_s.arg(found)
                                        .arg(PostgresSchemaVersion));
    }
    m_sessionReady = true;
    return {};
}

Expected<QList<AttemptLogEntry>> PostgresStoreReader::newestAttempts(int limit)
{
    if (auto opened = open(); !opened)
        return Error(opened.error());
    PostgresParameters parameters;
    bindLimit(parameters, limit);
    return d->selectAttempts("SELECT "_ba + PostgresAttemptLogColumns
                                 + " FROM attempt_log ORDER BY id DESC LIMIT $1"_ba,
                             parameters, u"read the delivery log"_s);
}

Expected<QList<AttemptLogEntry>> PostgresStoreReader::attemptsAfter(qint64 afterId, int limit)
{
    if (auto opened = open(); !opened)
        return Error(opened.error());
    PostgresParameters parameters;
    parameters.bind(afterId);
    bindLimit(parameters, limit);
    return d->selectAttempts("SELECT "_ba + PostgresAttemptLogColumns
                                 + " FROM attempt_log WHERE id > $1 ORDER BY id LIMIT $2"_ba,
                             parameters, u"read the delivery log"_s);
}

Expected<EventHistory> PostgresStoreReader::eventHistory(const QString &eventId)
{
    if (auto opened = open(); !opened)
        return Error(opened.error());
    EventHistory history;
    history.eventId = eventId;
    PostgresParameters byEvent;
    byEvent.bind(eventId);
    const QString what = u"read the history of event %1"_s.arg(eventId);

    auto attempts = d->selectAttempts(
        "SELECT "_ba + PostgresAttemptLogColumns
            + " FROM attempt_log WHERE id IN"
              " (SELECT attempt_id FROM attempt_events WHERE event_id = $1) ORDER BY id"_ba,
        byEvent, what);
    if (!attempts)
        return Error(attempts.error());
    history.attempts = attempts.value();

    auto deadLetters = d->collect<DeadLetterEntry>(
        postgresPlaceholders(deadLettersOfEventSql()), byEvent, what,
        [](const PostgresResult &row) { return readDeadLetter(row); });
    if (!deadLetters)
        return Error(deadLetters.error());
    history.deadLetters = deadLetters.value();

    auto drops = d->collect<DroppedEntry>(postgresPlaceholders(droppedOfEventSql()), byEvent, what,
                                          readDroppedRow<PostgresResult>);
    if (!drops)
        return Error(drops.error());
    history.drops = drops.value();

    auto resubmissions = d->collect<ResubmissionEntry>(
        postgresPlaceholders(resubmissionsOfEventSql()), byEvent, what,
        [](const PostgresResult &row) { return readResubmission(row); });
    if (!resubmissions)
        return Error(resubmissions.error());
    history.resubmissions = resubmissions.value();

    auto events = d->collect<StoredEvent>(postgresPlaceholders(ReaderSql::EventsWithId), byEvent,
                                          what, readEventRow<PostgresResult>);
    if (!events)
        return Error(events.error());
    history.events = events.value();

    const QByteArray deliveriesSql = postgresPlaceholders(
        QByteArray("SELECT "_ba + PostgresDeliveryColumns + ReaderSql::DeliveriesOfEventWhere));
    for (const StoredEvent &event : std::as_const(history.events)) {
        PostgresParameters bySeq;
        bySeq.bind(event.seq);
        auto deliveries
            = d->collect<DeliveryRecord>(deliveriesSql, bySeq, what, [](const PostgresResult &row) {
                  DeliveryRecord record;
                  readPostgresDelivery(row, record);
                  return record;
              });
        if (!deliveries)
            return Error(deliveries.error());
        history.unfinished += deliveries.value();
    }
    return history;
}

Expected<QList<DeadLetterEntry>> PostgresStoreReader::deadLetters(const DeadLetterQuery &query,
                                                                  DeadLetterFields fields)
{
    if (auto opened = open(); !opened)
        return Error(opened.error());
    return d->selectDeadLetters(query, fields);
}

Expected<QList<qint64>> PostgresStoreReader::deadLetterIds(const DeadLetterQuery &query)
{
    if (auto opened = open(); !opened)
        return Error(opened.error());
    const SqlConditions conditions = deadLetterConditions(query, PostgresRecordContains);
    PostgresParameters parameters;
    bindConditions(parameters, conditions);
    bindLimit(parameters, query.limit);
    const QByteArray sql = "SELECT id FROM dead_letters"_ba + conditions.whereClause()
        + ReaderSql::DeadLetterIdsOrder;
    return d->collect<qint64>(postgresPlaceholders(sql), parameters, u"browse dead letters"_s,
                              [](const PostgresResult &row) { return row.columnInt64(0); });
}

Expected<qint64> PostgresStoreReader::countDeadLetters(const DeadLetterQuery &query)
{
    if (auto opened = open(); !opened)
        return Error(opened.error());
    return d->countDeadLetters(query);
}

Expected<QList<DeadLetterEntry>> PostgresStoreReader::deadLettersById(const QList<qint64> &ids)
{
    if (auto opened = open(); !opened)
        return Error(opened.error());
    return d->selectDeadLettersById(ids);
}

Expected<StoreWatermarks> PostgresStoreReader::watermarks()
{
    if (auto opened = open(); !opened)
        return Error(opened.error());
    auto rows = d->collect<StoreWatermarks>(ReaderSql::Watermarks, {}, u"read the newest rows"_s,
                                            ReaderSql::readWatermarks<PostgresResult>);
    if (!rows)
        return Error(rows.error());
    if (rows->size() != 1)
        return d->connection->error(u"read the newest rows"_s, u"no answer"_s);
    return rows->first();
}

Expected<QList<FateCount>> PostgresStoreReader::deadLettersAfter(qint64 afterId)
{
    if (auto opened = open(); !opened)
        return Error(opened.error());
    PostgresParameters parameters;
    parameters.bind(afterId);
    return d->collect<FateCount>(postgresPlaceholders(ReaderSql::DeadLettersAfter), parameters,
                                 u"count new dead letters"_s,
                                 ReaderSql::readFateCount<PostgresResult>);
}

Expected<QList<FateCount>> PostgresStoreReader::dropsAfter(qint64 afterId)
{
    if (auto opened = open(); !opened)
        return Error(opened.error());
    PostgresParameters parameters;
    parameters.bind(afterId);
    return d->collect<FateCount>(postgresPlaceholders(ReaderSql::DropsAfter), parameters,
                                 u"count new drops"_s, ReaderSql::readFateCount<PostgresResult>);
}

Expected<QList<DeliveryGauge>> PostgresStoreReader::deliveryGauges()
{
    if (auto opened = open(); !opened)
        return Error(opened.error());
    return d->collect<DeliveryGauge>(ReaderSql::DeliveryGauges, {}, u"count the deliveries"_s,
                                     ReaderSql::readDeliveryGauge<PostgresResult>);
}

Expected<QList<ProbationRecord>> PostgresStoreReader::probation()
{
    if (auto opened = open(); !opened)
        return Error(opened.error());
    return d->collect<ProbationRecord>(
        "SELECT "_ba + ProbationColumns + " FROM probation"_ba, {}, u"read probation"_s,
        [](const PostgresResult &row) { return readProbationRow(row); });
}

Expected<StoreTotals> PostgresStoreReader::totals()
{
    if (auto opened = open(); !opened)
        return Error(opened.error());
    // Compacted and not yet compacted changes, in one snapshot (PostgresStoreSchema.cpp).
    auto rows = d->collect<TotalChange>(
        "SELECT topic, subscription, counter, sum(value)::bigint FROM (SELECT topic, subscription,"
        " counter, value FROM totals UNION ALL SELECT topic, subscription, counter, value"
        " FROM total_changes) counted GROUP BY topic, subscription, counter"_ba,
        {}, u"read the totals"_s, [](const PostgresResult &row) { return ReaderSql::readTotal(row); });
    if (!rows)
        return Error(rows.error());
    return StoreTotals::fromRows(rows.value());
}

Expected<EngineTimeScales> PostgresStoreReader::timeScales()
{
    if (auto opened = open(); !opened)
        return Error(opened.error());
    auto rows = d->collect<EngineTimeScales>(ReaderSql::TimeScales, {}, u"read the time scales"_s,
                                             [](const PostgresResult &row) {
                                                 return ReaderSql::readTimeScales(row);
                                             });
    if (!rows)
        return Error(rows.error());
    return rows->value(0);
}

Expected<TimeRange> PostgresStoreReader::deadLetterTimes()
{
    if (auto opened = open(); !opened)
        return Error(opened.error());
    auto rows = d->collect<TimeRange>(ReaderSql::DeadLetterTimes, {},
                                      u"read the times of the dead letters"_s,
                                      [](const PostgresResult &row) { return ReaderSql::readTimeRange(row); });
    if (!rows)
        return Error(rows.error());
    return rows->value(0);
}

Expected<QList<InstanceStatus>> PostgresStoreReader::instances()
{
    if (auto opened = open(); !opened)
        return Error(opened.error());
    return d->selectInstances();
}

} // namespace EventDesk
