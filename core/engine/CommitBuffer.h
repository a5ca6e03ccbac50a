// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../Expected.h"
#include "../store/DeliveryStore.h"

#include <QTimer>

#include <functional>
#include <mutex>
#include <utility>
#include <vector>

namespace EventDesk {

class EngineSignals;
class StoreHealth;

// Group commit of the state changes that follow a delivery (SPEC D1 is about publishes, which
// are committed before they are acknowledged, see Ingest): changes are buffered and committed
// together a few milliseconds after the first one. Losing them in a crash only re-delivers,
// which at-least-once allows. A commit that fails keeps everything buffered and is tried again
// a second later: nothing accepted is lost.
//
// The commit armed by schedule() takes the buffered changes under the state lock and writes them
// without it, so lanes finish requests and the engine thread reads publishes meanwhile; on a
// local store the writer is shared with publishes, and a group commit used to wait for a
// publish's insert (up to a few ms for a 1 MB request) with every lane blocked behind it
// (bench/RESULTS.md, "The group commit without the state lock"). Commits reach the store in the
// order their changes were taken (m_commitOrder), and the changes of a failed one go before
// anything buffered since. On a shared store (InstanceLeases) the commit stays under the lock:
// the deliveries it finds owned by another instance are handed on before any lane acts again.
class CommitBuffer
{
public:
    CommitBuffer(DeliveryStore *store, StoreHealth &health, EngineSignals &signals,
                 int flushIntervalMs);

    // Under the state lock, on any thread.
    void update(const DeliveryRecord &record) { m_batch.updates.append(record); }
    void finished(const FinishedDelivery &finished) { m_batch.finished.append(finished); }
    void deadLettered(DeadLetterEntry entry) { m_batch.deadLetters.append(std::move(entry)); }
    // A drop record names the event id; the delivery may not hold its event (restored after a
    // restart): the id is then read from the store at the commit.
    void dropped(const DroppedEntry &entry, qint64 eventSeq)
    {
        m_drops.emplace_back(entry, eventSeq);
    }
    void attempt(const AttemptLogEntry &entry) { m_batch.attempts.append(entry); }
    void probation(const ProbationRecord &record) { m_batch.probation.append(record); }

    // Arms the commit (from a lane: through the engine thread).
    void schedule();
    // Commits now (engine thread, under the lock).
    Expected<void> flush();
    // The armed commit: engine thread, without the lock (takes it to collect the changes).
    void flushArmed();
    // Shutdown: the timer is stopped; flush() commits what is left.
    void stop();
    // A shared store (InstanceLeases): after each commit, the deliveries it did not change because
    // another instance owns them now go to lost.
    void setLostDeliveries(std::function<void(const QList<qint64> &deliveryIds)> lost)
    {
        m_lost = std::move(lost);
    }

private:
    // Under the state lock and m_commitOrder: the changes to commit next, those of a failed
    // commit first.
    StoreBatch takeBatch();
    // Under m_commitOrder, with or without the state lock: commits the batch; a failed one's
    // changes are kept in m_unwritten for the next commit.
    Expected<void> write(StoreBatch &&batch);
    // Under the state lock, after a commit.
    void committed(const Expected<void> &result);

    DeliveryStore *m_store;
    StoreHealth &m_health;
    EngineSignals &m_signals;
    int m_flushIntervalMs;
    StoreBatch m_batch;
    // Held from taking a batch until the store has answered; taken after the state lock, never
    // before it.
    std::mutex m_commitOrder;
    StoreBatch m_unwritten; // a failed commit's changes, under m_commitOrder
    std::vector<std::pair<DroppedEntry, qint64>> m_drops; // entry, event seq
    std::function<void(const QList<qint64> &deliveryIds)> m_lost;
    QTimer m_timer; // fires a few ms after a change: not a scheduling decision
    bool m_armed = false; // m_timer is running (readable from lanes, under the lock)
};

} // namespace EventDesk
