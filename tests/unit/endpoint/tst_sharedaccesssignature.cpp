// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// The shared access signature a publisher may send instead of a topic's access key
// (SharedAccessSignature, docs/eventdeskd.md "Topic endpoint"). The reference tokens were made by
// the JavaScript SDK the conformance tests pin (@azure/eventgrid 5.12,
// generateSharedAccessSignature() on Node 20) for Endpoint, the keys and the expiry times below;
// EventDesk must accept them and make the same bytes from the same inputs.

#include "endpoint/SharedAccessSignature.h"

#include <QCryptographicHash>
#include <QMessageAuthenticationCode>
#include <QTest>
#include <QTimeZone>
#include <QUrl>

#include <functional>

using namespace Qt::StringLiterals;
using namespace EventDesk;

using Problem = SharedAccessSignature::Problem;

namespace {

const QString Key = u"c2VjcmV0LWtleS1mb3Itb3JkZXJzLTEyMzQ1Njc4OTA="_s;
const QString Endpoint = u"http://127.0.0.1:7000/topics/orders/api/events"_s;
const QString SdkResource = Endpoint + u"?apiVersion=2018-01-01"_s;

QDateTime utc(int year, int month, int day, int hour, int minute, int second, int millisecond = 0)
{
    return QDateTime(QDate(year, month, day), QTime(hour, minute, second, millisecond),
                     QTimeZone::utc());
}

const QDateTime Expiry = utc(2030, 1, 2, 15, 4, 5);

// generateSharedAccessSignature(Endpoint, new AzureKeyCredential(Key), 2030-01-02T15:04:05Z)
const QByteArray SdkToken
    = "r=http%3A%2F%2F127.0.0.1%3A7000%2Ftopics%2Forders%2Fapi%2Fevents%3FapiVersion%3D2018-01-01"
      "&e=1%2F2%2F2030%203%3A04%3A05%20PM"
      "&s=YGCAMeJnQUKSxj%2BjmdtrU%2BzGzubNXGdxhWcCdwA5Wq0%3D";
// The same with the key "eg-key", which is not base64 (EventDesk accepts any text as a key).
const QByteArray SdkTokenOfTextKey
    = "r=http%3A%2F%2F127.0.0.1%3A7000%2Ftopics%2Forders%2Fapi%2Fevents%3FapiVersion%3D2018-01-01"
      "&e=1%2F2%2F2030%203%3A04%3A05%20PM"
      "&s=wEGtAS%2BEtQ53e9L47LfqXrpW%2FRaX2jhdCmio%2BJcgBBo%3D";
// With Key, expiring 2030-12-31T00:00:09Z: the hour after midnight is written 12 AM.
const QByteArray SdkTokenAfterMidnight
    = "r=http%3A%2F%2F127.0.0.1%3A7000%2Ftopics%2Forders%2Fapi%2Fevents%3FapiVersion%3D2018-01-01"
      "&e=12%2F31%2F2030%2012%3A00%3A09%20AM"
      "&s=GjnBNl9kZn4frE6CXpeVyuZbHOAW1McOYfgb8GxtT2w%3D";

// A token signed here, independently of generate(): HMAC-SHA256 keyed with the base64-decoded
// key over "r=<r>&e=<e>" exactly as written, the signature percent-encoded by `encodeSignature`.
QByteArray signedToken(const QByteArray &r, const QByteArray &e, const QString &key = Key,
                       const std::function<QByteArray(const QByteArray &)> &encodeSignature = {})
{
    const QByteArray text = "r=" + r + "&e=" + e;
    const QByteArray signature
        = QMessageAuthenticationCode::hash(text, QByteArray::fromBase64(key.toLatin1()),
                                           QCryptographicHash::Sha256)
              .toBase64();
    return text + "&s="
        + (encodeSignature ? encodeSignature(signature)
                           : QUrl::toPercentEncoding(QString::fromLatin1(signature)));
}

QByteArray encoded(const QString &text)
{
    return QUrl::toPercentEncoding(text);
}

const QByteArray EncodedExpiry = encoded(u"1/2/2030 3:04:05 PM"_s);
const QDateTime BeforeExpiry = Expiry.addSecs(-1);

} // namespace

class SharedAccessSignatureTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sdkToken_validUntilItsExpiry();
    void sdkToken_expiredFromItsExpiryOn();
    void generate_makesTheSdksToken();
    void signingKey_decodedAsTheSdkDecodesIt_data();
    void signingKey_decodedAsTheSdkDecodesIt();
    void keyWithoutBase64_refusedNotSignedWithAnEmptyKey();
    void forgedOrAltered_signatureDoesNotMatch_data();
    void forgedOrAltered_signatureDoesNotMatch();
    void resourceOfAnotherEndpoint_refused_data();
    void resourceOfAnotherEndpoint_refused();
    void resourceNamingThisTopic_accepted_data();
    void resourceNamingThisTopic_accepted();
    void resourceIsCheckedBeforeExpiryAndSignature();
    void malformed_namesThePart_data();
    void malformed_namesThePart();
    void encodings_signatureCoversTheTextAsSent_data();
    void encodings_signatureCoversTheTextAsSent();
    void expiryForms_data();
    void expiryForms();
    void expiryNotATime_data();
    void expiryNotATime();
    void formatExpiry_asTheSdkWritesIt_data();
    void formatExpiry_asTheSdkWritesIt();
};

void SharedAccessSignatureTest::sdkToken_validUntilItsExpiry()
{
    const auto verdict = SharedAccessSignature::check(SdkToken, u"orders"_s, Key, BeforeExpiry);
    QVERIFY2(verdict.isValid(), qPrintable(verdict.message));
    QVERIFY(verdict.message.isEmpty());

    const auto parsed = SharedAccessSignature::parse(SdkToken);
    QVERIFY2(parsed, qPrintable(parsed.error()));
    QCOMPARE(parsed->resource(), SdkResource);
    QCOMPARE(parsed->expiresOn(), Expiry);

    const auto afterMidnight = SharedAccessSignature::check(SdkTokenAfterMidnight, u"orders"_s, Key,
                                                            utc(2030, 12, 31, 0, 0, 8));
    QVERIFY2(afterMidnight.isValid(), qPrintable(afterMidnight.message));
}

void SharedAccessSignatureTest::sdkToken_expiredFromItsExpiryOn()
{
    for (const QDateTime &now : {Expiry, Expiry.addSecs(1), Expiry.addDays(400)}) {
        const auto verdict = SharedAccessSignature::check(SdkToken, u"orders"_s, Key, now);
        QCOMPARE(verdict.problem, Problem::Expired);
        QVERIFY2(verdict.message.contains(u"expired at 2030-01-02T15:04:05Z"_s),
                 qPrintable(verdict.message));
        QVERIFY2(
            verdict.message.contains(u"the time here is "_s + now.toUTC().toString(Qt::ISODate)),
            qPrintable(verdict.message));
    }
    const auto afterMidnight = SharedAccessSignature::check(SdkTokenAfterMidnight, u"orders"_s, Key,
                                                            utc(2030, 12, 31, 0, 0, 9));
    QCOMPARE(afterMidnight.problem, Problem::Expired);
}

void SharedAccessSignatureTest::generate_makesTheSdksToken()
{
    QCOMPARE(SharedAccessSignature::generate(SdkResource, Expiry, Key), SdkToken);
    QCOMPARE(SharedAccessSignature::generate(SdkResource, Expiry, u"eg-key"_s), SdkTokenOfTextKey);
    QCOMPARE(SharedAccessSignature::generate(SdkResource, utc(2030, 12, 31, 0, 0, 9), Key),
             SdkTokenAfterMidnight);
    // The same instant given in another time zone is written in UTC.
    QCOMPARE(SharedAccessSignature::generate(SdkResource, Expiry.toOffsetFromUtc(2 * 3600), Key),
             SdkToken);

    // What EventDesk makes, it takes (a resource without a query).
    const QByteArray own = SharedAccessSignature::generate(Endpoint, Expiry, Key);
    QVERIFY(SharedAccessSignature::check(own, u"orders"_s, Key, BeforeExpiry).isValid());
    QCOMPARE(
        SharedAccessSignature::check(own, u"orders"_s, u"b3RoZXIta2V5"_s, BeforeExpiry).problem,
        Problem::SignatureMismatch);
}

void SharedAccessSignatureTest::signingKey_decodedAsTheSdkDecodesIt_data()
{
    // Each expected value is Buffer.from(key, "base64") on Node 20, the SDK's decoding.
    QTest::addColumn<QString>("key");
    QTest::addColumn<QByteArray>("hex");
    QTest::newRow("base64 key") << Key << QByteArray("secret-key-for-orders-1234567890").toHex();
    QTest::newRow("without padding") << u"QUJDRA"_s << QByteArray("41424344");
    QTest::newRow("text key") << u"eg-key"_s << QByteArray("7a0fa47b");
    QTest::newRow("text with dashes") << u"k3y-for-orders"_s << QByteArray("937cbe7e8afea2b75eae");
    QTest::newRow("stops at the first =") << u"abc=def"_s << QByteArray("69b7");
    QTest::newRow("url alphabet") << u"-_-_"_s << QByteArray("fbffbf");
    QTest::newRow("standard alphabet") << u"+/+/"_s << QByteArray("fbffbf");
    QTest::newRow("whitespace skipped") << u"a b\tc\nd"_s << QByteArray("69b71d");
    QTest::newRow("other characters skipped") << u"ab%cd"_s << QByteArray("69b71d");
    QTest::newRow("low byte of a UTF-16 unit") << u"\u0141bcd"_s << QByteArray("01b71d");
    QTest::newRow("one character is no byte") << u"a"_s << QByteArray();
}

void SharedAccessSignatureTest::signingKey_decodedAsTheSdkDecodesIt()
{
    QFETCH(QString, key);
    QFETCH(QByteArray, hex);
    QCOMPARE(SharedAccessSignature::signingKey(key).toHex(), hex);
}

void SharedAccessSignatureTest::keyWithoutBase64_refusedNotSignedWithAnEmptyKey()
{
    // "!!!" decodes to nothing; an HMAC with an empty key is one anybody can make.
    const QByteArray token = SharedAccessSignature::generate(Endpoint, Expiry, u"!!!"_s);
    const auto verdict = SharedAccessSignature::check(token, u"orders"_s, u"!!!"_s, BeforeExpiry);
    QCOMPARE(verdict.problem, Problem::UnusableKey);
    QVERIFY2(verdict.message.contains(u"aeg-sas-key"_s), qPrintable(verdict.message));
    QVERIFY(!verdict.message.contains(u"!!!"_s));
}

void SharedAccessSignatureTest::forgedOrAltered_signatureDoesNotMatch_data()
{
    QTest::addColumn<QByteArray>("token");
    QByteArray oneCharacter = SdkToken;
    oneCharacter[oneCharacter.indexOf("&s=") + 3] = 'Z';
    QTest::newRow("one character of the signature") << oneCharacter;
    QTest::newRow("signed with another key") << SharedAccessSignature::generate(
        SdkResource, Expiry, u"b3RoZXIta2V5LW9mLXNvbWVib2R5LWVsc2U="_s);
    QByteArray longer = SdkToken;
    longer.replace("1%2F2%2F2030", "1%2F2%2F2031");
    QTest::newRow("expiry moved after signing") << longer;
    QByteArray otherHost = SdkToken;
    otherHost.replace("127.0.0.1", "localhost");
    QTest::newRow("host changed after signing") << otherHost;
    QByteArray signatureOfAnother = SdkToken.left(SdkToken.indexOf("&s="))
        + SdkTokenAfterMidnight.mid(SdkTokenAfterMidnight.indexOf("&s="));
    QTest::newRow("signature of another token") << signatureOfAnother;
    QTest::newRow("signed with the key's text, not its bytes") << signedToken(
        encoded(Endpoint), EncodedExpiry, QString::fromLatin1(Key.toLatin1().toBase64()));
}

void SharedAccessSignatureTest::forgedOrAltered_signatureDoesNotMatch()
{
    QFETCH(QByteArray, token);
    const auto verdict = SharedAccessSignature::check(token, u"orders"_s, Key, BeforeExpiry);
    QCOMPARE(verdict.problem, Problem::SignatureMismatch);
    QVERIFY2(verdict.message.contains(u"signature does not match"_s), qPrintable(verdict.message));
    QVERIFY2(verdict.message.contains(u"'orders'"_s), qPrintable(verdict.message));
    // Neither the key nor the signature (sent or expected) is repeated.
    const QByteArray sent = token.mid(token.indexOf("&s=") + 3);
    QVERIFY(!verdict.message.contains(QString::fromLatin1(sent)));
    QVERIFY(!verdict.message.contains(QString::fromLatin1(QByteArray::fromPercentEncoding(sent))));
    QVERIFY(!verdict.message.contains(Key));
}

void SharedAccessSignatureTest::resourceOfAnotherEndpoint_refused_data()
{
    QTest::addColumn<QString>("resource");
    QTest::newRow("another topic") << u"http://127.0.0.1:7000/topics/payments/api/events"_s;
    QTest::newRow("a topic whose name starts the same")
        << u"http://127.0.0.1:7000/topics/orders2/api/events"_s;
    QTest::newRow("not the events path") << u"http://127.0.0.1:7000/topics/orders/api/event"_s;
    QTest::newRow("below the events path")
        << u"http://127.0.0.1:7000/topics/orders/api/events/more"_s;
    QTest::newRow("the topic, not its endpoint") << u"http://127.0.0.1:7000/topics/orders"_s;
    QTest::newRow("Azure's path") << u"http://127.0.0.1:7000/api/events"_s;
    QTest::newRow("the router's words are not case-insensitive")
        << u"http://127.0.0.1:7000/Topics/orders/api/events"_s;
    QTest::newRow("the topic in the query")
        << u"http://127.0.0.1:7000/api/events?topic=/topics/orders/api/events"_s;
}

void SharedAccessSignatureTest::resourceOfAnotherEndpoint_refused()
{
    QFETCH(QString, resource);
    const QByteArray token = SharedAccessSignature::generate(resource, Expiry, Key);
    const auto verdict = SharedAccessSignature::check(token, u"orders"_s, Key, BeforeExpiry);
    QCOMPARE(verdict.problem, Problem::WrongResource);
    QVERIFY2(verdict.message.contains(u"does not name topic 'orders'"_s),
             qPrintable(verdict.message));
    QVERIFY2(verdict.message.contains(u"/topics/orders/api/events"_s), qPrintable(verdict.message));
    QVERIFY2(verdict.message.contains(resource), qPrintable(verdict.message));
}

void SharedAccessSignatureTest::resourceNamingThisTopic_accepted_data()
{
    QTest::addColumn<QString>("resource");
    QTest::newRow("api-version") << Endpoint + u"?api-version=2024-06-01"_s;
    QTest::newRow("no query") << Endpoint;
    QTest::newRow("localhost") << u"http://localhost:7000/topics/orders/api/events"_s;
    QTest::newRow("IPv6 loopback") << u"http://[::1]:7000/topics/orders/api/events"_s;
    QTest::newRow("another port") << u"http://127.0.0.1:8080/topics/orders/api/events"_s;
    QTest::newRow("a machine name, https")
        << u"https://eventdesk.example:443/topics/orders/api/events"_s;
    QTest::newRow("upper-case scheme and host")
        << u"HTTP://LOCALHOST:7000/topics/orders/api/events"_s;
    QTest::newRow("topic name in other case")
        << u"http://127.0.0.1:7000/topics/ORDERS/api/events"_s;
    QTest::newRow("trailing slash") << Endpoint + u"/"_s;
    QTest::newRow("percent-encoded topic") << u"http://127.0.0.1:7000/topics/%6Frders/api/events"_s;
}

void SharedAccessSignatureTest::resourceNamingThisTopic_accepted()
{
    QFETCH(QString, resource);
    const QByteArray token = SharedAccessSignature::generate(resource, Expiry, Key);
    const auto verdict = SharedAccessSignature::check(token, u"orders"_s, Key, BeforeExpiry);
    QVERIFY2(verdict.isValid(), qPrintable(verdict.message));
}

void SharedAccessSignatureTest::resourceIsCheckedBeforeExpiryAndSignature()
{
    // A token for another topic, expired and signed with another key: the resource is what the
    // client most needs to hear about.
    const QByteArray token = SharedAccessSignature::generate(
        u"http://127.0.0.1:7000/topics/payments/api/events"_s, Expiry, u"b3RoZXIta2V5"_s);
    QCOMPARE(SharedAccessSignature::check(token, u"orders"_s, Key, Expiry.addDays(1)).problem,
             Problem::WrongResource);
    QCOMPARE(SharedAccessSignature::check(token, u"payments"_s, Key, Expiry.addDays(1)).problem,
             Problem::Expired);
    QCOMPARE(SharedAccessSignature::check(token, u"payments"_s, Key, BeforeExpiry).problem,
             Problem::SignatureMismatch);
}

void SharedAccessSignatureTest::malformed_namesThePart_data()
{
    QTest::addColumn<QByteArray>("token");
    QTest::addColumn<QString>("expected");
    const QByteArray r = "r=" + encoded(Endpoint);
    const QByteArray e = "e=" + EncodedExpiry;
    const QByteArray s = SdkToken.mid(SdkToken.indexOf("&s=") + 1);
    QTest::newRow("empty") << QByteArray("  ") << u"the token is empty"_s;
    QTest::newRow("no signature") << r + '&' + e << u"no 's' (signature) part"_s;
    QTest::newRow("no expiry") << r + '&' + s << u"no 'e' (expiry) part"_s;
    QTest::newRow("no resource") << e + '&' + s << u"no 'r' (resource) part"_s;
    QTest::newRow("a part twice") << r + '&' + e + '&' + r + '&' + s
                                  << u"'r' (resource) part appears more than once"_s;
    QTest::newRow("a key name part")
        << r + '&' + e + '&' + s + "&skn=RootManageSharedAccessKey" << u"unknown part 'skn'"_s;
    QTest::newRow("not name=value")
        << r + "&garbage&" + s << u"part 2 of the token is not name=value"_s;
    QTest::newRow("the key itself") << Key.toLatin1() << u"has an unknown part ("_s;
    QTest::newRow("empty expiry") << r + "&e=&" + s << u"the 'e' (expiry) part is empty"_s;
    QTest::newRow("expiry not a time")
        << r + "&e=tomorrow&" + s << u"'e' (expiry) part 'tomorrow' is not a time"_s;
    QTest::newRow("resource not a URL") << "r=orders&" + e + '&'
            + s << u"'r' (resource) part 'orders' is not an http or https URL"_s;
    QTest::newRow("resource not http")
        << "r=" + encoded(u"ftp://127.0.0.1/topics/orders/api/events"_s) + '&' + e + '&' + s
        << u"is not an http or https URL"_s;
    QTest::newRow("resource without a host") << "r=" + encoded(u"http:/topics/orders/api/events"_s)
            + '&' + e + '&' + s << u"is not an http or https URL"_s;
    QTest::newRow("signature not base64")
        << r + '&' + e + "&s=not%20base64!" << u"'s' (signature) part is not the base64"_s;
    QTest::newRow("signature of 16 bytes") << r + '&' + e
            + "&s=" + QUrl::toPercentEncoding(QString::fromLatin1(QByteArray(16, 'x').toBase64()))
                                           << u"HMAC-SHA256 (32 bytes)"_s;
}

void SharedAccessSignatureTest::malformed_namesThePart()
{
    QFETCH(QByteArray, token);
    QFETCH(QString, expected);
    const auto verdict = SharedAccessSignature::check(token, u"orders"_s, Key, BeforeExpiry);
    QCOMPARE(verdict.problem, Problem::Malformed);
    QVERIFY2(verdict.message.startsWith(u"The SAS token is malformed: "_s),
             qPrintable(verdict.message));
    QVERIFY2(verdict.message.contains(expected), qPrintable(verdict.message));
    QVERIFY2(!verdict.message.contains(Key.left(20)), qPrintable(verdict.message));
}

void SharedAccessSignatureTest::encodings_signatureCoversTheTextAsSent_data()
{
    QTest::addColumn<QByteArray>("token");
    // .NET's HttpUtility.UrlEncode: lower-case hex, a space as '+'.
    const auto lowerHex = [](const QByteArray &text) {
        QByteArray result = text;
        for (qsizetype i = result.indexOf('%'); i >= 0; i = result.indexOf('%', i + 1))
            result.replace(i + 1, 2, result.mid(i + 1, 2).toLower());
        return result;
    };
    QTest::newRow(".NET encoding") << signedToken(
        lowerHex(encoded(Endpoint)), "1%2f2%2f2030+3%3a04%3a05+PM", Key, [&](const QByteArray &s) {
            return lowerHex(QUrl::toPercentEncoding(QString::fromLatin1(s)));
        });
    QTest::newRow("only what must be encoded")
        << signedToken("http://127.0.0.1:7000/topics/orders/api/events", "1/2/2030%203:04:05%20PM");
    QTest::newRow("signature not encoded") << signedToken(encoded(Endpoint), EncodedExpiry, Key,
                                                          [](const QByteArray &s) { return s; });
    QTest::newRow("percent-encoded path in the resource") << signedToken(
        encoded(u"http://127.0.0.1:7000/topics/%6Frders/api/events"_s), EncodedExpiry);
    QTest::newRow("surrounding whitespace")
        << "  " + signedToken(encoded(Endpoint), EncodedExpiry) + " ";
    const QByteArray token = signedToken(encoded(Endpoint), EncodedExpiry);
    const QList<QByteArray> parts = token.split('&');
    QTest::newRow("parts in another order") << parts.at(2) + '&' + parts.at(0) + '&' + parts.at(1);
}

void SharedAccessSignatureTest::encodings_signatureCoversTheTextAsSent()
{
    QFETCH(QByteArray, token);
    const auto verdict = SharedAccessSignature::check(token, u"orders"_s, Key, BeforeExpiry);
    QVERIFY2(verdict.isValid(), qPrintable(verdict.message));
    const auto parsed = SharedAccessSignature::parse(token);
    QVERIFY(parsed);
    QCOMPARE(parsed->expiresOn(), Expiry);
}

void SharedAccessSignatureTest::expiryForms_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QDateTime>("expected");
    QTest::newRow("JavaScript SDK") << u"1/2/2030 3:04:05 PM"_s << Expiry;
    QTest::newRow("leading zeros, lower case") << u"01/02/2030 03:04:05 pm"_s << Expiry;
    QTest::newRow("noon") << u"6/15/2017 12:20:15 PM"_s << utc(2017, 6, 15, 12, 20, 15);
    QTest::newRow("midnight") << u"12/31/2030 12:00:09 AM"_s << utc(2030, 12, 31, 0, 0, 9);
    QTest::newRow(".NET invariant, 24-hour") << u"01/02/2030 15:04:05"_s << Expiry;
    QTest::newRow(".NET DateTimeOffset") << u"1/2/2030 3:04:05 PM +00:00"_s << Expiry;
    QTest::newRow("an offset") << u"1/2/2030 5:04:05 PM +02:00"_s << Expiry;
    QTest::newRow("Python") << u"2030-01-02 15:04:05+00:00"_s << Expiry;
    QTest::newRow("Python, microseconds")
        << u"2030-01-02 15:04:05.250000+00:00"_s << utc(2030, 1, 2, 15, 4, 5, 250);
    QTest::newRow("Python, naive UTC") << u"2030-01-02 15:04:05"_s << Expiry;
    QTest::newRow("ISO 8601") << u"2030-01-02T15:04:05Z"_s << Expiry;
    QTest::newRow("ISO 8601, offset") << u"2030-01-02T10:04:05-05:00"_s << Expiry;
}

void SharedAccessSignatureTest::expiryForms()
{
    QFETCH(QString, text);
    QFETCH(QDateTime, expected);
    const std::optional<QDateTime> parsed = SharedAccessSignature::parseExpiry(text);
    QVERIFY(parsed);
    QCOMPARE(*parsed, expected);
    QCOMPARE(parsed->toMSecsSinceEpoch(), expected.toMSecsSinceEpoch());
}

void SharedAccessSignatureTest::expiryNotATime_data()
{
    QTest::addColumn<QString>("text");
    QTest::newRow("empty") << QString();
    QTest::newRow("a date only") << u"1/2/2030"_s;
    QTest::newRow("month 13") << u"13/2/2030 3:04:05 PM"_s;
    QTest::newRow("30 February") << u"2/30/2030 3:04:05 PM"_s;
    QTest::newRow("hour 13 PM") << u"1/2/2030 13:04:05 PM"_s;
    QTest::newRow("hour 0 AM") << u"1/2/2030 0:04:05 AM"_s;
    QTest::newRow("two-digit year") << u"1/2/30 3:04:05 PM"_s;
    QTest::newRow("minute 60") << u"1/2/2030 3:60:05 PM"_s;
    QTest::newRow("ISO hour 24") << u"2030-01-02T24:00:00Z"_s;
    QTest::newRow("Unix time") << u"1893596645"_s;
}

void SharedAccessSignatureTest::expiryNotATime()
{
    QFETCH(QString, text);
    QVERIFY(!SharedAccessSignature::parseExpiry(text));
}

void SharedAccessSignatureTest::formatExpiry_asTheSdkWritesIt_data()
{
    QTest::addColumn<QDateTime>("time");
    QTest::addColumn<QString>("expected");
    QTest::newRow("afternoon") << Expiry << u"1/2/2030 3:04:05 PM"_s;
    QTest::newRow("after midnight") << utc(2030, 12, 31, 0, 0, 9) << u"12/31/2030 12:00:09 AM"_s;
    QTest::newRow("noon") << utc(2030, 6, 5, 12, 9, 3) << u"6/5/2030 12:09:03 PM"_s;
    QTest::newRow("morning, milliseconds dropped")
        << utc(2030, 6, 5, 9, 0, 0, 999) << u"6/5/2030 9:00:00 AM"_s;
    QTest::newRow("written in UTC")
        << Expiry.toOffsetFromUtc(-5 * 3600) << u"1/2/2030 3:04:05 PM"_s;
}

void SharedAccessSignatureTest::formatExpiry_asTheSdkWritesIt()
{
    QFETCH(QDateTime, time);
    QFETCH(QString, expected);
    QCOMPARE(SharedAccessSignature::formatExpiry(time), expected);
}

QTEST_GUILESS_MAIN(SharedAccessSignatureTest)
#include "tst_sharedaccesssignature.moc"
