// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// eventdeskd --store postgresql://...: the real daemon on a real PostgreSQL server of this test.
// SPEC D1 on the shared store: every event accepted with 200 survives `kill -9` of the daemon
// while its deliveries are failing and retrying, and is delivered after a restart on the same
// store.

#include "DaemonProcess.h"
#include "PostgresServer.h"
#include "ScriptedReceiver.h"

#include <QDir>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace EventDesk::Testing;

class DaemonPostgresTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void badStoreLocationsAreRefused_data();
    void badStoreLocationsAreRefused();
    void d1_eventsSurviveKillOnPostgresStore();

private:
    std::unique_ptr<PostgresServer> m_server;
};

void DaemonPostgresTest::initTestCase()
{
    QVERIFY2(QFileInfo(DaemonProcess::executablePath()).isExecutable(),
             qPrintable(DaemonProcess::executablePath()));
    m_server = std::make_unique<PostgresServer>();
    QVERIFY2(m_server->isRunning(), qPrintable(m_server->errorText()));
}

void DaemonPostgresTest::badStoreLocationsAreRefused_data()
{
    QTest::addColumn<QString>("location");
    QTest::addColumn<QString>("message");
    QTest::newRow("not a URL") << u"/tmp/store.db"_s << u"--store: must be postgresql://"_s;
    QTest::newRow("other database")
        << u"mysql://ed@127.0.0.1/events"_s << u"--store: must be postgresql://"_s;
    QTest::newRow("no server") << u"postgresql://ed:Hidden-Pw@127.0.0.1:1/events"_s
                               << u"postgresql://ed:***@127.0.0.1:1/events"_s;
}

void DaemonPostgresTest::badStoreLocationsAreRefused()
{
    QFETCH(QString, location);
    QFETCH(QString, message);
    QTemporaryDir workspace;
    QVERIFY(workspace.isValid());
    DaemonProcess daemon(workspace.path());
    daemon.setExtraArguments({u"--store"_s, location});
    QVERIFY2(daemon.runExpectingExit(), qPrintable(daemon.standardError()));
    QCOMPARE(daemon.exitCode(), 2);
    QVERIFY2(daemon.standardError().contains(message), qPrintable(daemon.standardError()));
    QVERIFY2(!daemon.standardError().contains(u"Hidden-Pw"_s), qPrintable(daemon.standardError()));
}

void DaemonPostgresTest::d1_eventsSurviveKillOnPostgresStore()
{
    constexpr int EventCount = 600;
    constexpr int EventsPerRequest = 100;

    const QString store = m_server->createDatabase(u"crash"_s);
    QVERIFY2(!store.isEmpty(), qPrintable(m_server->errorText()));
    QTemporaryDir workspace;
    QVERIFY(workspace.isValid());

    // The receiver fails every request until the crash: the deliveries are retrying, with
    // attempts, log rows and probation in the store, when the daemon dies.
    ScriptedReceiver receiver;
    receiver.setDefaultAction(ReceiverAction::respond(503));
    QVERIFY(receiver.listen());
    WorkspaceJson::SubscriptionOptions subscription;
    subscription.endpointUrl = receiver.url();
    subscription.maxEventsPerBatch = 10;
    QVERIFY(WorkspaceJson::write(workspace.path(),
                                 WorkspaceJson::workspace({WorkspaceJson::topic(
                                     u"orders"_s, {WorkspaceJson::subscription(subscription)})})));

    QSet<QString> accepted;
    {
        DaemonProcess daemon(workspace.path());
        daemon.setExtraArguments({u"--store"_s, store});
        daemon.setTimeScale(100);
        QVERIFY2(daemon.start(), qPrintable(daemon.standardError()));
        for (int first = 0; first < EventCount; first += EventsPerRequest) {
            QStringList ids;
            for (int index = first; index < first + EventsPerRequest; ++index)
                ids.append(u"pg-%1"_s.arg(index, 4, 10, QLatin1Char('0')));
            const HttpResult result = daemon.publish(u"orders"_s, eventBatch(ids));
            QVERIFY2(result.status == 200,
                     qPrintable(u"publish of %1..: HTTP %2 %3"_s.arg(first)
                                    .arg(result.status)
                                    .arg(QString::fromUtf8(result.body))));
            for (const QString &id : std::as_const(ids))
                accepted.insert(id);
        }
        // Some attempts failed, so the deliveries are mid-retry.
        QTRY_VERIFY_WITH_TIMEOUT(receiver.requestCount() >= 5, 60'000);
        daemon.kill();
        QCOMPARE(daemon.exitStatus(), QProcess::CrashExit);
    }
    QCOMPARE(accepted.size(), EventCount);
    // The deliveries were in PostgreSQL, not in a workspace file.
    QVERIFY(!QFileInfo::exists(QDir(workspace.path()).filePath(u"eventdesk.db"_s)));
    QString pending;
    QVERIFY(m_server->execute(store, "SELECT count(*) FROM deliveries", &pending));
    QVERIFY2(pending.toInt() > 0, qPrintable(pending));
    const qsizetype failedRequests = receiver.requestCount();

    receiver.setDefaultAction(ReceiverAction::respond(200));
    DaemonProcess daemon(workspace.path());
    daemon.setExtraArguments({u"--store"_s, store});
    // Engine time runs fast: the retry waits and the probation the failures caused pass in well
    // under a second of real time.
    daemon.setTimeScale(1000);
    QVERIFY2(daemon.start(), qPrintable(daemon.standardError()));
    QTRY_VERIFY2_WITH_TIMEOUT(receiver.acceptedEventIds().contains(accepted),
                              qPrintable(u"%1 of %2 accepted events delivered"_s
                                             .arg((receiver.acceptedEventIds() & accepted).size())
                                             .arg(EventCount)),
                              240'000);
    QVERIFY2(daemon.terminate(), qPrintable(daemon.standardError().right(4000)));
    qInfo("%lld failed requests before the kill, %lld requests in all", qint64(failedRequests),
          qint64(receiver.requestCount()));

    // Everything reached its fate and left the store; the delivery log is in the store too.
    QVERIFY(m_server->execute(store, "SELECT count(*) FROM deliveries", &pending));
    QCOMPARE(pending, u"0"_s);
    QVERIFY(m_server->execute(store, "SELECT count(*) FROM events", &pending));
    QCOMPARE(pending, u"0"_s);
    QString attempts;
    QVERIFY(m_server->execute(store, "SELECT count(*) FROM attempt_log WHERE http_status = 200",
                              &attempts));
    QVERIFY2(attempts.toInt() > 0, qPrintable(attempts));
}

QTEST_GUILESS_MAIN(DaemonPostgresTest)
#include "tst_daemon_postgres.moc"
