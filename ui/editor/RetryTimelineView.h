// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "FailureModes.h"

#include "model/EventSubscription.h"
#include "rules/RetryPlanner.h"

#include <QWidget>

class QChart;
class QChartView;
class QComboBox;
class QLabel;
class QStackedLayout;
class QTreeWidget;

namespace EventDesk::Ui {

// The retry timeline preview (docs/user-guide.md "Subscription editor"): for a failure mode chosen
// by the user, when each attempt of one event happens and when the event is dead-lettered or
// dropped; and, for the subscription's destination type, the rules behind it: which answers are
// retried, which are not, and the probation each one causes. The schedule comes from
// RetryPlanner::simulateAlwaysFailing and the rules from OutcomeClassifier and ProbationTracker:
// the engine's own logic, nothing restated.
class RetryTimelineView final : public QWidget
{
    Q_OBJECT

public:
    using FailureMode = Ui::FailureMode;

    explicit RetryTimelineView(QWidget *parent = nullptr);
    ~RetryTimelineView() override;

    void setPolicy(const EventDesk::RetryPolicy &policy, bool hasDeadLetterDestination);
    EventDesk::RetryPolicy policy() const { return m_policy; }
    bool hasDeadLetterDestination() const { return m_hasDeadLetterDestination; }

    // The failure modes and rules of this type's service; keeps the chosen mode if it has it.
    void setDestinationType(EventDesk::DestinationType type);
    EventDesk::DestinationType destinationType() const { return m_type; }

    void setFailureMode(FailureMode mode);
    FailureMode failureMode() const;

    // The simulated schedule shown (empty attempts while the policy is out of range).
    RetryPlanner::Timeline timeline() const { return m_timeline; }

    // One line for the current timeline: "6 attempts, dead-lettered after 46 min 40 s
    // (TimeToLiveExceeded)".
    QString summaryText() const;

Q_SIGNALS:
    void failureModeChanged(EventDesk::Ui::FailureMode mode);

protected:
    void changeEvent(QEvent *event) override;

private:
    void recompute();
    void updateChart();
    void updateList();
    void fillModes();
    void updateRules();
    void applyPalette();
    bool policyInRange() const;

    RetryPolicy m_policy;
    bool m_hasDeadLetterDestination = false;
    DestinationType m_type = DestinationType::WebHook;
    RetryPlanner::Timeline m_timeline;

    QComboBox *m_modeCombo = nullptr;
    QLabel *m_summaryLabel = nullptr;
    QStackedLayout *m_stack = nullptr;
    QLabel *m_placeholder = nullptr;
    QWidget *m_content = nullptr;
    QChartView *m_chartView = nullptr;
    QChart *m_chart = nullptr;
    QTreeWidget *m_list = nullptr;
    QLabel *m_rulesTitle = nullptr;
    QTreeWidget *m_rules = nullptr;
    QLabel *m_rulesNote = nullptr;
};

} // namespace EventDesk::Ui
