// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "EditorSection.h"

class QLabel;

namespace EventDesk::Ui {

class LimitSpinBox;

// Output batching: off (one event per request, SPEC B1) or on with its two limits. The group's
// check box turns it on. Azure batches for webhooks and functions only: for the other destination
// types the settings give way to a note that says so, and are kept (not stored) in case the type
// changes back.
class BatchingSection final : public EditorSection
{
    Q_OBJECT

public:
    explicit BatchingSection(EditorFields &fields);
    ~BatchingSection() override;

    void load(const EventDesk::EventSubscription &subscription) override;
    // Batching off for a destination type that has none.
    void store(EventDesk::EventSubscription &subscription) const override;

    void setDestinationType(EventDesk::DestinationType type);

private:
    LimitSpinBox *m_maxEventsSpin = nullptr;
    LimitSpinBox *m_preferredSizeSpin = nullptr;
    QWidget *m_settings = nullptr;
    QLabel *m_note = nullptr;
    bool m_supported = true;
    bool m_checkedWhileSupported = false; // the check box, while it is not shown
};

} // namespace EventDesk::Ui
