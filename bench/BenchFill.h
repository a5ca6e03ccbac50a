// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

// Fast filling of a workspace's store for benchmarks 3 and 4: the schema is created by
// SqliteDeliveryStore itself, the rows are inserted through SQLite's C API (the engine's own
// insert path would take minutes for a million rows, which is not what these benchmarks measure).
// Runs in a child process (see fillInChild) so that its memory does not count.

#include "BenchCommon.h"
#include "rules/DeliveryOutcome.h"
#include "store/sqlite/SqliteDeliveryStore.h"
#include "workspace/WorkspaceFolder.h"

#include <QDateTime>
#include <QProcess>

#include <sqlite3.h>

namespace Bench {

inline bool sqliteExec(sqlite3 *db, const char *sql)
{
    return sqlite3_exec(db, sql, nullptr, nullptr, nullptr) == SQLITE_OK;
}

inline sqlite3 *openForFill(const QString &workspace)
{
    const QString file = EventDesk::WorkspaceFolder::storeFile(workspace);
    {
        EventDesk::SqliteDeliveryStore store; // creates the schema
        if (!store.open(file))
            return nullptr;
        store.close();
    }
    sqlite3 *db = nullptr;
    if (sqlite3_open(QFile::encodeName(file).constData(), &db) != SQLITE_OK)
        return nullptr;
    sqliteExec(db, "PRAGMA journal_mode=WAL");
    sqliteExec(db, "PRAGMA synchronous=OFF");
    return db;
}

// `count` events, each with one delivery of subscription s0 waiting for its second attempt, due
// dueInMs from now (the receiver is down).
inline bool fillPending(const QString &workspace, qint64 count, qint64 dueInMs)
{
    sqlite3 *db = openForFill(workspace);
    if (!db)
        return false;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    sqlite3_stmt *event = nullptr;
    sqlite3_stmt *delivery = nullptr;
    sqlite3_prepare_v2(db, "INSERT INTO events (seq, topic, event_id, event_type, subject, data_version,"
                           " event_time, publish_ms, body) VALUES (?,?,?,?,?,?,?,?,?)", -1, &event, nullptr);
    sqlite3_prepare_v2(db, "INSERT INTO deliveries (id, event_seq, topic, subscription, state, attempts,"
                           " due_ms, publish_ms, last_outcome, last_http_status, last_attempt_ms, reason,"
                           " dl_unavailable_since_ms) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &delivery, nullptr);
    bool ok = event && delivery;
    for (qint64 i = 1; i <= count && ok; ++i) {
        if (i % 20000 == 1)
            ok = sqliteExec(db, "BEGIN");
        const QByteArray id = QByteArray::number(i);
        const QByteArray body = eventJson(i, 256);
        sqlite3_bind_int64(event, 1, i);
        sqlite3_bind_text(event, 2, "bench", -1, SQLITE_STATIC);
        sqlite3_bind_text(event, 3, id.constData(), int(id.size()), SQLITE_TRANSIENT);
        sqlite3_bind_text(event, 4, "Bench.Event", -1, SQLITE_STATIC);
        sqlite3_bind_text(event, 5, "/bench/1", -1, SQLITE_STATIC);
        sqlite3_bind_text(event, 6, "1.0", -1, SQLITE_STATIC);
        sqlite3_bind_text(event, 7, "2026-01-01T00:00:00Z", -1, SQLITE_STATIC);
        sqlite3_bind_int64(event, 8, now);
        sqlite3_bind_blob(event, 9, body.constData(), int(body.size()), SQLITE_TRANSIENT);
        ok = ok && sqlite3_step(event) == SQLITE_DONE;
        sqlite3_reset(event);
        sqlite3_bind_int64(delivery, 1, i);
        sqlite3_bind_int64(delivery, 2, i);
        sqlite3_bind_text(delivery, 3, "bench", -1, SQLITE_STATIC);
        sqlite3_bind_text(delivery, 4, "sub0", -1, SQLITE_STATIC);
        sqlite3_bind_int(delivery, 5, int(EventDesk::DeliveryState::Pending));
        sqlite3_bind_int(delivery, 6, 1);
        sqlite3_bind_int64(delivery, 7, now + dueInMs + (i % 1000) * 1000); // spread over 17 min
        sqlite3_bind_int64(delivery, 8, now);
        sqlite3_bind_int(delivery, 9, int(EventDesk::DeliveryOutcome::GenericError));
        sqlite3_bind_int(delivery, 10, 0);
        sqlite3_bind_int64(delivery, 11, now);
        sqlite3_bind_int(delivery, 12, 0);
        sqlite3_bind_int64(delivery, 13, 0);
        ok = ok && sqlite3_step(delivery) == SQLITE_DONE;
        sqlite3_reset(delivery);
        if (i % 20000 == 0 || i == count)
            ok = ok && sqliteExec(db, "COMMIT");
    }
    sqlite3_finalize(event);
    sqlite3_finalize(delivery);
    const QByteArray meta = "UPDATE meta SET value = " + QByteArray::number(count)
        + " WHERE key IN ('max_event_seq', 'max_delivery_id')";
    ok = ok && sqliteExec(db, meta.constData());
    sqliteExec(db, "PRAGMA wal_checkpoint(TRUNCATE)");
    sqlite3_close(db);
    return ok;
}

// `count` dead letters of subscription s0, the reasons rotating through four values.
inline bool fillDeadLetters(const QString &workspace, qint64 count)
{
    sqlite3 *db = openForFill(workspace);
    if (!db)
        return false;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    sqlite3_stmt *insert = nullptr;
    sqlite3_prepare_v2(db, "INSERT INTO dead_letters (topic, subscription, event_id, reason, last_outcome,"
                           " last_http_status, attempts, publish_ms, last_attempt_ms, dead_lettered_ms,"
                           " blob_path, record, event_type, subject, data_version, event_time, event_body)"
                           " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &insert, nullptr);
    const EventDesk::DeadLetterReason reasons[] = {
        EventDesk::DeadLetterReason::MaxDeliveryAttemptsExceeded,
        EventDesk::DeadLetterReason::TimeToLiveExceeded,
        EventDesk::DeadLetterReason::UndeliverableDueToHttpBadRequest,
        EventDesk::DeadLetterReason::UndeliverableDueToHttpForbidden,
    };
    bool ok = insert != nullptr;
    for (qint64 i = 1; i <= count && ok; ++i) {
        if (i % 20000 == 1)
            ok = sqliteExec(db, "BEGIN");
        const QByteArray id = QByteArray::number(i);
        const QByteArray body = eventJson(i, 256);
        const QByteArray record = "[{\"deadLetterReason\":\"MaxDeliveryAttemptsExceeded\",\"deliveryAttempts\":30,"
                                  "\"lastDeliveryOutcome\":\"Busy\",\"lastHttpStatusCode\":503,"
                                  "\"publishTime\":\"2026-01-01T00:00:00Z\",\"lastDeliveryAttemptTime\":"
                                  "\"2026-01-02T00:00:00Z\",\"data\":" + body + "}]";
        const QByteArray blob = "deadletters/S0/2026/1/2/0/" + id + ".json";
        sqlite3_bind_text(insert, 1, "bench", -1, SQLITE_STATIC);
        sqlite3_bind_text(insert, 2, "sub0", -1, SQLITE_STATIC);
        sqlite3_bind_text(insert, 3, id.constData(), int(id.size()), SQLITE_TRANSIENT);
        sqlite3_bind_int(insert, 4, int(reasons[i % 4]));
        sqlite3_bind_int(insert, 5, int(EventDesk::DeliveryOutcome::Busy));
        sqlite3_bind_int(insert, 6, 503);
        sqlite3_bind_int(insert, 7, 30);
        sqlite3_bind_int64(insert, 8, now - 86'400'000);
        sqlite3_bind_int64(insert, 9, now - 1000);
        sqlite3_bind_int64(insert, 10, now - count + i);
        sqlite3_bind_text(insert, 11, blob.constData(), int(blob.size()), SQLITE_TRANSIENT);
        sqlite3_bind_blob(insert, 12, record.constData(), int(record.size()), SQLITE_TRANSIENT);
        sqlite3_bind_text(insert, 13, "Bench.Event", -1, SQLITE_STATIC);
        sqlite3_bind_text(insert, 14, "/bench/1", -1, SQLITE_STATIC);
        sqlite3_bind_text(insert, 15, "1.0", -1, SQLITE_STATIC);
        sqlite3_bind_text(insert, 16, "2026-01-01T00:00:00Z", -1, SQLITE_STATIC);
        sqlite3_bind_blob(insert, 17, body.constData(), int(body.size()), SQLITE_TRANSIENT);
        ok = ok && sqlite3_step(insert) == SQLITE_DONE;
        sqlite3_reset(insert);
        if (i % 20000 == 0 || i == count)
            ok = ok && sqliteExec(db, "COMMIT");
    }
    sqlite3_finalize(insert);
    sqliteExec(db, "PRAGMA wal_checkpoint(TRUNCATE)");
    sqlite3_close(db);
    return ok;
}

// Runs this program again with `arguments` (its fill mode) and waits for it.
inline bool fillInChild(const QStringList &arguments)
{
    QProcess child;
    child.setProcessChannelMode(QProcess::ForwardedChannels);
    child.start(QCoreApplication::applicationFilePath(), arguments);
    return child.waitForFinished(600000) && child.exitStatus() == QProcess::NormalExit
        && child.exitCode() == 0;
}

} // namespace Bench
