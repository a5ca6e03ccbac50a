// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "SecretMasking.h"

#include <QUrlQuery>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace EventDesk::SecretMasking {

namespace {

// Values shorter than this are not searched for in free text: a one-letter query value ("?a=1")
// would otherwise mask every "1" of a message.
constexpr qsizetype MinimumRedactedLength = 3;

} // namespace

QString maskedUrl(const QUrl &url)
{
    QUrl masked = url.adjusted(QUrl::RemoveFragment);
    if (!masked.password().isEmpty())
        masked.setPassword(UrlMask.toString());
    if (masked.hasQuery()) {
        QUrlQuery query(masked);
        QUrlQuery maskedQuery;
        for (const auto &[name, value] : query.queryItems(QUrl::FullyEncoded))
            maskedQuery.addQueryItem(name, UrlMask.toString());
        masked.setQuery(maskedQuery);
    }
    return masked.toString(QUrl::FullyEncoded);
}

bool hasUrlSecrets(const QUrl &url)
{
    if (!url.password().isEmpty())
        return true;
    const QUrlQuery query(url);
    const auto items = query.queryItems(QUrl::FullyEncoded);
    return std::any_of(items.cbegin(), items.cend(),
                       [](const auto &item) { return !item.second.isEmpty(); });
}

QString redactUrlSecrets(const QString &text, const QUrl &url)
{
    if (text.isEmpty() || !hasUrlSecrets(url))
        return text;
    QString result = text;
    // The whole URL first, in every form a message may quote it, then its parts one by one.
    for (const QUrl::FormattingOptions format : {QUrl::FormattingOptions(QUrl::FullyEncoded),
                                                 QUrl::FormattingOptions(QUrl::PrettyDecoded)}) {
        const QString whole = url.toString(format);
        if (!whole.isEmpty())
            result.replace(whole, maskedUrl(url));
    }
    QStringList secrets;
    if (!url.password(QUrl::FullyEncoded).isEmpty()) {
        secrets << url.password(QUrl::FullyEncoded) << url.password(QUrl::FullyDecoded);
    }
    const QUrlQuery query(url);
    for (const auto &[name, value] : query.queryItems(QUrl::FullyEncoded)) {
        secrets << value << QUrl::fromPercentEncoding(value.toUtf8())
                << QUrl::fromPercentEncoding(QString(value).replace(u'+', u' ').toUtf8());
    }
    // Longest first: a value that contains another is replaced whole.
    std::sort(secrets.begin(), secrets.end(),
              [](const QString &left, const QString &right) { return left.size() > right.size(); });
    for (const QString &secret : std::as_const(secrets)) {
        if (secret.size() >= MinimumRedactedLength)
            result.replace(secret, UrlMask.toString());
    }
    return result;
}

QStringList credentialHeaderNames()
{
    return {u"Authorization"_s,   u"Proxy-Authorization"_s,
            u"Cookie"_s,          u"Set-Cookie"_s,
            u"aeg-sas-key"_s,     u"aeg-sas-token"_s,
            u"x-functions-key"_s, u"Ocp-Apim-Subscription-Key"_s};
}

bool isCredentialHeader(QByteArrayView name)
{
    static const QStringList names = credentialHeaderNames();
    const QString text = QString::fromLatin1(name.data(), name.size()).trimmed();
    return std::any_of(names.cbegin(), names.cend(), [&text](const QString &known) {
        return known.compare(text, Qt::CaseInsensitive) == 0;
    });
}

} // namespace EventDesk::SecretMasking
