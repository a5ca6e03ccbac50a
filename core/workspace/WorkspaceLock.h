// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../Expected.h"

#include <QDateTime>
#include <QString>

#include <memory>
#include <optional>

class QLockFile;

namespace EventDesk {

// The engine that holds a workspace, as its lock file names it.
struct WorkspaceOwner
{
    qint64 pid = 0;
    QString application; // the owner's executable: eventdeskd, eventdesk, ...
    QString hostName;
    // When it took the workspace (the lock file was written then); invalid if unknown.
    QDateTime since;
    bool onThisHost = true;

    // "eventdeskd pid 4242 on build-7 since 2026-05-01T10:32:05+02:00"
    QString describe() const;
};

// One owner per workspace (docs/user-guide.md "One owner per workspace"): an engine that opens a
// workspace takes this lock first, before the store hands it the unfinished deliveries, and keeps
// it until it has shut down; a second engine (eventdeskd or the desktop app, in this process or
// another) is refused with the owner's details instead of delivering the same events again.
//
// The lock is a QLockFile, eventdesk.lock in the workspace folder: the owner's pid, executable
// name and host name (plus the machine and boot ids QLockFile uses), written once when the lock
// is taken, so the file's modification time says since when. It is removed on release.
//
// A lock whose owner is gone is taken over: on the same host when its process no longer runs (or
// the pid now belongs to another program, or the machine rebooted since). A lock written on
// another host (a workspace on a shared folder) is never taken over: its process cannot be
// checked from here, and the lock's age says nothing, since an engine holds its workspace for as
// long as it runs. The refusal says so; removing the file is the user's decision.
class WorkspaceLock final
{
public:
    explicit WorkspaceLock(const QString &directory);
    ~WorkspaceLock(); // releases
    Q_DISABLE_COPY_MOVE(WorkspaceLock)

    // Takes the workspace (creating its folder if it is missing). Refused when another engine
    // holds it: the error is one line, "workspace DIR is in use by APP pid N on HOST since TIME",
    // and owner() names that engine. Also an error when the lock file cannot be written.
    Expected<void> acquire();
    // Removes the lock file, if this object holds it.
    void release();
    bool isHeld() const;

    // After acquire() was refused because another engine holds the workspace: that engine.
    const std::optional<WorkspaceOwner> &owner() const { return m_owner; }
    const QString &directory() const { return m_directory; }

    // Who holds the workspace in directory now, without keeping it: nobody when the lock file is
    // missing, or was left by a process of this host that is gone (such a lock file is removed).
    static std::optional<WorkspaceOwner> currentOwner(const QString &directory);
    // "workspace DIR is in use by ..." for the owner of the workspace in directory.
    static QString inUseMessage(const QString &directory, const WorkspaceOwner &owner);

private:
    QString m_directory;
    std::unique_ptr<QLockFile> m_lock;
    std::optional<WorkspaceOwner> m_owner;
};

} // namespace EventDesk
