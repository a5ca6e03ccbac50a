// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "engine/EngineSnapshot.h"
#include "model/Workspace.h"
#include "store/StoreTotals.h"

#include <QAbstractItemModel>
#include <QHash>

#include <optional>

namespace EventDesk::Ui {

// Topics and their event subscriptions with live state badges (healthy / probation until
// HH:MM:SS and why / disabled, backlog, dead letters): shape, colour from the palette, text and
// an accessible description, so the state never rests on colour alone. Counts (published, matched,
// delivered, dead-lettered) are the store's totals (setTotals()), the state is the engine's. Structure changes only when
// the workspace changes; snapshots update the badge columns with dataChanged, never a reset.
class WorkspaceTreeModel final : public QAbstractItemModel
{
    Q_OBJECT

public:
    enum Column { NameColumn, StateColumn, BacklogColumn, DeadLetterColumn, ColumnCount };
    enum Role {
        KindRole = Qt::UserRole + 1, // "topic" or "subscription"
        TopicNameRole,
        SubscriptionNameRole,
        InProbationRole,
        BadgeRole, // Badge of a subscription
    };
    // The shape of a subscription's state badge (its colour comes from the outcome and palette).
    enum class Badge { Healthy, Waiting, Probing, Failed, Disabled };
    Q_ENUM(Badge)

    explicit WorkspaceTreeModel(QObject *parent = nullptr);

    void setWorkspace(const Workspace &workspace);
    // Takes the engine's latest state; announces (dataChanged) only the rows whose drawing it
    // changes, so that a hundred idle subscriptions are not repainted several times a second.
    void applySnapshot(const EngineSnapshot &snapshot);
    // The totals of the workspace's store (none: not read yet); announces the rows they change.
    void setTotals(const std::optional<EventDesk::StoreTotals> &totals);

    QModelIndex topicIndex(const QString &topic) const;
    QModelIndex subscriptionIndex(const QString &topic, const QString &subscription) const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;

private:
    struct SubscriptionRow
    {
        QString name;
        QString destination; // Destinations::describe()
        bool enabled = true;
        SubscriptionSnapshot state;
        bool hasState = false;
    };
    struct TopicRow
    {
        QString name;
        EventSchema inputSchema = EventSchema::EventGrid;
        QList<SubscriptionRow> subscriptions;
        // What the engine counted since it started (rejected requests: the store keeps no row of
        // a request it refused).
        TopicSnapshot counters;
        bool hasCounters = false;
    };

    // The store's totals of a topic, of its subscriptions (summed) and of one subscription.
    TopicTotals topicTotals(const TopicRow &topic) const;
    quint64 topicDeadLettered(const TopicRow &topic) const;
    SubscriptionTotals subscriptionTotals(const TopicRow &topic, const SubscriptionRow &subscription) const;
    // Runs dataChanged over the rows whose drawing change() changes.
    template<typename Change> void announceChanges(Change change);

    static Badge badgeOf(const SubscriptionRow &subscription);
    static QColor badgeColor(const SubscriptionRow &subscription);
    QVariant topicData(const TopicRow &topic, int column, int role) const;
    QString provisioningText(const SubscriptionSnapshot &state) const;
    QVariant subscriptionData(const TopicRow &topic, const SubscriptionRow &subscription, int column,
                              int role) const;
    // What a row draws (texts, colours, badge): a snapshot that leaves it alone repaints nothing.
    QVariantList paintedValues(const TopicRow &topic) const;
    QVariantList paintedValues(const TopicRow &topic, const SubscriptionRow &subscription) const;

    QList<TopicRow> m_topics;
    std::optional<EventDesk::StoreTotals> m_totals;
    qint64 m_nowMs = 0;
};

} // namespace EventDesk::Ui
