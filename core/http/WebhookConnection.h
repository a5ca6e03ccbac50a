// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QAbstractSocket>
#include <QByteArray>
#include <QNetworkReply>
#include <QObject>
#include <QSslConfiguration>
#include <QString>

#include <optional>

class QTcpSocket;

namespace EventDesk {

// One HTTP/1.1 connection of WebhookClient's pools: writes the request of the exchange it
// carries and parses the response (status line, headers, a body framed by Content-Length,
// chunked or running until the server closes), one exchange at a time.
//
// It knows its owner only through Owner, so that the client's pools, queues and reports stay in
// WebhookClient and this file does not depend on them. Every call into the owner is made from a
// socket's signal, between Owner::signalEntered() and Owner::signalLeft(), never from within a
// call into the connection: the owner can defer its reports to the outermost signal's end.
class WebhookConnection final : public QObject
{
public:
    enum class State { Connecting, Busy, Idle, Closed };

    // A response body is read and discarded. Beyond this many bytes the connection is closed and
    // the status already parsed is reported (with NoError): a delivery's outcome depends on the
    // status only, and an endpoint must not make the engine read without end.
    static constexpr qsizetype MaxResponseBodyBytes = 1024 * 1024;
    // What the socket reads ahead of the parser: an endpoint sending without end is read this
    // much at a time (and discarded past MaxResponseBodyBytes), never taken whole into memory.
    static constexpr qint64 ReadBufferBytes = 256 * 1024;
    // A status line and headers longer than this are a ProtocolFailure.
    static constexpr qsizetype MaxResponseHeadBytes = 64 * 1024;
    // Of a failure's answer, this much is kept (errorDetail()): Azure services name the cause in
    // the x-ms-error-code header or the body, and the outcome of a Storage queue, Service Bus or
    // Event Hubs destination depends on it (OutcomeClassifier).
    static constexpr qsizetype MaxErrorDetailBytes = 2048;

    // Where the connection goes.
    struct Server
    {
        QString host;
        quint16 port = 0;
        bool encrypted = false; // https: QSslSocket
    };

    // The request of one exchange, as the connection reads it. The owner keeps it alive while
    // the connection carries it.
    struct Request
    {
        quint64 id = 0;
        QByteArray bytes; // head and body: written at once, and kept for the one resend
        bool headRequest = false; // its response has no body
    };

    // What the connection tells the one that owns it.
    class Owner
    {
    public:
        // The response ended. The connection still carries the exchange; reusable: it may take
        // the next one.
        virtual void exchangeFinished(WebhookConnection *connection, int httpStatus,
                                      QNetworkReply::NetworkError error, bool reusable)
            = 0;
        // The exchange failed; the connection still carries it and cannot be reused.
        // responseStarted: a byte of the response arrived, so the request must not be sent again.
        virtual void exchangeFailed(WebhookConnection *connection, int httpStatus,
                                    QNetworkReply::NetworkError error, bool responseStarted)
            = 0;
        // A connection that carries no exchange cannot be trusted any more.
        virtual void connectionUnusable(WebhookConnection *connection) = 0;
        // A socket signal starts and ends being handled; the calls above come in between.
        virtual void signalEntered() = 0;
        virtual void signalLeft() = 0;

    protected:
        ~Owner() = default;
    };

    WebhookConnection(Owner &owner, Server server, QObject *parent);

    State state() const { return m_state; }
    bool isReused() const { return m_completedExchanges > 0; }
    qint64 idleSinceMs() const { return m_idleSinceMs; }
    // The final status once its line was parsed, 0 before.
    int status() const { return m_status; }
    // For a status that is no success: the x-ms-error-code header's value, a line break, and the
    // start of the body, together at most MaxErrorDetailBytes. Empty for a success.
    const QByteArray &errorDetail() const { return m_errorDetail; }
    bool isUsable() const;

    // Connects and then writes the request.
    void open(const Request *request, const std::optional<QSslConfiguration> &sslConfiguration);
    // A kept-alive connection takes its next exchange.
    void reuse(const Request *request);
    // Lets go of the exchange it carries (null if none) and returns it.
    const Request *detach();
    void becomeIdle(qint64 nowMs);
    // Closes the socket at once; the connection deletes itself from the event loop.
    void shutDown();

private:
    enum class Stage { Head, Length, ChunkSize, ChunkData, ChunkEnd, Trailer, UntilClose };
    enum class Progress { NeedMore, Handed }; // Handed: the exchange went back to the owner

    void attach(const Request *request);
    void writeRequest();
    void onConnected();
    void onReadyRead();
    void readAvailable();
    void noteProblem(QAbstractSocket::SocketError error);
    void onProblem();
    Progress protocolFailure(const char *what);
    Progress complete();
    bool overCap(qsizetype bytes);
    void keepErrorDetail(qsizetype from, qsizetype bytes);
    Progress capReached();
    Progress parse();
    bool parseHead(QByteArrayView head);

    Owner &m_owner;
    const Server m_server;
    QTcpSocket *m_socket = nullptr;
    const Request *m_request = nullptr;
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
    QByteArray m_errorDetail;
};

} // namespace EventDesk
