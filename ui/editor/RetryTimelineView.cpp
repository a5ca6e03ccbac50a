// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "RetryTimelineView.h"

#include "common/Format.h"
#include "rules/ProbationTracker.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QScrollBar>
#include <QStackedLayout>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {

// The preview's event is published at time 0: every time it shows is "after publish".
constexpr qint64 PublishMs = 0;

// The time axis unit: seconds for short schedules, minutes up to a few hours, hours beyond.
struct TimeUnit
{
    double msPerUnit;
    QString title;
};

TimeUnit timeUnitFor(qint64 spanMs)
{
    if (spanMs < 3 * 60'000)
        return {1000.0, RetryTimelineView::tr("Seconds after publish")};
    if (spanMs < 3 * 3'600'000)
        return {60'000.0, RetryTimelineView::tr("Minutes after publish")};
    return {3'600'000.0, RetryTimelineView::tr("Hours after publish")};
}

QString fateText(const RetryPlanner::Timeline &timeline)
{
    const QString reason = deadLetterReasonName(timeline.reason);
    return timeline.fate == RetryDecision::Action::Drop
        ? RetryTimelineView::tr("Dropped (%1)").arg(reason)
        : RetryTimelineView::tr("Dead-lettered (%1)").arg(reason);
}

} // namespace

RetryTimelineView::RetryTimelineView(QWidget *parent)
    : QWidget(parent)
{
    m_modeCombo = new QComboBox(this);
    m_modeCombo->setObjectName(u"failureMode"_s);
    m_modeCombo->setToolTip(tr(
        "How the destination fails on every attempt. The schedule is computed by the engine's own "
        "retry rules (SPEC R2–R8), with jitter off."));
    m_modeCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);

    auto *modeLabel = new QLabel(tr("&Failure mode:"), this);
    modeLabel->setBuddy(m_modeCombo);

    m_summaryLabel = new QLabel(this);
    m_summaryLabel->setObjectName(u"timelineSummary"_s);
    m_summaryLabel->setWordWrap(true);
    m_summaryLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *header = new QHBoxLayout;
    header->addWidget(modeLabel);
    header->addWidget(m_modeCombo);
    header->addSpacing(12);
    header->addWidget(m_summaryLabel, 1);

    m_chart = new QChart;
    m_chart->legend()->setAlignment(Qt::AlignBottom);
    m_chart->setMargins(QMargins(4, 4, 4, 4));
    m_chart->setBackgroundRoundness(0);
    m_chartView = new QChartView(m_chart, this);
    m_chartView->setRenderHint(QPainter::Antialiasing);
    m_chartView->setMinimumSize(320, 240);
    m_chartView->setAccessibleName(tr("Retry timeline chart"));

    m_list = new QTreeWidget(this);
    m_list->setObjectName(u"timelineList"_s);
    m_list->setColumnCount(3);
    m_list->setHeaderLabels({tr("Step"), tr("At"), tr("Wait")});
    m_list->setRootIsDecorated(false);
    m_list->setUniformRowHeights(true);
    m_list->setAlternatingRowColors(true);
    m_list->setSelectionMode(QAbstractItemView::SingleSelection);
    m_list->header()->setStretchLastSection(true);
    m_list->header()->setSectionResizeMode(QHeaderView::Interactive);
    m_list->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_list->setAccessibleName(tr("Retry timeline steps"));

    // The chart gets the larger share; the list needs only its three short columns.
    m_content = new QWidget(this);
    auto *contentLayout = new QHBoxLayout(m_content);
    contentLayout->setContentsMargins(0, 0, 0, 0);
    contentLayout->addWidget(m_chartView, 1);
    contentLayout->addWidget(m_list, 0);
    m_placeholder = new QLabel(this);
    m_placeholder->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_placeholder->setForegroundRole(QPalette::PlaceholderText);
    m_placeholder->setContentsMargins(0, 8, 0, 0);
    m_placeholder->setWordWrap(true);
    m_placeholder->setText(tr("The preview needs a valid retry policy: max delivery attempts from "
                              "%1 to %2 and a time to live from %3 to %4 minutes.")
                               .arg(RetryPolicy::MinAttempts)
                               .arg(RetryPolicy::MaxAttempts)
                               .arg(RetryPolicy::MinTtlMinutes)
                               .arg(RetryPolicy::MaxTtlMinutes));

    auto *stackHost = new QWidget(this);
    m_stack = new QStackedLayout(stackHost);
    m_stack->setContentsMargins(0, 0, 0, 0);
    m_stack->addWidget(m_content);
    m_stack->addWidget(m_placeholder);

    // The rules of the destination type: every answer its service gives, what the engine makes of
    // it. A row chosen here is the failure mode previewed above.
    m_rulesTitle = new QLabel(this);
    m_rulesTitle->setObjectName(u"rulesTitle"_s);
    m_rules = new QTreeWidget(this);
    m_rules->setObjectName(u"rulesList"_s);
    m_rules->setColumnCount(4);
    m_rules->setHeaderLabels({tr("Answer"), tr("Outcome"), tr("Retried"), tr("Probation")});
    m_rules->setRootIsDecorated(false);
    m_rules->setUniformRowHeights(true);
    m_rules->setAlternatingRowColors(true);
    m_rules->setSelectionMode(QAbstractItemView::SingleSelection);
    m_rules->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_rules->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_rules->header()->setStretchLastSection(true);
    m_rules->setAccessibleName(tr("Delivery rules of the destination type"));
    m_rulesNote = new QLabel(this);
    m_rulesNote->setObjectName(u"rulesNote"_s);
    m_rulesNote->setWordWrap(true);
    m_rulesNote->setForegroundRole(QPalette::PlaceholderText);
    m_rulesNote->setText(
        tr("Probation starts after the workspace's probation threshold of consecutive failures "
           "(%1 by default, SPEC P2). If the first try after it fails, the next probation lasts "
           "twice as long, up to %2 (P4).")
            .arg(ProbationTracker::DefaultThreshold)
            .arg(formatDuration(ProbationTracker::MaxProbationMs)));

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(header);
    layout->addWidget(stackHost, 1);
    layout->addSpacing(6);
    layout->addWidget(m_rulesTitle);
    layout->addWidget(m_rules);
    layout->addWidget(m_rulesNote);

    connect(m_modeCombo, &QComboBox::currentIndexChanged, this, [this] {
        recompute();
        updateRules();
        Q_EMIT failureModeChanged(failureMode());
    });
    connect(m_rules, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem *item) {
        if (item)
            setFailureMode(item->data(0, Qt::UserRole).value<FailureMode>());
    });

    fillModes();
    applyPalette();
    recompute();
}

RetryTimelineView::~RetryTimelineView() = default;

void RetryTimelineView::setDestinationType(DestinationType type)
{
    if (type == m_type)
        return;
    m_type = type;
    fillModes();
}

void RetryTimelineView::fillModes()
{
    const FailureMode previous = m_modeCombo->count() > 0 ? failureMode() : FailureMode::Always500;
    const QList<FailureAnswer> answers = FailureModes::of(m_type);
    {
        const QSignalBlocker blocker(m_modeCombo);
        m_modeCombo->clear();
        for (const FailureAnswer &answer : answers)
            m_modeCombo->addItem(FailureModes::text(answer), QVariant::fromValue(answer.mode));
        m_modeCombo->setCurrentIndex(
            std::max(0, m_modeCombo->findData(QVariant::fromValue(previous))));
    }

    m_rulesTitle->setText(
        tr("<b>How %1 destinations fail</b> — what the engine makes of each answer")
            .arg(destinationTypeDisplayName(m_type)));
    m_rules->clear();
    QList<QTreeWidgetItem *> items;
    for (const FailureAnswer &answer : answers) {
        const FailureModes::Rule retry = FailureModes::retryRule(answer);
        const FailureModes::Rule probation = FailureModes::probationRule(answer);
        auto *item = new QTreeWidgetItem;
        item->setText(0, FailureModes::answerText(answer));
        item->setText(1, deliveryOutcomeName(answer.outcome));
        item->setText(2, retry.brief);
        item->setText(3, probation.brief);
        item->setToolTip(0, FailureModes::text(answer));
        item->setToolTip(1, FailureModes::text(answer));
        item->setToolTip(2, retry.detail);
        item->setToolTip(3, probation.detail);
        item->setData(0, Qt::UserRole, QVariant::fromValue(answer.mode));
        item->setForeground(1, outcomeColor(answer.outcome));
        items.append(item);
    }
    {
        const QSignalBlocker blocker(m_rules);
        m_rules->addTopLevelItems(items);
    }
    // Every row shows: the list is the whole rule set, not something to scroll through.
    const int rowHeight = items.isEmpty() ? 0 : m_rules->sizeHintForRow(0);
    m_rules->setFixedHeight(m_rules->header()->sizeHint().height() + int(items.size()) * rowHeight
                            + 2 * m_rules->frameWidth());
    recompute();
    updateRules();
    if (m_modeCombo->currentData().value<FailureMode>() != previous)
        Q_EMIT failureModeChanged(failureMode());
}

void RetryTimelineView::updateRules()
{
    const FailureMode mode = failureMode();
    for (int row = 0; row < m_rules->topLevelItemCount(); ++row) {
        QTreeWidgetItem *item = m_rules->topLevelItem(row);
        if (item->data(0, Qt::UserRole).value<FailureMode>() == mode) {
            const QSignalBlocker blocker(m_rules);
            m_rules->setCurrentItem(item);
            return;
        }
    }
}

void RetryTimelineView::setPolicy(const RetryPolicy &policy, bool hasDeadLetterDestination)
{
    m_policy = policy;
    m_hasDeadLetterDestination = hasDeadLetterDestination;
    recompute();
}

void RetryTimelineView::setFailureMode(FailureMode mode)
{
    const int index = m_modeCombo->findData(QVariant::fromValue(mode));
    if (index >= 0)
        m_modeCombo->setCurrentIndex(index);
}

RetryTimelineView::FailureMode RetryTimelineView::failureMode() const
{
    return m_modeCombo->currentData().value<FailureMode>();
}

bool RetryTimelineView::policyInRange() const
{
    return m_policy.maxDeliveryAttempts >= RetryPolicy::MinAttempts
        && m_policy.maxDeliveryAttempts <= RetryPolicy::MaxAttempts
        && m_policy.eventTimeToLiveInMinutes >= RetryPolicy::MinTtlMinutes
        && m_policy.eventTimeToLiveInMinutes <= RetryPolicy::MaxTtlMinutes;
}

void RetryTimelineView::recompute()
{
    if (!policyInRange()) {
        m_timeline = RetryPlanner::Timeline();
        m_stack->setCurrentWidget(m_placeholder);
        m_modeCombo->setEnabled(false);
        m_summaryLabel->clear();
        m_list->clear();
        return;
    }
    const FailureAnswer answer = FailureModes::answer(m_type, failureMode());
    m_timeline = RetryPlanner::simulateAlwaysFailing(m_policy, answer.outcome, answer.httpStatus,
                                                     PublishMs, answer.responseMs,
                                                     m_hasDeadLetterDestination);
    m_stack->setCurrentWidget(m_content);
    m_modeCombo->setEnabled(true);
    m_summaryLabel->setText(summaryText());
    updateChart();
    updateList();
}

QString RetryTimelineView::summaryText() const
{
    if (m_timeline.attempts.isEmpty())
        return QString();
    const QString fate = m_timeline.fate == RetryDecision::Action::Drop
        ? tr("dropped (%1)").arg(deadLetterReasonName(m_timeline.reason))
        : tr("dead-lettered (%1)").arg(deadLetterReasonName(m_timeline.reason));
    const int attempts = int(m_timeline.attempts.size());
    const QString attemptsText = attempts == 1 ? tr("1 attempt") : tr("%1 attempts").arg(attempts);
    QString text = tr("%1, then %2 at %3 after publish.")
                       .arg(attemptsText, fate, formatDuration(m_timeline.fateAtMs));
    if (m_timeline.fate == RetryDecision::Action::Drop)
        text += u' ' + tr("Set a dead-letter destination to keep such events.");
    return text;
}

void RetryTimelineView::updateChart()
{
    m_chart->removeAllSeries();
    const QList<QAbstractAxis *> oldAxes = m_chart->axes();
    for (QAbstractAxis *axis : oldAxes) {
        m_chart->removeAxis(axis);
        delete axis;
    }

    const qint64 fateAtMs = m_timeline.fateAtMs;
    const qint64 ttlEndsMs = RetryPlanner::expiresAtMs(m_policy, PublishMs);
    // The TTL only matters when it ran out first.
    const bool showTtl = RetryPlanner::isExpired(m_policy, PublishMs, fateAtMs);
    const qint64 spanMs
        = std::max<qint64>(showTtl ? std::max(fateAtMs, ttlEndsMs) : fateAtMs, 10'000);
    const TimeUnit unit = timeUnitFor(spanMs);
    const auto toUnit = [&unit](qint64 ms) {
        return double(ms) / unit.msPerUnit;
    };

    const QColor attemptColor = outcomeColor(FailureModes::answer(m_type, failureMode()).outcome);
    const int attemptCount = int(m_timeline.attempts.size());
    const double yMax = attemptCount + 1.5;

    auto *path = new QLineSeries;
    path->setName(tr("Attempts"));
    path->setPen(QPen(attemptColor, 2));
    auto *points = new QScatterSeries;
    points->setMarkerShape(QScatterSeries::MarkerShapeCircle);
    points->setMarkerSize(10);
    points->setColor(attemptColor);
    points->setBorderColor(attemptColor.darker(130));
    QList<QPointF> attemptPoints;
    attemptPoints.reserve(attemptCount);
    for (const RetryPlanner::TimelineEntry &entry : m_timeline.attempts)
        attemptPoints.append(QPointF(toUnit(entry.atMs), entry.attempt));
    path->replace(attemptPoints);
    points->replace(attemptPoints);

    // The fate sits where attempt n+1 would have been: it is what happens instead of it.
    const QColor fateColor = m_timeline.fate == RetryDecision::Action::Drop
        ? outcomeColor(DeliveryOutcome::Canceled)
        : outcomeColor(DeliveryOutcome::BadRequest);
    auto *fate = new QScatterSeries;
    fate->setName(m_timeline.fate == RetryDecision::Action::Drop ? tr("Dropped")
                                                                 : tr("Dead-lettered"));
    fate->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    fate->setMarkerSize(14);
    fate->setColor(fateColor);
    fate->setBorderColor(fateColor.darker(130));
    fate->append(toUnit(fateAtMs), attemptCount + 1);

    m_chart->addSeries(path);
    m_chart->addSeries(points);
    m_chart->addSeries(fate);

    QLineSeries *ttlLine = nullptr;
    if (showTtl) {
        ttlLine = new QLineSeries;
        ttlLine->setName(tr("TTL ends"));
        QPen pen(palette().color(QPalette::PlaceholderText), 1.5, Qt::DashLine);
        ttlLine->setPen(pen);
        ttlLine->append(toUnit(ttlEndsMs), 0.5);
        ttlLine->append(toUnit(ttlEndsMs), yMax);
        m_chart->addSeries(ttlLine);
    }

    auto *axisX = new QValueAxis;
    axisX->setTitleText(unit.title);
    axisX->setRange(0, toUnit(spanMs) * 1.08);
    axisX->setLabelFormat(u"%.3g"_s);
    axisX->applyNiceNumbers();
    auto *axisY = new QValueAxis;
    axisY->setTitleText(tr("Attempt"));
    axisY->setRange(0.5, yMax);
    axisY->setTickType(QValueAxis::TicksDynamic);
    axisY->setTickAnchor(1);
    axisY->setTickInterval(attemptCount > 14 ? 5 : (attemptCount > 7 ? 2 : 1));
    axisY->setLabelFormat(u"%d"_s);
    m_chart->addAxis(axisX, Qt::AlignBottom);
    m_chart->addAxis(axisY, Qt::AlignLeft);
    const QList<QAbstractSeries *> series = m_chart->series();
    for (QAbstractSeries *entry : series) {
        entry->attachAxis(axisX);
        entry->attachAxis(axisY);
    }
    // The dots and the line are one thing for the reader: one legend entry.
    const QList<QLegendMarker *> markers = m_chart->legend()->markers(points);
    for (QLegendMarker *marker : markers)
        marker->setVisible(false);
    applyPalette();
}

void RetryTimelineView::updateList()
{
    m_list->clear();
    qint64 previousMs = -1;
    QList<QTreeWidgetItem *> items;
    for (const RetryPlanner::TimelineEntry &entry : m_timeline.attempts) {
        auto *item = new QTreeWidgetItem;
        item->setText(0, tr("Attempt %1").arg(entry.attempt));
        item->setText(1, formatDuration(entry.atMs));
        item->setText(2,
                      previousMs < 0 ? tr("immediately")
                                     : u"+"_s + formatDuration(entry.atMs - previousMs));
        item->setToolTip(0, tr("aeg-delivery-count: %1").arg(entry.attempt - 1));
        items.append(item);
        previousMs = entry.atMs;
    }
    if (!m_timeline.attempts.isEmpty()) {
        auto *item = new QTreeWidgetItem;
        item->setText(0, fateText(m_timeline));
        item->setText(1, formatDuration(m_timeline.fateAtMs));
        item->setText(2, u"+"_s + formatDuration(m_timeline.fateAtMs - previousMs));
        QFont bold = item->font(0);
        bold.setBold(true);
        item->setFont(0, bold);
        const QString why = m_timeline.reason == DeadLetterReason::TimeToLiveExceeded
            ? tr("The next attempt came due after the time to live had run out (SPEC R7).")
            : m_timeline.reason == DeadLetterReason::MaxDeliveryAttemptsExceeded
            ? tr("The last allowed attempt failed (SPEC R8).")
            : tr("The destination answered with an error that retrying cannot fix (SPEC R2).");
        const QString where = m_timeline.fate == RetryDecision::Action::Drop
            ? tr("Without a dead-letter destination the event is dropped (SPEC L1).")
            : tr("The dead-letter write follows after the workspace's dead-letter delay "
                 "(SPEC L3).");
        for (int column = 0; column < 3; ++column)
            item->setToolTip(column, why + u'\n' + where);
        items.append(item);
    }
    m_list->addTopLevelItems(items);
    // The list is as wide as its text; the chart takes the rest.
    int width = 2 * m_list->frameWidth() + m_list->verticalScrollBar()->sizeHint().width();
    for (int column = 0; column < m_list->columnCount(); ++column) {
        m_list->resizeColumnToContents(column);
        width += m_list->columnWidth(column) + 12;
        m_list->setColumnWidth(column, m_list->columnWidth(column) + 12);
    }
    m_list->setFixedWidth(width);
}

void RetryTimelineView::applyPalette()
{
    const QPalette pal = palette();
    m_chart->setBackgroundBrush(pal.color(QPalette::Base));
    m_chart->setPlotAreaBackgroundVisible(false);
    m_chart->legend()->setLabelColor(pal.color(QPalette::Text));
    m_chart->legend()->setFont(font());
    const QList<QAbstractAxis *> axes = m_chart->axes();
    for (QAbstractAxis *axis : axes) {
        axis->setLabelsColor(pal.color(QPalette::Text));
        axis->setTitleBrush(pal.color(QPalette::Text));
        axis->setLinePenColor(pal.color(QPalette::Mid));
        QColor grid = pal.color(QPalette::Mid);
        grid.setAlpha(90);
        axis->setGridLineColor(grid);
        axis->setLabelsFont(font());
        QFont titleFont = font();
        titleFont.setBold(false);
        axis->setTitleFont(titleFont);
    }
}

void RetryTimelineView::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange)
        applyPalette();
}

} // namespace EventDesk::Ui
