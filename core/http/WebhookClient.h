// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "WebhookConnection.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QNetworkReply>
#include <QObject>
#include <QSslConfiguration>
#include <QString>

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>

class QNetworkRequest;
class QTimer;

namespace EventDesk {

// EventDesk's own HTTP/1.1 client for delivery requests, on QTcpSocket (http) and QSslSocket
// (https). It does what a delivery needs and no more: send a request, read the status of its
// response (and the start of a failure's answer), and report (status, error) the way
// QNetworkReply would, so that OutcomeClassifier decides outcomes alike whichever client sent the
// request.
//
// Why not QNetworkAccessManager: its HTTP channel reads a response's status line and headers one
// byte per system call (~115 reads per request), which made Qt's work most of a delivery's CPU
// time (bench/RESULTS.md, benchmark 1). Here a socket's readable bytes are taken in one read.
//
// Connections are pooled per scheme, host and port: kept alive and reused, at most
// MaxConnectionsPerHost at a time (as QNetworkAccessManager); requests beyond that wait in order.
// One request at a time per connection (no pipelining). Redirects are never followed (SPEC D5:
// a 3xx is a failed attempt; its status is reported). Proxies are not used, nor HTTP/2.
//
// Lives on one thread (a delivery lane's). The handler is called on that thread, never from
// within send() or abort(): a failure known at once is reported from the event loop, so that a
// handler which sends the next request cannot recurse.
class WebhookClient final : public QObject
{
    Q_OBJECT

public:
    // requestId, HTTP status (0 without a response), the error QNetworkReply would report, and
    // what a failure's answer said (WebhookConnection::errorDetail()).
    using FinishedHandler
        = std::function<void(quint64 requestId, int httpStatus, QNetworkReply::NetworkError error,
                             const QByteArray &errorDetail)>;

    static constexpr int MaxConnectionsPerHost = 6;
    // The caps on what a response may make the client read (WebhookConnection.h says why).
    static constexpr qsizetype MaxResponseBodyBytes = WebhookConnection::MaxResponseBodyBytes;
    static constexpr qsizetype MaxResponseHeadBytes = WebhookConnection::MaxResponseHeadBytes;
    static constexpr qsizetype MaxErrorDetailBytes = WebhookConnection::MaxErrorDetailBytes;
    static constexpr int DefaultIdleTimeoutMs = 60'000;

    explicit WebhookClient(FinishedHandler handler, QObject *parent = nullptr);
    // Closes every connection; requests still open are not reported.
    ~WebhookClient() override;

    // Sends the request's URL, its raw headers and its Content-Type header with the body.
    void post(quint64 requestId, const QNetworkRequest &request, const QByteArray &body);
    void send(quint64 requestId, const QByteArray &method, const QNetworkRequest &request,
              const QByteArray &body);
    // The request is reported with OperationCanceledError (and the status, if one arrived).
    void abort(quint64 requestId);
    // Every open request is dropped without a report; idle connections stay pooled.
    void cancelAll();

    // A pooled connection idle this long is closed (default DefaultIdleTimeoutMs).
    void setIdleTimeout(int milliseconds);
    // For https connections opened from now on (default: QSslConfiguration's default).
    void setSslConfiguration(const QSslConfiguration &configuration);

private:
    struct Exchange;
    struct HostPool;
    struct Report
    {
        quint64 requestId;
        int httpStatus;
        QNetworkReply::NetworkError error;
        QByteArray errorDetail;
    };
    // Entered by every socket signal: reports made inside are handed to the handler when the
    // outermost scope ends, with the client's state already consistent.
    class SignalScope
    {
    public:
        explicit SignalScope(WebhookClient &client);
        ~SignalScope();
        SignalScope(const SignalScope &) = delete;
        SignalScope &operator=(const SignalScope &) = delete;

    private:
        WebhookClient &m_client;
    };

    HostPool &poolFor(const QString &scheme, const QString &host, int port);
    void start(Exchange *exchange);
    void openConnection(HostPool &pool, Exchange *exchange);
    void pump(HostPool &pool);
    // A connection's reports, made through its pool (HostPool, the connection's owner).
    void finish(HostPool &pool, WebhookConnection *connection, int httpStatus,
                QNetworkReply::NetworkError error, bool reusable);
    void fail(HostPool &pool, WebhookConnection *connection, int httpStatus,
              QNetworkReply::NetworkError error, bool responseStarted);
    void closeConnection(HostPool &pool, WebhookConnection *connection);
    void sweepIdle();
    void report(quint64 requestId, int httpStatus, QNetworkReply::NetworkError error,
                const QByteArray &errorDetail = {});
    void enterSignal();
    void leaveSignal();
    void deliverReports();

    FinishedHandler m_handler;
    std::unordered_map<quint64, std::unique_ptr<Exchange>> m_exchanges;
    std::unordered_map<QString, std::unique_ptr<HostPool>> m_pools;
    std::deque<Report> m_reports;
    int m_scopeDepth = 0;
    bool m_deliveryQueued = false;
    std::optional<QSslConfiguration> m_sslConfiguration;
    QTimer *m_idleTimer = nullptr;
    int m_idleTimeoutMs = DefaultIdleTimeoutMs;
    QElapsedTimer m_clock; // idle times only (connection housekeeping, not delivery scheduling)
};

} // namespace EventDesk
