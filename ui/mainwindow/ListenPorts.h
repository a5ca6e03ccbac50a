// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "host/ListenAddress.h"

#include <QHash>
#include <QString>

#include <optional>

class QWidget;

namespace EventDesk::Ui {

// docs/user-guide.md "Listen port": the port a workspace's topic endpoint and test receivers listen
// on.
//   - The usual one is --listen's (default 127.0.0.1:5170).
//   - Workspace ▸ Listen On… chooses another for one workspace; the choice is remembered in the
//     app's settings by workspace folder and used at every later start, unless --listen is
//     given on the command line (which then wins). Choosing the usual port forgets the choice.
//   - When the port is taken as the workspace opens (another EventDesk, an emulator), the engine
//     listens on the next free port above it instead (EngineWorker::Settings::BusyPort::
//     NextFree) for this run only: the next start tries the port again. Nothing is remembered.
class ListenPorts final
{
public:
    ListenPorts(ListenAddress usual, bool fromCommandLine);

    quint16 usualPort() const { return m_usual.port; }
    // The port to ask for when the workspace in directory opens.
    quint16 portFor(const QString &directory) const;
    // Uses port for directory from now on and remembers it (the usual port forgets the choice).
    void choose(const QString &directory, quint16 port);
    // "http://127.0.0.1:5170": the address the workspace's subscriptions name its receivers by.
    QString usualUrl() const;

    // Listen On…: asks for a port, current preselected; nullopt when cancelled.
    std::optional<quint16> ask(QWidget *parent, quint16 current) const;

private:
    ListenAddress m_usual;
    bool m_fromCommandLine;
    QHash<QString, quint16> m_chosenThisRun; // wins over --listen too
};

} // namespace EventDesk::Ui
