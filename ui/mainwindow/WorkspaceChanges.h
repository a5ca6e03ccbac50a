// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "engine/EngineSnapshot.h"
#include "model/Workspace.h"

#include <QCoreApplication>
#include <QString>

#include <optional>

class QWidget;

namespace EventDesk::Ui {

// The topic of this name (any case), or nullptr.
Topic *findTopic(Workspace &workspace, const QString &name);
// The index of topic's subscription of this name (any case), or -1.
qsizetype findSubscription(const Topic &topic, const QString &name);

// A change of the workspace's topics and subscriptions the user asked for and confirmed, with the
// message that says it was done.
struct WorkspaceChange
{
    Workspace workspace;
    QString message;
};

// The changes of the workspace the main window offers on the topic or subscription selected in
// the tree: each asks what it needs (a name, a confirmation, a file), refuses what is not valid
// with a message that says why, and returns the changed workspace; nothing when cancelled or
// refused. Applying the change is the caller's part.
class WorkspaceChanges
{
    Q_DECLARE_TR_FUNCTIONS(WorkspaceChanges)

public:
    // parent: the window of the dialogs.
    explicit WorkspaceChanges(QWidget *parent);

    std::optional<WorkspaceChange> newTopic(const Workspace &workspace) const;
    // Renames the subscription, or the topic when subscription is empty.
    std::optional<WorkspaceChange> rename(const Workspace &workspace, const QString &topic,
                                          const QString &subscription) const;
    std::optional<WorkspaceChange> toggleEnabled(const Workspace &workspace, const QString &topic,
                                                 const QString &subscription) const;
    // Deletes the subscription, or the topic and its subscriptions when subscription is empty,
    // after saying what is still waiting for them (from the last snapshot).
    std::optional<WorkspaceChange> remove(const Workspace &workspace, const QString &topic,
                                          const QString &subscription,
                                          const EngineSnapshot &lastSnapshot) const;
    // Adds subscriptions exported from Azure (Resource Manager JSON) to topic.
    std::optional<WorkspaceChange> importSubscriptions(const Workspace &workspace,
                                                       const QString &topic) const;
    // Writes the topic's subscriptions (or the one named) as Resource Manager JSON to a file the
    // user chooses; returns what to show in the status bar (empty: nothing was written).
    QString exportSubscriptions(const Workspace &workspace, const QString &topic,
                                const QString &subscription) const;

private:
    QWidget *m_parent = nullptr;
};

} // namespace EventDesk::Ui
