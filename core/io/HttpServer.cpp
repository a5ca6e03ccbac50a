// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "HttpServer.h"

#include "../Logging.h"
#include "HttpSyntax.h"

#include <QTcpServer>
#include <QTcpSocket>
#include <QTimerEvent>
#include <QUrl>

#include <algorithm>
#include <utility>

using namespace Qt::StringLiterals;

namespace EventDesk {

QByteArray HttpRequest::header(QByteArrayView name) const
{
    for (const auto &[key, value] : headers) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return {};
}

bool HttpRequest::hasHeader(QByteArrayView name) const
{
    for (const auto &header : headers) {
        if (header.first.compare(name, Qt::CaseInsensitive) == 0)
            return true;
    }
    return false;
}

HttpResponse HttpResponse::json(int status, const QByteArray &body)
{
    return HttpResponse{status, "application/json; charset=utf-8", body, {}};
}

HttpResponse HttpResponse::text(int status, const QByteArray &body, const QByteArray &contentType)
{
    return HttpResponse{status, contentType, body, {}};
}

namespace {

// A chunk-size line (size and extensions) longer than this is refused; so are chunk extensions
// of more than MaxHeaderBytes in one body, and trailers of more than MaxHeaderBytes: a client
// that pads its framing must not make the server read without limit while no body arrives.
constexpr qsizetype MaxChunkSizeLineBytes = 4096;
// Bytes a connection reads ahead of the request being handled: a client that pipelines without
// waiting for answers fills this, then TCP flow control makes it wait.
constexpr qint64 ReadBufferBytes = 1024 * 1024;

QByteArray responseHead(const HttpResponse &response, bool close)
{
    QByteArray head = "HTTP/1.1 " + QByteArray::number(response.status) + ' '
                      + HttpServer::reasonPhrase(response.status) + "\r\n";
    if (!response.contentType.isEmpty())
        head += "Content-Type: " + response.contentType + "\r\n";
    for (const auto &[name, value] : response.headers)
        head += name + ": " + value + "\r\n";
    head += "Content-Length: " + QByteArray::number(response.body.size()) + "\r\n";
    if (close)
        head += "Connection: close\r\n";
    head += "\r\n";
    return head;
}

} // namespace

// One TCP connection: parses requests one after the other and answers them in order (a request
// that arrives while an earlier one awaits its answer waits, unread, in the socket).
class HttpConnection final : public QObject
{
public:
    HttpConnection(QTcpSocket *socket, HttpServer *server)
        : QObject(server)
        , m_socket(socket)
        , m_server(server)
    {
        socket->setParent(this);
        socket->setReadBufferSize(ReadBufferBytes);
        connect(socket, &QTcpSocket::readyRead, this, &HttpConnection::process);
        connect(socket, &QTcpSocket::disconnected, this, &HttpConnection::onDisconnected);
        setDeadline(Wait::Head);
    }

    ~HttpConnection() override { m_server->forgetConnection(this); }

    void respond(quint64 exchange, const HttpResponse &response)
    {
        if (exchange != m_exchange || !m_awaitingAnswer)
            return;
        m_awaitingAnswer = false;
        write(response, m_closeAfterAnswer);
        if (m_closeAfterAnswer) {
            close();
            return;
        }
        setDeadline(Wait::Idle);
        // Pipelined requests already buffered are handled after this turn of the event loop, so
        // a handler answering synchronously never recurses into the next request.
        QMetaObject::invokeMethod(this, &HttpConnection::process, Qt::QueuedConnection);
    }

    void closeWithoutAnswer(quint64 exchange)
    {
        if (exchange != m_exchange || !m_awaitingAnswer)
            return;
        m_awaitingAnswer = false;
        m_closing = true;
        setDeadline(Wait::None);
        // abort(): the peer sees the connection end with no response at all.
        m_socket->abort();
        deleteLater();
    }

    bool isOpen(quint64 exchange) const
    {
        return exchange == m_exchange && m_awaitingAnswer && !m_closing
               && m_socket->state() == QAbstractSocket::ConnectedState;
    }

    bool isOverdue(qint64 nowMs) const { return m_deadlineMs >= 0 && nowMs >= m_deadlineMs; }

    // Called by the server's sweep once the deadline has passed.
    void timeOut()
    {
        switch (m_wait) {
        case Wait::None:
            return;
        case Wait::Head:
            if (m_buffer.isEmpty()) {
                qCDebug(lcEndpoint) << "closing a connection that sent no request" << m_socket->peerAddress();
                close();
            } else {
                fail(408, u"the request head was not complete within %1 ms"_s.arg(
                              m_server->connectionLimits().headerTimeoutMs));
            }
            return;
        case Wait::Body:
            fail(408, u"no part of the request body arrived for %1 ms"_s.arg(
                          m_server->connectionLimits().bodyTimeoutMs));
            return;
        case Wait::Idle:
            close();
            return;
        case Wait::Closing:
            // The peer does not take the last answer: stop waiting for it.
            setDeadline(Wait::None);
            m_socket->abort();
            deleteLater();
            return;
        }
    }

private:
    enum class Stage { Head, Body, ChunkSize, ChunkData, ChunkTrailer };
    // What the connection's deadline is for (HttpConnectionLimits).
    enum class Wait { None, Head, Body, Idle, Closing };

    void setDeadline(Wait wait)
    {
        m_wait = wait;
        const HttpConnectionLimits &limits = m_server->connectionLimits();
        switch (wait) {
        case Wait::None:
            m_deadlineMs = -1;
            return;
        case Wait::Head:
        case Wait::Closing: // a last answer gets as long to leave as a head has to arrive
            m_deadlineMs = m_server->monotonicMs() + limits.headerTimeoutMs;
            return;
        case Wait::Body:
            m_deadlineMs = m_server->monotonicMs() + limits.bodyTimeoutMs;
            return;
        case Wait::Idle:
            m_deadlineMs = m_server->monotonicMs() + limits.idleTimeoutMs;
            return;
        }
    }

    // After a step of parsing: which deadline applies now. A head's deadline is set once, when
    // its first byte arrives (not moved by each byte: a head sent one byte at a time still ends);
    // a body's moves with every read that brings some of it.
    void updateDeadline(bool bytesArrived)
    {
        if (m_closing)
            return;
        if (m_awaitingAnswer) {
            if (m_wait != Wait::None)
                setDeadline(Wait::None);
            return;
        }
        if (m_stage == Stage::Head) {
            if (m_wait == Wait::Idle && !m_buffer.isEmpty())
                setDeadline(Wait::Head);
            else if (m_wait == Wait::None || m_wait == Wait::Body)
                setDeadline(m_buffer.isEmpty() ? Wait::Idle : Wait::Head);
            return;
        }
        if (bytesArrived || m_wait != Wait::Body)
            setDeadline(Wait::Body);
    }

    void onDisconnected()
    {
        m_closing = true;
        setDeadline(Wait::None);
        deleteLater();
    }

    // Closes once what was written has left; the Closing deadline bounds how long that may take.
    void close()
    {
        m_closing = true;
        setDeadline(Wait::Closing);
        m_socket->disconnectFromHost();
    }

    void fail(int status, const QString &message)
    {
        qCDebug(lcEndpoint) << "bad request from" << m_socket->peerAddress() << status << message;
        write(m_server->errorResponse(status, message), true);
        close();
    }

    void write(const HttpResponse &response, bool close)
    {
        m_socket->write(responseHead(response, close));
        if (!response.body.isEmpty())
            m_socket->write(response.body);
    }

    void process()
    {
        // While a request awaits its answer, what follows stays in the socket (bounded by its read
        // buffer), so a client pipelining without end cannot grow this connection's memory.
        if (m_closing || m_awaitingAnswer)
            return;
        // Read straight into the buffer (a body has its room reserved once its length is known,
        // below), rather than into a temporary array that is then appended.
        bool bytesArrived = false;
        if (const qint64 available = m_socket->bytesAvailable(); available > 0) {
            const qsizetype filled = m_buffer.size();
            m_buffer.resize(filled + qsizetype(available));
            const qint64 read = m_socket->read(m_buffer.data() + filled, available);
            m_buffer.resize(filled + qsizetype(std::max<qint64>(read, 0)));
            bytesArrived = read > 0;
        }
        while (!m_closing && !m_awaitingAnswer) {
            if (!step())
                break;
        }
        updateDeadline(bytesArrived);
    }

    // Advances the parser by one stage; false when it needs more data.
    bool step()
    {
        switch (m_stage) {
        case Stage::Head:
            return parseHead();
        case Stage::Body: {
            if (m_buffer.size() < m_contentLength)
                return false;
            if (m_buffer.size() == m_contentLength) {
                m_request.body = std::move(m_buffer); // the usual case: no copy of a large body
                m_buffer = QByteArray();
            } else {
                m_request.body = m_buffer.left(m_contentLength);
                m_buffer.remove(0, m_contentLength);
            }
            dispatch();
            return true;
        }
        case Stage::ChunkSize: {
            const qsizetype end = m_buffer.indexOf("\r\n");
            if (end < 0) {
                if (m_buffer.size() > MaxChunkSizeLineBytes)
                    fail(400, u"a chunk size line is longer than %1 bytes"_s.arg(MaxChunkSizeLineBytes));
                return false;
            }
            if (end > MaxChunkSizeLineBytes) {
                fail(400, u"a chunk size line is longer than %1 bytes"_s.arg(MaxChunkSizeLineBytes));
                return false;
            }
            const auto line = HttpSyntax::parseChunkSizeLine(QByteArrayView(m_buffer).first(end));
            if (!line) {
                fail(400, u"malformed chunked request body: %1"_s.arg(line.error()));
                return false;
            }
            m_chunkOverheadBytes += line->extensionBytes;
            if (m_chunkOverheadBytes > HttpServer::MaxHeaderBytes) {
                fail(400, u"the chunk extensions of a request exceed %1 bytes"_s.arg(HttpServer::MaxHeaderBytes));
                return false;
            }
            m_buffer.remove(0, end + 2);
            if (line->size > m_server->maxBodyBytes() - m_request.body.size()) {
                fail(413, u"the request body exceeds %1 bytes"_s.arg(m_server->maxBodyBytes()));
                return false;
            }
            m_contentLength = qsizetype(line->size);
            m_stage = line->size == 0 ? Stage::ChunkTrailer : Stage::ChunkData;
            if (line->size == 0)
                m_chunkOverheadBytes = 0; // from here on it counts the trailer
            return true;
        }
        case Stage::ChunkData: {
            if (m_buffer.size() < m_contentLength + 2)
                return false;
            if (m_buffer.mid(m_contentLength, 2) != "\r\n") {
                fail(400, u"malformed chunked request body: a chunk does not end with CRLF"_s);
                return false;
            }
            m_request.body.append(QByteArrayView(m_buffer).first(m_contentLength));
            m_buffer.remove(0, m_contentLength + 2);
            m_stage = Stage::ChunkSize;
            return true;
        }
        case Stage::ChunkTrailer: {
            const qsizetype end = m_buffer.indexOf("\r\n");
            if (m_chunkOverheadBytes + (end < 0 ? m_buffer.size() : end) > HttpServer::MaxHeaderBytes) {
                fail(431, u"the trailer of a chunked request exceeds %1 bytes"_s.arg(HttpServer::MaxHeaderBytes));
                return false;
            }
            if (end < 0)
                return false;
            m_chunkOverheadBytes += end + 2;
            m_buffer.remove(0, end + 2);
            if (end == 0)
                dispatch(); // the empty line that ends the trailer (trailer fields are not used)
            return true;
        }
        }
        return false;
    }

    bool parseHead()
    {
        // Tolerate empty lines between pipelined requests (RFC 9112 §2.2).
        while (m_buffer.startsWith("\r\n"))
            m_buffer.remove(0, 2);
        const qsizetype end = m_buffer.indexOf("\r\n\r\n");
        if (end < 0) {
            if (m_buffer.size() > HttpServer::MaxHeaderBytes)
                fail(431, u"the request head exceeds %1 bytes"_s.arg(HttpServer::MaxHeaderBytes));
            return false;
        }
        const QByteArray head = m_buffer.left(end);
        m_buffer.remove(0, end + 4);
        // Lines end with CRLF only: a bare LF or CR (RFC 9112 §2.2) is refused below, as another
        // parser could end a line there and see a header this one does not.
        const QList<QByteArray> lines = head.split('\n');
        for (qsizetype i = 0; i < lines.size(); ++i) {
            const QByteArray &line = lines.at(i);
            const qsizetype length = i + 1 < lines.size() ? line.size() - 1 : line.size();
            if ((i + 1 < lines.size() && !line.endsWith('\r')) || QByteArrayView(line).first(length).contains('\r')) {
                fail(400, u"line %1 of the request head ends with a bare LF or holds a bare CR"_s.arg(i + 1));
                return false;
            }
        }
        const QByteArray requestLineText = lines.front().trimmed();
        const QList<QByteArray> requestLine = requestLineText.split(' ');
        if (requestLine.size() != 3 || !requestLine.at(2).startsWith("HTTP/1.")
            || !HttpSyntax::isFieldValue(requestLineText)) {
            fail(400, u"malformed request line"_s);
            return false;
        }
        m_request = HttpRequest();
        m_request.method = requestLine.at(0);
        m_request.target = requestLine.at(1);
        m_request.peerAddress = m_socket->peerAddress();
        const bool http10 = requestLine.at(2) == "HTTP/1.0";
        for (qsizetype i = 1; i < lines.size(); ++i) {
            const QByteArray &line = lines.at(i);
            const QByteArrayView text = QByteArrayView(line).first(line.endsWith('\r') ? line.size() - 1 : line.size());
            // RFC 9112 §5.2: obsolete line folding is refused, not unfolded.
            if (!text.isEmpty() && (text.front() == ' ' || text.front() == '\t')) {
                fail(400, u"header line %1 starts with whitespace (obsolete line folding is not accepted)"_s.arg(i));
                return false;
            }
            const qsizetype colon = text.indexOf(':');
            if (colon <= 0) {
                fail(400, u"malformed header line %1"_s.arg(i));
                return false;
            }
            // RFC 9112 §5.1: whitespace between the field name and the colon must be answered 400.
            const QByteArrayView name = text.first(colon);
            if (!HttpSyntax::isToken(name)) {
                fail(400, u"header line %1: the field name is not a token (no whitespace before the colon)"_s.arg(i));
                return false;
            }
            const QByteArrayView value = HttpSyntax::trimmedWhitespace(text.sliced(colon + 1));
            if (!HttpSyntax::isFieldValue(value)) {
                fail(400, u"header line %1: the value holds a control character"_s.arg(i));
                return false;
            }
            m_request.headers.append({name.toByteArray(), value.toByteArray()});
        }

        const QUrl url = QUrl::fromEncoded(m_request.target);
        if (!url.isValid() || !m_request.target.startsWith('/')) {
            fail(400, u"malformed request target"_s);
            return false;
        }
        m_request.path = url.path(QUrl::FullyDecoded);
        for (const QString &segment : url.path(QUrl::FullyEncoded).split(u'/', Qt::SkipEmptyParts))
            m_request.pathSegments.append(QUrl::fromPercentEncoding(segment.toUtf8()));
        m_request.query = QUrlQuery(url);

        const QByteArray connection = m_request.header("Connection").toLower();
        m_closeAfterAnswer = http10 ? !connection.contains("keep-alive") : connection.contains("close");
        return parseFraming(http10);
    }

    // How the body is delimited (RFC 9112 §6.3). Every ambiguity is answered 400 and the
    // connection closed, since a proxy in front could have read the message differently.
    bool parseFraming(bool http10)
    {
        QByteArray transferEncoding;
        int transferEncodingLines = 0;
        QByteArray contentLength;
        int contentLengthLines = 0;
        for (const auto &[name, value] : std::as_const(m_request.headers)) {
            if (name.compare("Transfer-Encoding", Qt::CaseInsensitive) == 0) {
                if (transferEncodingLines++ > 0)
                    transferEncoding += ','; // RFC 9110 §5.3: the lines form one list
                transferEncoding += value;
            } else if (name.compare("Content-Length", Qt::CaseInsensitive) == 0) {
                contentLength = value;
                ++contentLengthLines;
            }
        }
        m_chunkOverheadBytes = 0;
        if (transferEncodingLines > 0) {
            if (http10) { // RFC 9112 §6.1: the framing of such a message is faulty
                fail(400, u"Transfer-Encoding in an HTTP/1.0 request"_s);
                return false;
            }
            if (contentLengthLines > 0) { // RFC 9112 §6.1 allows refusing; it is the smuggling case
                fail(400, u"a request must not carry both Content-Length and Transfer-Encoding"_s);
                return false;
            }
            switch (HttpSyntax::classifyTransferEncoding(transferEncoding)) {
            case HttpSyntax::TransferEncoding::Invalid:
                fail(400, u"Transfer-Encoding '%1' does not end with chunked (once)"_s.arg(
                              QString::fromLatin1(transferEncoding.left(100))));
                return false;
            case HttpSyntax::TransferEncoding::ChunkedAfterOtherCoding:
                fail(501, u"transfer encoding '%1' is not supported (only chunked)"_s.arg(
                              QString::fromLatin1(transferEncoding.left(100))));
                return false;
            case HttpSyntax::TransferEncoding::Chunked:
                break;
            }
            sendContinue();
            m_stage = Stage::ChunkSize;
            return true;
        }
        // RFC 9110 §8.6 lets a recipient accept repeated identical values ("5, 5" or two lines of
        // "5"); they are refused all the same: no client sends them, and a proxy that kept one of
        // two differing values would frame the stream differently.
        if (contentLengthLines > 1) {
            fail(400, u"a request must not carry more than one Content-Length"_s);
            return false;
        }
        qsizetype length = 0;
        if (contentLengthLines == 1) {
            const qint64 parsed = HttpSyntax::parseContentLength(contentLength);
            if (parsed < 0) {
                fail(400, u"malformed Content-Length (decimal digits only)"_s);
                return false;
            }
            if (parsed > m_server->maxBodyBytes()) {
                fail(413, u"the request body (%1 bytes) exceeds %2 bytes"_s.arg(parsed).arg(
                              m_server->maxBodyBytes()));
                return false;
            }
            length = qsizetype(parsed);
        }
        if (length > 0)
            sendContinue();
        m_contentLength = length;
        // The body is read into the buffer in place; room for a publish-sized body is reserved at
        // once; larger ones grow as their bytes arrive, so a length alone never reserves more.
        m_buffer.reserve(std::min<qsizetype>(length, 2 * 1024 * 1024));
        m_stage = Stage::Body;
        return true;
    }

    void sendContinue()
    {
        if (m_request.header("Expect").compare("100-continue", Qt::CaseInsensitive) == 0)
            m_socket->write("HTTP/1.1 100 Continue\r\n\r\n");
    }

    void dispatch()
    {
        m_stage = Stage::Head;
        m_awaitingAnswer = true;
        ++m_exchange;
        const HttpRequest request = std::move(m_request);
        m_request = HttpRequest();
        m_server->dispatch(request, HttpReply(this, m_exchange));
    }

    QTcpSocket *m_socket;
    HttpServer *m_server;
    QByteArray m_buffer;
    HttpRequest m_request;
    Stage m_stage = Stage::Head;
    qsizetype m_contentLength = 0;
    qsizetype m_chunkOverheadBytes = 0; // chunk extensions, then trailer, of the current request
    quint64 m_exchange = 0;
    Wait m_wait = Wait::None;
    qint64 m_deadlineMs = -1; // on HttpServer::monotonicMs(); -1: none
    bool m_awaitingAnswer = false;
    bool m_closeAfterAnswer = false;
    bool m_closing = false;
};

void HttpReply::respond(const HttpResponse &response) const
{
    if (auto *connection = static_cast<HttpConnection *>(m_connection.data()))
        connection->respond(m_exchange, response);
}

void HttpReply::closeWithoutAnswer() const
{
    if (auto *connection = static_cast<HttpConnection *>(m_connection.data()))
        connection->closeWithoutAnswer(m_exchange);
}

bool HttpReply::isOpen() const
{
    const auto *connection = static_cast<const HttpConnection *>(m_connection.data());
    return connection && connection->isOpen(m_exchange);
}

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
    delete m_tcpServer;
    m_tcpServer = tcpServer;
    connect(tcpServer, &QTcpServer::newConnection, this, &HttpServer::onNewConnection);
    connect(tcpServer, &QTcpServer::acceptError, this, &HttpServer::onAcceptError);
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
    m_acceptErrorLogged = false;
    while (QTcpSocket *socket = m_tcpServer->nextPendingConnection()) {
        if (m_connections.size() >= m_limits.maxConnections) {
            refuse(socket);
            continue;
        }
        if (m_refusing) {
            m_refusing = false;
            qCInfo(lcEndpoint) << "below the limit of" << m_limits.maxConnections << "connections again";
        }
        m_connections.insert(new HttpConnection(socket, this));
    }
    startSweep();
}

// README "Hostile HTTP": over the cap, a client is answered 503 at once, in the server's error
// shape (Event Grid's on the endpoint), with "Connection: close". The SDKs retry a 503, and a
// reason is better than a reset that looks like EventDesk crashed. Nothing of the request is
// read; a 503 of ~150 bytes fits the socket's buffer, so the socket closes at the next turn of the
// event loop and needs no deadline of its own.
void HttpServer::refuse(QTcpSocket *socket)
{
    if (!m_refusing) {
        m_refusing = true;
        qCWarning(lcEndpoint) << "the limit of" << m_limits.maxConnections
                              << "connections is reached: answering new connections 503";
    }
    connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
    const HttpResponse response = errorResponse(
        503, u"EventDesk is serving the most connections it accepts at once (%1); try again shortly"_s.arg(
                 m_limits.maxConnections));
    socket->write(responseHead(response, true) + response.body);
    socket->disconnectFromHost();
}

// QTcpServer stops accepting after any error that is not temporary, including running out of
// file descriptors, and would not start again by itself: the sweep resumes it.
void HttpServer::onAcceptError(QAbstractSocket::SocketError error)
{
    if (!m_acceptErrorLogged) {
        m_acceptErrorLogged = true;
        qCWarning(lcEndpoint) << "cannot accept a connection:" << error << m_tcpServer->errorString()
                              << "- trying again shortly";
    }
    m_acceptPaused = true;
    startSweep();
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
    const int shortest = std::min({m_limits.headerTimeoutMs, m_limits.bodyTimeoutMs, m_limits.idleTimeoutMs});
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
    if (m_acceptPaused && m_tcpServer) {
        m_acceptPaused = false;
        m_tcpServer->resumeAccepting();
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
    if (m_connections.isEmpty() && !m_acceptPaused)
        m_sweepTimer.stop();
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
    switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 203: return "Non-Authoritative Information";
    case 204: return "No Content";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 304: return "Not Modified";
    case 307: return "Temporary Redirect";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 413: return "Payload Too Large";
    case 415: return "Unsupported Media Type";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return "Status";
    }
}

} // namespace EventDesk
