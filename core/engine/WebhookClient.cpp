#include "WebhookClient.h"

#include "../Logging.h"

#include <QNetworkRequest>
#include <QSslSocket>
#include <QTcpSocket>
#include <QTimer>
#include <QUrl>

#include <algorithm>
#include <cctype>

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

// What QNetworkAccessManager reports for the same socket error (its HTTP channel's table).
QNetworkReply::NetworkError networkError(QAbstractSocket::SocketError error)
{
    switch (error) {
    case QAbstractSocket::ConnectionRefusedError:
        return QNetworkReply::ConnectionRefusedError;
    case QAbstractSocket::RemoteHostClosedError:
        return QNetworkReply::RemoteHostClosedError;
    case QAbstractSocket::HostNotFoundError:
        return QNetworkReply::HostNotFoundError;
    case QAbstractSocket::SocketTimeoutError:
        return QNetworkReply::TimeoutError;
    case QAbstractSocket::SslHandshakeFailedError:
        return QNetworkReply::SslHandshakeFailedError;
    case QAbstractSocket::ProxyConnectionRefusedError:
        return QNetworkReply::ProxyConnectionRefusedError;
    case QAbstractSocket::ProxyConnectionClosedError:
        return QNetworkReply::ProxyConnectionClosedError;
    case QAbstractSocket::ProxyConnectionTimeoutError:
        return QNetworkReply::ProxyTimeoutError;
    case QAbstractSocket::ProxyNotFoundError:
        return QNetworkReply::ProxyNotFoundError;
    case QAbstractSocket::ProxyAuthenticationRequiredError:
        return QNetworkReply::ProxyAuthenticationRequiredError;
    default:
        return QNetworkReply::UnknownNetworkError;
    }
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

// Where the head that starts at `from` ends: the offset just after its empty line, or -1 while
// incomplete. Lines end with CRLF; a bare LF is tolerated as HTTP clients do.
qsizetype headEnd(const QByteArray &buffer, qsizetype from)
{
    qsizetype lineStart = from;
    for (;;) {
        const qsizetype newline = buffer.indexOf('\n', lineStart);
        if (newline < 0)
            return -1;
        const qsizetype length = newline - lineStart;
        if (length == 0 || (length == 1 && buffer.at(lineStart) == '\r'))
            return newline + 1;
        lineStart = newline + 1;
    }
}

QByteArrayView chopCarriageReturn(QByteArrayView line)
{
    return line.endsWith('\r') ? line.chopped(1) : line;
}

// "close" among the comma-separated tokens of a Connection header.
bool listsClose(QByteArrayView connection)
{
    for (;;) {
        const qsizetype comma = connection.indexOf(',');
        const QByteArrayView token = comma < 0 ? connection : connection.first(comma);
        if (token.trimmed().compare("close", Qt::CaseInsensitive) == 0)
            return true;
        if (comma < 0)
            return false;
        connection = connection.sliced(comma + 1);
    }
}

} // namespace

struct WebhookClient::Exchange
{
    quint64 id = 0;
    HostPool *pool = nullptr;
    QByteArray bytes; // head and body: written at once, and kept for the one resend
    bool headRequest = false; // its response has no body
    bool resent = false;
    WebhookConnection *connection = nullptr; // null while it waits in the pool's queue
};

struct WebhookClient::HostPool
{
    QString host;
    quint16 port = 0;
    bool encrypted = false;
    QList<WebhookConnection *> connections; // open or opening, at most MaxConnectionsPerHost
    std::deque<Exchange *> waiting; // in the order sent
};

// One connection of a pool: writes its exchange's request and parses the response.
class WebhookConnection final : public QObject
{
public:
    enum class State { Connecting, Busy, Idle, Closed };

    WebhookConnection(WebhookClient *client, WebhookClient::HostPool *pool)
        : QObject(client)
        , m_client(client)
        , m_pool(pool)
    {
    }

    WebhookClient::HostPool *pool() const { return m_pool; }
    State state() const { return m_state; }
    bool isReused() const { return m_completedExchanges > 0; }
    qint64 idleSinceMs() const { return m_idleSinceMs; }
    // The final status once its line was parsed, 0 before.
    int status() const { return m_status; }

    bool isUsable() const
    {
        return m_state == State::Idle && !m_problem
            && m_socket->state() == QAbstractSocket::ConnectedState;
    }

    void open(WebhookClient::Exchange *exchange,
              const std::optional<QSslConfiguration> &sslConfiguration)
    {
        attach(exchange);
        m_state = State::Connecting;
        if (m_pool->encrypted) {
            auto *socket = new QSslSocket(this);
            if (sslConfiguration)
                socket->setSslConfiguration(*sslConfiguration);
            m_socket = socket;
            connect(socket, &QSslSocket::encrypted, this, &WebhookConnection::onConnected);
        } else {
            m_socket = new QTcpSocket(this);
            connect(m_socket, &QAbstractSocket::connected, this, &WebhookConnection::onConnected);
        }
        connect(m_socket, &QIODevice::readyRead, this, &WebhookConnection::onReadyRead);
        // Failures are handled from the event loop, never inside a call into the socket
        // (connectToHost and flush may report one at once).
        connect(m_socket, &QAbstractSocket::errorOccurred, this,
                [this](QAbstractSocket::SocketError error) { noteProblem(error); });
        connect(m_socket, &QAbstractSocket::disconnected, this,
                [this] { noteProblem(QAbstractSocket::RemoteHostClosedError); });
        if (auto *socket = qobject_cast<QSslSocket *>(m_socket))
            socket->connectToHostEncrypted(m_pool->host, m_pool->port);
        else
            m_socket->connectToHost(m_pool->host, m_pool->port);
    }

    // A kept-alive connection takes its next exchange.
    void reuse(WebhookClient::Exchange *exchange)
    {
        attach(exchange);
        writeRequest();
    }

    WebhookClient::Exchange *detach()
    {
        WebhookClient::Exchange *exchange = m_exchange;
        if (exchange)
            exchange->connection = nullptr;
        m_exchange = nullptr;
        return exchange;
    }

    void becomeIdle(qint64 nowMs)
    {
        ++m_completedExchanges;
        m_state = State::Idle;
        m_idleSinceMs = nowMs;
    }

    void shutDown()
    {
        m_state = State::Closed;
        detach();
        if (m_socket) {
            disconnect(m_socket, nullptr, this, nullptr);
            m_socket->abort();
        }
        deleteLater();
    }

private:
    enum class Stage { Head, Length, ChunkSize, ChunkData, ChunkEnd, Trailer, UntilClose };
    enum class Progress { NeedMore, Handed }; // Handed: the exchange went back to the client

    void attach(WebhookClient::Exchange *exchange)
    {
        m_exchange = exchange;
        exchange->connection = this;
        m_stage = Stage::Head;
        m_status = 0;
        m_closeAfter = false;
        m_remaining = 0;
        m_bodyBytes = 0;
        m_responseStarted = false;
        m_state = State::Busy;
    }

    void writeRequest()
    {
        m_state = State::Busy;
        m_socket->write(m_exchange->bytes);
        // Sent now rather than on the next write notification: one wake-up less per request.
        m_socket->flush();
    }

    void onConnected()
    {
        if (m_state != State::Connecting || !m_exchange)
            return;
        m_socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
        writeRequest();
    }

    void onReadyRead()
    {
        if (m_state == State::Closed)
            return;
        const WebhookClient::SignalScope scope(*m_client);
        readAvailable();
        if (!m_exchange) {
            // Bytes on an idle connection answer nothing that was asked (a server's goodbye, a
            // stray response): it cannot be trusted with another request.
            if (m_state == State::Idle)
                m_client->closeConnection(this);
            return;
        }
        parse();
    }

    void readAvailable()
    {
        // A buffered socket has taken everything readable in one read; it is moved over whole.
        if (m_offset >= m_buffer.size()) {
            m_buffer = m_socket->readAll();
            m_offset = 0;
        } else {
            m_buffer.append(m_socket->readAll());
        }
        if (m_offset < m_buffer.size())
            m_responseStarted = true;
    }

    void noteProblem(QAbstractSocket::SocketError error)
    {
        if (m_problem)
            return;
        m_problem = true;
        m_problemError = error;
        QMetaObject::invokeMethod(this, &WebhookConnection::onProblem, Qt::QueuedConnection);
    }

    void onProblem()
    {
        if (m_state == State::Closed)
            return;
        const WebhookClient::SignalScope scope(*m_client);
        if (m_socket->bytesAvailable() > 0 && m_exchange) {
            readAvailable();
            if (parse() == Progress::Handed)
                return;
        }
        if (!m_exchange) {
            m_client->closeConnection(this);
            return;
        }
        if (m_stage == Stage::UntilClose) {
            // The body ran until the server closed: that is the end of this response.
            m_client->finish(this, m_status, QNetworkReply::NoError, false);
            return;
        }
        m_client->fail(this, m_status, networkError(m_problemError), m_responseStarted);
    }

    Progress protocolFailure(const char *what)
    {
        qCDebug(lcDelivery) << "malformed response from" << m_pool->host << m_pool->port << what;
        m_client->fail(this, m_stage == Stage::Head ? 0 : m_status, QNetworkReply::ProtocolFailure,
                       true);
        return Progress::Handed;
    }

    Progress complete()
    {
        const bool reusable = !m_closeAfter && m_offset == m_buffer.size()
            && m_socket->bytesToWrite() == 0 && !m_problem
            && m_socket->state() == QAbstractSocket::ConnectedState;
        m_buffer.clear();
        m_offset = 0;
        m_client->finish(this, m_status, QNetworkReply::NoError, reusable);
        return Progress::Handed;
    }

    // Counts body bytes that were read and discarded; past the cap the response ends here.
    bool overCap(qsizetype bytes)
    {
        m_bodyBytes += bytes;
        return m_bodyBytes > WebhookClient::MaxResponseBodyBytes;
    }

    Progress capReached()
    {
        qCDebug(lcDelivery) << "response body from" << m_pool->host << m_pool->port << "exceeds"
                            << WebhookClient::MaxResponseBodyBytes << "bytes: connection closed";
        m_client->finish(this, m_status, QNetworkReply::NoError, false);
        return Progress::Handed;
    }

    // Takes as much of the buffer as possible; the exchange may be handed back to the client, in
    // which case nothing more may be done with it here.
    Progress parse()
    {
        for (;;) {
            const qsizetype available = m_buffer.size() - m_offset;
            switch (m_stage) {
            case Stage::Head: {
                const qsizetype end = headEnd(m_buffer, m_offset);
                if (end < 0) {
                    if (available > WebhookClient::MaxResponseHeadBytes)
                        return protocolFailure("head too long");
                    return Progress::NeedMore;
                }
                if (end - m_offset > WebhookClient::MaxResponseHeadBytes)
                    return protocolFailure("head too long");
                const QByteArrayView head(m_buffer.constData() + m_offset, end - m_offset);
                m_offset = end;
                if (!parseHead(head))
                    return protocolFailure("malformed status line or header");
                if (m_status < 200) {
                    m_status = 0; // an interim response (100 Continue): the final one follows
                    continue;
                }
                if (m_stage == Stage::Head) // no body
                    return complete();
                continue;
            }
            case Stage::Length:
            case Stage::ChunkData: {
                const qsizetype taken = qsizetype(std::min<qint64>(available, m_remaining));
                m_offset += taken;
                m_remaining -= taken;
                if (overCap(taken))
                    return capReached();
                if (m_remaining > 0)
                    return Progress::NeedMore;
                if (m_stage == Stage::Length)
                    return complete();
                m_stage = Stage::ChunkEnd;
                continue;
            }
            case Stage::ChunkSize: {
                const qsizetype newline = m_buffer.indexOf('\n', m_offset);
                if (newline < 0) {
                    if (available > WebhookClient::MaxResponseHeadBytes)
                        return protocolFailure("chunk size line too long");
                    return Progress::NeedMore;
                }
                QByteArrayView line = chopCarriageReturn(
                    QByteArrayView(m_buffer.constData() + m_offset, newline - m_offset));
                m_offset = newline + 1;
                if (const qsizetype extension = line.indexOf(';'); extension >= 0)
                    line = line.first(extension); // chunk extensions are ignored
                bool ok = false;
                const qint64 size = line.trimmed().toLongLong(&ok, 16);
                if (!ok || size < 0)
                    return protocolFailure("malformed chunk size");
                m_remaining = size;
                m_stage = size == 0 ? Stage::Trailer : Stage::ChunkData;
                continue;
            }
            case Stage::ChunkEnd: {
                if (available < 1)
                    return Progress::NeedMore;
                if (m_buffer.at(m_offset) == '\r') {
                    if (available < 2)
                        return Progress::NeedMore;
                    ++m_offset;
                }
                if (m_buffer.at(m_offset) != '\n')
                    return protocolFailure("chunk not followed by a line break");
                ++m_offset;
                m_stage = Stage::ChunkSize;
                continue;
            }
            case Stage::Trailer: {
                const qsizetype newline = m_buffer.indexOf('\n', m_offset);
                if (newline < 0) {
                    if (available > WebhookClient::MaxResponseHeadBytes)
                        return protocolFailure("trailer too long");
                    return Progress::NeedMore;
                }
                const bool emptyLine
                    = chopCarriageReturn(
                          QByteArrayView(m_buffer.constData() + m_offset, newline - m_offset))
                          .isEmpty();
                m_offset = newline + 1;
                if (emptyLine)
                    return complete();
                continue;
            }
            case Stage::UntilClose:
                m_offset = m_buffer.size();
                if (overCap(available))
                    return capReached();
                return Progress::NeedMore;
            }
        }
    }

    // The status line and headers (RFC 9112 §4, §5). Sets the status and how the body is framed
    // (RFC 9112 §6.3); the stage stays Head for a response without a body.
    bool parseHead(QByteArrayView head)
    {
        qsizetype lineStart = 0;
        auto nextLine = [&]() -> QByteArrayView {
            const qsizetype newline = head.indexOf('\n', lineStart);
            const QByteArrayView line = head.sliced(lineStart, newline - lineStart);
            lineStart = newline + 1;
            return chopCarriageReturn(line);
        };

        // HTTP/1.x SP 3DIGIT [SP reason]
        const QByteArrayView statusLine = nextLine();
        if (statusLine.size() < 12 || !statusLine.startsWith("HTTP/1.")
            || !std::isdigit(static_cast<unsigned char>(statusLine.at(7)))
            || statusLine.at(8) != ' ')
            return false;
        for (int i = 9; i < 12; ++i) {
            if (!std::isdigit(static_cast<unsigned char>(statusLine.at(i))))
                return false;
        }
        if (statusLine.size() > 12 && statusLine.at(12) != ' ')
            return false;
        const int status = (statusLine.at(9) - '0') * 100 + (statusLine.at(10) - '0') * 10
            + (statusLine.at(11) - '0');
        if (status < 100 || status > 599 || status == 101) // 101: no upgrade was asked for
            return false;
        const bool http10 = statusLine.at(7) == '0';

        qint64 contentLength = -1;
        bool chunked = false;
        bool transferEncoded = false;
        bool close = http10;
        QByteArrayView lastName;
        for (;;) {
            const QByteArrayView line = nextLine();
            if (line.isEmpty())
                break;
            if (line.front() == ' ' || line.front() == '\t') {
                if (lastName.isEmpty())
                    return false;
                continue; // obsolete line folding of a header the client does not read
            }
            const qsizetype colon = line.indexOf(':');
            if (colon <= 0)
                return false;
            const QByteArrayView name = line.first(colon);
            if (name.contains(' ') || name.contains('\t'))
                return false;
            const QByteArrayView value = line.sliced(colon + 1).trimmed();
            lastName = name;
            if (isHeaderName(name, "content-length")) {
                bool ok = false;
                const qint64 length = value.toLongLong(&ok);
                if (!ok || length < 0 || (contentLength >= 0 && length != contentLength))
                    return false;
                contentLength = length;
            } else if (isHeaderName(name, "transfer-encoding")) {
                transferEncoded = true;
                const qsizetype lastComma = value.lastIndexOf(',');
                const QByteArrayView lastCoding
                    = lastComma < 0 ? value : value.sliced(lastComma + 1).trimmed();
                chunked = lastCoding.compare("chunked", Qt::CaseInsensitive) == 0;
            } else if (isHeaderName(name, "connection")) {
                close = close || listsClose(value);
            }
        }

        m_status = status;
        if (status < 200)
            return true;
        m_closeAfter = close;
        if (m_exchange->headRequest || status == 204 || status == 304) {
            m_stage = Stage::Head;
        } else if (transferEncoded) {
            // A Content-Length next to a Transfer-Encoding is ignored, and the connection is not
            // trusted afterwards (RFC 9112 §6.3, rule 3).
            m_closeAfter = m_closeAfter || contentLength >= 0 || !chunked;
            m_stage = chunked ? Stage::ChunkSize : Stage::UntilClose;
        } else if (contentLength >= 0) {
            m_remaining = contentLength;
            m_stage = contentLength > 0 ? Stage::Length : Stage::Head;
        } else {
            m_closeAfter = true;
            m_stage = Stage::UntilClose;
        }
        return true;
    }

    WebhookClient *m_client;
    WebhookClient::HostPool *m_pool;
    QTcpSocket *m_socket = nullptr;
    WebhookClient::Exchange *m_exchange = nullptr;
    State m_state = State::Connecting;
    int m_completedExchanges = 0;
    qint64 m_idleSinceMs = 0;
    bool m_problem = false;
    QAbstractSocket::SocketError m_problemError = QAbstractSocket::UnknownSocketError;

    QByteArray m_buffer; // read but not parsed yet from m_offset on
    qsizetype m_offset = 0;
    Stage m_stage = Stage::Head;
    int m_status = 0;
    bool m_closeAfter = false;
    qint64 m_remaining = 0; // of the body (Length) or of the chunk (ChunkData)
    qint64 m_bodyBytes = 0;
    bool m_responseStarted = false; // a byte of the response arrived: never send it again
};

WebhookClient::SignalScope::~SignalScope()
{
    if (--m_client.m_scopeDepth == 0)
        m_client.deliverReports();
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
    exchange->id = requestId;
    exchange->headRequest = method == "HEAD";
    QByteArray &bytes = exchange->bytes;
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
        closeConnection(connection); // its response is unfinished: it cannot be reused
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
            closeConnection(connection);
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
        auto pool = std::make_unique<HostPool>();
        pool->host = host;
        pool->port = quint16(port);
        pool->encrypted = scheme == "https"_L1;
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
                closeConnection(connection); // closed by the server while it was idle
                continue;
            }
            idle = connection;
            break;
        }
        if (idle) {
            Exchange *exchange = pool.waiting.front();
            pool.waiting.pop_front();
            idle->reuse(exchange);
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
    auto *connection = new WebhookConnection(this, &pool);
    pool.connections.append(connection);
    connection->open(exchange, m_sslConfiguration);
}

void WebhookClient::finish(WebhookConnection *connection, int httpStatus,
                           QNetworkReply::NetworkError error, bool reusable)
{
    HostPool &pool = *connection->pool();
    const quint64 requestId = connection->detach()->id;
    m_exchanges.erase(requestId);
    report(requestId, httpStatus,
           error == QNetworkReply::NoError ? statusError(httpStatus) : error);
    if (reusable)
        connection->becomeIdle(m_clock.elapsed());
    else
        closeConnection(connection);
    pump(pool);
}

void WebhookClient::fail(WebhookConnection *connection, int httpStatus,
                         QNetworkReply::NetworkError error, bool responseStarted)
{
    HostPool &pool = *connection->pool();
    const bool reused = connection->isReused();
    Exchange *exchange = connection->detach();
    closeConnection(connection);
    if (reused && !responseStarted && !exchange->resent) {
        // A kept-alive connection the server closed as the request went out (its idle timeout):
        // nothing of a response arrived, so the request is sent once more on a new connection.
        // Only then: a request whose response started is never sent twice.
        qCDebug(lcDelivery) << "kept-alive connection to" << pool.host << pool.port
                            << "failed before answering; sending once more on a new connection";
        exchange->resent = true;
        openConnection(pool, exchange);
    } else {
        const quint64 requestId = exchange->id;
        m_exchanges.erase(requestId);
        report(requestId, httpStatus, error);
    }
    pump(pool);
}

void WebhookClient::closeConnection(WebhookConnection *connection)
{
    connection->pool()->connections.removeOne(connection);
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
                closeConnection(connection);
        }
        if (pool.connections.isEmpty() && pool.waiting.empty())
            it = m_pools.erase(it);
        else
            ++it;
    }
    if (m_pools.empty())
        m_idleTimer->stop();
}

void WebhookClient::report(quint64 requestId, int httpStatus, QNetworkReply::NetworkError error)
{
    m_reports.push_back({requestId, httpStatus, error});
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

void WebhookClient::deliverReports()
{
    // Reports made by the handler's own calls (abort, a send that fails at once) join this loop
    // instead of recursing.
    ++m_scopeDepth;
    while (!m_reports.empty()) {
        const Report next = m_reports.front();
        m_reports.pop_front();
        if (m_handler)
            m_handler(next.requestId, next.httpStatus, next.error);
    }
    --m_scopeDepth;
}

} // namespace EventDesk
