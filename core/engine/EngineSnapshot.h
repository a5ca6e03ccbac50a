// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../rules/DeliveryOutcome.h"
#include "../rules/ProbationTracker.h"
#include "Provisioning.h"

#include <array>

#include <QHash>
#include <QList>
#include <QMetaType>
#include <QString>

namespace EventDesk {

// Per-subscription figures for the GUI and metrics (SPEC P6: probation state is visible).
struct SubscriptionSnapshot
{
    QString topic;
    QString subscription;
    bool enabled = true;

    quint64 matched = 0; // deliveries created for this subscription
    quint64 delivered = 0;
    quint64 requests = 0; // HTTP requests sent
    QHash<DeliveryOutcome, quint64> failedByOutcome; // failed attempts (per event)
    QHash<DeadLetterReason, quint64> deadLetteredByReason;
    QHash<DeadLetterReason, quint64> droppedByReason;

    qint64 backlog = 0; // Pending deliveries (waiting for their due time or for probation)
    qint64 inFlight = 0; // deliveries in requests awaiting a response
    qint64 deadLetterPending = 0;
    // SPEC L4: the last dead-letter write failed with this (empty: the destination takes writes),
    // and its deliveries wait for the next try.
    QString deadLetterWriteError;

    ProbationTracker::State probationState = ProbationTracker::State::Healthy;
    DeliveryOutcome probationCause = DeliveryOutcome::Delivered;
    qint64 probationUntilMs = 0;
    int consecutiveFailures = 0;

    qint64 nextDueMs = 0; // 0: nothing scheduled
    double latencySumMs = 0; // destination processing time of answered requests
    quint64 latencyCount = 0;
    // Histogram of the same (Event Grid's DestinationProcessingDurationInMs): latencyBuckets[i]
    // counts answers that took at most LatencyBucketBoundsMs[i] (and more than the bound before);
    // the last entry counts the slower ones. Not cumulative.
    static constexpr std::array<double, 14> LatencyBucketBoundsMs{
        5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000, 180000};
    std::array<quint64, LatencyBucketBoundsMs.size() + 1> latencyBuckets{};

    // Endpoint validation (Event Grid's provisioningState while a webhook is validated).
    bool validationEnabled = true;
    ProvisioningState provisioningState = ProvisioningState::Succeeded;
    QString provisioningMessage; // what failed or what is awaited
    QString validationUrl; // AwaitingManualActionValidation: GET it to validate
    qint64 validationExpiresMs = 0; // AwaitingManualActionValidation: the URL works until then
    QString allowedRate; // CloudEvents: WebHook-Allowed-Rate the endpoint granted
    // Creating while the endpoint cannot be reached: the last failure ("connection refused",
    // "HTTP 503") and when the next handshake goes out (0: one is under way).
    QString endpointUnreachable;
    qint64 nextValidationMs = 0;
    qint64 held = 0; // of the backlog: deliveries waiting for validation or for awaitingSecrets
    // Waiting for the keychain: a secret the subscription needs has not come yet
    // (docs/eventdeskd.md "Secrets"); its deliveries are held.
    bool awaitingSecrets = false;
};

struct TopicSnapshot
{
    QString topic;
    quint64 published = 0;
    quint64 unmatched = 0; // published events no subscription matched
    quint64 rejectedRequests = 0;
};

// Whether the engine's store takes writes (a full disk, an I/O error), for the GUI and metrics.
struct StoreHealthSnapshot
{
    bool writable = true; // the last write succeeded
    quint64 writeFailures = 0; // since the engine started
    QString lastError; // of the last failed write
    qint64 unwritableSinceMs = 0; // engine time of the first failure since the last success
};

// The HTTP endpoint in front of the engine (docs/security.md "The HTTP endpoint"): filled in by the
// endpoint (TopicEndpoint::snapshot), not by the engine; all zero where none runs.
struct EndpointSnapshot
{
    bool listening = false;
    int openConnections = 0;
    // accept() fails (out of file descriptors, typically): new connections wait in the listen
    // queue while idle ones are closed to make room.
    bool acceptFailing = false;
    QString lastAcceptError;
    quint64 acceptFailures = 0;
    quint64 shedConnections = 0; // idle connections closed to free a descriptor
    quint64 refusedConnections = 0; // answered 503 over the connection cap
    quint64 refusedHost = 0; // requests refused for their Host header (400, 421)
    quint64 refusedOrigin = 0; // requests refused for their Origin header (403)
    quint64 refusedContentType = 0; // publishes refused for their Content-Type (415)
};

struct EngineSnapshot
{
    qint64 nowMs = 0;
    StoreHealthSnapshot store;
    // A shared store: deliveries claimed for subscriptions this instance's configuration does not
    // have yet (DeliveryClaims parks them until it does, or drops them after a grace).
    qint64 parkedDeliveries = 0;
    EndpointSnapshot endpoint;
    QList<TopicSnapshot> topics;
    QList<SubscriptionSnapshot> subscriptions;
};

} // namespace EventDesk

Q_DECLARE_METATYPE(EventDesk::EngineSnapshot)
