// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QProcess>
#include <QString>

namespace EventDesk::Testing {

// Another process that owns a workspace: eventdesk_lock_holder (EVENTDESK_LOCK_HOLDER_PATH), which
// takes the workspace's lock as an engine does and holds it until released or killed.
class LockHolder final
{
public:
    LockHolder() = default;
    ~LockHolder(); // kills a holder that still runs
    Q_DISABLE_COPY_MOVE(LockHolder)

    static QString executablePath();
    // "eventdesk_lock_holder": the owner's name in the lock file (its executable's).
    static QString applicationName();

    // Starts the holder on directory and waits until it holds the lock. False (errorText() says
    // why) if it could not take it.
    bool start(const QString &directory);
    qint64 pid() const { return m_pid; }
    QString errorText() const { return m_error; }

    // A clean exit: the holder releases the lock (it exits when its standard input closes).
    bool release();
    // kill -9: the lock file stays behind, stale.
    void kill();

private:
    QProcess m_process;
    qint64 m_pid = 0;
    QString m_error;
};

} // namespace EventDesk::Testing
