// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "Filter.h"

#include <array>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

struct OperatorName
{
    FilterOperator op;
    QLatin1StringView name;
};

constexpr std::array<OperatorName, 19> operatorNames = {{
    {FilterOperator::NumberIn, "NumberIn"_L1},
    {FilterOperator::NumberNotIn, "NumberNotIn"_L1},
    {FilterOperator::NumberLessThan, "NumberLessThan"_L1},
    {FilterOperator::NumberLessThanOrEquals, "NumberLessThanOrEquals"_L1},
    {FilterOperator::NumberGreaterThan, "NumberGreaterThan"_L1},
    {FilterOperator::NumberGreaterThanOrEquals, "NumberGreaterThanOrEquals"_L1},
    {FilterOperator::NumberInRange, "NumberInRange"_L1},
    {FilterOperator::NumberNotInRange, "NumberNotInRange"_L1},
    {FilterOperator::BoolEquals, "BoolEquals"_L1},
    {FilterOperator::StringIn, "StringIn"_L1},
    {FilterOperator::StringNotIn, "StringNotIn"_L1},
    {FilterOperator::StringContains, "StringContains"_L1},
    {FilterOperator::StringNotContains, "StringNotContains"_L1},
    {FilterOperator::StringBeginsWith, "StringBeginsWith"_L1},
    {FilterOperator::StringNotBeginsWith, "StringNotBeginsWith"_L1},
    {FilterOperator::StringEndsWith, "StringEndsWith"_L1},
    {FilterOperator::StringNotEndsWith, "StringNotEndsWith"_L1},
    {FilterOperator::IsNullOrUndefined, "IsNullOrUndefined"_L1},
    {FilterOperator::IsNotNull, "IsNotNull"_L1},
}};

} // namespace

QString filterOperatorName(FilterOperator op)
{
    for (const OperatorName &entry : operatorNames) {
        if (entry.op == op)
            return QString(entry.name);
    }
    return QString();
}

std::optional<FilterOperator> filterOperatorFromName(const QString &name)
{
    // Resource Manager compares enum values case-insensitively.
    for (const OperatorName &entry : operatorNames) {
        if (name.compare(entry.name, Qt::CaseInsensitive) == 0)
            return entry.op;
    }
    return std::nullopt;
}

int AdvancedFilter::valueCount() const
{
    switch (op) {
    case FilterOperator::NumberIn:
    case FilterOperator::NumberNotIn:
        return int(numbers.size());
    case FilterOperator::NumberLessThan:
    case FilterOperator::NumberLessThanOrEquals:
    case FilterOperator::NumberGreaterThan:
    case FilterOperator::NumberGreaterThanOrEquals:
    case FilterOperator::BoolEquals:
        return 1;
    case FilterOperator::NumberInRange:
    case FilterOperator::NumberNotInRange:
        return int(ranges.size());
    case FilterOperator::StringIn:
    case FilterOperator::StringNotIn:
    case FilterOperator::StringContains:
    case FilterOperator::StringNotContains:
    case FilterOperator::StringBeginsWith:
    case FilterOperator::StringNotBeginsWith:
    case FilterOperator::StringEndsWith:
    case FilterOperator::StringNotEndsWith:
        return int(strings.size());
    case FilterOperator::IsNullOrUndefined:
    case FilterOperator::IsNotNull:
        return 0;
    }
    return 0;
}

} // namespace EventDesk
