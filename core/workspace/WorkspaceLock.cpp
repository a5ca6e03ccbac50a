// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "WorkspaceLock.h"

#include "WorkspaceFolder.h"

#include <QDir>
#include <QFileInfo>
#include <QLockFile>
#include <QSysInfo>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

// An engine holds its workspace for as long as it runs: age never makes its lock stale (with
// QLockFile's default of 30 s, a live owner's lock would be taken after half a minute).
constexpr int NeverStale = 0;
// How long acquire() waits for a lock that is taken: currentOwner() holds it for the moment it
// takes to create and remove the file, and an engine starting then must not be refused.
constexpr int AcquireWaitMs = 500;
// Reading the owner can miss it: the file is being written, or was just removed.
constexpr int AcquireAttempts = 3;

// The host name as QLockFile writes it into the file.
QString thisHostName()
{
#ifdef Q_OS_WIN
    return qEnvironmentVariable("COMPUTERNAME");
#else
    return QSysInfo::machineHostName();
#endif
}

std::optional<WorkspaceOwner> readOwner(const QLockFile &lock, const QString &path)
{
    WorkspaceOwner owner;
    if (!lock.getLockInfo(&owner.pid, &owner.hostName, &owner.application))
        return std::nullopt;
    owner.since = QFileInfo(path).lastModified();
    owner.onThisHost = owner.hostName.isEmpty() || owner.hostName == thisHostName();
    return owner;
}

} // namespace

QString WorkspaceOwner::describe() const
{
    QString text = application.isEmpty() ? u"an engine"_s : application;
    if (pid > 0)
        text += u" pid %1"_s.arg(pid);
    if (!hostName.isEmpty())
        text += u" on %1"_s.arg(hostName);
    if (since.isValid()) {
        // With its UTC offset: the reader may be on a host of another time zone.
        const QDateTime local = since.toLocalTime();
        text += u" since %1"_s.arg(
            local.toOffsetFromUtc(local.offsetFromUtc()).toString(Qt::ISODate));
    }
    return text;
}

WorkspaceLock::WorkspaceLock(const QString &directory)
    : m_directory(QDir(directory).absolutePath())
    , m_lock(std::make_unique<QLockFile>(WorkspaceFolder::lockFile(m_directory)))
{
    m_lock->setStaleLockTime(NeverStale);
}

WorkspaceLock::~WorkspaceLock()
{
    release();
}

bool WorkspaceLock::isHeld() const
{
    return m_lock->isLocked();
}

Expected<void> WorkspaceLock::acquire()
{
    m_owner.reset();
    if (isHeld())
        return {};
    if (!QDir().mkpath(m_directory))
        return Error(
            u"cannot create the workspace folder %1"_s.arg(QDir::toNativeSeparators(m_directory)));
    const QString path = WorkspaceFolder::lockFile(m_directory);
    for (int attempt = 0; attempt < AcquireAttempts; ++attempt) {
        if (m_lock->tryLock(AcquireWaitMs))
            return {};
        switch (m_lock->error()) {
        case QLockFile::NoError:
        case QLockFile::LockFailedError:
            break;
        case QLockFile::PermissionError:
            return Error(u"cannot lock workspace %1: no permission to create %2"_s.arg(
                QDir::toNativeSeparators(m_directory), QDir::toNativeSeparators(path)));
        case QLockFile::UnknownError:
            return Error(u"cannot lock workspace %1: cannot write %2"_s.arg(
                QDir::toNativeSeparators(m_directory), QDir::toNativeSeparators(path)));
        }
        if (auto owner = readOwner(*m_lock, path)) {
            m_owner = std::move(owner);
            return Error(inUseMessage(m_directory, *m_owner));
        }
    }
    return Error(
        u"workspace %1 is in use by another engine (its lock file %2 cannot be read)"_s.arg(
            QDir::toNativeSeparators(m_directory), QDir::toNativeSeparators(path)));
}

void WorkspaceLock::release()
{
    m_lock->unlock();
}

std::optional<WorkspaceOwner> WorkspaceLock::currentOwner(const QString &directory)
{
    const QString path = WorkspaceFolder::lockFile(QDir(directory).absolutePath());
    if (!QFileInfo::exists(path))
        return std::nullopt;
    // Taking the lock is the one way to know whether it is stale (QLockFile checks the owner's
    // process, and removes the file when it is gone); it is given back at once.
    QLockFile probe(path);
    probe.setStaleLockTime(NeverStale);
    if (probe.tryLock(0)) {
        probe.unlock();
        return std::nullopt;
    }
    if (probe.error() != QLockFile::LockFailedError)
        return std::nullopt;
    return readOwner(probe, path);
}

QString WorkspaceLock::inUseMessage(const QString &directory, const WorkspaceOwner &owner)
{
    QString message = u"workspace %1 is in use by %2"_s.arg(
        QDir::toNativeSeparators(QDir(directory).absolutePath()), owner.describe());
    if (!owner.onThisHost) {
        message += u"; a lock taken on another host is never taken over: if that engine no longer "
                   "runs, delete %1"_s.arg(QDir::toNativeSeparators(
                       WorkspaceFolder::lockFile(QDir(directory).absolutePath())));
    }
    return message;
}

} // namespace EventDesk
