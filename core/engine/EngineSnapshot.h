#pragma once

#include "../rules/DeliveryOutcome.h"
#include "../rules/ProbationTracker.h"

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

    ProbationTracker::State probationState = ProbationTracker::State::Healthy;
    DeliveryOutcome probationCause = DeliveryOutcome::Delivered;
    qint64 probationUntilMs = 0;
    int consecutiveFailures = 0;

    qint64 nextDueMs = 0; // 0: nothing scheduled
    double latencySumMs = 0; // destination processing time of answered requests
    quint64 latencyCount = 0;
};

struct TopicSnapshot
{
    QString topic;
    quint64 published = 0;
    quint64 unmatched = 0; // published events no subscription matched
    quint64 rejectedRequests = 0;
};

struct EngineSnapshot
{
    qint64 nowMs = 0;
    QList<TopicSnapshot> topics;
    QList<SubscriptionSnapshot> subscriptions;
};

} // namespace EventDesk

Q_DECLARE_METATYPE(EventDesk::EngineSnapshot)
