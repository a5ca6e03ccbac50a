// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "ScriptedReceiver.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QPointer>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>

#include <optional>

using namespace Qt::StringLiterals;

namespace EventDesk::Testing {

namespace {

// A request head larger than this is not something a test sends; the connection is dropped.
constexpr qsizetype MaxHeadBytes = 64 * 1024;

QByteArray reasonPhrase(int status)
{
    switch (status) {
    case 200: return "OK"_ba;
    case 201: return "Created"_ba;
    case 202: return "Accepted"_ba;
    case 204: return "No Content"_ba;
    case 400: return "Bad Request"_ba;
    case 401: return "Unauthorized"_ba;
    case 403: return "Forbidden"_ba;
    case 404: return "Not Found"_ba;
    case 408: return "Request Timeout"_ba;
    case 413: return "Payload Too Large"_ba;
    case 429: return "Too Many Requests"_ba;
    case 500: return "Internal Server Error"_ba;
    case 503: return "Service Unavailable"_ba;
    default: return "Status"_ba;
    }
}

enum class ParseState { Complete, Incomplete, Invalid };

// Decodes a chunked body starting at `offset`. On Complete, `end` is the offset after the
// terminating empty line of the trailer section.
ParseState decodeChunked(const QByteArray &buffer, qsizetype offset, QByteArray &body, qsizetype &end)
{
    body.clear();
    qsizetype position = offset;
    for (;;) {
        const qsizetype lineEnd = buffer.indexOf("\r\n", position);
        if (lineEnd < 0)
            return ParseState::Incomplete;
        QByteArray sizeText = buffer.mid(position, lineEnd - position);
        if (const qsizetype extension = sizeText.indexOf(';'); extension >= 0)
            sizeText.truncate(extension);
        bool ok = false;
        const qlonglong size = sizeText.trimmed().toLongLong(&ok, 16);
        if (!ok || size < 0)
            return ParseState::Invalid;
        position = lineEnd + 2;
        if (size == 0) {
            // Trailer fields, then an empty line.
            for (;;) {
                const qsizetype trailerEnd = buffer.indexOf("\r\n", position);
                if (trailerEnd < 0)
                    return ParseState::Incomplete;
                const bool emptyLine = trailerEnd == position;
                position = trailerEnd + 2;
                if (emptyLine) {
                    end = position;
                    return ParseState::Complete;
                }
            }
        }
        if (buffer.size() < position + size + 2)
            return ParseState::Incomplete;
        body.append(buffer.constData() + position, size);
        position += size + 2; // the chunk and its CRLF
    }
}

} // namespace

// ---- ReceivedRequest ---------------------------------------------------------------------------

QByteArray ReceivedRequest::header(QByteArrayView name) const
{
    for (const auto &[headerName, value] : headers) {
        if (headerName.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return {};
}

bool ReceivedRequest::hasHeader(QByteArrayView name) const
{
    for (const auto &entry : headers) {
        if (entry.first.compare(name, Qt::CaseInsensitive) == 0)
            return true;
    }
    return false;
}

QJsonArray ReceivedRequest::jsonArray() const
{
    const QJsonDocument document = QJsonDocument::fromJson(body);
    return document.isArray() ? document.array() : QJsonArray();
}

QStringList ReceivedRequest::eventIds() const
{
    QStringList ids;
    const QJsonArray events = jsonArray();
    for (const QJsonValue &event : events)
        ids.append(event.toObject().value("id"_L1).toString());
    return ids;
}

// ---- ScriptedReceiver --------------------------------------------------------------------------

struct ScriptedReceiver::Connection
{
    QByteArray buffer;
    bool busy = false; // a request is being answered (or hangs): later ones wait in the buffer
};

ScriptedReceiver::ScriptedReceiver(QObject *parent)
    : QObject(parent)
{
    m_clock.start();
}

ScriptedReceiver::~ScriptedReceiver()
{
    stop();
}

bool ScriptedReceiver::listen(quint16 port)
{
    stop();
    m_server = new QTcpServer(this);
    connect(m_server, &QTcpServer::newConnection, this, &ScriptedReceiver::onNewConnection);
    if (!m_server->listen(QHostAddress::LocalHost, port)) {
        qWarning("ScriptedReceiver: cannot listen on 127.0.0.1:%u: %s", unsigned(port),
                 qPrintable(m_server->errorString()));
        delete m_server;
        m_server = nullptr;
        return false;
    }
    return true;
}

void ScriptedReceiver::stop()
{
    if (m_server) {
        m_server->close();
        delete m_server;
        m_server = nullptr;
    }
    const QList<QTcpSocket *> sockets = m_connections.keys();
    for (QTcpSocket *socket : sockets)
        dropConnection(socket);
}

bool ScriptedReceiver::isListening() const
{
    return m_server && m_server->isListening();
}

quint16 ScriptedReceiver::port() const
{
    return m_server ? m_server->serverPort() : 0;
}

QUrl ScriptedReceiver::url(const QString &path) const
{
    QUrl result;
    result.setScheme(u"http"_s);
    result.setHost(u"127.0.0.1"_s);
    result.setPort(port());
    result.setPath(path);
    return result;
}

void ScriptedReceiver::enqueue(const Action &action)
{
    m_script.append(action);
}

void ScriptedReceiver::setScript(const QList<Action> &actions)
{
    m_script = actions;
}

void ScriptedReceiver::setDefaultAction(const Action &action)
{
    m_defaultAction = action;
}

QSet<QString> ScriptedReceiver::acceptedEventIds() const
{
    QSet<QString> ids;
    for (const ReceivedRequest &request : m_requests) {
        if (request.answeredStatus >= 200 && request.answeredStatus <= 204) {
            const QStringList requestIds = request.eventIds();
            for (const QString &id : requestIds)
                ids.insert(id);
        }
    }
    return ids;
}

QSet<QString> ScriptedReceiver::receivedEventIds() const
{
    QSet<QString> ids;
    for (const ReceivedRequest &request : m_requests) {
        const QStringList requestIds = request.eventIds();
        for (const QString &id : requestIds)
            ids.insert(id);
    }
    return ids;
}

ReceiverAction ScriptedReceiver::nextAction(const ReceivedRequest &request)
{
    if (!m_script.isEmpty())
        return m_script.takeFirst();
    return m_responder ? m_responder(request) : m_defaultAction;
}

void ScriptedReceiver::onNewConnection()
{
    while (m_server && m_server->hasPendingConnections()) {
        QTcpSocket *socket = m_server->nextPendingConnection();
        // The server is deleted in stop(); the sockets are owned here from now on.
        socket->setParent(this);
        m_connections.insert(socket, new Connection);
        connect(socket, &QTcpSocket::readyRead, this, [this, socket] { onReadyRead(socket); });
        connect(socket, &QTcpSocket::disconnected, this, [this, socket] { dropConnection(socket); });
        if (socket->bytesAvailable() > 0)
            onReadyRead(socket);
    }
}

void ScriptedReceiver::onReadyRead(QTcpSocket *socket)
{
    Connection *connection = m_connections.value(socket);
    if (!connection)
        return;
    connection->buffer.append(socket->readAll());
    processBuffered(socket);
}

void ScriptedReceiver::processBuffered(QTcpSocket *socket)
{
    for (;;) {
        Connection *connection = m_connections.value(socket);
        if (!connection || connection->busy)
            return;
        QByteArray &buffer = connection->buffer;
        const qsizetype headEnd = buffer.indexOf("\r\n\r\n");
        if (headEnd < 0) {
            if (buffer.size() > MaxHeadBytes)
                dropConnection(socket);
            return;
        }
        const QList<QByteArray> lines = buffer.left(headEnd).split('\n');
        const QList<QByteArray> requestLine = lines.constFirst().trimmed().split(' ');
        if (requestLine.size() != 3 || !requestLine.at(2).startsWith("HTTP/1.")) {
            dropConnection(socket);
            return;
        }
        ReceivedRequest request;
        request.method = requestLine.at(0);
        request.path = requestLine.at(1);
        for (qsizetype index = 1; index < lines.size(); ++index) {
            const QByteArray line = lines.at(index).trimmed();
            const qsizetype colon = line.indexOf(':');
            if (colon <= 0)
                continue;
            request.headers.append({line.left(colon).trimmed().toLower(), line.mid(colon + 1).trimmed()});
        }

        const qsizetype bodyStart = headEnd + 4;
        qsizetype requestEnd = bodyStart;
        if (request.header("transfer-encoding").toLower().contains("chunked")) {
            switch (decodeChunked(buffer, bodyStart, request.body, requestEnd)) {
            case ParseState::Incomplete:
                return;
            case ParseState::Invalid:
                dropConnection(socket);
                return;
            case ParseState::Complete:
                break;
            }
        } else {
            bool ok = true;
            const QByteArray lengthText = request.header("content-length");
            const qlonglong length = lengthText.isEmpty() ? 0 : lengthText.toLongLong(&ok);
            if (!ok || length < 0) {
                dropConnection(socket);
                return;
            }
            if (buffer.size() < bodyStart + length)
                return; // the rest of the body is still on its way
            request.body = buffer.mid(bodyStart, length);
            requestEnd = bodyStart + length;
        }
        buffer.remove(0, requestEnd);

        const bool http10 = requestLine.at(2) == "HTTP/1.0";
        const QByteArray connectionHeader = request.header("connection").toLower();
        const bool closeAfter = connectionHeader.contains("close")
            || (http10 && !connectionHeader.contains("keep-alive"));
        request.receivedAtMs = m_clock.elapsed();
        if (m_answersValidation && answerValidation(socket, request, closeAfter)) {
            if (!m_connections.contains(socket))
                return;
            continue;
        }
        const qsizetype index = m_requests.size();
        m_requests.append(request);
        connection->busy = true;

        // The action is taken before the signal, so that a slot changing the script affects the
        // next request, not this one.
        const Action action = nextAction(request);
        const QPointer<QTcpSocket> guard(socket);
        Q_EMIT requestReceived(index);
        if (!guard || !m_connections.contains(socket))
            return;
        perform(socket, index, closeAfter, action);
    }
}

void ScriptedReceiver::perform(QTcpSocket *socket, qsizetype requestIndex, bool closeAfter,
                               const Action &action)
{
    switch (action.kind) {
    case Action::Kind::Close:
        dropConnection(socket);
        return;
    case Action::Kind::Hang:
        return; // stays busy: nothing more is answered on this connection
    case Action::Kind::Respond:
        if (action.delayMs > 0) {
            const int status = action.status;
            // The socket is the context: the timer dies with a dropped connection.
            QTimer::singleShot(action.delayMs, socket, [this, socket, requestIndex, closeAfter, status] {
                answer(socket, requestIndex, closeAfter, status);
                processBuffered(socket);
            });
            return;
        }
        answer(socket, requestIndex, closeAfter, action.status, action.headers, action.body);
        return;
    }
}

bool ScriptedReceiver::answerValidation(QTcpSocket *socket, const ReceivedRequest &request, bool closeAfter)
{
    // CloudEvents 1.0 webhook abuse protection: OPTIONS with WebHook-Request-Origin.
    if (request.method == "OPTIONS" && request.hasHeader("webhook-request-origin")) {
        m_validationRequests.append(request);
        m_validationRequests.last().answeredStatus = 200;
        answer(socket, -1, closeAfter, 200, "WebHook-Allowed-Origin: *\r\nWebHook-Allowed-Rate: *\r\n"_ba);
        return true;
    }
    // Event Grid schema: echo data.validationCode as validationResponse.
    if (request.header("aeg-event-type").compare("SubscriptionValidation", Qt::CaseInsensitive) != 0)
        return false;
    const QJsonArray events = request.jsonArray();
    const QString code = events.isEmpty()
        ? QString()
        : events.first().toObject().value("data"_L1).toObject().value("validationCode"_L1).toString();
    m_validationRequests.append(request);
    m_validationRequests.last().answeredStatus = 200;
    answer(socket, -1, closeAfter, 200, "Content-Type: application/json\r\n"_ba,
           QJsonDocument(QJsonObject{{u"validationResponse"_s, code}}).toJson(QJsonDocument::Compact));
    return true;
}

void ScriptedReceiver::answer(QTcpSocket *socket, qsizetype requestIndex, bool closeAfter, int status,
                              const QByteArray &extraHeaders, const QByteArray &body)
{
    Connection *connection = m_connections.value(socket);
    if (!connection)
        return;
    QByteArray response = "HTTP/1.1 " + QByteArray::number(status) + ' ' + reasonPhrase(status)
        + "\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n" + extraHeaders
        + (closeAfter ? "Connection: close\r\n"_ba : "Connection: keep-alive\r\n"_ba) + "\r\n" + body;
    socket->write(response);
    if (requestIndex >= 0)
        m_requests[requestIndex].answeredStatus = status;
    connection->busy = false;
    if (closeAfter)
        socket->disconnectFromHost();
}

void ScriptedReceiver::dropConnection(QTcpSocket *socket)
{
    Connection *connection = m_connections.take(socket);
    if (!connection)
        return;
    delete connection;
    socket->disconnect(this);
    socket->abort();
    socket->deleteLater();
}

} // namespace EventDesk::Testing
