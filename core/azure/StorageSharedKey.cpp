// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "StorageSharedKey.h"

#include <QList>
#include <QLocale>
#include <QMap>
#include <QMessageAuthenticationCode>
#include <QTimeZone>
#include <QUrlQuery>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace SharedKey {

QByteArray canonicalizedResource(const QString &account, const QUrl &url)
{
    QByteArray resource = '/' + account.toUtf8() + url.path(QUrl::FullyEncoded).toUtf8();
    if (url.path().isEmpty())
        resource += '/';
    const QUrlQuery query(url);
    QList<QPair<QString, QString>> items = query.queryItems(QUrl::FullyDecoded);
    QMap<QString, QStringList> parameters;
    for (const auto &[name, value] : std::as_const(items))
        parameters[name.toLower()].append(value);
    for (auto it = parameters.begin(); it != parameters.end(); ++it) {
        QStringList values = it.value();
        values.sort();
        resource += '\n' + it.key().toUtf8() + ':' + values.join(u',').toUtf8();
    }
    return resource;
}

QByteArray canonicalizedHeaders(const QNetworkRequest &request)
{
    QList<QPair<QByteArray, QByteArray>> headers;
    for (const QByteArray &name : request.rawHeaderList()) {
        const QByteArray lower = name.toLower();
        if (!lower.startsWith("x-ms-"))
            continue;
        // Unfold and trim: runs of whitespace become one space.
        headers.append({lower.trimmed(), request.rawHeader(name).simplified()});
    }
    std::sort(headers.begin(), headers.end());
    QByteArray result;
    for (const auto &[name, value] : std::as_const(headers))
        result += name + ':' + value + '\n';
    return result;
}

QByteArray stringToSign(const QByteArray &verb, const QNetworkRequest &request,
                        qint64 contentLength, const QString &account)
{
    const auto header = [&request](const char *name) { return request.rawHeader(name); };
    QByteArray result = verb + '\n';
    result += header("Content-Encoding") + '\n';
    result += header("Content-Language") + '\n';
    // Since version 2015-02-21 a zero Content-Length is an empty line.
    result += (contentLength > 0 ? QByteArray::number(contentLength) : QByteArray()) + '\n';
    result += header("Content-MD5") + '\n';
    result += request.header(QNetworkRequest::ContentTypeHeader).toByteArray() + '\n';
    result += header("Date") + '\n';
    result += header("If-Modified-Since") + '\n';
    result += header("If-Match") + '\n';
    result += header("If-None-Match") + '\n';
    result += header("If-Unmodified-Since") + '\n';
    result += header("Range") + '\n';
    result += canonicalizedHeaders(request);
    result += canonicalizedResource(account, request.url());
    return result;
}

Expected<QByteArray> authorization(const QString &account, const QString &base64Key,
                                   const QByteArray &stringToSign)
{
    const auto decoded = QByteArray::fromBase64Encoding(
        base64Key.trimmed().toLatin1(), QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded || decoded.decoded.isEmpty()) {
        return Error(u"the account key of storage account '%1' is not valid Base64 (copy key1 or "
                     u"key2 from the storage account's Access keys)"_s.arg(account));
    }
    const QByteArray signature = QMessageAuthenticationCode::hash(stringToSign, decoded.decoded,
                                                                  QCryptographicHash::Sha256)
                                     .toBase64();
    return QByteArray("SharedKey " + account.toUtf8() + ':' + signature);
}

QByteArray httpDate(const QDateTime &utc)
{
    return QLocale::c()
        .toString(utc.toTimeZone(QTimeZone::utc()), u"ddd, dd MMM yyyy HH:mm:ss 'GMT'"_s)
        .toLatin1();
}

} // namespace SharedKey

} // namespace EventDesk
