// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>
#include <utility>

namespace EventDesk {

// Advanced filter operators (Event Grid names, used verbatim in operatorType).
enum class FilterOperator {
    NumberIn,
    NumberNotIn,
    NumberLessThan,
    NumberLessThanOrEquals,
    NumberGreaterThan,
    NumberGreaterThanOrEquals,
    NumberInRange,
    NumberNotInRange,
    BoolEquals,
    StringIn,
    StringNotIn,
    StringContains,
    StringNotContains,
    StringBeginsWith,
    StringNotBeginsWith,
    StringEndsWith,
    StringNotEndsWith,
    IsNullOrUndefined,
    IsNotNull,
};

QString filterOperatorName(FilterOperator op);
std::optional<FilterOperator> filterOperatorFromName(const QString &name);

struct AdvancedFilter
{
    FilterOperator op = FilterOperator::StringIn;
    QString key; // "subject", "eventType", "data.a.b", CloudEvents attribute names, ...
    // Exactly one of these is used, depending on op:
    QList<double> numbers; // NumberIn, NumberNotIn; one entry for NumberLessThan..GreaterThanOrEquals
    QList<std::pair<double, double>> ranges; // NumberInRange, NumberNotInRange (inclusive)
    QStringList strings; // String*
    bool boolValue = false; // BoolEquals

    // Values counted against the subscription-wide limit of 25 (one per number, range or string;
    // BoolEquals and the single-value number operators count one; IsNull* count zero).
    int valueCount() const;
};

struct EventFilter
{
    QStringList includedEventTypes; // empty = all
    QString subjectBeginsWith;
    QString subjectEndsWith;
    bool isSubjectCaseSensitive = false;
    QList<AdvancedFilter> advancedFilters;

    static constexpr int MaxAdvancedFilters = 25;
    static constexpr int MaxFilterValues = 25;
    static constexpr int MaxStringValueLength = 512;
};

} // namespace EventDesk
