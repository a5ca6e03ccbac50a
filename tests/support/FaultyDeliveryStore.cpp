// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "FaultyDeliveryStore.h"

#include <QThread>

namespace EventDesk::Testing {

FaultyDeliveryStore::FaultyDeliveryStore(DeliveryStore *inner)
    : m_inner(inner)
{
}

void FaultyDeliveryStore::failNext(Operation operation, int times, const QString &message)
{
    const std::lock_guard lock(m_mutex);
    m_failures.insert(operation, times);
    m_messages.insert(operation, message);
}

int FaultyDeliveryStore::calls(Operation operation) const
{
    const std::lock_guard lock(m_mutex);
    return m_calls.value(operation);
}

QThread *FaultyDeliveryStore::lastThread(Operation operation) const
{
    const std::lock_guard lock(m_mutex);
    return m_threads.value(operation);
}

std::optional<Error> FaultyDeliveryStore::enter(Operation operation)
{
    const std::lock_guard lock(m_mutex);
    ++m_calls[operation];
    m_threads.insert(operation, QThread::currentThread());
    int &failures = m_failures[operation];
    if (failures <= 0)
        return std::nullopt;
    --failures;
    return Error(m_messages.value(operation));
}

Expected<DeliveryStore::MaxIds> FaultyDeliveryStore::maxIds()
{
    if (auto failure = enter(Operation::MaxIds))
        return *failure;
    return m_inner->maxIds();
}

Expected<void> FaultyDeliveryStore::insertPublished(const QList<StoredEvent> &events,
                                                    const QList<DeliveryRecord> &deliveries)
{
    if (auto failure = enter(Operation::InsertPublished))
        return *failure;
    return m_inner->insertPublished(events, deliveries);
}

void FaultyDeliveryStore::setBeforeCommit(std::function<void()> hook)
{
    const std::lock_guard lock(m_mutex);
    m_beforeCommit = std::move(hook);
}

Expected<void> FaultyDeliveryStore::commit(const StoreBatch &batch)
{
    std::function<void()> beforeCommit;
    {
        const std::lock_guard lock(m_mutex);
        beforeCommit = m_beforeCommit;
    }
    if (beforeCommit)
        beforeCommit();
    if (auto failure = enter(Operation::Commit))
        return *failure;
    return m_inner->commit(batch);
}

Expected<QList<DeliveryRecord>> FaultyDeliveryStore::loadUnfinishedDeliveries()
{
    if (auto failure = enter(Operation::LoadUnfinishedDeliveries))
        return *failure;
    return m_inner->loadUnfinishedDeliveries();
}

Expected<QList<StoredEvent>> FaultyDeliveryStore::loadEvents(const QList<qint64> &seqs)
{
    if (auto failure = enter(Operation::LoadEvents))
        return *failure;
    return m_inner->loadEvents(seqs);
}

Expected<QList<ProbationRecord>> FaultyDeliveryStore::loadProbation()
{
    if (auto failure = enter(Operation::LoadProbation))
        return *failure;
    return m_inner->loadProbation();
}

Expected<QList<DeadLetterEntry>> FaultyDeliveryStore::deadLetters(const DeadLetterQuery &query)
{
    if (auto failure = enter(Operation::DeadLetters))
        return *failure;
    return m_inner->deadLetters(query);
}

Expected<QList<DeadLetterEntry>> FaultyDeliveryStore::deadLettersById(const QList<qint64> &ids)
{
    if (auto failure = enter(Operation::DeadLettersById))
        return *failure;
    return m_inner->deadLettersById(ids);
}

Expected<qint64> FaultyDeliveryStore::countDeadLetters(const DeadLetterQuery &query)
{
    if (auto failure = enter(Operation::CountDeadLetters))
        return *failure;
    return m_inner->countDeadLetters(query);
}

Expected<void> FaultyDeliveryStore::removeDeadLetters(const QList<qint64> &ids)
{
    if (auto failure = enter(Operation::RemoveDeadLetters))
        return *failure;
    return m_inner->removeDeadLetters(ids);
}

Expected<void> FaultyDeliveryStore::insertResubmitted(const QList<StoredEvent> &events,
                                                      const QList<DeliveryRecord> &deliveries,
                                                      const QList<ResubmissionEntry> &resubmissions,
                                                      const QList<qint64> &deadLetterIds)
{
    if (auto failure = enter(Operation::InsertResubmitted))
        return *failure;
    return m_inner->insertResubmitted(events, deliveries, resubmissions, deadLetterIds);
}

Expected<QList<DroppedEntry>> FaultyDeliveryStore::droppedDeliveries(int limit)
{
    if (auto failure = enter(Operation::DroppedDeliveries))
        return *failure;
    return m_inner->droppedDeliveries(limit);
}

Expected<QList<AttemptLogEntry>> FaultyDeliveryStore::attemptLog(int limit)
{
    if (auto failure = enter(Operation::AttemptLog))
        return *failure;
    return m_inner->attemptLog(limit);
}

} // namespace EventDesk::Testing
