// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "SchemaConverter.h"

#include <QByteArrayList>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

// A JSON string literal (quotes and escapes included) for text.
QByteArray jsonString(const QString &text)
{
    const QByteArray array = QJsonDocument(QJsonArray {text}).toJson(QJsonDocument::Compact);
    return array.mid(1, array.size() - 2);
}

// The string member of object (the event's own value wins, even when empty), or fallback when
// it is missing or not a string.
QString stringOr(const QJsonObject &object, QLatin1StringView key, const QString &fallback)
{
    const QJsonValue value = object.value(key);
    return value.isString() ? value.toString() : fallback;
}

// SPEC S4 decision: Event Grid -> CloudEvents 1.0 structured mode.
QByteArray eventGridToCloudEvent(const QByteArray &body, const SchemaConverter::Envelope &envelope)
{
    const QJsonObject event = QJsonDocument::fromJson(body).object();
    QJsonObject cloudEvent;
    cloudEvent.insert("specversion"_L1, u"1.0"_s);
    cloudEvent.insert("id"_L1, stringOr(event, "id"_L1, envelope.id));
    // CloudEvents requires a non-empty source (SPEC S2).
    const QString source = stringOr(event, "topic"_L1, QString());
    cloudEvent.insert("source"_L1, source.isEmpty() ? envelope.topicPath : source);
    const QString subject = stringOr(event, "subject"_L1, envelope.subject);
    if (!subject.isEmpty())
        cloudEvent.insert("subject"_L1, subject);
    cloudEvent.insert("type"_L1, stringOr(event, "eventType"_L1, envelope.eventType));
    const QString time = stringOr(event, "eventTime"_L1, envelope.eventTime);
    if (!time.isEmpty())
        cloudEvent.insert("time"_L1, time);
    if (event.contains("data"_L1)) {
        cloudEvent.insert("datacontenttype"_L1, u"application/json"_s);
        cloudEvent.insert("data"_L1, event.value("data"_L1));
    }
    const QString dataVersion = stringOr(event, "dataVersion"_L1, envelope.dataVersion);
    if (!dataVersion.isEmpty())
        cloudEvent.insert("dataversion"_L1, dataVersion);
    return QJsonDocument(cloudEvent).toJson(QJsonDocument::Compact);
}

// SPEC S3: a custom event wrapped in the Event Grid schema, built from bytes so the original
// object is delivered exactly as published.
QByteArray customToEventGrid(const QByteArray &body, const SchemaConverter::Envelope &envelope)
{
    QByteArray data = body.trimmed();
    if (data.isEmpty())
        data = "null";
    return "{\"id\":" + jsonString(envelope.id) + ",\"topic\":" + jsonString(envelope.topicPath)
        + ",\"subject\":" + jsonString(envelope.subject)
        + ",\"eventType\":" + jsonString(envelope.eventType)
        + ",\"eventTime\":" + jsonString(envelope.eventTime) + ",\"data\":" + data
        + ",\"dataVersion\":" + jsonString(envelope.dataVersion) + ",\"metadataVersion\":\"1\"}";
}

} // namespace

bool SchemaConverter::isSupported(EventSchema input, EventSchema delivery)
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

QByteArray SchemaConverter::convert(const QByteArray &body, EventSchema input, EventSchema delivery,
                                    const Envelope &envelope)
{
    if (input == delivery)
        return body;
    if (input == EventSchema::EventGrid && delivery == EventSchema::CloudEvents10)
        return eventGridToCloudEvent(body, envelope);
    if (input == EventSchema::Custom && delivery == EventSchema::EventGrid)
        return customToEventGrid(body, envelope);
    // Unsupported combinations are rejected when the subscription is saved (SPEC S4); nothing
    // can be delivered for one.
    return QByteArray();
}

QByteArray SchemaConverter::requestBody(const QList<QByteArray> &events, EventSchema delivery,
                                        bool batchingEnabled)
{
    // SPEC D4: CloudEvents without batching is one structured-mode object. With more than one
    // event (a caller error: batching off means one event per request) an array is still sent
    // rather than an invalid body.
    if (delivery == EventSchema::CloudEvents10 && !batchingEnabled && events.size() == 1)
        return events.first();
    // Built by concatenating the events' bytes: no re-parse.
    return '[' + QByteArrayList(events).join(',') + ']';
}

QByteArray SchemaConverter::contentType(EventSchema delivery, bool batchingEnabled)
{
    if (delivery != EventSchema::CloudEvents10)
        return "application/json"_ba;
    return batchingEnabled ? "application/cloudevents-batch+json; charset=utf-8"_ba
                           : "application/cloudevents+json; charset=utf-8"_ba;
}

} // namespace EventDesk
