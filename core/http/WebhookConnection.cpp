// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "WebhookConnection.h"

#include "../Logging.h"
#include "HttpSyntax.h"

#include <QSslSocket>
#include <QTcpSocket>

#include <algorithm>
#include <cctype>

namespace EventDesk {

namespace {

bool isHeaderName(QByteArrayView name, QByteArrayView expected)
{
    return name.compare(expected, Qt::CaseInsensitive) == 0;
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

// The owner's side of a socket signal's handling: what the connection reports inside reaches the
// owner's handler when the outermost scope ends.
class SignalScope
{
public:
    explicit SignalScope(WebhookConnection::Owner &owner)
        : m_owner(owner)
    {
        m_owner.signalEntered();
    }
    ~SignalScope() { m_owner.signalLeft(); }
    SignalScope(const SignalScope &) = delete;
    SignalScope &operator=(const SignalScope &) = delete;

private:
    WebhookConnection::Owner &m_owner;
};

} // namespace

WebhookConnection::WebhookConnection(Owner &owner, Server server, QObject *parent)
    : QObject(parent)
    , m_owner(owner)
    , m_server(std::move(server))
{
}

bool WebhookConnection::isUsable() const
{
    return m_state == State::Idle && !m_problem
        && m_socket->state() == QAbstractSocket::ConnectedState;
}

void WebhookConnection::open(const Request *request,
                             const std::optional<QSslConfiguration> &sslConfiguration)
{
    attach(request);
    m_state = State::Connecting;
    if (m_server.encrypted) {
        auto *socket = new QSslSocket(this);
        if (sslConfiguration)
            socket->setSslConfiguration(*sslConfiguration);
        m_socket = socket;
        connect(socket, &QSslSocket::encrypted, this, &WebhookConnection::onConnected);
    } else {
        m_socket = new QTcpSocket(this);
        connect(m_socket, &QAbstractSocket::connected, this, &WebhookConnection::onConnected);
    }
    m_socket->setReadBufferSize(ReadBufferBytes);
    connect(m_socket, &QIODevice::readyRead, this, &WebhookConnection::onReadyRead);
    // Failures are handled from the event loop, never inside a call into the socket
    // (connectToHost and flush may report one at once).
    connect(m_socket, &QAbstractSocket::errorOccurred, this,
            [this](QAbstractSocket::SocketError error) { noteProblem(error); });
    connect(m_socket, &QAbstractSocket::disconnected, this,
            [this] { noteProblem(QAbstractSocket::RemoteHostClosedError); });
    if (auto *socket = qobject_cast<QSslSocket *>(m_socket))
        socket->connectToHostEncrypted(m_server.host, m_server.port);
    else
        m_socket->connectToHost(m_server.host, m_server.port);
}

void WebhookConnection::reuse(const Request *request)
{
    attach(request);
    writeRequest();
}

const WebhookConnection::Request *WebhookConnection::detach()
{
    const Request *request = m_request;
    m_request = nullptr;
    return request;
}

void WebhookConnection::becomeIdle(qint64 nowMs)
{
    ++m_completedExchanges;
    m_state = State::Idle;
    m_idleSinceMs = nowMs;
}

void WebhookConnection::shutDown()
{
    m_state = State::Closed;
    detach();
    if (m_socket) {
        disconnect(m_socket, nullptr, this, nullptr);
        m_socket->abort();
    }
    deleteLater();
}

void WebhookConnection::attach(const Request *request)
{
    m_request = request;
    m_stage = Stage::Head;
    m_status = 0;
    m_closeAfter = false;
    m_remaining = 0;
    m_bodyBytes = 0;
    m_responseStarted = false;
    m_errorDetail.clear();
    m_state = State::Busy;
}

void WebhookConnection::writeRequest()
{
    m_state = State::Busy;
    m_socket->write(m_request->bytes);
    // Sent now rather than on the next write notification: one wake-up less per request.
    m_socket->flush();
}

void WebhookConnection::onConnected()
{
    if (m_state != State::Connecting || !m_request)
        return;
    m_socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
    writeRequest();
}

void WebhookConnection::onReadyRead()
{
    if (m_state == State::Closed)
        return;
    const SignalScope scope(m_owner);
    readAvailable();
    if (!m_request) {
        // Bytes on an idle connection answer nothing that was asked (a server's goodbye, a
        // stray response): it cannot be trusted with another request.
        if (m_state == State::Idle)
            m_owner.connectionUnusable(this);
        return;
    }
    parse();
}

void WebhookConnection::readAvailable()
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

void WebhookConnection::noteProblem(QAbstractSocket::SocketError error)
{
    if (m_problem)
        return;
    m_problem = true;
    m_problemError = error;
    QMetaObject::invokeMethod(this, &WebhookConnection::onProblem, Qt::QueuedConnection);
}

void WebhookConnection::onProblem()
{
    if (m_state == State::Closed)
        return;
    const SignalScope scope(m_owner);
    if (m_socket->bytesAvailable() > 0 && m_request) {
        readAvailable();
        if (parse() == Progress::Handed)
            return;
    }
    if (!m_request) {
        m_owner.connectionUnusable(this);
        return;
    }
    if (m_stage == Stage::UntilClose) {
        // The body ran until the server closed: that is the end of this response.
        m_owner.exchangeFinished(this, m_status, QNetworkReply::NoError, false);
        return;
    }
    m_owner.exchangeFailed(this, m_status, networkError(m_problemError), m_responseStarted);
}

WebhookConnection::Progress WebhookConnection::protocolFailure(const char *what)
{
    qCDebug(lcDelivery) << "malformed response from" << m_server.host << m_server.port << what;
    m_owner.exchangeFailed(this, m_stage == Stage::Head ? 0 : m_status,
                           QNetworkReply::ProtocolFailure, true);
    return Progress::Handed;
}

WebhookConnection::Progress WebhookConnection::complete()
{
    const bool reusable = !m_closeAfter && m_offset == m_buffer.size()
        && m_socket->bytesToWrite() == 0 && !m_problem
        && m_socket->state() == QAbstractSocket::ConnectedState;
    m_buffer.clear();
    m_offset = 0;
    m_owner.exchangeFinished(this, m_status, QNetworkReply::NoError, reusable);
    return Progress::Handed;
}

void WebhookConnection::keepErrorDetail(qsizetype from, qsizetype bytes)
{
    if (m_status >= 200 && m_status <= 299)
        return; // a success's body says nothing a delivery needs
    const qsizetype room = MaxErrorDetailBytes - m_errorDetail.size();
    if (room > 0)
        m_errorDetail.append(m_buffer.constData() + from, std::min(room, bytes));
}

// Counts body bytes that were read and discarded; past the cap the response ends here.
bool WebhookConnection::overCap(qsizetype bytes)
{
    m_bodyBytes += bytes;
    return m_bodyBytes > MaxResponseBodyBytes;
}

WebhookConnection::Progress WebhookConnection::capReached()
{
    qCDebug(lcDelivery) << "response body from" << m_server.host << m_server.port << "exceeds"
                        << MaxResponseBodyBytes << "bytes: connection closed";
    m_owner.exchangeFinished(this, m_status, QNetworkReply::NoError, false);
    return Progress::Handed;
}

// Takes as much of the buffer as possible; the exchange may be handed back to the owner, in
// which case nothing more may be done with it here.
WebhookConnection::Progress WebhookConnection::parse()
{
    for (;;) {
        const qsizetype available = m_buffer.size() - m_offset;
        switch (m_stage) {
        case Stage::Head: {
            const qsizetype end = headEnd(m_buffer, m_offset);
            if (end < 0) {
                if (available > MaxResponseHeadBytes)
                    return protocolFailure("head too long");
                return Progress::NeedMore;
            }
            if (end - m_offset > MaxResponseHeadBytes)
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
            keepErrorDetail(m_offset, taken);
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
                if (available > MaxResponseHeadBytes)
                    return protocolFailure("chunk size line too long");
                return Progress::NeedMore;
            }
            const QByteArrayView line = chopCarriageReturn(
                QByteArrayView(m_buffer.constData() + m_offset, newline - m_offset));
            m_offset = newline + 1;
            const auto chunk = HttpSyntax::parseChunkSizeLine(line); // extensions are ignored
            if (!chunk)
                return protocolFailure("malformed chunk size");
            m_remaining = chunk->size;
            m_stage = chunk->size == 0 ? Stage::Trailer : Stage::ChunkData;
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
                if (available > MaxResponseHeadBytes)
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
            keepErrorDetail(m_offset, available);
            m_offset = m_buffer.size();
            if (overCap(available))
                return capReached();
            return Progress::NeedMore;
        }
    }
}

// The status line and headers (RFC 9112 §4, §5). Sets the status and how the body is framed
// (RFC 9112 §6.3); the stage stays Head for a response without a body.
bool WebhookConnection::parseHead(QByteArrayView head)
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
        || !std::isdigit(static_cast<unsigned char>(statusLine.at(7))) || statusLine.at(8) != ' ')
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
    QByteArray transferEncoding; // every Transfer-Encoding line, joined as one list
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
        const QByteArrayView value = HttpSyntax::trimmedWhitespace(line.sliced(colon + 1));
        lastName = name;
        if (isHeaderName(name, "content-length")) {
            const qint64 length = HttpSyntax::parseContentLength(value);
            if (length < 0 || (contentLength >= 0 && length != contentLength))
                return false;
            contentLength = length;
        } else if (isHeaderName(name, "transfer-encoding")) {
            if (transferEncoded)
                transferEncoding += ',';
            transferEncoded = true;
            transferEncoding += value;
        } else if (isHeaderName(name, "connection")) {
            close = close || HttpSyntax::listsToken(value, "close");
        } else if (isHeaderName(name, "x-ms-error-code") && status >= 300) {
            m_errorDetail
                = value.first(std::min(value.size(), MaxErrorDetailBytes / 2)).toByteArray();
            m_errorDetail += '\n';
        }
    }

    m_status = status;
    if (status < 200)
        return true;
    m_closeAfter = close;
    if (m_request->headRequest || status == 204 || status == 304) {
        m_stage = Stage::Head;
    } else if (transferEncoded) {
        // Chunked framing when chunked is the final coding (after another one too: the start of
        // an error's answer is kept as it comes); otherwise the body lasts until the close.
        const bool chunked = HttpSyntax::classifyTransferEncoding(transferEncoding)
            != HttpSyntax::TransferEncoding::Invalid;
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

} // namespace EventDesk
