// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// OutcomeHandler: what becomes of a delivery after an attempt or instead of one. A retry goes
// back into the subscription's pending heap on RetryPlanner's schedule (SPEC R3–R5), a no-retry
// outcome or an exhausted delivery waits for the dead-letter write (R2, R7, R8, L3) or is dropped
// without a destination (L1), and every change reaches the store through the CommitBuffer.

#include "EngineUnitsFixture.h"

#include <QSignalSpy>
#include <QtTest>

#include <algorithm>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using namespace EventDesk::Testing;

using Placement = EngineUnitsFixture::Placement;

class tst_OutcomeHandler : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void r3r4_failedRetriesOnTheSchedule_data();
    void r3r4_failedRetriesOnTheSchedule();
    void r5_jitterLengthensTheWaitByAtMostTenPercent();
    void r2_noRetryOutcomeWaitsForTheDeadLetterDelay_data();
    void r2_noRetryOutcomeWaitsForTheDeadLetterDelay();
    void l3_deadLetterDelayCountsFromTheLastAttempt();
    void l1_noRetryWithoutDestinationIsDropped();
    void r8_attemptLimitEndsTheDelivery_data();
    void r8_attemptLimitEndsTheDelivery();
    void r7_ttlExhaustionEndsUndelivered_data();
    void r7_ttlExhaustionEndsUndelivered();
    void removedSubscriptionDropsTheDelivery();
    void dropOfAPendingDeliveryLeavesTheBacklog();
    void dropWithoutSubscriptionStillRecordsTheEvent();
    void succeededFinishesTheRow();
    void p6_recordProbationBuffersTheRecordAndAnnouncesIt();
    void p3_probationReasonNamesTheCause_data();
    void p3_probationReasonNamesTheCause();
};

void tst_OutcomeHandler::r3r4_failedRetriesOnTheSchedule_data()
{
    QTest::addColumn<int>("attemptsBefore");
    QTest::addColumn<int>("httpStatus");
    QTest::addColumn<DeliveryOutcome>("outcome");
    QTest::addColumn<qint64>("waitMs");

    // SPEC R3: the k-th failed attempt waits the k-th schedule entry; R4: at least the minimum.
    QTest::newRow("1st failure, 500: 10 s")
        << 0 << 500 << DeliveryOutcome::GenericError << 10 * Second;
    QTest::newRow("2nd failure, 500: 30 s")
        << 1 << 500 << DeliveryOutcome::GenericError << 30 * Second;
    QTest::newRow("3rd failure, 500: 1 min") << 2 << 500 << DeliveryOutcome::GenericError << Minute;
    QTest::newRow("9th failure, 500: 6 h")
        << 8 << 500 << DeliveryOutcome::GenericError << 6 * 60 * Minute;
    QTest::newRow("10th failure, 500: 12 h")
        << 9 << 500 << DeliveryOutcome::GenericError << 12 * 60 * Minute;
    QTest::newRow("1st failure, 503: 30 s") << 0 << 503 << DeliveryOutcome::Busy << 30 * Second;
    QTest::newRow("1st failure, 404: 5 min") << 0 << 404 << DeliveryOutcome::NotFound << 5 * Minute;
    QTest::newRow("1st failure, 408: 2 min") << 0 << 408 << DeliveryOutcome::TimedOut << 2 * Minute;
    QTest::newRow("4th failure, 503: 5 min") << 3 << 503 << DeliveryOutcome::Busy << 5 * Minute;
    QTest::newRow("socket error: 10 s") << 0 << 0 << DeliveryOutcome::SocketError << 10 * Second;
}

void tst_OutcomeHandler::r3r4_failedRetriesOnTheSchedule()
{
    QFETCH(int, attemptsBefore);
    QFETCH(int, httpStatus);
    QFETCH(DeliveryOutcome, outcome);
    QFETCH(qint64, waitMs);

    EngineUnitsFixture f;
    Subscription &subscription = f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s));
    Delivery &delivery = f.addDelivery(subscription, u"e0"_s, Placement::InFlight);
    delivery.attempts = attemptsBefore;
    const qint64 id = delivery.id;
    const qint64 sentMs = delivery.lastAttemptMs;
    f.clock.advanceMs(2 * Second); // the answer came 2 s after the request
    const qint64 now = f.clock.nowMs();
    // R3: counted from the failed attempt, not from its answer.
    const qint64 dueMs = sentMs + waitMs;

    f.outcomes.failed(subscription, delivery, outcome, httpStatus, now);

    QCOMPARE(delivery.state, DeliveryState::Pending);
    QCOMPARE(delivery.attempts, attemptsBefore + 1);
    QCOMPARE(delivery.lastOutcome, outcome);
    QCOMPARE(delivery.lastHttpStatus, httpStatus);
    QCOMPARE(delivery.dueMs, dueMs);
    QVERIFY(!delivery.event); // the payload is reloaded when the retry comes due
    // Back in the subscription's pending heap, due then, with the delivery's current generation.
    QCOMPARE(subscription.pending.size(), size_t(1));
    QCOMPARE(subscription.pending.front().atMs, dueMs);
    QCOMPARE(subscription.pending.front().key, quint64(id));
    QVERIFY(f.state.liveDelivery(subscription.pending.front(), DeliveryState::Pending));
    QCOMPARE(subscription.counters.backlog, 1);
    QCOMPARE(subscription.counters.failedByOutcome.value(outcome), quint64(1));

    // The row is buffered, then committed by the CommitBuffer.
    QCOMPARE(f.storedDelivery(id)->attempts, 0);
    QVERIFY(f.flush().hasValue());
    const std::optional<DeliveryRecord> stored = f.storedDelivery(id);
    QVERIFY(stored.has_value());
    QCOMPARE(stored->state, DeliveryState::Pending);
    QCOMPARE(stored->attempts, attemptsBefore + 1);
    QCOMPARE(stored->dueMs, dueMs);
    QCOMPARE(stored->lastOutcome, outcome);
    QCOMPARE(stored->lastHttpStatus, httpStatus);
}

void tst_OutcomeHandler::r5_jitterLengthensTheWaitByAtMostTenPercent()
{
    EngineOptions options;
    options.jitter = true;
    options.jitterSeed = 17;
    QList<qint64> waits;
    for (int run = 0; run < 2; ++run) {
        EngineUnitsFixture f(options);
        Subscription &subscription = f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s));
        const QList<Delivery *> deliveries
            = f.addDeliveries(subscription, 20, u"e"_s, Placement::InFlight);
        for (Delivery *delivery : deliveries) {
            f.outcomes.failed(subscription, *delivery, DeliveryOutcome::Busy, 503, T0);
            // SPEC R5: 0 .. +10 % of the wait, so R4's minimum of 30 s still holds.
            QVERIFY2(delivery->dueMs >= T0 + 30 * Second && delivery->dueMs <= T0 + 33 * Second,
                     qPrintable(QString::number(delivery->dueMs - T0)));
            if (run == 0)
                waits.append(delivery->dueMs - T0);
            else
                QCOMPARE(delivery->dueMs - T0, waits.at(deliveries.indexOf(delivery)));
        }
    }
    // Seeded jitter is jitter: not every wait is the bare minimum.
    QVERIFY(
        std::any_of(waits.cbegin(), waits.cend(), [](qint64 wait) { return wait > 30 * Second; }));
}

void tst_OutcomeHandler::r2_noRetryOutcomeWaitsForTheDeadLetterDelay_data()
{
    QTest::addColumn<int>("httpStatus");
    QTest::addColumn<DeliveryOutcome>("outcome");
    QTest::addColumn<DeadLetterReason>("reason");

    QTest::newRow("400") << 400 << DeliveryOutcome::BadRequest
                         << DeadLetterReason::UndeliverableDueToHttpBadRequest;
    QTest::newRow("401") << 401 << DeliveryOutcome::Unauthorized
                         << DeadLetterReason::UndeliverableDueToHttpUnauthorized;
    QTest::newRow("403") << 403 << DeliveryOutcome::Forbidden
                         << DeadLetterReason::UndeliverableDueToHttpForbidden;
    QTest::newRow("413") << 413 << DeliveryOutcome::PayloadTooLarge
                         << DeadLetterReason::UndeliverableDueToHttpPayloadTooLarge;
}

void tst_OutcomeHandler::r2_noRetryOutcomeWaitsForTheDeadLetterDelay()
{
    QFETCH(int, httpStatus);
    QFETCH(DeliveryOutcome, outcome);
    QFETCH(DeadLetterReason, reason);

    EngineUnitsFixture f;
    f.state.workspace.settings.deadLetterDelaySeconds = 300;
    Subscription &subscription = f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s));
    Delivery &delivery = f.addDelivery(subscription, u"e0"_s, Placement::InFlight);
    const qint64 id = delivery.id;

    f.outcomes.failed(subscription, delivery, outcome, httpStatus, T0);

    // SPEC R2: never retried; L3: written 5 min after the last attempt.
    QCOMPARE(delivery.state, DeliveryState::DeadLetterPending);
    QCOMPARE(delivery.reason, reason);
    QCOMPARE(delivery.attempts, 1);
    QCOMPARE(delivery.dueMs, T0 + 5 * Minute);
    QVERIFY(subscription.pending.empty());
    QCOMPARE(subscription.deadLetterPending.size(), size_t(1));
    QCOMPARE(subscription.deadLetterPending.front().atMs, T0 + 5 * Minute);
    QVERIFY(f.state.liveDelivery(subscription.deadLetterPending.front(),
                                 DeliveryState::DeadLetterPending));
    QCOMPARE(subscription.counters.deadLetterPending, 1);
    QCOMPARE(subscription.counters.backlog, 0);

    QVERIFY(f.flush().hasValue());
    const std::optional<DeliveryRecord> stored = f.storedDelivery(id);
    QVERIFY(stored.has_value());
    QCOMPARE(stored->state, DeliveryState::DeadLetterPending);
    QCOMPARE(stored->reason, reason);
    QCOMPARE(stored->dueMs, T0 + 5 * Minute);
    QCOMPARE(stored->lastHttpStatus, httpStatus);
}

void tst_OutcomeHandler::l3_deadLetterDelayCountsFromTheLastAttempt()
{
    EngineUnitsFixture f;
    f.state.workspace.settings.deadLetterDelaySeconds = 300;
    Subscription &subscription = f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s));
    Delivery &answeredLate = f.addDelivery(subscription, u"late"_s, Placement::InFlight);
    Delivery &expiredLong = f.addDelivery(subscription, u"old"_s, Placement::InFlight);
    answeredLate.lastAttemptMs = T0;
    expiredLong.lastAttemptMs = T0 - 60 * Minute;
    f.clock.advanceMs(20 * Second);

    f.outcomes.toDeadLetterPending(subscription, answeredLate,
                                   DeadLetterReason::UndeliverableDueToHttpBadRequest,
                                   f.clock.nowMs());
    f.outcomes.toDeadLetterPending(subscription, expiredLong, DeadLetterReason::TimeToLiveExceeded,
                                   f.clock.nowMs());

    // The delay runs from the attempt, not from when the answer was handled...
    QCOMPARE(answeredLate.dueMs, T0 + 5 * Minute);
    // ...and a decision taken later than that is written now, never in the past.
    QCOMPARE(expiredLong.dueMs, f.clock.nowMs());
    QCOMPARE(subscription.deadLetterPending.front().atMs, f.clock.nowMs());
}

void tst_OutcomeHandler::l1_noRetryWithoutDestinationIsDropped()
{
    EngineUnitsFixture f;
    Subscription &subscription = f.addSubscription(
        EngineUnitsFixture::webhook(u"sub-one"_s, EngineUnitsFixture::DeadLetter::None));
    Delivery &delivery = f.addDelivery(subscription, u"e0"_s, Placement::InFlight);
    const qint64 id = delivery.id;
    const qint64 eventSeq = delivery.eventSeq;

    f.outcomes.failed(subscription, delivery, DeliveryOutcome::Forbidden, 403, T0);

    // SPEC L1: dropped, with the reason counted, and gone from the state.
    QVERIFY(!f.delivery(id));
    QVERIFY(subscription.deadLetterPending.empty());
    QCOMPARE(subscription.counters.droppedByReason.value(
                 DeadLetterReason::UndeliverableDueToHttpForbidden),
             quint64(1));
    QCOMPARE(subscription.counters.deadLetterPending, 0);

    QVERIFY(f.flush().hasValue());
    QVERIFY(!f.storedDelivery(id).has_value());
    QCOMPARE(f.sqlite.loadEvents({eventSeq})->size(), 0);
    auto dropped = f.sqlite.droppedDeliveries(10);
    QVERIFY(dropped.hasValue());
    QCOMPARE(dropped->size(), 1);
    const DroppedEntry &entry = dropped->at(0);
    QCOMPARE(entry.eventId, u"e0"_s);
    QCOMPARE(entry.topic, u"orders"_s);
    QCOMPARE(entry.subscription, u"sub-one"_s);
    QCOMPARE(entry.reason, DeadLetterReason::UndeliverableDueToHttpForbidden);
    QCOMPARE(entry.lastOutcome, DeliveryOutcome::Forbidden);
    QCOMPARE(entry.lastHttpStatus, 403);
    QCOMPARE(entry.attempts, 1);
    QCOMPARE(entry.droppedMs, T0);
}

void tst_OutcomeHandler::r8_attemptLimitEndsTheDelivery_data()
{
    QTest::addColumn<EngineUnitsFixture::DeadLetter>("deadLetter");
    QTest::newRow("dead-lettered") << EngineUnitsFixture::DeadLetter::LocalContainer;
    QTest::newRow("dropped (L1)") << EngineUnitsFixture::DeadLetter::None;
}

void tst_OutcomeHandler::r8_attemptLimitEndsTheDelivery()
{
    QFETCH(EngineUnitsFixture::DeadLetter, deadLetter);

    EngineUnitsFixture f;
    EventSubscription config = EngineUnitsFixture::webhook(u"sub-one"_s, deadLetter);
    config.retryPolicy.maxDeliveryAttempts = 3;
    Subscription &subscription = f.addSubscription(config);
    Delivery &delivery = f.addDelivery(subscription, u"e0"_s, Placement::InFlight);
    const qint64 id = delivery.id;

    // The second failure is retried...
    delivery.attempts = 1;
    f.outcomes.failed(subscription, delivery, DeliveryOutcome::GenericError, 500, T0);
    QCOMPARE(delivery.state, DeliveryState::Pending);
    QCOMPARE(f.scheduler.takeDue(subscription, delivery.dueMs), &delivery);
    delivery.state = DeliveryState::InFlight; // sent again

    // ...the third, the last allowed attempt, is not (SPEC R8).
    f.outcomes.failed(subscription, delivery, DeliveryOutcome::GenericError, 500, T0 + Minute);
    if (deadLetter == EngineUnitsFixture::DeadLetter::LocalContainer) {
        QCOMPARE(delivery.state, DeliveryState::DeadLetterPending);
        QCOMPARE(delivery.reason, DeadLetterReason::MaxDeliveryAttemptsExceeded);
        QCOMPARE(delivery.attempts, 3);
        QCOMPARE(subscription.counters.deadLetterPending, 1);
    } else {
        QVERIFY(!f.delivery(id));
        QCOMPARE(subscription.counters.droppedByReason.value(
                     DeadLetterReason::MaxDeliveryAttemptsExceeded),
                 quint64(1));
        QVERIFY(f.flush().hasValue());
        QCOMPARE(f.sqlite.droppedDeliveries(10)->at(0).attempts, 3);
    }
    QCOMPARE(subscription.counters.failedByOutcome.value(DeliveryOutcome::GenericError),
             quint64(2));
}

void tst_OutcomeHandler::r7_ttlExhaustionEndsUndelivered_data()
{
    r8_attemptLimitEndsTheDelivery_data();
}

void tst_OutcomeHandler::r7_ttlExhaustionEndsUndelivered()
{
    QFETCH(EngineUnitsFixture::DeadLetter, deadLetter);

    EngineUnitsFixture f;
    f.state.workspace.settings.deadLetterDelaySeconds = 0;
    Subscription &subscription
        = f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s, deadLetter));
    Delivery &delivery = f.addDelivery(subscription, u"e0"_s, Placement::InFlight);
    delivery.attempts = 6;
    delivery.lastOutcome = DeliveryOutcome::GenericError;
    delivery.lastHttpStatus = 500;
    const qint64 id = delivery.id;

    f.outcomes.endUndelivered(subscription, delivery, DeadLetterReason::TimeToLiveExceeded,
                              T0 + 30 * Minute);

    if (deadLetter == EngineUnitsFixture::DeadLetter::LocalContainer) {
        QCOMPARE(delivery.state, DeliveryState::DeadLetterPending);
        QCOMPARE(delivery.reason, DeadLetterReason::TimeToLiveExceeded);
        QCOMPARE(delivery.attempts, 6); // ending it is not an attempt
        QCOMPARE(delivery.lastOutcome, DeliveryOutcome::GenericError);
        QCOMPARE(delivery.dueMs, T0 + 30 * Minute);
    } else {
        QVERIFY(!f.delivery(id));
        QVERIFY(f.flush().hasValue());
        const DroppedEntry dropped = f.sqlite.droppedDeliveries(10)->at(0);
        QCOMPARE(dropped.reason, DeadLetterReason::TimeToLiveExceeded);
        QCOMPARE(dropped.attempts, 6);
        QCOMPARE(dropped.lastHttpStatus, 500);
    }
}

void tst_OutcomeHandler::removedSubscriptionDropsTheDelivery()
{
    EngineUnitsFixture f;
    Subscription &subscription = f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s));
    Delivery &delivery = f.addDelivery(subscription, u"e0"_s, Placement::InFlight);
    const qint64 id = delivery.id;
    subscription.removed = true; // deleted while the request was out

    f.outcomes.failed(subscription, delivery, DeliveryOutcome::GenericError, 500, T0);

    // Not retried and not dead-lettered, though the subscription had a destination.
    QVERIFY(!f.delivery(id));
    QVERIFY(subscription.pending.empty());
    QVERIFY(subscription.deadLetterPending.empty());
    QCOMPARE(subscription.counters.droppedByReason.value(DeadLetterReason::SubscriptionDeleted),
             quint64(1));
    QVERIFY(f.flush().hasValue());
    QCOMPARE(f.sqlite.droppedDeliveries(10)->at(0).reason, DeadLetterReason::SubscriptionDeleted);
    QVERIFY(!f.storedDelivery(id).has_value());
}

void tst_OutcomeHandler::dropOfAPendingDeliveryLeavesTheBacklog()
{
    EngineUnitsFixture f;
    Subscription &subscription = f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s));
    Delivery &pending = f.addDelivery(subscription, u"pending"_s);
    Delivery &waiting = f.addDelivery(subscription, u"waiting"_s, Placement::InFlight);
    f.outcomes.toDeadLetterPending(subscription, waiting, DeadLetterReason::TimeToLiveExceeded, T0);
    QCOMPARE(subscription.counters.backlog, 1);
    QCOMPARE(subscription.counters.deadLetterPending, 1);

    f.outcomes.drop(&subscription, pending, DeadLetterReason::SubscriptionDeleted, T0);
    f.outcomes.drop(&subscription, waiting, DeadLetterReason::SubscriptionDeleted, T0);

    QCOMPARE(subscription.counters.backlog, 0);
    QCOMPARE(subscription.counters.deadLetterPending, 0);
    QCOMPARE(subscription.counters.droppedByReason.value(DeadLetterReason::SubscriptionDeleted),
             quint64(2));
    QVERIFY(f.state.deliveries.empty());
}

void tst_OutcomeHandler::dropWithoutSubscriptionStillRecordsTheEvent()
{
    EngineUnitsFixture f;
    Subscription &subscription = f.addSubscription(EngineUnitsFixture::webhook(u"gone"_s));
    Delivery *orphan
        = f.addDeliveries(subscription, {f.event(subscription, u"orphan"_s)}, T0, T0,
                          Placement::InFlight, EngineUnitsFixture::Payload::InStoreOnly)
              .constFirst();
    const qint64 id = orphan->id;

    // Restored after a restart for a subscription that no longer exists.
    f.outcomes.drop(nullptr, *orphan, DeadLetterReason::SubscriptionDeleted, T0);

    QVERIFY(!f.delivery(id));
    QVERIFY(f.flush().hasValue());
    auto dropped = f.sqlite.droppedDeliveries(10);
    QCOMPARE(dropped->size(), 1);
    QCOMPARE(dropped->at(0).eventId, u"orphan"_s); // read from the store: never silently lost
    QCOMPARE(dropped->at(0).reason, DeadLetterReason::SubscriptionDeleted);
    QVERIFY(!f.storedDelivery(id).has_value());
}

void tst_OutcomeHandler::succeededFinishesTheRow()
{
    EngineUnitsFixture f;
    Subscription &subscription = f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s));
    Delivery &delivery = f.addDelivery(subscription, u"e0"_s, Placement::InFlight);
    Delivery &other = f.addDelivery(subscription, u"e1"_s, Placement::InFlight);
    const qint64 id = delivery.id;
    const qint64 eventSeq = delivery.eventSeq;
    const qint64 otherId = other.id;

    f.outcomes.succeeded(subscription, delivery);

    QVERIFY(!f.delivery(id));
    QVERIFY(f.delivery(otherId));
    QCOMPARE(subscription.counters.delivered, quint64(1));
    QVERIFY(f.storedDelivery(id).has_value()); // buffered until the commit
    QVERIFY(f.flush().hasValue());
    QVERIFY(!f.storedDelivery(id).has_value());
    QCOMPARE(f.sqlite.loadEvents({eventSeq})->size(), 0); // its last delivery took the event along
    QVERIFY(f.storedDelivery(otherId).has_value());
    QCOMPARE(f.sqlite.droppedDeliveries(10)->size(), 0);
}

void tst_OutcomeHandler::p6_recordProbationBuffersTheRecordAndAnnouncesIt()
{
    EngineUnitsFixture f;
    QSignalSpy probationChanged(&f.signals, &EngineSignals::probationChanged);
    Subscription &subscription = f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s));
    subscription.probation.setThreshold(2);
    subscription.probation.recordFailure(DeliveryOutcome::Busy, T0);
    subscription.probation.recordFailure(DeliveryOutcome::SocketError, T0 + Second);

    f.outcomes.recordProbation(subscription);

    QCOMPARE(probationChanged.size(), 1);
    QCOMPARE(probationChanged.at(0).at(0).toString(), u"orders"_s);
    QCOMPARE(probationChanged.at(0).at(1).toString(), u"sub-one"_s);
    QCOMPARE(f.sqlite.loadProbation()->size(), 0); // buffered
    QVERIFY(f.flush().hasValue());
    auto records = f.sqlite.loadProbation();
    QVERIFY(records.hasValue());
    QCOMPARE(records->size(), 1);
    const ProbationRecord &record = records->at(0);
    QCOMPARE(record.topic, u"orders"_s);
    QCOMPARE(record.subscription, u"sub-one"_s);
    QCOMPARE(record.state, int(ProbationTracker::State::InProbation));
    QCOMPARE(record.cause, DeliveryOutcome::SocketError);
    QCOMPARE(record.durationMs, 30 * Second); // SPEC P1: SocketError
    QCOMPARE(record.untilMs, T0 + Second + 30 * Second);
    QCOMPARE(record.consecutiveFailures, 2);
}

void tst_OutcomeHandler::p3_probationReasonNamesTheCause_data()
{
    QTest::addColumn<DeliveryOutcome>("cause");
    QTest::addColumn<DeadLetterReason>("reason");
    QTest::newRow("Unauthorized") << DeliveryOutcome::Unauthorized
                                  << DeadLetterReason::UndeliverableDueToHttpUnauthorized;
    QTest::newRow("Forbidden") << DeliveryOutcome::Forbidden
                               << DeadLetterReason::UndeliverableDueToHttpForbidden;
    QTest::newRow("Disabled") << DeliveryOutcome::Disabled
                              << DeadLetterReason::UndeliverableDueToHttpDisabled;
    QTest::newRow("Full") << DeliveryOutcome::Full << DeadLetterReason::UndeliverableDueToHttpFull;
    QTest::newRow("InvalidAzureFunctionDestination")
        << DeliveryOutcome::InvalidAzureFunctionDestination
        << DeadLetterReason::UndeliverableDueToHttpInvalidAzureFunctionDestination;
}

void tst_OutcomeHandler::p3_probationReasonNamesTheCause()
{
    QFETCH(DeliveryOutcome, cause);
    QFETCH(DeadLetterReason, reason);
    QCOMPARE(OutcomeHandler::probationReason(cause), reason);
}

QTEST_GUILESS_MAIN(tst_OutcomeHandler)
#include "tst_outcomehandler.moc"
