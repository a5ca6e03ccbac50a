// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "SharedWorkspaceMode.h"

#include "MainStatusBar.h"
#include "dashboard/InstancesView.h"
#include "deadletters/DeadLetterBrowser.h"
#include "host/EngineHost.h"
#include "log/DeliveryLogView.h"
#include "store/StoreLocation.h"

#include <QIcon>
#include <QMainWindow>
#include <QTabWidget>
#include <QUrl>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

SharedWorkspaceMode::SharedWorkspaceMode(EngineHost *host, const Views &views, QObject *parent)
    : QObject(parent)
    , m_host(host)
    , m_views(views)
    , m_instances(new InstancesView)
{
    m_instances->setObjectName(u"instancesView"_s);
    connect(m_host, &EngineHost::instancesChanged, this, &SharedWorkspaceMode::showInstances);
}

SharedWorkspaceMode::~SharedWorkspaceMode()
{
    // Once a tab, the view belongs to the tab widget's pages (also after removeTab()), which
    // may be gone already.
    if (m_instances && !m_instances->parentWidget())
        delete m_instances;
}

void SharedWorkspaceMode::setActive(bool active, const QString &url)
{
    m_active = active;
    m_url = active ? url : QString();
    const int tab = m_views.tabs->indexOf(m_instances);
    if (active && tab < 0) {
        const int index = m_views.tabs->insertTab(
            1, m_instances, QIcon::fromTheme(u"network-workgroup"_s), tr("Instances"));
        m_views.tabs->setTabToolTip(
            index, tr("The eventdeskd instances that share the store, with their health"));
    } else if (!active && tab >= 0) {
        m_views.tabs->removeTab(tab);
    }
    if (!active) {
        m_views.statusBar->setReadOnlyState(QString());
        return;
    }
    m_instances->setInstances(m_host->instances());
    m_views.log->setInstances(m_host->instances());
    // The instances deliver; this window has no engine to send, resubmit or receive with. The
    // subscriptions are the store's: the editor writes them there (MainWindow::applyWorkspace).
    m_views.deadLetters->setReadOnly(true);
    const int receivers = m_views.tabs->indexOf(m_views.receivers);
    if (m_views.tabs->currentIndex() == receivers)
        m_views.tabs->setCurrentIndex(0);
    m_views.tabs->setTabEnabled(receivers, false);
    m_views.statusBar->setReadOnlyState(stateText());
    m_views.statusBar->setReadOnly(true);
    m_views.statusBar->setListenUrl(QString());
    // The database, and where it is, as the title; the URL holds no password.
    const QUrl location(url, QUrl::TolerantMode);
    const QString name = location.path().mid(1);
    m_views.window->setWindowTitle(
        tr("%1 — Shared Workspace (%2) — EventDesk")
            .arg(name.isEmpty() ? url : name, redactedStoreLocation(url)));
}

QString SharedWorkspaceMode::stateText() const
{
    const InstancesModel *model = m_instances->model();
    const int total = model->rowCount();
    QStringList states;
    for (const InstanceHealth health :
         {InstanceHealth::Live, InstanceHealth::Late, InstanceHealth::Dead}) {
        if (const int count = model->count(health); count > 0)
            states << u"%1 %2"_s.arg(count).arg(instanceHealthName(health).toLower());
    }
    if (total == 0)
        return tr("Shared workspace — no instance delivers from the store");
    return tr("Shared workspace — monitoring %n instance(s) (%1)", nullptr, total)
        .arg(states.join(u", "_s));
}

void SharedWorkspaceMode::showInstances(const QList<InstanceStatus> &instances)
{
    if (!m_active)
        return;
    m_instances->setInstances(instances);
    m_views.log->setInstances(instances);
    m_views.statusBar->setReadOnlyState(stateText());
}

} // namespace EventDesk::Ui
