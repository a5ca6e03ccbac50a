// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// The monitor of a shared workspace (StoreMonitor::startShared): a PostgreSQL store that several
// engines share, written here by two PostgresDeliveryStore instances as their engines would, and
// read as the engine's snapshots: backlog, in flight and probation from the store's rows, counters
// from what was logged after the monitor started, each attempt with the instance that made it,
// and the instances with their heartbeats. Against a real server of this executable; the test
// polls by hand.

#include "PostgresServer.h"
#include "SharedStoreFixtures.h"
#include "host/StoreMonitor.h"
#include "store/postgres/PostgresDeliveryStore.h"

#include <QSignalSpy>
#include <QTest>

#include <memory>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using EventDesk::Testing::ordersTopics;
using EventDesk::Testing::PostgresServer;
using EventDesk::Testing::unreachableWebhook;

namespace {

// The monitor's own timer never fires during a test: it polls when the test says so.
constexpr int Never = 24 * 3600 * 1000;

constexpr EventDesk::Testing::OrdersRows Rows {1000, 5000};

AttemptLogEntry attempt(const QString &subscription, const QStringList &eventIds,
                        DeliveryOutcome outcome, int httpStatus)
{
    AttemptLogEntry entry;
    entry.timeMs = 2000;
    entry.topic = u"orders"_s;
    entry.subscription = subscription;
    entry.eventIds = eventIds;
    entry.attempt = 1;
    entry.outcome = outcome;
    entry.httpStatus = httpStatus;
    entry.durationMs = 20;
    return entry;
}

const SubscriptionSnapshot *find(const EngineSnapshot &snapshot, const QString &subscription)
{
    for (const SubscriptionSnapshot &state : snapshot.subscriptions) {
        if (state.subscription == subscription)
            return &state;
    }
    return nullptr;
}

} // namespace

class SharedStoreMonitorTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void snapshotsOfASharedStore();
    void storeThatIsNotThereYet();
    void refusesAFolder();
    void followsAndEditsTheConfiguration();

private:
    std::unique_ptr<PostgresServer> m_server;
};

void SharedStoreMonitorTest::initTestCase()
{
    m_server = std::make_unique<PostgresServer>();
    QVERIFY2(m_server->isRunning(), qPrintable(m_server->errorText()));
}

void SharedStoreMonitorTest::snapshotsOfASharedStore()
{
    const QString url = m_server->createDatabase(u"shared"_s);
    QVERIFY2(!url.isEmpty(), qPrintable(m_server->errorText()));
    PostgresDeliveryStore first;
    QVERIFY(first.open(url).hasValue());
    QVERIFY(first.registerInstance({u"host-a"_s, 11, 10000}).hasValue());
    PostgresDeliveryStore second;
    QVERIFY(second.open(url).hasValue());
    QVERIFY(second.registerInstance({u"host-b"_s, 22, 10000}).hasValue());

    // Before the monitor starts: billing has three deliveries (one of them in flight), audit one;
    // an attempt logged then is history, not counted.
    QVERIFY(first
                .insertPublished({Rows.event(1), Rows.event(2), Rows.event(3)},
                                 {Rows.delivery(1, u"billing"_s), Rows.delivery(2, u"billing"_s),
                                  Rows.delivery(3, u"billing"_s)})
                .hasValue());
    QVERIFY(second.insertPublished({Rows.event(4)}, {Rows.delivery(4, u"audit"_s)}).hasValue());
    StoreBatch before;
    DeliveryRecord inFlight = Rows.delivery(1, u"billing"_s);
    inFlight.state = DeliveryState::InFlight;
    before.updates = {inFlight};
    before.attempts = {attempt(u"billing"_s, {u"order-1"_s}, DeliveryOutcome::Busy, 503)};
    QVERIFY(first.commit(before).hasValue());

    StoreMonitor monitor;
    QSignalSpy snapshots(&monitor, &StoreMonitor::snapshotReady);
    QSignalSpy attempts(&monitor, &StoreMonitor::attemptsLogged);
    QSignalSpy instances(&monitor, &StoreMonitor::instancesRead);
    QSignalSpy errors(&monitor, &StoreMonitor::readError);
    QVERIFY(monitor.startShared(url, Never).hasValue());
    QVERIFY(monitor.isShared());
    QVERIFY(snapshots.wait());
    QCOMPARE(errors.count(), 0);
    QCOMPARE(attempts.count(), 0); // the attempt before the start is history

    {
        const auto snapshot = snapshots.takeLast().at(0).value<EngineSnapshot>();
        const SubscriptionSnapshot *billing = find(snapshot, u"billing"_s);
        QVERIFY(billing);
        QCOMPARE(billing->topic, u"orders"_s);
        QCOMPARE(billing->backlog, 2);
        QCOMPARE(billing->inFlight, 1);
        QCOMPARE(billing->nextDueMs, 5002);
        QCOMPARE(billing->delivered, 0);
        const SubscriptionSnapshot *audit = find(snapshot, u"audit"_s);
        QVERIFY(audit);
        QCOMPARE(audit->backlog, 1);
    }
    QCOMPARE(instances.count(), 1);
    {
        const auto read = instances.takeLast().at(0).value<QList<InstanceStatus>>();
        QCOMPARE(read.size(), 2);
        QCOMPARE(read.at(0).id, first.instanceId());
        QCOMPARE(read.at(0).hostName, u"host-a"_s);
        QCOMPARE(read.at(0).ownedDeliveries, 3);
        QCOMPARE(read.at(1).id, second.instanceId());
        QCOMPARE(read.at(1).ownedDeliveries, 1);
        QCOMPARE(monitor.instances(), read);
    }

    // After the start: the first instance delivers two of billing's events in one request, the
    // second dead-letters audit's; billing enters probation.
    StoreBatch afterFirst;
    afterFirst.finished = {FinishedDelivery {1, 1, DeliveryState::Delivered},
                           FinishedDelivery {2, 2, DeliveryState::Delivered}};
    afterFirst.attempts
        = {attempt(u"billing"_s, {u"order-1"_s, u"order-2"_s}, DeliveryOutcome::Delivered, 200)};
    ProbationRecord probation;
    probation.topic = u"orders"_s;
    probation.subscription = u"billing"_s;
    probation.state = int(ProbationTracker::State::InProbation);
    probation.cause = DeliveryOutcome::Busy;
    probation.untilMs = 99000;
    probation.consecutiveFailures = 10;
    afterFirst.probation = {probation};
    QVERIFY(first.commit(afterFirst).hasValue());
    StoreBatch afterSecond;
    afterSecond.finished = {FinishedDelivery {4, 4, DeliveryState::DeadLettered}};
    DeadLetterEntry deadLetter;
    deadLetter.topic = u"orders"_s;
    deadLetter.subscription = u"audit"_s;
    deadLetter.eventId = u"order-4"_s;
    deadLetter.reason = DeadLetterReason::MaxDeliveryAttemptsExceeded;
    deadLetter.record = "{}";
    afterSecond.deadLetters = {deadLetter};
    afterSecond.attempts = {attempt(u"audit"_s, {u"order-4"_s}, DeliveryOutcome::NotFound, 404)};
    QVERIFY(second.commit(afterSecond).hasValue());

    monitor.poll();
    QCOMPARE(errors.count(), 0);
    QCOMPARE(attempts.count(), 1);
    const auto logged = attempts.takeFirst().at(0).value<QList<AttemptLogEntry>>();
    QCOMPARE(logged.size(), 2);
    QCOMPARE(logged.at(0).subscription, u"billing"_s);
    QCOMPARE(logged.at(0).instance, first.instanceId());
    QCOMPARE(logged.at(1).subscription, u"audit"_s);
    QCOMPARE(logged.at(1).instance, second.instanceId());

    const auto snapshot = snapshots.takeLast().at(0).value<EngineSnapshot>();
    const SubscriptionSnapshot *billing = find(snapshot, u"billing"_s);
    QVERIFY(billing);
    QCOMPARE(billing->delivered, 2);
    QCOMPARE(billing->backlog, 1);
    QCOMPARE(billing->inFlight, 0);
    QCOMPARE(billing->probationState, ProbationTracker::State::InProbation);
    QCOMPARE(billing->probationUntilMs, 99000);
    QCOMPARE(billing->consecutiveFailures, 10);
    const SubscriptionSnapshot *audit = find(snapshot, u"audit"_s);
    QVERIFY(audit);
    QCOMPARE(audit->backlog, 0);
    QCOMPARE(audit->failedByOutcome.value(DeliveryOutcome::NotFound), 1);
    QCOMPARE(audit->deadLetteredByReason.value(DeadLetterReason::MaxDeliveryAttemptsExceeded), 1);

    // An instance that stops cleanly leaves the list at the next poll.
    QVERIFY(second.releaseInstance().hasValue());
    monitor.poll();
    QCOMPARE(monitor.instances().size(), 1);
    QCOMPARE(monitor.instances().constFirst().id, first.instanceId());
}

void SharedStoreMonitorTest::storeThatIsNotThereYet()
{
    const QString url = m_server->createDatabase(u"not_yet"_s);
    QVERIFY2(!url.isEmpty(), qPrintable(m_server->errorText()));
    StoreMonitor monitor;
    QSignalSpy snapshots(&monitor, &StoreMonitor::snapshotReady);
    QSignalSpy errors(&monitor, &StoreMonitor::readError);
    QVERIFY(monitor.startShared(url, Never).hasValue());
    QVERIFY(errors.wait());
    QVERIFY2(errors.constFirst().at(0).toString().contains(u"holds no EventDesk store yet"_s),
             qPrintable(errors.constFirst().at(0).toString()));
    QCOMPARE(snapshots.count(), 0);

    // An instance creates the store: the next poll reads it.
    PostgresDeliveryStore engine;
    QVERIFY(engine.open(url).hasValue());
    monitor.poll();
    QCOMPARE(snapshots.count(), 1);
}

void SharedStoreMonitorTest::refusesAFolder()
{
    StoreMonitor monitor;
    const auto started = monitor.startShared(u"/tmp/some-workspace"_s, Never);
    QVERIFY(!started.hasValue());
    QVERIFY2(started.error().contains(u"postgresql://"_s), qPrintable(started.error()));
}

void SharedStoreMonitorTest::followsAndEditsTheConfiguration()
{
    const QString url = m_server->createDatabase(u"configuration"_s);
    QVERIFY2(!url.isEmpty(), qPrintable(m_server->errorText()));
    PostgresDeliveryStore instance;
    QVERIFY(instance.open(url).hasValue());
    const auto first = instance.replaceConfiguration(ordersTopics());
    QVERIFY2(first.hasValue(), qPrintable(first.error()));

    StoreMonitor monitor;
    QSignalSpy snapshots(&monitor, &StoreMonitor::snapshotReady);
    QSignalSpy configurations(&monitor, &StoreMonitor::configurationRead);
    QVERIFY(monitor.startShared(url, Never).hasValue());
    QVERIFY(snapshots.wait());
    QCOMPARE(configurations.count(), 1);
    QCOMPARE(monitor.configurationRevision(), first.value());
    QCOMPARE(monitor.workspace().topics.size(), 1);
    QCOMPARE(monitor.workspace().topics.constFirst().eventSubscriptions.size(), 2);
    // The configuration's subscriptions are in the snapshot without rows of their own.
    const auto snapshot = snapshots.takeLast().at(0).value<EngineSnapshot>();
    QVERIFY(find(snapshot, u"billing"_s));
    QVERIFY(find(snapshot, u"audit"_s));

    // An unchanged revision is not read again.
    monitor.poll();
    QCOMPARE(configurations.count(), 1);

    // An edit from here: written, and read back at once.
    QList<Topic> edited = monitor.workspace().topics;
    edited[0].eventSubscriptions[0].enabled = false; // billing
    const auto saved = monitor.saveConfiguration(edited);
    QVERIFY2(saved.hasValue(), qPrintable(saved.error()));
    QVERIFY(saved.value() > first.value());
    QCOMPARE(monitor.configurationRevision(), saved.value());
    QCOMPARE(configurations.count(), 2);
    const auto stored = instance.loadConfiguration();
    QVERIFY(stored.hasValue());
    QCOMPARE(stored->revision, saved.value());
    QVERIFY(!stored->topics.constFirst().eventSubscriptions.constFirst().enabled);

    // Another writer changes audit: the next poll has it.
    QList<Topic> other = stored->topics;
    other[0].eventSubscriptions[1].retryPolicy.maxDeliveryAttempts = 7;
    const auto otherRevision = instance.saveConfiguration(stored->topics, other, stored->revision);
    QVERIFY2(otherRevision.hasValue(), qPrintable(otherRevision.error()));
    monitor.poll();
    QCOMPARE(monitor.configurationRevision(), otherRevision.value());
    QCOMPARE(monitor.workspace()
                 .topics.constFirst()
                 .eventSubscriptions.at(1)
                 .retryPolicy.maxDeliveryAttempts,
             7);

    // A conflict: another writer changed audit after the monitor's last read; an edit of audit
    // from here writes nothing, names it, and the monitor holds the other writer's version.
    QList<Topic> theirs = other;
    theirs[0].eventSubscriptions[1].retryPolicy.maxDeliveryAttempts = 9;
    QVERIFY(instance.saveConfiguration(other, theirs, otherRevision.value()).hasValue());
    QList<Topic> mine = monitor.workspace().topics;
    mine[0].eventSubscriptions[1].retryPolicy.maxDeliveryAttempts = 3;
    const auto refused = monitor.saveConfiguration(mine);
    QVERIFY(!refused.hasValue());
    QVERIFY2(refused.error().contains(u"audit"_s), qPrintable(refused.error()));
    QVERIFY2(refused.error().contains(u"another writer"_s), qPrintable(refused.error()));
    QCOMPARE(monitor.workspace()
                 .topics.constFirst()
                 .eventSubscriptions.at(1)
                 .retryPolicy.maxDeliveryAttempts,
             9);
}

QTEST_GUILESS_MAIN(SharedStoreMonitorTest)
#include "tst_sharedstoremonitor.moc"
