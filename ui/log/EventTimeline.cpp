// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "EventTimeline.h"

#include "common/Format.h"

#include <QEvent>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <limits>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {

constexpr int Margin = 12;
constexpr int MarkerColumn = 22; // x of the markers' centre, from the left margin
constexpr int TextIndent = 44;
constexpr int MarkerRadius = 6;

QString statusText(int httpStatus)
{
    return httpStatus > 0 ? QString::number(httpStatus) : EventTimeline::tr("no response");
}

using Lane = std::pair<QString, QString>;

} // namespace

EventTimeline::EventTimeline(QWidget *parent)
    : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    setBackgroundRole(QPalette::Base);
    setAutoFillBackground(true);
}

void EventTimeline::clear()
{
    m_items.clear();
    updateGeometry();
    update();
}

void EventTimeline::setHistory(const EventHistory &history)
{
    m_items.clear();

    QList<Lane> lanes;
    const auto noteLane = [&lanes](const QString &topic, const QString &subscription) {
        const Lane lane(topic, subscription);
        if (!lanes.contains(lane))
            lanes.append(lane);
    };
    for (const AttemptLogEntry &attempt : history.attempts)
        noteLane(attempt.topic, attempt.subscription);
    for (const DeliveryRecord &delivery : history.unfinished)
        noteLane(delivery.topic, delivery.subscription);
    for (const DeadLetterEntry &deadLetter : history.deadLetters)
        noteLane(deadLetter.topic, deadLetter.subscription);
    for (const DroppedEntry &drop : history.drops)
        noteLane(drop.topic, drop.subscription);
    for (const ResubmissionEntry &resubmission : history.resubmissions) {
        noteLane(resubmission.topic, resubmission.fromSubscription);
        noteLane(resubmission.topic, resubmission.toSubscription);
    }

    for (const Lane &lane : std::as_const(lanes)) {
        Item header;
        header.kind = Item::Kind::Lane;
        header.title = tr("%1 / %2").arg(lane.first, lane.second);
        m_items.append(header);

        // The resubmissions that concern this lane, one per dead letter, oldest first: shown
        // between the attempts before and after them.
        QList<Item> resubmitted;
        QList<qint64> resubmittedAt;
        bool leftByResubmit = false; // this lane's dead letter was resubmitted
        for (const ResubmissionEntry &resubmission : history.resubmissions) {
            const bool from
                = resubmission.topic == lane.first && resubmission.fromSubscription == lane.second;
            const bool to
                = resubmission.topic == lane.first && resubmission.toSubscription == lane.second;
            if (!from && !to)
                continue;
            leftByResubmit = leftByResubmit || from;
            QStringList targets;
            for (const ResubmissionEntry &other : history.resubmissions) {
                if (other.deadLetterId == resubmission.deadLetterId)
                    targets << other.toSubscription;
            }
            const QString title
                = (resubmission.route == ResubmitRoute::ThroughTopic
                       ? tr("Resubmitted through the topic from dead letter %1 (%2)")
                       : tr("Resubmitted to the subscription from dead letter %1 "
                            "(%2)"))
                      .arg(resubmission.deadLetterId)
                      .arg(deadLetterReasonName(resubmission.reason));
            if (!resubmitted.isEmpty() && resubmitted.constLast().title == title)
                continue; // the same dead letter, seen through another of its deliveries
            Item item;
            item.kind = Item::Kind::Resubmitted;
            item.color = palette().color(QPalette::Highlight);
            item.title = title;
            item.detail = tr("%1 · dead in %2 · now to %3")
                              .arg(formatTime(resubmission.timeMs), resubmission.fromSubscription,
                                   targets.join(u", "_s));
            resubmitted.append(item);
            resubmittedAt.append(resubmission.timeMs);
        }
        qsizetype nextResubmitted = 0;
        const auto resubmittedUpTo = [&](qint64 timeMs) {
            while (nextResubmitted < resubmitted.size()
                   && resubmittedAt.at(nextResubmitted) <= timeMs)
                m_items.append(resubmitted.at(nextResubmitted++));
        };

        const AttemptLogEntry *last = nullptr;
        for (const AttemptLogEntry &attempt : history.attempts) {
            if (attempt.topic != lane.first || attempt.subscription != lane.second)
                continue;
            resubmittedUpTo(attempt.timeMs);
            Item item;
            item.kind = Item::Kind::Attempt;
            item.color = outcomeColor(attempt.outcome);
            item.title = tr("Attempt %1 · %2 · %3")
                             .arg(attempt.attempt)
                             .arg(statusText(attempt.httpStatus), deliveryOutcomeName(attempt.outcome));
            QString detail = tr("%1 · took %2").arg(formatTime(attempt.timeMs),
                                                    formatLatency(attempt.durationMs));
            if (attempt.nextDueMs > 0) {
                detail += tr(" · next attempt in %1 (%2)")
                              .arg(formatDuration(attempt.nextDueMs - attempt.timeMs),
                                   formatClock(attempt.nextDueMs));
            }
            if (attempt.eventIds.size() > 1)
                detail += tr(" · batch of %n events", nullptr, int(attempt.eventIds.size()));
            item.detail = detail;
            m_items.append(item);
            last = &attempt;
        }
        resubmittedUpTo(std::numeric_limits<qint64>::max());

        Item fate;
        fate.kind = Item::Kind::Fate;
        const auto deadLetter = std::find_if(
            history.deadLetters.cbegin(), history.deadLetters.cend(),
            [&lane](const DeadLetterEntry &entry) {
                return entry.topic == lane.first && entry.subscription == lane.second;
            });
        const auto drop = std::find_if(history.drops.cbegin(), history.drops.cend(),
                                       [&lane](const DroppedEntry &entry) {
                                           return entry.topic == lane.first
                                               && entry.subscription == lane.second;
                                       });
        const auto unfinished = std::find_if(
            history.unfinished.cbegin(), history.unfinished.cend(),
            [&lane](const DeliveryRecord &record) {
                return record.topic == lane.first && record.subscription == lane.second;
            });
        if (unfinished != history.unfinished.cend()) {
            fate.fate = unfinished->state;
            fate.color = palette().color(QPalette::Mid);
            switch (unfinished->state) {
            case DeliveryState::InFlight:
                fate.title = tr("In flight");
                fate.detail = tr("Attempt %1 is waiting for the destination's answer")
                                  .arg(unfinished->attempts + 1);
                break;
            case DeliveryState::DeadLetterPending:
                fate.title = tr("Being dead-lettered: %1").arg(deadLetterReasonName(unfinished->reason));
                fate.detail = tr("Next write to the dead-letter destination at %1")
                                  .arg(formatTime(unfinished->dueMs));
                break;
            default:
                fate.title = tr("Pending");
                fate.detail = tr("Attempt %1 due at %2")
                                  .arg(unfinished->attempts + 1)
                                  .arg(formatTime(unfinished->dueMs));
                break;
            }
        } else if (deadLetter != history.deadLetters.cend()) {
            fate.fate = DeliveryState::DeadLettered;
            fate.color = outcomeColor(DeliveryOutcome::BadRequest);
            fate.title = tr("Dead-lettered: %1").arg(deadLetterReasonName(deadLetter->reason));
            fate.detail = tr("%1 · after %n attempt(s) · last outcome %2 (%3) · %4", nullptr,
                             deadLetter->attempts)
                              .arg(formatTime(deadLetter->deadLetteredMs),
                                   deliveryOutcomeName(deadLetter->lastOutcome),
                                   statusText(deadLetter->lastHttpStatus), deadLetter->blobPath);
        } else if (drop != history.drops.cend()) {
            fate.fate = DeliveryState::Dropped;
            fate.color = outcomeColor(DeliveryOutcome::Canceled);
            fate.title = tr("Dropped: %1").arg(deadLetterReasonName(drop->reason));
            fate.detail = tr("%1 · after %n attempt(s) · last outcome %2 (%3)", nullptr,
                             drop->attempts)
                              .arg(formatTime(drop->droppedMs),
                                   deliveryOutcomeName(drop->lastOutcome),
                                   statusText(drop->lastHttpStatus));
        } else if (last && last->outcome == DeliveryOutcome::Delivered) {
            fate.fate = DeliveryState::Delivered;
            fate.color = outcomeColor(DeliveryOutcome::Delivered);
            fate.title = tr("Delivered");
            fate.detail = tr("%1 · HTTP %2").arg(formatTime(last->timeMs + last->durationMs),
                                                 statusText(last->httpStatus));
        } else if (leftByResubmit) {
            fate.fate = DeliveryState::DeadLettered;
            fate.color = outcomeColor(DeliveryOutcome::BadRequest);
            fate.title = tr("Dead-lettered, then resubmitted");
            fate.detail = tr("The dead letter left the index when it was resubmitted (above)");
        } else {
            fate.fate = DeliveryState::Pending;
            fate.color = palette().color(QPalette::Mid);
            fate.title = tr("Fate not recorded");
            fate.detail = tr("The store keeps no further trace of this delivery (the delivery log "
                             "holds only the newest attempts)");
        }
        m_items.append(fate);
    }
    updateGeometry();
    update();
}

int EventTimeline::itemHeight(const Item &item) const
{
    const QFontMetrics metrics = fontMetrics();
    if (item.kind == Item::Kind::Lane)
        return metrics.height() + 18;
    return 2 * metrics.height() + 14;
}

QSize EventTimeline::sizeHint() const
{
    const QFontMetrics metrics = fontMetrics();
    int width = 360;
    int height = 2 * Margin;
    for (const Item &item : m_items) {
        height += itemHeight(item);
        const int indent = item.kind == Item::Kind::Lane ? Margin : Margin + TextIndent;
        width = std::max({width, indent + metrics.horizontalAdvance(item.title) + 40,
                          indent + metrics.horizontalAdvance(item.detail) + Margin});
    }
    return QSize(width, height);
}

QSize EventTimeline::minimumSizeHint() const
{
    return QSize(240, sizeHint().height());
}

void EventTimeline::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::FontChange || event->type() == QEvent::PaletteChange) {
        updateGeometry();
        update();
    }
    QWidget::changeEvent(event);
}

void EventTimeline::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    const QPalette colors = palette();
    const QFontMetrics metrics = fontMetrics();
    QFont boldFont = font();
    boldFont.setBold(true);
    const int markerX = Margin + MarkerColumn;
    const int textX = Margin + TextIndent;
    const int textWidth = std::max(10, width() - textX - Margin);

    if (m_items.isEmpty()) {
        painter.setPen(colors.color(QPalette::PlaceholderText));
        painter.drawText(rect().adjusted(Margin, Margin, -Margin, -Margin),
                         Qt::AlignCenter | Qt::TextWordWrap, tr("No history to show"));
        return;
    }

    // Spines first, so that the markers are drawn over them.
    int y = Margin;
    int laneStart = -1;
    QPen spinePen(colors.color(QPalette::Mid), 2);
    for (const Item &item : m_items) {
        const int height = itemHeight(item);
        const int centre = y + metrics.height() / 2 + 5;
        if (item.kind == Item::Kind::Lane) {
            laneStart = -1;
        } else {
            if (laneStart >= 0) {
                painter.setPen(spinePen);
                painter.drawLine(markerX, laneStart, markerX, centre);
            }
            laneStart = centre;
        }
        y += height;
    }

    y = Margin;
    for (const Item &item : m_items) {
        const int height = itemHeight(item);
        if (item.kind == Item::Kind::Lane) {
            painter.setFont(boldFont);
            painter.setPen(colors.color(QPalette::Text));
            const QRect laneRect(Margin, y + 8, width() - 2 * Margin, metrics.height() + 4);
            painter.drawText(laneRect, Qt::AlignLeft | Qt::AlignVCenter,
                             metrics.elidedText(item.title, Qt::ElideRight, laneRect.width()));
            painter.setPen(QPen(colors.color(QPalette::Midlight), 1));
            painter.drawLine(Margin, y + height - 2, width() - Margin, y + height - 2);
            y += height;
            continue;
        }
        const int centre = y + metrics.height() / 2 + 5;
        painter.setPen(QPen(colors.color(QPalette::Base), 2));
        painter.setBrush(item.color);
        if (item.kind == Item::Kind::Attempt) {
            painter.drawEllipse(QPoint(markerX, centre), MarkerRadius, MarkerRadius);
        } else {
            const int size = MarkerRadius + 2;
            QPainterPath diamond;
            diamond.moveTo(markerX, centre - size);
            diamond.lineTo(markerX + size, centre);
            diamond.lineTo(markerX, centre + size);
            diamond.lineTo(markerX - size, centre);
            diamond.closeSubpath();
            painter.drawPath(diamond);
        }
        painter.setBrush(Qt::NoBrush);

        painter.setFont(item.kind == Item::Kind::Fate ? boldFont : font());
        painter.setPen(colors.color(QPalette::Text));
        const QFontMetrics titleMetrics(painter.font());
        painter.drawText(QRect(textX, y + 5, textWidth, metrics.height()),
                         Qt::AlignLeft | Qt::AlignVCenter,
                         titleMetrics.elidedText(item.title, Qt::ElideRight, textWidth));
        painter.setFont(font());
        painter.setPen(colors.color(QPalette::PlaceholderText));
        painter.drawText(QRect(textX, y + 5 + metrics.height(), textWidth, metrics.height()),
                         Qt::AlignLeft | Qt::AlignVCenter,
                         metrics.elidedText(item.detail, Qt::ElideMiddle, textWidth));
        y += height;
    }
}

} // namespace EventDesk::Ui
