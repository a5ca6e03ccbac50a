// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "KeyboardShortcuts.h"

#include <QAction>
#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QSet>
#include <QStackedWidget>
#include <QTabWidget>
#include <QToolBar>
#include <QTreeWidget>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace KeyboardShortcuts {

namespace {

bool isContainer(const QObject *object)
{
    return qobject_cast<const QMenu *>(object) || qobject_cast<const QMenuBar *>(object)
        || qobject_cast<const QToolBar *>(object);
}

// The widgets (not menus, menu bars or tool bars) an action was added to.
QList<QWidget *> ownerWidgets(const QAction *action)
{
    QList<QWidget *> widgets;
    const QList<QObject *> objects = action->associatedObjects();
    for (QObject *object : objects) {
        auto *widget = qobject_cast<QWidget *>(object);
        if (!widget)
            continue;
        // A tool bar's button (QToolButton::setDefaultAction() adds the action to it) stands for
        // its tool bar, and a tool bar's actions work where the tool bar is: in its view, or
        // nowhere in particular for the main window's own tool bar.
        if (qobject_cast<QToolBar *>(widget->parentWidget()))
            widget = widget->parentWidget();
        if (auto *toolBar = qobject_cast<QToolBar *>(widget)) {
            if (toolBar->parentWidget() && !qobject_cast<QMainWindow *>(toolBar->parentWidget())
                && !widgets.contains(toolBar->parentWidget()))
                widgets.append(toolBar->parentWidget());
            continue;
        }
        if (!isContainer(widget) && !widgets.contains(widget))
            widgets.append(widget);
    }
    return widgets;
}

bool isWindowWide(const QAction *action)
{
    return action->shortcutContext() == Qt::WindowShortcut
        || action->shortcutContext() == Qt::ApplicationShortcut;
}

// The tab page (of any tab widget in the window) a widget is on, by its tab text.
QString placeOf(const QWidget *widget)
{
    for (const QWidget *current = widget; current; current = current->parentWidget()) {
        const QWidget *parent = current->parentWidget();
        auto *stack = qobject_cast<const QStackedWidget *>(parent);
        if (auto *tabs
            = stack ? qobject_cast<const QTabWidget *>(stack->parentWidget()) : nullptr) {
            const int index = tabs->indexOf(const_cast<QWidget *>(current));
            QString tab = tabs->tabText(index);
            tab.remove(u" *"_s); // the editor's "modified" marker
            return QCoreApplication::translate("KeyboardShortcuts", "%1 tab")
                .arg(withoutMnemonic(tab));
        }
        if (!current->accessibleName().isEmpty())
            return current->accessibleName();
    }
    return QCoreApplication::translate("KeyboardShortcuts", "Main window");
}

QString whereOf(const QAction *action)
{
    if (isWindowWide(action))
        return QCoreApplication::translate("KeyboardShortcuts", "Everywhere");
    QStringList places;
    for (const QWidget *widget : ownerWidgets(action)) {
        const QString place = placeOf(widget);
        if (!places.contains(place))
            places.append(place);
    }
    return places.join(u", "_s);
}

void collectMenu(const QMenu *menu, const QString &path, const QString &keys, bool reachable,
                 QList<Entry> &entries, QSet<const QAction *> &seen)
{
    const QList<QAction *> ambiguous = ambiguousMnemonics(menu);
    const QList<QAction *> actions = menu->actions();
    for (QAction *action : actions) {
        if (action->isSeparator() || !action->isVisible())
            continue;
        const QChar letter = mnemonic(action->text());
        const bool direct = reachable && !letter.isNull() && !ambiguous.contains(action);
        const QString entryKeys = direct ? keys + u", "_s + QString(letter).toUpper() : QString();
        const QString entryPath = path + u" ▸ "_s + withoutMnemonic(action->text());
        Entry entry;
        entry.action = action;
        entry.command = withoutMnemonic(action->text());
        entry.menuPath = entryPath;
        entry.mnemonicKeys = entryKeys;
        entry.shortcuts
            = action->shortcuts(); // none for a submenu (Open Recent): its entries change
        entry.where = entry.shortcuts.isEmpty()
            ? QCoreApplication::translate("KeyboardShortcuts", "Everywhere")
            : whereOf(action);
        entries.append(entry);
        seen.insert(action);
    }
}

} // namespace

QChar mnemonic(const QString &text)
{
    for (qsizetype i = 0; i + 1 < text.size(); ++i) {
        if (text.at(i) != u'&')
            continue;
        if (text.at(i + 1) == u'&') {
            ++i;
            continue;
        }
        return text.at(i + 1).toLower();
    }
    return {};
}

QString withoutMnemonic(const QString &text)
{
    QString result;
    result.reserve(text.size());
    for (qsizetype i = 0; i < text.size(); ++i) {
        if (text.at(i) == u'&' && i + 1 < text.size())
            ++i;
        result.append(text.at(i));
    }
    return result;
}

QList<QAction *> ambiguousMnemonics(const QMenu *menu)
{
    QHash<QChar, QList<QAction *>> byLetter;
    const QList<QAction *> actions = menu->actions();
    for (QAction *action : actions) {
        if (action->isSeparator() || !action->isVisible())
            continue;
        if (const QChar letter = mnemonic(action->text()); !letter.isNull())
            byLetter[letter].append(action);
    }
    QList<QAction *> ambiguous;
    for (const QList<QAction *> &sharing : std::as_const(byLetter))
        if (sharing.size() > 1)
            ambiguous += sharing;
    return ambiguous;
}

QList<Entry> collect(QMainWindow *window)
{
    QList<Entry> entries;
    QSet<const QAction *> seen;
    const QMenuBar *bar = window->menuBar();
    QHash<QChar, int> topLetters;
    for (const QAction *top : bar->actions())
        if (const QChar letter = mnemonic(top->text()); !letter.isNull())
            ++topLetters[letter];
    for (QAction *top : bar->actions()) {
        const QMenu *menu = top->menu();
        if (!menu || !top->isVisible())
            continue;
        const QChar letter = mnemonic(top->text());
        const bool reachable = !letter.isNull() && topLetters.value(letter) == 1;
        collectMenu(menu, withoutMnemonic(top->text()),
                    reachable ? u"Alt+"_s + QString(letter).toUpper() : QString(), reachable,
                    entries, seen);
    }

    // The views' own shortcuts: actions added to widgets of the window.
    QList<QAction *> others = window->findChildren<QAction *>();
    const QList<QWidget *> widgets = window->findChildren<QWidget *>();
    for (const QWidget *widget : widgets)
        others += widget->actions();
    for (QAction *action : std::as_const(others)) {
        if (seen.contains(action) || action->shortcuts().isEmpty() || action->menu())
            continue;
        seen.insert(action);
        Entry entry;
        entry.action = action;
        entry.command = withoutMnemonic(action->text());
        if (entry.command.isEmpty())
            entry.command = action->toolTip();
        entry.shortcuts = action->shortcuts();
        entry.where = whereOf(action);
        entries.append(entry);
    }
    return entries;
}

QList<Conflict> conflicts(QMainWindow *window)
{
    // Where each action's shortcut is live: the window, or the widgets it was added to.
    struct Scope
    {
        QAction *action;
        QList<QWidget *> widgets; // empty: the whole window
    };
    QHash<QKeySequence, QList<Scope>> bySequence;
    QSet<QAction *> actions;
    for (QAction *action : window->findChildren<QAction *>())
        actions.insert(action);
    for (QWidget *widget : window->findChildren<QWidget *>())
        for (QAction *action : widget->actions())
            actions.insert(action);
    for (QAction *action : std::as_const(actions)) {
        const QList<QKeySequence> shortcuts = action->shortcuts();
        for (const QKeySequence &sequence : shortcuts) {
            if (sequence.isEmpty())
                continue;
            bySequence[sequence].append(
                {action, isWindowWide(action) ? QList<QWidget *>() : ownerWidgets(action)});
        }
    }
    const auto overlap = [](const Scope &a, const Scope &b) {
        if (a.widgets.isEmpty() || b.widgets.isEmpty())
            return true;
        for (const QWidget *first : a.widgets)
            for (const QWidget *second : b.widgets)
                if (first == second || first->isAncestorOf(second) || second->isAncestorOf(first))
                    return true;
        return false;
    };
    QList<Conflict> found;
    for (auto it = bySequence.cbegin(); it != bySequence.cend(); ++it) {
        const QList<Scope> &scopes = it.value();
        for (qsizetype i = 0; i < scopes.size(); ++i)
            for (qsizetype j = i + 1; j < scopes.size(); ++j)
                if (overlap(scopes.at(i), scopes.at(j)))
                    found.append({it.key(), scopes.at(i).action, scopes.at(j).action});
    }
    return found;
}

} // namespace KeyboardShortcuts

KeyboardShortcutsDialog::KeyboardShortcutsDialog(QMainWindow *window)
    : QDialog(window)
    , m_filter(new QLineEdit(this))
    , m_list(new QTreeWidget(this))
{
    setWindowTitle(tr("Keyboard Shortcuts"));
    auto *intro = new QLabel(
        tr("Every command of the menus can be reached with Alt and the underlined letters; "
           "these are the keys, read from the commands themselves."),
        this);
    intro->setWordWrap(true);
    m_filter->setPlaceholderText(tr("Search commands and keys…"));
    m_filter->setClearButtonEnabled(true);
    auto *filterLabel = new QLabel(tr("&Search:"), this);
    filterLabel->setBuddy(m_filter);

    m_list->setColumnCount(4);
    m_list->setHeaderLabels({tr("Command"), tr("Shortcut"), tr("Menu keys"), tr("Works in")});
    m_list->setRootIsDecorated(false);
    m_list->setAlternatingRowColors(true);
    m_list->setAccessibleName(tr("Keyboard shortcuts"));
    QTreeWidgetItem *menus = nullptr;
    QTreeWidgetItem *views = nullptr;
    const QList<KeyboardShortcuts::Entry> entries = KeyboardShortcuts::collect(window);
    for (const KeyboardShortcuts::Entry &entry : entries) {
        QStringList keys;
        for (const QKeySequence &sequence : entry.shortcuts)
            keys.append(sequence.toString(QKeySequence::NativeText));
        auto *item = new QTreeWidgetItem({entry.menuPath.isEmpty() ? entry.command : entry.menuPath,
                                          keys.join(u", "_s), entry.mnemonicKeys, entry.where});
        QTreeWidgetItem *&group = entry.menuPath.isEmpty() ? views : menus;
        if (!group) {
            group = new QTreeWidgetItem(
                m_list, {entry.menuPath.isEmpty() ? tr("In the views") : tr("Menus")});
            QFont font = group->font(0);
            font.setBold(true);
            group->setFont(0, font);
            group->setFirstColumnSpanned(true);
        }
        group->addChild(item);
    }
    m_list->setRootIsDecorated(true);
    m_list->expandAll();
    for (int column = 0; column < m_list->columnCount(); ++column)
        m_list->resizeColumnToContents(column);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_filter, &QLineEdit::textChanged, this, &KeyboardShortcutsDialog::applyFilter);

    auto *filterRow = new QHBoxLayout;
    filterRow->addWidget(filterLabel);
    filterRow->addWidget(m_filter, 1);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(filterRow);
    layout->addWidget(m_list, 1);
    layout->addWidget(buttons);
    resize(760, 560);
}

void KeyboardShortcutsDialog::applyFilter(const QString &text)
{
    for (int top = 0; top < m_list->topLevelItemCount(); ++top) {
        QTreeWidgetItem *group = m_list->topLevelItem(top);
        int visible = 0;
        for (int row = 0; row < group->childCount(); ++row) {
            QTreeWidgetItem *item = group->child(row);
            bool match = text.isEmpty();
            for (int column = 0; !match && column < m_list->columnCount(); ++column)
                match = item->text(column).contains(text, Qt::CaseInsensitive);
            item->setHidden(!match);
            visible += match ? 1 : 0;
        }
        group->setHidden(visible == 0);
    }
}

} // namespace EventDesk::Ui
