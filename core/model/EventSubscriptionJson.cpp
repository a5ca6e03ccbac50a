// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "Workspace.h"

#include "EventSubscriptionValidation.h"
#include "JsonSupport.h"
#include "WorkspaceJsonReader.h"
#include "WorkspaceRules.h"

#include <QJsonDocument>

#include <cmath>
#include <optional>

using namespace Qt::StringLiterals;

// ARM-shaped JSON of one event subscription, both ways (declared in Workspace.h).

namespace EventDesk {

using JsonSupport::describeValue;
using JsonSupport::indexPath;
using JsonSupport::joinPath;
using namespace WorkspaceJson;

namespace {

QString allOperatorNames()
{
    QStringList names;
    for (int index = int(FilterOperator::NumberIn); index <= int(FilterOperator::IsNotNull);
         ++index) {
        names.append(filterOperatorName(FilterOperator(index)));
    }
    return names.join(u", "_s);
}

// The properties of a destination that is an Azure resource (everything but WebHook). What they
// must contain is checked by validateSubscription, which the editor shares.
void readResourceDestination(JsonReader &reader, const QJsonObject &properties,
                             const QString &path, DeliveryDestination *destination)
{
    destination->resourceId
        = reader.string(properties, "resourceId"_L1, path, Presence::Required).trimmed();
    if (destination->type == DestinationType::StorageQueue) {
        destination->queueName
            = reader.string(properties, "queueName"_L1, path, Presence::Required).trimmed();
        const QLatin1StringView ttlKey = "queueMessageTimeToLiveInSeconds"_L1;
        const QJsonValue ttl = properties.value(ttlKey);
        if (JsonReader::isPresent(properties, ttlKey)) {
            const double seconds = ttl.toDouble(0);
            if (!ttl.isDouble() || seconds != std::floor(seconds) || seconds == 0 || seconds < -1
                || seconds > double(DeliveryDestination::MaxQueueMessageTimeToLiveSeconds)) {
                reader.fail(joinPath(path, ttlKey), queueMessageTtlMessage(describeValue(ttl)));
                return;
            }
            destination->queueMessageTimeToLiveInSeconds = qint64(seconds);
        }
    }
    // EventDesk extension: where the resource's API is reached (Azurite, a local host).
    const QString serviceUrl
        = reader.string(properties, "serviceUrl"_L1, path, Presence::Optional).trimmed();
    if (!serviceUrl.isEmpty()) {
        destination->serviceUrl = QUrl(serviceUrl, QUrl::StrictMode);
        if (!isValidHttpUrl(destination->serviceUrl)) {
            reader.fail(joinPath(path, "serviceUrl"_L1),
                        u"must be an absolute http or https URL with a host (got %1)"_s.arg(
                            describeValue(serviceUrl)));
        }
    }
}

DeliveryHeader readHeader(JsonReader &reader, const QJsonValue &value, const QString &path)
{
    DeliveryHeader header;
    const QJsonObject object = reader.objectAt(value, path);
    header.name = reader.string(object, "name"_L1, path, Presence::Required);
    const QString type = reader.string(object, "type"_L1, path, Presence::Required);
    const QJsonObject properties = reader.object(object, "properties"_L1, path, Presence::Optional);
    const QString propertiesPath = joinPath(path, "properties"_L1);
    if (reader.failed())
        return header;
    if (type.compare("Static"_L1, Qt::CaseInsensitive) == 0) {
        header.kind = DeliveryHeader::Kind::Static;
        header.secret = reader.boolean(properties, "isSecret"_L1, propertiesPath, false);
        // A secret's value is never exported (SPEC H2), so it may be absent.
        header.value = reader.string(properties, "value"_L1, propertiesPath,
                                     header.secret ? Presence::Optional : Presence::Required);
    } else if (type.compare("Dynamic"_L1, Qt::CaseInsensitive) == 0) {
        header.kind = DeliveryHeader::Kind::Dynamic;
        header.sourceField
            = reader.string(properties, "sourceField"_L1, propertiesPath, Presence::Required);
    } else {
        reader.fail(joinPath(path, "type"_L1),
                    u"must be Static or Dynamic (got %1)"_s.arg(describeValue(type)));
    }
    return header;
}

AdvancedFilter readAdvancedFilter(JsonReader &reader, const QJsonValue &value, const QString &path)
{
    AdvancedFilter filter;
    const QJsonObject object = reader.objectAt(value, path);
    const QString operatorType = reader.string(object, "operatorType"_L1, path, Presence::Required);
    if (reader.failed())
        return filter;
    const std::optional<FilterOperator> op = filterOperatorFromName(operatorType);
    if (!op) {
        reader.fail(joinPath(path, "operatorType"_L1),
                    u"unknown operator %1; valid: %2"_s.arg(describeValue(operatorType),
                                                            allOperatorNames()));
        return filter;
    }
    filter.op = *op;
    filter.key = reader.string(object, "key"_L1, path, Presence::Required);
    const QString valuePath = joinPath(path, "value"_L1);
    const QString valuesPath = joinPath(path, "values"_L1);

    if (isSingleNumberOperator(filter.op)) {
        if (!JsonReader::isPresent(object, "value"_L1)) {
            reader.fail(valuePath, u"required number is missing"_s);
        } else if (const std::optional<double> number
                   = reader.numberAt(object.value("value"_L1), valuePath)) {
            filter.numbers.append(*number);
        }
    } else if (filter.op == FilterOperator::BoolEquals) {
        const QJsonValue boolValue = object.value("value"_L1);
        if (!boolValue.isBool()) {
            reader.fail(valuePath,
                        boolValue.isUndefined() || boolValue.isNull()
                            ? u"required true or false is missing"_s
                            : u"must be true or false (got %1)"_s.arg(describeValue(boolValue)));
        }
        filter.boolValue = boolValue.toBool();
    } else if (isNumberListOperator(filter.op) || isRangeOperator(filter.op)
               || isStringOperator(filter.op)) {
        const QJsonArray values = reader.array(object, "values"_L1, path, Presence::Required);
        for (qsizetype index = 0; index < values.size() && !reader.failed(); ++index) {
            const QJsonValue element = values.at(index);
            const QString elementPath = indexPath(valuesPath, index);
            if (isNumberListOperator(filter.op)) {
                if (const std::optional<double> number = reader.numberAt(element, elementPath))
                    filter.numbers.append(*number);
            } else if (isRangeOperator(filter.op)) {
                const QJsonArray pair = element.toArray();
                if (!element.isArray() || pair.size() != 2 || !pair.at(0).isDouble()
                    || !pair.at(1).isDouble()) {
                    reader.fail(elementPath,
                                u"must be a [min, max] pair of numbers (got %1)"_s.arg(
                                    element.isArray() ? QString::fromUtf8(
                                        QJsonDocument(pair).toJson(QJsonDocument::Compact).left(60))
                                                      : describeValue(element)));
                } else {
                    filter.ranges.append({pair.at(0).toDouble(), pair.at(1).toDouble()});
                }
            } else {
                filter.strings.append(reader.stringAt(element, elementPath));
            }
        }
    }
    return filter;
}

EventFilter readFilter(JsonReader &reader, const QJsonObject &object, const QString &path)
{
    EventFilter filter;
    const QJsonArray types
        = reader.array(object, "includedEventTypes"_L1, path, Presence::Optional);
    const QString typesPath = joinPath(path, "includedEventTypes"_L1);
    for (qsizetype index = 0; index < types.size() && !reader.failed(); ++index)
        filter.includedEventTypes.append(
            reader.stringAt(types.at(index), indexPath(typesPath, index)));
    filter.subjectBeginsWith
        = reader.string(object, "subjectBeginsWith"_L1, path, Presence::Optional);
    filter.subjectEndsWith = reader.string(object, "subjectEndsWith"_L1, path, Presence::Optional);
    filter.isSubjectCaseSensitive
        = reader.boolean(object, "isSubjectCaseSensitive"_L1, path, false);
    const QJsonArray advanced
        = reader.array(object, "advancedFilters"_L1, path, Presence::Optional);
    const QString advancedPath = joinPath(path, "advancedFilters"_L1);
    for (qsizetype index = 0; index < advanced.size() && !reader.failed(); ++index) {
        filter.advancedFilters.append(
            readAdvancedFilter(reader, advanced.at(index), indexPath(advancedPath, index)));
    }
    return filter;
}

DeadLetterDestination readDeadLetter(JsonReader &reader, const QJsonObject &object,
                                     const QString &path, QString *propertiesPath)
{
    DeadLetterDestination destination;
    const QString endpointType = reader.string(object, "endpointType"_L1, path, Presence::Required);
    if (reader.failed())
        return destination;
    if (endpointType.compare("StorageBlob"_L1, Qt::CaseInsensitive) != 0) {
        reader.fail(joinPath(path, "endpointType"_L1),
                    u"must be StorageBlob, the only dead-letter destination type (got %1)"_s.arg(
                        describeValue(endpointType)));
        return destination;
    }
    QJsonObject properties = object;
    *propertiesPath = path;
    if (JsonReader::isPresent(object, "properties"_L1)) {
        properties = reader.object(object, "properties"_L1, path, Presence::Required);
        *propertiesPath = joinPath(path, "properties"_L1);
    }
    destination.resourceId
        = reader.string(properties, "resourceId"_L1, *propertiesPath, Presence::Required);
    destination.blobContainerName
        = reader.string(properties, "blobContainerName"_L1, *propertiesPath, Presence::Required);
    // EventDesk extensions for Azurite and accounts reached by name.
    destination.accountName
        = reader.string(properties, "accountName"_L1, *propertiesPath, Presence::Optional);
    const QString blobEndpoint
        = reader.string(properties, "blobEndpoint"_L1, *propertiesPath, Presence::Optional);
    if (!blobEndpoint.isEmpty()) {
        destination.blobEndpoint = QUrl(blobEndpoint, QUrl::StrictMode);
        if (!isValidHttpUrl(destination.blobEndpoint)) {
            reader.fail(joinPath(*propertiesPath, "blobEndpoint"_L1),
                        u"must be an absolute http or https URL with a host (got %1)"_s.arg(
                            describeValue(blobEndpoint)));
        }
    }
    destination.kind = deadLetterKindFor(destination.resourceId);
    return destination;
}

} // namespace

Expected<EventSubscription> eventSubscriptionFromArm(const QJsonObject &object,
                                                     const QString &jsonPath,
                                                     EventSchema topicInputSchema)
{
    JsonReader reader;
    EventSubscription subscription;
    ArmLayout layout = canonicalLayout(jsonPath);

    subscription.name = reader.string(object, "name"_L1, jsonPath, Presence::Required);
    if (reader.failed())
        return reader.error();
    checkName(reader, subscription.name, layout.name, MinSubscriptionNameLength,
              MaxSubscriptionNameLength);

    QJsonObject properties;
    if (JsonReader::isPresent(object, "properties"_L1)) {
        properties = reader.object(object, "properties"_L1, jsonPath, Presence::Required);
    } else if (JsonReader::isPresent(object, "destination"_L1)) {
        // `az eventgrid event-subscription show -o json` prints the properties flattened.
        properties = object;
        layout.properties = jsonPath;
    } else {
        reader.fail(layout.properties, u"required object is missing"_s);
    }
    if (reader.failed())
        return reader.error();

    // properties.destination: its endpointType says what the other properties are.
    const QString destinationPath = joinPath(layout.properties, "destination"_L1);
    const QJsonObject destination
        = reader.object(properties, "destination"_L1, layout.properties, Presence::Required);
    const QString endpointType
        = reader.string(destination, "endpointType"_L1, destinationPath, Presence::Required);
    if (reader.failed())
        return reader.error();
    const std::optional<DestinationType> type = destinationTypeFromName(endpointType);
    if (!type) {
        reader.fail(joinPath(destinationPath, "endpointType"_L1),
                    u"must be %1 (got %2)"_s.arg(allDestinationTypeNames(),
                                                 describeValue(endpointType)));
        return reader.error();
    }
    subscription.destination.type = *type;
    QJsonObject destinationProperties = destination;
    layout.destinationProperties = destinationPath;
    if (JsonReader::isPresent(destination, "properties"_L1)) {
        layout.destinationProperties = joinPath(destinationPath, "properties"_L1);
        destinationProperties
            = reader.object(destination, "properties"_L1, destinationPath, Presence::Required);
    }
    if (subscription.destination.isWebHook()) {
        const QString endpointUrlPath = joinPath(layout.destinationProperties, "endpointUrl"_L1);
        QString endpointUrl = reader.string(destinationProperties, "endpointUrl"_L1,
                                            layout.destinationProperties, Presence::Optional);
        if (endpointUrl.isEmpty()) {
            // Azure never returns the full endpointUrl (it may carry a secret); exports carry
            // endpointBaseUrl instead, which is the best EventDesk can deliver to.
            endpointUrl = reader.string(destinationProperties, "endpointBaseUrl"_L1,
                                        layout.destinationProperties, Presence::Optional);
        }
        if (reader.failed())
            return reader.error();
        subscription.endpointUrl = QUrl(endpointUrl, QUrl::StrictMode);
        if (!isValidHttpUrl(subscription.endpointUrl)) {
            reader.fail(endpointUrlPath,
                        endpointUrl.isEmpty()
                            ? u"required string is missing (an absolute http or https URL)"_s
                            : u"must be an absolute http or https URL with a host (got %1)"_s.arg(
                                describeValue(endpointUrl)));
            return reader.error();
        }
    } else {
        readResourceDestination(reader, destinationProperties, layout.destinationProperties,
                                &subscription.destination);
        if (reader.failed())
            return reader.error();
        // SPEC B: Azure offers batching to webhooks and functions only.
        for (const QLatin1StringView batchKey :
             {"maxEventsPerBatch"_L1, "preferredBatchSizeInKilobytes"_L1}) {
            if (!Destinations::supportsBatching(subscription.destination.type)
                && JsonReader::isPresent(destinationProperties, batchKey)) {
                reader.fail(joinPath(layout.destinationProperties, batchKey),
                            u"batching is not available for %1 destinations (only WebHook and "
                            u"AzureFunction); remove it"_s.arg(endpointType));
                return reader.error();
            }
        }
    }

    // SPEC B2: either setting turns batching on; the other keeps its default.
    BatchPolicy &batch = subscription.batchPolicy;
    batch.enabled = JsonReader::isPresent(destinationProperties, "maxEventsPerBatch"_L1)
        || JsonReader::isPresent(destinationProperties, "preferredBatchSizeInKilobytes"_L1);
    batch.maxEventsPerBatch = reader.integer(destinationProperties, "maxEventsPerBatch"_L1,
                                             layout.destinationProperties, 1,
                                             BatchPolicy::MaxEventsLimit, batch.maxEventsPerBatch);
    batch.preferredBatchSizeInKilobytes = reader.integer(
        destinationProperties, "preferredBatchSizeInKilobytes"_L1, layout.destinationProperties, 1,
        BatchPolicy::MaxPreferredKilobytes, batch.preferredBatchSizeInKilobytes);

    // SPEC §9
    const QString headersPath
        = joinPath(layout.destinationProperties, "deliveryAttributeMappings"_L1);
    const QJsonArray headers = reader.array(destinationProperties, "deliveryAttributeMappings"_L1,
                                            layout.destinationProperties, Presence::Optional);
    for (qsizetype index = 0; index < headers.size() && !reader.failed(); ++index) {
        subscription.deliveryHeaders.append(
            readHeader(reader, headers.at(index), indexPath(headersPath, index)));
    }

    const QString filterPath = joinPath(layout.properties, "filter"_L1);
    const QJsonObject filter
        = reader.object(properties, "filter"_L1, layout.properties, Presence::Optional);
    subscription.filter = readFilter(reader, filter, filterPath);

    const QString deliverySchemaPath = joinPath(layout.properties, "eventDeliverySchema"_L1);
    subscription.deliverySchema = topicInputSchema;
    const QString deliverySchema = reader.string(properties, "eventDeliverySchema"_L1,
                                                 layout.properties, Presence::Optional);
    if (!deliverySchema.isEmpty()) {
        if (const std::optional<EventSchema> schema = eventSchemaFromName(deliverySchema)) {
            subscription.deliverySchema = *schema;
        } else {
            reader.fail(
                deliverySchemaPath,
                u"must be %1 (got %2)"_s.arg(allSchemaNames(), describeValue(deliverySchema)));
        }
    }

    // SPEC R6
    const QString retryPath = joinPath(layout.properties, "retryPolicy"_L1);
    const QJsonObject retry
        = reader.object(properties, "retryPolicy"_L1, layout.properties, Presence::Optional);
    subscription.retryPolicy.maxDeliveryAttempts
        = reader.integer(retry, "maxDeliveryAttempts"_L1, retryPath, RetryPolicy::MinAttempts,
                         RetryPolicy::MaxAttempts, subscription.retryPolicy.maxDeliveryAttempts);
    subscription.retryPolicy.eventTimeToLiveInMinutes = reader.integer(
        retry, "eventTimeToLiveInMinutes"_L1, retryPath, RetryPolicy::MinTtlMinutes,
        RetryPolicy::MaxTtlMinutes, subscription.retryPolicy.eventTimeToLiveInMinutes);

    // SPEC L1/L5
    const QString deadLetterPath = joinPath(layout.properties, "deadLetterDestination"_L1);
    const QJsonObject deadLetter = reader.object(properties, "deadLetterDestination"_L1,
                                                 layout.properties, Presence::Optional);
    if (!reader.failed() && JsonReader::isPresent(properties, "deadLetterDestination"_L1)) {
        subscription.deadLetterDestination
            = readDeadLetter(reader, deadLetter, deadLetterPath, &layout.deadLetterProperties);
    }

    const QString extensionPath = joinPath(layout.properties, "x-eventdesk"_L1);
    const QJsonObject extension
        = reader.object(properties, "x-eventdesk"_L1, layout.properties, Presence::Optional);
    subscription.enabled = reader.boolean(extension, "enabled"_L1, extensionPath, true);
    subscription.validationEnabled
        = reader.boolean(extension, "validation"_L1, extensionPath, true);

    if (reader.failed())
        return reader.error();
    validateSubscription(reader, subscription, topicInputSchema, layout);
    if (reader.failed())
        return reader.error();
    return subscription;
}

QJsonObject eventSubscriptionToArm(const EventSubscription &subscription)
{
    QJsonObject destinationProperties;
    const DeliveryDestination &destination = subscription.destination;
    if (destination.isWebHook()) {
        destinationProperties.insert("endpointUrl"_L1,
                                     subscription.endpointUrl.toString(QUrl::FullyEncoded));
    } else {
        destinationProperties.insert("resourceId"_L1, destination.resourceId);
        if (destination.type == DestinationType::StorageQueue) {
            destinationProperties.insert("queueName"_L1, destination.queueName);
            if (destination.queueMessageTimeToLiveInSeconds != 0) {
                destinationProperties.insert("queueMessageTimeToLiveInSeconds"_L1,
                                             double(destination.queueMessageTimeToLiveInSeconds));
            }
        }
        if (!destination.serviceUrl.isEmpty()) {
            destinationProperties.insert("serviceUrl"_L1,
                                         destination.serviceUrl.toString(QUrl::FullyEncoded));
        }
    }
    if (subscription.batchPolicy.enabled) {
        destinationProperties.insert("maxEventsPerBatch"_L1,
                                     subscription.batchPolicy.maxEventsPerBatch);
        destinationProperties.insert("preferredBatchSizeInKilobytes"_L1,
                                     subscription.batchPolicy.preferredBatchSizeInKilobytes);
    }
    if (!subscription.deliveryHeaders.isEmpty()) {
        QJsonArray headers;
        for (const DeliveryHeader &header : subscription.deliveryHeaders) {
            QJsonObject properties;
            if (header.kind == DeliveryHeader::Kind::Static) {
                // SPEC H2: a secret's value lives in the keychain, never in the file.
                if (!header.secret)
                    properties.insert("value"_L1, header.value);
                properties.insert("isSecret"_L1, header.secret);
            } else {
                properties.insert("sourceField"_L1, header.sourceField);
            }
            headers.append(QJsonObject {
                {"name"_L1, header.name},
                {"type"_L1,
                 header.kind == DeliveryHeader::Kind::Static ? u"Static"_s : u"Dynamic"_s},
                {"properties"_L1, properties},
            });
        }
        destinationProperties.insert("deliveryAttributeMappings"_L1, headers);
    }

    const EventFilter &filter = subscription.filter;
    QJsonObject filterObject;
    if (!filter.includedEventTypes.isEmpty())
        filterObject.insert("includedEventTypes"_L1,
                            QJsonArray::fromStringList(filter.includedEventTypes));
    filterObject.insert("subjectBeginsWith"_L1, filter.subjectBeginsWith);
    filterObject.insert("subjectEndsWith"_L1, filter.subjectEndsWith);
    filterObject.insert("isSubjectCaseSensitive"_L1, filter.isSubjectCaseSensitive);
    if (!filter.advancedFilters.isEmpty()) {
        QJsonArray advanced;
        for (const AdvancedFilter &entry : filter.advancedFilters) {
            QJsonObject object {{"operatorType"_L1, filterOperatorName(entry.op)},
                                {"key"_L1, entry.key}};
            if (isSingleNumberOperator(entry.op)) {
                object.insert("value"_L1, entry.numbers.value(0));
            } else if (isNumberListOperator(entry.op)) {
                QJsonArray values;
                for (const double number : entry.numbers)
                    values.append(number);
                object.insert("values"_L1, values);
            } else if (isRangeOperator(entry.op)) {
                QJsonArray values;
                for (const auto &[minimum, maximum] : entry.ranges)
                    values.append(QJsonArray {minimum, maximum});
                object.insert("values"_L1, values);
            } else if (entry.op == FilterOperator::BoolEquals) {
                object.insert("value"_L1, entry.boolValue);
            } else if (isStringOperator(entry.op)) {
                object.insert("values"_L1, QJsonArray::fromStringList(entry.strings));
            }
            advanced.append(object);
        }
        filterObject.insert("advancedFilters"_L1, advanced);
    }

    QJsonObject properties {
        {"destination"_L1,
         QJsonObject {{"endpointType"_L1, destinationTypeName(destination.type)},
                      {"properties"_L1, destinationProperties}}},
        {"filter"_L1, filterObject},
        {"eventDeliverySchema"_L1, eventSchemaName(subscription.deliverySchema)},
        {"retryPolicy"_L1,
         QJsonObject {
             {"maxDeliveryAttempts"_L1, subscription.retryPolicy.maxDeliveryAttempts},
             {"eventTimeToLiveInMinutes"_L1, subscription.retryPolicy.eventTimeToLiveInMinutes}}},
    };

    const DeadLetterDestination &deadLetter = subscription.deadLetterDestination;
    if (deadLetter.kind != DeadLetterDestination::Kind::None) {
        QJsonObject deadLetterProperties {{"resourceId"_L1, deadLetter.resourceId},
                                          {"blobContainerName"_L1, deadLetter.blobContainerName}};
        if (!deadLetter.accountName.isEmpty())
            deadLetterProperties.insert("accountName"_L1, deadLetter.accountName);
        if (!deadLetter.blobEndpoint.isEmpty())
            deadLetterProperties.insert("blobEndpoint"_L1,
                                        deadLetter.blobEndpoint.toString(QUrl::FullyEncoded));
        properties.insert("deadLetterDestination"_L1,
                          QJsonObject {{"endpointType"_L1, u"StorageBlob"_s},
                                       {"properties"_L1, deadLetterProperties}});
    }
    // Written only when it differs from the default, so an enabled subscription exports as
    // plain Resource Manager JSON.
    QJsonObject extension;
    if (!subscription.enabled)
        extension.insert("enabled"_L1, false);
    if (!subscription.validationEnabled)
        extension.insert("validation"_L1, false);
    if (!extension.isEmpty())
        properties.insert("x-eventdesk"_L1, extension);

    return QJsonObject {{"name"_L1, subscription.name}, {"properties"_L1, properties}};
}

} // namespace EventDesk
