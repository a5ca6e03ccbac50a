// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "EditorSection.h"

class QCheckBox;
class QComboBox;
class QLineEdit;

namespace EventDesk::Ui {

// Name, delivery schema and whether the subscription delivers at all (where it delivers to is
// DestinationSection's).
class GeneralSection final : public EditorSection
{
    Q_OBJECT

public:
    explicit GeneralSection(EditorFields &fields);
    ~GeneralSection() override;

    // SPEC S4: the delivery schemas this topic input schema allows; the others are shown disabled.
    void setTopicInputSchema(EventDesk::EventSchema schema);
    // An existing subscription keeps its name.
    void setNameEditable(bool editable);

    void load(const EventDesk::EventSubscription &subscription) override;
    void store(EventDesk::EventSubscription &subscription) const override;

private:
    EventSchema m_topicInputSchema = EventSchema::EventGrid;
    QLineEdit *m_nameEdit = nullptr;
    QComboBox *m_schemaCombo = nullptr;
    QCheckBox *m_enabledCheck = nullptr;
};

} // namespace EventDesk::Ui
