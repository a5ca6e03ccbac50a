// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "store/DeliveryStore.h"

#include <QAbstractTableModel>
#include <QList>
#include <QString>

namespace EventDesk::Ui {

class StoreReader;

// The dead letters of the workspace, newest first, read page by page through keyset pagination
// (id < last id seen, never OFFSET, so every page costs the same). fetchMore() reads the next
// page on the reader thread; rows arrive a moment later. Rows hold the index fields, not the
// record bytes (the detail pane reads those for one row at a time).
class DeadLetterModel final : public QAbstractTableModel
{
    Q_OBJECT

public:
    static constexpr int PageSize = 200;

    enum Column {
        TimeColumn,
        EventIdColumn,
        ReasonColumn,
        OutcomeColumn,
        StatusColumn,
        AttemptsColumn,
        SubscriptionColumn,
        TopicColumn,
        EventTypeColumn,
        ColumnCount
    };

    enum Role {
        IdRole = Qt::UserRole + 1, // qint64
        BlobPathRole,
    };

    explicit DeadLetterModel(StoreReader *reader, QObject *parent = nullptr);

    // Clears the rows and reads the first page of the filter. Its beforeId and limit are the
    // model's own: each page sets them.
    void setFilter(const DeadLetterQuery &filter);
    const DeadLetterQuery &filter() const { return m_filter; }
    // Reads the first page again (after resubmits, deletes, or new dead letters).
    void reload();
    // Takes rows out without reading the store (the ids were deleted).
    void removeIds(const QList<qint64> &ids);

    bool isFetching() const { return m_fetching; }
    bool isAtEnd() const { return m_atEnd; }
    QString lastError() const { return m_lastError; }
    const DeadLetterEntry &entry(int row) const { return m_rows.at(row); }
    int rowOfId(qint64 id) const;

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    bool canFetchMore(const QModelIndex &parent) const override;
    void fetchMore(const QModelIndex &parent) override;

Q_SIGNALS:
    // A page arrived (rows: how many; 0 at the end), or could not be read (error).
    void pageLoaded(int rows, const QString &error);

private:
    void fetchPage();
    void pageArrived(quint64 generation, QList<DeadLetterEntry> rows, const QString &error);

    StoreReader *m_reader = nullptr;
    DeadLetterQuery m_filter;
    QList<DeadLetterEntry> m_rows;
    qint64 m_nextBeforeId = 0; // keyset of the next page: the smallest id read so far
    quint64 m_generation = 0;
    bool m_fetching = false;
    bool m_atEnd = false;
    QString m_lastError;
};

} // namespace EventDesk::Ui
