// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "DeadLetterModel.h"

#include "common/Format.h"
#include "log/StoreReader.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

DeadLetterModel::DeadLetterModel(StoreReader *reader, QObject *parent)
    : QAbstractTableModel(parent)
    , m_reader(reader)
{
}

void DeadLetterModel::setFilter(const DeadLetterQuery &filter)
{
    m_filter = filter;
    reload();
}

void DeadLetterModel::reload()
{
    ++m_generation;
    beginResetModel();
    m_rows.clear();
    m_nextBeforeId = 0;
    m_atEnd = false;
    m_fetching = false;
    m_lastError.clear();
    endResetModel();
    // A view (or tester) reacting to the reset may already have asked for the first page.
    if (!m_fetching)
        fetchPage();
}

void DeadLetterModel::removeIds(const QList<qint64> &ids)
{
    for (const qint64 id : ids) {
        const int row = rowOfId(id);
        if (row < 0)
            continue;
        beginRemoveRows(QModelIndex(), row, row);
        m_rows.removeAt(row);
        endRemoveRows();
    }
}

int DeadLetterModel::rowOfId(qint64 id) const
{
    // Rows are in descending id order.
    const auto it = std::lower_bound(
        m_rows.cbegin(), m_rows.cend(), id,
        [](const DeadLetterEntry &entry, qint64 value) { return entry.id > value; });
    return it != m_rows.cend() && it->id == id ? int(it - m_rows.cbegin()) : -1;
}

bool DeadLetterModel::canFetchMore(const QModelIndex &parent) const
{
    return !parent.isValid() && !m_atEnd && !m_fetching && m_lastError.isEmpty()
        && !m_reader->storeLocation().isEmpty();
}

void DeadLetterModel::fetchMore(const QModelIndex &parent)
{
    if (canFetchMore(parent))
        fetchPage();
}

void DeadLetterModel::fetchPage()
{
    if (m_reader->storeLocation().isEmpty()) {
        m_atEnd = true;
        return;
    }
    m_fetching = true;
    const quint64 generation = m_generation;
    DeadLetterQuery query = m_filter;
    query.beforeId = m_nextBeforeId;
    query.limit = PageSize;
    m_reader->run(
        this,
        [this, generation,
         query](const Expected<DeliveryStoreReader *> &store) -> StoreReader::Continuation {
            QList<DeadLetterEntry> rows;
            QString error;
            if (!store) {
                error = store.error();
            } else {
                // The index fields only: the detail pane reads the record of one row at a time.
                if (auto read = store.value()->deadLetters(query, DeadLetterFields::IndexOnly);
                    !read)
                    error = read.error();
                else
                    rows = std::move(read.value());
            }
            return [this, generation, rows = std::move(rows), error]() mutable {
                pageArrived(generation, std::move(rows), error);
            };
        });
}

void DeadLetterModel::pageArrived(quint64 generation, QList<DeadLetterEntry> rows,
                                  const QString &error)
{
    if (generation != m_generation)
        return;
    const int arrived = int(rows.size());
    m_fetching = false;
    m_lastError = error;
    if (!error.isEmpty() || rows.size() < PageSize)
        m_atEnd = true;
    if (!rows.isEmpty()) {
        // Set before the rows are announced: a view or tester may ask for the next page while
        // they are being inserted.
        m_nextBeforeId = rows.constLast().id;
        const int first = int(m_rows.size());
        beginInsertRows(QModelIndex(), first, first + int(rows.size()) - 1);
        m_rows.append(std::move(rows));
        endInsertRows();
    }
    Q_EMIT pageLoaded(arrived, error);
}

int DeadLetterModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int DeadLetterModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DeadLetterModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return QVariant();
    const DeadLetterEntry &entry = m_rows.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case TimeColumn:
            return formatTime(entry.deadLetteredMs);
        case TopicColumn:
            return entry.topic;
        case SubscriptionColumn:
            return entry.subscription;
        case EventIdColumn:
            return entry.eventId;
        case EventTypeColumn:
            return entry.eventType;
        case ReasonColumn:
            return deadLetterReasonName(entry.reason);
        case OutcomeColumn:
            return deliveryOutcomeName(entry.lastOutcome);
        case StatusColumn:
            return entry.lastHttpStatus > 0 ? QString::number(entry.lastHttpStatus) : u"—"_s;
        case AttemptsColumn:
            return entry.attempts;
        }
        break;
    case Qt::DecorationRole:
        if (index.column() == OutcomeColumn)
            return outcomeColor(entry.lastOutcome);
        break;
    case Qt::TextAlignmentRole:
        if (index.column() == StatusColumn || index.column() == AttemptsColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return QVariant::fromValue(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        switch (index.column()) {
        case TimeColumn:
            return tr("Dead-lettered at %1\nPublished at %2\nLast attempt at %3")
                .arg(formatTime(entry.deadLetteredMs), formatTime(entry.publishMs),
                     formatTime(entry.lastAttemptMs));
        case StatusColumn:
            return entry.lastHttpStatus > 0
                ? tr("HTTP status of the last attempt: %1").arg(entry.lastHttpStatus)
                : tr("The last attempt got no HTTP response");
        case AttemptsColumn:
            return tr("%n delivery attempt(s) before dead-lettering", nullptr, entry.attempts);
        case ReasonColumn:
            return deadLetterReasonName(entry.reason);
        default:
            return tr("Blob %1").arg(entry.blobPath);
        }
    case IdRole:
        return entry.id;
    case BlobPathRole:
        return entry.blobPath;
    default:
        break;
    }
    return QVariant();
}

QVariant DeadLetterModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0
        || section >= ColumnCount)
        return QVariant();
    switch (section) {
    case TimeColumn:
        return tr("Dead-lettered");
    case TopicColumn:
        return tr("Topic");
    case SubscriptionColumn:
        return tr("Subscription");
    case EventIdColumn:
        return tr("Event id");
    case EventTypeColumn:
        return tr("Event type");
    case ReasonColumn:
        return tr("Reason");
    case OutcomeColumn:
        return tr("Last outcome");
    case StatusColumn:
        return tr("Status");
    case AttemptsColumn:
        return tr("Attempts");
    }
    return QVariant();
}

} // namespace EventDesk::Ui
