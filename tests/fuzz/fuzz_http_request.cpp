// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// Fuzz target: EventDesk's HTTP/1.1 server (core/http/HttpServer), the one that serves the topic
// endpoint, the test receivers and /metrics.
//
// Input: the bytes one client sends on one connection - any number of pipelined requests, heads,
// Content-Length and chunked bodies, garbage. They go to the real server over a loopback TCP
// connection opened for each input, in up to three writes split at points taken from the input
// (so that a head, a chunk-size line or a body also arrives in pieces); then the client ends its
// side and reads until the server closes the connection.
//
// The server's handler answers each request at once, or on a later turn of the event loop
// (method LATER, like a test receiver's delay), or closes the connection without an answer
// (method DROP). Properties checked besides ASan/UBSan:
//   - every request handed to the handler has a target starting with '/', a body within the
//     server's limit, non-empty header names, and a body of exactly Content-Length bytes when it
//     was framed by Content-Length;
//   - whatever the server sends back starts with a status line;
//   - the server closes the connection once the client has ended its side (none is left open).

#include "FuzzSupport.h"

#include "http/HttpServer.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QEventLoop>
#include <QUrlQuery>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace Qt::StringLiterals;
using namespace EventDesk;

namespace {

// Small enough that a fuzz input can exceed it (413); the server's real limit is the same code.
constexpr qsizetype MaxBodyBytes = 16 * 1024;

HttpServer *s_server = nullptr;
sockaddr_in s_address {};

void checkRequest(const HttpRequest &request)
{
    Fuzz::require(request.target.startsWith('/'), "the request target starts with '/'",
                  QString::fromLatin1(request.target.left(200)));
    Fuzz::require(request.body.size() <= MaxBodyBytes, "the body is within the server's limit");
    for (const auto &[name, value] : request.headers)
        Fuzz::require(!name.isEmpty(), "header names are not empty");
    if (!request.hasHeader("Transfer-Encoding") && request.hasHeader("Content-Length")) {
        const qint64 length = request.header("Content-Length").toLongLong();
        Fuzz::require(request.body.size() == length,
                      "a body framed by Content-Length has that many bytes",
                      u"Content-Length %1, body %2"_s.arg(length).arg(request.body.size()));
    }
}

void handle(const HttpRequest &request, const HttpReply &reply)
{
    checkRequest(request);
    // What a handler reads of a request (TopicEndpoint: path segments, query, headers, body).
    const QByteArray summary = request.method + ' ' + request.path.toUtf8() + ' '
        + QByteArray::number(request.pathSegments.size()) + ' '
        + QByteArray::number(request.query.queryItems(QUrl::FullyDecoded).size()) + ' '
        + request.header("Content-Type") + ' ' + QByteArray::number(request.body.size());
    if (request.method == "DROP") {
        reply.closeWithoutAnswer();
    } else if (request.method == "LATER") {
        QMetaObject::invokeMethod(
            s_server, [reply, summary] { reply.respond(HttpResponse::text(202, summary)); },
            Qt::QueuedConnection);
    } else {
        reply.respond(HttpResponse::text(200, summary));
    }
}

// Sends all of piece, letting the server read meanwhile when the socket's buffer is full.
bool sendAll(int socket, QByteArrayView piece, const QDeadlineTimer &deadline)
{
    while (!piece.isEmpty()) {
        const ssize_t sent = ::send(socket, piece.data(), size_t(piece.size()),
                                    MSG_NOSIGNAL | MSG_DONTWAIT);
        if (sent > 0) {
            piece = piece.sliced(sent);
        } else if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
            if (deadline.hasExpired())
                return false;
            QCoreApplication::processEvents(QEventLoop::AllEvents);
        } else {
            return false; // the server closed the connection (an error answer): nothing to send
        }
    }
    return true;
}

// Reads what the server sent so far; false once it closed the connection.
bool receive(int socket, QByteArray *received)
{
    char buffer[16 * 1024];
    for (;;) {
        const ssize_t count = ::recv(socket, buffer, sizeof buffer, MSG_DONTWAIT);
        if (count > 0) {
            received->append(buffer, count);
            continue;
        }
        if (count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            return true;
        return false; // end of stream, or reset (closed with unread bytes, or without an answer)
    }
}

// Up to two split points, taken from the input so that a reproducer splits the same way.
std::array<qsizetype, 2> splitPoints(const QByteArray &input)
{
    quint32 hash = 2166136261u; // FNV-1a
    for (const char byte : input)
        hash = (hash ^ quint8(byte)) * 16777619u;
    const qsizetype size = input.size();
    std::array<qsizetype, 2> points = {qsizetype(hash % quint32(size + 1)),
                                       qsizetype((hash >> 16) % quint32(size + 1))};
    std::sort(points.begin(), points.end());
    return points;
}

// A loopback connect completes in the kernel's backlog before the server accepts it. libFuzzer's
// timer (SIGALRM, without SA_RESTART) may interrupt it; it then completes in the background.
int connectClient()
{
    const int client = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    Fuzz::require(client >= 0, "a client socket can be made");
    int error = 0;
    if (::connect(client, reinterpret_cast<const sockaddr *>(&s_address), sizeof s_address) != 0) {
        error = errno;
        if (error == EINTR || error == EINPROGRESS || error == EALREADY) {
            pollfd writable {client, POLLOUT, 0};
            while (::poll(&writable, 1, 5000) < 0 && errno == EINTR) {
            }
            socklen_t length = sizeof error;
            if (::getsockopt(client, SOL_SOCKET, SO_ERROR, &error, &length) != 0)
                error = errno;
        }
    }
    Fuzz::require(error == 0, "the client connects", QString::fromLocal8Bit(strerror(error)));
    return client;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    Fuzz::initialize(argc, argv);
    s_server = new HttpServer(QCoreApplication::instance());
    s_server->setMaxBodyBytes(MaxBodyBytes);
    s_server->setHandler(handle);
    const Expected<quint16> port = s_server->listen(QHostAddress::LocalHost, 0);
    Fuzz::require(port.hasValue(), "the server listens on loopback", port.error());
    s_address.sin_family = AF_INET;
    s_address.sin_port = htons(port.value());
    s_address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray input = Fuzz::bytes(data, size);
    const int client = connectClient();

    // Generous: only a server that never closes the connection takes this long.
    const QDeadlineTimer deadline(5000);
    QByteArray received;
    bool open = true;
    qsizetype from = 0;
    const std::array<qsizetype, 2> points = splitPoints(input);
    for (const qsizetype to : {points[0], points[1], input.size()}) {
        if (open && to > from)
            open = sendAll(client, QByteArrayView(input).sliced(from, to - from), deadline);
        from = std::max(from, to);
        // Two turns: the first may only accept the connection, the second reads.
        QCoreApplication::processEvents(QEventLoop::AllEvents);
        QCoreApplication::processEvents(QEventLoop::AllEvents);
    }
    ::shutdown(client, SHUT_WR);
    while (receive(client, &received)) {
        Fuzz::require(!deadline.hasExpired(),
                      "the server closes the connection once the client has ended its side");
        QCoreApplication::processEvents(QEventLoop::AllEvents);
    }
    ::close(client);
    // The connection object is deleted later; do it now, so that none accumulate.
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);

    Fuzz::require(received.isEmpty() || received.startsWith("HTTP/1.1 "),
                  "the server's answer starts with a status line",
                  QString::fromLatin1(received.left(200)));
    return 0;
}
