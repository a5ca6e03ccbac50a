// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../../Expected.h"
#include "SqliteStatement.h"

#include <QByteArray>
#include <QString>

#include <functional>
#include <map>

// sqlite3.h stays out of this header, as out of SqliteStatement.h.
struct sqlite3;

namespace EventDesk {

// A read-only connection to an EventDesk store file, for readers beside the engine (the desktop
// app's delivery log and dead-letter browser, ARCHITECTURE.md "Threads"). WAL lets it read while
// the engine's SqliteDeliveryStore writes. It goes through the same SQLite library as the store:
// a second copy of SQLite in the process (Qt's SQLite driver may carry one) would not know the
// store's POSIX locks, and closing its file would drop them.
//
// One thread at a time uses a connection (SQLITE_OPEN_NOMUTEX), not necessarily the one that
// opened it. Statements are prepared once and kept until close().
class SqliteReadOnlyDatabase final
{
public:
    SqliteReadOnlyDatabase() = default;
    ~SqliteReadOnlyDatabase();
    Q_DISABLE_COPY_MOVE(SqliteReadOnlyDatabase)

    // Refuses, leaving the connection closed, a file that is missing or is not an EventDesk store
    // (the error names the file), a store written by a newer EventDesk, and one of an older schema
    // that the engine's store has not migrated yet.
    Expected<void> open(const QString &filePath);
    void close();

    bool isOpen() const { return m_database != nullptr; }
    // The file of the last open(), also when it failed.
    const QString &filePath() const { return m_filePath; }

    // The statement for sql, prepared on first use and kept until close(). The caller binds its
    // values and runs it with readRows(), which leaves it ready for the next use.
    Expected<SqliteStatement *> statement(const QByteArray &sql);

    // Steps through the rows of statement, calling read once per row, then resets the statement.
    // A step that fails (a damaged page, the engine's lock held past the busy timeout) is an
    // error, not a short result; the rows read before it have been passed to read.
    Expected<void> readRows(SqliteStatement &statement,
                            const std::function<void(const SqliteStatement &row)> &read);

    // statement(sql), its parameters bound to values in order, then readRows().
    template<typename... Values>
    Expected<void> select(const QByteArray &sql,
                          const std::function<void(const SqliteStatement &row)> &read,
                          const Values &...values)
    {
        Expected<SqliteStatement *> prepared = statement(sql);
        if (!prepared)
            return Error(prepared.error());
        prepared.value()->bindAll(values...);
        return readRows(*prepared.value(), read);
    }

    // "Could not read the store <file>: <reason>", the form of this connection's errors (all but
    // that of open() with an empty path, which has no file to name).
    Error error(const QString &reason) const;

private:
    Expected<void> identifyFile();

    QString m_filePath;
    sqlite3 *m_database = nullptr;
    std::map<QByteArray, SqliteStatement> m_statements;
};

} // namespace EventDesk
