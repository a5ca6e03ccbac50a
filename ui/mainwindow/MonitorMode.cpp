// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "MonitorMode.h"

#include "Banner.h"
#include "MainStatusBar.h"
#include "deadletters/DeadLetterBrowser.h"
#include "host/EngineHost.h"

#include <QFileInfo>
#include <QMainWindow>
#include <QPushButton>
#include <QTabWidget>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

MonitorMode::MonitorMode(EngineHost *host, const Views &views, const WorkspaceFolders *folders,
                         QObject *parent)
    : QObject(parent)
    , m_host(host)
    , m_views(views)
    , m_folders(folders)
    , m_banner(new Banner(Banner::Kind::Information, u"monitorBanner"_s))
{
    QPushButton *takeOver = m_banner->addButton(tr("Take Over"), u"takeOver"_s);
    takeOver->setToolTip(
        tr("Open the workspace with this window's own engine: it delivers the pending events"));
    takeOver->setVisible(false);
    m_receiversToolTip = m_views.tabs->tabToolTip(m_views.tabs->indexOf(m_views.receivers));
    connect(takeOver, &QPushButton::clicked, this, &MonitorMode::takeOverRequested);
    connect(m_host, &EngineHost::ownerChanged, this, [this] {
        if (m_active)
            showOwner();
    });
}

MonitorMode::~MonitorMode() = default;

void MonitorMode::setWorkspaceInUseHandler(WorkspaceInUseHandler handler)
{
    m_handler = std::move(handler);
}

WorkspaceInUseChoice MonitorMode::ask(const QString &directory, const WorkspaceOwner &owner)
{
    if (m_handler)
        return m_handler(directory, owner);
    return WorkspaceInUseDialog::ask(directory, owner, *m_folders, m_views.window);
}

void MonitorMode::setActive(bool active, const QString &directory)
{
    m_active = active;
    m_directory = directory;
    m_banner->setVisible(active);
    if (active)
        m_views.editor->setEnabled(false);
    m_views.deadLetters->setReadOnly(active);
    // The test receivers live in the owner's engine: their requests are not in the store.
    const int receivers = m_views.tabs->indexOf(m_views.receivers);
    if (active && m_views.tabs->currentIndex() == receivers)
        m_views.tabs->setCurrentIndex(0);
    m_views.tabs->setTabEnabled(receivers, !active);
    m_views.tabs->setTabToolTip(
        receivers,
        active ? tr("The test receivers run in the engine that owns the workspace")
               : m_receiversToolTip);
    m_views.statusBar->setReadOnly(active);
    if (active) {
        m_views.statusBar->setListenUrl(QString());
        if (m_host->owner())
            m_lastOwner = *m_host->owner();
        showOwner();
    }
}

void MonitorMode::showOwner()
{
    const std::optional<WorkspaceOwner> owner = m_host->owner();
    if (owner)
        m_lastOwner = *owner;
    // The owner, that nothing can be changed here, and once the owner has stopped, Take Over.
    const QString title = tr("<b>Read-only monitor</b>");
    if (owner) {
        m_banner->showMessage(
            tr("%1 — this workspace is owned by <b>%2</b>, which delivers its events. This "
               "window shows what that engine writes; editing, sending test events and "
               "resubmitting are off.")
                .arg(title, WorkspaceInUseDialog::ownerText(*owner).toHtmlEscaped()));
    } else {
        m_banner->showMessage(
            tr("%1 — %2 has stopped: no engine runs this workspace now. Take it over to deliver "
               "its pending events from this window.")
                .arg(title, WorkspaceInUseDialog::ownerText(m_lastOwner).toHtmlEscaped()));
    }
    m_banner->setVisible(true);
    m_banner->button(u"takeOver"_s)->setVisible(!owner);
    const QString name = QFileInfo(m_directory).fileName();
    m_views.window->setWindowTitle(
        owner ? tr("%1 — Read-Only Monitor (owned by %2 pid %3) — EventDesk")
                    .arg(name, owner->application)
                    .arg(owner->pid)
              : tr("%1 — Read-Only Monitor (owner stopped) — EventDesk").arg(name));
}

} // namespace EventDesk::Ui
