// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../Expected.h"

#include <QByteArray>
#include <QString>
#include <QUrl>

// The credentials EventDesk keeps for Azure resources (in the keychain or eventdeskd's
// environment), read from what users copy out of the Azure portal, and the shared access
// signatures of Service Bus and Event Hubs made from them.
namespace EventDesk::AzureCredentials {

// A storage account's secret is its account key, or a connection string
// ("DefaultEndpointsProtocol=https;AccountName=...;AccountKey=...;EndpointSuffix=..." or with
// explicit "QueueEndpoint=..."/"BlobEndpoint=..."), which may also say where the services are
// (Azurite: "...;QueueEndpoint=http://127.0.0.1:10001/devstoreaccount1").
struct StorageAccount
{
    QString accountName;
    QString accountKey; // Base64, as the portal shows it
    QUrl queueEndpoint; // empty when the secret does not say
    QUrl blobEndpoint;
};
Expected<StorageAccount> storageAccount(const QString &secret, const QString &accountName);

// A Service Bus or Event Hubs namespace's connection string:
// "Endpoint=sb://<namespace>.servicebus.windows.net/;SharedAccessKeyName=<name>;
//  SharedAccessKey=<key>[;EntityPath=<entity>]".
struct NamespaceKey
{
    QUrl endpoint; // https://<host>/ made from the sb:// endpoint (empty if the string has none)
    QString keyName;
    QString key;
    QString entityPath;
};
Expected<NamespaceKey> namespaceKey(const QString &connectionString,
                                    const QString &serviceNamespace);

// The Authorization header of a Service Bus or Event Hubs request:
//   SharedAccessSignature sr=<encoded uri>&sig=<encoded signature>&se=<expiry>&skn=<key name>
// signature = Base64(HMAC-SHA256(key as UTF-8, <encoded uri> + "\n" + <expiry>)), expiry in
// seconds since 1970.
QByteArray sharedAccessSignature(const QUrl &resourceUri, const QString &keyName,
                                 const QString &key, qint64 expirySeconds);

} // namespace EventDesk::AzureCredentials
