#include "Workspace.h"

#include "JsonSupport.h"

#include <QJsonDocument>
#include <QJsonParseError>
#include <QJsonValue>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

using namespace Qt::StringLiterals;

namespace EventDesk {

using JsonSupport::atPath;
using JsonSupport::describeValue;
using JsonSupport::formatNumber;
using JsonSupport::indexPath;
using JsonSupport::joinPath;

namespace {

constexpr int MinTopicNameLength = 3;
constexpr int MaxTopicNameLength = 50;
constexpr int MinSubscriptionNameLength = 3;
constexpr int MaxSubscriptionNameLength = 64;
constexpr int MaxHeaderNameDisplay = 60;

enum class Presence { Optional, Required };

// Reads typed fields out of JSON objects and keeps the first error only: a user fixes one
// problem at a time, and every later read after a failure is harmless (it returns a default).
class JsonReader final
{
public:
    bool failed() const { return m_error.has_value(); }
    Error error() const { return m_error.value_or(Error(QString())); }

    void fail(const QString &path, const QString &message)
    {
        if (!m_error)
            m_error.emplace(atPath(path, message));
    }

    // Resource Manager exports write null for every unset optional property, so null counts as
    // absent.
    static bool isPresent(const QJsonObject &object, QLatin1StringView key)
    {
        const QJsonValue value = object.value(key);
        return !value.isUndefined() && !value.isNull();
    }

    QJsonObject object(const QJsonObject &parent, QLatin1StringView key, const QString &parentPath,
                       Presence presence)
    {
        const QJsonValue value = present(parent, key, parentPath, presence, "object"_L1);
        if (value.isUndefined())
            return QJsonObject();
        return objectAt(value, joinPath(parentPath, key));
    }

    QJsonArray array(const QJsonObject &parent, QLatin1StringView key, const QString &parentPath,
                     Presence presence)
    {
        const QJsonValue value = present(parent, key, parentPath, presence, "array"_L1);
        if (value.isUndefined())
            return QJsonArray();
        if (!value.isArray()) {
            fail(joinPath(parentPath, key),
                 u"must be an array (got %1)"_s.arg(describeValue(value)));
            return QJsonArray();
        }
        return value.toArray();
    }

    QString string(const QJsonObject &parent, QLatin1StringView key, const QString &parentPath,
                   Presence presence, const QString &defaultValue = QString())
    {
        const QJsonValue value = present(parent, key, parentPath, presence, "string"_L1);
        if (value.isUndefined())
            return defaultValue;
        return stringAt(value, joinPath(parentPath, key));
    }

    bool boolean(const QJsonObject &parent, QLatin1StringView key, const QString &parentPath,
                 bool defaultValue)
    {
        const QJsonValue value = parent.value(key);
        if (value.isUndefined() || value.isNull())
            return defaultValue;
        if (!value.isBool()) {
            fail(joinPath(parentPath, key),
                 u"must be true or false (got %1)"_s.arg(describeValue(value)));
            return defaultValue;
        }
        return value.toBool();
    }

    // Wrong type (2.5, "3", true) and out of range get the same message: it states the range.
    int integer(const QJsonObject &parent, QLatin1StringView key, const QString &parentPath,
                int minimum, int maximum, int defaultValue)
    {
        const QJsonValue value = parent.value(key);
        if (value.isUndefined() || value.isNull())
            return defaultValue;
        const double number = value.toDouble();
        if (!value.isDouble() || !std::isfinite(number) || std::trunc(number) != number
            || number < minimum || number > maximum) {
            fail(joinPath(parentPath, key),
                 integerRangeMessage(minimum, maximum, describeValue(value)));
            return defaultValue;
        }
        return int(number);
    }

    QJsonObject objectAt(const QJsonValue &value, const QString &path)
    {
        if (!value.isObject()) {
            fail(path, u"must be an object (got %1)"_s.arg(describeValue(value)));
            return QJsonObject();
        }
        return value.toObject();
    }

    QString stringAt(const QJsonValue &value, const QString &path)
    {
        if (!value.isString()) {
            fail(path, u"must be a string (got %1)"_s.arg(describeValue(value)));
            return QString();
        }
        return value.toString();
    }

    std::optional<double> numberAt(const QJsonValue &value, const QString &path)
    {
        if (!value.isDouble()) {
            fail(path, u"must be a number (got %1)"_s.arg(describeValue(value)));
            return std::nullopt;
        }
        return value.toDouble();
    }

    static QString integerRangeMessage(int minimum, int maximum, const QString &got)
    {
        return u"must be an integer from %1 to %2 (got %3)"_s.arg(minimum).arg(maximum).arg(got);
    }

private:
    QJsonValue present(const QJsonObject &parent, QLatin1StringView key, const QString &parentPath,
                       Presence presence, QLatin1StringView typeName)
    {
        const QJsonValue value = parent.value(key);
        if (value.isUndefined() || value.isNull()) {
            if (presence == Presence::Required)
                fail(joinPath(parentPath, key), u"required %1 is missing"_s.arg(typeName));
            return QJsonValue(QJsonValue::Undefined);
        }
        return value;
    }

    std::optional<Error> m_error;
};

// Where the ARM fields of one subscription live. Resource Manager nests them under
// "properties" (and the destination's under "destination.properties"); `az ... -o json`
// prints them flattened. Errors name the place the user has to edit.
struct ArmLayout
{
    QString name;
    QString properties;
    QString destinationProperties;
    QString deadLetterProperties;
};

ArmLayout canonicalLayout(const QString &jsonPath)
{
    ArmLayout layout;
    layout.name = joinPath(jsonPath, "name"_L1);
    layout.properties = joinPath(jsonPath, "properties"_L1);
    layout.destinationProperties = layout.properties + u".destination.properties"_s;
    layout.deadLetterProperties = layout.properties + u".deadLetterDestination.properties"_s;
    return layout;
}

bool isNameCharacter(QChar character)
{
    return (character >= u'a' && character <= u'z') || (character >= u'A' && character <= u'Z')
        || (character >= u'0' && character <= u'9') || character == u'-';
}

// SPEC §1: topic and subscription names are [A-Za-z0-9-] with a length range.
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

// RFC 7230 §3.2.6 tchar.
bool isTokenCharacter(QChar character)
{
    if (isNameCharacter(character))
        return true;
    return QStringView(u"!#$%&'*+.^_`|~").contains(character);
}

bool isValidHttpUrl(const QUrl &url)
{
    const QString scheme = url.scheme();
    return url.isValid() && !url.isRelative() && (scheme == "http"_L1 || scheme == "https"_L1)
        && !url.host().isEmpty();
}

QString describeUrl(const QUrl &url)
{
    return describeValue(url.toString());
}

// SPEC L5 / PRODUCT.md: "local", or an ARM id whose storage account is named "local", is the
// workspace's own dead-letter folder.
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

bool resourceIdNamesAccount(const QString &resourceId)
{
    const QString marker = u"/storageAccounts/"_s;
    const qsizetype markerAt = resourceId.indexOf(marker, 0, Qt::CaseInsensitive);
    return markerAt >= 0 && !resourceId.mid(markerAt + marker.size()).section(u'/', 0, 0).isEmpty();
}

// Azure container naming; also keeps the local folder name free of path separators and "..".
bool isValidContainerName(const QString &name)
{
    if (name.size() < 3 || name.size() > 63)
        return false;
    for (const QChar character : name) {
        const bool allowed = (character >= u'a' && character <= u'z')
            || (character >= u'0' && character <= u'9') || character == u'-';
        if (!allowed)
            return false;
    }
    return name.front() != u'-' && name.back() != u'-' && !name.contains("--"_L1);
}

bool isValidStorageAccountName(const QString &name)
{
    if (name.size() < 3 || name.size() > 24)
        return false;
    return std::all_of(name.cbegin(), name.cend(), [](QChar character) {
        return (character >= u'a' && character <= u'z') || (character >= u'0' && character <= u'9');
    });
}

// SPEC S4.
bool isSupportedSchemaPair(EventSchema input, EventSchema delivery)
{
    switch (input) {
    case EventSchema::EventGrid:
        return delivery == EventSchema::EventGrid || delivery == EventSchema::CloudEvents10;
    case EventSchema::CloudEvents10:
        return delivery == EventSchema::CloudEvents10;
    case EventSchema::Custom:
        return delivery == EventSchema::Custom || delivery == EventSchema::EventGrid;
    }
    return false;
}

QString supportedDeliverySchemas(EventSchema input)
{
    switch (input) {
    case EventSchema::EventGrid:
        return u"EventGridSchema or CloudEventSchemaV1_0"_s;
    case EventSchema::CloudEvents10:
        return u"CloudEventSchemaV1_0"_s;
    case EventSchema::Custom:
        return u"CustomInputSchema or EventGridSchema"_s;
    }
    return QString();
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

QString allOperatorNames()
{
    QStringList names;
    for (int index = int(FilterOperator::NumberIn); index <= int(FilterOperator::IsNotNull);
         ++index) {
        names.append(filterOperatorName(FilterOperator(index)));
    }
    return names.join(u", "_s);
}

// ---- Validation of an in-memory subscription -------------------------------------------------

void validateHeaders(JsonReader &sink, const QList<DeliveryHeader> &headers,
                     const QString &headersPath)
{
    // SPEC H1
    if (headers.size() > DeliveryHeader::MaxHeaders) {
        sink.fail(
            headersPath,
            u"must hold at most %1 delivery headers (got %2)"_s.arg(DeliveryHeader::MaxHeaders)
                .arg(headers.size()));
        return;
    }
    for (qsizetype index = 0; index < headers.size() && !sink.failed(); ++index) {
        const DeliveryHeader &header = headers.at(index);
        const QString headerPath = indexPath(headersPath, index);
        const QString namePath = joinPath(headerPath, "name"_L1);
        const bool validToken = !header.name.isEmpty()
            && std::all_of(header.name.cbegin(), header.name.cend(), isTokenCharacter);
        if (!validToken) {
            sink.fail(namePath,
                      u"must be a valid HTTP header name (an RFC 7230 token: letters, digits and "
                      u"!#$%&'*+-.^_`|~) (got %1)"_s.arg(
                          describeValue(header.name.left(MaxHeaderNameDisplay))));
            return;
        }
        if (header.name.startsWith("aeg-"_L1, Qt::CaseInsensitive)) {
            sink.fail(namePath,
                      u"must not start with \"aeg-\", which is reserved for Event Grid's own "
                      u"headers (got %1)"_s.arg(describeValue(header.name)));
            return;
        }
        for (qsizetype earlier = 0; earlier < index; ++earlier) {
            if (headers.at(earlier).name.compare(header.name, Qt::CaseInsensitive) == 0) {
                sink.fail(namePath,
                          u"duplicate header name %1 (header names must be unique, compared "
                          u"case-insensitively; see %2)"_s.arg(describeValue(header.name),
                                                               indexPath(headersPath, earlier)));
                return;
            }
        }
        const QString propertiesPath = joinPath(headerPath, "properties"_L1);
        if (header.kind == DeliveryHeader::Kind::Static) {
            const QString valuePath = joinPath(propertiesPath, "value"_L1);
            const qsizetype bytes = header.value.toUtf8().size();
            if (bytes > DeliveryHeader::MaxValueBytes) {
                sink.fail(valuePath,
                          u"value of header '%1' must be at most %2 bytes of UTF-8 (got %3 bytes)"_s
                              .arg(header.name)
                              .arg(DeliveryHeader::MaxValueBytes)
                              .arg(bytes));
                return;
            }
            // CR and LF would split the HTTP header; NUL is cut off by HTTP stacks.
            if (header.value.contains(u'\r') || header.value.contains(u'\n')
                || header.value.contains(QChar(0))) {
                sink.fail(valuePath,
                          u"value of header '%1' must not contain CR, LF or NUL characters"_s.arg(header.name));
                return;
            }
        } else {
            if (header.sourceField.isEmpty()) {
                sink.fail(joinPath(propertiesPath, "sourceField"_L1),
                          u"required for a Dynamic header: the event field that supplies the "
                          u"value (e.g. data.key1 or subject)"_s);
                return;
            }
            if (header.secret) {
                sink.fail(joinPath(propertiesPath, "isSecret"_L1),
                          u"only a Static header can be secret"_s);
                return;
            }
        }
    }
}

void validateAdvancedFilter(JsonReader &sink, const AdvancedFilter &filter,
                            const QString &filterPath)
{
    if (filter.key.isEmpty()) {
        sink.fail(joinPath(filterPath, "key"_L1),
                  u"required: the event field to test (e.g. data.color or subject)"_s);
        return;
    }
    const QString valuePath = joinPath(filterPath, "value"_L1);
    const QString valuesPath = joinPath(filterPath, "values"_L1);
    const QString operatorName = filterOperatorName(filter.op);
    if (isSingleNumberOperator(filter.op)) {
        if (filter.numbers.size() != 1) {
            sink.fail(valuePath, u"%1 needs exactly one number"_s.arg(operatorName));
        } else if (!std::isfinite(filter.numbers.front())) {
            sink.fail(valuePath, u"must be a finite number"_s);
        }
    } else if (isNumberListOperator(filter.op)) {
        if (filter.numbers.isEmpty())
            sink.fail(valuesPath, u"%1 needs at least one number"_s.arg(operatorName));
        for (qsizetype index = 0; index < filter.numbers.size(); ++index) {
            if (!std::isfinite(filter.numbers.at(index)))
                sink.fail(indexPath(valuesPath, index), u"must be a finite number"_s);
        }
    } else if (isRangeOperator(filter.op)) {
        if (filter.ranges.isEmpty())
            sink.fail(valuesPath, u"%1 needs at least one [min, max] pair"_s.arg(operatorName));
        for (qsizetype index = 0; index < filter.ranges.size(); ++index) {
            const auto &[minimum, maximum] = filter.ranges.at(index);
            if (!std::isfinite(minimum) || !std::isfinite(maximum) || minimum > maximum) {
                sink.fail(
                    indexPath(valuesPath, index),
                    u"must be a [min, max] pair of numbers with min <= max (got [%1, %2])"_s.arg(
                        formatNumber(minimum), formatNumber(maximum)));
            }
        }
    } else if (isStringOperator(filter.op)) {
        if (filter.strings.isEmpty())
            sink.fail(valuesPath, u"%1 needs at least one string"_s.arg(operatorName));
        for (qsizetype index = 0; index < filter.strings.size(); ++index) {
            const qsizetype length = filter.strings.at(index).size();
            if (length > EventFilter::MaxStringValueLength) {
                sink.fail(indexPath(valuesPath, index),
                          u"must be at most %1 characters (got %2)"_s
                              .arg(EventFilter::MaxStringValueLength)
                              .arg(length));
            }
        }
    }
}

void validateFilter(JsonReader &sink, const EventFilter &filter, const QString &filterPath)
{
    const QString advancedPath = joinPath(filterPath, "advancedFilters"_L1);
    if (filter.advancedFilters.size() > EventFilter::MaxAdvancedFilters) {
        sink.fail(
            advancedPath,
            u"must hold at most %1 advanced filters (got %2)"_s.arg(EventFilter::MaxAdvancedFilters)
                .arg(filter.advancedFilters.size()));
        return;
    }
    int totalValues = 0;
    for (qsizetype index = 0; index < filter.advancedFilters.size() && !sink.failed(); ++index) {
        validateAdvancedFilter(sink, filter.advancedFilters.at(index),
                               indexPath(advancedPath, index));
        totalValues += filter.advancedFilters.at(index).valueCount();
    }
    if (totalValues > EventFilter::MaxFilterValues) {
        sink.fail(advancedPath,
                  u"must hold at most %1 values in total across all advanced filters (got %2)"_s
                      .arg(EventFilter::MaxFilterValues)
                      .arg(totalValues));
    }
}

void validateDeadLetter(JsonReader &sink, const DeadLetterDestination &destination,
                        const QString &path)
{
    if (destination.kind == DeadLetterDestination::Kind::None)
        return;
    const QString resourceIdPath = joinPath(path, "resourceId"_L1);
    if (destination.resourceId.trimmed().isEmpty()) {
        sink.fail(resourceIdPath,
                  u"required: \"local\" for the workspace's dead-letter folder, or a storage "
                  u"account's resource id (.../storageAccounts/<account>)"_s);
        return;
    }
    const DeadLetterDestination::Kind impliedKind = deadLetterKindFor(destination.resourceId);
    if (impliedKind != destination.kind) {
        sink.fail(
            resourceIdPath,
            destination.kind == DeadLetterDestination::Kind::LocalFolder
                ? u"must be \"local\" (or name a storage account called local) for the "
                  u"local dead-letter folder (got %1)"_s.arg(describeValue(destination.resourceId))
                : u"must name an Azure storage account (.../storageAccounts/<account>) for "
                  u"an Azure Blob destination (got %1)"_s.arg(
                      describeValue(destination.resourceId)));
        return;
    }
    if (!isValidContainerName(destination.blobContainerName)) {
        sink.fail(joinPath(path, "blobContainerName"_L1),
                  u"must be 3 to 63 characters of a-z, 0-9 and '-', starting and ending with a "
                  u"letter or digit, with no \"--\" (Azure container naming) (got %1)"_s.arg(
                      describeValue(destination.blobContainerName)));
        return;
    }
    if (destination.kind != DeadLetterDestination::Kind::AzureBlob)
        return;
    if (!destination.accountName.isEmpty() && !isValidStorageAccountName(destination.accountName)) {
        sink.fail(joinPath(path, "accountName"_L1),
                  u"must be 3 to 24 characters of a-z and 0-9 (got %1)"_s.arg(
                      describeValue(destination.accountName)));
        return;
    }
    if (destination.accountName.isEmpty() && !resourceIdNamesAccount(destination.resourceId)) {
        sink.fail(resourceIdPath,
                  u"must name a storage account (.../storageAccounts/<account>), or "
                  u"accountName must be set (got %1)"_s.arg(describeValue(destination.resourceId)));
        return;
    }
    if (!destination.blobEndpoint.isEmpty() && !isValidHttpUrl(destination.blobEndpoint)) {
        sink.fail(joinPath(path, "blobEndpoint"_L1),
                  u"must be an absolute http or https URL with a host (got %1)"_s.arg(
                      describeUrl(destination.blobEndpoint)));
    }
}

void validateSubscription(JsonReader &sink, const EventSubscription &subscription,
                          EventSchema topicInputSchema, const ArmLayout &layout)
{
    checkName(sink, subscription.name, layout.name, MinSubscriptionNameLength,
              MaxSubscriptionNameLength);
    if (sink.failed())
        return;
    if (!isValidHttpUrl(subscription.endpointUrl)) {
        sink.fail(joinPath(layout.destinationProperties, "endpointUrl"_L1),
                  u"must be an absolute http or https URL with a host (got %1)"_s.arg(
                      describeUrl(subscription.endpointUrl)));
        return;
    }

    // SPEC R6
    const QString retryPath = joinPath(layout.properties, "retryPolicy"_L1);
    const RetryPolicy &retry = subscription.retryPolicy;
    if (retry.maxDeliveryAttempts < RetryPolicy::MinAttempts
        || retry.maxDeliveryAttempts > RetryPolicy::MaxAttempts) {
        sink.fail(joinPath(retryPath, "maxDeliveryAttempts"_L1),
                  JsonReader::integerRangeMessage(RetryPolicy::MinAttempts,
                                                  RetryPolicy::MaxAttempts,
                                                  QString::number(retry.maxDeliveryAttempts)));
        return;
    }
    if (retry.eventTimeToLiveInMinutes < RetryPolicy::MinTtlMinutes
        || retry.eventTimeToLiveInMinutes > RetryPolicy::MaxTtlMinutes) {
        sink.fail(joinPath(retryPath, "eventTimeToLiveInMinutes"_L1),
                  JsonReader::integerRangeMessage(RetryPolicy::MinTtlMinutes,
                                                  RetryPolicy::MaxTtlMinutes,
                                                  QString::number(retry.eventTimeToLiveInMinutes)));
        return;
    }

    // SPEC B2: the ranges matter only when batching is on.
    const BatchPolicy &batch = subscription.batchPolicy;
    if (batch.enabled) {
        if (batch.maxEventsPerBatch < 1 || batch.maxEventsPerBatch > BatchPolicy::MaxEventsLimit) {
            sink.fail(joinPath(layout.destinationProperties, "maxEventsPerBatch"_L1),
                      JsonReader::integerRangeMessage(1, BatchPolicy::MaxEventsLimit,
                                                      QString::number(batch.maxEventsPerBatch)));
            return;
        }
        if (batch.preferredBatchSizeInKilobytes < 1
            || batch.preferredBatchSizeInKilobytes > BatchPolicy::MaxPreferredKilobytes) {
            sink.fail(joinPath(layout.destinationProperties, "preferredBatchSizeInKilobytes"_L1),
                      JsonReader::integerRangeMessage(
                          1, BatchPolicy::MaxPreferredKilobytes,
                          QString::number(batch.preferredBatchSizeInKilobytes)));
            return;
        }
    }

    validateHeaders(sink, subscription.deliveryHeaders,
                    joinPath(layout.destinationProperties, "deliveryAttributeMappings"_L1));
    if (sink.failed())
        return;
    validateFilter(sink, subscription.filter, joinPath(layout.properties, "filter"_L1));
    if (sink.failed())
        return;

    if (!isSupportedSchemaPair(topicInputSchema, subscription.deliverySchema)) {
        sink.fail(joinPath(layout.properties, "eventDeliverySchema"_L1),
                  u"%1 is not supported for a topic whose inputSchema is %2; use %3"_s.arg(
                      eventSchemaName(subscription.deliverySchema),
                      eventSchemaName(topicInputSchema),
                      supportedDeliverySchemas(topicInputSchema)));
        return;
    }

    validateDeadLetter(sink, subscription.deadLetterDestination, layout.deadLetterProperties);
}

// ---- ARM JSON -> EventSubscription --------------------------------------------------------

DeliveryHeader readHeader(JsonReader &reader, const QJsonValue &value, const QString &path)
{
    DeliveryHeader header;
    const QJsonObject object = reader.objectAt(value, path);
    header.name = reader.string(object, "name"_L1, path, Presence::Required);
    const QString type = reader.string(object, "type"_L1, path, Presence::Required);
    const QJsonObject properties = reader.object(object, "properties"_L1, path, Presence::Optional);
    const QString propertiesPath = joinPath(path, "properties"_L1);
    if (reader.failed())
        return header;
    if (type.compare("Static"_L1, Qt::CaseInsensitive) == 0) {
        header.kind = DeliveryHeader::Kind::Static;
        header.secret = reader.boolean(properties, "isSecret"_L1, propertiesPath, false);
        // A secret's value is never exported (SPEC H2), so it may be absent.
        header.value = reader.string(properties, "value"_L1, propertiesPath,
                                     header.secret ? Presence::Optional : Presence::Required);
    } else if (type.compare("Dynamic"_L1, Qt::CaseInsensitive) == 0) {
        header.kind = DeliveryHeader::Kind::Dynamic;
        header.sourceField
            = reader.string(properties, "sourceField"_L1, propertiesPath, Presence::Required);
    } else {
        reader.fail(joinPath(path, "type"_L1),
                    u"must be Static or Dynamic (got %1)"_s.arg(describeValue(type)));
    }
    return header;
}

AdvancedFilter readAdvancedFilter(JsonReader &reader, const QJsonValue &value, const QString &path)
{
    AdvancedFilter filter;
    const QJsonObject object = reader.objectAt(value, path);
    const QString operatorType = reader.string(object, "operatorType"_L1, path, Presence::Required);
    if (reader.failed())
        return filter;
    const std::optional<FilterOperator> op = filterOperatorFromName(operatorType);
    if (!op) {
        reader.fail(joinPath(path, "operatorType"_L1),
                    u"unknown operator %1; valid: %2"_s.arg(describeValue(operatorType),
                                                            allOperatorNames()));
        return filter;
    }
    filter.op = *op;
    filter.key = reader.string(object, "key"_L1, path, Presence::Required);
    const QString valuePath = joinPath(path, "value"_L1);
    const QString valuesPath = joinPath(path, "values"_L1);

    if (isSingleNumberOperator(filter.op)) {
        if (!JsonReader::isPresent(object, "value"_L1)) {
            reader.fail(valuePath, u"required number is missing"_s);
        } else if (const std::optional<double> number
                   = reader.numberAt(object.value("value"_L1), valuePath)) {
            filter.numbers.append(*number);
        }
    } else if (filter.op == FilterOperator::BoolEquals) {
        const QJsonValue boolValue = object.value("value"_L1);
        if (!boolValue.isBool()) {
            reader.fail(valuePath,
                        boolValue.isUndefined() || boolValue.isNull()
                            ? u"required true or false is missing"_s
                            : u"must be true or false (got %1)"_s.arg(describeValue(boolValue)));
        }
        filter.boolValue = boolValue.toBool();
    } else if (isNumberListOperator(filter.op) || isRangeOperator(filter.op)
               || isStringOperator(filter.op)) {
        const QJsonArray values = reader.array(object, "values"_L1, path, Presence::Required);
        for (qsizetype index = 0; index < values.size() && !reader.failed(); ++index) {
            const QJsonValue element = values.at(index);
            const QString elementPath = indexPath(valuesPath, index);
            if (isNumberListOperator(filter.op)) {
                if (const std::optional<double> number = reader.numberAt(element, elementPath))
                    filter.numbers.append(*number);
            } else if (isRangeOperator(filter.op)) {
                const QJsonArray pair = element.toArray();
                if (!element.isArray() || pair.size() != 2 || !pair.at(0).isDouble()
                    || !pair.at(1).isDouble()) {
                    reader.fail(elementPath,
                                u"must be a [min, max] pair of numbers (got %1)"_s.arg(
                                    element.isArray() ? QString::fromUtf8(
                                        QJsonDocument(pair).toJson(QJsonDocument::Compact).left(60))
                                                      : describeValue(element)));
                } else {
                    filter.ranges.append({pair.at(0).toDouble(), pair.at(1).toDouble()});
                }
            } else {
                filter.strings.append(reader.stringAt(element, elementPath));
            }
        }
    }
    return filter;
}

EventFilter readFilter(JsonReader &reader, const QJsonObject &object, const QString &path)
{
    EventFilter filter;
    const QJsonArray types
        = reader.array(object, "includedEventTypes"_L1, path, Presence::Optional);
    const QString typesPath = joinPath(path, "includedEventTypes"_L1);
    for (qsizetype index = 0; index < types.size() && !reader.failed(); ++index)
        filter.includedEventTypes.append(
            reader.stringAt(types.at(index), indexPath(typesPath, index)));
    filter.subjectBeginsWith
        = reader.string(object, "subjectBeginsWith"_L1, path, Presence::Optional);
    filter.subjectEndsWith = reader.string(object, "subjectEndsWith"_L1, path, Presence::Optional);
    filter.isSubjectCaseSensitive
        = reader.boolean(object, "isSubjectCaseSensitive"_L1, path, false);
    const QJsonArray advanced
        = reader.array(object, "advancedFilters"_L1, path, Presence::Optional);
    const QString advancedPath = joinPath(path, "advancedFilters"_L1);
    for (qsizetype index = 0; index < advanced.size() && !reader.failed(); ++index) {
        filter.advancedFilters.append(
            readAdvancedFilter(reader, advanced.at(index), indexPath(advancedPath, index)));
    }
    return filter;
}

DeadLetterDestination readDeadLetter(JsonReader &reader, const QJsonObject &object,
                                     const QString &path, QString *propertiesPath)
{
    DeadLetterDestination destination;
    const QString endpointType = reader.string(object, "endpointType"_L1, path, Presence::Required);
    if (reader.failed())
        return destination;
    if (endpointType.compare("StorageBlob"_L1, Qt::CaseInsensitive) != 0) {
        reader.fail(joinPath(path, "endpointType"_L1),
                    u"must be StorageBlob, the only dead-letter destination type (got %1)"_s.arg(
                        describeValue(endpointType)));
        return destination;
    }
    QJsonObject properties = object;
    *propertiesPath = path;
    if (JsonReader::isPresent(object, "properties"_L1)) {
        properties = reader.object(object, "properties"_L1, path, Presence::Required);
        *propertiesPath = joinPath(path, "properties"_L1);
    }
    destination.resourceId
        = reader.string(properties, "resourceId"_L1, *propertiesPath, Presence::Required);
    destination.blobContainerName
        = reader.string(properties, "blobContainerName"_L1, *propertiesPath, Presence::Required);
    // EventDesk extensions for Azurite and accounts reached by name.
    destination.accountName
        = reader.string(properties, "accountName"_L1, *propertiesPath, Presence::Optional);
    const QString blobEndpoint
        = reader.string(properties, "blobEndpoint"_L1, *propertiesPath, Presence::Optional);
    if (!blobEndpoint.isEmpty()) {
        destination.blobEndpoint = QUrl(blobEndpoint, QUrl::StrictMode);
        if (!isValidHttpUrl(destination.blobEndpoint)) {
            reader.fail(joinPath(*propertiesPath, "blobEndpoint"_L1),
                        u"must be an absolute http or https URL with a host (got %1)"_s.arg(
                            describeValue(blobEndpoint)));
        }
    }
    destination.kind = deadLetterKindFor(destination.resourceId);
    return destination;
}

} // namespace

Expected<EventSubscription> eventSubscriptionFromArm(const QJsonObject &object,
                                                     const QString &jsonPath,
                                                     EventSchema topicInputSchema)
{
    JsonReader reader;
    EventSubscription subscription;
    ArmLayout layout = canonicalLayout(jsonPath);

    subscription.name = reader.string(object, "name"_L1, jsonPath, Presence::Required);
    if (reader.failed())
        return reader.error();
    checkName(reader, subscription.name, layout.name, MinSubscriptionNameLength,
              MaxSubscriptionNameLength);

    QJsonObject properties;
    if (JsonReader::isPresent(object, "properties"_L1)) {
        properties = reader.object(object, "properties"_L1, jsonPath, Presence::Required);
    } else if (JsonReader::isPresent(object, "destination"_L1)) {
        // `az eventgrid event-subscription show -o json` prints the properties flattened.
        properties = object;
        layout.properties = jsonPath;
    } else {
        reader.fail(layout.properties, u"required object is missing"_s);
    }
    if (reader.failed())
        return reader.error();

    // Destination: only webhooks for now.
    const QString destinationPath = joinPath(layout.properties, "destination"_L1);
    const QJsonObject destination
        = reader.object(properties, "destination"_L1, layout.properties, Presence::Required);
    const QString endpointType
        = reader.string(destination, "endpointType"_L1, destinationPath, Presence::Required);
    if (reader.failed())
        return reader.error();
    if (endpointType.compare("WebHook"_L1, Qt::CaseInsensitive) != 0) {
        reader.fail(joinPath(destinationPath, "endpointType"_L1),
                    u"%1 is not supported; EventDesk delivers to WebHook endpoints only"_s.arg(
                        describeValue(endpointType)));
        return reader.error();
    }
    QJsonObject destinationProperties = destination;
    layout.destinationProperties = destinationPath;
    if (JsonReader::isPresent(destination, "properties"_L1)) {
        layout.destinationProperties = joinPath(destinationPath, "properties"_L1);
        destinationProperties
            = reader.object(destination, "properties"_L1, destinationPath, Presence::Required);
    }
    const QString endpointUrlPath = joinPath(layout.destinationProperties, "endpointUrl"_L1);
    QString endpointUrl = reader.string(destinationProperties, "endpointUrl"_L1,
                                        layout.destinationProperties, Presence::Optional);
    if (endpointUrl.isEmpty()) {
        // Azure never returns the full endpointUrl (it may carry a secret); exports carry
        // endpointBaseUrl instead, which is the best EventDesk can deliver to.
        endpointUrl = reader.string(destinationProperties, "endpointBaseUrl"_L1,
                                    layout.destinationProperties, Presence::Optional);
    }
    if (reader.failed())
        return reader.error();
    subscription.endpointUrl = QUrl(endpointUrl, QUrl::StrictMode);
    if (!isValidHttpUrl(subscription.endpointUrl)) {
        reader.fail(endpointUrlPath,
                    endpointUrl.isEmpty()
                        ? u"required string is missing (an absolute http or https URL)"_s
                        : u"must be an absolute http or https URL with a host (got %1)"_s.arg(
                            describeValue(endpointUrl)));
        return reader.error();
    }

    // SPEC B2: either setting turns batching on; the other keeps its default.
    BatchPolicy &batch = subscription.batchPolicy;
    batch.enabled = JsonReader::isPresent(destinationProperties, "maxEventsPerBatch"_L1)
        || JsonReader::isPresent(destinationProperties, "preferredBatchSizeInKilobytes"_L1);
    batch.maxEventsPerBatch = reader.integer(destinationProperties, "maxEventsPerBatch"_L1,
                                             layout.destinationProperties, 1,
                                             BatchPolicy::MaxEventsLimit, batch.maxEventsPerBatch);
    batch.preferredBatchSizeInKilobytes = reader.integer(
        destinationProperties, "preferredBatchSizeInKilobytes"_L1, layout.destinationProperties, 1,
        BatchPolicy::MaxPreferredKilobytes, batch.preferredBatchSizeInKilobytes);

    // SPEC §9
    const QString headersPath
        = joinPath(layout.destinationProperties, "deliveryAttributeMappings"_L1);
    const QJsonArray headers = reader.array(destinationProperties, "deliveryAttributeMappings"_L1,
                                            layout.destinationProperties, Presence::Optional);
    for (qsizetype index = 0; index < headers.size() && !reader.failed(); ++index) {
        subscription.deliveryHeaders.append(
            readHeader(reader, headers.at(index), indexPath(headersPath, index)));
    }

    const QString filterPath = joinPath(layout.properties, "filter"_L1);
    const QJsonObject filter
        = reader.object(properties, "filter"_L1, layout.properties, Presence::Optional);
    subscription.filter = readFilter(reader, filter, filterPath);

    const QString deliverySchemaPath = joinPath(layout.properties, "eventDeliverySchema"_L1);
    subscription.deliverySchema = topicInputSchema;
    const QString deliverySchema = reader.string(properties, "eventDeliverySchema"_L1,
                                                 layout.properties, Presence::Optional);
    if (!deliverySchema.isEmpty()) {
        if (const std::optional<EventSchema> schema = eventSchemaFromName(deliverySchema)) {
            subscription.deliverySchema = *schema;
        } else {
            reader.fail(
                deliverySchemaPath,
                u"must be %1 (got %2)"_s.arg(allSchemaNames(), describeValue(deliverySchema)));
        }
    }

    // SPEC R6
    const QString retryPath = joinPath(layout.properties, "retryPolicy"_L1);
    const QJsonObject retry
        = reader.object(properties, "retryPolicy"_L1, layout.properties, Presence::Optional);
    subscription.retryPolicy.maxDeliveryAttempts
        = reader.integer(retry, "maxDeliveryAttempts"_L1, retryPath, RetryPolicy::MinAttempts,
                         RetryPolicy::MaxAttempts, subscription.retryPolicy.maxDeliveryAttempts);
    subscription.retryPolicy.eventTimeToLiveInMinutes = reader.integer(
        retry, "eventTimeToLiveInMinutes"_L1, retryPath, RetryPolicy::MinTtlMinutes,
        RetryPolicy::MaxTtlMinutes, subscription.retryPolicy.eventTimeToLiveInMinutes);

    // SPEC L1/L5
    const QString deadLetterPath = joinPath(layout.properties, "deadLetterDestination"_L1);
    const QJsonObject deadLetter = reader.object(properties, "deadLetterDestination"_L1,
                                                 layout.properties, Presence::Optional);
    if (!reader.failed() && JsonReader::isPresent(properties, "deadLetterDestination"_L1)) {
        subscription.deadLetterDestination
            = readDeadLetter(reader, deadLetter, deadLetterPath, &layout.deadLetterProperties);
    }

    const QString extensionPath = joinPath(layout.properties, "x-eventdesk"_L1);
    const QJsonObject extension
        = reader.object(properties, "x-eventdesk"_L1, layout.properties, Presence::Optional);
    subscription.enabled = reader.boolean(extension, "enabled"_L1, extensionPath, true);
    subscription.validationEnabled = reader.boolean(extension, "validation"_L1, extensionPath, true);

    if (reader.failed())
        return reader.error();
    validateSubscription(reader, subscription, topicInputSchema, layout);
    if (reader.failed())
        return reader.error();
    return subscription;
}

QJsonObject eventSubscriptionToArm(const EventSubscription &subscription)
{
    QJsonObject destinationProperties;
    destinationProperties.insert("endpointUrl"_L1,
                                 subscription.endpointUrl.toString(QUrl::FullyEncoded));
    if (subscription.batchPolicy.enabled) {
        destinationProperties.insert("maxEventsPerBatch"_L1,
                                     subscription.batchPolicy.maxEventsPerBatch);
        destinationProperties.insert("preferredBatchSizeInKilobytes"_L1,
                                     subscription.batchPolicy.preferredBatchSizeInKilobytes);
    }
    if (!subscription.deliveryHeaders.isEmpty()) {
        QJsonArray headers;
        for (const DeliveryHeader &header : subscription.deliveryHeaders) {
            QJsonObject properties;
            if (header.kind == DeliveryHeader::Kind::Static) {
                // SPEC H2: a secret's value lives in the keychain, never in the file.
                if (!header.secret)
                    properties.insert("value"_L1, header.value);
                properties.insert("isSecret"_L1, header.secret);
            } else {
                properties.insert("sourceField"_L1, header.sourceField);
            }
            headers.append(QJsonObject {
                {"name"_L1, header.name},
                {"type"_L1,
                 header.kind == DeliveryHeader::Kind::Static ? u"Static"_s : u"Dynamic"_s},
                {"properties"_L1, properties},
            });
        }
        destinationProperties.insert("deliveryAttributeMappings"_L1, headers);
    }

    const EventFilter &filter = subscription.filter;
    QJsonObject filterObject;
    if (!filter.includedEventTypes.isEmpty())
        filterObject.insert("includedEventTypes"_L1,
                            QJsonArray::fromStringList(filter.includedEventTypes));
    filterObject.insert("subjectBeginsWith"_L1, filter.subjectBeginsWith);
    filterObject.insert("subjectEndsWith"_L1, filter.subjectEndsWith);
    filterObject.insert("isSubjectCaseSensitive"_L1, filter.isSubjectCaseSensitive);
    if (!filter.advancedFilters.isEmpty()) {
        QJsonArray advanced;
        for (const AdvancedFilter &entry : filter.advancedFilters) {
            QJsonObject object {{"operatorType"_L1, filterOperatorName(entry.op)},
                                {"key"_L1, entry.key}};
            if (isSingleNumberOperator(entry.op)) {
                object.insert("value"_L1, entry.numbers.value(0));
            } else if (isNumberListOperator(entry.op)) {
                QJsonArray values;
                for (const double number : entry.numbers)
                    values.append(number);
                object.insert("values"_L1, values);
            } else if (isRangeOperator(entry.op)) {
                QJsonArray values;
                for (const auto &[minimum, maximum] : entry.ranges)
                    values.append(QJsonArray {minimum, maximum});
                object.insert("values"_L1, values);
            } else if (entry.op == FilterOperator::BoolEquals) {
                object.insert("value"_L1, entry.boolValue);
            } else if (isStringOperator(entry.op)) {
                object.insert("values"_L1, QJsonArray::fromStringList(entry.strings));
            }
            advanced.append(object);
        }
        filterObject.insert("advancedFilters"_L1, advanced);
    }

    QJsonObject properties {
        {"destination"_L1,
         QJsonObject {{"endpointType"_L1, u"WebHook"_s}, {"properties"_L1, destinationProperties}}},
        {"filter"_L1, filterObject},
        {"eventDeliverySchema"_L1, eventSchemaName(subscription.deliverySchema)},
        {"retryPolicy"_L1,
         QJsonObject {
             {"maxDeliveryAttempts"_L1, subscription.retryPolicy.maxDeliveryAttempts},
             {"eventTimeToLiveInMinutes"_L1, subscription.retryPolicy.eventTimeToLiveInMinutes}}},
    };

    const DeadLetterDestination &deadLetter = subscription.deadLetterDestination;
    if (deadLetter.kind != DeadLetterDestination::Kind::None) {
        QJsonObject deadLetterProperties {{"resourceId"_L1, deadLetter.resourceId},
                                          {"blobContainerName"_L1, deadLetter.blobContainerName}};
        if (!deadLetter.accountName.isEmpty())
            deadLetterProperties.insert("accountName"_L1, deadLetter.accountName);
        if (!deadLetter.blobEndpoint.isEmpty())
            deadLetterProperties.insert("blobEndpoint"_L1,
                                        deadLetter.blobEndpoint.toString(QUrl::FullyEncoded));
        properties.insert("deadLetterDestination"_L1,
                          QJsonObject {{"endpointType"_L1, u"StorageBlob"_s},
                                       {"properties"_L1, deadLetterProperties}});
    }
    // Written only when it differs from the default, so an enabled subscription exports as
    // plain Resource Manager JSON.
    QJsonObject extension;
    if (!subscription.enabled)
        extension.insert("enabled"_L1, false);
    if (!subscription.validationEnabled)
        extension.insert("validation"_L1, false);
    if (!extension.isEmpty())
        properties.insert("x-eventdesk"_L1, extension);

    return QJsonObject {{"name"_L1, subscription.name}, {"properties"_L1, properties}};
}

Expected<void> validateEventSubscription(const EventSubscription &subscription,
                                         EventSchema topicInputSchema, const QString &jsonPath)
{
    JsonReader sink;
    validateSubscription(sink, subscription, topicInputSchema, canonicalLayout(jsonPath));
    if (sink.failed())
        return sink.error();
    return {};
}

// ---- workspace.json --------------------------------------------------------------------------

namespace {

struct MappingField
{
    QLatin1StringView name;
    QString InputSchemaMapping::*sourceField;
    QString InputSchemaMapping::*defaultValue; // nullptr: the field has no default (SPEC S3)
};

const std::array<MappingField, 6> &mappingFields()
{
    static const std::array<MappingField, 6> fields = {{
        {"id"_L1, &InputSchemaMapping::idSourceField, nullptr},
        {"topic"_L1, &InputSchemaMapping::topicSourceField, nullptr},
        {"eventTime"_L1, &InputSchemaMapping::eventTimeSourceField, nullptr},
        {"subject"_L1, &InputSchemaMapping::subjectSourceField,
         &InputSchemaMapping::subjectDefaultValue},
        {"eventType"_L1, &InputSchemaMapping::eventTypeSourceField,
         &InputSchemaMapping::eventTypeDefaultValue},
        {"dataVersion"_L1, &InputSchemaMapping::dataVersionSourceField,
         &InputSchemaMapping::dataVersionDefaultValue},
    }};
    return fields;
}

InputSchemaMapping readMapping(JsonReader &reader, const QJsonObject &object, const QString &path)
{
    InputSchemaMapping mapping;
    const QString type
        = reader.string(object, "inputSchemaMappingType"_L1, path, Presence::Optional);
    if (!type.isEmpty() && type.compare("Json"_L1, Qt::CaseInsensitive) != 0) {
        reader.fail(joinPath(path, "inputSchemaMappingType"_L1),
                    u"must be Json (got %1)"_s.arg(describeValue(type)));
    }
    const QString propertiesPath = joinPath(path, "properties"_L1);
    const QJsonObject properties = reader.object(object, "properties"_L1, path, Presence::Optional);
    for (const MappingField &field : mappingFields()) {
        const QString fieldPath = joinPath(propertiesPath, field.name);
        const QJsonObject fieldObject
            = reader.object(properties, field.name, propertiesPath, Presence::Optional);
        mapping.*field.sourceField
            = reader.string(fieldObject, "sourceField"_L1, fieldPath, Presence::Optional);
        if (field.defaultValue) {
            mapping.*field.defaultValue
                = reader.string(fieldObject, "defaultValue"_L1, fieldPath, Presence::Optional);
        }
    }
    // SPEC S3: every custom event needs an eventType and a dataVersion.
    for (const QLatin1StringView required : {"eventType"_L1, "dataVersion"_L1}) {
        const bool isEventType = required == "eventType"_L1;
        const QString &sourceField
            = isEventType ? mapping.eventTypeSourceField : mapping.dataVersionSourceField;
        const QString &defaultValue
            = isEventType ? mapping.eventTypeDefaultValue : mapping.dataVersionDefaultValue;
        if (sourceField.isEmpty() && defaultValue.isEmpty()) {
            reader.fail(
                joinPath(propertiesPath, required),
                u"a CustomInputSchema topic needs a sourceField or a defaultValue for %1"_s.arg(
                    required));
        }
    }
    return mapping;
}

QJsonObject mappingToJson(const InputSchemaMapping &mapping)
{
    QJsonObject properties;
    for (const MappingField &field : mappingFields()) {
        QJsonObject fieldObject;
        if (!(mapping.*field.sourceField).isEmpty())
            fieldObject.insert("sourceField"_L1, mapping.*field.sourceField);
        if (field.defaultValue && !(mapping.*field.defaultValue).isEmpty())
            fieldObject.insert("defaultValue"_L1, mapping.*field.defaultValue);
        if (!fieldObject.isEmpty())
            properties.insert(field.name, fieldObject);
    }
    return QJsonObject {{"inputSchemaMappingType"_L1, u"Json"_s}, {"properties"_L1, properties}};
}

std::optional<EventSchema> topicSchemaFromName(const QString &name)
{
    // Azure's topic resource calls the custom schema "CustomEventSchema"; accept it on import.
    if (name.compare("CustomEventSchema"_L1, Qt::CaseInsensitive) == 0)
        return EventSchema::Custom;
    return eventSchemaFromName(name);
}

Topic readTopic(JsonReader &reader, const QJsonValue &value, const QString &path)
{
    Topic topic;
    const QJsonObject object = reader.objectAt(value, path);
    topic.name = reader.string(object, "name"_L1, path, Presence::Required);
    if (reader.failed())
        return topic;
    checkName(reader, topic.name, joinPath(path, "name"_L1), MinTopicNameLength,
              MaxTopicNameLength);

    const QString schemaName = reader.string(object, "inputSchema"_L1, path, Presence::Optional);
    if (!schemaName.isEmpty()) {
        if (const std::optional<EventSchema> schema = topicSchemaFromName(schemaName)) {
            topic.inputSchema = *schema;
        } else {
            reader.fail(joinPath(path, "inputSchema"_L1),
                        u"must be %1 (got %2)"_s.arg(allSchemaNames(), describeValue(schemaName)));
        }
    }
    if (reader.failed())
        return topic;

    const QString mappingPath = joinPath(path, "inputSchemaMapping"_L1);
    if (topic.inputSchema == EventSchema::Custom) {
        const QJsonObject mapping
            = reader.object(object, "inputSchemaMapping"_L1, path, Presence::Optional);
        topic.inputSchemaMapping = readMapping(reader, mapping, mappingPath);
    } else if (JsonReader::isPresent(object, "inputSchemaMapping"_L1)) {
        reader.fail(
            mappingPath,
            u"allowed only when inputSchema is CustomInputSchema (this topic's is %1)"_s.arg(
                eventSchemaName(topic.inputSchema)));
    }

    // SPEC H2 / PRODUCT.md: a topic's access key lives in the SecretStore; the workspace holds
    // only its reference, {"secretRef": "topic/<topic>/key"}.
    if (JsonReader::isPresent(object, "accessKey"_L1)) {
        const QString accessKeyPath = joinPath(path, "accessKey"_L1);
        if (!object.value("accessKey"_L1).isObject()) {
            reader.fail(accessKeyPath,
                        u"must be {\"secretRef\": \"topic/%1/key\"}: access keys are kept in the "
                        u"keychain, never in workspace.json"_s.arg(topic.name));
            return topic;
        }
        const QJsonObject accessKey
            = reader.object(object, "accessKey"_L1, path, Presence::Required);
        topic.accessKeySecretRef
            = reader.string(accessKey, "secretRef"_L1, accessKeyPath, Presence::Optional);
        if (topic.accessKeySecretRef.isEmpty())
            topic.accessKeySecretRef = u"topic/"_s + topic.name + u"/key"_s;
    }
    if (reader.failed())
        return topic;

    const QString subscriptionsPath = joinPath(path, "eventSubscriptions"_L1);
    const QJsonArray subscriptions
        = reader.array(object, "eventSubscriptions"_L1, path, Presence::Optional);
    for (qsizetype index = 0; index < subscriptions.size() && !reader.failed(); ++index) {
        const QString subscriptionPath = indexPath(subscriptionsPath, index);
        const QJsonObject subscriptionObject
            = reader.objectAt(subscriptions.at(index), subscriptionPath);
        if (reader.failed())
            break;
        Expected<EventSubscription> subscription
            = eventSubscriptionFromArm(subscriptionObject, subscriptionPath, topic.inputSchema);
        if (!subscription) {
            reader.fail(QString(), subscription.error());
            break;
        }
        for (qsizetype earlier = 0; earlier < topic.eventSubscriptions.size(); ++earlier) {
            if (topic.eventSubscriptions.at(earlier).name.compare(subscription->name,
                                                                  Qt::CaseInsensitive)
                == 0) {
                reader.fail(joinPath(subscriptionPath, "name"_L1),
                            u"duplicate event subscription name %1 in topic %2 (names are unique "
                            u"within a topic, compared case-insensitively; see %3)"_s.arg(
                                describeValue(subscription->name), describeValue(topic.name),
                                indexPath(subscriptionsPath, earlier)));
                break;
            }
        }
        topic.eventSubscriptions.append(std::move(subscription).value());
    }
    return topic;
}

} // namespace

Expected<Workspace> Workspace::fromJson(const QByteArray &json, const QString &fileName)
{
    const auto withFile = [&fileName](const QString &message) {
        return Error(atPath(fileName, message));
    };

    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        return withFile(u"not valid JSON at offset %1: %2"_s.arg(parseError.offset)
                            .arg(parseError.errorString()));
    }
    if (!document.isObject()) {
        return withFile(u"must hold a JSON object at the top level (got %1)"_s.arg(
            document.isArray() ? u"an array"_s : u"nothing"_s));
    }

    JsonReader reader;
    Workspace workspace;
    const QJsonObject root = document.object();

    // "topics" is required so that a foreign JSON file is refused instead of opening as an
    // empty workspace (PRODUCT.md quality bars).
    const QJsonArray topics = reader.array(root, "topics"_L1, QString(), Presence::Required);
    for (qsizetype index = 0; index < topics.size() && !reader.failed(); ++index) {
        const QString topicPath = indexPath(u"topics"_s, index);
        Topic topic = readTopic(reader, topics.at(index), topicPath);
        if (reader.failed())
            break;
        for (qsizetype earlier = 0; earlier < workspace.topics.size(); ++earlier) {
            if (workspace.topics.at(earlier).name.compare(topic.name, Qt::CaseInsensitive) == 0) {
                reader.fail(joinPath(topicPath, "name"_L1),
                            u"duplicate topic name %1 (topic names are unique, compared "
                            u"case-insensitively; see %2)"_s.arg(describeValue(topic.name),
                                                                 indexPath(u"topics"_s, earlier)));
                break;
            }
        }
        workspace.topics.append(std::move(topic));
    }

    if (!reader.failed()) {
        auto receivers = testReceiversFromJson(root.value("receivers"_L1), u"receivers"_s);
        if (receivers)
            workspace.receivers = receivers.value();
        else
            return withFile(receivers.error());
    }

    const QString settingsPath = u"settings"_s;
    const QJsonObject settings = reader.object(root, "settings"_L1, QString(), Presence::Optional);
    WorkspaceSettings &values = workspace.settings;
    // SPEC L3
    values.deadLetterDelaySeconds
        = reader.integer(settings, "deadLetterDelaySeconds"_L1, settingsPath, 0, 3600,
                         values.deadLetterDelaySeconds);
    // SPEC P2
    values.probationThreshold = reader.integer(settings, "probationThreshold"_L1, settingsPath, 1,
                                               100, values.probationThreshold);
    values.maxConcurrentRequestsPerSubscription
        = reader.integer(settings, "maxConcurrentRequestsPerSubscription"_L1, settingsPath, 1, 64,
                         values.maxConcurrentRequestsPerSubscription);

    if (reader.failed())
        return withFile(reader.error().message());
    return workspace;
}

QJsonObject Workspace::toJson() const
{
    QJsonArray topicArray;
    for (const Topic &topic : topics) {
        QJsonObject object {{"name"_L1, topic.name},
                            {"inputSchema"_L1, eventSchemaName(topic.inputSchema)}};
        if (topic.inputSchema == EventSchema::Custom)
            object.insert("inputSchemaMapping"_L1, mappingToJson(topic.inputSchemaMapping));
        if (!topic.accessKeySecretRef.isEmpty())
            object.insert("accessKey"_L1, QJsonObject {{"secretRef"_L1, topic.accessKeySecretRef}});
        QJsonArray subscriptions;
        for (const EventSubscription &subscription : topic.eventSubscriptions)
            subscriptions.append(eventSubscriptionToArm(subscription));
        object.insert("eventSubscriptions"_L1, subscriptions);
        topicArray.append(object);
    }
    QJsonArray receiverArray;
    for (const TestReceiver &receiver : receivers)
        receiverArray.append(receiver.toJson());
    return QJsonObject {
        {"topics"_L1, topicArray},
        {"receivers"_L1, receiverArray},
        {"settings"_L1,
         QJsonObject {{"deadLetterDelaySeconds"_L1, settings.deadLetterDelaySeconds},
                      {"probationThreshold"_L1, settings.probationThreshold},
                      {"maxConcurrentRequestsPerSubscription"_L1,
                       settings.maxConcurrentRequestsPerSubscription}}},
    };
}

const Topic *Workspace::findTopic(const QString &name) const
{
    for (const Topic &topic : topics) {
        if (topic.name.compare(name, Qt::CaseInsensitive) == 0)
            return &topic;
    }
    return nullptr;
}

const TestReceiver *Workspace::findReceiver(const QString &name) const
{
    for (const TestReceiver &receiver : receivers) {
        if (receiver.name.compare(name, Qt::CaseInsensitive) == 0)
            return &receiver;
    }
    return nullptr;
}

} // namespace EventDesk
