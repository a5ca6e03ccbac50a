// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QByteArrayView>
#include <QString>
#include <QStringList>
#include <QUrl>

namespace EventDesk {

// What of a URL or an HTTP header may be shown or written down, and what is a credential.
//
// A webhook's endpoint URL may carry its key in the query (an Azure Function's "?code=", a shared
// access signature's "sig="), and the user name and password of "https://user:pass@host". Which
// query parameters hold a credential cannot be known for every receiver, so every query value
// counts as one: only the parameter names stay readable.
namespace SecretMasking {

// What stands in for a masked query value or password in a URL.
inline constexpr QStringView UrlMask = u"***";

// The URL with its password and every query value replaced by UrlMask, without its fragment
// ("https://fn.example/api/hook?code=***&clientId=***").
QString maskedUrl(const QUrl &url);

// Whether the URL holds a credential maskedUrl() hides: a password or a query value.
bool hasUrlSecrets(const QUrl &url);

// text with every occurrence of a secret part of url (its password and query values, in the
// forms a message quotes them: as written, percent-decoded, and the whole URL) replaced, so that
// an error message naming the URL can be written down.
QString redactUrlSecrets(const QString &text, const QUrl &url);

// HTTP headers whose values are credentials whatever the subscription says: Authorization,
// Proxy-Authorization, Cookie, Set-Cookie, Event Grid's aeg-sas-key and aeg-sas-token, Azure
// Functions' x-functions-key and API Management's Ocp-Apim-Subscription-Key. Case-insensitive.
bool isCredentialHeader(QByteArrayView name);
QStringList credentialHeaderNames();

} // namespace SecretMasking

} // namespace EventDesk
