// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../DeliveryStore.h"

#include <QString>

#include <memory>

namespace EventDesk {

struct SqliteStoreState; // SqliteStoreState.h: shared by the files that implement the store

// SQLite backend: WAL mode, synchronous=NORMAL (a committed publish survives a process crash;
// WAL + NORMAL can lose the last transactions only on an OS crash / power loss), prepared
// statements reused, one connection whose calls a mutex serializes (they come from the engine's
// thread and its parser threads). It talks to SQLite's C API
// over a connection of its own, not through QtSql: binding a value through QSqlQuery costs
// thousands of instructions, and Qt's SQLite driver may carry its own copy of SQLite.
class SqliteDeliveryStore final : public DeliveryStore
{
public:
    static constexpr int MaxAttemptLogRows = 100000;

    // maxAttemptLogRows bounds the delivery log; other values than the default exist so that
    // tests can exercise the trimming without writing 100k rows.
    explicit SqliteDeliveryStore(int maxAttemptLogRows = MaxAttemptLogRows);
    ~SqliteDeliveryStore() override;

    // Creates the schema when the file is new; refuses a file that is not an EventDesk store
    // (the error names the file).
    Expected<void> open(const QString &filePath);
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

private:
    std::unique_ptr<SqliteStoreState> d;
};

} // namespace EventDesk
