// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "DestinationCredentials.h"

#include "azure/AzureCredentials.h"
#include "secrets/SecretStore.h"

#include <QCoreApplication>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {

QString translate(const char *text)
{
    return QCoreApplication::translate("DestinationCredential", text);
}

} // namespace

CredentialAccess::~CredentialAccess() = default;

DestinationCredential DestinationCredential::of(const DeliveryDestination &destination)
{
    DestinationCredential credential;
    const DestinationResource parts = Destinations::resourceParts(destination);
    switch (destination.type) {
    case DestinationType::WebHook:
    case DestinationType::AzureFunction:
        break;
    case DestinationType::StorageQueue:
        if (!parts.account.isEmpty()) {
            credential.kind = Kind::StorageAccountKey;
            credential.owner = parts.account;
            credential.key = SecretKeys::storageAccountKey(parts.account);
        }
        break;
    case DestinationType::ServiceBusQueue:
    case DestinationType::ServiceBusTopic:
    case DestinationType::EventHub:
        if (!parts.serviceNamespace.isEmpty()) {
            credential.kind = Kind::NamespaceConnectionString;
            credential.owner = parts.serviceNamespace;
            credential.key = SecretKeys::namespaceKey(parts.serviceNamespace);
        }
        break;
    }
    return credential;
}

QString DestinationCredential::problemWith(const QString &value) const
{
    if (value.trimmed().isEmpty())
        return translate("nothing entered");
    switch (kind) {
    case Kind::None:
        return {};
    case Kind::StorageAccountKey:
        if (const auto account = AzureCredentials::storageAccount(value, owner); !account)
            return account.error();
        return {};
    case Kind::NamespaceConnectionString:
        if (const auto key = AzureCredentials::namespaceKey(value, owner); !key)
            return key.error();
        return {};
    }
    return {};
}

QString DestinationCredential::title() const
{
    return kind == Kind::StorageAccountKey
        ? translate("Key of Storage Account “%1”").arg(owner)
        : translate("Connection String of Namespace “%1”").arg(owner);
}

QString DestinationCredential::prompt() const
{
    return kind == Kind::StorageAccountKey
        ? translate("The account key (key1 or key2, Base64) or a connection string with "
                    "AccountKey, from the storage account's Access keys.\nEventDesk signs "
                    "every queue message with it (Shared Key). A connection string's "
                    "QueueEndpoint is used when the destination names no queue endpoint URL.")
        : translate("A connection string of a shared access policy that may send, from the "
                    "namespace's Shared access policies:\nEndpoint=sb://…;SharedAccessKeyName=…;"
                    "SharedAccessKey=…\nEventDesk signs every message with it (shared access "
                    "signature).");
}

QString DestinationCredential::environmentVariable() const
{
    return SecretKeys::environmentVariable(key);
}

} // namespace EventDesk::Ui
