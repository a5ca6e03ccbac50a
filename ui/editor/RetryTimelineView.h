#pragma once

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

// The retry timeline preview (PRODUCT.md "Subscription editor"): for a failure mode chosen by the
// user, when each attempt of one event happens and when the event is dead-lettered or dropped.
// The schedule comes from RetryPlanner::simulateAlwaysFailing, the engine's own retry logic.
class RetryTimelineView final : public QWidget
{
    Q_OBJECT

public:
    // The order of the failure-mode combo box.
    enum class FailureMode {
        Always500,
        Always503,
        Always404,
        Timeout,
        Always400,
        Always401,
    };
    Q_ENUM(FailureMode)

    explicit RetryTimelineView(QWidget *parent = nullptr);
    ~RetryTimelineView() override;

    void setPolicy(const EventDesk::RetryPolicy &policy, bool hasDeadLetterDestination);
    EventDesk::RetryPolicy policy() const { return m_policy; }
    bool hasDeadLetterDestination() const { return m_hasDeadLetterDestination; }

    void setFailureMode(FailureMode mode);
    FailureMode failureMode() const;

    // The simulated schedule shown (empty attempts while the policy is out of range).
    RetryPlanner::Timeline timeline() const { return m_timeline; }

    // One line for the current timeline: "6 attempts, dead-lettered after 46 min 40 s
    // (TimeToLiveExceeded)".
    QString summaryText() const;

    static QString failureModeText(FailureMode mode);

Q_SIGNALS:
    void failureModeChanged(EventDesk::Ui::RetryTimelineView::FailureMode mode);

protected:
    void changeEvent(QEvent *event) override;

private:
    void recompute();
    void updateChart();
    void updateList();
    void applyPalette();
    bool policyInRange() const;

    RetryPolicy m_policy;
    bool m_hasDeadLetterDestination = false;
    RetryPlanner::Timeline m_timeline;

    QComboBox *m_modeCombo = nullptr;
    QLabel *m_summaryLabel = nullptr;
    QStackedLayout *m_stack = nullptr;
    QLabel *m_placeholder = nullptr;
    QWidget *m_content = nullptr;
    QChartView *m_chartView = nullptr;
    QChart *m_chart = nullptr;
    QTreeWidget *m_list = nullptr;
};

} // namespace EventDesk::Ui
