// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "EventParser.h"

#include "EventScanner.h"
#include "JsonSupport.h"
#include "PublishedBytes.h"

#include <QDate>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QUuid>

#include <array>
#include <optional>

using namespace Qt::StringLiterals;

namespace EventDesk {

using JsonSupport::describeValue;
using JsonSupport::indexPath;

namespace {

struct Rejection
{
    int httpStatus;
    QString errorCode;
    QString errorMessage;
};

Rejection badRequest(const QString &message)
{
    return Rejection {400, u"BadRequest"_s, message};
}

PublishParseResult rejected(const Rejection &rejection)
{
    PublishParseResult result;
    result.httpStatus = rejection.httpStatus;
    result.errorCode = rejection.errorCode;
    result.errorMessage = rejection.errorMessage;
    return result;
}

QString eventPath(qsizetype index)
{
    return indexPath(u"event"_s, index);
}

QString limitText(qsizetype bytes)
{
    return u"1 MB (%1 bytes)"_s.arg(bytes);
}

// ISO 8601 / RFC 3339 date-time: a date, a time (seconds and fraction optional), and an
// optional offset: YYYY-MM-DD[Tt ]hh:mm[:ss[(.|,)f+]][Z|z|(+|-)hh[[:]mm]]. The SDKs send 7
// fractional digits (.NET) or 3 (JavaScript), so any number is accepted; QDateTime's parser
// would round those and accepts dates without a time. Checked by hand (ASCII digits only):
// it runs for every published event, and a regular expression cost more than the rest of the
// field checks together.
bool isIsoDateTime(QStringView text)
{
    qsizetype at = 0;
    const auto digits = [&](int count, int *value) {
        if (at + count > text.size())
            return false;
        int result = 0;
        for (int i = 0; i < count; ++i) {
            const char16_t character = text[at + i].unicode();
            if (character < u'0' || character > u'9')
                return false;
            result = result * 10 + (character - u'0');
        }
        at += count;
        *value = result;
        return true;
    };
    const auto accept = [&](auto... characters) {
        if (at < text.size() && ((text[at] == QChar(characters)) || ...)) {
            ++at;
            return true;
        }
        return false;
    };
    int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
    if (!digits(4, &year) || !accept(u'-') || !digits(2, &month) || !accept(u'-')
        || !digits(2, &day) || !accept(u'T', u't', u' ') || !digits(2, &hour) || !accept(u':')
        || !digits(2, &minute)) {
        return false;
    }
    if (accept(u':')) {
        if (!digits(2, &second))
            return false;
        if (accept(u'.', u',')) {
            int digit = 0;
            if (!digits(1, &digit))
                return false;
            while (digits(1, &digit)) {
            }
        }
    }
    if (!accept(u'Z', u'z') && at < text.size()) {
        int offsetHour = 0;
        int offsetMinute = 0;
        if (!accept(u'+', u'-') || !digits(2, &offsetHour))
            return false;
        if (at < text.size()) {
            accept(u':');
            if (!digits(2, &offsetMinute))
                return false;
        }
        if (offsetHour > 23 || offsetMinute > 59)
            return false;
    }
    if (at != text.size() || !QDate(year, month, day).isValid())
        return false;
    // Second 60 is a leap second, which RFC 3339 allows.
    return hour <= 23 && minute <= 59 && second <= 60;
}

QByteArray compact(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

// bytes: the size of the event as stored.
std::optional<Rejection> checkEventSize(qsizetype bytes, qsizetype index)
{
    if (bytes <= EventParser::MaxEventBytes)
        return std::nullopt;
    return Rejection {
        413, u"PayloadTooLarge"_s,
        u"%1 is %2 bytes; each event is limited to %3"_s.arg(
            eventPath(index), QString::number(bytes), limitText(EventParser::MaxEventBytes))};
}

// Reads a string field that may be required. Absent -> nullopt with no rejection when optional.
std::optional<Rejection> readString(const QJsonObject &event, QLatin1StringView field,
                                    qsizetype index, bool required, QLatin1StringView fieldKind,
                                    QString *out)
{
    const QJsonValue value = event.value(field);
    // CloudEvents JSON format: an optional attribute set to null is the same as an absent one.
    if (value.isUndefined() || (value.isNull() && !required)) {
        if (!required)
            return std::nullopt;
        return badRequest(
            u"%1: required %2 '%3' is missing"_s.arg(eventPath(index), fieldKind, field));
    }
    if (!value.isString()) {
        return badRequest(u"%1.%2: must be a string (got %3)"_s.arg(eventPath(index), field,
                                                                    describeValue(value)));
    }
    *out = value.toString();
    return std::nullopt;
}

// ---- Event Grid schema (SPEC S1) -----------------------------------------------------------

// String fields to read, each with where its value goes.
template<size_t Count>
using StringFields = std::array<std::pair<QLatin1StringView, QString *>, Count>;

// The required fields, in the order their absence is reported.
StringFields<5> eventGridFields(PublishedEvent *published)
{
    return {{
        {"id"_L1, &published->id},
        {"subject"_L1, &published->subject},
        {"eventType"_L1, &published->eventType},
        {"eventTime"_L1, &published->eventTime},
        {"dataVersion"_L1, &published->dataVersion},
    }};
}

// What the required fields must hold once they are read as strings.
std::optional<Rejection> checkEventGridFields(const PublishedEvent &published, qsizetype index)
{
    if (published.id.isEmpty())
        return badRequest(u"%1.id: must not be empty"_s.arg(eventPath(index)));
    if (published.eventType.isEmpty())
        return badRequest(u"%1.eventType: must not be empty"_s.arg(eventPath(index)));
    if (!isIsoDateTime(published.eventTime)) {
        return badRequest(u"%1.eventTime: must be an ISO 8601 date-time string (got %2)"_s.arg(
            eventPath(index), describeValue(published.eventTime)));
    }
    return std::nullopt;
}

// engineFields: ',"metadataVersion":"1","topic":"<path>"}', spliced over the closing brace of
// the published bytes.
void spliceEngineFields(QByteArray *publishedBytes, const QByteArray &engineFields)
{
    publishedBytes->chop(1);
    publishedBytes->append(engineFields);
}

std::optional<Rejection> parseEventGridEvent(const Topic &topic, QJsonObject event, qsizetype index,
                                             QByteArray publishedBytes,
                                             const QByteArray &engineFields,
                                             EventParser::FilterViews filterViews,
                                             PublishedEvent *published)
{
    for (const auto &[field, target] : eventGridFields(published)) {
        if (std::optional<Rejection> rejection
            = readString(event, field, index, true, "field"_L1, target)) {
            return rejection;
        }
    }
    if (std::optional<Rejection> rejection = checkEventGridFields(*published, index))
        return rejection;
    // SPEC S1: the engine owns these two fields. When the publisher sent neither, they are
    // spliced into the published bytes (the object has fields, so a comma can precede them);
    // otherwise the event is serialised again with the publisher's values replaced.
    const bool splice = !publishedBytes.isEmpty() && publishedBytes.endsWith('}')
        && !event.contains("topic"_L1) && !event.contains("metadataVersion"_L1);
    if (splice) {
        spliceEngineFields(&publishedBytes, engineFields);
        published->body = std::move(publishedBytes);
    }
    if (!splice || filterViews == EventParser::FilterViews::Build) {
        event.insert("topic"_L1, topic.resourcePath());
        event.insert("metadataVersion"_L1, u"1"_s);
        if (!splice)
            published->body = compact(event);
        published->filterView = event;
    }
    return checkEventSize(published->body.size(), index);
}

// ---- CloudEvents 1.0 (SPEC S2) -------------------------------------------------------------

// The required attributes, in the order their absence is reported.
StringFields<4> cloudEventRequired(QString *specVersion, QString *source,
                                   PublishedEvent *published)
{
    return {{
        {"specversion"_L1, specVersion},
        {"id"_L1, &published->id},
        {"source"_L1, source},
        {"type"_L1, &published->eventType},
    }};
}

// What the required attributes must hold once they are read as strings.
std::optional<Rejection> checkCloudEventRequired(const StringFields<4> &required, qsizetype index)
{
    const QString &specVersion = *required[0].second;
    if (specVersion != "1.0"_L1) {
        return badRequest(u"%1.specversion: must be \"1.0\" (got %2)"_s.arg(
            eventPath(index), describeValue(specVersion)));
    }
    for (const auto &[attribute, target] : required) {
        if (target->isEmpty())
            return badRequest(u"%1.%2: must not be empty"_s.arg(eventPath(index), attribute));
    }
    return std::nullopt;
}

// The optional attributes the parser reads.
StringFields<3> cloudEventOptional(QString *timeText, PublishedEvent *published)
{
    return {{
        {"subject"_L1, &published->subject},
        {"time"_L1, timeText},
        {"dataversion"_L1, &published->dataVersion},
    }};
}

// Checked only when time is a string (an absent or null time is allowed).
std::optional<Rejection> checkCloudEventTime(const QString &timeText, qsizetype index)
{
    if (isIsoDateTime(timeText))
        return std::nullopt;
    return badRequest(u"%1.time: must be an RFC 3339 date-time string (got %2)"_s.arg(
        eventPath(index), describeValue(timeText)));
}

Rejection bothDataRejection(qsizetype index)
{
    return badRequest(u"%1: must not have both 'data' and 'data_base64'"_s.arg(eventPath(index)));
}

std::optional<Rejection> parseCloudEvent(const QJsonObject &event, qsizetype index,
                                         QByteArray publishedBytes,
                                         EventParser::FilterViews filterViews,
                                         PublishedEvent *published)
{
    QString specVersion;
    QString source;
    const StringFields<4> required = cloudEventRequired(&specVersion, &source, published);
    for (const auto &[attribute, target] : required) {
        if (std::optional<Rejection> rejection
            = readString(event, attribute, index, true, "attribute"_L1, target)) {
            return rejection;
        }
    }
    if (std::optional<Rejection> rejection = checkCloudEventRequired(required, index))
        return rejection;
    QString timeText;
    for (const auto &[attribute, target] : cloudEventOptional(&timeText, published)) {
        if (std::optional<Rejection> rejection
            = readString(event, attribute, index, false, "attribute"_L1, target)) {
            return rejection;
        }
    }
    if (event.value("time"_L1).isString()) {
        if (std::optional<Rejection> rejection = checkCloudEventTime(timeText, index))
            return rejection;
    }
    if (event.contains("data"_L1) && event.contains("data_base64"_L1))
        return bothDataRejection(index);
    published->eventTime = timeText;
    published->body = publishedBytes.isEmpty() ? compact(event) : std::move(publishedBytes);
    if (filterViews == EventParser::FilterViews::Build)
        published->filterView = event;
    return checkEventSize(published->body.size(), index);
}

// ---- Event Grid and CloudEvents read by the scanner ----------------------------------------
//
// When no filter view is built, the common event is read by EventScanner instead of a
// QJsonDocument: a 1 KB event costs a fraction of the parse (bench/RESULTS.md). These functions
// accept an event only when the QJsonDocument path above would accept it with the same fields
// and bytes; they return false for anything else, rejections included, and the caller then takes
// that path, which words the answer.

QString scannedText(const ScannedMember &member)
{
    return QString::fromUtf8(member.text.data(), member.text.size());
}

bool readScannedEventGridEvent(qsizetype index, QByteArray *publishedBytes,
                               const QByteArray &engineFields, PublishedEvent *published)
{
    // The five required fields, then topic and metadataVersion: given by the publisher, they
    // are replaced in a serialised copy of the tree (SPEC S1), which only QJsonDocument has.
    static constexpr std::array<QLatin1StringView, 7> names = {
        "id"_L1, "subject"_L1, "eventType"_L1, "eventTime"_L1, "dataVersion"_L1,
        "topic"_L1, "metadataVersion"_L1,
    };
    constexpr size_t topicMember = 5;
    constexpr size_t metadataVersionMember = 6;
    std::array<ScannedMember, names.size()> members;
    if (!EventScanner::scanObject(*publishedBytes, names, members))
        return false;
    if (members[topicMember].kind != ScannedMember::Kind::Absent
        || members[metadataVersionMember].kind != ScannedMember::Kind::Absent) {
        return false;
    }
    const StringFields<5> fields = eventGridFields(published);
    for (size_t field = 0; field < fields.size(); ++field) {
        if (members[field].kind != ScannedMember::Kind::PlainString)
            return false;
        *fields[field].second = scannedText(members[field]);
    }
    if (checkEventGridFields(*published, index)
        || checkEventSize(publishedBytes->size() - 1 + engineFields.size(), index)) {
        return false;
    }
    spliceEngineFields(publishedBytes, engineFields);
    published->body = std::move(*publishedBytes);
    return true;
}

bool readScannedCloudEvent(qsizetype index, QByteArray *publishedBytes, PublishedEvent *published)
{
    // The four required attributes, the three optional ones, then data and data_base64.
    static constexpr std::array<QLatin1StringView, 9> names = {
        "specversion"_L1, "id"_L1,          "source"_L1, "type"_L1,        "subject"_L1,
        "time"_L1,        "dataversion"_L1, "data"_L1,   "data_base64"_L1,
    };
    constexpr size_t firstOptionalMember = 4;
    constexpr size_t timeMember = 5;
    constexpr size_t dataMember = 7;
    constexpr size_t dataBase64Member = 8;
    std::array<ScannedMember, names.size()> members;
    if (!EventScanner::scanObject(*publishedBytes, names, members))
        return false;
    QString specVersion;
    QString source;
    const StringFields<4> required = cloudEventRequired(&specVersion, &source, published);
    for (size_t attribute = 0; attribute < required.size(); ++attribute) {
        if (members[attribute].kind != ScannedMember::Kind::PlainString)
            return false;
        *required[attribute].second = scannedText(members[attribute]);
    }
    if (checkCloudEventRequired(required, index))
        return false;
    // CloudEvents JSON format: an optional attribute set to null is the same as an absent one.
    QString timeText;
    const StringFields<3> optional = cloudEventOptional(&timeText, published);
    for (size_t attribute = 0; attribute < optional.size(); ++attribute) {
        const ScannedMember &member = members[firstOptionalMember + attribute];
        if (member.kind == ScannedMember::Kind::PlainString)
            *optional[attribute].second = scannedText(member);
        else if (member.kind == ScannedMember::Kind::OtherValue)
            return false;
    }
    if (members[timeMember].kind == ScannedMember::Kind::PlainString
        && checkCloudEventTime(timeText, index)) {
        return false;
    }
    if (members[dataMember].kind != ScannedMember::Kind::Absent
        && members[dataBase64Member].kind != ScannedMember::Kind::Absent) {
        return false;
    }
    if (checkEventSize(publishedBytes->size(), index))
        return false;
    published->eventTime = timeText;
    published->body = std::move(*publishedBytes);
    return true;
}

// ---- Custom input schema (SPEC S3) ---------------------------------------------------------

// A literal top-level key wins; otherwise "data.x" walks nested objects.
QJsonValue lookupField(const QJsonObject &object, const QString &sourceField)
{
    if (object.contains(sourceField))
        return object.value(sourceField);
    QJsonValue current = object;
    for (const QStringView part : QStringView(sourceField).split(u'.')) {
        if (!current.isObject())
            return QJsonValue(QJsonValue::Undefined);
        current = current.toObject().value(part);
    }
    return current;
}

// The mapped string, or nullopt when the source field is unmapped or absent (null counts as
// absent, as it does for Event Grid's defaultValue).
std::optional<Rejection> mappedString(const QJsonObject &event, const QString &sourceField,
                                      QLatin1StringView target, qsizetype index,
                                      std::optional<QString> *out)
{
    out->reset();
    if (sourceField.isEmpty())
        return std::nullopt;
    const QJsonValue value = lookupField(event, sourceField);
    if (value.isUndefined() || value.isNull())
        return std::nullopt;
    if (!value.isString()) {
        return badRequest(u"%1.%2: must be a string to be used as %3 (got %4)"_s.arg(
            eventPath(index), sourceField, target, describeValue(value)));
    }
    *out = value.toString();
    return std::nullopt;
}

std::optional<Rejection> parseCustomEvent(const Topic &topic, const QJsonObject &event,
                                          qsizetype index, const QString &publishTimeIso,
                                          QByteArray publishedBytes,
                                          EventParser::FilterViews filterViews,
                                          PublishedEvent *published)
{
    const InputSchemaMapping &mapping = topic.inputSchemaMapping;
    std::optional<QString> value;

    if (std::optional<Rejection> rejection
        = mappedString(event, mapping.idSourceField, "id"_L1, index, &value)) {
        return rejection;
    }
    published->id = value.value_or(QString());
    if (published->id.isEmpty())
        published->id = QUuid::createUuid().toString(QUuid::WithoutBraces);

    if (std::optional<Rejection> rejection
        = mappedString(event, mapping.eventTimeSourceField, "eventTime"_L1, index, &value)) {
        return rejection;
    }
    if (value && !isIsoDateTime(*value)) {
        return badRequest(u"%1.%2: must be an ISO 8601 date-time string to be used as eventTime "
                          u"(got %3)"_s.arg(eventPath(index), mapping.eventTimeSourceField,
                                            describeValue(*value)));
    }
    published->eventTime = value.value_or(publishTimeIso);

    // Subject is optional (empty when neither mapped nor defaulted); eventType and dataVersion
    // are required, and the workspace guarantees each has a source field or a default.
    struct Target
    {
        QLatin1StringView name;
        const QString &sourceField;
        const QString &defaultValue;
        QString *out;
        bool required;
    };
    const std::array<Target, 3> targets = {{
        {"subject"_L1, mapping.subjectSourceField, mapping.subjectDefaultValue, &published->subject,
         false},
        {"eventType"_L1, mapping.eventTypeSourceField, mapping.eventTypeDefaultValue,
         &published->eventType, true},
        {"dataVersion"_L1, mapping.dataVersionSourceField, mapping.dataVersionDefaultValue,
         &published->dataVersion, true},
    }};
    for (const Target &target : targets) {
        if (std::optional<Rejection> rejection
            = mappedString(event, target.sourceField, target.name, index, &value)) {
            return rejection;
        }
        if (value) {
            *target.out = *value;
        } else if (!target.defaultValue.isEmpty() || !target.required) {
            *target.out = target.defaultValue;
        } else {
            return badRequest(
                u"%1: required field '%2' is missing (mapped from '%3', which has "
                u"no defaultValue)"_s.arg(eventPath(index), target.name, target.sourceField));
        }
    }

    published->body = publishedBytes.isEmpty() ? compact(event) : std::move(publishedBytes);
    if (filterViews == EventParser::FilterViews::Skip)
        return checkEventSize(published->body.size(), index);
    published->filterView = QJsonObject {
        {"id"_L1, published->id},
        {"topic"_L1, topic.resourcePath()},
        {"subject"_L1, published->subject},
        {"eventType"_L1, published->eventType},
        {"dataVersion"_L1, published->dataVersion},
        {"eventTime"_L1, published->eventTime},
        {"data"_L1, event},
    };
    return checkEventSize(published->body.size(), index);
}

QString describeShape(const QJsonDocument &document)
{
    return document.isArray() ? u"an array"_s : u"an object"_s;
}

} // namespace

PublishParseResult EventParser::parse(const Topic &topic, const QByteArray &body,
                                      const QByteArray &contentType, const QString &publishTimeIso,
                                      FilterViews filterViews, EventReading reading)
{
    // SPEC §10: checked before any parsing, so an oversized request costs nothing.
    if (body.size() > MaxRequestBytes) {
        return rejected(
            Rejection {413, u"PayloadTooLarge"_s,
                       u"the request body is %1 bytes; a publish request is limited "
                       u"to %2"_s.arg(QString::number(body.size()), limitText(MaxRequestBytes))});
    }

    // Which shape the body must have.
    enum class Shape { Array, Object, Either };
    Shape shape = Shape::Either;
    QString shapeRule;
    switch (topic.inputSchema) {
    case EventSchema::EventGrid:
        shape = Shape::Array;
        shapeRule = u"an Event Grid topic takes a JSON array of events"_s;
        break;
    case EventSchema::CloudEvents10: {
        const qsizetype parameters = contentType.indexOf(';');
        const QByteArray mediaType
            = (parameters < 0 ? contentType : contentType.left(parameters)).trimmed().toLower();
        if (mediaType == "application/cloudevents+json") {
            shape = Shape::Object;
            shapeRule = u"Content-Type application/cloudevents+json takes one CloudEvent object "
                        u"(send a batch as application/cloudevents-batch+json)"_s;
        } else if (mediaType == "application/cloudevents-batch+json") {
            shape = Shape::Array;
            shapeRule = u"Content-Type application/cloudevents-batch+json takes a JSON array of "
                        u"CloudEvents"_s;
        }
        break;
    }
    case EventSchema::Custom:
        break;
    }
    QByteArray engineFields;
    if (topic.inputSchema == EventSchema::EventGrid) {
        engineFields = compact(QJsonObject {{"topic"_L1, topic.resourcePath()},
                                            {"metadataVersion"_L1, u"1"_s}});
        engineFields[0] = ','; // '{' -> ','; the closing brace stays
    }
    const auto parseEvent = [&](qsizetype index, const QJsonObject &event, QByteArray publishedBytes,
                                PublishedEvent *published) -> std::optional<Rejection> {
        switch (topic.inputSchema) {
        case EventSchema::EventGrid:
            return parseEventGridEvent(topic, event, index, std::move(publishedBytes), engineFields,
                                       filterViews, published);
        case EventSchema::CloudEvents10:
            return parseCloudEvent(event, index, std::move(publishedBytes), filterViews, published);
        case EventSchema::Custom:
            return parseCustomEvent(topic, event, index, publishTimeIso, std::move(publishedBytes),
                                    filterViews, published);
        }
        return std::nullopt;
    };

    // SPEC S1, S2: without a filter view to build, an event needs no tree: EventScanner reads it,
    // and what it does not positively accept is read by QJsonDocument as before.
    const bool scan = reading == EventReading::Scanner && filterViews == FilterViews::Skip
        && topic.inputSchema != EventSchema::Custom;
    const auto readScanned = [&](qsizetype index, QByteArray *publishedBytes,
                                 PublishedEvent *published) {
        return topic.inputSchema == EventSchema::EventGrid
            ? readScannedEventGridEvent(index, publishedBytes, engineFields, published)
            : readScannedCloudEvent(index, publishedBytes, published);
    };

    // The common case first: an array of valid events, each parsed on its own. One document of
    // a whole 1 MB request costs more (its parsed tree grows by reallocation, and every event
    // stays parsed until the last is read). Anything this path does not accept - malformed JSON,
    // a non-object element, a rejected event - is decided by the whole-document path below, so
    // that every request gets the same answer either way.
    if (shape != Shape::Object) {
        if (std::optional<QList<QByteArray>> elements = PublishedBytes::splitArray(body, engineFields.size()); elements && !elements->isEmpty()) {
            PublishParseResult result;
            result.events.reserve(elements->size());
            for (qsizetype index = 0; index < elements->size(); ++index) {
                PublishedEvent published;
                if (scan && readScanned(index, &(*elements)[index], &published)) {
                    result.events.append(std::move(published));
                    continue;
                }
                published = PublishedEvent();
                QJsonParseError elementError;
                const QJsonDocument element = QJsonDocument::fromJson((*elements)[index], &elementError);
                if (elementError.error != QJsonParseError::NoError || !element.isObject()
                    || parseEvent(index, element.object(), std::move((*elements)[index]), &published)) {
                    result.events.clear();
                    break;
                }
                result.events.append(std::move(published));
            }
            if (!result.events.isEmpty())
                return result;
        }
    }

    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(body, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        return rejected(badRequest(u"the request body is not valid JSON at offset %1: %2"_s.arg(
            QString::number(parseError.offset), parseError.errorString())));
    }
    if ((shape == Shape::Array && !document.isArray())
        || (shape == Shape::Object && !document.isObject())) {
        return rejected(badRequest(u"%1 (got %2)"_s.arg(shapeRule, describeShape(document))));
    }

    QJsonArray events;
    if (document.isArray())
        events = document.array();
    else
        events.append(document.object());
    if (events.isEmpty())
        return rejected(badRequest(u"the request holds no events (an empty JSON array)"_s));

    // The bytes of each event as published; if the scanner and the parser ever disagreed on the
    // number of events, every event is serialised from the parsed tree instead.
    QList<QByteArray> publishedBytes = PublishedBytes::publishedValues(body, engineFields.size());
    if (publishedBytes.size() != events.size())
        publishedBytes.clear();
    const auto takePublished = [&publishedBytes](qsizetype index) {
        return publishedBytes.isEmpty() ? QByteArray() : std::move(publishedBytes[index]);
    };

    PublishParseResult result;
    result.events.reserve(events.size());
    for (qsizetype index = 0; index < events.size(); ++index) {
        const QJsonValue value = events.at(index);
        if (!value.isObject()) {
            return rejected(badRequest(u"%1: must be a JSON object (got %2)"_s.arg(
                eventPath(index), describeValue(value))));
        }
        PublishedEvent published;
        const std::optional<Rejection> rejection
            = parseEvent(index, value.toObject(), takePublished(index), &published);
        // SPEC §10: nothing partial; the first offending event rejects the whole request.
        if (rejection)
            return rejected(*rejection);
        result.events.append(std::move(published));
    }
    return result;
}

} // namespace EventDesk
