// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "DeadLetterFormatter.h"

#include "../UtcTime.h"

#include <QByteArrayList>
#include <QDate>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonValue>
#include <QTime>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

// A JSON string literal (quotes and escapes included) for text.
QByteArray jsonString(const QString &text)
{
    const QByteArray array = QJsonDocument(QJsonArray {text}).toJson(QJsonDocument::Compact);
    return array.mid(1, array.size() - 2);
}

// The L7 attribute names: camelCase for Event Grid and custom schema, lower case extension
// attributes for CloudEvents.
struct FieldNames
{
    const char *deadLetterReason;
    const char *deliveryAttempts;
    const char *lastDeliveryOutcome;
    const char *lastHttpStatusCode;
    const char *publishTime;
    const char *lastDeliveryAttemptTime;
};

constexpr FieldNames CamelCaseNames = {
    "deadLetterReason",   "deliveryAttempts", "lastDeliveryOutcome",
    "lastHttpStatusCode", "publishTime",      "lastDeliveryAttemptTime",
};
constexpr FieldNames CloudEventsNames = {
    "deadletterreason",   "deliveryattempts", "lastdeliveryoutcome",
    "lasthttpstatuscode", "publishtime",      "lastdeliveryattempttime",
};

// The SPEC L7 members as a comma-separated member list (no braces).
QByteArray deadLetterMembers(const DeadLetterInput &input, const FieldNames &names)
{
    QByteArrayList members;
    const auto add = [&members](const char *name, const QByteArray &jsonValue) {
        members.append('"' + QByteArray(name) + "\":" + jsonValue);
    };
    add(names.deadLetterReason, jsonString(deadLetterReasonName(input.reason)));
    add(names.deliveryAttempts, QByteArray::number(input.deliveryAttempts));
    add(names.lastDeliveryOutcome, jsonString(deliveryOutcomeName(input.lastDeliveryOutcome)));
    // SPEC L7 decision: only when the last attempt got an HTTP response.
    if (input.lastHttpStatusCode != 0)
        add(names.lastHttpStatusCode, QByteArray::number(input.lastHttpStatusCode));
    add(names.publishTime, jsonString(DeadLetterFormatter::formatTime(input.publishTimeMs)));
    const qint64 lastAttemptMs = input.lastDeliveryAttemptTimeMs != 0
        ? input.lastDeliveryAttemptTimeMs
        : input.publishTimeMs;
    add(names.lastDeliveryAttemptTime, jsonString(DeadLetterFormatter::formatTime(lastAttemptMs)));
    return members.join(',');
}

// Appends members to a JSON object given as bytes. The event's own bytes are kept exactly as
// delivered (key order, number spelling) instead of being re-serialised.
QByteArray appendMembers(const QByteArray &objectBytes, const QByteArray &members)
{
    const QByteArray object = objectBytes.trimmed();
    if (object.size() < 2 || !object.startsWith('{') || !object.endsWith('}')) {
        // Not an object (a broken caller): keep the bytes, as a string, rather than lose them.
        return "{\"data\":" + jsonString(QString::fromUtf8(objectBytes)) + ',' + members + '}';
    }
    const QByteArray inner = object.mid(1, object.size() - 2);
    if (inner.trimmed().isEmpty())
        return '{' + members + '}';
    return '{' + inner + ',' + members + '}';
}

} // namespace

QString DeadLetterFormatter::formatTime(qint64 msSinceEpoch)
{
    // SPEC L7: 7 fractional digits; EventDesk keeps milliseconds, so the last four are zero.
    const QDateTime time = utcDateTime(msSinceEpoch);
    return time.toString(u"yyyy-MM-dd'T'HH:mm:ss.zzz"_s) + u"0000Z"_s;
}

QByteArray DeadLetterFormatter::record(const DeadLetterInput &input)
{
    switch (input.deliverySchema) {
    case EventSchema::EventGrid:
        return appendMembers(input.deliveredBody, deadLetterMembers(input, CamelCaseNames));
    case EventSchema::CloudEvents10:
        return appendMembers(input.deliveredBody, deadLetterMembers(input, CloudEventsNames));
    case EventSchema::Custom:
        break;
    }

    // SPEC L7: a custom-schema event is wrapped in an Event Grid envelope whose data is the
    // original event.
    QByteArray data = input.deliveredBody.trimmed();
    if (data.isEmpty())
        data = "null";
    const QByteArray envelope = "{\"id\":" + jsonString(input.id) + ",\"eventTime\":"
        + jsonString(input.eventTime) + ",\"eventType\":" + jsonString(input.eventType)
        + ",\"dataVersion\":" + jsonString(input.dataVersion) + ",\"metadataVersion\":\"1\""
        + ",\"topic\":" + jsonString(input.topic) + ",\"subject\":" + jsonString(input.subject)
        + ",\"data\":" + data + '}';
    return appendMembers(envelope, deadLetterMembers(input, CamelCaseNames));
}

QString DeadLetterFormatter::blobName(const QString &subscriptionName, qint64 writeTimeMs,
                                      const QUuid &uuid)
{
    // SPEC L6: UTC date and hour of the write, month, day and hour not zero-padded.
    const QDateTime time = utcDateTime(writeTimeMs);
    const QDate date = time.date();
    return subscriptionName.toUpper() + u'/' + u"%1"_s.arg(date.year(), 4, 10, QLatin1Char('0'))
        + u'/' + QString::number(date.month()) + u'/' + QString::number(date.day()) + u'/'
        + QString::number(time.time().hour()) + u'/' + uuid.toString(QUuid::WithoutBraces)
        + u".json"_s;
}

QByteArray DeadLetterFormatter::blobBody(const QList<QByteArray> &records)
{
    return '[' + QByteArrayList(records).join(',') + ']';
}

} // namespace EventDesk
