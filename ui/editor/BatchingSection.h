#pragma once

#include "EditorSection.h"

namespace EventDesk::Ui {

class LimitSpinBox;

// Output batching: off (one event per request, SPEC B1) or on with its two limits. The group's
// check box turns it on.
class BatchingSection final : public EditorSection
{
    Q_OBJECT

public:
    explicit BatchingSection(EditorFields &fields);
    ~BatchingSection() override;

    void load(const EventDesk::EventSubscription &subscription) override;
    void store(EventDesk::EventSubscription &subscription) const override;

private:
    LimitSpinBox *m_maxEventsSpin = nullptr;
    LimitSpinBox *m_preferredSizeSpin = nullptr;
};

} // namespace EventDesk::Ui
