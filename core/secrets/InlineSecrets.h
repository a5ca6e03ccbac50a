// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../Expected.h"
#include "../model/Workspace.h"

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <functional>

namespace EventDesk {

class SecretStore;

// The value of a secret delivery header ("isSecret": true, SPEC H2) that someone wrote into
// workspace.json by hand. EventDesk never writes one there, but it must not stay in a plain file.
struct InlineSecret
{
    QString topic;
    QString subscription;
    QString header;
    QString value;

    QString key() const; // SecretKeys::deliveryHeader
    QString
    purpose() const; // "secret header 'X-Api-Key' of subscription 'billing' (topic 'orders')"
};

// Moves secret header values found in workspace.json into a secret store when a workspace is
// opened (eventdeskd and the desktop app alike), and takes them out of the file - in that order,
// so that a value is never lost: each secret is written to the store first; only when every one
// is stored is workspace.json rewritten without them (atomically). When the store is unavailable,
// read-only (environment variables) or refuses a write, the file stays as it is and the error says
// which values are still in it, why, and what to do; the values then serve this run (see
// SecretCache::setWorkspaceValues), so nothing stops working.
class InlineSecrets final
{
public:
    static QList<InlineSecret> find(const Workspace &workspace);
    // key -> value, for SecretCache::setWorkspaceValues().
    static QHash<QString, QString> values(const QList<InlineSecret> &secrets);
    // Forgets the values in memory (the secret store and the cache hold them from now on).
    static void clearValues(Workspace &workspace);

    // Rewrites workspaceFile without the values of secrets, atomically, touching nothing else.
    // A header whose value in the file is no longer the one given (the file changed since it was
    // read) keeps it. Returns how many values were taken out.
    static Expected<int> removeFromFile(const QString &workspaceFile,
                                        const QList<InlineSecret> &secrets);

    // Puts the values of secrets back into a workspace.json being written (Workspace::toJson never
    // writes a secret's value): values that could not be moved yet must survive a save of another
    // change. Returns how many were put back.
    static int keepValues(QJsonObject &workspaceJson, const QList<InlineSecret> &secrets);

    // Writes every secret into store (waiting for a store whose availability is still being
    // checked), then calls removeFromFile(). done is called once, with the error if anything
    // failed; workspaceFile is then unchanged.
    using Done = std::function<void(const Expected<void> &result)>;
    static void move(const QString &workspaceFile, const QList<InlineSecret> &secrets,
                     SecretStore *store, Done done);

    // The error when secrets could not be moved: names them, the reason and what to do.
    static QString notMovedMessage(const QList<InlineSecret> &secrets, const QString &reason);
};

} // namespace EventDesk
