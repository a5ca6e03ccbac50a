// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "MainWindowActions.h"

#include <QAction>
#include <QApplication>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QSet>
#include <QTabWidget>
#include <QToolBar>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {

// The text with a mnemonic on the first letter no other entry of its menu has: a word's first
// letter if one is free, else any letter.
QString withFreeMnemonic(const QString &text, QSet<QChar> &taken)
{
    QList<qsizetype> candidates;
    for (qsizetype i = 0; i < text.size(); ++i)
        if (text.at(i).isLetter() && (i == 0 || text.at(i - 1).isSpace()))
            candidates.append(i);
    for (qsizetype i = 0; i < text.size(); ++i)
        if (text.at(i).isLetter() && !candidates.contains(i))
            candidates.append(i);
    for (const qsizetype i : std::as_const(candidates)) {
        const QChar letter = text.at(i).toLower();
        if (!taken.contains(letter)) {
            taken.insert(letter);
            return text.left(i) + u'&' + text.mid(i);
        }
    }
    return text;
}

} // namespace

MainWindowActions::MainWindowActions(QObject *parent)
    : QObject(parent)
{
    add(NewWorkspace, u"folder-new"_s, tr("&New Workspace…"));

    QAction *openWorkspace = add(OpenWorkspace, u"document-open"_s, tr("&Open Workspace…"));
    openWorkspace->setShortcut(QKeySequence::Open);
    QAction *openShared
        = add(OpenSharedWorkspace, u"network-server-database"_s, tr("Open &Shared Workspace…"));
    openShared->setToolTip(
        tr("Monitor a PostgreSQL store that several eventdeskd instances share"));
    add(ImportSharedConfiguration, u"document-import"_s, tr("Import &workspace.json…"))
        ->setToolTip(tr("Make a workspace.json's topics and subscriptions the shared workspace's "
                        "whole configuration"));
    add(ExportSharedConfiguration, u"document-export"_s, tr("E&xport workspace.json…"))
        ->setToolTip(
            tr("Write the shared workspace's topics and subscriptions to a workspace.json"));

    QAction *importSubscriptions
        = add(ImportSubscriptions, u"document-import"_s, tr("&Import Subscriptions…"));
    importSubscriptions->setToolTip(tr("Import event subscriptions exported from Azure (Resource "
                                       "Manager JSON) into the selected topic"));

    QAction *exportSubscriptions
        = add(ExportSubscriptions, u"document-export"_s, tr("&Export Subscriptions…"));
    exportSubscriptions->setToolTip(
        tr("Export the selected topic's subscriptions as Resource Manager JSON"));

    QAction *quit = add(Quit, u"application-exit"_s, tr("&Quit"));
    quit->setShortcut(QKeySequence::Quit);

    QAction *newTopic = add(NewTopic, u"list-add"_s, tr("New &Topic…"));
    newTopic->setShortcut(QKeySequence(u"Ctrl+Shift+N"_s));

    QAction *newSubscription = add(NewSubscription, u"document-new"_s, tr("New &Subscription"));
    newSubscription->setShortcut(QKeySequence::New);

    QAction *rename = add(Rename, u"edit-rename"_s, tr("&Rename…"));
    rename->setShortcut(QKeySequence(Qt::Key_F2));

    QAction *toggleEnabled = add(ToggleEnabled, u"media-playback-pause"_s, tr("&Disable"));
    toggleEnabled->setShortcut(QKeySequence(u"Ctrl+D"_s));

    QAction *remove = add(Delete, u"edit-delete"_s, tr("De&lete…"));
    remove->setShortcut(QKeySequence::Delete);
    remove->setShortcutContext(Qt::WidgetWithChildrenShortcut);

    QAction *sendTestEvent = add(SendTestEvent, u"mail-send"_s, tr("Se&nd Test Event…"));
    sendTestEvent->setShortcut(QKeySequence(u"Ctrl+T"_s));
    sendTestEvent->setToolTip(tr("Publish test events to the selected topic (Ctrl+T)"));

    add(ShowDeadLetters, u"mail-mark-junk"_s, tr("Sho&w Dead Letters"));

    QAction *secretStorage = add(SecretStorage, u"dialog-password"_s, tr("Secret Stora&ge…"));
    secretStorage->setToolTip(
        tr("Where secret header values, topic keys and storage keys are kept"));

    QAction *listenOn = add(ListenOn, u"network-server"_s, tr("Listen &On…"));
    listenOn->setToolTip(tr("Choose the port of this workspace's topic endpoint and test "
                            "receivers (remembered for the workspace)"));

    QAction *revalidate = add(Revalidate, u"view-refresh"_s, tr("&Validate Now"));
    revalidate->setToolTip(tr("Send the endpoint validation handshake of this subscription now, "
                              "without waiting for the next scheduled attempt"));

    QAction *topicAccessKey = add(TopicAccessKey, u"dialog-password"_s, tr("Topic &Access Key…"));
    topicAccessKey->setToolTip(
        tr("Require publishers of this topic to send an access key (aeg-sas-key) or a SAS token "
           "made with it"));

    QAction *copySasToken = add(CopySasToken, u"edit-copy"_s, tr("Cop&y SAS Token…"));
    copySasToken->setToolTip(tr("Copy a shared access signature for publishing to this topic "
                                "(aeg-sas-token): a credential that expires, instead of the key"));

    QAction *storageAccountKey
        = add(StorageAccountKey, u"dialog-password"_s, tr("Storage Account &Key…"));
    storageAccountKey->setToolTip(
        tr("The key of the Azure Storage account this subscription dead-letters to"));

    QAction *keyboardShortcuts = add(KeyboardShortcuts, u"preferences-desktop-keyboard-shortcuts"_s,
                                     tr("&Keyboard Shortcuts"));
    keyboardShortcuts->setShortcut(QKeySequence::HelpContents);
    keyboardShortcuts->setToolTip(tr("Every command with its shortcut and menu keys"));

    add(About, u"help-about"_s, tr("&About EventDesk"));
}

MainWindowActions::~MainWindowActions() = default;

QAction *MainWindowActions::add(Command command, const QString &icon, const QString &text)
{
    auto *action = new QAction(icon.isEmpty() ? QIcon() : QIcon::fromTheme(icon), text, this);
    m_actions[command] = action;
    return action;
}

void MainWindowActions::update(const State &state)
{
    const bool running = state.engineRunning;
    const bool readable = running || state.readOnly;
    const bool edits = running || state.editsConfiguration;
    action(NewTopic)->setEnabled(edits);
    action(NewSubscription)->setEnabled(edits && state.topicSelected);
    action(Rename)->setEnabled(edits && state.topicSelected);
    action(Delete)->setEnabled(edits && state.topicSelected);
    action(ToggleEnabled)->setEnabled(edits && state.subscriptionSelected);
    action(ShowDeadLetters)->setEnabled(readable && state.subscriptionSelected);
    action(Revalidate)
        ->setEnabled(running && state.subscriptionSelected && state.subscriptionValidates);
    action(TopicAccessKey)->setEnabled(running && state.topicSelected);
    action(CopySasToken)->setEnabled(running && state.topicSelected);
    action(StorageAccountKey)->setEnabled(running && state.deadLettersToAzure);
    action(SendTestEvent)->setEnabled(running && state.workspaceHasTopics);
    action(ListenOn)->setEnabled(!state.readOnly);
    action(ImportSubscriptions)->setEnabled(edits && state.topicSelected);
    action(ImportSharedConfiguration)->setEnabled(state.editsConfiguration);
    action(ExportSharedConfiguration)->setEnabled(state.editsConfiguration);
    action(ExportSubscriptions)->setEnabled(readable && state.topicSelected);
    const bool enabled = state.subscriptionEnabled;
    action(ToggleEnabled)->setText(enabled ? tr("&Disable") : tr("&Enable"));
    action(ToggleEnabled)
        ->setIcon(
            QIcon::fromTheme(enabled ? u"media-playback-pause"_s : u"media-playback-start"_s));
    action(ToggleEnabled)
        ->setToolTip(enabled
                         ? tr("Pause deliveries to this subscription; its backlog waits (Ctrl+D)")
                         : tr("Resume deliveries to this subscription (Ctrl+D)"));
}

void MainWindowActions::addMenusAndToolBar(QMainWindow *window, QTabWidget *tabs)
{
    QMenuBar *bar = window->menuBar();
    QMenu *file = bar->addMenu(tr("&File"));
    file->addAction(action(NewWorkspace));
    file->addAction(action(OpenWorkspace));
    file->addAction(action(OpenSharedWorkspace));
    file->addAction(action(ImportSharedConfiguration));
    file->addAction(action(ExportSharedConfiguration));
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addSeparator();
    file->addAction(action(ImportSubscriptions));
    file->addAction(action(ExportSubscriptions));
    file->addSeparator();
    file->addAction(action(Quit));

    QMenu *workspace = bar->addMenu(tr("&Workspace"));
    workspace->addAction(action(NewTopic));
    workspace->addAction(action(NewSubscription));
    workspace->addSeparator();
    workspace->addAction(action(Rename));
    workspace->addAction(action(ToggleEnabled));
    workspace->addAction(action(Delete));
    workspace->addSeparator();
    workspace->addAction(action(ShowDeadLetters));
    workspace->addAction(action(Revalidate));
    workspace->addSeparator();
    workspace->addAction(action(TopicAccessKey));
    workspace->addAction(action(CopySasToken));
    workspace->addAction(action(StorageAccountKey));
    workspace->addAction(action(SecretStorage));
    workspace->addAction(action(ListenOn));

    QMenu *events = bar->addMenu(tr("&Events"));
    events->addAction(action(SendTestEvent));

    QMenu *view = bar->addMenu(tr("&View"));
    QSet<QChar> taken;
    for (int i = 0; i < tabs->count(); ++i) {
        QAction *tabAction = view->addAction(withFreeMnemonic(tabs->tabText(i), taken), tabs,
                                             [tabs, i] { tabs->setCurrentIndex(i); });
        tabAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)));
    }

    QMenu *help = bar->addMenu(tr("&Help"));
    help->addAction(action(KeyboardShortcuts));
    help->addSeparator();
    help->addAction(action(About));
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);

    QToolBar *toolbar = window->addToolBar(tr("Main"));
    toolbar->setObjectName(u"mainToolbar"_s);
    toolbar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    toolbar->addAction(action(SendTestEvent));
    toolbar->addSeparator();
    toolbar->addAction(action(NewSubscription));
    toolbar->addAction(action(ToggleEnabled));
    toolbar->addAction(action(Delete));
}

void MainWindowActions::fillTreeMenu(QMenu &menu, TreeItem item) const
{
    menu.addAction(action(SendTestEvent));
    menu.addSeparator();
    menu.addAction(action(NewSubscription));
    menu.addAction(action(NewTopic));
    if (item == TreeItem::None)
        return;
    menu.addSeparator();
    menu.addAction(action(Rename));
    if (item == TreeItem::Subscription) {
        menu.addAction(action(ToggleEnabled));
        menu.addAction(action(ShowDeadLetters));
        menu.addAction(action(Revalidate));
        menu.addAction(action(StorageAccountKey));
    }
    menu.addAction(action(Delete));
    menu.addSeparator();
    menu.addAction(action(TopicAccessKey));
    menu.addAction(action(CopySasToken));
    menu.addAction(action(ExportSubscriptions));
    menu.addAction(action(ImportSubscriptions));
}

} // namespace EventDesk::Ui
