// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../model/EventSubscription.h"
#include "DeliveryOutcome.h"

#include <QtGlobal>

#include <QList>

namespace EventDesk {

// What to do with a delivery after a failed attempt or when it comes due.
struct RetryDecision
{
    enum class Action { Retry, DeadLetter, Drop };
    Action action = Action::Retry;
    qint64 dueMs = 0; // Retry: when the next attempt is due (engine time, ms since epoch)
    DeadLetterReason reason = DeadLetterReason::None; // DeadLetter / Drop
};

// Times are engine milliseconds since the epoch; durations milliseconds. No clock, no I/O:
// the engine and the GUI's retry-timeline preview call the same functions.
class RetryPlanner final
{
public:
    // R3: 10 s, 30 s, 1 min, 5 min, 10 min, 30 min, 1 h, 3 h, 6 h, then every 12 h.
    // failedAttempts >= 1: the schedule entry for the wait after that many failed attempts.
    static qint64 scheduleEntryMs(int failedAttempts);

    // R4: 408 -> 2 min, 503 -> 30 s, 404 -> 5 min, anything else -> 10 s.
    static qint64 minimumWaitMs(int httpStatus);

    // R3+R4+R5: max(schedule entry, minimum) * (1 + jitterFraction); jitterFraction in [0, 0.1].
    static qint64 retryWaitMs(int failedAttempts, int httpStatus, double jitterFraction);

    // R3: the time a retry's wait counts from. An answered failure counts from the moment its
    // attempt was sent (sentMs), so that neither the endpoint's answer time nor the engine's own
    // hand-offs shift the schedule; an attempt that got no answer (TimedOut with no status, D6)
    // counts from the moment it timed out.
    static qint64 retryAnchorMs(DeliveryOutcome outcome, int httpStatus, qint64 sentMs,
                                qint64 failedAtMs);

    // R1, R2, R8: after the failedAttempts-th failed attempt (counting this one), sent at sentMs
    // and failed with outcome/httpStatus at failedAtMs. No-retry outcome -> DeadLetter (or Drop
    // without destination) with its UndeliverableDueToHttp* reason; attempts used up ->
    // MaxDeliveryAttemptsExceeded; otherwise Retry at retryAnchorMs(...) + retryWaitMs(...), but
    // never before failedAtMs. TTL is NOT checked here (R7).
    static RetryDecision afterFailure(const RetryPolicy &policy, DeliveryOutcome outcome,
                                      int httpStatus, int failedAttempts, qint64 sentMs,
                                      qint64 failedAtMs, double jitterFraction,
                                      bool hasDeadLetterDestination);

    // R7: when the TTL of a delivery published at publishMs runs out: publishMs +
    // eventTimeToLiveInMinutes. The engine orders held deliveries by it, the retry-timeline
    // preview draws it.
    static qint64 expiresAtMs(const RetryPolicy &policy, qint64 publishMs);

    // R7: called when a delivery comes due (before sending it). True if its TTL has run out:
    // nowMs >= expiresAtMs(policy, publishMs).
    static bool isExpired(const RetryPolicy &policy, qint64 publishMs, qint64 nowMs);

    // L1: DeadLetter when the subscription has a destination, otherwise Drop.
    static RetryDecision::Action fateAction(bool hasDeadLetterDestination);

    // The retry-timeline preview (issue 3) and the R9 test: simulate a delivery published at
    // publishMs against an endpoint that always fails with outcome/httpStatus, each attempt
    // taking responseMs. Returns every attempt time and the final decision.
    struct TimelineEntry
    {
        int attempt = 0; // 1-based
        qint64 atMs = 0;
    };
    struct Timeline
    {
        QList<TimelineEntry> attempts;
        RetryDecision::Action fate = RetryDecision::Action::DeadLetter;
        DeadLetterReason reason = DeadLetterReason::None;
        qint64 fateAtMs = 0; // when the decision to dead-letter / drop is taken
    };
    static Timeline simulateAlwaysFailing(const RetryPolicy &policy, DeliveryOutcome outcome,
                                          int httpStatus, qint64 publishMs, qint64 responseMs,
                                          bool hasDeadLetterDestination);
};

} // namespace EventDesk
