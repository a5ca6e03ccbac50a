// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "DeliveryStore.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QMetaType>
#include <QString>
#include <QtGlobal>

namespace EventDesk {

// The running totals of a store (docs/user-guide.md "Totals"): what every engine that ever wrote it
// counted, per topic and per event subscription, written in the same transaction as the rows they
// count, so that a workspace opened later, by the app or by another instance, shows what happened
// before it opened. An engine's own counters (EngineSnapshot, /metrics) count since it started.
//
// A store keeps one row per (topic, subscription, counter); topic-wide counters have an empty
// subscription. Counter numbers are stored: append only.
enum class TotalCounter : int {
    Published = 1, // events accepted by the topic (resubmissions are not publishes)
    Unmatched = 2, // of those, events no subscription matched
    Matched = 3, // deliveries created for the subscription (resubmissions included)
    Delivered = 4, // events delivered
    Requests = 5, // requests sent that ended (answered, failed or timed out; not aborted ones)
    LatencySumMs = 6, // destination processing time of answered requests, summed
    LatencyCount = 7, // answered requests
    // Failed attempts per event, by outcome: FailedBase + DeliveryOutcome.
    FailedBase = 100,
    // Deliveries dead-lettered / dropped, by reason: base + DeadLetterReason.
    DeadLetteredBase = 200,
    DroppedBase = 300,
};

// A change of one counter (or, read back, its value).
struct TotalChange
{
    QString topic;
    QString subscription; // empty: a topic-wide counter
    int counter = 0; // TotalCounter
    qint64 value = 0;

    bool operator==(const TotalChange &other) const = default;
};

// What a publish adds: Published and Unmatched per topic, Matched per subscription. A resubmission
// (countPublished false) adds only the deliveries it creates.
QList<TotalChange> totalsOfPublish(const QList<StoredEvent> &events,
                                   const QList<DeliveryRecord> &deliveries, bool countPublished);
// What a group commit adds, from its delivery log, dead letters and drops: as the engine counts
// (per event for outcomes, per request for latency, an aborted request not at all: its timeout
// was counted when it happened).
QList<TotalChange> totalsOfBatch(const StoreBatch &batch);

// The statement that adds one change: parameters topic, subscription, counter, value (the same
// text runs on SQLite and, after postgresPlaceholders(), on PostgreSQL).
inline constexpr char AddTotalSql[]
    = "INSERT INTO totals (topic, subscription, counter, value) VALUES (?, ?, ?, ?)"
      " ON CONFLICT (topic, subscription, counter) DO UPDATE SET value = totals.value + excluded.value";

// A store written before it kept totals: the totals rebuilt from what it kept, run once by the
// migration that creates the table (both backends run the statements as they stand). Dead letters
// and drops are exact while their rows were kept (none was resubmitted or deleted); deliveries,
// failed attempts, requests and latency count the delivery log, which keeps only its newest rows;
// matched is those fates plus the unfinished deliveries; published is the least the topic must
// have accepted (its most matched subscription). Unmatched events left no trace.
QList<QByteArray> rebuildTotalsStatements();

// The figures of one subscription, of one topic, and of every one of them: a store's totals as
// the views show them.
struct SubscriptionTotals
{
    quint64 matched = 0;
    quint64 delivered = 0;
    quint64 requests = 0;
    double latencySumMs = 0;
    quint64 latencyCount = 0;
    QHash<DeliveryOutcome, quint64> failedByOutcome;
    QHash<DeadLetterReason, quint64> deadLetteredByReason;
    QHash<DeadLetterReason, quint64> droppedByReason;

    quint64 failedAttempts() const;
    quint64 deadLettered() const;
    quint64 dropped() const;
    bool operator==(const SubscriptionTotals &other) const = default;
};

struct TopicTotals
{
    quint64 published = 0;
    quint64 unmatched = 0;
    bool operator==(const TopicTotals &other) const = default;
};

class StoreTotals
{
public:
    static StoreTotals fromRows(const QList<TotalChange> &rows);
    void add(const TotalChange &change);

    // Names compare as Event Grid compares them: without regard to case.
    TopicTotals topic(const QString &topic) const;
    SubscriptionTotals subscription(const QString &topic, const QString &subscription) const;
    // The sum over every topic and subscription the store has counted, deleted ones included (as
    // the dead-letter browser lists their dead letters).
    TopicTotals allTopics() const;
    SubscriptionTotals allSubscriptions() const;
    // The sum over the subscriptions of one topic.
    SubscriptionTotals subscriptionsOf(const QString &topic) const;
    bool isEmpty() const { return m_topics.isEmpty() && m_subscriptions.isEmpty(); }

    bool operator==(const StoreTotals &other) const = default;

private:
    static QString key(const QString &topic, const QString &subscription);
    QHash<QString, TopicTotals> m_topics; // by key(topic, "")
    QHash<QString, SubscriptionTotals> m_subscriptions; // by key(topic, subscription)
};

} // namespace EventDesk

Q_DECLARE_METATYPE(EventDesk::StoreTotals)
