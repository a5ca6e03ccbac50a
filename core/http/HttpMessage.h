// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

// The messages of EventDesk's HTTP/1.1 server (HttpServer) and what a connection needs of it:
// requests, responses, the answer channel, the limits and a request's admission.

#include <QByteArray>
#include <QHostAddress>
#include <QList>
#include <QObject>
#include <QPair>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QUrlQuery>

#include <optional>

namespace EventDesk {

class HttpConnection;

// A request head larger than this is answered 431; so are a chunked body's trailer and chunk
// extensions over it.
inline constexpr qsizetype HttpMaxHeaderBytes = 64 * 1024;

// "Not Found" for 404, ...
QByteArray httpReasonPhrase(int status);

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
    static HttpResponse text(int status, const QByteArray &body,
                             const QByteArray &contentType = "text/plain; charset=utf-8");

    // The status line and headers, with Content-Length (and "Connection: close" when close).
    QByteArray head(bool close) const;
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
    HttpReply(QObject *connection, quint64 exchange)
        : m_connection(connection)
        , m_exchange(exchange)
    {
    }

    QPointer<QObject> m_connection;
    quint64 m_exchange = 0;
};

// How long the server waits for a client, and how many clients it serves at once (docs/security.md
// "Hostile HTTP"). The times are real time on the server's monotonic clock, never engine time:
// --time-scale must not shorten them. While a request waits for its handler's answer no timeout
// runs, so a test receiver's delay or a slow commit never cuts a connection.
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

// What the server does with a request once its head is read, before any of its body is
// (HttpServer::setAdmission): how large a body it may have, and whether it is answered without
// its handler (a refusal, a CORS preflight).
struct HttpAdmission
{
    // A larger body is answered 413 unread and the connection closed (chunked bodies too, as soon
    // as a chunk would go beyond it). -1: the server's limit (HttpServer::setMaxBodyBytes).
    qsizetype maxBodyBytes = -1;
    // Answered instead of calling the handler. A body of at most SmallBodyBytes is read (and
    // dropped) first, so the connection stays usable; a larger or chunked one is not read at all:
    // the answer goes at once and the connection is closed.
    std::optional<HttpResponse> answer;
    // Added to whatever answers this request (the handler's answer, an error, the answer above).
    HttpHeaders responseHeaders;

    static constexpr qsizetype SmallBodyBytes = 64 * 1024;
};

} // namespace EventDesk
