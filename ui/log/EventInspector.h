// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "EventTimeline.h"

#include <QString>
#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QScrollArea;

namespace EventDesk::Ui {

class StoreReader;

// docs/user-guide.md "Event inspector": one event's full history as a timeline: every logged
// attempt whose request carried the id (attemptsOfEventSql()), its dead-letter and drop records,
// deliveries still under way, and the payload while the store still has it.
class EventInspector final : public QWidget
{
    Q_OBJECT

public:
    explicit EventInspector(QWidget *parent = nullptr);
    ~EventInspector() override;

    void setStoreLocation(const QString &location);
    // Reads the event's history on the reader thread; historyShown() when it is on screen.
    void showEvent(const QString &eventId);
    // Reads the current event's history again (F5).
    void refresh();

    QString eventId() const { return m_eventId; }
    bool isLoading() const { return m_loading; }
    const EventHistory &history() const { return m_history; }
    EventTimeline *timeline() const { return m_timeline; }
    QPlainTextEdit *payloadView() const { return m_payload; }

Q_SIGNALS:
    void historyShown(const QString &eventId);

protected:
    using QWidget::showEvent;

private:
    void present(const EventHistory &history, const QString &error);

    StoreReader *m_reader = nullptr;
    QLabel *m_title = nullptr;
    QLabel *m_summary = nullptr;
    QPushButton *m_refreshButton = nullptr;
    EventTimeline *m_timeline = nullptr;
    QScrollArea *m_timelineArea = nullptr;
    QPlainTextEdit *m_payload = nullptr;
    QLabel *m_payloadCaption = nullptr;

    QString m_eventId;
    EventHistory m_history;
    quint64 m_generation = 0;
    bool m_loading = false;
};

} // namespace EventDesk::Ui
