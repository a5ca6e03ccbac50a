// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "SharedAccessSignature.h"

#include "../ConstantTime.h"
#include "../UtcTime.h"

#include <QCryptographicHash>
#include <QList>
#include <QMessageAuthenticationCode>
#include <QRegularExpression>
#include <QStringList>
#include <QTimeZone>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

constexpr qsizetype HmacBytes = 32; // SHA-256

QByteArray hmacSha256(const QByteArray &message, const QByteArray &key)
{
    return QMessageAuthenticationCode::hash(message, key, QCryptographicHash::Sha256);
}

// As JavaScript's encodeURIComponent, which the SDK uses: everything but A-Z a-z 0-9 - _ . ! ~ * '
// ( )
QByteArray encodeComponent(const QString &text)
{
    return QUrl::toPercentEncoding(text, "!'()*");
}

// r and e: every SDK percent-encodes a '+', and .NET writes a space as '+', so a '+' is a space.
QString decodeFormValue(QByteArray value)
{
    value.replace('+', ' ');
    return QString::fromUtf8(QByteArray::fromPercentEncoding(value));
}

// A client's text in a message, cut short: a malformed token can be long.
QString quoted(const QString &text)
{
    constexpr qsizetype Max = 120;
    return u'\'' + (text.size() > Max ? text.left(Max) + u'…' : text) + u'\'';
}

// The name of an unknown part is repeated only when it looks like a name: a credential pasted
// in the wrong place must not end up in a 401 body or the log.
QString describePartName(const QByteArray &name)
{
    static const QRegularExpression shortName(uR"(^[A-Za-z0-9_-]{1,10}$)"_s);
    const QString text = QString::fromLatin1(name);
    return shortName.match(text).hasMatch() ? u"an unknown part '%1'"_s.arg(text)
                                            : u"an unknown part"_s;
}

QString partLabel(int index)
{
    switch (index) {
    case 0:
        return u"'r' (resource)"_s;
    case 1:
        return u"'e' (expiry)"_s;
    default:
        return u"'s' (signature)"_s;
    }
}

} // namespace

Expected<SharedAccessSignature> SharedAccessSignature::parse(QByteArrayView token)
{
    const QByteArray text = token.toByteArray().trimmed();
    if (text.isEmpty())
        return Error(u"the token is empty"_s);

    static constexpr char Names[] = {'r', 'e', 's'};
    std::optional<QByteArray> values[3];
    const QList<QByteArray> parts = text.split('&');
    for (qsizetype i = 0; i < parts.size(); ++i) {
        const QByteArray &part = parts.at(i);
        const qsizetype equals = part.indexOf('=');
        if (equals < 0)
            return Error(
                u"part %1 of the token is not name=value (a token is r=...&e=...&s=...)"_s.arg(
                    i + 1));
        const QByteArray name = part.left(equals);
        int index = -1;
        for (int n = 0; n < 3; ++n) {
            if (name.size() == 1 && name.at(0) == Names[n])
                index = n;
        }
        if (index < 0)
            return Error(
                u"the token has %1 (a token has only r, e and s)"_s.arg(describePartName(name)));
        if (values[index])
            return Error(u"the %1 part appears more than once"_s.arg(partLabel(index)));
        values[index] = part.mid(equals + 1);
    }
    for (int n = 0; n < 3; ++n) {
        if (!values[n])
            return Error(u"the token has no %1 part"_s.arg(partLabel(n)));
        if (values[n]->isEmpty())
            return Error(u"the %1 part is empty"_s.arg(partLabel(n)));
    }

    SharedAccessSignature signature;
    signature.m_signedText = "r=" + *values[0] + "&e=" + *values[1];

    signature.m_resource = decodeFormValue(*values[0]);
    const QUrl resource(signature.m_resource, QUrl::StrictMode);
    const QString scheme = resource.scheme().toLower();
    if (!resource.isValid() || (scheme != "http"_L1 && scheme != "https"_L1)
        || resource.host().isEmpty())
        return Error(u"the %1 part %2 is not an http or https URL"_s.arg(
            partLabel(0), quoted(signature.m_resource)));

    const QString expiry = decodeFormValue(*values[1]);
    const std::optional<QDateTime> expiresOn = parseExpiry(expiry);
    if (!expiresOn)
        return Error(u"the %1 part %2 is not a time: expected M/d/yyyy h:mm:ss AM|PM in UTC "
                     "(or ISO 8601, yyyy-MM-ddTHH:mm:ssZ)"_s.arg(partLabel(1), quoted(expiry)));
    signature.m_expiresOn = *expiresOn;

    // Not decoded as a form value: a '+' here is base64's own, in a token built by hand.
    const auto decoded = QByteArray::fromBase64Encoding(QByteArray::fromPercentEncoding(*values[2]),
                                                        QByteArray::AbortOnBase64DecodingErrors);
    if (decoded.decodingStatus != QByteArray::Base64DecodingStatus::Ok
        || decoded.decoded.size() != HmacBytes)
        return Error(
            u"the %1 part is not the base64 of an HMAC-SHA256 (32 bytes)"_s.arg(partLabel(2)));
    signature.m_signature = decoded.decoded;
    return signature;
}

SharedAccessSignature::Verdict SharedAccessSignature::check(QByteArrayView token,
                                                            const QString &topicName,
                                                            const QString &accessKey,
                                                            const QDateTime &now)
{
    const auto parsed = parse(token);
    if (!parsed)
        return {Problem::Malformed, u"The SAS token is malformed: %1."_s.arg(parsed.error())};
    return parsed->verify(topicName, accessKey, now);
}

SharedAccessSignature::Verdict SharedAccessSignature::verify(const QString &topicName,
                                                             const QString &accessKey,
                                                             const QDateTime &now) const
{
    // The resource and the expiry are the client's own claims, so saying that they are wrong
    // before checking the signature tells a forger nothing; it tells an honest client the most
    // useful thing first.
    if (!namesTopicEndpoint(QUrl(m_resource), topicName)) {
        return {Problem::WrongResource,
                u"The SAS token's resource %1 does not name topic '%2': its path must be "
                "/topics/%2/api/events."_s.arg(quoted(m_resource), topicName)};
    }
    if (now >= m_expiresOn) {
        return {Problem::Expired,
                u"The SAS token expired at %1 (the time here is %2)."_s.arg(
                    m_expiresOn.toUTC().toString(Qt::ISODate), now.toUTC().toString(Qt::ISODate))};
    }
    const QByteArray key = signingKey(accessKey);
    if (key.isEmpty()) {
        return {
            Problem::UnusableKey,
            u"The access key of topic '%1' is not base64, so no SAS token can be signed with it: "
            "send the key in the aeg-sas-key header instead."_s.arg(topicName)};
    }
    if (!constantTimeEquals(hmacSha256(m_signedText, key), m_signature)) {
        return {Problem::SignatureMismatch,
                u"The SAS token's signature does not match: it was not signed with the access key "
                "of topic '%1', or its r or e part was changed after signing."_s.arg(topicName)};
    }
    return {};
}

QByteArray SharedAccessSignature::generate(const QString &resource, const QDateTime &expiresOn,
                                           const QString &accessKey)
{
    const QByteArray signedText
        = "r=" + encodeComponent(resource) + "&e=" + encodeComponent(formatExpiry(expiresOn));
    const QByteArray signature = hmacSha256(signedText, signingKey(accessKey)).toBase64();
    return signedText + "&s=" + encodeComponent(QString::fromLatin1(signature));
}

QByteArray SharedAccessSignature::signingKey(const QString &accessKey)
{
    // Every SDK signs with the key decoded from base64 (Azure's keys are base64). EventDesk takes
    // any text as a key, so a key that is not clean base64 is decoded the forgiving way of the
    // JavaScript SDK's decoder, which a token made from such a key by that SDK must match: it
    // reads the low byte of each UTF-16 unit, accepts both base64 alphabets, skips anything
    // else, and stops at the first '='. (The .NET SDK refuses such keys.)
    QByteArray bytes;
    quint32 bits = 0;
    int bitCount = 0;
    for (const QChar character : accessKey) {
        const char c = static_cast<char>(character.unicode() & 0xff);
        int value = -1;
        if (c >= 'A' && c <= 'Z')
            value = c - 'A';
        else if (c >= 'a' && c <= 'z')
            value = c - 'a' + 26;
        else if (c >= '0' && c <= '9')
            value = c - '0' + 52;
        else if (c == '+' || c == '-')
            value = 62;
        else if (c == '/' || c == '_')
            value = 63;
        else if (c == '=')
            break;
        if (value < 0)
            continue;
        bits = ((bits << 6) | quint32(value)) & 0xffffu;
        bitCount += 6;
        if (bitCount >= 8) {
            bitCount -= 8;
            bytes.append(static_cast<char>((bits >> bitCount) & 0xffu));
        }
    }
    return bytes;
}

QString SharedAccessSignature::formatExpiry(const QDateTime &expiresOn)
{
    const QDateTime utc = expiresOn.toUTC();
    const QTime time = utc.time();
    const int hour = time.hour() % 12 == 0 ? 12 : time.hour() % 12;
    return u"%1/%2/%3 %4:%5:%6 %7"_s.arg(utc.date().month())
        .arg(utc.date().day())
        .arg(utc.date().year())
        .arg(hour)
        .arg(time.minute(), 2, 10, QLatin1Char('0'))
        .arg(time.second(), 2, 10, QLatin1Char('0'))
        .arg(time.hour() < 12 ? u"AM"_s : u"PM"_s);
}

std::optional<QDateTime> SharedAccessSignature::parseExpiry(const QString &text)
{
    // "M/d/yyyy h:mm:ss AM|PM" (.NET's en-US form; JavaScript SDK), with AM/PM left out a
    // 24-hour clock (.NET's invariant culture), optionally followed by an offset (DateTimeOffset).
    static const QRegularExpression usForm(
        uR"(^(\d{1,2})/(\d{1,2})/(\d{4}) (\d{1,2}):(\d{2}):(\d{2})(?: ([AaPp][Mm]))?(?: ([+-])(\d{2}):(\d{2}))?$)"_s);
    // ISO 8601 with 'T' or a space (Python's str(datetime)); no offset means UTC.
    static const QRegularExpression isoForm(
        uR"(^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):?(\d{2}))?$)"_s);

    const QString trimmed = text.trimmed();
    QDate date;
    QTime time;
    int offsetSeconds = 0;
    const auto offsetOf = [](const QString &sign, const QString &hours, const QString &minutes) {
        const int seconds = hours.toInt() * 3600 + minutes.toInt() * 60;
        return sign == "-"_L1 ? -seconds : seconds;
    };
    if (const auto match = usForm.match(trimmed); match.hasMatch()) {
        int hour = match.captured(4).toInt();
        if (const QString amPm = match.captured(7).toUpper(); !amPm.isEmpty()) {
            if (hour < 1 || hour > 12)
                return std::nullopt;
            hour = hour % 12 + (amPm == "PM"_L1 ? 12 : 0);
        }
        date = QDate(match.captured(3).toInt(), match.captured(1).toInt(),
                     match.captured(2).toInt());
        time = QTime(hour, match.captured(5).toInt(), match.captured(6).toInt());
        if (!match.captured(8).isEmpty())
            offsetSeconds = offsetOf(match.captured(8), match.captured(9), match.captured(10));
    } else if (const auto iso = isoForm.match(trimmed); iso.hasMatch()) {
        const int milliseconds = iso.captured(7).leftJustified(3, u'0').left(3).toInt();
        date = QDate(iso.captured(1).toInt(), iso.captured(2).toInt(), iso.captured(3).toInt());
        time = QTime(iso.captured(4).toInt(), iso.captured(5).toInt(), iso.captured(6).toInt(),
                     milliseconds);
        if (!iso.captured(9).isEmpty())
            offsetSeconds = offsetOf(iso.captured(9), iso.captured(10), iso.captured(11));
    } else {
        return std::nullopt;
    }
    if (!date.isValid() || !time.isValid())
        return std::nullopt;
    return utcDateTime(QDateTime(date, time, QTimeZone::utc()).toMSecsSinceEpoch()
                       - offsetSeconds * qint64(1000));
}

bool SharedAccessSignature::namesTopicEndpoint(const QUrl &url, const QString &topicName)
{
    // Strict on the path, because here the path is what names a topic: it must be the path the
    // endpoint routes to this topic, read as the router reads it (percent-decoded, non-empty
    // segments, so a trailing slash does not matter; the topic name case-insensitive like every
    // topic name). Not compared:
    //  - the query: the SDKs sign "?apiVersion=..." or "?api-version=...", and a publish need not
    //    name the same version;
    //  - host and port: one EventDesk answers under many names (127.0.0.1, localhost, [::1], a
    //    machine or container name, a forwarded port), and the client signs the name it happens to
    //    use. In Azure the host names the topic; here the key is the topic's own, so a token signed
    //    with it already belongs to this topic.
    //  - the scheme, beyond being http or https (TLS may end in front of EventDesk).
    const QString scheme = url.scheme().toLower();
    if (!url.isValid() || (scheme != "http"_L1 && scheme != "https"_L1))
        return false;
    QStringList segments;
    for (const QString &segment : url.path(QUrl::FullyEncoded).split(u'/', Qt::SkipEmptyParts))
        segments.append(QUrl::fromPercentEncoding(segment.toUtf8()));
    return segments.size() == 4 && segments.at(0) == "topics"_L1 && segments.at(2) == "api"_L1
        && segments.at(3) == "events"_L1
        && segments.at(1).compare(topicName, Qt::CaseInsensitive) == 0;
}

} // namespace EventDesk
