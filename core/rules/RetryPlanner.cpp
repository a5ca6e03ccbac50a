// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "RetryPlanner.h"

#include "OutcomeClassifier.h"

#include <QtGlobal>

#include <algorithm>
#include <array>
#include <cmath>

namespace EventDesk {

namespace {

constexpr qint64 SecondMs = 1000;
constexpr qint64 MinuteMs = 60 * SecondMs;
constexpr qint64 HourMs = 60 * MinuteMs;

// SPEC R3: the wait after the k-th failed attempt is entry k-1; after the table, every 12 h.
constexpr std::array<qint64, 9> RetrySchedule = {
    10 * SecondMs, 30 * SecondMs, 1 * MinuteMs, 5 * MinuteMs, 10 * MinuteMs,
    30 * MinuteMs, 1 * HourMs,    3 * HourMs,   6 * HourMs,
};
constexpr qint64 ScheduleTailMs = 12 * HourMs;

constexpr double MaxJitterFraction = 0.1; // SPEC R5 decision: 0 .. +10 %

} // namespace

qint64 RetryPlanner::scheduleEntryMs(int failedAttempts)
{
    const int index = std::max(failedAttempts, 1) - 1;
    if (index < static_cast<int>(RetrySchedule.size()))
        return RetrySchedule[static_cast<std::size_t>(index)];
    return ScheduleTailMs;
}

qint64 RetryPlanner::minimumWaitMs(int httpStatus)
{
    // SPEC R4: status-specific minimum waits.
    switch (httpStatus) {
    case 408:
        return 2 * MinuteMs;
    case 503:
        return 30 * SecondMs;
    case 404:
        return 5 * MinuteMs;
    default:
        return 10 * SecondMs;
    }
}

qint64 RetryPlanner::retryWaitMs(int failedAttempts, int httpStatus, double jitterFraction)
{
    const qint64 wait = std::max(scheduleEntryMs(failedAttempts), minimumWaitMs(httpStatus));
    // SPEC R5: jitter only ever lengthens the wait, so the R4 minimums still hold. Rounded down
    // so the added part never exceeds the fraction asked for.
    const double fraction
        = std::isfinite(jitterFraction) ? std::clamp(jitterFraction, 0.0, MaxJitterFraction) : 0.0;
    return wait + static_cast<qint64>(std::floor(static_cast<double>(wait) * fraction));
}

qint64 RetryPlanner::retryAnchorMs(DeliveryOutcome outcome, int httpStatus, qint64 sentMs,
                                   qint64 failedAtMs)
{
    // SPEC R3, D6: no answer counts from the moment it timed out; an answer (a 408 too) from
    // the attempt.
    const bool unanswered = outcome == DeliveryOutcome::TimedOut && httpStatus == 0;
    if (unanswered || sentMs <= 0 || sentMs > failedAtMs)
        return failedAtMs;
    return sentMs;
}

RetryDecision RetryPlanner::afterFailure(const RetryPolicy &policy, DeliveryOutcome outcome,
                                         int httpStatus, int failedAttempts, qint64 sentMs,
                                         qint64 failedAtMs, double jitterFraction,
                                         bool hasDeadLetterDestination)
{
    RetryDecision decision;
    if (OutcomeClassifier::isNoRetry(outcome)) {
        // SPEC R2: retrying cannot fix a configuration error.
        decision.action = fateAction(hasDeadLetterDestination);
        decision.reason = OutcomeClassifier::noRetryReason(outcome);
        return decision;
    }
    if (failedAttempts >= policy.maxDeliveryAttempts) {
        // SPEC R8: the last allowed attempt failed; it is not rescheduled.
        decision.action = fateAction(hasDeadLetterDestination);
        decision.reason = DeadLetterReason::MaxDeliveryAttemptsExceeded;
        return decision;
    }
    decision.action = RetryDecision::Action::Retry;
    const qint64 anchorMs = retryAnchorMs(outcome, httpStatus, sentMs, failedAtMs);
    decision.dueMs = std::max(failedAtMs,
                              anchorMs + retryWaitMs(failedAttempts, httpStatus, jitterFraction));
    return decision;
}

qint64 RetryPlanner::expiresAtMs(const RetryPolicy &policy, qint64 publishMs)
{
    // SPEC R7: TTL is measured from the publish time.
    return publishMs + qint64(policy.eventTimeToLiveInMinutes) * MinuteMs;
}

bool RetryPlanner::isExpired(const RetryPolicy &policy, qint64 publishMs, qint64 nowMs)
{
    // SPEC R7: at exactly publish + TTL it has run out.
    return nowMs >= expiresAtMs(policy, publishMs);
}

RetryDecision::Action RetryPlanner::fateAction(bool hasDeadLetterDestination)
{
    // SPEC L1: without a dead-letter destination every dead-letter fate becomes a drop.
    return hasDeadLetterDestination ? RetryDecision::Action::DeadLetter
                                    : RetryDecision::Action::Drop;
}

RetryPlanner::Timeline RetryPlanner::simulateAlwaysFailing(const RetryPolicy &policy,
                                                           DeliveryOutcome outcome, int httpStatus,
                                                           qint64 publishMs, qint64 responseMs,
                                                           bool hasDeadLetterDestination)
{
    Timeline timeline;
    const qint64 response = std::max<qint64>(responseMs, 0);
    qint64 dueMs = publishMs; // SPEC D2: attempt 1 is immediate
    int failedAttempts = 0;
    // The loop ends: every retry waits at least 10 s (R4), so the TTL (R7) or the attempt limit
    // (R8) is reached after finitely many iterations.
    for (;;) {
        // SPEC R7: TTL is checked when an attempt comes due, not in between.
        if (failedAttempts > 0 && isExpired(policy, publishMs, dueMs)) {
            timeline.fate = fateAction(hasDeadLetterDestination);
            timeline.reason = DeadLetterReason::TimeToLiveExceeded;
            timeline.fateAtMs = dueMs;
            return timeline;
        }
        timeline.attempts.append(TimelineEntry {failedAttempts + 1, dueMs});
        ++failedAttempts;
        const qint64 failedAtMs = dueMs + response;
        const RetryDecision decision = afterFailure(policy, outcome, httpStatus, failedAttempts,
                                                    dueMs, failedAtMs, 0.0,
                                                    hasDeadLetterDestination);
        if (decision.action != RetryDecision::Action::Retry) {
            timeline.fate = decision.action;
            timeline.reason = decision.reason;
            timeline.fateAtMs = failedAtMs;
            return timeline;
        }
        dueMs = decision.dueMs;
    }
}

} // namespace EventDesk
