// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "WorkspaceRules.h"

#include "JsonSupport.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace EventDesk::WorkspaceJson {

using JsonSupport::describeValue;

bool isNameCharacter(QChar character)
{
    return (character >= u'a' && character <= u'z') || (character >= u'A' && character <= u'Z')
        || (character >= u'0' && character <= u'9') || character == u'-';
}

void checkName(JsonReader &sink, const QString &name, const QString &path, int minimum, int maximum)
{
    const bool valid = name.size() >= minimum && name.size() <= maximum
        && std::all_of(name.cbegin(), name.cend(), isNameCharacter);
    if (!valid) {
        sink.fail(path,
                  u"must be %1 to %2 characters of A-Z, a-z, 0-9 and '-' (got %3)"_s.arg(minimum)
                      .arg(maximum)
                      .arg(describeValue(name)));
    }
}

bool isValidHttpUrl(const QUrl &url)
{
    const QString scheme = url.scheme();
    return url.isValid() && !url.isRelative() && (scheme == "http"_L1 || scheme == "https"_L1)
        && !url.host().isEmpty();
}

QString queueMessageTtlMessage(const QString &got)
{
    return u"must be -1 (never expire) or a whole number of seconds from 1 to %1 (got %2)"_s.arg(
        DeliveryDestination::MaxQueueMessageTimeToLiveSeconds)
        .arg(got);
}

DeadLetterDestination::Kind deadLetterKindFor(const QString &resourceId)
{
    const QString trimmed = resourceId.trimmed();
    if (trimmed.compare("local"_L1, Qt::CaseInsensitive) == 0)
        return DeadLetterDestination::Kind::LocalFolder;
    const QString marker = u"/storageAccounts/"_s;
    const qsizetype markerAt = trimmed.indexOf(marker, 0, Qt::CaseInsensitive);
    if (markerAt >= 0) {
        const QString account = trimmed.mid(markerAt + marker.size()).section(u'/', 0, 0);
        if (account.compare("local"_L1, Qt::CaseInsensitive) == 0)
            return DeadLetterDestination::Kind::LocalFolder;
    }
    return DeadLetterDestination::Kind::AzureBlob;
}

QString allSchemaNames()
{
    return eventSchemaName(EventSchema::EventGrid) + u", "_s
        + eventSchemaName(EventSchema::CloudEvents10) + u" or "_s
        + eventSchemaName(EventSchema::Custom);
}

bool isSingleNumberOperator(FilterOperator op)
{
    return op == FilterOperator::NumberLessThan || op == FilterOperator::NumberLessThanOrEquals
        || op == FilterOperator::NumberGreaterThan
        || op == FilterOperator::NumberGreaterThanOrEquals;
}

bool isNumberListOperator(FilterOperator op)
{
    return op == FilterOperator::NumberIn || op == FilterOperator::NumberNotIn;
}

bool isRangeOperator(FilterOperator op)
{
    return op == FilterOperator::NumberInRange || op == FilterOperator::NumberNotInRange;
}

bool isStringOperator(FilterOperator op)
{
    switch (op) {
    case FilterOperator::StringIn:
    case FilterOperator::StringNotIn:
    case FilterOperator::StringContains:
    case FilterOperator::StringNotContains:
    case FilterOperator::StringBeginsWith:
    case FilterOperator::StringNotBeginsWith:
    case FilterOperator::StringEndsWith:
    case FilterOperator::StringNotEndsWith:
        return true;
    default:
        return false;
    }
}

} // namespace EventDesk::WorkspaceJson
