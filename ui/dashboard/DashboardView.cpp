// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "DashboardView.h"

#include "ProbationTimeline.h"
#include "common/Appearance.h"
#include "common/Format.h"
#include "common/SteadyLabel.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QEvent>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLocale>
#include <QSplitter>
#include <QSet>
#include <QTimer>
#include <QVBoxLayout>
#include <QValueAxis>

#include <cmath>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {

constexpr int RefreshIntervalMs = 250;
constexpr qsizetype MaxLatencySegments = 16;

// The smallest "nice" number (1, 2, 2.5, 5 × 10^k) at or above value.
double niceCeiling(double value)
{
    if (value <= 0)
        return 1;
    const double magnitude = std::pow(10.0, std::floor(std::log10(value)));
    for (const double step : {1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0}) {
        if (step * magnitude >= value)
            return step * magnitude;
    }
    return 10 * magnitude;
}

// Ticks for an axis from 0 to top (a niceCeiling()): 3 to 6 intervals, each a value with one
// significant digit, so that the labels read 0, 5, 10, ... 25 rather than 0, 6, 13, 19, 25.
int niceTickCount(double top)
{
    for (const int intervals : {4, 5, 3, 6}) {
        const double step = top / intervals;
        const double magnitude = std::pow(10.0, std::floor(std::log10(step)));
        const double digit = step / magnitude;
        if (std::abs(digit - std::round(digit)) < 1e-9)
            return intervals + 1;
    }
    return 5;
}

const QString DeliveredName = u"Delivered"_s;
const QString DeadLetteredName = u"Dead-lettered"_s;
const QString DroppedName = u"Dropped"_s;
const QString FailedName = u"Failed (all outcomes)"_s;
const QString BacklogName = u"Backlog"_s;
const QString InFlightName = u"In flight"_s;
const QString LatencyName = u"Average latency"_s;

// Replaces a line's points. A line of one point draws nothing (the first sample of a rate, a
// latency between two gaps): such a point is drawn as a marker.
void setPoints(QLineSeries *series, const QList<QPointF> &points)
{
    series->replace(points);
    const bool lone = points.size() == 1;
    if (series->pointsVisible() != lone) {
        series->setMarkerSize(std::max(6.0, 3.0 * series->pen().widthF()));
        series->setPointsVisible(lone);
    }
}

QColor blend(const QColor &a, const QColor &b, double amountOfB)
{
    return QColor::fromRgbF(float(a.redF() * (1 - amountOfB) + b.redF() * amountOfB),
                            float(a.greenF() * (1 - amountOfB) + b.greenF() * amountOfB),
                            float(a.blueF() * (1 - amountOfB) + b.blueF() * amountOfB));
}

QColor accent(int hue, const QPalette &palette)
{
    return isDark(palette) ? QColor::fromHslF(hue / 360.0, 0.65, 0.65) : QColor::fromHslF(hue / 360.0, 0.70, 0.42);
}

QString formatLatency(double ms)
{
    if (std::isnan(ms))
        return DashboardView::tr("–");
    if (ms < 1000)
        return DashboardView::tr("%1 ms").arg(QLocale().toString(ms, 'f', ms < 10 ? 1 : 0));
    return DashboardView::tr("%1 s").arg(QLocale().toString(ms / 1000.0, 'f', 2));
}

} // namespace

DashboardView::DashboardView(QWidget *parent)
    : QWidget(parent)
    , m_refreshTimer(new QTimer(this))
{
    m_clock.start();

    m_selectionCombo = new QComboBox(this);
    m_selectionCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_selectionCombo->setToolTip(tr("Show all subscriptions, one topic's subscriptions, or one subscription"));
    auto *selectionLabel = new QLabel(tr("&Show:"), this);
    selectionLabel->setBuddy(m_selectionCombo);
    m_rateNote = new QLabel(tr("Rates are per second of real time."), this);
    m_rateNote->setToolTip(tr("Rates are counter differences between snapshots divided by the real time between them"));

    auto *header = new QHBoxLayout;
    header->addWidget(selectionLabel);
    header->addWidget(m_selectionCombo);
    header->addSpacing(12);
    header->addWidget(m_rateNote, 1);

    // Headline numbers: running totals of the selection.
    auto *headlines = new QGridLayout;
    headlines->setHorizontalSpacing(18);
    headlines->setVerticalSpacing(0);
    const QList<std::pair<QString, QString>> tiles{
        {u"Delivered"_s, tr("Events delivered: the workspace's total, every engine's that ran it")},
        {u"Failed"_s, tr("Failed delivery attempts, all outcomes: the workspace's total")},
        {u"Dead-lettered"_s, tr("Events written to the dead-letter destination: the workspace's total")},
        {u"Dropped"_s, tr("Events dropped without a dead-letter record: the workspace's total")},
        {u"Backlog"_s, tr("Deliveries waiting for their due time, for probation to end or for endpoint validation")},
        {u"Held"_s, tr("Of the backlog: events accepted while the endpoint is not validated yet, "
                       "delivered once it is (or dead-lettered at their time to live)")},
        {u"In flight"_s, tr("Deliveries in requests awaiting a response")},
        {u"Average latency"_s, tr("Average destination processing time of all answered requests: "
                                  "the workspace's")},
        {u"In probation"_s, tr("Subscriptions in probation now")},
    };
    const QStringList captions{tr("Delivered"), tr("Failed"), tr("Dead-lettered"), tr("Dropped"),
                               tr("Backlog"), tr("Held"), tr("In flight"), tr("Avg latency"), tr("In probation")};
    for (int i = 0; i < tiles.size(); ++i) {
        // A steady size: the totals change several times a second at full traffic.
        auto *value = new SteadyLabel(u"0"_s, this);
        QFont font = value->font();
        font.setPointSizeF(font.pointSizeF() * 1.5);
        font.setBold(true);
        value->setFont(font);
        value->setToolTip(tiles.at(i).second);
        auto *caption = new QLabel(captions.at(i), this);
        caption->setToolTip(tiles.at(i).second);
        caption->setForegroundRole(QPalette::PlaceholderText);
        headlines->addWidget(value, 0, i);
        headlines->addWidget(caption, 1, i);
        m_headlineValues.insert(tiles.at(i).first, value);
    }
    headlines->setColumnStretch(int(tiles.size()), 1);

    m_throughput = createChart(tr("Throughput"), tr("events / s"));
    m_failures = createChart(tr("Failed attempts by outcome"), tr("attempts / s"));
    m_queue = createChart(tr("Backlog and in flight"), tr("deliveries"));
    m_latency = createChart(tr("Destination latency"), tr("ms"));

    m_delivered = addSeries(m_throughput, DeliveredName, outcomeColor(DeliveryOutcome::Delivered));
    m_deadLettered = addSeries(m_throughput, DeadLetteredName, outcomeColor(DeliveryOutcome::BadRequest));
    m_dropped = addSeries(m_throughput, DroppedName, outcomeColor(DeliveryOutcome::Canceled), Qt::DashLine);
    m_failedTotal = addSeries(m_failures, FailedName, palette().color(QPalette::Text), Qt::DotLine);
    m_backlog = addSeries(m_queue, BacklogName, accent(212, palette()));
    m_inFlight = addSeries(m_queue, InFlightName, accent(170, palette()));
    m_latencySeries = addSeries(m_latency, LatencyName, accent(275, palette()));

    auto *charts = new QWidget(this);
    auto *grid = new QGridLayout(charts);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setSpacing(6);
    grid->addWidget(m_throughput.view, 0, 0);
    grid->addWidget(m_failures.view, 0, 1);
    grid->addWidget(m_queue.view, 1, 0);
    grid->addWidget(m_latency.view, 1, 1);

    m_timeline = new ProbationTimeline(this);
    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->setObjectName(u"dashboardSplitter"_s); // remembered per workspace by the window
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(charts);
    splitter->addWidget(m_timeline);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 0);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(header);
    layout->addLayout(headlines);
    layout->addWidget(splitter, 1);

    connect(m_selectionCombo, &QComboBox::activated, this, &DashboardView::selectionComboChanged);
    // Each chart is redrawn every RefreshIntervalMs, the four in turn: updating a chart lays it
    // out again (milliseconds of this thread), and four at once would hold the window that long.
    m_refreshTimer->setInterval(RefreshIntervalMs / ChartCount);
    connect(m_refreshTimer, &QTimer::timeout, this, &DashboardView::refreshNextChart);
    m_refreshTimer->start();

    rebuildSelectionCombo();
    applyPalette();
    updateHeadlines();
}

DashboardView::~DashboardView() = default;

DashboardView::ChartBox DashboardView::createChart(const QString &title, const QString &yTitle)
{
    ChartBox box;
    box.chart = new QChart;
    box.chart->setTitle(title);
    box.chart->setAnimationOptions(QChart::NoAnimation);
    box.chart->setBackgroundRoundness(0);
    box.chart->setMargins(QMargins(2, 2, 2, 2));
    box.chart->legend()->setAlignment(Qt::AlignBottom);
    QFont titleFont = font();
    titleFont.setBold(true);
    box.chart->setTitleFont(titleFont);
    box.chart->legend()->setFont(font());

    box.xAxis = new QValueAxis(box.chart);
    box.xAxis->setTitleText(tr("seconds ago"));
    box.xAxis->setLabelFormat(u"%d"_s);
    box.xAxis->setRange(-60, 0);
    box.xAxis->setTickCount(7);
    box.yAxis = new QValueAxis(box.chart);
    box.yAxis->setTitleText(yTitle);
    // Until the data need more: 0 to 1 in steps of 0.2, labelled to a decimal as refresh() would
    // (whole numbers would read 0, 0, 1, 1, 1).
    box.yAxis->setLabelFormat(u"%.1f"_s);
    box.yAxis->setRange(0, 1);
    box.yAxis->setTickCount(niceTickCount(1));
    QFont axisFont = font();
    axisFont.setPointSizeF(axisFont.pointSizeF() * 0.9);
    for (QValueAxis *axis : {box.xAxis, box.yAxis}) {
        axis->setLabelsFont(axisFont);
        axis->setTitleFont(axisFont);
    }
    box.chart->addAxis(box.xAxis, Qt::AlignBottom);
    box.chart->addAxis(box.yAxis, Qt::AlignLeft);

    box.view = new QChartView(box.chart, this);
    // Screen readers get the chart's title, and its latest values as the description (refresh()).
    box.view->setAccessibleName(title);
    box.view->setRenderHint(QPainter::Antialiasing);
    box.view->setMinimumSize(260, 190);
    box.view->setFrameShape(QFrame::NoFrame);
    return box;
}

QLineSeries *DashboardView::addSeries(ChartBox &box, const QString &name, const QColor &color, Qt::PenStyle style)
{
    auto *series = new QLineSeries(box.chart);
    series->setName(name);
    QPen pen(color, 2);
    pen.setStyle(style);
    pen.setCosmetic(true);
    series->setPen(pen);
    box.chart->addSeries(series);
    series->attachAxis(box.xAxis);
    series->attachAxis(box.yAxis);
    m_allSeries.append(series);
    return series;
}

void DashboardView::addSnapshot(const EventDesk::EngineSnapshot &snapshot)
{
    addSnapshot(snapshot, m_clock.elapsed());
}

void DashboardView::addSnapshot(const EventDesk::EngineSnapshot &snapshot, qint64 realTimeMs)
{
    const QStringList before = m_history.subscriptionKeys();
    m_history.add(snapshot, realTimeMs);
    m_timeline->addSnapshot(snapshot);
    if (m_history.subscriptionKeys() != before)
        rebuildSelectionCombo();
    m_dirtyCharts = AllCharts;
}

QString DashboardView::selectionKey() const
{
    return DashboardHistory::key(m_selectedTopic, m_selectedSubscription);
}

void DashboardView::setStoredTotals(const std::optional<StoreTotals> &totals)
{
    if (totals == m_storedTotals)
        return;
    m_storedTotals = totals;
    updateHeadlines();
}

void DashboardView::setSelection(const QString &topic, const QString &subscription)
{
    m_selectedTopic = topic;
    m_selectedSubscription = topic.isEmpty() ? QString() : subscription;
    rebuildSelectionCombo();
    m_timeline->setSelection(m_selectedTopic, m_selectedSubscription);
    refresh();
}

void DashboardView::selectionComboChanged(int index)
{
    const QStringList parts = m_selectionCombo->itemData(index).toStringList();
    setSelection(parts.value(0), parts.value(1));
}

void DashboardView::rebuildSelectionCombo()
{
    const QSignalBlocker blocker(m_selectionCombo);
    m_selectionCombo->clear();
    m_selectionCombo->addItem(tr("All subscriptions"), QStringList());
    QStringList topics;
    QList<QStringList> subscriptions;
    for (const QString &key : m_history.subscriptionKeys()) {
        const qsizetype slash = key.indexOf(u'/');
        const QString topic = key.left(slash);
        if (!topics.contains(topic))
            topics.append(topic);
        subscriptions.append({topic, key.mid(slash + 1)});
    }
    for (const QString &topic : std::as_const(topics)) {
        m_selectionCombo->addItem(tr("Topic %1 (all its subscriptions)").arg(topic), QStringList{topic, QString()});
        for (const QStringList &subscription : std::as_const(subscriptions))
            if (subscription.first() == topic)
                m_selectionCombo->addItem(u"    %1 / %2"_s.arg(topic, subscription.at(1)), subscription);
    }
    const QStringList wanted = m_selectedTopic.isEmpty() ? QStringList()
                                                         : QStringList{m_selectedTopic, m_selectedSubscription};
    int index = m_selectionCombo->findData(wanted);
    if (index < 0) {
        // Selected before its first snapshot arrived: keep it, so the charts fill in when it does.
        m_selectionCombo->addItem(m_selectedSubscription.isEmpty()
                                      ? tr("Topic %1 (all its subscriptions)").arg(m_selectedTopic)
                                      : u"%1 / %2"_s.arg(m_selectedTopic, m_selectedSubscription),
                                  wanted);
        index = m_selectionCombo->count() - 1;
    }
    m_selectionCombo->setCurrentIndex(index);
}

int DashboardView::pointCount() const
{
    return int(m_history.samples(selectionKey()).size());
}

QList<QPointF> DashboardView::chartPoints(const QString &seriesName) const
{
    if (seriesName == LatencyName) {
        QList<QPointF> points = m_latencySeries->points();
        for (QLineSeries *segment : m_latencyGapSegments)
            points += segment->points();
        return points;
    }
    for (QLineSeries *series : m_allSeries)
        if (series->name() == seriesName)
            return series->points();
    for (QLineSeries *series : m_failedByOutcome)
        if (series->name() == seriesName)
            return series->points();
    return {};
}

QString DashboardView::headline(const QString &name) const
{
    const QLabel *label = m_headlineValues.value(name);
    return label ? label->text() : QString();
}

void DashboardView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    refresh();
}

void DashboardView::refresh()
{
    refreshCharts(AllCharts);
}

void DashboardView::refreshNextChart()
{
    if (m_dirtyCharts == 0 || !isVisible())
        return;
    for (int i = 0; i < ChartCount; ++i) {
        const int chart = (m_nextChart + i) % ChartCount;
        if (m_dirtyCharts & (1u << chart)) {
            m_nextChart = (chart + 1) % ChartCount;
            refreshCharts(1u << chart);
            return;
        }
    }
}

void DashboardView::refreshCharts(unsigned charts)
{
    m_dirtyCharts &= ~charts;
    const QList<DashboardHistory::Sample> samples = m_history.samples(selectionKey());
    const qint64 latest = samples.isEmpty() ? 0 : samples.last().realTimeMs;
    const auto x = [latest](const DashboardHistory::Sample &sample) {
        return double(sample.realTimeMs - latest) / 1000.0;
    };

    // Per-outcome failure series exist for the outcomes the selection has seen.
    const bool failures = charts & FailuresChart;
    QSet<DeliveryOutcome> outcomes;
    for (const DashboardHistory::Sample &sample : samples)
        for (auto it = sample.failedPerSecondByOutcome.cbegin(); it != sample.failedPerSecondByOutcome.cend(); ++it)
            outcomes.insert(it.key());
    for (auto it = m_failedByOutcome.begin(); failures && it != m_failedByOutcome.end();) {
        if (!outcomes.contains(it.key())) {
            m_failures.chart->removeSeries(it.value());
            delete it.value();
            it = m_failedByOutcome.erase(it);
        } else {
            ++it;
        }
    }
    QList<DeliveryOutcome> sortedOutcomes(outcomes.cbegin(), outcomes.cend());
    std::sort(sortedOutcomes.begin(), sortedOutcomes.end());
    QHash<QRgb, int> sameColour;
    for (const DeliveryOutcome outcome : std::as_const(sortedOutcomes)) {
        if (!failures)
            break;
        // Outcomes of one family share a colour (Format.h); the pen style tells them apart.
        const QColor color = outcomeColor(outcome, palette());
        const int nth = sameColour[color.rgb()]++;
        static constexpr Qt::PenStyle styles[] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine, Qt::DashDotLine};
        if (!m_failedByOutcome.contains(outcome)) {
            auto *series = new QLineSeries(m_failures.chart);
            series->setName(deliveryOutcomeName(outcome));
            m_failures.chart->addSeries(series);
            series->attachAxis(m_failures.xAxis);
            series->attachAxis(m_failures.yAxis);
            m_failedByOutcome.insert(outcome, series);
        }
        QPen pen(color, 2);
        pen.setCosmetic(true);
        pen.setStyle(styles[nth % 4]);
        m_failedByOutcome.value(outcome)->setPen(pen);
    }

    const qsizetype count = samples.size();
    QList<QPointF> delivered, deadLettered, dropped, failed, backlog, inFlight, latency;
    for (QList<QPointF> *list : {&backlog, &inFlight, &latency})
        list->reserve(count);
    QHash<DeliveryOutcome, QList<QPointF>> failedByOutcome;
    double throughputMax = 0, failureMax = 0, queueMax = 0, latencyMax = 0;
    // Rates per second bin: per snapshot, a steady trickle would alternate between 0 and a spike.
    const QList<DashboardHistory::Sample> bins = DashboardHistory::binned(samples);
    for (QList<QPointF> *list : {&delivered, &deadLettered, &dropped, &failed})
        list->reserve(bins.size());
    for (const DashboardHistory::Sample &bin : bins) {
        const double t = x(bin);
        delivered.append({t, bin.deliveredPerSecond});
        deadLettered.append({t, bin.deadLetteredPerSecond});
        dropped.append({t, bin.droppedPerSecond});
        failed.append({t, bin.failedPerSecond});
        for (const DeliveryOutcome outcome : std::as_const(sortedOutcomes))
            failedByOutcome[outcome].append({t, bin.failedPerSecondByOutcome.value(outcome)});
        throughputMax = std::max({throughputMax, bin.deliveredPerSecond, bin.deadLetteredPerSecond,
                                  bin.droppedPerSecond});
        failureMax = std::max(failureMax, bin.failedPerSecond);
    }
    for (const DashboardHistory::Sample &sample : samples) {
        const double t = x(sample);
        backlog.append({t, sample.backlog});
        inFlight.append({t, sample.inFlight});
        if (!std::isnan(sample.latencyMs)) {
            latency.append({t, sample.latencyMs});
            latencyMax = std::max(latencyMax, sample.latencyMs);
        }
        queueMax = std::max({queueMax, sample.backlog, sample.inFlight});
    }
    if (charts & ThroughputChart) {
        setPoints(m_delivered, delivered);
        setPoints(m_deadLettered, deadLettered);
        setPoints(m_dropped, dropped);
    }
    if (failures) {
        setPoints(m_failedTotal, failed);
        for (auto it = m_failedByOutcome.cbegin(); it != m_failedByOutcome.cend(); ++it)
            setPoints(it.value(), failedByOutcome.value(it.key()));
    }
    if (charts & QueueChart) {
        setPoints(m_backlog, backlog);
        setPoints(m_inFlight, inFlight);
    }
    // Latency has no value while nothing answers (a subscription in probation): split the line
    // where points are missing instead of drawing a misleading ramp across the gap.
    if (charts & LatencyChart) {
        QList<QList<QPointF>> segments{{}};
        double typicalStep = 0;
        if (count > 1)
            typicalStep = (x(samples.last()) - x(samples.first())) / double(count - 1);
        for (const QPointF &point : std::as_const(latency)) {
            if (!segments.last().isEmpty() && point.x() - segments.last().last().x() > 2.5 * typicalStep
                && segments.size() < MaxLatencySegments)
                segments.append(QList<QPointF>());
            segments.last().append(point);
        }
        setPoints(m_latencySeries, segments.first());
        while (m_latencyGapSegments.size() < segments.size() - 1) {
            QLineSeries *segment = new QLineSeries(m_latency.chart);
            segment->setName(LatencyName);
            segment->setPen(m_latencySeries->pen());
            m_latency.chart->addSeries(segment);
            segment->attachAxis(m_latency.xAxis);
            segment->attachAxis(m_latency.yAxis);
            const auto markers = m_latency.chart->legend()->markers(segment);
            for (QLegendMarker *marker : markers)
                marker->setVisible(false);
            m_latencyGapSegments.append(segment);
        }
        for (qsizetype i = 0; i < m_latencyGapSegments.size(); ++i) {
            m_latencyGapSegments.at(i)->setPen(m_latencySeries->pen());
            setPoints(m_latencyGapSegments.at(i), i + 1 < segments.size() ? segments.at(i + 1) : QList<QPointF>());
        }
    }
    describeCharts(bins.isEmpty() ? nullptr : &bins.last(),
                   samples.isEmpty() ? nullptr : &samples.last(), sortedOutcomes);

    // The x axis spans at least a minute and grows until the ring is full, so it does not jump.
    const double oldest = samples.isEmpty() ? 0 : x(samples.first());
    const double span = std::max(60.0, std::ceil(-oldest / 30.0) * 30.0);
    // Every change to an axis lays its whole chart out again (milliseconds of the GUI thread), so
    // an axis is only touched when its range must change: the top rises when the data outgrow
    // it and comes down only when they use less than a third of it.
    const auto scale = [](ChartBox &box, double maximum, double span) {
        if (box.xAxis->min() != -span || box.xAxis->max() != 0)
            box.xAxis->setRange(-span, 0);
        const double wanted = niceCeiling(maximum * 1.1);
        const double top = box.yAxis->max();
        if (wanted > top || 3 * wanted < top) {
            box.yAxis->setRange(0, wanted);
            box.yAxis->setTickCount(niceTickCount(wanted));
            const QString format = wanted < 5 ? u"%.1f"_s : u"%.0f"_s;
            if (box.yAxis->labelFormat() != format)
                box.yAxis->setLabelFormat(format);
        }
    };
    if (charts & ThroughputChart)
        scale(m_throughput, throughputMax, span);
    if (failures)
        scale(m_failures, failureMax, span);
    if (charts & QueueChart)
        scale(m_queue, queueMax, span);
    if (charts & LatencyChart)
        scale(m_latency, std::max(latencyMax, 1.0), span);

    const double timeScale = m_history.engineTimeScale();
    m_rateNote->setText(timeScale > 1.5 ? tr("Rates are per second of real time; engine time runs %1× faster.")
                                              .arg(QLocale().toString(timeScale, 'f', 0))
                                        : tr("Rates are per second of real time."));
    updateHeadlines();
}

void DashboardView::describeCharts(const DashboardHistory::Sample *lastBin,
                                   const DashboardHistory::Sample *lastSample,
                                   const QList<DeliveryOutcome> &outcomes)
{
    const QLocale locale;
    const auto rate = [&locale](double value) {
        return tr("%1 per second").arg(locale.toString(value, 'f', value < 10 ? 1 : 0));
    };
    if (!lastBin || !lastSample) {
        for (ChartBox *box : {&m_throughput, &m_failures, &m_queue, &m_latency})
            box->view->setAccessibleDescription(tr("No data yet"));
        return;
    }
    m_throughput.view->setAccessibleDescription(
        tr("Last second: delivered %1, dead-lettered %2, dropped %3")
            .arg(rate(lastBin->deliveredPerSecond), rate(lastBin->deadLetteredPerSecond),
                 rate(lastBin->droppedPerSecond)));
    QStringList failures {
        tr("Last second: failed attempts %1").arg(rate(lastBin->failedPerSecond))};
    for (const DeliveryOutcome outcome : outcomes)
        failures.append(tr("%1 %2").arg(deliveryOutcomeName(outcome),
                                        rate(lastBin->failedPerSecondByOutcome.value(outcome))));
    m_failures.view->setAccessibleDescription(failures.join(u", "_s));
    m_queue.view->setAccessibleDescription(tr("Backlog %1, in flight %2")
                                               .arg(locale.toString(lastSample->backlog, 'f', 0),
                                                    locale.toString(lastSample->inFlight, 'f', 0)));
    m_latency.view->setAccessibleDescription(
        std::isnan(lastSample->latencyMs)
            ? tr("No responses in the last interval")
            : tr("Average latency %1").arg(formatLatency(lastSample->latencyMs)));
}

void DashboardView::updateHeadlines()
{
    DashboardHistory::Totals totals = m_history.totals(selectionKey());
    // The counts are the workspace's (its store's totals), the gauges the engine's now.
    if (m_storedTotals) {
        const SubscriptionTotals stored = m_selectedTopic.isEmpty()
            ? m_storedTotals->allSubscriptions()
            : m_selectedSubscription.isEmpty()
            ? m_storedTotals->subscriptionsOf(m_selectedTopic)
            : m_storedTotals->subscription(m_selectedTopic, m_selectedSubscription);
        totals.delivered = stored.delivered;
        totals.failed = stored.failedAttempts();
        totals.deadLettered = stored.deadLettered();
        totals.dropped = stored.dropped();
        totals.latencySumMs = stored.latencySumMs;
        totals.latencyCount = stored.latencyCount;
    }
    const QLocale locale;
    const auto count = [&](quint64 value) { return m_storedTotals ? locale.toString(value) : u"–"_s; };
    m_headlineValues.value(u"Delivered"_s)->setSteadyText(count(totals.delivered));
    m_headlineValues.value(u"Failed"_s)->setSteadyText(count(totals.failed));
    m_headlineValues.value(u"Dead-lettered"_s)->setSteadyText(count(totals.deadLettered));
    m_headlineValues.value(u"Dropped"_s)->setSteadyText(count(totals.dropped));
    m_headlineValues.value(u"Backlog"_s)->setSteadyText(locale.toString(totals.backlog));
    m_headlineValues.value(u"Held"_s)->setSteadyText(locale.toString(totals.held));
    m_headlineValues.value(u"In flight"_s)->setSteadyText(locale.toString(totals.inFlight));
    m_headlineValues.value(u"Average latency"_s)
        ->setSteadyText(!m_storedTotals ? u"–"_s
                            : formatLatency(totals.latencyCount ? totals.latencySumMs / double(totals.latencyCount)
                                                                : std::numeric_limits<double>::quiet_NaN()));
    m_headlineValues.value(u"In probation"_s)
        ->setSteadyText(m_selectedSubscription.isEmpty() ? tr("%1 of %2").arg(totals.inProbation).arg(totals.subscriptions)
                                                   : (totals.inProbation ? tr("Yes") : tr("No")));
}

void DashboardView::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyPalette();
}

void DashboardView::applyPalette()
{
    const QPalette pal = palette();
    const QColor text = pal.color(QPalette::Text);
    const QColor base = pal.color(QPalette::Base);
    QColor grid = blend(base, text, 0.15);
    const QColor axisLine = blend(base, text, 0.4);
    for (ChartBox *box : {&m_throughput, &m_failures, &m_queue, &m_latency}) {
        box->chart->setBackgroundBrush(base);
        box->chart->setBackgroundPen(QPen(pal.color(QPalette::Mid)));
        box->chart->setPlotAreaBackgroundVisible(false);
        box->chart->setTitleBrush(text);
        box->chart->legend()->setLabelColor(text);
        for (QValueAxis *axis : {box->xAxis, box->yAxis}) {
            axis->setLabelsBrush(pal.color(QPalette::PlaceholderText).isValid() ? QBrush(blend(base, text, 0.75))
                                                                                 : QBrush(text));
            axis->setTitleBrush(blend(base, text, 0.75));
            axis->setGridLinePen(QPen(grid, 1));
            axis->setLinePen(QPen(axisLine, 1));
            axis->setMinorGridLineVisible(false);
        }
        box->view->setBackgroundBrush(pal.color(QPalette::Window));
    }
    if (m_failedTotal) {
        for (const auto &[series, outcome] :
             {std::pair {m_delivered, DeliveryOutcome::Delivered},
              std::pair {m_deadLettered, DeliveryOutcome::BadRequest},
              std::pair {m_dropped, DeliveryOutcome::Canceled}}) {
            QPen seriesPen = series->pen();
            seriesPen.setColor(outcomeColor(outcome, pal));
            series->setPen(seriesPen);
        }
        for (auto it = m_failedByOutcome.cbegin(); it != m_failedByOutcome.cend(); ++it) {
            QPen seriesPen = it.value()->pen();
            seriesPen.setColor(outcomeColor(it.key(), pal));
            it.value()->setPen(seriesPen);
        }
        QPen pen = m_failedTotal->pen();
        pen.setColor(blend(base, text, 0.6));
        m_failedTotal->setPen(pen);
        for (const auto &[series, hue] : {std::pair{m_backlog, 212}, std::pair{m_inFlight, 170}, std::pair{m_latencySeries, 275}}) {
            QPen seriesPen = series->pen();
            seriesPen.setColor(accent(hue, pal));
            series->setPen(seriesPen);
        }
    }
}

} // namespace EventDesk::Ui
