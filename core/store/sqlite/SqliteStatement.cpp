// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "SqliteStatement.h"

#include <sqlite3.h>

using namespace Qt::StringLiterals;

namespace EventDesk {

void SqliteStatement::Finalizer::operator()(sqlite3_stmt *statement) const
{
    sqlite3_finalize(statement);
}

SqliteStatement SqliteStatement::prepare(sqlite3 *database, QByteArrayView sql)
{
    SqliteStatement result;
    result.m_database = database;
    sqlite3_stmt *statement = nullptr;
    // SQLITE_PREPARE_PERSISTENT: nearly every statement is cached for the life of the connection,
    // and the flag keeps them out of SQLite's small lookaside memory meant for short-lived ones.
    const int prepared = sqlite3_prepare_v3(database, sql.constData(), int(sql.size()),
                                            SQLITE_PREPARE_PERSISTENT, &statement, nullptr);
    if (prepared != SQLITE_OK) {
        sqlite3_finalize(statement);
        result.m_errorText = QString::fromUtf8(sqlite3_errmsg(database));
        return result;
    }
    if (!statement) {
        // Only whitespace or a comment: nothing that could ever run.
        result.m_errorText = u"the statement is empty"_s;
        return result;
    }
    result.m_statement.reset(statement);
    result.m_text.resize(std::size_t(sqlite3_bind_parameter_count(statement)));
    return result;
}

void SqliteStatement::noteBindResult(int result)
{
    // The first failure is the one to report; step() returns it instead of running the statement
    // with a parameter left NULL.
    if (result != SQLITE_OK && m_bindResult == SQLITE_OK) {
        m_bindResult = result;
        m_errorText = QString::fromUtf8(sqlite3_errmsg(m_database));
    }
}

void SqliteStatement::bind(int position, qint64 value)
{
    noteBindResult(sqlite3_bind_int64(m_statement.get(), position, value));
}

void SqliteStatement::bind(int position, const QString &text)
{
    if (text.isNull()) {
        noteBindResult(sqlite3_bind_null(m_statement.get(), position));
        return;
    }
    if (position < 1 || position > int(m_text.size())) {
        noteBindResult(sqlite3_bind_null(m_statement.get(), position)); // SQLITE_RANGE
        return;
    }
    QByteArray &utf8 = m_text[std::size_t(position - 1)];
    // Resizing a buffer this statement alone holds keeps its allocation; the encoder then writes
    // in place, which is what keeps a row of text free of malloc once the buffers have grown.
    utf8.resize(m_utf8.requiredSpace(text.size()));
    char *end = m_utf8.appendToBuffer(utf8.data(), text);
    utf8.truncate(end - utf8.constData());
    noteBindResult(sqlite3_bind_text64(m_statement.get(), position, utf8.constData(),
                                       sqlite3_uint64(utf8.size()), SQLITE_STATIC, SQLITE_UTF8));
}

void SqliteStatement::bind(int position, const QByteArray &blob)
{
    if (blob.isNull()) {
        noteBindResult(sqlite3_bind_null(m_statement.get(), position));
        return;
    }
    // constData() of an empty array still points at a terminating NUL, never nullptr, so SQLite
    // stores an empty BLOB rather than NULL.
    noteBindResult(sqlite3_bind_blob64(m_statement.get(), position, blob.constData(),
                                       sqlite3_uint64(blob.size()), SQLITE_STATIC));
}

int SqliteStatement::step()
{
    if (m_bindResult != SQLITE_OK)
        return m_bindResult;
    const int result = sqlite3_step(m_statement.get());
    if (result != SQLITE_ROW && result != SQLITE_DONE)
        m_errorText = QString::fromUtf8(sqlite3_errmsg(m_database));
    return result;
}

bool SqliteStatement::execute()
{
    const int result = step();
    reset();
    return result == SQLITE_DONE || result == SQLITE_ROW;
}

void SqliteStatement::reset()
{
    // sqlite3_reset repeats the error of the last step, which has been reported already.
    sqlite3_reset(m_statement.get());
    sqlite3_clear_bindings(m_statement.get());
    m_bindResult = SQLITE_OK;
}

qint64 SqliteStatement::columnInt64(int column) const
{
    return sqlite3_column_int64(m_statement.get(), column);
}

int SqliteStatement::columnInt(int column) const
{
    return sqlite3_column_int(m_statement.get(), column);
}

QString SqliteStatement::columnText(int column) const
{
    // sqlite3_column_text first, then sqlite3_column_bytes: the order SQLite documents, so that
    // the byte count is that of the UTF-8 text (embedded NULs included).
    const auto *text
        = reinterpret_cast<const char *>(sqlite3_column_text(m_statement.get(), column));
    return QString::fromUtf8(text, sqlite3_column_bytes(m_statement.get(), column));
}

QByteArrayView SqliteStatement::columnUtf8(int column) const
{
    const auto *text
        = reinterpret_cast<const char *>(sqlite3_column_text(m_statement.get(), column));
    return QByteArrayView(text, sqlite3_column_bytes(m_statement.get(), column));
}

QByteArray SqliteStatement::columnBlob(int column) const
{
    const auto *data = static_cast<const char *>(sqlite3_column_blob(m_statement.get(), column));
    return QByteArray(data, sqlite3_column_bytes(m_statement.get(), column));
}

} // namespace EventDesk
