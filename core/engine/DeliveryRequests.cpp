// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "DeliveryRequests.h"

#include "../azure/AzureCredentials.h"
#include "../azure/StorageSharedKey.h"
#include "../rules/FilterEvaluator.h"
#include "../rules/SchemaConverter.h"
#include "../secrets/SecretStore.h"
#include "EngineState.h"
#include "Provisioning.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QUrlQuery>

#include <cmath>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

QByteArray scalarHeaderValue(const QJsonValue &value)
{
    // SPEC H3: only string, number and boolean values are used.
    switch (value.type()) {
    case QJsonValue::String:
        return value.toString().toUtf8();
    case QJsonValue::Bool:
        return value.toBool() ? QByteArrayLiteral("true") : QByteArrayLiteral("false");
    case QJsonValue::Double: {
        const double number = value.toDouble();
        if (std::floor(number) == number && std::abs(number) < 1e15)
            return QByteArray::number(qint64(number));
        return QByteArray::number(number, 'g', 17);
    }
    default:
        return {};
    }
}

bool hasLineBreak(const QByteArray &value)
{
    return value.contains('\r') || value.contains('\n');
}

// Delivery properties that Service Bus and Event Hubs keep as broker (system) properties rather
// than as custom properties, by the name a subscription gives them (case-insensitive).
constexpr std::array<QLatin1StringView, 8> BrokerPropertyNames = {
    "SessionId"_L1,  "MessageId"_L1, "CorrelationId"_L1, "PartitionKey"_L1,
    "Label"_L1,      "To"_L1,        "ReplyTo"_L1,       "ReplyToSessionId"_L1,
};

QString brokerPropertyName(const QByteArray &name)
{
    for (const QLatin1StringView known : BrokerPropertyNames) {
        if (QLatin1StringView(name).compare(known, Qt::CaseInsensitive) == 0)
            return known;
    }
    return {};
}

QUrl withPath(QUrl base, const QString &path)
{
    QString joined = base.path();
    if (!joined.endsWith(u'/'))
        joined += u'/';
    base.setPath(joined + path);
    return base;
}

} // namespace

DeliveryRequests::Result DeliveryRequests::build(const Subscription &subscription,
                                                 const QList<QByteArray> &bodies,
                                                 int deliveryCount, const StoredEvent &firstEvent,
                                                 const QDateTime &utcNow) const
{
    const EventSubscription &config = subscription.config;
    const DeliveryDestination &destination = config.destination;
    QString problem;
    const std::optional<DestinationResource> resource
        = Destinations::resource(destination, &problem);
    if (!resource) // validated when the workspace was loaded; kept for safety
        return Refused {DeliveryOutcome::BadRequest, u"destination resourceId "_s + problem};
    switch (destination.type) {
    case DestinationType::WebHook:
        return webHook(subscription, m_receiverAlias.mapped(config.endpointUrl), bodies,
                       deliveryCount, firstEvent);
    case DestinationType::AzureFunction: {
        // The local Functions host's Event Grid webhook (what Azure's Event Grid trigger uses).
        QUrl url = withPath(Destinations::serviceUrl(destination, *resource),
                            u"runtime/webhooks/EventGrid"_s);
        QUrlQuery query(url);
        query.addQueryItem(u"functionName"_s, resource->function);
        url.setQuery(query);
        return webHook(subscription, url, bodies, deliveryCount, firstEvent);
    }
    case DestinationType::StorageQueue:
        return storageQueue(subscription, bodies.value(0), utcNow);
    case DestinationType::ServiceBusQueue:
    case DestinationType::ServiceBusTopic:
    case DestinationType::EventHub:
        return messaging(subscription, bodies.value(0), deliveryCount, firstEvent, utcNow);
    }
    return Refused {DeliveryOutcome::GenericError, u"unknown destination type"_s};
}

QList<std::pair<QByteArray, QByteArray>>
DeliveryRequests::deliveryProperties(const Subscription &subscription,
                                     const QByteArray &firstBody) const
{
    const EventSubscription &config = subscription.config;
    QList<std::pair<QByteArray, QByteArray>> properties;
    QJsonObject firstDelivered;
    bool parsedFirst = false;
    for (const DeliveryHeader &header : config.deliveryHeaders) {
        QByteArray value;
        if (header.kind == DeliveryHeader::Kind::Static) {
            if (header.secret) {
                if (!m_secretResolver)
                    continue;
                value = m_secretResolver(subscription.topic, config.name, header.name).toUtf8();
                if (value.isEmpty())
                    continue;
            } else {
                value = header.value.toUtf8();
            }
        } else {
            if (!parsedFirst) {
                firstDelivered = QJsonDocument::fromJson(firstBody).object();
                parsedFirst = true;
            }
            // SPEC H3: a missing or non-scalar value omits the header.
            value = scalarHeaderValue(FilterEvaluator::lookup(firstDelivered, header.sourceField));
            if (value.isEmpty())
                continue;
        }
        if (hasLineBreak(value))
            continue; // H1: never let an event's data split a header
        properties.append({header.name.toUtf8(), value});
    }
    return properties;
}

DeliveryRequests::Result DeliveryRequests::webHook(const Subscription &subscription,
                                                   const QUrl &url,
                                                   const QList<QByteArray> &bodies,
                                                   int deliveryCount,
                                                   const StoredEvent &firstEvent) const
{
    const EventSubscription &config = subscription.config;
    const bool batching = config.batchPolicy.enabled;
    Built built;
    QNetworkRequest &request = built.request;
    request.setUrl(url);
    // SPEC D5: a 3xx is a failed attempt, so redirects are never followed.
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute,
                         QNetworkRequest::ManualRedirectPolicy);
    request.setHeader(QNetworkRequest::ContentTypeHeader,
                      SchemaConverter::contentType(config.deliverySchema, batching));
    // SPEC D7
    request.setRawHeader("aeg-event-type", "Notification");
    request.setRawHeader("aeg-subscription-name", config.name.toUpper().toUtf8());
    request.setRawHeader("aeg-delivery-count", QByteArray::number(deliveryCount));
    if (!firstEvent.dataVersion.isEmpty())
        request.setRawHeader("aeg-data-version", firstEvent.dataVersion.toUtf8());
    request.setRawHeader("aeg-metadata-version",
                         config.deliverySchema == EventSchema::CloudEvents10 ? "1.0" : "1");
    // CloudEvents abuse protection: deliveries carry the origin the endpoint allowed.
    if (config.deliverySchema == EventSchema::CloudEvents10)
        request.setRawHeader("WebHook-Request-Origin", EventGridOrigin.toByteArray());
    // SPEC §9 custom delivery headers.
    for (const auto &[name, value] : deliveryProperties(subscription, bodies.value(0)))
        request.setRawHeader(name, value);
    built.body = SchemaConverter::requestBody(bodies, config.deliverySchema, batching);
    return built;
}

DeliveryRequests::Result DeliveryRequests::storageQueue(const Subscription &subscription,
                                                        const QByteArray &body,
                                                        const QDateTime &utcNow) const
{
    const DeliveryDestination &destination = subscription.config.destination;
    const DestinationResource resource = Destinations::resource(destination).value();
    // One message per event, its JSON in Base64: what queue-triggered functions and the Storage
    // SDKs' Base64 message encoding read.
    const QByteArray messageText = body.toBase64();
    if (messageText.size() > MaxQueueMessageBytes) {
        return Refused {DeliveryOutcome::PayloadTooLarge,
                        u"the event is %1 bytes as a queue message (Base64); a Storage queue "
                        u"message is at most %2 bytes"_s.arg(messageText.size())
                            .arg(MaxQueueMessageBytes)};
    }
    const QString secret = m_credentialResolver
        ? m_credentialResolver(SecretKeys::storageAccountKey(resource.account))
        : QString();
    if (secret.isEmpty()) {
        return Refused {DeliveryOutcome::Unauthorized,
                        u"no key for storage account '%1': store its key or connection string "
                        u"with EventDesk, or set %2"_s.arg(
                            resource.account,
                            SecretKeys::environmentVariable(
                                SecretKeys::storageAccountKey(resource.account)))};
    }
    const auto account = AzureCredentials::storageAccount(secret, resource.account);
    if (!account)
        return Refused {DeliveryOutcome::Unauthorized, account.error()};
    // The destination's serviceUrl, else the connection string's queue endpoint, else Azure's.
    QUrl endpoint = destination.serviceUrl;
    if (endpoint.isEmpty())
        endpoint = account->queueEndpoint;
    if (endpoint.isEmpty())
        endpoint = Destinations::defaultServiceUrl(destination.type, resource);
    QUrl url = withPath(endpoint, destination.queueName + u"/messages"_s);
    if (destination.queueMessageTimeToLiveInSeconds != 0) {
        QUrlQuery query;
        query.addQueryItem(u"messagettl"_s,
                           QString::number(destination.queueMessageTimeToLiveInSeconds));
        url.setQuery(query);
    }

    Built built;
    built.body = "<?xml version=\"1.0\" encoding=\"utf-8\"?><QueueMessage><MessageText>"
        + messageText + "</MessageText></QueueMessage>";
    QNetworkRequest &request = built.request;
    request.setUrl(url);
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute,
                         QNetworkRequest::ManualRedirectPolicy);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/xml"));
    request.setRawHeader("x-ms-date", SharedKey::httpDate(utcNow));
    request.setRawHeader("x-ms-version", SharedKey::ApiVersion);
    const auto authorization = SharedKey::authorization(
        account->accountName, account->accountKey,
        SharedKey::stringToSign("POST", request, built.body.size(), account->accountName));
    if (!authorization)
        return Refused {DeliveryOutcome::Unauthorized, authorization.error()};
    request.setRawHeader("Authorization", authorization.value());
    return built;
}

DeliveryRequests::Result DeliveryRequests::messaging(const Subscription &subscription,
                                                     const QByteArray &body, int deliveryCount,
                                                     const StoredEvent &firstEvent,
                                                     const QDateTime &utcNow) const
{
    const EventSubscription &config = subscription.config;
    const DeliveryDestination &destination = config.destination;
    const DestinationResource resource = Destinations::resource(destination).value();
    const QString secretKey = SecretKeys::namespaceKey(resource.serviceNamespace);
    const QString secret = m_credentialResolver ? m_credentialResolver(secretKey) : QString();
    if (secret.isEmpty()) {
        return Refused {DeliveryOutcome::Unauthorized,
                        u"no connection string for namespace '%1': store it with EventDesk, or "
                        u"set %2"_s.arg(resource.serviceNamespace,
                                        SecretKeys::environmentVariable(secretKey))};
    }
    const auto key = AzureCredentials::namespaceKey(secret, resource.serviceNamespace);
    if (!key)
        return Refused {DeliveryOutcome::Unauthorized, key.error()};
    QUrl endpoint = destination.serviceUrl;
    if (endpoint.isEmpty())
        endpoint = key->endpoint;
    if (endpoint.isEmpty())
        endpoint = Destinations::defaultServiceUrl(destination.type, resource);
    const QUrl entityUrl = withPath(endpoint, resource.entity);

    Built built;
    built.body = body;
    QNetworkRequest &request = built.request;
    request.setUrl(withPath(entityUrl, u"messages"_s));
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute,
                         QNetworkRequest::ManualRedirectPolicy);
    const bool cloudEvents = config.deliverySchema == EventSchema::CloudEvents10;
    request.setHeader(QNetworkRequest::ContentTypeHeader,
                      destination.type == DestinationType::EventHub
                          ? QByteArrayLiteral("application/atom+xml;type=entry;charset=utf-8")
                          : SchemaConverter::contentType(config.deliverySchema, false));
    request.setRawHeader("Authorization",
                         AzureCredentials::sharedAccessSignature(
                             entityUrl, key->keyName, key->key,
                             utcNow.toSecsSinceEpoch() + SignatureLifetimeSeconds));

    // Event Grid's delivery metadata travels as custom properties of the message (D7's headers),
    // the subscription's delivery properties next to them (SPEC §9); the ones Service Bus knows
    // as broker properties (SessionId, MessageId, ...) go into BrokerProperties.
    QJsonObject broker;
    if (destination.type != DestinationType::EventHub)
        broker.insert("MessageId"_L1, firstEvent.id);
    request.setRawHeader("aeg-event-type", "Notification");
    request.setRawHeader("aeg-subscription-name", config.name.toUpper().toUtf8());
    request.setRawHeader("aeg-delivery-count", QByteArray::number(deliveryCount));
    if (!firstEvent.dataVersion.isEmpty())
        request.setRawHeader("aeg-data-version", firstEvent.dataVersion.toUtf8());
    request.setRawHeader("aeg-metadata-version", cloudEvents ? "1.0" : "1");
    for (const auto &[name, value] : deliveryProperties(subscription, body)) {
        if (const QString brokerName = brokerPropertyName(name); !brokerName.isEmpty())
            broker.insert(brokerName, QString::fromUtf8(value));
        else
            request.setRawHeader(name, value);
    }
    request.setRawHeader("BrokerProperties", QJsonDocument(broker).toJson(QJsonDocument::Compact));
    return built;
}

} // namespace EventDesk
