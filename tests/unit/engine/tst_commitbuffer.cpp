// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// CommitBuffer: the group commit of the state changes that follow a delivery. Buffered changes
// reach the store together, in one commit; a commit that fails keeps them for the next try
// (SPEC D1: nothing accepted is lost); drop records learn their event id from the store. The
// armed commit writes without the state lock, in the order its changes were taken.

#include "EngineUnitsFixture.h"

#include <QSignalSpy>
#include <QtTest>

#include <chrono>
#include <future>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using namespace EventDesk::Testing;

using Operation = FaultyDeliveryStore::Operation;

class tst_CommitBuffer : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void d1_bufferedChangesCommittedTogetherAtFlush();
    void emptyFlushCommitsNothing();
    void schedule_commitsShortlyAfterTheFirstChange();
    void d1_failedCommitKeepsChangesForTheNextTry();
    void d1_failedCommitIsTriedAgainOnItsOwn();
    void armedCommitWritesWithoutTheStateLock();
    void d1_changesOfAFailedCommitGoBeforeLaterOnes();
    void l1_dropRecordTakesItsEventIdFromTheStore();
};

void tst_CommitBuffer::d1_bufferedChangesCommittedTogetherAtFlush()
{
    EngineUnitsFixture f;
    Subscription &subscription = f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s));
    Delivery &retried = f.addDelivery(subscription, u"e0"_s);
    Delivery &delivered = f.addDelivery(subscription, u"e1"_s);

    DeliveryRecord update = retried.record(subscription);
    update.attempts = 3;
    update.dueMs = T0 + Minute;
    update.lastOutcome = DeliveryOutcome::Busy;
    update.lastHttpStatus = 503;
    AttemptLogEntry attempt;
    attempt.timeMs = T0;
    attempt.topic = subscription.topic;
    attempt.subscription = subscription.config.name;
    attempt.eventIds = {u"e1"_s};
    attempt.attempt = 1;
    attempt.httpStatus = 200;
    ProbationRecord probation;
    probation.topic = subscription.topic;
    probation.subscription = subscription.config.name;
    probation.state = int(ProbationTracker::State::InProbation);
    probation.cause = DeliveryOutcome::Busy;
    probation.untilMs = T0 + 10 * Second;
    {
        const StateLock lock(f.state.lock);
        f.commits.update(update);
        f.commits.finished(
            FinishedDelivery {delivered.id, delivered.eventSeq, DeliveryState::Delivered});
        f.commits.attempt(attempt);
        f.commits.probation(probation);
    }

    // Buffered: the store has not seen any of it yet.
    QCOMPARE(f.store.calls(Operation::Commit), 0);
    QCOMPARE(f.storedDelivery(retried.id)->attempts, 0);
    QVERIFY(f.storedDelivery(delivered.id).has_value());
    QCOMPARE(f.sqlite.attemptLog(10)->size(), 0);
    QCOMPARE(f.sqlite.loadProbation()->size(), 0);

    QVERIFY(f.flush().hasValue());
    QCOMPARE(f.store.calls(Operation::Commit), 1); // all of it in one commit
    const std::optional<DeliveryRecord> stored = f.storedDelivery(retried.id);
    QVERIFY(stored.has_value());
    QCOMPARE(stored->attempts, 3);
    QCOMPARE(stored->dueMs, T0 + Minute);
    QCOMPARE(stored->lastOutcome, DeliveryOutcome::Busy);
    QCOMPARE(stored->lastHttpStatus, 503);
    QVERIFY(!f.storedDelivery(delivered.id).has_value());
    QCOMPARE(f.sqlite.attemptLog(10)->size(), 1);
    QCOMPARE(f.sqlite.attemptLog(10)->at(0).eventIds, QStringList {u"e1"_s});
    QCOMPARE(f.sqlite.loadProbation()->size(), 1);
    QCOMPARE(f.sqlite.loadProbation()->at(0).untilMs, T0 + 10 * Second);

    // Committed changes leave the buffer: the next flush has nothing to commit.
    QVERIFY(f.flush().hasValue());
    QCOMPARE(f.store.calls(Operation::Commit), 1);
}

void tst_CommitBuffer::emptyFlushCommitsNothing()
{
    EngineUnitsFixture f;
    QVERIFY(f.flush().hasValue());
    QCOMPARE(f.store.calls(Operation::Commit), 0);
}

void tst_CommitBuffer::schedule_commitsShortlyAfterTheFirstChange()
{
    EngineUnitsFixture f;
    Subscription &subscription = f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s));
    Delivery &delivery = f.addDelivery(subscription, u"e0"_s);
    {
        const StateLock lock(f.state.lock);
        f.commits.finished(
            FinishedDelivery {delivery.id, delivery.eventSeq, DeliveryState::Delivered});
        f.commits.schedule();
        f.commits.schedule(); // armed once: one commit for both calls
    }
    QCOMPARE(f.store.calls(Operation::Commit), 0);
    // The commit timer is a few milliseconds of real time (not a scheduling decision): wait for
    // the event loop to run it.
    QTRY_COMPARE(f.store.calls(Operation::Commit), 1);
    QVERIFY(!f.storedDelivery(delivery.id).has_value());
}

void tst_CommitBuffer::d1_failedCommitKeepsChangesForTheNextTry()
{
    EngineUnitsFixture f;
    QSignalSpy storeErrors(&f.signals, &EngineSignals::storeError);
    Subscription &subscription = f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s));
    Delivery &delivery = f.addDelivery(subscription, u"e0"_s);
    DeliveryRecord update = delivery.record(subscription);
    update.attempts = 1;
    {
        const StateLock lock(f.state.lock);
        f.commits.update(update);
    }

    f.store.failNext(Operation::Commit, 1, u"disk full"_s);
    const Expected<void> failed = f.flush();
    QVERIFY(!failed.hasValue());
    QCOMPARE(failed.error(), u"disk full"_s);
    QCOMPARE(storeErrors.size(), 1);
    QCOMPARE(storeErrors.at(0).at(0).toString(), u"disk full"_s);
    QCOMPARE(f.storedDelivery(delivery.id)->attempts, 0);
    // Shown as the store's state (GUI status area, /metrics) until a write succeeds.
    QVERIFY(!f.state.storeHealth.isWritable());
    QCOMPARE(f.state.storeHealth.snapshot().lastError, u"disk full"_s);
    QCOMPARE(f.state.storeHealth.snapshot().unwritableSinceMs, f.clock.nowMs());

    // Nothing was lost: the next commit carries the same changes.
    QVERIFY(f.flush().hasValue());
    QCOMPARE(f.store.calls(Operation::Commit), 2);
    QCOMPARE(f.storedDelivery(delivery.id)->attempts, 1);
    QCOMPARE(storeErrors.size(), 1);
    QVERIFY(f.state.storeHealth.isWritable());
    QCOMPARE(f.state.storeHealth.snapshot().writeFailures, quint64(1));
    QCOMPARE(f.state.storeHealth.snapshot().unwritableSinceMs, 0);
}

void tst_CommitBuffer::d1_failedCommitIsTriedAgainOnItsOwn()
{
    EngineUnitsFixture f;
    Subscription &subscription = f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s));
    Delivery &delivery = f.addDelivery(subscription, u"e0"_s);
    {
        const StateLock lock(f.state.lock);
        f.commits.finished(
            FinishedDelivery {delivery.id, delivery.eventSeq, DeliveryState::Delivered});
    }
    f.store.failNext(Operation::Commit);
    QVERIFY(!f.flush().hasValue());
    QVERIFY(f.storedDelivery(delivery.id).has_value());
    // The buffer arms its own retry (a second of real time): no caller has to flush again.
    QTRY_COMPARE_WITH_TIMEOUT(f.store.calls(Operation::Commit), 2, 10'000);
    QVERIFY(!f.storedDelivery(delivery.id).has_value());
}

void tst_CommitBuffer::armedCommitWritesWithoutTheStateLock()
{
    // A lane that finishes a request while the group commit writes is not held up by the store:
    // another thread takes the state lock while the store is committing.
    EngineUnitsFixture f;
    Subscription &subscription = f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s));
    Delivery &delivery = f.addDelivery(subscription, u"e0"_s);
    std::future<void> lane; // outlives the commit: waiting for it inside would deadlock if locked
    bool laneTookTheLock = false;
    f.store.setBeforeCommit([&] {
        lane = std::async(std::launch::async, [&] { const StateLock lock(f.state.lock); });
        laneTookTheLock = lane.wait_for(std::chrono::seconds(5)) == std::future_status::ready;
    });
    {
        const StateLock lock(f.state.lock);
        f.commits.finished(
            FinishedDelivery {delivery.id, delivery.eventSeq, DeliveryState::Delivered});
        f.commits.schedule();
    }
    QTRY_COMPARE_WITH_TIMEOUT(f.store.calls(Operation::Commit), 1, 10'000);
    lane.wait();
    QVERIFY(laneTookTheLock);
    QVERIFY(!f.storedDelivery(delivery.id).has_value());
}

void tst_CommitBuffer::d1_changesOfAFailedCommitGoBeforeLaterOnes()
{
    // The armed commit fails after its changes left the buffer; they go back in front of what
    // was buffered since, so that a later change of the same delivery is the one that stays.
    EngineUnitsFixture f;
    Subscription &subscription = f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s));
    Delivery &delivery = f.addDelivery(subscription, u"e0"_s);
    DeliveryRecord first = delivery.record(subscription);
    first.attempts = 1;
    first.lastHttpStatus = 503;
    f.store.failNext(Operation::Commit);
    {
        const StateLock lock(f.state.lock);
        f.commits.update(first);
        f.commits.schedule();
    }
    QTRY_COMPARE(f.store.calls(Operation::Commit), 1);
    QCOMPARE(f.storedDelivery(delivery.id)->attempts, 0);

    DeliveryRecord second = first;
    second.attempts = 2;
    second.lastHttpStatus = 500;
    {
        const StateLock lock(f.state.lock);
        f.commits.update(second);
    }
    QVERIFY(f.flush().hasValue());
    QCOMPARE(f.store.calls(Operation::Commit), 2); // both changes in one commit
    QCOMPARE(f.storedDelivery(delivery.id)->attempts, 2);
    QCOMPARE(f.storedDelivery(delivery.id)->lastHttpStatus, 500);
}

void tst_CommitBuffer::l1_dropRecordTakesItsEventIdFromTheStore()
{
    EngineUnitsFixture f;
    Subscription &subscription = f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s));
    // As after a restart: the delivery does not hold its event, only the store has it.
    Delivery *restored = f.addDeliveries(subscription, {f.event(subscription, u"restored-event"_s)},
                                         T0, T0, EngineUnitsFixture::Placement::InFlight,
                                         EngineUnitsFixture::Payload::InStoreOnly)
                             .constFirst();
    QVERIFY(!restored->event);
    const qint64 eventSeq = restored->eventSeq;
    DroppedEntry known;
    known.topic = subscription.topic;
    known.subscription = subscription.config.name;
    known.eventId = u"named-by-the-caller"_s;
    known.reason = DeadLetterReason::SubscriptionDeleted;
    DroppedEntry unknown = known;
    unknown.eventId.clear();
    unknown.reason = DeadLetterReason::UndeliverableDueToHttpForbidden;
    {
        const StateLock lock(f.state.lock);
        f.commits.dropped(unknown, eventSeq);
        f.commits.dropped(known, eventSeq);
        // The delivery's row, and with it the event, goes in the same commit.
        f.commits.finished(FinishedDelivery {restored->id, eventSeq, DeliveryState::Dropped});
    }
    QVERIFY(f.flush().hasValue());

    auto dropped = f.sqlite.droppedDeliveries(10);
    QVERIFY(dropped.hasValue());
    QCOMPARE(dropped->size(), 2);
    QStringList eventIds;
    for (const DroppedEntry &entry : std::as_const(dropped.value()))
        eventIds.append(entry.eventId);
    eventIds.sort();
    QCOMPARE(eventIds, (QStringList {u"named-by-the-caller"_s, u"restored-event"_s}));
    QCOMPARE(f.sqlite.loadEvents({eventSeq})->size(), 0);
}

QTEST_GUILESS_MAIN(tst_CommitBuffer)
#include "tst_commitbuffer.moc"
