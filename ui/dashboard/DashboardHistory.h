// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "engine/EngineSnapshot.h"

#include <QHash>
#include <QList>
#include <QMap>
#include <QString>

#include <cmath>
#include <limits>

namespace EventDesk::Ui {

// The dashboard's data: for every subscription, every topic and the whole engine, a bounded ring
// of samples computed from consecutive snapshots. Rates are counter differences divided by the
// real time between snapshots (the engine's clock may run faster with a time scale).
class DashboardHistory final
{
public:
    struct Sample
    {
        qint64 realTimeMs = 0; // when the snapshot arrived (monotonic, real time)
        qint64 intervalMs = 0; // real time since the previous snapshot: the rates below cover it
        double deliveredPerSecond = 0;
        double failedPerSecond = 0; // all outcomes
        double deadLetteredPerSecond = 0;
        double droppedPerSecond = 0;
        double backlog = 0;
        double inFlight = 0;
        // Average destination latency of the responses that arrived in this interval; NaN when none.
        double latencyMs = std::numeric_limits<double>::quiet_NaN();
        QMap<DeliveryOutcome, double> failedPerSecondByOutcome; // only outcomes with failures so far
    };

    // Running totals of the selection (the headline numbers).
    struct Totals
    {
        quint64 matched = 0;
        quint64 delivered = 0;
        quint64 failed = 0;
        quint64 deadLettered = 0;
        quint64 dropped = 0;
        qint64 backlog = 0;
        qint64 held = 0; // of the backlog: waiting for the endpoint to be validated
        qint64 inFlight = 0;
        double latencySumMs = 0;
        quint64 latencyCount = 0;
        int inProbation = 0;
        int subscriptions = 0;
    };

    static constexpr int DefaultCapacity = 600; // 2.5 min at 4 snapshots per second
    static constexpr qint64 DefaultBinMs = 1000;

    // The rates of samples merged into bins of binMs, counted back from the newest sample so the
    // newest bin is always complete. A bin's rates are the events in it divided by the real time
    // it covers: with ~4 snapshots per second a steady 5 events/s gives 0, 4 or 8 per snapshot,
    // but exactly 5 per bin. The bin's realTimeMs is its end; gauges (backlog, in flight) are
    // the newest sample's; latency is left out (NaN): it is not a rate and is drawn per sample.
    static QList<Sample> binned(const QList<Sample> &samples, qint64 binMs = DefaultBinMs);

    explicit DashboardHistory(int capacity = DefaultCapacity);

    void add(const EngineSnapshot &snapshot, qint64 realTimeMs);
    void clear();

    // Keys: all subscriptions (""), one topic ("topic/"), one subscription ("topic/subscription").
    static QString key(const QString &topic, const QString &subscription);
    QList<Sample> samples(const QString &key) const { return m_samples.value(key); }
    Totals totals(const QString &key) const { return m_totals.value(key); }
    QStringList subscriptionKeys() const; // in snapshot order
    int capacity() const { return m_capacity; }
    // Engine milliseconds per real millisecond over the last interval (1 without a time scale).
    double engineTimeScale() const { return m_engineTimeScale; }
    qint64 lastRealTimeMs() const { return m_lastRealTimeMs; }

private:
    struct Counters
    {
        quint64 delivered = 0;
        QHash<DeliveryOutcome, quint64> failedByOutcome;
        quint64 deadLettered = 0;
        quint64 dropped = 0;
        double latencySumMs = 0;
        quint64 latencyCount = 0;
    };
    struct Accumulator
    {
        Sample sample;
        double latencySum = 0;
        quint64 latencyCount = 0;
        Totals totals;
    };

    void append(const QString &key, const Sample &sample);

    int m_capacity;
    QHash<QString, QList<Sample>> m_samples;
    QHash<QString, Totals> m_totals;
    QHash<QString, Counters> m_previous;
    QStringList m_subscriptionKeys;
    qint64 m_lastRealTimeMs = -1;
    qint64 m_lastEngineTimeMs = 0;
    double m_engineTimeScale = 1.0;
};

} // namespace EventDesk::Ui
