// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../Expected.h"
#include "../engine/EngineSnapshot.h"
#include "../http/HttpServer.h"
#include "EndpointAccess.h"
#include "TestReceiverService.h"

#include <QDateTime>
#include <QHostAddress>
#include <QObject>
#include <QString>

#include <functional>

namespace EventDesk {

class Engine;
struct PublishResult;

// EventDesk's HTTP endpoint (docs/eventdeskd.md "Topic endpoint"), on one address:
//   POST /topics/<topic>/api/events[?api-version=...]   the publish API; 200 only after the events
//        are committed; errors in Event Grid's shape {"error":{"code","message"}}
//        (400/401/404/413). A topic with an access key takes either credential of Event Grid's
//        publish API:
//          - the key itself, in the aeg-sas-key header or query parameter;
//          - a shared access signature made with the key (SharedAccessSignature.h), in the
//            aeg-sas-token header (what the SDKs' AzureSASCredential sends) or as
//            "Authorization: SharedAccessSignature <token>". Its resource must name this topic's
//            endpoint by path (host, port and query are not compared), and its expiry is checked
//            against the wall clock.
//        A 401 says which check failed; neither the key nor a signature is ever logged.
//   ANY  /receivers/<name>                               the workspace's built-in test receivers
//   GET  /validate/<topic>/<subscription>?code=...       the validation URL of a subscription
//                                                        awaiting manual validation
//   GET  /metrics                                        Prometheus text format
//   GET  /                                               name, version and topics
// Before any of that, every request's head passes admit() (docs/security.md "The HTTP endpoint"):
// its Host must name this endpoint, an Origin header must be one the workspace allows, a publish
// must be JSON; and the body limit fits the path (a publish's is the publish limit, not the
// server's).
class TopicEndpoint final : public QObject
{
    Q_OBJECT

public:
    // Returns the access key of a topic, or an empty string when the topic has none.
    using KeyProvider = std::function<QString(const QString &topicName)>;

    // Non-empty while a topic's access key has not come from the secret store yet (the keychain
    // is locked or prompting): why, for the 503 that publishers then get.
    using KeyWait = std::function<QString(const QString &topicName)>;

    // The wall-clock time a SAS token's expiry is compared with.
    using WallClock = std::function<QDateTime()>;

    TopicEndpoint(Engine *engine, KeyProvider keyProvider, QObject *parent = nullptr);
    ~TopicEndpoint() override;

    // A token's expiry is the wall-clock time its client wrote, so it is compared with the wall
    // clock and not with the engine's clock, which --time-scale makes run faster. Tests replace it.
    void setWallClock(WallClock wallClock);
    // docs/eventdeskd.md "Secrets": a publish to a topic whose key is still awaited is answered 503
    // with Retry-After (the SDKs send it again) - neither accepted without its key nor refused as
    // if the publisher's credential were wrong.
    void setKeyWait(KeyWait keyWait);

    // Binds to address:port (port 0 picks a free one) and returns the port bound. Also tells the
    // engine the base of its validation URLs.
    Expected<quint16> listen(const QHostAddress &address, quint16 port);
    quint16 port() const;
    // Timeouts and the connection cap of the HTTP server (eventdeskd's options; defaults
    // otherwise).
    void setConnectionLimits(const HttpConnectionLimits &limits);
    // The names a request's Host may give (docs/security.md "The HTTP endpoint"), for the log.
    QString acceptedHosts() { return access().acceptedHosts(); }
    // The HTTP server's figures and the requests admit() refused, for /metrics and the app.
    EndpointSnapshot snapshot() const;

    // A publish body up to this is read and handed to the parser, which answers 413 beyond
    // EventParser::MaxRequestBytes with Event Grid's message; a larger one is refused unread.
    static constexpr qsizetype PublishBodyLimitBytes = 1024 * 1024 + 64 * 1024;
    // A test receiver takes what a webhook may be sent: the server's limit.
    static constexpr qsizetype ReceiverBodyLimitBytes = HttpServer::DefaultMaxBodyBytes;
    // Every other path (/metrics, /validate, /, unknown ones) needs no body.
    static constexpr qsizetype OtherBodyLimitBytes = 64 * 1024;

    // What is wrong with a publish's Content-Type (empty: it is one of the JSON types).
    static QString publishContentTypeProblem(QByteArrayView contentType);

    // The test receivers' scripts and request records (the GUI reads them through EngineHost).
    TestReceiverService &receivers() { return m_receivers; }

    static QByteArray errorBody(const QString &code, const QString &message);

    // A port that is free on address right now (for "--listen HOST:0": the new workspace's demo
    // subscription must point at the port actually used, so it is chosen before the workspace).
    static quint16 findFreePort(const QHostAddress &address);

private:
    HttpAdmission admit(const HttpRequest &head);
    const EndpointAccess &access();
    void handle(const HttpRequest &request, const HttpReply &reply);
    void handlePublish(const QString &topicName, const HttpRequest &request,
                       const HttpReply &reply);
    // Succeeds when the request carries a valid credential of the topic; the error says why not
    // (a 401's message).
    Expected<void> authorize(const QString &topicName, const QString &expectedKey,
                             const HttpRequest &request) const;
    static HttpResponse publishResponse(const QString &topicName, const PublishResult &result);
    HttpResponse handleValidationUrl(const QString &topic, const QString &subscription,
                                     const HttpRequest &request);

    Engine *m_engine;
    KeyProvider m_keyProvider;
    KeyWait m_keyWait;
    HttpServer m_server;
    TestReceiverService m_receivers;
    WallClock m_wallClock;
    QHostAddress m_listenAddress = QHostAddress::LocalHost;
    // Rebuilt when the workspace's settings change (compared on each request: implicitly shared
    // lists, so equal ones compare at once).
    EndpointAccess m_access;
    QStringList m_accessHosts;
    QStringList m_accessOrigins;
    bool m_accessBuilt = false;
    quint64 m_refusedHost = 0;
    quint64 m_refusedOrigin = 0;
    quint64 m_refusedContentType = 0;
};

} // namespace EventDesk
