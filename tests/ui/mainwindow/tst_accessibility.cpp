// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// Keyboard access and accessibility of the main window: every menu command reachable by
// mnemonics or a shortcut, no two shortcuts that fire together, Help ▸ Keyboard Shortcuts built
// from the actions, the state badges of the workspace tree (shape, text and accessible
// description, not colour alone), colours that follow a dark palette, and the About box's licence.

#include "common/Appearance.h"
#include "mainwindow/KeyboardShortcuts.h"
#include "mainwindow/MainWindow.h"
#include "mainwindow/MainWindowActions.h"
#include "mainwindow/WorkspaceInUseDialog.h"
#include "mainwindow/WorkspaceTreeModel.h"

#include <QAction>
#include <QApplication>
#include <QImage>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>
#include <QTreeWidget>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using namespace EventDesk::Ui;

namespace {

// Every menu of the window: the menu bar's (with their submenus) and the workspace tree's
// context menus, by a name for messages.
QList<std::pair<QString, QMenu *>> menusOf(MainWindow &window, QObject *owner)
{
    QList<std::pair<QString, QMenu *>> menus;
    std::function<void(const QString &, QMenu *)> add = [&](const QString &name, QMenu *menu) {
        menus.append({name, menu});
        for (QAction *action : menu->actions())
            if (action->menu())
                add(name + u" ▸ "_s + action->text(), action->menu());
    };
    for (QAction *top : window.menuBar()->actions())
        if (top->menu())
            add(top->text(), top->menu());
    auto *actions = window.findChild<MainWindowActions *>();
    for (const auto &[name, item] :
         {std::pair {u"tree menu (no item)"_s, MainWindowActions::TreeItem::None},
          std::pair {u"tree menu (topic)"_s, MainWindowActions::TreeItem::Topic},
          std::pair {u"tree menu (subscription)"_s, MainWindowActions::TreeItem::Subscription}}) {
        auto *menu = new QMenu(qobject_cast<QWidget *>(owner));
        actions->fillTreeMenu(*menu, item);
        menus.append({name, menu});
    }
    return menus;
}

SubscriptionSnapshot snapshotOf(const QString &subscription)
{
    SubscriptionSnapshot state;
    state.topic = u"orders"_s;
    state.subscription = subscription;
    state.provisioningState = ProvisioningState::Succeeded;
    return state;
}

} // namespace

class TestAccessibility final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void mnemonics_data();
    void mnemonics();
    void everyMenuCommandIsReachableFromTheKeyboard();
    void noTwoActionsShareAShortcut();
    void shortcutsDialogIsBuiltFromTheActions();
    void dialogButtonsHaveMnemonics();
    void stateBadgesAreNotColourAlone();
    void badgeColoursFollowADarkPalette();
    void aboutBoxNamesTheLicence();
};

void TestAccessibility::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
}

void TestAccessibility::mnemonics_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("letter");
    QTest::addColumn<QString>("plain");
    QTest::newRow("first") << u"&File"_s << u"f"_s << u"File"_s;
    QTest::newRow("inside") << u"De&lete…"_s << u"l"_s << u"Delete…"_s;
    QTest::newRow("escaped ampersand") << u"Save && &Close"_s << u"c"_s << u"Save & Close"_s;
    QTest::newRow("none") << u"Dashboard"_s << QString() << u"Dashboard"_s;
    QTest::newRow("trailing") << u"Odd&"_s << QString() << u"Odd&"_s;
}

void TestAccessibility::mnemonics()
{
    QFETCH(QString, text);
    QFETCH(QString, letter);
    QFETCH(QString, plain);
    const QChar found = KeyboardShortcuts::mnemonic(text);
    QCOMPARE(found.isNull() ? QString() : QString(found), letter);
    QCOMPARE(KeyboardShortcuts::withoutMnemonic(text), plain);
}

void TestAccessibility::everyMenuCommandIsReachableFromTheKeyboard()
{
    MainWindow window(MainWindow::Options {});
    QHash<QChar, QString> topLetters;
    for (QAction *top : window.menuBar()->actions()) {
        const QChar letter = KeyboardShortcuts::mnemonic(top->text());
        QVERIFY2(!letter.isNull(), qPrintable(top->text() + u" has no mnemonic"_s));
        QVERIFY2(
            !topLetters.contains(letter),
            qPrintable(top->text() + u" shares its mnemonic with "_s + topLetters.value(letter)));
        topLetters.insert(letter, top->text());
    }
    QVERIFY(topLetters.size() >= 5); // File, Workspace, Events, View, Help

    int commands = 0;
    for (const auto &[name, menu] : menusOf(window, &window)) {
        const QList<QAction *> ambiguous = KeyboardShortcuts::ambiguousMnemonics(menu);
        QStringList texts;
        for (const QAction *action : ambiguous)
            texts.append(action->text());
        QVERIFY2(ambiguous.isEmpty(),
                 qPrintable(name + u": shared mnemonics: "_s + texts.join(u", "_s)));
        for (QAction *action : menu->actions()) {
            if (action->isSeparator())
                continue;
            ++commands;
            QVERIFY2(!KeyboardShortcuts::mnemonic(action->text()).isNull()
                         || !action->shortcut().isEmpty(),
                     qPrintable(name + u": "_s + action->text()
                                + u" has neither a mnemonic nor a shortcut"_s));
        }
    }
    QVERIFY(commands > 30);

    // The same, as Help ▸ Keyboard Shortcuts computes it: every menu entry has its key path.
    const QList<KeyboardShortcuts::Entry> entries = KeyboardShortcuts::collect(&window);
    int menuEntries = 0;
    for (const KeyboardShortcuts::Entry &entry : entries) {
        if (entry.menuPath.isEmpty())
            continue;
        ++menuEntries;
        QVERIFY2(!entry.mnemonicKeys.isEmpty(), qPrintable(entry.menuPath));
    }
    QVERIFY(menuEntries > 20);
}

void TestAccessibility::noTwoActionsShareAShortcut()
{
    MainWindow window(MainWindow::Options {});
    const QList<KeyboardShortcuts::Conflict> conflicts = KeyboardShortcuts::conflicts(&window);
    for (const KeyboardShortcuts::Conflict &conflict : conflicts)
        qWarning() << conflict.sequence << conflict.first->text() << conflict.second->text();
    QVERIFY(conflicts.isEmpty());

    // The check finds a clash: a window-wide Ctrl+T next to Send Test Event's.
    auto *clash = new QAction(u"Clash"_s, &window);
    clash->setShortcut(QKeySequence(u"Ctrl+T"_s));
    window.addAction(clash);
    const QList<KeyboardShortcuts::Conflict> found = KeyboardShortcuts::conflicts(&window);
    QCOMPARE(found.size(), 1);
    QCOMPARE(found.first().sequence, QKeySequence(u"Ctrl+T"_s));
    QVERIFY(found.first().first == clash || found.first().second == clash);
    // One that works only in a widget of its own does not clash with another widget's.
    clash->setShortcutContext(Qt::WidgetShortcut);
    window.removeAction(clash);
    auto *elsewhere = new QLineEdit(&window);
    elsewhere->addAction(clash);
    QVERIFY(KeyboardShortcuts::conflicts(&window).size() == 1); // still under the window-wide one
    clash->setShortcut(QKeySequence(u"Ctrl+Alt+T"_s));
    QVERIFY(KeyboardShortcuts::conflicts(&window).isEmpty());
}

void TestAccessibility::shortcutsDialogIsBuiltFromTheActions()
{
    MainWindow window(MainWindow::Options {});
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QAction *help
        = window.findChild<MainWindowActions *>()->action(MainWindowActions::KeyboardShortcuts);
    QCOMPARE(help->shortcut(), QKeySequence(QKeySequence::HelpContents));
    help->trigger();
    auto *dialog = window.findChild<KeyboardShortcutsDialog *>();
    QVERIFY(dialog);
    QTRY_VERIFY(dialog->isVisible());

    QTreeWidget *list = dialog->list();
    const auto find = [list](const QString &command) -> QTreeWidgetItem * {
        const QList<QTreeWidgetItem *> items
            = list->findItems(command, Qt::MatchExactly | Qt::MatchRecursive);
        return items.isEmpty() ? nullptr : items.first();
    };
    QTreeWidgetItem *rename = find(u"Workspace ▸ Rename…"_s);
    QVERIFY(rename);
    QCOMPARE(rename->text(1), QKeySequence(Qt::Key_F2).toString(QKeySequence::NativeText));
    QCOMPARE(rename->text(2), u"Alt+W, R"_s);
    QTreeWidgetItem *deadLetters = find(u"View ▸ Dead Letters"_s);
    QVERIFY(deadLetters);
    QCOMPARE(deadLetters->text(1), QKeySequence(u"Ctrl+4"_s).toString(QKeySequence::NativeText));
    QTreeWidgetItem *remove = find(u"Workspace ▸ Delete…"_s);
    QVERIFY(remove);
    QCOMPARE(remove->text(3), u"Workspace tree"_s); // it works where the tree has the focus
    // The views' own shortcuts are listed with the view they work in.
    int viewRows = 0;
    for (int top = 0; top < list->topLevelItemCount(); ++top)
        if (list->topLevelItem(top)->text(0) == u"In the views"_s)
            viewRows = list->topLevelItem(top)->childCount();
    QVERIFY(viewRows >= 3); // the dead-letter browser's, the filter bars' Find

    // Search narrows the list.
    auto *search = dialog->findChild<QLineEdit *>();
    QTest::keyClicks(search, u"dead"_s);
    QVERIFY(!deadLetters->isHidden());
    QVERIFY(rename->isHidden());
    QDir().mkpath(u"/tmp/eventdesk-shots"_s);
    search->clear();
    dialog->grab().save(u"/tmp/eventdesk-shots/keyboard-shortcuts.png"_s);
    dialog->close();

    // A command added later is listed the next time: the list is read from the actions.
    auto *later = new QAction(u"&Frobnicate"_s, &window);
    later->setShortcut(QKeySequence(u"Ctrl+Alt+F"_s));
    window.menuBar()->actions().last()->menu()->addAction(later);
    bool listed = false;
    for (const KeyboardShortcuts::Entry &entry : KeyboardShortcuts::collect(&window))
        listed = listed || (entry.action == later && entry.mnemonicKeys == u"Alt+H, F"_s);
    QVERIFY(listed);
}

void TestAccessibility::dialogButtonsHaveMnemonics()
{
    WorkspaceOwner owner;
    owner.pid = 4242;
    owner.application = u"eventdeskd"_s;
    owner.hostName = u"build-7"_s;
    owner.since = QDateTime::currentDateTime();
    WorkspaceInUseDialog dialog(u"/srv/workspaces/orders"_s, owner);
    QSet<QChar> letters;
    for (QPushButton *button : {dialog.monitorButton(), dialog.openAnotherButton()}) {
        const QChar letter = KeyboardShortcuts::mnemonic(button->text());
        QVERIFY2(!letter.isNull(), qPrintable(button->text()));
        QVERIFY2(!letters.contains(letter), qPrintable(button->text()));
        letters.insert(letter);
    }
    QCOMPARE(letters.size(), 2); // Cancel is Escape
}

void TestAccessibility::stateBadgesAreNotColourAlone()
{
    Workspace workspace;
    Topic topic;
    topic.name = u"orders"_s;
    for (const QString &name :
         {u"healthy"_s, u"probation"_s, u"probing"_s, u"refused"_s, u"paused"_s}) {
        EventSubscription subscription;
        subscription.name = name;
        subscription.enabled = name != u"paused"_s;
        topic.eventSubscriptions.append(subscription);
    }
    workspace.topics.append(topic);
    WorkspaceTreeModel model;
    model.setWorkspace(workspace);
    EngineSnapshot snapshot;
    SubscriptionSnapshot probation = snapshotOf(u"probation"_s);
    probation.probationState = ProbationTracker::State::InProbation;
    probation.probationCause = DeliveryOutcome::Busy;
    SubscriptionSnapshot probing = snapshotOf(u"probing"_s);
    probing.probationState = ProbationTracker::State::HalfOpen;
    probing.probationCause = DeliveryOutcome::Busy;
    SubscriptionSnapshot refused = snapshotOf(u"refused"_s);
    refused.provisioningState = ProvisioningState::Failed;
    model.setTotals(StoreTotals::fromRows(
        {{u"orders"_s, u"refused"_s,
          int(TotalCounter::DeadLetteredBase) + int(DeadLetterReason::MaxDeliveryAttemptsExceeded), 3}}));
    snapshot.subscriptions
        = {snapshotOf(u"healthy"_s), probation, probing, refused, snapshotOf(u"paused"_s)};
    model.applySnapshot(snapshot);

    using Badge = WorkspaceTreeModel::Badge;
    const QList<std::pair<QString, Badge>> expected {{u"healthy"_s, Badge::Healthy},
                                                     {u"probation"_s, Badge::Waiting},
                                                     {u"probing"_s, Badge::Probing},
                                                     {u"refused"_s, Badge::Failed},
                                                     {u"paused"_s, Badge::Disabled}};
    QSet<QRgb> shapes; // the badges drawn in one colour differ by shape alone
    for (const auto &[name, badge] : expected) {
        const QModelIndex index = model.subscriptionIndex(u"orders"_s, name);
        QCOMPARE(index.data(WorkspaceTreeModel::BadgeRole).value<Badge>(), badge);
        const QString state
            = index.siblingAtColumn(WorkspaceTreeModel::StateColumn).data().toString();
        QVERIFY(!state.isEmpty());
        const QString description = index.data(Qt::AccessibleDescriptionRole).toString();
        QVERIFY2(description.contains(state) && description.contains(name),
                 qPrintable(description));
        // The badge's alpha mask: its shape.
        const QImage image = index.data(Qt::DecorationRole).value<QIcon>().pixmap(32, 32).toImage();
        quint32 hash = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x)
                hash = hash * 31 + (qAlpha(image.pixel(x, y)) > 128 ? 1 : 0);
        shapes.insert(hash);
    }
    QCOMPARE(shapes.size(), expected.size());
    const QString refusedDescription = model.subscriptionIndex(u"orders"_s, u"refused"_s)
                                           .data(Qt::AccessibleDescriptionRole)
                                           .toString();
    QVERIFY2(refusedDescription.contains(u"3 dead letter"_s), qPrintable(refusedDescription));
}

void TestAccessibility::badgeColoursFollowADarkPalette()
{
    Workspace workspace;
    Topic topic;
    topic.name = u"orders"_s;
    EventSubscription subscription;
    subscription.name = u"busy"_s;
    topic.eventSubscriptions.append(subscription);
    workspace.topics.append(topic);
    WorkspaceTreeModel model;
    model.setWorkspace(workspace);
    EngineSnapshot snapshot;
    SubscriptionSnapshot busy = snapshotOf(u"busy"_s);
    busy.probationState = ProbationTracker::State::InProbation;
    busy.probationCause = DeliveryOutcome::BadRequest;
    snapshot.subscriptions = {busy};
    model.applySnapshot(snapshot);
    const QModelIndex state = model.subscriptionIndex(u"orders"_s, u"busy"_s)
                                  .siblingAtColumn(WorkspaceTreeModel::StateColumn);

    const QPalette original = QApplication::palette();
    const QColor light = state.data(Qt::ForegroundRole).value<QColor>();
    QApplication::setPalette(darkPalette());
    const QColor dark = state.data(Qt::ForegroundRole).value<QColor>();
    QApplication::setPalette(original);
    QVERIFY(light != dark);
    QVERIFY(dark.lightnessF() > light.lightnessF());
    QVERIFY2(contrastRatio(dark, darkPalette().color(QPalette::Base)) >= 4.5,
             qPrintable(QString::number(contrastRatio(dark, darkPalette().color(QPalette::Base)))));
}

void TestAccessibility::aboutBoxNamesTheLicence()
{
    const QString about = MainWindow::aboutText();
    QVERIFY(about.contains(u"Apache License, Version 2.0"_s));
    QVERIFY(about.contains(u"Apache-2.0"_s));
    QVERIFY(about.contains(u"https://www.apache.org/licenses/LICENSE-2.0"_s));
    QVERIFY(!about.contains(u".invalid"_s));
}

QTEST_MAIN(TestAccessibility)
#include "tst_accessibility.moc"
