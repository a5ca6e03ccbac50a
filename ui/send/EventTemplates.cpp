// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "EventTemplates.h"

#include "JsonEditor.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QRandomGenerator>
#include <QUuid>

#include <utility>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {

QString freshId()
{
    return QUuid::createUuid().toString(QUuid::WithoutBraces);
}

QString nowIso()
{
    return QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);
}

QString valueJson(const QJsonValue &value)
{
    // QJsonDocument serialises only objects and arrays: wrap the value and strip the brackets.
    const QByteArray wrapped = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
    return QString::fromUtf8(wrapped.mid(1, wrapped.size() - 2));
}

// Compact JSON object text with the fields in the given order (QJsonObject sorts its keys, which
// would put "data" before "id" in a template meant to be read).
QString orderedObject(const QList<std::pair<QString, QJsonValue>> &fields)
{
    QStringList parts;
    for (const auto &[key, value] : fields)
        parts.append(valueJson(key) + u':' + valueJson(value));
    return u'{' + parts.join(u',') + u'}';
}

// Sets a dotted field path ("data.order.id") in an object, creating the objects on the way.
void setPath(QJsonObject &object, QStringView path, const QJsonValue &value)
{
    const qsizetype dot = path.indexOf(u'.');
    if (dot < 0) {
        object.insert(path.toString(), value);
        return;
    }
    const QString head = path.left(dot).toString();
    QJsonObject child = object.value(head).toObject();
    setPath(child, path.mid(dot + 1), value);
    object.insert(head, child);
}

QString idFieldPath(EventSchema schema, const InputSchemaMapping &mapping)
{
    switch (schema) {
    case EventSchema::EventGrid:
    case EventSchema::CloudEvents10:
        return u"id"_s;
    case EventSchema::Custom:
        return mapping.idSourceField;
    }
    return {};
}

} // namespace

QString schemaDisplayName(EventSchema schema)
{
    switch (schema) {
    case EventSchema::EventGrid:
        return JsonEditor::tr("Event Grid");
    case EventSchema::CloudEvents10:
        return JsonEditor::tr("CloudEvents 1.0");
    case EventSchema::Custom:
        return JsonEditor::tr("Custom");
    }
    return {};
}

QString eventTemplate(EventSchema schema, const InputSchemaMapping &mapping)
{
    const int orderNumber = int(QRandomGenerator::global()->bounded(1000, 100000));
    const QJsonObject data{{u"orderId"_s, orderNumber},
                           {u"status"_s, u"created"_s},
                           {u"amount"_s, 42.5},
                           {u"currency"_s, u"EUR"_s}};
    const QString subject = u"/orders/%1"_s.arg(orderNumber);
    switch (schema) {
    case EventSchema::EventGrid:
        return JsonEditor::prettyPrinted(u'[' + orderedObject({{u"id"_s, freshId()},
                                                              {u"eventType"_s, u"Contoso.Orders.OrderCreated"_s},
                                                              {u"subject"_s, subject},
                                                              {u"eventTime"_s, nowIso()},
                                                              {u"dataVersion"_s, u"1.0"_s},
                                                              {u"data"_s, data}})
                                         + u']');
    case EventSchema::CloudEvents10:
        return JsonEditor::prettyPrinted(orderedObject({{u"specversion"_s, u"1.0"_s},
                                                        {u"id"_s, freshId()},
                                                        {u"source"_s, u"/contoso/orders"_s},
                                                        {u"type"_s, u"com.contoso.orders.created"_s},
                                                        {u"subject"_s, subject},
                                                        {u"time"_s, nowIso()},
                                                        {u"datacontenttype"_s, u"application/json"_s},
                                                        {u"data"_s, data}}));
    case EventSchema::Custom: {
        QJsonObject event = data;
        // Mapped fields first get values of the right kind, so the template passes the mapping.
        setPath(event, mapping.idSourceField.isEmpty() ? u"messageId"_s : mapping.idSourceField, freshId());
        setPath(event, mapping.eventTimeSourceField.isEmpty() ? u"createdAt"_s : mapping.eventTimeSourceField,
                nowIso());
        if (!mapping.subjectSourceField.isEmpty())
            setPath(event, mapping.subjectSourceField, subject);
        if (!mapping.eventTypeSourceField.isEmpty())
            setPath(event, mapping.eventTypeSourceField, u"Contoso.Orders.OrderCreated"_s);
        if (!mapping.dataVersionSourceField.isEmpty())
            setPath(event, mapping.dataVersionSourceField, u"1.0"_s);
        if (!mapping.topicSourceField.isEmpty())
            setPath(event, mapping.topicSourceField, u"orders"_s);
        return JsonEditor::prettyPrinted(QString::fromUtf8(QJsonDocument(event).toJson(QJsonDocument::Compact)));
    }
    }
    return {};
}

Expected<PublishPlan> planPublish(EventSchema schema, const InputSchemaMapping &mapping,
                                  const QByteArray &json, int copies, qsizetype maxRequestBytes)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError)
        return Error(JsonEditor::tr("The JSON is not valid: %1").arg(error.errorString()));
    const bool singleObject = document.isObject();
    const QJsonArray events = singleObject ? QJsonArray{document.object()} : document.array();
    if (events.isEmpty())
        return Error(JsonEditor::tr("There is no event to send: the array is empty."));
    copies = std::max(1, copies);

    PublishPlan plan;
    plan.eventCount = int(events.size()) * copies;
    const bool sendAsObject = singleObject && copies == 1 && schema != EventSchema::EventGrid;
    if (schema == EventSchema::CloudEvents10)
        plan.contentType = sendAsObject ? "application/cloudevents+json"_ba : "application/cloudevents-batch+json"_ba;
    else
        plan.contentType = "application/json"_ba;
    if (sendAsObject) {
        plan.bodies.append(QJsonDocument(document.object()).toJson(QJsonDocument::Compact));
        return plan;
    }

    const QString idPath = idFieldPath(schema, mapping);
    QByteArray current;
    const auto flush = [&plan, &current] {
        if (current.isEmpty())
            return;
        current.append(']');
        plan.bodies.append(current);
        current.clear();
    };
    for (int copy = 0; copy < copies; ++copy) {
        for (const QJsonValue &value : events) {
            QByteArray serialized;
            if (value.isObject()) {
                QJsonObject event = value.toObject();
                if (copy > 0 && !idPath.isEmpty())
                    setPath(event, idPath, freshId());
                serialized = QJsonDocument(event).toJson(QJsonDocument::Compact);
            } else {
                serialized = valueJson(value).toUtf8();
            }
            // '[' + events joined by ',' + ']'
            if (!current.isEmpty() && current.size() + 1 + serialized.size() + 1 > maxRequestBytes)
                flush();
            current.append(current.isEmpty() ? '[' : ',');
            current.append(serialized);
        }
    }
    flush();
    return plan;
}

} // namespace EventDesk::Ui
