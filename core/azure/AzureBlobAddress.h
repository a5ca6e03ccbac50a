// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../model/EventSubscription.h"

#include <QString>
#include <QUrl>

// Where the blobs of an Azure Blob dead-letter destination live: AzureBlobDeadLetterSink writes
// and reads them there, and DeadLetterRouter::blobLocation shows the user where one is, without
// the router depending on the sink it routes to.
namespace EventDesk::AzureBlobAddress {

// destination.accountName, or the account of resourceId ".../storageAccounts/<account>".
QString accountName(const DeadLetterDestination &destination);
// destination.blobEndpoint, or https://<account>.blob.core.windows.net.
QUrl blobEndpoint(const DeadLetterDestination &destination);
// <blob endpoint>/<container>/<blob name> for blobPath "<container>/<blobName>".
QUrl blobUrl(const DeadLetterDestination &destination, const QString &blobPath);

} // namespace EventDesk::AzureBlobAddress
