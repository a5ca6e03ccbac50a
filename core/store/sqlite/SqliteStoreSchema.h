// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../AttemptLogRows.h"
#include "../DeadLetterRows.h"
#include "../DeliveryStore.h"
#include "../SqlConditions.h"
#include "../StoreRows.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QtGlobal>

namespace EventDesk {

class SqliteStatement;

// What an EventDesk store file is, and how a row of each of its tables is read. The store writes
// the file and the desktop app's views read it (SqliteReadOnlyDatabase); both take their column
// lists and row readers from here (those of dead_letters and of the delivery log from
// DeadLetterRows.h and AttemptLogRows.h), so that a column order and the code that depends on it
// exist once.

// PRAGMA application_id ("EvDk"): tells an EventDesk store apart from any other SQLite file.
inline constexpr int StoreApplicationId = 0x45764b64;
// PRAGMA user_version of the schema this build writes and reads. Version 1 kept the event ids of
// an attempt comma-joined in attempt_log.event_ids and had no indexes for most filters of the
// dead-letter browser; version 2 had no resubmissions table (the trace from a resubmitted
// event's new deliveries back to its dead letter); version 3 had no totals table (StoreTotals.h).
// SqliteDeliveryStore migrates such a store when it opens it.
inline constexpr int StoreSchemaVersion = 4;
// The oldest user_version SqliteDeliveryStore can migrate to StoreSchemaVersion.
inline constexpr int OldestMigratableSchemaVersion = 1;

// One row that tells what an SQLite file is: its application_id, user_version, and how many
// schema objects it holds. Asked once per open, by the store and by the read connection.
inline constexpr char StoreIdentitySql[]
    = "SELECT (SELECT application_id FROM pragma_application_id),"
      " (SELECT user_version FROM pragma_user_version),"
      " (SELECT count(*) FROM sqlite_master)";
// For a file whose application_id is StoreApplicationId: why this build cannot use a store of
// that user_version (newer than this build, or none at all), or an empty string. An older
// version is no problem here: the store migrates it (readers, see SqliteReadOnlyDatabase, wait
// for that).
QString storeVersionProblem(qint64 userVersion);

// The first 16 bytes of every SQLite 3 database file (the NUL included).
inline constexpr char SqliteFileHeader[] = "SQLite format 3";
static_assert(sizeof(SqliteFileHeader) == 16);

// The tables and indexes of the current schema. Each statement is run as it stands both for a new
// store and by the migration, so that a migrated file and a new one have the same schema.
namespace StoreSchema {

// High-water marks of the engine-assigned ids: events and deliveries are deleted when they reach
// their fate, and maxIds() must not hand out an id again after a restart.
inline constexpr char CreateMeta[]
    = "CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL)";
inline constexpr char CreateEvents[]
    = "CREATE TABLE events (seq INTEGER PRIMARY KEY, topic TEXT, event_id TEXT, event_type TEXT,"
      " subject TEXT, data_version TEXT, event_time TEXT, publish_ms INTEGER, body BLOB)";
inline constexpr char CreateDeliveries[]
    = "CREATE TABLE deliveries (id INTEGER PRIMARY KEY, event_seq INTEGER, topic TEXT,"
      " subscription TEXT, state INTEGER, attempts INTEGER, due_ms INTEGER, publish_ms INTEGER,"
      " last_outcome INTEGER, last_http_status INTEGER, last_attempt_ms INTEGER, reason INTEGER,"
      " dl_unavailable_since_ms INTEGER)";
// Finished deliveries remove their event when no other delivery refers to it: removeFinished()
// asks this index once per run of events, and each event only in a run where some are left.
inline constexpr char CreateDeliveriesByEvent[]
    = "CREATE INDEX deliveries_by_event ON deliveries (event_seq)";
// AUTOINCREMENT: ids of removed rows are never reused, so keyset pages stay stable.
inline constexpr char CreateDeadLetters[]
    = "CREATE TABLE dead_letters (id INTEGER PRIMARY KEY AUTOINCREMENT, topic TEXT,"
      " subscription TEXT, event_id TEXT, reason INTEGER, last_outcome INTEGER,"
      " last_http_status INTEGER, attempts INTEGER, publish_ms INTEGER, last_attempt_ms INTEGER,"
      " dead_lettered_ms INTEGER, blob_path TEXT, record BLOB, event_type TEXT, subject TEXT,"
      " data_version TEXT, event_time TEXT, event_body BLOB)";
// The filters of deadLetterConditions(). An equality filter's index ends in id, so that its rows
// come newest first and a keyset page starts where the last one ended, without sorting.
inline constexpr char CreateDeadLettersBySubscription[]
    = "CREATE INDEX dead_letters_by_subscription ON dead_letters (subscription, id)";
inline constexpr char CreateDeadLettersByTopicSubscription[]
    = "CREATE INDEX dead_letters_by_topic_subscription ON dead_letters (topic, subscription, id)";
inline constexpr char CreateDeadLettersByReason[]
    = "CREATE INDEX dead_letters_by_reason ON dead_letters (reason, id)";
inline constexpr char CreateDeadLettersByOutcome[]
    = "CREATE INDEX dead_letters_by_outcome ON dead_letters (last_outcome, id)";
inline constexpr char CreateDeadLettersByTime[]
    = "CREATE INDEX dead_letters_by_time ON dead_letters (dead_lettered_ms)";
// The event inspector's history of one event id.
inline constexpr char CreateDeadLettersByEvent[]
    = "CREATE INDEX dead_letters_by_event ON dead_letters (event_id)";
inline constexpr char CreateDropped[]
    = "CREATE TABLE dropped (id INTEGER PRIMARY KEY AUTOINCREMENT, topic TEXT, subscription TEXT,"
      " event_id TEXT, reason INTEGER, last_outcome INTEGER, last_http_status INTEGER,"
      " attempts INTEGER, dropped_ms INTEGER)";
inline constexpr char CreateDroppedByEvent[]
    = "CREATE INDEX dropped_by_event ON dropped (event_id)";
inline constexpr char CreateAttemptLog[]
    = "CREATE TABLE attempt_log (id INTEGER PRIMARY KEY AUTOINCREMENT, time_ms INTEGER,"
      " topic TEXT, subscription TEXT, attempt INTEGER, http_status INTEGER, outcome INTEGER,"
      " duration_ms INTEGER, next_due_ms INTEGER)";
// WITHOUT ROWID: the rows of one attempt lie together in the order of the request, and trimming
// the log removes a range of the primary key. There is deliberately no index on event_id: event
// ids are mostly random (GUIDs), and each group commit would then rewrite an index page per
// delivered event. Measured with batches of 1000 GUID ids: ~9 us per event id with the index,
// ~0.5 us without, against ~17 us of CPU per event for the whole of benchmark 2. The event
// inspector's lookup of one id (attemptsOfEventSql()) reads attempt_events instead, as version 1
// read every attempt_log row for it.
inline constexpr char CreateAttemptEvents[]
    = "CREATE TABLE attempt_events (attempt_id INTEGER NOT NULL, position INTEGER NOT NULL,"
      " event_id TEXT NOT NULL, PRIMARY KEY (attempt_id, position)) WITHOUT ROWID";
// One row per delivery created by resubmitting a dead letter (ResubmissionEntry): the dead letter's
// index row leaves the table, and this row keeps where the new delivery came from. Read by event
// id (the event keeps its id), for the event inspector's timeline.
inline constexpr char CreateResubmissions[]
    = "CREATE TABLE resubmissions (id INTEGER PRIMARY KEY AUTOINCREMENT, time_ms INTEGER,"
      " dead_letter_id INTEGER, event_id TEXT, topic TEXT, from_subscription TEXT, reason INTEGER,"
      " dead_lettered_ms INTEGER, to_subscription TEXT, delivery_id INTEGER, route INTEGER)";
inline constexpr char CreateResubmissionsByEvent[]
    = "CREATE INDEX resubmissions_by_event ON resubmissions (event_id)";
inline constexpr char CreateProbation[]
    = "CREATE TABLE probation (topic TEXT, subscription TEXT, state INTEGER, cause INTEGER,"
      " until_ms INTEGER, duration_ms INTEGER, failures INTEGER,"
      " PRIMARY KEY (topic, subscription))";

// The running totals (StoreTotals.h): one row per topic, subscription and counter, added to in
// the transaction that writes what it counts (AddTotalSql). WITHOUT ROWID: the primary key is
// how every row is found.
inline constexpr char CreateTotals[]
    = "CREATE TABLE totals (topic TEXT NOT NULL, subscription TEXT NOT NULL,"
      " counter INTEGER NOT NULL, value INTEGER NOT NULL,"
      " PRIMARY KEY (topic, subscription, counter)) WITHOUT ROWID";

} // namespace StoreSchema

// Everything that makes an empty SQLite file a store of StoreSchemaVersion, in order, pragmas
// included; run in one transaction.
QList<QByteArray> createStoreStatements();

// A text column whose value tends to repeat from row to row (a delivery's topic and subscription:
// a backlog's rows come in long runs of one subscription): converted from UTF-8 only when its
// bytes change, and shared by the records in between.
class RepeatedText
{
public:
    void read(const SqliteStatement &row, int column, QString *text);

private:
    QByteArray m_utf8;
    QString m_text;
};

// What readDelivery() keeps from one row to the next when it streams a table.
struct DeliveryReader
{
    RepeatedText topic;
    RepeatedText subscription;
};

// Reads the columns of DeliveryColumns into record. With a reader, a start-up streams a million
// rows through one record without converting the same two names a million times.
void readDelivery(const SqliteStatement &row, DeliveryRecord &record,
                  DeliveryReader *reader = nullptr);
DeliveryRecord readDelivery(const SqliteStatement &row);

StoredEvent readEvent(const SqliteStatement &row);

DroppedEntry readDropped(const SqliteStatement &row);

} // namespace EventDesk
