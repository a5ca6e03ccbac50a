// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../engine/DeadLetterSink.h"

#include <QString>
#include <QUrl>

namespace EventDesk {

// SPEC L5: sends each write to the sink of the destination's kind - the workspace's local
// container folder or an Azure Blob Storage container.
class DeadLetterRouter final : public DeadLetterSink
{
public:
    DeadLetterRouter(DeadLetterSink *localFolder, DeadLetterSink *azureBlob);

    void write(const DeadLetterDestination &destination, const QString &blobName,
               const QByteArray &body, Callback done) override;

    // Where the dead-letter browser opens a blob recorded in the store's index (blobPath
    // "<container>/<blobName>"): a file:// URL under the local container root, or the blob's
    // https/http URL in the storage account (fetch it with AzureBlobDeadLetterSink::readBlob,
    // which signs the request).
    static QUrl blobLocation(const DeadLetterDestination &destination, const QString &blobPath,
                             const QString &localContainerRoot);

private:
    DeadLetterSink *m_localFolder;
    DeadLetterSink *m_azureBlob;
};

} // namespace EventDesk
