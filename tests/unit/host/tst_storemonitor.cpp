// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// The read-only monitor of a workspace another engine owns (core/host/StoreMonitor): what it reads
// from the owner's store and reports as an engine's snapshot, and that it notices the owner leave.
// The test writes the store as the owner would and polls by hand.

#include "LockHolder.h"
#include "host/StoreMonitor.h"
#include "store/sqlite/SqliteDeliveryStore.h"
#include "workspace/WorkspaceFolder.h"

#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using EventDesk::Testing::LockHolder;

namespace {

// Topic orders with two webhook subscriptions, billing and audit.
constexpr char WorkspaceJson[]
    = "{\"topics\":[{\"name\":\"orders\",\"inputSchema\":\"EventGridSchema\","
      "\"eventSubscriptions\":["
      "{\"name\":\"billing\",\"properties\":{\"destination\":{\"endpointType\":\"WebHook\","
      "\"properties\":{\"endpointUrl\":\"http://127.0.0.1:9/hook\"}}}},"
      "{\"name\":\"audit\",\"properties\":{\"destination\":{\"endpointType\":\"WebHook\","
      "\"properties\":{\"endpointUrl\":\"http://127.0.0.1:9/audit\"}}}}]}],"
      "\"receivers\":[],\"settings\":{}}";

AttemptLogEntry attempt(const QString &subscription, const QStringList &eventIds,
                        DeliveryOutcome outcome, int httpStatus, qint64 durationMs)
{
    AttemptLogEntry entry;
    entry.timeMs = 1'700'000'000'000;
    entry.topic = u"orders"_s;
    entry.subscription = subscription;
    entry.eventIds = eventIds;
    entry.attempt = 1;
    entry.outcome = outcome;
    entry.httpStatus = httpStatus;
    entry.durationMs = durationMs;
    return entry;
}

DeliveryRecord delivery(qint64 id, const QString &subscription, DeliveryState state)
{
    DeliveryRecord record;
    record.id = id;
    record.eventSeq = id;
    record.topic = u"orders"_s;
    record.subscription = subscription;
    record.state = state;
    record.dueMs = 1'700'000'000'000 + id;
    return record;
}

StoredEvent storedEvent(qint64 seq)
{
    StoredEvent stored;
    stored.seq = seq;
    stored.topic = u"orders"_s;
    stored.id = u"event-%1"_s.arg(seq);
    stored.body = "{}";
    return stored;
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

class tst_StoreMonitor : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void reportsGaugesAndWhatTheOwnerLogsAfterTheStart();
    void followsWorkspaceJson();
    void noticesTheOwnerLeave();
    void missingWorkspaceIsAnError();

private:
    std::unique_ptr<QTemporaryDir> m_directory;
    SqliteDeliveryStore m_store;
};

void tst_StoreMonitor::init()
{
    m_directory = std::make_unique<QTemporaryDir>();
    QVERIFY(m_directory->isValid());
    QFile file(WorkspaceFolder::workspaceFile(m_directory->path()));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(WorkspaceJson);
    file.close();
    QVERIFY(m_store.open(WorkspaceFolder::storeFile(m_directory->path())));
}

void tst_StoreMonitor::cleanup()
{
    m_store.close();
    m_directory.reset();
}

void tst_StoreMonitor::reportsGaugesAndWhatTheOwnerLogsAfterTheStart()
{
    // Before the monitor starts: history, not counted.
    StoreBatch before;
    before.attempts.append(attempt(u"billing"_s, {u"old"_s}, DeliveryOutcome::Delivered, 200, 5));
    QVERIFY(m_store.commit(before));
    QVERIFY(m_store.insertPublished({storedEvent(1), storedEvent(2), storedEvent(3)},
                                    {delivery(1, u"billing"_s, DeliveryState::Pending),
                                     delivery(2, u"billing"_s, DeliveryState::Pending),
                                     delivery(3, u"audit"_s, DeliveryState::Pending)}));

    StoreMonitor monitor;
    QSignalSpy snapshots(&monitor, &StoreMonitor::snapshotReady);
    QSignalSpy attempts(&monitor, &StoreMonitor::attemptsLogged);
    const auto started = monitor.start(m_directory->path(), 60'000);
    QVERIFY2(started, qPrintable(started.error()));
    QCOMPARE(started.value().topics.size(), 1);
    monitor.poll();
    QCOMPARE(snapshots.size(), 1);
    QCOMPARE(attempts.size(), 0);
    EngineSnapshot snapshot = snapshots.takeFirst().at(0).value<EngineSnapshot>();
    QCOMPARE(snapshot.subscriptions.size(), 2);
    QVERIFY(find(snapshot, u"billing"_s));
    QCOMPARE(find(snapshot, u"billing"_s)->backlog, 2);
    QCOMPARE(find(snapshot, u"billing"_s)->delivered, quint64(0));
    QCOMPARE(find(snapshot, u"billing"_s)->nextDueMs, 1'700'000'000'001);
    QCOMPARE(find(snapshot, u"audit"_s)->backlog, 1);

    // The owner goes on: a batch of two delivered, a failure, a dead letter, a drop, probation.
    StoreBatch batch;
    batch.attempts.append(
        attempt(u"billing"_s, {u"event-1"_s, u"event-2"_s}, DeliveryOutcome::Delivered, 200, 40));
    batch.attempts.append(attempt(u"audit"_s, {u"event-3"_s}, DeliveryOutcome::Busy, 503, 10));
    batch.finished.append({1, 1, DeliveryState::Delivered});
    batch.finished.append({2, 2, DeliveryState::Delivered});
    DeadLetterEntry deadLetter;
    deadLetter.topic = u"orders"_s;
    deadLetter.subscription = u"audit"_s;
    deadLetter.eventId = u"event-9"_s;
    deadLetter.reason = DeadLetterReason::MaxDeliveryAttemptsExceeded;
    batch.deadLetters.append(deadLetter);
    DroppedEntry drop;
    drop.topic = u"orders"_s;
    drop.subscription = u"audit"_s;
    drop.reason = DeadLetterReason::TimeToLiveExceeded;
    batch.drops.append(drop);
    ProbationRecord probation;
    probation.topic = u"orders"_s;
    probation.subscription = u"audit"_s;
    probation.state = int(ProbationTracker::State::InProbation);
    probation.cause = DeliveryOutcome::Busy;
    probation.untilMs = 1'800'000'000'000;
    probation.consecutiveFailures = 10;
    batch.probation.append(probation);
    batch.updates.append(delivery(3, u"audit"_s, DeliveryState::InFlight));
    QVERIFY(m_store.commit(batch));

    monitor.poll();
    QCOMPARE(attempts.size(), 1);
    const auto logged = attempts.takeFirst().at(0).value<QList<AttemptLogEntry>>();
    QCOMPARE(logged.size(), 2);
    QCOMPARE(logged.at(0).eventIds, (QStringList {u"event-1"_s, u"event-2"_s}));
    QVERIFY(logged.at(0).id > 0);
    QCOMPARE(snapshots.size(), 1);
    snapshot = snapshots.takeFirst().at(0).value<EngineSnapshot>();
    const SubscriptionSnapshot *billing = find(snapshot, u"billing"_s);
    QCOMPARE(billing->delivered, quint64(2));
    QCOMPARE(billing->requests, quint64(1));
    QCOMPARE(billing->backlog, 0);
    QCOMPARE(billing->latencyCount, quint64(1));
    QCOMPARE(billing->latencySumMs, 40.0);
    const SubscriptionSnapshot *audit = find(snapshot, u"audit"_s);
    QCOMPARE(audit->failedByOutcome.value(DeliveryOutcome::Busy), quint64(1));
    QCOMPARE(audit->deadLetteredByReason.value(DeadLetterReason::MaxDeliveryAttemptsExceeded),
             quint64(1));
    QCOMPARE(audit->droppedByReason.value(DeadLetterReason::TimeToLiveExceeded), quint64(1));
    QCOMPARE(audit->backlog, 0);
    QCOMPARE(audit->inFlight, 1);
    QCOMPARE(audit->probationState, ProbationTracker::State::InProbation);
    QCOMPARE(audit->probationUntilMs, 1'800'000'000'000);

    // Nothing new: the counters stay, no attempts are reported again.
    monitor.poll();
    QCOMPARE(attempts.size(), 0);
    snapshot = snapshots.takeFirst().at(0).value<EngineSnapshot>();
    QCOMPARE(find(snapshot, u"billing"_s)->delivered, quint64(2));
    QCOMPARE(find(snapshot, u"audit"_s)
                 ->deadLetteredByReason.value(DeadLetterReason::MaxDeliveryAttemptsExceeded),
             quint64(1));
}

void tst_StoreMonitor::followsWorkspaceJson()
{
    StoreMonitor monitor;
    QSignalSpy changed(&monitor, &StoreMonitor::workspaceChanged);
    QVERIFY(monitor.start(m_directory->path(), 60'000));
    monitor.poll();
    QCOMPARE(changed.size(), 0);

    // The owner renames a subscription (a longer file: the change is seen whatever the clock).
    QFile file(WorkspaceFolder::workspaceFile(m_directory->path()));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QByteArray(WorkspaceJson).replace("\"audit\"", "\"audit-trail\""));
    file.close();
    monitor.poll();
    QCOMPARE(changed.size(), 1);
    QCOMPARE(monitor.workspace().topics.at(0).eventSubscriptions.at(1).name, u"audit-trail"_s);
}

void tst_StoreMonitor::noticesTheOwnerLeave()
{
    LockHolder holder;
    QVERIFY2(holder.start(m_directory->path()), qPrintable(holder.errorText()));
    StoreMonitor monitor;
    QSignalSpy left(&monitor, &StoreMonitor::ownerLeft);
    QSignalSpy found(&monitor, &StoreMonitor::ownerFound);
    QVERIFY(monitor.start(m_directory->path(), 60'000));
    QVERIFY(monitor.owner());
    QCOMPARE(monitor.owner()->pid, holder.pid());
    monitor.poll();
    QCOMPARE(left.size(), 0);

    holder.kill();
    monitor.poll();
    QCOMPARE(left.size(), 1);
    QVERIFY(!monitor.owner());
    monitor.poll();
    QCOMPARE(left.size(), 1);

    LockHolder next;
    QVERIFY2(next.start(m_directory->path()), qPrintable(next.errorText()));
    monitor.poll();
    QCOMPARE(found.size(), 1);
    QCOMPARE(found.at(0).at(0).value<WorkspaceOwner>().pid, next.pid());
    // The monitor only looked: the lock is the new holder's.
    QCOMPARE(WorkspaceLock::currentOwner(m_directory->path())->pid, next.pid());
}

void tst_StoreMonitor::missingWorkspaceIsAnError()
{
    QTemporaryDir empty;
    StoreMonitor monitor;
    const auto started = monitor.start(empty.path(), 60'000);
    QVERIFY(!started);
    QVERIFY2(started.error().contains(u"workspace.json"_s), qPrintable(started.error()));
    // Nothing was created there.
    QVERIFY(QDir(empty.path()).isEmpty());
}

QTEST_GUILESS_MAIN(tst_StoreMonitor)
#include "tst_storemonitor.moc"
