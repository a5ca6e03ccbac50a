// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "EventInspector.h"

#include "StoreReader.h"
#include "common/Format.h"

#include <QAction>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QStyle>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

EventInspector::EventInspector(QWidget *parent)
    : QWidget(parent)
    , m_reader(new StoreReader(this))
    , m_title(new QLabel(this))
    , m_summary(new QLabel(this))
    , m_refreshButton(new QPushButton(tr("&Refresh"), this))
    , m_timeline(new EventTimeline)
    , m_timelineArea(new QScrollArea(this))
    , m_payload(new QPlainTextEdit(this))
    , m_payloadCaption(new QLabel(tr("Payload"), this))
{
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.15);
    m_title->setFont(titleFont);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setForegroundRole(QPalette::PlaceholderText);

    m_refreshButton->setIcon(style()->standardIcon(QStyle::SP_BrowserReload));
    m_refreshButton->setToolTip(tr("Read the event's history from the store again (F5)"));
    m_refreshButton->setEnabled(false);
    auto *refreshAction = new QAction(this);
    refreshAction->setShortcut(QKeySequence::Refresh);
    refreshAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    addAction(refreshAction);
    connect(refreshAction, &QAction::triggered, this, &EventInspector::refresh);
    connect(m_refreshButton, &QPushButton::clicked, this, &EventInspector::refresh);

    m_timelineArea->setWidget(m_timeline);
    m_timelineArea->setWidgetResizable(true);
    m_timelineArea->setFrameShape(QFrame::StyledPanel);
    m_timelineArea->setBackgroundRole(QPalette::Base);

    m_payload->setReadOnly(true);
    m_payload->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_payload->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_payload->setPlaceholderText(tr("The payload is no longer in the store: the event was "
                                     "delivered or dropped and its body removed."));
    m_payloadCaption->setBuddy(m_payload);

    auto *header = new QHBoxLayout;
    auto *titles = new QVBoxLayout;
    titles->addWidget(m_title);
    titles->addWidget(m_summary);
    header->addLayout(titles, 1);
    header->addWidget(m_refreshButton, 0, Qt::AlignTop);

    auto *payloadPane = new QWidget(this);
    auto *payloadLayout = new QVBoxLayout(payloadPane);
    payloadLayout->setContentsMargins(0, 0, 0, 0);
    payloadLayout->addWidget(m_payloadCaption);
    payloadLayout->addWidget(m_payload, 1);

    auto *splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(m_timelineArea);
    splitter->addWidget(payloadPane);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setChildrenCollapsible(false);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(header);
    layout->addWidget(splitter, 1);

    m_title->setText(tr("No event selected"));
    m_summary->setText(
        tr("Double-click an attempt in the delivery log to see its event's history."));
}

EventInspector::~EventInspector() = default;

void EventInspector::setStoreLocation(const QString &location)
{
    m_reader->setStoreLocation(location);
}

void EventInspector::refresh()
{
    if (!m_eventId.isEmpty())
        showEvent(m_eventId);
}

void EventInspector::showEvent(const QString &eventId)
{
    m_eventId = eventId;
    const quint64 generation = ++m_generation;
    m_loading = true;
    m_refreshButton->setEnabled(false);
    m_title->setText(tr("Event %1").arg(eventId));
    m_summary->setText(tr("Reading the event's history…"));
    m_reader->run(this,
                  [this, generation, eventId](
                      const Expected<DeliveryStoreReader *> &store) -> StoreReader::Continuation {
                      EventHistory history;
                      history.eventId = eventId;
                      QString error;
                      if (!store) {
                          error = store.error();
                      } else if (auto read = store.value()->eventHistory(eventId); !read) {
                          error = read.error();
                      } else {
                          history = std::move(read.value());
                          // The record is shown; the event body of a dead letter is not.
                          for (DeadLetterEntry &deadLetter : history.deadLetters)
                              deadLetter.eventBody.clear();
                      }
                      return [this, generation, history = std::move(history), error] {
                          if (generation == m_generation)
                              present(history, error);
                      };
                  });
}

void EventInspector::present(const EventHistory &history, const QString &error)
{
    m_loading = false;
    m_refreshButton->setEnabled(true);
    m_history = history;
    m_timeline->setHistory(history);

    QStringList facts;
    if (!history.events.isEmpty()) {
        const StoredEvent &event = history.events.constFirst();
        if (!event.eventType.isEmpty())
            facts << tr("type %1").arg(event.eventType);
        if (!event.subject.isEmpty())
            facts << tr("subject %1").arg(event.subject);
        facts << tr("topic %1").arg(event.topic);
        if (event.publishMs > 0)
            facts << tr("published %1").arg(formatTime(event.publishMs));
    } else if (!history.deadLetters.isEmpty()) {
        const DeadLetterEntry &deadLetter = history.deadLetters.constFirst();
        facts << tr("topic %1").arg(deadLetter.topic);
        if (deadLetter.publishMs > 0)
            facts << tr("published %1").arg(formatTime(deadLetter.publishMs));
    }
    facts << tr("%n attempt(s) logged", nullptr, int(history.attempts.size()));
    if (!history.deadLetters.isEmpty())
        facts << tr("%n dead letter(s)", nullptr, int(history.deadLetters.size()));
    if (!history.drops.isEmpty())
        facts << tr("dropped %n time(s)", nullptr, int(history.drops.size()));
    QString summary = facts.join(u" · "_s);
    if (!error.isEmpty())
        summary = error;
    else if (history.attempts.isEmpty() && history.deadLetters.isEmpty() && history.drops.isEmpty()
             && history.unfinished.isEmpty())
        summary = tr("The store has no record of this event id (the delivery log keeps only the "
                     "newest attempts).");
    m_summary->setText(summary);

    QByteArray payload;
    if (!history.events.isEmpty()) {
        payload = history.events.constFirst().body;
        m_payloadCaption->setText(tr("Payload (as published)"));
    } else if (!history.deadLetters.isEmpty()) {
        payload = history.deadLetters.constLast().record;
        m_payloadCaption->setText(tr("Payload (dead-letter record)"));
    } else {
        m_payloadCaption->setText(tr("Payload"));
    }
    m_payload->setPlainText(payload.isEmpty() ? QString() : prettyJson(payload));
    Q_EMIT historyShown(history.eventId);
}

} // namespace EventDesk::Ui
