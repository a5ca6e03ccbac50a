#include "HttpServer.h"

#include "../Logging.h"

#include <QTcpServer>

#include <algorithm>
#include <QTcpSocket>
#include <QUrl>


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

// One TCP connection: parses requests one after the other and answers them in order (a request
// that arrives while an earlier one awaits its answer waits in the buffer).
class HttpConnection final : public QObject
{
public:
    HttpConnection(QTcpSocket *socket, HttpServer *server)
        : QObject(server)
        , m_socket(socket)
        , m_server(server)
    {
        socket->setParent(this);
        connect(socket, &QTcpSocket::readyRead, this, &HttpConnection::process);
        connect(socket, &QTcpSocket::disconnected, this, &HttpConnection::onDisconnected);
    }

    void respond(quint64 exchange, const HttpResponse &response)
    {
        if (exchange != m_exchange || !m_awaitingAnswer)
            return;
        m_awaitingAnswer = false;
        write(response, m_closeAfterAnswer);
        if (m_closeAfterAnswer) {
            m_closing = true;
            m_socket->disconnectFromHost();
            return;
        }
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
        // abort(): the peer sees the connection end with no response at all.
        m_socket->abort();
        deleteLater();
    }

    bool isOpen(quint64 exchange) const
    {
        return exchange == m_exchange && m_awaitingAnswer && !m_closing
               && m_socket->state() == QAbstractSocket::ConnectedState;
    }

private:
    enum class Stage { Head, Body, ChunkSize, ChunkData, ChunkTrailer };

    void onDisconnected()
    {
        m_closing = true;
        deleteLater();
    }

    void fail(int status, const QString &message)
    {
        qCDebug(lcEndpoint) << "bad request from" << m_socket->peerAddress() << status << message;
        write(m_server->errorResponse(status, message), true);
        m_closing = true;
        m_socket->disconnectFromHost();
    }

    void write(const HttpResponse &response, bool close)
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
        m_socket->write(head);
        if (!response.body.isEmpty())
            m_socket->write(response.body);
    }

    void process()
    {
        if (m_closing)
            return;
        // Read straight into the buffer (a body has its room reserved once its length is known,
        // below), rather than into a temporary array that is then appended.
        if (const qint64 available = m_socket->bytesAvailable(); available > 0) {
            const qsizetype filled = m_buffer.size();
            m_buffer.resize(filled + qsizetype(available));
            const qint64 read = m_socket->read(m_buffer.data() + filled, available);
            m_buffer.resize(filled + qsizetype(std::max<qint64>(read, 0)));
        }
        while (!m_closing && !m_awaitingAnswer) {
            if (!step())
                return;
        }
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
            if (end < 0)
                return checkLineLength();
            QByteArray line = m_buffer.left(end);
            m_buffer.remove(0, end + 2);
            if (const qsizetype semicolon = line.indexOf(';'); semicolon >= 0)
                line.truncate(semicolon); // chunk extensions are ignored
            bool ok = false;
            const qint64 size = line.trimmed().toLongLong(&ok, 16);
            if (!ok || size < 0) {
                fail(400, u"malformed chunk size in a chunked request body"_s);
                return false;
            }
            // Compared without the sum, which a size near 2^63 would overflow.
            if (size > m_server->maxBodyBytes() - m_request.body.size()) {
                fail(413, u"the request body exceeds %1 bytes"_s.arg(m_server->maxBodyBytes()));
                return false;
            }
            m_contentLength = qsizetype(size);
            m_stage = size == 0 ? Stage::ChunkTrailer : Stage::ChunkData;
            return true;
        }
        case Stage::ChunkData: {
            if (m_buffer.size() < m_contentLength + 2)
                return false;
            m_request.body += m_buffer.left(m_contentLength);
            if (m_buffer.mid(m_contentLength, 2) != "\r\n") {
                fail(400, u"malformed chunk in a chunked request body"_s);
                return false;
            }
            m_buffer.remove(0, m_contentLength + 2);
            m_stage = Stage::ChunkSize;
            return true;
        }
        case Stage::ChunkTrailer: {
            const qsizetype end = m_buffer.indexOf("\r\n");
            if (end < 0)
                return checkLineLength();
            m_buffer.remove(0, end + 2);
            if (end == 0)
                dispatch(); // the empty line that ends the trailer
            return true;
        }
        }
        return false;
    }

    bool checkLineLength()
    {
        if (m_buffer.size() > HttpServer::MaxHeaderBytes)
            fail(431, u"a header line is longer than %1 bytes"_s.arg(HttpServer::MaxHeaderBytes));
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
        const QList<QByteArray> lines = head.split('\n');
        const QList<QByteArray> requestLine = lines.front().trimmed().split(' ');
        if (requestLine.size() != 3 || !requestLine.at(2).startsWith("HTTP/1.")) {
            fail(400, u"malformed request line"_s);
            return false;
        }
        m_request = HttpRequest();
        m_request.method = requestLine.at(0);
        m_request.target = requestLine.at(1);
        m_request.peerAddress = m_socket->peerAddress();
        const bool http10 = requestLine.at(2) == "HTTP/1.0";
        for (qsizetype i = 1; i < lines.size(); ++i) {
            const QByteArray line = lines.at(i).endsWith('\r') ? lines.at(i).chopped(1) : lines.at(i);
            const qsizetype colon = line.indexOf(':');
            // RFC 9112 §5.1: nothing around the field name - no space, tab or stray CR, which
            // trimmed away would leave a name (or none) that a proxy in front does not see.
            if (colon <= 0 || line.left(colon).trimmed() != line.left(colon)) {
                fail(400, u"malformed header line %1"_s.arg(i));
                return false;
            }
            m_request.headers.append({line.left(colon).trimmed(), line.mid(colon + 1).trimmed()});
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

        const QByteArray transferEncoding = m_request.header("Transfer-Encoding").toLower();
        if (!transferEncoding.isEmpty()) {
            if (transferEncoding.trimmed() != "chunked") {
                fail(501, u"transfer encoding '%1' is not supported (only chunked)"_s.arg(
                              QString::fromLatin1(transferEncoding)));
                return false;
            }
            sendContinue();
            m_stage = Stage::ChunkSize;
            return true;
        }
        qsizetype length = 0;
        if (m_request.hasHeader("Content-Length")) {
            bool ok = false;
            const qint64 parsed = m_request.header("Content-Length").toLongLong(&ok);
            if (!ok || parsed < 0) {
                fail(400, u"malformed Content-Length"_s);
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
    quint64 m_exchange = 0;
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
}

HttpServer::~HttpServer() = default;

Expected<quint16> HttpServer::listen(const QHostAddress &address, quint16 port)
{
    auto *tcpServer = new QTcpServer(this);
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
    while (QTcpSocket *socket = m_tcpServer->nextPendingConnection())
        new HttpConnection(socket, this);
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
