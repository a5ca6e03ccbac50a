// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../Expected.h"

#include <QByteArray>
#include <QDateTime>
#include <QNetworkRequest>
#include <QString>
#include <QUrl>

namespace EventDesk {

// Shared Key authorization of the Storage services' REST APIs (blobs and queues, "Authorize with
// Shared Key"):
//   Authorization: SharedKey <account>:Base64(HMAC-SHA256(Base64Decode(key), StringToSign))
namespace SharedKey {
constexpr const char *ApiVersion = "2021-08-06";

// "/<account><encoded URI path>" plus "\n<name>:<value>" per query parameter, sorted.
QByteArray canonicalizedResource(const QString &account, const QUrl &url);
// "x-ms-*" headers of the request, lower-cased and sorted, one "name:value\n" each.
QByteArray canonicalizedHeaders(const QNetworkRequest &request);
// VERB, the twelve standard headers (Content-Length empty when 0), then the two parts above.
QByteArray stringToSign(const QByteArray &verb, const QNetworkRequest &request,
                        qint64 contentLength, const QString &account);
// The Authorization header's value; fails when the key is not valid Base64.
Expected<QByteArray> authorization(const QString &account, const QString &base64Key,
                                   const QByteArray &stringToSign);
// RFC 1123 time for x-ms-date, e.g. "Sun, 11 Oct 2009 21:49:13 GMT".
QByteArray httpDate(const QDateTime &utc);
} // namespace SharedKey

} // namespace EventDesk
