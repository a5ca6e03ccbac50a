// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// Brings a store written by an earlier EventDesk to the current schema (StoreSchemaVersion) when
// SqliteDeliveryStore opens it. Every step of every version runs in ONE transaction, the new
// user_version included: a failure, or a crash, at any point leaves the file as it was, at its old
// version, to be migrated again at the next open.

#include "SqliteDeliveryStore.h"

#include "SqliteStoreSchema.h"
#include "SqliteStoreState.h"

#include "../StoreTotals.h"

using namespace Qt::StringLiterals;

namespace EventDesk {

// Version 1 kept the event ids of an attempt comma-joined in attempt_log.event_ids (an id holding
// a comma could not be told apart from two ids). Version 2 keeps them in attempt_events, one row
// each, and adds indexes for every filter of the dead-letter browser and for the event
// inspector's lookups of dead letters and dropped deliveries by event id.
Expected<void> SqliteStoreState::migrateFromVersion1()
{
    using namespace StoreSchema;
    const QString what = u"upgrade the store from schema version 1"_s;
    if (auto created = runOnce(CreateAttemptEvents, what); !created)
        return created;

    // The ids are split here, not in SQL: a recursive query would copy the rest of the text once
    // per id, quadratic in the length of a batch's list. Split as version 1 read them back
    // (readAttemptLogEntry() of that version): at every comma, an empty text being no id at all.
    SqliteStatement attempts
        = SqliteStatement::prepare(database, "SELECT id, event_ids FROM attempt_log"_ba);
    if (!attempts.isValid())
        return sqlError(what, attempts.errorText());
    int result = SQLITE_OK;
    while ((result = attempts.step()) == SQLITE_ROW) {
        const qint64 attemptId = attempts.columnInt64(0);
        const QString joined = attempts.columnText(1);
        if (joined.isEmpty())
            continue;
        if (auto copied = insertAttemptEvents(attemptId, joined.split(u',')); !copied)
            return copied;
    }
    if (result != SQLITE_DONE)
        return sqlError(u"%1: read the delivery log"_s.arg(what), attempts.errorText());
    attempts = SqliteStatement();

    // attempt_log without event_ids, rebuilt as a new store creates it (ALTER TABLE DROP COLUMN
    // needs SQLite 3.35). The renamed table takes its AUTOINCREMENT counter along in
    // sqlite_sequence; the counter goes back to attempt_log, so that no id of a trimmed attempt is
    // handed out again.
    const QList<QByteArray> statements = {
        "ALTER TABLE attempt_log RENAME TO attempt_log_version1"_ba,
        CreateAttemptLog,
        "INSERT INTO attempt_log (id, time_ms, topic, subscription, attempt, http_status, outcome,"
        " duration_ms, next_due_ms) SELECT id, time_ms, topic, subscription, attempt,"
        " http_status, outcome, duration_ms, next_due_ms FROM attempt_log_version1"_ba,
        "DELETE FROM sqlite_sequence WHERE name = 'attempt_log'"_ba,
        "UPDATE sqlite_sequence SET name = 'attempt_log' WHERE name = 'attempt_log_version1'"_ba,
        "DROP TABLE attempt_log_version1"_ba,
        // dead_letters_by_subscription and dead_letters_by_reason are the same in both versions.
        CreateDeadLettersByTopicSubscription,
        CreateDeadLettersByOutcome,
        CreateDeadLettersByTime,
        CreateDeadLettersByEvent,
        CreateDroppedByEvent,
    };
    for (const QByteArray &sql : statements) {
        if (auto done = runOnce(sql, what); !done)
            return done;
    }
    return {};
}

// Version 3 adds the resubmissions table: where a resubmitted event's new deliveries came from.
// Nothing of version 2 changes.
Expected<void> SqliteStoreState::migrateFromVersion2()
{
    using namespace StoreSchema;
    const QString what = u"upgrade the store from schema version 2"_s;
    for (const char *sql : {CreateResubmissions, CreateResubmissionsByEvent}) {
        if (auto done = runOnce(QByteArray(sql), what); !done)
            return done;
    }
    return {};
}

// Version 4 adds the running totals (StoreTotals.h), rebuilt from what the store kept.
Expected<void> SqliteStoreState::migrateFromVersion3()
{
    const QString what = u"upgrade the store from schema version 3"_s;
    if (auto created = runOnce(QByteArray(StoreSchema::CreateTotals), what); !created)
        return created;
    for (const QByteArray &sql : rebuildTotalsStatements()) {
        if (auto done = runOnce(sql, what); !done)
            return done;
    }
    return {};
}

Expected<void> SqliteStoreState::migrate(qint64 fromVersion)
{
    const QString what = u"upgrade the store from schema version %1 to %2"_s.arg(fromVersion)
                             .arg(StoreSchemaVersion);
    return inTransaction(what, [&]() -> Expected<void> {
        for (qint64 version = fromVersion; version < StoreSchemaVersion; ++version) {
            Expected<void> migrated = Error(u"no migration from version %1"_s.arg(version));
            if (version == 1)
                migrated = migrateFromVersion1();
            else if (version == 2)
                migrated = migrateFromVersion2();
            else if (version == 3)
                migrated = migrateFromVersion3();
            if (!migrated)
                return migrated;
        }
        // In the transaction too: a store of the new schema with the old version (or the reverse)
        // can never be seen.
        return runOnce("PRAGMA user_version = "_ba + QByteArray::number(StoreSchemaVersion), what);
    });
}

} // namespace EventDesk
