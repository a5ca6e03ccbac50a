// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "store/DeliveryStore.h"
#include "store/DeliveryStoreReader.h"

#include <QColor>
#include <QList>
#include <QString>
#include <QWidget>

namespace EventDesk::Ui {

// EventHistory (store/DeliveryStoreReader.h): everything the store still knows about one event id.
using EventDesk::EventHistory;

// One event's history drawn as a vertical timeline: per subscription its attempts (markers in the
// outcome's colour, with status, outcome, duration and the wait until the next one), where it was
// resubmitted from a dead letter, and its fate at the end (delivered, dead-lettered, dropped, or
// still pending).
class EventTimeline final : public QWidget
{
    Q_OBJECT

public:
    struct Item
    {
        // Resubmitted: the event came back from a dead letter (ResubmissionEntry), in the lane it
        // died in and in the lanes it was resubmitted to.
        enum class Kind { Lane, Attempt, Resubmitted, Fate };
        Kind kind = Kind::Attempt;
        QString title;
        QString detail;
        QColor color; // marker colour (attempts and fates)
        DeliveryState fate = DeliveryState::Pending; // Kind::Fate
    };

    explicit EventTimeline(QWidget *parent = nullptr);

    void setHistory(const EventHistory &history);
    void clear();
    const QList<Item> &items() const { return m_items; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    int itemHeight(const Item &item) const;

    QList<Item> m_items;
};

} // namespace EventDesk::Ui
