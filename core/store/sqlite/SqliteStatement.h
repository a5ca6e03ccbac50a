// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QString>
#include <QStringEncoder>
#include <QtGlobal>

#include <memory>
#include <vector>

// sqlite3.h stays out of this header, so that SQLite's headers remain a private dependency of
// core/store's .cpp files.
struct sqlite3;
struct sqlite3_stmt;

namespace EventDesk {

// One prepared statement on a connection of SqliteDeliveryStore or SqliteReadOnlyDatabase,
// prepared once and used many times. Parameters are numbered from 1, as in SQL. Text and BLOBs
// are bound without SQLite copying them: the statement keeps the UTF-8 of bound text itself, and
// a bound QByteArray must stay alive and unchanged until reset() (execute() resets before it
// returns).
class SqliteStatement final
{
public:
    SqliteStatement() = default;

    // An invalid statement when sql does not compile; errorText() then says why.
    static SqliteStatement prepare(sqlite3 *database, QByteArrayView sql);

    bool isValid() const { return bool(m_statement); }

    void bind(int position, qint64 value);
    void bind(int position, int value) { bind(position, qint64(value)); }
    // A null QString or QByteArray is bound as NULL and an empty one as '' / an empty BLOB, which
    // is how QtSql bound them when it wrote the existing store files.
    void bind(int position, const QString &text);
    void bind(int position, const QByteArray &blob);

    // Binds values to parameters 1, 2, ... in order.
    template<typename... Values> void bindAll(const Values &...values)
    {
        int position = 0;
        (bind(++position, values), ...);
    }

    // Returns SQLITE_ROW, SQLITE_DONE or an error code; after an error (a failed bind is reported
    // here too) errorText() says what went wrong.
    int step();
    // For statements that return no rows: steps, then resets. False on error (see errorText()).
    bool execute();
    // Makes the statement ready for its next use and drops the bound values, so that it refers
    // to no caller's data any more.
    void reset();

    qint64 columnInt64(int column) const;
    int columnInt(int column) const;
    // NULL reads as an empty string / array, as QVariant::toString() and toByteArray() did.
    QString columnText(int column) const;
    // The column's text as UTF-8, valid until the next step() or reset().
    QByteArrayView columnUtf8(int column) const;
    QByteArray columnBlob(int column) const;

    const QString &errorText() const { return m_errorText; }

private:
    struct Finalizer
    {
        void operator()(sqlite3_stmt *statement) const;
    };

    void noteBindResult(int result);

    sqlite3 *m_database = nullptr;
    std::unique_ptr<sqlite3_stmt, Finalizer> m_statement;
    // The UTF-8 of the bound text, one buffer per parameter, reused from row to row so that
    // binding text costs no allocation once the buffers have grown.
    std::vector<QByteArray> m_text;
    QStringEncoder m_utf8 {QStringEncoder::Utf8, QStringEncoder::Flag::Stateless};
    int m_bindResult = 0;
    QString m_errorText;
};

// Resets a statement when the scope ends, also when a visitor throws.
class SqliteStatementReset final
{
public:
    explicit SqliteStatementReset(SqliteStatement &statement)
        : m_statement(statement)
    {
    }
    ~SqliteStatementReset() { m_statement.reset(); }
    Q_DISABLE_COPY_MOVE(SqliteStatementReset)

private:
    SqliteStatement &m_statement;
};

} // namespace EventDesk
