// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "SqliteDeliveryStore.h"

#include "SqliteStoreSchema.h"
#include "SqliteStoreState.h"

#include "../../Logging.h"

#include <QFile>
#include <QFileInfo>

#include <cstring>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

// Wait this long for another connection's write lock instead of failing at once.
constexpr int BusyTimeoutMs = 5000;

} // namespace

void SqliteStoreState::rollback()
{
    if (auto rolledBack = runCached("ROLLBACK"_ba, u"roll back"_s); !rolledBack)
        qCWarning(lcStore) << rolledBack.error();
}

Expected<void> SqliteStoreState::identifyFile(bool *isNew, qint64 *userVersion)
{
    // Runs once per open: not worth a place in the statement cache.
    SqliteStatement query = SqliteStatement::prepare(database, StoreIdentitySql);
    if (!query.isValid() || query.step() != SQLITE_ROW) {
        // A WAL database cannot even be read without creating its -shm file, so a read-only
        // location fails here too; say so rather than blaming the file.
        const QFileInfo info(filePath);
        if (!info.isWritable() || !QFileInfo(info.absolutePath()).isWritable()) {
            return sqlError(u"open it: the file or its folder is read-only (the store needs to "
                            "write the file and its -wal and -shm files next to it)"_s,
                            query.errorText());
        }
        return sqlError(u"read the file (damaged, or not an EventDesk store?)"_s,
                        query.errorText());
    }
    const qint64 applicationId = query.columnInt64(0);
    *userVersion = query.columnInt64(1);
    const qint64 objectCount = query.columnInt64(2);

    if (applicationId == StoreApplicationId) {
        if (const QString problem = storeVersionProblem(*userVersion); !problem.isEmpty())
            return error(u"open it: "_s + problem);
        *isNew = false;
        return {};
    }
    // An SQLite file without tables holds nothing that creating the schema could destroy.
    if (applicationId == 0 && *userVersion == 0 && objectCount == 0) {
        *isNew = true;
        return {};
    }
    return error(u"open it: it is an SQLite database of another application, not an EventDesk "
                 "store; it was left unchanged"_s);
}

Expected<void> SqliteStoreState::configureConnection()
{
    // journal_mode answers with the mode in effect: a read-only file or directory silently
    // keeps the old mode, and D1's crash safety at synchronous=NORMAL needs WAL.
    SqliteStatement query = SqliteStatement::prepare(database, "PRAGMA journal_mode = WAL"_ba);
    if (!query.isValid() || query.step() != SQLITE_ROW)
        return sqlError(u"switch to WAL journal mode"_s, query.errorText());
    const QString journalMode = query.columnText(0);
    if (journalMode.compare(u"wal"_s, Qt::CaseInsensitive) != 0) {
        return error(u"switch to WAL journal mode (the mode is still \"%1\"; is the file or its "
                     "folder read-only?)"_s.arg(journalMode));
    }
    if (auto result = runOnce("PRAGMA synchronous = NORMAL"_ba, u"set synchronous mode"_s); !result)
        return result;
    // A delivered event's rows are deleted shortly after they were inserted. With SQLite's
    // default 2 MB page cache those pages had been evicted again and were read back for the
    // delete; 32 MB keep them (the group commit of benchmark 2 went from ~18 to ~6 us per
    // finished delivery with this and the checkpoints below; bench/RESULTS.md). The cache is a
    // ceiling, filled only as pages are used.
    if (auto result = runOnce("PRAGMA cache_size = -32768"_ba, u"set the page cache size"_s);
        !result)
        return result;
    // Debian builds SQLite with secure_delete on, other platforms' SQLite with it off. On, every
    // delivered event's deleted content is overwritten with zeros and written to the log a second
    // time (measured in benchmark 2: ~1.1 KB more written per 1 KB event). FAST, the same on every
    // platform, clears deleted content inside the b-tree pages it writes anyway and adds no I/O;
    // traces stay in freed pages until the next publish reuses them.
    if (auto result = runOnce("PRAGMA secure_delete = FAST"_ba, u"set secure delete"_s); !result)
        return result;
    return runOnce("PRAGMA foreign_keys = OFF"_ba, u"turn off foreign keys"_s);
}

void SqliteStoreState::closeConnection()
{
    // Its connection goes first, so that the engine's, the last one, checkpoints everything and
    // removes the log as it closes.
    checkpointer.reset();
    if (!database)
        return;
    // sqlite3_close refuses to close a connection that still has statements.
    statements.clear();
    if (sqlite3_close(database) != SQLITE_OK) {
        // Only a statement that outlived its use can cause this; close the connection when it is
        // finalized rather than leak the connection and keep the file open.
        qCWarning(lcStore) << "Closing the delivery store" << filePath
                           << "while a statement is unfinished:" << lastErrorText();
        sqlite3_close_v2(database);
    }
    database = nullptr;
}

SqliteDeliveryStore::SqliteDeliveryStore(int maxAttemptLogRows)
    : d(std::make_unique<SqliteStoreState>(maxAttemptLogRows))
{
}

SqliteDeliveryStore::~SqliteDeliveryStore()
{
    close();
}

Expected<void> SqliteDeliveryStore::open(const QString &filePath)
{
    const std::lock_guard lock(d->mutex);
    close();
    d->filePath = filePath;

    const QFileInfo info(filePath);
    if (info.isDir())
        return d->error(u"open it: it is a folder"_s);
    if (info.exists() && info.size() > 0) {
        // Checked before SQLite sees the file: a text file must not become a database.
        QFile file(filePath);
        if (!file.open(QIODevice::ReadOnly))
            return d->error(u"read it: %1"_s.arg(file.errorString()));
        const QByteArray header = file.read(sizeof(SqliteFileHeader));
        if (header.size() != qsizetype(sizeof(SqliteFileHeader))
            || std::memcmp(header.constData(), SqliteFileHeader, sizeof(SqliteFileHeader)) != 0) {
            return d->error(u"open it: it is not an EventDesk store (not an SQLite database); "
                            "it was left unchanged"_s);
        }
    }

    // NOMUTEX: the store is used by one thread at a time (not necessarily the one that created
    // it), so SQLite's per-connection mutex would only cost time. What stays needed are SQLite's
    // locks shared by all connections (the desktop app's views read the file from threads of
    // their own), which a library built with SQLITE_THREADSAFE=0 does not have.
    if (sqlite3_threadsafe() == 0) {
        return d->error(u"open it: the SQLite library in use was built without thread support "
                        "(SQLITE_THREADSAFE=0)"_s);
    }
    const int opened = sqlite3_open_v2(
        QFile::encodeName(filePath).constData(), &d->database,
        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
    if (opened != SQLITE_OK) {
        // The handle exists even when opening failed (unless memory ran out) and must be closed.
        const QString cause
            = d->database ? d->lastErrorText() : QString::fromUtf8(sqlite3_errstr(opened));
        d->closeConnection();
        return d->sqlError(u"open it"_s, cause);
    }

    auto fail = [this](const Expected<void> &result) {
        d->closeConnection();
        return result;
    };
    if (sqlite3_busy_timeout(d->database, BusyTimeoutMs) != SQLITE_OK)
        return fail(d->sqlError(u"set busy timeout"_s, d->lastErrorText()));
    bool isNew = false;
    qint64 userVersion = 0;
    if (auto result = d->identifyFile(&isNew, &userVersion); !result)
        return fail(result);
    if (auto result = d->configureConnection(); !result)
        return fail(result);
    d->checkpointer = std::make_unique<WalCheckpointer>();
    if (d->checkpointer->start(QFile::encodeName(filePath))) {
        // Replaces SQLite's automatic checkpoint (itself a WAL hook) on this connection.
        sqlite3_wal_hook(d->database, WalCheckpointer::walCommitted, d->checkpointer.get());
    } else {
        qCInfo(lcStore) << "No background checkpoints for" << filePath
                        << "(a second connection could not be opened); the engine checkpoints";
        d->checkpointer.reset();
        sqlite3_wal_autocheckpoint(d->database, WalCheckpointer::CheckpointPages);
    }
    if (isNew) {
        auto result = d->inTransaction(u"create the store schema"_s, [this]() -> Expected<void> {
            for (const QByteArray &sql : createStoreStatements()) {
                if (auto result = d->runOnce(sql, u"create the store schema"_s); !result)
                    return result;
            }
            return {};
        });
        if (!result)
            return fail(result);
        qCInfo(lcStore) << "Created delivery store" << filePath;
    } else if (userVersion < StoreSchemaVersion) {
        if (auto result = d->migrate(userVersion); !result)
            return fail(result);
        qCInfo(lcStore) << "Upgraded delivery store" << filePath << "from schema version"
                        << userVersion << "to" << StoreSchemaVersion;
    }
    return {};
}

void SqliteDeliveryStore::close()
{
    const std::lock_guard lock(d->mutex);
    d->closeConnection();
}

} // namespace EventDesk
