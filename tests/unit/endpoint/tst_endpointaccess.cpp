// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// Which request heads the endpoint admits (docs/security.md "The HTTP endpoint"): the Host header
// must name the endpoint (loopback names, the listen address, on a wildcard address any IP address
// and the machine's name, and workspace.json's settings.allowedHosts), a request with an Origin
// header must come from an origin the settings list, and a publish must be JSON. Here as pure
// checks; tst_daemon_browserorigin sends the same requests to eventdeskd.

#include "endpoint/EndpointAccess.h"
#include "endpoint/TopicEndpoint.h"

#include <QHostInfo>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace EventDesk;

namespace {

HttpRequest head(const QList<QPair<QByteArray, QByteArray>> &headers)
{
    HttpRequest request;
    request.method = "POST";
    request.target = "/topics/orders/api/events";
    request.headers = headers;
    return request;
}

} // namespace

class EndpointAccessTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void host_data();
    void host();
    void missingOrRepeatedHost_is400();
    void origin_data();
    void origin();
    void refusalMessagesNameTheProblemAndWhatIsAccepted();
    void addressLiterals_data();
    void addressLiterals();
    void publishContentType_data();
    void publishContentType();
};

void EndpointAccessTest::host_data()
{
    QTest::addColumn<QString>("listen");
    QTest::addColumn<QStringList>("allowedHosts");
    QTest::addColumn<QByteArray>("host");
    QTest::addColumn<int>("status");

    const QString loopback = u"127.0.0.1"_s;
    const QStringList none;
    // What the SDKs, curl and EventDesk's own deliveries send.
    QTest::newRow("127.0.0.1 with port") << loopback << none << "127.0.0.1:5170"_ba << 0;
    QTest::newRow("127.0.0.1 without port") << loopback << none << "127.0.0.1"_ba << 0;
    QTest::newRow("localhost with port") << loopback << none << "localhost:5170"_ba << 0;
    QTest::newRow("LOCALHOST, any case") << loopback << none << "LocalHost:5170"_ba << 0;
    QTest::newRow("[::1] with port") << loopback << none << "[::1]:5170"_ba << 0;
    QTest::newRow("[::1] without port") << loopback << none << "[::1]"_ba << 0;
    QTest::newRow("a forwarded port") << loopback << none << "localhost:8080"_ba << 0;
    // A page's own name (DNS rebinding) or another site.
    QTest::newRow("evil.example") << loopback << none << "evil.example"_ba << 421;
    QTest::newRow("evil.example with port") << loopback << none << "evil.example:5170"_ba << 421;
    QTest::newRow("localhost as a subdomain")
        << loopback << none << "localhost.evil.example:5170"_ba << 421;
    QTest::newRow("another address") << loopback << none << "10.1.2.3:5170"_ba << 421;
    QTest::newRow("the machine's name on loopback")
        << loopback << none << (QHostInfo::localHostName().toLatin1() + ".invalid") << 421;
    // Malformed values.
    QTest::newRow("empty") << loopback << none << ""_ba << 400;
    QTest::newRow("user info") << loopback << none << "user@127.0.0.1"_ba << 400;
    QTest::newRow("port not a number") << loopback << none << "127.0.0.1:http"_ba << 400;
    QTest::newRow("unclosed bracket") << loopback << none << "[::1:5170"_ba << 400;
    QTest::newRow("a URL") << loopback << none << "http://127.0.0.1:5170/"_ba << 400;
    // Configured names.
    QTest::newRow("allowed host") << loopback << QStringList {u"eventdesk.internal"_s}
                                  << "EventDesk.Internal:5170"_ba << 0;
    QTest::newRow("allowed host is no wildcard")
        << loopback << QStringList {u"eventdesk.internal"_s} << "x.eventdesk.internal:5170"_ba
        << 421;
    // IPv6 loopback.
    QTest::newRow("listening on ::1: [::1]") << u"::1"_s << none << "[::1]:5170"_ba << 0;
    QTest::newRow("listening on ::1: localhost") << u"::1"_s << none << "localhost:5170"_ba << 0;
    QTest::newRow("listening on ::1: evil") << u"::1"_s << none << "evil.example:5170"_ba << 421;
    // A specific address: that address, and the loopback names.
    QTest::newRow("listening on 192.0.2.7: itself")
        << u"192.0.2.7"_s << none << "192.0.2.7:5170"_ba << 0;
    QTest::newRow("listening on 192.0.2.7: another address")
        << u"192.0.2.7"_s << none << "192.0.2.8:5170"_ba << 421;
    // A wildcard address: any IP address (a rebound name cannot send one), the machine's name.
    QTest::newRow("0.0.0.0: an address") << u"0.0.0.0"_s << none << "192.0.2.8:5170"_ba << 0;
    QTest::newRow("0.0.0.0: an IPv6 address")
        << u"0.0.0.0"_s << none << "[2001:db8::1]:5170"_ba << 0;
    QTest::newRow("0.0.0.0: the machine's name")
        << u"0.0.0.0"_s << none << (QHostInfo::localHostName().toLatin1() + ":5170") << 0;
    QTest::newRow("0.0.0.0: evil.example") << u"0.0.0.0"_s << none << "evil.example:5170"_ba << 421;
    QTest::newRow("0.0.0.0: a number that is no dotted quad")
        << u"0.0.0.0"_s << none << "2130706433"_ba << 421;
    QTest::newRow(":: : an address") << u"::"_s << none << "198.51.100.1"_ba << 0;
}

void EndpointAccessTest::host()
{
    QFETCH(QString, listen);
    QFETCH(QStringList, allowedHosts);
    QFETCH(QByteArray, host);
    QFETCH(int, status);

    const EndpointAccess access(QHostAddress(listen), 5170, allowedHosts, {});
    const EndpointAccess::Verdict verdict = access.check(head({{"Host", host}}));
    QVERIFY2(verdict.status == status,
             qPrintable(u"%1: %2"_s.arg(verdict.status).arg(verdict.message)));
    QCOMPARE(verdict.isAllowed(), status == 0);
}

void EndpointAccessTest::missingOrRepeatedHost_is400()
{
    const EndpointAccess access(QHostAddress::LocalHost, 5170, {}, {});
    const EndpointAccess::Verdict missing
        = access.check(head({{"Content-Type", "application/json"}}));
    QCOMPARE(missing.status, 400);
    QVERIFY2(missing.message.contains(u"no Host header"_s), qPrintable(missing.message));
    const EndpointAccess::Verdict twice
        = access.check(head({{"Host", "127.0.0.1:5170"}, {"host", "127.0.0.1:5170"}}));
    QCOMPARE(twice.status, 400);
    QVERIFY2(twice.message.contains(u"more than one Host"_s), qPrintable(twice.message));
}

void EndpointAccessTest::origin_data()
{
    QTest::addColumn<QStringList>("allowedOrigins");
    QTest::addColumn<QByteArray>("origin");
    QTest::addColumn<int>("status");

    QTest::newRow("a page's origin") << QStringList {} << "http://evil.example"_ba << 403;
    QTest::newRow("a sandboxed page or a file") << QStringList {} << "null"_ba << 403;
    QTest::newRow("the endpoint's own address")
        << QStringList {} << "http://127.0.0.1:5170"_ba << 403;
    QTest::newRow("allowed") << QStringList {u"http://localhost:3000"_s}
                             << "http://localhost:3000"_ba << 0;
    QTest::newRow("allowed, other case")
        << QStringList {u"http://localhost:3000"_s} << "HTTP://LocalHost:3000"_ba << 0;
    QTest::newRow("another port of an allowed host")
        << QStringList {u"http://localhost:3000"_s} << "http://localhost:3001"_ba << 403;
    QTest::newRow("another scheme of an allowed host")
        << QStringList {u"http://localhost:3000"_s} << "https://localhost:3000"_ba << 403;
}

void EndpointAccessTest::origin()
{
    QFETCH(QStringList, allowedOrigins);
    QFETCH(QByteArray, origin);
    QFETCH(int, status);

    const EndpointAccess access(QHostAddress::LocalHost, 5170, {}, allowedOrigins);
    const EndpointAccess::Verdict verdict
        = access.check(head({{"Host", "127.0.0.1:5170"}, {"Origin", origin}}));
    QVERIFY2(verdict.status == status,
             qPrintable(u"%1: %2"_s.arg(verdict.status).arg(verdict.message)));
    // An allowed origin is answered with CORS headers: the verdict carries it.
    QCOMPARE(verdict.allowedOrigin, status == 0 ? origin : QByteArray());
    // Without the header, the same request is allowed.
    QVERIFY(access.check(head({{"Host", "127.0.0.1:5170"}})).isAllowed());
}

void EndpointAccessTest::refusalMessagesNameTheProblemAndWhatIsAccepted()
{
    const EndpointAccess access(QHostAddress::LocalHost, 5170, {u"eventdesk.internal"_s},
                                {u"http://localhost:3000"_s});
    const EndpointAccess::Verdict host = access.check(head({{"Host", "evil.example:5170"}}));
    QCOMPARE(host.code, u"MisdirectedRequest"_s);
    for (const QString &part : {u"'evil.example:5170'"_s, u"127.0.0.1"_s, u"localhost"_s,
                                u"[::1]"_s, u"eventdesk.internal"_s, u"settings.allowedHosts"_s})
        QVERIFY2(host.message.contains(part), qPrintable(host.message));
    const EndpointAccess::Verdict origin
        = access.check(head({{"Host", "localhost:5170"}, {"Origin", "http://evil.example"}}));
    QCOMPARE(origin.code, u"Forbidden"_s);
    for (const QString &part :
         {u"'http://evil.example'"_s, u"settings.allowedOrigins"_s, u"http://localhost:3000"_s})
        QVERIFY2(origin.message.contains(part), qPrintable(origin.message));
}

void EndpointAccessTest::addressLiterals_data()
{
    QTest::addColumn<QByteArray>("name");
    QTest::addColumn<bool>("literal");
    QTest::newRow("dotted quad") << "192.0.2.1"_ba << true;
    QTest::newRow("octet over 255") << "192.0.2.256"_ba << false;
    QTest::newRow("three parts") << "192.0.2"_ba << false;
    QTest::newRow("five parts") << "1.2.3.4.5"_ba << false;
    QTest::newRow("empty part") << "1..3.4"_ba << false;
    QTest::newRow("a name") << "example.com"_ba << false;
    QTest::newRow("IPv6 in brackets") << "[2001:db8::1]"_ba << true;
    QTest::newRow("IPv6 without brackets") << "2001:db8::1"_ba << false;
    QTest::newRow("not IPv6 in brackets") << "[example]"_ba << false;
}

void EndpointAccessTest::addressLiterals()
{
    QFETCH(QByteArray, name);
    QFETCH(bool, literal);
    QCOMPARE(EndpointAccess::isAddressLiteral(name), literal);
}

void EndpointAccessTest::publishContentType_data()
{
    QTest::addColumn<QByteArray>("contentType");
    QTest::addColumn<QString>("problem"); // empty: accepted; else a part of the message

    // What the SDKs send.
    QTest::newRow("application/json") << "application/json"_ba << QString();
    QTest::newRow("with charset") << "application/json; charset=utf-8"_ba << QString();
    QTest::newRow("charset quoted, upper case")
        << "Application/JSON;charset=\"UTF-8\""_ba << QString();
    QTest::newRow("cloudevents") << "application/cloudevents+json; charset=utf-8"_ba << QString();
    QTest::newRow("cloudevents batch") << "application/cloudevents-batch+json"_ba << QString();
    QTest::newRow("other parameter") << "application/json; odata=nometadata"_ba << QString();
    // What a web page can send without a preflight, and other types.
    QTest::newRow("none") << ""_ba << u"has no Content-Type"_s;
    QTest::newRow("text/plain") << "text/plain"_ba << u"'text/plain' is not accepted"_s;
    QTest::newRow("text/plain with charset")
        << "text/plain; charset=utf-8"_ba << u"is not accepted"_s;
    QTest::newRow("form") << "application/x-www-form-urlencoded"_ba << u"is not accepted"_s;
    QTest::newRow("multipart") << "multipart/form-data; boundary=x"_ba << u"is not accepted"_s;
    QTest::newRow("json suffix of another type")
        << "application/vnd.example+json"_ba << u"is not accepted"_s;
    QTest::newRow("latin-1") << "application/json; charset=iso-8859-1"_ba << u"JSON is UTF-8"_s;
}

void EndpointAccessTest::publishContentType()
{
    QFETCH(QByteArray, contentType);
    QFETCH(QString, problem);
    const QString found = TopicEndpoint::publishContentTypeProblem(contentType);
    if (problem.isEmpty()) {
        QVERIFY2(found.isEmpty(), qPrintable(found));
        return;
    }
    QVERIFY2(found.contains(problem), qPrintable(found));
    // Every refusal names what is accepted.
    QVERIFY2(found.contains(u"application/json"_s)
                 && found.contains(u"application/cloudevents-batch+json"_s),
             qPrintable(found));
}

QTEST_GUILESS_MAIN(EndpointAccessTest)
#include "tst_endpointaccess.moc"
