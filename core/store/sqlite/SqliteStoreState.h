// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

// The state of a SqliteDeliveryStore, shared by the files that implement it: the connection and
// file handling (SqliteDeliveryStore.cpp), the write path (SqliteStoreWrites.cpp), the queries
// (SqliteStoreQueries.cpp) and the schema migration (SqliteStoreMigration.cpp). Not for use
// outside core/store.

#include "../DeliveryStore.h"
#include "../StoreTotals.h"
#include "SqliteStatement.h"
#include "WalCheckpointer.h"

#include <QDir>

#include <sqlite3.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>

namespace EventDesk {

// SQLite before 3.32 allows 999 host parameters per statement; stay well below it.
inline constexpr int MaxParametersPerQuery = 500;

struct SqliteStoreState
{
    // Below this many keys, selectByKeys() reads row by row (see there).
    static constexpr qsizetype MinKeysPerList = 16;

    // Every public call holds it: the engine stores large publishes on its parser threads
    // while its own thread commits delivery changes. Recursive, because a visitor of
    // forEachUnfinishedDelivery may call back into the store.
    std::recursive_mutex mutex;

    explicit SqliteStoreState(int maxRows)
        : maxAttemptLogRows(std::max(1, maxRows))
        // Trimming only when the newest id crosses a multiple of this step keeps the DELETE off
        // the per-commit path (one trim per 1000 log rows at the default bound).
        , attemptLogTrimStep(std::clamp(maxAttemptLogRows / 100, 1, 1000))
    {
    }

    Error error(const QString &what) const
    {
        using namespace Qt::StringLiterals;
        return Error(u"Store %1: could not %2"_s.arg(QDir::toNativeSeparators(filePath), what));
    }
    Error sqlError(const QString &what, const QString &cause) const
    {
        using namespace Qt::StringLiterals;
        return Error(
            u"Store %1: could not %2: %3"_s.arg(QDir::toNativeSeparators(filePath), what, cause));
    }
    Error notOpen() const
    {
        using namespace Qt::StringLiterals;
        return Error(u"The delivery store is not open."_s);
    }
    QString lastErrorText() const { return QString::fromUtf8(sqlite3_errmsg(database)); }

    // Keys of the high-water marks in meta (see StoreSchema::CreateMeta).
    static QString maxEventSeqKey()
    {
        using namespace Qt::StringLiterals;
        return u"max_event_seq"_s;
    }
    static QString maxDeliveryIdKey()
    {
        using namespace Qt::StringLiterals;
        return u"max_delivery_id"_s;
    }

    // Prepared on first use and kept until close(): SQLite compiles each statement only once.
    SqliteStatement *statement(const QByteArray &sql, QString *errorText)
    {
        auto it = statements.find(sql);
        if (it != statements.end())
            return &it->second;
        SqliteStatement prepared = SqliteStatement::prepare(database, sql);
        if (!prepared.isValid()) {
            *errorText = prepared.errorText();
            return nullptr;
        }
        return &statements.emplace(sql, std::move(prepared)).first->second;
    }

    // For statements that run once per connection (schema, pragmas, migration).
    Expected<void> runOnce(const QByteArray &sql, const QString &what)
    {
        if (sqlite3_exec(database, sql.constData(), nullptr, nullptr, nullptr) != SQLITE_OK)
            return sqlError(what, lastErrorText());
        return {};
    }

    // Runs one of the cached statements that return no rows.
    Expected<void> runCached(const QByteArray &sql, const QString &what)
    {
        QString errorText;
        SqliteStatement *cached = statement(sql, &errorText);
        if (!cached)
            return sqlError(what, errorText);
        if (!cached->execute())
            return sqlError(what, cached->errorText());
        return {};
    }

    // Reads every row of a statement whose values are bound; a damaged page shows up as an
    // error, not as a short list.
    template<typename Row, typename Read>
    Expected<QList<Row>> collect(SqliteStatement &query, const QString &what, Read read,
                                 QList<Row> rows = {})
    {
        const SqliteStatementReset reset(query);
        int result = SQLITE_OK;
        while ((result = query.step()) == SQLITE_ROW)
            rows.append(read(query));
        if (result != SQLITE_DONE)
            return sqlError(what, query.errorText());
        return rows;
    }

    // The rows whose integer key is in keys, each once, in no promised order. Measured
    // with the C API on 50k events of 1 KB: an IN list of MaxParametersPerQuery bound keys reads
    // ~4 us per row against 5-9 us for a SELECT per key, but costs ~25 us even for one key, so
    // the few keys left over after the full lists are read one by one.
    template<typename Row, typename Read>
    Expected<QList<Row>> selectByKeys(const QByteArray &singleKeySql, const QByteArray &keyListSql,
                                      QList<qint64> keys, const QString &what, Read read)
    {
        using namespace Qt::StringLiterals;
        QString errorText;
        SqliteStatement *list = statement(keyListSql, &errorText);
        SqliteStatement *single = list ? statement(singleKeySql, &errorText) : nullptr;
        if (!single)
            return error(u"prepare to %1: %2"_s.arg(what, errorText));
        // Sorted, a repeated key gives its row once even when the repeats would fall into
        // different lists, and the rows are read in the order they lie in the file.
        std::sort(keys.begin(), keys.end());
        keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
        Expected<QList<Row>> rows = QList<Row>();
        rows->reserve(keys.size());
        qsizetype start = 0;
        for (; keys.size() - start >= MinKeysPerList; start += MaxParametersPerQuery) {
            // One statement for every list: a short list repeats its last key, which IN ignores.
            for (int i = 0; i < MaxParametersPerQuery; ++i)
                list->bind(i + 1, keys.at(std::min(start + i, keys.size() - 1)));
            rows = collect<Row>(*list, what, read, std::move(rows).value());
            if (!rows)
                return rows;
        }
        for (qsizetype i = start; i < keys.size(); ++i) {
            single->bind(1, keys.at(i));
            rows = collect<Row>(*single, what, read, std::move(rows).value());
            if (!rows)
                return rows;
        }
        return rows;
    }

    template<typename Work> Expected<void> inTransaction(const QString &what, Work &&work)
    {
        using namespace Qt::StringLiterals;
        if (!sqlite3_get_autocommit(database)) {
            // Only a ROLLBACK that failed (an I/O error) leaves a transaction open; without this
            // every later BEGIN would fail with "cannot start a transaction within a transaction".
            rollback();
        }
        if (auto begun = runCached("BEGIN"_ba, what); !begun)
            return begun;
        Expected<void> result = work();
        if (result)
            result = runCached("COMMIT"_ba, what);
        if (!result && !sqlite3_get_autocommit(database)) {
            // After some errors (a full disk, for example) SQLite has rolled back already; after
            // the others (a constraint) the transaction is still open and must not keep the rows
            // that went in before the failure.
            rollback();
        }
        return result;
    }
    void rollback();

    // Write path (SqliteStoreWrites.cpp).
    // The rows of insertPublished(), in the caller's transaction.
    // Adds changes to the running totals (StoreTotals.h), in the caller's transaction.
    Expected<void> addTotals(const QList<TotalChange> &changes);
    Expected<void> insertPublishedRows(const QList<StoredEvent> &events,
                                       const QList<DeliveryRecord> &deliveries);
    Expected<void> removeFinished(const QList<FinishedDelivery> &finished);
    Expected<void> writeAttempts(const QList<AttemptLogEntry> &attempts);
    // The rows of attempt_events of one attempt (also used by the migration).
    Expected<void> insertAttemptEvents(qint64 attemptId, const QStringList &eventIds);
    Expected<void> trimAttemptLog(qint64 previousId, qint64 lastId);

    // Connection and file (SqliteDeliveryStore.cpp). userVersion: that of the file, 0 when it is
    // new (empty).
    Expected<void> identifyFile(bool *isNew, qint64 *userVersion);
    Expected<void> configureConnection();
    void closeConnection();

    // SqliteStoreMigration.cpp: brings a store of an older schema version to StoreSchemaVersion,
    // in one transaction.
    Expected<void> migrate(qint64 fromVersion);
    Expected<void> migrateFromVersion1();
    Expected<void> migrateFromVersion2();
    Expected<void> migrateFromVersion3();

    QString filePath;
    sqlite3 *database = nullptr;
    std::unique_ptr<WalCheckpointer> checkpointer;
    const int maxAttemptLogRows;
    const int attemptLogTrimStep;
    std::map<QByteArray, SqliteStatement> statements;
};

} // namespace EventDesk
