// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "rules/DeadLetterFormatter.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTest>

using namespace EventDesk;
using namespace Qt::StringLiterals;

namespace {

constexpr qint64 PublishMs = 1597339094026; // 2020-08-13T17:18:14.026Z
constexpr qint64 LastAttemptMs = 1597339154500; // one minute later, 500 ms

QJsonObject parseObject(const QByteArray &json)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        return QJsonObject();
    return document.object();
}

DeadLetterInput eventGridInput()
{
    DeadLetterInput input;
    input.deliveredBody = R"({"id":"e1","topic":"/t","subject":"s","eventType":"T","eventTime":)"
                          R"("2020-08-13T17:18:14Z","data":{"n":12345678901234567},)"
                          R"("dataVersion":"1","metadataVersion":"1"})";
    input.deliverySchema = EventSchema::EventGrid;
    input.reason = DeadLetterReason::MaxDeliveryAttemptsExceeded;
    input.deliveryAttempts = 30;
    input.lastDeliveryOutcome = DeliveryOutcome::GenericError;
    input.lastHttpStatusCode = 500;
    input.publishTimeMs = PublishMs;
    input.lastDeliveryAttemptTimeMs = LastAttemptMs;
    return input;
}

} // namespace

class TestDeadLetterFormatter final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void l7_formatTime_data();
    void l7_formatTime();
    void l6_blobName_data();
    void l6_blobName();
    void l6_blobBody();
    void l7_fieldsPerSchema_data();
    void l7_fieldsPerSchema();
    void l7_eventGridKeepsEventBytes();
    void l7_lastHttpStatusOnlyWithResponse();
    void l7_probationRecord();
    void l7_cloudEventsRecord();
    void l7_customRecordEnvelope();
    void l7_emptyObject();
};

void TestDeadLetterFormatter::initTestCase()
{
    // Times are UTC whatever the machine's zone: run in a zone far from UTC.
    qputenv("TZ", "Pacific/Kiritimati"); // UTC+14
}

void TestDeadLetterFormatter::l7_formatTime_data()
{
    QTest::addColumn<qint64>("msSinceEpoch");
    QTest::addColumn<QString>("text");

    QTest::newRow("epoch") << qint64(0) << u"1970-01-01T00:00:00.0000000Z"_s;
    QTest::newRow("spec example, ms precision") << PublishMs << u"2020-08-13T17:18:14.0260000Z"_s;
    QTest::newRow("last ms of a year")
        << qint64(1609459199999) << u"2020-12-31T23:59:59.9990000Z"_s;
    QTest::newRow("123 ms") << qint64(1234567890123) << u"2009-02-13T23:31:30.1230000Z"_s;
}

void TestDeadLetterFormatter::l7_formatTime()
{
    QFETCH(qint64, msSinceEpoch);
    QFETCH(QString, text);
    const QString formatted = DeadLetterFormatter::formatTime(msSinceEpoch);
    QCOMPARE(formatted, text);
    static const QRegularExpression shape(
        u"^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{7}Z$"_s);
    QVERIFY2(shape.match(formatted).hasMatch(), qPrintable(formatted));
}

void TestDeadLetterFormatter::l6_blobName_data()
{
    QTest::addColumn<QString>("subscription");
    QTest::addColumn<qint64>("writeTimeMs");
    QTest::addColumn<QString>("expected");

    const QString uuid = u"0f8fad5b-d9cb-469f-a165-70867728950e"_s;
    QTest::newRow("spec example: not zero-padded")
        << u"my-Sub-1"_s << qint64(1565240580000) // 2019-08-08T05:03:00Z
        << u"MY-SUB-1/2019/8/8/5/"_s + uuid + u".json"_s;
    QTest::newRow("two-digit parts")
        << u"orders"_s << qint64(1609459199999) // 2020-12-31T23:59:59.999Z
        << u"ORDERS/2020/12/31/23/"_s + uuid + u".json"_s;
    QTest::newRow("hour zero") << u"orders"_s << qint64(1609459200000) // 2021-01-01T00:00:00Z
                               << u"ORDERS/2021/1/1/0/"_s + uuid + u".json"_s;
}

void TestDeadLetterFormatter::l6_blobName()
{
    QFETCH(QString, subscription);
    QFETCH(qint64, writeTimeMs);
    QFETCH(QString, expected);
    const QUuid uuid(u"{0f8fad5b-d9cb-469f-a165-70867728950e}"_s);
    QCOMPARE(DeadLetterFormatter::blobName(subscription, writeTimeMs, uuid), expected);
}

void TestDeadLetterFormatter::l6_blobBody()
{
    QCOMPARE(DeadLetterFormatter::blobBody({}), QByteArray("[]"));
    QCOMPARE(DeadLetterFormatter::blobBody({R"({"a":1})"}), QByteArray(R"([{"a":1}])"));

    const QByteArray first = DeadLetterFormatter::record(eventGridInput());
    DeadLetterInput secondInput = eventGridInput();
    secondInput.reason = DeadLetterReason::TimeToLiveExceeded;
    const QByteArray second = DeadLetterFormatter::record(secondInput);
    const QByteArray body = DeadLetterFormatter::blobBody({first, second});
    QCOMPARE(body, '[' + first + ',' + second + ']');

    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(body, &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    QCOMPARE(document.array().size(), 2);
    QCOMPARE(document.array().at(1).toObject().value("deadLetterReason"_L1).toString(),
             u"TimeToLiveExceeded"_s);
}

void TestDeadLetterFormatter::l7_fieldsPerSchema_data()
{
    QTest::addColumn<EventSchema>("schema");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QStringList>("present");
    QTest::addColumn<QStringList>("absent");

    const QStringList camelCase
        = {u"deadLetterReason"_s, u"deliveryAttempts"_s,        u"lastDeliveryOutcome"_s,
           u"publishTime"_s,      u"lastDeliveryAttemptTime"_s, u"lastHttpStatusCode"_s};
    const QStringList lowerCase
        = {u"deadletterreason"_s, u"deliveryattempts"_s,        u"lastdeliveryoutcome"_s,
           u"publishtime"_s,      u"lastdeliveryattempttime"_s, u"lasthttpstatuscode"_s};

    QTest::newRow("EventGrid") << EventSchema::EventGrid << QByteArray(R"({"id":"e1"})")
                               << camelCase + QStringList {u"id"_s} << lowerCase;
    QTest::newRow("CloudEvents")
        << EventSchema::CloudEvents10
        << QByteArray(R"({"specversion":"1.0","id":"c1","source":"/s","type":"T"})")
        << lowerCase + QStringList {u"specversion"_s, u"id"_s, u"source"_s, u"type"_s} << camelCase;
    QTest::newRow("Custom") << EventSchema::Custom << QByteArray(R"({"orderId":7})")
                            << camelCase + QStringList {u"id"_s,
                                                        u"eventTime"_s,
                                                        u"eventType"_s,
                                                        u"dataVersion"_s,
                                                        u"metadataVersion"_s,
                                                        u"topic"_s,
                                                        u"subject"_s,
                                                        u"data"_s}
                            << lowerCase + QStringList {u"orderId"_s};
}

void TestDeadLetterFormatter::l7_fieldsPerSchema()
{
    QFETCH(EventSchema, schema);
    QFETCH(QByteArray, body);
    QFETCH(QStringList, present);
    QFETCH(QStringList, absent);

    DeadLetterInput input = eventGridInput();
    input.deliverySchema = schema;
    input.deliveredBody = body;
    const QJsonObject record = parseObject(DeadLetterFormatter::record(input));
    QVERIFY(!record.isEmpty());
    for (const QString &key : present)
        QVERIFY2(record.contains(key), qPrintable(key));
    for (const QString &key : absent)
        QVERIFY2(!record.contains(key), qPrintable(key));
}

void TestDeadLetterFormatter::l7_eventGridKeepsEventBytes()
{
    const DeadLetterInput input = eventGridInput();
    const QByteArray record = DeadLetterFormatter::record(input);

    // The event as delivered, byte for byte (a 17-digit integer survives), then the L7 fields.
    QVERIFY(record.startsWith(QByteArray(input.deliveredBody.chopped(1) + ',')));
    const QJsonObject object = parseObject(record);
    QCOMPARE(object.value("id"_L1).toString(), u"e1"_s);
    QCOMPARE(object.value("deadLetterReason"_L1).toString(), u"MaxDeliveryAttemptsExceeded"_s);
    QCOMPARE(object.value("deliveryAttempts"_L1).toInt(), 30);
    QCOMPARE(object.value("lastDeliveryOutcome"_L1).toString(), u"GenericError"_s);
    QCOMPARE(object.value("lastHttpStatusCode"_L1).toInt(), 500);
    QCOMPARE(object.value("publishTime"_L1).toString(), u"2020-08-13T17:18:14.0260000Z"_s);
    QCOMPARE(object.value("lastDeliveryAttemptTime"_L1).toString(),
             u"2020-08-13T17:19:14.5000000Z"_s);
}

void TestDeadLetterFormatter::l7_lastHttpStatusOnlyWithResponse()
{
    DeadLetterInput input = eventGridInput();
    input.lastHttpStatusCode = 0;
    input.lastDeliveryOutcome = DeliveryOutcome::SocketError;
    const QJsonObject object = parseObject(DeadLetterFormatter::record(input));
    QVERIFY(!object.isEmpty());
    QVERIFY(!object.contains("lastHttpStatusCode"_L1));
    QCOMPARE(object.value("lastDeliveryOutcome"_L1).toString(), u"SocketError"_s);
}

void TestDeadLetterFormatter::l7_probationRecord()
{
    // SPEC P3: dead-lettered without an attempt: lastDeliveryOutcome Probation, and the attempt
    // time (never attempted) is the publish time.
    DeadLetterInput input = eventGridInput();
    input.reason = DeadLetterReason::UndeliverableDueToHttpForbidden;
    input.lastDeliveryOutcome = DeliveryOutcome::Probation;
    input.deliveryAttempts = 0;
    input.lastHttpStatusCode = 0;
    input.lastDeliveryAttemptTimeMs = 0;
    const QJsonObject object = parseObject(DeadLetterFormatter::record(input));
    QCOMPARE(object.value("lastDeliveryOutcome"_L1).toString(), u"Probation"_s);
    QCOMPARE(object.value("deadLetterReason"_L1).toString(), u"UndeliverableDueToHttpForbidden"_s);
    QCOMPARE(object.value("deliveryAttempts"_L1).toInt(-1), 0);
    QCOMPARE(object.value("lastDeliveryAttemptTime"_L1).toString(),
             object.value("publishTime"_L1).toString());
}

void TestDeadLetterFormatter::l7_cloudEventsRecord()
{
    DeadLetterInput input = eventGridInput();
    input.deliverySchema = EventSchema::CloudEvents10;
    input.deliveredBody = R"({"specversion":"1.0","id":"c1","source":"/s","type":"T","data":[1]})";
    input.reason = DeadLetterReason::UndeliverableDueToHttpBadRequest;
    input.deliveryAttempts = 1;
    input.lastDeliveryOutcome = DeliveryOutcome::BadRequest;
    input.lastHttpStatusCode = 400;
    const QJsonObject object = parseObject(DeadLetterFormatter::record(input));
    QCOMPARE(object.value("id"_L1).toString(), u"c1"_s);
    QCOMPARE(object.value("data"_L1).toArray(), QJsonArray {1});
    QCOMPARE(object.value("deadletterreason"_L1).toString(), u"UndeliverableDueToHttpBadRequest"_s);
    QCOMPARE(object.value("deliveryattempts"_L1).toInt(), 1);
    QCOMPARE(object.value("lastdeliveryoutcome"_L1).toString(), u"BadRequest"_s);
    QCOMPARE(object.value("lasthttpstatuscode"_L1).toInt(), 400);
    QCOMPARE(object.value("publishtime"_L1).toString(), u"2020-08-13T17:18:14.0260000Z"_s);
    QCOMPARE(object.value("lastdeliveryattempttime"_L1).toString(),
             u"2020-08-13T17:19:14.5000000Z"_s);
}

void TestDeadLetterFormatter::l7_customRecordEnvelope()
{
    DeadLetterInput input = eventGridInput();
    input.deliverySchema = EventSchema::Custom;
    input.deliveredBody = R"({"orderId":7,"kind":"new \"quoted\""})";
    input.id = u"o-7"_s;
    input.eventTime = u"2020-08-13T17:18:14Z"_s;
    input.eventType = u"Order.Created"_s;
    input.dataVersion = u"2.0"_s;
    input.topic = u"/subscriptions/x/topics/orders"_s;
    input.subject = u"orders/7"_s;
    input.reason = DeadLetterReason::TimeToLiveExceeded;
    const QByteArray record = DeadLetterFormatter::record(input);
    const QJsonObject object = parseObject(record);

    QCOMPARE(object.value("id"_L1).toString(), u"o-7"_s);
    QCOMPARE(object.value("eventTime"_L1).toString(), u"2020-08-13T17:18:14Z"_s);
    QCOMPARE(object.value("eventType"_L1).toString(), u"Order.Created"_s);
    QCOMPARE(object.value("dataVersion"_L1).toString(), u"2.0"_s);
    QCOMPARE(object.value("metadataVersion"_L1).toString(), u"1"_s);
    QCOMPARE(object.value("topic"_L1).toString(), u"/subscriptions/x/topics/orders"_s);
    QCOMPARE(object.value("subject"_L1).toString(), u"orders/7"_s);
    QCOMPARE(object.value("data"_L1).toObject(), parseObject(input.deliveredBody));
    QVERIFY(record.contains(QByteArray("\"data\":" + input.deliveredBody)));
    QCOMPARE(object.value("deadLetterReason"_L1).toString(), u"TimeToLiveExceeded"_s);
    QCOMPARE(object.value("deliveryAttempts"_L1).toInt(), 30);
}

void TestDeadLetterFormatter::l7_emptyObject()
{
    DeadLetterInput input = eventGridInput();
    input.deliveredBody = "{ }";
    const QJsonObject object = parseObject(DeadLetterFormatter::record(input));
    QCOMPARE(object.value("deadLetterReason"_L1).toString(), u"MaxDeliveryAttemptsExceeded"_s);
    QCOMPARE(object.size(), 6);
}

QTEST_GUILESS_MAIN(TestDeadLetterFormatter)
#include "tst_deadletterformatter.moc"
