// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "AzureCredentials.h"

#include <QHash>
#include <QMessageAuthenticationCode>
#include <QStringList>

using namespace Qt::StringLiterals;

namespace EventDesk::AzureCredentials {

namespace {

// "Name=value;Name=value;..." with names compared case-insensitively; values may contain '='
// (Base64 keys end with it).
QHash<QString, QString> connectionStringParts(const QString &text)
{
    QHash<QString, QString> parts;
    for (const QString &item : text.split(u';', Qt::SkipEmptyParts)) {
        const qsizetype equals = item.indexOf(u'=');
        if (equals <= 0)
            continue;
        parts.insert(item.left(equals).trimmed().toLower(), item.mid(equals + 1).trimmed());
    }
    return parts;
}

bool looksLikeConnectionString(const QString &text)
{
    return text.contains(u';') || text.startsWith("usedevelopmentstorage"_L1, Qt::CaseInsensitive)
        || text.startsWith("endpoint="_L1, Qt::CaseInsensitive);
}

// Azurite's well-known development account (public, documented for the emulator).
constexpr auto DevelopmentAccount = "devstoreaccount1"_L1;
constexpr auto DevelopmentKey
    = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="_L1;

} // namespace

Expected<StorageAccount> storageAccount(const QString &secret, const QString &accountName)
{
    StorageAccount result;
    result.accountName = accountName;
    const QString text = secret.trimmed();
    if (text.isEmpty())
        return Error(u"no key for storage account '%1'"_s.arg(accountName));
    if (!looksLikeConnectionString(text)) {
        result.accountKey = text;
        return result;
    }
    const QHash<QString, QString> parts = connectionStringParts(text);
    if (parts.value(u"usedevelopmentstorage"_s).compare("true"_L1, Qt::CaseInsensitive) == 0) {
        result.accountName = DevelopmentAccount;
        result.accountKey = DevelopmentKey;
        result.queueEndpoint = QUrl(u"http://127.0.0.1:10001/devstoreaccount1"_s);
        result.blobEndpoint = QUrl(u"http://127.0.0.1:10000/devstoreaccount1"_s);
    }
    if (parts.contains(u"accountname"_s))
        result.accountName = parts.value(u"accountname"_s);
    if (parts.contains(u"accountkey"_s))
        result.accountKey = parts.value(u"accountkey"_s);
    if (result.accountKey.isEmpty()) {
        return Error(u"the connection string of storage account '%1' has no AccountKey (a "
                     u"connection string with a key is needed, not a SAS)"_s.arg(accountName));
    }
    if (result.accountName.compare(accountName, Qt::CaseInsensitive) != 0) {
        return Error(u"the connection string stored for storage account '%1' is that of account "
                     u"'%2'"_s.arg(accountName, result.accountName));
    }
    const QString protocol = parts.value(u"defaultendpointsprotocol"_s, u"https"_s).toLower();
    const QString suffix = parts.value(u"endpointsuffix"_s);
    const auto endpoint = [&](const QString &explicitKey, QLatin1StringView service) -> QUrl {
        if (parts.contains(explicitKey))
            return QUrl(parts.value(explicitKey), QUrl::StrictMode);
        if (!suffix.isEmpty())
            return QUrl(u"%1://%2.%3.%4"_s.arg(protocol, result.accountName.toLower(), service, suffix));
        return {};
    };
    if (const QUrl queue = endpoint(u"queueendpoint"_s, "queue"_L1); !queue.isEmpty())
        result.queueEndpoint = queue;
    if (const QUrl blob = endpoint(u"blobendpoint"_s, "blob"_L1); !blob.isEmpty())
        result.blobEndpoint = blob;
    return result;
}

Expected<NamespaceKey> namespaceKey(const QString &connectionString,
                                    const QString &serviceNamespace)
{
    const QHash<QString, QString> parts = connectionStringParts(connectionString.trimmed());
    NamespaceKey result;
    result.keyName = parts.value(u"sharedaccesskeyname"_s);
    result.key = parts.value(u"sharedaccesskey"_s);
    result.entityPath = parts.value(u"entitypath"_s);
    if (result.keyName.isEmpty() || result.key.isEmpty()) {
        return Error(u"the connection string of namespace '%1' needs SharedAccessKeyName and "
                     u"SharedAccessKey (copy a shared access policy's connection string from the "
                     u"namespace)"_s.arg(serviceNamespace));
    }
    const QString endpoint = parts.value(u"endpoint"_s);
    if (!endpoint.isEmpty()) {
        QUrl url(endpoint, QUrl::StrictMode);
        // The AMQP address names the host; the REST API is served over HTTPS on the same host,
        // or over the scheme given (a local stand-in: "Endpoint=http://127.0.0.1:8080/").
        if (url.scheme().compare("sb"_L1, Qt::CaseInsensitive) == 0) {
            url.setScheme(u"https"_s);
            url.setPort(-1);
        }
        if (!url.isValid() || url.host().isEmpty()) {
            return Error(u"the connection string of namespace '%1' has an Endpoint that is not a "
                         u"URL: %2"_s.arg(serviceNamespace, endpoint));
        }
        url.setPath(u"/"_s);
        result.endpoint = url;
    }
    return result;
}

QByteArray sharedAccessSignature(const QUrl &resourceUri, const QString &keyName,
                                 const QString &key, qint64 expirySeconds)
{
    const QByteArray encodedUri
        = QUrl::toPercentEncoding(QString::fromUtf8(resourceUri.toEncoded()));
    const QByteArray expiry = QByteArray::number(expirySeconds);
    const QByteArray signedText = encodedUri + '\n' + expiry;
    const QByteArray signature = QMessageAuthenticationCode::hash(signedText,
                                                                  key.toUtf8(),
                                                                  QCryptographicHash::Sha256)
                                     .toBase64();
    return "SharedAccessSignature sr=" + encodedUri + "&sig=" + QUrl::toPercentEncoding(QString::fromLatin1(signature))
        + "&se=" + expiry + "&skn=" + QUrl::toPercentEncoding(keyName);
}

} // namespace EventDesk::AzureCredentials
