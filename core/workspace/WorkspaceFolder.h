// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../Expected.h"
#include "../model/Workspace.h"

#include <QString>

namespace EventDesk {

// A workspace on disk (docs/user-guide.md "Workspace"): workspace.json, the store, the local
// dead-letter container folder deadletters/ and, while an engine runs it, the owner's lock.
class WorkspaceFolder final
{
public:
    // The default workspace in the user's application-data folder (both programs open it when no
    // other is named; created with the demo content on first run).
    static QString defaultDirectory();

    static QString workspaceFile(const QString &directory);
    static QString storeFile(const QString &directory);
    static QString deadLetterRoot(const QString &directory);
    // The owner's lock (WorkspaceLock): which engine runs the workspace.
    static QString lockFile(const QString &directory);

    // Opens the workspace in directory. A missing folder or workspace.json is created with the
    // demo content (a topic "demo" whose subscription points at the built-in receiver "demo" on
    // listenBaseUrl). A workspace.json that exists but is malformed or invalid is an error naming
    // the file, the JSON path and the problem; it is never replaced.
    static Expected<Workspace> openOrCreate(const QString &directory, const QString &listenBaseUrl);
    // Reads the workspace.json of directory and changes nothing on disk: a workspace another
    // engine owns, watched by a read-only monitor. A missing file is an error.
    static Expected<Workspace> read(const QString &directory);

    // Creates deadletters/<container>/ for every local dead-letter destination.
    static Expected<void> prepareDeadLetterContainers(const QString &directory,
                                                      const Workspace &workspace);

    static QByteArray defaultWorkspaceJson(const QString &listenBaseUrl);

    // Writes workspace.json atomically (never a half-written file).
    static Expected<void> save(const QString &directory, const Workspace &workspace);
};

} // namespace EventDesk
