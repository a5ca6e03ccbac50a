// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "Expected.h"
#include "model/DeliveryDestination.h"

#include <QString>

#include <functional>

class QWidget;

namespace EventDesk::Ui {

// The secret a destination is reached with: a storage queue's account key (or the account's
// connection string), a Service Bus or Event Hubs namespace's connection string. Webhooks and
// functions have none. The value itself never passes through here.
struct DestinationCredential
{
    enum class Kind { None, StorageAccountKey, NamespaceConnectionString };
    Kind kind = Kind::None;
    QString owner; // the storage account or the namespace
    QString key; // SecretKeys::storageAccountKey / namespaceKey of owner

    // What destination needs; Kind::None also while its resource id names no account or
    // namespace yet.
    static DestinationCredential of(const DeliveryDestination &destination);

    // Reads value the way the engine will (AzureCredentials) and says what is wrong with it, in
    // its words; empty when it can be used.
    QString problemWith(const QString &value) const;
    // "Key of Storage Account “dev”", for the dialog that asks for it.
    QString title() const;
    // What to paste, and where it comes from.
    QString prompt() const;
    // eventdeskd's alternative: EVENTDESK_STORAGE_KEY_<ACCOUNT>, EVENTDESK_NAMESPACE_KEY_<NS>.
    QString environmentVariable() const;
};

// How the subscription editor reaches the workspace's secrets without owning them: the main
// window's WorkspaceSecrets implements it over the secret store the user chose (the system
// keychain unless they opted out). Secrets never travel in the edited subscription, so they
// cannot end up in workspace.json.
class CredentialAccess
{
public:
    virtual ~CredentialAccess();

    // Whether a secret is kept under key (an error says why the store cannot tell). done may be
    // called before this returns or later: keychains answer asynchronously.
    using FoundCallback = std::function<void(const Expected<bool> &stored)>;
    virtual void findStored(const QString &key, FoundCallback done) = 0;

    // Asks for credential's secret, masked, and keeps it. done(true) once it is stored;
    // done(false) when the user cancelled, or it could not be stored (the user has been told).
    using StoredCallback = std::function<void(bool stored)>;
    virtual void askToStore(QWidget *parent, const DestinationCredential &credential,
                            StoredCallback done)
        = 0;

    // Where secrets are kept: "system keychain", "memory (this run only)", ...
    virtual QString storeDescription() const = 0;
};

} // namespace EventDesk::Ui
