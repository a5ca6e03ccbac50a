// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "ProbationTimeline.h"

#include "common/Appearance.h"
#include "common/Format.h"

#include <QComboBox>
#include <QDateTime>
#include <QEvent>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QPainter>
#include <QPainterPath>
#include <QPolygonF>
#include <QScrollArea>
#include <QToolTip>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {

QColor readableTextOn(const QColor &background)
{
    const double luminance = 0.299 * background.redF() + 0.587 * background.greenF() + 0.114 * background.blueF();
    return luminance > 0.55 ? QColor(Qt::black) : QColor(Qt::white);
}

qint64 tickIntervalMs(qint64 windowMs)
{
    if (windowMs <= 5LL * 60 * 1000)
        return 60LL * 1000;
    if (windowMs <= 60LL * 60 * 1000)
        return 10LL * 60 * 1000;
    return 3LL * 60 * 60 * 1000;
}

} // namespace

class ProbationTimelineCanvas final : public QWidget
{
public:
    explicit ProbationTimelineCanvas(ProbationTimeline *timeline)
        : QWidget(timeline)
        , m_timeline(timeline)
    {
        setAttribute(Qt::WA_OpaquePaintEvent, false);
        setMouseTracking(false);
        setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    }

    int rowHeight() const { return fontMetrics().height() + 10; }
    int dotSize() const { return std::max(6, fontMetrics().height() / 2); }
    int axisHeight() const { return fontMetrics().height() + 8; }

    // The height that shows `rows` rows and the time axis.
    int heightFor(int rows) const { return std::max(1, rows) * rowHeight() + axisHeight() + 4; }

    QSize sizeHint() const override { return {480, heightFor(int(m_timeline->m_rows.size()))}; }
    // Every row: the timeline's scroll area scrolls what its height does not show.
    QSize minimumSizeHint() const override
    {
        return {240, heightFor(int(m_timeline->m_rows.size()))};
    }

    int nameWidth() const
    {
        // Measuring is shaping text: done again only when the names or the font change, not at
        // every paint and tooltip.
        const auto &rows = m_timeline->m_rows;
        const bool same = m_measuredFont == font() && m_measuredNames.size() == rows.size()
            && std::equal(rows.cbegin(), rows.cend(), m_measuredNames.cbegin(),
                          [](const ProbationTimeline::Row &row, const auto &name) {
                              return row.topic == name.first && row.subscription == name.second;
                          });
        if (!same) {
            m_measuredFont = font();
            m_measuredNames.clear();
            m_widestName = fontMetrics().horizontalAdvance(tr("Subscription"));
            for (const ProbationTimeline::Row &row : rows) {
                m_measuredNames.append({row.topic, row.subscription});
                m_widestName = std::max(m_widestName, fontMetrics().horizontalAdvance(rowName(row)));
            }
        }
        return std::min(m_widestName + dotSize() + 30, width() * 2 / 5);
    }

    static QString rowName(const ProbationTimeline::Row &row) { return row.topic + u" / "_s + row.subscription; }

    QRect plotRect() const
    {
        const int left = nameWidth();
        return QRect(left, 2, std::max(10, width() - left - 8), height() - axisHeight() - 2);
    }

    double xFor(qint64 timeMs, const QRect &plot) const
    {
        const qint64 window = m_timeline->windowMs();
        const qint64 start = m_timeline->m_nowMs - window;
        return plot.left() + double(timeMs - start) / double(window) * plot.width();
    }

    // The row and period under a point, for tooltips.
    bool hit(const QPoint &pos, int *rowIndex, int *periodIndex) const
    {
        const QRect plot = plotRect();
        const int row = (pos.y() - plot.top()) / rowHeight();
        if (pos.y() < plot.top() || row < 0 || row >= m_timeline->m_rows.size())
            return false;
        *rowIndex = row;
        *periodIndex = -1;
        const QList<ProbationTimeline::Period> &periods = m_timeline->m_rows.at(row).periods;
        for (int i = int(periods.size()) - 1; i >= 0; --i) {
            const ProbationTimeline::Period &period = periods.at(i);
            const double left = xFor(period.startMs, plot);
            const double right = std::max(left + 3, xFor(period.isOngoing() ? m_timeline->m_nowMs : period.endMs, plot));
            if (pos.x() >= left - 2 && pos.x() <= right + 2) {
                *periodIndex = i;
                break;
            }
        }
        return true;
    }

protected:
    bool event(QEvent *event) override
    {
        if (event->type() == QEvent::ToolTip) {
            auto *help = static_cast<QHelpEvent *>(event);
            int rowIndex = -1;
            int periodIndex = -1;
            if (!hit(help->pos(), &rowIndex, &periodIndex)) {
                QToolTip::hideText();
                event->ignore();
                return true;
            }
            QToolTip::showText(help->globalPos(), toolTipFor(rowIndex, periodIndex), this);
            return true;
        }
        return QWidget::event(event);
    }

    QString toolTipFor(int rowIndex, int periodIndex) const
    {
        const ProbationTimeline::Row &row = m_timeline->m_rows.at(rowIndex);
        QString text = u"<b>"_s + rowName(row).toHtmlEscaped() + u"</b><br>"_s;
        if (periodIndex < 0) {
            switch (row.state) {
            case ProbationTracker::State::Healthy:
                return text + tr("Healthy now");
            case ProbationTracker::State::InProbation:
                return text + tr("In probation now");
            case ProbationTracker::State::HalfOpen:
                return text + tr("Probation over: trying one delivery (half-open)");
            }
            return text;
        }
        const ProbationTimeline::Period &period = row.periods.at(periodIndex);
        text += tr("Cause: %1").arg(deliveryOutcomeName(period.cause)) + u"<br>"_s;
        text += tr("Start: %1").arg(formatTime(period.startMs)) + u"<br>"_s;
        if (period.isOngoing()) {
            text += tr("Still in probation (%1 so far)").arg(formatDuration(m_timeline->m_nowMs - period.startMs));
            if (period.untilMs > 0)
                text += u"<br>"_s + tr("Next try: %1").arg(formatTime(period.untilMs));
        } else {
            text += tr("End: %1 (%2)").arg(formatTime(period.endMs), formatDuration(period.endMs - period.startMs));
        }
        if (period.entries > 1)
            text += u"<br>"_s + tr("Entered probation %1 times: each failed retry doubled the wait").arg(period.entries);
        return text;
    }

    void paintEvent(QPaintEvent *event) override
    {
        QPainter painter(this);
        painter.setRenderHint(QPainter::Antialiasing);
        const QPalette pal = palette();
        painter.fillRect(rect(), pal.color(QPalette::Base));
        const QRect plot = plotRect();
        const int rowH = rowHeight();
        const QFontMetrics metrics = fontMetrics();
        const auto &rows = m_timeline->m_rows;

        if (rows.isEmpty()) {
            painter.setPen(pal.color(QPalette::PlaceholderText));
            painter.drawText(rect(), Qt::AlignCenter, tr("No subscriptions"));
            return;
        }

        // Rows: alternating background, selection, name with a state dot. Only the rows in the
        // area being painted: names are shaped text, and a workspace may have hundreds of rows.
        const QRect exposed = event->rect();
        for (int i = 0; i < rows.size(); ++i) {
            const ProbationTimeline::Row &row = rows.at(i);
            const QRect rowRect(0, plot.top() + i * rowH, width(), rowH);
            if (!rowRect.intersects(exposed))
                continue;
            if (i % 2 == 1)
                painter.fillRect(rowRect, pal.color(QPalette::AlternateBase));
            if (row.topic == m_timeline->m_selectedTopic && row.subscription == m_timeline->m_selectedSubscription) {
                QColor highlight = pal.color(QPalette::Highlight);
                highlight.setAlpha(50);
                painter.fillRect(rowRect, highlight);
            }
            QColor dotColor = outcomeColor(DeliveryOutcome::Delivered, pal);
            if (row.state != ProbationTracker::State::Healthy && !row.periods.isEmpty())
                dotColor = outcomeColor(row.periods.last().cause, pal);
            painter.setPen(Qt::NoPen);
            painter.setBrush(dotColor);
            const int dot = dotSize();
            const QRectF dotRect(6, rowRect.center().y() - dot / 2, dot, dot);
            // The shape says it too: a disc when healthy, a triangle in probation.
            if (row.state == ProbationTracker::State::Healthy)
                painter.drawEllipse(dotRect);
            else
                painter.drawPolygon(QPolygonF {QPointF(dotRect.center().x(), dotRect.top() - 1),
                                               QPointF(dotRect.right() + 1, dotRect.bottom() + 1),
                                               QPointF(dotRect.left() - 1, dotRect.bottom() + 1)});
            painter.setPen(pal.color(QPalette::Text));
            const int nameLeft = 6 + dot + 6;
            const QRect nameRect(nameLeft, rowRect.top(), plot.left() - nameLeft - 8, rowH);
            painter.drawText(nameRect, Qt::AlignVCenter | Qt::AlignLeft,
                             metrics.elidedText(rowName(row), Qt::ElideMiddle, nameRect.width()));
        }

        // Time grid and axis labels.
        const qint64 window = m_timeline->windowMs();
        const qint64 now = m_timeline->m_nowMs;
        const qint64 interval = tickIntervalMs(window);
        const qint64 offset = QDateTime::fromMSecsSinceEpoch(now).offsetFromUtc() * 1000LL;
        QColor grid = pal.color(QPalette::Text);
        grid.setAlpha(40);
        const int rowsBottom = plot.top() + int(rows.size()) * rowH;
        const int axisTop = std::min(rowsBottom, plot.bottom()) + 2;
        for (qint64 tick = ((now - window + offset) / interval + 1) * interval - offset; tick <= now; tick += interval) {
            const int x = qRound(xFor(tick, plot));
            painter.setPen(QPen(grid, 1));
            painter.drawLine(x, plot.top(), x, axisTop);
            const QString label = window > 60LL * 60 * 1000 ? QDateTime::fromMSecsSinceEpoch(tick).toString(u"HH:mm"_s)
                                                            : formatClock(tick);
            const int labelWidth = metrics.horizontalAdvance(label);
            if (x - labelWidth / 2 < plot.left() || x + labelWidth / 2 > width())
                continue;
            painter.setPen(pal.color(QPalette::PlaceholderText));
            painter.drawText(QRect(x - labelWidth / 2 - 2, axisTop + 2, labelWidth + 4, metrics.height()),
                             Qt::AlignCenter, label);
        }
        painter.setPen(QPen(pal.color(QPalette::Mid), 1));
        painter.drawLine(plot.left(), axisTop, plot.right(), axisTop);

        // Probation bars.
        painter.save();
        painter.setClipRect(QRect(plot.left(), plot.top(), plot.width() + 1, rowsBottom - plot.top()));
        for (int i = 0; i < rows.size(); ++i) {
            const QRect rowRect(plot.left(), plot.top() + i * rowH, plot.width(), rowH);
            if (!rowRect.intersects(exposed))
                continue;
            for (const ProbationTimeline::Period &period : rows.at(i).periods) {
                const qint64 end = period.isOngoing() ? now : period.endMs;
                if (end < now - window)
                    continue;
                const double left = xFor(period.startMs, plot);
                const double right = std::max(left + 3, xFor(end, plot));
                const QRectF bar(left, rowRect.top() + 3, right - left, rowH - 6);
                QColor fill = outcomeColor(period.cause, pal);
                painter.setPen(QPen(fill.darker(130), 1));
                painter.setBrush(fill);
                painter.drawRoundedRect(bar, 3, 3);
                QString label = deliveryOutcomeName(period.cause);
                if (period.entries > 1)
                    label += u" ×%1"_s.arg(period.entries);
                const QRectF visible = bar.intersected(QRectF(plot));
                if (metrics.horizontalAdvance(label) + 8 <= visible.width()) {
                    painter.setPen(readableTextOn(fill));
                    painter.drawText(visible, Qt::AlignCenter, label);
                }
            }
        }
        painter.restore();

        // "Now" at the right edge.
        QColor nowColor = pal.color(QPalette::Highlight);
        painter.setPen(QPen(nowColor, 1, Qt::DashLine));
        painter.drawLine(plot.right(), plot.top(), plot.right(), axisTop);
    }

private:
    ProbationTimeline *m_timeline;
    mutable QFont m_measuredFont;
    mutable QList<std::pair<QString, QString>> m_measuredNames;
    mutable int m_widestName = 0;
};

void ProbationTimeline::setTimeNote(const QString &text, const QString &toolTip)
{
    m_timeNote->setText(text);
    m_timeNote->setToolTip(toolTip);
    m_timeNote->setVisible(!text.isEmpty());
}

ProbationTimeline::ProbationTimeline(QWidget *parent)
    : QWidget(parent)
    , m_windowCombo(new QComboBox(this))
    , m_canvas(new ProbationTimelineCanvas(this))
{
    auto *title = new QLabel(tr("Probation timeline"), this);
    QFont titleFont = title->font();
    titleFont.setBold(true);
    title->setFont(titleFont);
    title->setToolTip(tr("When each subscription was in probation (SPEC P1–P6), coloured by the outcome "
                         "that caused it. Times are engine time."));
    m_windowCombo->addItem(tr("Last 5 minutes"), int(Window::FiveMinutes));
    m_windowCombo->addItem(tr("Last hour"), int(Window::OneHour));
    m_windowCombo->addItem(tr("Last 24 hours"), int(Window::OneDay));
    m_windowCombo->setToolTip(tr("How much history the timeline shows"));
    connect(m_windowCombo, &QComboBox::currentIndexChanged, this,
            [this](int index) { setWindow(Window(m_windowCombo->itemData(index).toInt())); });
    m_canvas->setToolTip(QString()); // per-bar tooltips come from the canvas itself
    m_canvas->setAccessibleName(tr("Probation timeline"));
    m_canvas->setAccessibleDescription(accessibleSummary());

    m_timeNote = new QLabel(this);
    m_timeNote->setForegroundRole(QPalette::PlaceholderText);
    m_timeNote->setVisible(false);
    auto *header = new QHBoxLayout;
    header->addWidget(title);
    header->addStretch();
    header->addWidget(m_timeNote);
    header->addWidget(m_windowCombo);
    // A workspace may have hundreds of subscriptions: the rows scroll, at least six in view.
    m_scroll = new QScrollArea(this);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_scroll->setWidgetResizable(true);
    m_scroll->setWidget(m_canvas);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(header);
    layout->addWidget(m_scroll, 1);
    rowCountChanged();
}

void ProbationTimeline::rowCountChanged()
{
    // An explicit minimum, not only the hint: resizing the canvas is what makes the scroll area
    // (which follows its widget's resizes, not its layout requests) show or hide its scroll bar.
    m_canvas->setMinimumHeight(m_canvas->heightFor(int(m_rows.size())));
    m_canvas->updateGeometry();
    constexpr int RowsAlwaysShown = 6;
    m_scroll->setMinimumHeight(
        m_canvas->heightFor(std::min<int>(int(m_rows.size()), RowsAlwaysShown)));
}

ProbationTimeline::~ProbationTimeline() = default;

qint64 ProbationTimeline::windowMs() const
{
    switch (m_window) {
    case Window::FiveMinutes:
        return 5LL * 60 * 1000;
    case Window::OneHour:
        return 60LL * 60 * 1000;
    case Window::OneDay:
        return 24LL * 60 * 60 * 1000;
    }
    return 5LL * 60 * 1000;
}

void ProbationTimeline::setWindow(Window window)
{
    const int index = m_windowCombo->findData(int(window));
    if (m_windowCombo->currentIndex() != index)
        m_windowCombo->setCurrentIndex(index); // comes back here through the signal
    if (m_window == window)
        return;
    m_window = window;
    m_canvas->update();
    Q_EMIT windowChanged(window);
}

void ProbationTimeline::setSelection(const QString &topic, const QString &subscription)
{
    m_selectedTopic = topic;
    m_selectedSubscription = subscription;
    m_canvas->update();
}

void ProbationTimeline::clear()
{
    m_rows.clear();
    m_nowMs = 0;
    rowCountChanged();
    m_canvas->update();
}

QList<ProbationTimeline::Period> ProbationTimeline::periods(const QString &topic, const QString &subscription) const
{
    for (const Row &row : m_rows)
        if (row.topic == topic && row.subscription == subscription)
            return row.periods;
    return {};
}

QString ProbationTimeline::accessibleSummary() const
{
    if (m_rows.isEmpty())
        return tr("No subscriptions");
    QStringList parts;
    for (const Row &row : m_rows) {
        const QString name = row.topic + u" / "_s + row.subscription;
        switch (row.state) {
        case ProbationTracker::State::Healthy:
            parts.append(tr("%1: healthy").arg(name));
            break;
        case ProbationTracker::State::InProbation:
            parts.append(
                tr("%1: in probation (%2)")
                    .arg(name,
                         deliveryOutcomeName(row.periods.isEmpty() ? DeliveryOutcome::Busy
                                                                   : row.periods.last().cause)));
            break;
        case ProbationTracker::State::HalfOpen:
            parts.append(tr("%1: probing after probation").arg(name));
            break;
        }
    }
    return parts.join(u"; "_s);
}

void ProbationTimeline::addSnapshot(const EventDesk::EngineSnapshot &snapshot)
{
    m_nowMs = std::max(m_nowMs, snapshot.nowMs);
    const qint64 now = m_nowMs;
    QList<Row> rows;
    rows.reserve(snapshot.subscriptions.size());
    for (const SubscriptionSnapshot &subscription : snapshot.subscriptions) {
        Row row;
        for (const Row &existing : std::as_const(m_rows)) {
            if (existing.topic == subscription.topic && existing.subscription == subscription.subscription) {
                row = existing;
                break;
            }
        }
        row.topic = subscription.topic;
        row.subscription = subscription.subscription;
        const bool inProbation = subscription.probationState != ProbationTracker::State::Healthy;
        Period *ongoing = !row.periods.isEmpty() && row.periods.last().isOngoing() ? &row.periods.last() : nullptr;
        if (inProbation) {
            if (ongoing && ongoing->cause != subscription.probationCause) {
                ongoing->endMs = now;
                ongoing = nullptr;
            }
            if (!ongoing) {
                Period period;
                period.startMs = now;
                period.cause = subscription.probationCause;
                period.untilMs = subscription.probationUntilMs;
                row.periods.append(period);
            } else {
                // HalfOpen -> InProbation again: the probe failed and the wait doubled (P4).
                if (row.state == ProbationTracker::State::HalfOpen
                    && subscription.probationState == ProbationTracker::State::InProbation)
                    ++ongoing->entries;
                ongoing->untilMs = subscription.probationUntilMs;
            }
        } else if (ongoing) {
            ongoing->endMs = now;
        }
        row.state = subscription.probationState;
        while (!row.periods.isEmpty() && !row.periods.first().isOngoing()
               && (row.periods.first().endMs < now - KeepMs || row.periods.size() > MaxPeriodsPerRow))
            row.periods.removeFirst();
        rows.append(row);
    }
    const bool rowsAddedOrRemoved = rows.size() != m_rows.size();
    m_rows = rows;
    const QString summary = accessibleSummary();
    if (summary != m_canvas->accessibleDescription())
        m_canvas->setAccessibleDescription(summary);
    if (rowsAddedOrRemoved)
        rowCountChanged();
    m_canvas->update();
}

} // namespace EventDesk::Ui
