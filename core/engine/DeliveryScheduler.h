// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "EngineState.h"

#include <functional>

namespace EventDesk {

class EngineSignals;
class OutcomeHandler;

// When each subscription next needs attention, with no timer per delivery: per subscription a
// min-heap of its pending deliveries by due time (EngineState), one min-heap of subscriptions by
// their next attention time, one of request deadlines (SPEC D6), and ONE clock alarm for the
// earliest of both. A subscription in probation sits in the heap once, keyed by its probation end
// (SPEC P5). What the scheduler does not know itself (dead-letter writes, validation, held
// deliveries) the other units tell it through Hooks::attention.
class DeliveryScheduler
{
public:
    enum class Deadline { ResponseTimeout, AbortDue };

    struct Hooks
    {
        // The subscription's turn: everything due at now is done, then reschedule() is called.
        std::function<void(Subscription &subscription, qint64 now)> service;
        // Besides its deliveries: when the subscription next needs attention, -1 for never.
        std::function<qint64(Subscription &subscription, qint64 now)> attention;
        std::function<void(quint64 requestId, Deadline deadline, qint64 now)> deadlineDue;
        // A deadline whose request has finished is stale.
        std::function<bool(quint64 requestId)> isRequestOpen;
        // The engine's own periodic work (startTicks()): a shared store's heartbeat and claims.
        std::function<void(qint64 now)> tick;
    };

    DeliveryScheduler(EngineState &state, EngineSignals &signals, OutcomeHandler &outcomes);
    void setHooks(Hooks hooks) { m_hooks = std::move(hooks); }

    // Pops the next pending delivery due at now. SPEC R7: its TTL is checked now, when the next
    // attempt comes due; those whose TTL ran out meanwhile are dead-lettered or dropped on the way.
    // nullptr when nothing more is due.
    Delivery *takeDue(Subscription &subscription, qint64 now);

    // Recomputes when the subscription next needs attention and re-keys it in the heap.
    void reschedule(Subscription &subscription, qint64 now);
    // Sets the clock alarm to the earliest entry (from a lane: through the engine thread).
    void rearmAlarm();
    void addDeadline(qint64 atMs, quint64 requestId, Deadline deadline);
    // The clock's alarm: deadlines first, then every subscription due, each once.
    void onAlarm();
    bool inAlarm() const { return m_inAlarm; }
    // Runs the subscription's turn now (a reply freed a slot: SPEC D2).
    void serviceNow(Subscription &subscription, qint64 now) { m_hooks.service(subscription, now); }
    // Calls Hooks::tick every intervalMs of engine time from now on, first thing in an alarm (so a
    // heartbeat that comes due is renewed before anything is sent). Without it, no ticks.
    void startTicks(qint64 intervalMs, qint64 now);
    // Shutdown: the alarm is cancelled.
    void stop();

private:
    EngineState &m_state;
    EngineSignals &m_signals;
    OutcomeHandler &m_outcomes;
    Hooks m_hooks;
    std::vector<HeapEntry> m_subscriptionHeap; // key: subscription index
    std::vector<HeapEntry> m_deadlineHeap; // key: request id; generation: Deadline
    std::vector<HeapEntry> m_due; // onAlarm: the subscriptions due, taken off the heap
    qint64 m_alarmAtMs = -1;
    qint64 m_tickAtMs = -1; // -1: no ticks
    qint64 m_tickIntervalMs = 0;
    bool m_inAlarm = false;
};

} // namespace EventDesk
