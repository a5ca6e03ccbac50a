#pragma once

#include "host/EngineHost.h"
#include "model/Workspace.h"

#include <QIcon>
#include <QMainWindow>
#include <QPointer>

#include <functional>
#include <memory>

class QAction;
class QLabel;
class QMenu;
class QSplitter;
class QTabWidget;
class QTreeView;

namespace EventDesk {
class SecretCache;
class SecretStore;
struct SecretProblem;
} // namespace EventDesk

namespace EventDesk::Ui {

class DashboardView;
class DeadLetterBrowser;
class DeliveryLogView;
class SubscriptionEditor;
class WorkspaceTreeModel;

// The desktop app's window: workspace tree on the left, the dashboard, the subscription editor,
// the delivery log and the dead-letter browser in tabs, totals in the status bar. The engine runs
// on its own thread behind EngineHost; this window only sends it requests and shows snapshots.
class MainWindow final : public QMainWindow
{
    Q_OBJECT

public:
    struct Options
    {
        QString listenHost = QStringLiteral("127.0.0.1");
        quint16 listenPort = 5170;
        double timeScale = 1.0;
        bool jitter = true;
    };

    explicit MainWindow(Options options, QWidget *parent = nullptr);
    ~MainWindow() override;

    // Opens (or creates, with the demo content) the workspace folder and starts its engine.
    void openWorkspace(const QString &directory);
    static QString defaultWorkspaceDirectory();
    // PNG sizes, so no image-format plugin is needed for the window icon.
    static QIcon applicationIcon();

    EngineHost *engineHost() { return &m_host; }
    WorkspaceTreeModel *treeModel() const { return m_treeModel; }
    QTreeView *treeView() const { return m_tree; }
    SubscriptionEditor *editor() const { return m_editor; }
    DashboardView *dashboard() const { return m_dashboard; }
    DeliveryLogView *deliveryLog() const { return m_log; }
    DeadLetterBrowser *deadLetterBrowser() const { return m_deadLetters; }
    QTabWidget *tabs() const { return m_tabs; }

    // Selects a subscription in the tree and opens it in the editor (tests, "show" actions).
    void selectSubscription(const QString &topic, const QString &subscription);
    void showSendDialog();

    // Keeps secrets in store instead of the system keychain (the opt-ins offered when no keychain
    // works; tests). Restarts the engine of the open workspace on the new store.
    void useSecretStore(std::unique_ptr<SecretStore> store);
    SecretStore *activeSecretStore() const;

    // Stores a topic's access key (publishers must then send it as aeg-sas-key) or a storage
    // account's key in the secret store; an empty key removes the topic's key. done gets the
    // error, if any.
    void setTopicAccessKey(const QString &topic, const QString &key,
                           std::function<void(const Expected<void> &)> done);
    void setStorageAccountKey(const QString &account, const QString &key,
                              std::function<void(const Expected<void> &)> done);

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void createActions();
    void createMenus();
    void createViews();
    void restoreWindowState();
    void saveWindowState();

    void onEngineStarted(bool ok, const QString &error, const QString &listenUrl);
    void onSnapshot(const EngineSnapshot &snapshot);
    void onSelectionChanged();
    void updateActions();

    QString selectedTopic() const;
    QString selectedSubscription() const;
    bool confirmLeavingEditor();

    void newWorkspace();
    void chooseWorkspace();
    void newTopic();
    void newSubscription();
    void renameSelected();
    void toggleEnabled();
    void deleteSelected();
    void importSubscriptions();
    void exportSubscriptions();
    void saveSubscription(const EventSubscription &subscription);
    void applyWorkspace(const Workspace &workspace, const QString &successMessage);

    // Secrets (SPEC H2): the system keychain, or an alternative the user opted into.
    void updateSecretsStatus();
    void chooseSecretStorage();
    void editTopicAccessKey();
    void editStorageAccountKey();
    // A password field with a reveal toggle; returns false when cancelled.
    bool askForSecret(const QString &title, const QString &label, QString &value);
    void storeSecretsThenSave(EventSubscription subscription);

    void addRecentWorkspace(const QString &directory);
    void rebuildRecentMenu();

    Options m_options;
    std::unique_ptr<SecretStore> m_keychain;
    std::unique_ptr<SecretStore> m_alternativeSecretStore; // opt-in: this run only, or a 0600 file
    std::shared_ptr<SecretCache> m_secretCache;
    QList<SecretProblem> m_secretProblems;
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

    QSplitter *m_splitter = nullptr;
    QTreeView *m_tree = nullptr;
    WorkspaceTreeModel *m_treeModel = nullptr;
    QTabWidget *m_tabs = nullptr;
    DashboardView *m_dashboard = nullptr;
    SubscriptionEditor *m_editor = nullptr;
    DeliveryLogView *m_log = nullptr;
    DeadLetterBrowser *m_deadLetters = nullptr;

    QLabel *m_listenLabel = nullptr;
    QLabel *m_stateLabel = nullptr;
    QLabel *m_totalsLabel = nullptr;
    QLabel *m_secretsLabel = nullptr;
    QAction *m_secretStorageAction = nullptr;

    QMenu *m_recentMenu = nullptr;
    QAction *m_newWorkspaceAction = nullptr;
    QAction *m_openWorkspaceAction = nullptr;
    QAction *m_importAction = nullptr;
    QAction *m_exportAction = nullptr;
    QAction *m_quitAction = nullptr;
    QAction *m_newTopicAction = nullptr;
    QAction *m_newSubscriptionAction = nullptr;
    QAction *m_renameAction = nullptr;
    QAction *m_toggleEnabledAction = nullptr;
    QAction *m_deleteAction = nullptr;
    QAction *m_sendAction = nullptr;
    QAction *m_showDeadLettersAction = nullptr;
    QAction *m_revalidateAction = nullptr;
    QAction *m_topicKeyAction = nullptr;
    QAction *m_storageKeyAction = nullptr;
    QAction *m_aboutAction = nullptr;
};

} // namespace EventDesk::Ui
