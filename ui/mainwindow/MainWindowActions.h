// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QObject>

#include <array>

class QAction;
class QMainWindow;
class QMenu;
class QTabWidget;

namespace EventDesk::Ui {

// The main window's commands as QActions (text, icon, shortcut, tool tip), the menus, the tool
// bar and the workspace tree's context menu that offer them, and which of them are enabled. What
// a command does is the window's business: it connects to triggered().
class MainWindowActions final : public QObject
{
    Q_OBJECT

public:
    // What the enabled commands depend on.
    struct State
    {
        bool engineRunning = false; // commands that change the workspace need the window's engine
        // A read-only monitor of a workspace another engine owns: only commands that read it.
        bool readOnly = false;
        // A shared workspace: the topics and subscriptions are the store's, edited from here
        // without an engine of the window's own (the rest stays read-only).
        bool editsConfiguration = false;
        bool workspaceHasTopics = false;
        bool topicSelected = false;
        bool subscriptionSelected = false;
        bool subscriptionEnabled = true; // of the selected subscription
        // The selected subscription is a webhook that validates its endpoint (Validate Now).
        bool subscriptionValidates = true;
        bool deadLettersToAzure = false; // the selected subscription dead-letters to Azure Blob
    };

    enum Command {
        NewWorkspace,
        OpenWorkspace,
        OpenSharedWorkspace,
        ImportSharedConfiguration,
        ExportSharedConfiguration,
        ImportSubscriptions,
        ExportSubscriptions,
        Quit,
        NewTopic,
        NewSubscription,
        Rename,
        ToggleEnabled,
        Delete,
        SendTestEvent,
        ShowDeadLetters,
        Revalidate,
        TopicAccessKey,
        CopySasToken,
        StorageAccountKey,
        SecretStorage,
        ListenOn,
        KeyboardShortcuts,
        About,
        CommandCount
    };

    explicit MainWindowActions(QObject *parent);
    ~MainWindowActions() override;

    QAction *action(Command command) const { return m_actions.at(command); }

    void update(const State &state);

    // File, Workspace, Events, View (one entry per tab: tabs) and Help, and the main tool bar.
    void addMenusAndToolBar(QMainWindow *window, QTabWidget *tabs);
    // File ▸ Open Recent, filled by whoever knows the recent workspaces.
    QMenu *recentMenu() const { return m_recentMenu; }
    // The workspace tree's context menu: on no item, on a topic, or on a subscription.
    enum class TreeItem { None, Topic, Subscription };
    void fillTreeMenu(QMenu &menu, TreeItem item) const;

private:
    QAction *add(Command command, const QString &icon, const QString &text);

    std::array<QAction *, CommandCount> m_actions {};
    QMenu *m_recentMenu = nullptr;
};

} // namespace EventDesk::Ui
