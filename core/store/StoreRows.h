// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "DeliveryStore.h"

namespace EventDesk {

// Rows that both backends read the same way, from a SqliteStatement or a PostgresResult: an event,
// a dropped delivery and a probation row, each from columns in the order of its SELECT
// (SqliteStoreSchema.h: EventColumns, DroppedColumns). The dead-letter and delivery-log rows have
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
