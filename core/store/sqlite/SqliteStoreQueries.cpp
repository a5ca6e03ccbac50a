// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// The reads of SqliteDeliveryStore: what the engine loads at start-up and when it builds batches,
// the dead-letter index and the logs.

#include "SqliteDeliveryStore.h"

#include "../StoreRows.h"
#include "SqliteStoreSchema.h"
#include "SqliteStoreState.h"

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

const QByteArray LoadDeliveriesSql
    = "SELECT "_ba + DeliveryColumns + " FROM deliveries ORDER BY id"_ba;
const QByteArray EventsByKeySql = "SELECT "_ba + EventColumns + " FROM events WHERE seq = ?"_ba;
const QByteArray EventsByKeyListSql = "SELECT "_ba + EventColumns + " FROM events WHERE seq IN ("_ba
    + parameterList(MaxParametersPerQuery) + ')';
const QByteArray DeadLettersByKeySql
    = "SELECT "_ba + DeadLetterColumns + " FROM dead_letters WHERE id = ?"_ba;
const QByteArray DeadLettersByKeyListSql = "SELECT "_ba + DeadLetterColumns
    + " FROM dead_letters WHERE id IN ("_ba + parameterList(MaxParametersPerQuery) + ')';

} // namespace

Expected<DeliveryStore::MaxIds> SqliteDeliveryStore::maxIds()
{
    const std::lock_guard lock(d->mutex);
    if (!d->database)
        return d->notOpen();
    QString errorText;
    SqliteStatement *query
        = d->statement("SELECT max(coalesce((SELECT value FROM meta WHERE key = ?), 0),"
                       " coalesce((SELECT max(seq) FROM events), 0)),"
                       " max(coalesce((SELECT value FROM meta WHERE key = ?), 0),"
                       " coalesce((SELECT max(id) FROM deliveries), 0))"_ba,
                       &errorText);
    if (!query)
        return d->error(u"prepare reading the highest ids: %1"_s.arg(errorText));
    query->bindAll(SqliteStoreState::maxEventSeqKey(), SqliteStoreState::maxDeliveryIdKey());
    const auto rows
        = d->collect<MaxIds>(*query, u"read the highest ids"_s, [](const SqliteStatement &row) {
              MaxIds ids;
              ids.eventSeq = row.columnInt64(0);
              ids.deliveryId = row.columnInt64(1);
              return ids;
          });
    if (!rows)
        return Error(rows.error());
    if (rows->size() != 1)
        return d->error(u"read the highest ids: no answer"_s);
    return rows->first();
}

Expected<QList<DeliveryRecord>> SqliteDeliveryStore::loadUnfinishedDeliveries()
{
    const std::lock_guard lock(d->mutex);
    if (!d->database)
        return d->notOpen();
    QString errorText;
    SqliteStatement *query = d->statement(LoadDeliveriesSql, &errorText);
    if (!query)
        return d->error(u"prepare loading deliveries: %1"_s.arg(errorText));
    return d->collect<DeliveryRecord>(*query, u"load deliveries"_s,
                                      [](const SqliteStatement &row) { return readDelivery(row); });
}

Expected<void> SqliteDeliveryStore::forEachUnfinishedDelivery(
    const std::function<void(const DeliveryRecord &)> &visit)
{
    const std::lock_guard lock(d->mutex);
    if (!d->database)
        return d->notOpen();
    // A statement of its own rather than the cached one of loadUnfinishedDeliveries(): visit may
    // call back into the store, and this runs once per start-up. SQLite steps through the table,
    // so a million-row backlog streams through one record.
    SqliteStatement query = SqliteStatement::prepare(d->database, LoadDeliveriesSql);
    if (!query.isValid())
        return d->sqlError(u"prepare loading deliveries"_s, query.errorText());
    DeliveryRecord record;
    DeliveryReader reader;
    int result = SQLITE_OK;
    while ((result = query.step()) == SQLITE_ROW) {
        readDelivery(query, record, &reader);
        visit(record);
    }
    if (result != SQLITE_DONE)
        return d->sqlError(u"load deliveries"_s, query.errorText());
    return {};
}

qint64 SqliteDeliveryStore::unfinishedDeliveryCountHint()
{
    const std::lock_guard lock(d->mutex);
    if (!d->database)
        return 0;
    // SQLite counts through the smallest index (deliveries_by_event): ~5 ms for a million rows.
    SqliteStatement query
        = SqliteStatement::prepare(d->database, "SELECT count(*) FROM deliveries"_ba);
    return query.isValid() && query.step() == SQLITE_ROW ? query.columnInt64(0) : 0;
}

Expected<QList<StoredEvent>> SqliteDeliveryStore::loadEvents(const QList<qint64> &seqs)
{
    const std::lock_guard lock(d->mutex);
    if (!d->database)
        return d->notOpen();
    if (seqs.isEmpty())
        return QList<StoredEvent>();
    return d->selectByKeys<StoredEvent>(EventsByKeySql, EventsByKeyListSql, seqs, u"load events"_s,
                                        readEvent);
}

Expected<QList<ProbationRecord>> SqliteDeliveryStore::loadProbation()
{
    const std::lock_guard lock(d->mutex);
    if (!d->database)
        return d->notOpen();
    QString errorText;
    SqliteStatement *query
        = d->statement("SELECT "_ba + ProbationColumns + " FROM probation"_ba, &errorText);
    if (!query)
        return d->error(u"prepare loading probation: %1"_s.arg(errorText));
    return d->collect<ProbationRecord>(*query, u"load probation"_s, [](const SqliteStatement &row) {
        return readProbationRow(row);
    });
}

Expected<QList<DeadLetterEntry>> SqliteDeliveryStore::deadLetters(const DeadLetterQuery &query)
{
    const std::lock_guard lock(d->mutex);
    if (!d->database)
        return d->notOpen();
    const SqlConditions filter = deadLetterConditions(query);
    QString errorText;
    SqliteStatement *statement
        = d->statement(deadLetterPageSql(filter, DeadLetterFields::All), &errorText);
    if (!statement)
        return d->error(u"prepare browsing dead letters: %1"_s.arg(errorText));
    bindDeadLetterPage(*statement, filter, query.limit);
    return d->collect<DeadLetterEntry>(*statement, u"browse dead letters"_s,
                                       readDeadLetter<SqliteStatement>);
}

Expected<QList<DeadLetterEntry>> SqliteDeliveryStore::deadLettersById(const QList<qint64> &ids)
{
    const std::lock_guard lock(d->mutex);
    if (!d->database)
        return d->notOpen();
    if (ids.isEmpty())
        return QList<DeadLetterEntry>();
    auto entries
        = d->selectByKeys<DeadLetterEntry>(DeadLettersByKeySql, DeadLettersByKeyListSql, ids,
                                           u"read dead letters"_s, readDeadLetter<SqliteStatement>);
    if (entries) {
        std::sort(entries->begin(), entries->end(),
                  [](const DeadLetterEntry &a, const DeadLetterEntry &b) { return a.id > b.id; });
    }
    return entries;
}

Expected<qint64> SqliteDeliveryStore::countDeadLetters(const DeadLetterQuery &query)
{
    const std::lock_guard lock(d->mutex);
    if (!d->database)
        return d->notOpen();
    DeadLetterQuery all = query;
    all.beforeId = 0; // a count is of every page
    const SqlConditions filter = deadLetterConditions(all);
    QString errorText;
    SqliteStatement *statement = d->statement(deadLetterCountSql(filter), &errorText);
    if (!statement)
        return d->error(u"prepare counting dead letters: %1"_s.arg(errorText));
    filter.bind(*statement);
    const auto counts
        = d->collect<qint64>(*statement, u"count dead letters"_s,
                             [](const SqliteStatement &row) { return row.columnInt64(0); });
    if (!counts)
        return Error(counts.error());
    if (counts->size() != 1)
        return d->error(u"count dead letters: no answer"_s);
    return counts->first();
}

Expected<QList<DroppedEntry>> SqliteDeliveryStore::droppedDeliveries(int limit)
{
    const std::lock_guard lock(d->mutex);
    if (!d->database)
        return d->notOpen();
    QString errorText;
    SqliteStatement *query = d->statement(
        "SELECT "_ba + DroppedColumns + " FROM dropped ORDER BY id DESC LIMIT ?"_ba, &errorText);
    if (!query)
        return d->error(u"prepare reading dropped deliveries: %1"_s.arg(errorText));
    query->bind(1, limit > 0 ? limit : -1);
    return d->collect<DroppedEntry>(*query, u"read dropped deliveries"_s, readDropped);
}

Expected<QList<AttemptLogEntry>> SqliteDeliveryStore::attemptLog(int limit)
{
    const std::lock_guard lock(d->mutex);
    if (!d->database)
        return d->notOpen();
    QString errorText;
    SqliteStatement *query = d->statement(newestAttemptsSql(), &errorText);
    if (!query)
        return d->error(u"prepare reading the delivery log: %1"_s.arg(errorText));
    query->bind(1, limit > 0 ? limit : -1);
    return d->collect<AttemptLogEntry>(*query, u"read the delivery log"_s,
                                       readAttemptLogEntry<SqliteStatement>);
}

} // namespace EventDesk
