// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "InstancesModel.h"

#include "common/Format.h"

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

InstanceHealth instanceHealth(const InstanceStatus &instance)
{
    // As the store judges it (PostgresStoreLeases.cpp): dead once the last heartbeat is older
    // than the lease.
    if (instance.heartbeatAgeMs > instance.leaseMs)
        return InstanceHealth::Dead;
    if (instance.heartbeatAgeMs > 3 * instance.leaseMs / 10)
        return InstanceHealth::Late;
    return InstanceHealth::Live;
}

QString instanceHealthName(InstanceHealth health)
{
    switch (health) {
    case InstanceHealth::Live:
        return InstancesModel::tr("Live");
    case InstanceHealth::Late:
        return InstancesModel::tr("Late");
    case InstanceHealth::Dead:
        return InstancesModel::tr("Dead");
    }
    return QString();
}

QColor instanceHealthColor(InstanceHealth health)
{
    switch (health) {
    case InstanceHealth::Live:
        return QColor(0x2e, 0xa0, 0x43);
    case InstanceHealth::Late:
        return QColor(0xd9, 0x8a, 0x00);
    case InstanceHealth::Dead:
        return QColor(0xd0, 0x36, 0x36);
    }
    return QColor();
}

InstancesModel::InstancesModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void InstancesModel::setInstances(const QList<InstanceStatus> &instances)
{
    // The rows keep their place from poll to poll (the store's order, by id) so that a selection
    // does not jump; a change in the set of instances resets the model.
    bool sameRows = instances.size() == m_instances.size();
    for (qsizetype row = 0; sameRows && row < instances.size(); ++row)
        sameRows = instances.at(row).id == m_instances.at(row).id;
    if (!sameRows) {
        beginResetModel();
        m_instances = instances;
        endResetModel();
        return;
    }
    m_instances = instances;
    if (!m_instances.isEmpty())
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

int InstancesModel::count(InstanceHealth health) const
{
    return int(std::count_if(
        m_instances.cbegin(), m_instances.cend(),
        [health](const InstanceStatus &instance) { return instanceHealth(instance) == health; }));
}

int InstancesModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_instances.size());
}

int InstancesModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant InstancesModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return QVariant();
    const InstanceStatus &instance = m_instances.at(index.row());
    const InstanceHealth health = instanceHealth(instance);
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case InstanceColumn:
            return instance.id;
        case HostColumn:
            return instance.hostName;
        case ProcessColumn:
            return instance.processId;
        case HealthColumn:
            return instanceHealthName(health);
        case HeartbeatColumn:
            return tr("%1 ago").arg(formatLatency(instance.heartbeatAgeMs));
        case LeaseColumn:
            return formatDuration(instance.leaseMs);
        case DeliveriesColumn:
            return instance.ownedDeliveries;
        case StartedColumn:
            return instance.startedMs > 0 ? formatTime(instance.startedMs) : QString();
        }
        break;
    case Qt::DecorationRole:
        if (index.column() == HealthColumn)
            return instanceHealthColor(health);
        break;
    case Qt::TextAlignmentRole:
        switch (index.column()) {
        case InstanceColumn:
        case ProcessColumn:
        case HeartbeatColumn:
        case LeaseColumn:
        case DeliveriesColumn:
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        default:
            return QVariant::fromValue(Qt::AlignLeft | Qt::AlignVCenter);
        }
    case Qt::ToolTipRole:
        if (index.column() != HealthColumn)
            break;
        switch (health) {
        case InstanceHealth::Live:
            return tr("Its heartbeat arrives as it should (every tenth of its lease)");
        case InstanceHealth::Late:
            return tr("It missed two or more heartbeats in a row; its lease of %1 still holds, so "
                      "nobody takes its deliveries over yet")
                .arg(formatDuration(instance.leaseMs));
        case InstanceHealth::Dead:
            return tr("Silent for longer than its lease of %1: the other instances take over its "
                      "unfinished deliveries")
                .arg(formatDuration(instance.leaseMs));
        }
        break;
    case HealthRole:
        return int(health);
    default:
        break;
    }
    return QVariant();
}

QVariant InstancesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return QVariant();
    if (role == Qt::DisplayRole) {
        switch (section) {
        case InstanceColumn:
            return tr("Instance");
        case HostColumn:
            return tr("Host");
        case ProcessColumn:
            return tr("Process");
        case HealthColumn:
            return tr("Health");
        case HeartbeatColumn:
            return tr("Last heartbeat");
        case LeaseColumn:
            return tr("Lease");
        case DeliveriesColumn:
            return tr("Deliveries held");
        case StartedColumn:
            return tr("Started");
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case HeartbeatColumn:
            return tr("How long ago its last heartbeat was, by the database server's clock");
        case LeaseColumn:
            return tr("Silent for this long, the instance counts as dead");
        case DeliveriesColumn:
            return tr("Unfinished deliveries this instance owns (stored or took over)");
        default:
            break;
        }
    }
    return QVariant();
}

} // namespace EventDesk::Ui
