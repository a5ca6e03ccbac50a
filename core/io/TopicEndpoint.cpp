#include "TopicEndpoint.h"

#include "../Logging.h"
#include "../engine/Engine.h"

#include <QHttpServerRequest>
#include <QHttpServerResponder>
#include <QHttpServerResponse>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMetaEnum>
#include <QTcpServer>
#include <QUrlQuery>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

QHttpServerResponse errorResponse(QHttpServerResponse::StatusCode status, const QString &code,
                                  const QString &message)
{
    return QHttpServerResponse("application/json"_ba, TopicEndpoint::errorBody(code, message), status);
}

// Compares keys without leaking where they differ through timing.
bool keysEqual(const QByteArray &a, const QByteArray &b)
{
    if (a.size() != b.size())
        return false;
    unsigned char difference = 0;
    for (qsizetype i = 0; i < a.size(); ++i)
        difference |= static_cast<unsigned char>(a.at(i) ^ b.at(i));
    return difference == 0;
}

} // namespace

TopicEndpoint::TopicEndpoint(Engine *engine, KeyProvider keyProvider, QObject *parent)
    : QObject(parent)
    , m_engine(engine)
    , m_keyProvider(std::move(keyProvider))
{
    m_server.route(u"/topics/<arg>/api/events"_s, QHttpServerRequest::Method::Post,
                   [this](const QString &topic, const QHttpServerRequest &request) {
                       return handlePublish(topic, request);
                   });
    // Built-in test receiver (PRODUCT.md): answers deliveries with the status its workspace entry
    // names ({"name":"demo","status":200}), so a new workspace delivers with no set-up.
    m_server.route(u"/receivers/<arg>"_s, QHttpServerRequest::Method::Post,
                   [this](const QString &name, const QHttpServerRequest &) {
                       const QJsonArray receivers = m_engine->workspace().receivers;
                       for (const QJsonValue &value : receivers) {
                           const QJsonObject receiver = value.toObject();
                           if (receiver.value(u"name"_s).toString().compare(name, Qt::CaseInsensitive) != 0)
                               continue;
                           const int status = receiver.value(u"status"_s).toInt(200);
                           return QHttpServerResponse(QHttpServerResponse::StatusCode(status));
                       }
                       return errorResponse(QHttpServerResponse::StatusCode::NotFound, u"NotFound"_s,
                                            u"No test receiver named '%1' in this workspace."_s.arg(name));
                   });
    m_server.route(u"/"_s, QHttpServerRequest::Method::Get, [this] {
        QJsonArray topics;
        for (const Topic &topic : m_engine->workspace().topics)
            topics.append(topic.name);
        return QHttpServerResponse(QJsonObject{{u"name"_s, u"EventDesk"_s},
                                               {u"version"_s, QStringLiteral(EVENTDESK_VERSION)},
                                               {u"topics"_s, topics}});
    });
    m_server.setMissingHandler([](const QHttpServerRequest &request, QHttpServerResponder &&responder) {
        responder.write(errorBody(u"NotFound"_s,
                                  u"No resource at %1 %2. Publish with POST /topics/<topic>/api/events."_s
                                      .arg(QString::fromLatin1(QMetaEnum::fromType<QHttpServerRequest::Method>()
                                                                   .valueToKey(int(request.method()))),
                                           request.url().path())),
                        "application/json"_ba, QHttpServerResponder::StatusCode::NotFound);
    });
}

TopicEndpoint::~TopicEndpoint() = default;

Expected<quint16> TopicEndpoint::listen(const QHostAddress &address, quint16 port)
{
    auto *tcpServer = new QTcpServer(this);
    if (!tcpServer->listen(address, port)) {
        const QString message = u"cannot listen on %1:%2: %3"_s.arg(address.toString())
                                    .arg(port)
                                    .arg(tcpServer->errorString());
        delete tcpServer;
        return Error(message);
    }
    m_server.bind(tcpServer);
    m_tcpServer = tcpServer;
    return tcpServer->serverPort();
}

quint16 TopicEndpoint::port() const
{
    return m_tcpServer ? m_tcpServer->serverPort() : 0;
}

QByteArray TopicEndpoint::errorBody(const QString &code, const QString &message)
{
    return QJsonDocument(QJsonObject{{u"error"_s, QJsonObject{{u"code"_s, code}, {u"message"_s, message}}}})
        .toJson(QJsonDocument::Compact);
}

QHttpServerResponse TopicEndpoint::handlePublish(const QString &topicName,
                                                 const QHttpServerRequest &request)
{
    using Status = QHttpServerResponse::StatusCode;
    if (!m_engine->hasTopic(topicName)) {
        return errorResponse(Status::NotFound, u"NotFound"_s,
                             u"Topic '%1' does not exist in this workspace."_s.arg(topicName));
    }
    const QString expectedKey = m_keyProvider ? m_keyProvider(topicName) : QString();
    if (!expectedKey.isEmpty()) {
        QByteArray presented = request.value("aeg-sas-key");
        if (presented.isEmpty())
            presented = request.query().queryItemValue(u"aeg-sas-key"_s, QUrl::FullyDecoded).toUtf8();
        if (presented.isEmpty()) {
            return errorResponse(Status::Unauthorized, u"Unauthorized"_s,
                                 u"Topic '%1' requires an access key: send it in the aeg-sas-key header."_s
                                     .arg(topicName));
        }
        if (!keysEqual(presented, expectedKey.toUtf8())) {
            return errorResponse(Status::Unauthorized, u"Unauthorized"_s,
                                 u"The access key presented for topic '%1' is not valid."_s.arg(topicName));
        }
    }
    const PublishResult result = m_engine->publish(topicName, request.body(), request.value("Content-Type"));
    if (result.httpStatus == 200) {
        qCDebug(lcEndpoint) << "accepted" << result.accepted << "event(s) for" << topicName;
        return QHttpServerResponse(Status::Ok);
    }
    qCInfo(lcEndpoint) << "rejected publish to" << topicName << result.httpStatus << result.errorMessage;
    return errorResponse(Status(result.httpStatus), result.errorCode, result.errorMessage);
}

} // namespace EventDesk
