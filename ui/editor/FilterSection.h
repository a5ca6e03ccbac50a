// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "EditorSection.h"

#include <QHash>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;

namespace EventDesk::Ui {

class AdvancedFilterModel;

// Which events the subscription delivers: event types, subject prefix and suffix, and the
// advanced filters (a table edited in place, with the limits of SPEC counted under it).
class FilterSection final : public EditorSection
{
    Q_OBJECT

public:
    explicit FilterSection(EditorFields &fields);
    ~FilterSection() override;

    void load(const EventDesk::EventSubscription &subscription) override;
    void store(EventDesk::EventSubscription &subscription) const override;

    // Advanced filter values that do not parse, by row.
    QHash<int, QString> parseErrors() const;
    // Marks the rows that have problems (row -> message).
    void setRowErrors(const QHash<int, QString> &errors);
    // The values of every advanced filter exactly as typed, one per line.
    QByteArray valuesAsTyped() const;
    void setCurrentRow(int row);
    // The "n of N values · m of M filters" line and the buttons that depend on it.
    void updateCounts();

private:
    QLineEdit *m_eventTypesEdit = nullptr;
    QLineEdit *m_subjectBeginsEdit = nullptr;
    QLineEdit *m_subjectEndsEdit = nullptr;
    QCheckBox *m_caseSensitiveCheck = nullptr;
    AdvancedFilterModel *m_filterModel = nullptr;
    QTableView *m_filterView = nullptr;
    QPushButton *m_addFilterButton = nullptr;
    QPushButton *m_removeFilterButton = nullptr;
    QLabel *m_filterCountLabel = nullptr;
};

} // namespace EventDesk::Ui
