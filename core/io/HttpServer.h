#pragma once

#include "../Expected.h"

#include <QByteArray>
#include <QHostAddress>
#include <QList>
#include <QObject>
#include <QPair>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QUrlQuery>

#include <functional>

class QTcpServer;

namespace EventDesk {

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
    static HttpResponse text(int status, const QByteArray &body, const QByteArray &contentType = "text/plain; charset=utf-8");
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
    HttpReply(QObject *connection, quint64 exchange) : m_connection(connection), m_exchange(exchange) {}

    QPointer<QObject> m_connection;
    quint64 m_exchange = 0;
};

// A small HTTP/1.1 server on QTcpServer: persistent connections, pipelined requests answered in
// order, Content-Length and chunked request bodies, Expect: 100-continue. It exists (instead of
// QHttpServer) because the test receivers must be able to answer late and to drop a connection
// without answering, on the same address as the topic endpoint.
class HttpServer final : public QObject
{
    Q_OBJECT

public:
    using Handler = std::function<void(const HttpRequest &request, const HttpReply &reply)>;

    static constexpr qsizetype DefaultMaxBodyBytes = 32 * 1024 * 1024;
    static constexpr qsizetype MaxHeaderBytes = 64 * 1024;

    explicit HttpServer(QObject *parent = nullptr);
    ~HttpServer() override;

    void setHandler(Handler handler) { m_handler = std::move(handler); }
    // Requests with a larger body are answered 413 (errorBody of the caller's shape) unread, and
    // the connection is closed.
    void setMaxBodyBytes(qsizetype bytes) { m_maxBodyBytes = bytes; }
    qsizetype maxBodyBytes() const { return m_maxBodyBytes; }
    // Produces the body of the errors the server answers by itself (400, 413, 431, 501).
    void setErrorBodyFactory(std::function<HttpResponse(int status, const QString &message)> factory)
    {
        m_errorFactory = std::move(factory);
    }

    // Binds to address:port (port 0 picks a free one) and returns the port bound.
    Expected<quint16> listen(const QHostAddress &address, quint16 port);
    quint16 port() const;
    QHostAddress address() const;

    static QByteArray reasonPhrase(int status);

private:
    friend class HttpConnection;
    void onNewConnection();
    void dispatch(const HttpRequest &request, const HttpReply &reply);
    HttpResponse errorResponse(int status, const QString &message) const;

    Handler m_handler;
    std::function<HttpResponse(int, const QString &)> m_errorFactory;
    QTcpServer *m_tcpServer = nullptr;
    qsizetype m_maxBodyBytes = DefaultMaxBodyBytes;
};

} // namespace EventDesk
