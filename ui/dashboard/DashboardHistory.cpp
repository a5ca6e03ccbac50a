// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "DashboardHistory.h"

#include <QSet>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {

quint64 sum(const QHash<DeadLetterReason, quint64> &values)
{
    quint64 total = 0;
    for (const quint64 value : values)
        total += value;
    return total;
}

// A counter that went down was reset (engine restarted, subscription recreated): count from zero.
double increase(quint64 now, quint64 before)
{
    return now >= before ? double(now - before) : double(now);
}

} // namespace

DashboardHistory::DashboardHistory(int capacity)
    : m_capacity(std::max(2, capacity))
{
}

QString DashboardHistory::key(const QString &topic, const QString &subscription)
{
    if (topic.isEmpty())
        return {};
    return topic + u'/' + subscription;
}

QStringList DashboardHistory::subscriptionKeys() const
{
    return m_subscriptionKeys;
}

void DashboardHistory::clear()
{
    m_samples.clear();
    m_totals.clear();
    m_previous.clear();
    m_subscriptionKeys.clear();
    m_lastRealTimeMs = -1;
    m_lastEngineTimeMs = 0;
    m_engineTimeScale = 1.0;
}

void DashboardHistory::append(const QString &key, const Sample &sample)
{
    QList<Sample> &ring = m_samples[key];
    ring.append(sample);
    if (ring.size() > m_capacity)
        ring.remove(0, ring.size() - m_capacity); // O(1) at the front of a Qt 6 QList
}

QList<DashboardHistory::Sample> DashboardHistory::binned(const QList<Sample> &samples, qint64 binMs)
{
    QList<Sample> bins;
    if (samples.isEmpty() || binMs <= 0)
        return bins;
    const qint64 newest = samples.last().realTimeMs;
    // Walk from the newest sample back; bin k holds the samples with realTimeMs in
    // (newest - (k + 1) * binMs, newest - k * binMs].
    qint64 binIndex = -1;
    Sample bin;
    qint64 coveredMs = 0;
    const auto finish = [&] {
        if (binIndex < 0 || coveredMs <= 0)
            return;
        const double weight = 1.0 / double(coveredMs);
        bin.deliveredPerSecond *= weight;
        bin.failedPerSecond *= weight;
        bin.deadLetteredPerSecond *= weight;
        bin.droppedPerSecond *= weight;
        for (double &rate : bin.failedPerSecondByOutcome)
            rate *= weight;
        bin.intervalMs = coveredMs;
        bins.prepend(bin);
    };
    for (auto it = samples.crbegin(); it != samples.crend(); ++it) {
        const qint64 index = (newest - it->realTimeMs) / binMs;
        if (index != binIndex) {
            finish();
            binIndex = index;
            bin = Sample();
            bin.realTimeMs = newest - index * binMs;
            bin.backlog = it->backlog;
            bin.inFlight = it->inFlight;
            coveredMs = 0;
        }
        // Rates times the interval they cover are event counts; sum counts, divide by time.
        const double span = double(it->intervalMs);
        coveredMs += it->intervalMs;
        bin.deliveredPerSecond += it->deliveredPerSecond * span;
        bin.failedPerSecond += it->failedPerSecond * span;
        bin.deadLetteredPerSecond += it->deadLetteredPerSecond * span;
        bin.droppedPerSecond += it->droppedPerSecond * span;
        for (auto rate = it->failedPerSecondByOutcome.cbegin();
             rate != it->failedPerSecondByOutcome.cend(); ++rate)
            bin.failedPerSecondByOutcome[rate.key()] += rate.value() * span;
    }
    finish();
    return bins;
}

void DashboardHistory::add(const EngineSnapshot &snapshot, qint64 realTimeMs)
{
    const bool first = m_lastRealTimeMs < 0;
    const qint64 elapsedMs = first ? 0 : std::max<qint64>(1, realTimeMs - m_lastRealTimeMs);
    const double perSecond = first ? 0.0 : 1000.0 / double(elapsedMs);
    if (!first && snapshot.nowMs > m_lastEngineTimeMs && m_lastEngineTimeMs > 0)
        m_engineTimeScale = double(snapshot.nowMs - m_lastEngineTimeMs) / double(elapsedMs);
    m_lastRealTimeMs = realTimeMs;
    m_lastEngineTimeMs = snapshot.nowMs;

    QHash<QString, Accumulator> aggregates; // "" and "topic/"
    aggregates[QString()].sample.realTimeMs = realTimeMs;
    aggregates[QString()].sample.intervalMs = elapsedMs;
    QHash<QString, Counters> current;
    QStringList keys;
    keys.reserve(snapshot.subscriptions.size());

    for (const SubscriptionSnapshot &subscription : snapshot.subscriptions) {
        const QString key = DashboardHistory::key(subscription.topic, subscription.subscription);
        keys.append(key);
        Counters now;
        now.delivered = subscription.delivered;
        now.failedByOutcome = subscription.failedByOutcome;
        now.deadLettered = sum(subscription.deadLetteredByReason);
        now.dropped = sum(subscription.droppedByReason);
        now.latencySumMs = subscription.latencySumMs;
        now.latencyCount = subscription.latencyCount;

        Sample sample;
        sample.realTimeMs = realTimeMs;
        sample.intervalMs = elapsedMs;
        sample.backlog = double(subscription.backlog);
        sample.inFlight = double(subscription.inFlight);
        double latencySum = 0;
        quint64 latencyCount = 0;
        const auto previous = m_previous.constFind(key);
        if (previous != m_previous.cend()) {
            sample.deliveredPerSecond = increase(now.delivered, previous->delivered) * perSecond;
            sample.deadLetteredPerSecond = increase(now.deadLettered, previous->deadLettered) * perSecond;
            sample.droppedPerSecond = increase(now.dropped, previous->dropped) * perSecond;
            for (auto it = now.failedByOutcome.cbegin(); it != now.failedByOutcome.cend(); ++it) {
                const double rate = increase(it.value(), previous->failedByOutcome.value(it.key())) * perSecond;
                sample.failedPerSecondByOutcome.insert(it.key(), rate);
                sample.failedPerSecond += rate;
            }
            if (now.latencyCount > previous->latencyCount) {
                latencyCount = now.latencyCount - previous->latencyCount;
                latencySum = std::max(0.0, now.latencySumMs - previous->latencySumMs);
                sample.latencyMs = latencySum / double(latencyCount);
            }
        } else {
            for (auto it = now.failedByOutcome.cbegin(); it != now.failedByOutcome.cend(); ++it)
                sample.failedPerSecondByOutcome.insert(it.key(), 0.0);
        }

        Totals totals;
        totals.subscriptions = 1;
        totals.matched = subscription.matched;
        totals.delivered = subscription.delivered;
        for (const quint64 value : subscription.failedByOutcome)
            totals.failed += value;
        totals.deadLettered = now.deadLettered;
        totals.dropped = now.dropped;
        totals.backlog = subscription.backlog;
        totals.held = subscription.held;
        totals.inFlight = subscription.inFlight;
        totals.latencySumMs = subscription.latencySumMs;
        totals.latencyCount = subscription.latencyCount;
        totals.inProbation = subscription.probationState != ProbationTracker::State::Healthy ? 1 : 0;
        m_totals.insert(key, totals);

        for (const QString &aggregateKey : {QString(), DashboardHistory::key(subscription.topic, QString())}) {
            Accumulator &aggregate = aggregates[aggregateKey];
            Sample &total = aggregate.sample;
            total.realTimeMs = realTimeMs;
            total.intervalMs = elapsedMs;
            total.deliveredPerSecond += sample.deliveredPerSecond;
            total.failedPerSecond += sample.failedPerSecond;
            total.deadLetteredPerSecond += sample.deadLetteredPerSecond;
            total.droppedPerSecond += sample.droppedPerSecond;
            total.backlog += sample.backlog;
            total.inFlight += sample.inFlight;
            for (auto it = sample.failedPerSecondByOutcome.cbegin(); it != sample.failedPerSecondByOutcome.cend(); ++it)
                total.failedPerSecondByOutcome[it.key()] += it.value();
            aggregate.latencySum += latencySum;
            aggregate.latencyCount += latencyCount;
            Totals &sums = aggregate.totals;
            sums.subscriptions += 1;
            sums.matched += totals.matched;
            sums.delivered += totals.delivered;
            sums.failed += totals.failed;
            sums.deadLettered += totals.deadLettered;
            sums.dropped += totals.dropped;
            sums.backlog += totals.backlog;
            sums.held += totals.held;
            sums.inFlight += totals.inFlight;
            sums.latencySumMs += totals.latencySumMs;
            sums.latencyCount += totals.latencyCount;
            sums.inProbation += totals.inProbation;
        }
        current.insert(key, now);
        if (!first)
            append(key, sample);
    }

    for (auto it = aggregates.begin(); it != aggregates.end(); ++it) {
        if (it->latencyCount > 0)
            it->sample.latencyMs = it->latencySum / double(it->latencyCount);
        m_totals.insert(it.key(), it->totals);
        if (!first)
            append(it.key(), it->sample);
    }

    // Forget subscriptions and topics that are gone, so the history stays bounded by the workspace.
    const QSet<QString> live(keys.cbegin(), keys.cend());
    for (auto it = m_samples.begin(); it != m_samples.end();) {
        if (!live.contains(it.key()) && !aggregates.contains(it.key())) {
            m_totals.remove(it.key());
            it = m_samples.erase(it);
        } else {
            ++it;
        }
    }
    for (auto it = m_totals.begin(); it != m_totals.end();) {
        if (!live.contains(it.key()) && !aggregates.contains(it.key()))
            it = m_totals.erase(it);
        else
            ++it;
    }
    m_previous = current;
    m_subscriptionKeys = keys;
}

} // namespace EventDesk::Ui
