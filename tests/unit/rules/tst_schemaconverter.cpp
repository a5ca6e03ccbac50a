// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "rules/SchemaConverter.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace EventDesk;
using namespace Qt::StringLiterals;

namespace {

QJsonObject parseObject(const QByteArray &json)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        return QJsonObject();
    return document.object();
}

SchemaConverter::Envelope sampleEnvelope()
{
    SchemaConverter::Envelope envelope;
    envelope.id = u"env-id"_s;
    envelope.eventType = u"Env.Type"_s;
    envelope.subject = u"env/subject"_s;
    envelope.dataVersion = u"3.0"_s;
    envelope.eventTime = u"2020-08-13T17:18:14.026Z"_s;
    envelope.topicPath = u"/subscriptions/x/resourceGroups/rg/topics/orders"_s;
    return envelope;
}

const QByteArray EventGridEvent
    = R"({"id":"e1","topic":"/subscriptions/x/topics/t","subject":"a/b",)"
      R"("eventType":"Order.Created","eventTime":"2020-08-13T17:18:14Z",)"
      R"("data":{"orderId":7,"items":[1,2]},"dataVersion":"1.0","metadataVersion":"1"})";

} // namespace

class TestSchemaConverter final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void s4_isSupported_data();
    void s4_isSupported();
    void s4_sameSchemaIsByteIdentical_data();
    void s4_sameSchemaIsByteIdentical();
    void s4_eventGridToCloudEvents();
    void s4_eventGridToCloudEventsOptionalParts();
    void s3_customToEventGrid();
    void d4_requestBody_data();
    void d4_requestBody();
    void d4_contentType_data();
    void d4_contentType();
    void d4_singleEventGridEventIsAnArray();
};

void TestSchemaConverter::s4_isSupported_data()
{
    QTest::addColumn<EventSchema>("input");
    QTest::addColumn<EventSchema>("delivery");
    QTest::addColumn<bool>("supported");

    QTest::newRow("EventGrid -> EventGrid")
        << EventSchema::EventGrid << EventSchema::EventGrid << true;
    QTest::newRow("EventGrid -> CloudEvents")
        << EventSchema::EventGrid << EventSchema::CloudEvents10 << true;
    QTest::newRow("EventGrid -> Custom") << EventSchema::EventGrid << EventSchema::Custom << false;
    QTest::newRow("CloudEvents -> CloudEvents")
        << EventSchema::CloudEvents10 << EventSchema::CloudEvents10 << true;
    QTest::newRow("CloudEvents -> EventGrid")
        << EventSchema::CloudEvents10 << EventSchema::EventGrid << false;
    QTest::newRow("CloudEvents -> Custom")
        << EventSchema::CloudEvents10 << EventSchema::Custom << false;
    QTest::newRow("Custom -> Custom") << EventSchema::Custom << EventSchema::Custom << true;
    QTest::newRow("Custom -> EventGrid") << EventSchema::Custom << EventSchema::EventGrid << true;
    QTest::newRow("Custom -> CloudEvents")
        << EventSchema::Custom << EventSchema::CloudEvents10 << false;
}

void TestSchemaConverter::s4_isSupported()
{
    QFETCH(EventSchema, input);
    QFETCH(EventSchema, delivery);
    QFETCH(bool, supported);
    QCOMPARE(SchemaConverter::isSupported(input, delivery), supported);
}

void TestSchemaConverter::s4_sameSchemaIsByteIdentical_data()
{
    QTest::addColumn<EventSchema>("schema");
    QTest::newRow("EventGrid") << EventSchema::EventGrid;
    QTest::newRow("CloudEvents") << EventSchema::CloudEvents10;
    QTest::newRow("Custom") << EventSchema::Custom;
}

void TestSchemaConverter::s4_sameSchemaIsByteIdentical()
{
    QFETCH(EventSchema, schema);
    // Deliberately not canonical JSON (spacing, key order): a re-serialisation would change it.
    const QByteArray body = R"({ "z": 1.50,  "a" : {"n": 12345678901234567890} })";
    QCOMPARE(SchemaConverter::convert(body, schema, schema, sampleEnvelope()), body);
}

void TestSchemaConverter::s4_eventGridToCloudEvents()
{
    const QByteArray converted = SchemaConverter::convert(
        EventGridEvent, EventSchema::EventGrid, EventSchema::CloudEvents10, sampleEnvelope());
    const QJsonObject cloudEvent = parseObject(converted);
    const QJsonObject original = parseObject(EventGridEvent);

    QCOMPARE(cloudEvent.value("specversion"_L1).toString(), u"1.0"_s);
    QCOMPARE(cloudEvent.value("id"_L1).toString(), u"e1"_s);
    QCOMPARE(cloudEvent.value("source"_L1).toString(), u"/subscriptions/x/topics/t"_s);
    QCOMPARE(cloudEvent.value("subject"_L1).toString(), u"a/b"_s);
    QCOMPARE(cloudEvent.value("type"_L1).toString(), u"Order.Created"_s);
    QCOMPARE(cloudEvent.value("time"_L1).toString(), u"2020-08-13T17:18:14Z"_s);
    QCOMPARE(cloudEvent.value("data"_L1), original.value("data"_L1));
    QCOMPARE(cloudEvent.value("datacontenttype"_L1).toString(), u"application/json"_s);
    QCOMPARE(cloudEvent.value("dataversion"_L1).toString(), u"1.0"_s);
    // Only CloudEvents attributes: no Event Grid field names left over.
    for (const auto key :
         {"eventType"_L1, "eventTime"_L1, "topic"_L1, "dataVersion"_L1, "metadataVersion"_L1}) {
        QVERIFY2(!cloudEvent.contains(key), key.data());
    }
    QCOMPARE(cloudEvent.size(), 9);
}

void TestSchemaConverter::s4_eventGridToCloudEventsOptionalParts()
{
    // No topic in the event: the envelope's topic path is the source. Empty subject: omitted.
    // No data: neither data nor datacontenttype.
    const QByteArray event = R"({"id":"e2","subject":"","eventType":"T",)"
                             R"("eventTime":"2020-08-13T17:18:14Z","dataVersion":"1"})";
    const QJsonObject cloudEvent = parseObject(SchemaConverter::convert(
        event, EventSchema::EventGrid, EventSchema::CloudEvents10, sampleEnvelope()));
    QCOMPARE(cloudEvent.value("source"_L1).toString(),
             u"/subscriptions/x/resourceGroups/rg/topics/orders"_s);
    QCOMPARE(cloudEvent.value("id"_L1).toString(), u"e2"_s);
    QVERIFY(!cloudEvent.contains("subject"_L1));
    QVERIFY(!cloudEvent.contains("data"_L1));
    QVERIFY(!cloudEvent.contains("datacontenttype"_L1));
    QCOMPARE(cloudEvent.value("specversion"_L1).toString(), u"1.0"_s);

    // data present but null is still data.
    const QJsonObject withNull = parseObject(SchemaConverter::convert(
        R"({"id":"e3","eventType":"T","data":null})", EventSchema::EventGrid,
        EventSchema::CloudEvents10, sampleEnvelope()));
    QVERIFY(withNull.contains("data"_L1));
    QVERIFY(withNull.value("data"_L1).isNull());
}

void TestSchemaConverter::s3_customToEventGrid()
{
    const QByteArray custom = R"({"orderNumber":"A-7","when":"2020-08-13T17:18:14Z","qty":3})";
    const QByteArray converted = SchemaConverter::convert(custom, EventSchema::Custom,
                                                          EventSchema::EventGrid, sampleEnvelope());
    const QJsonObject event = parseObject(converted);

    QCOMPARE(event.value("id"_L1).toString(), u"env-id"_s);
    QCOMPARE(event.value("topic"_L1).toString(),
             u"/subscriptions/x/resourceGroups/rg/topics/orders"_s);
    QCOMPARE(event.value("subject"_L1).toString(), u"env/subject"_s);
    QCOMPARE(event.value("eventType"_L1).toString(), u"Env.Type"_s);
    QCOMPARE(event.value("eventTime"_L1).toString(), u"2020-08-13T17:18:14.026Z"_s);
    QCOMPARE(event.value("dataVersion"_L1).toString(), u"3.0"_s);
    QCOMPARE(event.value("metadataVersion"_L1).toString(), u"1"_s);
    QCOMPARE(event.value("data"_L1).toObject(), parseObject(custom));
    // The original object is spliced in as published.
    QVERIFY(converted.contains(QByteArray("\"data\":" + custom)));
    QCOMPARE(event.size(), 8);

    // Envelope strings are escaped.
    SchemaConverter::Envelope envelope = sampleEnvelope();
    envelope.subject = u"quote \" and \\ backslash"_s;
    const QJsonObject escaped = parseObject(
        SchemaConverter::convert(custom, EventSchema::Custom, EventSchema::EventGrid, envelope));
    QCOMPARE(escaped.value("subject"_L1).toString(), envelope.subject);
}

void TestSchemaConverter::d4_requestBody_data()
{
    QTest::addColumn<QList<QByteArray>>("events");
    QTest::addColumn<EventSchema>("delivery");
    QTest::addColumn<bool>("batching");
    QTest::addColumn<QByteArray>("body");

    const QByteArray first = R"({"id":"1"})";
    const QByteArray second = R"({"id":"2"})";
    QTest::newRow("EventGrid, one event: still an array")
        << QList<QByteArray> {first} << EventSchema::EventGrid << false
        << QByteArray(R"([{"id":"1"}])");
    QTest::newRow("EventGrid, batch") << QList<QByteArray> {first, second} << EventSchema::EventGrid
                                      << true << QByteArray(R"([{"id":"1"},{"id":"2"}])");
    QTest::newRow("Custom, one event: an array") << QList<QByteArray> {first} << EventSchema::Custom
                                                 << false << QByteArray(R"([{"id":"1"}])");
    QTest::newRow("Custom, batch") << QList<QByteArray> {first, second} << EventSchema::Custom
                                   << true << QByteArray(R"([{"id":"1"},{"id":"2"}])");
    QTest::newRow("CloudEvents without batching: the object")
        << QList<QByteArray> {first} << EventSchema::CloudEvents10 << false << first;
    QTest::newRow("CloudEvents batching, one event: an array")
        << QList<QByteArray> {first} << EventSchema::CloudEvents10 << true
        << QByteArray(R"([{"id":"1"}])");
    QTest::newRow("CloudEvents batching, two events")
        << QList<QByteArray> {first, second} << EventSchema::CloudEvents10 << true
        << QByteArray(R"([{"id":"1"},{"id":"2"}])");
    QTest::newRow("bytes are spliced, not re-serialised")
        << QList<QByteArray> {QByteArray("{ \"b\" : 1, \"a\":2 }")} << EventSchema::EventGrid
        << false << QByteArray("[{ \"b\" : 1, \"a\":2 }]");
}

void TestSchemaConverter::d4_requestBody()
{
    QFETCH(QList<QByteArray>, events);
    QFETCH(EventSchema, delivery);
    QFETCH(bool, batching);
    QFETCH(QByteArray, body);
    QCOMPARE(SchemaConverter::requestBody(events, delivery, batching), body);
}

void TestSchemaConverter::d4_contentType_data()
{
    QTest::addColumn<EventSchema>("delivery");
    QTest::addColumn<bool>("batching");
    QTest::addColumn<QByteArray>("contentType");

    QTest::newRow("EventGrid") << EventSchema::EventGrid << false << QByteArray("application/json");
    QTest::newRow("EventGrid batching")
        << EventSchema::EventGrid << true << QByteArray("application/json");
    QTest::newRow("Custom") << EventSchema::Custom << false << QByteArray("application/json");
    QTest::newRow("Custom batching")
        << EventSchema::Custom << true << QByteArray("application/json");
    QTest::newRow("CloudEvents") << EventSchema::CloudEvents10 << false
                                 << QByteArray("application/cloudevents+json; charset=utf-8");
    QTest::newRow("CloudEvents batching")
        << EventSchema::CloudEvents10 << true
        << QByteArray("application/cloudevents-batch+json; charset=utf-8");
}

void TestSchemaConverter::d4_contentType()
{
    QFETCH(EventSchema, delivery);
    QFETCH(bool, batching);
    QFETCH(QByteArray, contentType);
    QCOMPARE(SchemaConverter::contentType(delivery, batching), contentType);
}

void TestSchemaConverter::d4_singleEventGridEventIsAnArray()
{
    const QByteArray converted = SchemaConverter::convert(EventGridEvent, EventSchema::EventGrid,
                                                          EventSchema::EventGrid, sampleEnvelope());
    const QByteArray body
        = SchemaConverter::requestBody({converted}, EventSchema::EventGrid, false);
    const QJsonDocument document = QJsonDocument::fromJson(body);
    QVERIFY(document.isArray());
    QCOMPARE(document.array().size(), 1);
    QCOMPARE(document.array().first().toObject(), parseObject(EventGridEvent));
}

QTEST_GUILESS_MAIN(TestSchemaConverter)
#include "tst_schemaconverter.moc"
