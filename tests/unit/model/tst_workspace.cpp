// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// workspace.json and the ARM event-subscription shape: parsing, serialising and every
// validation rule (SPEC §1 names, R6, B2, H1, filter limits, S4, L5; docs/user-guide.md
// "Workspace").

#include "model/Workspace.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace EventDesk;

namespace {

const QString subscriptionPath = u"workspace.json: topics[0].eventSubscriptions[0]."_s;

QJsonObject validSubscription()
{
    return QJsonObject {
        {"name"_L1, u"orders-hook"_s},
        {"properties"_L1,
         QJsonObject {
             {"destination"_L1,
              QJsonObject {
                  {"endpointType"_L1, u"WebHook"_s},
                  {"properties"_L1,
                   QJsonObject {{"endpointUrl"_L1, u"https://example.com/api/events"_s}}}}},
             {"retryPolicy"_L1,
              QJsonObject {{"maxDeliveryAttempts"_L1, 30}, {"eventTimeToLiveInMinutes"_L1, 1440}}},
         }},
    };
}

// Sets a value at a dotted path, creating objects on the way.
QJsonObject withValue(QJsonObject object, QStringView path, const QJsonValue &value)
{
    const qsizetype dot = path.indexOf(u'.');
    if (dot < 0) {
        object.insert(path.toString(), value);
        return object;
    }
    const QString head = path.left(dot).toString();
    object.insert(head, withValue(object.value(head).toObject(), path.mid(dot + 1), value));
    return object;
}

QJsonObject withoutValue(QJsonObject object, QStringView path)
{
    const qsizetype dot = path.indexOf(u'.');
    if (dot < 0) {
        object.remove(path.toString());
        return object;
    }
    const QString head = path.left(dot).toString();
    object.insert(head, withoutValue(object.value(head).toObject(), path.mid(dot + 1)));
    return object;
}

QJsonObject customMapping()
{
    return QJsonObject {
        {"inputSchemaMappingType"_L1, u"Json"_s},
        {"properties"_L1,
         QJsonObject {
             {"id"_L1, QJsonObject {{"sourceField"_L1, u"orderId"_s}}},
             {"eventType"_L1,
              QJsonObject {{"sourceField"_L1, u"kind"_s}, {"defaultValue"_L1, u"Order.Unknown"_s}}},
             {"dataVersion"_L1, QJsonObject {{"defaultValue"_L1, u"1.0"_s}}},
         }},
    };
}

QByteArray workspaceJson(const QJsonObject &subscription,
                         const QString &inputSchema = u"EventGridSchema"_s)
{
    QJsonObject topic {{"name"_L1, u"orders"_s},
                       {"inputSchema"_L1, inputSchema},
                       {"eventSubscriptions"_L1, QJsonArray {subscription}}};
    if (inputSchema == "CustomInputSchema"_L1)
        topic.insert("inputSchemaMapping"_L1, customMapping());
    return QJsonDocument(QJsonObject {{"topics"_L1, QJsonArray {topic}}}).toJson();
}

QString errorOf(const QByteArray &json)
{
    const Expected<Workspace> workspace = Workspace::fromJson(json, u"workspace.json"_s);
    return workspace ? QString() : workspace.error();
}

QString describe(const QUrl &url)
{
    return url.toString();
}

// Field-by-field comparison; returns the first difference, empty when equal.
QString differences(const EventSubscription &left, const EventSubscription &right)
{
    if (left.name != right.name)
        return u"name"_s;
    if (left.endpointUrl != right.endpointUrl)
        return u"endpointUrl: "_s + describe(left.endpointUrl) + u" vs "_s
            + describe(right.endpointUrl);
    if (left.destination.type != right.destination.type
        || left.destination.resourceId != right.destination.resourceId
        || left.destination.queueName != right.destination.queueName
        || left.destination.queueMessageTimeToLiveInSeconds
            != right.destination.queueMessageTimeToLiveInSeconds
        || left.destination.serviceUrl != right.destination.serviceUrl)
        return u"destination"_s;
    if (left.deliverySchema != right.deliverySchema)
        return u"deliverySchema"_s;
    if (left.enabled != right.enabled)
        return u"enabled"_s;
    if (left.validationEnabled != right.validationEnabled)
        return u"validationEnabled"_s;
    if (left.retryPolicy.maxDeliveryAttempts != right.retryPolicy.maxDeliveryAttempts
        || left.retryPolicy.eventTimeToLiveInMinutes != right.retryPolicy.eventTimeToLiveInMinutes)
        return u"retryPolicy"_s;
    if (left.batchPolicy.enabled != right.batchPolicy.enabled
        || left.batchPolicy.maxEventsPerBatch != right.batchPolicy.maxEventsPerBatch
        || left.batchPolicy.preferredBatchSizeInKilobytes
            != right.batchPolicy.preferredBatchSizeInKilobytes)
        return u"batchPolicy"_s;
    if (left.deliveryHeaders.size() != right.deliveryHeaders.size())
        return u"deliveryHeaders.size"_s;
    for (qsizetype index = 0; index < left.deliveryHeaders.size(); ++index) {
        const DeliveryHeader &leftHeader = left.deliveryHeaders.at(index);
        const DeliveryHeader &rightHeader = right.deliveryHeaders.at(index);
        if (leftHeader.name != rightHeader.name || leftHeader.kind != rightHeader.kind
            || leftHeader.value != rightHeader.value
            || leftHeader.sourceField != rightHeader.sourceField
            || leftHeader.secret != rightHeader.secret)
            return u"deliveryHeaders[%1]"_s.arg(index);
    }
    const EventFilter &leftFilter = left.filter;
    const EventFilter &rightFilter = right.filter;
    if (leftFilter.includedEventTypes != rightFilter.includedEventTypes
        || leftFilter.subjectBeginsWith != rightFilter.subjectBeginsWith
        || leftFilter.subjectEndsWith != rightFilter.subjectEndsWith
        || leftFilter.isSubjectCaseSensitive != rightFilter.isSubjectCaseSensitive)
        return u"filter"_s;
    if (leftFilter.advancedFilters.size() != rightFilter.advancedFilters.size())
        return u"filter.advancedFilters.size"_s;
    for (qsizetype index = 0; index < leftFilter.advancedFilters.size(); ++index) {
        const AdvancedFilter &leftAdvanced = leftFilter.advancedFilters.at(index);
        const AdvancedFilter &rightAdvanced = rightFilter.advancedFilters.at(index);
        if (leftAdvanced.op != rightAdvanced.op || leftAdvanced.key != rightAdvanced.key
            || leftAdvanced.numbers != rightAdvanced.numbers
            || leftAdvanced.ranges != rightAdvanced.ranges
            || leftAdvanced.strings != rightAdvanced.strings
            || leftAdvanced.boolValue != rightAdvanced.boolValue)
            return u"filter.advancedFilters[%1]"_s.arg(index);
    }
    const DeadLetterDestination &leftDeadLetter = left.deadLetterDestination;
    const DeadLetterDestination &rightDeadLetter = right.deadLetterDestination;
    if (leftDeadLetter.kind != rightDeadLetter.kind
        || leftDeadLetter.resourceId != rightDeadLetter.resourceId
        || leftDeadLetter.blobContainerName != rightDeadLetter.blobContainerName
        || leftDeadLetter.accountName != rightDeadLetter.accountName
        || leftDeadLetter.blobEndpoint != rightDeadLetter.blobEndpoint)
        return u"deadLetterDestination"_s;
    return QString();
}

QString differences(const Workspace &left, const Workspace &right)
{
    if (left.topics.size() != right.topics.size())
        return u"topics.size"_s;
    for (qsizetype index = 0; index < left.topics.size(); ++index) {
        const Topic &leftTopic = left.topics.at(index);
        const Topic &rightTopic = right.topics.at(index);
        const InputSchemaMapping &leftMapping = leftTopic.inputSchemaMapping;
        const InputSchemaMapping &rightMapping = rightTopic.inputSchemaMapping;
        if (leftTopic.name != rightTopic.name || leftTopic.inputSchema != rightTopic.inputSchema)
            return u"topics[%1]"_s.arg(index);
        if (leftMapping.idSourceField != rightMapping.idSourceField
            || leftMapping.topicSourceField != rightMapping.topicSourceField
            || leftMapping.eventTimeSourceField != rightMapping.eventTimeSourceField
            || leftMapping.subjectSourceField != rightMapping.subjectSourceField
            || leftMapping.subjectDefaultValue != rightMapping.subjectDefaultValue
            || leftMapping.eventTypeSourceField != rightMapping.eventTypeSourceField
            || leftMapping.eventTypeDefaultValue != rightMapping.eventTypeDefaultValue
            || leftMapping.dataVersionSourceField != rightMapping.dataVersionSourceField
            || leftMapping.dataVersionDefaultValue != rightMapping.dataVersionDefaultValue)
            return u"topics[%1].inputSchemaMapping"_s.arg(index);
        if (leftTopic.eventSubscriptions.size() != rightTopic.eventSubscriptions.size())
            return u"topics[%1].eventSubscriptions.size"_s.arg(index);
        for (qsizetype subscription = 0; subscription < leftTopic.eventSubscriptions.size();
             ++subscription) {
            const QString difference = differences(leftTopic.eventSubscriptions.at(subscription),
                                                   rightTopic.eventSubscriptions.at(subscription));
            if (!difference.isEmpty())
                return u"topics[%1].eventSubscriptions[%2].%3"_s.arg(index)
                    .arg(subscription)
                    .arg(difference);
        }
    }
    if (left.receivers != right.receivers)
        return u"receivers"_s;
    if (left.settings.deadLetterDelaySeconds != right.settings.deadLetterDelaySeconds
        || left.settings.probationThreshold != right.settings.probationThreshold
        || left.settings.maxConcurrentRequestsPerSubscription
            != right.settings.maxConcurrentRequestsPerSubscription
        || left.settings.allowedHosts != right.settings.allowedHosts
        || left.settings.allowedOrigins != right.settings.allowedOrigins)
        return u"settings"_s;
    return QString();
}

AdvancedFilter advanced(FilterOperator op, const QString &key)
{
    AdvancedFilter filter;
    filter.op = op;
    filter.key = key;
    return filter;
}

// A workspace that uses every feature of the model.
Workspace fullWorkspace()
{
    EventSubscription everything;
    everything.name = u"Everything-1"_s;
    everything.endpointUrl = QUrl(u"https://hooks.example.com:8443/path/to?code=abc%20def"_s);
    everything.deliverySchema = EventSchema::CloudEvents10;
    everything.retryPolicy = RetryPolicy {10, 30};
    everything.batchPolicy = BatchPolicy {true, 5000, 1024};
    everything.enabled = false;
    everything.validationEnabled = false;
    everything.deliveryHeaders = {
        DeliveryHeader {u"X-Static"_s, DeliveryHeader::Kind::Static, u"value é"_s, QString(),
                        false},
        DeliveryHeader {u"X-Secret"_s, DeliveryHeader::Kind::Static, QString(), QString(), true},
        DeliveryHeader {u"X-Dynamic"_s, DeliveryHeader::Kind::Dynamic, QString(), u"data.key1"_s,
                        false},
    };
    everything.filter.includedEventTypes = {u"Order.Created"_s, u"Order.Deleted"_s};
    everything.filter.subjectBeginsWith = u"/orders/"_s;
    everything.filter.subjectEndsWith = u".json"_s;
    everything.filter.isSubjectCaseSensitive = true;
    AdvancedFilter numberIn = advanced(FilterOperator::NumberIn, u"data.x"_s);
    numberIn.numbers = {1, 2.5, -3};
    AdvancedFilter greater = advanced(FilterOperator::NumberGreaterThanOrEquals, u"data.y"_s);
    greater.numbers = {0.1};
    AdvancedFilter range = advanced(FilterOperator::NumberNotInRange, u"data.z"_s);
    range.ranges = {{1, 5}, {7, 7}};
    AdvancedFilter boolEquals = advanced(FilterOperator::BoolEquals, u"data.b"_s);
    boolEquals.boolValue = true;
    AdvancedFilter contains = advanced(FilterOperator::StringNotEndsWith, u"subject"_s);
    contains.strings = {u"a"_s, u"Bé"_s};
    everything.filter.advancedFilters = {numberIn,
                                         greater,
                                         range,
                                         boolEquals,
                                         contains,
                                         advanced(FilterOperator::IsNullOrUndefined, u"data.q"_s),
                                         advanced(FilterOperator::IsNotNull, u"data.r"_s)};
    everything.deadLetterDestination = DeadLetterDestination {
        DeadLetterDestination::Kind::AzureBlob,
        u"/subscriptions/1/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/devstoreaccount1"_s,
        u"dead-letters"_s, u"devstoreaccount1"_s,
        QUrl(u"http://127.0.0.1:10000/devstoreaccount1"_s)};

    EventSubscription minimal;
    minimal.name = u"min"_s;
    minimal.endpointUrl = QUrl(u"http://localhost:8080/receivers/demo"_s);
    minimal.deadLetterDestination.kind = DeadLetterDestination::Kind::LocalFolder;
    minimal.deadLetterDestination.resourceId = u"local"_s;
    minimal.deadLetterDestination.blobContainerName = u"deadletters"_s;

    EventSubscription custom = minimal;
    custom.name = u"as-published"_s;
    custom.deliverySchema = EventSchema::Custom;
    custom.batchPolicy = BatchPolicy {true, 1, 64};
    custom.deadLetterDestination = DeadLetterDestination();
    EventSubscription wrapped = custom;
    wrapped.name = u"wrapped"_s;
    wrapped.deliverySchema = EventSchema::EventGrid;

    Workspace workspace;
    Topic eventGrid;
    eventGrid.name = u"orders"_s;
    eventGrid.eventSubscriptions = {everything, minimal};
    Topic cloudEvents;
    cloudEvents.name = u"Cloud-Events-Topic"_s;
    cloudEvents.inputSchema = EventSchema::CloudEvents10;
    EventSubscription cloud = minimal;
    cloud.deliverySchema = EventSchema::CloudEvents10;
    cloudEvents.eventSubscriptions = {cloud};
    Topic customTopic;
    customTopic.name = u"custom"_s;
    customTopic.inputSchema = EventSchema::Custom;
    customTopic.inputSchemaMapping = InputSchemaMapping {
        u"orderId"_s, u"source"_s,        u"when"_s,         u"path"_s, u"/none"_s,
        u"kind"_s,    u"Order.Unknown"_s, u"data.version"_s, u"1.0"_s};
    customTopic.eventSubscriptions = {custom, wrapped};
    workspace.topics = {eventGrid, cloudEvents, customTopic};
    TestReceiver flaky;
    flaky.name = u"flaky"_s;
    flaky.mode = TestReceiver::Mode::Sequence;
    flaky.statuses = {503, TestReceiver::CloseConnection, 200};
    flaky.after = TestReceiver::After::Stick;
    flaky.failureRate = 0.25;
    flaky.seed = 42;
    flaky.delayMs = 1500;
    flaky.validation = TestReceiver::Validation::Refuse;
    TestReceiver demo;
    demo.name = u"demo"_s;
    workspace.receivers = {demo, flaky};
    workspace.settings = WorkspaceSettings {0, 100, 64};
    return workspace;
}

} // namespace

class TestWorkspace final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void fullWorkspaceRoundTrip();
    void defaultsWhenOmitted();
    void defaultDeliverySchema_data();
    void defaultDeliverySchema();
    void azureCliExportImports();
    void azureResourceManagerExportImports();
    void secretValueNeverWritten();
    void rangeLimits_data();
    void rangeLimits();
    void headerRules_data();
    void headerRules();
    void filterRules_data();
    void filterRules();
    void schemaCombinations_data();
    void schemaCombinations();
    void deadLetterDestinations_data();
    void deadLetterDestinations();
    void destinationTypes_data();
    void destinationTypes();
    void destinationResourceParts_data();
    void destinationResourceParts();
    void settingsRanges_data();
    void settingsRanges();
    void malformedJson();
    void wrongTypes_data();
    void wrongTypes();
    void duplicateNames_data();
    void duplicateNames();
    void customMapping_data();
    void customMapping();
    void validateInMemory();
    void operatorNames();
    void valueCount_data();
    void valueCount();
    void schemaNames();
    void topicLookupAndResourcePath();
    void neverCrashesOnDamagedInput();
};

void TestWorkspace::fullWorkspaceRoundTrip()
{
    const Workspace original = fullWorkspace();
    const QByteArray json = QJsonDocument(original.toJson()).toJson();
    const Expected<Workspace> parsed = Workspace::fromJson(json, u"workspace.json"_s);
    QVERIFY2(parsed, qPrintable(parsed.error()));
    const QString difference = differences(original, parsed.value());
    QVERIFY2(difference.isEmpty(), qPrintable(difference));
    // The serialised form is stable too.
    QCOMPARE(parsed->toJson(), original.toJson());

    // Every subscription round-trips alone through the ARM shape as well.
    for (const Topic &topic : original.topics) {
        for (const EventSubscription &subscription : topic.eventSubscriptions) {
            const Expected<EventSubscription> again = eventSubscriptionFromArm(
                eventSubscriptionToArm(subscription), u"x"_s, topic.inputSchema);
            QVERIFY2(again, qPrintable(again.error()));
            QVERIFY2(differences(subscription, again.value()).isEmpty(),
                     qPrintable(differences(subscription, again.value())));
        }
    }
}

void TestWorkspace::defaultsWhenOmitted()
{
    const Expected<Workspace> empty = Workspace::fromJson(R"({"topics":[]})", u"w.json"_s);
    QVERIFY2(empty, qPrintable(empty.error()));
    QVERIFY(empty->topics.isEmpty());
    QVERIFY(empty->receivers.isEmpty());
    QCOMPARE(empty->settings.deadLetterDelaySeconds, 300);
    QCOMPARE(empty->settings.probationThreshold, 10);
    QCOMPARE(empty->settings.maxConcurrentRequestsPerSubscription, 8);

    // A minimal subscription: SPEC R6 and B1 defaults, no dead-letter destination (L1).
    const Expected<Workspace> minimal = Workspace::fromJson(
        workspaceJson(QJsonObject {
            {"name"_L1, u"abc"_s},
            {"properties"_L1,
             QJsonObject {{"destination"_L1,
                           QJsonObject {{"endpointType"_L1, u"WebHook"_s},
                                        {"properties"_L1,
                                         QJsonObject {{"endpointUrl"_L1, u"http://h/x"_s}}}}}}}}),
        u"workspace.json"_s);
    QVERIFY2(minimal, qPrintable(minimal.error()));
    const Topic &topic = minimal->topics.front();
    QCOMPARE(topic.inputSchema, EventSchema::EventGrid);
    const EventSubscription &subscription = topic.eventSubscriptions.front();
    QCOMPARE(subscription.retryPolicy.maxDeliveryAttempts, 30);
    QCOMPARE(subscription.retryPolicy.eventTimeToLiveInMinutes, 1440);
    QVERIFY(!subscription.batchPolicy.enabled);
    QVERIFY(!subscription.hasDeadLetterDestination());
    QVERIFY(subscription.enabled);
    QVERIFY(subscription.filter.includedEventTypes.isEmpty());
    QVERIFY(!subscription.filter.isSubjectCaseSensitive);
}

void TestWorkspace::defaultDeliverySchema_data()
{
    QTest::addColumn<QString>("inputSchema");
    QTest::addColumn<EventSchema>("expected");
    QTest::newRow("EventGrid") << u"EventGridSchema"_s << EventSchema::EventGrid;
    QTest::newRow("CloudEvents") << u"CloudEventSchemaV1_0"_s << EventSchema::CloudEvents10;
    QTest::newRow("Custom") << u"CustomInputSchema"_s << EventSchema::Custom;
}

void TestWorkspace::defaultDeliverySchema()
{
    QFETCH(QString, inputSchema);
    QFETCH(EventSchema, expected);
    const Expected<Workspace> workspace
        = Workspace::fromJson(workspaceJson(validSubscription(), inputSchema), u"w"_s);
    QVERIFY2(workspace, qPrintable(workspace.error()));
    QCOMPARE(workspace->topics.front().eventSubscriptions.front().deliverySchema, expected);
}

void TestWorkspace::azureCliExportImports()
{
    // `az eventgrid event-subscription show -o json`: flattened properties, nulls for unset
    // fields, no endpointUrl (only endpointBaseUrl), the batch settings always present.
    const QByteArray azureExport = R"({
      "deadLetterDestination": {
        "blobContainerName": "deadletters",
        "endpointType": "StorageBlob",
        "resourceId": "/subscriptions/1b2c/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/contosodl"
      },
      "deadLetterWithResourceIdentity": null,
      "deliveryWithResourceIdentity": null,
      "destination": {
        "azureActiveDirectoryApplicationIdOrUri": null,
        "azureActiveDirectoryTenantId": null,
        "deliveryAttributeMappings": [
          {"name": "X-Tenant", "properties": {"isSecret": false, "value": "contoso"}, "type": "Static"},
          {"name": "X-Api-Key", "properties": {"isSecret": true, "value": null}, "type": "Static"},
          {"name": "X-Region", "properties": {"sourceField": "data.region"}, "type": "Dynamic"}
        ],
        "endpointBaseUrl": "https://contoso.azurewebsites.net/api/updates",
        "endpointType": "WebHook",
        "endpointUrl": null,
        "maxEventsPerBatch": 1,
        "preferredBatchSizeInKilobytes": 64
      },
      "eventDeliverySchema": "EventGridSchema",
      "expirationTimeUtc": null,
      "filter": {
        "advancedFilters": [
          {"key": "data.amount", "operatorType": "NumberGreaterThan", "value": 100.0},
          {"key": "data.kind", "operatorType": "StringIn", "values": ["a", "b"]}
        ],
        "enableAdvancedFilteringOnArrays": null,
        "includedEventTypes": ["Microsoft.Storage.BlobCreated"],
        "isSubjectCaseSensitive": null,
        "subjectBeginsWith": "/blobServices/default/containers/images",
        "subjectEndsWith": ""
      },
      "id": "/subscriptions/1b2c/resourceGroups/rg/providers/Microsoft.EventGrid/topics/orders/providers/Microsoft.EventGrid/eventSubscriptions/contoso-updates",
      "labels": null,
      "name": "contoso-updates",
      "provisioningState": "Succeeded",
      "resourceGroup": "rg",
      "retryPolicy": {"eventTimeToLiveInMinutes": 120, "maxDeliveryAttempts": 5},
      "systemData": null,
      "topic": "/subscriptions/1b2c/resourceGroups/rg/providers/microsoft.eventgrid/topics/orders",
      "type": "Microsoft.EventGrid/eventSubscriptions"
    })";
    const QJsonObject object = QJsonDocument::fromJson(azureExport).object();
    const Expected<EventSubscription> subscription
        = eventSubscriptionFromArm(object, u"import"_s, EventSchema::EventGrid);
    QVERIFY2(subscription, qPrintable(subscription.error()));
    QCOMPARE(subscription->name, u"contoso-updates"_s);
    QCOMPARE(subscription->endpointUrl, QUrl(u"https://contoso.azurewebsites.net/api/updates"_s));
    QCOMPARE(subscription->retryPolicy.maxDeliveryAttempts, 5);
    QCOMPARE(subscription->retryPolicy.eventTimeToLiveInMinutes, 120);
    // SPEC B2: the export always carries both settings, which turns batching on at 1 / 64.
    QVERIFY(subscription->batchPolicy.enabled);
    QCOMPARE(subscription->batchPolicy.maxEventsPerBatch, 1);
    QCOMPARE(subscription->deliveryHeaders.size(), 3);
    QVERIFY(subscription->deliveryHeaders.at(1).secret);
    QVERIFY(subscription->deliveryHeaders.at(1).value.isEmpty());
    QCOMPARE(subscription->deliveryHeaders.at(2).kind, DeliveryHeader::Kind::Dynamic);
    QCOMPARE(subscription->deliveryHeaders.at(2).sourceField, u"data.region"_s);
    QCOMPARE(subscription->filter.advancedFilters.size(), 2);
    QCOMPARE(subscription->filter.advancedFilters.at(0).numbers, QList<double> {100});
    QCOMPARE(subscription->filter.advancedFilters.at(1).strings, QStringList({u"a"_s, u"b"_s}));
    QCOMPARE(subscription->filter.includedEventTypes,
             QStringList {u"Microsoft.Storage.BlobCreated"_s});
    QCOMPARE(subscription->deadLetterDestination.kind, DeadLetterDestination::Kind::AzureBlob);
    QCOMPARE(subscription->deadLetterDestination.blobContainerName, u"deadletters"_s);

    // Errors in the flattened shape point at the flattened field.
    const QJsonObject bad = withValue(object, u"retryPolicy.maxDeliveryAttempts", 31);
    const Expected<EventSubscription> rejected
        = eventSubscriptionFromArm(bad, u"import"_s, EventSchema::EventGrid);
    QCOMPARE(rejected.error(),
             u"import.retryPolicy.maxDeliveryAttempts: must be an integer from 1 to 30 (got 31)"_s);
}

void TestWorkspace::azureResourceManagerExportImports()
{
    // The Resource Manager REST shape (GET .../eventSubscriptions/{name}), inside a workspace.
    const QByteArray json = R"({"topics":[{"name":"orders","eventSubscriptions":[{
      "id": "/subscriptions/1b2c/resourceGroups/rg/providers/Microsoft.EventGrid/topics/orders/providers/Microsoft.EventGrid/eventSubscriptions/sub1",
      "name": "sub1",
      "type": "Microsoft.EventGrid/eventSubscriptions",
      "systemData": {"createdBy": "someone@contoso.com", "createdAt": "2023-01-01T00:00:00Z"},
      "properties": {
        "topic": "/subscriptions/1b2c/resourceGroups/rg/providers/microsoft.eventgrid/topics/orders",
        "provisioningState": "Succeeded",
        "destination": {
          "endpointType": "WebHook",
          "properties": {
            "endpointUrl": "https://contoso.example/hook?code=1",
            "endpointBaseUrl": "https://contoso.example/hook",
            "maxEventsPerBatch": 10,
            "azureActiveDirectoryTenantId": null
          }
        },
        "filter": {
          "includedEventTypes": null,
          "advancedFilters": [
            {"operatorType": "NumberInRange", "key": "data.z", "values": [[1, 5], [7, 9]]},
            {"operatorType": "BoolEquals", "key": "data.b", "value": true},
            {"operatorType": "IsNullOrUndefined", "key": "data.q"}
          ],
          "enableAdvancedFilteringOnArrays": true
        },
        "labels": ["a"],
        "eventDeliverySchema": "CloudEventSchemaV1_0",
        "retryPolicy": {"maxDeliveryAttempts": 30, "eventTimeToLiveInMinutes": 1440},
        "expirationTimeUtc": "2030-01-01T00:00:00Z",
        "deadLetterDestination": {
          "endpointType": "StorageBlob",
          "properties": {"resourceId": "/subscriptions/1b2c/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/local",
                         "blobContainerName": "dead"}
        }
      }
    }]}]})";
    const Expected<Workspace> workspace = Workspace::fromJson(json, u"workspace.json"_s);
    QVERIFY2(workspace, qPrintable(workspace.error()));
    const EventSubscription &subscription = workspace->topics.front().eventSubscriptions.front();
    QCOMPARE(subscription.endpointUrl, QUrl(u"https://contoso.example/hook?code=1"_s));
    QCOMPARE(subscription.deliverySchema, EventSchema::CloudEvents10);
    QVERIFY(subscription.batchPolicy.enabled);
    QCOMPARE(subscription.batchPolicy.maxEventsPerBatch, 10);
    QCOMPARE(subscription.batchPolicy.preferredBatchSizeInKilobytes, 64); // SPEC B2 default
    const QList<std::pair<double, double>> ranges {{1, 5}, {7, 9}};
    QCOMPARE(subscription.filter.advancedFilters.at(0).ranges, ranges);
    QVERIFY(subscription.filter.advancedFilters.at(1).boolValue);
    QCOMPARE(subscription.filter.advancedFilters.at(2).op, FilterOperator::IsNullOrUndefined);
    // docs/user-guide.md "Workspace": a storage account named "local" is the local dead-letter
    // folder.
    QCOMPARE(subscription.deadLetterDestination.kind, DeadLetterDestination::Kind::LocalFolder);
}

void TestWorkspace::secretValueNeverWritten()
{
    // SPEC H2
    EventSubscription subscription;
    subscription.name = u"secret-holder"_s;
    subscription.endpointUrl = QUrl(u"https://example.com"_s);
    subscription.deliveryHeaders.append(DeliveryHeader {
        u"Authorization"_s, DeliveryHeader::Kind::Static, u"Bearer hunter2"_s, QString(), true});
    const QJsonObject arm = eventSubscriptionToArm(subscription);
    const QByteArray text = QJsonDocument(arm).toJson();
    QVERIFY(!text.contains("hunter2"));
    const QJsonObject header = arm.value("properties"_L1)["destination"_L1]["properties"_L1]
                                                         ["deliveryAttributeMappings"_L1][0]
                                                             .toObject();
    QCOMPARE(header.value("properties"_L1).toObject(), QJsonObject({{"isSecret"_L1, true}}));

    const Expected<EventSubscription> back
        = eventSubscriptionFromArm(arm, QString(), EventSchema::EventGrid);
    QVERIFY2(back, qPrintable(back.error()));
    QVERIFY(back->deliveryHeaders.front().secret);
    QVERIFY(back->deliveryHeaders.front().value.isEmpty());
}

void TestWorkspace::rangeLimits_data()
{
    QTest::addColumn<QString>("field");
    QTest::addColumn<QJsonValue>("value");
    QTest::addColumn<QString>("expectedError"); // empty: accepted

    const auto integerError = [](int minimum, int maximum, const QString &got) {
        return u"must be an integer from %1 to %2 (got %3)"_s.arg(minimum).arg(maximum).arg(got);
    };

    // SPEC R6
    const QString attempts = u"properties.retryPolicy.maxDeliveryAttempts"_s;
    QTest::newRow("R6 attempts 0") << attempts << QJsonValue(0) << integerError(1, 30, u"0"_s);
    QTest::newRow("R6 attempts 1") << attempts << QJsonValue(1) << QString();
    QTest::newRow("R6 attempts 2") << attempts << QJsonValue(2) << QString();
    QTest::newRow("R6 attempts 29") << attempts << QJsonValue(29) << QString();
    QTest::newRow("R6 attempts 30") << attempts << QJsonValue(30) << QString();
    QTest::newRow("R6 attempts 31") << attempts << QJsonValue(31) << integerError(1, 30, u"31"_s);
    QTest::newRow("R6 attempts 2.5")
        << attempts << QJsonValue(2.5) << integerError(1, 30, u"2.5"_s);
    QTest::newRow("R6 attempts string")
        << attempts << QJsonValue(u"3"_s) << integerError(1, 30, u"\"3\""_s);
    QTest::newRow("R6 attempts bool")
        << attempts << QJsonValue(true) << integerError(1, 30, u"true"_s);
    QTest::newRow("R6 attempts huge")
        << attempts << QJsonValue(1e12) << integerError(1, 30, u"1000000000000"_s);
    QTest::newRow("R6 attempts null = default") << attempts << QJsonValue() << QString();

    const QString ttl = u"properties.retryPolicy.eventTimeToLiveInMinutes"_s;
    QTest::newRow("R6 ttl 0") << ttl << QJsonValue(0) << integerError(1, 1440, u"0"_s);
    QTest::newRow("R6 ttl 1") << ttl << QJsonValue(1) << QString();
    QTest::newRow("R6 ttl 2") << ttl << QJsonValue(2) << QString();
    QTest::newRow("R6 ttl 1439") << ttl << QJsonValue(1439) << QString();
    QTest::newRow("R6 ttl 1440") << ttl << QJsonValue(1440) << QString();
    QTest::newRow("R6 ttl 1441") << ttl << QJsonValue(1441) << integerError(1, 1440, u"1441"_s);
    QTest::newRow("R6 ttl -1") << ttl << QJsonValue(-1) << integerError(1, 1440, u"-1"_s);

    // SPEC B2
    const QString events = u"properties.destination.properties.maxEventsPerBatch"_s;
    QTest::newRow("B2 events 0") << events << QJsonValue(0) << integerError(1, 5000, u"0"_s);
    QTest::newRow("B2 events 1") << events << QJsonValue(1) << QString();
    QTest::newRow("B2 events 2") << events << QJsonValue(2) << QString();
    QTest::newRow("B2 events 4999") << events << QJsonValue(4999) << QString();
    QTest::newRow("B2 events 5000") << events << QJsonValue(5000) << QString();
    QTest::newRow("B2 events 5001")
        << events << QJsonValue(5001) << integerError(1, 5000, u"5001"_s);
    QTest::newRow("B2 events 1.5") << events << QJsonValue(1.5) << integerError(1, 5000, u"1.5"_s);

    const QString kilobytes = u"properties.destination.properties.preferredBatchSizeInKilobytes"_s;
    QTest::newRow("B2 kilobytes 0") << kilobytes << QJsonValue(0) << integerError(1, 1024, u"0"_s);
    QTest::newRow("B2 kilobytes 1") << kilobytes << QJsonValue(1) << QString();
    QTest::newRow("B2 kilobytes 2") << kilobytes << QJsonValue(2) << QString();
    QTest::newRow("B2 kilobytes 1023") << kilobytes << QJsonValue(1023) << QString();
    QTest::newRow("B2 kilobytes 1024") << kilobytes << QJsonValue(1024) << QString();
    QTest::newRow("B2 kilobytes 1025")
        << kilobytes << QJsonValue(1025) << integerError(1, 1024, u"1025"_s);
    QTest::newRow("B2 kilobytes string")
        << kilobytes << QJsonValue(u"64"_s) << integerError(1, 1024, u"\"64\""_s);

    // SPEC §1 subscription names
    const QString nameRule = u"must be 3 to 64 characters of A-Z, a-z, 0-9 and '-' (got %1)"_s;
    QTest::newRow("§1 name 2") << u"name"_s << QJsonValue(u"ab"_s) << nameRule.arg(u"\"ab\""_s);
    QTest::newRow("§1 name 3") << u"name"_s << QJsonValue(u"a-B"_s) << QString();
    QTest::newRow("§1 name 64") << u"name"_s << QJsonValue(QString(64, u'x')) << QString();
    QTest::newRow("§1 name 65") << u"name"_s << QJsonValue(QString(65, u'x'))
                                << nameRule.arg(u"\"" + QString(57, u'x') + u"...\"");
    QTest::newRow("§1 name underscore")
        << u"name"_s << QJsonValue(u"bad_name"_s) << nameRule.arg(u"\"bad_name\""_s);
    QTest::newRow("§1 name non-ascii")
        << u"name"_s << QJsonValue(u"größe"_s) << nameRule.arg(u"\"größe\""_s);
    QTest::newRow("§1 name number")
        << u"name"_s << QJsonValue(12345) << u"must be a string (got 12345)"_s;

    // SPEC §1 destination
    const QString url = u"properties.destination.properties.endpointUrl"_s;
    const QString urlRule = u"must be an absolute http or https URL with a host (got %1)"_s;
    QTest::newRow("§1 url https") << url << QJsonValue(u"https://example.com/x?y=1"_s) << QString();
    QTest::newRow("§1 url http port")
        << url << QJsonValue(u"http://127.0.0.1:8080/receivers/a"_s) << QString();
    QTest::newRow("§1 url ftp") << url << QJsonValue(u"ftp://example.com/x"_s)
                                << urlRule.arg(u"\"ftp://example.com/x\""_s);
    QTest::newRow("§1 url no host")
        << url << QJsonValue(u"http://"_s) << urlRule.arg(u"\"http://\""_s);
    QTest::newRow("§1 url relative")
        << url << QJsonValue(u"/api/events"_s) << urlRule.arg(u"\"/api/events\""_s);
    QTest::newRow("§1 url spaces")
        << url << QJsonValue(u"http://a b/"_s) << urlRule.arg(u"\"http://a b/\""_s);
    QTest::newRow("§1 url missing")
        << url << QJsonValue() << u"required string is missing (an absolute http or https URL)"_s;

    QTest::newRow("S4 unknown schema")
        << u"properties.eventDeliverySchema"_s << QJsonValue(u"Avro"_s)
        << u"must be EventGridSchema, CloudEventSchemaV1_0 or "
           u"CustomInputSchema (got \"Avro\")"_s;
}

void TestWorkspace::rangeLimits()
{
    QFETCH(QString, field);
    QFETCH(QJsonValue, value);
    QFETCH(QString, expectedError);
    const QJsonObject subscription = withValue(validSubscription(), field, value);
    const QString error = errorOf(workspaceJson(subscription));
    if (expectedError.isEmpty())
        QCOMPARE(error, QString());
    else
        QCOMPARE(error, subscriptionPath + field + u": "_s + expectedError);
}

void TestWorkspace::headerRules_data()
{
    QTest::addColumn<QJsonArray>("headers");
    QTest::addColumn<QString>("expectedError"); // empty: accepted

    const auto staticHeader = [](const QString &name, const QString &value) {
        return QJsonObject {
            {"name"_L1, name},
            {"type"_L1, u"Static"_s},
            {"properties"_L1, QJsonObject {{"value"_L1, value}, {"isSecret"_L1, false}}}};
    };
    const auto headers = [&](int count) {
        QJsonArray array;
        for (int index = 0; index < count; ++index)
            array.append(staticHeader(u"X-Header-%1"_s.arg(index), u"v"_s));
        return array;
    };
    const QString at = u"properties.destination.properties.deliveryAttributeMappings"_s;

    QTest::newRow("H1 9 headers") << headers(9) << QString();
    QTest::newRow("H1 10 headers") << headers(10) << QString();
    QTest::newRow("H1 11 headers")
        << headers(11) << at + u": must hold at most 10 delivery headers (got 11)"_s;
    QTest::newRow("H1 token characters")
        << QJsonArray {staticHeader(u"X-a_b.c~!#$%&'*+^`|"_s, u"v"_s)} << QString();
    const QString tokenRule = u": must be a valid HTTP header name (an RFC 7230 token: letters, "
                              u"digits and !#$%&'*+-.^_`|~) (got %1)"_s;
    QTest::newRow("H1 space in name") << QJsonArray {staticHeader(u"X Header"_s, u"v"_s)}
                                      << at + u"[0].name"_s + tokenRule.arg(u"\"X Header\""_s);
    QTest::newRow("H1 colon in name") << QJsonArray {staticHeader(u"X:Header"_s, u"v"_s)}
                                      << at + u"[0].name"_s + tokenRule.arg(u"\"X:Header\""_s);
    QTest::newRow("H1 empty name") << QJsonArray {staticHeader(QString(), u"v"_s)}
                                   << at + u"[0].name"_s + tokenRule.arg(u"\"\""_s);
    QTest::newRow("H1 aeg- prefix")
        << QJsonArray {staticHeader(u"X-Ok"_s, u"v"_s), staticHeader(u"aeg-custom"_s, u"v"_s)}
        << at
            + u"[1].name: must not start with \"aeg-\", which is reserved for Event Grid's "
              u"own headers (got \"aeg-custom\")"_s;
    QTest::newRow("H1 AEG- prefix upper case")
        << QJsonArray {staticHeader(u"AEG-Delivery-Count"_s, u"v"_s)}
        << at
            + u"[0].name: must not start with \"aeg-\", which is reserved for Event Grid's "
              u"own headers (got \"AEG-Delivery-Count\")"_s;
    QTest::newRow("H1 aeg without dash is fine")
        << QJsonArray {staticHeader(u"aegis"_s, u"v"_s)} << QString();
    QTest::newRow("H1 duplicate case-insensitive")
        << QJsonArray {staticHeader(u"X-Tenant"_s, u"a"_s), staticHeader(u"x-tenant"_s, u"b"_s)}
        << at
            + u"[1].name: duplicate header name \"x-tenant\" (header names must be unique, "
              u"compared case-insensitively; see topics[0].eventSubscriptions[0]."_s
            + at + u"[0])"_s;
    QTest::newRow("H1 value 4096 bytes")
        << QJsonArray {staticHeader(u"X-Big"_s, QString(4096, u'v'))} << QString();
    QTest::newRow("H1 value 4097 bytes")
        << QJsonArray {staticHeader(u"X-Big"_s, QString(4097, u'v'))}
        << at + u"[0].properties.value: value of header 'X-Big' must be at most 4096 bytes of UTF-8 (got 4097 bytes)"_s;
    // "é" is two bytes of UTF-8: the limit is bytes, not characters.
    QTest::newRow("H1 value 2048 x é")
        << QJsonArray {staticHeader(u"X-Big"_s, QString(2048, u'é'))} << QString();
    QTest::newRow("H1 value 2049 x é")
        << QJsonArray {staticHeader(u"X-Big"_s, QString(2049, u'é'))}
        << at + u"[0].properties.value: value of header 'X-Big' must be at most 4096 bytes of UTF-8 (got 4098 bytes)"_s;
    QTest::newRow("H1 value CR") << QJsonArray {staticHeader(u"X-A"_s, u"a\rb"_s)}
                                 << at
            + u"[0].properties.value: value of header 'X-A' must not contain CR, LF or NUL characters"_s;
    QTest::newRow("H1 value LF") << QJsonArray {staticHeader(u"X-A"_s, u"a\nInjected: 1"_s)}
                                 << at
            + u"[0].properties.value: value of header 'X-A' must not contain CR, LF or NUL characters"_s;
    QTest::newRow("H3 dynamic ok") << QJsonArray {QJsonObject {
        {"name"_L1, u"X-Dyn"_s},
        {"type"_L1, u"Dynamic"_s},
        {"properties"_L1, QJsonObject {{"sourceField"_L1, u"data.key1"_s}}}}}
                                   << QString();
    QTest::newRow("H3 dynamic without sourceField") << QJsonArray {QJsonObject {
        {"name"_L1, u"X-Dyn"_s}, {"type"_L1, u"Dynamic"_s}, {"properties"_L1, QJsonObject()}}}
                                                    << at
            + u"[0].properties.sourceField: required string is missing"_s;
    QTest::newRow("H3 dynamic empty sourceField")
        << QJsonArray {QJsonObject {{"name"_L1, u"X-Dyn"_s},
                                    {"type"_L1, u"Dynamic"_s},
                                    {"properties"_L1, QJsonObject {{"sourceField"_L1, QString()}}}}}
        << at
            + u"[0].properties.sourceField: required for a Dynamic header: the event field "
              u"that supplies the value (e.g. data.key1 or subject)"_s;
    QTest::newRow("H2 secret without value")
        << QJsonArray {QJsonObject {{"name"_L1, u"X-Key"_s},
                                    {"type"_L1, u"Static"_s},
                                    {"properties"_L1, QJsonObject {{"isSecret"_L1, true}}}}}
        << QString();
    QTest::newRow("H2 static without value")
        << QJsonArray {QJsonObject {{"name"_L1, u"X-Key"_s},
                                    {"type"_L1, u"Static"_s},
                                    {"properties"_L1, QJsonObject {{"isSecret"_L1, false}}}}}
        << at + u"[0].properties.value: required string is missing"_s;
    QTest::newRow("H1 unknown type")
        << QJsonArray {QJsonObject {{"name"_L1, u"X-Key"_s}, {"type"_L1, u"Computed"_s}}}
        << at + u"[0].type: must be Static or Dynamic (got \"Computed\")"_s;
    QTest::newRow("H1 not an object")
        << QJsonArray {u"X-Key: v"_s} << at + u"[0]: must be an object (got \"X-Key: v\")"_s;
}

void TestWorkspace::headerRules()
{
    QFETCH(QJsonArray, headers);
    QFETCH(QString, expectedError);
    const QJsonObject subscription
        = withValue(validSubscription(),
                    u"properties.destination.properties.deliveryAttributeMappings", headers);
    const QString error = errorOf(workspaceJson(subscription));
    if (expectedError.isEmpty())
        QCOMPARE(error, QString());
    else
        QCOMPARE(error, subscriptionPath + expectedError);
}

void TestWorkspace::filterRules_data()
{
    QTest::addColumn<QJsonArray>("advancedFilters");
    QTest::addColumn<QString>("expectedError"); // empty: accepted

    const auto filter = [](const QString &op, const QString &key, const QJsonValue &values,
                           const char *valueKey = "values") {
        QJsonObject object {{"operatorType"_L1, op}, {"key"_L1, key}};
        if (!values.isUndefined())
            object.insert(QLatin1StringView(valueKey), values);
        return object;
    };
    const auto repeated = [&](int filters, int valuesEach) {
        QJsonArray array;
        for (int index = 0; index < filters; ++index) {
            QJsonArray values;
            for (int value = 0; value < valuesEach; ++value)
                values.append(value);
            array.append(filter(u"NumberIn"_s, u"data.n%1"_s.arg(index), values));
        }
        return array;
    };
    const QString at = u"properties.filter.advancedFilters"_s;

    QTest::newRow("24 filters") << repeated(24, 1) << QString();
    QTest::newRow("25 filters") << repeated(25, 1) << QString();
    QTest::newRow("26 filters") << repeated(26, 0)
                                << at + u": must hold at most 25 advanced filters (got 26)"_s;
    QTest::newRow("24 values") << repeated(2, 12) << QString();
    QTest::newRow("25 values") << repeated(5, 5) << QString();
    QTest::newRow("26 values") << repeated(2, 13)
                               << at
            + u": must hold at most 25 values in total across all "
              u"advanced filters (got 26)"_s;
    // IsNull* count zero values; BoolEquals and single-number operators count one.
    QJsonArray mixed = repeated(1, 23);
    mixed.append(filter(u"IsNullOrUndefined"_s, u"data.q"_s, QJsonValue(QJsonValue::Undefined)));
    mixed.append(filter(u"BoolEquals"_s, u"data.b"_s, true, "value"));
    mixed.append(filter(u"NumberLessThan"_s, u"data.l"_s, 3, "value"));
    QTest::newRow("25 values mixed") << mixed << QString();
    mixed.append(filter(u"NumberGreaterThan"_s, u"data.g"_s, 3, "value"));
    QTest::newRow("26 values mixed")
        << mixed
        << at + u": must hold at most 25 values in total across all advanced filters (got 26)"_s;

    QTest::newRow("string 511") << QJsonArray {filter(u"StringContains"_s, u"subject"_s,
                                                      QJsonArray {QString(511, u's')})}
                                << QString();
    QTest::newRow("string 512") << QJsonArray {filter(u"StringContains"_s, u"subject"_s,
                                                      QJsonArray {QString(512, u's')})}
                                << QString();
    QTest::newRow("string 513") << QJsonArray {filter(u"StringContains"_s, u"subject"_s,
                                                      QJsonArray {u"a"_s, QString(513, u's')})}
                                << at
            + u"[0].values[1]: must be at most 512 characters (got 513)"_s;
    QTest::newRow("unknown operator")
        << QJsonArray {filter(u"NumberBetween"_s, u"data.x"_s, QJsonArray {1})}
        << at
            + u"[0].operatorType: unknown operator \"NumberBetween\"; valid: NumberIn, "
              u"NumberNotIn, NumberLessThan, NumberLessThanOrEquals, NumberGreaterThan, "
              u"NumberGreaterThanOrEquals, NumberInRange, NumberNotInRange, BoolEquals, "
              u"StringIn, StringNotIn, StringContains, StringNotContains, StringBeginsWith, "
              u"StringNotBeginsWith, StringEndsWith, StringNotEndsWith, IsNullOrUndefined, "
              u"IsNotNull"_s;
    QTest::newRow("missing key") << QJsonArray {QJsonObject {{"operatorType"_L1, u"IsNotNull"_s}}}
                                 << at + u"[0].key: required string is missing"_s;
    QTest::newRow("empty key") << QJsonArray {filter(u"IsNotNull"_s, QString(),
                                                     QJsonValue(QJsonValue::Undefined))}
                               << at
            + u"[0].key: required: the event field to test (e.g. data.color or subject)"_s;
    QTest::newRow("NumberIn with string")
        << QJsonArray {filter(u"NumberIn"_s, u"data.x"_s, QJsonArray {1, u"2"_s})}
        << at + u"[0].values[1]: must be a number (got \"2\")"_s;
    QTest::newRow("NumberIn empty") << QJsonArray {filter(u"NumberIn"_s, u"data.x"_s, QJsonArray())}
                                    << at + u"[0].values: NumberIn needs at least one number"_s;
    QTest::newRow("NumberIn values missing")
        << QJsonArray {filter(u"NumberIn"_s, u"data.x"_s, QJsonValue(QJsonValue::Undefined))}
        << at + u"[0].values: required array is missing"_s;
    QTest::newRow("NumberGreaterThan string")
        << QJsonArray {filter(u"NumberGreaterThan"_s, u"data.y"_s, u"5"_s, "value")}
        << at + u"[0].value: must be a number (got \"5\")"_s;
    QTest::newRow("NumberGreaterThan missing") << QJsonArray {filter(
        u"NumberGreaterThan"_s, u"data.y"_s, QJsonValue(QJsonValue::Undefined))}
                                               << at + u"[0].value: required number is missing"_s;
    QTest::newRow("range ok") << QJsonArray {filter(
        u"NumberInRange"_s, u"data.z"_s, QJsonArray {QJsonArray {1, 5}, QJsonArray {7, 7}})}
                              << QString();
    QTest::newRow("range min > max")
        << QJsonArray {filter(u"NumberInRange"_s, u"data.z"_s, QJsonArray {QJsonArray {9, 1}})}
        << at
            + u"[0].values[0]: must be a [min, max] pair of numbers with min <= max (got [9, 1])"_s;
    QTest::newRow("range not a pair")
        << QJsonArray {filter(u"NumberNotInRange"_s, u"data.z"_s,
                              QJsonArray {QJsonArray {1, 2, 3}})}
        << at + u"[0].values[0]: must be a [min, max] pair of numbers (got [1,2,3])"_s;
    QTest::newRow("range flat numbers")
        << QJsonArray {filter(u"NumberInRange"_s, u"data.z"_s, QJsonArray {1, 5})}
        << at + u"[0].values[0]: must be a [min, max] pair of numbers (got 1)"_s;
    QTest::newRow("BoolEquals string")
        << QJsonArray {filter(u"BoolEquals"_s, u"data.b"_s, u"true"_s, "value")}
        << at + u"[0].value: must be true or false (got \"true\")"_s;
    QTest::newRow("StringIn number")
        << QJsonArray {filter(u"StringIn"_s, u"data.s"_s, QJsonArray {5})}
        << at + u"[0].values[0]: must be a string (got 5)"_s;
    QTest::newRow("StringIn empty") << QJsonArray {filter(u"StringIn"_s, u"data.s"_s, QJsonArray())}
                                    << at + u"[0].values: StringIn needs at least one string"_s;
    QTest::newRow("operator case-insensitive")
        << QJsonArray {filter(u"stringbeginswith"_s, u"subject"_s, QJsonArray {u"a"_s})}
        << QString();
}

void TestWorkspace::filterRules()
{
    QFETCH(QJsonArray, advancedFilters);
    QFETCH(QString, expectedError);
    const QJsonObject subscription
        = withValue(validSubscription(), u"properties.filter.advancedFilters", advancedFilters);
    const QString error = errorOf(workspaceJson(subscription));
    if (expectedError.isEmpty())
        QCOMPARE(error, QString());
    else
        QCOMPARE(error, subscriptionPath + expectedError);
}

void TestWorkspace::schemaCombinations_data()
{
    QTest::addColumn<QString>("inputSchema");
    QTest::addColumn<QString>("deliverySchema");
    QTest::addColumn<QString>("supported"); // empty when supported, else the valid choices

    const QString eventGrid = u"EventGridSchema"_s;
    const QString cloudEvents = u"CloudEventSchemaV1_0"_s;
    const QString custom = u"CustomInputSchema"_s;
    // SPEC S4
    QTest::newRow("EG->EG") << eventGrid << eventGrid << QString();
    QTest::newRow("EG->CE") << eventGrid << cloudEvents << QString();
    QTest::newRow("EG->Custom") << eventGrid << custom
                                << u"EventGridSchema or CloudEventSchemaV1_0"_s;
    QTest::newRow("CE->CE") << cloudEvents << cloudEvents << QString();
    QTest::newRow("CE->EG") << cloudEvents << eventGrid << u"CloudEventSchemaV1_0"_s;
    QTest::newRow("CE->Custom") << cloudEvents << custom << u"CloudEventSchemaV1_0"_s;
    QTest::newRow("Custom->Custom") << custom << custom << QString();
    QTest::newRow("Custom->EG") << custom << eventGrid << QString();
    QTest::newRow("Custom->CE") << custom << cloudEvents
                                << u"CustomInputSchema or EventGridSchema"_s;
}

void TestWorkspace::schemaCombinations()
{
    QFETCH(QString, inputSchema);
    QFETCH(QString, deliverySchema);
    QFETCH(QString, supported);
    const QJsonObject subscription
        = withValue(validSubscription(), u"properties.eventDeliverySchema", deliverySchema);
    const QString error = errorOf(workspaceJson(subscription, inputSchema));
    if (supported.isEmpty()) {
        QCOMPARE(error, QString());
    } else {
        QCOMPARE(error,
                 subscriptionPath + u"properties.eventDeliverySchema: "_s + deliverySchema
                     + u" is not supported for a topic whose inputSchema is "_s + inputSchema
                     + u"; use "_s + supported);
    }
}

void TestWorkspace::deadLetterDestinations_data()
{
    QTest::addColumn<QJsonObject>("properties");
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("expectedError");

    const QString account
        = u"/subscriptions/1/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/"_s;
    const QString at = u"properties.deadLetterDestination.properties."_s;
    const int local = int(DeadLetterDestination::Kind::LocalFolder);
    const int azure = int(DeadLetterDestination::Kind::AzureBlob);
    // SPEC L5, docs/user-guide.md "Workspace"
    QTest::newRow("local") << QJsonObject {{"resourceId"_L1, u"local"_s},
                                           {"blobContainerName"_L1, u"deadletters"_s}}
                           << local << QString();
    QTest::newRow("account named local")
        << QJsonObject {{"resourceId"_L1, QString(account + u"local"_s)},
                        {"blobContainerName"_L1, u"dead"_s}}
        << local << QString();
    QTest::newRow("azure account")
        << QJsonObject {{"resourceId"_L1, QString(account + u"contoso"_s)},
                        {"blobContainerName"_L1, u"dead"_s}}
        << azure << QString();
    QTest::newRow("azurite by name")
        << QJsonObject {{"resourceId"_L1, u"azurite"_s},
                        {"accountName"_L1, u"devstoreaccount1"_s},
                        {"blobEndpoint"_L1, u"http://127.0.0.1:10000/devstoreaccount1"_s},
                        {"blobContainerName"_L1, u"dead"_s}}
        << azure << QString();
    QTest::newRow("azure without account")
        << QJsonObject {{"resourceId"_L1, u"somewhere"_s}, {"blobContainerName"_L1, u"dead"_s}}
        << azure
        << at
            + u"resourceId: must name a storage account (.../storageAccounts/<account>), or accountName must be set (got \"somewhere\")"_s;
    QTest::newRow("container traversal")
        << QJsonObject {{"resourceId"_L1, u"local"_s}, {"blobContainerName"_L1, u"../etc"_s}}
        << local
        << at
            + u"blobContainerName: must be 3 to 63 characters of a-z, 0-9 and '-', starting and ending with a letter or digit, with no \"--\" (Azure container naming) (got \"../etc\")"_s;
    QTest::newRow("container missing") << QJsonObject {{"resourceId"_L1, u"local"_s}} << local
                                       << at + u"blobContainerName: required string is missing"_s;
    QTest::newRow("bad blob endpoint")
        << QJsonObject {{"resourceId"_L1, QString(account + u"contoso"_s)},
                        {"blobContainerName"_L1, u"dead"_s},
                        {"blobEndpoint"_L1, u"127.0.0.1:10000"_s}}
        << azure
        << at
            + u"blobEndpoint: must be an absolute http or https URL with a host (got \"127.0.0.1:10000\")"_s;
}

void TestWorkspace::deadLetterDestinations()
{
    QFETCH(QJsonObject, properties);
    QFETCH(int, kind);
    QFETCH(QString, expectedError);
    const QJsonObject subscription = withValue(
        validSubscription(), u"properties.deadLetterDestination",
        QJsonObject {{"endpointType"_L1, u"StorageBlob"_s}, {"properties"_L1, properties}});
    const Expected<Workspace> workspace
        = Workspace::fromJson(workspaceJson(subscription), u"workspace.json"_s);
    if (!expectedError.isEmpty()) {
        QCOMPARE(workspace.error(), subscriptionPath + expectedError);
        return;
    }
    QVERIFY2(workspace, qPrintable(workspace.error()));
    const EventSubscription &parsed = workspace->topics.front().eventSubscriptions.front();
    QCOMPARE(int(parsed.deadLetterDestination.kind), kind);
    QVERIFY(parsed.hasDeadLetterDestination());
    // Round trip keeps the destination exactly.
    const Expected<EventSubscription> again = eventSubscriptionFromArm(
        eventSubscriptionToArm(parsed), QString(), EventSchema::EventGrid);
    QVERIFY2(again, qPrintable(again.error()));
    QCOMPARE(differences(parsed, again.value()), QString());
}

void TestWorkspace::destinationTypes_data()
{
    QTest::addColumn<QJsonObject>("destination");
    QTest::addColumn<int>("type");
    QTest::addColumn<QString>("expectedError");

    const QString providers = u"/subscriptions/1/resourceGroups/rg/providers/"_s;
    const QString account = providers + u"Microsoft.Storage/storageAccounts/devstore"_s;
    const QString function = providers + u"Microsoft.Web/sites/orders-app/functions/OnOrder"_s;
    const QString queue = providers + u"Microsoft.ServiceBus/namespaces/shop/queues/orders"_s;
    const QString topic = providers + u"Microsoft.ServiceBus/namespaces/shop/topics/orders"_s;
    const QString hub = providers + u"Microsoft.EventHub/namespaces/shop/eventhubs/orders"_s;
    const QString at = u"properties.destination.properties."_s;
    const auto destination = [](const QString &type, const QJsonObject &properties) {
        return QJsonObject {{"endpointType"_L1, type}, {"properties"_L1, properties}};
    };
    const int storageQueue = int(DestinationType::StorageQueue);

    QTest::newRow("storage queue")
        << destination(u"StorageQueue"_s,
                       {{"resourceId"_L1, account},
                        {"queueName"_L1, u"orders"_s},
                        {"queueMessageTimeToLiveInSeconds"_L1, 3600}})
        << storageQueue << QString();
    QTest::newRow("storage queue, never expires, Azurite")
        << destination(u"storagequeue"_s,
                       {{"resourceId"_L1, account},
                        {"queueName"_L1, u"orders-2"_s},
                        {"queueMessageTimeToLiveInSeconds"_L1, -1},
                        {"serviceUrl"_L1, u"http://127.0.0.1:10001/devstoreaccount1"_s}})
        << storageQueue << QString();
    QTest::newRow("function") << destination(u"AzureFunction"_s, {{"resourceId"_L1, function}})
                              << int(DestinationType::AzureFunction) << QString();
    QTest::newRow("function, batched, local host")
        << destination(u"AzureFunction"_s,
                       {{"resourceId"_L1, function},
                        {"maxEventsPerBatch"_L1, 10},
                        {"serviceUrl"_L1, u"http://localhost:7072"_s}})
        << int(DestinationType::AzureFunction) << QString();
    QTest::newRow("service bus queue")
        << destination(u"ServiceBusQueue"_s, {{"resourceId"_L1, queue}})
        << int(DestinationType::ServiceBusQueue) << QString();
    QTest::newRow("service bus topic")
        << destination(u"ServiceBusTopic"_s, {{"resourceId"_L1, topic}})
        << int(DestinationType::ServiceBusTopic) << QString();
    QTest::newRow("event hub") << destination(u"EventHub"_s, {{"resourceId"_L1, hub}})
                               << int(DestinationType::EventHub) << QString();

    QTest::newRow("queue without queueName")
        << destination(u"StorageQueue"_s, {{"resourceId"_L1, account}}) << storageQueue
        << at + u"queueName: required string is missing"_s;
    QTest::newRow("queue name upper case")
        << destination(u"StorageQueue"_s, {{"resourceId"_L1, account}, {"queueName"_L1, u"Orders"_s}})
        << storageQueue
        << at + u"queueName: must be 3-63 lower-case letters, digits and single hyphens, starting and ending with a letter or digit (got \"Orders\")"_s;
    QTest::newRow("queue ttl zero")
        << destination(u"StorageQueue"_s,
                       {{"resourceId"_L1, account},
                        {"queueName"_L1, u"orders"_s},
                        {"queueMessageTimeToLiveInSeconds"_L1, 0}})
        << storageQueue
        << at + u"queueMessageTimeToLiveInSeconds: must be -1 (never expire) or a whole number of seconds from 1 to 2147483647 (got 0)"_s;
    QTest::newRow("queue ttl -2")
        << destination(u"StorageQueue"_s,
                       {{"resourceId"_L1, account},
                        {"queueName"_L1, u"orders"_s},
                        {"queueMessageTimeToLiveInSeconds"_L1, -2}})
        << storageQueue
        << at + u"queueMessageTimeToLiveInSeconds: must be -1 (never expire) or a whole number of seconds from 1 to 2147483647 (got -2)"_s;
    QTest::newRow("queue on a function's id")
        << destination(u"StorageQueue"_s, {{"resourceId"_L1, function}, {"queueName"_L1, u"orders"_s}})
        << storageQueue
        << at + u"resourceId: must be the resource id of the storage account (/subscriptions/<id>/resourceGroups/<group>/providers/Microsoft.Storage/storageAccounts/<account>; got \""_s + function + u"\")"_s;
    QTest::newRow("queue account name invalid")
        << destination(u"StorageQueue"_s,
                       {{"resourceId"_L1, QString(providers + u"Microsoft.Storage/storageAccounts/Dev_Store"_s)},
                        {"queueName"_L1, u"orders"_s}})
        << storageQueue
        << at + u"resourceId: names storage account \"Dev_Store\": account names are 3-24 lower-case letters and digits"_s;
    QTest::newRow("queue batching")
        << destination(u"StorageQueue"_s,
                       {{"resourceId"_L1, account},
                        {"queueName"_L1, u"orders"_s},
                        {"maxEventsPerBatch"_L1, 10}})
        << storageQueue
        << at + u"maxEventsPerBatch: batching is not available for StorageQueue destinations (only WebHook and AzureFunction); remove it"_s;
    QTest::newRow("queue delivery properties")
        << destination(u"StorageQueue"_s,
                       {{"resourceId"_L1, account},
                        {"queueName"_L1, u"orders"_s},
                        {"deliveryAttributeMappings"_L1,
                         QJsonArray {QJsonObject {{"name"_L1, u"x-a"_s},
                                                  {"type"_L1, u"Static"_s},
                                                  {"properties"_L1, QJsonObject {{"value"_L1, u"1"_s}}}}}}})
        << storageQueue
        << at + u"deliveryAttributeMappings: StorageQueue destinations carry no delivery properties; remove the 1 mapping(s)"_s;
    QTest::newRow("function without function")
        << destination(u"AzureFunction"_s,
                       {{"resourceId"_L1, QString(providers + u"Microsoft.Web/sites/orders-app"_s)}})
        << int(DestinationType::AzureFunction)
        << at + u"resourceId: must be the resource id of the function (/subscriptions/<id>/resourceGroups/<group>/providers/Microsoft.Web/sites/<app>/functions/<function>; got \""_s + providers + u"Microsoft.Web/sites/orders-app\")"_s;
    QTest::newRow("topic id for a queue")
        << destination(u"ServiceBusQueue"_s, {{"resourceId"_L1, topic}})
        << int(DestinationType::ServiceBusQueue)
        << at + u"resourceId: must be the resource id of the Service Bus queue (/subscriptions/<id>/resourceGroups/<group>/providers/Microsoft.ServiceBus/namespaces/<namespace>/queues/<queue>; got \""_s + topic + u"\")"_s;
    QTest::newRow("event hub batching")
        << destination(u"EventHub"_s,
                       {{"resourceId"_L1, hub}, {"preferredBatchSizeInKilobytes"_L1, 64}})
        << int(DestinationType::EventHub)
        << at + u"preferredBatchSizeInKilobytes: batching is not available for EventHub destinations (only WebHook and AzureFunction); remove it"_s;
    QTest::newRow("bad service url")
        << destination(u"EventHub"_s, {{"resourceId"_L1, hub}, {"serviceUrl"_L1, u"localhost:8080"_s}})
        << int(DestinationType::EventHub)
        << at + u"serviceUrl: must be an absolute http or https URL with a host (got \"localhost:8080\")"_s;
}

void TestWorkspace::destinationTypes()
{
    QFETCH(QJsonObject, destination);
    QFETCH(int, type);
    QFETCH(QString, expectedError);
    const QJsonObject subscription
        = withValue(validSubscription(), u"properties.destination", destination);
    const Expected<Workspace> workspace
        = Workspace::fromJson(workspaceJson(subscription), u"workspace.json"_s);
    if (!expectedError.isEmpty()) {
        QCOMPARE(workspace.error(), subscriptionPath + expectedError);
        return;
    }
    QVERIFY2(workspace, qPrintable(workspace.error()));
    const EventSubscription &parsed = workspace->topics.front().eventSubscriptions.front();
    QCOMPARE(int(parsed.destination.type), type);
    QCOMPARE(parsed.destination.resourceId,
             destination.value("properties"_L1).toObject().value("resourceId"_L1).toString());
    QVERIFY(!parsed.needsEndpointValidation()); // only webhooks are asked to validate
    QVERIFY(Destinations::resource(parsed.destination).has_value());
    // Round trip keeps the destination exactly, with Resource Manager's spelling of its type.
    const QJsonObject written = eventSubscriptionToArm(parsed);
    QCOMPARE(written.value("properties"_L1).toObject().value("destination"_L1).toObject()
                 .value("endpointType"_L1).toString(),
             destinationTypeName(DestinationType(type)));
    const Expected<EventSubscription> again
        = eventSubscriptionFromArm(written, QString(), EventSchema::EventGrid);
    QVERIFY2(again, qPrintable(again.error()));
    QCOMPARE(differences(parsed, again.value()), QString());
    // The editor validates the same way as the file does.
    QVERIFY(validateEventSubscription(parsed, EventSchema::EventGrid, QString()));
}

void TestWorkspace::destinationResourceParts_data()
{
    QTest::addColumn<int>("type");
    QTest::addColumn<QString>("resourceId");
    QTest::addColumn<QStringList>("parts"); // account, site, function, namespace, entity
    QTest::addColumn<bool>("whole");

    const QString scope = u"/subscriptions/5e1c/resourceGroups/shop"_s;
    QTest::newRow("function") << int(DestinationType::AzureFunction)
                              << scope
            + u"/providers/Microsoft.Web/sites/orders-app/functions/OnOrder"_s
                              << QStringList {{}, u"orders-app"_s, u"OnOrder"_s, {}, {}} << true;
    QTest::newRow("function being typed")
        << int(DestinationType::AzureFunction)
        << u"/providers/Microsoft.Web/sites/orders-app/functions/"_s
        << QStringList {{}, u"orders-app"_s, {}, {}, {}} << false;
    QTest::newRow("storage account")
        << int(DestinationType::StorageQueue)
        << scope + u"/providers/Microsoft.Storage/storageAccounts/dev"_s
        << QStringList {u"dev"_s, {}, {}, {}, {}} << true;
    QTest::newRow("service bus queue")
        << int(DestinationType::ServiceBusQueue)
        << u"/providers/Microsoft.ServiceBus/namespaces/shop/queues/orders"_s
        << QStringList {{}, {}, {}, u"shop"_s, u"orders"_s} << true;
    QTest::newRow("service bus topic")
        << int(DestinationType::ServiceBusTopic)
        << scope + u"/providers/Microsoft.ServiceBus/namespaces/shop/topics/orders"_s
        << QStringList {{}, {}, {}, u"shop"_s, u"orders"_s} << true;
    QTest::newRow("event hub without hub")
        << int(DestinationType::EventHub)
        << u"/providers/Microsoft.EventHub/namespaces/shop/eventhubs/"_s
        << QStringList {{}, {}, {}, u"shop"_s, {}} << false;
}

// The editor shows the parts of a resource id while it is typed and builds the id from the parts
// typed: both directions meet.
void TestWorkspace::destinationResourceParts()
{
    QFETCH(int, type);
    QFETCH(QString, resourceId);
    QFETCH(QStringList, parts);
    QFETCH(bool, whole);
    DeliveryDestination destination;
    destination.type = DestinationType(type);
    destination.resourceId = resourceId;
    const DestinationResource read = Destinations::resourceParts(destination);
    QCOMPARE(
        QStringList({read.account, read.site, read.function, read.serviceNamespace, read.entity}),
        parts);
    QCOMPARE(Destinations::resource(destination).has_value(), whole);
    const QString scope = resourceId.left(resourceId.indexOf(u"/providers/"_s));
    QCOMPARE(Destinations::resourceId(destination.type, read, scope), resourceId);
}

void TestWorkspace::settingsRanges_data()
{
    QTest::addColumn<QString>("field");
    QTest::addColumn<QJsonValue>("value");
    QTest::addColumn<QString>("expectedError");

    const auto row = [](const char *field, int minimum, int maximum) {
        const QString name = QString::fromLatin1(field);
        const QString rule
            = u"workspace.json: settings.%1: must be an integer from %2 to %3 (got %4)"_s;
        for (const int value :
             {minimum - 1, minimum, minimum + 1, maximum - 1, maximum, maximum + 1}) {
            const bool valid = value >= minimum && value <= maximum;
            QTest::addRow("%s %d", field, value)
                << name << QJsonValue(value)
                << (valid ? QString() : rule.arg(name).arg(minimum).arg(maximum).arg(value));
        }
        QTest::addRow("%s 1.5", field)
            << name << QJsonValue(1.5) << rule.arg(name).arg(minimum).arg(maximum).arg(u"1.5"_s);
    };
    row("deadLetterDelaySeconds", 0, 3600); // SPEC L3
    row("probationThreshold", 1, 100); // SPEC P2
    row("maxConcurrentRequestsPerSubscription", 1, 64);
}

void TestWorkspace::settingsRanges()
{
    QFETCH(QString, field);
    QFETCH(QJsonValue, value);
    QFETCH(QString, expectedError);
    const QJsonObject root {{"topics"_L1, QJsonArray()},
                            {"settings"_L1, QJsonObject {{field, value}}}};
    const Expected<Workspace> workspace
        = Workspace::fromJson(QJsonDocument(root).toJson(), u"workspace.json"_s);
    if (!expectedError.isEmpty()) {
        QCOMPARE(workspace.error(), expectedError);
        return;
    }
    QVERIFY2(workspace, qPrintable(workspace.error()));
    const QJsonObject settings = workspace->toJson().value("settings"_L1).toObject();
    QCOMPARE(settings.value(field), value);
}

void TestWorkspace::malformedJson()
{
    const QByteArray json = R"({"topics": [ {"name": "orders",, } ]})";
    QJsonParseError parseError;
    QJsonDocument::fromJson(json, &parseError);
    QVERIFY(parseError.error != QJsonParseError::NoError);
    QCOMPARE(errorOf(json),
             u"workspace.json: not valid JSON at offset %1: %2"_s.arg(parseError.offset)
                 .arg(parseError.errorString()));
    QVERIFY(errorOf(QByteArray()).startsWith(u"workspace.json: not valid JSON at offset 0: "_s));
    QVERIFY(errorOf("\xff\xfe garbage").startsWith(u"workspace.json: not valid JSON at offset "_s));
    // The file name given by the caller prefixes every message.
    const Expected<Workspace> other = Workspace::fromJson("{", u"/home/me/ws/workspace.json"_s);
    QVERIFY(
        other.error().startsWith(u"/home/me/ws/workspace.json: not valid JSON at offset 1: "_s));
}

void TestWorkspace::wrongTypes_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("expectedError");

    const QByteArray sub
        = R"({"name":"abc","properties":{"destination":{"endpointType":"WebHook","properties":{"endpointUrl":"http://h/"}}}})";
    const auto inTopic = [&](const QByteArray &subscription) -> QByteArray {
        return QByteArray(R"({"topics":[{"name":"orders","eventSubscriptions":[)") + subscription
            + "]}]}";
    };
    const QString w = u"workspace.json: "_s;
    QTest::newRow("top-level array")
        << QByteArray("[]") << w + u"must hold a JSON object at the top level (got an array)"_s;
    QTest::newRow("foreign object") << QByteArray(R"({"name":"my-package","version":"1.0.0"})")
                                    << w + u"topics: required array is missing"_s;
    QTest::newRow("topics object")
        << QByteArray(R"({"topics":{}})") << w + u"topics: must be an array (got an object)"_s;
    QTest::newRow("topic string") << QByteArray(R"({"topics":["orders"]})")
                                  << w + u"topics[0]: must be an object (got \"orders\")"_s;
    QTest::newRow("topic name number") << QByteArray(R"({"topics":[{"name":7}]})")
                                       << w + u"topics[0].name: must be a string (got 7)"_s;
    QTest::newRow("topic name missing")
        << QByteArray(R"({"topics":[{}]})") << w + u"topics[0].name: required string is missing"_s;
    QTest::newRow("topic name short") << QByteArray(R"({"topics":[{"name":"ab"}]})")
                                      << w
            + u"topics[0].name: must be 3 to 50 characters of A-Z, a-z, 0-9 and '-' (got \"ab\")"_s;
    QTest::newRow("topic name 50")
        << QByteArray(R"({"topics":[{"name":")" + QByteArray(50, 'n') + R"("}]})") << QString();
    QTest::newRow("topic name 51")
        << QByteArray(R"({"topics":[{"name":")" + QByteArray(51, 'n') + R"("}]})")
        << w + u"topics[0].name: must be 3 to 50 characters of A-Z, a-z, 0-9 and '-' (got \""_s
            + QString(51, u'n') + u"\")"_s;
    QTest::newRow("inputSchema unknown")
        << QByteArray(R"({"topics":[{"name":"abc","inputSchema":"Xml"}]})")
        << w
            + u"topics[0].inputSchema: must be EventGridSchema, CloudEventSchemaV1_0 or CustomInputSchema (got \"Xml\")"_s;
    QTest::newRow("inputSchema number")
        << QByteArray(R"({"topics":[{"name":"abc","inputSchema":1}]})")
        << w + u"topics[0].inputSchema: must be a string (got 1)"_s;
    QTest::newRow("subscriptions object")
        << QByteArray(R"({"topics":[{"name":"abc","eventSubscriptions":{}}]})")
        << w + u"topics[0].eventSubscriptions: must be an array (got an object)"_s;
    QTest::newRow("subscription null")
        << QByteArray(R"({"topics":[{"name":"abc","eventSubscriptions":[null]}]})")
        << w + u"topics[0].eventSubscriptions[0]: must be an object (got null)"_s;
    QTest::newRow("receivers object") << QByteArray(R"({"topics":[],"receivers":{}})")
                                      << w + u"receivers: must be an array (got an object)"_s;
    QTest::newRow("settings array") << QByteArray(R"({"topics":[],"settings":[]})")
                                    << w + u"settings: must be an object (got an array)"_s;
    QTest::newRow("properties missing")
        << inTopic(R"({"name":"abc"})")
        << w + u"topics[0].eventSubscriptions[0].properties: required object is missing"_s;
    QTest::newRow("properties string")
        << inTopic(R"({"name":"abc","properties":"x"})")
        << w + u"topics[0].eventSubscriptions[0].properties: must be an object (got \"x\")"_s;
    QTest::newRow("destination missing") << inTopic(R"({"name":"abc","properties":{}})")
                                         << w
            + u"topics[0].eventSubscriptions[0].properties.destination: required object is missing"_s;
    QTest::newRow("endpoint type HybridConnection") << inTopic(
        R"({"name":"abc","properties":{"destination":{"endpointType":"HybridConnection","properties":{}}}})")
                                            << w
            + u"topics[0].eventSubscriptions[0].properties.destination.endpointType: must be WebHook, AzureFunction, StorageQueue, ServiceBusQueue, ServiceBusTopic or EventHub (got \"HybridConnection\")"_s;
    QTest::newRow("EventHub without resourceId") << inTopic(
        R"({"name":"abc","properties":{"destination":{"endpointType":"EventHub","properties":{}}}})")
                                            << w
            + u"topics[0].eventSubscriptions[0].properties.destination.properties.resourceId: required string is missing"_s;
    QTest::newRow("endpointUrl number") << inTopic(
        R"({"name":"abc","properties":{"destination":{"endpointType":"WebHook","properties":{"endpointUrl":5}}}})")
                                        << w
            + u"topics[0].eventSubscriptions[0].properties.destination.properties.endpointUrl: must be a string (got 5)"_s;
    QTest::newRow("filter array") << inTopic(
        R"({"name":"abc","properties":{"filter":[],"destination":{"endpointType":"WebHook","properties":{"endpointUrl":"http://h/"}}}})")
                                  << w
            + u"topics[0].eventSubscriptions[0].properties.filter: must be an object (got an array)"_s;
    QTest::newRow("includedEventTypes number") << inTopic(
        R"({"name":"abc","properties":{"filter":{"includedEventTypes":["a",2]},"destination":{"endpointType":"WebHook","properties":{"endpointUrl":"http://h/"}}}})")
                                               << w
            + u"topics[0].eventSubscriptions[0].properties.filter.includedEventTypes[1]: must be a string (got 2)"_s;
    QTest::newRow("isSubjectCaseSensitive string") << inTopic(
        R"({"name":"abc","properties":{"filter":{"isSubjectCaseSensitive":"yes"},"destination":{"endpointType":"WebHook","properties":{"endpointUrl":"http://h/"}}}})")
                                                   << w
            + u"topics[0].eventSubscriptions[0].properties.filter.isSubjectCaseSensitive: must be true or false (got \"yes\")"_s;
    QTest::newRow("retryPolicy number") << inTopic(
        R"({"name":"abc","properties":{"retryPolicy":3,"destination":{"endpointType":"WebHook","properties":{"endpointUrl":"http://h/"}}}})")
                                        << w
            + u"topics[0].eventSubscriptions[0].properties.retryPolicy: must be an object (got 3)"_s;
    QTest::newRow("dead letter EventHub") << inTopic(
        R"({"name":"abc","properties":{"deadLetterDestination":{"endpointType":"EventHub"},"destination":{"endpointType":"WebHook","properties":{"endpointUrl":"http://h/"}}}})")
                                          << w
            + u"topics[0].eventSubscriptions[0].properties.deadLetterDestination.endpointType: must be StorageBlob, the only dead-letter destination type (got \"EventHub\")"_s;
    QTest::newRow("x-eventdesk enabled string") << inTopic(
        R"({"name":"abc","properties":{"x-eventdesk":{"enabled":"no"},"destination":{"endpointType":"WebHook","properties":{"endpointUrl":"http://h/"}}}})")
                                                << w
            + u"topics[0].eventSubscriptions[0].properties.x-eventdesk.enabled: must be true or false (got \"no\")"_s;
    QTest::newRow("valid control row") << inTopic(sub) << QString();
}

void TestWorkspace::wrongTypes()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, expectedError);
    QCOMPARE(errorOf(json), expectedError);
}

void TestWorkspace::duplicateNames_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("expectedError");

    const QByteArray sub1
        = R"({"name":"Hook","properties":{"destination":{"endpointType":"WebHook","properties":{"endpointUrl":"http://h/"}}}})";
    const QByteArray sub2
        = R"({"name":"hOOK","properties":{"destination":{"endpointType":"WebHook","properties":{"endpointUrl":"http://h/"}}}})";
    QTest::newRow("topics")
        << QByteArray(R"({"topics":[{"name":"Orders"},{"name":"other"},{"name":"ORDERS"}]})")
        << u"workspace.json: topics[2].name: duplicate topic name \"ORDERS\" (topic names are unique, compared case-insensitively; see topics[0])"_s;
    QTest::newRow("subscriptions")
        << QByteArray(R"({"topics":[{"name":"orders","eventSubscriptions":[)" + sub1 + "," + sub2
                      + "]}]}")
        << u"workspace.json: topics[0].eventSubscriptions[1].name: duplicate event subscription name \"hOOK\" in topic \"orders\" (names are unique within a topic, compared case-insensitively; see topics[0].eventSubscriptions[0])"_s;
    QTest::newRow("same subscription name in two topics")
        << QByteArray(R"({"topics":[{"name":"orders","eventSubscriptions":[)" + sub1
                      + R"(]},{"name":"other","eventSubscriptions":[)" + sub2 + "]}]}")
        << QString();
}

void TestWorkspace::duplicateNames()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, expectedError);
    QCOMPARE(errorOf(json), expectedError);
}

void TestWorkspace::customMapping_data()
{
    QTest::addColumn<QByteArray>("topic");
    QTest::addColumn<QString>("expectedError");

    const QString at = u"workspace.json: topics[0].inputSchemaMapping"_s;
    // SPEC S3
    QTest::newRow("defaults only") << QByteArray(
        R"({"name":"custom","inputSchema":"CustomInputSchema","inputSchemaMapping":{"inputSchemaMappingType":"Json","properties":{"eventType":{"defaultValue":"T"},"dataVersion":{"defaultValue":"1"}}}})")
                                   << QString();
    QTest::newRow("source fields only") << QByteArray(
        R"({"name":"custom","inputSchema":"CustomInputSchema","inputSchemaMapping":{"properties":{"eventType":{"sourceField":"kind"},"dataVersion":{"sourceField":"v"}}}})")
                                        << QString();
    QTest::newRow("Azure name CustomEventSchema") << QByteArray(
        R"({"name":"custom","inputSchema":"CustomEventSchema","inputSchemaMapping":{"properties":{"eventType":{"sourceField":"kind"},"dataVersion":{"sourceField":"v"}}}})")
                                                  << QString();
    QTest::newRow("no mapping") << QByteArray(
        R"({"name":"custom","inputSchema":"CustomInputSchema"})")
                                << at
            + u".properties.eventType: a CustomInputSchema topic needs a sourceField or a defaultValue for eventType"_s;
    QTest::newRow("no dataVersion") << QByteArray(
        R"({"name":"custom","inputSchema":"CustomInputSchema","inputSchemaMapping":{"properties":{"eventType":{"sourceField":"kind"}}}})")
                                    << at
            + u".properties.dataVersion: a CustomInputSchema topic needs a sourceField or a defaultValue for dataVersion"_s;
    QTest::newRow("wrong mapping type") << QByteArray(
        R"({"name":"custom","inputSchema":"CustomInputSchema","inputSchemaMapping":{"inputSchemaMappingType":"Xml","properties":{"eventType":{"sourceField":"kind"},"dataVersion":{"sourceField":"v"}}}})")
                                        << at
            + u".inputSchemaMappingType: must be Json (got \"Xml\")"_s;
    QTest::newRow("sourceField number") << QByteArray(
        R"({"name":"custom","inputSchema":"CustomInputSchema","inputSchemaMapping":{"properties":{"id":{"sourceField":1},"eventType":{"sourceField":"kind"},"dataVersion":{"sourceField":"v"}}}})")
                                        << at
            + u".properties.id.sourceField: must be a string (got 1)"_s;
    QTest::newRow("mapping on an Event Grid topic")
        << QByteArray(R"({"name":"egt","inputSchemaMapping":{"properties":{}}})")
        << at
            + u": allowed only when inputSchema is CustomInputSchema (this topic's is EventGridSchema)"_s;
}

void TestWorkspace::customMapping()
{
    QFETCH(QByteArray, topic);
    QFETCH(QString, expectedError);
    QCOMPARE(errorOf(R"({"topics":[)" + topic + "]}"), expectedError);
}

void TestWorkspace::validateInMemory()
{
    // The GUI editor validates before saving; errors name the ARM field (SPEC R6, B2, H1).
    EventSubscription subscription;
    subscription.name = u"editor"_s;
    subscription.endpointUrl = QUrl(u"https://example.com/"_s);
    QVERIFY(validateEventSubscription(subscription, EventSchema::EventGrid));

    subscription.retryPolicy.maxDeliveryAttempts = 31;
    QCOMPARE(
        validateEventSubscription(subscription, EventSchema::EventGrid).error(),
        u"properties.retryPolicy.maxDeliveryAttempts: must be an integer from 1 to 30 (got 31)"_s);
    QCOMPARE(validateEventSubscription(subscription, EventSchema::EventGrid,
                                       u"topics[0].eventSubscriptions[1]"_s)
                 .error(),
             u"topics[0].eventSubscriptions[1].properties.retryPolicy.maxDeliveryAttempts: must be "
             u"an integer from 1 to 30 (got 31)"_s);
    subscription.retryPolicy.maxDeliveryAttempts = 30;

    // Disabled batching is not range-checked; enabled batching is.
    subscription.batchPolicy.maxEventsPerBatch = 0;
    QVERIFY(validateEventSubscription(subscription, EventSchema::EventGrid));
    subscription.batchPolicy.enabled = true;
    QCOMPARE(validateEventSubscription(subscription, EventSchema::EventGrid).error(),
             u"properties.destination.properties.maxEventsPerBatch: must be an integer from 1 to "
             u"5000 (got 0)"_s);
    subscription.batchPolicy = BatchPolicy();

    subscription.deliveryHeaders.append(
        DeliveryHeader {u"X-D"_s, DeliveryHeader::Kind::Dynamic, QString(), u"subject"_s, true});
    QCOMPARE(validateEventSubscription(subscription, EventSchema::EventGrid).error(),
             u"properties.destination.properties.deliveryAttributeMappings[0].properties.isSecret: "
             u"only a Static header can be secret"_s);
    subscription.deliveryHeaders.clear();

    subscription.deadLetterDestination.kind = DeadLetterDestination::Kind::LocalFolder;
    subscription.deadLetterDestination.resourceId = u"/x/storageAccounts/contoso"_s;
    subscription.deadLetterDestination.blobContainerName = u"dead"_s;
    QCOMPARE(
        validateEventSubscription(subscription, EventSchema::EventGrid).error(),
        u"properties.deadLetterDestination.properties.resourceId: must be \"local\" (or name a "
        u"storage account called local) for the local dead-letter folder (got "
        u"\"/x/storageAccounts/contoso\")"_s);
    subscription.deadLetterDestination.resourceId = u"local"_s;
    QVERIFY(validateEventSubscription(subscription, EventSchema::EventGrid));

    subscription.endpointUrl = QUrl(u"mailto:someone@example.com"_s);
    QCOMPARE(
        validateEventSubscription(subscription, EventSchema::EventGrid).error(),
        u"properties.destination.properties.endpointUrl: must be an absolute http or https URL "
        u"with a host (got \"mailto:someone@example.com\")"_s);
}

void TestWorkspace::operatorNames()
{
    for (int index = int(FilterOperator::NumberIn); index <= int(FilterOperator::IsNotNull);
         ++index) {
        const FilterOperator op = FilterOperator(index);
        const QString name = filterOperatorName(op);
        QVERIFY(!name.isEmpty());
        QCOMPARE(filterOperatorFromName(name), std::optional<FilterOperator>(op));
        QCOMPARE(filterOperatorFromName(name.toUpper()), std::optional<FilterOperator>(op));
    }
    QCOMPARE(filterOperatorName(FilterOperator::NumberInRange), u"NumberInRange"_s);
    QCOMPARE(filterOperatorName(FilterOperator::StringNotBeginsWith), u"StringNotBeginsWith"_s);
    QVERIFY(!filterOperatorFromName(u"NumberBetween"_s));
    QVERIFY(!filterOperatorFromName(QString()));
}

void TestWorkspace::valueCount_data()
{
    QTest::addColumn<int>("op");
    QTest::addColumn<int>("expected");
    QTest::newRow("NumberIn 3") << int(FilterOperator::NumberIn) << 3;
    QTest::newRow("NumberNotIn 3") << int(FilterOperator::NumberNotIn) << 3;
    QTest::newRow("NumberLessThan 1") << int(FilterOperator::NumberLessThan) << 1;
    QTest::newRow("NumberGreaterThanOrEquals 1")
        << int(FilterOperator::NumberGreaterThanOrEquals) << 1;
    QTest::newRow("NumberInRange 2") << int(FilterOperator::NumberInRange) << 2;
    QTest::newRow("BoolEquals 1") << int(FilterOperator::BoolEquals) << 1;
    QTest::newRow("StringIn 4") << int(FilterOperator::StringIn) << 4;
    QTest::newRow("StringNotEndsWith 4") << int(FilterOperator::StringNotEndsWith) << 4;
    QTest::newRow("IsNullOrUndefined 0") << int(FilterOperator::IsNullOrUndefined) << 0;
    QTest::newRow("IsNotNull 0") << int(FilterOperator::IsNotNull) << 0;
}

void TestWorkspace::valueCount()
{
    QFETCH(int, op);
    QFETCH(int, expected);
    AdvancedFilter filter;
    filter.op = FilterOperator(op);
    filter.numbers = {1, 2, 3};
    filter.ranges = {{1, 2}, {3, 4}};
    filter.strings = {u"a"_s, u"b"_s, u"c"_s, u"d"_s};
    QCOMPARE(filter.valueCount(), expected);
}

void TestWorkspace::schemaNames()
{
    QCOMPARE(eventSchemaName(EventSchema::EventGrid), u"EventGridSchema"_s);
    QCOMPARE(eventSchemaName(EventSchema::CloudEvents10), u"CloudEventSchemaV1_0"_s);
    QCOMPARE(eventSchemaName(EventSchema::Custom), u"CustomInputSchema"_s);
    for (const EventSchema schema :
         {EventSchema::EventGrid, EventSchema::CloudEvents10, EventSchema::Custom})
        QCOMPARE(eventSchemaFromName(eventSchemaName(schema)), std::optional<EventSchema>(schema));
    QCOMPARE(eventSchemaFromName(u"cloudeventschemav1_0"_s),
             std::optional<EventSchema>(EventSchema::CloudEvents10));
    QVERIFY(!eventSchemaFromName(u"CloudEventSchema"_s));
}

void TestWorkspace::topicLookupAndResourcePath()
{
    const Workspace workspace = fullWorkspace();
    QCOMPARE(workspace.findTopic(u"ORDERS"_s), &workspace.topics.at(0));
    QCOMPARE(workspace.findTopic(u"cloud-events-topic"_s), &workspace.topics.at(1));
    QCOMPARE(workspace.findTopic(u"missing"_s), nullptr);
    QCOMPARE(workspace.topics.at(0).resourcePath(),
             u"/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/eventdesk/"
             u"providers/Microsoft.EventGrid/topics/orders"_s);
}

void TestWorkspace::neverCrashesOnDamagedInput()
{
    // docs/behaviour.md "Reliability": a damaged file gives an error, never a crash or an empty
    // workspace.
    const QByteArray json = QJsonDocument(fullWorkspace().toJson()).toJson(QJsonDocument::Compact);
    int rejected = 0;
    for (qsizetype length = 0; length < json.size(); ++length) {
        const Expected<Workspace> workspace = Workspace::fromJson(json.left(length), u"w"_s);
        if (!workspace) {
            ++rejected;
            QVERIFY(workspace.error().startsWith(u"w: "_s));
        }
    }
    QCOMPARE(rejected, int(json.size()));

    QRandomGenerator random(20240611);
    for (int round = 0; round < 2000; ++round) {
        QByteArray damaged = json;
        for (int flip = 0; flip < 3; ++flip)
            damaged[random.bounded(int(damaged.size()))] = char(random.bounded(256));
        const Expected<Workspace> workspace = Workspace::fromJson(damaged, u"w"_s);
        QVERIFY(workspace || !workspace.error().isEmpty());
    }
}

QTEST_GUILESS_MAIN(TestWorkspace)
#include "tst_workspace.moc"
