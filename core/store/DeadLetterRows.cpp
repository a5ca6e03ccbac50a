// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "DeadLetterRows.h"

#include <limits>

using namespace Qt::StringLiterals;

namespace EventDesk {

SqlConditions deadLetterConditions(const DeadLetterQuery &query, QByteArrayView textCondition)
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
        conditions.add(textCondition, likeContainsPattern(query.text));
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

QByteArray deadLetterCountSql(const SqlConditions &conditions)
{
    return "SELECT count(*) FROM dead_letters"_ba + conditions.whereClause();
}

QByteArray deadLettersOfEventSql()
{
    return "SELECT "_ba + DeadLetterColumns
        + " FROM dead_letters WHERE event_id = ? ORDER BY id"_ba;
}

QByteArray resubmissionsOfEventSql()
{
    return "SELECT "_ba + ResubmissionColumns
        + " FROM resubmissions WHERE event_id = ? ORDER BY id"_ba;
}

} // namespace EventDesk
