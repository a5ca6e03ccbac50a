// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "DeadLetterRouter.h"

#include "../azure/AzureBlobAddress.h"

#include <QDir>

using namespace Qt::StringLiterals;

namespace EventDesk {

DeadLetterRouter::DeadLetterRouter(DeadLetterSink *localFolder, DeadLetterSink *azureBlob)
    : m_localFolder(localFolder)
    , m_azureBlob(azureBlob)
{
}

void DeadLetterRouter::write(const DeadLetterDestination &destination, const QString &blobName,
                             const QByteArray &body, Callback done)
{
    DeadLetterSink *sink = nullptr;
    switch (destination.kind) {
    case DeadLetterDestination::Kind::LocalFolder:
        sink = m_localFolder;
        break;
    case DeadLetterDestination::Kind::AzureBlob:
        sink = m_azureBlob;
        break;
    case DeadLetterDestination::Kind::None:
        break;
    }
    if (!sink) {
        done(Error(u"no dead-letter writer for this kind of destination"_s));
        return;
    }
    sink->write(destination, blobName, body, std::move(done));
}

QUrl DeadLetterRouter::blobLocation(const DeadLetterDestination &destination,
                                    const QString &blobPath, const QString &localContainerRoot)
{
    switch (destination.kind) {
    case DeadLetterDestination::Kind::LocalFolder:
        return QUrl::fromLocalFile(QDir(localContainerRoot).filePath(blobPath));
    case DeadLetterDestination::Kind::AzureBlob:
        return AzureBlobAddress::blobUrl(destination, blobPath);
    case DeadLetterDestination::Kind::None:
        break;
    }
    return {};
}

} // namespace EventDesk
