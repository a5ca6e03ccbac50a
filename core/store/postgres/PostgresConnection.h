// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

// A libpq connection of PostgresDeliveryStore: named prepared statements, parameters and results in
// PostgreSQL's binary format, pipelines. libpq-fe.h stays out of this header, so that libpq remains
// a private dependency of core/store's .cpp files.

#include "../../Expected.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>
#include <QtGlobal>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <vector>

struct pg_conn;
struct pg_result;

namespace EventDesk {

// A one-dimensional array parameter (bigint[], text[] or bytea[]) filled element by element in
// PostgreSQL's binary format, so that one statement carries a whole column of many rows (INSERT
// ... SELECT FROM unnest(...)). A null QString or QByteArray is a NULL element, as bind() binds it.
class PostgresArray final
{
public:
    enum class Element { BigInt, Text, Bytea };

    // expectedCount: how many elements will follow (a hint for the buffer, not a limit).
    PostgresArray(Element element, qsizetype expectedCount, qsizetype expectedBytes = 0);

    void append(qint64 value);
    void append(int value) { append(qint64(value)); }
    void append(const QString &text);
    void append(const QByteArray &bytes);

    Element element() const { return m_element; }
    qsizetype count() const { return m_count; }

private:
    friend class PostgresParameters;
    void appendNull();
    // The whole value: the header (array_send()) followed by the elements.
    QByteArray take() &&;

    Element m_element;
    qsizetype m_count = 0;
    bool m_hasNull = false;
    QByteArray m_bytes; // a gap for the header, then the elements
};

// Values of one statement's parameters ($1, $2, ...), each with its type, in binary format. A null
// QString or QByteArray is bound as NULL, an empty one as '' (as SqliteStatement binds them).
class PostgresParameters final
{
public:
    void bind(qint64 value);
    void bind(int value) { bind(qint64(value)); }
    void bind(const QString &text);
    void bind(const QByteArray &bytes);
    void bindNull(); // a NULL bigint (LIMIT NULL: no limit)
    // One-dimensional arrays (bigint[], text[]): a whole list of rows in one parameter.
    void bindArray(const std::vector<qint64> &values);
    void bindArray(const QStringList &texts);
    void bindArray(PostgresArray &&array);

    template<typename... Values> void bindAll(const Values &...values) { (bind(values), ...); }

    int count() const { return int(m_types.size()); }
    const unsigned int *types() const { return m_types.data(); }
    const char *const *values() const { return m_pointers.data(); }
    const int *lengths() const { return m_lengths.data(); }
    const int *formats() const { return m_formats.data(); }

private:
    void append(unsigned int type, QByteArray value, bool isNull);

    std::vector<unsigned int> m_types;
    std::vector<QByteArray> m_values;
    std::vector<bool> m_nulls;
    std::vector<const char *> m_pointers;
    std::vector<int> m_lengths;
    std::vector<int> m_formats;
};

// One result of a statement, rows in binary format; columns are read as SqliteStatement's are
// (NULL reads as 0 / an empty string), so that the row readers of the shared row mappings
// (DeadLetterRows.h, AttemptLogRows.h) read both backends.
class PostgresResult final
{
public:
    PostgresResult() = default;
    explicit PostgresResult(pg_result *result);

    bool isValid() const { return bool(m_result); }
    int rowCount() const;
    // The row the column readers read.
    void setRow(int row) { m_row = row; }

    qint64 columnInt64(int column) const;
    int columnInt(int column) const { return int(columnInt64(column)); }
    QString columnText(int column) const;
    QByteArray columnBlob(int column) const;
    bool isNull(int column) const;

private:
    struct Clearer
    {
        void operator()(pg_result *result) const;
    };
    std::unique_ptr<pg_result, Clearer> m_result;
    int m_row = 0;
};

struct PostgresCommand;

// The same rows as a statement of many rows, one statement per row, each with what it does.
struct PostgresSingleRows
{
    QList<PostgresCommand> commands;
    QStringList whats;
};

// One statement of a pipeline: a prepared statement's SQL and its parameters.
struct PostgresCommand
{
    QByteArray sql;
    PostgresParameters parameters;
    // For a statement of many rows (INSERT ... SELECT FROM unnest(...)): its rows one statement
    // each. Called only when the statement failed, so that the error names the row that failed
    // (a duplicate id, say) without every row's description being built on every call.
    std::function<PostgresSingleRows()> singleRows;
};

class PostgresConnection final
{
public:
    // url: as given by the user (libpq reads it); the errors name redactedStoreLocation(url).
    explicit PostgresConnection(const QString &url);
    ~PostgresConnection();
    Q_DISABLE_COPY_MOVE(PostgresConnection)

    // Connects unless connected; a connection that was lost is opened again (its prepared
    // statements are prepared again as they are used). The error names the store and the cause.
    Expected<void> ensureConnected();
    bool isConnected() const;
    void disconnect();
    // Connections to one store that learn of each other's loss (PostgresDeliveryStore's two):
    // once one found its connection broken (the server restarted, say), the others connect again
    // at their next call instead of failing it on a connection the server dropped as well. Call
    // before the first ensureConnected().
    void shareLosses(std::shared_ptr<std::atomic<quint64>> losses);

    // Runs a statement without parameters (schema, BEGIN, ...), not prepared.
    Expected<PostgresResult> run(const QByteArray &sql, const QString &what);
    // Runs sql as a named prepared statement of this connection (prepared on first use).
    Expected<PostgresResult> execute(const QByteArray &sql, const PostgresParameters &parameters,
                                     const QString &what);
    // BEGIN, the commands, COMMIT in one pipeline: one round trip for the whole transaction.
    // Nothing is kept when one command fails; the error names that command's what (or, for a
    // command with singleRows, the what of the row that fails: the transaction up to that command
    // is then run once more, its rows one by one, and rolled back).
    Expected<std::vector<PostgresResult>> transaction(const QList<PostgresCommand> &commands,
                                                      const QStringList &whats);

    Error error(const QString &what) const;
    Error error(const QString &what, const QString &cause) const;
    const QString &displayUrl() const { return m_displayUrl; }

private:
    Expected<QByteArray> preparedName(const QByteArray &sql, const PostgresParameters &parameters,
                                      const QString &what);
    QString lastErrorText() const;
    QString resultErrorText(pg_result *result) const;
    void rollbackIfNeeded();
    void disconnectIfBroken();
    enum class Ending { Commit, Rollback };
    // transaction()'s pipeline; failedCommand: the index of the command whose row values made it
    // fail (-1: none failed, or not for its values: BEGIN, COMMIT, the connection, the server).
    Expected<std::vector<PostgresResult>> pipeline(const QList<const PostgresCommand *> &commands,
                                                   const QStringList &whats, Ending ending,
                                                   qsizetype *failedCommand);
    // Runs the commands before failedCommand and then failedCommand's single rows, and rolls
    // back: the error of the row that fails, or an empty string when none does.
    QString rowThatFails(const QList<PostgresCommand> &commands, const QStringList &whats,
                         qsizetype failedCommand);

    QString m_url;
    QString m_displayUrl;
    QString m_password; // scrubbed from every error text libpq writes
    pg_conn *m_connection = nullptr;
    std::map<QByteArray, QByteArray> m_prepared; // SQL -> statement name on this connection
    // Broken connections among those sharing the counter (shareLosses()), and how many of them
    // there were when this one connected.
    std::shared_ptr<std::atomic<quint64>> m_losses;
    quint64 m_lossesSeen = 0;
};

} // namespace EventDesk
