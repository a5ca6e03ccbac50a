// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "DeliveryStore.h"
#include "SqlConditions.h"

#include <QByteArray>

namespace EventDesk {

// How a row of dead_letters maps to a DeadLetterEntry and back, and how a DeadLetterQuery becomes
// SQL. The store (SqliteDeliveryStore) writes and reads the dead-letter index through these, and
// the desktop app's dead-letter browser reads it through them over its own connection
// (SqliteReadOnlyDatabase), so that a column order, a filter and the code that depends on them
// exist once.

// Columns of dead_letters, in the order readDeadLetter() reads them.
inline constexpr char DeadLetterColumns[]
    = "id, topic, subscription, event_id, reason, last_outcome, last_http_status, attempts,"
      " publish_ms, last_attempt_ms, dead_lettered_ms, blob_path, record, event_type, subject,"
      " data_version, event_time, event_body";
// The same columns with NULL for the record and the event body, which readDeadLetter() then
// reads as empty: for lists of the index fields, where those bytes would cost kilobytes per row.
inline constexpr char DeadLetterIndexColumns[]
    = "id, topic, subscription, event_id, reason, last_outcome, last_http_status, attempts,"
      " publish_ms, last_attempt_ms, dead_lettered_ms, blob_path, NULL, event_type, subject,"
      " data_version, event_time, NULL";
// Reads a row of DeadLetterColumns (or DeadLetterIndexColumns), for any row with SqliteStatement's
// column readers (PostgresResult too).
template<typename Row> DeadLetterEntry readDeadLetter(const Row &row)
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

// Adds one row; bindDeadLetter() binds an entry (all but its id, which the table assigns) to the
// statement's parameters.
inline constexpr char InsertDeadLetterSql[]
    = "INSERT INTO dead_letters (topic, subscription, event_id, reason, last_outcome,"
      " last_http_status, attempts, publish_ms, last_attempt_ms, dead_lettered_ms, blob_path,"
      " record, event_type, subject, data_version, event_time, event_body)"
      " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
// Binds an entry, for any statement with SqliteStatement's bindAll() (PostgresParameters too).
template<typename Statement> void bindDeadLetter(Statement &statement, const DeadLetterEntry &entry)
{
    statement.bindAll(entry.topic, entry.subscription, entry.eventId,
                      static_cast<int>(entry.reason), static_cast<int>(entry.lastOutcome),
                      entry.lastHttpStatus, entry.attempts, entry.publishMs, entry.lastAttemptMs,
                      entry.deadLetteredMs, entry.blobPath, entry.record, entry.eventType,
                      entry.subject, entry.dataVersion, entry.eventTime, entry.eventBody);
}

// The conditions on dead_letters of query's filters, and the keyset id < query.beforeId when it
// is set (its limit is the page's, see bindDeadLetterPage()). Every filter alone and every
// combination of them is served by an index of the schema (SqliteStoreSchema), except the text,
// a substring of the record, which no B-tree index can serve: alone it walks the table newest
// first and a page stops at its limit.
//
// textCondition: the condition of query.text, with one '?' for likeContainsPattern(query.text);
// each backend has its own way to read the record as text (see SqliteRecordContains).
inline constexpr char SqliteRecordContains[] = "CAST(record AS TEXT) LIKE ? ESCAPE '\\'";
SqlConditions deadLetterConditions(const DeadLetterQuery &query,
                                   QByteArrayView textCondition = SqliteRecordContains);

enum class DeadLetterFields {
    All, // DeadLetterColumns
    IndexOnly, // DeadLetterIndexColumns: no record, no event body
};

// The dead letters that conditions match, newest first (keyset pages: see DeadLetterQuery). Its
// last parameter, after those of the conditions, is the LIMIT; bindDeadLetterPage() binds them.
QByteArray deadLetterPageSql(const SqlConditions &conditions, DeadLetterFields fields);
// limit <= 0: every row.
template<typename Statement>
void bindDeadLetterPage(Statement &statement, const SqlConditions &conditions, int limit)
{
    statement.bind(conditions.bind(statement) + 1, limit > 0 ? limit : -1);
}

// How many dead letters the conditions match; its parameters are those of the conditions.
QByteArray deadLetterCountSql(const SqlConditions &conditions);

// The dead letters of one event id (the parameter), oldest first: the event inspector's history.
QByteArray deadLettersOfEventSql();

// The resubmissions table (ResubmissionEntry): how a row is written and read, and the rows of one
// event id (the parameter), oldest first, for the event inspector's history.
inline constexpr char InsertResubmissionSql[]
    = "INSERT INTO resubmissions (time_ms, dead_letter_id, event_id, topic, from_subscription,"
      " reason, dead_lettered_ms, to_subscription, delivery_id, route)"
      " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
template<typename Statement>
void bindResubmission(Statement &statement, const ResubmissionEntry &entry)
{
    statement.bindAll(entry.timeMs, entry.deadLetterId, entry.eventId, entry.topic,
                      entry.fromSubscription, static_cast<int>(entry.reason), entry.deadLetteredMs,
                      entry.toSubscription, entry.deliveryId, static_cast<int>(entry.route));
}
inline constexpr char ResubmissionColumns[]
    = "id, time_ms, dead_letter_id, event_id, topic, from_subscription, reason, dead_lettered_ms,"
      " to_subscription, delivery_id, route";
template<typename Row> ResubmissionEntry readResubmission(const Row &row)
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
QByteArray resubmissionsOfEventSql();

} // namespace EventDesk
