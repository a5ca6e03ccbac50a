// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "SqliteStoreReader.h"

#include "../AttemptLogRows.h"
#include "../ReaderSql.h"
#include "../SqlConditions.h"
#include "../StoreRows.h"
#include "SqliteStoreSchema.h"

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

// SQLite's LIMIT -1 is no limit, as DeadLetterQuery's and DeliveryStoreReader's limit <= 0.
qint64 sqliteLimit(int limit)
{
    return limit > 0 ? qint64(limit) : qint64(-1);
}

} // namespace

SqliteStoreReader::SqliteStoreReader(const QString &filePath)
    : m_filePath(filePath)
{
}

Expected<void> SqliteStoreReader::open()
{
    if (m_connection.isOpen())
        return {};
    return m_connection.open(m_filePath);
}

template<typename... Values>
Expected<void>
SqliteStoreReader::select(const QByteArray &sql,
                          const std::function<void(const SqliteStatement &row)> &read,
                          const Values &...values)
{
    if (auto opened = open(); !opened)
        return opened;
    auto done = m_connection.select(sql, read, values...);
    if (!done)
        m_connection.close();
    return done;
}

template<typename Row, typename... Values>
Expected<QList<Row>> SqliteStoreReader::selectList(const QByteArray &sql,
                                                   Row (*readRow)(const SqliteStatement &),
                                                   const Values &...values)
{
    QList<Row> rows;
    auto read = select(
        sql, [&rows, readRow](const SqliteStatement &row) { rows.append(readRow(row)); },
        values...);
    if (!read)
        return Error(read.error());
    return rows;
}

Expected<void>
SqliteStoreReader::selectConditions(const QByteArray &sql, const SqlConditions &conditions,
                                    int limit,
                                    const std::function<void(const SqliteStatement &row)> &read)
{
    if (auto opened = open(); !opened)
        return opened;
    auto statement = m_connection.statement(sql);
    if (!statement) {
        m_connection.close();
        return Error(statement.error());
    }
    const int bound = conditions.bind(*statement.value());
    if (limit != 0)
        statement.value()->bind(bound + 1, sqliteLimit(limit));
    auto done = m_connection.readRows(*statement.value(), read);
    if (!done)
        m_connection.close();
    return done;
}

Expected<QList<AttemptLogEntry>> SqliteStoreReader::newestAttempts(int limit)
{
    return selectList(newestAttemptsSql(), &readAttemptLogEntry<SqliteStatement>,
                      sqliteLimit(limit));
}

Expected<QList<AttemptLogEntry>> SqliteStoreReader::attemptsAfter(qint64 afterId, int limit)
{
    return selectList(attemptsAfterSql(), &readAttemptLogEntry<SqliteStatement>, afterId,
                      sqliteLimit(limit));
}

Expected<EventHistory> SqliteStoreReader::eventHistory(const QString &eventId)
{
    EventHistory history;
    history.eventId = eventId;
    auto read = select(
        attemptsOfEventSql(),
        [&history](const SqliteStatement &row) {
            history.attempts.append(readAttemptLogEntry(row));
        },
        eventId);
    if (read) {
        read = select(
            deadLettersOfEventSql(),
            [&history](const SqliteStatement &row) {
                history.deadLetters.append(readDeadLetter(row));
            },
            eventId);
    }
    if (read) {
        read = select(
            droppedOfEventSql(),
            [&history](const SqliteStatement &row) { history.drops.append(readDropped(row)); },
            eventId);
    }
    if (read) {
        read = select(
            resubmissionsOfEventSql(),
            [&history](const SqliteStatement &row) {
                history.resubmissions.append(readResubmission(row));
            },
            eventId);
    }
    if (read) {
        read = select(
            ReaderSql::EventsWithId,
            [&history](const SqliteStatement &row) { history.events.append(readEvent(row)); },
            eventId);
    }
    for (const StoredEvent &event : std::as_const(history.events)) {
        if (!read)
            break;
        read = select(
            "SELECT "_ba + DeliveryColumns + ReaderSql::DeliveriesOfEventWhere,
            [&history](const SqliteStatement &row) {
                history.unfinished.append(readDelivery(row));
            },
            event.seq);
    }
    if (!read)
        return Error(read.error());
    return history;
}

Expected<QList<DeadLetterEntry>> SqliteStoreReader::deadLetters(const DeadLetterQuery &query,
                                                                DeadLetterFields fields)
{
    const SqlConditions conditions = deadLetterConditions(query);
    QList<DeadLetterEntry> rows;
    auto read = selectConditions(
        deadLetterPageSql(conditions, fields), conditions, query.limit > 0 ? query.limit : -1,
        [&rows](const SqliteStatement &row) { rows.append(readDeadLetter(row)); });
    if (!read)
        return Error(read.error());
    return rows;
}

Expected<QList<qint64>> SqliteStoreReader::deadLetterIds(const DeadLetterQuery &query)
{
    const SqlConditions conditions = deadLetterConditions(query);
    QList<qint64> ids;
    auto read = selectConditions(
        "SELECT id FROM dead_letters"_ba + conditions.whereClause() + ReaderSql::DeadLetterIdsOrder,
        conditions, query.limit > 0 ? query.limit : -1,
        [&ids](const SqliteStatement &row) { ids.append(row.columnInt64(0)); });
    if (!read)
        return Error(read.error());
    return ids;
}

Expected<qint64> SqliteStoreReader::countDeadLetters(const DeadLetterQuery &query)
{
    DeadLetterQuery all = query;
    all.beforeId = 0; // a count is of every page
    const SqlConditions conditions = deadLetterConditions(all);
    qint64 count = 0;
    auto read
        = selectConditions(deadLetterCountSql(conditions), conditions, 0,
                           [&count](const SqliteStatement &row) { count = row.columnInt64(0); });
    if (!read)
        return Error(read.error());
    return count;
}

Expected<QList<DeadLetterEntry>> SqliteStoreReader::deadLettersById(const QList<qint64> &ids)
{
    // One statement per chunk of ids, the shorter last chunk repeating its last id (which IN
    // ignores), so that the connection prepares one statement for every chunk.
    constexpr int Chunk = 500;
    QList<DeadLetterEntry> rows;
    if (ids.isEmpty())
        return rows;
    if (auto opened = open(); !opened)
        return Error(opened.error());
    auto statement = m_connection.statement("SELECT "_ba + DeadLetterColumns
                                            + " FROM dead_letters WHERE id IN ("_ba
                                            + parameterList(Chunk) + ") ORDER BY id DESC"_ba);
    if (!statement) {
        m_connection.close();
        return Error(statement.error());
    }
    QList<DeadLetterEntry> chunkRows;
    for (qsizetype start = 0; start < ids.size(); start += Chunk) {
        const QList<qint64> chunk = ids.mid(start, Chunk);
        for (int i = 0; i < Chunk; ++i)
            statement.value()->bind(i + 1, chunk.at(std::min<qsizetype>(i, chunk.size() - 1)));
        auto read = m_connection.readRows(*statement.value(), [&rows](const SqliteStatement &row) {
            rows.append(readDeadLetter(row));
        });
        if (!read) {
            m_connection.close();
            return Error(read.error());
        }
    }
    // Newest first across the chunks too.
    std::sort(rows.begin(), rows.end(),
              [](const DeadLetterEntry &a, const DeadLetterEntry &b) { return a.id > b.id; });
    return rows;
}

Expected<StoreWatermarks> SqliteStoreReader::watermarks()
{
    StoreWatermarks marks;
    auto read = select(ReaderSql::Watermarks, [&marks](const SqliteStatement &row) {
        marks = ReaderSql::readWatermarks(row);
    });
    if (!read)
        return Error(read.error());
    return marks;
}

Expected<QList<FateCount>> SqliteStoreReader::deadLettersAfter(qint64 afterId)
{
    return selectList(ReaderSql::DeadLettersAfter, &ReaderSql::readFateCount<SqliteStatement>,
                      afterId);
}

Expected<QList<FateCount>> SqliteStoreReader::dropsAfter(qint64 afterId)
{
    return selectList(ReaderSql::DropsAfter, &ReaderSql::readFateCount<SqliteStatement>, afterId);
}

Expected<QList<DeliveryGauge>> SqliteStoreReader::deliveryGauges()
{
    return selectList(ReaderSql::DeliveryGauges, &ReaderSql::readDeliveryGauge<SqliteStatement>);
}

Expected<QList<ProbationRecord>> SqliteStoreReader::probation()
{
    return selectList("SELECT "_ba + ProbationColumns + " FROM probation"_ba,
                      &readProbationRow<SqliteStatement>);
}

Expected<StoreTotals> SqliteStoreReader::totals()
{
    auto rows = selectList(ReaderSql::Totals, &ReaderSql::readTotal<SqliteStatement>);
    if (!rows)
        return Error(rows.error());
    return StoreTotals::fromRows(rows.value());
}

Expected<EngineTimeScales> SqliteStoreReader::timeScales()
{
    auto rows = selectList(ReaderSql::TimeScales, &ReaderSql::readTimeScales<SqliteStatement>);
    if (!rows)
        return Error(rows.error());
    return rows->value(0);
}

Expected<TimeRange> SqliteStoreReader::deadLetterTimes()
{
    auto rows = selectList(ReaderSql::DeadLetterTimes, &ReaderSql::readTimeRange<SqliteStatement>);
    if (!rows)
        return Error(rows.error());
    return rows->value(0);
}

} // namespace EventDesk
