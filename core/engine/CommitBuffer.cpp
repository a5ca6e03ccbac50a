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
    QObject::connect(&m_timer, &QTimer::timeout, &m_signals, [this] {
        const StateLock lock(m_signals.lock());
        (void)flush();
    });
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

Expected<void> CommitBuffer::flush()
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
        }
        m_drops.clear();
    }
    if (m_batch.isEmpty())
        return {};
    auto result = m_store->commit(m_batch);
    if (!result) {
        qCWarning(lcStore) << "commit failed, retrying:" << result.error();
        m_health.writeFailed(result.error());
        m_signals.raiseStoreError(result.error());
        m_timer.start(1000);
        m_armed = true;
        return result;
    }
    m_health.writeSucceeded();
    m_batch = StoreBatch();
    if (m_lost) {
        if (InstanceLeases *leases = m_store->instanceLeases()) {
            if (const QList<qint64> lost = leases->takeLostDeliveries(); !lost.isEmpty())
                m_lost(lost);
        }
    }
    return {};
}

} // namespace EventDesk
