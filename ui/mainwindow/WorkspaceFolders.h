// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QObject>
#include <QString>

#include <optional>

class QMenu;
class QWidget;

namespace EventDesk::Ui {

// Which workspace folder to open: the default one, the recently opened ones (kept in the
// application's settings and offered in a menu), and the New / Open folder choices.
class WorkspaceFolders final : public QObject
{
    Q_OBJECT

public:
    // recentMenu: File ▸ Open Recent, which this fills.
    WorkspaceFolders(QMenu *recentMenu, QWidget *dialogParent);
    ~WorkspaceFolders() override;

    // directory was opened: it goes to the top of the recent list and becomes the last one.
    void opened(const QString &directory);

    // Asks for an empty folder for a new workspace (refusing one that is not empty).
    std::optional<QString> askForNewFolder() const;
    // Asks for a workspace folder (a folder without workspace.json only if the user agrees to
    // create one there); current: where the dialog starts.
    std::optional<QString> askForFolder(const QString &current) const;

Q_SIGNALS:
    // A recent workspace was chosen in the menu.
    void openRequested(const QString &directory);

private:
    void rebuildMenu();

    QMenu *m_recentMenu = nullptr;
    QWidget *m_dialogParent = nullptr;
};

} // namespace EventDesk::Ui
