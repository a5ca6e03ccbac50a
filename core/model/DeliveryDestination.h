// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>
#include <QUrl>

#include <optional>

namespace EventDesk {

// properties.destination.endpointType of an event subscription, as Resource Manager spells it.
enum class DestinationType {
    WebHook,
    AzureFunction,
    StorageQueue,
    ServiceBusQueue,
    ServiceBusTopic,
    EventHub,
};

QString destinationTypeName(DestinationType type);
// Case-insensitive, as Resource Manager reads it.
std::optional<DestinationType> destinationTypeFromName(const QString &name);
// "WebHook, AzureFunction, ... or EventHub", for error messages.
QString allDestinationTypeNames();

// Where a subscription that is not a webhook delivers: an Azure resource named by its Resource
// Manager id, reached through its service's HTTPS API (a webhook keeps its URL in
// EventSubscription::endpointUrl).
struct DeliveryDestination
{
    DestinationType type = DestinationType::WebHook;
    QString resourceId;

    // StorageQueue
    QString queueName;
    // Seconds; 0 leaves the queue's default (7 days), -1 keeps messages until they are read.
    qint64 queueMessageTimeToLiveInSeconds = 0;
    static constexpr qint64 MaxQueueMessageTimeToLiveSeconds = 2'147'483'647;

    // EventDesk extension (destination property "serviceUrl"): where the resource's API is
    // reached instead of Azure's public host: Azurite's queue endpoint, a Functions host on
    // another port, a Service Bus stand-in. Empty: the default of the type (defaultServiceUrl()).
    QUrl serviceUrl;

    bool isWebHook() const { return type == DestinationType::WebHook; }
};

// What the resource id of a destination names. Each type reads its own parts.
struct DestinationResource
{
    QString account; // StorageQueue: .../storageAccounts/<account>
    QString site; // AzureFunction: .../sites/<site>/functions/<function>
    QString function;
    QString serviceNamespace; // Service Bus and Event Hubs: .../namespaces/<namespace>/...
    QString entity; // the queue, topic or event hub: .../queues|topics|eventhubs/<entity>
};

namespace Destinations {

// The parts of destination.resourceId for destination.type, or what the id must look like
// ("must be ... (got ...)") when it does not name such a resource.
std::optional<DestinationResource> resource(const DeliveryDestination &destination,
                                            QString *problem = nullptr);
// The parts destination.resourceId names so far, whole or not (resource() says whether they make
// a resource): what the subscription editor shows while the id is being typed.
DestinationResource resourceParts(const DeliveryDestination &destination);
// The resource id that names parts as a resource of type, below scope (the
// "/subscriptions/<id>/resourceGroups/<group>" an id starts with; may be empty, as EventDesk
// reads only the parts): resourceParts() the other way round.
QString resourceId(DestinationType type, const DestinationResource &parts, const QString &scope);
// The resource id pattern of a type, for messages and the editor's placeholder.
QString resourceIdPattern(DestinationType type);

// Azure's public API host of the resource (https), or the local Functions host
// (http://localhost:7071) for AzureFunction: EventDesk delivers to functions running locally.
QUrl defaultServiceUrl(DestinationType type, const DestinationResource &resource);
// destination.serviceUrl, or defaultServiceUrl().
QUrl serviceUrl(const DeliveryDestination &destination, const DestinationResource &resource);

// SPEC B: batching settings are accepted for webhooks and functions only, as in Azure.
bool supportsBatching(DestinationType type);
// SPEC §9: custom delivery properties (headers for webhooks and functions, broker or event
// properties for Service Bus and Event Hubs); Storage queues have none.
bool supportsDeliveryProperties(DestinationType type);
// Only a webhook is asked to validate itself before deliveries (Azure resources and functions
// are trusted through their keys).
bool needsEndpointValidation(DestinationType type);

// "webhook http://...", "storage queue 'orders' of account 'dev'", ..., for logs and the GUI.
QString describe(const DeliveryDestination &destination, const QUrl &webHookUrl);

} // namespace Destinations

} // namespace EventDesk
