// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "engine/EngineSnapshot.h"

#include <QList>
#include <QString>
#include <QWidget>

class QComboBox;
class QLabel;
class QScrollArea;

namespace EventDesk::Ui {

class ProbationTimelineCanvas;

// SPEC P6 made visible: one row per subscription with a bar for every period it spent in
// probation (including the half-open probe), labelled and coloured by the outcome that caused
// it, over the last 5 minutes, hour or day of engine time. Fed from the engine's snapshots.
class ProbationTimeline final : public QWidget
{
    Q_OBJECT

public:
    struct Period
    {
        qint64 startMs = 0; // engine time
        qint64 endMs = 0; // 0 while it lasts
        DeliveryOutcome cause = DeliveryOutcome::Busy;
        qint64 untilMs = 0; // latest probation end the engine announced
        int entries = 1; // times it went (back) into probation: more than one means doubling (P4)

        bool isOngoing() const { return endMs == 0; }
    };

    struct Row
    {
        QString topic;
        QString subscription;
        ProbationTracker::State state = ProbationTracker::State::Healthy;
        QList<Period> periods; // oldest first
    };

    enum class Window { FiveMinutes, OneHour, OneDay };
    Q_ENUM(Window)

    explicit ProbationTimeline(QWidget *parent = nullptr);
    ~ProbationTimeline() override;

    void addSnapshot(const EventDesk::EngineSnapshot &snapshot);
    void clear();

    void setWindow(Window window);
    // A note beside the window's choice (engineTimeNote()): its times are an engine's that runs
    // faster than the wall clock. Empty: none.
    void setTimeNote(const QString &text, const QString &toolTip);
    QLabel *timeNoteLabel() const { return m_timeNote; }
    Window window() const { return m_window; }
    qint64 windowMs() const;

    QList<Row> rows() const { return m_rows; }
    QList<Period> periods(const QString &topic, const QString &subscription) const;
    qint64 nowMs() const { return m_nowMs; }

    // Each subscription's state in words, for screen readers (the canvas's accessible description).
    QString accessibleSummary() const;

    // Highlights one subscription's row (empty topic: none).
    void setSelection(const QString &topic, const QString &subscription);

Q_SIGNALS:
    void windowChanged(EventDesk::Ui::ProbationTimeline::Window window);

private:
    friend class ProbationTimelineCanvas;

    static constexpr int MaxPeriodsPerRow = 500;
    static constexpr qint64 KeepMs = 25LL * 60 * 60 * 1000;

    void rowCountChanged();

    QComboBox *m_windowCombo = nullptr;
    QLabel *m_timeNote = nullptr;
    ProbationTimelineCanvas *m_canvas = nullptr;
    QScrollArea *m_scroll = nullptr;
    QList<Row> m_rows;
    qint64 m_nowMs = 0;
    Window m_window = Window::FiveMinutes;
    QString m_selectedTopic;
    QString m_selectedSubscription;
};

} // namespace EventDesk::Ui
