// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// One owner per workspace (docs/user-guide.md): the lock an engine takes before it opens a
// workspace's store. "Another engine" is this process (a second WorkspaceLock) or a real child
// process, eventdesk_lock_holder, which the tests kill with SIGKILL to leave a stale lock behind.

#include "LockHolder.h"
#include "workspace/WorkspaceFolder.h"
#include "workspace/WorkspaceLock.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSysInfo>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using EventDesk::Testing::LockHolder;

namespace {

// The pid written in the lock file (its first line), or 0.
qint64 pidInLockFile(const QString &directory)
{
    QFile file(WorkspaceFolder::lockFile(directory));
    if (!file.open(QIODevice::ReadOnly))
        return 0;
    return file.readLine().trimmed().toLongLong();
}

// "2026-05-04T09:12:31+02:00" ("Z" in UTC).
QString isoWithOffset(const QDateTime &time)
{
    const QDateTime local = time.toLocalTime();
    return local.toOffsetFromUtc(local.offsetFromUtc()).toString(Qt::ISODate);
}

QString thisExecutableName()
{
    return QFileInfo(QCoreApplication::applicationFilePath()).fileName();
}

} // namespace

class tst_WorkspaceLock : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void acquireWritesTheOwner();
    void secondAcquireIsRefusedWithTheOwnersDetails();
    void releaseLetsTheNextEngineIn();
    void destructorReleases();
    void missingFolderIsCreated();
    void heldByAnotherProcess();
    void staleLockOfAKilledProcessIsTakenOver();
    void holderThatExitsCleanlyRemovesItsLock();
    void lockOfAnotherHostIsNeverTakenOver();
};

void tst_WorkspaceLock::initTestCase()
{
    QVERIFY2(QFileInfo(LockHolder::executablePath()).isExecutable(),
             qPrintable(LockHolder::executablePath()));
}

void tst_WorkspaceLock::acquireWritesTheOwner()
{
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    QVERIFY(!WorkspaceLock::currentOwner(directory.path()));

    WorkspaceLock lock(directory.path());
    const auto taken = lock.acquire();
    QVERIFY2(taken, qPrintable(taken.error()));
    QVERIFY(lock.isHeld());
    QVERIFY(!lock.owner());
    QCOMPARE(WorkspaceFolder::lockFile(directory.path()),
             QDir(directory.path()).filePath(u"eventdesk.lock"_s));
    QVERIFY(QFileInfo::exists(WorkspaceFolder::lockFile(directory.path())));
    QCOMPARE(pidInLockFile(directory.path()), QCoreApplication::applicationPid());

    const std::optional<WorkspaceOwner> owner = WorkspaceLock::currentOwner(directory.path());
    QVERIFY(owner);
    QCOMPARE(owner->pid, QCoreApplication::applicationPid());
    QCOMPARE(owner->application, thisExecutableName());
    QCOMPARE(owner->hostName, QSysInfo::machineHostName());
    QVERIFY(owner->onThisHost);
    QVERIFY(owner->since.isValid());
    // Asking who owns it does not take it away.
    QVERIFY(lock.isHeld());
    QVERIFY(QFileInfo::exists(WorkspaceFolder::lockFile(directory.path())));
}

void tst_WorkspaceLock::secondAcquireIsRefusedWithTheOwnersDetails()
{
    QTemporaryDir directory;
    WorkspaceLock first(directory.path());
    QVERIFY(first.acquire());

    // Another engine of the same process is refused as one of another process would be.
    WorkspaceLock second(directory.path());
    const auto refused = second.acquire();
    QVERIFY(!refused);
    QVERIFY(!second.isHeld());
    QVERIFY(second.owner());
    const WorkspaceOwner &owner = *second.owner();
    QCOMPARE(owner.pid, QCoreApplication::applicationPid());
    QCOMPARE(owner.application, thisExecutableName());
    QCOMPARE(owner.hostName, QSysInfo::machineHostName());
    QVERIFY(owner.since.isValid());

    const QString expected = u"workspace %1 is in use by %2 pid %3 on %4 since %5"_s.arg(
        QDir::toNativeSeparators(QDir(directory.path()).absolutePath()), thisExecutableName(),
        QString::number(QCoreApplication::applicationPid()), QSysInfo::machineHostName(),
        isoWithOffset(owner.since));
    QCOMPARE(refused.error(), expected);
    QVERIFY(!refused.error().contains(u'\n'));
    // The refused engine changed nothing: the first one still holds the workspace.
    QVERIFY(first.isHeld());
    QCOMPARE(pidInLockFile(directory.path()), QCoreApplication::applicationPid());
}

void tst_WorkspaceLock::releaseLetsTheNextEngineIn()
{
    QTemporaryDir directory;
    WorkspaceLock first(directory.path());
    QVERIFY(first.acquire());
    WorkspaceLock second(directory.path());
    QVERIFY(!second.acquire());

    first.release();
    QVERIFY(!first.isHeld());
    QVERIFY(!QFileInfo::exists(WorkspaceFolder::lockFile(directory.path())));
    QVERIFY(!WorkspaceLock::currentOwner(directory.path()));

    const auto taken = second.acquire();
    QVERIFY2(taken, qPrintable(taken.error()));
    QVERIFY(!second.owner());
    QVERIFY(!first.acquire());
}

void tst_WorkspaceLock::destructorReleases()
{
    QTemporaryDir directory;
    {
        WorkspaceLock lock(directory.path());
        QVERIFY(lock.acquire());
    }
    QVERIFY(!QFileInfo::exists(WorkspaceFolder::lockFile(directory.path())));
    WorkspaceLock again(directory.path());
    QVERIFY(again.acquire());
}

void tst_WorkspaceLock::missingFolderIsCreated()
{
    QTemporaryDir parent;
    const QString directory = QDir(parent.path()).filePath(u"new/workspace"_s);
    WorkspaceLock lock(directory);
    QVERIFY(lock.acquire());
    QVERIFY(QFileInfo::exists(WorkspaceFolder::lockFile(directory)));
}

void tst_WorkspaceLock::heldByAnotherProcess()
{
    QTemporaryDir directory;
    LockHolder holder;
    QVERIFY2(holder.start(directory.path()), qPrintable(holder.errorText()));

    WorkspaceLock lock(directory.path());
    const auto refused = lock.acquire();
    QVERIFY(!refused);
    QVERIFY(lock.owner());
    QCOMPARE(lock.owner()->pid, holder.pid());
    QCOMPARE(lock.owner()->application, LockHolder::applicationName());
    QVERIFY(lock.owner()->onThisHost);
    QVERIFY2(refused.error().contains(u"is in use by %1 pid %2 on %3 since "_s.arg(
                 LockHolder::applicationName(), QString::number(holder.pid()),
                 QSysInfo::machineHostName())),
             qPrintable(refused.error()));

    const std::optional<WorkspaceOwner> owner = WorkspaceLock::currentOwner(directory.path());
    QVERIFY(owner);
    QCOMPARE(owner->pid, holder.pid());
}

void tst_WorkspaceLock::staleLockOfAKilledProcessIsTakenOver()
{
    QTemporaryDir directory;
    LockHolder holder;
    QVERIFY2(holder.start(directory.path()), qPrintable(holder.errorText()));
    const qint64 holderPid = holder.pid();
    holder.kill();
    // The holder had no chance to clean up: its lock file is still there.
    QCOMPARE(pidInLockFile(directory.path()), holderPid);

    WorkspaceLock lock(directory.path());
    const auto taken = lock.acquire();
    QVERIFY2(taken, qPrintable(taken.error()));
    QVERIFY(!lock.owner());
    QCOMPARE(pidInLockFile(directory.path()), QCoreApplication::applicationPid());
}

void tst_WorkspaceLock::holderThatExitsCleanlyRemovesItsLock()
{
    QTemporaryDir directory;
    LockHolder holder;
    QVERIFY2(holder.start(directory.path()), qPrintable(holder.errorText()));
    QVERIFY(WorkspaceLock::currentOwner(directory.path()));
    QVERIFY(holder.release());
    QVERIFY(!QFileInfo::exists(WorkspaceFolder::lockFile(directory.path())));
    QVERIFY(!WorkspaceLock::currentOwner(directory.path()));

    // And a stale lock is gone once currentOwner() has looked at it.
    LockHolder killed;
    QVERIFY2(killed.start(directory.path()), qPrintable(killed.errorText()));
    killed.kill();
    QVERIFY(QFileInfo::exists(WorkspaceFolder::lockFile(directory.path())));
    QVERIFY(!WorkspaceLock::currentOwner(directory.path()));
    QVERIFY(!QFileInfo::exists(WorkspaceFolder::lockFile(directory.path())));
}

void tst_WorkspaceLock::lockOfAnotherHostIsNeverTakenOver()
{
    QTemporaryDir directory;
    // As QLockFile writes it on another machine: pid, executable, host, machine id, boot id. That
    // pid may well run here too; it must not matter.
    QFile file(WorkspaceFolder::lockFile(directory.path()));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("4242\neventdeskd\nbuild-agent-7.example\n0123456789abcdef0123456789abcdef\n"
               "fedcba98-7654-3210-fedc-ba9876543210\n");
    file.close();

    WorkspaceLock lock(directory.path());
    const auto refused = lock.acquire();
    QVERIFY(!refused);
    QVERIFY(lock.owner());
    QCOMPARE(lock.owner()->pid, 4242);
    QCOMPARE(lock.owner()->application, u"eventdeskd"_s);
    QCOMPARE(lock.owner()->hostName, u"build-agent-7.example"_s);
    QVERIFY(!lock.owner()->onThisHost);
    const QString lockFile = QDir::toNativeSeparators(WorkspaceFolder::lockFile(directory.path()));
    QVERIFY2(refused.error().contains(
                 u"is in use by eventdeskd pid 4242 on build-agent-7.example since "_s),
             qPrintable(refused.error()));
    QVERIFY2(refused.error().contains(u"delete %1"_s.arg(lockFile)), qPrintable(refused.error()));
    QVERIFY(!refused.error().contains(u'\n'));

    const std::optional<WorkspaceOwner> owner = WorkspaceLock::currentOwner(directory.path());
    QVERIFY(owner);
    QCOMPARE(owner->hostName, u"build-agent-7.example"_s);
    QVERIFY(QFileInfo::exists(WorkspaceFolder::lockFile(directory.path())));

    // Once the user has removed it, the workspace is free.
    QVERIFY(QFile::remove(WorkspaceFolder::lockFile(directory.path())));
    QVERIFY(lock.acquire());
}

QTEST_GUILESS_MAIN(tst_WorkspaceLock)
#include "tst_workspacelock.moc"
