// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

// The state of a PostgresDeliveryStore, shared by the files that implement it: the connection and
// schema (PostgresDeliveryStore.cpp, PostgresStoreSchema.cpp), the write path
// (PostgresStoreWrites.cpp), the queries (PostgresDeliveryStore.cpp), the instances, leases and
// claims (PostgresStoreLeases.cpp) and the shared configuration (PostgresStoreConfiguration.cpp).
// Not for use outside core/store.

#include "../DeadLetterRows.h"
#include "../DeliveryStore.h"
#include "../DeliveryStoreReader.h"
#include "../SqlConditions.h"
#include "../StoreTotals.h"
#include "PostgresConnection.h"

#include <QByteArray>
#include <QList>
#include <QStringList>

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>

namespace EventDesk {

// The schema version this build writes and reads (the one row of eventdesk_store).
// Version 2 (issue 21): several engines share the store (instances, deliveries.owner,
// attempt_log.instance). Version 3: the topics and event subscriptions live in the store
// (SharedConfiguration, PostgresStoreConfiguration.cpp). Version 4: the running totals
// (StoreTotals.h). PostgresStoreSchema.cpp migrates an older store when it opens it.
inline constexpr int PostgresSchemaVersion = 4;

// The columns of a deliveries row in the order readPostgresDelivery() reads them.
inline constexpr char PostgresDeliveryColumns[]
    = "id, event_seq, topic, subscription, state, attempts, due_ms, publish_ms, last_outcome,"
      " last_http_status, last_attempt_ms, reason, dl_unavailable_since_ms";
void readPostgresDelivery(const PostgresResult &row, DeliveryRecord &record);

// AttemptLogColumns of the SQLite store in PostgreSQL's words: the fifth column encodes the event
// ids as decodeEventIds() reads them; the eleventh is the instance that made the attempt.
inline constexpr char PostgresAttemptLogColumns[]
    = "id, time_ms, topic, subscription,"
      " (SELECT string_agg(position || ':' || octet_length(event_id) || ':' || event_id, ''"
      " ORDER BY position) FROM attempt_events WHERE attempt_id = attempt_log.id),"
      " attempt, http_status, outcome, duration_ms, next_due_ms, instance";
// The record as text, for the text filter of the dead-letter browser: ILIKE ignores case as
// SQLite's LIKE does for ASCII letters (and, by the database's locale, for others too).
inline constexpr char PostgresRecordContains[] = "convert_from(record, 'UTF8') ILIKE ? ESCAPE '\\'";

// sql with SQLite's '?' placeholders numbered as PostgreSQL's $1, $2, ... ('?' inside a quoted
// literal stays), so that the SQL of the shared row mappings (DeadLetterRows.h) serves both.
QByteArray postgresPlaceholders(QByteArrayView sql);

// Binds the values of conditions to parameters (in order), as SqlConditions::bind() does.
void bindConditions(PostgresParameters &parameters, const SqlConditions &conditions);

// Statements of a transaction, each with what it does (for the error of the one that fails).
struct PostgresTransaction
{
    QList<PostgresCommand> commands;
    QStringList whats;

    PostgresParameters &add(const QByteArray &sql, const QString &what)
    {
        commands.append(PostgresCommand {sql, {}});
        whats.append(what);
        return commands.last().parameters;
    }
};

struct PostgresStoreState
{
    explicit PostgresStoreState(int maxRows)
        : maxAttemptLogRows(std::max(1, maxRows))
    {
    }

    // Every public call but the publishes holds it: one libpq connection serves one call at a
    // time. Recursive, because a visitor of forEachUnfinishedDelivery may call back into the store.
    std::recursive_mutex mutex;
    std::unique_ptr<PostgresConnection> connection; // null: not open

    // The publish path's own connection (insertPublished, insertResubmitted) and its own mutex:
    // the engine stores large publishes on its parser threads while its own thread runs the group
    // commit, and on one connection each waited for the other (bench/RESULTS.md, benchmark 8).
    // Lock order: mutex before publishMutex (open() and close() take both), never the reverse.
    // It only ever writes rows of events and deliveries: the schema is the first connection's.
    std::mutex publishMutex;
    std::unique_ptr<PostgresConnection> publishConnection; // null: not open

    const int maxAttemptLogRows;
    // attempt_log ids up to this one are trimmed already: the trim's DELETE starts after it
    // instead of walking the index entries of rows it removed before (see writeAttempts()).
    qint64 attemptLogTrimmedThrough = 0;

    // InstanceLeases (PostgresStoreLeases.cpp): the registered instance (0: none, the store then
    // serves one engine as version 1 did), and the deliveries commit() found owned by another.
    // Atomic: the publish path reads it under publishMutex, the leases write it under mutex.
    std::atomic<qint64> instanceId = 0;
    QList<qint64> lostDeliveries;

    Error notOpen() const
    {
        using namespace Qt::StringLiterals;
        return Error(u"The delivery store is not open."_s);
    }

    // PostgresStoreSchema.cpp: makes the connected database a store of PostgresSchemaVersion, or
    // says why it cannot be one.
    Expected<void> openSchema();
    Expected<void> migrateSchema();
    // Runs statements inside the transaction the caller began; rolls back when one fails.
    Expected<void> runInTransaction(const QList<QByteArray> &statements, const QString &what);

    // PostgresStoreWrites.cpp: the statements of insertPublished(), for its transaction or that of
    // insertResubmitted(); instance: the owner of the new deliveries (instanceId, read once).
    void addPublished(PostgresTransaction &transaction, const QList<StoredEvent> &events,
                      const QList<DeliveryRecord> &deliveries, qint64 instance) const;
    // The registered instance as a parameter (NULL when none): the owner of new deliveries, the
    // fence of changes, the maker of attempts.
    void bindInstance(PostgresParameters &parameters) const
    {
        bindInstance(parameters, instanceId);
    }
    static void bindInstance(PostgresParameters &parameters, qint64 instance);
    void addAttempts(PostgresTransaction &transaction,
                     const QList<AttemptLogEntry> &attempts) const;
    // Changes of the running totals (StoreTotals.h), appended to total_changes; and now and then
    // (every TotalsCompactionInterval commits of this instance) the move of every change into
    // totals, by one instance at a time.
    static void addTotals(PostgresTransaction &transaction, const QList<TotalChange> &changes);
    void addTotalsCompaction(PostgresTransaction &transaction);
    static constexpr int TotalsCompactionInterval = 64;
    int commitsSinceCompaction = 0; // under mutex

    // PostgresDeliveryStore.cpp: the reads the store and PostgresStoreReader (the desktop app's
    // views) share; the caller holds the mutex and has a connection.
    Expected<QList<DeadLetterEntry>> selectDeadLetters(const DeadLetterQuery &query,
                                                       DeadLetterFields fields);
    Expected<QList<DeadLetterEntry>> selectDeadLettersById(const QList<qint64> &ids);
    Expected<qint64> countDeadLetters(const DeadLetterQuery &query);
    // Rows of PostgresAttemptLogColumns.
    Expected<QList<AttemptLogEntry>> selectAttempts(const QByteArray &sql,
                                                    const PostgresParameters &parameters,
                                                    const QString &what);
    // PostgresStoreLeases.cpp: the instances registered on the store, by id.
    Expected<QList<InstanceStatus>> selectInstances();

    // Runs the statement and reads every row of its answer with read.
    template<typename Row, typename Read>
    Expected<QList<Row>> collect(const QByteArray &sql, const PostgresParameters &parameters,
                                 const QString &what, Read read)
    {
        auto result = connection->execute(sql, parameters, what);
        if (!result)
            return Error(result.error());
        QList<Row> rows;
        const int count = result->rowCount();
        rows.reserve(count);
        for (int row = 0; row < count; ++row) {
            result->setRow(row);
            rows.append(read(result.value()));
        }
        return rows;
    }
};

} // namespace EventDesk
