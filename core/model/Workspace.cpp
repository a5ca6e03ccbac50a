// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "Workspace.h"

#include "JsonSupport.h"
#include "WorkspaceJsonReader.h"
#include "WorkspaceRules.h"

#include <QJsonDocument>
#include <QJsonParseError>
#include <QJsonValue>
#include <QRegularExpression>
#include <QUrl>

#include <array>
#include <optional>

using namespace Qt::StringLiterals;

// workspace.json: its topics (the event subscriptions are EventSubscriptionJson.cpp's), the test
// receivers and the settings.

namespace EventDesk {

using JsonSupport::atPath;
using JsonSupport::describeValue;
using JsonSupport::indexPath;
using JsonSupport::joinPath;
using namespace WorkspaceJson;

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

    // SPEC H2, docs/eventdeskd.md "Secrets": a topic's access key lives in the SecretStore; the
    // workspace holds only its reference, {"secretRef": "topic/<topic>/key"}.
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

// settings.allowedHosts[i]: a host name or an IP address, as a Host header names it, without
// scheme or port (the port is never compared: a forwarded port works).
QStringList readAllowedHosts(JsonReader &reader, const QJsonObject &settings,
                             const QString &settingsPath)
{
    QStringList hosts;
    const QJsonArray entries
        = reader.array(settings, "allowedHosts"_L1, settingsPath, Presence::Optional);
    for (qsizetype index = 0; index < entries.size() && !reader.failed(); ++index) {
        const QString path = indexPath(joinPath(settingsPath, "allowedHosts"_L1), index);
        QString host = reader.stringAt(entries.at(index), path).toLower();
        if (reader.failed())
            break;
        static const QRegularExpression name(uR"(^[a-z0-9_]([a-z0-9_.-]{0,251}[a-z0-9_])?$)"_s);
        // An IPv6 address, with or without its brackets; kept in brackets, as Host writes it.
        static const QRegularExpression ipv6(uR"(^\[?([0-9a-f.]*:[0-9a-f.]*:[0-9a-f:.]*)\]?$)"_s);
        if (const QRegularExpressionMatch address = ipv6.match(host);
            address.hasMatch() && host.startsWith(u'[') == host.endsWith(u']')) {
            host = u'[' + address.captured(1) + u']';
        } else if (!name.match(host).hasMatch()) {
            reader.fail(path,
                        u"must be a host name or IP address without scheme, port or path, "
                        u"e.g. \"eventdesk.internal\" (got %1)"_s.arg(
                            describeValue(entries.at(index).toString())));
            break;
        }
        if (!hosts.contains(host))
            hosts.append(host);
    }
    return hosts;
}

// settings.allowedOrigins[i]: a web origin, scheme://host[:port], kept as a browser serialises it
// in the Origin header so that a request's is compared whole.
QStringList readAllowedOrigins(JsonReader &reader, const QJsonObject &settings,
                               const QString &settingsPath)
{
    QStringList origins;
    const QJsonArray entries
        = reader.array(settings, "allowedOrigins"_L1, settingsPath, Presence::Optional);
    for (qsizetype index = 0; index < entries.size() && !reader.failed(); ++index) {
        const QString path = indexPath(joinPath(settingsPath, "allowedOrigins"_L1), index);
        const QString text = reader.stringAt(entries.at(index), path);
        if (reader.failed())
            break;
        if (text == "*"_L1 || text.compare("null"_L1, Qt::CaseInsensitive) == 0) {
            reader.fail(path,
                        u"%1 is not accepted: list each origin that may call the endpoint, "
                        u"e.g. \"http://localhost:3000\""_s.arg(describeValue(text)));
            break;
        }
        const QUrl url(text, QUrl::StrictMode);
        const QString scheme = url.scheme().toLower();
        const QString urlPath = url.path();
        if (!url.isValid() || (scheme != "http"_L1 && scheme != "https"_L1) || url.host().isEmpty()
            || !url.userInfo().isEmpty() || url.hasQuery() || url.hasFragment()
            || (!urlPath.isEmpty() && urlPath != "/"_L1)) {
            reader.fail(path,
                        u"must be a web origin: http:// or https://, a host and an optional "
                        u"port, nothing after it, e.g. \"http://localhost:3000\" (got %1)"_s.arg(
                            describeValue(text)));
            break;
        }
        const int defaultPort = scheme == "https"_L1 ? 443 : 80;
        QString host = url.host(QUrl::FullyEncoded).toLower();
        if (host.contains(u':'))
            host = u'[' + host + u']';
        QString origin = scheme + u"://"_s + host;
        if (url.port(defaultPort) != defaultPort)
            origin += u':' + QString::number(url.port());
        if (!origins.contains(origin))
            origins.append(origin);
    }
    return origins;
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
    // empty workspace (docs/behaviour.md "Reliability").
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

    values.allowedHosts = readAllowedHosts(reader, settings, settingsPath);
    values.allowedOrigins = readAllowedOrigins(reader, settings, settingsPath);

    if (reader.failed())
        return withFile(reader.error().message());
    return workspace;
}

QJsonObject Workspace::toJson() const
{
    QJsonArray topicArray;
    for (const Topic &topic : topics)
        topicArray.append(topicToJson(topic));
    QJsonArray receiverArray;
    for (const TestReceiver &receiver : receivers)
        receiverArray.append(receiver.toJson());
    QJsonObject settingsObject {
        {"deadLetterDelaySeconds"_L1, settings.deadLetterDelaySeconds},
        {"probationThreshold"_L1, settings.probationThreshold},
        {"maxConcurrentRequestsPerSubscription"_L1, settings.maxConcurrentRequestsPerSubscription}};
    // Written only when set, so a workspace that does not use them keeps its file as it was.
    if (!settings.allowedHosts.isEmpty())
        settingsObject.insert("allowedHosts"_L1, QJsonArray::fromStringList(settings.allowedHosts));
    if (!settings.allowedOrigins.isEmpty())
        settingsObject.insert("allowedOrigins"_L1,
                              QJsonArray::fromStringList(settings.allowedOrigins));
    return QJsonObject {
        {"topics"_L1, topicArray},
        {"receivers"_L1, receiverArray},
        {"settings"_L1, settingsObject},
    };
}

Expected<Topic> topicFromJson(const QJsonObject &object, const QString &jsonPath)
{
    JsonReader reader;
    Topic topic = readTopic(reader, object, jsonPath);
    if (reader.failed())
        return Error(reader.error().message());
    return topic;
}

QJsonObject topicToJson(const Topic &topic)
{
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
    return object;
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
