// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "SubscriptionValidator.h"

#include "model/Workspace.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {

// "properties.filter.advancedFilters[3].values[1]" -> 3 for "advancedFilters"
int indexAfter(const QString &path, QLatin1StringView name)
{
    const qsizetype at = path.indexOf(name + u'[');
    if (at < 0)
        return -1;
    const qsizetype start = at + name.size() + 1;
    const qsizetype end = path.indexOf(u']', start);
    bool ok = false;
    const int index = path.mid(start, end - start).toInt(&ok);
    return ok ? index : -1;
}

} // namespace

FieldError SubscriptionValidator::describeCoreError(const QString &coreMessage,
                                                    bool resourceIdTyped,
                                                    DestinationType destinationType)
{
    FieldError error;
    const qsizetype separator = coreMessage.indexOf(u": "_s);
    const QString path = separator >= 0 ? coreMessage.left(separator) : QString();
    QString text = separator >= 0 ? coreMessage.mid(separator + 2) : coreMessage;
    // "required: ..." reads as "<Field> is required: ..."
    if (text.startsWith("required"_L1))
        text = tr("is ") + text;
    QString label;
    // properties.destination.properties.<name> (or properties.destination.<name>: Resource
    // Manager accepts both), never the dead-letter destination's.
    const bool inDestination = path.contains("properties.destination."_L1);

    if (path == "name"_L1) {
        error.field = SubscriptionField::Name;
        label = tr("Name");
    } else if (path.endsWith("endpointUrl"_L1)) {
        error.field = SubscriptionField::Endpoint;
        label = tr("Endpoint URL");
    } else if (inDestination && path.endsWith(".resourceId"_L1)) {
        error.field = SubscriptionField::DestinationResourceId;
        label = tr("Resource ID");
    } else if (inDestination && path.endsWith(".queueName"_L1)) {
        error.field = SubscriptionField::QueueName;
        label = tr("Queue name");
    } else if (inDestination && path.endsWith(".queueMessageTimeToLiveInSeconds"_L1)) {
        error.field = SubscriptionField::QueueMessageTtl;
        label = tr("Message time to live");
    } else if (inDestination && path.endsWith(".serviceUrl"_L1)) {
        error.field = SubscriptionField::ServiceUrl;
        label = destinationType == DestinationType::AzureFunction ? tr("Functions host URL")
            : destinationType == DestinationType::StorageQueue    ? tr("Queue endpoint URL")
                                                                  : tr("Service URL");
    } else if (path.endsWith("retryPolicy.maxDeliveryAttempts"_L1)) {
        error.field = SubscriptionField::MaxAttempts;
        label = tr("Max delivery attempts");
    } else if (path.endsWith("retryPolicy.eventTimeToLiveInMinutes"_L1)) {
        error.field = SubscriptionField::TimeToLive;
        label = tr("Event time to live (minutes)");
    } else if (path.endsWith("maxEventsPerBatch"_L1)) {
        error.field = SubscriptionField::MaxEvents;
        label = tr("Max events per batch");
    } else if (path.endsWith("preferredBatchSizeInKilobytes"_L1)) {
        error.field = SubscriptionField::PreferredSize;
        label = tr("Preferred batch size (KB)");
    } else if (path.contains("deliveryAttributeMappings"_L1)) {
        error.field = SubscriptionField::Headers;
        error.row = indexAfter(path, "deliveryAttributeMappings"_L1);
        if (error.row < 0) {
            label = tr("Delivery headers");
        } else {
            const QString number = QString::number(error.row + 1);
            label = path.endsWith(".name"_L1)      ? tr("Header %1 name").arg(number)
                : path.endsWith(".value"_L1)       ? tr("Header %1 value").arg(number)
                : path.endsWith(".sourceField"_L1) ? tr("Header %1 source field").arg(number)
                                                   : tr("Header %1").arg(number);
        }
    } else if (path.contains("advancedFilters"_L1)) {
        error.field = SubscriptionField::AdvancedFilters;
        error.row = indexAfter(path, "advancedFilters"_L1);
        if (error.row < 0) {
            label = tr("Advanced filters");
        } else {
            const QString number = QString::number(error.row + 1);
            const int valueIndex = indexAfter(path, "values"_L1);
            label = valueIndex >= 0
                ? tr("Advanced filter %1 value %2").arg(number).arg(valueIndex + 1)
                : path.endsWith(".key"_L1)    ? tr("Advanced filter %1 key").arg(number)
                : path.endsWith(".values"_L1) ? tr("Advanced filter %1 values").arg(number)
                : path.endsWith(".value"_L1)  ? tr("Advanced filter %1 value").arg(number)
                                              : tr("Advanced filter %1").arg(number);
        }
    } else if (path.endsWith("eventDeliverySchema"_L1)) {
        error.field = SubscriptionField::DeliverySchema;
        label = tr("Delivery schema");
    } else if (path.endsWith("deadLetterDestination.properties.blobContainerName"_L1)) {
        error.field = SubscriptionField::DeadLetterContainer;
        label = tr("Dead-letter container");
    } else if (path.endsWith("deadLetterDestination.properties.accountName"_L1)) {
        error.field = SubscriptionField::DeadLetterAccount;
        label = tr("Storage account name");
    } else if (path.endsWith("deadLetterDestination.properties.blobEndpoint"_L1)) {
        error.field = SubscriptionField::DeadLetterEndpoint;
        label = tr("Blob endpoint");
    } else if (path.endsWith("deadLetterDestination.properties.resourceId"_L1)) {
        if (!resourceIdTyped) {
            // The user gave neither: ask for the field they can see first.
            error.field = SubscriptionField::DeadLetterAccount;
            error.message = tr("Storage account name is required for an Azure Blob destination "
                               "(3 to 24 characters of a–z and 0–9)");
            return error;
        }
        error.field = SubscriptionField::DeadLetterResourceId;
        label = tr("Resource ID");
    } else {
        error.field = SubscriptionField::General;
        error.message = coreMessage;
        return error;
    }
    error.message = label + u' ' + text;
    return error;
}

QList<FieldError> SubscriptionValidator::collectErrors(const EventSubscription &subscription,
                                                       EventSchema topicInputSchema,
                                                       const QHash<int, QString> &parseErrors,
                                                       bool resourceIdTyped,
                                                       const QString &queueTtlProblem)
{
    QList<FieldError> errors;
    if (!queueTtlProblem.isEmpty()) {
        errors.append({SubscriptionField::QueueMessageTtl, -1,
                       tr("Message time to live") + u' ' + queueTtlProblem});
    }
    QList<int> parseRows = parseErrors.keys();
    std::sort(parseRows.begin(), parseRows.end());
    for (const int row : std::as_const(parseRows)) {
        errors.append(
            {SubscriptionField::AdvancedFilters, row,
             tr("Advanced filter %1 values: %2").arg(row + 1).arg(parseErrors.value(row))});
    }

    // The core reports the first problem only. To show every problem at once, replace the field
    // it names with a value known to be valid and ask again; the messages stay the core's own.
    EventSubscription probe = subscription;
    QStringList seenPaths;
    for (int round = 0; round < 64; ++round) {
        const Expected<void> result = validateEventSubscription(probe, topicInputSchema);
        if (result)
            break;
        const QString message = result.error();
        const QString path = message.section(u": "_s, 0, 0);
        if (seenPaths.contains(path))
            break;
        seenPaths.append(path);
        const FieldError error
            = describeCoreError(message, resourceIdTyped, subscription.destination.type);
        const bool duplicateRow = error.row >= 0
            && error.field == SubscriptionField::AdvancedFilters && parseErrors.contains(error.row);
        if (!duplicateRow)
            errors.append(error);

        switch (error.field) {
        case SubscriptionField::Name:
            probe.name = u"placeholder-name"_s;
            break;
        case SubscriptionField::Endpoint:
            probe.endpointUrl = QUrl(u"http://localhost/"_s);
            break;
        case SubscriptionField::DestinationResourceId: {
            DestinationResource placeholder;
            placeholder.account = placeholder.site = placeholder.function
                = placeholder.serviceNamespace = placeholder.entity = u"placeholder"_s;
            probe.destination.resourceId
                = Destinations::resourceId(probe.destination.type, placeholder, QString());
            break;
        }
        case SubscriptionField::QueueName:
            probe.destination.queueName = u"placeholder"_s;
            break;
        case SubscriptionField::QueueMessageTtl:
            probe.destination.queueMessageTimeToLiveInSeconds = 0;
            break;
        case SubscriptionField::ServiceUrl:
            probe.destination.serviceUrl = QUrl();
            break;
        case SubscriptionField::MaxAttempts:
            probe.retryPolicy.maxDeliveryAttempts = RetryPolicy::MaxAttempts;
            break;
        case SubscriptionField::TimeToLive:
            probe.retryPolicy.eventTimeToLiveInMinutes = RetryPolicy::MaxTtlMinutes;
            break;
        case SubscriptionField::MaxEvents:
            probe.batchPolicy.maxEventsPerBatch = 1;
            break;
        case SubscriptionField::PreferredSize:
            probe.batchPolicy.preferredBatchSizeInKilobytes = 64;
            break;
        case SubscriptionField::Headers:
            if (error.row >= 0 && error.row < probe.deliveryHeaders.size()) {
                DeliveryHeader placeholder;
                placeholder.name = u"X-EventDesk-Check-%1"_s.arg(error.row);
                probe.deliveryHeaders[error.row] = placeholder;
            } else {
                probe.deliveryHeaders.resize(
                    std::min<qsizetype>(probe.deliveryHeaders.size(), DeliveryHeader::MaxHeaders));
            }
            break;
        case SubscriptionField::AdvancedFilters:
            if (error.row >= 0 && error.row < probe.filter.advancedFilters.size()) {
                AdvancedFilter placeholder;
                placeholder.op = FilterOperator::IsNotNull;
                placeholder.key = u"subject"_s;
                probe.filter.advancedFilters[error.row] = placeholder;
            } else {
                probe.filter.advancedFilters.clear();
            }
            break;
        case SubscriptionField::DeliverySchema:
            probe.deliverySchema = topicInputSchema;
            break;
        case SubscriptionField::DeadLetterResourceId:
        case SubscriptionField::DeadLetterContainer:
        case SubscriptionField::DeadLetterAccount:
        case SubscriptionField::DeadLetterEndpoint:
            probe.deadLetterDestination = DeadLetterDestination();
            break;
        case SubscriptionField::General:
            return errors;
        }
    }
    return errors;
}

} // namespace EventDesk::Ui
