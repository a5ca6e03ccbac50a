// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// Destinations other than webhooks (issue 18), through the Dispatcher over the fake access
// manager and the manual clock: the request each type makes (URL, body, authorization, delivery
// properties), the answers of its REST API mapped to SPEC §7 outcomes, and what the engine does
// with them (R2 no-retry, R4 waits, P1 probation durations). Requests that cannot be made (a
// message over a queue's limit, no key) end without being sent.

#include "EngineUnitsFixture.h"
#include "FakeNetwork.h"

#include "azure/AzureCredentials.h"
#include "azure/StorageSharedKey.h"
#include "engine/Dispatcher.h"
#include "secrets/SecretStore.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QMessageAuthenticationCode>
#include <QUrlQuery>
#include <QtTest>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using namespace EventDesk::Testing;

namespace {

constexpr int Hang = 0;
const QString Providers = u"/subscriptions/1/resourceGroups/rg/providers/"_s;
// Azurite's well-known development account (public, documented for the emulator).
const QString AccountKey
    = u"Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="_s;
const QString QueueConnectionString = u"DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;"
                                      u"AccountKey="_s
    + AccountKey + u";QueueEndpoint=http://127.0.0.1:10001/devstoreaccount1;"_s;
const QString NamespaceConnectionString
    = u"Endpoint=sb://shop.servicebus.windows.net/;SharedAccessKeyName=send;"
      u"SharedAccessKey=c2VjcmV0LWtleS1vZi10aGUtbmFtZXNwYWNl"_s;

struct DestinationBench
{
    DestinationBench()
    {
        f.wire({&dispatcher});
        dispatcher.setCredentialResolver([this](const QString &key) { return credentials.value(key); });
    }

    void serviceDue(Subscription &subscription)
    {
        const StateLock lock(f.state.lock);
        dispatcher.serviceDue(subscription, f.clock.nowMs());
    }

    EngineUnitsFixture f;
    FakeAccessManager network;
    Dispatcher dispatcher {f.state, f.signals, f.commits, f.scheduler, f.outcomes, &network};
    QHash<QString, QString> credentials;
};

EventSubscription destination(const QString &name, DestinationType type, const QString &resourceId)
{
    EventSubscription config = EngineUnitsFixture::webhook(name);
    config.endpointUrl = QUrl();
    config.validationEnabled = true; // never asked of a destination that is not a webhook
    config.destination.type = type;
    config.destination.resourceId = resourceId;
    return config;
}

EventSubscription storageQueue(const QString &name)
{
    EventSubscription config
        = destination(name, DestinationType::StorageQueue,
                      Providers + u"Microsoft.Storage/storageAccounts/devstoreaccount1"_s);
    config.destination.queueName = u"orders"_s;
    return config;
}

// The event carried by a Put Message body: <QueueMessage><MessageText>Base64</MessageText>...
QJsonObject queuedEvent(const QByteArray &body)
{
    const qsizetype start = body.indexOf("<MessageText>") + 13;
    const qsizetype end = body.indexOf("</MessageText>");
    return QJsonDocument::fromJson(QByteArray::fromBase64(body.mid(start, end - start))).object();
}

} // namespace

class tst_Destinations : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void storageQueuePutsOneSignedMessagePerEvent();
    void storageQueueAnswers_data();
    void storageQueueAnswers();
    void storageQueueMessageOverTheLimitIsNotSent();
    void missingCredentialIsUnauthorizedWithoutARequest();
    void functionGetsTheBatchAtTheFunctionsHost();
    void functionThatIsNoEventGridTriggerGoesIntoProbation();
    void serviceBusSendsWithASharedAccessSignature();
    void messagingAnswers_data();
    void messagingAnswers();
    void eventHubSendsToTheHub();
};

void tst_Destinations::storageQueuePutsOneSignedMessagePerEvent()
{
    DestinationBench bench;
    bench.network.respondAlways(Hang);
    bench.credentials.insert(SecretKeys::storageAccountKey(u"devstoreaccount1"_s),
                             QueueConnectionString);
    EventSubscription config = storageQueue(u"to-queue"_s);
    config.destination.queueMessageTimeToLiveInSeconds = 3600;
    Subscription &subscription = bench.f.addSubscription(config);
    bench.f.addDeliveries(subscription, 3);
    bench.f.start();

    bench.serviceDue(subscription);

    // One message per event (no batches for queues), each signed with the account's key.
    QCOMPARE(bench.network.sent.size(), 3);
    QStringList ids;
    for (const FakeAccessManager::Sent &sent : std::as_const(bench.network.sent)) {
        QCOMPARE(sent.request.url(),
                 QUrl(u"http://127.0.0.1:10001/devstoreaccount1/orders/messages?messagettl=3600"_s));
        QVERIFY(sent.body.startsWith("<?xml version=\"1.0\" encoding=\"utf-8\"?><QueueMessage>"));
        const QJsonObject event = queuedEvent(sent.body);
        ids.append(event.value("id"_L1).toString());
        QCOMPARE(event.value("topic"_L1).toString(), subscription.topicPath);
        QCOMPARE(sent.header("x-ms-version"), QByteArray(SharedKey::ApiVersion));
        QVERIFY(!sent.header("x-ms-date").isEmpty());
        const QByteArray expected
            = SharedKey::authorization(u"devstoreaccount1"_s, AccountKey,
                                       SharedKey::stringToSign("POST", sent.request,
                                                               sent.body.size(),
                                                               u"devstoreaccount1"_s))
                  .value();
        QCOMPARE(sent.header("Authorization"), expected);
        QVERIFY(!sent.request.hasRawHeader("aeg-event-type"));
    }
    ids.sort();
    QCOMPARE(ids, (QStringList {u"e0"_s, u"e1"_s, u"e2"_s}));
}

void tst_Destinations::storageQueueAnswers_data()
{
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("errorCode");
    QTest::addColumn<DeliveryOutcome>("outcome");
    QTest::addColumn<bool>("retried");
    QTest::addColumn<qint64>("retryAfterMs");

    QTest::newRow("created") << 201 << QByteArray() << DeliveryOutcome::Delivered << false << 0LL;
    // SPEC R4: 404 waits at least 5 min.
    QTest::newRow("queue missing") << 404 << "QueueNotFound"_ba << DeliveryOutcome::NotFound
                                   << true << 5 * Minute;
    QTest::newRow("wrong key") << 403 << "AuthenticationFailed"_ba
                               << DeliveryOutcome::Unauthorized << false << 0LL;
    QTest::newRow("too large") << 413 << "RequestBodyTooLarge"_ba
                               << DeliveryOutcome::PayloadTooLarge << false << 0LL;
    QTest::newRow("busy") << 503 << "ServerBusy"_ba << DeliveryOutcome::Busy << true
                          << 30 * Second;
}

void tst_Destinations::storageQueueAnswers()
{
    QFETCH(int, status);
    QFETCH(QByteArray, errorCode);
    QFETCH(DeliveryOutcome, outcome);
    QFETCH(bool, retried);
    QFETCH(qint64, retryAfterMs);

    DestinationBench bench;
    bench.network.setAnswerResponder([&](const FakeAccessManager::Sent &) {
        FakeAccessManager::Answer answer;
        answer.status = status;
        if (!errorCode.isEmpty()) {
            answer.headers = {{"x-ms-error-code", errorCode}};
            answer.body = "<?xml version=\"1.0\"?><Error><Code>" + errorCode + "</Code></Error>";
        }
        return answer;
    });
    bench.credentials.insert(SecretKeys::storageAccountKey(u"devstoreaccount1"_s), AccountKey);
    Subscription &subscription = bench.f.addSubscription(storageQueue(u"to-queue"_s));
    const qint64 id = bench.f.addDelivery(subscription, u"e0"_s).id;
    bench.f.start();

    bench.serviceDue(subscription);
    bench.f.settle();

    QCOMPARE(bench.network.sent.size(), 1);
    // Without a connection string the account's public queue endpoint is used.
    QCOMPARE(bench.network.sent.at(0).request.url(),
             QUrl(u"https://devstoreaccount1.queue.core.windows.net/orders/messages"_s));
    const Delivery *delivery = bench.f.delivery(id);
    if (outcome == DeliveryOutcome::Delivered) {
        QVERIFY(!delivery); // finished
        return;
    }
    QVERIFY(delivery);
    QCOMPARE(delivery->lastOutcome, outcome);
    QCOMPARE(delivery->lastHttpStatus, status);
    if (retried) {
        QCOMPARE(delivery->state, DeliveryState::Pending);
        QVERIFY2(delivery->dueMs >= T0 + retryAfterMs, qPrintable(QString::number(delivery->dueMs - T0)));
    } else {
        // SPEC R2: dead-lettered at once.
        QCOMPARE(delivery->state, DeliveryState::DeadLetterPending);
    }
}

void tst_Destinations::storageQueueMessageOverTheLimitIsNotSent()
{
    DestinationBench bench;
    bench.network.respondAlways(201);
    bench.credentials.insert(SecretKeys::storageAccountKey(u"devstoreaccount1"_s), AccountKey);
    Subscription &subscription = bench.f.addSubscription(storageQueue(u"to-queue"_s));
    // 50,000 bytes of data are ~66,700 in Base64: over the queue's 64 KiB.
    const QList<Delivery *> large = bench.f.addDeliveries(
        subscription,
        {bench.f.event(subscription, u"large"_s, {{u"text"_s, QString(50'000, u'x')}})}, T0, T0);
    const qint64 largeId = large.constFirst()->id;
    const qint64 smallId = bench.f.addDelivery(subscription, u"small"_s).id;
    bench.f.start();

    bench.serviceDue(subscription);
    bench.f.settle();

    QCOMPARE(bench.network.sent.size(), 1); // the small one only
    QCOMPARE(queuedEvent(bench.network.sent.at(0).body).value("id"_L1).toString(), u"small"_s);
    QVERIFY(!bench.f.delivery(smallId));
    const Delivery *refused = bench.f.delivery(largeId);
    QVERIFY(refused);
    QCOMPARE(refused->lastOutcome, DeliveryOutcome::PayloadTooLarge);
    QCOMPARE(refused->state, DeliveryState::DeadLetterPending);
    QCOMPARE(refused->attempts, 1);
}

void tst_Destinations::missingCredentialIsUnauthorizedWithoutARequest()
{
    DestinationBench bench;
    bench.network.respondAlways(201);
    Subscription &queue = bench.f.addSubscription(storageQueue(u"to-queue"_s));
    Subscription &bus = bench.f.addSubscription(
        destination(u"to-bus"_s, DestinationType::ServiceBusQueue,
                    Providers + u"Microsoft.ServiceBus/namespaces/shop/queues/orders"_s));
    const qint64 queued = bench.f.addDelivery(queue, u"q0"_s).id;
    const qint64 bused = bench.f.addDelivery(bus, u"b0"_s).id;
    bench.credentials.insert(SecretKeys::namespaceKey(u"shop"_s), u"not a connection string"_s);
    bench.f.start();

    bench.serviceDue(queue);
    bench.serviceDue(bus);
    bench.f.settle();

    QCOMPARE(bench.network.sent.size(), 0);
    for (const qint64 id : {queued, bused}) {
        const Delivery *delivery = bench.f.delivery(id);
        QVERIFY(delivery);
        QCOMPARE(delivery->lastOutcome, DeliveryOutcome::Unauthorized);
        QCOMPARE(delivery->state, DeliveryState::DeadLetterPending);
    }
}

void tst_Destinations::functionGetsTheBatchAtTheFunctionsHost()
{
    DestinationBench bench;
    bench.network.respondAlways(200);
    EventSubscription config
        = destination(u"to-function"_s, DestinationType::AzureFunction,
                      Providers + u"Microsoft.Web/sites/orders-app/functions/OnOrder"_s);
    config.batchPolicy.enabled = true;
    config.batchPolicy.maxEventsPerBatch = 10;
    config.deliveryHeaders = {EngineUnitsFixture::staticHeader(u"X-Team"_s, u"billing"_s)};
    Subscription &subscription = bench.f.addSubscription(config);
    // Not a webhook: never asked to validate (no handshake), so it delivers at once.
    QCOMPARE(subscription.validation.record.state, ProvisioningState::Succeeded);
    bench.f.addDeliveries(subscription, 3);
    bench.f.start();

    bench.serviceDue(subscription);
    bench.f.settle();

    QCOMPARE(bench.network.sent.size(), 1); // SPEC B: functions take batches
    const FakeAccessManager::Sent &sent = bench.network.sent.at(0);
    QCOMPARE(sent.request.url(),
             QUrl(u"http://localhost:7071/runtime/webhooks/EventGrid?functionName=OnOrder"_s));
    QCOMPARE(QJsonDocument::fromJson(sent.body).array().size(), 3);
    QCOMPARE(sent.header("aeg-event-type"), "Notification"_ba);
    QCOMPARE(sent.header("aeg-subscription-name"), "TO-FUNCTION"_ba);
    QCOMPARE(sent.header("X-Team"), "billing"_ba);
    QCOMPARE(bench.f.state.deliveries.size(), size_t(0));
}

void tst_Destinations::functionThatIsNoEventGridTriggerGoesIntoProbation()
{
    DestinationBench bench;
    bench.network.respondAlways(404);
    bench.f.state.workspace.settings.probationThreshold = 2;
    EventSubscription config
        = destination(u"to-function"_s, DestinationType::AzureFunction,
                      Providers + u"Microsoft.Web/sites/orders-app/functions/NotATrigger"_s);
    config.destination.serviceUrl = QUrl(u"http://127.0.0.1:7072"_s);
    Subscription &subscription = bench.f.addSubscription(config);
    subscription.probation.setThreshold(2);
    const QList<Delivery *> sent = bench.f.addDeliveries(subscription, 2);
    const qint64 first = sent.at(0)->id;
    const qint64 second = sent.at(1)->id;
    const qint64 third = bench.f.addDeliveries(
        subscription, {bench.f.event(subscription, u"later"_s)}, T0 + Minute, T0).constFirst()->id;
    bench.f.start();

    bench.serviceDue(subscription);
    bench.f.settle();

    QCOMPARE(bench.network.sent.size(), 2);
    QCOMPARE(bench.network.sent.at(0).request.url().host(), u"127.0.0.1"_s);
    QCOMPARE(bench.network.sent.at(0).request.url().port(), 7072);
    for (const qint64 id : {first, second}) {
        QCOMPARE(bench.f.delivery(id)->lastOutcome,
                 DeliveryOutcome::InvalidAzureFunctionDestination);
        QCOMPARE(bench.f.delivery(id)->state, DeliveryState::DeadLetterPending); // R2
    }
    // SPEC P1: 10 min of probation; P3: a no-retry cause ends what comes due meanwhile.
    QCOMPARE(subscription.probation.state(), ProbationTracker::State::InProbation);
    QCOMPARE(subscription.probation.cause(), DeliveryOutcome::InvalidAzureFunctionDestination);
    QCOMPARE(subscription.probation.untilMs(), T0 + 10 * Minute);
    bench.f.advanceTo(T0 + Minute);
    QCOMPARE(bench.network.sent.size(), 2);
    QCOMPARE(bench.f.delivery(third)->lastOutcome, DeliveryOutcome::Probation);
    QCOMPARE(bench.f.delivery(third)->state, DeliveryState::DeadLetterPending);
}

void tst_Destinations::serviceBusSendsWithASharedAccessSignature()
{
    DestinationBench bench;
    bench.network.respondAlways(Hang);
    bench.credentials.insert(SecretKeys::namespaceKey(u"shop"_s), NamespaceConnectionString);
    EventSubscription config
        = destination(u"to-bus"_s, DestinationType::ServiceBusQueue,
                      Providers + u"Microsoft.ServiceBus/namespaces/shop/queues/orders"_s);
    config.deliveryHeaders = {EngineUnitsFixture::dynamicHeader(u"SessionId"_s, u"data.customer"_s),
                              EngineUnitsFixture::staticHeader(u"X-Tenant"_s, u"north"_s)};
    Subscription &subscription = bench.f.addSubscription(config);
    bench.f.addDeliveries(subscription, {bench.f.event(subscription, u"e0"_s,
                                                       {{u"customer"_s, u"c-42"_s}})},
                          T0, T0);
    bench.f.start();
    const qint64 before = QDateTime::currentSecsSinceEpoch();

    bench.serviceDue(subscription);

    QCOMPARE(bench.network.sent.size(), 1);
    const FakeAccessManager::Sent &sent = bench.network.sent.at(0);
    QCOMPARE(sent.request.url(), QUrl(u"https://shop.servicebus.windows.net/orders/messages"_s));
    // The event itself is the message (one per message), in the delivery schema.
    QCOMPARE(QJsonDocument::fromJson(sent.body).object().value("id"_L1).toString(), u"e0"_s);
    QCOMPARE(sent.request.header(QNetworkRequest::ContentTypeHeader).toString(),
             u"application/json"_s);
    // SharedAccessSignature sr=<uri>&sig=<HMAC-SHA256 of "<uri>\n<expiry>">&se=<expiry>&skn=send
    const QByteArray authorization = sent.header("Authorization");
    QVERIFY2(authorization.startsWith("SharedAccessSignature "), authorization.constData());
    const QUrlQuery token(QString::fromLatin1(authorization.mid(22)));
    const QString resource = token.queryItemValue(u"sr"_s, QUrl::FullyDecoded);
    QCOMPARE(resource, u"https://shop.servicebus.windows.net/orders"_s);
    QCOMPARE(token.queryItemValue(u"skn"_s), u"send"_s);
    const qint64 expiry = token.queryItemValue(u"se"_s).toLongLong();
    QVERIFY(expiry >= before + DeliveryRequests::SignatureLifetimeSeconds);
    QVERIFY(expiry <= QDateTime::currentSecsSinceEpoch() + DeliveryRequests::SignatureLifetimeSeconds);
    const QByteArray signed_ = QUrl::toPercentEncoding(resource) + '\n' + QByteArray::number(expiry);
    const QByteArray signature = QMessageAuthenticationCode::hash(
        signed_, "c2VjcmV0LWtleS1vZi10aGUtbmFtZXNwYWNl", QCryptographicHash::Sha256).toBase64();
    QCOMPARE(token.queryItemValue(u"sig"_s, QUrl::FullyDecoded).toLatin1(), signature);
    // Broker properties: the event id as MessageId, SessionId from the event's data; the other
    // delivery properties and Event Grid's metadata as custom properties.
    const QJsonObject broker = QJsonDocument::fromJson(sent.header("BrokerProperties")).object();
    QCOMPARE(broker.value("MessageId"_L1).toString(), u"e0"_s);
    QCOMPARE(broker.value("SessionId"_L1).toString(), u"c-42"_s);
    QVERIFY(!sent.request.hasRawHeader("SessionId"));
    QCOMPARE(sent.header("X-Tenant"), "north"_ba);
    QCOMPARE(sent.header("aeg-subscription-name"), "TO-BUS"_ba);
    QCOMPARE(sent.header("aeg-delivery-count"), "0"_ba);
}

void tst_Destinations::messagingAnswers_data()
{
    QTest::addColumn<DestinationType>("type");
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<DeliveryOutcome>("outcome");
    QTest::addColumn<bool>("retried");

    const auto queue = DestinationType::ServiceBusQueue;
    QTest::newRow("queue created") << queue << 201 << QByteArray() << DeliveryOutcome::Delivered
                                   << false;
    QTest::newRow("queue full") << queue << 403
                                << "<Error><Code>403</Code><Detail>QuotaExceeded</Detail></Error>"_ba
                                << DeliveryOutcome::Full << false;
    QTest::newRow("queue disabled")
        << queue << 403
        << "<Error><Code>403</Code><Detail>Messaging entity is currently disabled</Detail></Error>"_ba
        << DeliveryOutcome::Disabled << false;
    QTest::newRow("message too large")
        << queue << 403
        << "<Error><Code>403</Code><Detail>MessageSizeExceeded</Detail></Error>"_ba
        << DeliveryOutcome::PayloadTooLarge << false;
    QTest::newRow("session queue without session id")
        << queue << 400
        << "<Error><Code>400</Code><Detail>The SessionId was not set on a message</Detail></Error>"_ba
        << DeliveryOutcome::SessionQueueNotSupported << true;
    QTest::newRow("queue gone") << queue << 410 << QByteArray() << DeliveryOutcome::NotFound
                                << true;
    QTest::newRow("topic busy") << DestinationType::ServiceBusTopic << 503 << QByteArray()
                                << DeliveryOutcome::Busy << true;
    QTest::newRow("hub full") << DestinationType::EventHub << 403 << "QuotaExceeded"_ba
                              << DeliveryOutcome::Full << false;
    QTest::newRow("hub unauthorized") << DestinationType::EventHub << 401 << QByteArray()
                                      << DeliveryOutcome::Unauthorized << false;
}

void tst_Destinations::messagingAnswers()
{
    QFETCH(DestinationType, type);
    QFETCH(int, status);
    QFETCH(QByteArray, body);
    QFETCH(DeliveryOutcome, outcome);
    QFETCH(bool, retried);

    DestinationBench bench;
    bench.network.setAnswerResponder([&](const FakeAccessManager::Sent &) {
        return FakeAccessManager::Answer {status, body, {}};
    });
    bench.credentials.insert(SecretKeys::namespaceKey(u"shop"_s), NamespaceConnectionString);
    const QString entity = type == DestinationType::EventHub ? u"Microsoft.EventHub/namespaces/shop/eventhubs/orders"_s
        : type == DestinationType::ServiceBusTopic ? u"Microsoft.ServiceBus/namespaces/shop/topics/orders"_s
                                                   : u"Microsoft.ServiceBus/namespaces/shop/queues/orders"_s;
    Subscription &subscription
        = bench.f.addSubscription(destination(u"to-messaging"_s, type, Providers + entity));
    const qint64 id = bench.f.addDelivery(subscription, u"e0"_s).id;
    bench.f.start();

    bench.serviceDue(subscription);
    bench.f.settle();

    QCOMPARE(bench.network.sent.size(), 1);
    const Delivery *delivery = bench.f.delivery(id);
    if (outcome == DeliveryOutcome::Delivered) {
        QVERIFY(!delivery);
        return;
    }
    QVERIFY(delivery);
    QCOMPARE(delivery->lastOutcome, outcome);
    QCOMPARE(delivery->state, retried ? DeliveryState::Pending : DeliveryState::DeadLetterPending);
}

void tst_Destinations::eventHubSendsToTheHub()
{
    DestinationBench bench;
    bench.network.respondAlways(Hang);
    // A stand-in on loopback: the connection string's endpoint says where (http, its port).
    bench.credentials.insert(SecretKeys::namespaceKey(u"shop"_s),
                             u"Endpoint=http://127.0.0.1:8099/;SharedAccessKeyName=send;"
                             u"SharedAccessKey=abc"_s);
    EventSubscription config
        = destination(u"to-hub"_s, DestinationType::EventHub,
                      Providers + u"Microsoft.EventHub/namespaces/shop/eventhubs/telemetry"_s);
    config.deliveryHeaders = {EngineUnitsFixture::staticHeader(u"PartitionKey"_s, u"p-1"_s)};
    Subscription &subscription = bench.f.addSubscription(config);
    bench.f.addDeliveries(subscription, 2);
    bench.f.start();

    bench.serviceDue(subscription);

    QCOMPARE(bench.network.sent.size(), 2); // one event per message
    const FakeAccessManager::Sent &sent = bench.network.sent.at(0);
    QCOMPARE(sent.request.url(), QUrl(u"http://127.0.0.1:8099/telemetry/messages"_s));
    QCOMPARE(sent.request.header(QNetworkRequest::ContentTypeHeader).toString(),
             u"application/atom+xml;type=entry;charset=utf-8"_s);
    const QJsonObject broker = QJsonDocument::fromJson(sent.header("BrokerProperties")).object();
    QCOMPARE(broker.value("PartitionKey"_L1).toString(), u"p-1"_s);
    QVERIFY(!broker.contains("MessageId"_L1));
    QVERIFY(sent.header("Authorization").startsWith("SharedAccessSignature sr=http%3A%2F%2F127.0.0.1%3A8099%2Ftelemetry&sig="));
}

QTEST_GUILESS_MAIN(tst_Destinations)
#include "tst_destinations.moc"
