// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// WebhookClient, EventDesk's HTTP/1.1 client of the delivery lanes, against real servers on
// loopback: ScriptedReceiver where a well-behaved webhook fits, and RawServer below for answers a
// test writes byte by byte (framings, interim responses, a connection closed at a chosen point,
// answers held back, TLS). What the client reports is what DeliveryLane's handler reports, so
// the (status, error) pairs are compared with QNetworkAccessManager's where both can be asked.
#include "LoopbackPort.h"
#include "ScriptedReceiver.h"

#include "http/WebhookClient.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QPointer>
#include <QProcess>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslKey>
#include <QSslSocket>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <functional>
#include <optional>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using EventDesk::Testing::ReceiverAction;
using EventDesk::Testing::ScriptedReceiver;

namespace {

struct Finished
{
    int status = -1;
    QNetworkReply::NetworkError error = QNetworkReply::NoError;
    QByteArray errorDetail;
};

// A client with a handler that records every report.
class ClientHarness
{
public:
    ClientHarness()
        : client([this](quint64 requestId, int status, QNetworkReply::NetworkError error,
                        const QByteArray &errorDetail) {
            finished.insert(requestId, Finished {status, error, errorDetail});
            order.append(requestId);
            if (onFinished)
                onFinished(requestId);
        })
    {
    }

    quint64 post(const QUrl &url, const QByteArray &body = "[]"_ba)
    {
        client.post(++m_lastId, request(url), body);
        return m_lastId;
    }

    static QNetworkRequest request(const QUrl &url)
    {
        QNetworkRequest request(url);
        request.setHeader(QNetworkRequest::ContentTypeHeader, "application/json"_ba);
        return request;
    }

    bool isFinished(quint64 requestId) const { return finished.contains(requestId); }
    int status(quint64 requestId) const { return finished.value(requestId).status; }
    QNetworkReply::NetworkError error(quint64 requestId) const
    {
        return finished.value(requestId).error;
    }
    QByteArray errorDetail(quint64 requestId) const
    {
        return finished.value(requestId).errorDetail;
    }

    WebhookClient client;
    QHash<quint64, Finished> finished;
    QList<quint64> order;
    std::function<void(quint64)> onFinished;

private:
    quint64 m_lastId = 0;
};

// A loopback server whose answers the test writes itself. Every request (head and a
// Content-Length body) is recorded with the connection it came on and handed to the responder;
// a request the responder leaves unanswered stays open until answered through pending().
class RawServer : public QTcpServer
{
public:
    using Responder = std::function<void(QTcpSocket *socket, int requestIndex)>;

    struct Received
    {
        QByteArray head;
        QByteArray body;
        int connection = 0; // index in accepted order
    };

    bool listenLocal(const QHostAddress &address = QHostAddress::LocalHost)
    {
        return listen(address, 0);
    }

    QUrl url(const QString &path = u"/hook"_s) const
    {
        QUrl url;
        url.setScheme(m_tls ? u"https"_s : u"http"_s);
        url.setHost(serverAddress().toString());
        url.setPort(serverPort());
        url.setPath(path);
        return url;
    }

    void setResponder(Responder responder) { m_responder = std::move(responder); }
    void setTls(const QSslCertificate &certificate, const QSslKey &key)
    {
        m_tls = true;
        m_certificate = certificate;
        m_key = key;
    }

    int acceptedConnections() const { return int(m_sockets.size()); }
    int closedConnections() const { return m_closed; }
    qsizetype requestCount() const { return m_received.size(); }
    const Received &received(qsizetype index) const { return m_received.at(index); }
    QTcpSocket *socketOf(qsizetype requestIndex) const
    {
        return m_sockets.value(m_received.at(requestIndex).connection);
    }

    static void answer(QTcpSocket *socket, const QByteArray &response)
    {
        socket->write(response);
        socket->flush();
    }

protected:
    void incomingConnection(qintptr descriptor) override
    {
        QTcpSocket *socket = nullptr;
        if (m_tls) {
            auto *tlsSocket = new QSslSocket(this);
            tlsSocket->setLocalCertificate(m_certificate);
            tlsSocket->setPrivateKey(m_key);
            socket = tlsSocket;
        } else {
            socket = new QTcpSocket(this);
        }
        if (!socket->setSocketDescriptor(descriptor)) {
            delete socket;
            return;
        }
        const int connection = int(m_sockets.size());
        m_sockets.append(socket);
        m_buffers.append(QByteArray());
        connect(socket, &QTcpSocket::readyRead, this,
                [this, socket, connection] { onReadyRead(socket, connection); });
        connect(socket, &QTcpSocket::disconnected, this, [this] { ++m_closed; });
        if (auto *tlsSocket = qobject_cast<QSslSocket *>(socket))
            tlsSocket->startServerEncryption();
    }

private:
    void onReadyRead(QTcpSocket *socket, int connection)
    {
        QByteArray &buffer = m_buffers[connection];
        buffer += socket->readAll();
        for (;;) {
            const qsizetype headEnd = buffer.indexOf("\r\n\r\n");
            if (headEnd < 0)
                return;
            const QByteArray head = buffer.left(headEnd);
            qsizetype length = 0;
            for (const QByteArray &line : head.split('\n')) {
                if (line.toLower().startsWith("content-length:"))
                    length = line.mid(15).trimmed().toLongLong();
            }
            if (buffer.size() < headEnd + 4 + length)
                return;
            m_received.append({head, buffer.mid(headEnd + 4, length), connection});
            buffer.remove(0, headEnd + 4 + length);
            if (m_responder)
                m_responder(socket, int(m_received.size() - 1));
        }
    }

    Responder m_responder;
    QList<QTcpSocket *> m_sockets;
    QList<QByteArray> m_buffers;
    QList<Received> m_received;
    int m_closed = 0;
    bool m_tls = false;
    QSslCertificate m_certificate;
    QSslKey m_key;
};

const QByteArray Ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"_ba;

RawServer::Responder answerWith(const QByteArray &response)
{
    return [response](QTcpSocket *socket, int) {
        RawServer::answer(socket, response);
    };
}

// The request target of a received head ("POST /r3 HTTP/1.1" → "/r3").
QByteArray targetOf(const QByteArray &head)
{
    return head.left(head.indexOf('\r')).split(' ').value(1);
}

} // namespace

class WebhookClientTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void statusAndErrorAsQNetworkAccessManagerReports_data();
    void statusAndErrorAsQNetworkAccessManagerReports();
    void redirectIsReportedNotFollowed();
    void failureAnswerIsKeptAsErrorDetail_data();
    void failureAnswerIsKeptAsErrorDetail();
    void requestCarriesUrlHeadersAndBody();
    void customMethod();
    void responseFramings_data();
    void responseFramings();
    void keepAliveReusesOneConnection();
    void handlerMayPostTheNextRequest();
    void idleConnectionClosedByServer_nextRequestSucceeds();
    void keptAliveConnectionClosedBeforeAnswer_sentOnceMoreOnNewConnection();
    void closedMidResponse_reportedNotResent_data();
    void closedMidResponse_reportedNotResent();
    void freshConnectionClosedWithoutAnswer_notResent();
    void refusedConnection();
    void unresolvableHost();
    void ipv6LiteralHost();
    void malformedResponse_isProtocolFailure_data();
    void malformedResponse_isProtocolFailure();
    void malformedChunkSize_isProtocolFailureWithTheStatus_data();
    void malformedChunkSize_isProtocolFailureWithTheStatus();
    void atMostSixConnectionsPerHost_restWaitInOrder();
    void abort_reportsCanceled();
    void cancelAll_reportsNothing();
    void failureKnownAtOnce_reportedFromTheEventLoop();
    void oversizedBody_cappedAndConnectionClosed();
    void endlessBody_cappedAndConnectionClosed_data();
    void endlessBody_cappedAndConnectionClosed();
    void idleConnectionClosedAfterIdleTimeout();
    void tls_untrustedCertificate_isHandshakeFailure();
    void tls_trustedCertificate_deliversOverOneConnection();

private:
    bool makeCertificate(QSslCertificate *certificate, QSslKey *key);

    QTemporaryDir m_directory;
};

void WebhookClientTest::statusAndErrorAsQNetworkAccessManagerReports_data()
{
    QTest::addColumn<int>("status");
    for (int status :
         {200, 201, 202, 204, 205, 302, 307, 400, 401, 403, 404, 408, 413, 418, 429, 500, 502, 503})
        QTest::addRow("%d", status) << status;
}

void WebhookClientTest::statusAndErrorAsQNetworkAccessManagerReports()
{
    QFETCH(int, status);
    ScriptedReceiver receiver;
    QVERIFY(receiver.listen());
    receiver.setDefaultAction(ReceiverAction::respond(status));

    ClientHarness harness;
    const quint64 id = harness.post(receiver.url());
    QTRY_VERIFY(harness.isFinished(id));

    QNetworkAccessManager network;
    QNetworkRequest request = ClientHarness::request(receiver.url());
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute,
                         QNetworkRequest::ManualRedirectPolicy);
    QNetworkReply *reply = network.post(request, "[]"_ba);
    QTRY_VERIFY(reply->isFinished());

    QCOMPARE(harness.status(id), status);
    QCOMPARE(harness.status(id),
             reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt());
    QCOMPARE(harness.error(id), reply->error());
    QCOMPARE(receiver.requestCount(), qsizetype(2)); // one each: neither sent its request again
    delete reply;
}

void WebhookClientTest::redirectIsReportedNotFollowed()
{
    RawServer server;
    QVERIFY(server.listenLocal());
    server.setResponder(
        answerWith("HTTP/1.1 302 Found\r\nLocation: /elsewhere\r\nContent-Length: 0\r\n\r\n"_ba));
    ClientHarness harness;
    const quint64 id = harness.post(server.url());
    QTRY_VERIFY(harness.isFinished(id));
    // SPEC D5: a 3xx is a failed attempt; its status is reported.
    QCOMPARE(harness.status(id), 302);
    QCOMPARE(harness.error(id), QNetworkReply::NoError);
    const quint64 next = harness.post(server.url());
    QTRY_VERIFY(harness.isFinished(next));
    QCOMPARE(server.requestCount(), qsizetype(2));
    QCOMPARE(targetOf(server.received(1).head), "/hook"_ba);
}

void WebhookClientTest::failureAnswerIsKeptAsErrorDetail_data()
{
    // Azure destinations name the cause of a failure in x-ms-error-code or the body
    // (OutcomeClassifier); a success's body is never kept, a failure's only up to a cap.
    QTest::addColumn<QByteArray>("response");
    QTest::addColumn<QByteArray>("detail");

    const QByteArray large(5000, 'x');
    QTest::newRow("storage error code and body")
        << "HTTP/1.1 404 The specified queue does not exist.\r\nx-ms-error-code: QueueNotFound\r\n"
           "Content-Length: 12\r\n\r\n<Error/>abcd"_ba
        << "QueueNotFound\n<Error/>abcd"_ba;
    QTest::newRow("chunked body")
        << "HTTP/1.1 403 Forbidden\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nQuota\r\n8\r\nExceeded\r\n0\r\n\r\n"_ba
        << "QuotaExceeded"_ba;
    QTest::newRow("body until close") << "HTTP/1.1 500 Oops\r\nConnection: close\r\n\r\ninternal"_ba
                                      << "internal"_ba;
    QTest::newRow("capped") << "HTTP/1.1 400 Bad\r\nContent-Length: 5000\r\n\r\n"_ba + large
                            << QByteArray(WebhookClient::MaxErrorDetailBytes, 'x');
    QTest::newRow("success keeps nothing")
        << "HTTP/1.1 201 Created\r\nx-ms-error-code: none\r\nContent-Length: 7\r\n\r\ncreated"_ba
        << QByteArray();
}

void WebhookClientTest::failureAnswerIsKeptAsErrorDetail()
{
    QFETCH(QByteArray, response);
    QFETCH(QByteArray, detail);
    RawServer server;
    QVERIFY(server.listenLocal());
    server.setResponder([response](QTcpSocket *socket, int) {
        RawServer::answer(socket, response);
        if (response.contains("Connection: close"))
            socket->disconnectFromHost();
    });
    ClientHarness harness;
    const quint64 id = harness.post(server.url());
    QTRY_VERIFY(harness.isFinished(id));
    QCOMPARE(harness.errorDetail(id), detail);
}

void WebhookClientTest::requestCarriesUrlHeadersAndBody()
{
    ScriptedReceiver receiver;
    QVERIFY(receiver.listen());
    ClientHarness harness;
    QUrl url = receiver.url(u"/api/updates"_s);
    url.setQuery(u"code=a%20b&x=1"_s);
    QNetworkRequest request = ClientHarness::request(url);
    request.setRawHeader("aeg-event-type", "Notification");
    request.setRawHeader("aeg-subscription-name", "ORDERS");
    request.setRawHeader("aeg-delivery-count", "3");
    const QByteArray body = R"([{"id":"1","data":{"text":"é"}}])"_ba;
    harness.client.post(7, request, body);
    QTRY_VERIFY(harness.isFinished(7));
    QCOMPARE(harness.status(7), 200);

    QCOMPARE(receiver.requestCount(), qsizetype(1));
    const auto received = receiver.request(0);
    QCOMPARE(received.method, "POST"_ba);
    QCOMPARE(received.path, "/api/updates?code=a%20b&x=1"_ba);
    QCOMPARE(received.header("host"), "127.0.0.1:"_ba + QByteArray::number(receiver.port()));
    QCOMPARE(received.header("content-type"), "application/json"_ba);
    QCOMPARE(received.header("content-length"), QByteArray::number(body.size()));
    QCOMPARE(received.header("aeg-event-type"), "Notification"_ba);
    QCOMPARE(received.header("aeg-subscription-name"), "ORDERS"_ba);
    QCOMPARE(received.header("aeg-delivery-count"), "3"_ba);
    QCOMPARE(received.header("connection").toLower(), "keep-alive"_ba);
    QVERIFY(received.header("user-agent").startsWith("EventDesk/"));
    QCOMPARE(received.body, body);
    int contentTypes = 0;
    for (const auto &[name, value] : received.headers)
        contentTypes += name == "content-type" ? 1 : 0;
    QCOMPARE(contentTypes, 1);
}

void WebhookClientTest::customMethod()
{
    RawServer server;
    QVERIFY(server.listenLocal());
    // A HEAD response announces a length but carries no body: the next response must still parse.
    server.setResponder([&server](QTcpSocket *socket, int index) {
        if (server.received(index).head.startsWith("HEAD "))
            RawServer::answer(socket, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n"_ba);
        else
            RawServer::answer(socket, "HTTP/1.1 204 No Content\r\n\r\n"_ba);
    });
    ClientHarness harness;
    harness.client.send(1, "HEAD"_ba, ClientHarness::request(server.url()), QByteArray());
    QTRY_VERIFY(harness.isFinished(1));
    harness.client.send(2, "OPTIONS"_ba, ClientHarness::request(server.url()), QByteArray());
    QTRY_VERIFY(harness.isFinished(2));

    QCOMPARE(harness.status(1), 200);
    QCOMPARE(harness.status(2), 204);
    QVERIFY(server.received(0).head.startsWith("HEAD /hook HTTP/1.1\r\n"));
    QVERIFY(server.received(1).head.startsWith("OPTIONS /hook HTTP/1.1\r\n"));
    QVERIFY(!server.received(0).head.toLower().contains("content-length"));
    QCOMPARE(server.acceptedConnections(), 1);
}

// A chunk size that HttpSyntax::parseChunkSizeLine() refuses, after a head that was read: the
// attempt fails as a protocol failure, with the status the head gave.
void WebhookClientTest::malformedChunkSize_isProtocolFailureWithTheStatus_data()
{
    QTest::addColumn<QByteArray>("chunkSize");
    QTest::newRow("a 0x prefix") << "0x5"_ba;
    QTest::newRow("a sign") << "-5"_ba;
    QTest::newRow("no digits") << ";name=value"_ba;
}

void WebhookClientTest::malformedChunkSize_isProtocolFailureWithTheStatus()
{
    QFETCH(QByteArray, chunkSize);
    RawServer server;
    QVERIFY(server.listenLocal());
    server.setResponder(answerWith("HTTP/1.1 500 Oops\r\nTransfer-Encoding: chunked\r\n\r\n"
                                   + chunkSize + "\r\nhello\r\n0\r\n\r\n"));
    ClientHarness harness;
    const quint64 id = harness.post(server.url());
    QTRY_VERIFY(harness.isFinished(id));
    QCOMPARE(harness.status(id), 500);
    QCOMPARE(harness.error(id), QNetworkReply::ProtocolFailure);
    QTRY_COMPARE(server.closedConnections(), 1);
}

void WebhookClientTest::responseFramings_data()
{
    QTest::addColumn<QList<QByteArray>>("pieces"); // written one after the other
    QTest::addColumn<int>("status");
    QTest::addColumn<int>("connections"); // for two requests one after the other

    QTest::newRow("Content-Length")
        << QList<QByteArray> {"HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello world"} << 200
        << 1;
    QTest::newRow("Content-Length, in pieces")
        << QList<QByteArray> {"HTTP/1.1 20", "2 Accepted\r\nConte", "nt-Length: 5\r", "\n\r\nhel",
                              "lo"}
        << 202 << 1;
    QTest::newRow("no body: 204") << QList<QByteArray> {"HTTP/1.1 204 No Content\r\n\r\n"} << 204
                                  << 1;
    QTest::newRow("empty body")
        << QList<QByteArray> {"HTTP/1.1 500 Oops\r\ncontent-length: 0\r\n\r\n"} << 500 << 1;
    QTest::newRow("chunked")
        << QList<QByteArray> {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                              "5\r\nhello\r\n6;name=value\r\n world\r\n0\r\nX-Trailer: yes\r\n\r\n"}
        << 200 << 1;
    QTest::newRow("chunked, in pieces")
        << QList<QByteArray> {"HTTP/1.1 201 Created\r\ntransfer-encoding: Chunked\r\n\r\n5\r",
                              "\nhel", "lo\r\n", "0\r\n", "\r\n"}
        << 201 << 1;
    QTest::newRow("until close") << QList<QByteArray> {
        "HTTP/1.1 200 OK\r\n\r\nthe body ends with the connection",
        "CLOSE"} << 200 << 2;
    QTest::newRow("Connection: close")
        << QList<QByteArray> {"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok"}
        << 200 << 2;
    QTest::newRow("close among other Connection options")
        << QList<QByteArray> {
               "HTTP/1.1 200 OK\r\nConnection: keep-alive, Close\r\nContent-Length: 2\r\n\r\nok"}
        << 200 << 2;
    QTest::newRow("a Connection option that only contains the word close")
        << QList<QByteArray> {
               "HTTP/1.1 200 OK\r\nConnection: x-closed\r\nContent-Length: 2\r\n\r\nok"}
        << 200 << 1;
    QTest::newRow("chunked after another coding, over two header lines")
        << QList<QByteArray> {"HTTP/1.1 500 Oops\r\nTransfer-Encoding: gzip\r\n"
                              "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"}
        << 500 << 1;
    QTest::newRow("HTTP/1.0")
        << QList<QByteArray> {"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok"} << 200 << 2;
    QTest::newRow("100 Continue first")
        << QList<QByteArray> {"HTTP/1.1 100 Continue\r\n\r\n",
                              "HTTP/1.1 204 No Content\r\nX-Seen: 1\r\n\r\n"}
        << 204 << 1;
    QTest::newRow("bare line feeds")
        << QList<QByteArray> {"HTTP/1.1 200 OK\nContent-Length: 2\n\nok"} << 200 << 1;
}

void WebhookClientTest::responseFramings()
{
    QFETCH(QList<QByteArray>, pieces);
    QFETCH(int, status);
    QFETCH(int, connections);
    RawServer server;
    QVERIFY(server.listenLocal());
    server.setResponder([&pieces](QTcpSocket *socket, int) {
        // Each piece on a turn of the event loop of its own, so that they tend to arrive apart.
        for (int i = 0; i < pieces.size(); ++i) {
            QTimer::singleShot(5 * i, socket, [socket, piece = pieces.at(i)] {
                if (piece == "CLOSE")
                    socket->disconnectFromHost();
                else
                    RawServer::answer(socket, piece);
            });
        }
    });
    ClientHarness harness;
    const quint64 first = harness.post(server.url());
    QTRY_VERIFY(harness.isFinished(first));
    const quint64 second = harness.post(server.url());
    QTRY_VERIFY(harness.isFinished(second));

    QCOMPARE(harness.status(first), status);
    QCOMPARE(harness.error(first),
             status == 500 ? QNetworkReply::InternalServerError : QNetworkReply::NoError);
    QCOMPARE(harness.status(second), status);
    QCOMPARE(server.requestCount(), qsizetype(2));
    QCOMPARE(server.acceptedConnections(), connections);
}

void WebhookClientTest::keepAliveReusesOneConnection()
{
    ScriptedReceiver receiver;
    QVERIFY(receiver.listen());
    ClientHarness harness;
    constexpr int Count = 25;
    for (int i = 0; i < Count; ++i) {
        const quint64 id = harness.post(receiver.url());
        QTRY_VERIFY(harness.isFinished(id));
        QCOMPARE(harness.status(id), 200);
        QCOMPARE(receiver.openConnectionCount(), 1);
    }
    QCOMPARE(receiver.requestCount(), qsizetype(Count));
}

void WebhookClientTest::handlerMayPostTheNextRequest()
{
    // The engine refills a lane's freed slot from inside the handler, as here.
    ScriptedReceiver receiver;
    QVERIFY(receiver.listen());
    ClientHarness harness;
    constexpr int Count = 50;
    harness.onFinished = [&](quint64 id) {
        if (id < Count)
            harness.post(receiver.url());
    };
    harness.post(receiver.url());
    QTRY_COMPARE(harness.finished.size(), Count);
    for (quint64 id = 1; id <= Count; ++id)
        QCOMPARE(harness.status(id), 200);
    QCOMPARE(receiver.requestCount(), qsizetype(Count));
    QCOMPARE(receiver.openConnectionCount(), 1);
}

void WebhookClientTest::idleConnectionClosedByServer_nextRequestSucceeds()
{
    RawServer server;
    QVERIFY(server.listenLocal());
    // Answers, then closes the kept-alive connection as a server's idle timeout would.
    server.setResponder([](QTcpSocket *socket, int) {
        RawServer::answer(socket, Ok);
        socket->disconnectFromHost();
    });
    ClientHarness harness;
    const quint64 first = harness.post(server.url());
    QTRY_VERIFY(harness.isFinished(first));
    QTRY_COMPARE(server.closedConnections(), 1);
    const quint64 second = harness.post(server.url());
    QTRY_VERIFY(harness.isFinished(second));

    QCOMPARE(harness.status(first), 200);
    QCOMPARE(harness.status(second), 200);
    QCOMPARE(harness.error(second), QNetworkReply::NoError);
    QCOMPARE(server.acceptedConnections(), 2);
}

void WebhookClientTest::keptAliveConnectionClosedBeforeAnswer_sentOnceMoreOnNewConnection()
{
    // The race a kept-alive connection loses: the server closes it as the next request arrives.
    // Nothing of a response came back, so the client sends the request once more, on a new
    // connection.
    RawServer server;
    QVERIFY(server.listenLocal());
    server.setResponder([](QTcpSocket *socket, int index) {
        if (index == 1)
            socket->abort();
        else
            RawServer::answer(socket, Ok);
    });
    ClientHarness harness;
    const quint64 first = harness.post(server.url());
    QTRY_VERIFY(harness.isFinished(first));
    const quint64 second = harness.post(server.url(u"/second"_s));
    QTRY_VERIFY(harness.isFinished(second));

    QCOMPARE(harness.status(second), 200);
    QCOMPARE(harness.error(second), QNetworkReply::NoError);
    QCOMPARE(server.requestCount(), qsizetype(3));
    QCOMPARE(targetOf(server.received(1).head), "/second"_ba);
    QCOMPARE(targetOf(server.received(2).head), "/second"_ba);
    QCOMPARE(server.received(1).connection, 0);
    QCOMPARE(server.received(2).connection, 1);
    QCOMPARE(server.acceptedConnections(), 2);
}

void WebhookClientTest::closedMidResponse_reportedNotResent_data()
{
    QTest::addColumn<QByteArray>("partial");
    QTest::addColumn<int>("status");
    QTest::newRow("in the status line") << "HTTP/1.1 20"_ba << 0;
    QTest::newRow("in the headers") << "HTTP/1.1 200 OK\r\nContent-Le"_ba << 0;
    // As QNetworkAccessManager: the status is known, the error says the body was cut short.
    QTest::newRow("in the body") << "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc"_ba << 200;
    QTest::newRow("in a chunk")
        << "HTTP/1.1 503 Busy\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nabc"_ba << 503;
}

void WebhookClientTest::closedMidResponse_reportedNotResent()
{
    QFETCH(QByteArray, partial);
    QFETCH(int, status);
    RawServer server;
    QVERIFY(server.listenLocal());
    server.setResponder([&partial](QTcpSocket *socket, int index) {
        if (index == 0) {
            RawServer::answer(socket, Ok);
            return;
        }
        RawServer::answer(socket, partial);
        socket->disconnectFromHost();
    });
    ClientHarness harness;
    const quint64 first = harness.post(server.url());
    QTRY_VERIFY(harness.isFinished(first));
    // On the kept-alive connection: its response started, so it must not be sent again.
    const quint64 second = harness.post(server.url());
    QTRY_VERIFY(harness.isFinished(second));

    QCOMPARE(harness.status(second), status);
    QCOMPARE(harness.error(second), QNetworkReply::RemoteHostClosedError);
    QCOMPARE(server.requestCount(), qsizetype(2));
    QCOMPARE(server.acceptedConnections(), 1);
}

void WebhookClientTest::freshConnectionClosedWithoutAnswer_notResent()
{
    ScriptedReceiver receiver;
    QVERIFY(receiver.listen());
    receiver.setScript({ReceiverAction::close()});
    ClientHarness harness;
    const quint64 id = harness.post(receiver.url());
    QTRY_VERIFY(harness.isFinished(id));
    QCOMPARE(harness.status(id), 0);
    QCOMPARE(harness.error(id), QNetworkReply::RemoteHostClosedError);
    QCOMPARE(receiver.requestCount(), qsizetype(1));
}

void WebhookClientTest::refusedConnection()
{
    const quint16 port = Testing::closedLoopbackPort();
    QVERIFY(port != 0);
    ClientHarness harness;
    const quint64 id = harness.post(QUrl(u"http://127.0.0.1:%1/hook"_s.arg(port)));
    QTRY_VERIFY(harness.isFinished(id));
    QCOMPARE(harness.status(id), 0);
    QCOMPARE(harness.error(id), QNetworkReply::ConnectionRefusedError);
}

void WebhookClientTest::unresolvableHost()
{
    ClientHarness harness;
    const quint64 id = harness.post(QUrl(u"http://unresolvable.invalid/hook"_s));
    QTRY_VERIFY_WITH_TIMEOUT(harness.isFinished(id), 30000);
    QCOMPARE(harness.status(id), 0);
    QCOMPARE(harness.error(id), QNetworkReply::HostNotFoundError);
}

void WebhookClientTest::ipv6LiteralHost()
{
    RawServer server;
    if (!server.listenLocal(QHostAddress::LocalHostIPv6))
        QSKIP("no IPv6 loopback on this machine");
    server.setResponder(answerWith(Ok));
    ClientHarness harness;
    const QUrl url(u"http://[::1]:%1/v6"_s.arg(server.serverPort()));
    const quint64 id = harness.post(url);
    QTRY_VERIFY(harness.isFinished(id));
    QCOMPARE(harness.status(id), 200);
    QVERIFY2(server.received(0).head.contains(
                 QByteArray("\r\nHost: [::1]:" + QByteArray::number(server.serverPort()) + "\r\n")),
             server.received(0).head.constData());
}

void WebhookClientTest::malformedResponse_isProtocolFailure_data()
{
    QTest::addColumn<QByteArray>("response");
    QTest::newRow("not HTTP") << "garbage\r\n\r\n"_ba;
    QTest::newRow("status not a number") << "HTTP/1.1 abc OK\r\nContent-Length: 0\r\n\r\n"_ba;
    QTest::newRow("status of two digits") << "HTTP/1.1 20 OK\r\nContent-Length: 0\r\n\r\n"_ba;
    QTest::newRow("HTTP/2 status line") << "HTTP/2 200\r\n\r\n"_ba;
    QTest::newRow("header without colon") << "HTTP/1.1 200 OK\r\nContent-Length 0\r\n\r\n"_ba;
    QTest::newRow("bad Content-Length") << "HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n"_ba;
    QTest::newRow("Content-Length with a sign")
        << "HTTP/1.1 200 OK\r\nContent-Length: +2\r\n\r\nok"_ba;
    QTest::newRow("two Content-Lengths")
        << "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab"_ba;
    QTest::newRow("head without end")
        << "HTTP/1.1 200 OK\r\nX: " + QByteArray(WebhookClient::MaxResponseHeadBytes + 10, 'x');
}

void WebhookClientTest::malformedResponse_isProtocolFailure()
{
    QFETCH(QByteArray, response);
    RawServer server;
    QVERIFY(server.listenLocal());
    server.setResponder(answerWith(response));
    ClientHarness harness;
    const quint64 id = harness.post(server.url());
    QTRY_VERIFY(harness.isFinished(id));
    QCOMPARE(harness.status(id), 0);
    QCOMPARE(harness.error(id), QNetworkReply::ProtocolFailure);
    // The connection is not trusted with another request.
    QTRY_COMPARE(server.closedConnections(), 1);
    QCOMPARE(server.requestCount(), qsizetype(1));
}

void WebhookClientTest::atMostSixConnectionsPerHost_restWaitInOrder()
{
    RawServer server;
    QVERIFY(server.listenLocal());
    QList<QTcpSocket *> unanswered;
    bool holding = true;
    server.setResponder([&](QTcpSocket *socket, int) {
        if (holding)
            unanswered.append(socket);
        else
            RawServer::answer(socket, Ok);
    });
    ClientHarness harness;
    constexpr int Count = 10;
    for (int i = 1; i <= Count; ++i)
        harness.post(server.url(u"/r%1"_s.arg(i)));
    QTRY_COMPARE(server.requestCount(), qsizetype(WebhookClient::MaxConnectionsPerHost));
    QCOMPARE(server.acceptedConnections(), WebhookClient::MaxConnectionsPerHost);
    QVERIFY(harness.finished.isEmpty());

    holding = false;
    for (QTcpSocket *socket : std::as_const(unanswered))
        RawServer::answer(socket, Ok);
    QTRY_COMPARE(harness.finished.size(), Count);
    for (quint64 id = 1; id <= Count; ++id)
        QCOMPARE(harness.status(id), 200);
    QCOMPARE(server.requestCount(), qsizetype(Count));
    QCOMPARE(server.acceptedConnections(), WebhookClient::MaxConnectionsPerHost);
    // Those that waited went out in the order they were sent.
    QList<QByteArray> waited;
    for (int i = WebhookClient::MaxConnectionsPerHost; i < Count; ++i)
        waited.append(targetOf(server.received(i).head));
    QCOMPARE(waited, (QList<QByteArray> {"/r7", "/r8", "/r9", "/r10"}));
}

void WebhookClientTest::abort_reportsCanceled()
{
    RawServer server;
    QVERIFY(server.listenLocal());
    server.setResponder([](QTcpSocket *, int) {}); // never answers
    ClientHarness harness;
    QList<quint64> ids;
    for (int i = 0; i < WebhookClient::MaxConnectionsPerHost + 1; ++i)
        ids.append(harness.post(server.url()));
    QTRY_COMPARE(server.requestCount(), qsizetype(WebhookClient::MaxConnectionsPerHost));

    // The one still waiting for a connection, and one that was sent.
    harness.client.abort(ids.last());
    harness.client.abort(ids.first());
    QVERIFY(harness.finished.isEmpty()); // reported from the event loop, as a reply's finished()
    QTRY_COMPARE(harness.finished.size(), 2);
    QCOMPARE(harness.status(ids.first()), 0);
    QCOMPARE(harness.error(ids.first()), QNetworkReply::OperationCanceledError);
    QCOMPARE(harness.error(ids.last()), QNetworkReply::OperationCanceledError);
    QTRY_COMPARE(server.closedConnections(), 1);
    // The freed connection slot did not send the aborted waiting request.
    QCOMPARE(server.requestCount(), qsizetype(WebhookClient::MaxConnectionsPerHost));
    QCOMPARE(harness.order.count(ids.first()), 1);
}

void WebhookClientTest::cancelAll_reportsNothing()
{
    RawServer server;
    QVERIFY(server.listenLocal());
    QList<QTcpSocket *> unanswered;
    server.setResponder([&](QTcpSocket *socket, int index) {
        if (targetOf(server.received(index).head) == "/after")
            RawServer::answer(socket, Ok);
        else
            unanswered.append(socket);
    });
    ClientHarness harness;
    for (int i = 0; i < 8; ++i)
        harness.post(server.url());
    QTRY_COMPARE(server.requestCount(), qsizetype(WebhookClient::MaxConnectionsPerHost));
    harness.client.cancelAll();
    // Answers arriving now find no request to report.
    for (QTcpSocket *socket : std::as_const(unanswered))
        RawServer::answer(socket, Ok);
    QTRY_COMPARE(server.closedConnections(), WebhookClient::MaxConnectionsPerHost);

    const quint64 after = harness.post(server.url(u"/after"_s));
    QTRY_VERIFY(harness.isFinished(after));
    QCOMPARE(harness.order, QList<quint64> {after});
    QCOMPARE(server.requestCount(), qsizetype(WebhookClient::MaxConnectionsPerHost + 1));
}

void WebhookClientTest::failureKnownAtOnce_reportedFromTheEventLoop()
{
    ClientHarness harness;
    const quint64 unsupported = harness.post(QUrl(u"ftp://127.0.0.1/hook"_s));
    const quint64 noHost = harness.post(QUrl(u"http:///hook"_s));
    QVERIFY(harness.finished.isEmpty());
    QTRY_COMPARE(harness.finished.size(), 2);
    QCOMPARE(harness.error(unsupported), QNetworkReply::ProtocolUnknownError);
    QCOMPARE(harness.error(noHost), QNetworkReply::HostNotFoundError);
    QCOMPARE(harness.status(noHost), 0);
}

void WebhookClientTest::oversizedBody_cappedAndConnectionClosed()
{
    RawServer server;
    QVERIFY(server.listenLocal());
    // Announces 10 MiB and sends 2 MiB, then nothing: only the cap ends the response.
    server.setResponder([](QTcpSocket *socket, int) {
        RawServer::answer(socket,
                          "HTTP/1.1 200 OK\r\nContent-Length: 10485760\r\n\r\n"_ba
                              + QByteArray(2 * 1024 * 1024, 'x'));
    });
    ClientHarness harness;
    const quint64 id = harness.post(server.url());
    QTRY_VERIFY(harness.isFinished(id));
    QCOMPARE(harness.status(id), 200);
    QCOMPARE(harness.error(id), QNetworkReply::NoError);
    QTRY_COMPARE(server.closedConnections(), 1);
    QCOMPARE(server.requestCount(), qsizetype(1));
}

// A receiver answering with a body that does not end (chunks that keep coming, or a body that runs
// until a close that never comes): the client stops at MaxResponseBodyBytes, reports the status,
// closes the connection, and never holds more than its read buffer of it.
void WebhookClientTest::endlessBody_cappedAndConnectionClosed_data()
{
    QTest::addColumn<QByteArray>("head");
    QTest::addColumn<QByteArray>("piece"); // sent over and over
    QTest::addColumn<int>("status");
    QTest::addColumn<QNetworkReply::NetworkError>(
        "error"); // as QNetworkAccessManager reports the status

    const QByteArray chunk
        = QByteArray::number(64 * 1024, 16) + "\r\n" + QByteArray(64 * 1024, 'c') + "\r\n";
    QTest::newRow("chunked") << "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"_ba << chunk
                             << 200 << QNetworkReply::NoError;
    QTest::newRow("until close")
        << "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n\r\n"_ba
        << QByteArray(64 * 1024, 'u') << 503 << QNetworkReply::ServiceUnavailableError;
}

void WebhookClientTest::endlessBody_cappedAndConnectionClosed()
{
    QFETCH(QByteArray, head);
    QFETCH(QByteArray, piece);
    QFETCH(int, status);
    QFETCH(QNetworkReply::NetworkError, error);

    RawServer server;
    QVERIFY(server.listenLocal());
    QPointer<QTcpSocket> answering;
    qint64 sent = 0;
    // Feeds the body whenever the kernel took the last piece, until the client closes.
    QTimer feeder;
    feeder.setInterval(1);
    QObject::connect(&feeder, &QTimer::timeout, &feeder, [&] {
        if (!answering || answering->state() != QAbstractSocket::ConnectedState)
            return;
        while (answering->bytesToWrite() < 256 * 1024) {
            answering->write(piece);
            sent += piece.size();
        }
    });
    server.setResponder([&](QTcpSocket *socket, int) {
        answering = socket;
        socket->write(head);
        feeder.start();
    });
    ClientHarness harness;
    const quint64 id = harness.post(server.url());
    QTRY_VERIFY(harness.isFinished(id));
    feeder.stop();
    QCOMPARE(harness.status(id), status);
    QCOMPARE(harness.error(id), error);
    QVERIFY(harness.errorDetail(id).size() <= WebhookClient::MaxErrorDetailBytes);
    QTRY_COMPARE(server.closedConnections(), 1);
    // It stopped at the cap: what it took is the cap and what was under way (kernel buffers).
    QVERIFY2(sent > WebhookClient::MaxResponseBodyBytes, qPrintable(QString::number(sent)));
    QVERIFY2(sent < 64 * WebhookClient::MaxResponseBodyBytes, qPrintable(QString::number(sent)));
}

void WebhookClientTest::idleConnectionClosedAfterIdleTimeout()
{
    RawServer server;
    QVERIFY(server.listenLocal());
    server.setResponder(answerWith(Ok));
    ClientHarness harness;
    harness.client.setIdleTimeout(100);
    const quint64 first = harness.post(server.url());
    QTRY_VERIFY(harness.isFinished(first));
    QTRY_COMPARE(server.closedConnections(), 1);
    const quint64 second = harness.post(server.url());
    QTRY_VERIFY(harness.isFinished(second));
    QCOMPARE(harness.status(second), 200);
    QCOMPARE(server.acceptedConnections(), 2);
    QCOMPARE(server.requestCount(), qsizetype(2));
}

bool WebhookClientTest::makeCertificate(QSslCertificate *certificate, QSslKey *key)
{
    const QString openssl = QStandardPaths::findExecutable(u"openssl"_s);
    if (openssl.isEmpty() || !m_directory.isValid())
        return false;
    const QString keyPath = m_directory.filePath(u"key.pem"_s);
    const QString certificatePath = m_directory.filePath(u"certificate.pem"_s);
    QProcess process;
    process.start(openssl,
                  {u"req"_s, u"-x509"_s, u"-newkey"_s, u"rsa:2048"_s, u"-nodes"_s, u"-days"_s,
                   u"2"_s, u"-subj"_s, u"/CN=127.0.0.1"_s, u"-addext"_s,
                   u"subjectAltName=IP:127.0.0.1"_s, u"-keyout"_s, keyPath, u"-out"_s,
                   certificatePath});
    if (!process.waitForFinished(60000) || process.exitCode() != 0) {
        qWarning("openssl: %s", process.readAllStandardError().constData());
        return false;
    }
    QFile keyFile(keyPath);
    QFile certificateFile(certificatePath);
    if (!keyFile.open(QIODevice::ReadOnly) || !certificateFile.open(QIODevice::ReadOnly))
        return false;
    *key = QSslKey(keyFile.readAll(), QSsl::Rsa);
    *certificate = QSslCertificate(certificateFile.readAll());
    return !key->isNull() && !certificate->isNull();
}

void WebhookClientTest::tls_untrustedCertificate_isHandshakeFailure()
{
    if (!QSslSocket::supportsSsl())
        QSKIP("Qt has no TLS backend here");
    QSslCertificate certificate;
    QSslKey key;
    if (!makeCertificate(&certificate, &key))
        QSKIP("openssl is needed to make a test certificate");
    RawServer server;
    server.setTls(certificate, key);
    QVERIFY(server.listenLocal());
    server.setResponder(answerWith(Ok));
    ClientHarness harness;
    const quint64 id = harness.post(server.url());
    QTRY_VERIFY(harness.isFinished(id));
    // Self-signed and not trusted: the default configuration refuses it, as QNetworkAccessManager.
    QCOMPARE(harness.status(id), 0);
    QCOMPARE(harness.error(id), QNetworkReply::SslHandshakeFailedError);
    QCOMPARE(server.requestCount(), qsizetype(0));
}

void WebhookClientTest::tls_trustedCertificate_deliversOverOneConnection()
{
    if (!QSslSocket::supportsSsl())
        QSKIP("Qt has no TLS backend here");
    QSslCertificate certificate;
    QSslKey key;
    if (!makeCertificate(&certificate, &key))
        QSKIP("openssl is needed to make a test certificate");
    RawServer server;
    server.setTls(certificate, key);
    QVERIFY(server.listenLocal());
    server.setResponder(answerWith(
        "HTTP/1.1 202 Accepted\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n"_ba));
    ClientHarness harness;
    QSslConfiguration configuration = QSslConfiguration::defaultConfiguration();
    configuration.setCaCertificates({certificate});
    harness.client.setSslConfiguration(configuration);
    const quint64 first = harness.post(server.url());
    QTRY_VERIFY(harness.isFinished(first));
    const quint64 second = harness.post(server.url());
    QTRY_VERIFY(harness.isFinished(second));

    QCOMPARE(harness.status(first), 202);
    QCOMPARE(harness.error(first), QNetworkReply::NoError);
    QCOMPARE(harness.status(second), 202);
    QCOMPARE(server.requestCount(), qsizetype(2));
    QCOMPARE(server.acceptedConnections(), 1);
    QVERIFY(server.received(0).head.contains(
        QByteArray("\r\nHost: 127.0.0.1:" + QByteArray::number(server.serverPort()) + "\r\n")));
}

QTEST_GUILESS_MAIN(WebhookClientTest)
#include "tst_webhookclient.moc"
