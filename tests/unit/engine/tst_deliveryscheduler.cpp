// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// DeliveryScheduler on a manual clock, with hooks that record what the scheduler asks of the other
// units: each subscription is keyed by the time it next needs attention, ONE clock alarm serves
// all of them, probation keeps a backlog asleep in a single heap entry (SPEC P5), takeDue applies
// the TTL when a delivery comes due (R7), and request deadlines ring in order (D6).

#include "EngineUnitsFixture.h"

#include <QSet>
#include <QtTest>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using namespace EventDesk::Testing;

using Deadline = DeliveryScheduler::Deadline;

namespace {

// Hooks that record each call. A subscription's turn takes what is due (and delivers it) unless
// told otherwise, deals with the attention it asked for, then reschedules the subscription, as
// the engine's own turn does.
struct RecordingHooks
{
    struct Turn
    {
        int subscription;
        qint64 atMs;
        int alarm; // how many alarms had rung before the one this turn ran in
        bool operator==(const Turn &other) const = default;
    };
    struct Ring
    {
        quint64 requestId;
        Deadline deadline;
        qint64 atMs;
        bool operator==(const Ring &other) const = default;
    };

    explicit RecordingHooks(EngineUnitsFixture &fixture)
        : f(fixture)
    {
        // Connected after the fixture's own connection: counts an alarm once it has been handled.
        QObject::connect(&f.clock, &Clock::alarm, &f.signals, [this] { ++alarms; });
        DeliveryScheduler::Hooks hooks;
        hooks.service = [this](Subscription &subscription, qint64 now) {
            turns.append({subscription.index, now, alarms});
            if (takeDue) {
                while (Delivery *delivery = f.scheduler.takeDue(subscription, now)) {
                    taken.append(delivery->id);
                    f.outcomes.succeeded(subscription, *delivery);
                }
            }
            if (duringTurn)
                duringTurn(subscription, now);
            if (attention.value(subscription.index, now + 1) <= now)
                attention.remove(subscription.index);
            f.scheduler.reschedule(subscription, now);
        };
        hooks.attention = [this](Subscription &subscription, qint64) {
            return attention.value(subscription.index, -1);
        };
        hooks.deadlineDue = [this](quint64 requestId, Deadline deadline, qint64 now) {
            rings.append({requestId, deadline, now});
        };
        hooks.isRequestOpen = [this](quint64 requestId) {
            return openRequests.contains(requestId);
        };
        f.scheduler.setHooks(std::move(hooks));
    }

    EngineUnitsFixture &f;
    bool takeDue = true;
    std::function<void(Subscription &, qint64)> duringTurn;
    QHash<int, qint64> attention; // subscription index -> time; none: -1
    QSet<quint64> openRequests;
    QList<Turn> turns;
    QList<qint64> taken; // delivery ids, in the order taken
    QList<Ring> rings;
    int alarms = 0;
};

char *toString(const RecordingHooks::Turn &turn)
{
    return QTest::toString(u"subscription %1 at T0+%2 ms in alarm %3"_s.arg(turn.subscription)
                               .arg(turn.atMs - T0)
                               .arg(turn.alarm));
}

char *toString(const RecordingHooks::Ring &ring)
{
    return QTest::toString(u"request %1 deadline %2 at T0+%3 ms"_s.arg(ring.requestId)
                               .arg(int(ring.deadline))
                               .arg(ring.atMs - T0));
}

} // namespace

class tst_DeliveryScheduler : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void subscriptionIsKeyedByItsEarliestDueDelivery();
    void oneAlarmServesManySubscriptions();
    void eachSubscriptionIsServicedOncePerAlarm();
    void p5_transientProbationKeysTheBacklogOnceAtItsEnd();
    void p3_noRetryProbationKeysAtTheDueTime();
    void p4_halfOpenWithAProbeInFlightIsNotKeyed();
    void everySlotTakenIsNotKeyed();
    void allowedRateDelaysTheKey();
    void onlyValidatedEnabledSubscriptionsAreKeyedForDeliveries();
    void attentionTimeIsHonoured();
    void notRunningSchedulesNothing();
    void r7_takeDueSkipsStaleEntriesAndEndsExpiredOnes_data();
    void r7_takeDueSkipsStaleEntriesAndEndsExpiredOnes();
    void r7p3_expiredWithoutAttemptInProbationHasOutcomeProbation();
    void d6_deadlinesRingInOrderAndStaleOnesAreSkipped();
    void d6_staleDeadlineDueWithAnOpenOneIsSkipped();
};

void tst_DeliveryScheduler::subscriptionIsKeyedByItsEarliestDueDelivery()
{
    EngineUnitsFixture f;
    RecordingHooks hooks(f);
    Subscription &subscription = f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s));
    const qint64 later
        = f.addDeliveries(subscription, {f.event(subscription, u"later"_s)}, T0 + 30 * Second, T0)
              .constFirst()
              ->id;
    const qint64 first
        = f.addDeliveries(subscription, {f.event(subscription, u"first"_s)}, T0 + 10 * Second, T0)
              .constFirst()
              ->id;
    const qint64 second
        = f.addDeliveries(subscription, {f.event(subscription, u"second"_s)}, T0 + 20 * Second, T0)
              .constFirst()
              ->id;
    f.start();

    QCOMPARE(subscription.scheduledAtMs, T0 + 10 * Second);
    QCOMPARE(subscription.counters.nextDueMs, T0 + 10 * Second);
    QCOMPARE(f.clock.alarmAtMs(), T0 + 10 * Second);

    f.advance(10 * Second);
    QCOMPARE(hooks.turns, (QList<RecordingHooks::Turn> {{0, T0 + 10 * Second, 0}}));
    QCOMPARE(hooks.taken, QList<qint64> {first});
    QCOMPARE(f.clock.alarmAtMs(), T0 + 20 * Second);

    f.advance(20 * Second);
    QCOMPARE(hooks.taken, (QList<qint64> {first, second, later}));
    QCOMPARE(hooks.turns.size(), 3);
    QCOMPARE(subscription.scheduledAtMs, -1); // nothing left: not keyed
    QCOMPARE(subscription.counters.nextDueMs, 0);
    QCOMPARE(f.clock.alarmAtMs(), -1);
}

void tst_DeliveryScheduler::oneAlarmServesManySubscriptions()
{
    EngineUnitsFixture f;
    RecordingHooks hooks(f);
    Subscription &a = f.addSubscription(EngineUnitsFixture::webhook(u"sub-a"_s));
    Subscription &b = f.addSubscription(EngineUnitsFixture::webhook(u"sub-b"_s));
    Subscription &c = f.addSubscription(EngineUnitsFixture::webhook(u"sub-c"_s));
    f.addDeliveries(a, {f.event(a, u"a"_s)}, T0 + 20 * Second, T0);
    f.addDeliveries(b, {f.event(b, u"b"_s)}, T0 + 5 * Second, T0);
    f.addDeliveries(c, {f.event(c, u"c"_s), f.event(c, u"c2"_s)}, T0 + 40 * Second, T0);
    f.start();

    // The clock holds one alarm: the earliest time any subscription needs attention.
    QCOMPARE(f.clock.alarmAtMs(), T0 + 5 * Second);
    f.advance(Minute);
    QCOMPARE(hooks.turns,
             (QList<RecordingHooks::Turn> {{b.index, T0 + 5 * Second, 0},
                                           {a.index, T0 + 20 * Second, 1},
                                           {c.index, T0 + 40 * Second, 2}}));
    QCOMPARE(hooks.alarms, 3);
    QCOMPARE(hooks.taken.size(), 4);
}

void tst_DeliveryScheduler::eachSubscriptionIsServicedOncePerAlarm()
{
    EngineUnitsFixture f;
    RecordingHooks hooks(f);
    Subscription &a = f.addSubscription(EngineUnitsFixture::webhook(u"sub-a"_s));
    Subscription &b = f.addSubscription(EngineUnitsFixture::webhook(u"sub-b"_s));
    f.addDeliveries(a, {f.event(a, u"a"_s)}, T0 + 10 * Second, T0);
    f.addDeliveries(b, {f.event(b, u"b"_s)}, T0 + 10 * Second, T0);
    // During its first turn, sub-a gets a delivery due at once (as a publish would give it).
    bool added = false;
    hooks.duringTurn = [&](Subscription &subscription, qint64 now) {
        if (subscription.index == a.index && !added) {
            added = true;
            f.addDeliveries(a, {f.event(a, u"a-again"_s)}, now, now);
        }
    };
    f.start();

    f.advance(10 * Second);
    // The work re-keyed for "now" runs on the next alarm (at the same engine time), so a
    // subscription that keeps finding work can never spin inside one alarm.
    QCOMPARE(hooks.taken.size(), 3);
    QCOMPARE(hooks.turns.count({a.index, T0 + 10 * Second, 0}), 1);
    QCOMPARE(hooks.turns.count({b.index, T0 + 10 * Second, 0}), 1);
}

void tst_DeliveryScheduler::p5_transientProbationKeysTheBacklogOnceAtItsEnd()
{
    EngineUnitsFixture f;
    RecordingHooks hooks(f);
    Subscription &subscription = f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s));
    subscription.probation.setThreshold(1);
    subscription.probation.recordFailure(DeliveryOutcome::Busy, T0); // SPEC P1: 10 s
    f.start();
    f.addDeliveries(subscription, 500);

    QCOMPARE(subscription.scheduledAtMs, T0 + 10 * Second);
    QCOMPARE(f.clock.alarmAtMs(), T0 + 10 * Second);
    // More work for a sleeping subscription does not add heap entries: its key is unchanged.
    const quint64 generation = subscription.heapGeneration;
    f.addDeliveries(subscription, 100, u"more"_s);
    f.addDeliveries(subscription, 1, u"last"_s);
    QCOMPARE(subscription.heapGeneration, generation);

    f.advance(10 * Second - 1);
    QVERIFY(hooks.turns.isEmpty()); // no polling while in probation
    f.advance(1);
    QCOMPARE(hooks.turns,
             (QList<RecordingHooks::Turn> {{subscription.index, T0 + 10 * Second, 0}}));
}

void tst_DeliveryScheduler::p3_noRetryProbationKeysAtTheDueTime()
{
    EngineUnitsFixture f;
    RecordingHooks hooks(f);
    hooks.takeDue = false;
    Subscription &subscription = f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s));
    subscription.probation.setThreshold(1);
    subscription.probation.recordFailure(DeliveryOutcome::Unauthorized, T0); // 5 min
    f.addDeliveries(subscription, {f.event(subscription, u"e0"_s)}, T0 + 5 * Second, T0);
    f.start();
    // SPEC P3: what comes due is dead-lettered without an attempt, so it must not wait for the
    // probation's end.
    QCOMPARE(subscription.scheduledAtMs, T0 + 5 * Second);
}

void tst_DeliveryScheduler::p4_halfOpenWithAProbeInFlightIsNotKeyed()
{
    EngineUnitsFixture f;
    RecordingHooks hooks(f);
    Subscription &subscription = f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s));
    subscription.probation.setThreshold(1);
    subscription.probation.recordFailure(DeliveryOutcome::Busy, T0);
    f.addDeliveries(subscription, 3);
    f.clock.advanceTo(T0 + 10 * Second);
    subscription.probation.update(f.clock.nowMs());
    QCOMPARE(subscription.probation.state(), ProbationTracker::State::HalfOpen);
    subscription.probation.beginProbe();
    f.start();

    // SPEC P4: the rest wait for the probe's answer, which reschedules the subscription.
    QCOMPARE(subscription.scheduledAtMs, -1);
    QCOMPARE(f.clock.alarmAtMs(), -1);

    subscription.probation.probeAbandoned();
    {
        const StateLock lock(f.state.lock);
        f.scheduler.reschedule(subscription, f.clock.nowMs());
    }
    QCOMPARE(subscription.scheduledAtMs, T0);
}

void tst_DeliveryScheduler::everySlotTakenIsNotKeyed()
{
    EngineUnitsFixture f;
    RecordingHooks hooks(f);
    f.state.workspace.settings.maxConcurrentRequestsPerSubscription = 2;
    Subscription &subscription = f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s));
    f.addDeliveries(subscription, 5);
    subscription.inFlightRequests = 2;
    f.start();
    // The next reply wakes the subscription up; until then it costs nothing.
    QCOMPARE(subscription.scheduledAtMs, -1);
    QCOMPARE(f.clock.alarmAtMs(), -1);

    subscription.inFlightRequests = 1;
    {
        const StateLock lock(f.state.lock);
        f.scheduler.reschedule(subscription, T0);
    }
    QCOMPARE(subscription.scheduledAtMs, T0);
    QCOMPARE(f.clock.alarmAtMs(), T0);
}

void tst_DeliveryScheduler::allowedRateDelaysTheKey()
{
    EngineUnitsFixture f;
    RecordingHooks hooks(f);
    Subscription &subscription = f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s));
    subscription.nextRequestAllowedMs = T0 + 7 * Second; // WebHook-Allowed-Rate
    f.addDeliveries(subscription, 2);
    f.start();
    QCOMPARE(subscription.scheduledAtMs, T0 + 7 * Second);
    f.advance(7 * Second);
    QCOMPARE(hooks.turns, (QList<RecordingHooks::Turn> {{subscription.index, T0 + 7 * Second, 0}}));
}

void tst_DeliveryScheduler::onlyValidatedEnabledSubscriptionsAreKeyedForDeliveries()
{
    EngineUnitsFixture f;
    RecordingHooks hooks(f);
    EventSubscription disabled = EngineUnitsFixture::webhook(u"disabled"_s);
    disabled.enabled = false;
    EventSubscription unvalidated = EngineUnitsFixture::webhook(u"unvalidated"_s);
    unvalidated.validationEnabled = true; // stays Creating: no EndpointValidation here
    Subscription &off = f.addSubscription(disabled);
    Subscription &held = f.addSubscription(unvalidated);
    Subscription &removed = f.addSubscription(EngineUnitsFixture::webhook(u"removed"_s));
    removed.removed = true;
    f.addDeliveries(off, 2);
    f.addDeliveries(held, 2);
    f.addDeliveries(removed, 2);
    f.start();

    QCOMPARE(off.scheduledAtMs, -1);
    QCOMPARE(held.scheduledAtMs, -1);
    QCOMPARE(removed.scheduledAtMs, -1);
    QCOMPARE(f.clock.alarmAtMs(), -1);
    f.advance(Minute);
    QVERIFY(hooks.turns.isEmpty());

    // What else they need (a handshake, a dead-letter write) still gets them a turn.
    hooks.takeDue = false;
    hooks.attention.insert(held.index, T0 + 2 * Minute);
    {
        const StateLock lock(f.state.lock);
        f.scheduler.reschedule(held, f.clock.nowMs());
    }
    f.advance(Minute);
    QCOMPARE(hooks.turns, (QList<RecordingHooks::Turn> {{held.index, T0 + 2 * Minute, 0}}));
    QVERIFY(hooks.taken.isEmpty());
}

void tst_DeliveryScheduler::attentionTimeIsHonoured()
{
    EngineUnitsFixture f;
    RecordingHooks hooks(f);
    Subscription &quiet = f.addSubscription(EngineUnitsFixture::webhook(u"quiet"_s));
    Subscription &busy = f.addSubscription(EngineUnitsFixture::webhook(u"busy"_s));
    hooks.attention.insert(quiet.index, T0 + 42 * Second);
    hooks.attention.insert(busy.index, T0 + 3 * Second); // earlier than its delivery
    f.addDeliveries(busy, {f.event(busy, u"b"_s)}, T0 + 9 * Second, T0);
    f.start();

    QCOMPARE(quiet.scheduledAtMs, T0 + 42 * Second);
    QCOMPARE(busy.scheduledAtMs, T0 + 3 * Second);
    f.advance(Minute);
    QCOMPARE(hooks.turns,
             (QList<RecordingHooks::Turn> {{busy.index, T0 + 3 * Second, 0},
                                           {busy.index, T0 + 9 * Second, 1},
                                           {quiet.index, T0 + 42 * Second, 2}}));
}

void tst_DeliveryScheduler::notRunningSchedulesNothing()
{
    EngineUnitsFixture f;
    RecordingHooks hooks(f);
    Subscription &subscription = f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s));
    f.addDeliveries(subscription, 2);
    {
        const StateLock lock(f.state.lock);
        f.scheduler.reschedule(subscription, T0);
        f.scheduler.onAlarm();
    }
    QCOMPARE(subscription.scheduledAtMs, -1);
    QCOMPARE(f.clock.alarmAtMs(), -1);
    QVERIFY(hooks.turns.isEmpty());
}

void tst_DeliveryScheduler::r7_takeDueSkipsStaleEntriesAndEndsExpiredOnes_data()
{
    QTest::addColumn<EngineUnitsFixture::DeadLetter>("deadLetter");
    QTest::newRow("dead-lettered") << EngineUnitsFixture::DeadLetter::LocalContainer;
    QTest::newRow("dropped (L1)") << EngineUnitsFixture::DeadLetter::None;
}

void tst_DeliveryScheduler::r7_takeDueSkipsStaleEntriesAndEndsExpiredOnes()
{
    QFETCH(EngineUnitsFixture::DeadLetter, deadLetter);

    EngineUnitsFixture f;
    f.state.workspace.settings.deadLetterDelaySeconds = 0;
    EventSubscription config = EngineUnitsFixture::webhook(u"sub-one"_s, deadLetter);
    config.retryPolicy.eventTimeToLiveInMinutes = 1;
    Subscription &subscription = f.addSubscription(config);
    // expired: published 61 s ago, its retry due now after 2 failed attempts.
    Delivery &expired = *f.addDeliveries(subscription, {f.event(subscription, u"expired"_s)}, T0,
                                         T0 - 61 * Second)
                             .constFirst();
    expired.attempts = 2;
    expired.lastOutcome = DeliveryOutcome::GenericError;
    const qint64 expiredId = expired.id;
    Delivery &due = f.addDelivery(subscription, u"due"_s);
    // stale: delivered late (SPEC D6) after its retry was scheduled; its heap entry stays behind.
    Delivery &stale = f.addDelivery(subscription, u"stale"_s);
    ++stale.generation;
    --subscription.counters.backlog;
    f.outcomes.succeeded(subscription, stale);
    f.addDeliveries(subscription, {f.event(subscription, u"notYet"_s)}, T0 + 5 * Second, T0);
    QCOMPARE(subscription.pending.size(), size_t(4));
    QCOMPARE(subscription.counters.backlog, 3);

    QCOMPARE(f.scheduler.takeDue(subscription, T0), &due);
    QCOMPARE(f.scheduler.takeDue(subscription, T0), nullptr);
    QCOMPARE(subscription.pending.size(), size_t(1)); // only the one not due yet is left
    QCOMPARE(subscription.counters.backlog, 1);

    // SPEC R7: the TTL ran out between two attempts; it is ended now, at its due time.
    if (deadLetter == EngineUnitsFixture::DeadLetter::LocalContainer) {
        QCOMPARE(expired.state, DeliveryState::DeadLetterPending);
        QCOMPARE(expired.reason, DeadLetterReason::TimeToLiveExceeded);
        QCOMPARE(expired.attempts, 2);
        QCOMPARE(expired.lastOutcome, DeliveryOutcome::GenericError);
    } else {
        QVERIFY(!f.delivery(expiredId));
        QCOMPARE(subscription.counters.droppedByReason.value(DeadLetterReason::TimeToLiveExceeded),
                 quint64(1));
    }
}

void tst_DeliveryScheduler::r7p3_expiredWithoutAttemptInProbationHasOutcomeProbation()
{
    EngineUnitsFixture f;
    EventSubscription config = EngineUnitsFixture::webhook(u"sub-one"_s);
    config.retryPolicy.eventTimeToLiveInMinutes = 1;
    Subscription &subscription = f.addSubscription(config);
    subscription.probation.setThreshold(1);
    subscription.probation.recordFailure(DeliveryOutcome::NotFound, T0 - 5 * Minute);
    // Published during the probation and deferred (P3) until after its TTL ran out.
    Delivery &deferred = *f.addDeliveries(subscription, {f.event(subscription, u"deferred"_s)}, T0,
                                          T0 - 2 * Minute)
                              .constFirst();
    Delivery &attempted = *f.addDeliveries(subscription, {f.event(subscription, u"attempted"_s)},
                                           T0, T0 - 2 * Minute)
                               .constFirst();
    attempted.attempts = 1;
    attempted.lastOutcome = DeliveryOutcome::NotFound;

    QCOMPARE(f.scheduler.takeDue(subscription, T0), nullptr);

    QCOMPARE(deferred.state, DeliveryState::DeadLetterPending);
    QCOMPARE(deferred.reason, DeadLetterReason::TimeToLiveExceeded);
    QCOMPARE(deferred.attempts, 0);
    QCOMPARE(deferred.lastOutcome, DeliveryOutcome::Probation); // never sent: not "Delivering"
    QCOMPARE(attempted.lastOutcome, DeliveryOutcome::NotFound); // its last attempt says why
}

void tst_DeliveryScheduler::d6_deadlinesRingInOrderAndStaleOnesAreSkipped()
{
    EngineUnitsFixture f;
    RecordingHooks hooks(f);
    f.start();
    hooks.openRequests = {1, 2, 3, 4};
    {
        const StateLock lock(f.state.lock);
        f.scheduler.addDeadline(T0 + 30 * Second, 1, Deadline::ResponseTimeout);
        f.scheduler.addDeadline(T0 + 10 * Second, 2, Deadline::ResponseTimeout);
        f.scheduler.addDeadline(T0 + 20 * Second, 3, Deadline::ResponseTimeout);
        f.scheduler.addDeadline(T0 + 3 * Minute, 2, Deadline::AbortDue);
        f.scheduler.addDeadline(T0 + 15 * Second, 4, Deadline::ResponseTimeout);
        f.scheduler.rearmAlarm();
    }
    QCOMPARE(f.clock.alarmAtMs(), T0 + 10 * Second);
    hooks.openRequests.remove(3); // answered before its deadline: stale

    f.advance(4 * Minute);
    QCOMPARE(hooks.rings,
             (QList<RecordingHooks::Ring> {{2, Deadline::ResponseTimeout, T0 + 10 * Second},
                                           {4, Deadline::ResponseTimeout, T0 + 15 * Second},
                                           {1, Deadline::ResponseTimeout, T0 + 30 * Second},
                                           {2, Deadline::AbortDue, T0 + 3 * Minute}}));
    QCOMPARE(f.clock.alarmAtMs(), -1);
}

void tst_DeliveryScheduler::d6_staleDeadlineDueWithAnOpenOneIsSkipped()
{
    EngineUnitsFixture f;
    RecordingHooks hooks(f);
    f.start();
    hooks.openRequests = {1, 2};
    {
        const StateLock lock(f.state.lock);
        f.scheduler.addDeadline(T0 + 10 * Second, 1, Deadline::ResponseTimeout);
        f.scheduler.addDeadline(T0 + 10 * Second, 2, Deadline::ResponseTimeout);
        f.scheduler.rearmAlarm();
    }
    hooks.openRequests.remove(2); // answered before its deadline: stale
    f.advance(Minute);
    QCOMPARE(hooks.rings,
             (QList<RecordingHooks::Ring> {{1, Deadline::ResponseTimeout, T0 + 10 * Second}}));
}

QTEST_GUILESS_MAIN(tst_DeliveryScheduler)
#include "tst_deliveryscheduler.moc"
