// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "SqliteReadOnlyDatabase.h"

#include "SqliteStoreSchema.h"

#include "../../Logging.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <sqlite3.h>

#include <cstring>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

// How long a read waits for the engine's write lock (a checkpoint, say) before it fails, as the
// store itself waits.
constexpr int BusyTimeoutMs = 5000;

} // namespace

SqliteReadOnlyDatabase::~SqliteReadOnlyDatabase()
{
    close();
}

Error SqliteReadOnlyDatabase::error(const QString &reason) const
{
    return Error(
        u"Could not read the store %1: %2"_s.arg(QDir::toNativeSeparators(m_filePath), reason));
}

Expected<void> SqliteReadOnlyDatabase::open(const QString &filePath)
{
    close();
    m_filePath = filePath;
    if (filePath.isEmpty())
        return Error(u"There is no store to read: no workspace is open."_s);

    // Checked before SQLite sees the file, so that the message says what is wrong in words.
    const QFileInfo info(filePath);
    if (!info.exists())
        return error(u"the file does not exist"_s);
    if (info.isDir())
        return error(u"it is a folder, not a store file"_s);
    {
        QFile file(filePath);
        if (!file.open(QIODevice::ReadOnly))
            return error(file.errorString());
        const QByteArray header = file.read(sizeof(SqliteFileHeader));
        if (header.isEmpty())
            return error(u"the file is empty, not an EventDesk store"_s);
        if (header.size() != qsizetype(sizeof(SqliteFileHeader))
            || std::memcmp(header.constData(), SqliteFileHeader, sizeof(SqliteFileHeader)) != 0) {
            return error(u"it is not an EventDesk store (not an SQLite database)"_s);
        }
    }

    // The engine writes the same file from another thread; a library built without thread
    // support has none of the locks that make that safe.
    if (sqlite3_threadsafe() == 0) {
        return error(u"the SQLite library in use was built without thread support "
                     "(SQLITE_THREADSAFE=0)"_s);
    }
    // Without SQLITE_OPEN_CREATE: a file that vanished since the checks above is not recreated.
    const int opened = sqlite3_open_v2(QFile::encodeName(filePath).constData(), &m_database,
                                       SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
    if (opened != SQLITE_OK) {
        // The handle exists even when opening failed (unless memory ran out) and must be closed.
        const QString cause = m_database ? QString::fromUtf8(sqlite3_errmsg(m_database))
                                         : QString::fromUtf8(sqlite3_errstr(opened));
        close();
        return error(cause);
    }
    if (sqlite3_busy_timeout(m_database, BusyTimeoutMs) != SQLITE_OK) {
        const QString cause = QString::fromUtf8(sqlite3_errmsg(m_database));
        close();
        return error(cause);
    }
    if (auto identified = identifyFile(); !identified) {
        close();
        return identified;
    }
    return {};
}

Expected<void> SqliteReadOnlyDatabase::identifyFile()
{
    // Runs once per open: not worth a place in the statement cache.
    SqliteStatement query = SqliteStatement::prepare(m_database, StoreIdentitySql);
    if (!query.isValid() || query.step() != SQLITE_ROW) {
        const int code = sqlite3_errcode(m_database);
        if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT)
            return error(u"the file is damaged (%1)"_s.arg(query.errorText()));
        // Reading a WAL store needs its -shm file next to it, which the first reader creates;
        // in a folder nobody may write to, SQLite says no more than "unable to open".
        const QFileInfo folder(QFileInfo(m_filePath).absolutePath());
        if (code == SQLITE_CANTOPEN && !folder.isWritable()) {
            return error(u"%1 (its folder is read-only, and reading a store needs the store's "
                         "-shm file next to it)"_s.arg(query.errorText()));
        }
        return error(query.errorText());
    }
    const qint64 applicationId = query.columnInt64(0);
    const qint64 userVersion = query.columnInt64(1);
    const qint64 objectCount = query.columnInt64(2);
    if (applicationId != StoreApplicationId) {
        if (applicationId == 0 && objectCount == 0)
            return error(u"it is an empty SQLite database, not an EventDesk store"_s);
        return error(u"it is an SQLite database of another application, not an EventDesk store"_s);
    }
    if (const QString problem = storeVersionProblem(userVersion); !problem.isEmpty())
        return error(problem);
    // Only the store migrates a file (in one transaction, when the engine opens it); until it
    // has, the tables are not those this build reads.
    if (userVersion < StoreSchemaVersion) {
        return error(u"it has the schema of an earlier EventDesk (store version %1); it is "
                     "upgraded to version %2 when EventDesk opens the workspace"_s.arg(userVersion)
                         .arg(StoreSchemaVersion));
    }
    return {};
}

void SqliteReadOnlyDatabase::close()
{
    if (!m_database)
        return;
    // sqlite3_close refuses to close a connection that still has statements.
    m_statements.clear();
    if (sqlite3_close(m_database) != SQLITE_OK) {
        // Only a statement that outlived its use can cause this; close the connection when it is
        // finalized rather than leak the connection and keep the file open.
        qCWarning(lcStore) << "Closing the read connection to" << m_filePath
                           << "while a statement is unfinished:" << sqlite3_errmsg(m_database);
        sqlite3_close_v2(m_database);
    }
    m_database = nullptr;
}

Expected<SqliteStatement *> SqliteReadOnlyDatabase::statement(const QByteArray &sql)
{
    if (!m_database)
        return error(u"the store is not open"_s);
    auto it = m_statements.find(sql);
    if (it != m_statements.end())
        return &it->second;
    SqliteStatement prepared = SqliteStatement::prepare(m_database, sql);
    if (!prepared.isValid())
        return error(prepared.errorText());
    return &m_statements.emplace(sql, std::move(prepared)).first->second;
}

Expected<void>
SqliteReadOnlyDatabase::readRows(SqliteStatement &statement,
                                 const std::function<void(const SqliteStatement &row)> &read)
{
    const SqliteStatementReset reset(statement);
    int result = SQLITE_OK;
    while ((result = statement.step()) == SQLITE_ROW)
        read(statement);
    if (result != SQLITE_DONE)
        return error(statement.errorText());
    return {};
}

} // namespace EventDesk
