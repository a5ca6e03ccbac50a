// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// PostgresDeliveryStore: opening and closing, and the reads (what the engine loads at start-up and
// when it builds batches, the dead-letter index and the logs). The writes are in
// PostgresStoreWrites.cpp, the schema in PostgresStoreSchema.cpp.

#include "PostgresDeliveryStore.h"

#include "../AttemptLogRows.h"
#include "../DeadLetterRows.h"
#include "../StoreRows.h"
#include "PostgresStoreState.h"

#include <vector>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

// forEachUnfinishedDelivery() reads the deliveries this many at a time (keyset pages), so that a
// backlog of a million rows never sits in memory at once, and a visitor may call the store.
constexpr qint64 DeliveriesPerPage = 5000;

const QByteArray DeliveriesPageSql = "SELECT "_ba + PostgresDeliveryColumns
    + " FROM deliveries WHERE id > $1 ORDER BY id LIMIT $2"_ba;

} // namespace

void readPostgresDelivery(const PostgresResult &row, DeliveryRecord &record)
{
    record.id = row.columnInt64(0);
    record.eventSeq = row.columnInt64(1);
    record.topic = row.columnText(2);
    record.subscription = row.columnText(3);
    record.state = static_cast<DeliveryState>(row.columnInt(4));
    record.attempts = row.columnInt(5);
    record.dueMs = row.columnInt64(6);
    record.publishMs = row.columnInt64(7);
    record.lastOutcome = static_cast<DeliveryOutcome>(row.columnInt(8));
    record.lastHttpStatus = row.columnInt(9);
    record.lastAttemptMs = row.columnInt64(10);
    record.reason = static_cast<DeadLetterReason>(row.columnInt(11));
    record.deadLetterUnavailableSinceMs = row.columnInt64(12);
}

namespace {

std::vector<qint64> keyArray(const QList<qint64> &keys)
{
    return std::vector<qint64>(keys.cbegin(), keys.cend());
}

// LIMIT NULL is no limit.
void bindLimit(PostgresParameters &parameters, int limit)
{
    if (limit > 0)
        parameters.bind(qint64(limit));
    else
        parameters.bindNull();
}

} // namespace

PostgresDeliveryStore::PostgresDeliveryStore(int maxAttemptLogRows)
    : d(std::make_unique<PostgresStoreState>(maxAttemptLogRows))
{
}

PostgresDeliveryStore::~PostgresDeliveryStore()
{
    close();
}

Expected<void> PostgresDeliveryStore::open(const QString &url)
{
    const std::lock_guard lock(d->mutex);
    const std::lock_guard publishLock(d->publishMutex);
    d->connection.reset();
    d->publishConnection.reset();
    d->attemptLogTrimmedThrough = 0;
    d->instanceId = 0;
    d->lostDeliveries.clear();
    // Both connections go to one server: when one finds it gone, the other connects again too.
    const auto losses = std::make_shared<std::atomic<quint64>>(0);
    auto connection = std::make_unique<PostgresConnection>(url);
    connection->shareLosses(losses);
    if (auto connected = connection->ensureConnected(); !connected)
        return connected;
    d->connection = std::move(connection);
    if (auto schema = d->openSchema(); !schema) {
        d->connection.reset();
        return schema;
    }
    // The publish connection opens once the schema is there, so that a store that cannot be
    // opened fails on the first connection alone (and its error is the schema's, not a second
    // copy of the connection's); a server that refuses a second connection fails open() too.
    auto publishConnection = std::make_unique<PostgresConnection>(url);
    publishConnection->shareLosses(losses);
    if (auto connected = publishConnection->ensureConnected(); !connected) {
        d->connection.reset();
        return connected;
    }
    d->publishConnection = std::move(publishConnection);
    return {};
}

void PostgresDeliveryStore::close()
{
    const std::lock_guard lock(d->mutex);
    const std::lock_guard publishLock(d->publishMutex);
    d->connection.reset();
    d->publishConnection.reset();
}

Expected<DeliveryStore::MaxIds> PostgresDeliveryStore::maxIds()
{
    const std::lock_guard lock(d->mutex);
    if (!d->connection)
        return d->notOpen();
    auto rows = d->collect<MaxIds>(
        "SELECT GREATEST(coalesce((SELECT value FROM meta WHERE key = 'max_event_seq'), 0),"
        " coalesce((SELECT max(seq) FROM events), 0)),"
        " GREATEST(coalesce((SELECT value FROM meta WHERE key = 'max_delivery_id'), 0),"
        " coalesce((SELECT max(id) FROM deliveries), 0))"_ba,
        {}, u"read the highest ids"_s, [](const PostgresResult &row) {
            MaxIds ids;
            ids.eventSeq = row.columnInt64(0);
            ids.deliveryId = row.columnInt64(1);
            return ids;
        });
    if (!rows)
        return Error(rows.error());
    if (rows->size() != 1)
        return d->connection->error(u"read the highest ids"_s, u"no answer"_s);
    return rows->first();
}

Expected<QList<DeliveryRecord>> PostgresDeliveryStore::loadUnfinishedDeliveries()
{
    QList<DeliveryRecord> records;
    auto visited = forEachUnfinishedDelivery(
        [&records](const DeliveryRecord &record) { records.append(record); });
    if (!visited)
        return Error(visited.error());
    return records;
}

Expected<void> PostgresDeliveryStore::forEachUnfinishedDelivery(
    const std::function<void(const DeliveryRecord &)> &visit)
{
    const std::lock_guard lock(d->mutex);
    if (!d->connection)
        return d->notOpen();
    DeliveryRecord record;
    qint64 afterId = std::numeric_limits<qint64>::min();
    for (;;) {
        PostgresParameters parameters;
        parameters.bindAll(afterId, DeliveriesPerPage);
        auto page = d->connection->execute(DeliveriesPageSql, parameters, u"load deliveries"_s);
        if (!page)
            return Error(page.error());
        const int count = page->rowCount();
        for (int row = 0; row < count; ++row) {
            page->setRow(row);
            readPostgresDelivery(page.value(), record);
            visit(record);
        }
        if (count < DeliveriesPerPage)
            return {};
        afterId = record.id;
    }
}

qint64 PostgresDeliveryStore::unfinishedDeliveryCountHint()
{
    const std::lock_guard lock(d->mutex);
    if (!d->connection)
        return 0;
    // The planner's estimate (kept by ANALYZE and autovacuum) costs nothing, where count(*) would
    // read the whole table; -1 (never analyzed) reads as no hint.
    auto estimate
        = d->connection->execute("SELECT GREATEST(reltuples, 0)::bigint FROM pg_catalog.pg_class"
                                 " WHERE oid = 'deliveries'::regclass"_ba,
                                 {}, u"estimate the deliveries"_s);
    return estimate && estimate->rowCount() == 1 ? estimate->columnInt64(0) : 0;
}

Expected<QList<StoredEvent>> PostgresDeliveryStore::loadEvents(const QList<qint64> &seqs)
{
    const std::lock_guard lock(d->mutex);
    if (!d->connection)
        return d->notOpen();
    if (seqs.isEmpty())
        return QList<StoredEvent>();
    PostgresParameters parameters;
    parameters.bindArray(keyArray(seqs));
    return d->collect<StoredEvent>("SELECT "_ba + EventColumns
                                       + " FROM events WHERE seq = ANY($1)"_ba,
                                   parameters, u"load events"_s, readEventRow<PostgresResult>);
}

Expected<QList<ProbationRecord>> PostgresDeliveryStore::loadProbation()
{
    const std::lock_guard lock(d->mutex);
    if (!d->connection)
        return d->notOpen();
    return d->collect<ProbationRecord>(
        "SELECT "_ba + ProbationColumns + " FROM probation"_ba, {}, u"load probation"_s,
        [](const PostgresResult &row) { return readProbationRow(row); });
}

Expected<QList<DeadLetterEntry>> PostgresDeliveryStore::deadLetters(const DeadLetterQuery &query)
{
    const std::lock_guard lock(d->mutex);
    if (!d->connection)
        return d->notOpen();
    return d->selectDeadLetters(query, DeadLetterFields::All);
}

Expected<QList<DeadLetterEntry>> PostgresDeliveryStore::deadLettersById(const QList<qint64> &ids)
{
    const std::lock_guard lock(d->mutex);
    if (!d->connection)
        return d->notOpen();
    return d->selectDeadLettersById(ids);
}

Expected<qint64> PostgresDeliveryStore::countDeadLetters(const DeadLetterQuery &query)
{
    const std::lock_guard lock(d->mutex);
    if (!d->connection)
        return d->notOpen();
    return d->countDeadLetters(query);
}

Expected<QList<DroppedEntry>> PostgresDeliveryStore::droppedDeliveries(int limit)
{
    const std::lock_guard lock(d->mutex);
    if (!d->connection)
        return d->notOpen();
    PostgresParameters parameters;
    bindLimit(parameters, limit);
    return d->collect<DroppedEntry>(
        "SELECT "_ba + DroppedColumns + " FROM dropped ORDER BY id DESC LIMIT $1"_ba, parameters,
        u"read dropped deliveries"_s, readDroppedRow<PostgresResult>);
}

Expected<QList<AttemptLogEntry>> PostgresDeliveryStore::attemptLog(int limit)
{
    const std::lock_guard lock(d->mutex);
    if (!d->connection)
        return d->notOpen();
    PostgresParameters parameters;
    bindLimit(parameters, limit);
    return d->selectAttempts("SELECT "_ba + PostgresAttemptLogColumns
                                 + " FROM attempt_log ORDER BY id DESC LIMIT $1"_ba,
                             parameters, u"read the delivery log"_s);
}

// The reads that the store and PostgresStoreReader share.

Expected<QList<DeadLetterEntry>> PostgresStoreState::selectDeadLetters(const DeadLetterQuery &query,
                                                                       DeadLetterFields fields)
{
    const SqlConditions filter = deadLetterConditions(query, PostgresRecordContains);
    PostgresParameters parameters;
    bindConditions(parameters, filter);
    bindLimit(parameters, query.limit);
    return collect<DeadLetterEntry>(postgresPlaceholders(deadLetterPageSql(filter, fields)),
                                    parameters, u"browse dead letters"_s,
                                    [](const PostgresResult &row) { return readDeadLetter(row); });
}

Expected<QList<DeadLetterEntry>> PostgresStoreState::selectDeadLettersById(const QList<qint64> &ids)
{
    if (ids.isEmpty())
        return QList<DeadLetterEntry>();
    PostgresParameters parameters;
    parameters.bindArray(keyArray(ids));
    return collect<DeadLetterEntry>(
        "SELECT "_ba + DeadLetterColumns
            + " FROM dead_letters WHERE id = ANY($1) ORDER BY id DESC"_ba,
        parameters, u"read dead letters"_s,
        [](const PostgresResult &row) { return readDeadLetter(row); });
}

Expected<qint64> PostgresStoreState::countDeadLetters(const DeadLetterQuery &query)
{
    DeadLetterQuery all = query;
    all.beforeId = 0; // a count is of every page
    const SqlConditions filter = deadLetterConditions(all, PostgresRecordContains);
    PostgresParameters parameters;
    bindConditions(parameters, filter);
    const auto counts = collect<qint64>(
        postgresPlaceholders(deadLetterCountSql(filter)), parameters, u"count dead letters"_s,
        [](const PostgresResult &row) { return row.columnInt64(0); });
    if (!counts)
        return Error(counts.error());
    if (counts->size() != 1)
        return connection->error(u"count dead letters"_s, u"no answer"_s);
    return counts->first();
}

Expected<QList<AttemptLogEntry>>
PostgresStoreState::selectAttempts(const QByteArray &sql, const PostgresParameters &parameters,
                                   const QString &what)
{
    return collect<AttemptLogEntry>(sql, parameters, what, [](const PostgresResult &row) {
        AttemptLogEntry entry = readAttemptLogEntry(row);
        entry.instance = row.columnInt64(10);
        return entry;
    });
}

} // namespace EventDesk
