#pragma once

#include "../Expected.h"

#include <QHostAddress>
#include <QHttpServer>
#include <QObject>
#include <QString>

#include <functional>

class QTcpServer;

namespace EventDesk {

class Engine;

// The publish API (PRODUCT.md "Topic endpoint"):
//   POST /topics/<topic>/api/events[?api-version=...]
// with aeg-sas-key (header or query parameter) when the topic has an access key. Answers 200
// only after the events are committed; errors use Event Grid's shape
// {"error":{"code":"...","message":"..."}} with 400 / 401 / 404 / 413.
class TopicEndpoint final : public QObject
{
    Q_OBJECT

public:
    // Returns the access key of a topic, or an empty string when the topic has none.
    using KeyProvider = std::function<QString(const QString &topicName)>;

    TopicEndpoint(Engine *engine, KeyProvider keyProvider, QObject *parent = nullptr);
    ~TopicEndpoint() override;

    // Binds to address:port (port 0 picks a free one) and returns the port bound.
    Expected<quint16> listen(const QHostAddress &address, quint16 port);
    quint16 port() const;

    QHttpServer &httpServer() { return m_server; }

    static QByteArray errorBody(const QString &code, const QString &message);

private:
    QHttpServerResponse handlePublish(const QString &topicName, const QHttpServerRequest &request);

    Engine *m_engine;
    KeyProvider m_keyProvider;
    QHttpServer m_server;
    QTcpServer *m_tcpServer = nullptr;
};

} // namespace EventDesk
