// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// Fuzz target: the publish parser (core/model/EventParser, SPEC S1-S3 and §10), with and without
// the event scanner (core/model/EventScanner).
//
// Input: one digit that picks the topic, then the request body:
//   0  Event Grid schema                      1  CloudEvents, Content-Type application/json
//   2  CloudEvents, application/cloudevents+json
//   3  CloudEvents, application/cloudevents-batch+json; charset=utf-8
//   4  custom schema: id, eventTime, subject, eventType, dataVersion mapped from top-level fields
//   5  custom schema: fields from nested and dotted paths ("data.id", "meta.type"), defaults
//   6  custom schema: nothing mapped but defaults (a generated id, the publish time)
//   7  Event Grid schema again (the byte is read modulo 8)
//
// Every body is parsed three ways: with filter views built (FilterViews::Build, the QJsonDocument
// path), and without (FilterViews::Skip) once with the event scanner and once with QJsonDocument
// only. Properties checked besides ASan/UBSan:
//   - differential: Skip with the scanner and Skip with QJsonDocument only give the same result
//     (status, code, message, every event's fields and stored bytes), as tst_eventscanner checks on
//     its generated inputs; and Build gives the same result too, apart from the filter view;
//   - an accepted request has events, a rejected one none, with status 400 or 413, a code and a
//     message;
//   - each stored body is the event as published (SPEC S1: Event Grid with topic and
//     metadataVersion filled in): it parses as a JSON object equal to the event's filter view
//     (for the custom schema, to the view's data), holds the fields the event was read with, and
//     is within the 1 MB event limit.

#include "FuzzSupport.h"

#include "model/EventParser.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <array>

using namespace Qt::StringLiterals;
using namespace EventDesk;

namespace {

const QString s_publishTime = u"2024-05-01T10:00:00.0000000Z"_s;

struct Setup
{
    Topic topic;
    QByteArray contentType;
};

Topic topicWithSchema(EventSchema schema)
{
    Topic topic;
    topic.name = u"orders"_s;
    topic.inputSchema = schema;
    return topic;
}

std::array<Setup, 8> makeSetups()
{
    std::array<Setup, 8> setups;
    setups[0] = {topicWithSchema(EventSchema::EventGrid), "application/json"};
    setups[1] = {topicWithSchema(EventSchema::CloudEvents10), "application/json"};
    setups[2] = {topicWithSchema(EventSchema::CloudEvents10), "application/cloudevents+json"};
    setups[3] = {topicWithSchema(EventSchema::CloudEvents10),
                 "application/cloudevents-batch+json; charset=utf-8"};
    Topic flat = topicWithSchema(EventSchema::Custom);
    flat.inputSchemaMapping.idSourceField = u"id"_s;
    flat.inputSchemaMapping.eventTimeSourceField = u"time"_s;
    flat.inputSchemaMapping.subjectSourceField = u"subject"_s;
    flat.inputSchemaMapping.eventTypeSourceField = u"type"_s;
    flat.inputSchemaMapping.dataVersionSourceField = u"version"_s;
    flat.inputSchemaMapping.dataVersionDefaultValue = u"1.0"_s;
    setups[4] = {flat, "application/json"};
    Topic nested = topicWithSchema(EventSchema::Custom);
    nested.inputSchemaMapping.idSourceField = u"data.id"_s;
    nested.inputSchemaMapping.eventTimeSourceField = u"meta.time"_s;
    nested.inputSchemaMapping.subjectSourceField = u"a.b"_s; // a literal dotted key wins
    nested.inputSchemaMapping.subjectDefaultValue = u"/default"_s;
    nested.inputSchemaMapping.eventTypeSourceField = u"meta.type"_s;
    nested.inputSchemaMapping.eventTypeDefaultValue = u"Default.Type"_s;
    nested.inputSchemaMapping.dataVersionDefaultValue = u"2.0"_s;
    setups[5] = {nested, "application/json"};
    Topic defaults = topicWithSchema(EventSchema::Custom);
    defaults.inputSchemaMapping.eventTypeDefaultValue = u"Default.Type"_s;
    defaults.inputSchemaMapping.dataVersionDefaultValue = u"1"_s;
    setups[6] = {defaults, "application/json"};
    setups[7] = setups[0];
    return setups;
}

enum class Compare { WithFilterViews, WithoutFilterViews };

// The first difference between two results of the same request, or an empty string. A generated
// id (custom schema, id not mapped or empty) differs on every parse and is not compared.
QString difference(const PublishParseResult &expected, const PublishParseResult &actual,
                   Compare compare, bool compareIds)
{
    if (expected.httpStatus != actual.httpStatus)
        return u"status %1 against %2"_s.arg(expected.httpStatus).arg(actual.httpStatus);
    if (expected.errorCode != actual.errorCode)
        return u"code %1 against %2"_s.arg(expected.errorCode, actual.errorCode);
    if (expected.errorMessage != actual.errorMessage)
        return u"message '%1' against '%2'"_s.arg(expected.errorMessage, actual.errorMessage);
    if (expected.events.size() != actual.events.size())
        return u"%1 events against %2"_s.arg(expected.events.size()).arg(actual.events.size());
    for (qsizetype index = 0; index < expected.events.size(); ++index) {
        const PublishedEvent &left = expected.events.at(index);
        const PublishedEvent &right = actual.events.at(index);
        const std::array<std::pair<const char *, bool>, 7> same = {{
            {"id", !compareIds || left.id == right.id},
            {"eventType", left.eventType == right.eventType},
            {"subject", left.subject == right.subject},
            {"dataVersion", left.dataVersion == right.dataVersion},
            {"eventTime", left.eventTime == right.eventTime},
            {"body", left.body == right.body},
            {"filterView",
             compare == Compare::WithFilterViews || left.filterView == right.filterView},
        }};
        for (const auto &[field, equal] : same) {
            if (!equal)
                return u"event %1: %2 differs"_s.arg(index).arg(QLatin1StringView(field));
        }
    }
    return {};
}

void checkShape(const PublishParseResult &result)
{
    if (result.isAccepted()) {
        Fuzz::require(!result.events.isEmpty(), "an accepted request has events");
        return;
    }
    Fuzz::require(result.events.isEmpty(), "a rejected request keeps no event");
    Fuzz::require(result.httpStatus == 400 || result.httpStatus == 413,
                  "a rejection is 400 or 413", QString::number(result.httpStatus));
    Fuzz::require(!result.errorCode.isEmpty() && !result.errorMessage.isEmpty(),
                  "a rejection has a code and a message");
}

// The stored bytes of each accepted event against the filter view and the fields read.
void checkStoredBodies(const Topic &topic, const PublishParseResult &built)
{
    for (const PublishedEvent &event : built.events) {
        Fuzz::require(event.body.size() <= EventParser::MaxEventBytes,
                      "a stored event is within the event limit");
        QJsonParseError error;
        const QJsonDocument document = QJsonDocument::fromJson(event.body, &error);
        Fuzz::require(error.error == QJsonParseError::NoError && document.isObject(),
                      "a stored event is one JSON object",
                      error.errorString() + u": "_s + QString::fromUtf8(event.body.left(300)));
        const QJsonObject stored = document.object();
        const auto holds = [&](QLatin1StringView field, const QString &value) {
            Fuzz::require(stored.value(field).toString() == value,
                          "a stored event holds the field it was read with",
                          field + u": "_s + value);
        };
        switch (topic.inputSchema) {
        case EventSchema::EventGrid:
            Fuzz::require(stored == event.filterView, "a stored event equals its filter view",
                          QString::fromUtf8(event.body.left(300)));
            holds("id"_L1, event.id);
            holds("subject"_L1, event.subject);
            holds("eventType"_L1, event.eventType);
            holds("eventTime"_L1, event.eventTime);
            holds("dataVersion"_L1, event.dataVersion);
            holds("topic"_L1, topic.resourcePath());
            holds("metadataVersion"_L1, u"1"_s);
            break;
        case EventSchema::CloudEvents10:
            Fuzz::require(stored == event.filterView, "a stored event equals its filter view",
                          QString::fromUtf8(event.body.left(300)));
            holds("id"_L1, event.id);
            holds("type"_L1, event.eventType);
            break;
        case EventSchema::Custom:
            Fuzz::require(stored == event.filterView.value("data"_L1).toObject(),
                          "a stored custom event equals its filter view's data",
                          QString::fromUtf8(event.body.left(300)));
            break;
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    Fuzz::initialize(argc, argv);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const std::array<Setup, 8> setups = makeSetups();
    if (size < 1)
        return 0;
    const Setup &setup = setups[data[0] % setups.size()];
    const QByteArray body = Fuzz::bytes(data + 1, size - 1);

    const PublishParseResult built
        = EventParser::parse(setup.topic, body, setup.contentType, s_publishTime,
                             EventParser::FilterViews::Build);
    const PublishParseResult scanned = EventParser::parse(
        setup.topic, body, setup.contentType, s_publishTime, EventParser::FilterViews::Skip,
        EventParser::EventReading::Scanner);
    const PublishParseResult reference = EventParser::parse(
        setup.topic, body, setup.contentType, s_publishTime, EventParser::FilterViews::Skip,
        EventParser::EventReading::JsonDocumentOnly);

    const bool compareIds = setup.topic.inputSchema != EventSchema::Custom;
    const QString scannerDifference
        = difference(reference, scanned, Compare::WithoutFilterViews, compareIds);
    Fuzz::require(scannerDifference.isEmpty(),
                  "the scanner and QJsonDocument read a request alike", scannerDifference);
    const QString viewDifference
        = difference(reference, built, Compare::WithFilterViews, compareIds);
    Fuzz::require(viewDifference.isEmpty(),
                  "building filter views does not change the result", viewDifference);

    checkShape(built);
    checkStoredBodies(setup.topic, built);
    return 0;
}
