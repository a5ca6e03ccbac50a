// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QByteArray>
#include <QElapsedTimer>
#include <QHash>
#include <QHostAddress>
#include <QJsonArray>
#include <QList>
#include <QObject>
#include <QPair>
#include <QSet>
#include <QString>
#include <QUrl>

#include <functional>

class QTcpServer;
class QTcpSocket;

namespace EventDesk::Testing {

// One HTTP request as the receiver saw it.
struct ReceivedRequest
{
    QByteArray method;
    QByteArray path; // request target as sent (path and query)
    QList<QPair<QByteArray, QByteArray>> headers; // names lower-cased, in arrival order
    QByteArray body;
    qint64 receivedAtMs = 0; // ScriptedReceiver::elapsedMs() when the request was complete
    int answeredStatus = 0; // status sent back, 0 if none (closed, hanging, pending)

    QByteArray header(QByteArrayView name) const; // first header of that name, case-insensitive
    bool hasHeader(QByteArrayView name) const;
    QJsonArray jsonArray() const; // body parsed as a JSON array (empty if it is not one)
    QStringList eventIds() const; // "id" of every object in jsonArray()
};

// What the receiver does with one request.
struct ReceiverAction
{
    enum class Kind {
        Respond, // answer with status (after delayMs, if set)
        Close, // close the connection without answering (SocketError at the sender)
        Hang, // never answer; the connection stays open
    };
    Kind kind = Kind::Respond;
    int status = 200;
    int delayMs = 0;
    QByteArray headers; // extra response header lines, each ending in "\r\n"
    QByteArray body;

    static ReceiverAction respond(int status) { return {Kind::Respond, status, 0, {}, {}}; }
    static ReceiverAction respondAfter(int delayMs, int status) { return {Kind::Respond, status, delayMs, {}, {}}; }
    // An answer with a body (and header lines), as Azure services answer failures.
    static ReceiverAction respondWith(int status, const QByteArray &body,
                                      const QByteArray &headers = {})
    {
        return {Kind::Respond, status, 0, headers, body};
    }
    static ReceiverAction close() { return {Kind::Close, 0, 0, {}, {}}; }
    static ReceiverAction hang() { return {Kind::Hang, 0, 0, {}, {}}; }
};

// A small raw HTTP/1.1 server on loopback for integration tests. Every request is recorded and
// answered by the next action of a script (a queue), or by the default action once the queue is
// empty. Handles keep-alive, several connections, Content-Length and chunked bodies and requests
// that arrive in pieces. Requests on one connection are answered in order (no pipelining).
//
// Endpoint validation (aeg-event-type: SubscriptionValidation, and the CloudEvents OPTIONS
// abuse-protection request) is answered like a well-behaved webhook does, by echoing the
// validation code / allowing the origin, without consuming the script; those requests are kept
// apart in validationRequests(). setAnswersValidation(false) puts them through the script.
class ScriptedReceiver final : public QObject
{
    Q_OBJECT

public:
    using Action = ReceiverAction;

    explicit ScriptedReceiver(QObject *parent = nullptr);
    ~ScriptedReceiver() override;

    // Listens on 127.0.0.1:port (0 picks a free one). Returns false if the port is taken.
    bool listen(quint16 port = 0);
    // Stops listening and drops every open connection (pending answers are discarded).
    void stop();
    bool isListening() const;
    quint16 port() const;
    QUrl url(const QString &path = QStringLiteral("/hook")) const;

    void enqueue(const Action &action);
    void setScript(const QList<Action> &actions); // replaces the queue
    void setDefaultAction(const Action &action);
    // Decides the action of every request that the script does not (it takes precedence over
    // the default action): for receivers that answer by what was asked, like a Functions host.
    void setResponder(std::function<Action(const ReceivedRequest &)> responder)
    {
        m_responder = std::move(responder);
    }
    void setAnswersValidation(bool answers) { m_answersValidation = answers; }

    // Deliveries (everything but answered validation requests), in arrival order.
    QList<ReceivedRequest> requests() const { return m_requests; }
    QList<ReceivedRequest> validationRequests() const { return m_validationRequests; }
    qsizetype requestCount() const { return m_requests.size(); }
    ReceivedRequest request(qsizetype index) const { return m_requests.at(index); }
    // Ids of every event in the bodies of requests that were answered with 200..204.
    QSet<QString> acceptedEventIds() const;
    // Ids of every event in every request body, whatever the answer.
    QSet<QString> receivedEventIds() const;
    int openConnectionCount() const { return int(m_connections.size()); }
    qint64 elapsedMs() const { return m_clock.elapsed(); }

Q_SIGNALS:
    void requestReceived(qsizetype index);

private:
    struct Connection;

    void onNewConnection();
    void onReadyRead(QTcpSocket *socket);
    void processBuffered(QTcpSocket *socket);
    void perform(QTcpSocket *socket, qsizetype requestIndex, bool closeAfter, const Action &action);
    void answer(QTcpSocket *socket, qsizetype requestIndex, bool closeAfter, int status,
                const QByteArray &extraHeaders = {}, const QByteArray &body = {});
    bool answerValidation(QTcpSocket *socket, const ReceivedRequest &request, bool closeAfter);
    void dropConnection(QTcpSocket *socket);
    Action nextAction(const ReceivedRequest &request);

    QTcpServer *m_server = nullptr;
    QHash<QTcpSocket *, Connection *> m_connections;
    QList<Action> m_script;
    Action m_defaultAction = Action::respond(200);
    std::function<Action(const ReceivedRequest &)> m_responder;
    QList<ReceivedRequest> m_requests;
    QList<ReceivedRequest> m_validationRequests;
    bool m_answersValidation = true;
    QElapsedTimer m_clock;
};

} // namespace EventDesk::Testing
