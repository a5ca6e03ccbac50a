// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "FilterEvaluator.h"

#include <QJsonArray>

#include <algorithm>

namespace EventDesk {

namespace {

// The negated operators and the positive operator each one negates.
std::optional<FilterOperator> positiveCounterpart(FilterOperator op)
{
    switch (op) {
    case FilterOperator::NumberNotIn:
        return FilterOperator::NumberIn;
    case FilterOperator::NumberNotInRange:
        return FilterOperator::NumberInRange;
    case FilterOperator::StringNotIn:
        return FilterOperator::StringIn;
    case FilterOperator::StringNotContains:
        return FilterOperator::StringContains;
    case FilterOperator::StringNotBeginsWith:
        return FilterOperator::StringBeginsWith;
    case FilterOperator::StringNotEndsWith:
        return FilterOperator::StringEndsWith;
    default:
        return std::nullopt;
    }
}

template<typename Predicate>
bool anyString(const AdvancedFilter &filter, const QJsonValue &value, Predicate predicate)
{
    if (!value.isString())
        return false;
    const QString text = value.toString();
    return std::any_of(filter.strings.cbegin(), filter.strings.cend(),
                       [&](const QString &candidate) { return predicate(text, candidate); });
}

// A positive operator against one scalar value. Values within one filter are OR'd. A value of
// the wrong type (a numeric string for a Number operator, a number for a String operator, ...)
// or an undefined value does not match.
bool positiveMatches(const AdvancedFilter &filter, FilterOperator op, const QJsonValue &value)
{
    // QJsonValue::isDouble() is true for every JSON number, integral or not.
    const bool isNumber = value.isDouble();
    const double number = value.toDouble();
    const double bound = filter.numbers.isEmpty() ? 0.0 : filter.numbers.first();
    const bool hasBound = isNumber && !filter.numbers.isEmpty();

    switch (op) {
    case FilterOperator::NumberIn:
        return isNumber && filter.numbers.contains(number);
    case FilterOperator::NumberLessThan:
        return hasBound && number < bound;
    case FilterOperator::NumberLessThanOrEquals:
        return hasBound && number <= bound;
    case FilterOperator::NumberGreaterThan:
        return hasBound && number > bound;
    case FilterOperator::NumberGreaterThanOrEquals:
        return hasBound && number >= bound;
    case FilterOperator::NumberInRange:
        return isNumber
            && std::any_of(filter.ranges.cbegin(), filter.ranges.cend(), [&](const auto &range) {
                   return number >= range.first && number <= range.second;
               });
    case FilterOperator::BoolEquals:
        return value.isBool() && value.toBool() == filter.boolValue;
    case FilterOperator::StringIn:
        return anyString(filter, value, [](const QString &text, const QString &candidate) {
            return text.compare(candidate, Qt::CaseInsensitive) == 0;
        });
    case FilterOperator::StringContains:
        return anyString(filter, value, [](const QString &text, const QString &candidate) {
            return text.contains(candidate, Qt::CaseInsensitive);
        });
    case FilterOperator::StringBeginsWith:
        return anyString(filter, value, [](const QString &text, const QString &candidate) {
            return text.startsWith(candidate, Qt::CaseInsensitive);
        });
    case FilterOperator::StringEndsWith:
        return anyString(filter, value, [](const QString &text, const QString &candidate) {
            return text.endsWith(candidate, Qt::CaseInsensitive);
        });
    default:
        return false;
    }
}

// True when any element of value (or value itself, when it is not an array) matches op.
bool anyElementMatches(const AdvancedFilter &filter, FilterOperator op, const QJsonValue &value)
{
    if (!value.isArray())
        return positiveMatches(filter, op, value);
    const QJsonArray elements = value.toArray();
    return std::any_of(elements.cbegin(), elements.cend(), [&](const QJsonValue &element) {
        return positiveMatches(filter, op, element);
    });
}

} // namespace

bool FilterEvaluator::matches(const EventFilter &filter, const QString &eventType,
                              const QString &subject, const QJsonObject &filterView)
{
    if (!filter.includedEventTypes.isEmpty()
        && !filter.includedEventTypes.contains(eventType, Qt::CaseInsensitive)) {
        return false;
    }

    const Qt::CaseSensitivity subjectCase
        = filter.isSubjectCaseSensitive ? Qt::CaseSensitive : Qt::CaseInsensitive;
    if (!filter.subjectBeginsWith.isEmpty()
        && !subject.startsWith(filter.subjectBeginsWith, subjectCase)) {
        return false;
    }
    if (!filter.subjectEndsWith.isEmpty()
        && !subject.endsWith(filter.subjectEndsWith, subjectCase)) {
        return false;
    }

    // Advanced filters are AND'd.
    return std::all_of(
        filter.advancedFilters.cbegin(), filter.advancedFilters.cend(),
        [&](const AdvancedFilter &advanced) { return matchesAdvanced(advanced, filterView); });
}

bool FilterEvaluator::matchesAdvanced(const AdvancedFilter &filter, const QJsonObject &filterView)
{
    const QJsonValue value = lookup(filterView, filter.key);

    // The null checks look at the value itself, also when it is an array.
    if (filter.op == FilterOperator::IsNullOrUndefined)
        return value.isUndefined() || value.isNull();
    if (filter.op == FilterOperator::IsNotNull)
        return !value.isUndefined() && !value.isNull();

    // Decision: a missing key (undefined) or a value of the wrong type makes the positive
    // operators false and the negated ones (NumberNotIn, NumberNotInRange, StringNotIn,
    // StringNotContains, StringNotBeginsWith, StringNotEndsWith) true: a negated operator is
    // exactly "not (its positive counterpart)". For an array value, a positive operator matches
    // when any element matches and a negated one when no element matches.
    if (const std::optional<FilterOperator> positive = positiveCounterpart(filter.op))
        return !anyElementMatches(filter, *positive, value);
    return anyElementMatches(filter, filter.op, value);
}

QJsonValue FilterEvaluator::lookup(const QJsonObject &object, const QString &dottedKey)
{
    if (dottedKey.isEmpty())
        return QJsonValue(QJsonValue::Undefined);
    QJsonValue current(object);
    for (const QStringView part : QStringView(dottedKey).split(u'.')) {
        if (!current.isObject())
            return QJsonValue(QJsonValue::Undefined);
        current = current.toObject().value(part);
    }
    return current;
}

} // namespace EventDesk
