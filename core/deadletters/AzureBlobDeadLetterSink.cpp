// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "AzureBlobDeadLetterSink.h"

#include "../Logging.h"
#include "../azure/AzureBlobAddress.h"
#include "../azure/AzureCredentials.h"
#include "../azure/StorageSharedKey.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QRegularExpression>
#include <QUrlQuery>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace EventDesk {



AzureBlobDeadLetterSink::AzureBlobDeadLetterSink(QNetworkAccessManager *network,
                                                 KeyProvider keyProvider, QObject *parent)
    : QObject(parent)
    , m_network(network)
    , m_keyProvider(std::move(keyProvider))
{
}

AzureBlobDeadLetterSink::~AzureBlobDeadLetterSink()
{
    const QSet<QNetworkReply *> replies = std::exchange(m_replies, {});
    for (QNetworkReply *reply : replies) {
        reply->disconnect(this);
        reply->abort();
        reply->deleteLater();
    }
}

Expected<QNetworkRequest>
AzureBlobDeadLetterSink::signedRequest(const QByteArray &verb,
                                       const DeadLetterDestination &destination,
                                       const QString &blobPath, qint64 contentLength,
                                       const QByteArray &contentType) const
{
    const QString account = AzureBlobAddress::accountName(destination);
    if (account.isEmpty())
        return Error(u"the dead-letter destination names no storage account"_s);
    const Expected<QString> secret = m_keyProvider ? m_keyProvider(account)
                                                   : Expected<QString>(Error(u"no key provider"_s));
    if (!secret)
        return Error(secret.error());
    // The secret is the account key or the account's connection string (docs/eventdeskd.md
    // "Secrets").
    const Expected<AzureCredentials::StorageAccount> credentials
        = AzureCredentials::storageAccount(secret.value(), account);
    if (!credentials)
        return Error(credentials.error());
    // The destination's own blobEndpoint wins; a connection string's BlobEndpoint is next.
    DeadLetterDestination located = destination;
    if (located.blobEndpoint.isEmpty())
        located.blobEndpoint = credentials->blobEndpoint;
    QNetworkRequest request(AzureBlobAddress::blobUrl(located, blobPath));
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute,
                         QNetworkRequest::ManualRedirectPolicy);
    request.setTransferTimeout(m_transferTimeoutMs);
    if (!contentType.isEmpty())
        request.setHeader(QNetworkRequest::ContentTypeHeader, contentType);
    if (verb == "PUT")
        request.setRawHeader("x-ms-blob-type", "BlockBlob");
    // Wall-clock time: the service rejects requests whose date is more than 15 min off, whatever
    // the engine's (possibly scaled) clock says.
    request.setRawHeader("x-ms-date", SharedKey::httpDate(QDateTime::currentDateTimeUtc()));
    request.setRawHeader("x-ms-version", SharedKey::ApiVersion);
    const auto authorization = SharedKey::authorization(
        account, credentials->accountKey,
        SharedKey::stringToSign(verb, request, contentLength, account));
    if (!authorization)
        return Error(authorization.error());
    request.setRawHeader("Authorization", authorization.value());
    return request;
}

void AzureBlobDeadLetterSink::track(QNetworkReply *reply,
                                    std::function<void(QNetworkReply *)> finished)
{
    m_replies.insert(reply);
    connect(reply, &QNetworkReply::finished, this, [this, reply, finished] {
        m_replies.remove(reply);
        reply->deleteLater();
        finished(reply);
    });
}

QString AzureBlobDeadLetterSink::describeFailure(QNetworkReply *reply,
                                                 const DeadLetterDestination &destination,
                                                 const QString &blobPath) const
{
    const QString account = AzureBlobAddress::accountName(destination);
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (status == 0) {
        return u"blob endpoint %1 of storage account '%2' is unreachable: %3"_s.arg(
            AzureBlobAddress::blobEndpoint(destination).toString(), account, reply->errorString());
    }
    QString code = QString::fromUtf8(reply->rawHeader("x-ms-error-code"));
    const QByteArray body = reply->readAll();
    static const QRegularExpression codePattern(u"<Code>([^<]*)</Code>"_s);
    static const QRegularExpression messagePattern(u"<Message>([^<\\n]*)"_s);
    const QString bodyText = QString::fromUtf8(body);
    if (code.isEmpty())
        code = codePattern.match(bodyText).captured(1);
    const QString serviceMessage = messagePattern.match(bodyText).captured(1).trimmed();
    // Azure says AuthenticationFailed; Azurite says AuthorizationFailure with the same message.
    // (AuthorizationFailure alone can also mean a firewall rule, so the message decides.)
    if (status == 403
        && (code == "AuthenticationFailed"_L1
            || serviceMessage.contains("failed to authenticate"_L1, Qt::CaseInsensitive))) {
        return u"wrong account key for storage account '%1': %2 answered 403 AuthenticationFailed "
               u"(store the account's key1 or key2 again)"_s.arg(
                   account, AzureBlobAddress::blobEndpoint(destination).toString());
    }
    if (status == 404 && code == "ContainerNotFound"_L1) {
        return u"container '%1' does not exist in storage account '%2' (create it in the storage "
               u"account)"_s.arg(blobPath.section(u'/', 0, 0), account);
    }
    QString message = u"storage account '%1' answered HTTP %2"_s.arg(account).arg(status);
    if (!code.isEmpty())
        message += u' ' + code;
    if (!serviceMessage.isEmpty())
        message += u": "_s + serviceMessage;
    return message;
}

void AzureBlobDeadLetterSink::write(const DeadLetterDestination &destination,
                                    const QString &blobName, const QByteArray &body, Callback done)
{
    const QString blobPath = destination.blobContainerName + u'/' + blobName;
    auto request = signedRequest("PUT", destination, blobPath, body.size(), "application/json");
    if (!request) {
        done(Error(request.error()));
        return;
    }
    QNetworkReply *reply = m_network->put(request.value(), body);
    track(reply, [this, destination, blobPath, done](QNetworkReply *finished) {
        const int status = finished->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (status == 201) {
            qCDebug(lcDeadLetter) << "wrote blob" << finished->url().toString();
            done(blobPath);
            return;
        }
        done(Error(describeFailure(finished, destination, blobPath)));
    });
}

void AzureBlobDeadLetterSink::readBlob(const DeadLetterDestination &destination,
                                       const QString &blobPath, ReadCallback done)
{
    auto request = signedRequest("GET", destination, blobPath, 0, QByteArray());
    if (!request) {
        done(Error(request.error()));
        return;
    }
    QNetworkReply *reply = m_network->get(request.value());
    track(reply, [this, destination, blobPath, done](QNetworkReply *finished) {
        const int status = finished->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (status == 200) {
            done(finished->readAll());
            return;
        }
        if (status == 404 && finished->rawHeader("x-ms-error-code") == "BlobNotFound") {
            done(Error(u"blob %1 no longer exists in storage account '%2'"_s.arg(
                blobPath, AzureBlobAddress::accountName(destination))));
            return;
        }
        done(Error(describeFailure(finished, destination, blobPath)));
    });
}

} // namespace EventDesk
