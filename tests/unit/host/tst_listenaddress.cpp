// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// ListenAddress: the HOST:PORT of --listen, read once for both programs, and the URLs and socket
// address made from it.

#include "host/ListenAddress.h"

#include <QTest>

using namespace Qt::StringLiterals;
using namespace EventDesk;

class TestListenAddress : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parsesAddresses_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("host");
        QTest::addColumn<int>("port");
        QTest::addColumn<QString>("url");
        QTest::addColumn<bool>("loopback");
        QTest::newRow("IPv4 loopback")
            << u"127.0.0.1:5170"_s << u"127.0.0.1"_s << 5170 << u"http://127.0.0.1:5170"_s << true;
        QTest::newRow("any port") << u"127.0.0.1:0"_s << u"127.0.0.1"_s << 0
                                  << u"http://127.0.0.1:0"_s << true;
        QTest::newRow("IPv6 loopback")
            << u"[::1]:8080"_s << u"::1"_s << 8080 << u"http://[::1]:8080"_s << true;
        QTest::newRow("localhost")
            << u"localhost:5170"_s << u"localhost"_s << 5170 << u"http://localhost:5170"_s << true;
        QTest::newRow("all interfaces")
            << u"0.0.0.0:5199"_s << u"0.0.0.0"_s << 5199 << u"http://0.0.0.0:5199"_s << false;
        QTest::newRow("highest port")
            << u"10.1.2.3:65535"_s << u"10.1.2.3"_s << 65535 << u"http://10.1.2.3:65535"_s << false;
    }
    void parsesAddresses()
    {
        QFETCH(QString, text);
        const auto parsed = ListenAddress::parse(text);
        QVERIFY2(parsed, parsed ? "" : qPrintable(parsed.error()));
        QTEST(parsed->host, "host");
        QTEST(int(parsed->port), "port");
        QTEST(parsed->url(), "url");
        QTEST(parsed->isLoopback(), "loopback");
        QVERIFY(!parsed->address().isNull());
    }

    void refusesWhatIsNotAnAddress_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        QTest::newRow("no port") << u"127.0.0.1"_s << u"expected HOST:PORT"_s;
        QTest::newRow("port too high") << u"127.0.0.1:65536"_s << u"a port from 0 to 65535"_s;
        QTest::newRow("not a number") << u"127.0.0.1:http"_s << u"got '127.0.0.1:http'"_s;
        QTest::newRow("a path") << u"127.0.0.1:5170/topics"_s << u"expected HOST:PORT"_s;
        QTest::newRow("empty") << QString() << u"expected HOST:PORT"_s;
        QTest::newRow("a host name")
            << u"example.invalid:5170"_s << u"'example.invalid' is not an IP address"_s;
    }
    void refusesWhatIsNotAnAddress()
    {
        QFETCH(QString, text);
        QFETCH(QString, message);
        const auto parsed = ListenAddress::parse(text);
        QVERIFY(!parsed);
        QVERIFY2(parsed.error().contains(message), qPrintable(parsed.error()));
    }

    void urlNamesAnotherPort()
    {
        // The endpoint may listen elsewhere than the usual port (the desktop app's busy port):
        // the same host, written as a URL writes it.
        const auto parsed = ListenAddress::parse(u"[::1]:5170"_s);
        QVERIFY(parsed);
        QCOMPARE(parsed->url(5171), u"http://[::1]:5171"_s);
        QCOMPARE(parsed->urlHost(), u"[::1]"_s);
    }
};

QTEST_GUILESS_MAIN(TestListenAddress)
#include "tst_listenaddress.moc"
