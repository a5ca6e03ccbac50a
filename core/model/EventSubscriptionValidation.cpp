// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "EventSubscriptionValidation.h"

#include "JsonSupport.h"
#include "Workspace.h"
#include "WorkspaceRules.h"

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace EventDesk::WorkspaceJson {

using JsonSupport::describeValue;
using JsonSupport::formatNumber;
using JsonSupport::indexPath;
using JsonSupport::joinPath;

namespace {

constexpr int MaxHeaderNameDisplay = 60;

// RFC 7230 §3.2.6 tchar.
bool isTokenCharacter(QChar character)
{
    if (isNameCharacter(character))
        return true;
    return QStringView(u"!#$%&'*+.^_`|~").contains(character);
}

QString describeUrl(const QUrl &url)
{
    return describeValue(url.toString());
}

bool resourceIdNamesAccount(const QString &resourceId)
{
    const QString marker = u"/storageAccounts/"_s;
    const qsizetype markerAt = resourceId.indexOf(marker, 0, Qt::CaseInsensitive);
    return markerAt >= 0 && !resourceId.mid(markerAt + marker.size()).section(u'/', 0, 0).isEmpty();
}

// Azure container naming; also keeps the local folder name free of path separators and "..".
bool isValidContainerName(const QString &name)
{
    if (name.size() < 3 || name.size() > 63)
        return false;
    for (const QChar character : name) {
        const bool allowed = (character >= u'a' && character <= u'z')
            || (character >= u'0' && character <= u'9') || character == u'-';
        if (!allowed)
            return false;
    }
    return name.front() != u'-' && name.back() != u'-' && !name.contains("--"_L1);
}

bool isValidStorageAccountName(const QString &name)
{
    if (name.size() < 3 || name.size() > 24)
        return false;
    return std::all_of(name.cbegin(), name.cend(), [](QChar character) {
        return (character >= u'a' && character <= u'z') || (character >= u'0' && character <= u'9');
    });
}

// Azure's queue names: 3-63 characters of lower-case letters, digits and single hyphens, starting
// and ending with a letter or digit (the rule of container names).
bool isValidQueueName(const QString &name)
{
    return isValidContainerName(name);
}

void validateResourceDestination(JsonReader &sink, const EventSubscription &subscription,
                                 const QString &path)
{
    const DeliveryDestination &destination = subscription.destination;
    const QString typeName = destinationTypeName(destination.type);
    QString problem;
    const std::optional<DestinationResource> resource
        = Destinations::resource(destination, &problem);
    if (!resource) {
        sink.fail(joinPath(path, "resourceId"_L1), problem);
        return;
    }
    if (destination.type == DestinationType::StorageQueue) {
        if (!isValidStorageAccountName(resource->account)) {
            sink.fail(joinPath(path, "resourceId"_L1),
                      u"names storage account %1: account names are 3-24 lower-case letters and "
                      u"digits"_s.arg(describeValue(resource->account)));
            return;
        }
        if (!isValidQueueName(destination.queueName)) {
            sink.fail(joinPath(path, "queueName"_L1),
                      u"must be 3-63 lower-case letters, digits and single hyphens, starting and "
                      u"ending with a letter or digit (got %1)"_s.arg(
                          describeValue(destination.queueName)));
            return;
        }
        const qint64 ttl = destination.queueMessageTimeToLiveInSeconds;
        if (ttl < -1 || ttl > DeliveryDestination::MaxQueueMessageTimeToLiveSeconds) {
            sink.fail(joinPath(path, "queueMessageTimeToLiveInSeconds"_L1),
                      queueMessageTtlMessage(QString::number(ttl)));
            return;
        }
    }
    if (!destination.serviceUrl.isEmpty() && !isValidHttpUrl(destination.serviceUrl)) {
        sink.fail(joinPath(path, "serviceUrl"_L1),
                  u"must be an absolute http or https URL with a host (got %1)"_s.arg(
                      describeUrl(destination.serviceUrl)));
        return;
    }
    if (subscription.batchPolicy.enabled && !Destinations::supportsBatching(destination.type)) {
        sink.fail(joinPath(path, "maxEventsPerBatch"_L1),
                  u"batching is not available for %1 destinations (only WebHook and "
                  u"AzureFunction); switch it off"_s.arg(typeName));
        return;
    }
    if (!subscription.deliveryHeaders.isEmpty()
        && !Destinations::supportsDeliveryProperties(destination.type)) {
        sink.fail(joinPath(path, "deliveryAttributeMappings"_L1),
                  u"%1 destinations carry no delivery properties; remove the %2 mapping(s)"_s.arg(
                      typeName)
                      .arg(subscription.deliveryHeaders.size()));
    }
}

// SPEC S4.
bool isSupportedSchemaPair(EventSchema input, EventSchema delivery)
{
    switch (input) {
    case EventSchema::EventGrid:
        return delivery == EventSchema::EventGrid || delivery == EventSchema::CloudEvents10;
    case EventSchema::CloudEvents10:
        return delivery == EventSchema::CloudEvents10;
    case EventSchema::Custom:
        return delivery == EventSchema::Custom || delivery == EventSchema::EventGrid;
    }
    return false;
}

QString supportedDeliverySchemas(EventSchema input)
{
    switch (input) {
    case EventSchema::EventGrid:
        return u"EventGridSchema or CloudEventSchemaV1_0"_s;
    case EventSchema::CloudEvents10:
        return u"CloudEventSchemaV1_0"_s;
    case EventSchema::Custom:
        return u"CustomInputSchema or EventGridSchema"_s;
    }
    return QString();
}

void validateHeaders(JsonReader &sink, const QList<DeliveryHeader> &headers,
                     const QString &headersPath)
{
    // SPEC H1
    if (headers.size() > DeliveryHeader::MaxHeaders) {
        sink.fail(
            headersPath,
            u"must hold at most %1 delivery headers (got %2)"_s.arg(DeliveryHeader::MaxHeaders)
                .arg(headers.size()));
        return;
    }
    for (qsizetype index = 0; index < headers.size() && !sink.failed(); ++index) {
        const DeliveryHeader &header = headers.at(index);
        const QString headerPath = indexPath(headersPath, index);
        const QString namePath = joinPath(headerPath, "name"_L1);
        const bool validToken = !header.name.isEmpty()
            && std::all_of(header.name.cbegin(), header.name.cend(), isTokenCharacter);
        if (!validToken) {
            sink.fail(namePath,
                      u"must be a valid HTTP header name (an RFC 7230 token: letters, digits and "
                      u"!#$%&'*+-.^_`|~) (got %1)"_s.arg(
                          describeValue(header.name.left(MaxHeaderNameDisplay))));
            return;
        }
        if (header.name.startsWith("aeg-"_L1, Qt::CaseInsensitive)) {
            sink.fail(namePath,
                      u"must not start with \"aeg-\", which is reserved for Event Grid's own "
                      u"headers (got %1)"_s.arg(describeValue(header.name)));
            return;
        }
        for (qsizetype earlier = 0; earlier < index; ++earlier) {
            if (headers.at(earlier).name.compare(header.name, Qt::CaseInsensitive) == 0) {
                sink.fail(namePath,
                          u"duplicate header name %1 (header names must be unique, compared "
                          u"case-insensitively; see %2)"_s.arg(describeValue(header.name),
                                                               indexPath(headersPath, earlier)));
                return;
            }
        }
        const QString propertiesPath = joinPath(headerPath, "properties"_L1);
        if (header.kind == DeliveryHeader::Kind::Static) {
            const QString valuePath = joinPath(propertiesPath, "value"_L1);
            const qsizetype bytes = header.value.toUtf8().size();
            if (bytes > DeliveryHeader::MaxValueBytes) {
                sink.fail(valuePath,
                          u"value of header '%1' must be at most %2 bytes of UTF-8 (got %3 bytes)"_s
                              .arg(header.name)
                              .arg(DeliveryHeader::MaxValueBytes)
                              .arg(bytes));
                return;
            }
            // CR and LF would split the HTTP header; NUL is cut off by HTTP stacks.
            if (header.value.contains(u'\r') || header.value.contains(u'\n')
                || header.value.contains(QChar(0))) {
                sink.fail(valuePath,
                          u"value of header '%1' must not contain CR, LF or NUL characters"_s.arg(
                              header.name));
                return;
            }
        } else {
            if (header.sourceField.isEmpty()) {
                sink.fail(joinPath(propertiesPath, "sourceField"_L1),
                          u"required for a Dynamic header: the event field that supplies the "
                          u"value (e.g. data.key1 or subject)"_s);
                return;
            }
            if (header.secret) {
                sink.fail(joinPath(propertiesPath, "isSecret"_L1),
                          u"only a Static header can be secret"_s);
                return;
            }
        }
    }
}

void validateAdvancedFilter(JsonReader &sink, const AdvancedFilter &filter,
                            const QString &filterPath)
{
    if (filter.key.isEmpty()) {
        sink.fail(joinPath(filterPath, "key"_L1),
                  u"required: the event field to test (e.g. data.color or subject)"_s);
        return;
    }
    const QString valuePath = joinPath(filterPath, "value"_L1);
    const QString valuesPath = joinPath(filterPath, "values"_L1);
    const QString operatorName = filterOperatorName(filter.op);
    if (isSingleNumberOperator(filter.op)) {
        if (filter.numbers.size() != 1) {
            sink.fail(valuePath, u"%1 needs exactly one number"_s.arg(operatorName));
        } else if (!std::isfinite(filter.numbers.front())) {
            sink.fail(valuePath, u"must be a finite number"_s);
        }
    } else if (isNumberListOperator(filter.op)) {
        if (filter.numbers.isEmpty())
            sink.fail(valuesPath, u"%1 needs at least one number"_s.arg(operatorName));
        for (qsizetype index = 0; index < filter.numbers.size(); ++index) {
            if (!std::isfinite(filter.numbers.at(index)))
                sink.fail(indexPath(valuesPath, index), u"must be a finite number"_s);
        }
    } else if (isRangeOperator(filter.op)) {
        if (filter.ranges.isEmpty())
            sink.fail(valuesPath, u"%1 needs at least one [min, max] pair"_s.arg(operatorName));
        for (qsizetype index = 0; index < filter.ranges.size(); ++index) {
            const auto &[minimum, maximum] = filter.ranges.at(index);
            if (!std::isfinite(minimum) || !std::isfinite(maximum) || minimum > maximum) {
                sink.fail(
                    indexPath(valuesPath, index),
                    u"must be a [min, max] pair of numbers with min <= max (got [%1, %2])"_s.arg(
                        formatNumber(minimum), formatNumber(maximum)));
            }
        }
    } else if (isStringOperator(filter.op)) {
        if (filter.strings.isEmpty())
            sink.fail(valuesPath, u"%1 needs at least one string"_s.arg(operatorName));
        for (qsizetype index = 0; index < filter.strings.size(); ++index) {
            const qsizetype length = filter.strings.at(index).size();
            if (length > EventFilter::MaxStringValueLength) {
                sink.fail(indexPath(valuesPath, index),
                          u"must be at most %1 characters (got %2)"_s
                              .arg(EventFilter::MaxStringValueLength)
                              .arg(length));
            }
        }
    }
}

void validateFilter(JsonReader &sink, const EventFilter &filter, const QString &filterPath)
{
    const QString advancedPath = joinPath(filterPath, "advancedFilters"_L1);
    if (filter.advancedFilters.size() > EventFilter::MaxAdvancedFilters) {
        sink.fail(
            advancedPath,
            u"must hold at most %1 advanced filters (got %2)"_s.arg(EventFilter::MaxAdvancedFilters)
                .arg(filter.advancedFilters.size()));
        return;
    }
    int totalValues = 0;
    for (qsizetype index = 0; index < filter.advancedFilters.size() && !sink.failed(); ++index) {
        validateAdvancedFilter(sink, filter.advancedFilters.at(index),
                               indexPath(advancedPath, index));
        totalValues += filter.advancedFilters.at(index).valueCount();
    }
    if (totalValues > EventFilter::MaxFilterValues) {
        sink.fail(advancedPath,
                  u"must hold at most %1 values in total across all advanced filters (got %2)"_s
                      .arg(EventFilter::MaxFilterValues)
                      .arg(totalValues));
    }
}

void validateDeadLetter(JsonReader &sink, const DeadLetterDestination &destination,
                        const QString &path)
{
    if (destination.kind == DeadLetterDestination::Kind::None)
        return;
    const QString resourceIdPath = joinPath(path, "resourceId"_L1);
    if (destination.resourceId.trimmed().isEmpty()) {
        sink.fail(resourceIdPath,
                  u"required: \"local\" for the workspace's dead-letter folder, or a storage "
                  u"account's resource id (.../storageAccounts/<account>)"_s);
        return;
    }
    const DeadLetterDestination::Kind impliedKind = deadLetterKindFor(destination.resourceId);
    if (impliedKind != destination.kind) {
        sink.fail(
            resourceIdPath,
            destination.kind == DeadLetterDestination::Kind::LocalFolder
                ? u"must be \"local\" (or name a storage account called local) for the "
                  u"local dead-letter folder (got %1)"_s.arg(describeValue(destination.resourceId))
                : u"must name an Azure storage account (.../storageAccounts/<account>) for "
                  u"an Azure Blob destination (got %1)"_s.arg(
                      describeValue(destination.resourceId)));
        return;
    }
    if (!isValidContainerName(destination.blobContainerName)) {
        sink.fail(joinPath(path, "blobContainerName"_L1),
                  u"must be 3 to 63 characters of a-z, 0-9 and '-', starting and ending with a "
                  u"letter or digit, with no \"--\" (Azure container naming) (got %1)"_s.arg(
                      describeValue(destination.blobContainerName)));
        return;
    }
    if (destination.kind != DeadLetterDestination::Kind::AzureBlob)
        return;
    if (!destination.accountName.isEmpty() && !isValidStorageAccountName(destination.accountName)) {
        sink.fail(joinPath(path, "accountName"_L1),
                  u"must be 3 to 24 characters of a-z and 0-9 (got %1)"_s.arg(
                      describeValue(destination.accountName)));
        return;
    }
    if (destination.accountName.isEmpty() && !resourceIdNamesAccount(destination.resourceId)) {
        sink.fail(resourceIdPath,
                  u"must name a storage account (.../storageAccounts/<account>), or "
                  u"accountName must be set (got %1)"_s.arg(describeValue(destination.resourceId)));
        return;
    }
    if (!destination.blobEndpoint.isEmpty() && !isValidHttpUrl(destination.blobEndpoint)) {
        sink.fail(joinPath(path, "blobEndpoint"_L1),
                  u"must be an absolute http or https URL with a host (got %1)"_s.arg(
                      describeUrl(destination.blobEndpoint)));
    }
}

} // namespace

ArmLayout canonicalLayout(const QString &jsonPath)
{
    ArmLayout layout;
    layout.name = joinPath(jsonPath, "name"_L1);
    layout.properties = joinPath(jsonPath, "properties"_L1);
    layout.destinationProperties = layout.properties + u".destination.properties"_s;
    layout.deadLetterProperties = layout.properties + u".deadLetterDestination.properties"_s;
    return layout;
}

void validateSubscription(JsonReader &sink, const EventSubscription &subscription,
                          EventSchema topicInputSchema, const ArmLayout &layout)
{
    checkName(sink, subscription.name, layout.name, MinSubscriptionNameLength,
              MaxSubscriptionNameLength);
    if (sink.failed())
        return;
    if (subscription.destination.isWebHook()) {
        if (!isValidHttpUrl(subscription.endpointUrl)) {
            sink.fail(joinPath(layout.destinationProperties, "endpointUrl"_L1),
                      u"must be an absolute http or https URL with a host (got %1)"_s.arg(
                          describeUrl(subscription.endpointUrl)));
            return;
        }
    } else {
        validateResourceDestination(sink, subscription, layout.destinationProperties);
        if (sink.failed())
            return;
    }

    // SPEC R6
    const QString retryPath = joinPath(layout.properties, "retryPolicy"_L1);
    const RetryPolicy &retry = subscription.retryPolicy;
    if (retry.maxDeliveryAttempts < RetryPolicy::MinAttempts
        || retry.maxDeliveryAttempts > RetryPolicy::MaxAttempts) {
        sink.fail(joinPath(retryPath, "maxDeliveryAttempts"_L1),
                  JsonReader::integerRangeMessage(RetryPolicy::MinAttempts,
                                                  RetryPolicy::MaxAttempts,
                                                  QString::number(retry.maxDeliveryAttempts)));
        return;
    }
    if (retry.eventTimeToLiveInMinutes < RetryPolicy::MinTtlMinutes
        || retry.eventTimeToLiveInMinutes > RetryPolicy::MaxTtlMinutes) {
        sink.fail(joinPath(retryPath, "eventTimeToLiveInMinutes"_L1),
                  JsonReader::integerRangeMessage(RetryPolicy::MinTtlMinutes,
                                                  RetryPolicy::MaxTtlMinutes,
                                                  QString::number(retry.eventTimeToLiveInMinutes)));
        return;
    }

    // SPEC B2: the ranges matter only when batching is on.
    const BatchPolicy &batch = subscription.batchPolicy;
    if (batch.enabled) {
        if (batch.maxEventsPerBatch < 1 || batch.maxEventsPerBatch > BatchPolicy::MaxEventsLimit) {
            sink.fail(joinPath(layout.destinationProperties, "maxEventsPerBatch"_L1),
                      JsonReader::integerRangeMessage(1, BatchPolicy::MaxEventsLimit,
                                                      QString::number(batch.maxEventsPerBatch)));
            return;
        }
        if (batch.preferredBatchSizeInKilobytes < 1
            || batch.preferredBatchSizeInKilobytes > BatchPolicy::MaxPreferredKilobytes) {
            sink.fail(joinPath(layout.destinationProperties, "preferredBatchSizeInKilobytes"_L1),
                      JsonReader::integerRangeMessage(
                          1, BatchPolicy::MaxPreferredKilobytes,
                          QString::number(batch.preferredBatchSizeInKilobytes)));
            return;
        }
    }

    validateHeaders(sink, subscription.deliveryHeaders,
                    joinPath(layout.destinationProperties, "deliveryAttributeMappings"_L1));
    if (sink.failed())
        return;
    validateFilter(sink, subscription.filter, joinPath(layout.properties, "filter"_L1));
    if (sink.failed())
        return;

    if (!isSupportedSchemaPair(topicInputSchema, subscription.deliverySchema)) {
        sink.fail(joinPath(layout.properties, "eventDeliverySchema"_L1),
                  u"%1 is not supported for a topic whose inputSchema is %2; use %3"_s.arg(
                      eventSchemaName(subscription.deliverySchema),
                      eventSchemaName(topicInputSchema),
                      supportedDeliverySchemas(topicInputSchema)));
        return;
    }

    validateDeadLetter(sink, subscription.deadLetterDestination, layout.deadLetterProperties);
}

} // namespace EventDesk::WorkspaceJson

namespace EventDesk {

using WorkspaceJson::canonicalLayout;
using WorkspaceJson::JsonReader;
using WorkspaceJson::validateSubscription;

Expected<void> validateEventSubscription(const EventSubscription &subscription,
                                         EventSchema topicInputSchema, const QString &jsonPath)
{
    JsonReader sink;
    validateSubscription(sink, subscription, topicInputSchema, canonicalLayout(jsonPath));
    if (sink.failed())
        return sink.error();
    return {};
}

} // namespace EventDesk
