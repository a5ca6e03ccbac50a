// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "WorkspaceFolders.h"

#include "host/StoreOpener.h"
#include "store/StoreLocation.h"
#include "workspace/WorkspaceFolder.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {

constexpr int MaxRecentWorkspaces = 8;

} // namespace

WorkspaceFolders::WorkspaceFolders(QMenu *recentMenu, QWidget *dialogParent)
    : QObject(dialogParent)
    , m_recentMenu(recentMenu)
    , m_dialogParent(dialogParent)
{
    rebuildMenu();
}

WorkspaceFolders::~WorkspaceFolders() = default;

void WorkspaceFolders::opened(const QString &directory)
{
    QSettings settings;
    QStringList recent = settings.value(u"workspace/recent"_s).toStringList();
    recent.removeAll(directory);
    recent.prepend(directory);
    while (recent.size() > MaxRecentWorkspaces)
        recent.removeLast();
    settings.setValue(u"workspace/recent"_s, recent);
    rebuildMenu();
    settings.setValue(u"workspace/last"_s, directory);
}

void WorkspaceFolders::rebuildMenu()
{
    m_recentMenu->clear();
    const QStringList recent = QSettings().value(u"workspace/recent"_s).toStringList();
    for (const QString &directory : recent) {
        // A shared workspace is kept by its URL, which holds no password (see
        // SharedWorkspaceLocation); redacted all the same, should an older entry hold one.
        const bool shared = isPostgresLocation(directory);
        QAction *action = m_recentMenu->addAction(
            shared ? tr("Shared: %1").arg(redactedStoreLocation(directory)) : directory, this,
            [this, directory] { Q_EMIT openRequested(directory); });
        action->setEnabled(shared || QFileInfo(directory).isDir());
    }
    m_recentMenu->setEnabled(!recent.isEmpty());
}

std::optional<QString> WorkspaceFolders::askForNewFolder() const
{
    const QString directory = QFileDialog::getExistingDirectory(
        m_dialogParent, tr("New Workspace — choose an empty folder"), QDir::homePath());
    if (directory.isEmpty())
        return std::nullopt;
    if (!QDir(directory).isEmpty()) {
        QMessageBox::warning(m_dialogParent, tr("Folder not empty"),
                             tr("%1 is not empty. Choose an empty folder for a new workspace, or "
                                "use Open Workspace.")
                                 .arg(directory));
        return std::nullopt;
    }
    return directory;
}

std::optional<QString> WorkspaceFolders::askForFolder(const QString &current) const
{
    const QString directory = QFileDialog::getExistingDirectory(
        m_dialogParent, tr("Open Workspace"), current.isEmpty() ? QDir::homePath() : current);
    if (directory.isEmpty())
        return std::nullopt;
    if (!QFileInfo::exists(WorkspaceFolder::workspaceFile(directory))) {
        const auto answer = QMessageBox::question(
            m_dialogParent, tr("No workspace here"),
            tr("%1 has no workspace.json. Create a new workspace in this folder?").arg(directory));
        if (answer != QMessageBox::Yes)
            return std::nullopt;
    }
    return directory;
}

} // namespace EventDesk::Ui
