#pragma once

#include "../Expected.h"
#include "HttpServer.h"
#include "TestReceiverService.h"

#include <QHostAddress>
#include <QObject>
#include <QString>

#include <functional>

namespace EventDesk {

class Engine;
struct PublishResult;

// EventDesk's HTTP endpoint (PRODUCT.md), on one address:
//   POST /topics/<topic>/api/events[?api-version=...]   the publish API, with aeg-sas-key (header
//        or query parameter) when the topic has an access key; 200 only after the events are
//        committed; errors in Event Grid's shape {"error":{"code","message"}} (400/401/404/413)
//   ANY  /receivers/<name>                               the workspace's built-in test receivers
//   GET  /validate/<topic>/<subscription>?code=...       the validation URL of a subscription
//                                                        awaiting manual validation
//   GET  /metrics                                        Prometheus text format
//   GET  /                                               name, version and topics
class TopicEndpoint final : public QObject
{
    Q_OBJECT

public:
    // Returns the access key of a topic, or an empty string when the topic has none.
    using KeyProvider = std::function<QString(const QString &topicName)>;

    TopicEndpoint(Engine *engine, KeyProvider keyProvider, QObject *parent = nullptr);
    ~TopicEndpoint() override;

    // Binds to address:port (port 0 picks a free one) and returns the port bound. Also tells the
    // engine the base of its validation URLs.
    Expected<quint16> listen(const QHostAddress &address, quint16 port);
    quint16 port() const;

    // The test receivers' scripts and request records (the GUI reads them through EngineHost).
    TestReceiverService &receivers() { return m_receivers; }

    static QByteArray errorBody(const QString &code, const QString &message);

    // A port that is free on address right now (for "--listen HOST:0": the new workspace's demo
    // subscription must point at the port actually used, so it is chosen before the workspace).
    static quint16 findFreePort(const QHostAddress &address);

private:
    void handle(const HttpRequest &request, const HttpReply &reply);
    void handlePublish(const QString &topicName, const HttpRequest &request, const HttpReply &reply);
    static HttpResponse publishResponse(const QString &topicName, const PublishResult &result);
    HttpResponse handleValidationUrl(const QString &topic, const QString &subscription,
                                     const HttpRequest &request);

    Engine *m_engine;
    KeyProvider m_keyProvider;
    HttpServer m_server;
    TestReceiverService m_receivers;
};

} // namespace EventDesk
