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
#include <QSqlError>
#include <QSqlQuery>
#include <QStyle>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {

// Runs on the reader thread.
QString readHistory(QSqlDatabase &database, const QString &eventId, EventHistory *history)
{
    QSqlQuery query(database);
    query.setForwardOnly(true);
    const auto failed = [&query] { return query.lastError().text(); };

    // event_ids is comma-joined; the commas around both sides make only whole ids match.
    query.prepare(u"SELECT "_s + attemptLogColumns()
                  + u" FROM attempt_log WHERE instr(',' || event_ids || ',', ?) > 0 ORDER BY id"_s);
    query.addBindValue(QString(u',' + eventId + u','));
    if (!query.exec())
        return failed();
    while (query.next())
        history->attempts.append(attemptLogEntryFromRow(query));

    query.prepare(u"SELECT id, topic, subscription, reason, last_outcome, last_http_status,"
                  " attempts, publish_ms, last_attempt_ms, dead_lettered_ms, blob_path, record"
                  " FROM dead_letters WHERE event_id = ? ORDER BY id"_s);
    query.addBindValue(eventId);
    if (!query.exec())
        return failed();
    while (query.next()) {
        DeadLetterEntry entry;
        entry.id = query.value(0).toLongLong();
        entry.topic = query.value(1).toString();
        entry.subscription = query.value(2).toString();
        entry.eventId = eventId;
        entry.reason = static_cast<DeadLetterReason>(query.value(3).toInt());
        entry.lastOutcome = static_cast<DeliveryOutcome>(query.value(4).toInt());
        entry.lastHttpStatus = query.value(5).toInt();
        entry.attempts = query.value(6).toInt();
        entry.publishMs = query.value(7).toLongLong();
        entry.lastAttemptMs = query.value(8).toLongLong();
        entry.deadLetteredMs = query.value(9).toLongLong();
        entry.blobPath = query.value(10).toString();
        entry.record = query.value(11).toByteArray();
        history->deadLetters.append(entry);
    }

    query.prepare(u"SELECT topic, subscription, reason, last_outcome, last_http_status, attempts,"
                  " dropped_ms FROM dropped WHERE event_id = ? ORDER BY id"_s);
    query.addBindValue(eventId);
    if (!query.exec())
        return failed();
    while (query.next()) {
        DroppedEntry entry;
        entry.topic = query.value(0).toString();
        entry.subscription = query.value(1).toString();
        entry.eventId = eventId;
        entry.reason = static_cast<DeadLetterReason>(query.value(2).toInt());
        entry.lastOutcome = static_cast<DeliveryOutcome>(query.value(3).toInt());
        entry.lastHttpStatus = query.value(4).toInt();
        entry.attempts = query.value(5).toInt();
        entry.droppedMs = query.value(6).toLongLong();
        history->drops.append(entry);
    }

    query.prepare(u"SELECT seq, topic, event_type, subject, data_version, event_time, publish_ms,"
                  " body FROM events WHERE event_id = ? ORDER BY seq"_s);
    query.addBindValue(eventId);
    if (!query.exec())
        return failed();
    while (query.next()) {
        StoredEvent event;
        event.seq = query.value(0).toLongLong();
        event.topic = query.value(1).toString();
        event.id = eventId;
        event.eventType = query.value(2).toString();
        event.subject = query.value(3).toString();
        event.dataVersion = query.value(4).toString();
        event.eventTime = query.value(5).toString();
        event.publishMs = query.value(6).toLongLong();
        event.body = query.value(7).toByteArray();
        history->events.append(event);
    }

    query.prepare(u"SELECT topic, subscription, state, attempts, due_ms, last_outcome,"
                  " last_http_status, last_attempt_ms, reason FROM deliveries WHERE event_seq = ?"
                  " ORDER BY id"_s);
    for (const StoredEvent &event : std::as_const(history->events)) {
        query.addBindValue(event.seq);
        if (!query.exec())
            return failed();
        while (query.next()) {
            DeliveryRecord record;
            record.eventSeq = event.seq;
            record.topic = query.value(0).toString();
            record.subscription = query.value(1).toString();
            record.state = static_cast<DeliveryState>(query.value(2).toInt());
            record.attempts = query.value(3).toInt();
            record.dueMs = query.value(4).toLongLong();
            record.lastOutcome = static_cast<DeliveryOutcome>(query.value(5).toInt());
            record.lastHttpStatus = query.value(6).toInt();
            record.lastAttemptMs = query.value(7).toLongLong();
            record.reason = static_cast<DeadLetterReason>(query.value(8).toInt());
            history->unfinished.append(record);
        }
    }
    return QString();
}

} // namespace

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
    m_summary->setText(tr("Double-click an attempt in the delivery log to see its event's history."));
}

EventInspector::~EventInspector() = default;

void EventInspector::setStorePath(const QString &sqliteFile)
{
    m_storePath = sqliteFile;
    m_reader->setStorePath(sqliteFile);
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
    const QString storePath = m_storePath;
    m_reader->run(this, [this, generation, eventId, storePath](QSqlDatabase &database) -> StoreReader::Continuation {
        EventHistory history;
        history.eventId = eventId;
        QString error;
        if (!database.isOpen()) {
            error = storeReadError(storePath, database.lastError().isValid()
                                      ? database.lastError().text()
                                      : tr("the file does not exist"));
        } else if (const QString failure = readHistory(database, eventId, &history);
                   !failure.isEmpty()) {
            error = storeReadError(storePath, failure);
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
