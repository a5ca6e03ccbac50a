// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

// Private to core/http: one TCP connection of HttpServer.

#include "HttpMessage.h"

#include <QByteArray>
#include <QObject>

#include <optional>

class QTcpSocket;

namespace EventDesk {

// One TCP connection: parses requests one after the other and answers them in order (a request
// that arrives while an earlier one awaits its answer waits, unread, in the socket). What it holds
// is bounded: the head (MaxHeaderBytes), the body (the admission's limit), what a client pipelines
// behind a request awaiting its answer (the socket's read buffer), and answers a client does not
// read (WriteBacklogBytes: no further request is handled until they leave).
class HttpConnection final : public QObject
{
public:
    // What the connection needs of its server (HttpServer), which owns it.
    class Owner
    {
    public:
        virtual const HttpConnectionLimits &connectionLimits() const = 0;
        virtual qsizetype maxBodyBytes() const = 0;
        virtual qint64 monotonicMs() const = 0; // the clock of the deadlines
        virtual HttpAdmission admit(const HttpRequest &head) const = 0;
        virtual void dispatch(const HttpRequest &request, const HttpReply &reply) = 0;
        virtual HttpResponse errorResponse(int status, const QString &message) const = 0;
        virtual void forgetConnection(HttpConnection *connection) = 0; // it is being destroyed

    protected:
        ~Owner() = default;
    };

    // parent: the server (QObject), which deletes what is left of its connections.
    HttpConnection(QTcpSocket *socket, Owner &owner, QObject *parent);
    ~HttpConnection() override;

    void respond(quint64 exchange, const HttpResponse &response);
    void closeWithoutAnswer(quint64 exchange);
    bool isOpen(quint64 exchange) const;

    bool isOverdue(qint64 nowMs) const { return m_deadlineMs >= 0 && nowMs >= m_deadlineMs; }
    // Called by the server's sweep once the deadline has passed.
    void timeOut();

    // Nothing in progress: kept alive between requests, or connected without sending a byte.
    bool isIdle() const;
    // Since when (HttpServer::monotonicMs) it is idle.
    qint64 idleSinceMs() const { return m_idleSinceMs; }
    // Closes an idle connection at once, to give its descriptor back (HttpServer's accept trouble).
    void shed();

    // Bytes of a client's answers waiting to leave beyond which no further request is handled.
    static constexpr qint64 WriteBacklogBytes = 1024 * 1024;

private:
    enum class Stage { Head, Body, ChunkSize, ChunkData, ChunkTrailer };
    // What the connection's deadline is for (HttpConnectionLimits).
    enum class Wait { None, Head, Body, Idle, Draining, Closing };

    void setDeadline(Wait wait);
    void updateDeadline(bool bytesArrived);
    void onDisconnected();
    void onBytesWritten();
    void close();
    void fail(int status, const QString &message);
    void answerAndClose(const HttpResponse &response);
    void write(const HttpResponse &response, bool close);
    void process();
    bool step();
    bool parseHead();
    bool parseFraming(bool http10);
    bool admit(bool chunked, qint64 contentLength);
    void sendContinue();
    void dispatch();

    QTcpSocket *m_socket;
    Owner *m_server;
    QByteArray m_buffer;
    HttpRequest m_request;
    Stage m_stage = Stage::Head;
    qsizetype m_contentLength = 0;
    qsizetype m_chunkOverheadBytes = 0; // chunk extensions, then trailer, of the current request
    qsizetype m_maxBodyBytes = 0; // of the current request (its admission)
    // The current request's answer when its admission gave one (its handler is not called).
    std::optional<HttpResponse> m_admissionAnswer;
    HttpHeaders m_responseHeaders; // added to the current request's answer (its admission)
    quint64 m_exchange = 0;
    Wait m_wait = Wait::None;
    qint64 m_deadlineMs = -1; // on HttpServer::monotonicMs(); -1: none
    qint64 m_idleSinceMs = 0;
    bool m_awaitingAnswer = false;
    bool m_closeAfterAnswer = false;
    bool m_closing = false;
    bool m_writeBlocked = false; // more than WriteBacklogBytes of answers wait to leave
};

} // namespace EventDesk
