// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "store/DeliveryStore.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QSortFilterProxyModel>
#include <QString>

#include <deque>
#include <optional>

namespace EventDesk::Ui {

// The delivery log: one row per attempt (one HTTP request, possibly carrying a batch of events),
// oldest first. A bounded ring: when it is full, the oldest rows leave as new ones arrive.
class DeliveryLogModel final : public QAbstractTableModel
{
    Q_OBJECT

public:
    static constexpr int DefaultCapacity = 100000;

    enum Column {
        TimeColumn,
        TopicColumn,
        SubscriptionColumn,
        EventsColumn,
        AttemptColumn,
        StatusColumn,
        OutcomeColumn,
        DurationColumn,
        NextDueColumn,
        // A shared store: the instance that made the attempt (AttemptLogEntry::instance). The view
        // hides it on a store of one engine.
        InstanceColumn,
        ColumnCount
    };

    enum Role {
        SortRole = Qt::UserRole + 1, // the raw value of the cell (numbers compare as numbers)
        EventIdsRole, // QStringList
        OutcomeRole, // int (DeliveryOutcome)
        SequenceRole, // qint64: stable identity of a row while it is in the ring
    };

    explicit DeliveryLogModel(QObject *parent = nullptr);

    void setCapacity(int rows);
    int capacity() const { return m_capacity; }

    // Live attempts, oldest first; they go to the end.
    void append(const QList<AttemptLogEntry> &entries);
    // Older history, oldest first; it goes before every row already there, as far as the
    // capacity allows (the newest of it is kept).
    void prependHistory(const QList<AttemptLogEntry> &entries);
    void clear();
    // The host names of a shared store's instances, by id, for the instance column.
    void setInstanceNames(const QHash<qint64, QString> &names);

    const AttemptLogEntry &entry(int row) const { return m_rows.at(std::size_t(row)); }
    qint64 sequence(int row) const { return m_firstSequence + row; }
    // The row that has this sequence number, or -1 when it left the ring.
    int rowOfSequence(qint64 sequence) const;

    // Every "topic/subscription" seen so far, as (topic, subscription) pairs in order of arrival.
    const QList<std::pair<QString, QString>> &subscriptions() const { return m_subscriptions; }

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    // What the Time column's header adds (engineTimeNote(): "Engine time, ×600 the wall clock").
    void setTimeNote(const QString &text, const QString &toolTip);
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

Q_SIGNALS:
    void subscriptionsChanged();

private:
    QString m_timeNote;
    QString m_timeNoteToolTip;
    void removeOldest(int count);
    void noteSubscriptions(const QList<AttemptLogEntry> &entries);

    std::deque<AttemptLogEntry> m_rows;
    qint64 m_firstSequence = 0;
    int m_capacity = DefaultCapacity;
    QList<std::pair<QString, QString>> m_subscriptions;
    QHash<qint64, QString> m_instanceNames;
};

// Filters of the delivery log view. Everything is read from the source entries directly, so a
// filter change over 100,000 rows stays a simple pass.
class DeliveryLogFilterModel final : public QSortFilterProxyModel
{
    Q_OBJECT

public:
    explicit DeliveryLogFilterModel(QObject *parent = nullptr);

    // Empty topic and subscription: every subscription.
    void setSubscription(const QString &topic, const QString &subscription);
    // std::nullopt: every outcome.
    void setOutcome(std::optional<DeliveryOutcome> outcome);
    // A substring of any of the attempt's event ids (case-insensitive); empty: any.
    void setEventIdText(const QString &text);
    // Only attempts whose outcome is not Delivered.
    void setOnlyFailures(bool onlyFailures);

    QString eventIdText() const { return m_eventIdText; }
    bool onlyFailures() const { return m_onlyFailures; }

    // Time ascending is the order the rows arrive in, the source's own: the proxy then keeps the
    // source order instead of sorting (which placed every new row by comparisons, thousands of
    // them for each batch of attempts at full rate). Any other column or order sorts.
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    QString m_topic;
    QString m_subscription;
    std::optional<DeliveryOutcome> m_outcome;
    QString m_eventIdText;
    bool m_onlyFailures = false;
};

} // namespace EventDesk::Ui
