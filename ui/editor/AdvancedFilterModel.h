// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "model/Filter.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QList>

namespace EventDesk::Ui {

// The advanced filters table of the subscription editor: operator, key, and the values as text
// ("a, b, \"c, d\"" for strings, "1, 2.5" for numbers, "1-5, 7-9" for ranges, a check box for
// BoolEquals, nothing for IsNullOrUndefined / IsNotNull).
class AdvancedFilterModel final : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { OperatorColumn, KeyColumn, ValuesColumn, CountColumn, ColumnCount };

    explicit AdvancedFilterModel(QObject *parent = nullptr);

    void setFilters(const QList<AdvancedFilter> &filters);

    // The filters as typed. A row whose values text does not parse keeps the values that did and
    // reports the problem in parseErrors() (row -> message).
    QList<AdvancedFilter> filters() const;
    QHash<int, QString> parseErrors() const;
    // Values counted against the limit of 25 (EventFilter::MaxFilterValues).
    int totalValueCount() const;

    int addFilter(); // returns the new row, or -1 when 25 filters exist
    void removeFilter(int row);
    bool canAddFilter() const { return m_rows.size() < EventFilter::MaxAdvancedFilters; }

    void setRowErrors(const QHash<int, QString> &errors);

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // Text <-> values, shared with the tests.
    static QString valuesText(const AdvancedFilter &filter);
    static QString valuesHint(FilterOperator op);
    static QString operatorDescription(FilterOperator op);

Q_SIGNALS:
    void filtersChanged();

private:
    struct Row
    {
        FilterOperator op = FilterOperator::StringIn;
        QString key;
        QString valuesText;
        bool boolValue = false;
    };
    struct Parsed
    {
        AdvancedFilter filter;
        QString error;
    };
    static Parsed parse(const Row &row);

    QList<Row> m_rows;
    QHash<int, QString> m_rowErrors;
};

} // namespace EventDesk::Ui
