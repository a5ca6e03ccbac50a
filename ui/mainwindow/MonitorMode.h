// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "WorkspaceInUseDialog.h"
#include "workspace/WorkspaceLock.h"

#include <QObject>
#include <QPointer>
#include <QString>

class QMainWindow;
class QTabWidget;

namespace EventDesk {
class EngineHost;
}

namespace EventDesk::Ui {

class DeadLetterBrowser;
class MainStatusBar;
class Banner;
class WorkspaceFolders;

// The window's read-only monitor mode (docs/user-guide.md "One owner per workspace"). When a
// workspace being opened is owned by another engine, it asks what to do (the handler a test sets,
// else WorkspaceInUseDialog). While EngineHost monitors the workspace, it shows the banner, names
// the owner in the window title and the status bar, and turns off in the views what only the
// owner's engine may do: the subscription editor, resubmitting and deleting dead letters, the test
// receivers (the owner keeps their requests). The window's commands follow
// MainWindowActions::State::readOnly. When the owner stops, the banner offers to take over.
class MonitorMode final : public QObject
{
    Q_OBJECT

public:
    // What read-only mode changes in the window.
    struct Views
    {
        QMainWindow *window = nullptr;
        QTabWidget *tabs = nullptr;
        QWidget *editor = nullptr;
        DeadLetterBrowser *deadLetters = nullptr;
        QWidget *receivers = nullptr;
        MainStatusBar *statusBar = nullptr;
    };

    MonitorMode(EventDesk::EngineHost *host, const Views &views, const WorkspaceFolders *folders,
                QObject *parent);
    ~MonitorMode() override;

    // The read-only note, with its Take Over button ("takeOver") once the owner has stopped.
    Banner *banner() const { return m_banner; }

    void setWorkspaceInUseHandler(WorkspaceInUseHandler handler);
    // What to do with directory, which owner holds.
    WorkspaceInUseChoice ask(const QString &directory, const EventDesk::WorkspaceOwner &owner);

    // On: the host monitors directory. Off: the window has an engine of its own, or nothing.
    void setActive(bool active, const QString &directory = QString());
    bool isActive() const { return m_active; }

Q_SIGNALS:
    // Take Over was clicked: open the workspace with an engine of the window's own.
    void takeOverRequested();

private:
    void showOwner();

    EventDesk::EngineHost *m_host = nullptr;
    Views m_views;
    const WorkspaceFolders *m_folders = nullptr;
    WorkspaceInUseHandler m_handler;
    QPointer<Banner> m_banner;
    QString m_directory;
    QString m_receiversToolTip;
    EventDesk::WorkspaceOwner m_lastOwner;
    bool m_active = false;
};

} // namespace EventDesk::Ui
