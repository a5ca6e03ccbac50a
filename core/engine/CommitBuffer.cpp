// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "CommitBuffer.h"

#include "../Logging.h"
#include "EngineSignals.h"
#include "StoreHealth.h"

namespace EventDesk {

CommitBuffer::CommitBuffer(DeliveryStore *store, StoreHealth &health, EngineSignals &signals,
                           int flushIntervalMs)
    : m_store(store)
    , m_health(health)
    , m_signals(signals)
    , m_flushIntervalMs(flushIntervalMs)
{
    m_timer.setSingleShot(true);
    QObject::connect(&m_timer, &QTimer::timeout, &m_signals, [this] { flushArmed(); });
}

void CommitBuffer::schedule()
{
    if (m_armed)
        return;
    if (!m_signals.onEngineThread()) {
        m_signals.wake(); // the wake handler schedules it
        return;
    }
    m_timer.start(m_flushIntervalMs);
    m_armed = true;
}

void CommitBuffer::stop()
{
    m_timer.stop();
    m_armed = false;
}

namespace {

template<typename T> void appendAll(QList<T> &to, QList<T> &&from)
{
    if (to.isEmpty())
        to = std::move(from);
    else
        to.append(std::move(from));
}

// Appends later changes to earlier ones: the store applies each list in order.
void append(StoreBatch &earlier, StoreBatch &&later)
{
    appendAll(earlier.updates, std::move(later.updates));
    appendAll(earlier.finished, std::move(later.finished));
    appendAll(earlier.deadLetters, std::move(later.deadLetters));
    appendAll(earlier.drops, std::move(later.drops));
    appendAll(earlier.attempts, std::move(later.attempts));
    appendAll(earlier.probation, std::move(later.probation));
}

} // namespace

StoreBatch CommitBuffer::takeBatch()
{
    m_armed = false;
    // Signals raised on lanes go out now: their changes are committed next.
    m_signals.emitDeferred();
    if (!m_drops.empty()) {
        QList<qint64> missing;
        for (const auto &[entry, seq] : m_drops) {
            if (entry.eventId.isEmpty() && !missing.contains(seq))
                missing.append(seq);
        }
        QHash<qint64, QString> idBySeq;
        if (!missing.isEmpty()) {
            if (auto loaded = m_store->loadEvents(missing)) {
                for (const StoredEvent &event : std::as_const(loaded.value()))
                    idBySeq.insert(event.seq, event.id);
            }
        }
        for (auto &[entry, seq] : m_drops) {
            if (entry.eventId.isEmpty())
                entry.eventId = idBySeq.value(seq);
            m_batch.drops.append(entry);
            m_signals.raiseDropped(entry);
        }
        m_drops.clear();
    }
    // Only this batch's: a failed commit's dead letters were reported when first taken.
    for (const DeadLetterEntry &entry : std::as_const(m_batch.deadLetters))
        m_signals.raiseDeadLettered(entry);
    StoreBatch batch = std::exchange(m_unwritten, {});
    append(batch, std::exchange(m_batch, {}));
    return batch;
}

Expected<void> CommitBuffer::write(StoreBatch &&batch)
{
    auto result = m_store->commit(batch);
    if (!result)
        m_unwritten = std::move(batch);
    return result;
}

void CommitBuffer::committed(const Expected<void> &result)
{
    if (!result) {
        qCWarning(lcStore) << "commit failed, retrying:" << result.error();
        m_health.writeFailed(result.error());
        m_signals.raiseStoreError(result.error());
        m_timer.start(1000);
        m_armed = true;
        return;
    }
    m_health.writeSucceeded();
    if (m_lost) {
        if (InstanceLeases *leases = m_store->instanceLeases()) {
            if (const QList<qint64> lost = leases->takeLostDeliveries(); !lost.isEmpty())
                m_lost(lost);
        }
    }
}

Expected<void> CommitBuffer::flush()
{
    std::unique_lock order(m_commitOrder);
    StoreBatch batch = takeBatch();
    if (batch.isEmpty())
        return {};
    auto result = write(std::move(batch));
    order.unlock();
    committed(result);
    return result;
}

void CommitBuffer::flushArmed()
{
    std::unique_lock<std::mutex> order;
    StoreBatch batch;
    {
        const StateLock lock(m_signals.lock());
        if (m_store->instanceLeases()) {
            (void)flush();
            return;
        }
        order = std::unique_lock(m_commitOrder);
        batch = takeBatch();
    }
    if (batch.isEmpty())
        return;
    const auto result = write(std::move(batch));
    order.unlock();
    const StateLock lock(m_signals.lock());
    committed(result);
}

} // namespace EventDesk
