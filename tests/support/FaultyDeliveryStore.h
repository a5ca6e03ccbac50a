// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "store/DeliveryStore.h"

#include <QHash>
#include <QString>

#include <functional>
#include <mutex>
#include <optional>

class QThread;

namespace EventDesk::Testing {

// A DeliveryStore that passes every call on to another store, except the calls a test asks it to
// fail: those answer an error and leave the other store untouched, as a failed transaction does.
// It also counts the calls and remembers the thread of the last one (publishes are stored on
// parser threads). Thread-safe like the stores it stands in for.
class FaultyDeliveryStore final : public DeliveryStore
{
public:
    enum class Operation {
        MaxIds,
        InsertPublished,
        Commit,
        LoadUnfinishedDeliveries,
        LoadEvents,
        LoadProbation,
        DeadLetters,
        DeadLettersById,
        CountDeadLetters,
        RemoveDeadLetters,
        InsertResubmitted,
        DroppedDeliveries,
        AttemptLog,
    };

    explicit FaultyDeliveryStore(DeliveryStore *inner);

    // The next `times` calls of the operation fail with message.
    void failNext(Operation operation, int times = 1,
                  const QString &message = QStringLiteral("the store is unavailable"));
    int calls(Operation operation) const;
    QThread *lastThread(Operation operation) const;
    // Runs at the start of each commit(), on the committing thread.
    void setBeforeCommit(std::function<void()> hook);

    Expected<MaxIds> maxIds() override;
    Expected<void> insertPublished(const QList<StoredEvent> &events,
                                   const QList<DeliveryRecord> &deliveries) override;
    Expected<void> commit(const StoreBatch &batch) override;
    Expected<QList<DeliveryRecord>> loadUnfinishedDeliveries() override;
    Expected<QList<StoredEvent>> loadEvents(const QList<qint64> &seqs) override;
    Expected<QList<ProbationRecord>> loadProbation() override;
    Expected<QList<DeadLetterEntry>> deadLetters(const DeadLetterQuery &query) override;
    Expected<QList<DeadLetterEntry>> deadLettersById(const QList<qint64> &ids) override;
    Expected<qint64> countDeadLetters(const DeadLetterQuery &query) override;
    Expected<void> removeDeadLetters(const QList<qint64> &ids) override;
    Expected<void> recordTimeScale(double scale) override { return m_inner->recordTimeScale(scale); }
    Expected<void> insertResubmitted(const QList<StoredEvent> &events,
                                     const QList<DeliveryRecord> &deliveries,
                                     const QList<ResubmissionEntry> &resubmissions,
                                     const QList<qint64> &deadLetterIds) override;
    Expected<QList<DroppedEntry>> droppedDeliveries(int limit) override;
    Expected<QList<AttemptLogEntry>> attemptLog(int limit) override;

private:
    // Counts the call; the error to answer when it is to fail.
    std::optional<Error> enter(Operation operation);

    DeliveryStore *m_inner;
    mutable std::mutex m_mutex;
    QHash<Operation, int> m_failures; // calls still to fail
    QHash<Operation, QString> m_messages;
    QHash<Operation, int> m_calls;
    QHash<Operation, QThread *> m_threads;
    std::function<void()> m_beforeCommit;
};

} // namespace EventDesk::Testing
