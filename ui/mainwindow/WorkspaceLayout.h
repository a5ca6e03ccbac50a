// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>

class QSplitter;
class QWidget;

namespace EventDesk::Ui {

// Remembers the positions of the window's splitters per workspace: the workspace tree beside
// the tabs, the dashboard's charts above the probation timeline, the dead-letter list beside its
// detail. They are kept in QSettings under the workspace folder's absolute path (hashed, so any
// path makes a valid key), written when the user moves a splitter, when another workspace opens
// and when the window closes, and restored when the workspace opens again. A workspace opened
// for the first time keeps the positions the window has.
class WorkspaceLayout final : public QObject
{
    Q_OBJECT

public:
    // The splitters under root that have an object name; the name is their key.
    explicit WorkspaceLayout(QWidget *root, QObject *parent = nullptr);

    // Saves the positions for the workspace open so far, then restores those of directory.
    void switchTo(const QString &workspaceDirectory);
    // Saves the positions for the open workspace (none open: nothing).
    void save() const;
    bool hasSavedLayout(const QString &workspaceDirectory) const;
    QString currentWorkspace() const { return m_workspace; }

    // The QSettings group of a workspace's layout.
    static QString settingsGroup(const QString &workspaceDirectory);

private:
    void restore();

    QList<QPointer<QSplitter>> m_splitters;
    QString m_workspace;
};

} // namespace EventDesk::Ui
