// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "AdvancedFilterModel.h"

#include <QApplication>
#include <QIcon>
#include <QLocale>
#include <QRegularExpression>
#include <QStyle>

#include <cmath>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {

enum class ValueShape { Strings, Numbers, SingleNumber, Ranges, Bool, None };

ValueShape shapeOf(FilterOperator op)
{
    switch (op) {
    case FilterOperator::NumberIn:
    case FilterOperator::NumberNotIn:
        return ValueShape::Numbers;
    case FilterOperator::NumberLessThan:
    case FilterOperator::NumberLessThanOrEquals:
    case FilterOperator::NumberGreaterThan:
    case FilterOperator::NumberGreaterThanOrEquals:
        return ValueShape::SingleNumber;
    case FilterOperator::NumberInRange:
    case FilterOperator::NumberNotInRange:
        return ValueShape::Ranges;
    case FilterOperator::BoolEquals:
        return ValueShape::Bool;
    case FilterOperator::IsNullOrUndefined:
    case FilterOperator::IsNotNull:
        return ValueShape::None;
    default:
        return ValueShape::Strings;
    }
}

QString formatNumber(double number)
{
    return QLocale::c().toString(number, 'g', 15);
}

std::optional<double> parseNumber(const QString &text)
{
    bool ok = false;
    const double number = QLocale::c().toDouble(text.trimmed(), &ok);
    if (!ok || !std::isfinite(number))
        return std::nullopt;
    return number;
}

// Comma-separated items; an item in double quotes may contain commas ("" is a literal quote).
// Empty items are skipped. Returns false on an unterminated quote.
bool splitItems(const QString &text, QStringList *items)
{
    QString current;
    bool quoted = false;
    bool wasQuoted = false;
    const auto finish = [&] {
        const QString item = wasQuoted ? current : current.trimmed();
        if (!item.isEmpty() || wasQuoted)
            items->append(item);
        current.clear();
        wasQuoted = false;
    };
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (quoted) {
            if (c == u'"') {
                if (i + 1 < text.size() && text.at(i + 1) == u'"') {
                    current += u'"';
                    ++i;
                } else {
                    quoted = false;
                }
            } else {
                current += c;
            }
        } else if (c == u'"' && current.trimmed().isEmpty()) {
            current.clear();
            quoted = true;
            wasQuoted = true;
        } else if (c == u',') {
            finish();
        } else if (!wasQuoted) {
            current += c;
        } else if (!c.isSpace()) {
            current += c; // text after a closing quote: keep it, it is the user's intent
        }
    }
    if (quoted)
        return false;
    finish();
    return true;
}

QString quoteIfNeeded(const QString &value)
{
    const bool needsQuotes = value.isEmpty() || value.contains(u',') || value.contains(u'"')
        || value.trimmed() != value;
    if (!needsQuotes)
        return value;
    QString escaped = value;
    escaped.replace(u"\""_s, u"\"\""_s);
    return u'"' + escaped + u'"';
}

} // namespace

AdvancedFilterModel::AdvancedFilterModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

QString AdvancedFilterModel::valuesText(const AdvancedFilter &filter)
{
    QStringList parts;
    switch (shapeOf(filter.op)) {
    case ValueShape::Numbers:
    case ValueShape::SingleNumber:
        for (const double number : filter.numbers)
            parts.append(formatNumber(number));
        break;
    case ValueShape::Ranges:
        for (const auto &[minimum, maximum] : filter.ranges) {
            const bool negative = minimum < 0 || maximum < 0;
            parts.append(formatNumber(minimum) + (negative ? u" - "_s : u"-"_s)
                         + formatNumber(maximum));
        }
        break;
    case ValueShape::Strings:
        for (const QString &value : filter.strings)
            parts.append(quoteIfNeeded(value));
        break;
    case ValueShape::Bool:
    case ValueShape::None:
        break;
    }
    return parts.join(u", "_s);
}

QString AdvancedFilterModel::valuesHint(FilterOperator op)
{
    switch (shapeOf(op)) {
    case ValueShape::Numbers:
        return tr("Numbers separated by commas, e.g. 1, 2.5, 10");
    case ValueShape::SingleNumber:
        return tr("One number, e.g. 100");
    case ValueShape::Ranges:
        return tr("Inclusive ranges separated by commas, e.g. 1-5, 7-9");
    case ValueShape::Strings:
        return tr("Strings separated by commas, at most %1 characters each; put a value that "
                  "contains a comma in double quotes")
            .arg(EventFilter::MaxStringValueLength);
    case ValueShape::Bool:
        return tr("Checked: the field must be true; unchecked: it must be false");
    case ValueShape::None:
        return tr("This operator takes no value");
    }
    return QString();
}

QString AdvancedFilterModel::operatorDescription(FilterOperator op)
{
    switch (op) {
    case FilterOperator::NumberIn:
        return tr("The number equals one of the values");
    case FilterOperator::NumberNotIn:
        return tr("The number equals none of the values");
    case FilterOperator::NumberLessThan:
        return tr("The number is less than the value");
    case FilterOperator::NumberLessThanOrEquals:
        return tr("The number is less than or equal to the value");
    case FilterOperator::NumberGreaterThan:
        return tr("The number is greater than the value");
    case FilterOperator::NumberGreaterThanOrEquals:
        return tr("The number is greater than or equal to the value");
    case FilterOperator::NumberInRange:
        return tr("The number lies in one of the ranges");
    case FilterOperator::NumberNotInRange:
        return tr("The number lies in none of the ranges");
    case FilterOperator::BoolEquals:
        return tr("The field is the boolean value");
    case FilterOperator::StringIn:
        return tr("The string equals one of the values (case-insensitive)");
    case FilterOperator::StringNotIn:
        return tr("The string equals none of the values (case-insensitive)");
    case FilterOperator::StringContains:
        return tr("The string contains one of the values");
    case FilterOperator::StringNotContains:
        return tr("The string contains none of the values");
    case FilterOperator::StringBeginsWith:
        return tr("The string begins with one of the values");
    case FilterOperator::StringNotBeginsWith:
        return tr("The string begins with none of the values");
    case FilterOperator::StringEndsWith:
        return tr("The string ends with one of the values");
    case FilterOperator::StringNotEndsWith:
        return tr("The string ends with none of the values");
    case FilterOperator::IsNullOrUndefined:
        return tr("The field is null or missing");
    case FilterOperator::IsNotNull:
        return tr("The field is present and not null");
    }
    return QString();
}

AdvancedFilterModel::Parsed AdvancedFilterModel::parse(const Row &row)
{
    Parsed parsed;
    AdvancedFilter &filter = parsed.filter;
    filter.op = row.op;
    filter.key = row.key.trimmed();
    filter.boolValue = row.boolValue;
    const ValueShape shape = shapeOf(row.op);
    if (shape == ValueShape::Bool || shape == ValueShape::None)
        return parsed;

    QStringList items;
    if (!splitItems(row.valuesText, &items)) {
        parsed.error = tr("a double quote is not closed");
        return parsed;
    }
    static const QRegularExpression rangePattern(
        uR"(^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(?:\.\.|-|–|to)\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*$)"_s);
    for (const QString &item : std::as_const(items)) {
        switch (shape) {
        case ValueShape::Strings:
            filter.strings.append(item);
            break;
        case ValueShape::Numbers:
        case ValueShape::SingleNumber:
            if (const std::optional<double> number = parseNumber(item))
                filter.numbers.append(*number);
            else if (parsed.error.isEmpty())
                parsed.error = tr("\"%1\" is not a number").arg(item);
            break;
        case ValueShape::Ranges: {
            const QRegularExpressionMatch match = rangePattern.match(item);
            const std::optional<double> minimum
                = match.hasMatch() ? parseNumber(match.captured(1)) : std::nullopt;
            const std::optional<double> maximum
                = match.hasMatch() ? parseNumber(match.captured(2)) : std::nullopt;
            if (minimum && maximum)
                filter.ranges.append({*minimum, *maximum});
            else if (parsed.error.isEmpty())
                parsed.error = tr("\"%1\" is not a range like 1-5").arg(item);
            break;
        }
        case ValueShape::Bool:
        case ValueShape::None:
            break;
        }
    }
    return parsed;
}

void AdvancedFilterModel::setFilters(const QList<AdvancedFilter> &filters)
{
    beginResetModel();
    m_rows.clear();
    m_rowErrors.clear();
    for (const AdvancedFilter &filter : filters)
        m_rows.append(Row {filter.op, filter.key, valuesText(filter), filter.boolValue});
    endResetModel();
    Q_EMIT filtersChanged();
}

QList<AdvancedFilter> AdvancedFilterModel::filters() const
{
    QList<AdvancedFilter> result;
    result.reserve(m_rows.size());
    for (const Row &row : m_rows)
        result.append(parse(row).filter);
    return result;
}

QHash<int, QString> AdvancedFilterModel::parseErrors() const
{
    QHash<int, QString> errors;
    for (int row = 0; row < m_rows.size(); ++row) {
        const QString error = parse(m_rows.at(row)).error;
        if (!error.isEmpty())
            errors.insert(row, error);
    }
    return errors;
}

int AdvancedFilterModel::totalValueCount() const
{
    int total = 0;
    for (const Row &row : m_rows)
        total += parse(row).filter.valueCount();
    return total;
}

int AdvancedFilterModel::addFilter()
{
    if (!canAddFilter())
        return -1;
    const int row = int(m_rows.size());
    beginInsertRows(QModelIndex(), row, row);
    m_rows.append(Row());
    endInsertRows();
    Q_EMIT filtersChanged();
    return row;
}

void AdvancedFilterModel::removeFilter(int row)
{
    if (row < 0 || row >= m_rows.size())
        return;
    beginRemoveRows(QModelIndex(), row, row);
    m_rows.removeAt(row);
    endRemoveRows();
    Q_EMIT filtersChanged();
}

void AdvancedFilterModel::setRowErrors(const QHash<int, QString> &errors)
{
    if (errors == m_rowErrors)
        return;
    m_rowErrors = errors;
    if (!m_rows.isEmpty())
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1),
                           {Qt::DecorationRole, Qt::ToolTipRole});
}

int AdvancedFilterModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int AdvancedFilterModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant AdvancedFilterModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::ParentIsInvalid))
        return QVariant();
    const Row &row = m_rows.at(index.row());
    const ValueShape shape = shapeOf(row.op);
    const QString error = m_rowErrors.value(index.row());
    if (role == Qt::ToolTipRole && !error.isEmpty())
        return error;
    if (role == Qt::DecorationRole && index.column() == OperatorColumn && !error.isEmpty())
        return QApplication::style()->standardIcon(QStyle::SP_MessageBoxWarning);

    switch (index.column()) {
    case OperatorColumn:
        if (role == Qt::DisplayRole)
            return filterOperatorName(row.op);
        if (role == Qt::EditRole)
            return int(row.op);
        if (role == Qt::ToolTipRole)
            return operatorDescription(row.op);
        break;
    case KeyColumn:
        if (role == Qt::DisplayRole || role == Qt::EditRole)
            return row.key;
        if (role == Qt::ToolTipRole)
            return tr("The event field to test, e.g. data.color, subject or eventType");
        break;
    case ValuesColumn:
        if (shape == ValueShape::Bool) {
            if (role == Qt::CheckStateRole)
                return row.boolValue ? Qt::Checked : Qt::Unchecked;
            if (role == Qt::DisplayRole)
                return row.boolValue ? u"true"_s : u"false"_s;
        } else if (shape == ValueShape::None) {
            if (role == Qt::DisplayRole)
                return tr("(no value)");
            if (role == Qt::ForegroundRole)
                return QApplication::palette().brush(QPalette::PlaceholderText);
        } else if (role == Qt::DisplayRole || role == Qt::EditRole) {
            return row.valuesText;
        }
        if (role == Qt::ToolTipRole)
            return valuesHint(row.op);
        break;
    case CountColumn:
        if (role == Qt::DisplayRole)
            return parse(row).filter.valueCount();
        if (role == Qt::TextAlignmentRole)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        if (role == Qt::ToolTipRole)
            return tr("Values this filter counts against the limit of %1")
                .arg(EventFilter::MaxFilterValues);
        break;
    default:
        break;
    }
    return QVariant();
}

bool AdvancedFilterModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::ParentIsInvalid))
        return false;
    Row &row = m_rows[index.row()];
    switch (index.column()) {
    case OperatorColumn: {
        if (role != Qt::EditRole)
            return false;
        const int op = value.toInt();
        if (op < int(FilterOperator::NumberIn) || op > int(FilterOperator::IsNotNull)
            || op == int(row.op))
            return false;
        row.op = FilterOperator(op);
        break;
    }
    case KeyColumn:
        if (role != Qt::EditRole || value.toString() == row.key)
            return false;
        row.key = value.toString();
        break;
    case ValuesColumn:
        if (shapeOf(row.op) == ValueShape::Bool && role == Qt::CheckStateRole) {
            row.boolValue = value.toInt() == Qt::Checked;
        } else if (role == Qt::EditRole && shapeOf(row.op) != ValueShape::Bool
                   && shapeOf(row.op) != ValueShape::None) {
            if (value.toString() == row.valuesText)
                return false;
            row.valuesText = value.toString();
        } else {
            return false;
        }
        break;
    default:
        return false;
    }
    // The operator decides how the values read; the values decide the count.
    Q_EMIT dataChanged(this->index(index.row(), 0), this->index(index.row(), ColumnCount - 1));
    Q_EMIT filtersChanged();
    return true;
}

Qt::ItemFlags AdvancedFilterModel::flags(const QModelIndex &index) const
{
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::ParentIsInvalid))
        return Qt::NoItemFlags;
    const Qt::ItemFlags base = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    switch (index.column()) {
    case OperatorColumn:
    case KeyColumn:
        return base | Qt::ItemIsEditable;
    case ValuesColumn:
        switch (shapeOf(m_rows.at(index.row()).op)) {
        case ValueShape::Bool:
            return base | Qt::ItemIsUserCheckable;
        case ValueShape::None:
            return base;
        default:
            return base | Qt::ItemIsEditable;
        }
    default:
        return base;
    }
}

QVariant AdvancedFilterModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case OperatorColumn:
        return tr("Operator");
    case KeyColumn:
        return tr("Key");
    case ValuesColumn:
        return tr("Values");
    case CountColumn:
        return tr("Count");
    default:
        return QVariant();
    }
}

} // namespace EventDesk::Ui
