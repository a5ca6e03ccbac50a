// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../DeliveryStore.h"
#include "../SharedConfiguration.h"

#include <QString>

#include <memory>

namespace EventDesk {

struct PostgresStoreState; // PostgresStoreState.h: shared by the files that implement the store

// PostgreSQL backend (eventdeskd --store postgresql://user@host:port/db), with the contract of
// every DeliveryStore call as SqliteDeliveryStore keeps it. It talks to libpq directly, not through
// QtSql's QPSQL driver, for the reason the SQLite store talks to SQLite's C API: binding a value
// through QSqlQuery costs thousands of instructions, and QtSql has neither PostgreSQL's binary
// format nor its pipeline mode. Statements are prepared once per connection; every call is one
// round trip where it can be: a transaction that writes many rows (insertPublished, commit,
// insertResubmitted) goes to the server as ONE pipeline (BEGIN, the statements, COMMIT), and lists
// of keys go as one array parameter (= ANY($1)). Two connections, each with a mutex that serializes
// its calls: the publishes (insertPublished, insertResubmitted) have their own, so that a publish
// stored on one of the engine's parser threads does not wait behind the group commit of the
// engine's thread, nor the commit behind it; every other call, the schema included, uses the first.
//
// The errors name the store by its URL without the password; a lost connection fails the call
// that finds it lost, and the next call connects again (a call that failed may or may not have
// committed only when the connection broke during its COMMIT, as with any client of a server).
// Each of the two connections is connected again by its own next call.
//
// Several engines share one store (InstanceLeases, PostgresStoreLeases.cpp): each registers an
// instance, owns the deliveries it stored or claimed, and numbers events and deliveries from id
// blocks reserved in meta. A store nobody registered on serves one engine as version 1 did
// (maxIds(), every delivery loaded). The schema is versioned (eventdesk_store); open() migrates
// an older store in one transaction.
//
// The topics and event subscriptions live in the store too (SharedConfiguration,
// PostgresStoreConfiguration.cpp): every instance and the desktop app see one configuration.
class PostgresDeliveryStore final : public DeliveryStore,
                                    public InstanceLeases,
                                    public SharedConfiguration
{
public:
    // The bound of the delivery log, as SqliteDeliveryStore::MaxAttemptLogRows.
    static constexpr int MaxAttemptLogRows = 100000;

    explicit PostgresDeliveryStore(int maxAttemptLogRows = MaxAttemptLogRows);
    ~PostgresDeliveryStore() override;

    // Connects and creates the schema when the database is empty; refuses a database that holds
    // other tables but no EventDesk store, or a store of a newer schema version (the error says
    // which, and names the URL without its password).
    Expected<void> open(const QString &url);
    void close() override;

    Expected<MaxIds> maxIds() override;
    Expected<void> insertPublished(const QList<StoredEvent> &events,
                                   const QList<DeliveryRecord> &deliveries) override;
    Expected<void> commit(const StoreBatch &batch) override;
    Expected<QList<DeliveryRecord>> loadUnfinishedDeliveries() override;
    Expected<void>
    forEachUnfinishedDelivery(const std::function<void(const DeliveryRecord &)> &visit) override;
    qint64 unfinishedDeliveryCountHint() override;
    Expected<QList<StoredEvent>> loadEvents(const QList<qint64> &seqs) override;
    Expected<QList<ProbationRecord>> loadProbation() override;
    Expected<QList<DeadLetterEntry>> deadLetters(const DeadLetterQuery &query) override;
    Expected<QList<DeadLetterEntry>> deadLettersById(const QList<qint64> &ids) override;
    Expected<qint64> countDeadLetters(const DeadLetterQuery &query) override;
    Expected<void> removeDeadLetters(const QList<qint64> &ids) override;
    Expected<void> recordTimeScale(double scale) override;
    Expected<void> insertResubmitted(const QList<StoredEvent> &events,
                                     const QList<DeliveryRecord> &deliveries,
                                     const QList<ResubmissionEntry> &resubmissions,
                                     const QList<qint64> &deadLetterIds) override;
    Expected<QList<DroppedEntry>> droppedDeliveries(int limit) override;
    Expected<QList<AttemptLogEntry>> attemptLog(int limit) override;
    InstanceLeases *instanceLeases() override { return this; }
    SharedConfiguration *sharedConfiguration() override { return this; }

    // InstanceLeases
    Expected<qint64> registerInstance(const InstanceInfo &info) override;
    qint64 instanceId() const override;
    Expected<Lease> renewLease() override;
    Expected<qint64> reserveIds(IdKind kind, qint64 count) override;
    Expected<qint64>
    claimDeliveries(int limit, const std::function<void(const DeliveryRecord &)> &visit) override;
    QList<qint64> takeLostDeliveries() override;
    Expected<void> releaseInstance() override;
    Expected<QList<ProbationRecord>> probationOfOthers() override;

    // SharedConfiguration
    Expected<qint64> configurationRevision() override;
    Expected<SharedConfigurationSnapshot> loadConfiguration() override;
    Expected<qint64> saveConfiguration(const QList<Topic> &before, const QList<Topic> &after,
                                       qint64 baseRevision) override;
    Expected<qint64> replaceConfiguration(const QList<Topic> &topics) override;

private:
    std::unique_ptr<PostgresStoreState> d;
};

} // namespace EventDesk
