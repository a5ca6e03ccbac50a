// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "ProbationTracker.h"

#include "OutcomeClassifier.h"

#include <algorithm>

namespace EventDesk {

namespace {

constexpr qint64 SecondMs = 1000;
constexpr qint64 MinuteMs = 60 * SecondMs;

// SPEC P2: the threshold is configurable 1..100.
constexpr int MinThreshold = 1;
constexpr int MaxThreshold = 100;

} // namespace

ProbationTracker::ProbationTracker(int threshold)
    : m_threshold(std::clamp(threshold, MinThreshold, MaxThreshold))
{
}

qint64 ProbationTracker::probationDurationMs(DeliveryOutcome outcome)
{
    // SPEC P1 table.
    switch (outcome) {
    case DeliveryOutcome::Busy:
    case DeliveryOutcome::TimedOut:
        return 10 * SecondMs;
    case DeliveryOutcome::SocketError:
        return 30 * SecondMs;
    case DeliveryOutcome::NotFound:
    case DeliveryOutcome::ResolutionError:
    case DeliveryOutcome::Disabled:
    case DeliveryOutcome::Full:
    case DeliveryOutcome::Unauthorized:
    case DeliveryOutcome::Forbidden:
        return 5 * MinuteMs;
    case DeliveryOutcome::InvalidAzureFunctionDestination:
        return 10 * MinuteMs;
    case DeliveryOutcome::GenericError:
    case DeliveryOutcome::SessionQueueNotSupported:
        // SPEC P2: GenericError takes Busy's duration. SessionQueueNotSupported is not in the
        // P1 table; it is an endpoint failure like any other, so it is treated the same way.
        return 10 * SecondMs;
    case DeliveryOutcome::Delivered:
    case DeliveryOutcome::BadRequest:
    case DeliveryOutcome::PayloadTooLarge:
    case DeliveryOutcome::Probation:
    case DeliveryOutcome::Canceled:
    case DeliveryOutcome::Aborted:
    case DeliveryOutcome::Delivering:
    case DeliveryOutcome::EndpointValidationPending: // never sent: says nothing of the endpoint's health
    case DeliveryOutcome::EndpointValidationFailed:
    case DeliveryOutcome::KeychainPending:
        return 0;
    }
    return 0;
}

bool ProbationTracker::countsAsEndpointFailure(DeliveryOutcome outcome)
{
    // Exactly the outcomes that have a probation duration.
    return probationDurationMs(outcome) > 0;
}

bool ProbationTracker::isNoRetryClass(DeliveryOutcome outcome)
{
    // The outcomes that are not retried (R2) and count against the endpoint (P2).
    return OutcomeClassifier::isNoRetry(outcome) && countsAsEndpointFailure(outcome);
}

void ProbationTracker::recordSuccess()
{
    // SPEC P2/P4: any success resets the count and ends probation.
    m_state = State::Healthy;
    m_cause = DeliveryOutcome::Delivered;
    m_untilMs = 0;
    m_durationMs = 0;
    m_consecutiveFailures = 0;
    m_probeInFlight = false;
}

bool ProbationTracker::recordFailure(DeliveryOutcome outcome, qint64 nowMs)
{
    if (!countsAsEndpointFailure(outcome)) {
        // SPEC P2: the event was bad (or we cancelled), the endpoint answered or was never asked.
        // A half-open probe that ends this way proved nothing: another delivery may probe.
        if (m_state == State::HalfOpen)
            m_probeInFlight = false;
        return false;
    }

    ++m_consecutiveFailures;
    switch (m_state) {
    case State::Healthy:
        if (m_consecutiveFailures < m_threshold)
            return false;
        // SPEC P2: the duration is that of the outcome of the threshold-th failure.
        m_durationMs = probationDurationMs(outcome);
        break;
    case State::InProbation:
        // A request sent before probation began has failed late: counted, but it neither
        // restarts nor extends the probation already running.
        return false;
    case State::HalfOpen:
        // SPEC P4: twice the previous duration, capped at 4 h. Decision: never shorter than the
        // P1 duration of the outcome that failed the probe (a Busy probation whose probe gets a
        // 401 waits at least Unauthorized's 5 min).
        m_durationMs
            = std::min(std::max(2 * m_durationMs, probationDurationMs(outcome)), MaxProbationMs);
        break;
    }
    m_state = State::InProbation;
    m_cause = outcome;
    m_untilMs = nowMs + m_durationMs;
    m_probeInFlight = false;
    return true;
}

void ProbationTracker::update(qint64 nowMs)
{
    // SPEC P4: when probation ends, one delivery is tried first (half-open).
    if (m_state == State::InProbation && nowMs >= m_untilMs) {
        m_state = State::HalfOpen;
        m_probeInFlight = false;
    }
}

ProbationTracker::DueAction ProbationTracker::dueAction() const
{
    switch (m_state) {
    case State::Healthy:
        return DueAction::Send;
    case State::HalfOpen:
        // SPEC P4: exactly one trial request; the rest wait for its outcome.
        return m_probeInFlight ? DueAction::Defer : DueAction::Send;
    case State::InProbation:
        // SPEC P3: transient causes defer, no-retry-class causes dead-letter without an attempt.
        return isNoRetryClass(m_cause) ? DueAction::DeadLetterWithoutAttempt : DueAction::Defer;
    }
    return DueAction::Defer;
}

void ProbationTracker::beginProbe()
{
    if (m_state == State::HalfOpen)
        m_probeInFlight = true;
}

void ProbationTracker::probeAbandoned()
{
    m_probeInFlight = false;
}

void ProbationTracker::restore(State state, DeliveryOutcome cause, qint64 untilMs,
                               qint64 durationMs, int consecutiveFailures)
{
    m_state = state;
    m_cause = cause;
    m_untilMs = untilMs;
    m_durationMs = std::clamp<qint64>(durationMs, 0, MaxProbationMs);
    m_consecutiveFailures = std::max(consecutiveFailures, 0);
    // A probe that was in flight when the application stopped has no outcome: allow a new one.
    m_probeInFlight = false;
}

} // namespace EventDesk
