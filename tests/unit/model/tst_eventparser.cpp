// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// Publish request parsing: SPEC §8 (S1 Event Grid, S2 CloudEvents, S3 custom) and §10 limits.

#include "model/EventParser.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>
#include <QUuid>

using namespace Qt::StringLiterals;
using namespace EventDesk;

namespace {

const QString publishTime = u"2024-05-01T10:00:00.0000000Z"_s;

Topic topicWithSchema(EventSchema schema)
{
    Topic topic;
    topic.name = u"orders"_s;
    topic.inputSchema = schema;
    if (schema == EventSchema::Custom) {
        topic.inputSchemaMapping.idSourceField = u"orderId"_s;
        topic.inputSchemaMapping.eventTimeSourceField = u"when"_s;
        topic.inputSchemaMapping.subjectSourceField = u"data.path"_s;
        topic.inputSchemaMapping.subjectDefaultValue = u"/orders"_s;
        topic.inputSchemaMapping.eventTypeSourceField = u"kind"_s;
        topic.inputSchemaMapping.dataVersionDefaultValue = u"2.0"_s;
    }
    return topic;
}

QJsonObject eventGridEvent(int index)
{
    return QJsonObject {
        {"id"_L1, u"id-%1"_s.arg(index)},     {"subject"_L1, u"/orders/%1"_s.arg(index)},
        {"eventType"_L1, u"Order.Created"_s}, {"eventTime"_L1, u"2024-05-01T09:59:59.1234567Z"_s},
        {"dataVersion"_L1, u"1.0"_s},         {"data"_L1, QJsonObject {{"amount"_L1, index * 10}}},
    };
}

QJsonObject cloudEvent(int index)
{
    return QJsonObject {
        {"specversion"_L1, u"1.0"_s},
        {"id"_L1, u"ce-%1"_s.arg(index)},
        {"source"_L1, u"/contoso/orders"_s},
        {"type"_L1, u"com.contoso.order.created"_s},
        {"subject"_L1, u"order-%1"_s.arg(index)},
        {"time"_L1, u"2024-05-01T09:59:59Z"_s},
        {"datacontenttype"_L1, u"application/json"_s},
        {"dataversion"_L1, u"3"_s},
        {"myextension"_L1, u"kept"_s},
        {"data"_L1, QJsonObject {{"n"_L1, index}}},
    };
}

QByteArray json(const QJsonArray &array)
{
    return QJsonDocument(array).toJson();
}

QByteArray json(const QJsonObject &object)
{
    return QJsonDocument(object).toJson();
}

QJsonArray eventGridBatch(int count)
{
    QJsonArray array;
    for (int index = 0; index < count; ++index)
        array.append(eventGridEvent(index));
    return array;
}

QJsonArray withEventField(QJsonArray array, int index, const QString &field,
                          const QJsonValue &value)
{
    QJsonObject event = array.at(index).toObject();
    if (value.isUndefined())
        event.remove(field);
    else
        event.insert(field, value);
    array.replace(index, event);
    return array;
}

PublishParseResult parse(EventSchema schema, const QByteArray &body,
                         const QByteArray &contentType = "application/json")
{
    return EventParser::parse(topicWithSchema(schema), body, contentType, publishTime);
}

} // namespace

class TestEventParser final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void eventGridAccepted_data();
    void eventGridAccepted();
    void eventGridRejected_data();
    void eventGridRejected();
    void dateTimes_data();
    void dateTimes();
    void cloudEventContentTypes_data();
    void cloudEventContentTypes();
    void cloudEventFields();
    void cloudEventRejected_data();
    void cloudEventRejected();
    void customMapping();
    void customDefaultsAndGeneratedId();
    void customRejected_data();
    void customRejected();
    void requestSizeLimit();
    void eventSizeLimit();
    void malformedJson_data();
    void malformedJson();
    void nothingPartial();
    void publishedBytesKept_data();
    void publishedBytesKept();
    void publisherTopicReplaced();
    void publishedBytesHeldWithoutSlack();
};

void TestEventParser::eventGridAccepted_data()
{
    QTest::addColumn<int>("count");
    QTest::newRow("single event") << 1;
    QTest::newRow("batch of 3") << 3;
    QTest::newRow("batch of 500") << 500;
}

void TestEventParser::eventGridAccepted()
{
    // SPEC S1
    QFETCH(int, count);
    const Topic topic = topicWithSchema(EventSchema::EventGrid);
    const PublishParseResult result = EventParser::parse(
        topic, json(eventGridBatch(count)), "application/json; charset=utf-8", publishTime);
    QVERIFY2(result.isAccepted(), qPrintable(result.errorMessage));
    QCOMPARE(result.httpStatus, 200);
    QCOMPARE(result.events.size(), count);
    for (int index = 0; index < count; ++index) {
        const PublishedEvent &event = result.events.at(index);
        QCOMPARE(event.id, u"id-%1"_s.arg(index));
        QCOMPARE(event.subject, u"/orders/%1"_s.arg(index));
        QCOMPARE(event.eventType, u"Order.Created"_s);
        QCOMPARE(event.eventTime, u"2024-05-01T09:59:59.1234567Z"_s);
        QCOMPARE(event.dataVersion, u"1.0"_s);
        QJsonObject expected = eventGridEvent(index);
        expected.insert("topic"_L1, topic.resourcePath());
        expected.insert("metadataVersion"_L1, u"1"_s);
        QCOMPARE(QJsonDocument::fromJson(event.body).object(), expected);
        QVERIFY(!event.body.contains('\n')); // compact
        QCOMPARE(event.filterView, expected);
    }
}

void TestEventParser::eventGridRejected_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QString>("expectedMessage");

    // SPEC §10: the first offending event index and field.
    for (const char *field : {"id", "subject", "eventType", "eventTime", "dataVersion"}) {
        const QString name = QString::fromLatin1(field);
        QTest::addRow("missing %s at 0", field)
            << json(withEventField(eventGridBatch(1), 0, name, QJsonValue(QJsonValue::Undefined)))
            << u"event[0]: required field '%1' is missing"_s.arg(name);
        QTest::addRow("missing %s at 3", field)
            << json(withEventField(
                   withEventField(eventGridBatch(5), 3, name, QJsonValue(QJsonValue::Undefined)), 4,
                   name, QJsonValue(QJsonValue::Undefined)))
            << u"event[3]: required field '%1' is missing"_s.arg(name);
        QTest::addRow("%s number", field) << json(withEventField(eventGridBatch(2), 1, name, 5))
                                          << u"event[1].%1: must be a string (got 5)"_s.arg(name);
        QTest::addRow("%s null", field)
            << json(withEventField(eventGridBatch(1), 0, name, QJsonValue()))
            << u"event[0].%1: must be a string (got null)"_s.arg(name);
    }
    QTest::newRow("empty id") << json(withEventField(eventGridBatch(1), 0, u"id"_s, QString()))
                              << u"event[0].id: must not be empty"_s;
    QTest::newRow("empty eventType")
        << json(withEventField(eventGridBatch(1), 0, u"eventType"_s, QString()))
        << u"event[0].eventType: must not be empty"_s;
    QTest::newRow("eventTime not a date")
        << json(withEventField(eventGridBatch(1), 0, u"eventTime"_s, u"yesterday"_s))
        << u"event[0].eventTime: must be an ISO 8601 date-time string (got \"yesterday\")"_s;
    QTest::newRow("eventTime date only")
        << json(withEventField(eventGridBatch(2), 1, u"eventTime"_s, u"2024-05-01"_s))
        << u"event[1].eventTime: must be an ISO 8601 date-time string (got \"2024-05-01\")"_s;
    QTest::newRow("object instead of array")
        << json(eventGridEvent(0))
        << u"an Event Grid topic takes a JSON array of events (got an object)"_s;
    QTest::newRow("element not an object")
        << QByteArray("[") + QJsonDocument(eventGridEvent(0)).toJson() + ", 5]"
        << u"event[1]: must be a JSON object (got 5)"_s;
    QTest::newRow("element array")
        << QByteArray("[[]]") << u"event[0]: must be a JSON object (got an array)"_s;
    QTest::newRow("empty array") << QByteArray("[]")
                                 << u"the request holds no events (an empty JSON array)"_s;
}

void TestEventParser::eventGridRejected()
{
    QFETCH(QByteArray, body);
    QFETCH(QString, expectedMessage);
    const PublishParseResult result = parse(EventSchema::EventGrid, body);
    QVERIFY(!result.isAccepted());
    QCOMPARE(result.httpStatus, 400);
    QCOMPARE(result.errorCode, u"BadRequest"_s);
    QCOMPARE(result.errorMessage, expectedMessage);
    QVERIFY(result.events.isEmpty());
}

void TestEventParser::dateTimes_data()
{
    QTest::addColumn<QString>("eventTime");
    QTest::addColumn<bool>("accepted");
    QTest::newRow(".NET 7 digits") << u"2020-08-13T17:18:14.0265758Z"_s << true;
    QTest::newRow("JavaScript 3 digits") << u"2020-08-13T17:18:14.026Z"_s << true;
    QTest::newRow("Python offset") << u"2020-08-13T17:18:14.026575+00:00"_s << true;
    QTest::newRow("negative offset") << u"2020-08-13T17:18:14-05:30"_s << true;
    QTest::newRow("basic offset") << u"2020-08-13T17:18:14+0530"_s << true;
    QTest::newRow("no seconds") << u"2020-08-13T17:18Z"_s << true;
    QTest::newRow("no offset") << u"2020-08-13T17:18:14"_s << true;
    QTest::newRow("lower-case t and z") << u"2020-08-13t17:18:14z"_s << true;
    QTest::newRow("leap second") << u"2016-12-31T23:59:60Z"_s << true;
    QTest::newRow("leap day") << u"2024-02-29T00:00:00Z"_s << true;
    QTest::newRow("offset hours only") << u"2020-08-13T17:18:14+05"_s << true;
    QTest::newRow("space separator") << u"2020-08-13 17:18:14Z"_s << true;
    QTest::newRow("comma fraction") << u"2020-08-13T17:18:14,5Z"_s << true;
    QTest::newRow("offset minute 60") << u"2020-08-13T17:18:14+05:60"_s << false;
    QTest::newRow("offset 3 digits") << u"2020-08-13T17:18:14+053"_s << false;
    QTest::newRow("fraction without seconds") << u"2020-08-13T17:18.5Z"_s << false;
    QTest::newRow("second 61") << u"2020-08-13T17:18:61Z"_s << false;
    QTest::newRow("non-ASCII digits") << u"\u0662\u0660\u0662\u0660-08-13T17:18:14Z"_s << false;
    QTest::newRow("two-digit year") << u"20-08-13T17:18:14Z"_s << false;
    QTest::newRow("empty") << QString() << false;
    QTest::newRow("date only") << u"2020-08-13"_s << false;
    QTest::newRow("not leap day") << u"2023-02-29T00:00:00Z"_s << false;
    QTest::newRow("month 13") << u"2020-13-01T00:00:00Z"_s << false;
    QTest::newRow("hour 24") << u"2020-08-13T24:00:00Z"_s << false;
    QTest::newRow("minute 60") << u"2020-08-13T23:60:00Z"_s << false;
    QTest::newRow("offset 24") << u"2020-08-13T17:18:14+24:00"_s << false;
    QTest::newRow("empty fraction") << u"2020-08-13T17:18:14.Z"_s << false;
    QTest::newRow("european") << u"13/08/2020 17:18"_s << false;
    QTest::newRow("trailing text") << u"2020-08-13T17:18:14Z and more"_s << false;
}

void TestEventParser::dateTimes()
{
    QFETCH(QString, eventTime);
    QFETCH(bool, accepted);
    const PublishParseResult eventGrid
        = parse(EventSchema::EventGrid,
                json(withEventField(eventGridBatch(1), 0, u"eventTime"_s, eventTime)));
    QCOMPARE(eventGrid.isAccepted(), accepted);
    const PublishParseResult cloud
        = parse(EventSchema::CloudEvents10,
                json(withEventField(QJsonArray {cloudEvent(0)}, 0, u"time"_s, eventTime)));
    QCOMPARE(cloud.isAccepted(), accepted);
    if (!accepted) {
        QCOMPARE(
            cloud.errorMessage,
            u"event[0].time: must be an RFC 3339 date-time string (got \"%1\")"_s.arg(eventTime));
    }
}

void TestEventParser::cloudEventContentTypes_data()
{
    QTest::addColumn<QByteArray>("contentType");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<int>("expectedCount"); // 0: rejected with expectedMessage
    QTest::addColumn<QString>("expectedMessage");

    const QByteArray single = json(cloudEvent(0));
    const QByteArray batch = json(QJsonArray {cloudEvent(0), cloudEvent(1)});
    const QString singleRule
        = u"Content-Type application/cloudevents+json takes one CloudEvent "
          u"object (send a batch as application/cloudevents-batch+json) (got an array)"_s;
    const QString batchRule = u"Content-Type application/cloudevents-batch+json takes a JSON array "
                              u"of CloudEvents (got an object)"_s;
    // docs/eventdeskd.md "Topic endpoint", SPEC S2
    QTest::newRow("structured single")
        << QByteArray("application/cloudevents+json") << single << 1 << QString();
    QTest::newRow("structured with charset")
        << QByteArray("application/cloudevents+json; charset=utf-8") << single << 1 << QString();
    QTest::newRow("structured upper case")
        << QByteArray("Application/CloudEvents+JSON") << single << 1 << QString();
    QTest::newRow("structured with array")
        << QByteArray("application/cloudevents+json") << batch << 0 << singleRule;
    QTest::newRow("batch") << QByteArray("application/cloudevents-batch+json; charset=utf-8")
                           << batch << 2 << QString();
    QTest::newRow("batch with object")
        << QByteArray("application/cloudevents-batch+json") << single << 0 << batchRule;
    QTest::newRow("batch empty") << QByteArray("application/cloudevents-batch+json")
                                 << QByteArray("[]") << 0
                                 << u"the request holds no events (an empty JSON array)"_s;
    QTest::newRow("json object") << QByteArray("application/json") << single << 1 << QString();
    QTest::newRow("json array") << QByteArray("application/json; charset=utf-8") << batch << 2
                                << QString();
    QTest::newRow("no content type object") << QByteArray() << single << 1 << QString();
    QTest::newRow("no content type array") << QByteArray() << batch << 2 << QString();
}

void TestEventParser::cloudEventContentTypes()
{
    QFETCH(QByteArray, contentType);
    QFETCH(QByteArray, body);
    QFETCH(int, expectedCount);
    QFETCH(QString, expectedMessage);
    const PublishParseResult result = parse(EventSchema::CloudEvents10, body, contentType);
    if (expectedCount == 0) {
        QCOMPARE(result.httpStatus, 400);
        QCOMPARE(result.errorCode, u"BadRequest"_s);
        QCOMPARE(result.errorMessage, expectedMessage);
        QVERIFY(result.events.isEmpty());
    } else {
        QVERIFY2(result.isAccepted(), qPrintable(result.errorMessage));
        QCOMPARE(result.events.size(), expectedCount);
    }
}

void TestEventParser::cloudEventFields()
{
    // SPEC S2: attributes and extensions preserved as published.
    const QJsonObject published = cloudEvent(7);
    const PublishParseResult result
        = parse(EventSchema::CloudEvents10, json(published), "application/cloudevents+json");
    QVERIFY2(result.isAccepted(), qPrintable(result.errorMessage));
    const PublishedEvent &event = result.events.front();
    QCOMPARE(event.id, u"ce-7"_s);
    QCOMPARE(event.eventType, u"com.contoso.order.created"_s);
    QCOMPARE(event.subject, u"order-7"_s);
    QCOMPARE(event.dataVersion, u"3"_s);
    QCOMPARE(event.eventTime, u"2024-05-01T09:59:59Z"_s);
    QCOMPARE(QJsonDocument::fromJson(event.body).object(), published);
    QCOMPARE(event.filterView, published);

    // Optional attributes absent: empty fields, still accepted.
    QJsonObject minimal {{"specversion"_L1, u"1.0"_s},
                         {"id"_L1, u"1"_s},
                         {"source"_L1, u"s"_s},
                         {"type"_L1, u"t"_s},
                         {"data_base64"_L1, u"AAEC"_s}};
    const PublishParseResult bare = parse(EventSchema::CloudEvents10, json(minimal));
    QVERIFY2(bare.isAccepted(), qPrintable(bare.errorMessage));
    QVERIFY(bare.events.front().subject.isEmpty());
    QVERIFY(bare.events.front().dataVersion.isEmpty());
    QVERIFY(bare.events.front().eventTime.isEmpty());
    QCOMPARE(QJsonDocument::fromJson(bare.events.front().body).object(), minimal);

    // CloudEvents JSON format: an optional attribute set to null counts as absent.
    minimal.insert("time"_L1, QJsonValue());
    minimal.insert("subject"_L1, QJsonValue());
    const PublishParseResult nulls = parse(EventSchema::CloudEvents10, json(minimal));
    QVERIFY2(nulls.isAccepted(), qPrintable(nulls.errorMessage));
    QVERIFY(nulls.events.front().eventTime.isEmpty());
}

void TestEventParser::cloudEventRejected_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QString>("expectedMessage");

    const QJsonArray batch {cloudEvent(0), cloudEvent(1), cloudEvent(2)};
    for (const char *attribute : {"specversion", "id", "source", "type"}) {
        const QString name = QString::fromLatin1(attribute);
        QTest::addRow("missing %s", attribute)
            << json(withEventField(batch, 2, name, QJsonValue(QJsonValue::Undefined)))
            << u"event[2]: required attribute '%1' is missing"_s.arg(name);
        QTest::addRow("%s number", attribute)
            << json(withEventField(batch, 1, name, 1))
            << u"event[1].%1: must be a string (got 1)"_s.arg(name);
    }
    QTest::newRow("specversion 0.3") << json(withEventField(batch, 0, u"specversion"_s, u"0.3"_s))
                                     << u"event[0].specversion: must be \"1.0\" (got \"0.3\")"_s;
    QTest::newRow("empty source") << json(withEventField(batch, 0, u"source"_s, QString()))
                                  << u"event[0].source: must not be empty"_s;
    QTest::newRow("subject number") << json(withEventField(batch, 1, u"subject"_s, 3))
                                    << u"event[1].subject: must be a string (got 3)"_s;
    QTest::newRow("dataversion bool") << json(withEventField(batch, 0, u"dataversion"_s, true))
                                      << u"event[0].dataversion: must be a string (got true)"_s;
    QTest::newRow("time number") << json(withEventField(batch, 0, u"time"_s, 12))
                                 << u"event[0].time: must be a string (got 12)"_s;
    QTest::newRow("data and data_base64")
        << json(withEventField(batch, 1, u"data_base64"_s, u"AA=="_s))
        << u"event[1]: must not have both 'data' and 'data_base64'"_s;
}

void TestEventParser::cloudEventRejected()
{
    QFETCH(QByteArray, body);
    QFETCH(QString, expectedMessage);
    const PublishParseResult result
        = parse(EventSchema::CloudEvents10, body, "application/cloudevents-batch+json");
    QCOMPARE(result.httpStatus, 400);
    QCOMPARE(result.errorCode, u"BadRequest"_s);
    QCOMPARE(result.errorMessage, expectedMessage);
    QVERIFY(result.events.isEmpty());
}

void TestEventParser::customMapping()
{
    // SPEC S3: fields come from the mapping; dotted source fields walk nested objects.
    const Topic topic = topicWithSchema(EventSchema::Custom);
    const QJsonObject published {{"orderId"_L1, u"o-1"_s},
                                 {"when"_L1, u"2024-04-30T08:00:00+02:00"_s},
                                 {"kind"_L1, u"Order.Shipped"_s},
                                 {"data"_L1, QJsonObject {{"path"_L1, u"/orders/o-1"_s}}},
                                 {"amount"_L1, 12.5}};
    const PublishParseResult result
        = EventParser::parse(topic, json(published), "application/json", publishTime);
    QVERIFY2(result.isAccepted(), qPrintable(result.errorMessage));
    QCOMPARE(result.events.size(), 1);
    const PublishedEvent &event = result.events.front();
    QCOMPARE(event.id, u"o-1"_s);
    QCOMPARE(event.eventTime, u"2024-04-30T08:00:00+02:00"_s);
    QCOMPARE(event.subject, u"/orders/o-1"_s);
    QCOMPARE(event.eventType, u"Order.Shipped"_s);
    QCOMPARE(event.dataVersion, u"2.0"_s); // defaultValue
    QCOMPARE(QJsonDocument::fromJson(event.body).object(), published); // as published
    // The filter view is the Event Grid envelope with the original as data.
    const QJsonObject envelope {{"id"_L1, u"o-1"_s},
                                {"topic"_L1, topic.resourcePath()},
                                {"subject"_L1, u"/orders/o-1"_s},
                                {"eventType"_L1, u"Order.Shipped"_s},
                                {"dataVersion"_L1, u"2.0"_s},
                                {"eventTime"_L1, u"2024-04-30T08:00:00+02:00"_s},
                                {"data"_L1, published}};
    QCOMPARE(event.filterView, envelope);

    // A literal key containing a dot wins over the dotted walk.
    Topic literal = topic;
    literal.inputSchemaMapping.eventTypeSourceField = u"meta.type"_s;
    const PublishParseResult dotted = EventParser::parse(
        literal, R"({"meta.type":"Literal","meta":{"type":"Nested"}})", QByteArray(), publishTime);
    QVERIFY2(dotted.isAccepted(), qPrintable(dotted.errorMessage));
    QCOMPARE(dotted.events.front().eventType, u"Literal"_s);
}

void TestEventParser::customDefaultsAndGeneratedId()
{
    const Topic topic = topicWithSchema(EventSchema::Custom);
    const QJsonArray batch {QJsonObject {{"kind"_L1, u"A"_s}},
                            QJsonObject {{"kind"_L1, u"B"_s}, {"orderId"_L1, QJsonValue()}}};
    const PublishParseResult result
        = EventParser::parse(topic, json(batch), "application/json", publishTime);
    QVERIFY2(result.isAccepted(), qPrintable(result.errorMessage));
    QCOMPARE(result.events.size(), 2);
    for (const PublishedEvent &event : result.events) {
        // Generated: a UUID without braces, different per event.
        QVERIFY(!event.id.startsWith(u'{'));
        QVERIFY(!QUuid::fromString(event.id).isNull());
        QCOMPARE(event.eventTime, publishTime);
        QCOMPARE(event.subject, u"/orders"_s);
        QCOMPARE(event.dataVersion, u"2.0"_s);
    }
    QVERIFY(result.events.at(0).id != result.events.at(1).id);
    QCOMPARE(result.events.at(1).eventType, u"B"_s);
    QCOMPARE(result.events.at(0).filterView.value("id"_L1).toString(), result.events.at(0).id);

    // Nothing mapped but the required defaults.
    Topic defaultsOnly;
    defaultsOnly.name = u"plain"_s;
    defaultsOnly.inputSchema = EventSchema::Custom;
    defaultsOnly.inputSchemaMapping.eventTypeDefaultValue = u"Default.Type"_s;
    defaultsOnly.inputSchemaMapping.dataVersionDefaultValue = u"1"_s;
    const PublishParseResult plain
        = EventParser::parse(defaultsOnly, R"({"x":1})", QByteArray(), publishTime);
    QVERIFY2(plain.isAccepted(), qPrintable(plain.errorMessage));
    QCOMPARE(plain.events.front().eventType, u"Default.Type"_s);
    QCOMPARE(plain.events.front().subject, QString());
}

void TestEventParser::customRejected_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QString>("expectedMessage");

    QTest::newRow("missing eventType, no default")
        << QByteArray(R"([{"kind":"A"},{"kind":"B"},{"other":1}])")
        << u"event[2]: required field 'eventType' is missing (mapped from 'kind', which has no defaultValue)"_s;
    QTest::newRow("eventType not a string")
        << QByteArray(R"({"kind":5})")
        << u"event[0].kind: must be a string to be used as eventType (got 5)"_s;
    QTest::newRow("id not a string")
        << QByteArray(R"({"kind":"A","orderId":42})")
        << u"event[0].orderId: must be a string to be used as id (got 42)"_s;
    QTest::newRow("subject not a string")
        << QByteArray(R"({"kind":"A","data":{"path":[]}})")
        << u"event[0].data.path: must be a string to be used as subject (got an array)"_s;
    QTest::newRow("eventTime not a date")
        << QByteArray(R"({"kind":"A","when":"soon"})")
        << u"event[0].when: must be an ISO 8601 date-time string to be used as eventTime (got \"soon\")"_s;
    QTest::newRow("array of strings")
        << QByteArray(R"(["a"])") << u"event[0]: must be a JSON object (got \"a\")"_s;
    QTest::newRow("empty array") << QByteArray("[]")
                                 << u"the request holds no events (an empty JSON array)"_s;
}

void TestEventParser::customRejected()
{
    QFETCH(QByteArray, body);
    QFETCH(QString, expectedMessage);
    Topic topic = topicWithSchema(EventSchema::Custom);
    topic.inputSchemaMapping.eventTypeDefaultValue.clear();
    const PublishParseResult result
        = EventParser::parse(topic, body, "application/json", publishTime);
    QCOMPARE(result.httpStatus, 400);
    QCOMPARE(result.errorCode, u"BadRequest"_s);
    QCOMPARE(result.errorMessage, expectedMessage);
    QVERIFY(result.events.isEmpty());
}

void TestEventParser::requestSizeLimit()
{
    // SPEC §10: 1 MB (1,048,576 bytes) per request, whatever the schema.
    QByteArray atLimit = QJsonDocument(eventGridBatch(1)).toJson(QJsonDocument::Compact);
    atLimit.append(QByteArray(EventParser::MaxRequestBytes - atLimit.size(), ' '));
    QCOMPARE(atLimit.size(), 1048576);
    const PublishParseResult accepted = parse(EventSchema::EventGrid, atLimit);
    QVERIFY2(accepted.isAccepted(), qPrintable(accepted.errorMessage));

    const QByteArray overLimit = atLimit + ' ';
    for (const EventSchema schema :
         {EventSchema::EventGrid, EventSchema::CloudEvents10, EventSchema::Custom}) {
        const PublishParseResult rejected = parse(schema, overLimit);
        QCOMPARE(rejected.httpStatus, 413);
        QCOMPARE(rejected.errorCode, u"PayloadTooLarge"_s);
        QCOMPARE(
            rejected.errorMessage,
            u"the request body is 1048577 bytes; a publish request is limited to 1 MB (1048576 bytes)"_s);
        QVERIFY(rejected.events.isEmpty());
    }
}

void TestEventParser::eventSizeLimit()
{
    // SPEC §10: each event at most 1 MB. An Event Grid event within a 1 MB request can still
    // exceed it once "topic" and "metadataVersion" are filled in (S1).
    // A minimal event 0, so that nearly the whole request is event 1.
    const QJsonObject small {{"id"_L1, u"a"_s},
                             {"subject"_L1, QString()},
                             {"eventType"_L1, u"t"_s},
                             {"eventTime"_L1, u"2024-05-01T00:00Z"_s},
                             {"dataVersion"_L1, QString()}};
    QJsonObject large = eventGridEvent(1);
    const auto requestFor = [&](qsizetype padding) {
        large.insert("data"_L1, QString(padding, u'x'));
        return QJsonDocument(QJsonArray {small, large}).toJson(QJsonDocument::Compact);
    };
    const qsizetype overhead = requestFor(0).size();
    const QByteArray body = requestFor(EventParser::MaxRequestBytes - overhead - 10);
    QVERIFY(body.size() <= EventParser::MaxRequestBytes);
    const PublishParseResult result = parse(EventSchema::EventGrid, body);
    QCOMPARE(result.httpStatus, 413);
    QCOMPARE(result.errorCode, u"PayloadTooLarge"_s);
    QVERIFY2(result.errorMessage.startsWith(u"event[1] is "_s), qPrintable(result.errorMessage));
    QVERIFY2(
        result.errorMessage.endsWith(u" bytes; each event is limited to 1 MB (1048576 bytes)"_s),
        qPrintable(result.errorMessage));
    QVERIFY(result.events.isEmpty());

    // The same event with room for the added fields is accepted.
    const QByteArray fits = requestFor(EventParser::MaxRequestBytes - overhead - 400);
    const PublishParseResult accepted = parse(EventSchema::EventGrid, fits);
    QVERIFY2(accepted.isAccepted(), qPrintable(accepted.errorMessage));
    QVERIFY(accepted.events.at(1).body.size() <= EventParser::MaxEventBytes);

    // A custom event is kept in its published bytes, so it cannot outgrow the request it came
    // in ("1E5" is not rewritten as "100000", which would take it past 1 MB).
    QByteArray numbers = "{\"kind\":\"A\",\"n\":[";
    while (numbers.size() < EventParser::MaxRequestBytes - 8)
        numbers += "1E5,";
    numbers += "1]}";
    QVERIFY(numbers.size() <= EventParser::MaxRequestBytes);
    const PublishParseResult kept = parse(EventSchema::Custom, numbers);
    QVERIFY2(kept.isAccepted(), qPrintable(kept.errorMessage));
    QCOMPARE(kept.events.front().body, numbers);
}

void TestEventParser::malformedJson_data()
{
    QTest::addColumn<int>("schema");
    QTest::addColumn<QByteArray>("body");
    for (const EventSchema schema :
         {EventSchema::EventGrid, EventSchema::CloudEvents10, EventSchema::Custom}) {
        const QByteArray name = eventSchemaName(schema).toLatin1();
        QTest::addRow("%s truncated", name.constData())
            << int(schema) << QByteArray(R"([{"id":"1",)");
        QTest::addRow("%s trailing comma", name.constData())
            << int(schema) << QByteArray(R"([{"id":"1"},])");
        QTest::addRow("%s empty body", name.constData()) << int(schema) << QByteArray();
        QTest::addRow("%s scalar", name.constData()) << int(schema) << QByteArray("42");
        QTest::addRow("%s binary", name.constData())
            << int(schema) << QByteArray("\x00\xff\xfe", 3);
        // Arrays are first split and their elements parsed one by one; what that path does not
        // accept gets the whole document's answer, whatever it found first. The events here are
        // valid, so that only the array around them is wrong.
        const QByteArray event = json(schema == EventSchema::CloudEvents10 ? cloudEvent(1) : eventGridEvent(1));
        QTest::addRow("%s text after the array", name.constData())
            << int(schema) << QByteArray('[' + event + "] x");
        QTest::addRow("%s second array", name.constData())
            << int(schema) << QByteArray('[' + event + "][]");
        QTest::addRow("%s missing comma", name.constData())
            << int(schema) << QByteArray('[' + event + ' ' + event + ']');
        QTest::addRow("%s trailing comma after valid events", name.constData())
            << int(schema) << QByteArray('[' + event + ',' + event + ",]");
        QTest::addRow("%s no closing bracket", name.constData())
            << int(schema) << QByteArray('[' + event + ',' + event);
        QTest::addRow("%s crossed brackets", name.constData())
            << int(schema) << QByteArray(R"([{"id":"1"]})");
        QTest::addRow("%s unterminated string", name.constData())
            << int(schema) << QByteArray(R"([{"id":"1}])");
        QTest::addRow("%s incomplete event before a broken one", name.constData())
            << int(schema) << QByteArray(R"([{"id":"1"},{"id":"2",}])");
        // Whitespace between two parts of one literal is two tokens, not one: the array splitter
        // drops whitespace between tokens, and once read `12` and `true` here (an event accepted
        // with a value it was not sent with).
        const QByteArray head = event.trimmed().chopped(1); // without the closing brace
        const std::pair<const char *, const char *> splitLiterals[] = {
            {"number", "1 2"},  {"minus", "- 1"},      {"fraction", "1 .5"},
            {"exponent", "1 e5"}, {"true", "tr ue"},   {"null", "nu\tll"},
            {"in an array", "[1, 2 3]"}, {"in an object", "{\"n\":4\n2}"},
        };
        for (const auto &[label, value] : splitLiterals) {
            const QByteArray literal(value);
            QTest::addRow("%s space inside a literal: %s", name.constData(), label)
                << int(schema) << QByteArray('[' + head + R"(,"extra":)" + literal + "}]");
        }
    }
}

void TestEventParser::malformedJson()
{
    QFETCH(int, schema);
    QFETCH(QByteArray, body);
    QJsonParseError parseError;
    QJsonDocument::fromJson(body, &parseError);
    QVERIFY(parseError.error != QJsonParseError::NoError);
    // Both ways of reading events: with filter views (a QJsonDocument per event) and without
    // (EventScanner where it can).
    for (const auto filterViews : {EventParser::FilterViews::Build, EventParser::FilterViews::Skip}) {
        const PublishParseResult result = EventParser::parse(
            topicWithSchema(EventSchema(schema)), body, "application/json", publishTime, filterViews);
        QCOMPARE(result.httpStatus, 400);
        QCOMPARE(result.errorCode, u"BadRequest"_s);
        QCOMPARE(result.errorMessage,
                 u"the request body is not valid JSON at offset %1: %2"_s.arg(parseError.offset)
                     .arg(parseError.errorString()));
    }
}

void TestEventParser::nothingPartial()
{
    // SPEC §10: one bad event rejects the whole request; nothing from it is returned.
    const QJsonArray batch
        = withEventField(eventGridBatch(10), 7, u"subject"_s, QJsonValue(QJsonValue::Undefined));
    const PublishParseResult result = parse(EventSchema::EventGrid, json(batch));
    QVERIFY(!result.isAccepted());
    QCOMPARE(result.errorMessage, u"event[7]: required field 'subject' is missing"_s);
    QVERIFY(result.events.isEmpty());
}

void TestEventParser::publishedBytesKept_data()
{
    QTest::addColumn<int>("schema");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QByteArray>("contentType");
    QTest::addColumn<QByteArrayList>("expectedBodies"); // Event Grid: before the engine's fields

    // Whitespace between tokens goes; whitespace, escapes and brackets inside strings stay; an
    // integer beyond 2^53 and the publisher's key order survive (a QJsonValue round trip would
    // turn the integer into a double and sort the keys).
    const QByteArray eventGrid = "\xEF\xBB\xBF [\r\n"
        "  { \"subject\" : \"/a b\",\t\"id\": \"e-1\", \"eventType\":\"T\",\n"
        "    \"eventTime\": \"2024-05-01T09:59:59Z\", \"dataVersion\": \"1\",\n"
        "    \"data\": { \"big\": 123456789012345678901, \"text\": \"say \\\"[hi, {you}]\\\" \\\\\",\n"
        "              \"list\": [ 1 , -2.5e3, true, null, [ ], { } ] } } ,\n"
        "  {\"id\":\"e-2\",\"subject\":\"\",\"eventType\":\"T\",\"eventTime\":\"2024-05-01T09:59:59Z\","
        "\"dataVersion\":\"1\"}\n]\n";
    QTest::newRow("Event Grid") << int(EventSchema::EventGrid) << eventGrid
                                << QByteArray("application/json")
                                << QByteArrayList {
                                       "{\"subject\":\"/a b\",\"id\":\"e-1\",\"eventType\":\"T\","
                                       "\"eventTime\":\"2024-05-01T09:59:59Z\",\"dataVersion\":\"1\","
                                       "\"data\":{\"big\":123456789012345678901,\"text\":\"say "
                                       "\\\"[hi, {you}]\\\" \\\\\",\"list\":[1,-2.5e3,true,null,[],{}]}}",
                                       "{\"id\":\"e-2\",\"subject\":\"\",\"eventType\":\"T\","
                                       "\"eventTime\":\"2024-05-01T09:59:59Z\",\"dataVersion\":\"1\"}",
                                   };
    QTest::newRow("CloudEvent, structured") << int(EventSchema::CloudEvents10)
        << QByteArray("{ \"type\": \"t\", \"specversion\": \"1.0\", \"source\": \"/s\", \"id\": \"c 1\" }")
        << QByteArray("application/cloudevents+json")
        << QByteArrayList {"{\"type\":\"t\",\"specversion\":\"1.0\",\"source\":\"/s\",\"id\":\"c 1\"}"};
    QTest::newRow("custom") << int(EventSchema::Custom)
        << QByteArray("[ {\"kind\" : \"K\", \"n\": 9007199254740993 } ]") << QByteArray("application/json")
        << QByteArrayList {"{\"kind\":\"K\",\"n\":9007199254740993}"};
}

void TestEventParser::publishedBytesKept()
{
    QFETCH(int, schema);
    QFETCH(QByteArray, body);
    QFETCH(QByteArray, contentType);
    QFETCH(QByteArrayList, expectedBodies);
    const Topic topic = topicWithSchema(EventSchema(schema));
    const PublishParseResult result = EventParser::parse(topic, body, contentType, publishTime);
    QVERIFY2(result.isAccepted(), qPrintable(result.errorMessage));
    QCOMPARE(result.events.size(), expectedBodies.size());
    for (qsizetype index = 0; index < expectedBodies.size(); ++index) {
        QByteArray expected = expectedBodies.at(index);
        if (EventSchema(schema) == EventSchema::EventGrid) {
            // SPEC S1: the engine's two fields follow the publisher's.
            expected.chop(1);
            expected += ",\"metadataVersion\":\"1\",\"topic\":\"" + topic.resourcePath().toUtf8() + "\"}";
        }
        QCOMPARE(result.events.at(index).body, expected);
        QJsonParseError error;
        QJsonDocument::fromJson(result.events.at(index).body, &error);
        QCOMPARE(error.error, QJsonParseError::NoError);
        QVERIFY(!result.events.at(index).filterView.isEmpty());
    }

    // Without filter views (no advanced filters on the topic) the bytes are the same.
    const PublishParseResult lean = EventParser::parse(topic, body, contentType, publishTime,
                                                       EventParser::FilterViews::Skip);
    QVERIFY2(lean.isAccepted(), qPrintable(lean.errorMessage));
    QCOMPARE(lean.events.size(), result.events.size());
    for (qsizetype index = 0; index < lean.events.size(); ++index) {
        QCOMPARE(lean.events.at(index).body, result.events.at(index).body);
        QVERIFY(lean.events.at(index).filterView.isEmpty());
    }
}

// Events stay in memory until they are delivered: each event's bytes are kept in a buffer of
// their own size (a buffer sized for scanning held 4 KB per 1 KB event).
void TestEventParser::publishedBytesHeldWithoutSlack()
{
    const QString padding(1000, u'x');
    QJsonArray eventGrid;
    QJsonArray cloud;
    for (int index = 0; index < 50; ++index) {
        eventGrid.append(withEventField(eventGridBatch(1), 0, u"data"_s, padding).at(0));
        QJsonObject event = cloudEvent(index);
        event.insert(u"data"_s, padding);
        cloud.append(event);
    }
    for (const auto &[schema, body] : {std::pair {EventSchema::EventGrid, json(eventGrid)},
                                       std::pair {EventSchema::CloudEvents10, json(cloud)}}) {
        const PublishParseResult result = parse(schema, body);
        QVERIFY2(result.isAccepted(), qPrintable(result.errorMessage));
        QCOMPARE(result.events.size(), 50);
        for (const PublishedEvent &event : result.events) {
            QVERIFY(event.body.size() > 1000);
            QVERIFY2(event.body.capacity() - event.body.size() < 64,
                     qPrintable(u"%1 bytes held for %2"_s.arg(event.body.capacity()).arg(event.body.size())));
        }
    }
}

void TestEventParser::publisherTopicReplaced()
{
    // SPEC S1: topic and metadataVersion are the engine's, even when the publisher sent them.
    const Topic topic = topicWithSchema(EventSchema::EventGrid);
    const QByteArray body = R"([{"id":"1","subject":"s","eventType":"T","eventTime":"2024-05-01T09:59:59Z",)"
                            R"("dataVersion":"1","topic":"/somewhere/else","metadataVersion":"7"}])";
    const PublishParseResult result = parse(EventSchema::EventGrid, body);
    QVERIFY2(result.isAccepted(), qPrintable(result.errorMessage));
    const QByteArray stored = result.events.front().body;
    QCOMPARE(stored.count("\"topic\""), 1);
    QCOMPARE(stored.count("\"metadataVersion\""), 1);
    const QJsonObject object = QJsonDocument::fromJson(stored).object();
    QCOMPARE(object.value("topic"_L1).toString(), topic.resourcePath());
    QCOMPARE(object.value("metadataVersion"_L1).toString(), u"1"_s);
}

QTEST_GUILESS_MAIN(TestEventParser)
#include "tst_eventparser.moc"
