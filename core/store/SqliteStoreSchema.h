#pragma once

#include "DeadLetterRows.h"
#include "DeliveryStore.h"
#include "SqlConditions.h"

#include <QByteArray>
#include <QString>
#include <QtGlobal>

namespace EventDesk {

class SqliteStatement;

// What an EventDesk store file is, and how a row of each of its tables is read. The store writes
// the file and the desktop app's views read it (SqliteReadConnection); both take their column
// lists and row readers from here (those of dead_letters from DeadLetterRows.h), so that a column
// order and the code that depends on it exist once.

// PRAGMA application_id ("EvDk"): tells an EventDesk store apart from any other SQLite file.
inline constexpr int StoreApplicationId = 0x45764b64;
// PRAGMA user_version of the schema this build writes and reads.
inline constexpr int StoreSchemaVersion = 1;

// One row that tells what an SQLite file is: its application_id, user_version, and how many
// schema objects it holds. Asked once per open, by the store and by the read connection.
inline constexpr char StoreIdentitySql[] = "SELECT (SELECT application_id FROM pragma_application_id),"
                                           " (SELECT user_version FROM pragma_user_version),"
                                           " (SELECT count(*) FROM sqlite_master)";
// For a file whose application_id is StoreApplicationId: why this build cannot use a store of
// that user_version (newer than this build, or none at all), or an empty string.
QString storeVersionProblem(qint64 userVersion);

// The first 16 bytes of every SQLite 3 database file (the NUL included).
inline constexpr char SqliteFileHeader[] = "SQLite format 3";
static_assert(sizeof(SqliteFileHeader) == 16);

// Columns of deliveries, in the order readDelivery() reads them.
inline constexpr char DeliveryColumns[]
    = "id, event_seq, topic, subscription, state, attempts, due_ms, publish_ms, last_outcome,"
      " last_http_status, last_attempt_ms, reason, dl_unavailable_since_ms";
// Reads the columns of DeliveryColumns into record; the strings reuse record's buffers, which is
// what lets a start-up stream a million rows through one record.
void readDelivery(const SqliteStatement &row, DeliveryRecord &record);
DeliveryRecord readDelivery(const SqliteStatement &row);

// Columns of events, in the order readEvent() reads them.
inline constexpr char EventColumns[]
    = "seq, topic, event_id, event_type, subject, data_version, event_time, publish_ms, body";
StoredEvent readEvent(const SqliteStatement &row);

// Columns of dropped, in the order readDropped() reads them.
inline constexpr char DroppedColumns[]
    = "topic, subscription, event_id, reason, last_outcome, last_http_status, attempts,"
      " dropped_ms";
DroppedEntry readDropped(const SqliteStatement &row);

// Columns of attempt_log (the delivery log), in the order readAttemptLogEntry() reads them.
inline constexpr char AttemptLogColumns[]
    = "id, time_ms, topic, subscription, event_ids, attempt, http_status, outcome, duration_ms,"
      " next_due_ms";
AttemptLogEntry readAttemptLogEntry(const SqliteStatement &row);

} // namespace EventDesk
