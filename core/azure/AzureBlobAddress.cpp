// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "AzureBlobAddress.h"

using namespace Qt::StringLiterals;

namespace EventDesk::AzureBlobAddress {

QString accountName(const DeadLetterDestination &destination)
{
    if (!destination.accountName.isEmpty())
        return destination.accountName;
    const QString marker = u"/storageAccounts/"_s;
    const qsizetype at = destination.resourceId.indexOf(marker, 0, Qt::CaseInsensitive);
    return at < 0 ? QString() : destination.resourceId.mid(at + marker.size()).section(u'/', 0, 0);
}

QUrl blobEndpoint(const DeadLetterDestination &destination)
{
    if (!destination.blobEndpoint.isEmpty())
        return destination.blobEndpoint;
    QUrl url;
    url.setScheme(u"https"_s);
    url.setHost(accountName(destination) + u".blob.core.windows.net"_s);
    return url;
}

QUrl blobUrl(const DeadLetterDestination &destination, const QString &blobPath)
{
    QUrl url = blobEndpoint(destination);
    QString path = url.path(QUrl::FullyEncoded);
    while (path.endsWith(u'/'))
        path.chop(1);
    for (const QString &segment : blobPath.split(u'/'))
        path += u'/' + QString::fromLatin1(QUrl::toPercentEncoding(segment));
    url.setPath(path, QUrl::StrictMode);
    url.setQuery(QString());
    return url;
}

} // namespace EventDesk::AzureBlobAddress
