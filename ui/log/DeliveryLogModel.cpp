// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "DeliveryLogModel.h"

#include "common/Format.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {

// "3 · build-7": the instance's id, which the log records, and its host while the instance is
// known (a row of the store's instances).
QString instanceText(qint64 instance, const QString &hostName)
{
    if (instance <= 0)
        return u"—"_s;
    if (hostName.isEmpty())
        return QString::number(instance);
    return u"%1 · %2"_s.arg(instance).arg(hostName);
}

QString eventsText(const QStringList &eventIds)
{
    if (eventIds.isEmpty())
        return QString();
    if (eventIds.size() == 1)
        return eventIds.constFirst();
    return DeliveryLogModel::tr("%1 (+%2)").arg(eventIds.constFirst()).arg(eventIds.size() - 1);
}

QString eventsToolTip(const QStringList &eventIds)
{
    constexpr int MaxListed = 20;
    QStringList lines;
    lines << DeliveryLogModel::tr("%n event(s) in this request:", nullptr, int(eventIds.size()));
    for (qsizetype i = 0; i < eventIds.size() && i < MaxListed; ++i)
        lines << eventIds.at(i);
    if (eventIds.size() > MaxListed)
        lines << DeliveryLogModel::tr("… and %n more", nullptr, int(eventIds.size() - MaxListed));
    return lines.join(u'\n');
}

} // namespace

DeliveryLogModel::DeliveryLogModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void DeliveryLogModel::setCapacity(int rows)
{
    m_capacity = std::max(1, rows);
    if (int(m_rows.size()) > m_capacity)
        removeOldest(int(m_rows.size()) - m_capacity);
}

int DeliveryLogModel::rowOfSequence(qint64 sequence) const
{
    const qint64 row = sequence - m_firstSequence;
    return row >= 0 && row < qint64(m_rows.size()) ? int(row) : -1;
}

void DeliveryLogModel::removeOldest(int count)
{
    count = std::min(count, int(m_rows.size()));
    if (count <= 0)
        return;
    beginRemoveRows(QModelIndex(), 0, count - 1);
    m_rows.erase(m_rows.begin(), m_rows.begin() + count);
    m_firstSequence += count;
    endRemoveRows();
}

void DeliveryLogModel::append(const QList<AttemptLogEntry> &entries)
{
    if (entries.isEmpty())
        return;
    // A burst larger than the ring keeps only its newest rows.
    const qsizetype skipped = std::max<qsizetype>(0, entries.size() - m_capacity);
    const int incoming = int(entries.size() - skipped);
    const int overflow = int(m_rows.size()) + incoming - m_capacity;
    if (overflow > 0)
        removeOldest(overflow);
    const int first = int(m_rows.size());
    beginInsertRows(QModelIndex(), first, first + incoming - 1);
    for (qsizetype i = skipped; i < entries.size(); ++i)
        m_rows.push_back(entries.at(i));
    endInsertRows();
    noteSubscriptions(entries);
}

void DeliveryLogModel::prependHistory(const QList<AttemptLogEntry> &entries)
{
    const int room = m_capacity - int(m_rows.size());
    const int incoming = std::min<int>(room, int(entries.size()));
    if (incoming <= 0)
        return;
    beginInsertRows(QModelIndex(), 0, incoming - 1);
    // The newest `incoming` entries, pushed newest first so they end up oldest first.
    for (qsizetype i = entries.size() - 1; i >= entries.size() - incoming; --i)
        m_rows.push_front(entries.at(i));
    m_firstSequence -= incoming;
    endInsertRows();
    noteSubscriptions(entries);
}

void DeliveryLogModel::setInstanceNames(const QHash<qint64, QString> &names)
{
    if (names == m_instanceNames)
        return;
    m_instanceNames = names;
    if (!m_rows.empty())
        Q_EMIT dataChanged(index(0, InstanceColumn), index(rowCount() - 1, InstanceColumn),
                           {Qt::DisplayRole});
}

void DeliveryLogModel::clear()
{
    if (m_rows.empty())
        return;
    beginResetModel();
    m_firstSequence += qint64(m_rows.size());
    m_rows.clear();
    endResetModel();
}

void DeliveryLogModel::noteSubscriptions(const QList<AttemptLogEntry> &entries)
{
    bool changed = false;
    for (const AttemptLogEntry &entry : entries) {
        std::pair<QString, QString> key(entry.topic, entry.subscription);
        if (!m_subscriptions.contains(key)) {
            m_subscriptions.append(std::move(key));
            changed = true;
        }
    }
    if (changed)
        Q_EMIT subscriptionsChanged();
}

int DeliveryLogModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int DeliveryLogModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DeliveryLogModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return QVariant();
    const AttemptLogEntry &attempt = m_rows.at(std::size_t(index.row()));
    const int column = index.column();

    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case TimeColumn:
            return formatTime(attempt.timeMs);
        case TopicColumn:
            return attempt.topic;
        case SubscriptionColumn:
            return attempt.subscription;
        case EventsColumn:
            return eventsText(attempt.eventIds);
        case AttemptColumn:
            return attempt.attempt;
        case StatusColumn:
            return attempt.httpStatus > 0 ? QString::number(attempt.httpStatus) : u"—"_s;
        case OutcomeColumn:
            return deliveryOutcomeName(attempt.outcome);
        case DurationColumn:
            return formatLatency(attempt.durationMs);
        case NextDueColumn:
            return attempt.nextDueMs > 0 ? formatClock(attempt.nextDueMs) : u"—"_s;
        case InstanceColumn:
            return instanceText(attempt.instance, m_instanceNames.value(attempt.instance));
        }
        break;
    case SortRole:
        switch (column) {
        case TimeColumn:
            // Arrival order: ties in time keep their order, and history stays before live rows.
            return sequence(index.row());
        case TopicColumn:
            return attempt.topic;
        case SubscriptionColumn:
            return attempt.subscription;
        case EventsColumn:
            return attempt.eventIds.value(0);
        case AttemptColumn:
            return attempt.attempt;
        case StatusColumn:
            return attempt.httpStatus;
        case OutcomeColumn:
            return deliveryOutcomeName(attempt.outcome);
        case DurationColumn:
            return attempt.durationMs;
        case NextDueColumn:
            return attempt.nextDueMs;
        case InstanceColumn:
            return attempt.instance;
        }
        break;
    case Qt::DecorationRole:
        if (column == OutcomeColumn)
            return outcomeColor(attempt.outcome);
        break;
    case Qt::TextAlignmentRole:
        switch (column) {
        case AttemptColumn:
        case StatusColumn:
        case DurationColumn:
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        default:
            return QVariant::fromValue(Qt::AlignLeft | Qt::AlignVCenter);
        }
    case Qt::ToolTipRole:
        switch (column) {
        case TimeColumn:
            return tr("Attempt sent at %1").arg(formatTime(attempt.timeMs));
        case EventsColumn:
            return eventsToolTip(attempt.eventIds);
        case AttemptColumn:
            return tr("Delivery attempt %1 of the first event in the request").arg(attempt.attempt);
        case StatusColumn:
            return attempt.httpStatus > 0
                ? tr("HTTP status %1 from the destination").arg(attempt.httpStatus)
                : tr("No HTTP response (connection failed, timed out or was aborted)");
        case DurationColumn:
            return tr("The destination took %1 to answer").arg(formatLatency(attempt.durationMs));
        case NextDueColumn:
            return attempt.nextDueMs > 0
                ? tr("Next attempt due at %1 (%2 after this one)")
                      .arg(formatTime(attempt.nextDueMs),
                           formatDuration(attempt.nextDueMs - attempt.timeMs))
                : tr("No further attempt: delivered, dead-lettered or dropped");
        case InstanceColumn:
            return attempt.instance > 0
                ? tr("Made by instance %1 of the shared store").arg(attempt.instance)
                : tr("The store does not say which instance made this attempt");
        default:
            break;
        }
        break;
    case EventIdsRole:
        return attempt.eventIds;
    case OutcomeRole:
        return int(attempt.outcome);
    case SequenceRole:
        return sequence(index.row());
    default:
        break;
    }
    return QVariant();
}

void DeliveryLogModel::setTimeNote(const QString &text, const QString &toolTip)
{
    if (text == m_timeNote && toolTip == m_timeNoteToolTip)
        return;
    m_timeNote = text;
    m_timeNoteToolTip = toolTip;
    Q_EMIT headerDataChanged(Qt::Horizontal, TimeColumn, TimeColumn);
}

QVariant DeliveryLogModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return QVariant();
    if (role == Qt::ToolTipRole && section == TimeColumn && !m_timeNoteToolTip.isEmpty())
        return m_timeNoteToolTip;
    if (role == Qt::DisplayRole) {
        switch (section) {
        case TimeColumn:
            return m_timeNote.isEmpty() ? tr("Time") : tr("Time (%1)").arg(m_timeNote);
        case TopicColumn:
            return tr("Topic");
        case SubscriptionColumn:
            return tr("Subscription");
        case EventsColumn:
            return tr("Events");
        case AttemptColumn:
            return tr("Attempt");
        case StatusColumn:
            return tr("Status");
        case OutcomeColumn:
            return tr("Outcome");
        case DurationColumn:
            return tr("Duration");
        case NextDueColumn:
            return tr("Next due");
        case InstanceColumn:
            return tr("Instance");
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case EventsColumn:
            return tr("The event ids in the request: the first one, and how many more (batching)");
        case AttemptColumn:
            return tr("1 for the first delivery, 2 for the first retry, …");
        case OutcomeColumn:
            return tr("lastDeliveryOutcome as Event Grid names it");
        case NextDueColumn:
            return tr("When the next retry of these events is due");
        case InstanceColumn:
            return tr("The eventdeskd instance of the shared store that made the attempt");
        default:
            break;
        }
    }
    return QVariant();
}

DeliveryLogFilterModel::DeliveryLogFilterModel(QObject *parent)
    : QSortFilterProxyModel(parent)
{
    setSortRole(DeliveryLogModel::SortRole);
    setDynamicSortFilter(true);
}

void DeliveryLogFilterModel::sort(int column, Qt::SortOrder order)
{
    const bool arrivalOrder = column == DeliveryLogModel::TimeColumn && order == Qt::AscendingOrder;
    QSortFilterProxyModel::sort(arrivalOrder ? -1 : column, order);
}

void DeliveryLogFilterModel::setSubscription(const QString &topic, const QString &subscription)
{
    if (topic == m_topic && subscription == m_subscription)
        return;
    m_topic = topic;
    m_subscription = subscription;
    invalidateFilter();
}

void DeliveryLogFilterModel::setOutcome(std::optional<DeliveryOutcome> outcome)
{
    if (outcome == m_outcome)
        return;
    m_outcome = outcome;
    invalidateFilter();
}

void DeliveryLogFilterModel::setEventIdText(const QString &text)
{
    const QString trimmed = text.trimmed();
    if (trimmed == m_eventIdText)
        return;
    m_eventIdText = trimmed;
    invalidateFilter();
}

void DeliveryLogFilterModel::setOnlyFailures(bool onlyFailures)
{
    if (onlyFailures == m_onlyFailures)
        return;
    m_onlyFailures = onlyFailures;
    invalidateFilter();
}

bool DeliveryLogFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    const auto *log = qobject_cast<const DeliveryLogModel *>(sourceModel());
    if (!log || sourceParent.isValid())
        return true;
    const AttemptLogEntry &attempt = log->entry(sourceRow);
    if (m_onlyFailures && attempt.outcome == DeliveryOutcome::Delivered)
        return false;
    if (m_outcome && attempt.outcome != *m_outcome)
        return false;
    if (!m_subscription.isEmpty()
        && (attempt.subscription != m_subscription || attempt.topic != m_topic))
        return false;
    if (!m_eventIdText.isEmpty()) {
        return std::any_of(
            attempt.eventIds.cbegin(), attempt.eventIds.cend(),
            [this](const QString &id) { return id.contains(m_eventIdText, Qt::CaseInsensitive); });
    }
    return true;
}

} // namespace EventDesk::Ui
