// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "DeliveryStore.h"

namespace EventDesk {

// The probation table's columns as both backends select them, in this order, and the one reader of
// such a row (a SqliteStatement or a PostgresResult). A shared store's query appends the row's
// revision and writer instance after them (InstanceLeases::probationOfOthers()).
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
