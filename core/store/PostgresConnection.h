// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

// A libpq connection of PostgresDeliveryStore: named prepared statements, parameters and results in
// PostgreSQL's binary format, pipelines. libpq-fe.h stays out of this header, so that libpq remains
// a private dependency of core/store's .cpp files.

#include "../Expected.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>
#include <QtGlobal>

#include <map>
#include <memory>
#include <vector>

struct pg_conn;
struct pg_result;

namespace EventDesk {

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

// One statement of a pipeline: a prepared statement's SQL and its parameters.
struct PostgresCommand
{
    QByteArray sql;
    PostgresParameters parameters;
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

    // Runs a statement without parameters (schema, BEGIN, ...), not prepared.
    Expected<PostgresResult> run(const QByteArray &sql, const QString &what);
    // Runs sql as a named prepared statement of this connection (prepared on first use).
    Expected<PostgresResult> execute(const QByteArray &sql, const PostgresParameters &parameters,
                                     const QString &what);
    // BEGIN, the commands, COMMIT in one pipeline: one round trip for the whole transaction.
    // Nothing is kept when one command fails; the error names that command's what.
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

    QString m_url;
    QString m_displayUrl;
    QString m_password; // scrubbed from every error text libpq writes
    pg_conn *m_connection = nullptr;
    std::map<QByteArray, QByteArray> m_prepared; // SQL -> statement name on this connection
};

} // namespace EventDesk
