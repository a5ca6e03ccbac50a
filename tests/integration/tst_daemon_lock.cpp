// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// One owner per workspace (docs/user-guide.md): a second eventdeskd on a workspace that one runs
// exits with the owner's details instead of delivering the same events; after kill -9 of the owner,
// a new eventdeskd takes the stale lock over and delivers what was pending.

#include "DaemonProcess.h"
#include "ScriptedReceiver.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSet>
#include <QSysInfo>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace EventDesk::Testing;

namespace {

constexpr int WorkspaceInUseExitCode = 3;

QString lockFile(const QString &workspace)
{
    return QDir(workspace).filePath(u"eventdesk.lock"_s);
}

qint64 pidInLockFile(const QString &workspace)
{
    QFile file(lockFile(workspace));
    if (!file.open(QIODevice::ReadOnly))
        return 0;
    return file.readLine().trimmed().toLongLong();
}

} // namespace

class DaemonLockTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void secondDaemonIsRefusedAndTheNextTakesOverAfterKill();
};

void DaemonLockTest::initTestCase()
{
    QVERIFY2(QFileInfo(DaemonProcess::executablePath()).isExecutable(),
             qPrintable(DaemonProcess::executablePath()));
}

void DaemonLockTest::secondDaemonIsRefusedAndTheNextTakesOverAfterKill()
{
    constexpr int EventCount = 50;

    QTemporaryDir workspace;
    QVERIFY(workspace.isValid());
    // Nothing can be delivered while the first daemon runs: every event stays pending in the store.
    const quint16 port = closedLoopbackPort();
    QVERIFY(port != 0);
    WorkspaceJson::SubscriptionOptions subscription;
    subscription.endpointUrl = QUrl(u"http://127.0.0.1:%1/hook"_s.arg(port));
    QVERIFY(WorkspaceJson::write(workspace.path(),
                                 WorkspaceJson::workspace({WorkspaceJson::topic(
                                     u"orders"_s, {WorkspaceJson::subscription(subscription)})})));

    QSet<QString> accepted;
    DaemonProcess owner(workspace.path());
    QVERIFY2(owner.start(), qPrintable(owner.standardError()));
    QCOMPARE(pidInLockFile(workspace.path()), owner.processId());
    QStringList ids;
    for (int index = 0; index < EventCount; ++index)
        ids.append(u"locked-%1"_s.arg(index, 3, 10, QLatin1Char('0')));
    const HttpResult published = owner.publish(u"orders"_s, eventBatch(ids));
    QVERIFY2(published.status == 200, published.body.constData());
    for (const QString &id : std::as_const(ids))
        accepted.insert(id);

    // A second daemon on the same workspace: refused before it touches the store.
    DaemonProcess second(workspace.path());
    QVERIFY2(second.runExpectingExit(), qPrintable(second.standardOutput() + second.standardError()));
    QCOMPARE(second.exitStatus(), QProcess::NormalExit);
    QCOMPARE(second.exitCode(), WorkspaceInUseExitCode);
    const QString message = second.standardError().trimmed();
    const QRegularExpression expected(
        u"^eventdeskd: workspace %1 is in use by eventdeskd pid %2 on %3 since "
        "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(Z|[+-]\\d\\d:\\d\\d)$"_s.arg(
            QRegularExpression::escape(QDir::toNativeSeparators(QDir(workspace.path()).absolutePath())),
            QString::number(owner.processId()),
            QRegularExpression::escape(QSysInfo::machineHostName())));
    QVERIFY2(expected.match(message).hasMatch(), qPrintable(message));
    // The owner is untouched: it still holds the workspace and answers.
    QVERIFY(owner.isRunning());
    QCOMPARE(pidInLockFile(workspace.path()), owner.processId());
    QCOMPARE(owner.get(owner.baseUrl().resolved(QUrl(u"/metrics"_s))).status, 200);

    // kill -9: the lock file stays behind, naming a process that is gone.
    const qint64 ownerPid = owner.processId();
    owner.kill();
    QCOMPARE(owner.exitStatus(), QProcess::CrashExit);
    QCOMPARE(pidInLockFile(workspace.path()), ownerPid);

    ScriptedReceiver receiver;
    QSet<QString> received;
    connect(&receiver, &ScriptedReceiver::requestReceived, this, [&receiver, &received](qsizetype index) {
        const QStringList eventIds = receiver.request(index).eventIds();
        for (const QString &id : eventIds)
            received.insert(id);
    });
    QVERIFY(receiver.listen(port));

    DaemonProcess next(workspace.path());
    // Engine time runs fast, so the retry waits that the refused connections caused pass at once.
    next.setTimeScale(1000);
    QVERIFY2(next.start(), qPrintable(next.standardError()));
    QCOMPARE(pidInLockFile(workspace.path()), next.processId());
    QTRY_VERIFY2_WITH_TIMEOUT(received.contains(accepted),
                              qPrintable(u"%1 of %2 pending events received"_s.arg(
                                  (received & accepted).size()).arg(accepted.size())),
                              120'000);

    // A clean shutdown gives the workspace back.
    QVERIFY2(next.terminate(), qPrintable(next.standardError().right(4000)));
    QVERIFY(!QFileInfo::exists(lockFile(workspace.path())));
}

QTEST_GUILESS_MAIN(DaemonLockTest)
#include "tst_daemon_lock.moc"
