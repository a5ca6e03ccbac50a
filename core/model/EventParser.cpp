#include "EventParser.h"

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

std::optional<Rejection> checkEventSize(const QByteArray &body, qsizetype index)
{
    if (body.size() <= EventParser::MaxEventBytes)
        return std::nullopt;
    return Rejection {
        413, u"PayloadTooLarge"_s,
        u"%1 is %2 bytes; each event is limited to %3"_s.arg(
            eventPath(index), QString::number(body.size()), limitText(EventParser::MaxEventBytes))};
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

// engineFields: ',"metadataVersion":"1","topic":"<path>"}', spliced over the closing brace of
// the published bytes.
std::optional<Rejection> parseEventGridEvent(const Topic &topic, QJsonObject event, qsizetype index,
                                             QByteArray publishedBytes,
                                             const QByteArray &engineFields,
                                             EventParser::FilterViews filterViews,
                                             PublishedEvent *published)
{
    const std::array<std::pair<QLatin1StringView, QString *>, 5> fields = {{
        {"id"_L1, &published->id},
        {"subject"_L1, &published->subject},
        {"eventType"_L1, &published->eventType},
        {"eventTime"_L1, &published->eventTime},
        {"dataVersion"_L1, &published->dataVersion},
    }};
    for (const auto &[field, target] : fields) {
        if (std::optional<Rejection> rejection
            = readString(event, field, index, true, "field"_L1, target)) {
            return rejection;
        }
    }
    if (published->id.isEmpty())
        return badRequest(u"%1.id: must not be empty"_s.arg(eventPath(index)));
    if (published->eventType.isEmpty())
        return badRequest(u"%1.eventType: must not be empty"_s.arg(eventPath(index)));
    if (!isIsoDateTime(published->eventTime)) {
        return badRequest(u"%1.eventTime: must be an ISO 8601 date-time string (got %2)"_s.arg(
            eventPath(index), describeValue(published->eventTime)));
    }
    // SPEC S1: the engine owns these two fields. When the publisher sent neither, they are
    // spliced into the published bytes (the object has fields, so a comma can precede them);
    // otherwise the event is serialised again with the publisher's values replaced.
    const bool splice = !publishedBytes.isEmpty() && publishedBytes.endsWith('}')
        && !event.contains("topic"_L1) && !event.contains("metadataVersion"_L1);
    if (splice) {
        publishedBytes.chop(1);
        publishedBytes.append(engineFields);
        published->body = std::move(publishedBytes);
    }
    if (!splice || filterViews == EventParser::FilterViews::Build) {
        event.insert("topic"_L1, topic.resourcePath());
        event.insert("metadataVersion"_L1, u"1"_s);
        if (!splice)
            published->body = compact(event);
        published->filterView = event;
    }
    return checkEventSize(published->body, index);
}

// ---- CloudEvents 1.0 (SPEC S2) -------------------------------------------------------------

std::optional<Rejection> parseCloudEvent(const QJsonObject &event, qsizetype index,
                                         QByteArray publishedBytes,
                                         EventParser::FilterViews filterViews,
                                         PublishedEvent *published)
{
    QString specVersion;
    QString source;
    const std::array<std::pair<QLatin1StringView, QString *>, 4> required = {{
        {"specversion"_L1, &specVersion},
        {"id"_L1, &published->id},
        {"source"_L1, &source},
        {"type"_L1, &published->eventType},
    }};
    for (const auto &[attribute, target] : required) {
        if (std::optional<Rejection> rejection
            = readString(event, attribute, index, true, "attribute"_L1, target)) {
            return rejection;
        }
    }
    if (specVersion != "1.0"_L1) {
        return badRequest(u"%1.specversion: must be \"1.0\" (got %2)"_s.arg(
            eventPath(index), describeValue(specVersion)));
    }
    for (const auto &[attribute, target] : required) {
        if (target->isEmpty()) {
            return badRequest(u"%1.%2: must not be empty"_s.arg(eventPath(index), attribute));
        }
    }
    QString timeText;
    const std::array<std::pair<QLatin1StringView, QString *>, 3> optional = {{
        {"subject"_L1, &published->subject},
        {"time"_L1, &timeText},
        {"dataversion"_L1, &published->dataVersion},
    }};
    for (const auto &[attribute, target] : optional) {
        if (std::optional<Rejection> rejection
            = readString(event, attribute, index, false, "attribute"_L1, target)) {
            return rejection;
        }
    }
    const QJsonValue timeValue = event.value("time"_L1);
    if (timeValue.isString() && !isIsoDateTime(timeText)) {
        return badRequest(u"%1.time: must be an RFC 3339 date-time string (got %2)"_s.arg(
            eventPath(index), describeValue(timeText)));
    }
    if (event.contains("data"_L1) && event.contains("data_base64"_L1)) {
        return badRequest(
            u"%1: must not have both 'data' and 'data_base64'"_s.arg(eventPath(index)));
    }
    published->eventTime = timeText;
    published->body = publishedBytes.isEmpty() ? compact(event) : std::move(publishedBytes);
    if (filterViews == EventParser::FilterViews::Build)
        published->filterView = event;
    return checkEventSize(published->body, index);
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
        return checkEventSize(published->body, index);
    published->filterView = QJsonObject {
        {"id"_L1, published->id},
        {"topic"_L1, topic.resourcePath()},
        {"subject"_L1, published->subject},
        {"eventType"_L1, published->eventType},
        {"dataVersion"_L1, published->dataVersion},
        {"eventTime"_L1, published->eventTime},
        {"data"_L1, event},
    };
    return checkEventSize(published->body, index);
}

QString describeShape(const QJsonDocument &document)
{
    return document.isArray() ? u"an array"_s : u"an object"_s;
}

} // namespace

PublishParseResult EventParser::parse(const Topic &topic, const QByteArray &body,
                                      const QByteArray &contentType, const QString &publishTimeIso,
                                      FilterViews filterViews)
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
                QJsonParseError elementError;
                const QJsonDocument element = QJsonDocument::fromJson((*elements)[index], &elementError);
                PublishedEvent published;
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
