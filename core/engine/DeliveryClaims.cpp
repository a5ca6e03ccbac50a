// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "DeliveryClaims.h"

#include "../Logging.h"
#include "Clock.h"
#include "DeliveryScheduler.h"
#include "EndpointValidation.h"
#include "EngineSignals.h"
#include "EngineState.h"
#include "OutcomeHandler.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QSysInfo>

using namespace Qt::StringLiterals;

namespace EventDesk {

DeliveryClaims::DeliveryClaims(EngineState &state, EngineSignals &signals,
                               DeliveryScheduler &scheduler, OutcomeHandler &outcomes,
                               EndpointValidation &validation)
    : m_state(state)
    , m_signals(signals)
    , m_scheduler(scheduler)
    , m_outcomes(outcomes)
    , m_validation(validation)
{
}

qint64 DeliveryClaims::heartbeatIntervalMs() const
{
    const double realMs = double(m_state.options.instanceLeaseMs) / HeartbeatsPerLease;
    return std::max<qint64>(1, qint64(realMs * m_state.clock->scale()));
}

qint64 DeliveryClaims::unknownSubscriptionGraceMs() const
{
    // Scaled like the lease: the configuration is polled in real time whatever --time-scale says.
    return qint64(double(UnknownSubscriptionGraceMs) * m_state.clock->scale());
}

Expected<void> DeliveryClaims::start(qint64 now)
{
    QElapsedTimer timer;
    timer.start();
    m_leases = m_state.store->instanceLeases();
    if (!m_leases) {
        // One engine per store: it numbers ids past the store's high-water marks and delivers
        // every unfinished delivery (D1: those in flight at a crash are retried).
        auto ids = m_state.store->maxIds();
        if (!ids)
            return Error(ids.error());
        m_state.nextEventSeq = ids->eventSeq + 1;
        m_state.nextDeliveryId = ids->deliveryId + 1;
        // Streamed: a backlog of a million deliveries is never held twice (records and engine).
        if (const qint64 expected = m_state.store->unfinishedDeliveryCountHint(); expected > 0)
            m_state.deliveries.reserve(size_t(m_state.deliveries.size() + expected));
        qsizetype restored = 0;
        auto loaded = m_state.store->forEachUnfinishedDelivery([&](const DeliveryRecord &record) {
            adopt(record, now);
            ++restored;
        });
        settleAdopted();
        if (!loaded)
            return Error(loaded.error());
        qCInfo(lcScheduler).nospace()
            << "restored " << restored << " unfinished deliveries in " << timer.elapsed() << " ms";
        return {};
    }

    if (auto registered = registerInstance(); !registered)
        return registered;
    m_state.idBlocks.setSource(m_leases);
    auto claimed = claimAll(now);
    if (!claimed)
        return Error(claimed.error());
    m_state.leaseHeldUntilMs
        = now + qint64(double(m_state.options.instanceLeaseMs) * m_state.clock->scale());
    m_scheduler.startTicks(heartbeatIntervalMs(), now);
    qCInfo(lcScheduler).nospace() << "instance " << m_instanceId << " claimed " << claimed.value()
                                  << " unfinished deliveries in " << timer.elapsed() << " ms";
    return {};
}

Expected<void> DeliveryClaims::registerInstance()
{
    InstanceInfo info;
    info.hostName = QSysInfo::machineHostName();
    info.processId = QCoreApplication::applicationPid();
    info.leaseMs = m_state.options.instanceLeaseMs;
    auto id = m_leases->registerInstance(info);
    if (!id)
        return Error(id.error());
    m_instanceId = id.value();
    m_leaseWasLost = false;
    return {};
}

Expected<qint64> DeliveryClaims::claimAll(qint64 now)
{
    qint64 total = 0;
    for (;;) {
        auto claimed = m_leases->claimDeliveries(
            ClaimsPerPage, [this, now](const DeliveryRecord &record) { adopt(record, now); });
        if (!claimed) {
            settleAdopted();
            return Error(claimed.error());
        }
        total += claimed.value();
        if (claimed.value() < ClaimsPerPage)
            break;
    }
    if (total > 0)
        settleAdopted();
    logParked();
    return total;
}

void DeliveryClaims::heartbeat(qint64 now)
{
    auto lease = m_leases->renewLease();
    if (!lease) {
        // Requests stop once the lease is no longer known to hold (leaseHeldUntilMs); the next
        // tick tries again.
        qCWarning(lcStore) << "instance" << m_instanceId << "heartbeat failed:" << lease.error();
        m_state.storeHealth.writeFailed(lease.error());
        return;
    }
    m_state.storeHealth.writeSucceeded(); // the heartbeat is a write
    if (lease.value() == InstanceLeases::Lease::Lost) {
        // The process stalled past its lease: another instance may deliver what it held. Whatever
        // is in memory is forgotten (answers still due change nothing), and what nobody took is
        // claimed back below under a new registration.
        if (!m_leaseWasLost) {
            qCWarning(lcStore) << "instance" << m_instanceId << "lost its lease; forgetting"
                               << m_state.deliveries.size() + size_t(m_parkedIds.size())
                               << "deliveries and registering again";
        }
        m_leaseWasLost = true;
        forgetAll();
        if (auto registered = registerInstance(); !registered) {
            qCWarning(lcStore) << "cannot register again:" << registered.error();
            return;
        }
        qCInfo(lcStore) << "registered again as instance" << m_instanceId;
    }
    const bool wasHeld = now <= m_state.leaseHeldUntilMs;
    // Counted from before the heartbeat went out, so it ends no later than the store's view of it.
    m_state.leaseHeldUntilMs
        = now + qint64(double(m_state.options.instanceLeaseMs) * m_state.clock->scale());
    auto claimed = claimAll(now);
    if (!claimed) {
        qCWarning(lcStore) << "instance" << m_instanceId << "cannot claim:" << claimed.error();
    } else if (claimed.value() > 0) {
        qCInfo(lcScheduler) << "instance" << m_instanceId << "took over" << claimed.value()
                            << "deliveries";
    }
    syncProbation(now);
    dropExpiredParked(now);
    if (!wasHeld) {
        // Sending resumes: the subscriptions that waited for the lease are due again.
        for (const auto &subscription : m_state.subscriptions)
            m_scheduler.reschedule(*subscription, now);
    }
}

void DeliveryClaims::syncProbation(qint64 now)
{
    auto records = m_leases->probationOfOthers();
    if (!records) {
        qCWarning(lcStore) << "instance" << m_instanceId
                           << "cannot read the shared probation:" << records.error();
        return;
    }
    for (const ProbationRecord &record : std::as_const(records.value())) {
        const QString key = subscriptionKey(record.topic, record.subscription);
        if (record.revision <= m_probationRevisions.value(key, 0))
            continue; // taken over already
        m_probationRevisions.insert(key, record.revision);
        Subscription *subscription = m_state.findSubscription(record.topic, record.subscription);
        if (!subscription)
            continue;
        ProbationTracker &probation = subscription->probation;
        const auto state = ProbationTracker::State(record.state);
        if (probation.state() == state && probation.untilMs() == record.untilMs
            && probation.cause() == record.cause
            && probation.consecutiveFailures() == record.consecutiveFailures)
            continue; // what this instance reached itself
        probation.restore(state, record.cause, record.untilMs, record.durationMs,
                          record.consecutiveFailures);
        qCInfo(lcScheduler).nospace().noquote()
            << "instance " << m_instanceId << ": probation of " << subscription->displayName()
            << " from instance " << record.instance << ": state " << record.state << " cause "
            << int(record.cause) << " until " << record.untilMs;
        m_signals.raiseProbationChanged(subscription->topic, subscription->config.name);
        m_scheduler.reschedule(*subscription, now);
    }
}

Delivery &DeliveryClaims::place(const DeliveryRecord &record)
{
    Delivery &ref = m_state.deliveries[record.id];
    ref.id = record.id;
    ref.eventSeq = record.eventSeq;
    ref.dueMs = record.dueMs;
    ref.publishMs = record.publishMs;
    ref.lastAttemptMs = record.lastAttemptMs;
    ref.deadLetterUnavailableSinceMs = record.deadLetterUnavailableSinceMs;
    ref.attempts = record.attempts;
    ref.lastHttpStatus = record.lastHttpStatus;
    ref.lastOutcome = record.lastOutcome;
    ref.reason = record.reason;
    // InFlight is stored as Pending (D1: a crash mid-request retries it).
    ref.state = record.state == DeliveryState::DeadLetterPending ? DeliveryState::DeadLetterPending
                                                                 : DeliveryState::Pending;
    return ref;
}

void DeliveryClaims::adopt(const DeliveryRecord &record, qint64 now)
{
    if (m_state.deliveries.count(record.id) > 0 || m_parkedIds.contains(record.id))
        return; // already here (a claim that returns a delivery this instance holds)
    if (m_lastSubscription < 0 || record.topic != m_lastTopic
        || record.subscription != m_lastName) {
        const Subscription *found = m_state.findSubscription(record.topic, record.subscription);
        m_lastSubscription = found ? found->index : -1;
        m_lastTopic = record.topic;
        m_lastName = record.subscription;
    }
    if (m_lastSubscription < 0) {
        if (m_leases && m_state.store->sharedConfiguration()) {
            park(record, now); // its subscription may be one this instance has not applied yet
            return;
        }
        // A store of one engine: the workspace is the whole truth, the subscription was deleted.
        m_outcomes.drop(nullptr, place(record), DeadLetterReason::SubscriptionDeleted, now);
        return;
    }
    Delivery &ref = place(record);
    Subscription &subscription = m_state.subscription(m_lastSubscription);
    ref.subscriptionIndex = subscription.index;
    // Appended; each heap is built once in settleAdopted() (linear instead of n log n).
    if (ref.state == DeliveryState::DeadLetterPending) {
        subscription.deadLetterPending.push_back(
            HeapEntry {ref.dueMs, quint64(ref.id), ref.generation});
        ++subscription.counters.deadLetterPending;
    } else {
        ++ref.generation;
        subscription.pending.push_back(HeapEntry {ref.dueMs, quint64(ref.id), ref.generation});
        ++subscription.counters.backlog;
    }
}

void DeliveryClaims::park(const DeliveryRecord &record, qint64 now)
{
    const QString key = subscriptionKey(record.topic, record.subscription);
    auto it = m_parked.find(key);
    if (it == m_parked.end())
        it = m_parked.insert(key, ParkedSubscription {record.topic, record.subscription, now, {}});
    it->records.push_back(record);
    m_parkedIds.insert(record.id);
    ++m_parkedSinceLog[key];
}

void DeliveryClaims::logParked()
{
    if (m_parkedSinceLog.isEmpty())
        return;
    QStringList parts;
    qint64 total = 0;
    for (auto it = m_parkedSinceLog.cbegin(); it != m_parkedSinceLog.cend(); ++it) {
        const ParkedSubscription &parked = m_parked.value(it.key());
        parts.append(u"%1 / %2 (%3)"_s.arg(parked.topic, parked.name).arg(it.value()));
        total += it.value();
    }
    parts.sort();
    m_parkedSinceLog.clear();
    qCInfo(lcScheduler).nospace().noquote()
        << "instance " << m_instanceId << " parked " << total
        << " claimed deliveries of subscriptions its configuration does not have yet: "
        << parts.join(u", "_s) << "; delivered once a configuration with them applies, dropped as "
        << "SubscriptionDeleted if still unknown after " << UnknownSubscriptionGraceMs / 1000
        << " s";
}

void DeliveryClaims::workspaceApplied(qint64 now)
{
    qint64 adopted = 0;
    for (auto it = m_parked.begin(); it != m_parked.end();) {
        if (!m_state.findSubscription(it->topic, it->name)) {
            ++it;
            continue;
        }
        for (const DeliveryRecord &record : it->records) {
            m_parkedIds.remove(record.id);
            adopt(record, now);
            ++adopted;
        }
        qCInfo(lcScheduler).nospace().noquote()
            << "instance " << m_instanceId << ": " << it->records.size() << " parked deliveries of "
            << it->topic << " / " << it->name
            << " adopted: the configuration has the subscription now";
        m_parkedSinceLog.remove(it.key());
        it = m_parked.erase(it);
    }
    if (adopted > 0)
        settleAdopted();
}

void DeliveryClaims::dropExpiredParked(qint64 now)
{
    const qint64 graceMs = unknownSubscriptionGraceMs();
    for (auto it = m_parked.begin(); it != m_parked.end();) {
        if (now - it->sinceMs < graceMs) {
            ++it;
            continue;
        }
        std::vector<Delivery *> dropped;
        dropped.reserve(it->records.size());
        for (const DeliveryRecord &record : it->records) {
            m_parkedIds.remove(record.id);
            dropped.push_back(&place(record));
        }
        // The dropped log names the events; without them (the store is unreachable) it still
        // names the subscription, and the drop must not wait for the store.
        (void)m_state.ensureEventsLoaded(dropped);
        for (Delivery *delivery : dropped) {
            m_outcomes.dropUnknownSubscription(it->topic, it->name, *delivery,
                                               DeadLetterReason::SubscriptionDeleted, now);
        }
        qCWarning(lcScheduler).nospace().noquote()
            << "instance " << m_instanceId << " dropped " << dropped.size()
            << " parked deliveries of " << it->topic << " / " << it->name
            << " (SubscriptionDeleted): the configuration has not had the subscription for "
            << (now - it->sinceMs) / 1000 << " s";
        m_parkedSinceLog.remove(it.key());
        it = m_parked.erase(it);
    }
}

void DeliveryClaims::settleAdopted()
{
    m_lastSubscription = -1;
    const qint64 now = m_state.clock->nowMs();
    for (const auto &subscription : m_state.subscriptions) {
        heapify(subscription->pending);
        heapify(subscription->deadLetterPending);
        m_validation.holdBacklog(*subscription); // the adopted backlog is held too until validated
        m_scheduler.reschedule(*subscription, now); // nothing before the engine runs
    }
}

void DeliveryClaims::forget(const QList<qint64> &deliveryIds)
{
    qsizetype forgotten = 0;
    for (const qint64 id : deliveryIds) {
        const auto it = m_state.deliveries.find(id);
        if (it == m_state.deliveries.end())
            continue; // finished meanwhile, or never here
        Delivery &delivery = it->second;
        Subscription &subscription = m_state.subscription(delivery.subscriptionIndex);
        // Its heap entries go stale with it (EngineState::liveDelivery finds nothing); an answer
        // still due for it finds nothing to change (Dispatcher::finishRequest).
        switch (delivery.state) {
        case DeliveryState::Pending:
            --subscription.counters.backlog;
            break;
        case DeliveryState::InFlight:
            --subscription.counters.inFlight;
            break;
        case DeliveryState::DeadLetterPending:
            --subscription.counters.deadLetterPending;
            break;
        default:
            break;
        }
        m_state.deliveries.erase(it);
        ++forgotten;
    }
    if (forgotten > 0) {
        qCInfo(lcScheduler) << "instance" << m_instanceId << "forgot" << forgotten
                            << "deliveries another instance took over";
    }
}

void DeliveryClaims::forgetAll()
{
    // Parked rows went with the lease too: whoever claimed them has them now.
    m_parked.clear();
    m_parkedIds.clear();
    m_parkedSinceLog.clear();
    QList<qint64> ids;
    ids.reserve(qsizetype(m_state.deliveries.size()));
    for (const auto &[id, delivery] : m_state.deliveries)
        ids.append(id);
    forget(ids);
}

void DeliveryClaims::release()
{
    if (!m_leases)
        return;
    // Parked deliveries are rows this instance owns: released with the rest, they are claimed by
    // an instance whose configuration may have their subscription.
    m_parked.clear();
    m_parkedIds.clear();
    m_parkedSinceLog.clear();
    if (auto released = m_leases->releaseInstance(); !released)
        qCWarning(lcStore) << "instance" << m_instanceId << "not released:" << released.error();
    else
        qCInfo(lcStore) << "instance" << m_instanceId << "released its deliveries";
}

} // namespace EventDesk
