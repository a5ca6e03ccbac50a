// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "TopicEndpoint.h"

#include <QTcpServer>

#include "../ConstantTime.h"
#include "../Logging.h"
#include "../engine/Clock.h"
#include "../engine/Engine.h"
#include "../http/HttpSyntax.h"
#include "PrometheusMetrics.h"
#include "SharedAccessSignature.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QUrl>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

// A key awaited from the keychain usually comes within seconds of the user unlocking it.
constexpr int KeyWaitRetryAfterSeconds = 5;

HttpResponse errorResponse(int status, const QString &code, const QString &message)
{
    return HttpResponse{status, "application/json", TopicEndpoint::errorBody(code, message), {}};
}

QString errorCodeFor(int status)
{
    switch (status) {
    case 400:
        return u"BadRequest"_s;
    case 401:
        return u"Unauthorized"_s;
    case 404:
        return u"NotFound"_s;
    case 409:
        return u"Conflict"_s;
    case 410:
        return u"Gone"_s;
    case 413:
        return u"PayloadTooLarge"_s;
    case 415:
        return u"UnsupportedMediaType"_s;
    case 421:
        return u"MisdirectedRequest"_s;
    case 431:
        return u"RequestHeaderFieldsTooLarge"_s;
    case 501:
        return u"NotImplemented"_s;
    default:
        return QString::fromLatin1(HttpServer::reasonPhrase(status)).remove(u' ');
    }
}

// The address a validation URL names: a wildcard listen address is reached through loopback.
QString urlHostFor(const QHostAddress &address)
{
    if (address == QHostAddress::Any || address == QHostAddress::AnyIPv4)
        return u"127.0.0.1"_s;
    if (address == QHostAddress::AnyIPv6)
        return u"[::1]"_s;
    if (address.protocol() == QAbstractSocket::IPv6Protocol)
        return u'[' + address.toString() + u']';
    return address.toString();
}

} // namespace

TopicEndpoint::TopicEndpoint(Engine *engine, KeyProvider keyProvider, QObject *parent)
    : QObject(parent)
    , m_engine(engine)
    , m_keyProvider(std::move(keyProvider))
    , m_receivers([engine] { return engine->clock()->nowMs(); })
    , m_wallClock([] { return QDateTime::currentDateTimeUtc(); })
{
    m_server.setHandler([this](const HttpRequest &request, const HttpReply &reply) { handle(request, reply); });
    m_server.setAdmission([this](const HttpRequest &head) { return admit(head); });
    m_server.setErrorBodyFactory([](int status, const QString &message) {
        return errorResponse(status, errorCodeFor(status), message);
    });
}

TopicEndpoint::~TopicEndpoint() = default;

Expected<quint16> TopicEndpoint::listen(const QHostAddress &address, quint16 port)
{
    auto bound = m_server.listen(address, port);
    if (bound) {
        m_listenAddress = address;
        m_accessBuilt = false; // the port and address are part of what Host may name
    }
    if (bound)
        m_engine->setValidationBaseUrl(QUrl(u"http://%1:%2"_s.arg(urlHostFor(address)).arg(bound.value())));
    return bound;
}

void TopicEndpoint::setKeyWait(KeyWait keyWait)
{
    m_keyWait = std::move(keyWait);
}

void TopicEndpoint::setWallClock(WallClock wallClock)
{
    m_wallClock = std::move(wallClock);
}

quint16 TopicEndpoint::port() const
{
    return m_server.port();
}

void TopicEndpoint::setConnectionLimits(const HttpConnectionLimits &limits)
{
    m_server.setConnectionLimits(limits);
}

quint16 TopicEndpoint::findFreePort(const QHostAddress &address)
{
    QTcpServer probe;
    if (!probe.listen(address, 0))
        return 0;
    return probe.serverPort();
}

EndpointSnapshot TopicEndpoint::snapshot() const
{
    const HttpServerStatistics statistics = m_server.statistics();
    EndpointSnapshot snapshot;
    snapshot.listening = m_server.port() != 0;
    snapshot.openConnections = statistics.openConnections;
    snapshot.acceptFailing = statistics.acceptFailing;
    snapshot.lastAcceptError = statistics.lastAcceptError;
    snapshot.acceptFailures = statistics.acceptFailures;
    snapshot.shedConnections = statistics.shedConnections;
    snapshot.refusedConnections = statistics.refusedConnections;
    snapshot.refusedHost = m_refusedHost;
    snapshot.refusedOrigin = m_refusedOrigin;
    snapshot.refusedContentType = m_refusedContentType;
    return snapshot;
}

QString TopicEndpoint::publishContentTypeProblem(QByteArrayView contentType)
{
    static const QString accepted = u"publish with Content-Type application/json (Event Grid and "
                                    u"custom schema), application/cloudevents+json or "
                                    u"application/cloudevents-batch+json (CloudEvents), charset "
                                    u"utf-8 or none"_s;
    if (contentType.isEmpty())
        return u"The request has no Content-Type: "_s + accepted + u'.';
    const qsizetype semicolon = contentType.indexOf(';');
    const QByteArrayView mediaType
        = HttpSyntax::trimmedWhitespace(semicolon < 0 ? contentType : contentType.first(semicolon));
    const auto shown = [contentType] {
        return QString::fromLatin1(contentType.first(std::min<qsizetype>(contentType.size(), 200)));
    };
    if (mediaType.compare("application/json", Qt::CaseInsensitive) != 0
        && mediaType.compare("application/cloudevents+json", Qt::CaseInsensitive) != 0
        && mediaType.compare("application/cloudevents-batch+json", Qt::CaseInsensitive) != 0)
        return u"Content-Type '%1' is not accepted: %2."_s.arg(shown(), accepted);
    // Parameters: only the charset is read; JSON is UTF-8 (RFC 8259 §8.1).
    QByteArrayView parameters
        = semicolon < 0 ? QByteArrayView() : contentType.sliced(semicolon + 1);
    while (!parameters.isEmpty()) {
        const qsizetype next = parameters.indexOf(';');
        const QByteArrayView parameter
            = HttpSyntax::trimmedWhitespace(next < 0 ? parameters : parameters.first(next));
        parameters = next < 0 ? QByteArrayView() : parameters.sliced(next + 1);
        const qsizetype equals = parameter.indexOf('=');
        if (equals < 0
            || HttpSyntax::trimmedWhitespace(parameter.first(equals))
                    .compare("charset", Qt::CaseInsensitive)
                != 0)
            continue;
        QByteArrayView charset = HttpSyntax::trimmedWhitespace(parameter.sliced(equals + 1));
        if (charset.size() >= 2 && charset.startsWith('"') && charset.endsWith('"'))
            charset = charset.sliced(1, charset.size() - 2);
        if (charset.compare("utf-8", Qt::CaseInsensitive) != 0
            && charset.compare("utf8", Qt::CaseInsensitive) != 0)
            return u"Content-Type '%1' is not accepted: JSON is UTF-8; %2."_s.arg(shown(),
                                                                                  accepted);
    }
    return {};
}

const EndpointAccess &TopicEndpoint::access()
{
    const WorkspaceSettings &settings = m_engine->workspace().settings;
    if (!m_accessBuilt || settings.allowedHosts != m_accessHosts
        || settings.allowedOrigins != m_accessOrigins) {
        m_accessHosts = settings.allowedHosts;
        m_accessOrigins = settings.allowedOrigins;
        m_access = EndpointAccess(m_listenAddress, m_server.port(), m_accessHosts, m_accessOrigins);
        m_accessBuilt = true;
    }
    return m_access;
}

HttpAdmission TopicEndpoint::admit(const HttpRequest &head)
{
    HttpAdmission admission;
    const EndpointAccess::Verdict verdict = access().check(head);
    if (!verdict.isAllowed()) {
        ++(verdict.status == 403 ? m_refusedOrigin : m_refusedHost);
        qCDebug(lcEndpoint) << "refused" << head.method << head.path << "from" << head.peerAddress
                            << verdict.status << verdict.message;
        admission.answer = errorResponse(verdict.status, verdict.code, verdict.message);
        return admission;
    }
    if (!verdict.allowedOrigin.isEmpty()) {
        // A web page the workspace allows: the browser must see that in every answer (CORS).
        admission.responseHeaders
            = {{"Access-Control-Allow-Origin", verdict.allowedOrigin}, {"Vary", "Origin"}};
        if (head.method == "OPTIONS" && head.hasHeader("Access-Control-Request-Method")) {
            HttpResponse preflight {204, {}, {}, {}};
            preflight.headers = {{"Access-Control-Allow-Methods", "GET, POST, OPTIONS"},
                                 {"Access-Control-Max-Age", "600"}};
            if (const QByteArray requested = head.header("Access-Control-Request-Headers");
                !requested.isEmpty())
                preflight.headers.append({"Access-Control-Allow-Headers", requested});
            admission.answer = preflight;
            return admission;
        }
    }
    const QStringList &segments = head.pathSegments;
    if (segments.size() == 4 && segments.at(0) == "topics"_L1 && segments.at(2) == "api"_L1
        && segments.at(3) == "events"_L1 && head.method == "POST") {
        admission.maxBodyBytes = PublishBodyLimitBytes;
        // A web page can send text/plain, a form's types or none without a preflight; a JSON type
        // needs one, which only allowed origins pass.
        if (const QString problem = publishContentTypeProblem(head.header("Content-Type"));
            !problem.isEmpty()) {
            ++m_refusedContentType;
            admission.answer = errorResponse(415, u"UnsupportedMediaType"_s, problem);
        }
    } else if (segments.size() == 2 && segments.at(0) == "receivers"_L1) {
        admission.maxBodyBytes = ReceiverBodyLimitBytes;
    } else {
        admission.maxBodyBytes = OtherBodyLimitBytes;
    }
    return admission;
}

QByteArray TopicEndpoint::errorBody(const QString &code, const QString &message)
{
    return QJsonDocument(QJsonObject{{u"error"_s, QJsonObject{{u"code"_s, code}, {u"message"_s, message}}}})
        .toJson(QJsonDocument::Compact);
}

void TopicEndpoint::handle(const HttpRequest &request, const HttpReply &reply)
{
    const QStringList &segments = request.pathSegments;
    const QByteArray &method = request.method;
    if (segments.size() == 4 && segments.at(0) == "topics"_L1 && segments.at(2) == "api"_L1
        && segments.at(3) == "events"_L1 && method == "POST") {
        handlePublish(segments.at(1), request, reply);
        return;
    }
    if (segments.size() == 2 && segments.at(0) == "receivers"_L1) {
        if (const TestReceiver *receiver = m_engine->workspace().findReceiver(segments.at(1))) {
            // Copied: the workspace may change while a delayed answer is pending.
            m_receivers.handle(TestReceiver(*receiver), request, reply);
            return;
        }
        reply.respond(errorResponse(404, u"NotFound"_s,
                                    u"No test receiver named '%1' in this workspace."_s.arg(segments.at(1))));
        return;
    }
    if (segments.size() == 3 && segments.at(0) == "validate"_L1 && method == "GET") {
        reply.respond(handleValidationUrl(segments.at(1), segments.at(2), request));
        return;
    }
    if (segments.size() == 1 && segments.at(0) == "metrics"_L1 && method == "GET") {
        EngineSnapshot snapshot = m_engine->snapshot();
        snapshot.endpoint = this->snapshot();
        reply.respond(HttpResponse::text(200, PrometheusMetrics::format(snapshot),
                                         PrometheusMetrics::ContentType.toByteArray()));
        return;
    }
    if (segments.isEmpty() && method == "GET") {
        QJsonArray topics;
        for (const Topic &topic : m_engine->workspace().topics)
            topics.append(topic.name);
        const QJsonObject info{{u"name"_s, u"EventDesk"_s},
                               {u"version"_s, QStringLiteral(EVENTDESK_VERSION)},
                               {u"topics"_s, topics}};
        reply.respond(HttpResponse::json(200, QJsonDocument(info).toJson(QJsonDocument::Compact)));
        return;
    }
    reply.respond(errorResponse(
        404, u"NotFound"_s,
        u"No resource at %1 %2. Publish with POST /topics/<topic>/api/events."_s.arg(
            QString::fromLatin1(method), request.path)));
}

void TopicEndpoint::handlePublish(const QString &topicName, const HttpRequest &request,
                                  const HttpReply &reply)
{
    if (!m_engine->hasTopic(topicName)) {
        reply.respond(errorResponse(404, u"NotFound"_s,
                                    u"Topic '%1' does not exist in this workspace."_s.arg(topicName)));
        return;
    }
    if (const QString waiting = m_keyWait ? m_keyWait(topicName) : QString(); !waiting.isEmpty()) {
        HttpResponse response = errorResponse(503, u"ServiceUnavailable"_s, waiting);
        response.headers.append({"Retry-After", QByteArray::number(KeyWaitRetryAfterSeconds)});
        reply.respond(response);
        return;
    }
    const QString expectedKey = m_keyProvider ? m_keyProvider(topicName) : QString();
    if (!expectedKey.isEmpty()) {
        if (const Expected<void> authorized = authorize(topicName, expectedKey, request); !authorized) {
            reply.respond(errorResponse(401, u"Unauthorized"_s, authorized.error()));
            return;
        }
    }
    // Answered only after the commit (SPEC D1); a large request is parsed on another thread.
    m_engine->publishAsync(topicName, request.body, request.header("Content-Type"),
                           [reply, topicName](const PublishResult &result) {
                               reply.respond(publishResponse(topicName, result));
                           });
}

Expected<void> TopicEndpoint::authorize(const QString &topicName, const QString &expectedKey,
                                        const HttpRequest &request) const
{
    // The key itself wins when a client sends both: it is the older and simpler credential, and
    // a wrong key must not be rescued by a token.
    QByteArray presentedKey = request.header("aeg-sas-key");
    if (presentedKey.isEmpty())
        presentedKey = request.query.queryItemValue(u"aeg-sas-key"_s, QUrl::FullyDecoded).toUtf8();
    if (!presentedKey.isEmpty()) {
        if (!constantTimeEquals(presentedKey, expectedKey.toUtf8()))
            return Error(u"The access key presented for topic '%1' is not valid."_s.arg(topicName));
        return {};
    }

    // The SDKs send a SAS token in aeg-sas-token; Event Grid also documents the Authorization form.
    QByteArray token = request.header("aeg-sas-token");
    const QByteArray authorization = request.header("Authorization");
    const qsizetype space = authorization.indexOf(' ');
    const QByteArray scheme = space < 0 ? authorization : authorization.left(space);
    const bool sasAuthorization = scheme.compare("SharedAccessSignature", Qt::CaseInsensitive) == 0;
    if (token.isEmpty() && sasAuthorization)
        token = authorization.mid(scheme.size()).trimmed();
    if (!token.isEmpty() || sasAuthorization) {
        const SharedAccessSignature::Verdict verdict
            = SharedAccessSignature::check(token, topicName, expectedKey, m_wallClock());
        if (verdict.isValid())
            return {};
        qCInfo(lcEndpoint) << "refused a SAS token for" << topicName << ":" << verdict.message;
        return Error(verdict.message);
    }

    QString message = u"Topic '%1' requires an access key: send it in the aeg-sas-key header, or a "
                      "SAS token signed with it in the aeg-sas-token header."_s.arg(topicName);
    if (!authorization.isEmpty()) {
        // Repeated only when it looks like a scheme's name, not like a credential sent bare.
        static const QRegularExpression schemeName(uR"(^[A-Za-z][A-Za-z0-9-]{0,29}$)"_s);
        const QString name = QString::fromLatin1(scheme);
        message += schemeName.match(name).hasMatch()
            ? u" (The Authorization scheme '%1' is not accepted here; 'SharedAccessSignature <token>' is.)"_s.arg(name)
            : u" (The Authorization header is not 'SharedAccessSignature <token>'.)"_s;
    }
    return Error(message);
}

HttpResponse TopicEndpoint::publishResponse(const QString &topicName, const PublishResult &result)
{
    if (result.httpStatus == 200) {
        qCDebug(lcEndpoint) << "accepted" << result.accepted << "event(s) for" << topicName;
        return HttpResponse{200, {}, {}, {}};
    }
    qCInfo(lcEndpoint) << "rejected publish to" << topicName << result.httpStatus << result.errorMessage;
    HttpResponse response = errorResponse(result.httpStatus, result.errorCode, result.errorMessage);
    if (result.retryAfterSeconds > 0)
        response.headers.append({"Retry-After", QByteArray::number(result.retryAfterSeconds)});
    return response;
}

HttpResponse TopicEndpoint::handleValidationUrl(const QString &topic, const QString &subscription,
                                                const HttpRequest &request)
{
    const QString code = request.query.queryItemValue(u"code"_s, QUrl::FullyDecoded);
    const ManualValidationResult result = m_engine->completeManualValidation(topic, subscription, code);
    if (result.httpStatus != 200)
        return errorResponse(result.httpStatus, errorCodeFor(result.httpStatus), result.message);
    const QJsonObject body{{u"provisioningState"_s,
                            provisioningStateName(m_engine->provisioningState(topic, subscription))},
                           {u"message"_s, result.message}};
    return HttpResponse::json(200, QJsonDocument(body).toJson(QJsonDocument::Compact));
}

} // namespace EventDesk
