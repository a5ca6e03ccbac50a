// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "WebhookClient.h"

#include "../Logging.h"

#include <QNetworkRequest>
#include <QSslSocket>
#include <QTimer>
#include <QUrl>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

bool isHeaderName(QByteArrayView name, QByteArrayView expected)
{
    return name.compare(expected, Qt::CaseInsensitive) == 0;
}

bool hasLineBreak(QByteArrayView text)
{
    return text.contains('\r') || text.contains('\n');
}

// What QNetworkAccessManager reports as the error of a response with this status (SPEC D5 and §7
// decide by the status; the error is kept alike so that nothing depends on which client sent).
QNetworkReply::NetworkError statusError(int status)
{
    if (status < 400)
        return QNetworkReply::NoError;
    switch (status) {
    case 400:
    case 418:
        return QNetworkReply::ProtocolInvalidOperationError;
    case 401:
        return QNetworkReply::AuthenticationRequiredError;
    case 403:
        return QNetworkReply::ContentAccessDenied;
    case 404:
        return QNetworkReply::ContentNotFoundError;
    case 405:
        return QNetworkReply::ContentOperationNotPermittedError;
    case 407:
        return QNetworkReply::ProxyAuthenticationRequiredError;
    case 409:
        return QNetworkReply::ContentConflictError;
    case 410:
        return QNetworkReply::ContentGoneError;
    case 500:
        return QNetworkReply::InternalServerError;
    case 501:
        return QNetworkReply::OperationNotImplementedError;
    case 503:
        return QNetworkReply::ServiceUnavailableError;
    default:
        return status > 500 ? QNetworkReply::UnknownServerError
                            : QNetworkReply::UnknownContentError;
    }
}

} // namespace

struct WebhookClient::Exchange
{
    WebhookConnection::Request request;
    HostPool *pool = nullptr;
    bool resent = false;
    WebhookConnection *connection = nullptr; // null while it waits in the pool's queue
};

// The connections to one server and the requests waiting for one of them. It owns its
// connections' reports and hands them to the client with itself as the pool.
struct WebhookClient::HostPool final : WebhookConnection::Owner
{
    HostPool(WebhookClient &client, WebhookConnection::Server server)
        : client(client)
        , server(std::move(server))
    {
    }

    void exchangeFinished(WebhookConnection *connection, int httpStatus,
                          QNetworkReply::NetworkError error, bool reusable) override
    {
        client.finish(*this, connection, httpStatus, error, reusable);
    }
    void exchangeFailed(WebhookConnection *connection, int httpStatus,
                        QNetworkReply::NetworkError error, bool responseStarted) override
    {
        client.fail(*this, connection, httpStatus, error, responseStarted);
    }
    void connectionUnusable(WebhookConnection *connection) override
    {
        client.closeConnection(*this, connection);
    }
    void signalEntered() override { client.enterSignal(); }
    void signalLeft() override { client.leaveSignal(); }

    WebhookClient &client;
    const WebhookConnection::Server server;
    QList<WebhookConnection *> connections; // open or opening, at most MaxConnectionsPerHost
    std::deque<Exchange *> waiting; // in the order sent
};

WebhookClient::SignalScope::SignalScope(WebhookClient &client)
    : m_client(client)
{
    m_client.enterSignal();
}

WebhookClient::SignalScope::~SignalScope()
{
    m_client.leaveSignal();
}

WebhookClient::WebhookClient(FinishedHandler handler, QObject *parent)
    : QObject(parent)
    , m_handler(std::move(handler))
    , m_idleTimer(new QTimer(this))
{
    m_clock.start();
    connect(m_idleTimer, &QTimer::timeout, this, &WebhookClient::sweepIdle);
    setIdleTimeout(DefaultIdleTimeoutMs);
}

WebhookClient::~WebhookClient()
{
    m_handler = nullptr;
    m_reports.clear();
    for (const auto &[key, pool] : m_pools) {
        for (WebhookConnection *connection : std::as_const(pool->connections))
            connection->shutDown();
    }
}

void WebhookClient::setIdleTimeout(int milliseconds)
{
    m_idleTimeoutMs = std::max(1, milliseconds);
    // Idle connections are looked at a few times per timeout, so one is closed at most a quarter
    // of the timeout late.
    m_idleTimer->setInterval(std::max(1, m_idleTimeoutMs / 4));
}

void WebhookClient::setSslConfiguration(const QSslConfiguration &configuration)
{
    m_sslConfiguration = configuration;
}

void WebhookClient::post(quint64 requestId, const QNetworkRequest &request, const QByteArray &body)
{
    send(requestId, QByteArrayLiteral("POST"), request, body);
}

void WebhookClient::send(quint64 requestId, const QByteArray &method,
                         const QNetworkRequest &request, const QByteArray &body)
{
    const QUrl url = request.url();
    const QString scheme = url.scheme();
    const bool encrypted = scheme == "https"_L1;
    if (m_exchanges.contains(requestId)) {
        qCWarning(lcDelivery) << "request" << requestId << "is already open";
        report(requestId, 0, QNetworkReply::ProtocolInvalidOperationError);
        return;
    }
    if ((!encrypted && scheme != "http"_L1) || (encrypted && !QSslSocket::supportsSsl())) {
        report(requestId, 0, QNetworkReply::ProtocolUnknownError);
        return;
    }
    const QString host = url.host(QUrl::FullyEncoded);
    if (host.isEmpty()) {
        report(requestId, 0, QNetworkReply::HostNotFoundError);
        return;
    }
    const int defaultPort = encrypted ? 443 : 80;
    const int port = url.port(defaultPort);

    QByteArray target
        = url.toEncoded(QUrl::RemoveScheme | QUrl::RemoveAuthority | QUrl::RemoveFragment);
    if (!target.startsWith('/'))
        target.prepend('/');

    auto exchange = std::make_unique<Exchange>();
    exchange->request.id = requestId;
    exchange->request.headRequest = method == "HEAD";
    QByteArray &bytes = exchange->request.bytes;
    bytes.reserve(512 + body.size());
    bytes += method + ' ' + target + " HTTP/1.1\r\n";
    if (!request.hasRawHeader("Host")) {
        const QByteArray hostBytes = host.toLatin1();
        bytes += "Host: ";
        bytes += host.contains(u':') ? QByteArray('[' + hostBytes + ']') : hostBytes;
        if (port != defaultPort)
            bytes += ':' + QByteArray::number(port);
        bytes += "\r\n";
    }
    bool hasContentType = false;
    bool hasUserAgent = false;
    const QList<QByteArray> names = request.rawHeaderList();
    for (const QByteArray &name : names) {
        // Framing and the connection's lifetime are this client's business.
        if (isHeaderName(name, "content-length") || isHeaderName(name, "transfer-encoding")
            || isHeaderName(name, "connection"))
            continue;
        const QByteArray value = request.rawHeader(name);
        if (hasLineBreak(name) || hasLineBreak(value)) {
            qCWarning(lcDelivery) << "header" << name << "not sent: it contains a line break";
            continue;
        }
        hasContentType = hasContentType || isHeaderName(name, "content-type");
        hasUserAgent = hasUserAgent || isHeaderName(name, "user-agent");
        bytes += name + ": " + value + "\r\n";
    }
    if (!hasContentType) {
        if (const QVariant contentType = request.header(QNetworkRequest::ContentTypeHeader);
            contentType.isValid())
            bytes += "Content-Type: " + contentType.toByteArray() + "\r\n";
    }
    if (!hasUserAgent)
        bytes += "User-Agent: EventDesk/" EVENTDESK_VERSION "\r\n";
    if (!body.isEmpty() || method == "POST" || method == "PUT" || method == "PATCH")
        bytes += "Content-Length: " + QByteArray::number(body.size()) + "\r\n";
    bytes += "Connection: keep-alive\r\n\r\n";
    bytes += body;

    HostPool &pool = poolFor(scheme, host, port);
    exchange->pool = &pool;
    Exchange *started = exchange.get();
    m_exchanges.emplace(requestId, std::move(exchange));
    start(started);
}

void WebhookClient::abort(quint64 requestId)
{
    const auto found = m_exchanges.find(requestId);
    if (found == m_exchanges.end())
        return;
    Exchange *exchange = found->second.get();
    HostPool &pool = *exchange->pool;
    int status = 0;
    if (WebhookConnection *connection = exchange->connection) {
        status = connection->status();
        connection->detach();
        exchange->connection = nullptr;
        closeConnection(pool, connection); // its response is unfinished: it cannot be reused
    } else {
        pool.waiting.erase(std::find(pool.waiting.begin(), pool.waiting.end(), exchange));
    }
    m_exchanges.erase(found);
    report(requestId, status, QNetworkReply::OperationCanceledError);
    pump(pool);
}

void WebhookClient::cancelAll()
{
    m_reports.clear();
    for (const auto &[id, exchange] : m_exchanges) {
        if (WebhookConnection *connection = exchange->connection) {
            connection->detach();
            exchange->connection = nullptr;
            closeConnection(*exchange->pool, connection);
        }
    }
    for (const auto &[key, pool] : m_pools)
        pool->waiting.clear();
    m_exchanges.clear();
}

WebhookClient::HostPool &WebhookClient::poolFor(const QString &scheme, const QString &host,
                                                int port)
{
    const QString key = scheme + u"://"_s + host + u':' + QString::number(port);
    auto found = m_pools.find(key);
    if (found == m_pools.end()) {
        auto pool = std::make_unique<HostPool>(
            *this, WebhookConnection::Server {host, quint16(port), scheme == "https"_L1});
        found = m_pools.emplace(key, std::move(pool)).first;
        if (!m_idleTimer->isActive())
            m_idleTimer->start();
    }
    return *found->second;
}

void WebhookClient::start(Exchange *exchange)
{
    exchange->pool->waiting.push_back(exchange);
    pump(*exchange->pool);
}

void WebhookClient::pump(HostPool &pool)
{
    while (!pool.waiting.empty()) {
        WebhookConnection *idle = nullptr;
        const QList<WebhookConnection *> connections = pool.connections;
        for (WebhookConnection *connection : connections) {
            if (connection->state() != WebhookConnection::State::Idle)
                continue;
            if (!connection->isUsable()) {
                closeConnection(pool, connection); // closed by the server while it was idle
                continue;
            }
            idle = connection;
            break;
        }
        if (idle) {
            Exchange *exchange = pool.waiting.front();
            pool.waiting.pop_front();
            exchange->connection = idle;
            idle->reuse(&exchange->request);
            continue;
        }
        if (pool.connections.size() >= MaxConnectionsPerHost)
            return; // the next connection to finish its exchange takes the next one
        Exchange *exchange = pool.waiting.front();
        pool.waiting.pop_front();
        openConnection(pool, exchange);
    }
}

void WebhookClient::openConnection(HostPool &pool, Exchange *exchange)
{
    auto *connection = new WebhookConnection(pool, pool.server, this);
    pool.connections.append(connection);
    exchange->connection = connection;
    connection->open(&exchange->request, m_sslConfiguration);
}

void WebhookClient::finish(HostPool &pool, WebhookConnection *connection, int httpStatus,
                           QNetworkReply::NetworkError error, bool reusable)
{
    const quint64 requestId = connection->detach()->id;
    m_exchanges.erase(requestId);
    report(requestId, httpStatus, error == QNetworkReply::NoError ? statusError(httpStatus) : error,
           connection->errorDetail());
    if (reusable)
        connection->becomeIdle(m_clock.elapsed());
    else
        closeConnection(pool, connection);
    pump(pool);
}

void WebhookClient::fail(HostPool &pool, WebhookConnection *connection, int httpStatus,
                         QNetworkReply::NetworkError error, bool responseStarted)
{
    const bool reused = connection->isReused();
    const QByteArray errorDetail = connection->errorDetail();
    Exchange *exchange = m_exchanges.at(connection->detach()->id).get();
    exchange->connection = nullptr;
    closeConnection(pool, connection);
    if (reused && !responseStarted && !exchange->resent) {
        // A kept-alive connection the server closed as the request went out (its idle timeout):
        // nothing of a response arrived, so the request is sent once more on a new connection.
        // Only then: a request whose response started is never sent twice.
        qCDebug(lcDelivery) << "kept-alive connection to" << pool.server.host << pool.server.port
                            << "failed before answering; sending once more on a new connection";
        exchange->resent = true;
        openConnection(pool, exchange);
    } else {
        const quint64 requestId = exchange->request.id;
        m_exchanges.erase(requestId);
        report(requestId, httpStatus, error, errorDetail);
    }
    pump(pool);
}

void WebhookClient::closeConnection(HostPool &pool, WebhookConnection *connection)
{
    pool.connections.removeOne(connection);
    connection->shutDown();
}

void WebhookClient::sweepIdle()
{
    const qint64 now = m_clock.elapsed();
    for (auto it = m_pools.begin(); it != m_pools.end();) {
        HostPool &pool = *it->second;
        const QList<WebhookConnection *> connections = pool.connections;
        for (WebhookConnection *connection : connections) {
            if (connection->state() == WebhookConnection::State::Idle
                && now - connection->idleSinceMs() >= m_idleTimeoutMs)
                closeConnection(pool, connection);
        }
        if (pool.connections.isEmpty() && pool.waiting.empty())
            it = m_pools.erase(it);
        else
            ++it;
    }
    if (m_pools.empty())
        m_idleTimer->stop();
}

void WebhookClient::report(quint64 requestId, int httpStatus, QNetworkReply::NetworkError error,
                           const QByteArray &errorDetail)
{
    m_reports.push_back({requestId, httpStatus, error, errorDetail});
    if (m_scopeDepth > 0 || m_deliveryQueued)
        return;
    // Outside a socket's signal (send, abort): reported from the event loop.
    m_deliveryQueued = true;
    QMetaObject::invokeMethod(
        this,
        [this] {
            m_deliveryQueued = false;
            const SignalScope scope(*this);
        },
        Qt::QueuedConnection);
}

void WebhookClient::enterSignal()
{
    ++m_scopeDepth;
}

void WebhookClient::leaveSignal()
{
    if (--m_scopeDepth == 0)
        deliverReports();
}

void WebhookClient::deliverReports()
{
    // Reports made by the handler's own calls (abort, a send that fails at once) join this loop
    // instead of recursing.
    ++m_scopeDepth;
    while (!m_reports.empty()) {
        const Report next = std::move(m_reports.front());
        m_reports.pop_front();
        if (m_handler)
            m_handler(next.requestId, next.httpStatus, next.error, next.errorDetail);
    }
    --m_scopeDepth;
}

} // namespace EventDesk
