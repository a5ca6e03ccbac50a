// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "EditorSection.h"

#include <QHash>

class QCheckBox;
class QLabel;
class QPushButton;
class QTableView;

namespace EventDesk::Ui {

class DeliveryHeaderModel;

// The delivery headers (SPEC H1): a table edited in place, static or dynamic, secret values
// masked until the user asks to see them. Service Bus and Event Hubs carry them as message
// properties ("delivery properties"); Storage queue messages carry none, so for a queue the table
// gives way to a note that says so, and the headers are kept (not stored) in case the type changes
// back.
class HeadersSection final : public EditorSection
{
    Q_OBJECT

public:
    explicit HeadersSection(EditorFields &fields);
    ~HeadersSection() override;

    // Masks the secret values again.
    void load(const EventDesk::EventSubscription &subscription) override;
    // Header names without the spaces around them; secret values as typed. None for a destination
    // type without delivery properties.
    void store(EventDesk::EventSubscription &subscription) const override;

    void setDestinationType(EventDesk::DestinationType type);

    // Marks the rows that have problems (row -> message).
    void setRowErrors(const QHash<int, QString> &errors);
    void setCurrentRow(int row);
    // The "n of 10 headers" line and the buttons that depend on it.
    void updateCounts();

private:
    DeliveryHeaderModel *m_headerModel = nullptr;
    QTableView *m_headerView = nullptr;
    QPushButton *m_addHeaderButton = nullptr;
    QPushButton *m_removeHeaderButton = nullptr;
    QCheckBox *m_revealSecretsCheck = nullptr;
    QLabel *m_headerCountLabel = nullptr;
    QWidget *m_table = nullptr;
    QLabel *m_note = nullptr;
    bool m_supported = true;
};

} // namespace EventDesk::Ui
