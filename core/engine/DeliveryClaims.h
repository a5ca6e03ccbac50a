// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../Expected.h"
#include "../store/DeliveryStore.h"

#include <QHash>
#include <QList>
#include <QSet>

#include <vector>

namespace EventDesk {

class DeliveryScheduler;
class EndpointValidation;
class EngineSignals;
class OutcomeHandler;
struct Delivery;
struct EngineState;

// Which deliveries this engine delivers, and the boundary where the store hands them over.
//
// A store of one engine (SQLite): every unfinished delivery, loaded at start, as always.
//
// A store several engines share (DeliveryStore::instanceLeases(), PostgreSQL): the engine
// registers as an instance and delivers only what it owns: what it stored itself, and what it
// claimed from instances whose lease ran out (or that released theirs at shutdown). On the
// scheduler's tick (DeliveryScheduler::startTicks) it renews its lease and claims; a claimed
// delivery keeps its attempts, due time and publish time (SPEC R3, R7, R8 go on where they were).
// Requests go out only while the lease is known to hold (EngineState::leaseHeldUntilMs), and the
// store fences every change: a delivery another instance took over is forgotten (forget()), not
// retried. A lease found lost (the process stalled past it) forgets every delivery in memory and
// registers anew; whatever no other instance took is then claimed back.
//
// Probation (SPEC P1-P4) is per destination and shared: each instance writes the state it
// reaches (OutcomeHandler::recordProbation, last writer wins in the store) and takes over, on its
// tick, the state another instance wrote last. Its probation end is engine time of the writer:
// instances are assumed to run their clocks alike (the system clock, NTP-synchronised).
//
// A claimed delivery of a subscription this instance does not know (yet) is parked: the topics and
// subscriptions are the store's too (DeliveryStore::sharedConfiguration()), and each instance
// applies a new configuration revision only when its own poll sees it, so another instance may
// have stored deliveries for a subscription this one has not applied yet. Parked deliveries stay
// this instance's rows (if it dies, another instance claims them as usual), are not attempted and
// are adopted as soon as a workspace with their subscription is applied (workspaceApplied()). A
// subscription still unknown after UnknownSubscriptionGraceMs is one that was deleted: its parked
// deliveries are dropped as SubscriptionDeleted, as the editor's deletion drops a backlog.
//
// Times: the store's server judges leases with its own clock; this engine counts its side in
// engine time scaled to real time (Clock::scale()), so --time-scale does not shorten leases.
class DeliveryClaims
{
public:
    // Claimed at a time (one statement each).
    static constexpr int ClaimsPerPage = 5000;
    // Real milliseconds a subscription may stay unknown before its parked deliveries are dropped.
    // Each instance polls the configuration revision every 500 ms (SharedConfigurationWatcher) and
    // applies a new one at once: 10 s leaves room for twenty polls, for a slow store answering
    // the configuration's load and for the secrets that apply waits for, while a subscription that
    // was really deleted is settled within seconds (SPEC D1: dropped, counted, never silently
    // lost).
    static constexpr qint64 UnknownSubscriptionGraceMs = 10'000;

    DeliveryClaims(EngineState &state, EngineSignals &signals, DeliveryScheduler &scheduler,
                   OutcomeHandler &outcomes, EndpointValidation &validation);

    // Engine::start, with the subscriptions built: numbers ids from the store's high-water marks
    // and loads every unfinished delivery (one engine), or registers, reserves id blocks and
    // claims (shared store; the ticks start then).
    Expected<void> start(qint64 now);
    // The scheduler's tick on a shared store: heartbeat, claims, then the probation other
    // instances recorded (SPEC P1-P4 per destination, whichever instance saw the failures).
    void heartbeat(qint64 now);
    // Deliveries another instance owns now (fenced commits): out of memory, not retried.
    void forget(const QList<qint64> &deliveryIds);
    // Engine::shutdown, after the last commit: the deliveries left are claimable at once.
    void release();
    // Engine::applyWorkspace, with the subscriptions rebuilt: parked deliveries whose subscription
    // the workspace has are adopted.
    void workspaceApplied(qint64 now);
    // Deliveries claimed for a subscription this instance does not know yet (EngineSnapshot).
    qint64 parkedCount() const { return m_parkedIds.size(); }

    bool isShared() const { return m_leases != nullptr; }
    qint64 instanceId() const { return m_instanceId; } // 0: not a shared store
    // Engine milliseconds between heartbeats (real time: the lease's tenth).
    qint64 heartbeatIntervalMs() const;
    // UnknownSubscriptionGraceMs in engine milliseconds.
    qint64 unknownSubscriptionGraceMs() const;

private:
    // Claimed deliveries of one subscription this instance does not know yet.
    struct ParkedSubscription
    {
        QString topic;
        QString name;
        qint64 sinceMs = 0; // engine time it was first found unknown
        std::vector<DeliveryRecord> records;
    };

    Expected<void> registerInstance();
    // Claims page after page until nothing is left to claim; adopts what it got.
    Expected<qint64> claimAll(qint64 now);
    // A stored delivery into memory, appended to its subscription's heap (heapified by the caller).
    void adopt(const DeliveryRecord &record, qint64 now);
    // The record as an engine delivery (not yet in any heap).
    Delivery &place(const DeliveryRecord &record);
    void park(const DeliveryRecord &record, qint64 now);
    // One log line for the deliveries parked since the last one.
    void logParked();
    // Drops the parked deliveries of subscriptions unknown for longer than the grace.
    void dropExpiredParked(qint64 now);
    void settleAdopted();
    void forgetAll();
    // Takes over the probation state another instance wrote last for a subscription.
    void syncProbation(qint64 now);

    EngineState &m_state;
    EngineSignals &m_signals;
    DeliveryScheduler &m_scheduler;
    OutcomeHandler &m_outcomes;
    EndpointValidation &m_validation;
    InstanceLeases *m_leases = nullptr;
    qint64 m_instanceId = 0;
    bool m_leaseWasLost = false; // logged once per loss
    QHash<QString, qint64> m_probationRevisions; // subscriptionKey(): the revision taken over
    // adopt(): rows of one subscription tend to follow each other.
    int m_lastSubscription = -1;
    QString m_lastTopic;
    QString m_lastName;
    QHash<QString, ParkedSubscription> m_parked; // subscriptionKey()
    QSet<qint64> m_parkedIds; // delivery ids of m_parked
    QHash<QString, qint64> m_parkedSinceLog; // subscriptionKey(): parked since the last log line
};

} // namespace EventDesk
