// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ListenPorts.h"
#include "WorkspaceChanges.h"
#include "WorkspaceInUseDialog.h"
#include "WorkspaceSecrets.h"
#include "host/EngineHost.h"
#include "model/Workspace.h"

#include <QIcon>
#include <QMainWindow>
#include <QPointer>

#include <functional>
#include <memory>

class QSplitter;
class QTabWidget;
class QTreeView;

namespace EventDesk {
class SecretStore;
} // namespace EventDesk

namespace EventDesk::Ui {

class DashboardView;
class DeadLetterBrowser;
class DeliveryLogView;
class MainStatusBar;
class MainWindowActions;
class Banner;
class MonitorMode;
class SharedWorkspaceMode;
class StoreTotalsPoller;
struct SharedWorkspaceLocation;
class WindowNotices;
class ReceiversView;
class SubscriptionEditor;
class WorkspaceFolders;
class WorkspaceLayout;
class WorkspaceTreeModel;

// The desktop app's window: workspace tree on the left, the dashboard, the subscription editor,
// the delivery log and the dead-letter browser in tabs, totals in the status bar. The engine runs
// on its own thread behind EngineHost; this window only sends it requests and shows snapshots.
//
// The window lays out the views and keeps what they share: the open workspace, the selection and
// the subscription in the editor. Its commands are MainWindowActions, its status bar
// MainStatusBar, the workspace changes behind the commands WorkspaceChanges, the choice of
// folders WorkspaceFolders, the secrets WorkspaceSecrets, and the read-only monitor of a workspace
// another engine owns MonitorMode.
class MainWindow final : public QMainWindow
{
    Q_OBJECT

public:
    struct Options
    {
        ListenAddress listen; // --listen: its port is the usual one (ListenPorts)
        bool listenFromCommandLine = false; // --listen given: it wins over Listen On… choices
        double timeScale = 1.0;
        bool jitter = true;
    };

    explicit MainWindow(Options options, QWidget *parent = nullptr);
    ~MainWindow() override;

    // Opens (or creates, with the demo content) the workspace folder and starts its engine. When
    // another engine owns it, asks what to do instead (setWorkspaceInUseHandler()): open it as a
    // read-only monitor, open another workspace, or leave the window as it is.
    void openWorkspace(const QString &directory);
    // Tests answer the question through handler instead of WorkspaceInUseDialog.
    void setWorkspaceInUseHandler(WorkspaceInUseHandler handler);
    // The window shows a workspace that another engine owns, read-only.
    bool isMonitoring() const { return m_host.isMonitoring(); }
    // File ▸ Open Shared Workspace… (MainWindowSharedWorkspace.cpp): asks for the location of a
    // PostgreSQL store that eventdeskd instances share, then monitors it. The recent list keeps
    // its URL without the password; a password the user chose to remember goes to the secret
    // store.
    void askForSharedWorkspace();
    void openSharedWorkspace(const SharedWorkspaceLocation &location);
    SharedWorkspaceMode *sharedWorkspaceMode() const { return m_sharedMode; }
    // File ▸ Import / Export workspace.json… on a shared workspace, the file chosen: the file's
    // topics become the store's configuration / the store's topics are written to the file. done
    // (optional) gets the outcome, which the window also shows.
    void importSharedWorkspaceFile(const QString &path,
                                   std::function<void(const Expected<void> &)> done = {});
    void exportSharedWorkspaceFile(const QString &path,
                                   std::function<void(const Expected<void> &)> done = {});
    Banner *monitorBanner() const;
    const QString &workspaceDirectory() const { return m_workspaceDirectory; }
    // The banners of a busy port and of the secrets (the status bar keeps short items only).
    WindowNotices *notices() const { return m_notices; }
    // Workspace ▸ Listen On…: asks for the workspace's port, remembers it and opens the workspace
    // on it (ListenPorts).
    void chooseListenPort();
    void listenOn(quint16 port);
    // PNG sizes, so no image-format plugin is needed for the window icon.
    static QIcon applicationIcon();
    // Help ▸ About: version, what it is, its licence.
    static QString aboutText();

    EngineHost *engineHost() { return &m_host; }
    WorkspaceTreeModel *treeModel() const { return m_treeModel; }
    QTreeView *treeView() const { return m_tree; }
    SubscriptionEditor *editor() const { return m_editor; }
    DashboardView *dashboard() const { return m_dashboard; }
    DeliveryLogView *deliveryLog() const { return m_log; }
    DeadLetterBrowser *deadLetterBrowser() const { return m_deadLetters; }
    QTabWidget *tabs() const { return m_tabs; }
    // The workspace tree beside the tabs; its position is remembered per workspace.
    QSplitter *workspaceSplitter() const { return m_splitter; }
    WorkspaceLayout *workspaceLayout() const { return m_layout; }

    // Selects a subscription in the tree and opens it in the editor (tests, "show" actions).
    void selectSubscription(const QString &topic, const QString &subscription);
    void showSendDialog();

    // Keeps secrets in store instead of the system keychain (the opt-ins offered when no keychain
    // works; tests). Restarts the engine of the open workspace on the new store.
    void useSecretStore(std::unique_ptr<SecretStore> store);
    SecretStore *activeSecretStore() const;

    // Stores a topic's access key (publishers must then send it as aeg-sas-key, or a SAS token made
    // with it) or a storage
    // account's key in the secret store; an empty key removes the topic's key. done gets the
    // error, if any.
    void setTopicAccessKey(const QString &topic, const QString &key,
                           std::function<void(const Expected<void> &)> done);
    void setStorageAccountKey(const QString &account, const QString &key,
                              std::function<void(const Expected<void> &)> done);

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void connectActions();
    void createViews();
    void restoreWindowState();
    void saveWindowState();

    void onEngineStarted(bool ok, const QString &error, const QString &listenUrl);
    void onMonitorStarted(bool ok, const QString &error);
    // The views show the workspace the host has opened (with an engine or as a monitor).
    void showOpenedWorkspace();
    // Widens the tree's Name column to its names (up to half the tree), unless the user sized it.
    void fitTreeNames();
    void showNoWorkspace();
    void workspaceInUse(const QString &directory, const WorkspaceOwner &owner);
    void monitorWorkspace(const QString &directory);
    // A shared workspace from the recent list: its password from the secret store, if kept.
    void openRecentSharedWorkspace(const QString &url);
    void askToImportSharedWorkspaceFile();
    void askToExportSharedWorkspaceFile();
    // The window's engine takes the changed workspace (EngineHost::applyWorkspace), or on a shared
    // workspace its topics go to the store's configuration (EngineHost::saveSharedConfiguration).
    void applyChanged(const Workspace &changed, std::function<void(const Expected<void> &)> done);
    void onSnapshot(const EngineSnapshot &snapshot);
    void onSelectionChanged();
    void updateActions();

    QString selectedTopic() const;
    QString selectedSubscription() const;
    bool confirmLeavingEditor();
    // The editor shows nothing (its subscription was renamed or deleted).
    void closeEditor();

    void newSubscription();
    void saveSubscription(const EventSubscription &subscription);
    void storeSecretsThenSave(const EventSubscription &subscription);
    void applyWorkspace(const Workspace &workspace, const QString &successMessage);
    void apply(const std::optional<WorkspaceChange> &change);
    void updateSecretsStatus();
    // Subscriptions ("topic / subscription") of the last snapshot that wait for the keychain.
    QStringList waitingForKeychain() const;
    void editTopicAccessKey();
    void copySasToken();
    void editStorageAccountKey();

    Options m_options;
    ListenPorts m_listenPorts;
    WorkspaceSecrets m_secrets;
    EngineHost m_host;
    Workspace m_workspace;
    QString m_workspaceDirectory;
    EngineSnapshot m_lastSnapshot;
    quint64 m_shownDeadLetterTotal = 0;
    bool m_deadLettersStale = false;

    // The subscription the editor shows (empty topic = none).
    QString m_editingTopic;
    QString m_editingSubscription;
    bool m_editingIsNew = false;

    WorkspaceChanges m_changes;
    MainWindowActions *m_actions = nullptr;
    WorkspaceFolders *m_folders = nullptr;
    WorkspaceLayout *m_layout = nullptr;
    MainStatusBar *m_statusBar = nullptr;
    StoreTotalsPoller *m_totals = nullptr;
    MonitorMode *m_monitorMode = nullptr;
    SharedWorkspaceMode *m_sharedMode = nullptr;
    WindowNotices *m_notices = nullptr;
    QStringList m_shownWaiting; // waitingForKeychain() as the secrets banner shows it
    QWidget *m_central = nullptr;
    QSplitter *m_splitter = nullptr;
    QTreeView *m_tree = nullptr;
    bool m_treeNamesSizedByUser = false;
    bool m_fittingTreeNames = false; // the Name column is being sized by the window, not the user
    WorkspaceTreeModel *m_treeModel = nullptr;
    QTabWidget *m_tabs = nullptr;
    DashboardView *m_dashboard = nullptr;
    SubscriptionEditor *m_editor = nullptr;
    DeliveryLogView *m_log = nullptr;
    DeadLetterBrowser *m_deadLetters = nullptr;
    ReceiversView *m_receivers = nullptr;
};

} // namespace EventDesk::Ui
