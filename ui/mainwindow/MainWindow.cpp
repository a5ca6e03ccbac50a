#include "MainWindow.h"

#include "WorkspaceTreeModel.h"
#include "common/Format.h"
#include "dashboard/DashboardView.h"
#include "deadletters/DeadLetterBrowser.h"
#include "deadletters/DeadLetterModel.h"
#include "editor/SubscriptionEditor.h"
#include "keychain/KeychainSecretStore.h"
#include "io/SecretCache.h"
#include "secrets/SecretStore.h"
#include "io/TopicEndpoint.h"
#include "io/WorkspaceFolder.h"
#include "log/DeliveryLogView.h"
#include "log/EventInspector.h"
#include "receivers/ReceiversView.h"
#include "send/SendEventDialog.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QHostAddress>
#include <QInputDialog>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSettings>
#include <QSplitter>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QToolBar>
#include <QTreeView>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {

constexpr int MaxRecentWorkspaces = 8;

bool isValidTopicName(const QString &name)
{
    static const QRegularExpression pattern(u"^[A-Za-z0-9-]{3,50}$"_s);
    return pattern.match(name).hasMatch();
}

Topic *findTopic(Workspace &workspace, const QString &name)
{
    for (Topic &topic : workspace.topics) {
        if (topic.name.compare(name, Qt::CaseInsensitive) == 0)
            return &topic;
    }
    return nullptr;
}

qsizetype findSubscription(const Topic &topic, const QString &name)
{
    for (qsizetype i = 0; i < topic.eventSubscriptions.size(); ++i) {
        if (topic.eventSubscriptions.at(i).name.compare(name, Qt::CaseInsensitive) == 0)
            return i;
    }
    return -1;
}

} // namespace

MainWindow::MainWindow(Options options, QWidget *parent)
    : QMainWindow(parent)
    , m_options(std::move(options))
{
    setWindowTitle(tr("EventDesk"));
    setWindowIcon(applicationIcon());
    auto *keychain = new KeychainSecretStore;
    m_keychain.reset(keychain);
    m_secretCache = std::make_shared<SecretCache>(QList<SecretStore *>{keychain});
    createActions();
    createViews();
    createMenus();
    restoreWindowState();

    connect(m_keychain.get(), &SecretStore::availabilityChanged, this, &MainWindow::updateSecretsStatus);
    keychain->checkAvailability();
    connect(&m_host, &EngineHost::started, this, &MainWindow::onEngineStarted);
    connect(&m_host, &EngineHost::snapshotReady, this, &MainWindow::onSnapshot);
    connect(&m_host, &EngineHost::attemptsLogged, m_log, &DeliveryLogView::appendAttempts);
    connect(&m_host, &EngineHost::storeError, this, [this](const QString &message) {
        statusBar()->showMessage(tr("Store error: %1").arg(message), 10000);
    });
    updateActions();
}

MainWindow::~MainWindow()
{
    m_host.stop();
}

QString MainWindow::defaultWorkspaceDirectory()
{
    return QDir(QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation))
        .filePath(u"EventDesk/workspaces/default"_s);
}

QIcon MainWindow::applicationIcon()
{
    QIcon icon;
    for (int size : {16, 24, 32, 48, 64, 128, 256})
        icon.addFile(u":/icons/eventdesk-%1.png"_s.arg(size), QSize(size, size));
    return icon;
}

void MainWindow::createActions()
{
    m_newWorkspaceAction = new QAction(QIcon::fromTheme(u"folder-new"_s), tr("&New Workspace…"), this);
    connect(m_newWorkspaceAction, &QAction::triggered, this, &MainWindow::newWorkspace);

    m_openWorkspaceAction = new QAction(QIcon::fromTheme(u"document-open"_s), tr("&Open Workspace…"), this);
    m_openWorkspaceAction->setShortcut(QKeySequence::Open);
    connect(m_openWorkspaceAction, &QAction::triggered, this, &MainWindow::chooseWorkspace);

    m_importAction = new QAction(QIcon::fromTheme(u"document-import"_s), tr("&Import Subscriptions…"), this);
    m_importAction->setToolTip(tr("Import event subscriptions exported from Azure (Resource Manager JSON) into the selected topic"));
    connect(m_importAction, &QAction::triggered, this, &MainWindow::importSubscriptions);

    m_exportAction = new QAction(QIcon::fromTheme(u"document-export"_s), tr("&Export Subscriptions…"), this);
    m_exportAction->setToolTip(tr("Export the selected topic's subscriptions as Resource Manager JSON"));
    connect(m_exportAction, &QAction::triggered, this, &MainWindow::exportSubscriptions);

    m_quitAction = new QAction(QIcon::fromTheme(u"application-exit"_s), tr("&Quit"), this);
    m_quitAction->setShortcut(QKeySequence::Quit);
    connect(m_quitAction, &QAction::triggered, this, &QWidget::close);

    m_newTopicAction = new QAction(QIcon::fromTheme(u"list-add"_s), tr("New &Topic…"), this);
    m_newTopicAction->setShortcut(QKeySequence(u"Ctrl+Shift+N"_s));
    connect(m_newTopicAction, &QAction::triggered, this, &MainWindow::newTopic);

    m_newSubscriptionAction = new QAction(QIcon::fromTheme(u"document-new"_s), tr("New &Subscription"), this);
    m_newSubscriptionAction->setShortcut(QKeySequence::New);
    connect(m_newSubscriptionAction, &QAction::triggered, this, &MainWindow::newSubscription);

    m_renameAction = new QAction(QIcon::fromTheme(u"edit-rename"_s), tr("&Rename…"), this);
    m_renameAction->setShortcut(QKeySequence(Qt::Key_F2));
    connect(m_renameAction, &QAction::triggered, this, &MainWindow::renameSelected);

    m_toggleEnabledAction = new QAction(QIcon::fromTheme(u"media-playback-pause"_s), tr("&Disable"), this);
    m_toggleEnabledAction->setShortcut(QKeySequence(u"Ctrl+D"_s));
    connect(m_toggleEnabledAction, &QAction::triggered, this, &MainWindow::toggleEnabled);

    m_deleteAction = new QAction(QIcon::fromTheme(u"edit-delete"_s), tr("De&lete…"), this);
    m_deleteAction->setShortcut(QKeySequence::Delete);
    m_deleteAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(m_deleteAction, &QAction::triggered, this, &MainWindow::deleteSelected);

    m_sendAction = new QAction(QIcon::fromTheme(u"mail-send"_s), tr("Send &Test Event…"), this);
    m_sendAction->setShortcut(QKeySequence(u"Ctrl+T"_s));
    m_sendAction->setToolTip(tr("Publish test events to the selected topic (Ctrl+T)"));
    connect(m_sendAction, &QAction::triggered, this, &MainWindow::showSendDialog);

    m_showDeadLettersAction = new QAction(QIcon::fromTheme(u"mail-mark-junk"_s), tr("Show &Dead Letters"), this);
    connect(m_showDeadLettersAction, &QAction::triggered, this, [this] {
        m_deadLetters->setFilterSubscription(selectedTopic(), selectedSubscription());
        m_tabs->setCurrentWidget(m_deadLetters);
    });

    m_secretStorageAction = new QAction(QIcon::fromTheme(u"dialog-password"_s), tr("&Secret Storage…"), this);
    m_secretStorageAction->setToolTip(tr("Where secret header values, topic keys and storage keys are kept"));
    connect(m_secretStorageAction, &QAction::triggered, this, &MainWindow::chooseSecretStorage);

    m_revalidateAction = new QAction(QIcon::fromTheme(u"view-refresh"_s), tr("&Validate Now"), this);
    m_revalidateAction->setToolTip(tr("Send the endpoint validation handshake of this subscription now, "
                                      "without waiting for the next scheduled attempt"));
    connect(m_revalidateAction, &QAction::triggered, this, [this] {
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

    m_topicKeyAction = new QAction(QIcon::fromTheme(u"dialog-password"_s), tr("Topic &Access Key…"), this);
    m_topicKeyAction->setToolTip(tr("Require publishers of this topic to send an access key (aeg-sas-key)"));
    connect(m_topicKeyAction, &QAction::triggered, this, &MainWindow::editTopicAccessKey);

    m_storageKeyAction = new QAction(QIcon::fromTheme(u"dialog-password"_s), tr("Storage Account &Key…"), this);
    m_storageKeyAction->setToolTip(tr("The key of the Azure Storage account this subscription dead-letters to"));
    connect(m_storageKeyAction, &QAction::triggered, this, &MainWindow::editStorageAccountKey);

    m_aboutAction = new QAction(tr("&About EventDesk"), this);
    connect(m_aboutAction, &QAction::triggered, this, [this] {
        QMessageBox::about(this, tr("About EventDesk"),
                           tr("<h3>EventDesk %1</h3><p>Azure Event Grid delivery and retry semantics on "
                              "your own machine: topics, subscriptions, retries, batching, probation "
                              "and dead-lettering, persisted and observable.</p><p>Qt %2</p>")
                               .arg(QCoreApplication::applicationVersion(), QString::fromLatin1(qVersion())));
    });
}

void MainWindow::createViews()
{
    m_treeModel = new WorkspaceTreeModel(this);
    m_tree = new QTreeView;
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
    m_tree->addAction(m_deleteAction);
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this, &MainWindow::onSelectionChanged);
    connect(m_tree, &QWidget::customContextMenuRequested, this, [this](const QPoint &position) {
        QMenu menu(this);
        menu.addAction(m_sendAction);
        menu.addSeparator();
        menu.addAction(m_newSubscriptionAction);
        menu.addAction(m_newTopicAction);
        if (m_tree->indexAt(position).isValid()) {
            menu.addSeparator();
            menu.addAction(m_renameAction);
            if (!selectedSubscription().isEmpty()) {
                menu.addAction(m_toggleEnabledAction);
                menu.addAction(m_showDeadLettersAction);
                menu.addAction(m_revalidateAction);
                menu.addAction(m_storageKeyAction);
            }
            menu.addAction(m_deleteAction);
            menu.addSeparator();
            menu.addAction(m_topicKeyAction);
            menu.addAction(m_exportAction);
            menu.addAction(m_importAction);
        }
        menu.exec(m_tree->viewport()->mapToGlobal(position));
    });

    m_dashboard = new DashboardView;
    m_editor = new SubscriptionEditor;
    m_log = new DeliveryLogView;
    m_deadLetters = new DeadLetterBrowser(&m_host);

    connect(m_editor, &SubscriptionEditor::saveRequested, this, &MainWindow::storeSecretsThenSave);
    connect(m_editor, &SubscriptionEditor::revertRequested, this, [this] {
        if (m_editingIsNew) {
            m_editingTopic.clear();
            m_editingSubscription.clear();
            m_editingIsNew = false;
            m_editor->setEnabled(false);
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
        inspector->setStorePath(m_host.storePath());
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
    m_tabs->addTab(new ReceiversView(&m_host), QIcon::fromTheme(u"network-server"_s), tr("Test Receivers"));
    for (int i = 0; i < m_tabs->count(); ++i) {
        auto *shortcut = new QAction(this);
        shortcut->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)));
        connect(shortcut, &QAction::triggered, this, [this, i] { m_tabs->setCurrentIndex(i); });
        addAction(shortcut);
        m_tabs->setTabToolTip(i, tr("%1 (Ctrl+%2)").arg(m_tabs->tabText(i)).arg(i + 1));
    }
    m_editor->setEnabled(false);
    connect(m_tabs, &QTabWidget::currentChanged, this, [this] {
        if (m_tabs->currentWidget() == m_deadLetters && m_deadLettersStale) {
            m_deadLettersStale = false;
            m_deadLetters->reload();
        }
    });

    m_splitter = new QSplitter(Qt::Horizontal);
    m_splitter->addWidget(m_tree);
    m_splitter->addWidget(m_tabs);
    m_splitter->setStretchFactor(0, 0);
    m_splitter->setStretchFactor(1, 1);
    m_splitter->setSizes({700, 900});
    setCentralWidget(m_splitter);

    m_listenLabel = new QLabel;
    m_stateLabel = new QLabel(tr("Starting…"));
    m_totalsLabel = new QLabel;
    m_listenLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_secretsLabel = new QLabel;
    m_secretsLabel->setTextFormat(Qt::RichText);
    m_secretsLabel->setVisible(false);
    connect(m_secretsLabel, &QLabel::linkActivated, this, &MainWindow::chooseSecretStorage);
    statusBar()->addWidget(m_stateLabel);
    statusBar()->addWidget(m_listenLabel);
    statusBar()->addWidget(m_secretsLabel);
    statusBar()->addPermanentWidget(m_totalsLabel);
}

void MainWindow::createMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_newWorkspaceAction);
    file->addAction(m_openWorkspaceAction);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addSeparator();
    file->addAction(m_importAction);
    file->addAction(m_exportAction);
    file->addSeparator();
    file->addAction(m_quitAction);

    QMenu *workspace = menuBar()->addMenu(tr("&Workspace"));
    workspace->addAction(m_newTopicAction);
    workspace->addAction(m_newSubscriptionAction);
    workspace->addSeparator();
    workspace->addAction(m_renameAction);
    workspace->addAction(m_toggleEnabledAction);
    workspace->addAction(m_deleteAction);
    workspace->addSeparator();
    workspace->addAction(m_showDeadLettersAction);
    workspace->addAction(m_revalidateAction);
    workspace->addSeparator();
    workspace->addAction(m_topicKeyAction);
    workspace->addAction(m_storageKeyAction);
    workspace->addAction(m_secretStorageAction);

    QMenu *events = menuBar()->addMenu(tr("&Events"));
    events->addAction(m_sendAction);

    QMenu *view = menuBar()->addMenu(tr("&View"));
    for (int i = 0; i < m_tabs->count(); ++i) {
        QAction *action = view->addAction(m_tabs->tabText(i), this, [this, i] { m_tabs->setCurrentIndex(i); });
        action->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)));
        action->setShortcutContext(Qt::WidgetShortcut); // the window-wide shortcut is registered once
    }

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(m_aboutAction);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);

    QToolBar *toolbar = addToolBar(tr("Main"));
    toolbar->setObjectName(u"mainToolbar"_s);
    toolbar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    toolbar->addAction(m_sendAction);
    toolbar->addSeparator();
    toolbar->addAction(m_newSubscriptionAction);
    toolbar->addAction(m_toggleEnabledAction);
    toolbar->addAction(m_deleteAction);
    rebuildRecentMenu();
}

void MainWindow::restoreWindowState()
{
    QSettings settings;
    if (!restoreGeometry(settings.value(u"window/geometry"_s).toByteArray()))
        resize(1440, 900);
    restoreState(settings.value(u"window/state"_s).toByteArray());
    m_splitter->restoreState(settings.value(u"window/splitter"_s).toByteArray());
    m_tree->header()->restoreState(settings.value(u"window/treeHeader"_s).toByteArray());
}

void MainWindow::saveWindowState()
{
    QSettings settings;
    settings.setValue(u"window/geometry"_s, saveGeometry());
    settings.setValue(u"window/state"_s, saveState());
    settings.setValue(u"window/splitter"_s, m_splitter->saveState());
    settings.setValue(u"window/treeHeader"_s, m_tree->header()->saveState());
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (!confirmLeavingEditor()) {
        event->ignore();
        return;
    }
    saveWindowState();
    m_stateLabel->setText(tr("Stopping…"));
    m_host.stop();
    event->accept();
}

void MainWindow::openWorkspace(const QString &directory)
{
    if (!confirmLeavingEditor())
        return;
    m_workspaceDirectory = QDir(directory).absolutePath();
    m_editingTopic.clear();
    m_editingSubscription.clear();
    m_editor->setEnabled(false);
    m_host.stop();
    EngineHost::Config config;
    config.workspaceDirectory = m_workspaceDirectory;
    config.listenHost = m_options.listenHost;
    config.listenPort = m_options.listenPort;
    config.timeScale = m_options.timeScale;
    config.jitter = m_options.jitter;
    config.secrets = m_secretCache;
    QHostAddress address(m_options.listenHost);
    if (m_options.listenHost.compare(u"localhost"_s, Qt::CaseInsensitive) == 0)
        address = QHostAddress::LocalHost;
    if (config.listenPort == 0)
        config.listenPort = TopicEndpoint::findFreePort(address);
    setWindowTitle(tr("%1[*] — EventDesk").arg(QFileInfo(m_workspaceDirectory).fileName()));

    // The secrets the workspace needs are loaded before its engine starts, so that the first
    // deliveries already carry their secret headers.
    const QString host = m_options.listenHost.contains(u':') ? u'[' + m_options.listenHost + u']' : m_options.listenHost;
    auto workspace = WorkspaceFolder::openOrCreate(m_workspaceDirectory,
                                                   u"http://%1:%2"_s.arg(host).arg(config.listenPort));
    if (!workspace) {
        onEngineStarted(false, workspace.error(), QString());
        return;
    }
    m_stateLabel->setText(tr("Loading secrets…"));
    QPointer<MainWindow> self(this);
    m_secretCache->load(workspace.value(), [self, config](const QList<SecretProblem> &problems) {
        if (!self)
            return;
        self->m_secretProblems = problems;
        self->updateSecretsStatus();
        self->m_stateLabel->setText(tr("Starting engine…"));
        self->m_host.start(config);
    });
}

void MainWindow::onEngineStarted(bool ok, const QString &error, const QString &listenUrl)
{
    if (!ok) {
        m_stateLabel->setText(tr("Engine stopped"));
        m_listenLabel->clear();
        QMessageBox::critical(this, tr("Cannot open workspace"),
                              tr("The workspace %1 could not be opened:\n\n%2").arg(m_workspaceDirectory, error));
        return;
    }
    addRecentWorkspace(m_workspaceDirectory);
    QSettings().setValue(u"workspace/last"_s, m_workspaceDirectory);
    m_workspace = m_host.workspace();
    m_treeModel->setWorkspace(m_workspace);
    m_tree->expandAll();
    m_stateLabel->setText(tr("Engine running"));
    m_listenLabel->setText(tr("Topic endpoint: %1/topics/<topic>/api/events").arg(listenUrl));
    m_log->setStorePath(m_host.storePath());
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

void MainWindow::onSnapshot(const EngineSnapshot &snapshot)
{
    m_lastSnapshot = snapshot;
    m_treeModel->applySnapshot(snapshot);
    m_dashboard->addSnapshot(snapshot);
    quint64 published = 0;
    for (const TopicSnapshot &topic : snapshot.topics)
        published += topic.published;
    quint64 delivered = 0;
    quint64 failed = 0;
    quint64 deadLettered = 0;
    quint64 dropped = 0;
    int inProbation = 0;
    for (const SubscriptionSnapshot &subscription : snapshot.subscriptions) {
        delivered += subscription.delivered;
        for (quint64 value : subscription.failedByOutcome)
            failed += value;
        for (quint64 value : subscription.deadLetteredByReason)
            deadLettered += value;
        for (quint64 value : subscription.droppedByReason)
            dropped += value;
        if (subscription.probationState != ProbationTracker::State::Healthy)
            ++inProbation;
    }
    // New dead letters show up in the browser while it is on screen (unless the user is working
    // on a selection there); otherwise it reloads when its tab is opened.
    if (deadLettered != m_shownDeadLetterTotal) {
        m_shownDeadLetterTotal = deadLettered;
        if (m_tabs->currentWidget() == m_deadLetters && !m_deadLetters->tableView()->selectionModel()->hasSelection())
            m_deadLetters->reload();
        else
            m_deadLettersStale = true;
    }
    m_totalsLabel->setText(tr("Published %1 · Delivered %2 · Failed attempts %3 · Dead-lettered %4 · Dropped %5")
                               .arg(published)
                               .arg(delivered)
                               .arg(failed)
                               .arg(deadLettered)
                               .arg(dropped));
    m_stateLabel->setText(inProbation ? tr("Engine running — %n subscription(s) in probation", nullptr, inProbation)
                                      : tr("Engine running"));
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
    m_editor->setEnabled(true);
    m_editor->setSubscription(*topic, topic->eventSubscriptions.at(index), false);
}

void MainWindow::updateActions()
{
    const bool running = m_host.isRunning();
    const bool hasTopic = !selectedTopic().isEmpty();
    const bool hasSubscription = !selectedSubscription().isEmpty();
    m_newTopicAction->setEnabled(running);
    m_newSubscriptionAction->setEnabled(running && hasTopic);
    m_renameAction->setEnabled(running && hasTopic);
    m_deleteAction->setEnabled(running && hasTopic);
    m_toggleEnabledAction->setEnabled(running && hasSubscription);
    m_showDeadLettersAction->setEnabled(running && hasSubscription);
    m_revalidateAction->setEnabled(running && hasSubscription);
    m_topicKeyAction->setEnabled(running && hasTopic);
    bool azureDestination = false;
    if (hasSubscription) {
        if (const Topic *topic = m_workspace.findTopic(selectedTopic())) {
            const qsizetype index = findSubscription(*topic, selectedSubscription());
            azureDestination = index >= 0
                && topic->eventSubscriptions.at(index).deadLetterDestination.kind == DeadLetterDestination::Kind::AzureBlob;
        }
    }
    m_storageKeyAction->setEnabled(running && azureDestination);
    m_sendAction->setEnabled(running && !m_workspace.topics.isEmpty());
    m_importAction->setEnabled(running && hasTopic);
    m_exportAction->setEnabled(running && hasTopic);
    bool enabled = true;
    if (hasSubscription) {
        if (const Topic *topic = m_workspace.findTopic(selectedTopic())) {
            const qsizetype index = findSubscription(*topic, selectedSubscription());
            if (index >= 0)
                enabled = topic->eventSubscriptions.at(index).enabled;
        }
    }
    m_toggleEnabledAction->setText(enabled ? tr("&Disable") : tr("&Enable"));
    m_toggleEnabledAction->setIcon(QIcon::fromTheme(enabled ? u"media-playback-pause"_s : u"media-playback-start"_s));
    m_toggleEnabledAction->setToolTip(enabled ? tr("Pause deliveries to this subscription; its backlog waits (Ctrl+D)")
                                              : tr("Resume deliveries to this subscription (Ctrl+D)"));
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
    m_host.applyWorkspace(workspace, [self, workspace, successMessage](const Expected<void> &result) {
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
    m_host.applyWorkspace(changed, [self, changed, topicName, subscription](const Expected<void> &result) {
        if (!self)
            return;
        if (!result) {
            self->m_editor->showSaveError(result.error());
            return;
        }
        self->m_workspace = changed;
        self->m_treeModel->setWorkspace(changed);
        self->m_tree->expandAll();
        self->m_secretCache->load(changed, [self](const QList<SecretProblem> &problems) {
            if (self) {
                self->m_secretProblems = problems;
                self->updateSecretsStatus();
            }
        });
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
            if (state.topic == topicName && state.subscription == subscription.name && subscription.validationEnabled
                && state.provisioningState != ProvisioningState::Succeeded)
                self->m_host.revalidateSubscription(topicName, subscription.name, [](const Expected<void> &) {});
        }
    });
}

void MainWindow::newWorkspace()
{
    const QString directory = QFileDialog::getExistingDirectory(this, tr("New Workspace — choose an empty folder"),
                                                                QDir::homePath());
    if (directory.isEmpty())
        return;
    if (!QDir(directory).isEmpty()) {
        QMessageBox::warning(this, tr("Folder not empty"),
                             tr("%1 is not empty. Choose an empty folder for a new workspace, or use Open Workspace.")
                                 .arg(directory));
        return;
    }
    openWorkspace(directory);
}

void MainWindow::chooseWorkspace()
{
    const QString directory = QFileDialog::getExistingDirectory(this, tr("Open Workspace"),
                                                                m_workspaceDirectory.isEmpty() ? QDir::homePath()
                                                                                               : m_workspaceDirectory);
    if (directory.isEmpty())
        return;
    if (!QFileInfo::exists(WorkspaceFolder::workspaceFile(directory))) {
        const auto answer = QMessageBox::question(
            this, tr("No workspace here"),
            tr("%1 has no workspace.json. Create a new workspace in this folder?").arg(directory));
        if (answer != QMessageBox::Yes)
            return;
    }
    openWorkspace(directory);
}

void MainWindow::addRecentWorkspace(const QString &directory)
{
    QSettings settings;
    QStringList recent = settings.value(u"workspace/recent"_s).toStringList();
    recent.removeAll(directory);
    recent.prepend(directory);
    while (recent.size() > MaxRecentWorkspaces)
        recent.removeLast();
    settings.setValue(u"workspace/recent"_s, recent);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList recent = QSettings().value(u"workspace/recent"_s).toStringList();
    for (const QString &directory : recent) {
        QAction *action = m_recentMenu->addAction(directory, this, [this, directory] { openWorkspace(directory); });
        action->setEnabled(QFileInfo(directory).isDir());
    }
    m_recentMenu->setEnabled(!recent.isEmpty());
}

void MainWindow::newTopic()
{
    QDialog dialog(this);
    dialog.setWindowTitle(tr("New Topic"));
    auto *name = new QLineEdit;
    name->setPlaceholderText(tr("3–50 letters, digits or hyphens"));
    auto *schema = new QComboBox;
    schema->addItem(tr("Event Grid schema"), int(EventSchema::EventGrid));
    schema->addItem(tr("CloudEvents 1.0"), int(EventSchema::CloudEvents10));
    auto *error = new QLabel;
    error->setStyleSheet(u"color: #d03636"_s);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    auto *form = new QFormLayout(&dialog);
    form->addRow(tr("&Name:"), name);
    form->addRow(tr("&Input schema:"), schema);
    form->addRow(error);
    form->addRow(buttons);
    auto validate = [&] {
        QString message;
        if (!isValidTopicName(name->text()))
            message = tr("The name must be 3 to 50 characters: letters, digits or hyphens.");
        else if (m_workspace.findTopic(name->text()))
            message = tr("A topic named %1 already exists.").arg(name->text());
        error->setText(message);
        buttons->button(QDialogButtonBox::Ok)->setEnabled(message.isEmpty());
    };
    connect(name, &QLineEdit::textChanged, &dialog, validate);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    validate();
    error->clear();
    if (dialog.exec() != QDialog::Accepted)
        return;
    Workspace changed = m_workspace;
    Topic topic;
    topic.name = name->text();
    topic.inputSchema = EventSchema(schema->currentData().toInt());
    changed.topics.append(topic);
    applyWorkspace(changed, tr("Created topic %1").arg(topic.name));
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
    subscription.endpointUrl = QUrl(m_host.listenUrl() + u"/receivers/demo"_s);
    subscription.deliverySchema = topic->inputSchema;
    m_editingTopic = topic->name;
    m_editingSubscription = subscription.name;
    m_editingIsNew = true;
    m_editor->setEnabled(true);
    m_editor->setSubscription(*topic, subscription, true);
    m_tabs->setCurrentWidget(m_editor);
}

void MainWindow::renameSelected()
{
    const QString topicName = selectedTopic();
    const QString subscriptionName = selectedSubscription();
    Workspace changed = m_workspace;
    Topic *topic = findTopic(changed, topicName);
    if (!topic)
        return;
    const bool isSubscription = !subscriptionName.isEmpty();
    const QString current = isSubscription ? subscriptionName : topic->name;
    bool ok = false;
    const QString name = QInputDialog::getText(
        this, isSubscription ? tr("Rename Subscription") : tr("Rename Topic"),
        isSubscription ? tr("New name (3–64 letters, digits or hyphens).\nDeliveries still waiting under the old name are dropped.")
                       : tr("New name (3–50 letters, digits or hyphens).\nDeliveries still waiting for its subscriptions are dropped."),
        QLineEdit::Normal, current, &ok);
    if (!ok || name == current)
        return;
    if (isSubscription) {
        const qsizetype index = findSubscription(*topic, subscriptionName);
        if (findSubscription(*topic, name) >= 0 && name.compare(current, Qt::CaseInsensitive) != 0) {
            QMessageBox::warning(this, tr("Name in use"), tr("Topic %1 already has a subscription named %2.").arg(topic->name, name));
            return;
        }
        EventSubscription renamed = topic->eventSubscriptions.at(index);
        renamed.name = name;
        if (auto valid = validateEventSubscription(renamed, topic->inputSchema); !valid) {
            QMessageBox::warning(this, tr("Invalid name"), valid.error());
            return;
        }
        topic->eventSubscriptions[index] = renamed;
    } else {
        if (!isValidTopicName(name)) {
            QMessageBox::warning(this, tr("Invalid name"), tr("The name must be 3 to 50 characters: letters, digits or hyphens."));
            return;
        }
        if (m_workspace.findTopic(name) && name.compare(current, Qt::CaseInsensitive) != 0) {
            QMessageBox::warning(this, tr("Name in use"), tr("A topic named %1 already exists.").arg(name));
            return;
        }
        topic->name = name;
    }
    m_editor->markSaved();
    m_editingTopic.clear();
    m_editingSubscription.clear();
    m_editor->setEnabled(false);
    applyWorkspace(changed, tr("Renamed %1 to %2").arg(current, name));
}

void MainWindow::toggleEnabled()
{
    Workspace changed = m_workspace;
    Topic *topic = findTopic(changed, selectedTopic());
    if (!topic)
        return;
    const qsizetype index = findSubscription(*topic, selectedSubscription());
    if (index < 0)
        return;
    EventSubscription &subscription = topic->eventSubscriptions[index];
    subscription.enabled = !subscription.enabled;
    applyWorkspace(changed, subscription.enabled ? tr("Enabled %1").arg(subscription.name)
                                                 : tr("Disabled %1: its backlog waits").arg(subscription.name));
}

void MainWindow::deleteSelected()
{
    const QString topicName = selectedTopic();
    const QString subscriptionName = selectedSubscription();
    Workspace changed = m_workspace;
    Topic *topic = findTopic(changed, topicName);
    if (!topic)
        return;
    qint64 waiting = 0;
    qint64 deadLetterWrites = 0;
    for (const SubscriptionSnapshot &state : std::as_const(m_lastSnapshot.subscriptions)) {
        if (state.topic.compare(topicName, Qt::CaseInsensitive) != 0)
            continue;
        if (!subscriptionName.isEmpty() && state.subscription.compare(subscriptionName, Qt::CaseInsensitive) != 0)
            continue;
        waiting += state.backlog + state.inFlight;
        deadLetterWrites += state.deadLetterPending;
    }
    const QString what = subscriptionName.isEmpty() ? tr("topic %1 and its %n subscription(s)", nullptr,
                                                         int(topic->eventSubscriptions.size()))
                                                          .arg(topicName)
                                                    : tr("subscription %1").arg(subscriptionName);
    QString detail = tr("Dead letters already written stay in the dead-letter browser.");
    if (waiting || deadLetterWrites) {
        detail = tr("%1 deliveries are still waiting and %2 dead-letter writes are pending. Deleting drops them: "
                    "they are recorded as Dropped with reason SubscriptionDeleted and are not delivered. ")
                     .arg(waiting)
                     .arg(deadLetterWrites)
            + detail;
    }
    QMessageBox box(QMessageBox::Warning, tr("Delete"), tr("Delete %1?").arg(what), QMessageBox::Cancel, this);
    box.setInformativeText(detail);
    QPushButton *deleteButton = box.addButton(tr("Delete"), QMessageBox::DestructiveRole);
    box.setDefaultButton(QMessageBox::Cancel);
    box.exec();
    if (box.clickedButton() != deleteButton)
        return;
    if (subscriptionName.isEmpty()) {
        changed.topics.removeIf([&](const Topic &candidate) {
            return candidate.name.compare(topicName, Qt::CaseInsensitive) == 0;
        });
    } else {
        topic->eventSubscriptions.removeAt(findSubscription(*topic, subscriptionName));
    }
    if (m_editingTopic.compare(topicName, Qt::CaseInsensitive) == 0
        && (subscriptionName.isEmpty() || m_editingSubscription.compare(subscriptionName, Qt::CaseInsensitive) == 0)) {
        m_editor->markSaved();
        m_editor->setEnabled(false);
        m_editingTopic.clear();
        m_editingSubscription.clear();
    }
    applyWorkspace(changed, tr("Deleted %1").arg(what));
}

void MainWindow::importSubscriptions()
{
    const QString topicName = selectedTopic();
    Workspace changed = m_workspace;
    Topic *topic = findTopic(changed, topicName);
    if (!topic)
        return;
    const QString path = QFileDialog::getOpenFileName(this, tr("Import Event Subscriptions into %1").arg(topicName),
                                                      QDir::homePath(), tr("JSON files (*.json);;All files (*)"));
    if (path.isEmpty())
        return;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        QMessageBox::warning(this, tr("Import failed"), tr("Cannot read %1: %2").arg(path, file.errorString()));
        return;
    }
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        QMessageBox::warning(this, tr("Import failed"),
                             tr("%1 is not valid JSON at offset %2: %3")
                                 .arg(path)
                                 .arg(parseError.offset)
                                 .arg(parseError.errorString()));
        return;
    }
    // One subscription, an array of them, or a Resource Manager list ({"value":[...]}).
    QJsonArray items;
    if (document.isArray())
        items = document.array();
    else if (document.object().value(u"value"_s).isArray())
        items = document.object().value(u"value"_s).toArray();
    else
        items.append(document.object());
    QStringList imported;
    for (qsizetype i = 0; i < items.size(); ++i) {
        auto subscription = eventSubscriptionFromArm(items.at(i).toObject(), u"%1[%2]"_s.arg(QFileInfo(path).fileName()).arg(i),
                                                     topic->inputSchema);
        if (!subscription) {
            QMessageBox::warning(this, tr("Import failed"), subscription.error());
            return;
        }
        if (findSubscription(*topic, subscription->name) >= 0) {
            QMessageBox::warning(this, tr("Import failed"),
                                 tr("Topic %1 already has a subscription named %2.").arg(topic->name, subscription->name));
            return;
        }
        imported.append(subscription->name);
        topic->eventSubscriptions.append(subscription.value());
    }
    applyWorkspace(changed, tr("Imported %n subscription(s): %1", nullptr, int(imported.size())).arg(imported.join(u", "_s)));
}

void MainWindow::exportSubscriptions()
{
    const Topic *topic = m_workspace.findTopic(selectedTopic());
    if (!topic)
        return;
    const QString subscriptionName = selectedSubscription();
    QJsonArray items;
    for (const EventSubscription &subscription : topic->eventSubscriptions) {
        if (subscriptionName.isEmpty() || subscription.name.compare(subscriptionName, Qt::CaseInsensitive) == 0)
            items.append(eventSubscriptionToArm(subscription));
    }
    const QString suggested = QDir(QDir::homePath())
                                  .filePath((subscriptionName.isEmpty() ? topic->name : subscriptionName)
                                            + u"-subscriptions.json"_s);
    const QString path = QFileDialog::getSaveFileName(this, tr("Export Event Subscriptions"), suggested,
                                                      tr("JSON files (*.json)"));
    if (path.isEmpty())
        return;
    QSaveFile file(path);
    const QByteArray json = QJsonDocument(items).toJson(QJsonDocument::Indented);
    if (!file.open(QIODevice::WriteOnly) || file.write(json) != json.size() || !file.commit()) {
        QMessageBox::warning(this, tr("Export failed"), tr("Cannot write %1: %2").arg(path, file.errorString()));
        return;
    }
    statusBar()->showMessage(tr("Exported %n subscription(s) to %1", nullptr, int(items.size())).arg(path), 5000);
}

SecretStore *MainWindow::activeSecretStore() const
{
    return m_alternativeSecretStore ? m_alternativeSecretStore.get() : m_keychain.get();
}

void MainWindow::updateSecretsStatus()
{
    SecretStore *store = activeSecretStore();
    QString text;
    QStringList details;
    if (store->availability() == SecretStore::Availability::Unavailable) {
        text = tr("⚠ Secrets unavailable: %1 — <a href=\"choose\">choose where to keep them…</a>")
                   .arg(store->unavailabilityReason().toHtmlEscaped());
    } else if (!store->warning().isEmpty()) {
        text = tr("⚠ %1").arg(store->warning().toHtmlEscaped());
    }
    for (const SecretProblem &problem : std::as_const(m_secretProblems))
        details << tr("%1: %2").arg(problem.purpose, problem.reason);
    if (!m_secretProblems.isEmpty()) {
        if (text.isEmpty())
            text = tr("⚠ %n secret(s) unavailable — <a href=\"choose\">details…</a>", nullptr,
                      int(m_secretProblems.size()));
    }
    m_secretsLabel->setText(text);
    m_secretsLabel->setToolTip(details.join(u'\n'));
    m_secretsLabel->setVisible(!text.isEmpty());
}

void MainWindow::chooseSecretStorage()
{
    QMessageBox box(this);
    box.setWindowTitle(tr("Secret Storage"));
    box.setIcon(QMessageBox::Information);
    SecretStore *store = activeSecretStore();
    QString state = tr("Secrets are kept in: %1.").arg(store->description());
    if (store->availability() == SecretStore::Availability::Unavailable)
        state = tr("The system keychain cannot be used: %1").arg(store->unavailabilityReason());
    box.setText(state);
    QStringList lines;
    for (const SecretProblem &problem : std::as_const(m_secretProblems))
        lines << tr("• %1 — %2").arg(problem.purpose, problem.reason);
    QString informative = tr("Secret delivery-header values, topic access keys and storage account keys are never "
                             "written to workspace.json, the store or logs. Without a working keychain you can "
                             "keep them for this run only (they are lost when EventDesk quits), or store them in a "
                             "file readable only by you (plain text on disk).");
    if (!lines.isEmpty())
        informative += u"\n\n"_s + tr("Unavailable now:") + u'\n' + lines.join(u'\n');
    box.setInformativeText(informative);
    QPushButton *keychainButton = box.addButton(tr("Use the System Keychain"), QMessageBox::AcceptRole);
    QPushButton *memoryButton = box.addButton(tr("Keep for This Run Only"), QMessageBox::ActionRole);
    QPushButton *fileButton = box.addButton(tr("Store in a Private File"), QMessageBox::ActionRole);
    box.addButton(QMessageBox::Cancel);
    box.exec();
    QAbstractButton *clicked = box.clickedButton();
    if (clicked == keychainButton) {
        static_cast<KeychainSecretStore *>(m_keychain.get())->checkAvailability();
        useSecretStore(nullptr);
    } else if (clicked == memoryButton) {
        useSecretStore(std::make_unique<MemorySecretStore>(MemorySecretStore::Usage::ThisRunOnly));
    } else if (clicked == fileButton) {
        useSecretStore(std::make_unique<FileSecretStore>(FileSecretStore::defaultFilePath()));
    }
}

void MainWindow::useSecretStore(std::unique_ptr<SecretStore> store)
{
    // The engine holds the cache: start it again on a cache over the chosen store.
    m_alternativeSecretStore = std::move(store);
    m_secretCache = std::make_shared<SecretCache>(QList<SecretStore *>{activeSecretStore()});
    updateSecretsStatus();
    if (!m_workspaceDirectory.isEmpty())
        openWorkspace(m_workspaceDirectory);
}

void MainWindow::storeSecretsThenSave(EventSubscription subscription)
{
    // SPEC H2: a secret header's value goes to the secret store, never into workspace.json; an
    // empty value means "keep the stored one".
    QList<std::pair<QString, QString>> pending;
    for (DeliveryHeader &header : subscription.deliveryHeaders) {
        if (header.kind != DeliveryHeader::Kind::Static || !header.secret || header.value.isEmpty())
            continue;
        pending.append({SecretKeys::deliveryHeader(m_editingTopic, subscription.name, header.name), header.value});
        header.value.clear();
    }
    if (pending.isEmpty()) {
        saveSubscription(subscription);
        return;
    }
    SecretStore *store = activeSecretStore();
    if (store->availability() == SecretStore::Availability::Unavailable) {
        m_editor->showSaveError(tr("Secret header values cannot be stored: %1. Choose where to keep secrets "
                                   "(Workspace ▸ Secret Storage…) and save again.")
                                    .arg(store->unavailabilityReason()));
        return;
    }
    auto remaining = std::make_shared<int>(int(pending.size()));
    auto failure = std::make_shared<QString>();
    QPointer<MainWindow> self(this);
    for (const auto &[key, value] : std::as_const(pending)) {
        store->write(key, value, [self, key, value, remaining, failure, subscription](const Expected<void> &result) {
            if (!self)
                return;
            if (result)
                self->m_secretCache->setValue(key, value);
            else if (failure->isEmpty())
                *failure = result.error();
            if (--*remaining > 0)
                return;
            if (!failure->isEmpty()) {
                self->m_editor->showSaveError(tr("A secret header value could not be stored: %1").arg(*failure));
                return;
            }
            self->saveSubscription(subscription);
        });
    }
}

bool MainWindow::askForSecret(const QString &title, const QString &label, QString &value)
{
    QDialog dialog(this);
    dialog.setWindowTitle(title);
    auto *edit = new QLineEdit(value);
    edit->setEchoMode(QLineEdit::Password);
    edit->setMinimumWidth(360);
    auto *reveal = new QCheckBox(tr("&Show"));
    connect(reveal, &QCheckBox::toggled, edit, [edit](bool shown) {
        edit->setEchoMode(shown ? QLineEdit::Normal : QLineEdit::Password);
    });
    auto *hint = new QLabel(tr("Kept in: %1").arg(activeSecretStore()->description()));
    hint->setWordWrap(true);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    auto *row = new QHBoxLayout;
    row->addWidget(edit, 1);
    row->addWidget(reveal);
    auto *form = new QFormLayout(&dialog);
    form->addRow(new QLabel(label));
    form->addRow(row);
    form->addRow(hint);
    form->addRow(buttons);
    if (dialog.exec() != QDialog::Accepted)
        return false;
    value = edit->text();
    return true;
}

void MainWindow::editTopicAccessKey()
{
    const QString topic = selectedTopic();
    if (topic.isEmpty())
        return;
    QString key = m_secretCache->value(SecretKeys::topicAccessKey(topic));
    if (!askForSecret(tr("Access Key of %1").arg(topic),
                      tr("Publishers must send this key in the aeg-sas-key header (or query parameter).\n"
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
    QString key = m_secretCache->value(SecretKeys::storageAccountKey(account));
    if (!askForSecret(tr("Key of Storage Account %1").arg(account),
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
    const QString secretKey = SecretKeys::topicAccessKey(topicName);
    SecretStore *store = activeSecretStore();
    QPointer<MainWindow> self(this);
    auto apply = [self, topicName, secretKey, key, done](const Expected<void> &result) {
        if (!self)
            return;
        if (!result) {
            done(result);
            return;
        }
        if (key.isEmpty())
            self->m_secretCache->removeValue(secretKey);
        else
            self->m_secretCache->setValue(secretKey, key);
        // The workspace declares that the topic has a key (a reference, never the key itself).
        Workspace changed = self->m_workspace;
        Topic *topic = findTopic(changed, topicName);
        if (!topic) {
            done(Error(tr("The topic %1 no longer exists.").arg(topicName)));
            return;
        }
        topic->accessKeySecretRef = key.isEmpty() ? QString() : secretKey;
        self->m_host.applyWorkspace(changed, [self, changed, done](const Expected<void> &applied) {
            if (self && applied.hasValue())
                self->m_workspace = changed;
            done(applied);
        });
    };
    if (key.isEmpty())
        store->remove(secretKey, apply);
    else
        store->write(secretKey, key, apply);
}

void MainWindow::setStorageAccountKey(const QString &account, const QString &key,
                                      std::function<void(const Expected<void> &)> done)
{
    const QString secretKey = SecretKeys::storageAccountKey(account);
    QPointer<MainWindow> self(this);
    activeSecretStore()->write(secretKey, key, [self, secretKey, key, done](const Expected<void> &result) {
        if (self && result.hasValue())
            self->m_secretCache->setValue(secretKey, key);
        done(result);
    });
}

} // namespace EventDesk::Ui
