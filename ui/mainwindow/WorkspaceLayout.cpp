// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "WorkspaceLayout.h"

#include <QCryptographicHash>
#include <QDir>
#include <QSettings>
#include <QSplitter>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

WorkspaceLayout::WorkspaceLayout(QWidget *root, QObject *parent)
    : QObject(parent)
{
    const QList<QSplitter *> splitters = root->findChildren<QSplitter *>();
    for (QSplitter *splitter : splitters) {
        if (splitter->objectName().isEmpty())
            continue;
        m_splitters.append(splitter);
        // Written as soon as the user drags, so a crash does not lose it.
        connect(splitter, &QSplitter::splitterMoved, this, &WorkspaceLayout::save);
    }
}

QString WorkspaceLayout::settingsGroup(const QString &workspaceDirectory)
{
    const QByteArray path = QDir(workspaceDirectory).absolutePath().toUtf8();
    return u"workspaceLayouts/"_s
        + QString::fromLatin1(QCryptographicHash::hash(path, QCryptographicHash::Sha1).toHex());
}

bool WorkspaceLayout::hasSavedLayout(const QString &workspaceDirectory) const
{
    QSettings settings;
    return settings.contains(settingsGroup(workspaceDirectory) + u"/path"_s);
}

void WorkspaceLayout::switchTo(const QString &workspaceDirectory)
{
    const QString absolute = QDir(workspaceDirectory).absolutePath();
    if (absolute == m_workspace)
        return;
    save();
    m_workspace = absolute;
    restore();
}

void WorkspaceLayout::save() const
{
    if (m_workspace.isEmpty())
        return;
    QSettings settings;
    settings.beginGroup(settingsGroup(m_workspace));
    settings.setValue(u"path"_s, m_workspace); // for whoever reads the settings file
    for (const QPointer<QSplitter> &splitter : m_splitters) {
        if (splitter)
            settings.setValue(u"splitters/"_s + splitter->objectName(), splitter->saveState());
    }
}

void WorkspaceLayout::restore()
{
    QSettings settings;
    settings.beginGroup(settingsGroup(m_workspace));
    for (const QPointer<QSplitter> &splitter : std::as_const(m_splitters)) {
        if (!splitter)
            continue;
        const QByteArray state
            = settings.value(u"splitters/"_s + splitter->objectName()).toByteArray();
        if (!state.isEmpty())
            splitter->restoreState(state);
    }
}

} // namespace EventDesk::Ui
