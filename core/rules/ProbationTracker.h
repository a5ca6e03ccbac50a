// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "DeliveryOutcome.h"

#include <QtGlobal>

namespace EventDesk {

// SPEC §6 for one subscription. Pure state machine: the caller passes the time.
//
//   Healthy --(threshold consecutive counted failures)--> InProbation(until)
//   InProbation --(now >= until)--> HalfOpen: exactly one delivery may be tried (P4)
//   HalfOpen --success--> Healthy (count reset)
//   HalfOpen --failure--> InProbation for twice the previous duration (cap 4 h)
//   any state --success--> Healthy
class ProbationTracker final
{
public:
    enum class State { Healthy, InProbation, HalfOpen };

    // P3: what happens to a delivery that comes due while in probation.
    enum class DueAction { Send, Defer, DeadLetterWithoutAttempt };

    static constexpr qint64 MaxProbationMs = 4LL * 60 * 60 * 1000; // P4 cap
    static constexpr int DefaultThreshold = 10; // P2

    explicit ProbationTracker(int threshold = DefaultThreshold);

    // P1 table (GenericError -> Busy's 10 s). 0 for outcomes that never cause probation
    // (BadRequest, PayloadTooLarge, Canceled, Aborted, Delivered, Delivering, Probation).
    static qint64 probationDurationMs(DeliveryOutcome outcome);

    // P2: BadRequest and PayloadTooLarge say the event is bad, not the endpoint: not counted.
    // Canceled (our own shutdown/deletion) and Aborted (already counted as TimedOut) neither.
    static bool countsAsEndpointFailure(DeliveryOutcome outcome);

    // P3: Unauthorized, Forbidden, Disabled, Full, InvalidAzureFunctionDestination: the outcomes
    // OutcomeClassifier::isNoRetry() does not retry that count as endpoint failures.
    static bool isNoRetryClass(DeliveryOutcome outcome);

    void recordSuccess();
    // Returns true if this failure put (or put back) the subscription into probation.
    bool recordFailure(DeliveryOutcome outcome, qint64 nowMs);

    // Advances InProbation -> HalfOpen when now >= until. Call before deciding what to send.
    void update(qint64 nowMs);

    // For a delivery that is due now (after update()): Send when Healthy, or HalfOpen with no
    // probe in flight (the caller then calls beginProbe()); Defer while InProbation for a
    // transient cause or while the probe is in flight; DeadLetterWithoutAttempt while
    // InProbation for a no-retry-class cause.
    DueAction dueAction() const;
    void beginProbe(); // HalfOpen: the one trial request is in flight
    bool isProbeInFlight() const { return m_probeInFlight; }
    void probeAbandoned(); // the probe was cancelled without an outcome: allow another

    State state() const { return m_state; }
    DeliveryOutcome cause() const { return m_cause; } // outcome that caused the probation
    qint64 untilMs() const { return m_untilMs; } // end of the current probation
    qint64 currentDurationMs() const { return m_durationMs; }
    int consecutiveFailures() const { return m_consecutiveFailures; }
    int threshold() const { return m_threshold; }
    void setThreshold(int threshold) { m_threshold = threshold; }

    // Restores persisted state after a restart.
    void restore(State state, DeliveryOutcome cause, qint64 untilMs, qint64 durationMs,
                 int consecutiveFailures);

private:
    int m_threshold;
    State m_state = State::Healthy;
    DeliveryOutcome m_cause = DeliveryOutcome::Delivered;
    qint64 m_untilMs = 0;
    qint64 m_durationMs = 0;
    int m_consecutiveFailures = 0;
    bool m_probeInFlight = false;
};

} // namespace EventDesk
