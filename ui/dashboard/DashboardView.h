// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "DashboardHistory.h"
#include "engine/EngineSnapshot.h"
#include "store/StoreTotals.h"

#include <QElapsedTimer>
#include <QHash>
#include <QList>
#include <QPointF>
#include <QString>
#include <QWidget>

#include <optional>

class QChart;
class QChartView;
class QComboBox;
class QLabel;
class QLineSeries;
class QTimer;
class QValueAxis;

namespace EventDesk::Ui {

class SteadyLabel;

class ProbationTimeline;

// Live charts of the engine (Qt Charts), per subscription, per topic or in total: delivered,
// failed (one line per outcome), dead-lettered and dropped per second of real time (in one-second
// bins, so a steady rate draws a flat line), backlog and in flight, destination latency; headline
// totals above and the probation timeline below. Snapshots are stored in bounded rings as they
// arrive; the charts redraw at a fixed rate (4 per second, only while visible) with one
// QXYSeries::replace() per series.
class DashboardView final : public QWidget
{
    Q_OBJECT

public:
    explicit DashboardView(QWidget *parent = nullptr);
    ~DashboardView() override;

    // Called ~4/s with EngineHost::snapshotReady.
    void addSnapshot(const EventDesk::EngineSnapshot &snapshot);
    // Same, with the real (monotonic) time it arrived, for replays and tests.
    void addSnapshot(const EventDesk::EngineSnapshot &snapshot, qint64 realTimeMs);
    // Empty topic: all subscriptions; topic only: that topic's subscriptions; both: one subscription.
    void setSelection(const QString &topic, const QString &subscription);
    // The totals of the workspace's store (StoreTotals.h): the headline counts (delivered, failed,
    // dead-lettered, dropped, average latency) are these; none: not read yet.
    void setStoredTotals(const std::optional<EventDesk::StoreTotals> &totals);
    QString selectedTopic() const { return m_selectedTopic; }
    QString selectedSubscription() const { return m_selectedSubscription; }

    int pointCount() const; // for tests: points held per series (bounded)
    // The points a chart series currently shows (x: seconds before the latest snapshot), by its
    // legend name ("Delivered", "Busy", "Backlog", "Average latency", ...).
    QList<QPointF> chartPoints(const QString &seriesName) const;
    // A headline figure as displayed ("Delivered", "Backlog", ...).
    QString headline(const QString &name) const;
    ProbationTimeline *probationTimeline() const { return m_timeline; }
    const DashboardHistory &history() const { return m_history; }

public Q_SLOTS:
    void refresh(); // redraws the charts and headlines now
    // One step of the refresh timer: redraws the next chart behind the history, if any.
    void refreshNextChart();

protected:
    void changeEvent(QEvent *event) override;
    void showEvent(QShowEvent *event) override;

private:
    struct ChartBox
    {
        QChart *chart = nullptr;
        QChartView *view = nullptr;
        QValueAxis *xAxis = nullptr;
        QValueAxis *yAxis = nullptr;
    };

    // The four charts, refreshed one at a time (refreshCharts()).
    enum Chart : unsigned {
        ThroughputChart = 1,
        FailuresChart = 2,
        QueueChart = 4,
        LatencyChart = 8,
        AllCharts = 15,
    };
    static constexpr int ChartCount = 4;

    ChartBox createChart(const QString &title, const QString &yTitle);
    void refreshCharts(unsigned charts);
    QLineSeries *addSeries(ChartBox &box, const QString &name, const QColor &color,
                           Qt::PenStyle style = Qt::SolidLine);
    void rebuildSelectionCombo();
    void selectionComboChanged(int index);
    void applyPalette();
    void updateHeadlines();
    // The charts' accessible descriptions: their latest values in words.
    void describeCharts(const DashboardHistory::Sample *lastBin,
                        const DashboardHistory::Sample *lastSample,
                        const QList<DeliveryOutcome> &outcomes);
    QString selectionKey() const;

    DashboardHistory m_history;
    QElapsedTimer m_clock;
    QTimer *m_refreshTimer = nullptr;
    unsigned m_dirtyCharts = 0; // Chart flags: the charts behind the history
    int m_nextChart = 0; // the one refreshNextChart() looks at first

    QString m_selectedTopic;
    QString m_selectedSubscription;
    QComboBox *m_selectionCombo = nullptr;
    QLabel *m_rateNote = nullptr;
    QHash<QString, SteadyLabel *> m_headlineValues;
    std::optional<EventDesk::StoreTotals> m_storedTotals;

    ChartBox m_throughput;
    ChartBox m_failures;
    ChartBox m_queue;
    ChartBox m_latency;
    QLineSeries *m_delivered = nullptr;
    QLineSeries *m_deadLettered = nullptr;
    QLineSeries *m_dropped = nullptr;
    QLineSeries *m_failedTotal = nullptr;
    QHash<DeliveryOutcome, QLineSeries *> m_failedByOutcome;
    QLineSeries *m_backlog = nullptr;
    QLineSeries *m_inFlight = nullptr;
    QLineSeries *m_latencySeries = nullptr;
    QList<QLineSeries *> m_latencyGapSegments; // latency is drawn in pieces: no line across gaps
    QList<QLineSeries *> m_allSeries;

    ProbationTimeline *m_timeline = nullptr;
};

} // namespace EventDesk::Ui
