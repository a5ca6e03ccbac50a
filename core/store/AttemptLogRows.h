// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "DeliveryStore.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QStringList>

namespace EventDesk {

// How the delivery log is stored: attempt_log holds one row per attempt (one HTTP request), and
// attempt_events the ids of the events it carried, one row each, with their position in the
// request. The store writes and reads the log through these, and the desktop app's delivery log
// and event inspector read it through them over their own connection (SqliteReadOnlyDatabase).

// Columns of attempt_log, in the order readAttemptLogEntry() reads them, for a statement that
// selects FROM attempt_log (under that name: the fifth column gathers the event ids of the row
// from attempt_events, see decodeEventIds()).
inline constexpr char AttemptLogColumns[]
    = "id, time_ms, topic, subscription,"
      " (SELECT group_concat(position || ':' || length(CAST(event_id AS BLOB)) || ':' || event_id,"
      " '') FROM attempt_events WHERE attempt_id = attempt_log.id),"
      " attempt, http_status, outcome, duration_ms, next_due_ms";

// The event ids of an attempt as the fifth column of AttemptLogColumns has them: for each event
// "<position>:<length of the id in UTF-8 bytes>:<id>", in any order. Lengths rather than
// separators, so that an id may hold any character; positions, because SQLite does not promise
// the order in which group_concat() sees the rows. In order of position; damaged text yields
// the ids before the damage.
QStringList decodeEventIds(QByteArrayView encoded);

// Reads a row of AttemptLogColumns, for any row with SqliteStatement's column readers
// (PostgresResult too) whose fifth column is encoded as decodeEventIds() reads it.
template<typename Row> AttemptLogEntry readAttemptLogEntry(const Row &row)
{
    AttemptLogEntry entry;
    entry.id = row.columnInt64(0);
    entry.timeMs = row.columnInt64(1);
    entry.topic = row.columnText(2);
    entry.subscription = row.columnText(3);
    entry.eventIds = decodeEventIds(row.columnBlob(4));
    entry.attempt = row.columnInt(5);
    entry.httpStatus = row.columnInt(6);
    entry.outcome = static_cast<DeliveryOutcome>(row.columnInt(7));
    entry.durationMs = row.columnInt64(8);
    entry.nextDueMs = row.columnInt64(9);
    return entry;
}

// Adds one attempt; bindAttempt() binds an entry (all but its id, which the table assigns, and
// its event ids, which go to attempt_events) to the statement's parameters.
inline constexpr char InsertAttemptSql[]
    = "INSERT INTO attempt_log (time_ms, topic, subscription, attempt, http_status, outcome,"
      " duration_ms, next_due_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
template<typename Statement> void bindAttempt(Statement &statement, const AttemptLogEntry &entry)
{
    statement.bindAll(entry.timeMs, entry.topic, entry.subscription, entry.attempt,
                      entry.httpStatus, static_cast<int>(entry.outcome), entry.durationMs,
                      entry.nextDueMs);
}
// One event of an attempt: attempt id, position (0 for the first event of the request), event id.
inline constexpr char InsertAttemptEventSql[]
    = "INSERT INTO attempt_events (attempt_id, position, event_id) VALUES (?, ?, ?)";
// The events of an attempt go AttemptEventsPerInsert rows to a statement
// (insertAttemptEventsSql()), the rest a row to a statement (InsertAttemptEventSql). Measured with
// batches of 1000 events: a statement per event cost ~1.5 us per event id, 64 rows per statement
// ~0.4 us, more rows hardly less.
inline constexpr int AttemptEventsPerInsert = 64;
QByteArray insertAttemptEventsSql();
// Binds count event ids of an attempt, from position first on, to a statement of count rows. A
// null id is bound as an empty one: attempt_events requires an id, and the version-1 log read a
// null one as empty.
template<typename Statement>
void bindAttemptEvents(Statement &statement, qint64 attemptId, const QStringList &eventIds,
                       qsizetype first, qsizetype count)
{
    static const QString emptyId = QStringLiteral("");
    int parameter = 0;
    for (qsizetype position = first; position < first + count; ++position) {
        const QString &eventId = eventIds.at(position);
        statement.bind(++parameter, attemptId);
        statement.bind(++parameter, qint64(position));
        statement.bind(++parameter, eventId.isNull() ? emptyId : eventId);
    }
}

// Trimming the bounded log: both take the newest attempt id to remove; the events go first.
inline constexpr char TrimAttemptEventsSql[] = "DELETE FROM attempt_events WHERE attempt_id <= ?";
inline constexpr char TrimAttemptLogSql[] = "DELETE FROM attempt_log WHERE id <= ?";

// The newest attempts, newest first; the parameter is the LIMIT (-1: all).
QByteArray newestAttemptsSql();
// The attempts logged after the one whose id is the first parameter, oldest first; the second
// parameter is the LIMIT. A read-only monitor follows what the store's owner logs with it.
QByteArray attemptsAfterSql();
// The attempts that carried one event id (the parameter), oldest first.
QByteArray attemptsOfEventSql();

} // namespace EventDesk
