// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "common/Appearance.h"
#include "dashboard/DashboardView.h"
#include "dashboard/ProbationTimeline.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QHelpEvent>
#include <QLabel>
#include <QLineSeries>
#include <QLocale>
#include <QRandomGenerator>
#include <QScrollArea>
#include <QScrollBar>
#include <QSet>
#include <QTest>
#include <QToolTip>
#include <QValueAxis>

#include <cmath>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using namespace EventDesk::Ui;

namespace {

SubscriptionSnapshot subscription(const QString &topic, const QString &name)
{
    SubscriptionSnapshot result;
    result.topic = topic;
    result.subscription = name;
    return result;
}

// Gives the view a baseline snapshot of orders/api (all counters 0) at 0 ms, then `after` (a
// snapshot of the same subscription) intervalMs later: the rates between them.
void addBaselineThen(DashboardView &view, const SubscriptionSnapshot &after, qint64 intervalMs)
{
    EngineSnapshot snapshot;
    snapshot.nowMs = 1'000'000;
    snapshot.subscriptions = {subscription(after.topic, after.subscription)};
    view.addSnapshot(snapshot, 0);
    snapshot.nowMs += intervalMs;
    snapshot.subscriptions = {after};
    view.addSnapshot(snapshot, intervalMs);
}

void saveShot(QWidget *widget, const QString &name)
{
    // Let pending layout requests (labels that grew, chart legends) settle before grabbing.
    QCoreApplication::sendPostedEvents();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    QDir().mkpath(u"/tmp/eventdesk-shots"_s);
    QVERIFY(widget->grab().save(u"/tmp/eventdesk-shots/"_s + name));
}

} // namespace

class TestDashboard final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void ratesFromCounterDifferences();
    void firstSnapshotIsOnlyABaseline();
    void counterResetIsNotANegativeRate();
    void pointCountStaysBounded();
    void steadyRateDrawsAFlatLine();
    void axisKeepsItsRangeWhileTheRateWobbles();
    void chartsAreRedrawnOneAtATime();
    void aSingleSampleIsDrawn();
    void axisLabelsAreDistinct();
    void chartsHaveAccessibleNamesAndValues();
    void chartsFollowADarkPalette();
    void selectionFiltersToOneSubscription();
    void selectionComboIsKeyboardDriven();
    void vanishedSubscriptionsAreForgotten();
    void probationPeriodRecorded();
    void probationCauseChangeStartsNewPeriod();
    void probationTimelineWindowAndTooltip();
    void probationTimelineScrollsManyRows();
    void screenshots();
};

void TestDashboard::ratesFromCounterDifferences()
{
    DashboardView view;
    EngineSnapshot snapshot;
    snapshot.nowMs = 1'000'000;
    SubscriptionSnapshot orders = subscription(u"orders"_s, u"api"_s);
    snapshot.subscriptions = {orders};
    view.addSnapshot(snapshot, 0);

    orders.delivered = 100;
    orders.failedByOutcome = {{DeliveryOutcome::Busy, 5}};
    orders.latencySumMs = 1000;
    orders.latencyCount = 20;
    orders.backlog = 42;
    orders.inFlight = 8;
    snapshot.nowMs += 250;
    snapshot.subscriptions = {orders};
    view.addSnapshot(snapshot, 250);

    orders.delivered = 250; // +150 in 250 ms: 600/s
    orders.failedByOutcome = {{DeliveryOutcome::Busy, 10}, {DeliveryOutcome::TimedOut, 1}};
    orders.deadLetteredByReason = {{DeadLetterReason::MaxDeliveryAttemptsExceeded, 2}};
    orders.droppedByReason = {{DeadLetterReason::TimeToLiveExceeded, 1}};
    orders.latencySumMs = 1000 + 30 * 50; // 30 responses averaging 50 ms
    orders.latencyCount = 50;
    orders.backlog = 17;
    snapshot.nowMs += 250;
    snapshot.subscriptions = {orders};
    view.addSnapshot(snapshot, 500);
    view.refresh();

    // Both intervals fall into the newest one-second bin: the rates are what happened in the
    // 500 ms the bin covers, per second.
    const QList<QPointF> delivered = view.chartPoints(u"Delivered"_s);
    QCOMPARE(delivered.size(), 1);
    QCOMPARE(delivered.last(), QPointF(0, 500)); // 250 in 0.5 s
    QCOMPARE(view.chartPoints(u"Busy"_s).last().y(), 20.0); // 10 in 0.5 s
    QCOMPARE(view.chartPoints(u"TimedOut"_s).last().y(), 2.0);
    QCOMPARE(view.chartPoints(u"Failed (all outcomes)"_s).last().y(), 22.0);
    QCOMPARE(view.chartPoints(u"Dead-lettered"_s).last().y(), 4.0);
    QCOMPARE(view.chartPoints(u"Dropped"_s).last().y(), 2.0);
    // Gauges and latency stay per snapshot.
    QCOMPARE(view.chartPoints(u"Backlog"_s).size(), 2);
    QCOMPARE(view.chartPoints(u"Backlog"_s).last().y(), 17.0);
    QCOMPARE(view.chartPoints(u"In flight"_s).last().y(), 8.0);
    QCOMPARE(view.chartPoints(u"Average latency"_s).last().y(), 50.0);
    // The counts are the store's: none yet, and then the store's, not the snapshots'.
    QCOMPARE(view.headline(u"Delivered"_s), u"–"_s);
    QCOMPARE(view.headline(u"Average latency"_s), u"–"_s);
    QCOMPARE(view.headline(u"Backlog"_s), QLocale().toString(17));
    view.setStoredTotals(StoreTotals::fromRows(
        {{u"orders"_s, u"api"_s, int(TotalCounter::Delivered), 12'345},
         {u"orders"_s, u"api"_s, int(TotalCounter::FailedBase) + int(DeliveryOutcome::Busy), 7},
         {u"orders"_s, u"api"_s, int(TotalCounter::LatencySumMs), 80},
         {u"orders"_s, u"api"_s, int(TotalCounter::LatencyCount), 4}}));
    QCOMPARE(view.headline(u"Delivered"_s), QLocale().toString(12'345));
    QCOMPARE(view.headline(u"Failed"_s), QLocale().toString(7));
    QCOMPARE(view.headline(u"Average latency"_s), u"20 ms"_s);
    QCOMPARE(view.headline(u"Backlog"_s), QLocale().toString(17)); // the engine's, now
}

void TestDashboard::chartsAreRedrawnOneAtATime()
{
    DashboardView view;
    view.resize(1000, 700);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    // No event loop from here on: only the calls below redraw.
    SubscriptionSnapshot orders = subscription(u"orders"_s, u"api"_s);
    orders.delivered = 100;
    orders.failedByOutcome = {{DeliveryOutcome::Busy, 5}};
    orders.latencySumMs = 100;
    orders.latencyCount = 10;
    orders.backlog = 42;
    addBaselineThen(view, orders, 250);

    const auto drawn = [&view] {
        QStringList charts;
        for (const QString &series : {u"Delivered"_s, u"Failed (all outcomes)"_s, u"Backlog"_s,
                                      u"Average latency"_s}) {
            if (!view.chartPoints(series).isEmpty())
                charts.append(series);
        }
        return charts;
    };
    QCOMPARE(drawn(), QStringList());
    view.refreshNextChart();
    QCOMPARE(drawn(), QStringList {u"Delivered"_s});
    view.refreshNextChart();
    QCOMPARE(drawn().size(), 2);
    view.refreshNextChart();
    view.refreshNextChart();
    QCOMPARE(drawn().size(), 4);
}

void TestDashboard::aSingleSampleIsDrawn()
{
    // Two deliveries answered in 6 ms on average: one latency sample, and nothing else yet.
    DashboardView view;
    view.resize(1200, 800);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    SubscriptionSnapshot orders = subscription(u"orders"_s, u"api"_s);
    orders.delivered = 2;
    orders.latencySumMs = 12;
    orders.latencyCount = 2;
    addBaselineThen(view, orders, 250);
    view.refresh();
    QCOMPARE(view.chartPoints(u"Average latency"_s).size(), 1);

    QChartView *latencyView = nullptr;
    QLineSeries *latency = nullptr;
    for (QChartView *chartView : view.findChildren<QChartView *>()) {
        for (QAbstractSeries *series : chartView->chart()->series()) {
            if (series->name() == u"Average latency"_s && !static_cast<QLineSeries *>(series)->points().isEmpty()) {
                latencyView = chartView;
                latency = static_cast<QLineSeries *>(series);
            }
        }
    }
    QVERIFY(latencyView && latency);
    QCoreApplication::sendPostedEvents();
    const QImage image = latencyView->grab().toImage();
    // The plot area only: the legend shows the series' colour too.
    const QRectF plot = latencyView->chart()->plotArea();
    const QRect inView = latencyView->mapFromScene(latencyView->chart()->mapToScene(plot))
                             .boundingRect()
                             .adjusted(1, 1, -1, -1);
    const QColor colour = latency->pen().color();
    int inked = 0;
    for (int y = inView.top(); y <= inView.bottom(); ++y) {
        for (int x = inView.left(); x <= inView.right(); ++x) {
            const QColor pixel = image.pixelColor(x, y);
            if (std::abs(pixel.red() - colour.red()) < 40 && std::abs(pixel.green() - colour.green()) < 40
                && std::abs(pixel.blue() - colour.blue()) < 40)
                ++inked;
        }
    }
    QVERIFY2(inked >= 12, qPrintable(u"%1 pixels of the series' colour in the plot"_s.arg(inked)));
}

void TestDashboard::axisLabelsAreDistinct()
{
    // Every value axis's labels as QtCharts prints them (its printf-style format at each tick):
    // no two alike, empty or with data.
    DashboardView view;
    const auto labels = [&view] {
        QList<QStringList> all;
        for (QChartView *chartView : view.findChildren<QChartView *>()) {
            for (QAbstractAxis *axis : chartView->chart()->axes(Qt::Vertical)) {
                const auto *values = qobject_cast<QValueAxis *>(axis);
                QStringList texts;
                for (int i = 0; i < values->tickCount(); ++i) {
                    const double value = values->min()
                        + (values->max() - values->min()) * i / (values->tickCount() - 1);
                    texts.append(QString::asprintf(values->labelFormat().toLatin1().constData(), value));
                }
                all.append(texts);
            }
        }
        return all;
    };
    const auto check = [&labels] {
        const QList<QStringList> all = labels();
        QCOMPARE(all.size(), 4);
        for (const QStringList &texts : all) {
            QVERIFY2(QSet<QString>(texts.cbegin(), texts.cend()).size() == texts.size(),
                     qPrintable(texts.join(u", "_s)));
        }
    };
    check();
    SubscriptionSnapshot orders = subscription(u"orders"_s, u"api"_s);
    orders.delivered = 3;
    orders.backlog = 2;
    orders.latencySumMs = 7;
    orders.latencyCount = 2;
    addBaselineThen(view, orders, 1000);
    view.refresh();
    check();
}

void TestDashboard::firstSnapshotIsOnlyABaseline()
{
    DashboardView view;
    EngineSnapshot snapshot;
    SubscriptionSnapshot orders = subscription(u"orders"_s, u"api"_s);
    orders.delivered = 1'000'000; // history from before the dashboard opened is not a rate
    snapshot.subscriptions = {orders};
    view.addSnapshot(snapshot, 0);
    view.refresh();
    QCOMPARE(view.pointCount(), 0);
    QVERIFY(view.chartPoints(u"Delivered"_s).isEmpty());
    // Nor a total: the totals are the store's.
    QCOMPARE(view.headline(u"Delivered"_s), u"–"_s);
}

void TestDashboard::counterResetIsNotANegativeRate()
{
    DashboardView view;
    EngineSnapshot snapshot;
    SubscriptionSnapshot orders = subscription(u"orders"_s, u"api"_s);
    orders.delivered = 500;
    snapshot.subscriptions = {orders};
    view.addSnapshot(snapshot, 0);
    orders.delivered = 10; // engine restarted
    snapshot.subscriptions = {orders};
    view.addSnapshot(snapshot, 1000);
    view.refresh();
    QCOMPARE(view.chartPoints(u"Delivered"_s).last().y(), 10.0);
}

void TestDashboard::pointCountStaysBounded()
{
    DashboardView view;
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    EngineSnapshot snapshot;
    SubscriptionSnapshot a = subscription(u"orders"_s, u"a"_s);
    SubscriptionSnapshot b = subscription(u"orders"_s, u"b"_s);
    for (int i = 0; i < 5000; ++i) {
        a.delivered += 25;
        b.failedByOutcome[DeliveryOutcome::Busy] += 1;
        snapshot.nowMs = 1'000'000 + i * 250LL;
        snapshot.subscriptions = {a, b};
        view.addSnapshot(snapshot, i * 250LL);
        if (i % 500 == 0)
            view.refresh();
    }
    view.refresh();
    QCOMPARE(view.pointCount(), DashboardHistory::DefaultCapacity);
    // 600 samples of 250 ms are 150 one-second bins of rates; gauges keep every sample.
    QCOMPARE(view.chartPoints(u"Delivered"_s).size(), DashboardHistory::DefaultCapacity / 4);
    QCOMPARE(view.chartPoints(u"Busy"_s).size(), DashboardHistory::DefaultCapacity / 4);
    QCOMPARE(view.chartPoints(u"Backlog"_s).size(), DashboardHistory::DefaultCapacity);
    QCOMPARE(view.chartPoints(u"Delivered"_s).last().y(), 100.0);
    QCOMPARE(view.chartPoints(u"Busy"_s).last().y(), 4.0);
    view.setSelection(u"orders"_s, u"a"_s);
    QCOMPARE(view.pointCount(), DashboardHistory::DefaultCapacity);
    // The oldest sample is 599 intervals of 250 ms before the newest; its bin ends 149 s before.
    QCOMPARE(view.chartPoints(u"Backlog"_s).first().x(), -149.75);
    QCOMPARE(view.chartPoints(u"Delivered"_s).first().x(), -149.0);
    QCOMPARE(view.chartPoints(u"Delivered"_s).first().y(), 100.0);
}

void TestDashboard::steadyRateDrawsAFlatLine()
{
    // The engine's snapshot stream at 4 per second while a destination accepts one event every
    // 200 ms (5/s) and answers every 10th with 503: per snapshot the counters grow by 1 or 2.
    DashboardView view;
    EngineSnapshot snapshot;
    SubscriptionSnapshot orders = subscription(u"orders"_s, u"api"_s);
    for (qint64 t = 0; t <= 30'000; t += 250) {
        orders.delivered = quint64(t / 200);
        orders.failedByOutcome = {{DeliveryOutcome::Busy, quint64(t / 2000)}};
        snapshot.nowMs = 1'000'000 + t;
        snapshot.subscriptions = {orders};
        view.addSnapshot(snapshot, t);
    }
    view.refresh();

    // Per snapshot the rate alternates between 4/s and 8/s (the spikes the chart used to draw).
    const QList<DashboardHistory::Sample> samples
        = view.history().samples(DashboardHistory::key(u"orders"_s, u"api"_s));
    QCOMPARE(samples.size(), 120);
    double lowest = 1e9, highest = 0;
    for (const DashboardHistory::Sample &sample : samples) {
        lowest = std::min(lowest, sample.deliveredPerSecond);
        highest = std::max(highest, sample.deliveredPerSecond);
    }
    QCOMPARE(lowest, 4.0);
    QCOMPARE(highest, 8.0);

    // Binned per second, every point of the chart is 5/s.
    const QList<QPointF> delivered = view.chartPoints(u"Delivered"_s);
    QCOMPARE(delivered.size(), 30);
    for (const QPointF &point : delivered)
        QCOMPARE(point.y(), 5.0);
    QCOMPARE(delivered.last().x(), 0.0);
    QCOMPARE(delivered.first().x(), -29.0);
    // One 503 every 2 s: 0.5 failed attempts per second, averaged over each second's bin.
    double failedSum = 0;
    for (const QPointF &point : view.chartPoints(u"Busy"_s))
        failedSum += point.y();
    QCOMPARE(failedSum, 15.0);
}

// Changing an axis lays its chart out again, a cost paid on the GUI thread: the throughput axis
// rises with the rate, keeps its range while the rate wobbles below it, and comes down only when
// the rate falls well below it.
void TestDashboard::axisKeepsItsRangeWhileTheRateWobbles()
{
    DashboardView view;
    QValueAxis *throughputAxis = nullptr;
    for (QChartView *chartView : view.findChildren<QChartView *>()) {
        if (chartView->chart()->title() == u"Throughput"_s)
            throughputAxis = qobject_cast<QValueAxis *>(chartView->chart()->axes(Qt::Vertical).value(0));
    }
    QVERIFY(throughputAxis);
    EngineSnapshot snapshot;
    SubscriptionSnapshot orders = subscription(u"orders"_s, u"api"_s);
    quint64 delivered = 0;
    qint64 t = 0;
    const auto runAt = [&](quint64 perSecond, int seconds) {
        for (int i = 0; i < 4 * seconds; ++i) {
            delivered += perSecond / 4;
            orders.delivered = delivered;
            snapshot.nowMs = 1'000'000 + t;
            snapshot.subscriptions = {orders};
            view.addSnapshot(snapshot, t);
            t += 250;
        }
        view.refresh();
    };

    runAt(1000, 5);
    const double top = throughputAxis->max();
    QVERIFY2(top >= 1000, qPrintable(QString::number(top)));
    // Round labels: every tick a number with one significant digit (0, 1000, 2000, ... not 0,
    // 1250, 2500).
    const auto tickStep = [&] {
        const double step = throughputAxis->max() / (throughputAxis->tickCount() - 1);
        const double magnitude = std::pow(10.0, std::floor(std::log10(step)));
        return std::fmod(step, magnitude);
    };
    QCOMPARE(tickStep(), 0.0);
    runAt(600, 200); // lower, for longer than the chart's window: the same axis
    QCOMPARE(throughputAxis->max(), top);
    runAt(1000, 5);
    QCOMPARE(throughputAxis->max(), top);
    runAt(4000, 5); // outgrows it
    QVERIFY2(throughputAxis->max() >= 4000, qPrintable(QString::number(throughputAxis->max())));
    QCOMPARE(tickStep(), 0.0);
    runAt(0, 200); // nothing for longer than the chart's window: back down
    QVERIFY2(throughputAxis->max() < top, qPrintable(QString::number(throughputAxis->max())));
}

void TestDashboard::chartsHaveAccessibleNamesAndValues()
{
    DashboardView view;
    EngineSnapshot snapshot;
    SubscriptionSnapshot orders = subscription(u"orders"_s, u"api"_s);
    SubscriptionSnapshot billing = subscription(u"orders"_s, u"billing"_s);
    for (qint64 t = 0; t <= 2000; t += 250) {
        orders.delivered = quint64(t / 200);
        orders.backlog = 12;
        billing.failedByOutcome = {{DeliveryOutcome::Busy, quint64(t / 500)}};
        billing.probationState
            = t >= 1000 ? ProbationTracker::State::InProbation : ProbationTracker::State::Healthy;
        billing.probationCause = DeliveryOutcome::Busy;
        snapshot.nowMs = 1'000'000 + t;
        snapshot.subscriptions = {orders, billing};
        view.addSnapshot(snapshot, t);
    }
    view.refresh();

    QHash<QString, QString> descriptions;
    for (const QChartView *chart : view.findChildren<QChartView *>())
        descriptions.insert(chart->accessibleName(), chart->accessibleDescription());
    QCOMPARE(descriptions.size(), 4);
    const QString throughput = descriptions.value(u"Throughput"_s);
    QVERIFY2(throughput.contains(u"delivered 5.0 per second"_s), qPrintable(throughput));
    const QString failures = descriptions.value(u"Failed attempts by outcome"_s);
    QVERIFY2(failures.contains(u"Busy 2.0 per second"_s), qPrintable(failures));
    const QString queue = descriptions.value(u"Backlog and in flight"_s);
    QVERIFY2(queue.contains(u"Backlog 12"_s), qPrintable(queue));
    QVERIFY(descriptions.contains(u"Destination latency"_s));

    // The probation timeline says in words what its colours and shapes show.
    const QString timeline = view.probationTimeline()->accessibleSummary();
    QVERIFY2(timeline.contains(u"orders / api: healthy"_s), qPrintable(timeline));
    QVERIFY2(timeline.contains(u"orders / billing: in probation (Busy)"_s), qPrintable(timeline));
}

void TestDashboard::chartsFollowADarkPalette()
{
    DashboardView view;
    const auto chart = [&view] {
        for (QChartView *candidate : view.findChildren<QChartView *>())
            if (candidate->accessibleName() == u"Throughput"_s)
                return candidate->chart();
        return static_cast<QChart *>(nullptr);
    };
    QVERIFY(chart());
    const auto seriesColour = [&](const QString &name) {
        for (QAbstractSeries *series : chart()->series())
            if (series->name() == name)
                return static_cast<QLineSeries *>(series)->pen().color();
        return QColor();
    };
    const QColor lightBackground = chart()->backgroundBrush().color();
    const QColor lightDeadLettered = seriesColour(u"Dead-lettered"_s);
    QVERIFY(lightDeadLettered.isValid());
    QVERIFY(!isDark(view.palette()));

    view.setPalette(darkPalette());
    const QColor base = darkPalette().color(QPalette::Base);
    QCOMPARE(chart()->backgroundBrush().color(), base);
    QVERIFY(chart()->backgroundBrush().color() != lightBackground);
    QCOMPARE(chart()->titleBrush().color(), darkPalette().color(QPalette::Text));
    // The red of dead letters is too dark on a dark base: it is lightened until it reads.
    QVERIFY(seriesColour(u"Dead-lettered"_s) != lightDeadLettered);
    for (const QString &name : {u"Delivered"_s, u"Dead-lettered"_s, u"Dropped"_s})
        QVERIFY2(contrastRatio(seriesColour(name), base) >= 4.5,
                 qPrintable(name + u' ' + seriesColour(name).name()));
}

void TestDashboard::selectionFiltersToOneSubscription()
{
    DashboardView view;
    EngineSnapshot snapshot;
    SubscriptionSnapshot a = subscription(u"orders"_s, u"a"_s);
    SubscriptionSnapshot b = subscription(u"orders"_s, u"b"_s);
    SubscriptionSnapshot c = subscription(u"billing"_s, u"c"_s);
    for (int i = 0; i < 3; ++i) {
        snapshot.subscriptions = {a, b, c};
        view.addSnapshot(snapshot, i * 1000LL);
        a.delivered += 10;
        b.delivered += 20;
        c.delivered += 40;
        b.backlog = 7;
        c.probationState = ProbationTracker::State::InProbation;
        c.backlog = 4;
        c.held = 4; // c's endpoint is not validated yet
    }
    view.refresh();
    QCOMPARE(view.chartPoints(u"Delivered"_s).last().y(), 70.0);
    QCOMPARE(view.headline(u"In probation"_s), u"1 of 3"_s);
    QCOMPARE(view.headline(u"Held"_s), QLocale().toString(4));

    // The store's totals of the selection: one subscription, a topic's, all (a deleted
    // subscription's included).
    view.setStoredTotals(StoreTotals::fromRows({{u"orders"_s, u"a"_s, int(TotalCounter::Delivered), 100},
                                                {u"orders"_s, u"b"_s, int(TotalCounter::Delivered), 200},
                                                {u"billing"_s, u"c"_s, int(TotalCounter::Delivered), 400},
                                                {u"billing"_s, u"gone"_s, int(TotalCounter::Delivered), 800}}));
    QCOMPARE(view.headline(u"Delivered"_s), QLocale().toString(1500));

    view.setSelection(u"orders"_s, u"b"_s);
    QCOMPARE(view.chartPoints(u"Delivered"_s).last().y(), 20.0);
    QCOMPARE(view.chartPoints(u"Backlog"_s).last().y(), 7.0);
    QCOMPARE(view.headline(u"Delivered"_s), QLocale().toString(200));
    QCOMPARE(view.headline(u"In probation"_s), u"No"_s);
    QCOMPARE(view.headline(u"Held"_s), QLocale().toString(0));
    QCOMPARE(view.probationTimeline()->rows().size(), 3);

    view.setSelection(u"orders"_s, QString());
    QCOMPARE(view.chartPoints(u"Delivered"_s).last().y(), 30.0);
    QCOMPARE(view.headline(u"Delivered"_s), QLocale().toString(300));

    view.setSelection(u"billing"_s, u"c"_s);
    QCOMPARE(view.headline(u"In probation"_s), u"Yes"_s);

    view.setSelection(QString(), QString());
    QCOMPARE(view.chartPoints(u"Delivered"_s).last().y(), 70.0);
}

void TestDashboard::selectionComboIsKeyboardDriven()
{
    DashboardView view;
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    EngineSnapshot snapshot;
    SubscriptionSnapshot a = subscription(u"orders"_s, u"a"_s);
    for (int i = 0; i < 2; ++i) {
        snapshot.subscriptions = {a};
        view.addSnapshot(snapshot, i * 500LL);
        a.delivered += 5;
    }
    auto *combo = view.findChild<QComboBox *>();
    QVERIFY(combo);
    QCOMPARE(combo->count(), 3); // all, topic orders, orders / a
    combo->setFocus();
    QTest::keyClick(combo, Qt::Key_Down);
    QCOMPARE(view.selectedTopic(), u"orders"_s);
    QVERIFY(view.selectedSubscription().isEmpty());
    QTest::keyClick(combo, Qt::Key_Down);
    QCOMPARE(view.selectedSubscription(), u"a"_s);
    QCOMPARE(view.chartPoints(u"Delivered"_s).last().y(), 10.0);

    // A selection made before the subscription's first snapshot is kept.
    view.setSelection(u"later"_s, u"x"_s);
    QCOMPARE(combo->currentText(), u"later / x"_s);
    QCOMPARE(view.pointCount(), 0);
}

void TestDashboard::vanishedSubscriptionsAreForgotten()
{
    DashboardView view;
    EngineSnapshot snapshot;
    snapshot.subscriptions = {subscription(u"orders"_s, u"a"_s), subscription(u"orders"_s, u"b"_s)};
    view.addSnapshot(snapshot, 0);
    view.addSnapshot(snapshot, 250);
    QCOMPARE(view.history().samples(u"orders/b"_s).size(), 1);
    snapshot.subscriptions = {subscription(u"orders"_s, u"a"_s)};
    view.addSnapshot(snapshot, 500);
    QVERIFY(view.history().samples(u"orders/b"_s).isEmpty());
    QCOMPARE(view.history().samples(u"orders/a"_s).size(), 2);
    QCOMPARE(view.probationTimeline()->rows().size(), 1);
}

void TestDashboard::probationPeriodRecorded()
{
    ProbationTimeline timeline;
    const qint64 base = QDateTime::currentMSecsSinceEpoch();
    EngineSnapshot snapshot;
    SubscriptionSnapshot hook = subscription(u"orders"_s, u"hook"_s);
    const auto feed = [&](qint64 offsetMs, ProbationTracker::State state, qint64 untilOffsetMs = 0) {
        snapshot.nowMs = base + offsetMs;
        hook.probationState = state;
        if (state != ProbationTracker::State::Healthy) {
            hook.probationCause = DeliveryOutcome::Busy;
            hook.probationUntilMs = base + untilOffsetMs;
        }
        snapshot.subscriptions = {hook};
        timeline.addSnapshot(snapshot);
    };
    feed(0, ProbationTracker::State::Healthy);
    feed(5'000, ProbationTracker::State::Healthy);
    QVERIFY(timeline.periods(u"orders"_s, u"hook"_s).isEmpty());
    feed(10'000, ProbationTracker::State::InProbation, 20'000);
    QCOMPARE(timeline.periods(u"orders"_s, u"hook"_s).size(), 1);
    QVERIFY(timeline.periods(u"orders"_s, u"hook"_s).first().isOngoing());
    feed(20'000, ProbationTracker::State::HalfOpen, 20'000);
    feed(20'500, ProbationTracker::State::InProbation, 40'500); // probe failed: twice as long
    feed(40'500, ProbationTracker::State::HalfOpen, 40'500);
    feed(41'000, ProbationTracker::State::Healthy);
    feed(45'000, ProbationTracker::State::Healthy);

    const QList<ProbationTimeline::Period> periods = timeline.periods(u"orders"_s, u"hook"_s);
    QCOMPARE(periods.size(), 1);
    QCOMPARE(periods.first().cause, DeliveryOutcome::Busy);
    QCOMPARE(periods.first().startMs, base + 10'000);
    QCOMPARE(periods.first().endMs, base + 41'000);
    QCOMPARE(periods.first().entries, 2);
    QCOMPARE(periods.first().untilMs, base + 40'500);
    QCOMPARE(timeline.rows().first().state, ProbationTracker::State::Healthy);
}

void TestDashboard::probationCauseChangeStartsNewPeriod()
{
    ProbationTimeline timeline;
    EngineSnapshot snapshot;
    SubscriptionSnapshot hook = subscription(u"orders"_s, u"hook"_s);
    snapshot.nowMs = 1'000;
    snapshot.subscriptions = {hook};
    timeline.addSnapshot(snapshot);
    hook.probationState = ProbationTracker::State::InProbation;
    hook.probationCause = DeliveryOutcome::TimedOut;
    snapshot.nowMs = 2'000;
    snapshot.subscriptions = {hook};
    timeline.addSnapshot(snapshot);
    hook.probationCause = DeliveryOutcome::NotFound;
    snapshot.nowMs = 12'000;
    snapshot.subscriptions = {hook};
    timeline.addSnapshot(snapshot);
    const QList<ProbationTimeline::Period> periods = timeline.periods(u"orders"_s, u"hook"_s);
    QCOMPARE(periods.size(), 2);
    QCOMPARE(periods.at(0).cause, DeliveryOutcome::TimedOut);
    QCOMPARE(periods.at(0).endMs, 12'000);
    QCOMPARE(periods.at(1).cause, DeliveryOutcome::NotFound);
    QVERIFY(periods.at(1).isOngoing());
}

void TestDashboard::probationTimelineWindowAndTooltip()
{
    ProbationTimeline timeline;
    timeline.resize(700, 160);
    timeline.show();
    QVERIFY(QTest::qWaitForWindowExposed(&timeline));
    const qint64 base = QDateTime::currentMSecsSinceEpoch();
    EngineSnapshot snapshot;
    SubscriptionSnapshot hook = subscription(u"orders"_s, u"hook"_s);
    snapshot.nowMs = base - 120'000;
    snapshot.subscriptions = {hook};
    timeline.addSnapshot(snapshot);
    hook.probationState = ProbationTracker::State::InProbation;
    hook.probationCause = DeliveryOutcome::Busy;
    snapshot.nowMs = base - 100'000;
    snapshot.subscriptions = {hook};
    timeline.addSnapshot(snapshot);
    hook.probationState = ProbationTracker::State::Healthy;
    snapshot.nowMs = base;
    snapshot.subscriptions = {hook};
    timeline.addSnapshot(snapshot);

    auto *combo = timeline.findChild<QComboBox *>();
    QVERIFY(combo);
    QCOMPARE(timeline.windowMs(), 5LL * 60 * 1000);
    combo->setFocus();
    QTest::keyClick(combo, Qt::Key_Down);
    QCOMPARE(timeline.window(), ProbationTimeline::Window::OneHour);
    QCOMPARE(timeline.windowMs(), 60LL * 60 * 1000);
    timeline.setWindow(ProbationTimeline::Window::FiveMinutes);
    QCOMPARE(combo->currentIndex(), 0);

    // Hovering the bar (100..120 s ago in a 5 min window that ends at the plot's right edge) shows
    // its cause in a tooltip.
    // The rows scroll: the canvas is the scroll area's widget.
    auto *scroll = timeline.findChild<QScrollArea *>();
    QVERIFY(scroll);
    QWidget *canvas = scroll->widget();
    QVERIFY(canvas);
    // Find the bar by scanning the row for the tooltip rather than assuming the name column width.
    const int y = canvas->fontMetrics().height() / 2 + 8;
    QString tip;
    for (int x = canvas->width() - 1; x > 0 && !tip.contains(u"Busy"_s); x -= 2) {
        QHelpEvent help(QEvent::ToolTip, QPoint(x, y), canvas->mapToGlobal(QPoint(x, y)));
        QApplication::sendEvent(canvas, &help);
        tip = QToolTip::text();
    }
    QVERIFY2(tip.contains(u"Cause: Busy"_s), qPrintable(tip));
    QVERIFY(tip.contains(u"orders / hook"_s));
    QVERIFY(tip.contains(u"End: "_s));
}

void TestDashboard::probationTimelineScrollsManyRows()
{
    // A hundred subscriptions in a timeline six rows high: every row can be scrolled to.
    // The rows arrive while the timeline is on screen, as in the app.
    ProbationTimeline timeline;
    timeline.resize(700, 10); // as small as the dashboard's splitter allows
    timeline.show();
    QVERIFY(QTest::qWaitForWindowExposed(&timeline));
    EngineSnapshot snapshot;
    snapshot.nowMs = 1'000'000; // engine time: the rows do not depend on it
    for (int i = 0; i < 100; ++i)
        snapshot.subscriptions.append(subscription(u"orders"_s, u"sub-%1"_s.arg(i, 3, 10, QChar(u'0'))));
    timeline.addSnapshot(snapshot);
    QCoreApplication::sendPostedEvents();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    auto *scroll = timeline.findChild<QScrollArea *>();
    QVERIFY(scroll);
    QWidget *canvas = scroll->widget();
    const int rowHeight = canvas->fontMetrics().height() + 10;
    // At least six rows in view, the rest behind a scroll bar.
    QVERIFY2(scroll->viewport()->height() >= 6 * rowHeight, qPrintable(QString::number(scroll->viewport()->height())));
    QVERIFY(scroll->verticalScrollBar()->isVisible());
    QVERIFY(canvas->height() >= 100 * rowHeight);
    // The last row is reachable: scrolled to the end, a tooltip there names it.
    scroll->verticalScrollBar()->setValue(scroll->verticalScrollBar()->maximum());
    const int lastRowY = canvas->height() - (canvas->fontMetrics().height() + 8) - 4 - rowHeight / 2;
    QVERIFY(scroll->viewport()->rect().contains(canvas->mapTo(scroll->viewport(), QPoint(10, lastRowY))));
}

void TestDashboard::screenshots()
{
    // About two minutes at 4 snapshots per second for three subscriptions: a steady API, a billing
    // webhook that goes Busy and spends time in probation, and a slow audit log that times out now
    // and then and dead-letters a few events.
    DashboardView view;
    view.resize(1200, 860);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QRandomGenerator random(42);
    const qint64 base = QDateTime::currentMSecsSinceEpoch() - 125'000;
    SubscriptionSnapshot api = subscription(u"orders"_s, u"orders-api"_s);
    SubscriptionSnapshot billing = subscription(u"orders"_s, u"billing-hook"_s);
    SubscriptionSnapshot audit = subscription(u"audit"_s, u"audit-log"_s);
    for (int i = 0; i <= 500; ++i) {
        const double t = i * 0.25;
        const auto noise = [&random](double amplitude) { return (random.generateDouble() - 0.5) * 2 * amplitude; };
        // orders-api: ~180 events/s with a burst around 80 s, ~35 ms.
        const int apiCount = int(std::max(0.0, 45 + 10 * std::sin(t / 9) + (t > 75 && t < 90 ? 40 : 0) + noise(6)));
        api.matched += apiCount;
        api.delivered += apiCount;
        api.requests += apiCount;
        api.latencySumMs += apiCount * (35 + noise(8));
        api.latencyCount += apiCount;
        api.backlog = std::max(0, int(4 + noise(4) + (t > 75 && t < 90 ? 60 : 0)));
        api.inFlight = int(6 + noise(2));

        // billing-hook: answers 503 from 30 s; probation 34..52 s, the probe fails, probation again
        // for twice as long (52.5..88.5 s), the next probe succeeds and the backlog drains.
        const int billingIncoming = int(std::max(0.0, 20 + noise(4)));
        billing.matched += billingIncoming;
        const bool halfOpen = (t >= 52 && t < 52.5) || (t >= 88.5 && t < 89);
        const bool inProbation = (t >= 34 && t < 52) || (t >= 52.5 && t < 88.5);
        if (inProbation || halfOpen) {
            billing.backlog += billingIncoming;
            billing.inFlight = halfOpen ? 1 : 0;
            billing.probationState = halfOpen ? ProbationTracker::State::HalfOpen : ProbationTracker::State::InProbation;
            billing.probationCause = DeliveryOutcome::Busy;
            billing.probationUntilMs = base + qint64((t < 52.5 ? 52 : 88.5) * 1000);
            if (t >= 52 && t < 52.25)
                billing.failedByOutcome[DeliveryOutcome::Busy] += 1;
        } else if (t >= 30 && t < 34) {
            billing.failedByOutcome[DeliveryOutcome::Busy] += billingIncoming;
            billing.requests += billingIncoming;
            billing.backlog += billingIncoming;
            billing.latencySumMs += billingIncoming * (5 + noise(2));
            billing.latencyCount += billingIncoming;
            billing.inFlight = 3;
            billing.probationState = ProbationTracker::State::Healthy;
        } else {
            const int drained = int(std::min<qint64>(billing.backlog, 60));
            billing.backlog -= drained;
            const int sent = billingIncoming + drained;
            billing.delivered += sent;
            billing.requests += sent;
            billing.latencySumMs += sent * (120 + noise(30));
            billing.latencyCount += sent;
            billing.inFlight = int(4 + noise(2));
            billing.probationState = ProbationTracker::State::Healthy;
        }

        // audit-log: ~8 events/s, slow (~900 ms), a TimedOut now and then, dead-letters after 100 s.
        const int auditCount = int(std::max(0.0, 2 + noise(1.5)));
        audit.matched += auditCount;
        audit.delivered += auditCount;
        audit.latencySumMs += auditCount * (900 + noise(250));
        audit.latencyCount += auditCount;
        if (random.bounded(8) == 0)
            audit.failedByOutcome[DeliveryOutcome::TimedOut] += 1;
        if (t > 100 && random.bounded(5) == 0)
            audit.deadLetteredByReason[DeadLetterReason::MaxDeliveryAttemptsExceeded] += 1;
        if (t > 60 && random.bounded(40) == 0)
            audit.failedByOutcome[DeliveryOutcome::NotFound] += 1;
        audit.backlog = int(3 + noise(3));
        audit.inFlight = 2;

        EngineSnapshot snapshot;
        snapshot.nowMs = base + qint64(t * 1000);
        snapshot.subscriptions = {api, billing, audit};
        view.addSnapshot(snapshot, qint64(t * 1000));
    }
    view.refresh();
    QVERIFY(view.pointCount() > 400);
    const QList<ProbationTimeline::Period> periods = view.probationTimeline()->periods(u"orders"_s, u"billing-hook"_s);
    QCOMPARE(periods.size(), 1);
    QCOMPARE(periods.first().entries, 2);
    saveShot(&view, u"dashboard-all.png"_s);
    view.setSelection(u"orders"_s, u"billing-hook"_s);
    // No latency while nothing was answered in probation: fewer latency points than samples.
    QVERIFY(view.chartPoints(u"Average latency"_s).size() < view.pointCount());
    QVERIFY(view.chartPoints(u"Average latency"_s).size() > view.pointCount() / 2);
    saveShot(&view, u"dashboard-billing.png"_s);
    view.probationTimeline()->resize(900, 160);
    saveShot(view.probationTimeline(), u"dashboard-probation-timeline.png"_s);
}

QTEST_MAIN(TestDashboard)

#include "tst_dashboard.moc"
