// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../Expected.h"
#include "../model/Topic.h"

#include <QList>
#include <QString>
#include <QtGlobal>

namespace EventDesk {

// The topics and event subscriptions of a store that several engines share (PostgreSQL, issue 21).
// On such a store they live in the store, not in each instance's workspace.json, so that every
// instance and the desktop app see the same configuration; a change written by one is picked up by
// the others when they next poll configurationRevision() (they poll at least every second).
// Everything else of a workspace (its settings, test receivers, listen port, secrets) stays with
// each instance.
struct SharedConfigurationSnapshot
{
    // Grows with every change written. 0: the store was never given a configuration (the first
    // instance imports its workspace.json's topics).
    qint64 revision = 0;
    QList<Topic> topics; // with their event subscriptions, in the order they were first written
};

class SharedConfiguration
{
public:
    virtual ~SharedConfiguration() = default;

    // The configuration's current revision: one small read, cheap enough to poll.
    virtual Expected<qint64> configurationRevision() = 0;
    virtual Expected<SharedConfigurationSnapshot> loadConfiguration() = 0;

    // An edit: writes, in ONE transaction, the differences between before (the configuration as
    // the writer read it at baseRevision) and after: topics and subscriptions added, changed or
    // removed. Returns the new revision. When another writer changed or removed a topic or
    // subscription this edit also changes, after baseRevision, nothing is written and the error
    // names it (the writer reloads and decides again); edits of different subscriptions never
    // conflict.
    virtual Expected<qint64> saveConfiguration(const QList<Topic> &before,
                                               const QList<Topic> &after, qint64 baseRevision)
        = 0;

    // An import (workspace.json into the store): topics becomes the whole configuration, whatever
    // it was, in ONE transaction. Returns the new revision.
    virtual Expected<qint64> replaceConfiguration(const QList<Topic> &topics) = 0;
};

} // namespace EventDesk
