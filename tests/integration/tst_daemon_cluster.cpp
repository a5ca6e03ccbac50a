// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// Several eventdeskd on one PostgreSQL store (issue 21): each with its own workspace folder (the
// same workspace.json) and port, publishes spread over them, one killed with `kill -9` mid-way.
// SPEC D1 across instances: every accepted event is delivered, none lost; an event is delivered
// twice only if the killed instance held its delivery unfinished when it died. Then every
// instance dies and comes back: nothing lost either.

#include "DaemonProcess.h"
#include "PostgresServer.h"
#include "ScriptedReceiver.h"
#include "store/StoreTotals.h"

#include <QHash>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <memory>
#include <vector>

using namespace Qt::StringLiterals;
using namespace EventDesk::Testing;

namespace {

// Batches of this many events, this many requests at once per instance (the workspace default of
// maxConcurrentRequestsPerSubscription): what one instance can have sent and not yet recorded.
constexpr int EventsPerBatch = 10;
constexpr int RequestSlots = 8;
// Seconds of lease: long enough that the store can be read right after the kill before anyone
// takes the dead instance's deliveries over, short enough that the takeover comes soon.
constexpr int LeaseSeconds = 5;

// How many times each event id arrived at the receiver. Every request that arrived counts, also
// one whose answer found its sender gone: a real webhook acts on what it received.
QHash<QString, int> receivedCounts(const ScriptedReceiver &receiver)
{
    QHash<QString, int> counts;
    for (const ReceivedRequest &request : receiver.requests()) {
        for (const QString &id : request.eventIds())
            ++counts[id];
    }
    return counts;
}

} // namespace

class DaemonClusterTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void badLeaseIsRefused_data();
    void badLeaseIsRefused();
    void threeInstancesOneKilled();
    void restartOfAllInstancesLosesNothing();
    void probationIsSharedByAllInstances();
    void pausedInstanceStepsBack();

private:
    // n workspace folders with the same workspace.json (one subscription to receiverUrl).
    bool makeWorkspaces(int n, const QUrl &receiverUrl,
                        const QString &deadLetterContainer = u"deadletters"_s,
                        int probationThreshold = 10);
    std::unique_ptr<DaemonProcess> daemonOn(int workspace, const QString &store, double timeScale);
    QStringList publishIds(int first, int count) const;

    std::unique_ptr<PostgresServer> m_server;
    std::vector<std::unique_ptr<QTemporaryDir>> m_workspaces;
};

void DaemonClusterTest::initTestCase()
{
    QVERIFY2(QFileInfo(DaemonProcess::executablePath()).isExecutable(),
             qPrintable(DaemonProcess::executablePath()));
    m_server = std::make_unique<PostgresServer>();
    QVERIFY2(m_server->isRunning(), qPrintable(m_server->errorText()));
}

bool DaemonClusterTest::makeWorkspaces(int n, const QUrl &receiverUrl,
                                       const QString &deadLetterContainer, int probationThreshold)
{
    m_workspaces.clear();
    WorkspaceJson::SubscriptionOptions subscription;
    subscription.endpointUrl = receiverUrl;
    subscription.maxEventsPerBatch = EventsPerBatch;
    subscription.deadLetterContainer = deadLetterContainer;
    const QJsonObject workspace = WorkspaceJson::workspace(
        {WorkspaceJson::topic(u"orders"_s, {WorkspaceJson::subscription(subscription)})}, 0,
        probationThreshold);
    for (int i = 0; i < n; ++i) {
        auto folder = std::make_unique<QTemporaryDir>();
        if (!folder->isValid() || !WorkspaceJson::write(folder->path(), workspace))
            return false;
        m_workspaces.push_back(std::move(folder));
    }
    return true;
}

std::unique_ptr<DaemonProcess> DaemonClusterTest::daemonOn(int workspace, const QString &store,
                                                           double timeScale)
{
    auto daemon = std::make_unique<DaemonProcess>(m_workspaces.at(size_t(workspace))->path());
    daemon->setExtraArguments({u"--store"_s, store, u"--instance-lease"_s,
                               QString::number(LeaseSeconds), u"--secret-store"_s, u"none"_s});
    daemon->setTimeScale(timeScale);
    return daemon;
}

QStringList DaemonClusterTest::publishIds(int first, int count) const
{
    QStringList ids;
    for (int index = first; index < first + count; ++index)
        ids.append(u"ev-%1"_s.arg(index, 5, 10, QLatin1Char('0')));
    return ids;
}

void DaemonClusterTest::badLeaseIsRefused_data()
{
    QTest::addColumn<QString>("lease");
    QTest::newRow("too short") << u"0.5"_s;
    QTest::newRow("too long") << u"601"_s;
    QTest::newRow("not a number") << u"soon"_s;
}

void DaemonClusterTest::badLeaseIsRefused()
{
    QFETCH(QString, lease);
    QTemporaryDir workspace;
    QVERIFY(workspace.isValid());
    DaemonProcess daemon(workspace.path());
    daemon.setExtraArguments({u"--store"_s, m_server->url(), u"--instance-lease"_s, lease});
    QVERIFY2(daemon.runExpectingExit(), qPrintable(daemon.standardError()));
    QCOMPARE(daemon.exitCode(), 2);
    const QString expected
        = u"--instance-lease: must be a number of seconds from 1 to 600 (got '%1')"_s.arg(lease);
    QVERIFY2(daemon.standardError().contains(expected), qPrintable(daemon.standardError()));
}

void DaemonClusterTest::threeInstancesOneKilled()
{
    constexpr int EventCount = 10'000;
    constexpr int EventsPerRequest = 50;
    constexpr int Victim = 1;

    const QString store = m_server->createDatabase(u"three_instances"_s);
    QVERIFY2(!store.isEmpty(), qPrintable(m_server->errorText()));
    // Answers take 200 ms: deliveries cannot keep up with the publishes, so every instance holds
    // a backlog, and requests in flight, when one of them is killed.
    ScriptedReceiver receiver;
    receiver.setDefaultAction(ReceiverAction::respondAfter(200, 200));
    QVERIFY(receiver.listen());
    QVERIFY(makeWorkspaces(3, receiver.url()));

    std::vector<std::unique_ptr<DaemonProcess>> daemons;
    for (int i = 0; i < 3; ++i) {
        daemons.push_back(daemonOn(i, store, 1));
        QVERIFY2(daemons.back()->start(), qPrintable(daemons.back()->standardError()));
    }
    QTRY_VERIFY2(daemons.front()->standardError().contains(u"of the shared store"_s),
                 qPrintable(daemons.front()->standardError()));
    QString victimInstance;
    QVERIFY(m_server->execute(store,
                              "SELECT id FROM instances WHERE process_id = "
                                  + QByteArray::number(daemons[Victim]->processId()),
                              &victimInstance));
    QVERIFY(!victimInstance.isEmpty());

    // Round robin over the live instances; the victim dies halfway through.
    QSet<QString> accepted;
    QSet<QString> heldByVictim; // its unfinished deliveries' events when it died
    int next = 0;
    for (int first = 0; first < EventCount; first += EventsPerRequest) {
        if (first == EventCount / 2) {
            daemons[Victim]->kill();
            QCOMPARE(daemons[Victim]->exitStatus(), QProcess::CrashExit);
            // Read at once: nobody may take them over before the lease (LeaseSeconds) runs out.
            QString held;
            QVERIFY(m_server->execute(
                store,
                "SELECT string_agg(e.event_id, ',') FROM deliveries d JOIN events e"
                " ON e.seq = d.event_seq WHERE d.owner = "
                    + victimInstance.toUtf8(),
                &held));
            const QStringList heldIds = held.split(u',', Qt::SkipEmptyParts);
            heldByVictim = QSet<QString>(heldIds.cbegin(), heldIds.cend());
            QVERIFY2(!heldByVictim.isEmpty(), "the killed instance held no delivery");
        }
        int target = next++ % 3;
        if (target == Victim && !daemons[Victim]->isRunning())
            target = (target + 1) % 3;
        const QStringList ids = publishIds(first, EventsPerRequest);
        const HttpResult result = daemons[size_t(target)]->publish(u"orders"_s, eventBatch(ids));
        QVERIFY2(result.status == 200,
                 qPrintable(u"publish of %1.. to instance %2: HTTP %3 %4"_s.arg(first)
                                .arg(target)
                                .arg(result.status)
                                .arg(QString::fromUtf8(result.body))));
        for (const QString &id : ids)
            accepted.insert(id);
    }
    QCOMPARE(accepted.size(), EventCount);

    // Every accepted event arrives, the killed instance's too (taken over once its lease ran out).
    QTRY_VERIFY2_WITH_TIMEOUT(receiver.acceptedEventIds().contains(accepted),
                              qPrintable(u"%1 of %2 accepted events delivered"_s
                                             .arg((receiver.acceptedEventIds() & accepted).size())
                                             .arg(EventCount)),
                              240'000);
    QString left;
    QTRY_VERIFY_WITH_TIMEOUT(m_server->execute(store, "SELECT count(*) FROM deliveries", &left)
                                 && left == u"0"_s,
                             60'000);

    // Duplicates: only events whose delivery the killed instance held unfinished, and at most
    // what it can have sent without recording the outcome: a request in each of its slots, and
    // in each slot one answered request whose success the group commit had not written yet (the
    // next request of a slot is answered 200 ms later, after the commit). Nothing is delivered
    // twice by two live instances.
    const QHash<QString, int> counts = receivedCounts(receiver);
    QStringList duplicates;
    for (auto it = counts.cbegin(); it != counts.cend(); ++it) {
        if (it.value() > 1)
            duplicates.append(it.key());
    }
    for (const QString &id : std::as_const(duplicates))
        QVERIFY2(heldByVictim.contains(id), qPrintable(u"%1 delivered twice"_s.arg(id)));
    QVERIFY2(duplicates.size() <= 2 * RequestSlots * EventsPerBatch,
             qPrintable(u"%1 duplicates"_s.arg(duplicates.size())));
    qInfo("killed instance held %lld deliveries; %lld events delivered twice; %lld requests",
          qint64(heldByVictim.size()), qint64(duplicates.size()), qint64(receiver.requestCount()));

    // Each attempt names the instance that made it; the survivors made the taken-over ones.
    QString answer;
    QVERIFY(m_server->execute(store, "SELECT count(*) FROM attempt_log WHERE instance IS NULL",
                              &answer));
    QCOMPARE(answer, u"0"_s);
    QVERIFY(m_server->execute(store, "SELECT count(DISTINCT instance) FROM attempt_log", &answer));
    QVERIFY2(answer.toInt() >= 2, qPrintable(answer));

    for (int i = 0; i < 3; ++i) {
        if (i != Victim)
            QVERIFY2(daemons[size_t(i)]->terminate(),
                     qPrintable(daemons[size_t(i)]->standardError().right(4000)));
    }
    // A clean stop leaves no instance behind; the killed one's row stays (dead).
    QVERIFY(m_server->execute(store, "SELECT count(*) FROM instances", &answer));
    QCOMPARE(answer, u"1"_s);
}

void DaemonClusterTest::restartOfAllInstancesLosesNothing()
{
    constexpr int EventCount = 1500;
    constexpr int EventsPerRequest = 50;

    const QString store = m_server->createDatabase(u"restart_all"_s);
    QVERIFY2(!store.isEmpty(), qPrintable(m_server->errorText()));
    // Every attempt fails until every instance is gone: all deliveries are retrying then.
    ScriptedReceiver receiver;
    receiver.setDefaultAction(ReceiverAction::respond(503));
    QVERIFY(receiver.listen());
    QVERIFY(makeWorkspaces(3, receiver.url()));

    QSet<QString> accepted;
    {
        std::vector<std::unique_ptr<DaemonProcess>> daemons;
        for (int i = 0; i < 3; ++i) {
            daemons.push_back(daemonOn(i, store, 100));
            QVERIFY2(daemons.back()->start(), qPrintable(daemons.back()->standardError()));
        }
        for (int first = 0, next = 0; first < EventCount; first += EventsPerRequest, ++next) {
            const QStringList ids = publishIds(first, EventsPerRequest);
            const HttpResult result
                = daemons[size_t(next % 3)]->publish(u"orders"_s, eventBatch(ids));
            QVERIFY2(result.status == 200, qPrintable(result.networkError));
            for (const QString &id : ids)
                accepted.insert(id);
        }
        QTRY_VERIFY_WITH_TIMEOUT(receiver.requestCount() >= 30, 60'000);
        // Two die, one stops cleanly (and gives its deliveries up at once).
        daemons[0]->kill();
        daemons[1]->kill();
        QVERIFY2(daemons[2]->terminate(), qPrintable(daemons[2]->standardError().right(4000)));
    }
    QString pending;
    QVERIFY(m_server->execute(store, "SELECT count(*) FROM deliveries", &pending));
    QVERIFY2(pending.toInt() > 0, qPrintable(pending));

    receiver.setDefaultAction(ReceiverAction::respond(200));
    std::vector<std::unique_ptr<DaemonProcess>> daemons;
    for (int i = 0; i < 3; ++i) {
        // Engine time runs fast: the retry waits and probation pass in well under a second.
        daemons.push_back(daemonOn(i, store, 1000));
        QVERIFY2(daemons.back()->start(), qPrintable(daemons.back()->standardError()));
    }
    QTRY_VERIFY2_WITH_TIMEOUT(receiver.acceptedEventIds().contains(accepted),
                              qPrintable(u"%1 of %2 accepted events delivered"_s
                                             .arg((receiver.acceptedEventIds() & accepted).size())
                                             .arg(EventCount)),
                              240'000);
    QTRY_VERIFY_WITH_TIMEOUT(m_server->execute(store, "SELECT count(*) FROM deliveries", &pending)
                                 && pending == u"0"_s,
                             60'000);
    QVERIFY(m_server->execute(store, "SELECT count(*) FROM events", &pending));
    QCOMPARE(pending, u"0"_s);
    for (const auto &daemon : daemons)
        QVERIFY2(daemon->terminate(), qPrintable(daemon->standardError().right(4000)));

    // The running totals that six instances appended to, three at a time: every accepted event
    // published and matched exactly once, and delivered at least once.
    const auto total = [&](int counter) {
        QString value;
        const bool read = m_server->execute(
            store,
            "SELECT coalesce(sum(value), 0) FROM (SELECT counter, value FROM totals UNION ALL"
            " SELECT counter, value FROM total_changes) counted WHERE counter = "
                + QByteArray::number(counter),
            &value);
        return read ? value.toLongLong() : -1;
    };
    QCOMPARE(total(int(EventDesk::TotalCounter::Published)), qint64(EventCount));
    QCOMPARE(total(int(EventDesk::TotalCounter::Matched)), qint64(EventCount));
    QVERIFY2(total(int(EventDesk::TotalCounter::Delivered)) >= EventCount,
             qPrintable(QString::number(total(int(EventDesk::TotalCounter::Delivered)))));
}

void DaemonClusterTest::probationIsSharedByAllInstances()
{
    constexpr int Threshold = 3;
    constexpr int InProbation = 1; // ProbationTracker::State
    constexpr int ProbationOutcome = 10; // DeliveryOutcome::Probation

    const QString store = m_server->createDatabase(u"shared_probation"_s);
    QVERIFY2(!store.isEmpty(), qPrintable(m_server->errorText()));
    // 401: a no-retry class of outcome. SPEC P3: during its probation, due deliveries end without
    // an attempt (dropped here: no dead-letter destination), lastDeliveryOutcome Probation.
    ScriptedReceiver receiver;
    receiver.setDefaultAction(ReceiverAction::respond(401));
    QVERIFY(receiver.listen());
    QVERIFY(makeWorkspaces(2, receiver.url(), QString(), Threshold));
    auto first = daemonOn(0, store, 1);
    auto second = daemonOn(1, store, 1);
    QVERIFY2(first->start(), qPrintable(first->standardError()));
    QVERIFY2(second->start(), qPrintable(second->standardError()));

    // The first instance sees the endpoint fail Threshold times in a row: probation (5 min).
    for (int i = 0; i < Threshold; ++i) {
        const QString id = u"a-%1"_s.arg(i);
        QCOMPARE(first->publish(u"orders"_s, eventBatch({id})).status, 200);
        QTRY_VERIFY_WITH_TIMEOUT(receiver.receivedEventIds().contains(id), 30'000);
    }
    QString state;
    QTRY_VERIFY_WITH_TIMEOUT(m_server->execute(store, "SELECT state FROM probation", &state)
                                 && state.toInt() == InProbation,
                             30'000);
    // The second instance reads it on its next tick (a tenth of the lease).
    QTRY_VERIFY2_WITH_TIMEOUT(
        second->standardError().contains(u"probation of orders / sub-one from instance"_s),
        qPrintable(second->standardError()), 30'000);

    // Events published to the second instance are not attempted: they end as P3 says.
    QStringList ids;
    for (int i = 0; i < 5; ++i)
        ids.append(u"b-%1"_s.arg(i));
    QCOMPARE(second->publish(u"orders"_s, eventBatch(ids)).status, 200);
    QString ended;
    QTRY_VERIFY_WITH_TIMEOUT(
        m_server->execute(
            store,
            "SELECT count(*) FROM dropped WHERE event_id LIKE 'b-%' AND last_outcome = "
                + QByteArray::number(ProbationOutcome),
            &ended)
            && ended == u"5"_s,
        30'000);
    for (const QString &id : std::as_const(ids))
        QVERIFY2(!receiver.receivedEventIds().contains(id), qPrintable(id));
    QCOMPARE(receiver.requestCount(), qsizetype(Threshold));
    QVERIFY(first->terminate());
    QVERIFY(second->terminate());
}

void DaemonClusterTest::pausedInstanceStepsBack()
{
    constexpr int EventCount = 20;

    const QString store = m_server->createDatabase(u"paused_instance"_s);
    QVERIFY2(!store.isEmpty(), qPrintable(m_server->errorText()));
    ScriptedReceiver receiver;
    receiver.setDefaultAction(ReceiverAction::respond(500));
    QVERIFY(receiver.listen());
    QVERIFY(makeWorkspaces(2, receiver.url()));
    auto paused = daemonOn(0, store, 1);
    auto other = daemonOn(1, store, 1);
    QVERIFY2(paused->start(), qPrintable(paused->standardError()));
    QVERIFY2(other->start(), qPrintable(other->standardError()));

    // The first attempts fail (500): the deliveries wait for their retry (R3, R4: 10 s) in the
    // instance that accepted them, which then stops (SIGSTOP) for longer than its lease.
    const QStringList ids = publishIds(0, EventCount);
    QCOMPARE(paused->publish(u"orders"_s, eventBatch(ids)).status, 200);
    QTRY_VERIFY_WITH_TIMEOUT(
        receiver.receivedEventIds().contains(QSet<QString>(ids.cbegin(), ids.cend())), 30'000);
    // Stopped once the failed attempts are committed (no transaction of it left open).
    QString retrying;
    QTRY_VERIFY_WITH_TIMEOUT(
        m_server->execute(store, "SELECT count(*) FROM deliveries WHERE attempts = 1", &retrying)
            && retrying.toInt() == EventCount,
        30'000);
    QCOMPARE(::kill(pid_t(paused->processId()), SIGSTOP), 0);
    receiver.setDefaultAction(ReceiverAction::respond(200));

    // The other instance takes them over once the lease ran out, and delivers them when due.
    QTRY_VERIFY_WITH_TIMEOUT(
        receiver.acceptedEventIds().contains(QSet<QString>(ids.cbegin(), ids.cend())), 120'000);
    QVERIFY(other->standardError().contains(u"took over"_s));

    // Back from the pause, the instance finds its lease lost, forgets what it held (instead of
    // sending it again) and registers anew; it accepts and delivers publishes as before.
    QCOMPARE(::kill(pid_t(paused->processId()), SIGCONT), 0);
    QTRY_VERIFY2_WITH_TIMEOUT(paused->standardError().contains(u"registered again as instance"_s),
                              qPrintable(paused->standardError()), 60'000);
    QVERIFY(paused->standardError().contains(u"lost its lease"_s));
    const QStringList later = publishIds(EventCount, 5);
    QCOMPARE(paused->publish(u"orders"_s, eventBatch(later)).status, 200);
    QTRY_VERIFY_WITH_TIMEOUT(
        receiver.acceptedEventIds().contains(QSet<QString>(later.cbegin(), later.cend())), 60'000);
    QString left;
    QTRY_VERIFY_WITH_TIMEOUT(m_server->execute(store, "SELECT count(*) FROM deliveries", &left)
                                 && left == u"0"_s,
                             60'000);

    // Each event was accepted once: the paused instance sent nothing it no longer owned.
    QHash<QString, int> accepted;
    for (const ReceivedRequest &request : receiver.requests()) {
        if (request.answeredStatus == 200) {
            for (const QString &id : request.eventIds())
                ++accepted[id];
        }
    }
    for (const QString &id : ids + later)
        QVERIFY2(accepted.value(id) == 1,
                 qPrintable(u"%1 accepted %2 times"_s.arg(id).arg(accepted.value(id))));
    QVERIFY(paused->terminate());
    QVERIFY(other->terminate());
}

QTEST_GUILESS_MAIN(DaemonClusterTest)
#include "tst_daemon_cluster.moc"
