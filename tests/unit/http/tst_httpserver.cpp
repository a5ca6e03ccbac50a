// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// The HTTP/1.1 server of the topic endpoint and the test receivers against hostile clients
// (docs/security.md "Hostile HTTP"): every request-smuggling shape is answered 400 (or 501) and the
// connection closed; half heads, stalled bodies and idle kept-alive connections are closed by the
// timeouts; connections beyond the cap are refused while the others keep working. Real loopback
// sockets, timeouts of a few hundred milliseconds, and QTRY waits far longer than any timeout.

#include "http/HttpServer.h"

#include <QElapsedTimer>
#include <QScopeGuard>
#include <QTcpSocket>
#include <QTest>
#include <QTimer>

#include <memory>

#ifdef Q_OS_LINUX
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>
#endif

using namespace Qt::StringLiterals;
using namespace EventDesk;

namespace {

constexpr int ShortTimeoutMs = 200;
constexpr int LongTimeoutMs = 600'000; // a timeout that must not play a part in a test
constexpr int WaitMs = 20'000; // how long QTRY waits for what a short timeout does

// A client speaking raw bytes, collecting whatever the server answers.
class RawClient final
{
public:
    explicit RawClient(quint16 port)
    {
        QObject::connect(&m_socket, &QTcpSocket::readyRead, &m_socket,
                         [this] { m_received += m_socket.readAll(); });
        m_socket.connectToHost(QHostAddress::LocalHost, port);
    }

    void send(const QByteArray &bytes) { m_socket.write(bytes); }
    void disconnect() { m_socket.disconnectFromHost(); }
    bool isClosed() const { return m_socket.state() == QAbstractSocket::UnconnectedState; }
    bool isConnected() const { return m_socket.state() == QAbstractSocket::ConnectedState; }
    qint64 bytesToWrite() const { return m_socket.bytesToWrite(); }

    const QByteArray &received()
    {
        if (m_socket.isOpen())
            m_received += m_socket.readAll();
        return m_received;
    }
    // Final responses received (an interim 100 Continue does not count).
    qsizetype responseCount()
    {
        return received().count("HTTP/1.1 ") - received().count("HTTP/1.1 100 ");
    }

private:
    QTcpSocket m_socket;
    QByteArray m_received;
};

QByteArray request(const QByteArray &headers, const QByteArray &body = {},
                   const QByteArray &version = "HTTP/1.1")
{
    return "POST /receivers/demo " + version + "\r\nHost: 127.0.0.1\r\n" + headers + "\r\n" + body;
}

} // namespace

class HttpServerTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void smuggling_answeredAndClosed_data();
    void smuggling_answeredAndClosed();
    void strictFraming_stillAcceptsWellFormedRequests_data();
    void strictFraming_stillAcceptsWellFormedRequests();
    void connectionHeader_closesOnTheCloseOptionOnly_data();
    void connectionHeader_closesOnTheCloseOptionOnly();

    void headerTimeout_halfHeadAnswered408AndClosed();
    void headerTimeout_headSentByteByByteStillEnds();
    void headerTimeout_silentConnectionClosedWithoutAnswer();
    void bodyTimeout_stalledBodyAnswered408AndClosed();
    void idleTimeout_keptAliveConnectionClosedWithoutAnswer();
    void pendingAnswer_noTimeoutCutsTheConnection();

    void connectionCap_refusesBeyondWith503_othersKeepWorking();
    void pipelining_clientWaitsWhileAnAnswerIsPending();
    void acceptError_acceptsAgainOnceDescriptorsAreFree();
    void acceptError_shedsAnIdleConnectionToServeANewOne();

    void admission_bodyLimitPerRequest_data();
    void admission_bodyLimitPerRequest();
    void admission_answerWithSmallBody_handlerSkipped_connectionKept();
    void admission_answerWithLargeBody_answeredAtOnceAndClosed();
    void admission_responseHeadersAddedToEveryAnswer();
    void pipelining_unreadAnswersStopFurtherRequests();
    void pipelining_bytesBehindAPendingRequestStayUnread();

private:
    void setLimits(int headerMs, int bodyMs, int idleMs, int maxConnections = 10'000);
    HttpResponse answerFor(const HttpRequest &request) const;

    std::unique_ptr<HttpServer> m_server;
    QList<HttpRequest> m_requests;
    QList<HttpReply> m_heldReplies;
    QList<int> m_errorStatuses; // what the server answered by itself, through the error factory
    bool m_holdAnswers = false;
};

void HttpServerTest::init()
{
    m_requests.clear();
    m_heldReplies.clear();
    m_errorStatuses.clear();
    m_holdAnswers = false;
    m_server = std::make_unique<HttpServer>();
    m_server->setHandler([this](const HttpRequest &request, const HttpReply &reply) {
        m_requests.append(request);
        if (m_holdAnswers)
            m_heldReplies.append(reply);
        else
            reply.respond(answerFor(request));
    });
    m_server->setErrorBodyFactory([this](int status, const QString &message) {
        m_errorStatuses.append(status);
        return HttpResponse::json(status,
                                  R"({"error":{"code":"E)" + QByteArray::number(status)
                                      + R"(","message":")" + message.toUtf8() + "\"}}");
    });
    auto port = m_server->listen(QHostAddress::LocalHost, 0);
    QVERIFY2(port.hasValue(), qPrintable(port.error()));
}

void HttpServerTest::cleanup()
{
    m_heldReplies.clear();
    m_server.reset();
}

void HttpServerTest::setLimits(int headerMs, int bodyMs, int idleMs, int maxConnections)
{
    HttpConnectionLimits limits;
    limits.headerTimeoutMs = headerMs;
    limits.bodyTimeoutMs = bodyMs;
    limits.idleTimeoutMs = idleMs;
    limits.maxConnections = maxConnections;
    m_server->setConnectionLimits(limits);
}

HttpResponse HttpServerTest::answerFor(const HttpRequest &request) const
{
    return HttpResponse::text(
        200, "received " + QByteArray::number(request.body.size()) + " bytes: " + request.body);
}

// RFC 9112 §6.3 and §5: every request whose framing another parser could read differently. The
// server answers (400, or 501 for a coding it cannot undo), says "Connection: close", closes, and
// never hands the request - or what follows it - to the handler.
void HttpServerTest::smuggling_answeredAndClosed_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<int>("status");

    const QByteArray smuggled = "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n";
    const QByteArray chunked = "Transfer-Encoding: chunked\r\n";
    QTest::newRow("Content-Length and chunked")
        << request("Content-Length: 5\r\n" + chunked, "0\r\n\r\n" + smuggled) << 400;
    QTest::newRow("chunked and Content-Length")
        << request(chunked + "Content-Length: 40\r\n", "0\r\n\r\n" + smuggled) << 400;
    QTest::newRow("two differing Content-Lengths")
        << request("Content-Length: 5\r\nContent-Length: 40\r\n", "hello" + smuggled) << 400;
    QTest::newRow("two identical Content-Lengths")
        << request("Content-Length: 5\r\nContent-Length: 5\r\n", "hello") << 400;
    QTest::newRow("Content-Length as a list")
        << request("Content-Length: 5, 5\r\n", "hello") << 400;
    QTest::newRow("Content-Length with a plus sign")
        << request("Content-Length: +5\r\n", "hello") << 400;
    QTest::newRow("negative Content-Length") << request("Content-Length: -5\r\n", "hello") << 400;
    QTest::newRow("Content-Length with a space inside")
        << request("Content-Length: 1 0\r\n", "0123456789") << 400;
    QTest::newRow("hexadecimal Content-Length")
        << request("Content-Length: 0x5\r\n", "hello") << 400;
    QTest::newRow("Content-Length with an exponent")
        << request("Content-Length: 5e0\r\n", "hello") << 400;
    QTest::newRow("Content-Length overflowing 64 bits")
        << request("Content-Length: 18446744073709551621\r\n", "hello") << 400;
    QTest::newRow("empty Content-Length") << request("Content-Length:\r\n", "hello") << 400;
    QTest::newRow("Content-Length after a vertical tab")
        << request("Content-Length: \v5\r\n", "hello") << 400;

    QTest::newRow("chunk size not hexadecimal")
        << request(chunked, "zz\r\nhello\r\n0\r\n\r\n") << 400;
    QTest::newRow("chunk size with 0x") << request(chunked, "0x5\r\nhello\r\n0\r\n\r\n") << 400;
    QTest::newRow("chunk size with a sign") << request(chunked, "+5\r\nhello\r\n0\r\n\r\n") << 400;
    QTest::newRow("negative chunk size") << request(chunked, "-5\r\nhello\r\n0\r\n\r\n") << 400;
    QTest::newRow("chunk size overflowing 64 bits")
        << request(chunked, "10000000000000005\r\nhello\r\n0\r\n\r\n") << 400;
    QTest::newRow("chunk size after a space")
        << request(chunked, " 5\r\nhello\r\n0\r\n\r\n") << 400;
    QTest::newRow("chunk size before a space")
        << request(chunked, "5 \r\nhello\r\n0\r\n\r\n") << 400;
    QTest::newRow("chunk size ended by a bare LF")
        << request(chunked, "5\nhello\r\n0\r\n\r\n") << 400;
    QTest::newRow("chunk data not followed by CRLF")
        << request(chunked, "5\r\nhelloXX\r\n0\r\n\r\n") << 400;
    QTest::newRow("chunk data followed by a bare LF")
        << request(chunked, "5\r\nhello\n0\r\n\r\n") << 400;
    QTest::newRow("chunk extension without a name")
        << request(chunked, "5;=x\r\nhello\r\n0\r\n\r\n") << 400;
    QTest::newRow("chunk extension with an empty value")
        << request(chunked, "5;a=\r\nhello\r\n0\r\n\r\n") << 400;
    QTest::newRow("chunk extension with a bare CR in a quoted value")
        << request(chunked, "5;a=\"x\ry\"\r\nhello\r\n0\r\n\r\n") << 400;
    QTest::newRow("chunk extension with an unterminated quoted value")
        << request(chunked, "5;a=\"xy\r\nhello\r\n0\r\n\r\n") << 400;
    QTest::newRow("chunk size line over 4 KiB")
        << request(chunked, "5;a=" + QByteArray(5000, 'x') + "\r\nhello\r\n0\r\n\r\n") << 400;
    QByteArray paddedChunks;
    for (int i = 0; i < 20; ++i)
        paddedChunks += "1;pad=" + QByteArray(4000, 'x') + "\r\nx\r\n";
    QTest::newRow("chunk extensions over 64 KiB in one body")
        << request(chunked, paddedChunks + "0\r\n\r\n") << 400;

    QTest::newRow("obsolete line folding")
        << request("X-Folded: a\r\n b\r\nContent-Length: 5\r\n", "hello") << 400;
    QTest::newRow("line folding with a tab")
        << request("X-Folded: a\r\n\tContent-Length: 40\r\nContent-Length: 5\r\n", "hello") << 400;
    QTest::newRow("Transfer-Encoding gzip")
        << request("Transfer-Encoding: gzip\r\n", "hello") << 400;
    QTest::newRow("Transfer-Encoding identity")
        << request("Transfer-Encoding: identity\r\n", "hello") << 400;
    QTest::newRow("chunked not the last coding")
        << request("Transfer-Encoding: chunked, gzip\r\n", "0\r\n\r\n") << 400;
    QTest::newRow("chunked twice")
        << request("Transfer-Encoding: chunked, chunked\r\n", "0\r\n\r\n") << 400;
    QTest::newRow("chunked on two lines") << request(chunked + chunked, "0\r\n\r\n") << 400;
    QTest::newRow("chunked with a parameter")
        << request("Transfer-Encoding: chunked;x=1\r\n", "0\r\n\r\n") << 400;
    QTest::newRow("empty Transfer-Encoding")
        << request("Transfer-Encoding:\r\nContent-Length: 5\r\n", "hello") << 400;
    QTest::newRow("empty Transfer-Encoding alone")
        << request("Transfer-Encoding: \r\n", "hello") << 400;
    QTest::newRow("Transfer-Encoding after a vertical tab")
        << request("Transfer-Encoding: \vchunked\r\n", "0\r\n\r\n") << 400;
    QTest::newRow("chunked in an HTTP/1.0 request")
        << request(chunked, "0\r\n\r\n", "HTTP/1.0") << 400;
    QTest::newRow("a coding before chunked (not implemented)")
        << request("Transfer-Encoding: gzip, chunked\r\n", "0\r\n\r\n") << 501;

    QTest::newRow("space before the colon") << request("Content-Length : 5\r\n", "hello") << 400;
    QTest::newRow("tab before the colon") << request("Content-Length\t: 5\r\n", "hello") << 400;
    QTest::newRow("space inside the field name")
        << request("Content Length: 5\r\n", "hello") << 400;
    QTest::newRow("Transfer-Encoding with a space before the colon")
        << request("Transfer-Encoding : chunked\r\nContent-Length: 5\r\n", "hello") << 400;
    QTest::newRow("header line ended by a bare LF")
        << request("X-Note: 1\nContent-Length: 5\r\n", "hello") << 400;
    QTest::newRow("bare CR in a header value")
        << request("X-Note: 1\rContent-Length: 5\r\n", "hello") << 400;
    QTest::newRow("NUL in a header value")
        << request(QByteArray("X-Note: a\0b\r\n", 13), "") << 400;
}

void HttpServerTest::smuggling_answeredAndClosed()
{
    QFETCH(QByteArray, bytes);
    QFETCH(int, status);

    RawClient client(m_server->port());
    client.send(bytes);
    QTRY_VERIFY_WITH_TIMEOUT(client.isClosed(), WaitMs);
    const QByteArray &received = client.received();
    const QByteArray statusLine = "HTTP/1.1 " + QByteArray::number(status) + ' ';
    QVERIFY2(received.startsWith(statusLine), received.constData());
    QVERIFY2(received.contains("\r\nConnection: close\r\n"), received.constData());
    QCOMPARE(client.responseCount(), 1);
    QCOMPARE(m_errorStatuses, QList<int> {status});
    QVERIFY2(m_requests.isEmpty(), m_requests.value(0).target.constData());
}

// The strict reading refuses nothing a well-behaved client sends.
void HttpServerTest::strictFraming_stillAcceptsWellFormedRequests_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QByteArray>("body");

    const QByteArray chunked = "Transfer-Encoding: chunked\r\n";
    QTest::newRow("Content-Length") << request("Content-Length: 5\r\n", "hello") << "hello"_ba;
    QTest::newRow("Content-Length with leading zeros")
        << request("Content-Length: 005\r\n", "hello") << "hello"_ba;
    QTest::newRow("Content-Length within spaces and tabs")
        << request("Content-Length:\t 5 \t\r\n", "hello") << "hello"_ba;
    QTest::newRow("no body") << request({}) << QByteArray();
    QTest::newRow("chunked") << request(chunked, "5\r\nhello\r\n0\r\n\r\n") << "hello"_ba;
    QTest::newRow("chunked, capitalised")
        << request("Transfer-Encoding: Chunked\r\n", "5\r\nhello\r\n0\r\n\r\n") << "hello"_ba;
    QTest::newRow("chunked after empty list elements")
        << request("Transfer-Encoding: , chunked ,\r\n", "5\r\nhello\r\n0\r\n\r\n") << "hello"_ba;
    QTest::newRow("chunk sizes in upper case and with leading zeros")
        << request(chunked, "A\r\n0123456789\r\n0005\r\nhello\r\n0\r\n\r\n")
        << "0123456789hello"_ba;
    QTest::newRow("chunk extensions and a trailer") << request(
        chunked, "5 ; name=value;flag ;q=\"a \\\" b\"\r\nhello\r\n0;last\r\nX-Checksum: 1\r\n\r\n")
                                                    << "hello"_ba;
}

void HttpServerTest::strictFraming_stillAcceptsWellFormedRequests()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QByteArray, body);

    RawClient client(m_server->port());
    client.send(bytes);
    QTRY_COMPARE_WITH_TIMEOUT(client.responseCount(), 1, WaitMs);
    QVERIFY2(client.received().startsWith("HTTP/1.1 200 OK"), client.received().constData());
    QCOMPARE(m_requests.size(), 1);
    QCOMPARE(m_requests.constFirst().body, body);
    QVERIFY(!client.received().contains("Connection: close"));
    QVERIFY(m_errorStatuses.isEmpty());
}

// The Connection header is a list of options (RFC 9110 §7.6.1): the connection closes after the
// answer when "close" is one of them (HTTP/1.1), or "keep-alive" is not (HTTP/1.0).
void HttpServerTest::connectionHeader_closesOnTheCloseOptionOnly_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<bool>("closes");
    QTest::newRow("HTTP/1.1, no Connection header") << request("Content-Length: 0\r\n") << false;
    QTest::newRow("HTTP/1.1, close")
        << request("Connection: close\r\nContent-Length: 0\r\n") << true;
    QTest::newRow("HTTP/1.1, close among other options, any case")
        << request("Connection: keep-alive,\tClose\r\nContent-Length: 0\r\n") << true;
    QTest::newRow("HTTP/1.1, an option that only contains the word close")
        << request("Connection: x-closed\r\nContent-Length: 0\r\n") << false;
    QTest::newRow("HTTP/1.0, no Connection header")
        << request("Content-Length: 0\r\n", {}, "HTTP/1.0") << true;
    QTest::newRow("HTTP/1.0, Keep-Alive")
        << request("Connection: Keep-Alive\r\nContent-Length: 0\r\n", {}, "HTTP/1.0") << false;
    QTest::newRow("HTTP/1.0, an option that only contains the word keep-alive")
        << request("Connection: no-keep-alive\r\nContent-Length: 0\r\n", {}, "HTTP/1.0") << true;
}

void HttpServerTest::connectionHeader_closesOnTheCloseOptionOnly()
{
    QFETCH(QByteArray, bytes);
    QFETCH(bool, closes);

    RawClient client(m_server->port());
    client.send(bytes);
    QTRY_COMPARE_WITH_TIMEOUT(client.responseCount(), 1, WaitMs);
    QVERIFY2(client.received().contains(" 200 OK\r\n"), client.received().constData());
    QCOMPARE(client.received().contains("\r\nConnection: close\r\n"), closes);
    if (closes)
        QTRY_VERIFY_WITH_TIMEOUT(client.isClosed(), WaitMs);
    else
        QVERIFY(client.isConnected());
}

void HttpServerTest::headerTimeout_halfHeadAnswered408AndClosed()
{
    setLimits(ShortTimeoutMs, LongTimeoutMs, LongTimeoutMs);
    RawClient client(m_server->port());
    client.send("POST /receivers/demo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le");
    QTRY_VERIFY_WITH_TIMEOUT(client.isClosed(), WaitMs);
    QVERIFY2(client.received().startsWith("HTTP/1.1 408 Request Timeout"),
             client.received().constData());
    QVERIFY(client.received().contains("\r\nConnection: close\r\n"));
    QCOMPARE(m_errorStatuses, QList<int> {408});
    QVERIFY(m_requests.isEmpty());
    QTRY_COMPARE_WITH_TIMEOUT(m_server->connectionCount(), 0, WaitMs);
}

// A head that keeps arriving, one byte at a time, gets no more time than the header timeout: the
// deadline is set when the head begins, not moved by each byte.
void HttpServerTest::headerTimeout_headSentByteByByteStillEnds()
{
    setLimits(ShortTimeoutMs, LongTimeoutMs, LongTimeoutMs);
    RawClient client(m_server->port());
    // 10,000 header bytes at one every 20 ms would take over three minutes to finish.
    const QByteArray head = request("X-Padding: " + QByteArray(10'000, 'p') + "\r\n");
    qsizetype sent = 0;
    QTimer trickle;
    connect(&trickle, &QTimer::timeout, this, [&] {
        if (sent < head.size())
            client.send(head.mid(sent++, 1));
    });
    trickle.start(20);
    QTRY_VERIFY_WITH_TIMEOUT(client.isClosed(), WaitMs);
    trickle.stop();
    QVERIFY2(client.received().startsWith("HTTP/1.1 408 "), client.received().constData());
    QVERIFY(sent < head.size());
    QVERIFY(m_requests.isEmpty());
}

void HttpServerTest::headerTimeout_silentConnectionClosedWithoutAnswer()
{
    setLimits(ShortTimeoutMs, LongTimeoutMs, LongTimeoutMs);
    RawClient client(m_server->port());
    QTRY_VERIFY_WITH_TIMEOUT(client.isClosed(), WaitMs);
    QVERIFY2(client.received().isEmpty(), client.received().constData());
    QVERIFY(m_errorStatuses.isEmpty());
}

void HttpServerTest::bodyTimeout_stalledBodyAnswered408AndClosed()
{
    setLimits(LongTimeoutMs, ShortTimeoutMs, LongTimeoutMs);
    RawClient client(m_server->port());
    client.send(request("Content-Length: 10\r\n", "hel"));
    QTRY_VERIFY_WITH_TIMEOUT(client.isClosed(), WaitMs);
    QVERIFY2(client.received().startsWith("HTTP/1.1 408 "), client.received().constData());
    QCOMPARE(m_errorStatuses, QList<int> {408});
    QVERIFY(m_requests.isEmpty());

    // A chunked body that stops between chunks is cut the same way.
    m_errorStatuses.clear();
    RawClient chunkedClient(m_server->port());
    chunkedClient.send(request("Transfer-Encoding: chunked\r\n", "5\r\nhello\r\n"));
    QTRY_VERIFY_WITH_TIMEOUT(chunkedClient.isClosed(), WaitMs);
    QVERIFY2(chunkedClient.received().startsWith("HTTP/1.1 408 "),
             chunkedClient.received().constData());
    QVERIFY(m_requests.isEmpty());
}

void HttpServerTest::idleTimeout_keptAliveConnectionClosedWithoutAnswer()
{
    setLimits(LongTimeoutMs, LongTimeoutMs, ShortTimeoutMs);
    RawClient client(m_server->port());
    client.send(request("Content-Length: 5\r\n", "hello"));
    QTRY_COMPARE_WITH_TIMEOUT(client.responseCount(), 1, WaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(client.isClosed(), WaitMs);
    // Closed without a 408: a client about to reuse an idle connection must not read one as the
    // answer to its next request.
    QCOMPARE(client.responseCount(), 1);
    QVERIFY2(client.received().startsWith("HTTP/1.1 200 OK"), client.received().constData());
    QVERIFY(m_errorStatuses.isEmpty());
    QCOMPARE(m_requests.size(), 1);
}

// A test receiver's delay, or a publish waiting for its commit, is the handler's time, not the
// client's: no deadline runs while an answer is pending.
void HttpServerTest::pendingAnswer_noTimeoutCutsTheConnection()
{
    setLimits(ShortTimeoutMs, ShortTimeoutMs, ShortTimeoutMs);
    m_holdAnswers = true;
    RawClient client(m_server->port());
    client.send(request("Content-Length: 5\r\n", "hello"));
    QTRY_COMPARE_WITH_TIMEOUT(m_heldReplies.size(), 1, WaitMs);
    QTest::qWait(5 * ShortTimeoutMs); // several sweeps past every timeout
    QVERIFY(client.isConnected());
    QVERIFY(m_heldReplies.constFirst().isOpen());
    m_heldReplies.constFirst().respond(HttpResponse::text(200, "late"));
    QTRY_COMPARE_WITH_TIMEOUT(client.responseCount(), 1, WaitMs);
    QVERIFY2(client.received().startsWith("HTTP/1.1 200 OK"), client.received().constData());
    QVERIFY(client.received().endsWith("late"));
}

void HttpServerTest::connectionCap_refusesBeyondWith503_othersKeepWorking()
{
    setLimits(LongTimeoutMs, LongTimeoutMs, LongTimeoutMs, 2);
    std::vector<std::unique_ptr<RawClient>> clients;
    for (int i = 0; i < 2; ++i) {
        clients.push_back(std::make_unique<RawClient>(m_server->port()));
        clients.back()->send(request("Content-Length: 5\r\n", "hello"));
        QTRY_COMPARE_WITH_TIMEOUT(clients.back()->responseCount(), 1, WaitMs);
    }
    QCOMPARE(m_server->connectionCount(), 2);

    RawClient refused(m_server->port());
    refused.send(request("Content-Length: 5\r\n", "hello"));
    QTRY_VERIFY_WITH_TIMEOUT(refused.isClosed(), WaitMs);
    QVERIFY2(refused.received().startsWith("HTTP/1.1 503 Service Unavailable\r\n"),
             refused.received().constData());
    QVERIFY(refused.received().contains("\r\nConnection: close\r\n"));
    const QByteArray errorShape = "{\"error\":{\"code\":\"E503\",\"message\":\"";
    QVERIFY2(refused.received().contains(errorShape), refused.received().constData());
    QCOMPARE(m_errorStatuses, QList<int> {503});
    QCOMPARE(m_requests.size(), 2);

    // The connections within the cap are served as before.
    for (const auto &client : clients) {
        client->send(request("Content-Length: 2\r\n", "ok"));
        QTRY_COMPARE_WITH_TIMEOUT(client->responseCount(), 2, WaitMs);
        QVERIFY(client->isConnected());
    }
    QCOMPARE(m_requests.size(), 4);

    // A connection that closes makes room for a new one.
    clients.front()->disconnect();
    QTRY_COMPARE_WITH_TIMEOUT(m_server->connectionCount(), 1, WaitMs);
    RawClient admitted(m_server->port());
    admitted.send(request("Content-Length: 5\r\n", "hello"));
    QTRY_COMPARE_WITH_TIMEOUT(admitted.responseCount(), 1, WaitMs);
    QVERIFY2(admitted.received().startsWith("HTTP/1.1 200 OK"), admitted.received().constData());
}

// While a request awaits its answer the server reads no further: a client that pipelines without
// end is held back by TCP flow control instead of growing the server's buffers.
void HttpServerTest::pipelining_clientWaitsWhileAnAnswerIsPending()
{
    constexpr qint64 FloodBytes = 64 * 1024 * 1024;
    m_holdAnswers = true;
    RawClient client(m_server->port());
    client.send(request("Content-Length: 5\r\n", "hello"));
    QTRY_COMPARE_WITH_TIMEOUT(m_heldReplies.size(), 1, WaitMs);
    client.send(QByteArray(FloodBytes, 'X'));
    QTest::qWait(500);
    // Socket buffers on both sides take a few MB (at most the kernel's tcp_rmem and tcp_wmem
    // maxima, 32 and 4 MB on Debian, and the server socket's 1 MB): the rest waits in the client.
    QVERIFY2(client.bytesToWrite() > 16 * 1024 * 1024,
             QByteArray::number(client.bytesToWrite()).constData());
    QVERIFY(client.isConnected());

    m_heldReplies.constFirst().respond(HttpResponse::text(200, "first"));
    // The flood is then read as the next request's head: over the head limit, answered 431 and
    // closed (the client, still writing, may see the reset before it reads the 431).
    QTRY_VERIFY_WITH_TIMEOUT(client.isClosed(), WaitMs);
    QVERIFY2(client.received().startsWith("HTTP/1.1 200 OK"),
             client.received().left(200).constData());
    QCOMPARE(m_errorStatuses, QList<int> {431});
    QCOMPARE(m_requests.size(), 1);
}

// QTcpServer stops accepting when accept() fails for want of file descriptors, and does not start
// again by itself. The server resumes it: once descriptors are free, a waiting client is served.
void HttpServerTest::acceptError_acceptsAgainOnceDescriptorsAreFree()
{
#ifndef Q_OS_LINUX
    QSKIP("lowers RLIMIT_NOFILE to make accept() fail, which is tried on Linux only");
#else
    static bool acceptFailed = false;
    acceptFailed = false;
    static QtMessageHandler previousHandler = nullptr;
    previousHandler = qInstallMessageHandler(
        [](QtMsgType type, const QMessageLogContext &context, const QString &text) {
            if (text.contains("cannot accept connections"_L1))
                acceptFailed = true;
            else
                previousHandler(type, context, text);
        });
    const auto restoreHandler = qScopeGuard([] { qInstallMessageHandler(previousHandler); });

    rlimit original = {};
    QCOMPARE(::getrlimit(RLIMIT_NOFILE, &original), 0);
    // The client connects (its socket is made at once; the server accepts from the event loop),
    // then RLIMIT_NOFILE, which bounds descriptor numbers, is lowered to the lowest free one:
    // the server's accept() has none.
    RawClient client(m_server->port());
    client.send(request("Content-Length: 5\r\n", "hello"));
    const int lowestFree = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    QVERIFY(lowestFree >= 0);
    ::close(lowestFree);
    rlimit lowered = original;
    lowered.rlim_cur = rlim_t(lowestFree);
    QCOMPARE(::setrlimit(RLIMIT_NOFILE, &lowered), 0);
    auto restoreLimit = qScopeGuard([&original] { ::setrlimit(RLIMIT_NOFILE, &original); });
    QTRY_VERIFY_WITH_TIMEOUT(acceptFailed, WaitMs);
    QCOMPARE(client.responseCount(), 0);
    QVERIFY(m_server->statistics().acceptFailing);
    QVERIFY(m_server->statistics().acceptFailures >= 1);
    QCOMPARE(m_server->statistics().shedConnections, quint64(0)); // none was idle

    restoreLimit.dismiss();
    QCOMPARE(::setrlimit(RLIMIT_NOFILE, &original), 0);
    QTRY_COMPARE_WITH_TIMEOUT(client.responseCount(), 1, WaitMs);
    QVERIFY2(client.received().startsWith("HTTP/1.1 200 OK"), client.received().constData());
    QTRY_VERIFY_WITH_TIMEOUT(!m_server->statistics().acceptFailing, WaitMs);
#endif
}

// Out of descriptors with an idle kept-alive connection open: the server closes it, and its
// descriptor lets the waiting connection in at once, without any limit being raised.
void HttpServerTest::acceptError_shedsAnIdleConnectionToServeANewOne()
{
#ifndef Q_OS_LINUX
    QSKIP("lowers RLIMIT_NOFILE to make accept() fail, which is tried on Linux only");
#else
    setLimits(LongTimeoutMs, LongTimeoutMs, LongTimeoutMs);
    RawClient idle(m_server->port());
    idle.send(request("Content-Length: 2\r\n", "hi"));
    QTRY_COMPARE_WITH_TIMEOUT(idle.responseCount(), 1, WaitMs);
    QCOMPARE(m_server->connectionCount(), 1);

    rlimit original = {};
    QCOMPARE(::getrlimit(RLIMIT_NOFILE, &original), 0);
    RawClient waiting(m_server->port());
    waiting.send(request("Content-Length: 5\r\n", "hello"));
    const int lowestFree = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    QVERIFY(lowestFree >= 0);
    ::close(lowestFree);
    rlimit lowered = original;
    lowered.rlim_cur = rlim_t(lowestFree);
    QCOMPARE(::setrlimit(RLIMIT_NOFILE, &lowered), 0);
    const auto restoreLimit = qScopeGuard([&original] { ::setrlimit(RLIMIT_NOFILE, &original); });
    QTRY_COMPARE_WITH_TIMEOUT(waiting.responseCount(), 1, WaitMs);
    QVERIFY2(waiting.received().startsWith("HTTP/1.1 200 OK"), waiting.received().constData());
    QTRY_VERIFY_WITH_TIMEOUT(idle.isClosed(), WaitMs);
    const HttpServerStatistics statistics = m_server->statistics();
    QVERIFY(statistics.acceptFailures >= 1);
    QCOMPARE(statistics.shedConnections, quint64(1));
    QVERIFY2(!statistics.lastAcceptError.isEmpty(), "the failure is named");
    QTRY_VERIFY_WITH_TIMEOUT(!m_server->statistics().acceptFailing, WaitMs);
#endif
}

void HttpServerTest::admission_bodyLimitPerRequest_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<int>("status");

    const QByteArray ten(10, 'x');
    QTest::newRow("at the limit") << request("Content-Length: 10\r\n", ten) << 200;
    QTest::newRow("over the limit, announced")
        << request("Content-Length: 11\r\n", ten + 'x') << 413;
    QTest::newRow("chunked, at the limit")
        << request("Transfer-Encoding: chunked\r\n", "5\r\nxxxxx\r\n5\r\nxxxxx\r\n0\r\n\r\n")
        << 200;
    // Refused at the chunk size line, before the chunk's bytes are buffered.
    QTest::newRow("chunked, over the limit")
        << request("Transfer-Encoding: chunked\r\n", "5\r\nxxxxx\r\n100000\r\n") << 413;
}

void HttpServerTest::admission_bodyLimitPerRequest()
{
    QFETCH(QByteArray, bytes);
    QFETCH(int, status);
    m_server->setAdmission([](const HttpRequest &) {
        HttpAdmission admission;
        admission.maxBodyBytes = 10;
        return admission;
    });
    RawClient client(m_server->port());
    client.send(bytes);
    QTRY_COMPARE_WITH_TIMEOUT(client.responseCount(), 1, WaitMs);
    QVERIFY2(client.received().startsWith(QByteArray("HTTP/1.1 " + QByteArray::number(status))),
             client.received().constData());
    if (status == 413) {
        QTRY_VERIFY_WITH_TIMEOUT(client.isClosed(), WaitMs);
        QVERIFY(m_requests.isEmpty());
        QVERIFY2(client.received().contains("/receivers/demo"), "the message names the path");
    } else {
        QCOMPARE(m_requests.size(), 1);
    }
}

// A refusal given at the head: a small body is read and dropped, so the connection serves the
// next (pipelined) request; the handler never sees the refused one.
void HttpServerTest::admission_answerWithSmallBody_handlerSkipped_connectionKept()
{
    m_server->setAdmission([](const HttpRequest &head) {
        HttpAdmission admission;
        if (head.path == "/refused"_L1)
            admission.answer = HttpResponse::text(415, "not this type");
        return admission;
    });
    RawClient client(m_server->port());
    client.send("POST /refused HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 4\r\n\r\nbody"
                "POST /accepted HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\nok");
    QTRY_COMPARE_WITH_TIMEOUT(client.responseCount(), 2, WaitMs);
    QVERIFY2(client.received().startsWith("HTTP/1.1 415 Unsupported Media Type\r\n"),
             client.received().constData());
    QVERIFY2(client.received().contains("not this type"), client.received().constData());
    QVERIFY2(client.received().contains("received 2 bytes: ok"), client.received().constData());
    QCOMPARE(m_requests.size(), 1);
    QCOMPARE(m_requests.constFirst().path, u"/accepted"_s);
    QVERIFY(client.isConnected());
}

// Refused with a large announced body (or a chunked one): answered before the body is sent, and
// the connection closed, since the body is not read.
void HttpServerTest::admission_answerWithLargeBody_answeredAtOnceAndClosed()
{
    m_server->setAdmission([](const HttpRequest &) {
        HttpAdmission admission;
        admission.answer = HttpResponse::text(421, "wrong host");
        return admission;
    });
    for (const QByteArray &framing :
         {"Content-Length: 1048576\r\n"_ba, "Transfer-Encoding: chunked\r\n"_ba}) {
        RawClient client(m_server->port());
        client.send(request(framing)); // the head only
        QTRY_VERIFY_WITH_TIMEOUT(client.isClosed(), WaitMs);
        QVERIFY2(client.received().startsWith("HTTP/1.1 421 Misdirected Request\r\n"),
                 client.received().constData());
        QVERIFY2(client.received().contains("\r\nConnection: close\r\n"),
                 client.received().constData());
    }
    QVERIFY(m_requests.isEmpty());
}

void HttpServerTest::admission_responseHeadersAddedToEveryAnswer()
{
    m_server->setAdmission([](const HttpRequest &) {
        HttpAdmission admission;
        admission.maxBodyBytes = 10;
        admission.responseHeaders = {{"Access-Control-Allow-Origin", "http://localhost:3000"}};
        return admission;
    });
    RawClient handled(m_server->port());
    handled.send(request("Content-Length: 2\r\n", "hi") + request("Content-Length: 3\r\n", "bye"));
    QTRY_COMPARE_WITH_TIMEOUT(handled.responseCount(), 2, WaitMs);
    QCOMPARE(handled.received().count("\r\nAccess-Control-Allow-Origin: http://localhost:3000\r\n"),
             2);
    RawClient tooLarge(m_server->port());
    tooLarge.send(request("Content-Length: 11\r\n"));
    QTRY_COMPARE_WITH_TIMEOUT(tooLarge.responseCount(), 1, WaitMs);
    QVERIFY2(tooLarge.received().startsWith("HTTP/1.1 413 "), tooLarge.received().constData());
    QVERIFY2(
        tooLarge.received().contains("\r\nAccess-Control-Allow-Origin: http://localhost:3000\r\n"),
        tooLarge.received().constData());
}

namespace {

// Runs the event loop until check() gives the same value for quietMs in a row (at most maxMs):
// for showing that something stops, where QTRY can only show that something happens.
template<typename Check> auto settled(Check check, int quietMs = 500, int maxMs = 30'000)
{
    auto last = check();
    QElapsedTimer sinceChange;
    sinceChange.start();
    QElapsedTimer total;
    total.start();
    while (sinceChange.elapsed() < quietMs && total.elapsed() < maxMs) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        if (const auto now = check(); now != last) {
            last = now;
            sinceChange.restart();
        }
    }
    return last;
}

} // namespace

// A client pipelining requests and reading none of the answers: once a megabyte of answers waits
// to leave, the server handles nothing more of that connection (kernel buffers hold the rest),
// and goes on as soon as the client reads.
void HttpServerTest::pipelining_unreadAnswersStopFurtherRequests()
{
    constexpr int Requests = 400;
    const QByteArray large(256 * 1024, 'a');
    m_server->setHandler([this, large](const HttpRequest &request, const HttpReply &reply) {
        m_requests.append(request);
        reply.respond(HttpResponse::text(200, large));
    });
    QTcpSocket client; // reads nothing until told
    client.setReadBufferSize(64 * 1024);
    client.connectToHost(QHostAddress::LocalHost, m_server->port());
    QVERIFY(client.waitForConnected(WaitMs));
    QByteArray requests;
    for (int i = 0; i < Requests; ++i)
        requests += "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    client.write(requests);
    QTRY_VERIFY_WITH_TIMEOUT(!m_requests.isEmpty(), WaitMs);
    const qsizetype handledWhileUnread = settled([this] { return m_requests.size(); });
    // Unbounded, all 400 answers (100 MB) would be queued; the kernel's buffers and the backlog
    // hold a few dozen.
    QVERIFY2(handledWhileUnread < 200, qPrintable(QString::number(handledWhileUnread)));

    client.setReadBufferSize(0);
    qint64 received = 0;
    QObject::connect(&client, &QTcpSocket::readyRead, &client,
                     [&] { received += client.readAll().size(); });
    received += client.readAll().size();
    QTRY_COMPARE_WITH_TIMEOUT(m_requests.size(), qsizetype(Requests), WaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(received > Requests * large.size(), WaitMs);
}

// While a request waits for its answer, what its client sends after it is left in the socket: the
// server reads at most its read buffer ahead, and TCP flow control holds the client.
void HttpServerTest::pipelining_bytesBehindAPendingRequestStayUnread()
{
    m_holdAnswers = true;
    QTcpSocket client;
    client.connectToHost(QHostAddress::LocalHost, m_server->port());
    QVERIFY(client.waitForConnected(WaitMs));
    constexpr qint64 Behind = 64 * 1024 * 1024;
    client.write(request("Content-Length: 2\r\n", "hi") + QByteArray(Behind, 'x'));
    QTRY_COMPARE_WITH_TIMEOUT(m_heldReplies.size(), qsizetype(1), WaitMs);
    const qint64 unsent = settled([&client] { return client.bytesToWrite(); });
    // Read ahead: the server's read buffer (1 MiB) and the kernel's buffers on both sides.
    QVERIFY2(unsent > Behind / 2, qPrintable(QString::number(unsent)));
    QCOMPARE(m_requests.size(), qsizetype(1));
}

QTEST_GUILESS_MAIN(HttpServerTest)
#include "tst_httpserver.moc"
