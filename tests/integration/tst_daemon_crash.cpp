// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// SPEC D1 crash test: every event accepted with 200 survives `kill -9` of eventdeskd and is
// delivered at least once after a restart on the same workspace.

#include "DaemonProcess.h"
#include "ScriptedReceiver.h"

#include <QElapsedTimer>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace EventDesk::Testing;

class DaemonCrashTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void d1_acceptedEventsSurviveKillAndAreDeliveredAfterRestart();
};

void DaemonCrashTest::initTestCase()
{
    QVERIFY2(QFileInfo(DaemonProcess::executablePath()).isExecutable(),
             qPrintable(DaemonProcess::executablePath()));
}

void DaemonCrashTest::d1_acceptedEventsSurviveKillAndAreDeliveredAfterRestart()
{
    constexpr int EventCount = 10'000;
    constexpr int EventsPerRequest = 500;

    QTemporaryDir workspace;
    QVERIFY(workspace.isValid());
    // The receiver is down while the events are published: nothing can be delivered before the
    // crash, so every accepted event must come from the store after the restart.
    const quint16 port = closedLoopbackPort();
    QVERIFY(port != 0);
    WorkspaceJson::SubscriptionOptions subscription;
    subscription.endpointUrl = QUrl(u"http://127.0.0.1:%1/hook"_s.arg(port));
    QVERIFY(WorkspaceJson::write(workspace.path(),
                                 WorkspaceJson::workspace({WorkspaceJson::topic(
                                     u"orders"_s, {WorkspaceJson::subscription(subscription)})})));

    QSet<QString> accepted;
    {
        DaemonProcess daemon(workspace.path());
        QVERIFY2(daemon.start(), qPrintable(daemon.standardError()));
        for (int first = 0; first < EventCount; first += EventsPerRequest) {
            QStringList ids;
            for (int index = first; index < first + EventsPerRequest; ++index)
                ids.append(u"crash-%1"_s.arg(index, 5, 10, QLatin1Char('0')));
            const HttpResult result = daemon.publish(u"orders"_s, eventBatch(ids));
            QVERIFY2(result.status == 200,
                     qPrintable(u"publish of %1..: HTTP %2 %3 %4"_s.arg(first).arg(result.status).arg(
                         QString::fromUtf8(result.body), result.networkError)));
            for (const QString &id : std::as_const(ids))
                accepted.insert(id);
        }
        // Right after the last 200: no chance for a clean shutdown.
        daemon.kill();
        QCOMPARE(daemon.exitStatus(), QProcess::CrashExit);
    }
    QCOMPARE(accepted.size(), EventCount);

    ScriptedReceiver receiver;
    QSet<QString> received;
    connect(&receiver, &ScriptedReceiver::requestReceived, this, [&receiver, &received](qsizetype index) {
        const QStringList ids = receiver.request(index).eventIds();
        for (const QString &id : ids)
            received.insert(id);
    });
    QVERIFY(receiver.listen(port));

    DaemonProcess daemon(workspace.path());
    // Engine time runs fast, so the retry waits and any probation that the refused connections
    // caused before the crash pass in well under a second of real time.
    daemon.setTimeScale(1000);
    QVERIFY2(daemon.start(), qPrintable(daemon.standardError()));
    QElapsedTimer elapsed;
    elapsed.start();
    QTRY_VERIFY2_WITH_TIMEOUT(received.contains(accepted),
                              qPrintable(u"%1 of %2 accepted events received"_s.arg(
                                  (received & accepted).size()).arg(accepted.size())),
                              240'000);
    qInfo("all %d events redelivered %lld ms after the restart, in %lld requests", EventCount,
          elapsed.elapsed(), qint64(receiver.requestCount()));
    QVERIFY(received.contains(accepted));
    QVERIFY2(daemon.terminate(), qPrintable(daemon.standardError().right(4000)));
}

QTEST_GUILESS_MAIN(DaemonCrashTest)
#include "tst_daemon_crash.moc"
