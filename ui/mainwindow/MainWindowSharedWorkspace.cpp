// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// MainWindow on a shared workspace (File ▸ Open Shared Workspace…): the location asked for, its
// password kept in the secret store when the user chose so, and the host set to monitor the store.
// What the window then shows is SharedWorkspaceMode's.

#include "Banner.h"
#include "MainStatusBar.h"
#include "MainWindow.h"
#include "MonitorMode.h"
#include "OpenSharedWorkspaceDialog.h"
#include "SharedWorkspaceMode.h"
#include "WorkspaceLayout.h"
#include "WorkspaceTreeModel.h"
#include "secrets/SecretStore.h"

#include <QDir>
#include <QFileDialog>
#include <QMessageBox>
#include <QPointer>
#include <QStatusBar>
#include <QTreeView>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

void MainWindow::askForSharedWorkspace()
{
    SecretStore *secrets = activeSecretStore();
    const bool canRemember = secrets && secrets->isWritable()
        && secrets->availability() != SecretStore::Availability::Unavailable;
    OpenSharedWorkspaceDialog dialog(canRemember ? secrets->description() : QString(), this);
    if (m_host.isMonitoringSharedStore())
        dialog.setLocation(m_workspaceDirectory);
    if (dialog.exec() != QDialog::Accepted)
        return;
    openSharedWorkspace(dialog.location());
}

void MainWindow::openSharedWorkspace(const SharedWorkspaceLocation &location)
{
    if (!confirmLeavingEditor())
        return;
    if (location.rememberPassword && !location.password.isEmpty()) {
        if (SecretStore *secrets = activeSecretStore()) {
            QPointer<MainWindow> self(this);
            secrets->write(
                sharedWorkspacePasswordKey(location.url), location.password,
                [self](const Expected<void> &written) {
                    if (self && !written) {
                        self->statusBar()->showMessage(
                            tr("The password was not remembered: %1").arg(written.error()), 10000);
                    }
                });
        }
    }
    // The URL without the password names the workspace everywhere: title, recent list, layout.
    m_workspaceDirectory = location.url;
    m_layout->switchTo(m_workspaceDirectory);
    closeEditor();
    m_host.stop();
    m_monitorMode->setActive(false);
    m_sharedMode->setActive(false);
    m_statusBar->setEngineState(tr("Opening shared workspace…"));
    m_statusBar->setListenUrl(QString());
    EngineHost::Config config;
    config.storeLocation = location.connectionUrl();
    m_host.monitor(config);
}

void MainWindow::openRecentSharedWorkspace(const QString &url)
{
    SharedWorkspaceLocation location;
    location.url = url;
    SecretStore *secrets = activeSecretStore();
    if (!secrets) {
        openSharedWorkspace(location);
        return;
    }
    QPointer<MainWindow> self(this);
    secrets->read(sharedWorkspacePasswordKey(url),
                  [self, location](const Expected<std::optional<QString>> &password) mutable {
                      if (!self)
                          return;
                      // None kept (or the store could not be asked): libpq may find one in
                      // ~/.pgpass or PGPASSWORD, else the store's error says what failed.
                      if (password && password.value())
                          location.password = *password.value();
                      self->openSharedWorkspace(location);
                  });
}

void MainWindow::applyChanged(const Workspace &changed,
                              std::function<void(const Expected<void> &)> done)
{
    if (!m_host.isMonitoringSharedStore()) {
        m_host.applyWorkspace(changed, std::move(done));
        return;
    }
    QPointer<MainWindow> self(this);
    m_host.saveSharedConfiguration(
        changed.topics, [self, done = std::move(done)](const Expected<qint64> &saved) {
            if (!self)
                return;
            if (saved) {
                self->statusBar()->showMessage(
                    tr("Shared configuration saved (revision %1); the instances take it within a "
                       "second.")
                        .arg(saved.value()),
                    5000);
                done({});
                return;
            }
            // Refused (another writer changed the same topic or subscription): the host holds the
            // configuration as the store has it now, and the tree shows it again.
            self->m_workspace = self->m_host.workspace();
            self->m_treeModel->setWorkspace(self->m_workspace);
            self->m_tree->expandAll();
            self->updateActions();
            done(Error(tr("%1\n\nThe workspace tree shows the configuration as the store holds it "
                          "now.")
                           .arg(saved.error())));
        });
}

void MainWindow::askToImportSharedWorkspaceFile()
{
    const QString path
        = QFileDialog::getOpenFileName(this, tr("Import workspace.json into the shared workspace"),
                                       QString(), tr("Workspace files (*.json)"));
    if (!path.isEmpty())
        importSharedWorkspaceFile(path);
}

void MainWindow::askToExportSharedWorkspaceFile()
{
    const QString path
        = QFileDialog::getSaveFileName(this, tr("Export the shared workspace's configuration"),
                                       u"workspace.json"_s, tr("Workspace files (*.json)"));
    if (!path.isEmpty())
        exportSharedWorkspaceFile(path);
}

void MainWindow::importSharedWorkspaceFile(const QString &path,
                                           std::function<void(const Expected<void> &)> done)
{
    QPointer<MainWindow> self(this);
    m_host.importSharedConfiguration(
        path, [self, path, done](const Expected<SharedConfigurationSnapshot> &imported) {
            if (!self)
                return;
            if (imported) {
                self->statusBar()->showMessage(
                    tr("Imported %1: the shared configuration is revision %2 (%n topic(s))",
                       nullptr, int(imported->topics.size()))
                        .arg(QDir::toNativeSeparators(path))
                        .arg(imported->revision),
                    8000);
            } else {
                QMessageBox::warning(
                    self, tr("Nothing imported"),
                    tr("The shared configuration is unchanged.\n\n%1").arg(imported.error()));
            }
            if (done)
                done(imported ? Expected<void>() : Expected<void>(Error(imported.error())));
        });
}

void MainWindow::exportSharedWorkspaceFile(const QString &path,
                                           std::function<void(const Expected<void> &)> done)
{
    QPointer<MainWindow> self(this);
    m_host.exportSharedConfiguration(
        path, [self, path, done](const Expected<SharedConfigurationSnapshot> &exported) {
            if (!self)
                return;
            if (exported) {
                self->statusBar()->showMessage(
                    tr("Exported the shared configuration (revision %1) to %2")
                        .arg(exported->revision)
                        .arg(QDir::toNativeSeparators(path)),
                    8000);
            } else {
                QMessageBox::warning(self, tr("Nothing exported"), exported.error());
            }
            if (done)
                done(exported ? Expected<void>() : Expected<void>(Error(exported.error())));
        });
}

} // namespace EventDesk::Ui
