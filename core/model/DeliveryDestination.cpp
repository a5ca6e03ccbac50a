// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "DeliveryDestination.h"

#include <QStringList>

#include <array>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

struct TypeName
{
    DestinationType type;
    QLatin1StringView name;
};

constexpr std::array<TypeName, 6> TypeNames = {{
    {DestinationType::WebHook, "WebHook"_L1},
    {DestinationType::AzureFunction, "AzureFunction"_L1},
    {DestinationType::StorageQueue, "StorageQueue"_L1},
    {DestinationType::ServiceBusQueue, "ServiceBusQueue"_L1},
    {DestinationType::ServiceBusTopic, "ServiceBusTopic"_L1},
    {DestinationType::EventHub, "EventHub"_L1},
}};

// The segment after "/<collection>/" in a resource id (case-insensitive, as Resource Manager
// compares them), or an empty string.
QString segmentAfter(const QString &resourceId, QLatin1StringView collection)
{
    const QString marker = u'/' + collection + u'/';
    const qsizetype at = resourceId.indexOf(marker, 0, Qt::CaseInsensitive);
    if (at < 0)
        return {};
    return resourceId.mid(at + marker.size()).section(u'/', 0, 0).trimmed();
}

QString describeResourceId(const QString &resourceId)
{
    return resourceId.isEmpty() ? u"nothing"_s : u"\"%1\""_s.arg(resourceId);
}

} // namespace

QString destinationTypeName(DestinationType type)
{
    for (const TypeName &entry : TypeNames) {
        if (entry.type == type)
            return entry.name;
    }
    return {};
}

std::optional<DestinationType> destinationTypeFromName(const QString &name)
{
    for (const TypeName &entry : TypeNames) {
        if (name.compare(entry.name, Qt::CaseInsensitive) == 0)
            return entry.type;
    }
    return std::nullopt;
}

QString allDestinationTypeNames()
{
    QStringList names;
    for (const TypeName &entry : TypeNames)
        names.append(entry.name);
    const QString last = names.takeLast();
    return names.join(u", "_s) + u" or "_s + last;
}

namespace Destinations {

QString resourceIdPattern(DestinationType type)
{
    DestinationResource placeholders;
    placeholders.account = u"<account>"_s;
    placeholders.site = u"<app>"_s;
    placeholders.function = u"<function>"_s;
    placeholders.serviceNamespace = u"<namespace>"_s;
    placeholders.entity = type == DestinationType::ServiceBusQueue ? u"<queue>"_s
        : type == DestinationType::ServiceBusTopic                 ? u"<topic>"_s
                                                                   : u"<event hub>"_s;
    return resourceId(type, placeholders, u"/subscriptions/<id>/resourceGroups/<group>"_s);
}

QString resourceId(DestinationType type, const DestinationResource &parts, const QString &scope)
{
    QString path;
    switch (type) {
    case DestinationType::WebHook:
        return {};
    case DestinationType::AzureFunction:
        path = u"Microsoft.Web/sites/%1/functions/%2"_s.arg(parts.site, parts.function);
        break;
    case DestinationType::StorageQueue:
        path = u"Microsoft.Storage/storageAccounts/"_s + parts.account;
        break;
    case DestinationType::ServiceBusQueue:
        path = u"Microsoft.ServiceBus/namespaces/%1/queues/%2"_s.arg(parts.serviceNamespace,
                                                                     parts.entity);
        break;
    case DestinationType::ServiceBusTopic:
        path = u"Microsoft.ServiceBus/namespaces/%1/topics/%2"_s.arg(parts.serviceNamespace,
                                                                     parts.entity);
        break;
    case DestinationType::EventHub:
        path = u"Microsoft.EventHub/namespaces/%1/eventhubs/%2"_s.arg(parts.serviceNamespace,
                                                                      parts.entity);
        break;
    }
    return scope + u"/providers/"_s + path;
}

DestinationResource resourceParts(const DeliveryDestination &destination)
{
    const QString &id = destination.resourceId;
    DestinationResource parts;
    switch (destination.type) {
    case DestinationType::WebHook:
        break;
    case DestinationType::AzureFunction:
        parts.site = segmentAfter(id, "sites"_L1);
        parts.function = segmentAfter(id, "functions"_L1);
        break;
    case DestinationType::StorageQueue:
        parts.account = segmentAfter(id, "storageAccounts"_L1);
        break;
    case DestinationType::ServiceBusQueue:
    case DestinationType::ServiceBusTopic:
    case DestinationType::EventHub: {
        const QLatin1StringView collection = destination.type == DestinationType::ServiceBusQueue
            ? "queues"_L1
            : destination.type == DestinationType::ServiceBusTopic ? "topics"_L1 : "eventhubs"_L1;
        parts.serviceNamespace = segmentAfter(id, "namespaces"_L1);
        parts.entity = segmentAfter(id, collection);
        break;
    }
    }
    return parts;
}

std::optional<DestinationResource> resource(const DeliveryDestination &destination,
                                            QString *problem)
{
    const DestinationResource parts = resourceParts(destination);
    bool complete = false;
    switch (destination.type) {
    case DestinationType::WebHook:
        return parts;
    case DestinationType::AzureFunction:
        complete = !parts.site.isEmpty() && !parts.function.isEmpty();
        break;
    case DestinationType::StorageQueue:
        complete = !parts.account.isEmpty();
        break;
    case DestinationType::ServiceBusQueue:
    case DestinationType::ServiceBusTopic:
    case DestinationType::EventHub:
        complete = !parts.serviceNamespace.isEmpty() && !parts.entity.isEmpty();
        break;
    }
    if (complete)
        return parts;
    if (problem) {
        *problem = u"must be the resource id of the %1 (%2; got %3)"_s.arg(
            destination.type == DestinationType::AzureFunction ? u"function"_s
                : destination.type == DestinationType::StorageQueue
                ? u"storage account"_s
                : destination.type == DestinationType::EventHub ? u"event hub"_s
                : destination.type == DestinationType::ServiceBusTopic
                ? u"Service Bus topic"_s
                : u"Service Bus queue"_s,
            resourceIdPattern(destination.type), describeResourceId(destination.resourceId));
    }
    return std::nullopt;
}

QUrl defaultServiceUrl(DestinationType type, const DestinationResource &resource)
{
    switch (type) {
    case DestinationType::WebHook:
        return {};
    case DestinationType::AzureFunction:
        return QUrl(u"http://localhost:7071"_s);
    case DestinationType::StorageQueue:
        return QUrl(u"https://%1.queue.core.windows.net"_s.arg(resource.account.toLower()));
    case DestinationType::ServiceBusQueue:
    case DestinationType::ServiceBusTopic:
    case DestinationType::EventHub:
        // Event Hubs namespaces are Service Bus namespaces: one host name serves both APIs.
        return QUrl(
            u"https://%1.servicebus.windows.net"_s.arg(resource.serviceNamespace.toLower()));
    }
    return {};
}

QUrl serviceUrl(const DeliveryDestination &destination, const DestinationResource &resource)
{
    return destination.serviceUrl.isEmpty() ? defaultServiceUrl(destination.type, resource)
                                            : destination.serviceUrl;
}

bool supportsBatching(DestinationType type)
{
    return type == DestinationType::WebHook || type == DestinationType::AzureFunction;
}

bool supportsDeliveryProperties(DestinationType type)
{
    return type != DestinationType::StorageQueue;
}

bool needsEndpointValidation(DestinationType type)
{
    return type == DestinationType::WebHook;
}

QString describe(const DeliveryDestination &destination, const QUrl &webHookUrl)
{
    const std::optional<DestinationResource> parts = resource(destination);
    switch (destination.type) {
    case DestinationType::WebHook:
        return u"webhook %1"_s.arg(webHookUrl.toDisplayString(QUrl::RemoveUserInfo | QUrl::RemoveQuery));
    case DestinationType::AzureFunction:
        return u"function '%1' of app '%2'"_s.arg(parts ? parts->function : QString(),
                                                  parts ? parts->site : QString());
    case DestinationType::StorageQueue:
        return u"storage queue '%1' of account '%2'"_s.arg(destination.queueName,
                                                          parts ? parts->account : QString());
    case DestinationType::ServiceBusQueue:
        return u"Service Bus queue '%1' of namespace '%2'"_s.arg(
            parts ? parts->entity : QString(), parts ? parts->serviceNamespace : QString());
    case DestinationType::ServiceBusTopic:
        return u"Service Bus topic '%1' of namespace '%2'"_s.arg(
            parts ? parts->entity : QString(), parts ? parts->serviceNamespace : QString());
    case DestinationType::EventHub:
        return u"event hub '%1' of namespace '%2'"_s.arg(
            parts ? parts->entity : QString(), parts ? parts->serviceNamespace : QString());
    }
    return {};
}

} // namespace Destinations

} // namespace EventDesk
