// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "DeliveryScheduler.h"

#include "../rules/RetryPlanner.h"
#include "Clock.h"
#include "EngineSignals.h"
#include "OutcomeHandler.h"

namespace EventDesk {

DeliveryScheduler::DeliveryScheduler(EngineState &state, EngineSignals &signals,
                                     OutcomeHandler &outcomes)
    : m_state(state)
    , m_signals(signals)
    , m_outcomes(outcomes)
{
}

Delivery *DeliveryScheduler::takeDue(Subscription &subscription, qint64 now)
{
    while (!subscription.pending.empty() && subscription.pending.front().atMs <= now) {
        const HeapEntry entry = subscription.pending.front();
        heapPop(subscription.pending);
        Delivery *delivery = m_state.liveDelivery(entry, DeliveryState::Pending);
        if (!delivery)
            continue;
        --subscription.counters.backlog;
        // SPEC R7: the TTL is checked only now, when the next attempt comes due.
        if (RetryPlanner::isExpired(subscription.config.retryPolicy, delivery->publishMs, now)) {
            // Never sent because the subscription was in probation (P3): that is its outcome,
            // not the "Delivering" it was created with.
            if (delivery->attempts == 0
                && subscription.probation.state() != ProbationTracker::State::Healthy)
                delivery->lastOutcome = DeliveryOutcome::Probation;
            m_outcomes.endUndelivered(subscription, *delivery, DeadLetterReason::TimeToLiveExceeded,
                                      now);
            continue;
        }
        return delivery;
    }
    return nullptr;
}

void DeliveryScheduler::onAlarm()
{
    if (!m_state.running)
        return;
    m_alarmAtMs = -1;
    m_inAlarm = true;
    const qint64 now = m_state.clock->nowMs();

    if (m_tickAtMs >= 0 && m_tickAtMs <= now) {
        m_tickAtMs = now + m_tickIntervalMs;
        m_hooks.tick(now);
    }

    // D6 deadlines first: a timed-out request frees its slot for the subscriptions serviced next.
    // A request answered meanwhile left its deadline behind: skipped.
    while (!m_deadlineHeap.empty() && m_deadlineHeap.front().atMs <= now) {
        const HeapEntry entry = m_deadlineHeap.front();
        heapPop(m_deadlineHeap);
        if (m_hooks.isRequestOpen(entry.key))
            m_hooks.deadlineDue(entry.key, Deadline(entry.generation), now);
    }

    // Each subscription is serviced at most once per alarm: the due entries are taken off the
    // heap before any turn runs, so work a turn re-keys for "now" waits for the next alarm (at
    // the same engine time) and a subscription that keeps finding work can never spin here.
    m_due.clear();
    while (!m_subscriptionHeap.empty() && m_subscriptionHeap.front().atMs <= now) {
        m_due.push_back(m_subscriptionHeap.front());
        heapPop(m_subscriptionHeap);
    }
    for (const HeapEntry &entry : m_due) {
        Subscription &subscription = m_state.subscription(int(entry.key));
        if (entry.generation != subscription.heapGeneration)
            continue; // re-keyed since (by an earlier turn of this alarm, say)
        subscription.scheduledAtMs = -1;
        m_hooks.service(subscription, now);
    }
    m_inAlarm = false;
    rearmAlarm();
}

void DeliveryScheduler::reschedule(Subscription &subscription, qint64 now)
{
    if (!m_state.running || subscription.removed)
        return;
    while (!subscription.pending.empty()
           && !m_state.liveDelivery(subscription.pending.front(), DeliveryState::Pending))
        heapPop(subscription.pending);

    qint64 next = m_hooks.attention(subscription, now);
    const auto consider = [&next](qint64 at) {
        if (next < 0 || at < next)
            next = at;
    };
    const ProbationTracker &probation = subscription.probation;
    // A shared store's lease not known to hold: nothing is due until a heartbeat renews it (the
    // tick reschedules every subscription then), instead of waking up to find it cannot send.
    if (subscription.config.enabled && !subscription.pending.empty() && !subscription.isHeld()
        && now <= m_state.leaseHeldUntilMs) {
        // WebHook-Allowed-Rate: the next request waits for its slot, like any scheduled wait.
        const qint64 due
            = std::max(subscription.pending.front().atMs, subscription.nextRequestAllowedMs);
        switch (probation.state()) {
        case ProbationTracker::State::InProbation:
            if (ProbationTracker::isNoRetryClass(probation.cause()))
                consider(due);
            else
                consider(std::max(due, probation.untilMs())); // SPEC P5: one heap entry, no polling
            break;
        case ProbationTracker::State::HalfOpen:
            if (!probation.isProbeInFlight())
                consider(due);
            break;
        case ProbationTracker::State::Healthy:
            // With every slot taken the next reply wakes the subscription up.
            if (subscription.inFlightRequests
                < m_state.workspace.settings.maxConcurrentRequestsPerSubscription)
                consider(due);
            break;
        }
    }
    subscription.counters.nextDueMs = next < 0 ? 0 : next;
    if (next == subscription.scheduledAtMs)
        return;
    subscription.scheduledAtMs = next;
    ++subscription.heapGeneration;
    if (next >= 0)
        heapPush(m_subscriptionHeap,
                 HeapEntry {next, quint64(subscription.index), subscription.heapGeneration});
    if (!m_inAlarm)
        rearmAlarm();
}

void DeliveryScheduler::addDeadline(qint64 atMs, quint64 requestId, Deadline deadline)
{
    heapPush(m_deadlineHeap, HeapEntry {atMs, requestId, quint64(deadline)});
}

void DeliveryScheduler::rearmAlarm()
{
    if (!m_state.running)
        return;
    while (!m_subscriptionHeap.empty()) {
        const HeapEntry &top = m_subscriptionHeap.front();
        if (m_state.subscription(int(top.key)).heapGeneration == top.generation)
            break;
        heapPop(m_subscriptionHeap);
    }
    while (!m_deadlineHeap.empty() && !m_hooks.isRequestOpen(m_deadlineHeap.front().key))
        heapPop(m_deadlineHeap);

    qint64 next = -1;
    if (!m_subscriptionHeap.empty())
        next = m_subscriptionHeap.front().atMs;
    if (!m_deadlineHeap.empty() && (next < 0 || m_deadlineHeap.front().atMs < next))
        next = m_deadlineHeap.front().atMs;
    if (m_tickAtMs >= 0 && (next < 0 || m_tickAtMs < next))
        next = m_tickAtMs;
    if (next == m_alarmAtMs)
        return;
    if (!m_signals.onEngineThread()) {
        // The clock belongs to the engine thread. An alarm that rings too early only finds
        // nothing due and is set again; one that would ring too late is set from there now.
        if (next >= 0 && (m_alarmAtMs < 0 || next < m_alarmAtMs))
            m_signals.wake();
        return;
    }
    m_alarmAtMs = next;
    if (next < 0)
        m_state.clock->cancelAlarm();
    else
        m_state.clock->setAlarm(next);
}

void DeliveryScheduler::startTicks(qint64 intervalMs, qint64 now)
{
    m_tickIntervalMs = std::max<qint64>(1, intervalMs);
    m_tickAtMs = now + m_tickIntervalMs;
    rearmAlarm();
}

void DeliveryScheduler::stop()
{
    m_tickAtMs = -1;
    m_state.clock->cancelAlarm();
    m_alarmAtMs = -1;
}

} // namespace EventDesk
