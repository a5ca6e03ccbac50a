// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QDialog>
#include <QKeySequence>
#include <QList>
#include <QString>

class QAction;
class QLineEdit;
class QMainWindow;
class QMenu;
class QTreeWidget;

namespace EventDesk::Ui {

// The window's keyboard access, read from its actions themselves so the list cannot go stale:
// every menu entry with its mnemonic path (Alt+W, R) and shortcuts, and every other action with a
// shortcut (the views' own: the dead-letter browser's, the filter bars' ...) with where it works.
namespace KeyboardShortcuts {

struct Entry
{
    QAction *action = nullptr;
    QString command; // the action's text without mnemonic markers
    QString menuPath; // "Workspace ▸ Rename…", empty when the action is in no menu of the menu bar
    QString
        mnemonicKeys; // "Alt+W, R": the menu path typed; empty when a level has no unique mnemonic
    QString where; // "Everywhere", or the view the shortcut works in
    QList<QKeySequence> shortcuts;
};

// Two actions whose shortcuts can be active at the same time (Qt then triggers neither).
struct Conflict
{
    QKeySequence sequence;
    QAction *first = nullptr;
    QAction *second = nullptr;
};

// The letter after a single '&' ("De&lete…" → 'l', lower case); a null QChar when there is none.
QChar mnemonic(const QString &text);
// The text without '&' markers ("&&" stays one '&').
QString withoutMnemonic(const QString &text);
// The visible actions of a menu (no separators) whose mnemonic another one of them shares.
QList<QAction *> ambiguousMnemonics(const QMenu *menu);
// The menu bar's entries first (in menu order), then the other actions with shortcuts.
QList<Entry> collect(QMainWindow *window);
QList<Conflict> conflicts(QMainWindow *window);

} // namespace KeyboardShortcuts

// Help ▸ Keyboard Shortcuts: KeyboardShortcuts::collect() in a searchable list.
class KeyboardShortcutsDialog final : public QDialog
{
    Q_OBJECT

public:
    explicit KeyboardShortcutsDialog(QMainWindow *window);

    QTreeWidget *list() const { return m_list; }

private:
    void applyFilter(const QString &text);

    QLineEdit *m_filter = nullptr;
    QTreeWidget *m_list = nullptr;
};

} // namespace EventDesk::Ui
