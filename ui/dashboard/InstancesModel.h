// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "store/DeliveryStoreReader.h"

#include <QAbstractTableModel>
#include <QColor>
#include <QList>
#include <QString>

namespace EventDesk::Ui {

// How an instance of a shared store is doing, from its last heartbeat as the store's server sees
// it. An instance renews its heartbeat every tenth of its lease (docs/shared-store.md "Several
// instances on one store") and the app reads the store once a second, so a healthy one is seen at
// most about a tenth of its lease (plus the read) behind.
enum class InstanceHealth {
    // Heard of within three heartbeat intervals (three tenths of its lease): one missed heartbeat
    // (a long commit, a busy machine) is still normal.
    Live,
    // Two or more heartbeats missed in a row, but its lease still holds: nobody takes its
    // deliveries over yet, and it sends nothing once it no longer knows its lease to hold. Paused,
    // overloaded, or cut off from the database.
    Late,
    // Silent for longer than its lease: the other instances claim its unfinished deliveries.
    Dead,
};

InstanceHealth instanceHealth(const InstanceStatus &instance);
QString instanceHealthName(InstanceHealth health);
QColor instanceHealthColor(InstanceHealth health);

// The instances registered on a shared store (EngineHost::instancesChanged), one row each, by id.
class InstancesModel final : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        InstanceColumn,
        HostColumn,
        ProcessColumn,
        HealthColumn,
        HeartbeatColumn,
        LeaseColumn,
        DeliveriesColumn,
        StartedColumn,
        ColumnCount
    };
    enum Role {
        HealthRole = Qt::UserRole + 1, // int (InstanceHealth)
    };

    explicit InstancesModel(QObject *parent = nullptr);

    void setInstances(const QList<InstanceStatus> &instances);
    const QList<InstanceStatus> &instances() const { return m_instances; }
    // How many are in each state.
    int count(InstanceHealth health) const;

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QList<InstanceStatus> m_instances;
};

} // namespace EventDesk::Ui
