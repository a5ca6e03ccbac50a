// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "DeliveryDestination.h"
#include "EventSchema.h"
#include "Filter.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QUrl>

namespace EventDesk {

// SPEC R6
struct RetryPolicy
{
    int maxDeliveryAttempts = 30; // 1..30
    int eventTimeToLiveInMinutes = 1440; // 1..1440

    static constexpr int MinAttempts = 1;
    static constexpr int MaxAttempts = 30;
    static constexpr int MinTtlMinutes = 1;
    static constexpr int MaxTtlMinutes = 1440;
};

// SPEC B1/B2: off unless either setting is present; the other takes its default.
struct BatchPolicy
{
    bool enabled = false;
    int maxEventsPerBatch = 1; // 1..5000
    int preferredBatchSizeInKilobytes = 64; // 1..1024

    static constexpr int MaxEventsLimit = 5000;
    static constexpr int MaxPreferredKilobytes = 1024;
};

// SPEC §9
struct DeliveryHeader
{
    enum class Kind { Static, Dynamic };
    QString name;
    Kind kind = Kind::Static;
    QString value; // Static: the value (empty when secret: it lives in the SecretStore)
    QString sourceField; // Dynamic: "data.key1", "subject", ...
    bool secret = false; // Static only (H2)

    static constexpr int MaxHeaders = 10;
    static constexpr int MaxValueBytes = 4096;
};

// SPEC L5. Kind::LocalFolder when resourceId is "local" (or names a storage account "local").
struct DeadLetterDestination
{
    enum class Kind { None, LocalFolder, AzureBlob };
    Kind kind = Kind::None;
    QString resourceId; // as in ARM: ".../storageAccounts/<account>" or "local"
    QString blobContainerName;
    // AzureBlob only (issue 5 wires the account key through the SecretStore):
    QString accountName;
    QUrl blobEndpoint;
};

struct EventSubscription
{
    QString name; // SPEC §1: 3..64 chars of [A-Za-z0-9-]
    // properties.destination: a webhook's URL (http or https), or the Azure resource that
    // receives the events (destination.type other than WebHook).
    QUrl endpointUrl;
    DeliveryDestination destination;
    EventFilter filter;
    EventSchema deliverySchema = EventSchema::EventGrid;
    RetryPolicy retryPolicy;
    BatchPolicy batchPolicy;
    QList<DeliveryHeader> deliveryHeaders;
    DeadLetterDestination deadLetterDestination;
    bool enabled = true; // EventDesk extension: properties.x-eventdesk.enabled
    // EventDesk extension properties.x-eventdesk.validation: the endpoint validation handshake
    // Event Grid performs when a webhook subscription is created (off for receivers that do not
    // implement it). Other destination types are never asked to validate.
    bool validationEnabled = true;

    bool needsEndpointValidation() const
    {
        return validationEnabled && Destinations::needsEndpointValidation(destination.type);
    }

    bool hasDeadLetterDestination() const
    {
        return deadLetterDestination.kind != DeadLetterDestination::Kind::None;
    }
};

} // namespace EventDesk
