// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "MainWindow.h"

#include "Banner.h"
#include "KeyboardShortcuts.h"
#include "MainStatusBar.h"
#include "MainWindowActions.h"
#include "MonitorMode.h"
#include "SharedWorkspaceMode.h"
#include "StoreTotalsPoller.h"
#include "WindowNotices.h"
#include "WorkspaceFolders.h"
#include "WorkspaceLayout.h"
#include "WorkspaceTreeModel.h"
#include "common/Format.h"
#include "dashboard/DashboardView.h"
#include "dashboard/ProbationTimeline.h"
#include "log/DeliveryLogModel.h"
#include "deadletters/DeadLetterBrowser.h"
#include "editor/SubscriptionEditor.h"
#include "endpoint/SharedAccessSignature.h"
#include "log/DeliveryLogView.h"
#include "log/EventInspector.h"
#include "receivers/ReceiversView.h"
#include "secrets/SecretCache.h"
#include "secrets/SecretStore.h"
#include "send/SendEventDialog.h"
#include "workspace/WorkspaceLock.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QDir>
#include <QFileInfo>
#include <QHeaderView>
#include <QInputDialog>
#include <QLocale>
#include <QMenu>
#include <QMessageBox>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTreeView>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

MainWindow::MainWindow(Options options, QWidget *parent)
    : QMainWindow(parent)
    , m_options(std::move(options))
    , m_listenPorts(m_options.listen, m_options.listenFromCommandLine)
    , m_changes(this)
    , m_actions(new MainWindowActions(this))
{
    setWindowTitle(tr("EventDesk"));
    setWindowIcon(applicationIcon());
    createViews();
    m_actions->addMenusAndToolBar(this, m_tabs);
    m_folders = new WorkspaceFolders(m_actions->recentMenu(), this);
    connect(m_folders, &WorkspaceFolders::openRequested, this, &MainWindow::openWorkspace);
    m_monitorMode = new MonitorMode(
        &m_host, {this, m_tabs, m_editor, m_deadLetters, m_receivers, m_statusBar}, m_folders, this);
    m_sharedMode = new SharedWorkspaceMode(
        &m_host, {this, m_tabs, m_editor, m_deadLetters, m_receivers, m_statusBar, m_log}, this);
    auto *centralLayout = static_cast<QVBoxLayout *>(m_central->layout());
    centralLayout->insertWidget(0, m_monitorMode->banner());
    m_notices = new WindowNotices(this);
    centralLayout->insertWidget(1, m_notices->portBanner());
    centralLayout->insertWidget(2, m_notices->secretsBanner());
    connect(m_notices, &WindowNotices::listenOnRequested, this, &MainWindow::chooseListenPort);
    connect(m_notices, &WindowNotices::secretStorageRequested, this,
            [this] { m_secrets.chooseStorage(this); });
    connect(m_monitorMode, &MonitorMode::takeOverRequested, this,
            [this] { openWorkspace(m_workspaceDirectory); });
    connectActions();
    restoreWindowState();
    m_layout = new WorkspaceLayout(m_central, this);

    connect(&m_secrets, &WorkspaceSecrets::statusChanged, this, &MainWindow::updateSecretsStatus);
    connect(&m_secrets, &WorkspaceSecrets::storeChanged, this, [this] {
        // The editor says whether the destination's credential is in the store now in use.
        m_editor->setCredentialAccess(&m_secrets);
        if (!m_workspaceDirectory.isEmpty())
            openWorkspace(m_workspaceDirectory);
    });
    // The keychain is not asked anything here: only a workspace that references a secret asks it
    // (WorkspaceSecrets::load), so a first run shows no keyring prompt.
    connect(&m_host, &EngineHost::started, this, &MainWindow::onEngineStarted);
    connect(&m_host, &EngineHost::monitorStarted, this, &MainWindow::onMonitorStarted);
    connect(&m_host, &EngineHost::workspaceChanged, this, [this] {
        // A monitor follows the owner's edits; with an engine of its own, the window made them.
        if (!m_host.isMonitoring())
            return;
        m_workspace = m_host.workspace();
        m_treeModel->setWorkspace(m_workspace);
        m_tree->expandAll();
        updateActions();
    });
    connect(&m_host, &EngineHost::snapshotReady, this, &MainWindow::onSnapshot);
    // The counts the window shows are the store's (what every engine that ran the workspace
    // counted); the snapshots' own counters, since this engine started, draw the rates.
    m_totals = new StoreTotalsPoller(this);
    connect(m_totals, &StoreTotalsPoller::totalsChanged, this, [this](const StoreTotals &totals) {
        m_treeModel->setTotals(totals);
        m_dashboard->setStoredTotals(totals);
        m_statusBar->showStoredTotals(totals);
    });
    // Where the store's engine times are not the wall clock's, the views with times say so.
    connect(m_totals, &StoreTotalsPoller::timeScalesChanged, this, [this](const EngineTimeScales &scales) {
        const EngineTimeNote note = engineTimeNote(scales.last, scales.fastest);
        m_deadLetters->setEngineTimeScales(scales);
        m_log->logModel()->setTimeNote(note.text, note.toolTip);
        m_dashboard->probationTimeline()->setTimeNote(note.text, note.toolTip);
    });
    connect(&m_host, &EngineHost::attemptsLogged, m_log, &DeliveryLogView::appendAttempts);
    connect(&m_host, &EngineHost::storeError, m_statusBar, &MainStatusBar::showStoreError);
    updateActions();
}

MainWindow::~MainWindow()
{
    m_host.stop();
}

QIcon MainWindow::applicationIcon()
{
    QIcon icon;
    for (int size : {16, 24, 32, 48, 64, 128, 256})
        icon.addFile(u":/icons/eventdesk-%1.png"_s.arg(size), QSize(size, size));
    return icon;
}

void MainWindow::connectActions()
{
    using Command = MainWindowActions::Command;
    const auto on = [this](Command command, auto slot) {
        connect(m_actions->action(command), &QAction::triggered, this, slot);
    };
    on(Command::OpenSharedWorkspace, &MainWindow::askForSharedWorkspace);
    on(Command::ImportSharedConfiguration, &MainWindow::askToImportSharedWorkspaceFile);
    on(Command::ExportSharedConfiguration, &MainWindow::askToExportSharedWorkspaceFile);
    on(Command::NewWorkspace, [this] {
        if (const auto directory = m_folders->askForNewFolder())
            openWorkspace(*directory);
    });
    on(Command::OpenWorkspace, [this] {
        if (const auto directory = m_folders->askForFolder(m_workspaceDirectory))
            openWorkspace(*directory);
    });
    on(Command::ImportSubscriptions,
       [this] { apply(m_changes.importSubscriptions(m_workspace, selectedTopic())); });
    on(Command::ExportSubscriptions, [this] {
        const QString message
            = m_changes.exportSubscriptions(m_workspace, selectedTopic(), selectedSubscription());
        if (!message.isEmpty())
            statusBar()->showMessage(message, 5000);
    });
    on(Command::Quit, &QWidget::close);
    on(Command::NewTopic, [this] { apply(m_changes.newTopic(m_workspace)); });
    on(Command::NewSubscription, &MainWindow::newSubscription);
    on(Command::Rename, [this] {
        const auto change = m_changes.rename(m_workspace, selectedTopic(), selectedSubscription());
        if (change) {
            m_editor->markSaved();
            closeEditor();
        }
        apply(change);
    });
    on(Command::ToggleEnabled, [this] {
        apply(m_changes.toggleEnabled(m_workspace, selectedTopic(), selectedSubscription()));
    });
    on(Command::Delete, [this] {
        const QString topic = selectedTopic();
        const QString subscription = selectedSubscription();
        const auto change = m_changes.remove(m_workspace, topic, subscription, m_lastSnapshot);
        if (change && m_editingTopic.compare(topic, Qt::CaseInsensitive) == 0
            && (subscription.isEmpty()
                || m_editingSubscription.compare(subscription, Qt::CaseInsensitive) == 0)) {
            m_editor->markSaved();
            closeEditor();
        }
        apply(change);
    });
    on(Command::SendTestEvent, &MainWindow::showSendDialog);
    on(Command::ShowDeadLetters, [this] {
        m_deadLetters->setFilterSubscription(selectedTopic(), selectedSubscription());
        m_tabs->setCurrentWidget(m_deadLetters);
    });
    on(Command::SecretStorage, [this] { m_secrets.chooseStorage(this); });
    on(Command::ListenOn, &MainWindow::chooseListenPort);
    on(Command::Revalidate, [this] {
        const QString subscription = selectedSubscription();
        QPointer<MainWindow> self(this);
        m_host.revalidateSubscription(selectedTopic(), subscription, [self, subscription](const Expected<void> &result) {
            if (!self)
                return;
            if (result)
                self->statusBar()->showMessage(tr("Validating the endpoint of %1…").arg(subscription), 5000);
            else
                QMessageBox::warning(self, tr("Validation not started"), result.error());
        });
    });
    on(Command::TopicAccessKey, &MainWindow::editTopicAccessKey);
    on(Command::CopySasToken, &MainWindow::copySasToken);
    on(Command::StorageAccountKey, &MainWindow::editStorageAccountKey);
    on(Command::KeyboardShortcuts, [this] {
        // Built when asked, from the actions as they are now.
        auto *dialog = new KeyboardShortcutsDialog(this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->show();
    });
    on(Command::About, [this] { QMessageBox::about(this, tr("About EventDesk"), aboutText()); });
}

QString MainWindow::aboutText()
{
    return tr("<h3>EventDesk %1</h3><p>Azure Event Grid delivery and retry semantics on your own "
              "machine: topics, subscriptions, retries, batching, probation and dead-lettering, "
              "persisted and observable.</p>"
              "<p>Licensed under the Apache License, Version 2.0 (SPDX: Apache-2.0). You may use, "
              "modify and distribute it under its terms; it comes without warranties or conditions "
              "of any kind. The licence text is in the LICENSE file of the source and at %2.</p>"
              "<p>Built with Qt %3 (LGPL-3.0).</p>")
        .arg(QCoreApplication::applicationVersion(),
             u"<a href=\"https://www.apache.org/licenses/LICENSE-2.0\">"
             "https://www.apache.org/licenses/LICENSE-2.0</a>"_s,
             QString::fromLatin1(qVersion()));
}

void MainWindow::createViews()
{
    m_treeModel = new WorkspaceTreeModel(this);
    m_tree = new QTreeView;
    m_tree->setAccessibleName(tr("Workspace tree"));
    m_tree->setModel(m_treeModel);
    m_tree->setUniformRowHeights(true);
    m_tree->setAlternatingRowColors(true);
    m_tree->setContextMenuPolicy(Qt::CustomContextMenu);
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setSectionResizeMode(WorkspaceTreeModel::NameColumn, QHeaderView::Interactive);
    m_tree->header()->setSectionResizeMode(WorkspaceTreeModel::StateColumn, QHeaderView::Stretch);
    m_tree->setColumnWidth(WorkspaceTreeModel::NameColumn, 150);
    m_tree->setColumnWidth(WorkspaceTreeModel::BacklogColumn, 64);
    m_tree->setColumnWidth(WorkspaceTreeModel::DeadLetterColumn, 84);
    connect(m_tree->header(), &QHeaderView::sectionResized, this, [this](int column) {
        if (column == WorkspaceTreeModel::NameColumn && !m_fittingTreeNames)
            m_treeNamesSizedByUser = true;
    });
    // Subscriptions added or renamed: their names fit too (once the rows are laid out).
    connect(m_treeModel, &QAbstractItemModel::rowsInserted, this, &MainWindow::fitTreeNames,
            Qt::QueuedConnection);
    m_tree->addAction(m_actions->action(MainWindowActions::Delete));
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this, &MainWindow::onSelectionChanged);
    connect(m_tree, &QWidget::customContextMenuRequested, this, [this](const QPoint &position) {
        using TreeItem = MainWindowActions::TreeItem;
        const TreeItem item = !m_tree->indexAt(position).isValid() ? TreeItem::None
            : selectedSubscription().isEmpty()                     ? TreeItem::Topic
                                                                   : TreeItem::Subscription;
        QMenu menu(this);
        m_actions->fillTreeMenu(menu, item);
        menu.exec(m_tree->viewport()->mapToGlobal(position));
    });

    m_dashboard = new DashboardView;
    m_editor = new SubscriptionEditor;
    m_editor->setCredentialAccess(&m_secrets);
    m_log = new DeliveryLogView;
    m_deadLetters = new DeadLetterBrowser(&m_host);

    connect(m_editor, &SubscriptionEditor::saveRequested, this, &MainWindow::storeSecretsThenSave);
    connect(m_editor, &SubscriptionEditor::revertRequested, this, [this] {
        if (m_editingIsNew) {
            closeEditor();
            return;
        }
        selectSubscription(m_editingTopic, m_editingSubscription);
    });
    connect(m_editor, &SubscriptionEditor::modifiedChanged, this, [this](bool modified) {
        const int index = m_tabs->indexOf(m_editor);
        m_tabs->setTabText(index, modified ? tr("Subscription *") : tr("Subscription"));
        setWindowModified(modified);
    });
    connect(m_log, &DeliveryLogView::inspectEventRequested, this, [this](const QString &eventId) {
        auto *inspector = new EventInspector;
        inspector->setAttribute(Qt::WA_DeleteOnClose);
        inspector->setWindowFlag(Qt::Window);
        inspector->setWindowTitle(tr("Event %1").arg(eventId));
        inspector->setStoreLocation(m_host.storeLocation());
        inspector->showEvent(eventId);
        inspector->resize(760, 560);
        inspector->show();
    });

    m_tabs = new QTabWidget;
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(m_dashboard, QIcon::fromTheme(u"utilities-system-monitor"_s), tr("Dashboard"));
    m_tabs->addTab(m_editor, QIcon::fromTheme(u"document-properties"_s), tr("Subscription"));
    m_tabs->addTab(m_log, QIcon::fromTheme(u"view-list-details"_s), tr("Delivery Log"));
    m_tabs->addTab(m_deadLetters, QIcon::fromTheme(u"mail-mark-junk"_s), tr("Dead Letters"));
    m_receivers = new ReceiversView(&m_host);
    m_tabs->addTab(m_receivers, QIcon::fromTheme(u"network-server"_s), tr("Test Receivers"));
    // Ctrl+1… are the View menu's (MainWindowActions), so Help ▸ Keyboard Shortcuts lists them.
    for (int i = 0; i < m_tabs->count(); ++i)
        m_tabs->setTabToolTip(i, tr("%1 (Ctrl+%2)").arg(m_tabs->tabText(i)).arg(i + 1));
    m_editor->setEnabled(false);
    connect(m_tabs, &QTabWidget::currentChanged, this, [this] {
        if (m_tabs->currentWidget() == m_deadLetters && m_deadLettersStale) {
            m_deadLettersStale = false;
            m_deadLetters->reload();
        }
    });

    m_splitter = new QSplitter(Qt::Horizontal);
    m_splitter->setObjectName(u"workspaceSplitter"_s); // WorkspaceLayout's key
    m_splitter->addWidget(m_tree);
    m_splitter->addWidget(m_tabs);
    m_splitter->setStretchFactor(0, 0);
    m_splitter->setStretchFactor(1, 1);
    // The tree's four columns need about this much; the tabs get the rest of the window.
    m_splitter->setSizes({440, 1000});
    // The read-only monitor's banner goes above the splitter (MonitorMode).
    m_central = new QWidget;
    auto *centralLayout = new QVBoxLayout(m_central);
    centralLayout->setContentsMargins(0, 0, 0, 0);
    centralLayout->setSpacing(0);
    centralLayout->addWidget(m_splitter, 1);
    setCentralWidget(m_central);

    m_statusBar = new MainStatusBar(statusBar());
    connect(m_statusBar, &MainStatusBar::secretStorageRequested, this,
            [this] { m_secrets.chooseStorage(this); });
}

void MainWindow::restoreWindowState()
{
    QSettings settings;
    if (!restoreGeometry(settings.value(u"window/geometry"_s).toByteArray())) {
        // A first run: roomy, but never larger than the screen (a 1024×700 laptop panel).
        QSize size(1440, 900);
        if (const QScreen *screen = this->screen())
            size = size.boundedTo(screen->availableGeometry().size());
        resize(size);
    }
    restoreState(settings.value(u"window/state"_s).toByteArray());
    m_splitter->restoreState(settings.value(u"window/splitter"_s).toByteArray());
    m_fittingTreeNames = true;
    m_tree->header()->restoreState(settings.value(u"window/treeHeader"_s).toByteArray());
    m_fittingTreeNames = false;
    m_treeNamesSizedByUser = settings.value(u"window/treeNamesSizedByUser"_s, false).toBool();
}

void MainWindow::saveWindowState()
{
    QSettings settings;
    settings.setValue(u"window/geometry"_s, saveGeometry());
    settings.setValue(u"window/state"_s, saveState());
    settings.setValue(u"window/splitter"_s, m_splitter->saveState());
    settings.setValue(u"window/treeHeader"_s, m_tree->header()->saveState());
    settings.setValue(u"window/treeNamesSizedByUser"_s, m_treeNamesSizedByUser);
    m_layout->save();
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (!confirmLeavingEditor()) {
        event->ignore();
        return;
    }
    saveWindowState();
    m_statusBar->setEngineState(tr("Stopping…"));
    m_host.stop();
    event->accept();
}

Banner *MainWindow::monitorBanner() const
{
    return m_monitorMode->banner();
}

void MainWindow::setWorkspaceInUseHandler(WorkspaceInUseHandler handler)
{
    m_monitorMode->setWorkspaceInUseHandler(std::move(handler));
}

void MainWindow::openWorkspace(const QString &directory)
{
    if (isPostgresLocation(directory)) {
        openRecentSharedWorkspace(directory);
        return;
    }
    if (!confirmLeavingEditor())
        return;
    const QString absolute = QDir(directory).absolutePath();
    // One owner per workspace: asked before the open workspace is stopped, so that Cancel leaves
    // it open. The engine takes the lock itself; if another one came first, onEngineStarted() asks.
    if (!((m_host.isRunning() || m_host.isStarting()) && absolute == m_workspaceDirectory)) {
        if (const auto owner = WorkspaceLock::currentOwner(absolute)) {
            workspaceInUse(absolute, *owner);
            return;
        }
    }
    m_workspaceDirectory = absolute;
    m_layout->switchTo(m_workspaceDirectory);
    m_editingTopic.clear();
    m_editingSubscription.clear();
    m_editor->setEnabled(false);
    m_host.stop();
    m_monitorMode->setActive(false);
    m_sharedMode->setActive(false);
    EngineHost::Config config;
    config.workspaceDirectory = m_workspaceDirectory;
    config.listen = m_options.listen;
    config.listen.port = m_listenPorts.portFor(m_workspaceDirectory);
    // A taken port does not keep the workspace closed (ListenPorts); the workspace's webhooks name
    // its receivers by the usual port.
    config.busyPort = EngineHost::Config::BusyPort::NextFree;
    config.receiverPort = m_options.listen.port;
    config.timeScale = m_options.timeScale;
    config.jitter = m_options.jitter;
    config.secrets = m_secrets.cache();
    // The window's thread gets a core before the engine's when both want one (benchmark 5).
    config.backgroundPriority = true;
    setWindowTitle(tr("%1[*] — EventDesk").arg(QFileInfo(m_workspaceDirectory).fileName()));

    m_statusBar->setEngineState(tr("Starting engine…"));
    // The engine starts at once; the secrets the workspace needs load meanwhile. Until they have
    // come, what needs one waits (EngineWorker::Settings::secrets) and the rest runs.
    m_host.start(config, [this](const Workspace &workspace) {
        m_secrets.open(m_workspaceDirectory, workspace, this, {});
    });
}

void MainWindow::chooseListenPort()
{
    if (m_workspaceDirectory.isEmpty())
        return;
    const quint16 current = quint16(QUrl(m_host.listenUrl()).port(0));
    if (const std::optional<quint16> port = m_listenPorts.ask(this, current))
        listenOn(*port);
}

void MainWindow::listenOn(quint16 port)
{
    m_listenPorts.choose(m_workspaceDirectory, port);
    openWorkspace(m_workspaceDirectory);
}

void MainWindow::onEngineStarted(bool ok, const QString &error, const QString &listenUrl)
{
    m_notices->showListening(ok ? m_host.busyPort() : QString(), listenUrl,
                             m_listenPorts.usualUrl());
    if (!ok) {
        m_statusBar->setEngineState(tr("Engine stopped"));
        m_statusBar->setListenUrl(QString());
        if (const auto owner = m_host.owner()) {
            workspaceInUse(m_workspaceDirectory, *owner);
            return;
        }
        QMessageBox::critical(this, tr("Cannot open workspace"),
                              tr("The workspace %1 could not be opened:\n\n%2").arg(m_workspaceDirectory, error));
        return;
    }
    m_statusBar->setEngineState(tr("Engine running"));
    m_statusBar->setListenUrl(listenUrl);
    showOpenedWorkspace();
}

void MainWindow::workspaceInUse(const QString &directory, const WorkspaceOwner &owner)
{
    const WorkspaceInUseChoice choice = m_monitorMode->ask(directory, owner);
    switch (choice.action) {
    case WorkspaceInUseChoice::Action::Monitor:
        monitorWorkspace(directory);
        return;
    case WorkspaceInUseChoice::Action::OpenAnother:
        openWorkspace(choice.otherDirectory);
        return;
    case WorkspaceInUseChoice::Action::Cancel:
        if (!m_host.isRunning() && !m_host.isMonitoring())
            showNoWorkspace();
        return;
    }
}

void MainWindow::monitorWorkspace(const QString &directory)
{
    m_workspaceDirectory = QDir(directory).absolutePath();
    m_layout->switchTo(m_workspaceDirectory);
    closeEditor();
    m_host.stop();
    m_statusBar->setEngineState(tr("Opening read-only monitor…"));
    m_statusBar->setListenUrl(QString());
    EngineHost::Config config;
    config.workspaceDirectory = m_workspaceDirectory;
    m_host.monitor(config);
}

void MainWindow::onMonitorStarted(bool ok, const QString &error)
{
    if (!ok) {
        showNoWorkspace();
        QMessageBox::critical(this, tr("Cannot open workspace"),
                              tr("The workspace %1 could not be opened as a monitor:\n\n%2")
                                  .arg(m_workspaceDirectory, error));
        return;
    }
    if (m_host.isMonitoringSharedStore())
        m_sharedMode->setActive(true, m_workspaceDirectory);
    else
        m_monitorMode->setActive(true, m_workspaceDirectory);
    showOpenedWorkspace();
}

void MainWindow::showNoWorkspace()
{
    m_monitorMode->setActive(false);
    m_sharedMode->setActive(false);
    m_workspace = Workspace();
    m_treeModel->setWorkspace(m_workspace);
    m_log->setStoreLocation(QString());
    m_totals->setStoreLocation(QString());
    m_treeModel->setTotals(std::nullopt);
    m_dashboard->setStoredTotals(std::nullopt);
    m_statusBar->showStoredTotals(std::nullopt);
    m_statusBar->setEngineState(tr("No workspace open"));
    m_statusBar->setListenUrl(QString());
    setWindowTitle(tr("EventDesk"));
    updateActions();
}

void MainWindow::showOpenedWorkspace()
{
    m_folders->opened(m_workspaceDirectory);
    m_workspace = m_host.workspace();
    m_treeModel->setWorkspace(m_workspace);
    m_tree->expandAll();
    fitTreeNames();
    m_log->setStoreLocation(m_host.storeLocation());
    if (m_host.storeLocation() != m_totals->storeLocation()) {
        m_treeModel->setTotals(std::nullopt);
        m_dashboard->setStoredTotals(std::nullopt);
        m_statusBar->showStoredTotals(std::nullopt);
    }
    m_totals->setStoreLocation(m_host.storeLocation());
    m_deadLetters->reload();
    if (!m_workspace.topics.isEmpty()) {
        const Topic &first = m_workspace.topics.constFirst();
        if (!first.eventSubscriptions.isEmpty())
            selectSubscription(first.name, first.eventSubscriptions.constFirst().name);
        else
            m_tree->setCurrentIndex(m_treeModel->topicIndex(first.name));
    }
    updateActions();
}

void MainWindow::fitTreeNames()
{
    if (m_treeNamesSizedByUser)
        return;
    // Never narrower than the default, never more than half the tree: the state beside the name
    // is what the tree is read for.
    constexpr int DefaultWidth = 150;
    // QTreeView's own (protected) hint: the widest row, its indentation included.
    const int wanted = static_cast<QAbstractItemView *>(m_tree)->sizeHintForColumn(WorkspaceTreeModel::NameColumn);
    const int width = std::clamp(wanted, DefaultWidth, std::max(DefaultWidth, m_tree->viewport()->width() / 2));
    if (width == m_tree->columnWidth(WorkspaceTreeModel::NameColumn))
        return;
    m_fittingTreeNames = true;
    m_tree->setColumnWidth(WorkspaceTreeModel::NameColumn, width);
    m_fittingTreeNames = false;
}

void MainWindow::onSnapshot(const EngineSnapshot &snapshot)
{
    m_lastSnapshot = snapshot;
    m_treeModel->applySnapshot(snapshot);
    m_dashboard->addSnapshot(snapshot);
    const SnapshotTotals totals = SnapshotTotals::of(snapshot);
    // New dead letters show up in the browser while it is on screen (unless the user is working
    // on a selection there); otherwise it reloads when its tab is opened.
    if (totals.deadLettered != m_shownDeadLetterTotal) {
        m_shownDeadLetterTotal = totals.deadLettered;
        if (m_tabs->currentWidget() == m_deadLetters && !m_deadLetters->tableView()->selectionModel()->hasSelection())
            m_deadLetters->reload();
        else
            m_deadLettersStale = true;
    }
    m_statusBar->showTotals(totals);
    m_statusBar->showHealth(snapshot);
    if (waitingForKeychain() != m_shownWaiting)
        updateSecretsStatus();
}

QStringList MainWindow::waitingForKeychain() const
{
    QStringList waiting;
    for (const SubscriptionSnapshot &subscription : m_lastSnapshot.subscriptions) {
        if (subscription.awaitingSecrets)
            waiting << subscription.topic + u" / "_s + subscription.subscription;
    }
    return waiting;
}

QString MainWindow::selectedTopic() const
{
    return m_tree->currentIndex().data(WorkspaceTreeModel::TopicNameRole).toString();
}

QString MainWindow::selectedSubscription() const
{
    return m_tree->currentIndex().data(WorkspaceTreeModel::SubscriptionNameRole).toString();
}

void MainWindow::selectSubscription(const QString &topic, const QString &subscription)
{
    const QModelIndex index = m_treeModel->subscriptionIndex(topic, subscription);
    if (!index.isValid())
        return;
    m_tree->setCurrentIndex(index);
    onSelectionChanged();
}

bool MainWindow::confirmLeavingEditor()
{
    if (!m_editor->isEnabled() || !m_editor->isModified())
        return true;
    switch (SubscriptionEditor::askToSave(this, m_editingSubscription)) {
    case SubscriptionEditor::DiscardChoice::Save:
        if (!m_editor->isValid()) {
            QMessageBox::warning(this, tr("Cannot save"),
                                 tr("The subscription has invalid settings; fix them or discard the changes."));
            return false;
        }
        storeSecretsThenSave(m_editor->subscription());
        return true;
    case SubscriptionEditor::DiscardChoice::Discard:
        m_editor->markSaved();
        return true;
    case SubscriptionEditor::DiscardChoice::Cancel:
        return false;
    }
    return false;
}

void MainWindow::closeEditor()
{
    m_editingTopic.clear();
    m_editingSubscription.clear();
    m_editingIsNew = false;
    m_editor->setEnabled(false);
}

void MainWindow::onSelectionChanged()
{
    updateActions();
    const QString topicName = selectedTopic();
    const QString subscriptionName = selectedSubscription();
    m_dashboard->setSelection(topicName, subscriptionName);
    if (subscriptionName.isEmpty())
        return;
    if (m_editingTopic.compare(topicName, Qt::CaseInsensitive) == 0
        && m_editingSubscription.compare(subscriptionName, Qt::CaseInsensitive) == 0 && !m_editingIsNew
        && m_editor->isModified())
        return;
    if (!confirmLeavingEditor()) {
        // Keep the tree on what the editor shows.
        const QSignalBlocker blocker(m_tree->selectionModel());
        m_tree->setCurrentIndex(m_treeModel->subscriptionIndex(m_editingTopic, m_editingSubscription));
        return;
    }
    Topic *topic = findTopic(m_workspace, topicName);
    if (!topic)
        return;
    const qsizetype index = findSubscription(*topic, subscriptionName);
    if (index < 0)
        return;
    m_editingTopic = topic->name;
    m_editingSubscription = topic->eventSubscriptions.at(index).name;
    m_editingIsNew = false;
    // A monitor shows the subscription's settings, but they are the owner's to change; those of
    // a shared workspace are the store's, which this window edits.
    m_editor->setEnabled(!m_host.isMonitoring() || m_host.isMonitoringSharedStore());
    m_editor->setSubscription(*topic, topic->eventSubscriptions.at(index), false);
}

void MainWindow::updateActions()
{
    MainWindowActions::State state;
    state.engineRunning = m_host.isRunning();
    state.readOnly = m_host.isMonitoring();
    state.editsConfiguration = m_host.isMonitoringSharedStore();
    state.workspaceHasTopics = !m_workspace.topics.isEmpty();
    state.topicSelected = !selectedTopic().isEmpty();
    state.subscriptionSelected = !selectedSubscription().isEmpty();
    if (state.subscriptionSelected) {
        if (const Topic *topic = m_workspace.findTopic(selectedTopic())) {
            const qsizetype index = findSubscription(*topic, selectedSubscription());
            if (index >= 0) {
                const EventSubscription &subscription = topic->eventSubscriptions.at(index);
                state.subscriptionEnabled = subscription.enabled;
                state.subscriptionValidates = subscription.needsEndpointValidation();
                state.deadLettersToAzure = subscription.deadLetterDestination.kind
                    == DeadLetterDestination::Kind::AzureBlob;
            }
        }
    }
    m_actions->update(state);
}

void MainWindow::showSendDialog()
{
    auto *dialog = new SendEventDialog(&m_host, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    const QString topic = selectedTopic();
    if (!topic.isEmpty())
        dialog->setTopic(topic);
    dialog->show();
}

void MainWindow::applyWorkspace(const Workspace &workspace, const QString &successMessage)
{
    QPointer<MainWindow> self(this);
    applyChanged(workspace, [self, workspace, successMessage](const Expected<void> &result) {
        if (!self)
            return;
        if (!result) {
            QMessageBox::warning(self, tr("Workspace not changed"), result.error());
            return;
        }
        self->m_workspace = workspace;
        self->m_treeModel->setWorkspace(workspace);
        self->m_tree->expandAll();
        self->statusBar()->showMessage(successMessage, 5000);
        self->updateActions();
    });
}

void MainWindow::apply(const std::optional<WorkspaceChange> &change)
{
    if (change)
        applyWorkspace(change->workspace, change->message);
}

void MainWindow::saveSubscription(const EventSubscription &subscription)
{
    Workspace changed = m_workspace;
    Topic *topic = findTopic(changed, m_editingTopic);
    if (!topic) {
        m_editor->showSaveError(tr("The topic %1 no longer exists.").arg(m_editingTopic));
        return;
    }
    const qsizetype existing = findSubscription(*topic, subscription.name);
    const qsizetype original = m_editingIsNew ? -1 : findSubscription(*topic, m_editingSubscription);
    if (existing >= 0 && existing != original) {
        m_editor->showSaveError(tr("Topic %1 already has a subscription named %2.").arg(topic->name, subscription.name));
        return;
    }
    if (auto valid = validateEventSubscription(subscription, topic->inputSchema); !valid) {
        m_editor->showSaveError(valid.error());
        return;
    }
    if (original >= 0)
        topic->eventSubscriptions[original] = subscription;
    else
        topic->eventSubscriptions.append(subscription);

    const QString topicName = topic->name;
    QPointer<MainWindow> self(this);
    applyChanged(changed, [self, changed, topicName, subscription](const Expected<void> &result) {
        if (!self)
            return;
        if (!result) {
            self->m_editor->showSaveError(result.error());
            return;
        }
        self->m_workspace = changed;
        self->m_treeModel->setWorkspace(changed);
        self->m_tree->expandAll();
        self->m_secrets.load(changed);
        self->m_editingTopic = topicName;
        self->m_editingSubscription = subscription.name;
        self->m_editingIsNew = false;
        self->m_editor->markSaved();
        {
            const QSignalBlocker blocker(self->m_tree->selectionModel());
            self->m_tree->setCurrentIndex(self->m_treeModel->subscriptionIndex(topicName, subscription.name));
        }
        self->updateActions();
        self->statusBar()->showMessage(tr("Saved subscription %1").arg(subscription.name), 5000);
        // Editing a subscription whose endpoint is not validated asks again at once (a changed
        // endpoint is validated again by the engine anyway): the edit may be the fix.
        for (const SubscriptionSnapshot &state : std::as_const(self->m_lastSnapshot.subscriptions)) {
            if (state.topic == topicName && state.subscription == subscription.name && subscription.needsEndpointValidation()
                && state.provisioningState != ProvisioningState::Succeeded)
                self->m_host.revalidateSubscription(topicName, subscription.name, [](const Expected<void> &) {});
        }
    });
}

void MainWindow::newSubscription()
{
    const QString topicName = selectedTopic();
    const Topic *topic = m_workspace.findTopic(topicName);
    if (!topic || !confirmLeavingEditor())
        return;
    EventSubscription subscription;
    int suffix = 1;
    do {
        subscription.name = u"subscription-%1"_s.arg(suffix++);
    } while (findSubscription(*topic, subscription.name) >= 0);
    // The usual address: on another port for now (ListenPorts), the engine follows it there.
    subscription.endpointUrl = QUrl(m_listenPorts.usualUrl() + u"/receivers/demo"_s);
    subscription.deliverySchema = topic->inputSchema;
    m_editingTopic = topic->name;
    m_editingSubscription = subscription.name;
    m_editingIsNew = true;
    m_editor->setEnabled(true);
    m_editor->setSubscription(*topic, subscription, true);
    m_tabs->setCurrentWidget(m_editor);
}

void MainWindow::storeSecretsThenSave(const EventSubscription &subscription)
{
    QPointer<MainWindow> self(this);
    m_secrets.storeHeaderSecrets(m_editingTopic, subscription,
                                 [self](const Expected<EventSubscription> &withoutSecrets) {
                                     if (!self)
                                         return;
                                     if (withoutSecrets)
                                         self->saveSubscription(withoutSecrets.value());
                                     else
                                         self->m_editor->showSaveError(withoutSecrets.error());
                                 });
}

SecretStore *MainWindow::activeSecretStore() const
{
    return m_secrets.activeStore();
}

void MainWindow::useSecretStore(std::unique_ptr<SecretStore> store)
{
    m_secrets.useStore(std::move(store));
}

void MainWindow::updateSecretsStatus()
{
    m_statusBar->showSecrets(*m_secrets.activeStore(), m_secrets.problems());
    m_shownWaiting = waitingForKeychain();
    m_notices->showSecrets(*m_secrets.activeStore(), m_secrets.problems(), m_shownWaiting);
}

void MainWindow::editTopicAccessKey()
{
    const QString topic = selectedTopic();
    if (topic.isEmpty())
        return;
    QString key = m_secrets.cache()->value(SecretKeys::topicAccessKey(topic));
    if (!m_secrets.askForSecret(
            this, tr("Access Key of %1").arg(topic),
            tr("Publishers must send this key in the aeg-sas-key header (or query parameter), or a "
               "SAS token made with it (Copy SAS Token…).\n"
               "Leave it empty to accept publishes without a key."),
            key))
        return;
    QPointer<MainWindow> self(this);
    setTopicAccessKey(topic, key, [self, topic, key](const Expected<void> &result) {
        if (!self)
            return;
        if (!result)
            QMessageBox::warning(self, tr("Access key not stored"), result.error());
        else
            self->statusBar()->showMessage(key.isEmpty() ? tr("Topic %1 accepts publishes without a key").arg(topic)
                                                         : tr("Topic %1 now requires its access key").arg(topic),
                                           5000);
    });
}

void MainWindow::copySasToken()
{
    const QString topic = selectedTopic();
    if (topic.isEmpty())
        return;
    // The key the topic endpoint checks, wherever it comes from (keychain or environment).
    const QString key = m_secrets.cache()->topicAccessKey(topic);
    if (key.isEmpty()) {
        QMessageBox::information(this, tr("No access key"),
                                 tr("Topic %1 has no access key: publishers need no token. Set a key "
                                    "with Topic Access Key… first.")
                                     .arg(topic));
        return;
    }
    if (SharedAccessSignature::signingKey(key).isEmpty()) {
        QMessageBox::warning(this, tr("Key not usable for tokens"),
                             tr("The access key of topic %1 is not base64, so no SAS token can be "
                                "signed with it. Publishers can still send the key itself.")
                                 .arg(topic));
        return;
    }
    QInputDialog dialog(this);
    dialog.setObjectName(u"sasTokenDialog"_s);
    dialog.setWindowTitle(tr("SAS Token for %1").arg(topic));
    dialog.setInputMode(QInputDialog::IntInput);
    dialog.setLabelText(tr("Publishers send the token in the aeg-sas-token header instead of the "
                           "topic's key.\nIt is copied to the clipboard.\n\nValid for (hours):"));
    dialog.setIntRange(1, 24 * 365);
    dialog.setIntValue(1);
    if (dialog.exec() != QDialog::Accepted)
        return;
    const QDateTime expiresOn = QDateTime::currentDateTimeUtc().addSecs(qint64(dialog.intValue()) * 3600);
    const QString endpoint = m_host.listenUrl() + u"/topics/"_s + topic + u"/api/events"_s;
    QApplication::clipboard()->setText(QString::fromLatin1(SharedAccessSignature::generate(endpoint, expiresOn, key)));
    statusBar()->showMessage(tr("Copied a SAS token for %1, valid until %2")
                                 .arg(topic, QLocale().toString(expiresOn.toLocalTime(), QLocale::ShortFormat)),
                             10000);
}

void MainWindow::editStorageAccountKey()
{
    const Topic *topic = m_workspace.findTopic(selectedTopic());
    if (!topic)
        return;
    const qsizetype index = findSubscription(*topic, selectedSubscription());
    if (index < 0)
        return;
    const DeadLetterDestination &destination = topic->eventSubscriptions.at(index).deadLetterDestination;
    QString account = destination.accountName;
    if (account.isEmpty())
        account = destination.resourceId.section(u'/', -1);
    if (account.isEmpty())
        return;
    QString key = m_secrets.cache()->value(SecretKeys::storageAccountKey(account));
    if (!m_secrets.askForSecret(
            this, tr("Key of Storage Account %1").arg(account),
            tr("The account key signs dead-letter writes (Shared Key authorization)."), key))
        return;
    QPointer<MainWindow> self(this);
    setStorageAccountKey(account, key, [self, account](const Expected<void> &result) {
        if (!self)
            return;
        if (!result)
            QMessageBox::warning(self, tr("Account key not stored"), result.error());
        else
            self->statusBar()->showMessage(tr("Stored the key of storage account %1").arg(account), 5000);
    });
}

void MainWindow::setTopicAccessKey(const QString &topicName, const QString &key,
                                   std::function<void(const Expected<void> &)> done)
{
    QPointer<MainWindow> self(this);
    m_secrets.storeTopicAccessKey(
        topicName, key, [self, topicName, key, done](const Expected<void> &stored) {
            if (!self)
                return;
            if (!stored) {
                done(stored);
                return;
            }
            // The workspace declares that the topic has a key (a reference, never the key itself).
            Workspace changed = self->m_workspace;
            Topic *topic = findTopic(changed, topicName);
            if (!topic) {
                done(Error(tr("The topic %1 no longer exists.").arg(topicName)));
                return;
            }
            topic->accessKeySecretRef
                = key.isEmpty() ? QString() : SecretKeys::topicAccessKey(topicName);
            self->m_host.applyWorkspace(changed,
                                        [self, changed, done](const Expected<void> &applied) {
                                            if (self && applied.hasValue())
                                                self->m_workspace = changed;
                                            done(applied);
                                        });
        });
}

void MainWindow::setStorageAccountKey(const QString &account, const QString &key,
                                      std::function<void(const Expected<void> &)> done)
{
    m_secrets.storeStorageAccountKey(account, key, std::move(done));
}

} // namespace EventDesk::Ui
