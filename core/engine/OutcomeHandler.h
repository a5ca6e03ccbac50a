// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "EngineState.h"

namespace EventDesk {

class CommitBuffer;
class EngineSignals;

// What becomes of a delivery after an attempt or instead of one: SPEC R1–R8 (retry, TTL and
// attempt exhaustion, through RetryPlanner), L1 (dead-letter or drop), P1–P3's records, and the
// counters the GUI and the metrics show. It changes the shared state and buffers the store rows;
// it sends nothing and schedules nothing (the caller reschedules the subscription).
class OutcomeHandler
{
public:
    OutcomeHandler(EngineState &state, CommitBuffer &commits, EngineSignals &signals);

    void succeeded(Subscription &subscription, Delivery &delivery);
    // SPEC R1–R8: one decision per event, even when it failed inside a batch (B6). The failed
    // attempt was sent at delivery.lastAttemptMs; `now` is when it failed (R3 counts from the
    // former, a timeout from the latter).
    void failed(Subscription &subscription, Delivery &delivery, DeliveryOutcome outcome,
                int httpStatus, qint64 now);
    // SPEC L1: dead-lettered when the subscription has a destination, dropped otherwise.
    void endUndelivered(Subscription &subscription, Delivery &delivery, DeadLetterReason reason,
                        qint64 now);
    // SPEC L3: waits for the dead-letter write (DeadLettering), the dead-letter delay after the
    // last attempt.
    void toDeadLetterPending(Subscription &subscription, Delivery &delivery,
                             DeadLetterReason reason, qint64 now);
    // SPEC L1: recorded as Dropped, with the reason. subscription is null for a delivery whose
    // subscription no longer exists.
    void drop(Subscription *subscription, Delivery &delivery, DeadLetterReason reason, qint64 now);
    // The same for a delivery whose subscription this engine never knew (DeliveryClaims: claimed
    // on a shared store, the subscription deleted): the dropped log still names it.
    void dropUnknownSubscription(const QString &topic, const QString &subscription,
                                 Delivery &delivery, DeadLetterReason reason, qint64 now);
    // The delivery is done (Delivered or DeadLettered): its row is finished and it leaves memory.
    void finish(Delivery &delivery, DeliveryState fate);
    // SPEC P6: the probation state is persisted and announced.
    void recordProbation(Subscription &subscription);
    // SPEC P3: the dead-letter reason of deliveries ended by a no-retry-class probation.
    static DeadLetterReason probationReason(DeliveryOutcome cause);

private:
    double nextJitter();
    // The dropped log's entry, the row finished, the delivery out of memory.
    void recordDrop(const QString &topic, const QString &subscription, Delivery &delivery,
                    DeadLetterReason reason, qint64 now);

    EngineState &m_state;
    CommitBuffer &m_commits;
    EngineSignals &m_signals;
};

} // namespace EventDesk
