// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "OutcomeHandler.h"

#include "../rules/OutcomeClassifier.h"
#include "../rules/RetryPlanner.h"
#include "CommitBuffer.h"
#include "EngineSignals.h"

namespace EventDesk {

OutcomeHandler::OutcomeHandler(EngineState &state, CommitBuffer &commits, EngineSignals &signals)
    : m_state(state)
    , m_commits(commits)
    , m_signals(signals)
{
}

DeadLetterReason OutcomeHandler::probationReason(DeliveryOutcome cause)
{
    // Only a no-retry class of outcome (ProbationTracker::isNoRetryClass) ends deliveries without
    // an attempt, and each names its UndeliverableDueToHttp<Reason>.
    Q_ASSERT(ProbationTracker::isNoRetryClass(cause));
    const DeadLetterReason reason = OutcomeClassifier::noRetryReason(cause);
    return reason == DeadLetterReason::None ? DeadLetterReason::UndeliverableDueToHttpForbidden
                                            : reason;
}

double OutcomeHandler::nextJitter()
{
    if (!m_state.options.jitter)
        return 0.0;
    // SPEC R5: uniform 0 .. +10 % of the wait.
    std::uniform_real_distribution<double> distribution(0.0, 0.1);
    return distribution(m_state.random);
}

void OutcomeHandler::succeeded(Subscription &subscription, Delivery &delivery)
{
    delivery.lastOutcome = DeliveryOutcome::Delivered;
    ++subscription.counters.delivered;
    finish(delivery, DeliveryState::Delivered);
}

void OutcomeHandler::failed(Subscription &subscription, Delivery &delivery, DeliveryOutcome outcome,
                            int httpStatus, qint64 now)
{
    ++delivery.attempts;
    delivery.lastOutcome = outcome;
    delivery.lastHttpStatus = httpStatus;
    ++subscription.counters.failedByOutcome[outcome];
    if (subscription.removed) {
        drop(&subscription, delivery, DeadLetterReason::SubscriptionDeleted, now);
        return;
    }
    // SPEC R3: the wait counts from the failed attempt (lastAttemptMs), not from its answer.
    const RetryDecision decision = RetryPlanner::afterFailure(
        subscription.config.retryPolicy, outcome, httpStatus, delivery.attempts,
        delivery.lastAttemptMs, now, nextJitter(), subscription.config.hasDeadLetterDestination());
    switch (decision.action) {
    case RetryDecision::Action::Retry:
        delivery.dueMs = decision.dueMs;
        // A retry is at least 10 s away: let the payload go and reload it when it comes due.
        delivery.event.reset();
        m_state.pushPending(subscription, delivery);
        m_commits.update(delivery.record(subscription));
        break;
    case RetryDecision::Action::DeadLetter:
        toDeadLetterPending(subscription, delivery, decision.reason, now);
        break;
    case RetryDecision::Action::Drop:
        drop(&subscription, delivery, decision.reason, now);
        break;
    }
}

void OutcomeHandler::endUndelivered(Subscription &subscription, Delivery &delivery,
                                    DeadLetterReason reason, qint64 now)
{
    if (RetryPlanner::fateAction(subscription.config.hasDeadLetterDestination())
        == RetryDecision::Action::DeadLetter)
        toDeadLetterPending(subscription, delivery, reason, now);
    else
        drop(&subscription, delivery, reason, now);
}

void OutcomeHandler::toDeadLetterPending(Subscription &subscription, Delivery &delivery,
                                         DeadLetterReason reason, qint64 now)
{
    // SPEC L3: the write happens the dead-letter delay after the last attempt (or now, when the
    // decision is taken later than that, as for a TTL that expires at the next due time).
    const qint64 delayMs = qint64(m_state.workspace.settings.deadLetterDelaySeconds) * 1000;
    const qint64 base = delivery.lastAttemptMs > 0 ? delivery.lastAttemptMs : now;
    delivery.state = DeliveryState::DeadLetterPending;
    delivery.reason = reason;
    delivery.dueMs = std::max(now, base + delayMs);
    delivery.event.reset();
    ++delivery.generation;
    heapPush(subscription.deadLetterPending,
             HeapEntry {delivery.dueMs, quint64(delivery.id), delivery.generation});
    ++subscription.counters.deadLetterPending;
    m_commits.update(delivery.record(subscription));
}

void OutcomeHandler::drop(Subscription *subscription, Delivery &delivery, DeadLetterReason reason,
                          qint64 now)
{
    if (subscription) {
        ++subscription->counters.droppedByReason[reason];
        if (delivery.state == DeliveryState::DeadLetterPending)
            --subscription->counters.deadLetterPending;
        else if (delivery.state == DeliveryState::Pending
                 && reason == DeadLetterReason::SubscriptionDeleted)
            --subscription->counters.backlog;
    }
    recordDrop(subscription ? subscription->topic : QString(),
               subscription ? subscription->config.name : QString(), delivery, reason, now);
}

void OutcomeHandler::dropUnknownSubscription(const QString &topic, const QString &subscription,
                                             Delivery &delivery, DeadLetterReason reason,
                                             qint64 now)
{
    recordDrop(topic, subscription, delivery, reason, now);
}

void OutcomeHandler::recordDrop(const QString &topic, const QString &subscription,
                                Delivery &delivery, DeadLetterReason reason, qint64 now)
{
    DroppedEntry entry;
    entry.topic = topic;
    entry.subscription = subscription;
    entry.reason = reason;
    entry.lastOutcome = delivery.lastOutcome;
    entry.lastHttpStatus = delivery.lastHttpStatus;
    entry.attempts = delivery.attempts;
    entry.droppedMs = now;
    if (delivery.event)
        entry.eventId = delivery.event->id;
    m_commits.dropped(entry, delivery.eventSeq);
    m_commits.finished(FinishedDelivery {delivery.id, delivery.eventSeq, DeliveryState::Dropped});
    m_state.deliveries.erase(delivery.id);
    m_commits.schedule();
}

void OutcomeHandler::finish(Delivery &delivery, DeliveryState fate)
{
    m_commits.finished(FinishedDelivery {delivery.id, delivery.eventSeq, fate});
    m_state.deliveries.erase(delivery.id); // destroys delivery
    m_commits.schedule();
}

void OutcomeHandler::recordProbation(Subscription &subscription)
{
    const ProbationTracker &probation = subscription.probation;
    ProbationRecord record;
    record.topic = subscription.topic;
    record.subscription = subscription.config.name;
    record.state = int(probation.state());
    record.cause = probation.cause();
    record.untilMs = probation.untilMs();
    record.durationMs = probation.currentDurationMs();
    record.consecutiveFailures = probation.consecutiveFailures();
    m_commits.probation(record);
    m_signals.raiseProbationChanged(subscription.topic, subscription.config.name);
}

} // namespace EventDesk
