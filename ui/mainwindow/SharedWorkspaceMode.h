// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "dashboard/InstancesView.h"
#include "store/DeliveryStoreReader.h"

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
class DeliveryLogView;
class MainStatusBar;

// The window on a shared workspace (File ▸ Open Shared Workspace…): a PostgreSQL store that
// several eventdeskd instances share, which EngineHost monitors (StoreMonitor::startShared). The
// instances deliver; the window shows what they write, and the instances with their health in a
// tab of their own. The window title names the store (never its password) and the status bar how
// many instances the app is monitoring. What needs an engine of the window's own is off, as in
// the read-only monitor: sending test events, resubmitting and deleting dead letters, the test
// receivers.
class SharedWorkspaceMode final : public QObject
{
    Q_OBJECT

public:
    struct Views
    {
        QMainWindow *window = nullptr;
        QTabWidget *tabs = nullptr;
        QWidget *editor = nullptr;
        DeadLetterBrowser *deadLetters = nullptr;
        QWidget *receivers = nullptr;
        MainStatusBar *statusBar = nullptr;
        DeliveryLogView *log = nullptr;
    };

    SharedWorkspaceMode(EventDesk::EngineHost *host, const Views &views, QObject *parent);
    ~SharedWorkspaceMode() override;

    InstancesView *instancesView() const { return m_instances; }

    // On: the host monitors the store at url (without its password). Off: anything else.
    void setActive(bool active, const QString &url = QString());
    bool isActive() const { return m_active; }
    // "Shared workspace — monitoring 3 instances (2 live, 1 late)".
    QString stateText() const;

private:
    void showInstances(const QList<EventDesk::InstanceStatus> &instances);

    EventDesk::EngineHost *m_host = nullptr;
    Views m_views;
    QPointer<InstancesView> m_instances;
    QString m_url;
    bool m_active = false;
};

} // namespace EventDesk::Ui
