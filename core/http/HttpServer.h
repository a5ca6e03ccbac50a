// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../Expected.h"
#include "HttpConnection.h"
#include "HttpMessage.h"

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
#include <optional>

class QSocketNotifier;
class QTcpServer;
class QTcpSocket;

namespace EventDesk {

// What the server went through, for /metrics and the app's status bar (docs/security.md "The HTTP
// endpoint").
struct HttpServerStatistics
{
    int openConnections = 0;
    // accept() failed and has not succeeded since (out of file descriptors, typically): new
    // connections wait in the listen queue while the server frees idle ones and tries again.
    bool acceptFailing = false;
    QString lastAcceptError;
    quint64 acceptFailures = 0; // failed accept() calls since the server started
    quint64 shedConnections = 0; // idle connections closed to free a descriptor
    quint64 refusedConnections = 0; // answered 503 over HttpConnectionLimits::maxConnections
};

// A small HTTP/1.1 server on QTcpServer: persistent connections, pipelined requests answered in
// order, Content-Length and chunked request bodies, Expect: 100-continue. It exists (instead of
// QHttpServer) because the test receivers must be able to answer late and to drop a connection
// without answering, on the same address as the topic endpoint. It reads framing strictly
// (HttpSyntax.h) and bounds what one client can hold (HttpConnectionLimits).
class HttpServer final : public QObject, private HttpConnection::Owner
{
    Q_OBJECT

public:
    using Handler = std::function<void(const HttpRequest &request, const HttpReply &reply)>;

    static constexpr qsizetype DefaultMaxBodyBytes = 32 * 1024 * 1024;
    static constexpr qsizetype MaxHeaderBytes = HttpMaxHeaderBytes;

    explicit HttpServer(QObject *parent = nullptr);
    ~HttpServer() override;

    using Admission = std::function<HttpAdmission(const HttpRequest &head)>;

    void setHandler(Handler handler) { m_handler = std::move(handler); }
    // Consulted once per request, with the request line and headers parsed and no body yet.
    void setAdmission(Admission admission) { m_admission = std::move(admission); }
    // Requests with a larger body are answered 413 (errorBody of the caller's shape) unread, and
    // the connection is closed.
    void setMaxBodyBytes(qsizetype bytes) { m_maxBodyBytes = bytes; }
    qsizetype maxBodyBytes() const override { return m_maxBodyBytes; }
    // Takes effect for the next deadline of every connection; the cap for the next connection.
    void setConnectionLimits(const HttpConnectionLimits &limits);
    const HttpConnectionLimits &connectionLimits() const override { return m_limits; }
    // Connections open now (not counting those refused over the cap).
    int connectionCount() const { return int(m_connections.size()); }
    HttpServerStatistics statistics() const;
    // Produces the body of the errors the server answers by itself (400, 408, 413, 431, 501, 503).
    void
    setErrorBodyFactory(std::function<HttpResponse(int status, const QString &message)> factory)
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
    void onNewConnection();
    void take(QTcpSocket *socket);
    void acceptPending();
    void acceptFailed(const QString &error);
    void resumeAccepting();
    void acceptRecovered();
    int shedIdleConnections();
    void refuse(QTcpSocket *socket);
    // HttpConnection::Owner
    HttpAdmission admit(const HttpRequest &head) const override;
    void dispatch(const HttpRequest &request, const HttpReply &reply) override;
    HttpResponse errorResponse(int status, const QString &message) const override;
    qint64 monotonicMs() const override { return m_monotonic.elapsed(); }
    void forgetConnection(HttpConnection *connection) override;
    void startSweep();
    void sweep();

    Handler m_handler;
    Admission m_admission;
    std::function<HttpResponse(int, const QString &)> m_errorFactory;
    QTcpServer *m_tcpServer = nullptr; // binds and listens; on Unix the server accepts itself
    QSocketNotifier *m_acceptNotifier = nullptr;
    qsizetype m_maxBodyBytes = DefaultMaxBodyBytes;
    HttpConnectionLimits m_limits;
    // The deadlines of all connections are checked by one periodic sweep rather than a timer per
    // connection; it runs only while there are connections (or accepting is paused).
    QElapsedTimer m_monotonic;
    QBasicTimer m_sweepTimer;
    QSet<HttpConnection *> m_connections;
    // Accepting after a failed accept() (acceptFailed): paused; resumed at once when idle
    // connections could be closed, else at the next sweep; recovered once a connection is
    // accepted again, or a sweep passed since resuming without a failure.
    bool m_acceptFailing = false;
    bool m_resumePending = false;
    bool m_failedSinceResume = false;
    qint64 m_acceptFailingSinceMs = 0;
    quint64 m_acceptFailuresThisEpisode = 0;
    QString m_lastAcceptError;
    quint64 m_acceptFailures = 0;
    quint64 m_shedConnections = 0;
    quint64 m_refusedConnections = 0;
    bool m_refusing = false;
};

} // namespace EventDesk
