// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "EditorSection.h"

class QLabel;

namespace EventDesk::Ui {

class LimitSpinBox;
class RetryTimelineView;

// The retry policy (max delivery attempts, event time to live) and the preview of the retry
// timeline it gives, computed by the engine's own planner.
class RetrySection final : public EditorSection
{
    Q_OBJECT

public:
    explicit RetrySection(EditorFields &fields);
    ~RetrySection() override;

    void load(const EventDesk::EventSubscription &subscription) override;
    void store(EventDesk::EventSubscription &subscription) const override;

    // Shows the timeline of the policy as edited; hasDeadLetterDestination: whether the last
    // attempt ends in a dead letter or in a drop; destinationType: whose answers and rules.
    void updateTimeline(bool hasDeadLetterDestination, EventDesk::DestinationType destinationType);
    RetryTimelineView *timeline() const { return m_timeline; }

private:
    void updateTtlHours();

    LimitSpinBox *m_maxAttemptsSpin = nullptr;
    LimitSpinBox *m_ttlSpin = nullptr;
    QLabel *m_ttlHoursLabel = nullptr;
    RetryTimelineView *m_timeline = nullptr;
};

} // namespace EventDesk::Ui
