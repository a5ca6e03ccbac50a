// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "DeliveryStore.h"

#include <QByteArray>

namespace EventDesk {

// The columns of deliveries, events and dropped, in the order in which both backends read them
// (readEventRow() and readDroppedRow() below; the SQLite store's readDelivery(), the PostgreSQL
// store's delivery reader).
inline constexpr char DeliveryColumns[]
    = "id, event_seq, topic, subscription, state, attempts, due_ms, publish_ms, last_outcome,"
      " last_http_status, last_attempt_ms, reason, dl_unavailable_since_ms";
inline constexpr char EventColumns[]
    = "seq, topic, event_id, event_type, subject, data_version, event_time, publish_ms, body";
inline constexpr char DroppedColumns[]
    = "topic, subscription, event_id, reason, last_outcome, last_http_status, attempts,"
      " dropped_ms";
// The dropped deliveries of one event id (the parameter), oldest first: the event inspector's
// history.
inline QByteArray droppedOfEventSql()
{
    return QByteArray("SELECT ") + DroppedColumns + " FROM dropped WHERE event_id = ? ORDER BY id";
}

// Rows that both backends read the same way, from a SqliteStatement or a PostgresResult: an event,
// a dropped delivery and a probation row, each from columns in the order of its SELECT
// (EventColumns, DroppedColumns). The dead-letter and delivery-log rows have
// their own files (DeadLetterRows.h, AttemptLogRows.h).

template<typename Row> StoredEvent readEventRow(const Row &row)
{
    StoredEvent event;
    event.seq = row.columnInt64(0);
    event.topic = row.columnText(1);
    event.id = row.columnText(2);
    event.eventType = row.columnText(3);
    event.subject = row.columnText(4);
    event.dataVersion = row.columnText(5);
    event.eventTime = row.columnText(6);
    event.publishMs = row.columnInt64(7);
    event.body = row.columnBlob(8);
    return event;
}

template<typename Row> DroppedEntry readDroppedRow(const Row &row)
{
    DroppedEntry entry;
    entry.topic = row.columnText(0);
    entry.subscription = row.columnText(1);
    entry.eventId = row.columnText(2);
    entry.reason = static_cast<DeadLetterReason>(row.columnInt(3));
    entry.lastOutcome = static_cast<DeliveryOutcome>(row.columnInt(4));
    entry.lastHttpStatus = row.columnInt(5);
    entry.attempts = row.columnInt(6);
    entry.droppedMs = row.columnInt64(7);
    return entry;
}

// The probation table's columns as both backends select them, in this order. A shared store's
// query appends the row's revision and writer instance after them
// (InstanceLeases::probationOfOthers()).
inline constexpr char ProbationColumns[]
    = "topic, subscription, state, cause, until_ms, duration_ms, failures";

template<typename Row> ProbationRecord readProbationRow(const Row &row)
{
    ProbationRecord record;
    record.topic = row.columnText(0);
    record.subscription = row.columnText(1);
    record.state = row.columnInt(2);
    record.cause = static_cast<DeliveryOutcome>(row.columnInt(3));
    record.untilMs = row.columnInt64(4);
    record.durationMs = row.columnInt64(5);
    record.consecutiveFailures = row.columnInt(6);
    return record;
}

} // namespace EventDesk
