// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "HttpConnection.h"

#include "../Logging.h"
#include "HttpSyntax.h"

#include <QTcpSocket>
#include <QUrl>

#include <algorithm>
#include <utility>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

// A chunk-size line (size and extensions) longer than this is refused; so are chunk extensions
// of more than MaxHeaderBytes in one body, and trailers of more than MaxHeaderBytes: a client
// that pads its framing must not make the server read without limit while no body arrives.
constexpr qsizetype MaxChunkSizeLineBytes = 4096;
// Bytes a connection reads ahead of the request being handled: a client that pipelines without
// waiting for answers fills this, then TCP flow control makes it wait.
constexpr qint64 ReadBufferBytes = 1024 * 1024;

} // namespace

HttpConnection::HttpConnection(QTcpSocket *socket, Owner &owner, QObject *parent)
    : QObject(parent)
    , m_socket(socket)
    , m_server(&owner)
{
    socket->setParent(this);
    socket->setReadBufferSize(ReadBufferBytes);
    connect(socket, &QTcpSocket::readyRead, this, &HttpConnection::process);
    connect(socket, &QTcpSocket::disconnected, this, &HttpConnection::onDisconnected);
    connect(socket, &QTcpSocket::bytesWritten, this, &HttpConnection::onBytesWritten);
    setDeadline(Wait::Head);
    m_idleSinceMs = m_server->monotonicMs();
}

HttpConnection::~HttpConnection()
{
    m_server->forgetConnection(this);
}

void HttpConnection::respond(quint64 exchange, const HttpResponse &response)
{
    if (exchange != m_exchange || !m_awaitingAnswer)
        return;
    m_awaitingAnswer = false;
    write(response, m_closeAfterAnswer);
    if (m_closeAfterAnswer) {
        close();
        return;
    }
    if (m_socket->bytesToWrite() > WriteBacklogBytes) {
        // The client does not read its answers: handle nothing more of it until they leave, so a
        // client pipelining requests whose answers it never reads cannot grow the write buffer.
        m_writeBlocked = true;
        setDeadline(Wait::Draining);
        return;
    }
    setDeadline(Wait::Idle);
    // Pipelined requests already buffered are handled after this turn of the event loop, so
    // a handler answering synchronously never recurses into the next request.
    QMetaObject::invokeMethod(this, &HttpConnection::process, Qt::QueuedConnection);
}

void HttpConnection::closeWithoutAnswer(quint64 exchange)
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

bool HttpConnection::isOpen(quint64 exchange) const
{
    return exchange == m_exchange && m_awaitingAnswer && !m_closing
        && m_socket->state() == QAbstractSocket::ConnectedState;
}

void HttpConnection::timeOut()
{
    switch (m_wait) {
    case Wait::None:
        return;
    case Wait::Head:
        if (m_buffer.isEmpty()) {
            qCDebug(lcEndpoint) << "closing a connection that sent no request"
                                << m_socket->peerAddress();
            close();
        } else {
            fail(408,
                 u"the request head was not complete within %1 ms"_s.arg(
                     m_server->connectionLimits().headerTimeoutMs));
        }
        return;
    case Wait::Body:
        fail(408,
             u"no part of the request body arrived for %1 ms"_s.arg(
                 m_server->connectionLimits().bodyTimeoutMs));
        return;
    case Wait::Idle:
        close();
        return;
    case Wait::Draining:
    case Wait::Closing:
        // The peer does not take its answers: stop waiting for it.
        setDeadline(Wait::None);
        m_closing = true;
        m_socket->abort();
        deleteLater();
        return;
    }
}

bool HttpConnection::isIdle() const
{
    return !m_closing && !m_awaitingAnswer && !m_writeBlocked && m_stage == Stage::Head
        && m_buffer.isEmpty() && (m_wait == Wait::Idle || m_wait == Wait::Head)
        && m_socket->bytesAvailable() == 0 && m_socket->bytesToWrite() == 0;
}

void HttpConnection::shed()
{
    m_closing = true;
    setDeadline(Wait::None);
    // Nothing is pending either way: abort() gives the descriptor back now, not at the next
    // turn of the event loop.
    m_socket->abort();
    deleteLater();
}

void HttpConnection::setDeadline(Wait wait)
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
    case Wait::Draining: // answers leaving: progress, like a body arriving
        m_deadlineMs = m_server->monotonicMs() + limits.bodyTimeoutMs;
        return;
    case Wait::Idle:
        m_idleSinceMs = m_server->monotonicMs();
        m_deadlineMs = m_idleSinceMs + limits.idleTimeoutMs;
        return;
    }
}

// After a step of parsing: which deadline applies now. A head's deadline is set once, when
// its first byte arrives (not moved by each byte: a head sent one byte at a time still ends);
// a body's moves with every read that brings some of it.
void HttpConnection::updateDeadline(bool bytesArrived)
{
    if (m_closing || m_writeBlocked)
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

void HttpConnection::onDisconnected()
{
    m_closing = true;
    setDeadline(Wait::None);
    deleteLater();
}

void HttpConnection::onBytesWritten()
{
    if (!m_writeBlocked || m_closing)
        return;
    if (m_socket->bytesToWrite() > WriteBacklogBytes) {
        setDeadline(Wait::Draining); // some left: the client reads, slowly
        return;
    }
    m_writeBlocked = false;
    setDeadline(Wait::Idle);
    process();
}

// Closes once what was written has left; the Closing deadline bounds how long that may take.
void HttpConnection::close()
{
    m_closing = true;
    setDeadline(Wait::Closing);
    m_socket->disconnectFromHost();
}

void HttpConnection::fail(int status, const QString &message)
{
    qCDebug(lcEndpoint) << "bad request from" << m_socket->peerAddress() << status << message;
    answerAndClose(m_server->errorResponse(status, message));
}

void HttpConnection::answerAndClose(const HttpResponse &response)
{
    write(response, true);
    close();
}

void HttpConnection::write(const HttpResponse &response, bool close)
{
    if (m_responseHeaders.isEmpty()) {
        m_socket->write(response.head(close));
    } else {
        HttpResponse withHeaders = response;
        withHeaders.headers += std::exchange(m_responseHeaders, {});
        m_socket->write(withHeaders.head(close));
    }
    if (!response.body.isEmpty())
        m_socket->write(response.body);
}

void HttpConnection::process()
{
    // While a request awaits its answer, what follows stays in the socket (bounded by its read
    // buffer), so a client pipelining without end cannot grow this connection's memory.
    if (m_closing || m_awaitingAnswer || m_writeBlocked)
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
    while (!m_closing && !m_awaitingAnswer && !m_writeBlocked) {
        if (!step())
            break;
    }
    updateDeadline(bytesArrived);
}

// Advances the parser by one stage; false when it needs more data.
bool HttpConnection::step()
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
                fail(400,
                     u"a chunk size line is longer than %1 bytes"_s.arg(MaxChunkSizeLineBytes));
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
        if (m_chunkOverheadBytes > HttpMaxHeaderBytes) {
            fail(400,
                 u"the chunk extensions of a request exceed %1 bytes"_s.arg(HttpMaxHeaderBytes));
            return false;
        }
        m_buffer.remove(0, end + 2);
        // Checked before the chunk is read: a chunked body never buffers beyond the limit.
        if (line->size > m_maxBodyBytes - m_request.body.size()) {
            fail(413,
                 u"the request body exceeds the %1 bytes accepted at %2"_s.arg(m_maxBodyBytes)
                     .arg(m_request.path));
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
        if (m_chunkOverheadBytes + (end < 0 ? m_buffer.size() : end) > HttpMaxHeaderBytes) {
            fail(431,
                 u"the trailer of a chunked request exceeds %1 bytes"_s.arg(HttpMaxHeaderBytes));
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

bool HttpConnection::parseHead()
{
    // Tolerate empty lines between pipelined requests (RFC 9112 §2.2).
    while (m_buffer.startsWith("\r\n"))
        m_buffer.remove(0, 2);
    const qsizetype end = m_buffer.indexOf("\r\n\r\n");
    if (end < 0) {
        if (m_buffer.size() > HttpMaxHeaderBytes)
            fail(431, u"the request head exceeds %1 bytes"_s.arg(HttpMaxHeaderBytes));
        return false;
    }
    const QByteArray head = m_buffer.left(end);
    m_buffer.remove(0, end + 4);
    m_responseHeaders.clear();
    m_admissionAnswer.reset();
    // Lines end with CRLF only: a bare LF or CR (RFC 9112 §2.2) is refused below, as another
    // parser could end a line there and see a header this one does not.
    const QList<QByteArray> lines = head.split('\n');
    for (qsizetype i = 0; i < lines.size(); ++i) {
        const QByteArray &line = lines.at(i);
        const qsizetype length = i + 1 < lines.size() ? line.size() - 1 : line.size();
        if ((i + 1 < lines.size() && !line.endsWith('\r'))
            || QByteArrayView(line).first(length).contains('\r')) {
            fail(
                400,
                u"line %1 of the request head ends with a bare LF or holds a bare CR"_s.arg(i + 1));
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
        const QByteArrayView text
            = QByteArrayView(line).first(line.endsWith('\r') ? line.size() - 1 : line.size());
        // RFC 9112 §5.2: obsolete line folding is refused, not unfolded.
        if (!text.isEmpty() && (text.front() == ' ' || text.front() == '\t')) {
            fail(400,
                 u"header line %1 starts with whitespace (obsolete line folding is not accepted)"_s
                     .arg(i));
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
            fail(400,
                 u"header line %1: the field name is not a token (no whitespace before the colon)"_s
                     .arg(i));
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

    const QByteArray connection = m_request.header("Connection");
    m_closeAfterAnswer = http10 ? !HttpSyntax::listsToken(connection, "keep-alive")
                                : HttpSyntax::listsToken(connection, "close");
    return parseFraming(http10);
}

// How the body is delimited (RFC 9112 §6.3). Every ambiguity is answered 400 and the
// connection closed, since a proxy in front could have read the message differently.
bool HttpConnection::parseFraming(bool http10)
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
            fail(400,
                 u"Transfer-Encoding '%1' does not end with chunked (once)"_s.arg(
                     QString::fromLatin1(transferEncoding.left(100))));
            return false;
        case HttpSyntax::TransferEncoding::ChunkedAfterOtherCoding:
            fail(501,
                 u"transfer encoding '%1' is not supported (only chunked)"_s.arg(
                     QString::fromLatin1(transferEncoding.left(100))));
            return false;
        case HttpSyntax::TransferEncoding::Chunked:
            break;
        }
        if (!admit(true, 0))
            return false;
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
    qint64 length = 0;
    if (contentLengthLines == 1) {
        length = HttpSyntax::parseContentLength(contentLength);
        if (length < 0) {
            fail(400, u"malformed Content-Length (decimal digits only)"_s);
            return false;
        }
    }
    if (!admit(false, length))
        return false;
    if (length > m_maxBodyBytes) {
        fail(413,
             u"the request body (%1 bytes) exceeds the %2 bytes accepted at %3"_s.arg(length)
                 .arg(m_maxBodyBytes)
                 .arg(m_request.path));
        return false;
    }
    if (length > 0)
        sendContinue();
    m_contentLength = qsizetype(length);
    // The body is read into the buffer in place; room for a publish-sized body is reserved at
    // once; larger ones grow as their bytes arrive, so a length alone never reserves more.
    m_buffer.reserve(std::min<qsizetype>(m_contentLength, 2 * 1024 * 1024));
    m_stage = Stage::Body;
    return true;
}

// The server's admission of the request whose head was just read: its body limit, and an answer
// that replaces its handler's (a refusal). A body that comes with such an answer is read only
// when it is small and announced; otherwise the answer goes at once and the connection closes,
// since the rest of the stream cannot be framed without reading that body.
bool HttpConnection::admit(bool chunked, qint64 contentLength)
{
    HttpAdmission admission = m_server->admit(m_request);
    m_maxBodyBytes = admission.maxBodyBytes < 0
        ? m_server->maxBodyBytes()
        : std::min(admission.maxBodyBytes, m_server->maxBodyBytes());
    m_responseHeaders = std::move(admission.responseHeaders);
    if (!admission.answer)
        return true;
    const bool expectsContinue
        = m_request.header("Expect").compare("100-continue", Qt::CaseInsensitive) == 0;
    if (chunked || contentLength > HttpAdmission::SmallBodyBytes
        || (contentLength > 0 && expectsContinue)) {
        answerAndClose(*admission.answer);
        return false;
    }
    m_admissionAnswer = std::move(admission.answer);
    return true;
}

void HttpConnection::sendContinue()
{
    if (m_request.header("Expect").compare("100-continue", Qt::CaseInsensitive) == 0)
        m_socket->write("HTTP/1.1 100 Continue\r\n\r\n");
}

void HttpConnection::dispatch()
{
    m_stage = Stage::Head;
    m_awaitingAnswer = true;
    ++m_exchange;
    if (m_admissionAnswer) {
        m_request = HttpRequest(); // its body is dropped: the answer does not depend on it
        const HttpResponse answer = std::move(*m_admissionAnswer);
        m_admissionAnswer.reset();
        respond(m_exchange, answer);
        return;
    }
    const HttpRequest request = std::move(m_request);
    m_request = HttpRequest();
    m_server->dispatch(request, HttpReply(this, m_exchange));
}

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

} // namespace EventDesk
