// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "FilterBar.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDateTimeEdit>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QTimer>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {

// The time edits show minutes; "to" includes every second of the minute shown.
constexpr qint64 RestOfMinuteMs = 59999;

} // namespace

FilterBar::FilterBar(const Fields &fields, QWidget *parent)
    : QWidget(parent)
    , m_typingTimer(new QTimer(this))
{
    auto *firstLine = new QHBoxLayout;
    QHBoxLayout *lastLine = firstLine;

    // Created in the order of the layout, which is also the order of Tab.
    if (fields.text) {
        m_text = new QLineEdit(this);
        m_text->setObjectName(u"filterText"_s);
        m_text->setPlaceholderText(fields.text->placeholder);
        m_text->setClearButtonEnabled(true);
        m_findAction = new QAction(tr("Find"), this);
        m_findAction->setShortcut(QKeySequence::Find);
        m_findAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        m_text->setToolTip(tr("%1 (%2)").arg(
            fields.text->toolTip, m_findAction->shortcut().toString(QKeySequence::NativeText)));
        m_text->installEventFilter(this);
        connect(m_findAction, &QAction::triggered, this, [this] {
            m_text->setFocus(Qt::ShortcutFocusReason);
            m_text->selectAll();
        });
        connect(m_text, &QLineEdit::textChanged, this, &FilterBar::textEdited);
        connect(m_text, &QLineEdit::returnPressed, this, &FilterBar::applyNow);
        firstLine->addWidget(m_text, 1);
    }
    if (fields.subscription) {
        m_subscription = new QComboBox(this);
        m_subscription->setObjectName(u"filterSubscription"_s);
        m_subscription->setToolTip(*fields.subscription);
        m_subscription->setSizeAdjustPolicy(QComboBox::AdjustToContents);
        m_subscription->setMinimumContentsLength(16);
        m_subscription->addItem(tr("All subscriptions"));
        connect(m_subscription, &QComboBox::currentIndexChanged, this, &FilterBar::emitIfChanged);
        firstLine->addWidget(m_subscription);
    }
    if (fields.reason) {
        m_reason = new QComboBox(this);
        m_reason->setObjectName(u"filterReason"_s);
        m_reason->setToolTip(fields.reason->toolTip);
        m_reason->addItem(tr("All reasons"));
        for (const DeadLetterReason reason : fields.reason->reasons)
            m_reason->addItem(deadLetterReasonName(reason), int(reason));
        m_reason->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        m_reason->setMinimumContentsLength(22);
        connect(m_reason, &QComboBox::currentIndexChanged, this, &FilterBar::emitIfChanged);
        firstLine->addWidget(m_reason);
    }
    if (fields.outcome) {
        m_outcome = new QComboBox(this);
        m_outcome->setObjectName(u"filterOutcome"_s);
        m_outcome->setToolTip(fields.outcome->toolTip);
        m_outcome->addItem(fields.outcome->allChoice);
        for (const DeliveryOutcome outcome : fields.outcome->outcomes)
            m_outcome->addItem(deliveryOutcomeName(outcome), int(outcome));
        connect(m_outcome, &QComboBox::currentIndexChanged, this, &FilterBar::emitIfChanged);
        firstLine->addWidget(m_outcome);
    }
    if (fields.onlyFailures) {
        m_onlyFailures = new QCheckBox(tr("Only &failures"), this);
        m_onlyFailures->setObjectName(u"filterOnlyFailures"_s);
        m_onlyFailures->setToolTip(*fields.onlyFailures);
        connect(m_onlyFailures, &QCheckBox::toggled, this, &FilterBar::emitIfChanged);
        firstLine->addWidget(m_onlyFailures);
    }
    if (fields.timeRange) {
        m_fromCheck = new QCheckBox(tr("F&rom"), this);
        m_fromCheck->setObjectName(u"filterFrom"_s);
        m_fromEdit = new QDateTimeEdit(this);
        m_fromEdit->setObjectName(u"filterFromTime"_s);
        m_toCheck = new QCheckBox(tr("&To"), this);
        m_toCheck->setObjectName(u"filterTo"_s);
        m_toEdit = new QDateTimeEdit(this);
        m_toEdit->setObjectName(u"filterToTime"_s);
        const QDateTime now = QDateTime::currentDateTime();
        m_fromEdit->setDateTime(now.addDays(-1));
        m_toEdit->setDateTime(now);
        m_fromCheck->setToolTip(fields.timeRange->fromToolTip);
        m_toCheck->setToolTip(fields.timeRange->toToolTip);
        const std::pair<QCheckBox *, QDateTimeEdit *> bounds[]
            = {{m_fromCheck, m_fromEdit}, {m_toCheck, m_toEdit}};
        auto *secondLine = new QHBoxLayout;
        for (const auto &[check, edit] : bounds) {
            edit->setCalendarPopup(true);
            edit->setDisplayFormat(u"yyyy-MM-dd HH:mm"_s);
            edit->setEnabled(false);
            edit->setToolTip(check->toolTip());
            connect(check, &QCheckBox::toggled, edit, &QWidget::setEnabled);
            connect(check, &QCheckBox::toggled, this, &FilterBar::emitIfChanged);
            connect(edit, &QDateTimeEdit::dateTimeChanged, m_typingTimer,
                    qOverload<>(&QTimer::start));
            connect(edit, &QDateTimeEdit::dateTimeChanged, this, [this] {
                if (!m_settingTimes)
                    m_timesEditedByUser = true;
            });
            if (check == m_toCheck)
                secondLine->addSpacing(12);
            secondLine->addWidget(check);
            secondLine->addWidget(edit);
        }
        m_timeNote = new QLabel(this);
        m_timeNote->setObjectName(u"timeNote"_s);
        m_timeNote->setForegroundRole(QPalette::PlaceholderText);
        m_timeNote->setVisible(false);
        secondLine->addSpacing(12);
        secondLine->addWidget(m_timeNote);
        lastLine = secondLine;
    }

    // Its count changes several times a second while rows arrive: a steady size, so that a new
    // count repaints the label and does not lay the filter bar out again.
    m_summary = new SteadyLabel(QString(), this);
    m_summary->setObjectName(u"countLabel"_s);
    m_summary->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    lastLine->addStretch();
    lastLine->addWidget(m_summary);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(firstLine);
    if (lastLine != firstLine)
        layout->addLayout(lastLine);

    m_typingTimer->setSingleShot(true);
    m_typingTimer->setInterval(fields.typingDelay);
    connect(m_typingTimer, &QTimer::timeout, this, &FilterBar::emitIfChanged);
    m_emitted = query();
}

FilterBar::~FilterBar() = default;

FilterQuery FilterBar::query() const
{
    FilterQuery query;
    if (m_text)
        query.text = m_text->text().trimmed();
    if (m_subscription) {
        const QStringList key = m_subscription->currentData().toStringList();
        if (key.size() == 2) {
            query.topic = key.at(0);
            query.subscription = key.at(1);
        }
    }
    if (m_reason) {
        if (const QVariant reason = m_reason->currentData(); reason.isValid())
            query.reason = static_cast<DeadLetterReason>(reason.toInt());
    }
    if (m_outcome) {
        if (const QVariant outcome = m_outcome->currentData(); outcome.isValid())
            query.outcome = static_cast<DeliveryOutcome>(outcome.toInt());
    }
    query.onlyFailures = m_onlyFailures && m_onlyFailures->isChecked();
    if (m_fromCheck && m_fromCheck->isChecked())
        query.fromMs = m_fromEdit->dateTime().toMSecsSinceEpoch();
    if (m_toCheck && m_toCheck->isChecked())
        query.toMs = m_toEdit->dateTime().toMSecsSinceEpoch() + RestOfMinuteMs;
    return query;
}

int FilterBar::addSubscriptionChoice(const QString &topic, const QString &subscription)
{
    m_subscription->addItem(tr("%1 / %2").arg(topic, subscription),
                            QStringList{topic, subscription});
    return m_subscription->count() - 1;
}

void FilterBar::setSubscriptions(const QList<std::pair<QString, QString>> &subscriptions)
{
    if (!m_subscription)
        return;
    const QVariant current = m_subscription->currentData();
    const QSignalBlocker blocker(m_subscription);
    m_subscription->clear();
    m_subscription->addItem(tr("All subscriptions"));
    for (const auto &[topic, subscription] : subscriptions)
        addSubscriptionChoice(topic, subscription);
    int index = current.isValid() ? m_subscription->findData(current) : 0;
    if (index < 0) {
        const QStringList key = current.toStringList();
        index = addSubscriptionChoice(key.value(0), key.value(1));
    }
    m_subscription->setCurrentIndex(index);
}

void FilterBar::setSubscription(const QString &topic, const QString &subscription)
{
    if (!m_subscription)
        return;
    if (subscription.isEmpty()) {
        m_subscription->setCurrentIndex(0);
        return;
    }
    int index = m_subscription->findData(QStringList{topic, subscription});
    if (index < 0)
        index = addSubscriptionChoice(topic, subscription);
    m_subscription->setCurrentIndex(index);
}

void FilterBar::applyNow()
{
    emitIfChanged();
}

void FilterBar::setTimeRangeDefaults(qint64 oldestMs, qint64 newestMs)
{
    if (!m_fromEdit || m_timesEditedByUser || (oldestMs == 0 && newestMs == 0))
        return;
    // Whole minutes, as the edits show them: From the oldest record's minute (its start), To the
    // newest's (query() takes the rest of that minute in).
    const auto minute = [](qint64 ms) {
        QDateTime time = QDateTime::fromMSecsSinceEpoch(ms);
        time.setTime(QTime(time.time().hour(), time.time().minute()));
        return time;
    };
    const QDateTime from = minute(oldestMs);
    const QDateTime to = minute(std::max(oldestMs, newestMs));
    // Dead letters arrive several times a second: the edits change (and repaint) once a minute.
    if (from == m_fromEdit->dateTime() && to == m_toEdit->dateTime())
        return;
    m_settingTimes = true;
    m_fromEdit->setDateTime(from);
    m_toEdit->setDateTime(to);
    m_settingTimes = false;
}

void FilterBar::clearTimeRange()
{
    if (!m_fromCheck)
        return;
    const QSignalBlocker fromBlocker(m_fromCheck);
    const QSignalBlocker toBlocker(m_toCheck);
    m_fromCheck->setChecked(false);
    m_toCheck->setChecked(false);
    m_fromEdit->setEnabled(false);
    m_toEdit->setEnabled(false);
    emitIfChanged();
}

void FilterBar::setTimeNote(const QString &text, const QString &toolTip)
{
    if (!m_timeNote)
        return;
    m_timeNote->setText(text);
    m_timeNote->setToolTip(toolTip);
    m_timeNote->setVisible(!text.isEmpty());
}

void FilterBar::setSummary(const QString &text, const QString &toolTip)
{
    m_summary->setSteadyText(text);
    m_summary->setToolTip(toolTip);
}

void FilterBar::textEdited(const QString &text)
{
    // Nothing more is coming after the text was cleared: show everything at once.
    if (text.trimmed().isEmpty())
        emitIfChanged();
    else
        m_typingTimer->start();
}

void FilterBar::emitIfChanged()
{
    m_typingTimer->stop();
    const FilterQuery current = query();
    if (current == m_emitted)
        return;
    m_emitted = current;
    Q_EMIT queryChanged(current);
}

bool FilterBar::eventFilter(QObject *watched, QEvent *event)
{
    // Escape clears the text field; only then is the key taken from the rest of the window.
    const bool key = event->type() == QEvent::ShortcutOverride || event->type() == QEvent::KeyPress;
    if (watched == m_text && key && !m_text->text().isEmpty()) {
        const auto *press = static_cast<QKeyEvent *>(event);
        if (press->key() == Qt::Key_Escape && press->modifiers() == Qt::NoModifier) {
            event->accept();
            if (event->type() == QEvent::KeyPress)
                m_text->clear();
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace EventDesk::Ui
