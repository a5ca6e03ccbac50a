// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../azure/StorageSharedKey.h"
#include "FolderDeadLetterSink.h"

#include <QByteArray>
#include <QDateTime>
#include <QNetworkRequest>
#include <QObject>
#include <QSet>
#include <QUrl>

#include <functional>

class QNetworkAccessManager;
class QNetworkReply;

namespace EventDesk {

// SPEC L5: dead letters written as block blobs to a container of an Azure Storage account
// (or the Azurite emulator) with Put Blob over the injected QNetworkAccessManager. Same blob
// names (L6) and records (L7) as the local container. Every failure - missing container (404),
// wrong key (403), unreachable endpoint - is an unavailable destination, which the engine
// retries and gives up on after 4 h (L4).
class AzureBlobDeadLetterSink final : public QObject, public DeadLetterSink
{
    Q_OBJECT

public:
    // The account key (Base64) of a storage account, or why there is none.
    using KeyProvider = std::function<Expected<QString>(const QString &account)>;

    AzureBlobDeadLetterSink(QNetworkAccessManager *network, KeyProvider keyProvider,
                            QObject *parent = nullptr);
    // Aborts requests in flight without calling their callbacks.
    ~AzureBlobDeadLetterSink() override;

    void write(const DeadLetterDestination &destination, const QString &blobName,
               const QByteArray &body, Callback done) override;

    // Get Blob, for the dead-letter browser: blobPath as recorded in the store's index
    // ("<container>/<blobName>").
    using ReadCallback = std::function<void(const Expected<QByteArray> &body)>;
    void readBlob(const DeadLetterDestination &destination, const QString &blobPath,
                  ReadCallback done);

    void setTransferTimeoutMs(int milliseconds) { m_transferTimeoutMs = milliseconds; }

private:
    Expected<QNetworkRequest> signedRequest(const QByteArray &verb,
                                            const DeadLetterDestination &destination,
                                            const QString &blobPath, qint64 contentLength,
                                            const QByteArray &contentType) const;
    QString describeFailure(QNetworkReply *reply, const DeadLetterDestination &destination,
                            const QString &blobPath) const;
    void track(QNetworkReply *reply, std::function<void(QNetworkReply *)> finished);

    QNetworkAccessManager *m_network;
    KeyProvider m_keyProvider;
    QSet<QNetworkReply *> m_replies;
    int m_transferTimeoutMs = 30'000;
};

} // namespace EventDesk
