// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../Expected.h"

#include <QAbstractSocket>
#include <QBasicTimer>
#include <QByteArray>
#include <QElapsedTimer>
#include <QHostAddress>
#include <QList>
#include <QObject>
#include <QPair>
#include <QPointer>
#include <QSet>
#include <QString>
#include <QStringList>
#include <QUrlQuery>

#include <functional>

class QTcpServer;
class QTcpSocket;

namespace EventDesk {

class HttpConnection;

using HttpHeaders = QList<QPair<QByteArray, QByteArray>>;

// One parsed HTTP/1.1 request.
struct HttpRequest
{
    QByteArray method; // as sent, e.g. "POST"
    QByteArray target; // request target as sent, e.g. "/topics/orders/api/events?api-version=1"
    QString path; // decoded path of the target
    QStringList pathSegments; // decoded, non-empty segments of the path
    QUrlQuery query;
    HttpHeaders headers; // in the order received, names as sent
    QByteArray body;
    QHostAddress peerAddress;

    // The first header with this name (compared case-insensitively), or an empty array.
    QByteArray header(QByteArrayView name) const;
    bool hasHeader(QByteArrayView name) const;
};

struct HttpResponse
{
    int status = 200;
    QByteArray contentType; // empty: no Content-Type header
    QByteArray body;
    HttpHeaders headers; // extra headers

    static HttpResponse json(int status, const QByteArray &body);
    static HttpResponse text(int status, const QByteArray &body, const QByteArray &contentType = "text/plain; charset=utf-8");
};

// The answer channel of one request. Copyable; the handler may answer at once or later (a test
// receiver's delay), and may close the connection without answering (SocketError for the
// sender). Calls after the connection went away, or after a first answer, do nothing.
class HttpReply final
{
public:
    void respond(const HttpResponse &response) const;
    void closeWithoutAnswer() const;
    bool isOpen() const;

private:
    friend class HttpConnection;
    HttpReply(QObject *connection, quint64 exchange) : m_connection(connection), m_exchange(exchange) {}

    QPointer<QObject> m_connection;
    quint64 m_exchange = 0;
};

// How long the server waits for a client, and how many clients it serves at once (README "Hostile
// HTTP"). The times are real time on the server's monotonic clock, never engine time: --time-scale
// must not shorten them. While a request waits for its handler's answer no timeout runs, so a
// test receiver's delay or a slow commit never cuts a connection.
struct HttpConnectionLimits
{
    // From a connection's opening, or from the first byte of the next request on a kept-alive
    // connection, until the request's head (request line and headers) is complete. A head still
    // incomplete then is answered 408 and the connection closed (one that sent nothing is closed).
    int headerTimeoutMs = 10'000;
    // The longest pause while a body arrives (progress, not total time, so a large publish over a
    // slow link is not cut): 408 and closed.
    int bodyTimeoutMs = 30'000;
    // How long a kept-alive connection may wait for its next request after an answer; then it is
    // closed without a word. Longer than the one-minute idle timeout of .NET's connection pool, so
    // that a pooled client normally closes first instead of reusing a connection being closed.
    int idleTimeoutMs = 120'000;
    // Connections served at once. A connection beyond them is answered 503 at once (the server's
    // error body, Event Grid's shape on the endpoint) with "Connection: close", and closed.
    int maxConnections = 10'000;
};

// A small HTTP/1.1 server on QTcpServer: persistent connections, pipelined requests answered in
// order, Content-Length and chunked request bodies, Expect: 100-continue. It exists (instead of
// QHttpServer) because the test receivers must be able to answer late and to drop a connection
// without answering, on the same address as the topic endpoint. It reads framing strictly
// (HttpSyntax.h) and bounds what one client can hold (HttpConnectionLimits).
class HttpServer final : public QObject
{
    Q_OBJECT

public:
    using Handler = std::function<void(const HttpRequest &request, const HttpReply &reply)>;

    static constexpr qsizetype DefaultMaxBodyBytes = 32 * 1024 * 1024;
    static constexpr qsizetype MaxHeaderBytes = 64 * 1024;

    explicit HttpServer(QObject *parent = nullptr);
    ~HttpServer() override;

    void setHandler(Handler handler) { m_handler = std::move(handler); }
    // Requests with a larger body are answered 413 (errorBody of the caller's shape) unread, and
    // the connection is closed.
    void setMaxBodyBytes(qsizetype bytes) { m_maxBodyBytes = bytes; }
    qsizetype maxBodyBytes() const { return m_maxBodyBytes; }
    // Takes effect for the next deadline of every connection; the cap for the next connection.
    void setConnectionLimits(const HttpConnectionLimits &limits);
    const HttpConnectionLimits &connectionLimits() const { return m_limits; }
    // Connections open now (not counting those refused over the cap).
    int connectionCount() const { return int(m_connections.size()); }
    // Produces the body of the errors the server answers by itself (400, 408, 413, 431, 501, 503).
    void setErrorBodyFactory(std::function<HttpResponse(int status, const QString &message)> factory)
    {
        m_errorFactory = std::move(factory);
    }

    // Binds to address:port (port 0 picks a free one) and returns the port bound.
    Expected<quint16> listen(const QHostAddress &address, quint16 port);
    quint16 port() const;
    QHostAddress address() const;

    static QByteArray reasonPhrase(int status);

protected:
    void timerEvent(QTimerEvent *event) override;

private:
    friend class HttpConnection;
    void onNewConnection();
    void onAcceptError(QAbstractSocket::SocketError error);
    void refuse(QTcpSocket *socket);
    void dispatch(const HttpRequest &request, const HttpReply &reply);
    HttpResponse errorResponse(int status, const QString &message) const;
    qint64 monotonicMs() const { return m_monotonic.elapsed(); }
    void forgetConnection(HttpConnection *connection);
    void startSweep();
    void sweep();

    Handler m_handler;
    std::function<HttpResponse(int, const QString &)> m_errorFactory;
    QTcpServer *m_tcpServer = nullptr;
    qsizetype m_maxBodyBytes = DefaultMaxBodyBytes;
    HttpConnectionLimits m_limits;
    // The deadlines of all connections are checked by one periodic sweep rather than a timer per
    // connection; it runs only while there are connections (or accepting is paused).
    QElapsedTimer m_monotonic;
    QBasicTimer m_sweepTimer;
    QSet<HttpConnection *> m_connections;
    bool m_acceptPaused = false;
    bool m_acceptErrorLogged = false;
    bool m_refusing = false;
};

} // namespace EventDesk
