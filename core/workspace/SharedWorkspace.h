// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../Expected.h"
#include "../model/Workspace.h"
#include "../store/SharedConfiguration.h"

#include <QList>
#include <QString>

namespace EventDesk {

// How an instance's workspace.json meets the configuration of a store several engines share
// (issue 21, docs/shared-store.md "Several instances on one store"): the topics and event
// subscriptions come from the store; the settings, test receivers, port and secrets stay with each
// instance.
namespace SharedWorkspace {

// local with the topics replaced: what an instance runs on a shared store.
Workspace withTopics(const Workspace &local, const QList<Topic> &topics);
// "revision 7 (2 topics, 5 subscriptions)", for the log.
QString describe(qint64 revision, const QList<Topic> &topics);

struct Adoption
{
    qint64 revision = 0; // of the configuration workspace now holds
    bool imported = false; // the store had none: workspace's own topics became its configuration
};

// At start-up: a store never given a configuration (revision 0) is given workspace's topics;
// otherwise workspace's topics are replaced by the store's (the local ones are ignored, and the
// log says so when they differ). Instances starting together on an empty store import as edits
// of the empty configuration (saveConfiguration's rules): the first one's topics are kept; a later
// one whose topics include a name the store holds by then writes nothing and uses the store's; one
// whose topics are all new adds them.
Expected<Adoption> adopt(SharedConfiguration &configuration, Workspace &workspace);

// eventdeskd --import-workspace: the topics of the workspace.json at path become the store's whole
// configuration. A file that cannot be read or is not valid is an error naming it and the JSON
// path; the store then stays as it was. Returns the configuration written.
Expected<SharedConfigurationSnapshot> importFile(SharedConfiguration &configuration,
                                                 const QString &path);

// eventdeskd --export-workspace: writes a workspace.json holding the store's topics and local's
// settings and test receivers, atomically (never a half-written file). Returns what was written.
Expected<SharedConfigurationSnapshot> exportFile(SharedConfiguration &configuration,
                                                 const Workspace &local, const QString &path);

} // namespace SharedWorkspace

} // namespace EventDesk
