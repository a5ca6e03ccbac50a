// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "StoreTotals.h"

#include <QSet>

#include <algorithm>
#include <array>
#include <map>
#include <tuple>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

// Adds up changes of the same counter, so that a batch of a thousand deliveries writes a few rows;
// hands them out ordered by topic, subscription and counter, the order in which every writer of a
// shared store then takes the rows' locks (no two transactions wait for each other in a circle).
class TotalsBuilder
{
public:
    void add(const QString &topic, const QString &subscription, int counter, qint64 value)
    {
        // The names are NOT NULL in both stores: a null one (a topic-wide counter's subscription)
        // is stored empty.
        const auto stored = [](const QString &name) { return name.isNull() ? u""_s : name; };
        if (value != 0)
            m_values[std::make_tuple(stored(topic), stored(subscription), counter)] += value;
    }
    QList<TotalChange> changes() const
    {
        QList<TotalChange> changes;
        changes.reserve(qsizetype(m_values.size()));
        for (const auto &[key, value] : m_values)
            changes.append({std::get<0>(key), std::get<1>(key), std::get<2>(key), value});
        return changes;
    }

private:
    std::map<std::tuple<QString, QString, int>, qint64> m_values;
};

int failedCounter(DeliveryOutcome outcome)
{
    return int(TotalCounter::FailedBase) + int(outcome);
}

int deadLetteredCounter(DeadLetterReason reason)
{
    return int(TotalCounter::DeadLetteredBase) + int(reason);
}

int droppedCounter(DeadLetterReason reason)
{
    return int(TotalCounter::DroppedBase) + int(reason);
}

template<typename Key> quint64 sumOf(const QHash<Key, quint64> &values)
{
    quint64 total = 0;
    for (const quint64 value : values)
        total += value;
    return total;
}

template<typename Key> void addAll(QHash<Key, quint64> &to, const QHash<Key, quint64> &from)
{
    for (auto it = from.cbegin(); it != from.cend(); ++it)
        to[it.key()] += it.value();
}

} // namespace

QList<QByteArray> rebuildTotalsStatements()
{
    static_assert(int(DeliveryOutcome::Delivered) == 0 && int(DeliveryOutcome::Aborted) == 12,
                  "the statements below name these outcomes by number");
    static_assert(int(TotalCounter::Matched) == 3 && int(TotalCounter::Delivered) == 4
                  && int(TotalCounter::DeadLetteredBase) == 200);
    return {
        "INSERT INTO totals (topic, subscription, counter, value)"
        " SELECT coalesce(topic, ''), coalesce(subscription, ''), 200 + reason, count(*)"
        " FROM dead_letters GROUP BY coalesce(topic, ''), coalesce(subscription, ''), reason"_ba,
        "INSERT INTO totals (topic, subscription, counter, value)"
        " SELECT coalesce(topic, ''), coalesce(subscription, ''), 300 + reason, count(*)"
        " FROM dropped GROUP BY coalesce(topic, ''), coalesce(subscription, ''), reason"_ba,
        // Per event: an attempt counts the events of its request (at least one).
        "INSERT INTO totals (topic, subscription, counter, value)"
        " SELECT topic, subscription, CASE WHEN outcome = 0 THEN 4 ELSE 100 + outcome END,"
        " sum(events) FROM (SELECT coalesce(a.topic, '') AS topic,"
        " coalesce(a.subscription, '') AS subscription, a.outcome AS outcome,"
        " (SELECT CASE WHEN count(*) > 1 THEN count(*) ELSE 1 END FROM attempt_events e"
        " WHERE e.attempt_id = a.id) AS events FROM attempt_log a WHERE a.outcome <> 12) attempts"
        " GROUP BY topic, subscription, outcome"_ba,
        "INSERT INTO totals (topic, subscription, counter, value)"
        " SELECT coalesce(topic, ''), coalesce(subscription, ''), 5, count(*) FROM attempt_log"
        " WHERE outcome <> 12 GROUP BY coalesce(topic, ''), coalesce(subscription, '')"_ba,
        "INSERT INTO totals (topic, subscription, counter, value)"
        " SELECT coalesce(topic, ''), coalesce(subscription, ''), 6, sum(duration_ms)"
        " FROM attempt_log WHERE outcome <> 12 AND http_status > 0"
        " GROUP BY coalesce(topic, ''), coalesce(subscription, '')"_ba,
        "INSERT INTO totals (topic, subscription, counter, value)"
        " SELECT coalesce(topic, ''), coalesce(subscription, ''), 7, count(*)"
        " FROM attempt_log WHERE outcome <> 12 AND http_status > 0"
        " GROUP BY coalesce(topic, ''), coalesce(subscription, '')"_ba,
        "INSERT INTO totals (topic, subscription, counter, value)"
        " SELECT topic, subscription, 3, sum(n) FROM (SELECT topic, subscription, value AS n"
        " FROM totals WHERE counter = 4 OR counter >= 200 UNION ALL"
        " SELECT coalesce(topic, ''), coalesce(subscription, ''), count(*) FROM deliveries"
        " GROUP BY coalesce(topic, ''), coalesce(subscription, '')) fates"
        " GROUP BY topic, subscription"_ba,
        "INSERT INTO totals (topic, subscription, counter, value)"
        " SELECT topic, '', 1, max(value) FROM totals WHERE counter = 3 GROUP BY topic"_ba,
    };
}

QList<TotalChange> totalsOfPublish(const QList<StoredEvent> &events,
                                   const QList<DeliveryRecord> &deliveries, bool countPublished)
{
    TotalsBuilder totals;
    // Counted in runs of one subscription (one topic), added to the builder once per run.
    const auto countRuns = [&totals](const auto &rows, const auto &topicOf, const auto &subscriptionOf,
                                     const auto &counterOf) {
        const QString *topic = nullptr;
        const QString *subscription = nullptr;
        int counter = 0;
        qint64 count = 0;
        for (const auto &row : rows) {
            const QString &rowTopic = topicOf(row);
            const QString &rowSubscription = subscriptionOf(row);
            const int rowCounter = counterOf(row);
            if (!topic || *topic != rowTopic || *subscription != rowSubscription || counter != rowCounter) {
                if (topic)
                    totals.add(*topic, *subscription, counter, count);
                topic = &rowTopic;
                subscription = &rowSubscription;
                counter = rowCounter;
                count = 0;
            }
            ++count;
        }
        if (topic)
            totals.add(*topic, *subscription, counter, count);
    };
    countRuns(
        deliveries, [](const DeliveryRecord &delivery) -> const QString & { return delivery.topic; },
        [](const DeliveryRecord &delivery) -> const QString & { return delivery.subscription; },
        [](const DeliveryRecord &) { return int(TotalCounter::Matched); });
    if (countPublished) {
        QSet<qint64> matched;
        matched.reserve(deliveries.size());
        for (const DeliveryRecord &delivery : deliveries)
            matched.insert(delivery.eventSeq);
        static const QString topicWide = u""_s;
        countRuns(
            events, [](const StoredEvent &event) -> const QString & { return event.topic; },
            [](const StoredEvent &) -> const QString & { return topicWide; },
            [](const StoredEvent &) { return int(TotalCounter::Published); });
        for (const StoredEvent &event : events) {
            if (!matched.contains(event.seq))
                totals.add(event.topic, QString(), int(TotalCounter::Unmatched), 1);
        }
    }
    return totals.changes();
}

QList<TotalChange> totalsOfBatch(const StoreBatch &batch)
{
    TotalsBuilder totals;
    // A group commit's attempts come in runs of one subscription (a thousand deliveries to one
    // endpoint, mostly): each run is counted here and added to the builder once, so that the
    // commit costs a few map lookups, not a few per delivery.
    struct Run
    {
        const QString *topic = nullptr;
        const QString *subscription = nullptr;
        qint64 requests = 0;
        qint64 delivered = 0;
        qint64 latencySumMs = 0;
        qint64 latencyCount = 0;
        std::array<qint64, 64> failedByOutcome {};
    };
    Run run;
    const auto flush = [&] {
        if (!run.topic)
            return;
        const QString &topic = *run.topic;
        const QString &subscription = *run.subscription;
        totals.add(topic, subscription, int(TotalCounter::Requests), run.requests);
        totals.add(topic, subscription, int(TotalCounter::Delivered), run.delivered);
        totals.add(topic, subscription, int(TotalCounter::LatencySumMs), run.latencySumMs);
        totals.add(topic, subscription, int(TotalCounter::LatencyCount), run.latencyCount);
        for (size_t outcome = 0; outcome < run.failedByOutcome.size(); ++outcome)
            totals.add(topic, subscription, failedCounter(DeliveryOutcome(outcome)),
                       run.failedByOutcome[outcome]);
        run = Run();
    };
    for (const AttemptLogEntry &entry : batch.attempts) {
        if (entry.outcome == DeliveryOutcome::Aborted)
            continue;
        if (!run.topic || *run.topic != entry.topic || *run.subscription != entry.subscription) {
            flush();
            run.topic = &entry.topic;
            run.subscription = &entry.subscription;
        }
        const qint64 events = std::max<qsizetype>(1, entry.eventIds.size());
        ++run.requests;
        if (entry.outcome == DeliveryOutcome::Delivered) {
            run.delivered += events;
        } else {
            const auto outcome = size_t(entry.outcome);
            if (outcome < run.failedByOutcome.size())
                run.failedByOutcome[outcome] += events;
            else
                totals.add(entry.topic, entry.subscription, failedCounter(entry.outcome), events);
        }
        if (entry.httpStatus > 0) {
            run.latencySumMs += std::max<qint64>(0, entry.durationMs);
            ++run.latencyCount;
        }
    }
    flush();
    for (const DeadLetterEntry &entry : batch.deadLetters)
        totals.add(entry.topic, entry.subscription, deadLetteredCounter(entry.reason), 1);
    for (const DroppedEntry &entry : batch.drops)
        totals.add(entry.topic, entry.subscription, droppedCounter(entry.reason), 1);
    return totals.changes();
}

quint64 SubscriptionTotals::failedAttempts() const
{
    return sumOf(failedByOutcome);
}

quint64 SubscriptionTotals::deadLettered() const
{
    return sumOf(deadLetteredByReason);
}

quint64 SubscriptionTotals::dropped() const
{
    return sumOf(droppedByReason);
}

QString StoreTotals::key(const QString &topic, const QString &subscription)
{
    return topic.toLower() + u'/' + subscription.toLower();
}

StoreTotals StoreTotals::fromRows(const QList<TotalChange> &rows)
{
    StoreTotals totals;
    for (const TotalChange &row : rows)
        totals.add(row);
    return totals;
}

void StoreTotals::add(const TotalChange &change)
{
    const auto value = quint64(std::max<qint64>(0, change.value));
    const int counter = change.counter;
    if (counter == int(TotalCounter::Published) || counter == int(TotalCounter::Unmatched)) {
        TopicTotals &topic = m_topics[key(change.topic, QString())];
        (counter == int(TotalCounter::Published) ? topic.published : topic.unmatched) += value;
        return;
    }
    SubscriptionTotals &subscription = m_subscriptions[key(change.topic, change.subscription)];
    switch (counter) {
    case int(TotalCounter::Matched):
        subscription.matched += value;
        return;
    case int(TotalCounter::Delivered):
        subscription.delivered += value;
        return;
    case int(TotalCounter::Requests):
        subscription.requests += value;
        return;
    case int(TotalCounter::LatencySumMs):
        subscription.latencySumMs += double(value);
        return;
    case int(TotalCounter::LatencyCount):
        subscription.latencyCount += value;
        return;
    default:
        break;
    }
    // A counter this build does not know (a newer build wrote it) is left out.
    if (counter >= int(TotalCounter::FailedBase) && counter < int(TotalCounter::DeadLetteredBase))
        subscription.failedByOutcome[DeliveryOutcome(counter - int(TotalCounter::FailedBase))] += value;
    else if (counter >= int(TotalCounter::DeadLetteredBase) && counter < int(TotalCounter::DroppedBase))
        subscription.deadLetteredByReason[DeadLetterReason(counter - int(TotalCounter::DeadLetteredBase))]
            += value;
    else if (counter >= int(TotalCounter::DroppedBase) && counter < int(TotalCounter::DroppedBase) + 100)
        subscription.droppedByReason[DeadLetterReason(counter - int(TotalCounter::DroppedBase))] += value;
}

TopicTotals StoreTotals::topic(const QString &topic) const
{
    return m_topics.value(key(topic, QString()));
}

SubscriptionTotals StoreTotals::subscription(const QString &topic, const QString &subscription) const
{
    return m_subscriptions.value(key(topic, subscription));
}

TopicTotals StoreTotals::allTopics() const
{
    TopicTotals all;
    for (const TopicTotals &topic : m_topics) {
        all.published += topic.published;
        all.unmatched += topic.unmatched;
    }
    return all;
}

namespace {

void addTo(SubscriptionTotals &all, const SubscriptionTotals &subscription)
{
    all.matched += subscription.matched;
    all.delivered += subscription.delivered;
    all.requests += subscription.requests;
    all.latencySumMs += subscription.latencySumMs;
    all.latencyCount += subscription.latencyCount;
    addAll(all.failedByOutcome, subscription.failedByOutcome);
    addAll(all.deadLetteredByReason, subscription.deadLetteredByReason);
    addAll(all.droppedByReason, subscription.droppedByReason);
}

} // namespace

SubscriptionTotals StoreTotals::subscriptionsOf(const QString &topic) const
{
    const QString prefix = key(topic, QString());
    SubscriptionTotals all;
    for (auto it = m_subscriptions.cbegin(); it != m_subscriptions.cend(); ++it) {
        if (it.key().startsWith(prefix))
            addTo(all, it.value());
    }
    return all;
}

SubscriptionTotals StoreTotals::allSubscriptions() const
{
    SubscriptionTotals all;
    for (const SubscriptionTotals &subscription : m_subscriptions)
        addTo(all, subscription);
    return all;
}

} // namespace EventDesk
