// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "InstancesModel.h"

#include <QWidget>

class QLabel;
class QTableView;

namespace EventDesk::Ui {

// The instances of a shared workspace (the eventdeskd sharing its PostgreSQL store) with their
// health, as the monitor's poll reads them: a summary line and one row per instance.
class InstancesView final : public QWidget
{
    Q_OBJECT

public:
    explicit InstancesView(QWidget *parent = nullptr);

    void setInstances(const QList<EventDesk::InstanceStatus> &instances);
    InstancesModel *model() const { return m_model; }
    QTableView *tableView() const { return m_table; }
    // "3 instances: 2 live, 1 late" (what the summary line says).
    QString summary() const;

private:
    InstancesModel *m_model = nullptr;
    QLabel *m_summary = nullptr;
    QTableView *m_table = nullptr;
};

} // namespace EventDesk::Ui
