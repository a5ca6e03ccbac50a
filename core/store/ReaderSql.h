// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

// The SQL of DeliveryStoreReader that both backends run as it stands (PostgreSQL after
// postgresPlaceholders()), and how their rows are read. Not for use outside core/store.

#include "DeliveryStoreReader.h"

namespace EventDesk::ReaderSql {

inline constexpr char Watermarks[] = "SELECT (SELECT coalesce(max(id), 0) FROM attempt_log),"
                                     " (SELECT coalesce(max(id), 0) FROM dead_letters),"
                                     " (SELECT coalesce(max(id), 0) FROM dropped)";
inline constexpr char DeadLettersAfter[]
    = "SELECT topic, subscription, reason, count(*), max(id) FROM dead_letters WHERE id > ?"
      " GROUP BY topic, subscription, reason";
inline constexpr char DropsAfter[]
    = "SELECT topic, subscription, reason, count(*), max(id) FROM dropped WHERE id > ?"
      " GROUP BY topic, subscription, reason";
inline constexpr char DeliveryGauges[]
    = "SELECT topic, subscription, state, count(*), min(due_ms) FROM deliveries"
      " GROUP BY topic, subscription, state";
inline constexpr char EventsWithId[] = "SELECT seq, topic, event_id, event_type, subject,"
                                       " data_version, event_time, publish_ms, body"
                                       " FROM events WHERE event_id = ? ORDER BY seq";
inline constexpr char DeliveriesOfEventWhere[] = " FROM deliveries WHERE event_seq = ? ORDER BY id";

// The running totals (StoreTotals.h), one row per counter.
inline constexpr char Totals[] = "SELECT topic, subscription, counter, value FROM totals";

// The scales DeliveryStore::recordTimeScale() kept, in thousandths.
inline constexpr char TimeScales[]
    = "SELECT coalesce((SELECT value FROM meta WHERE key = 'time_scale_permille'), 0),"
      " coalesce((SELECT value FROM meta WHERE key = 'fastest_time_scale_permille'), 0)";
// Each bound alone, so that both read one end of dead_letters_by_time.
inline constexpr char DeadLetterTimes[]
    = "SELECT coalesce((SELECT min(dead_lettered_ms) FROM dead_letters), 0),"
      " coalesce((SELECT max(dead_lettered_ms) FROM dead_letters), 0)";

// The ids of a page of dead letters: "SELECT id FROM dead_letters" + where + this, the LIMIT last.
inline constexpr char DeadLetterIdsOrder[] = " ORDER BY id DESC LIMIT ?";

template<typename Row> StoreWatermarks readWatermarks(const Row &row)
{
    return {row.columnInt64(0), row.columnInt64(1), row.columnInt64(2)};
}

template<typename Row> TotalChange readTotal(const Row &row)
{
    return {row.columnText(0), row.columnText(1), row.columnInt(2), row.columnInt64(3)};
}

template<typename Row> EngineTimeScales readTimeScales(const Row &row)
{
    return {double(row.columnInt64(0)) / 1000.0, double(row.columnInt64(1)) / 1000.0};
}

template<typename Row> TimeRange readTimeRange(const Row &row)
{
    return {row.columnInt64(0), row.columnInt64(1)};
}

template<typename Row> FateCount readFateCount(const Row &row)
{
    FateCount fate;
    fate.topic = row.columnText(0);
    fate.subscription = row.columnText(1);
    fate.reason = DeadLetterReason(row.columnInt(2));
    fate.count = row.columnInt64(3);
    fate.newestId = row.columnInt64(4);
    return fate;
}

template<typename Row> DeliveryGauge readDeliveryGauge(const Row &row)
{
    DeliveryGauge gauge;
    gauge.topic = row.columnText(0);
    gauge.subscription = row.columnText(1);
    gauge.state = DeliveryState(row.columnInt(2));
    gauge.count = row.columnInt64(3);
    gauge.earliestDueMs = row.columnInt64(4);
    return gauge;
}

} // namespace EventDesk::ReaderSql
