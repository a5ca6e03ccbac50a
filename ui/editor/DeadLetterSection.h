// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "EditorSection.h"

class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;

namespace EventDesk::Ui {

// Where undeliverable events go (SPEC L1): nowhere (dropped), the workspace's local container
// folder, or an Azure Blob container (a real storage account or Azurite). Only the rows the
// chosen kind needs are shown.
class DeadLetterSection final : public EditorSection
{
    Q_OBJECT

public:
    explicit DeadLetterSection(EditorFields &fields);
    ~DeadLetterSection() override;

    void load(const EventDesk::EventSubscription &subscription) override;
    // An Azure Blob destination given only by its account gets a resource id that names it.
    void store(EventDesk::EventSubscription &subscription) const override;

    bool hasDestination() const;
    // Whether the user filled in the resource id (else the account name stands for it).
    bool isResourceIdTyped() const;

private:
    void updateRows();

    QComboBox *m_kindCombo = nullptr;
    QFormLayout *m_form = nullptr;
    QLineEdit *m_containerEdit = nullptr;
    QLineEdit *m_accountEdit = nullptr;
    QLineEdit *m_endpointEdit = nullptr;
    QLineEdit *m_resourceIdEdit = nullptr;
    QLabel *m_hint = nullptr;
};

} // namespace EventDesk::Ui
