// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "DeadLetterRows.h"

#include "SqliteStatement.h"

#include <limits>

using namespace Qt::StringLiterals;

namespace EventDesk {

DeadLetterEntry readDeadLetter(const SqliteStatement &row)
{
    DeadLetterEntry entry;
    entry.id = row.columnInt64(0);
    entry.topic = row.columnText(1);
    entry.subscription = row.columnText(2);
    entry.eventId = row.columnText(3);
    entry.reason = static_cast<DeadLetterReason>(row.columnInt(4));
    entry.lastOutcome = static_cast<DeliveryOutcome>(row.columnInt(5));
    entry.lastHttpStatus = row.columnInt(6);
    entry.attempts = row.columnInt(7);
    entry.publishMs = row.columnInt64(8);
    entry.lastAttemptMs = row.columnInt64(9);
    entry.deadLetteredMs = row.columnInt64(10);
    entry.blobPath = row.columnText(11);
    entry.record = row.columnBlob(12);
    entry.eventType = row.columnText(13);
    entry.subject = row.columnText(14);
    entry.dataVersion = row.columnText(15);
    entry.eventTime = row.columnText(16);
    entry.eventBody = row.columnBlob(17);
    return entry;
}

void bindDeadLetter(SqliteStatement &statement, const DeadLetterEntry &entry)
{
    statement.bindAll(entry.topic, entry.subscription, entry.eventId,
                      static_cast<int>(entry.reason), static_cast<int>(entry.lastOutcome),
                      entry.lastHttpStatus, entry.attempts, entry.publishMs, entry.lastAttemptMs,
                      entry.deadLetteredMs, entry.blobPath, entry.record, entry.eventType,
                      entry.subject, entry.dataVersion, entry.eventTime, entry.eventBody);
}

SqlConditions deadLetterConditions(const DeadLetterQuery &query)
{
    SqlConditions conditions;
    if (!query.topic.isEmpty())
        conditions.add("topic = ?", query.topic);
    if (!query.subscription.isEmpty())
        conditions.add("subscription = ?", query.subscription);
    if (query.reason != DeadLetterReason::None)
        conditions.add("reason = ?", qint64(query.reason));
    if (query.lastOutcome)
        conditions.add("last_outcome = ?", qint64(*query.lastOutcome));
    if (query.fromMs > 0 || query.toMs > 0) {
        // Both ends, also when only one is set: SQLite's planner, which has no statistics of the
        // store, takes a range open at one end for too wide to be worth the time index and walks
        // the whole table in id order instead (tst_storequeryplans).
        conditions.add("dead_lettered_ms >= ?",
                       query.fromMs > 0 ? query.fromMs : std::numeric_limits<qint64>::min());
        conditions.add("dead_lettered_ms <= ?",
                       query.toMs > 0 ? query.toMs : std::numeric_limits<qint64>::max());
    }
    if (!query.text.isEmpty()) {
        // LIKE ignores the case of ASCII letters, which is what a search box user expects; the
        // record is a BLOB, and SQLite compares BLOBs case-sensitively unless cast to TEXT.
        conditions.add("CAST(record AS TEXT) LIKE ? ESCAPE '\\'", likeContainsPattern(query.text));
    }
    // Keyset pagination (id < beforeId) costs the same on every page, unlike OFFSET.
    if (query.beforeId > 0)
        conditions.add("id < ?", query.beforeId);
    return conditions;
}

QByteArray deadLetterPageSql(const SqlConditions &conditions, DeadLetterFields fields)
{
    const char *columns
        = fields == DeadLetterFields::All ? DeadLetterColumns : DeadLetterIndexColumns;
    return "SELECT "_ba + columns + " FROM dead_letters"_ba + conditions.whereClause()
        + " ORDER BY id DESC LIMIT ?"_ba;
}

void bindDeadLetterPage(SqliteStatement &statement, const SqlConditions &conditions, int limit)
{
    statement.bind(conditions.bind(statement) + 1, limit > 0 ? limit : -1);
}

QByteArray deadLetterCountSql(const SqlConditions &conditions)
{
    return "SELECT count(*) FROM dead_letters"_ba + conditions.whereClause();
}

QByteArray deadLettersOfEventSql()
{
    return "SELECT "_ba + DeadLetterColumns
        + " FROM dead_letters WHERE event_id = ? ORDER BY id"_ba;
}

void bindResubmission(SqliteStatement &statement, const ResubmissionEntry &entry)
{
    statement.bindAll(entry.timeMs, entry.deadLetterId, entry.eventId, entry.topic,
                      entry.fromSubscription, static_cast<int>(entry.reason), entry.deadLetteredMs,
                      entry.toSubscription, entry.deliveryId, static_cast<int>(entry.route));
}

ResubmissionEntry readResubmission(const SqliteStatement &row)
{
    ResubmissionEntry entry;
    entry.id = row.columnInt64(0);
    entry.timeMs = row.columnInt64(1);
    entry.deadLetterId = row.columnInt64(2);
    entry.eventId = row.columnText(3);
    entry.topic = row.columnText(4);
    entry.fromSubscription = row.columnText(5);
    entry.reason = static_cast<DeadLetterReason>(row.columnInt(6));
    entry.deadLetteredMs = row.columnInt64(7);
    entry.toSubscription = row.columnText(8);
    entry.deliveryId = row.columnInt64(9);
    entry.route = row.columnInt(10) == int(ResubmitRoute::ToSubscription)
        ? ResubmitRoute::ToSubscription
        : ResubmitRoute::ThroughTopic;
    return entry;
}

QByteArray resubmissionsOfEventSql()
{
    return "SELECT "_ba + ResubmissionColumns
        + " FROM resubmissions WHERE event_id = ? ORDER BY id"_ba;
}

} // namespace EventDesk
