// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "HttpServer.h"

#include "../Logging.h"
#include "HttpConnection.h"

#include <QSocketNotifier>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimerEvent>
#include <QUrl>

#include <algorithm>
#include <utility>

#ifdef Q_OS_UNIX
#include <cerrno>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>
#endif

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

// When accept() fails for want of descriptors, idle connections are closed to free some: the
// longest idle first, at most a quarter of the open connections (at least this many), so that
// a burst of failures does not drop every kept-alive client at once.
constexpr qsizetype MinimumShedConnections = 16;
// Only a connection idle this long is closed: a client that has just connected, or just had its
// answer, may have its request on the way.
constexpr qint64 MinimumIdleToShedMs = 1000;

} // namespace

HttpServer::HttpServer(QObject *parent)
    : QObject(parent)
{
    m_monotonic.start();
}

HttpServer::~HttpServer()
{
    // The connections unregister themselves when destroyed: destroy them while the set exists.
    qDeleteAll(std::exchange(m_connections, {}));
}

void HttpServer::setConnectionLimits(const HttpConnectionLimits &limits)
{
    m_limits = limits;
    if (m_sweepTimer.isActive()) {
        m_sweepTimer.stop();
        startSweep();
    }
}

Expected<quint16> HttpServer::listen(const QHostAddress &address, quint16 port)
{
    auto *tcpServer = new QTcpServer(this);
    // A burst of publishers connecting at once waits in the queue rather than having SYNs dropped
    // and retried a second later (Qt's default queue is 50).
    tcpServer->setListenBacklogSize(1024);
    if (!tcpServer->listen(address, port)) {
        const QString message = u"cannot listen on %1:%2: %3"_s.arg(address.toString())
                                    .arg(port)
                                    .arg(tcpServer->errorString());
        delete tcpServer;
        return Error(message);
    }
    delete m_acceptNotifier;
    m_acceptNotifier = nullptr;
    delete m_tcpServer;
    m_tcpServer = tcpServer;
#ifdef Q_OS_UNIX
    // The server accepts by itself (acceptPending): Qt's socket engine keeps the first error it
    // meets for good, and the EAGAIN that ends every batch of connections is one, so QTcpServer
    // would take a later EMFILE for a temporary error and retry accept() in a busy loop, never
    // pausing nor telling anyone.
    tcpServer->pauseAccepting();
    m_acceptNotifier
        = new QSocketNotifier(tcpServer->socketDescriptor(), QSocketNotifier::Read, this);
    connect(m_acceptNotifier, &QSocketNotifier::activated, this, &HttpServer::acceptPending);
#else
    connect(tcpServer, &QTcpServer::newConnection, this, &HttpServer::onNewConnection);
    connect(tcpServer, &QTcpServer::acceptError, this, [this](QAbstractSocket::SocketError error) {
        acceptFailed(u"%1 (%2)"_s.arg(m_tcpServer->errorString()).arg(int(error)));
    });
#endif
    return tcpServer->serverPort();
}

quint16 HttpServer::port() const
{
    return m_tcpServer ? m_tcpServer->serverPort() : 0;
}

QHostAddress HttpServer::address() const
{
    return m_tcpServer ? m_tcpServer->serverAddress() : QHostAddress();
}

void HttpServer::onNewConnection()
{
    if (m_acceptFailing)
        acceptRecovered();
    while (QTcpSocket *socket = m_tcpServer->nextPendingConnection())
        take(socket);
    startSweep();
}

void HttpServer::take(QTcpSocket *socket)
{
    if (m_connections.size() >= m_limits.maxConnections) {
        refuse(socket);
        return;
    }
    if (m_refusing) {
        m_refusing = false;
        qCInfo(lcEndpoint) << "below the limit of" << m_limits.maxConnections
                           << "connections again";
    }
    m_connections.insert(new HttpConnection(socket, *this, this));
}

// docs/security.md "Hostile HTTP": over the cap, a client is answered 503 at once, in the server's
// error shape (Event Grid's on the endpoint), with "Connection: close". The SDKs retry a 503, and a
// reason is better than a reset that looks like EventDesk crashed. Nothing of the request is
// read; a 503 of ~150 bytes fits the socket's buffer, so the socket closes at the next turn of the
// event loop and needs no deadline of its own.
void HttpServer::refuse(QTcpSocket *socket)
{
    ++m_refusedConnections;
    if (!m_refusing) {
        m_refusing = true;
        qCWarning(lcEndpoint) << "the limit of" << m_limits.maxConnections
                              << "connections is reached: answering new connections 503";
    }
    connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
    const HttpResponse response = errorResponse(
        503,
        u"EventDesk is serving the most connections it accepts at once (%1); try again shortly"_s
            .arg(m_limits.maxConnections));
    socket->write(response.head(true) + response.body);
    socket->disconnectFromHost();
}

// docs/security.md "The HTTP endpoint": QTcpServer pauses accepting after any error that is not
// temporary, running out of file descriptors (EMFILE, ENFILE) above all, and would never start
// again by itself; the connections it did not take wait in the listen queue. The server frees
// descriptors by closing idle connections, resumes at once when it could (else at the next sweep),
// and says so: a warning, /metrics (eventdesk_http_accept_failing) and the app's status bar.
#ifdef Q_OS_UNIX
void HttpServer::acceptPending()
{
    const int listening = int(m_tcpServer->socketDescriptor());
    for (;;) {
#ifdef Q_OS_LINUX
        const int descriptor = ::accept4(listening, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
#else
        const int descriptor = ::accept(listening, nullptr, nullptr);
        if (descriptor >= 0)
            ::fcntl(descriptor, F_SETFD, FD_CLOEXEC);
#endif
        if (descriptor < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                acceptFailed(qt_error_string(errno));
            break;
        }
        auto *socket = new QTcpSocket(this);
        if (!socket->setSocketDescriptor(descriptor)) {
            ::close(descriptor);
            delete socket;
            continue;
        }
        if (m_acceptFailing)
            acceptRecovered();
        take(socket);
    }
    startSweep();
}
#endif

// docs/security.md "The HTTP endpoint": accept() fails above all when the process is out of file
// descriptors (EMFILE, ENFILE); the connections it did not take wait in the listen queue. The
// server stops asking (a level-triggered notifier would spin), frees descriptors by closing idle
// connections, asks again at once when it could (else at the next sweep), and says so: a warning,
// /metrics (eventdesk_http_accept_failing) and the app's status bar.
void HttpServer::acceptFailed(const QString &error)
{
#ifdef Q_OS_UNIX
    m_acceptNotifier->setEnabled(false);
#endif
    ++m_acceptFailures;
    ++m_acceptFailuresThisEpisode;
    m_lastAcceptError = error;
    m_failedSinceResume = true;
    const int shed = shedIdleConnections();
    if (!m_acceptFailing) {
        m_acceptFailing = true;
        m_acceptFailingSinceMs = monotonicMs();
        qCWarning(lcEndpoint).noquote().nospace()
            << "cannot accept connections: " << error << " (" << m_connections.size()
            << " open); closed " << shed
            << " idle connection(s) to free descriptors; new connections wait until accepting "
               "works again";
    } else if (shed > 0) {
        qCInfo(lcEndpoint) << "still cannot accept connections: closed" << shed
                           << "more idle connection(s)";
    }
    if (shed > 0) {
        QMetaObject::invokeMethod(this, &HttpServer::resumeAccepting, Qt::QueuedConnection);
    } else {
        m_resumePending = true;
        startSweep();
    }
}

void HttpServer::resumeAccepting()
{
    m_resumePending = false;
    m_failedSinceResume = false;
#ifdef Q_OS_UNIX
    if (m_acceptNotifier)
        m_acceptNotifier->setEnabled(true);
#else
    if (m_tcpServer)
        m_tcpServer->resumeAccepting();
#endif
    startSweep();
}

void HttpServer::acceptRecovered()
{
    qCInfo(lcEndpoint).nospace() << "accepting connections again after "
                                 << m_acceptFailuresThisEpisode << " failed attempt(s) in "
                                 << (monotonicMs() - m_acceptFailingSinceMs) / 1000.0 << " s";
    m_acceptFailing = false;
    m_resumePending = false;
    m_acceptFailuresThisEpisode = 0;
}

int HttpServer::shedIdleConnections()
{
    QList<HttpConnection *> idle;
    const qint64 idleBefore = monotonicMs() - MinimumIdleToShedMs;
    for (HttpConnection *connection : std::as_const(m_connections)) {
        if (connection->isIdle() && connection->idleSinceMs() <= idleBefore)
            idle.append(connection);
    }
    const qsizetype count
        = std::min(idle.size(), std::max(MinimumShedConnections, m_connections.size() / 4));
    std::partial_sort(idle.begin(), idle.begin() + count, idle.end(),
                      [](const HttpConnection *left, const HttpConnection *right) {
                          return left->idleSinceMs() < right->idleSinceMs();
                      });
    for (qsizetype i = 0; i < count; ++i)
        idle.at(i)->shed();
    m_shedConnections += quint64(count);
    return int(count);
}

HttpServerStatistics HttpServer::statistics() const
{
    HttpServerStatistics statistics;
    statistics.openConnections = int(m_connections.size());
    statistics.acceptFailing = m_acceptFailing;
    statistics.lastAcceptError = m_lastAcceptError;
    statistics.acceptFailures = m_acceptFailures;
    statistics.shedConnections = m_shedConnections;
    statistics.refusedConnections = m_refusedConnections;
    return statistics;
}

void HttpServer::forgetConnection(HttpConnection *connection)
{
    m_connections.remove(connection);
}

void HttpServer::startSweep()
{
    if (m_sweepTimer.isActive())
        return;
    // A deadline is noticed within a quarter of the shortest timeout, at most a second late.
    const int shortest
        = std::min({m_limits.headerTimeoutMs, m_limits.bodyTimeoutMs, m_limits.idleTimeoutMs});
    m_sweepTimer.start(std::clamp(shortest / 4, 10, 1000), Qt::CoarseTimer, this);
}

void HttpServer::timerEvent(QTimerEvent *event)
{
    if (event->timerId() == m_sweepTimer.timerId())
        sweep();
    else
        QObject::timerEvent(event);
}

void HttpServer::sweep()
{
    if (m_acceptFailing) {
        if (m_resumePending)
            resumeAccepting();
        else if (!m_failedSinceResume)
            acceptRecovered(); // a whole sweep interval since resuming without a failure
    }
    const qint64 now = monotonicMs();
    QList<QPointer<HttpConnection>> overdue;
    for (HttpConnection *connection : std::as_const(m_connections)) {
        if (connection->isOverdue(now))
            overdue.append(connection);
    }
    for (const QPointer<HttpConnection> &connection : std::as_const(overdue)) {
        if (connection)
            connection->timeOut();
    }
    if (m_connections.isEmpty() && !m_acceptFailing)
        m_sweepTimer.stop();
}

HttpAdmission HttpServer::admit(const HttpRequest &head) const
{
    return m_admission ? m_admission(head) : HttpAdmission();
}

void HttpServer::dispatch(const HttpRequest &request, const HttpReply &reply)
{
    if (m_handler)
        m_handler(request, reply);
    else
        reply.respond(errorResponse(404, u"nothing is served here"_s));
}

HttpResponse HttpServer::errorResponse(int status, const QString &message) const
{
    if (m_errorFactory)
        return m_errorFactory(status, message);
    return HttpResponse::text(status, message.toUtf8());
}

QByteArray HttpServer::reasonPhrase(int status)
{
    return httpReasonPhrase(status);
}

} // namespace EventDesk
