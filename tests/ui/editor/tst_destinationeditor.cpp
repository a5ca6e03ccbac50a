// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// The subscription editor's destinations: the six endpoint types with exactly their fields, the
// values kept while the user tries types, the ARM shape they are saved in, the model's validation
// messages on the right field, what batching and headers become per type, and the credential that
// goes to the secret store and nowhere else. (The retry rules per type: tst_retryrules.)

#include "DestinationCredentials.h"
#include "RetryTimelineView.h"
#include "SubscriptionEditor.h"
#include "WidgetInput.h"

#include "common/Format.h"
#include "model/Workspace.h"
#include "secrets/SecretStore.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QGroupBox>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using namespace EventDesk::Ui;
using EventDesk::Testing::child;
using EventDesk::Testing::retype;

namespace {

const QString ShotDirectory = u"/tmp/ui-shots"_s;

Topic makeTopic()
{
    Topic topic;
    topic.name = u"orders"_s;
    return topic;
}

EventSubscription webhookSubscription()
{
    EventSubscription subscription;
    subscription.name = u"orders-out"_s;
    subscription.endpointUrl = QUrl(u"https://hooks.contoso.example/api/orders"_s);
    subscription.batchPolicy.enabled = true;
    subscription.batchPolicy.maxEventsPerBatch = 50;
    DeliveryHeader tenant;
    tenant.name = u"X-Tenant"_s;
    tenant.value = u"contoso"_s;
    subscription.deliveryHeaders = {tenant};
    return subscription;
}

void chooseType(SubscriptionEditor &editor, DestinationType type)
{
    auto *combo = child<QComboBox>(&editor, u"destinationTypeCombo"_s);
    const int index = combo->findData(int(type));
    QVERIFY(index >= 0);
    combo->setCurrentIndex(index);
}

QJsonObject destinationJson(const EventSubscription &subscription)
{
    return eventSubscriptionToArm(subscription)
        .value("properties"_L1)
        .toObject()
        .value("destination"_L1)
        .toObject();
}

void saveShot(QWidget *widget, const QString &name)
{
    QDir().mkpath(ShotDirectory);
    const QString path = ShotDirectory + u"/"_s + name + u".png"_s;
    QVERIFY2(widget->grab().save(path), qPrintable(path));
}

// The main window's secrets, played by the in-memory store: what the dialog would get is typed.
class MemoryCredentials final : public CredentialAccess
{
public:
    void findStored(const QString &key, FoundCallback done) override
    {
        store.read(key, [done](const Expected<std::optional<QString>> &value) {
            done(value.hasValue() && value.value().has_value());
        });
    }
    void askToStore(QWidget *, const DestinationCredential &credential,
                    StoredCallback done) override
    {
        asked << credential.key;
        if (!credential.problemWith(typed).isEmpty()) {
            done(false);
            return;
        }
        store.write(credential.key, typed,
                    [done](const Expected<void> &result) { done(result.hasValue()); });
    }
    QString storeDescription() const override { return store.description(); }

    MemorySecretStore store;
    QString typed;
    QStringList asked;
};

} // namespace

class TestDestinationEditor : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void typesWithTheirAzureNames();
    void eachTypeShowsItsFields_data();
    void eachTypeShowsItsFields();
    void switchingTypesKeepsWhatWasTyped();
    void savedInArmShape_data();
    void savedInArmShape();
    void namesBuildTheResourceId();
    void validationOnTheField_data();
    void validationOnTheField();
    void saveErrorLeadsToTheField();
    void batchingAndHeadersFollowTheType();
    void credentialGoesToTheStoreNotTheJson();
    void tabOrderFollowsTheForm();
    void screenshots();
};

void TestDestinationEditor::typesWithTheirAzureNames()
{
    SubscriptionEditor editor;
    editor.setSubscription(makeTopic(), webhookSubscription(), true);
    auto *combo = child<QComboBox>(&editor, u"destinationTypeCombo"_s);
    QStringList items;
    for (int index = 0; index < combo->count(); ++index)
        items << combo->itemText(index);
    QCOMPARE(
        items,
        QStringList({u"Web Hook (WebHook)"_s, u"Azure Function (AzureFunction)"_s,
                     u"Storage Queue (StorageQueue)"_s, u"Service Bus Queue (ServiceBusQueue)"_s,
                     u"Service Bus Topic (ServiceBusTopic)"_s, u"Event Hubs (EventHub)"_s}));
    QCOMPARE(combo->currentText(), u"Web Hook (WebHook)"_s);
}

void TestDestinationEditor::eachTypeShowsItsFields_data()
{
    QTest::addColumn<DestinationType>("type");
    QTest::addColumn<QStringList>("shown");
    QTest::addColumn<QString>("nameLabel");
    QTest::addColumn<QString>("entityLabel");

    QTest::newRow("webhook") << DestinationType::WebHook
                             << QStringList {u"endpointEdit"_s, u"validationCheck"_s} << QString()
                             << QString();
    QTest::newRow("function") << DestinationType::AzureFunction
                              << QStringList {u"resourceNameEdit"_s, u"entityNameEdit"_s,
                                              u"resourceIdEdit"_s, u"serviceUrlEdit"_s}
                              << u"Function &app:"_s << u"&Function:"_s;
    QTest::newRow("storage queue")
        << DestinationType::StorageQueue
        << QStringList {u"resourceNameEdit"_s, u"resourceIdEdit"_s, u"queueNameEdit"_s,
                        u"queueTtlEdit"_s,     u"serviceUrlEdit"_s, u"credentialButton"_s}
        << u"Storage &account:"_s << QString();
    QTest::newRow("service bus queue")
        << DestinationType::ServiceBusQueue
        << QStringList {u"resourceNameEdit"_s, u"entityNameEdit"_s, u"resourceIdEdit"_s,
                        u"serviceUrlEdit"_s, u"credentialButton"_s}
        << u"&Namespace:"_s << u"&Queue:"_s;
    QTest::newRow("service bus topic")
        << DestinationType::ServiceBusTopic
        << QStringList {u"resourceNameEdit"_s, u"entityNameEdit"_s, u"resourceIdEdit"_s,
                        u"serviceUrlEdit"_s, u"credentialButton"_s}
        << u"&Namespace:"_s << u"T&opic:"_s;
    QTest::newRow("event hub") << DestinationType::EventHub
                               << QStringList {u"resourceNameEdit"_s, u"entityNameEdit"_s,
                                               u"resourceIdEdit"_s, u"serviceUrlEdit"_s,
                                               u"credentialButton"_s}
                               << u"&Namespace:"_s << u"Event &hub:"_s;
}

void TestDestinationEditor::eachTypeShowsItsFields()
{
    QFETCH(DestinationType, type);
    QFETCH(QStringList, shown);
    QFETCH(QString, nameLabel);
    QFETCH(QString, entityLabel);
    SubscriptionEditor editor;
    editor.setSubscription(makeTopic(), webhookSubscription(), true);
    editor.resize(1000, 800);
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    chooseType(editor, type);

    const QStringList all {u"endpointEdit"_s,   u"validationCheck"_s, u"resourceNameEdit"_s,
                           u"entityNameEdit"_s, u"resourceIdEdit"_s,  u"queueNameEdit"_s,
                           u"queueTtlEdit"_s,   u"serviceUrlEdit"_s,  u"credentialButton"_s};
    for (const QString &name : all) {
        QWidget *widget = child<QWidget>(&editor, name);
        QVERIFY2(widget->isVisibleTo(&editor) == shown.contains(name), qPrintable(name));
    }
    const auto labelOf = [&editor](const QString &name) {
        const QList<QLabel *> labels = editor.findChildren<QLabel *>();
        for (QLabel *label : labels) {
            if (label->buddy() && label->buddy()->objectName() == name)
                return label->text();
        }
        return QString();
    };
    if (!nameLabel.isEmpty())
        QCOMPARE(labelOf(u"resourceNameEdit"_s), nameLabel);
    if (!entityLabel.isEmpty())
        QCOMPARE(labelOf(u"entityNameEdit"_s), entityLabel);
    // The resource id field shows the shape the type's id has.
    if (type != DestinationType::WebHook) {
        QCOMPARE(child<QLineEdit>(&editor, u"resourceIdEdit"_s)->placeholderText(),
                 Destinations::resourceIdPattern(type));
    }
    if (type == DestinationType::AzureFunction) {
        QVERIFY2(child<QLineEdit>(&editor, u"serviceUrlEdit"_s)
                     ->placeholderText()
                     .startsWith(u"http://localhost:7071"_s),
                 qPrintable(child<QLineEdit>(&editor, u"serviceUrlEdit"_s)->placeholderText()));
    }
}

// Trying other types loses nothing until the editor saves: each type gets back what was typed for
// it, and going back to the saved type is no change at all.
void TestDestinationEditor::switchingTypesKeepsWhatWasTyped()
{
    SubscriptionEditor editor;
    editor.setSubscription(makeTopic(), webhookSubscription(), false);
    editor.show();
    QVERIFY(QTest::qWaitForWindowActive(&editor));
    QVERIFY(!editor.isModified());
    auto *validation = child<QCheckBox>(&editor, u"validationCheck"_s);
    validation->setChecked(false);

    chooseType(editor, DestinationType::StorageQueue);
    QVERIFY(editor.isModified());
    retype(child<QLineEdit>(&editor, u"resourceNameEdit"_s), u"devstoreaccount1"_s);
    retype(child<QLineEdit>(&editor, u"queueNameEdit"_s), u"orders"_s);
    retype(child<QLineEdit>(&editor, u"queueTtlEdit"_s), u"-1"_s);

    chooseType(editor, DestinationType::ServiceBusQueue);
    QCOMPARE(child<QLineEdit>(&editor, u"resourceNameEdit"_s)->text(), QString());
    retype(child<QLineEdit>(&editor, u"resourceNameEdit"_s), u"contoso-bus"_s);
    retype(child<QLineEdit>(&editor, u"entityNameEdit"_s), u"billing"_s);
    retype(child<QLineEdit>(&editor, u"serviceUrlEdit"_s), u"http://127.0.0.1:5300/"_s);

    chooseType(editor, DestinationType::WebHook);
    QCOMPARE(child<QLineEdit>(&editor, u"endpointEdit"_s)->text(),
             u"https://hooks.contoso.example/api/orders"_s);
    QVERIFY(!validation->isChecked());

    chooseType(editor, DestinationType::StorageQueue);
    QCOMPARE(child<QLineEdit>(&editor, u"resourceNameEdit"_s)->text(), u"devstoreaccount1"_s);
    QCOMPARE(child<QLineEdit>(&editor, u"queueNameEdit"_s)->text(), u"orders"_s);
    QCOMPARE(child<QLineEdit>(&editor, u"queueTtlEdit"_s)->text(), u"-1"_s);
    QCOMPARE(child<QLineEdit>(&editor, u"serviceUrlEdit"_s)->text(), QString());
    const EventSubscription queue = editor.subscription();
    QCOMPARE(queue.destination.type, DestinationType::StorageQueue);
    QCOMPARE(queue.destination.queueMessageTimeToLiveInSeconds, -1);

    chooseType(editor, DestinationType::ServiceBusQueue);
    QCOMPARE(child<QLineEdit>(&editor, u"resourceNameEdit"_s)->text(), u"contoso-bus"_s);
    QCOMPARE(child<QLineEdit>(&editor, u"entityNameEdit"_s)->text(), u"billing"_s);
    QCOMPARE(child<QLineEdit>(&editor, u"serviceUrlEdit"_s)->text(), u"http://127.0.0.1:5300/"_s);
    // Only the chosen type's values are what the editor would save.
    const EventSubscription bus = editor.subscription();
    QCOMPARE(bus.destination.resourceId,
             u"/providers/Microsoft.ServiceBus/namespaces/contoso-bus/queues/billing"_s);
    QVERIFY(bus.destination.queueName.isEmpty());
    QVERIFY(bus.endpointUrl.isEmpty());

    // Back to the saved type with its saved values: nothing to save.
    chooseType(editor, DestinationType::WebHook);
    validation->setChecked(true);
    QVERIFY(!editor.isModified());
}

void TestDestinationEditor::savedInArmShape_data()
{
    QTest::addColumn<DestinationType>("type");
    QTest::addColumn<QStringList>("typed"); // name, entity, queue name, TTL, service URL
    QTest::addColumn<QJsonObject>("properties");

    QTest::newRow("function")
        << DestinationType::AzureFunction
        << QStringList {u"orders-app"_s, u"OnOrderCreated"_s, {}, {}, {}}
        << QJsonObject {{"resourceId"_L1,
                         u"/providers/Microsoft.Web/sites/orders-app/functions/OnOrderCreated"_s}};
    QTest::newRow("function on another host")
        << DestinationType::AzureFunction
        << QStringList {u"orders-app"_s, u"OnOrderCreated"_s, {}, {}, u"http://127.0.0.1:7072"_s}
        << QJsonObject {{"resourceId"_L1,
                         u"/providers/Microsoft.Web/sites/orders-app/functions/OnOrderCreated"_s},
                        {"serviceUrl"_L1, u"http://127.0.0.1:7072"_s}};
    QTest::newRow("storage queue on Azurite")
        << DestinationType::StorageQueue
        << QStringList {u"devstoreaccount1"_s,
                        {},
                        u"orders"_s,
                        u"3600"_s,
                        u"http://127.0.0.1:10001/devstoreaccount1"_s}
        << QJsonObject {{"resourceId"_L1,
                         u"/providers/Microsoft.Storage/storageAccounts/devstoreaccount1"_s},
                        {"queueName"_L1, u"orders"_s},
                        {"queueMessageTimeToLiveInSeconds"_L1, 3600},
                        {"serviceUrl"_L1, u"http://127.0.0.1:10001/devstoreaccount1"_s}};
    QTest::newRow("storage queue, messages never expire")
        << DestinationType::StorageQueue << QStringList {u"dev"_s, {}, u"orders"_s, u"-1"_s, {}}
        << QJsonObject {{"resourceId"_L1, u"/providers/Microsoft.Storage/storageAccounts/dev"_s},
                        {"queueName"_L1, u"orders"_s},
                        {"queueMessageTimeToLiveInSeconds"_L1, -1}};
    QTest::newRow("storage queue, queue default")
        << DestinationType::StorageQueue << QStringList {u"dev"_s, {}, u"orders"_s, {}, {}}
        << QJsonObject {{"resourceId"_L1, u"/providers/Microsoft.Storage/storageAccounts/dev"_s},
                        {"queueName"_L1, u"orders"_s}};
    QTest::newRow("service bus queue")
        << DestinationType::ServiceBusQueue
        << QStringList {u"contoso-bus"_s, u"billing"_s, {}, {}, {}}
        << QJsonObject {
               {"resourceId"_L1,
                u"/providers/Microsoft.ServiceBus/namespaces/contoso-bus/queues/billing"_s}};
    QTest::newRow("service bus topic")
        << DestinationType::ServiceBusTopic
        << QStringList {u"contoso-bus"_s, u"order-events"_s, {}, {}, {}}
        << QJsonObject {
               {"resourceId"_L1,
                u"/providers/Microsoft.ServiceBus/namespaces/contoso-bus/topics/order-events"_s}};
    QTest::newRow("event hub with a stand-in")
        << DestinationType::EventHub
        << QStringList {u"contoso-hubs"_s, u"telemetry"_s, {}, {}, u"http://127.0.0.1:5300/"_s}
        << QJsonObject {
               {"resourceId"_L1,
                u"/providers/Microsoft.EventHub/namespaces/contoso-hubs/eventhubs/telemetry"_s},
               {"serviceUrl"_L1, u"http://127.0.0.1:5300/"_s}};
}

// What the fields of a type are saved as is Resource Manager's shape, and reading it back shows
// the same fields.
void TestDestinationEditor::savedInArmShape()
{
    QFETCH(DestinationType, type);
    QFETCH(QStringList, typed);
    QFETCH(QJsonObject, properties);
    SubscriptionEditor editor;
    editor.setSubscription(makeTopic(), webhookSubscription(), true);
    editor.show();
    QVERIFY(QTest::qWaitForWindowActive(&editor));
    chooseType(editor, type);
    const QStringList fields {u"resourceNameEdit"_s, u"entityNameEdit"_s, u"queueNameEdit"_s,
                              u"queueTtlEdit"_s, u"serviceUrlEdit"_s};
    for (int index = 0; index < fields.size(); ++index) {
        if (!typed.at(index).isEmpty())
            retype(child<QLineEdit>(&editor, fields.at(index)), typed.at(index));
    }
    QVERIFY2(editor.isValid(), qPrintable(editor.validationMessage()));

    QSignalSpy saved(&editor, &SubscriptionEditor::saveRequested);
    QTest::mouseClick(child<QPushButton>(&editor, u"saveButton"_s), Qt::LeftButton);
    QCOMPARE(saved.size(), 1);
    const auto subscription = saved.front().front().value<EventSubscription>();
    const QJsonObject destination = destinationJson(subscription);
    QCOMPARE(destination.value("endpointType"_L1).toString(), destinationTypeName(type));
    // The destination's own properties; batching and headers sit next to them in ARM.
    QJsonObject own = destination.value("properties"_L1).toObject();
    for (const QLatin1StringView shared :
         {"maxEventsPerBatch"_L1, "preferredBatchSizeInKilobytes"_L1,
          "deliveryAttributeMappings"_L1}) {
        QCOMPARE(own.contains(shared),
                 shared == "deliveryAttributeMappings"_L1
                     ? Destinations::supportsDeliveryProperties(type)
                     : Destinations::supportsBatching(type));
        own.remove(shared);
    }
    QCOMPARE(own, properties);
    // Batching and headers of the webhook it was are not saved where they do not apply.
    QCOMPARE(subscription.batchPolicy.enabled, Destinations::supportsBatching(type));
    QCOMPARE(subscription.deliveryHeaders.size(),
             Destinations::supportsDeliveryProperties(type) ? 1 : 0);

    const QJsonObject arm = eventSubscriptionToArm(subscription);
    const Expected<EventSubscription> read
        = eventSubscriptionFromArm(arm, QString(), EventSchema::EventGrid);
    QVERIFY2(read, qPrintable(read.error()));
    SubscriptionEditor reopened;
    reopened.setSubscription(makeTopic(), read.value(), false);
    for (int index = 0; index < fields.size(); ++index) {
        if (child<QLineEdit>(&reopened, fields.at(index))->isVisibleTo(&reopened))
            QCOMPARE(child<QLineEdit>(&reopened, fields.at(index))->text(), typed.at(index));
    }
    QVERIFY(!reopened.isModified());
    QVERIFY(reopened.isValid());
    QCOMPARE(QJsonDocument(eventSubscriptionToArm(reopened.subscription())).toJson(),
             QJsonDocument(arm).toJson());
}

void TestDestinationEditor::namesBuildTheResourceId()
{
    SubscriptionEditor editor;
    EventSubscription subscription = webhookSubscription();
    subscription.destination.type = DestinationType::AzureFunction;
    subscription.destination.resourceId
        = u"/subscriptions/5e1c/resourceGroups/shop/providers/Microsoft.Web/sites/orders-app/functions/OnOrder"_s;
    editor.setSubscription(makeTopic(), subscription, false);
    editor.show();
    QVERIFY(QTest::qWaitForWindowActive(&editor));
    auto *app = child<QLineEdit>(&editor, u"resourceNameEdit"_s);
    auto *function = child<QLineEdit>(&editor, u"entityNameEdit"_s);
    auto *resourceId = child<QLineEdit>(&editor, u"resourceIdEdit"_s);
    // An imported id shows its names.
    QCOMPARE(app->text(), u"orders-app"_s);
    QCOMPARE(function->text(), u"OnOrder"_s);

    // A name typed rewrites its part of the id and keeps the subscription and resource group.
    retype(function, u"OnOrderPaid"_s);
    QCOMPARE(
        resourceId->text(),
        u"/subscriptions/5e1c/resourceGroups/shop/providers/Microsoft.Web/sites/orders-app/functions/OnOrderPaid"_s);
    QVERIFY(editor.isValid());

    // An id pasted shows its names.
    retype(resourceId, u"/providers/Microsoft.Web/sites/billing-app/functions/OnInvoice"_s);
    QCOMPARE(app->text(), u"billing-app"_s);
    QCOMPARE(function->text(), u"OnInvoice"_s);

    // Clearing the names clears the id: the model then asks for one.
    retype(app, QString());
    retype(function, QString());
    QCOMPARE(resourceId->text(), QString());
    QVERIFY(!editor.isValid());
}

void TestDestinationEditor::validationOnTheField_data()
{
    QTest::addColumn<DestinationType>("type");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("errorLabel");
    QTest::addColumn<QString>("message");

    QTest::newRow("function without a function")
        << DestinationType::AzureFunction << u"resourceNameEdit"_s << u"orders-app"_s
        << u"resourceIdError"_s
        << u"Resource ID must be the resource id of the function (/subscriptions/<id>/resourceGroups/<group>/providers/Microsoft.Web/sites/<app>/functions/<function>; got \"/providers/Microsoft.Web/sites/orders-app/functions/\")"_s;
    QTest::newRow("storage account name")
        << DestinationType::StorageQueue << u"resourceNameEdit"_s << u"Dev_Account"_s
        << u"resourceIdError"_s
        << u"Resource ID names storage account \"Dev_Account\": account names are 3-24 lower-case letters and digits"_s;
    QTest::newRow("queue name")
        << DestinationType::StorageQueue << u"queueNameEdit"_s << u"Orders"_s << u"queueNameError"_s
        << u"Queue name must be 3-63 lower-case letters, digits and single hyphens, starting and ending with a letter or digit (got \"Orders\")"_s;
    QTest::newRow("ttl below -1")
        << DestinationType::StorageQueue << u"queueTtlEdit"_s << u"-5"_s << u"queueTtlError"_s
        << u"Message time to live must be -1 (never expire) or a whole number of seconds from 1 to 2147483647 (got -5)"_s;
    QTest::newRow("ttl above the limit")
        << DestinationType::StorageQueue << u"queueTtlEdit"_s << u"2147483648"_s
        << u"queueTtlError"_s
        << u"Message time to live must be -1 (never expire) or a whole number of seconds from 1 to 2147483647 (got 2147483648)"_s;
    QTest::newRow("ttl zero")
        << DestinationType::StorageQueue << u"queueTtlEdit"_s << u"0"_s << u"queueTtlError"_s
        << u"Message time to live must not be 0: leave it empty for the queue's default (7 days)"_s;
    QTest::newRow("ttl half typed")
        << DestinationType::StorageQueue << u"queueTtlEdit"_s << u"-"_s << u"queueTtlError"_s
        << u"Message time to live must be -1 or a whole number of seconds (got \"-\")"_s;
    QTest::newRow("queue endpoint")
        << DestinationType::StorageQueue << u"serviceUrlEdit"_s << u"localhost:10001"_s
        << u"serviceUrlError"_s
        << u"Queue endpoint URL must be an absolute http or https URL with a host (got \"localhost:10001\")"_s;
    QTest::newRow("functions host")
        << DestinationType::AzureFunction << u"serviceUrlEdit"_s << u"ftp://functions"_s
        << u"serviceUrlError"_s
        << u"Functions host URL must be an absolute http or https URL with a host (got \"ftp://functions\")"_s;
    QTest::newRow("event hub without a hub")
        << DestinationType::EventHub << u"resourceNameEdit"_s << u"contoso-hubs"_s
        << u"resourceIdError"_s
        << u"Resource ID must be the resource id of the event hub (/subscriptions/<id>/resourceGroups/<group>/providers/Microsoft.EventHub/namespaces/<namespace>/eventhubs/<event hub>; got \"/providers/Microsoft.EventHub/namespaces/contoso-hubs/eventhubs/\")"_s;
}

// The model's own messages, each under the field it is about, and Save blocked until fixed.
void TestDestinationEditor::validationOnTheField()
{
    QFETCH(DestinationType, type);
    QFETCH(QString, field);
    QFETCH(QString, value);
    QFETCH(QString, errorLabel);
    QFETCH(QString, message);
    SubscriptionEditor editor;
    EventSubscription subscription = webhookSubscription();
    subscription.batchPolicy = BatchPolicy();
    subscription.deliveryHeaders.clear();
    subscription.destination.type = type;
    // Valid in every other respect.
    subscription.destination.resourceId = type == DestinationType::AzureFunction
        ? u"/providers/Microsoft.Web/sites/a-app/functions/OnEvent"_s
        : type == DestinationType::StorageQueue
        ? u"/providers/Microsoft.Storage/storageAccounts/dev"_s
        : u"/providers/Microsoft.EventHub/namespaces/hubs/eventhubs/telemetry"_s;
    subscription.destination.queueName = u"orders"_s;
    editor.setSubscription(makeTopic(), subscription, false);
    editor.show();
    QVERIFY(QTest::qWaitForWindowActive(&editor));
    QVERIFY2(editor.isValid(), qPrintable(editor.validationMessage()));
    if (field == u"resourceNameEdit"_s && type != DestinationType::StorageQueue)
        retype(child<QLineEdit>(&editor, u"entityNameEdit"_s), QString());
    retype(child<QLineEdit>(&editor, field), value);

    QVERIFY(!editor.isValid());
    auto *label = child<QLabel>(&editor, errorLabel);
    QVERIFY(label->isVisible());
    QCOMPARE(label->text(), message);
    QVERIFY(!child<QPushButton>(&editor, u"saveButton"_s)->isEnabled());
    // No other destination field claims it.
    for (const QString &other : {u"resourceIdError"_s, u"queueNameError"_s, u"queueTtlError"_s,
                                 u"serviceUrlError"_s, u"endpointError"_s}) {
        if (other != errorLabel)
            QVERIFY2(!child<QLabel>(&editor, other)->isVisible(), qPrintable(other));
    }
    // "Show" in the summary leads to the field.
    auto *summary = child<QLabel>(&editor, u"summaryLabel"_s);
    QVERIFY(summary->text().contains(message.toHtmlEscaped()));
    QMetaObject::invokeMethod(summary, "linkActivated", Q_ARG(QString, u"#show"_s));
    QWidget *expected = errorLabel == u"resourceIdError"_s
        ? child<QWidget>(&editor, u"resourceIdEdit"_s)
        : child<QWidget>(&editor, field);
    QTRY_COMPARE(QApplication::focusWidget(), expected);
}

// A message the workspace or the engine refuses a save with names the field it is about.
void TestDestinationEditor::saveErrorLeadsToTheField()
{
    SubscriptionEditor editor;
    EventSubscription subscription = webhookSubscription();
    subscription.batchPolicy = BatchPolicy();
    subscription.deliveryHeaders.clear();
    subscription.destination.type = DestinationType::StorageQueue;
    subscription.destination.resourceId = u"/providers/Microsoft.Storage/storageAccounts/dev"_s;
    subscription.destination.queueName = u"orders"_s;
    editor.setSubscription(makeTopic(), subscription, false);
    editor.show();
    QVERIFY(QTest::qWaitForWindowActive(&editor));
    editor.showSaveError(
        u"topics[0].eventSubscriptions[2].properties.destination.properties.queueName: must be 3-63 lower-case letters"_s);
    QTRY_COMPARE(QApplication::focusWidget(), child<QWidget>(&editor, u"queueNameEdit"_s));
    editor.showSaveError(
        u"properties.destination.properties.serviceUrl: must be an absolute http or https URL"_s);
    QTRY_COMPARE(QApplication::focusWidget(), child<QWidget>(&editor, u"serviceUrlEdit"_s));
    editor.showSaveError(
        u"properties.destination.properties.resourceId: must be the resource id"_s);
    QTRY_COMPARE(QApplication::focusWidget(), child<QWidget>(&editor, u"resourceIdEdit"_s));
}

void TestDestinationEditor::batchingAndHeadersFollowTheType()
{
    SubscriptionEditor editor;
    editor.setSubscription(makeTopic(), webhookSubscription(), false);
    editor.resize(1000, 900);
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    auto *batching = child<QGroupBox>(&editor, u"batchingGroup"_s);
    auto *batchingNote = child<QLabel>(&editor, u"batchingNote"_s);
    auto *maxEvents = child<QWidget>(&editor, u"maxEventsSpin"_s);
    auto *headers = child<QGroupBox>(&editor, u"headersGroup"_s);
    auto *headersNote = child<QLabel>(&editor, u"headersNote"_s);
    auto *headersView = child<QTableView>(&editor, u"headersView"_s);
    QVERIFY(batching->isCheckable() && batching->isChecked());
    QVERIFY(!batchingNote->isVisible());
    QVERIFY(headersView->isVisible());

    // A queue has neither: each section says so instead of its settings.
    chooseType(editor, DestinationType::StorageQueue);
    QVERIFY(!batching->isCheckable());
    QVERIFY(!maxEvents->isVisible());
    QVERIFY(batchingNote->isVisible());
    QVERIFY2(
        batchingNote->text().contains(u"Storage Queue destinations take one event per message"_s),
        qPrintable(batchingNote->text()));
    QVERIFY(!headersView->isVisible());
    QVERIFY(headersNote->isVisible());
    QVERIFY2(headersNote->text().contains(u"no delivery properties"_s)
                 && headersNote->text().contains(u"1 header(s) set here are kept"_s),
             qPrintable(headersNote->text()));
    EventSubscription current = editor.subscription();
    QVERIFY(!current.batchPolicy.enabled);
    QVERIFY(current.deliveryHeaders.isEmpty());

    // Service Bus: no batching, but the headers are its delivery properties.
    chooseType(editor, DestinationType::ServiceBusQueue);
    QVERIFY(batchingNote->isVisible());
    QVERIFY(batchingNote->text().contains(u"Service Bus Queue"_s));
    QVERIFY(headersView->isVisible());
    QCOMPARE(headers->title(), u"Delivery properties"_s);
    QVERIFY(headersNote->text().contains(u"properties of each message"_s));
    current = editor.subscription();
    QVERIFY(!current.batchPolicy.enabled);
    QCOMPARE(current.deliveryHeaders.size(), 1);

    // A function batches like a webhook: the settings come back as they were.
    chooseType(editor, DestinationType::AzureFunction);
    QVERIFY(batching->isCheckable() && batching->isChecked());
    QVERIFY(maxEvents->isVisible());
    QVERIFY(!batchingNote->isVisible());
    QCOMPARE(headers->title(), u"Delivery headers"_s);
    QVERIFY(!headersNote->isVisible());
    current = editor.subscription();
    QVERIFY(current.batchPolicy.enabled);
    QCOMPARE(current.batchPolicy.maxEventsPerBatch, 50);

    // The preview shows the rules of the type chosen.
    QCOMPARE(editor.retryTimelineView()->destinationType(), DestinationType::AzureFunction);

    // The validation handshake is a webhook's only.
    QVERIFY(!child<QCheckBox>(&editor, u"validationCheck"_s)->isVisible());
    chooseType(editor, DestinationType::WebHook);
    QVERIFY(child<QCheckBox>(&editor, u"validationCheck"_s)->isVisible());
    QVERIFY(!editor.isModified());
}

// The credential is asked for by its keychain key, stored in the secret store (the in-memory fake
// here, the main window's WorkspaceSecrets in the app) and never part of the subscription.
void TestDestinationEditor::credentialGoesToTheStoreNotTheJson()
{
    MemoryCredentials credentials;
    SubscriptionEditor editor;
    editor.setCredentialAccess(&credentials);
    editor.setSubscription(makeTopic(), webhookSubscription(), true);
    editor.show();
    QVERIFY(QTest::qWaitForWindowActive(&editor));
    auto *status = child<QLabel>(&editor, u"credentialStatus"_s);
    auto *button = child<QPushButton>(&editor, u"credentialButton"_s);

    chooseType(editor, DestinationType::StorageQueue);
    QCOMPARE(status->text(), u"Name the storage account first."_s);
    QVERIFY(!button->isEnabled());
    retype(child<QLineEdit>(&editor, u"resourceNameEdit"_s), u"devstoreaccount1"_s);
    retype(child<QLineEdit>(&editor, u"queueNameEdit"_s), u"orders"_s);
    QTRY_VERIFY2(status->text().startsWith(u"⚠ Not stored yet"_s), qPrintable(status->text()));
    QVERIFY(button->isEnabled());
    QCOMPARE(button->text(), u"Set Key…"_s);

    // A connection string of another account is refused before it is stored.
    credentials.typed = u"DefaultEndpointsProtocol=https;AccountName=other;AccountKey=a2V5;"_s;
    QTest::mouseClick(button, Qt::LeftButton);
    QCOMPARE(credentials.asked, QStringList {u"storage/devstoreaccount1/key"_s});
    QTRY_VERIFY(status->text().startsWith(u"⚠ Not stored yet"_s));

    const QString key = u"Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq=="_s;
    credentials.typed = key;
    QTest::mouseClick(button, Qt::LeftButton);
    QTRY_VERIFY2(status->text().startsWith(u"✓ A key of account “devstoreaccount1” is stored"_s),
                 qPrintable(status->text()));
    QCOMPARE(button->text(), u"Replace Key…"_s);
    QString stored;
    credentials.store.read(u"storage/devstoreaccount1/key"_s,
                           [&stored](const Expected<std::optional<QString>> &value) {
                               stored = value.value().value_or(QString());
                           });
    QCOMPARE(stored, key);
    // The subscription names the account; the key is nowhere in what would be saved.
    const QByteArray json = QJsonDocument(eventSubscriptionToArm(editor.subscription())).toJson();
    QVERIFY(json.contains("storageAccounts/devstoreaccount1"));
    QVERIFY(!json.contains(key.left(20).toUtf8()));

    // A namespace's connection string goes under the namespace's key.
    chooseType(editor, DestinationType::EventHub);
    QCOMPARE(status->text(), u"Name the namespace first."_s);
    retype(child<QLineEdit>(&editor, u"resourceNameEdit"_s), u"contoso-hubs"_s);
    retype(child<QLineEdit>(&editor, u"entityNameEdit"_s), u"telemetry"_s);
    QTRY_VERIFY(status->text().startsWith(u"⚠ Not stored yet"_s));
    QCOMPARE(button->text(), u"Set Connection String…"_s);
    credentials.typed = u"Endpoint=sb://contoso-hubs.servicebus.windows.net/;"
                        u"SharedAccessKeyName=send;SharedAccessKey=c2VjcmV0"_s;
    QTest::mouseClick(button, Qt::LeftButton);
    QCOMPARE(credentials.asked.last(), u"namespace/contoso-hubs/key"_s);
    QTRY_VERIFY(status->text().startsWith(u"✓ A connection string of namespace “contoso-hubs”"_s));
    QVERIFY(!QJsonDocument(eventSubscriptionToArm(editor.subscription()))
                 .toJson()
                 .contains("c2VjcmV0"));

    // Back to the account: its key is still there, found again.
    chooseType(editor, DestinationType::StorageQueue);
    QTRY_VERIFY(status->text().startsWith(u"✓ A key of account “devstoreaccount1”"_s));
}

void TestDestinationEditor::tabOrderFollowsTheForm()
{
    MemoryCredentials credentials;
    SubscriptionEditor editor;
    editor.setCredentialAccess(&credentials);
    editor.setSubscription(makeTopic(), webhookSubscription(), true);
    editor.resize(1000, 800);
    editor.show();
    QVERIFY(QTest::qWaitForWindowActive(&editor));
    chooseType(editor, DestinationType::StorageQueue);
    retype(child<QLineEdit>(&editor, u"resourceNameEdit"_s), u"dev"_s);
    QTRY_VERIFY(child<QPushButton>(&editor, u"credentialButton"_s)->isEnabled());

    auto *combo = child<QComboBox>(&editor, u"destinationTypeCombo"_s);
    combo->setFocus();
    QStringList order;
    for (int step = 0; step < 6; ++step) {
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
        order << QApplication::focusWidget()->objectName();
    }
    QCOMPARE(order,
             QStringList({u"resourceNameEdit"_s, u"resourceIdEdit"_s, u"queueNameEdit"_s,
                          u"queueTtlEdit"_s, u"serviceUrlEdit"_s, u"credentialButton"_s}));
    // And back.
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Backtab);
    QCOMPARE(QApplication::focusWidget()->objectName(), u"serviceUrlEdit"_s);
}

void TestDestinationEditor::screenshots()
{
    struct Shot
    {
        DestinationType type;
        QString name;
        QStringList typed; // name, entity, queue name, TTL, service URL
        bool storeCredential;
    };
    const QList<Shot> shots {
        {DestinationType::WebHook, u"webhook"_s, {}, false},
        {DestinationType::AzureFunction,
         u"function"_s,
         {u"orders-app"_s, u"OnOrderCreated"_s, {}, {}, {}},
         false},
        {DestinationType::StorageQueue,
         u"storage-queue"_s,
         {u"devstoreaccount1"_s,
          {},
          u"orders"_s,
          u"86400"_s,
          u"http://127.0.0.1:10001/devstoreaccount1"_s},
         true},
        {DestinationType::ServiceBusQueue,
         u"servicebus-queue"_s,
         {u"contoso-bus"_s, u"billing"_s, {}, {}, {}},
         false},
        {DestinationType::ServiceBusTopic,
         u"servicebus-topic"_s,
         {u"contoso-bus"_s, u"order-events"_s, {}, {}, {}},
         true},
        {DestinationType::EventHub,
         u"eventhub"_s,
         {u"contoso-hubs"_s, u"telemetry"_s, {}, {}, u"http://127.0.0.1:5300/"_s},
         false},
    };
    const QStringList fields {u"resourceNameEdit"_s, u"entityNameEdit"_s, u"queueNameEdit"_s,
                              u"queueTtlEdit"_s, u"serviceUrlEdit"_s};
    for (const Shot &shot : shots) {
        MemoryCredentials credentials;
        if (shot.storeCredential) {
            credentials.store.write(shot.type == DestinationType::StorageQueue
                                        ? u"storage/devstoreaccount1/key"_s
                                        : u"namespace/contoso-bus/key"_s,
                                    u"secret"_s, [](const Expected<void> &) {});
        }
        SubscriptionEditor editor;
        editor.setCredentialAccess(&credentials);
        editor.setSubscription(makeTopic(), webhookSubscription(), false);
        editor.resize(1000, 700);
        editor.show();
        QVERIFY(QTest::qWaitForWindowActive(&editor));
        chooseType(editor, shot.type);
        for (int index = 0; index < shot.typed.size(); ++index) {
            if (!shot.typed.at(index).isEmpty())
                retype(child<QLineEdit>(&editor, fields.at(index)), shot.typed.at(index));
        }
        if (shot.type != DestinationType::WebHook && shot.type != DestinationType::AzureFunction)
            QTRY_VERIFY(
                !child<QLabel>(&editor, u"credentialStatus"_s)->text().startsWith(u"Looking"_s));
        // Tall enough to show every section without scrolling.
        auto *scroll = child<QScrollArea>(&editor, u"editorScrollArea"_s);
        editor.resize(1000, scroll->widget()->sizeHint().height() + 160);
        QCoreApplication::processEvents(); // the relayout after the resize, before the grab
        saveShot(&editor, u"editor-"_s + shot.name);
        saveShot(child<QWidget>(&editor, u"destinationGroup"_s), u"destination-"_s + shot.name);
        saveShot(editor.retryTimelineView(), u"rules-"_s + shot.name);
    }
    {
        // Problems as a user sees them: each under its field.
        SubscriptionEditor editor;
        editor.setSubscription(makeTopic(), webhookSubscription(), true);
        editor.resize(1000, 700);
        editor.show();
        QVERIFY(QTest::qWaitForWindowActive(&editor));
        chooseType(editor, DestinationType::StorageQueue);
        retype(child<QLineEdit>(&editor, u"resourceNameEdit"_s), u"Dev_Account"_s);
        retype(child<QLineEdit>(&editor, u"queueNameEdit"_s), u"Orders"_s);
        retype(child<QLineEdit>(&editor, u"queueTtlEdit"_s), u"-5"_s);
        retype(child<QLineEdit>(&editor, u"serviceUrlEdit"_s), u"localhost:10001"_s);
        QVERIFY(!editor.isValid());
        QCoreApplication::processEvents(); // the relayout for the messages shown
        saveShot(child<QWidget>(&editor, u"destinationGroup"_s),
                 u"destination-storage-queue-invalid"_s);
        saveShot(&editor, u"editor-storage-queue-invalid"_s);
    }
}

QTEST_MAIN(TestDestinationEditor)
#include "tst_destinationeditor.moc"
