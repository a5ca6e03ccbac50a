// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "SteadyLabel.h"
#include "rules/DeliveryOutcome.h"

#include <QList>
#include <QString>
#include <QWidget>

#include <chrono>
#include <optional>
#include <utility>

class QAction;
class QCheckBox;
class QComboBox;
class QDateTimeEdit;
class QLabel;
class QLineEdit;
class QTimer;

namespace EventDesk::Ui {

// What a FilterBar's controls ask for. Empty / unset members match everything.
struct FilterQuery
{
    QString text; // trimmed
    QString topic; // with subscription: the rows of one subscription
    QString subscription;
    std::optional<DeadLetterReason> reason;
    std::optional<DeliveryOutcome> outcome;
    bool onlyFailures = false;
    std::optional<qint64> fromMs; // at or after
    std::optional<qint64> toMs; // at or before; the whole minute shown is included

    bool operator==(const FilterQuery &other) const = default;
};

// The filter bar of the delivery log and of the dead-letter browser: one look, one behaviour,
// one keyboard handling, one signal for both. A view chooses the fields it offers; the bar lays
// them out in a fixed order (text, subscription, reason, outcome, only failures; the time range
// on a second line) with a summary label at the end of the last line.
//
// Choices, check boxes and clearing the text apply at once; typing and changing a time wait until
// the input pauses (typingDelay). Return in the text applies it at once, Escape clears it, and
// findAction() (Ctrl+F) moves the focus to it.
class FilterBar final : public QWidget
{
    Q_OBJECT

public:
    struct TextField
    {
        QString placeholder;
        QString toolTip;
    };
    struct ReasonField
    {
        QList<DeadLetterReason> reasons;
        QString toolTip;
    };
    struct OutcomeField
    {
        QString allChoice; // the first entry, which matches every outcome
        QList<DeliveryOutcome> outcomes;
        QString toolTip;
    };
    struct TimeRangeField
    {
        QString fromToolTip;
        QString toToolTip;
    };
    // The fields of one bar; an unset field is not shown.
    struct Fields
    {
        std::optional<TextField> text;
        std::optional<QString> subscription; // its tool tip
        std::optional<ReasonField> reason;
        std::optional<OutcomeField> outcome;
        std::optional<QString> onlyFailures; // its tool tip
        std::optional<TimeRangeField> timeRange;
        std::chrono::milliseconds typingDelay{300};
    };

    explicit FilterBar(const Fields &fields, QWidget *parent = nullptr);
    ~FilterBar() override;

    // What the controls show now (text typed a moment ago included).
    FilterQuery query() const;

    // Replaces the subscriptions offered after "All subscriptions"; the one chosen stays chosen,
    // even when it is no longer in the list (its rows can outlive it). Emits nothing.
    void setSubscriptions(const QList<std::pair<QString, QString>> &subscriptions);
    // Chooses one subscription (an empty subscription: all of them), adding it when it is not
    // offered yet.
    void setSubscription(const QString &topic, const QString &subscription);

    // Emits queryChanged() now if a change is still waiting for the input to pause.
    void applyNow();

    // The time range: the dates From and To offer when ticked, so that a first tick keeps every
    // record in (From the oldest record's minute, To the newest's). Left alone once the user
    // changed a date. A ticked bound that follows applies the new date as a change of the user's
    // would.
    void setTimeRangeDefaults(qint64 oldestMs, qint64 newestMs);
    // Unticks From and To (and applies that at once): every time again.
    void clearTimeRange();
    // A note after the time range, e.g. that the times are an engine's that runs faster than the
    // wall clock; empty: none.
    void setTimeNote(const QString &text, const QString &toolTip = QString());
    QLabel *timeNoteLabel() const { return m_timeNote; }

    // Text and tool tip of the summary label (e.g. "5,000 dead letters, 834 match").
    void setSummary(const QString &text, const QString &toolTip = QString());

    // Ctrl+F: focuses the text field and selects its text. The owning view adds it to itself
    // (QWidget::addAction) so that the shortcut works wherever the focus is in the view.
    QAction *findAction() const { return m_findAction; }

    QLineEdit *textField() const { return m_text; }
    QComboBox *subscriptionCombo() const { return m_subscription; }
    QComboBox *reasonCombo() const { return m_reason; }
    QComboBox *outcomeCombo() const { return m_outcome; }
    QCheckBox *onlyFailuresCheck() const { return m_onlyFailures; }
    QCheckBox *fromCheck() const { return m_fromCheck; }
    QDateTimeEdit *fromEdit() const { return m_fromEdit; }
    QCheckBox *toCheck() const { return m_toCheck; }
    QDateTimeEdit *toEdit() const { return m_toEdit; }
    QLabel *summaryLabel() const { return m_summary; }

Q_SIGNALS:
    // The controls ask for something else than the last query emitted.
    void queryChanged(const EventDesk::Ui::FilterQuery &query);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void textEdited(const QString &text);
    void emitIfChanged();
    int addSubscriptionChoice(const QString &topic, const QString &subscription);

    QLineEdit *m_text = nullptr;
    QComboBox *m_subscription = nullptr;
    QComboBox *m_reason = nullptr;
    QComboBox *m_outcome = nullptr;
    QCheckBox *m_onlyFailures = nullptr;
    QCheckBox *m_fromCheck = nullptr;
    QDateTimeEdit *m_fromEdit = nullptr;
    QLabel *m_timeNote = nullptr;
    bool m_timesEditedByUser = false;
    bool m_settingTimes = false; // setTimeRangeDefaults() is changing the dates
    QCheckBox *m_toCheck = nullptr;
    QDateTimeEdit *m_toEdit = nullptr;
    SteadyLabel *m_summary = nullptr;
    QAction *m_findAction = nullptr;
    QTimer *m_typingTimer = nullptr;
    FilterQuery m_emitted;
};

} // namespace EventDesk::Ui
