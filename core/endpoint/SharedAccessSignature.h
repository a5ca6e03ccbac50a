// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../Expected.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QDateTime>
#include <QString>
#include <QUrl>

#include <optional>

namespace EventDesk {

// The shared access signature (SAS) token of Event Grid's publish API: the credential a publisher
// sends instead of the topic's access key itself, in the aeg-sas-token header or as
// "Authorization: SharedAccessSignature <token>". The token is
//     r=<resource>&e=<expiry>&s=<signature>
// each value percent-encoded, where
//   r  is the URL of the topic endpoint the token is for (the SDKs append "?apiVersion=..." or
//      "?api-version=..." to it),
//   e  is the UTC time the token stops being valid, written "M/d/yyyy h:mm:ss AM|PM" (the
//      JavaScript and .NET SDKs; .NET's DateTimeOffset appends " +00:00") or ISO 8601 (the Python
//      SDK writes "yyyy-MM-dd HH:mm:ss+00:00"),
//   s  is the base64 of HMAC-SHA256 over the text "r=<r as sent>&e=<e as sent>", keyed with the
//      base64-decoded access key.
// The signature covers the values as the client encoded them, so the server signs the received
// text, not a re-encoding of it: SDKs differ in hex case and in how they write a space.
//
// Pure: no clock and no I/O; the caller passes "now".
class SharedAccessSignature final
{
public:
    // The checks of verify(), in the order they are made.
    enum class Problem {
        None,
        Malformed,
        WrongResource,
        Expired,
        UnusableKey,
        SignatureMismatch,
    };

    struct Verdict
    {
        Problem problem = Problem::None;
        // Says which check failed, for a 401 body and the log. It never contains the key or the
        // signature.
        QString message;

        bool isValid() const { return problem == Problem::None; }
    };

    // Splits a token into its parts; the error names the part that is missing or malformed.
    static Expected<SharedAccessSignature> parse(QByteArrayView token);

    // parse() and verify() in one: what the topic endpoint asks.
    static Verdict check(QByteArrayView token, const QString &topicName, const QString &accessKey,
                         const QDateTime &now);

    // A token for resource (a URL, signed exactly as given) valid until expiresOn, signed with
    // accessKey the way the SDKs sign it. With resource "<endpoint>?apiVersion=2018-01-01" the
    // token is the one the JavaScript SDK's generateSharedAccessSignature() makes.
    static QByteArray generate(const QString &resource, const QDateTime &expiresOn,
                               const QString &accessKey);

    // Checks that the resource names the endpoint of topicName, that the token has not expired at
    // now, and that it was signed with accessKey.
    Verdict verify(const QString &topicName, const QString &accessKey, const QDateTime &now) const;

    const QString &resource() const { return m_resource; }
    const QDateTime &expiresOn() const { return m_expiresOn; }

    // The bytes a token is signed with: the access key decoded from base64 as the JavaScript SDK
    // decodes it. Empty when the key holds no base64 at all.
    static QByteArray signingKey(const QString &accessKey);

    // "M/d/yyyy h:mm:ss AM|PM" of a UTC time, as the SDKs write the expiry.
    static QString formatExpiry(const QDateTime &expiresOn);
    // The UTC time of an expiry in one of the forms above; nullopt when it is none of them.
    static std::optional<QDateTime> parseExpiry(const QString &text);

    // Whether url names the publish endpoint of topicName, /topics/<topic>/api/events (see the
    // .cpp for what is compared and what is not).
    static bool namesTopicEndpoint(const QUrl &url, const QString &topicName);

private:
    SharedAccessSignature() = default;

    QByteArray m_signedText; // "r=<r>&e=<e>" with the values as sent
    QString m_resource;
    QDateTime m_expiresOn;
    QByteArray m_signature; // the 32 bytes of the HMAC
};

} // namespace EventDesk
