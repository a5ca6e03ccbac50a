// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// The endpoint and the engine together, over real loopback HTTP with engine time on a manual
// clock: webhook endpoint validation as Event Grid does it when a subscription is created
// (SubscriptionValidationEvent for Event Grid schema, the CloudEvents OPTIONS abuse-protection
// handshake), the validation URL, deliveries waiting until validation succeeds, the built-in
// test receivers provoking SPEC §7 outcomes, GET /metrics, and publishing with a shared access
// signature instead of the topic's key.

#include "DeadLetterFiles.h"
#include "LoopbackPort.h"

#include "deadletters/FolderDeadLetterSink.h"
#include "endpoint/SharedAccessSignature.h"
#include "endpoint/TopicEndpoint.h"
#include "engine/Clock.h"
#include "engine/Engine.h"
#include "store/sqlite/SqliteDeliveryStore.h"
#include "workspace/ProvisioningFile.h"
#include "workspace/WorkspaceFolder.h"

#include <QDeadlineTimer>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QTimeZone>
#include <QTimer>
#include <QUrlQuery>

#include <memory>
#include <optional>

using namespace Qt::StringLiterals;
using namespace EventDesk;

namespace {

constexpr qint64 T0 = 1'700'000'000'000;
constexpr qint64 Minute = 60'000;
constexpr int WaitMs = 20'000;

struct Subscription
{
    QString topic = u"orders"_s;
    QString name;
    QString receiver;
    QString deliverySchema = u"EventGridSchema"_s;
    bool validation = true;
    QString endpointUrl = {}; // default: the receiver on the harness's own endpoint
    int timeToLiveMinutes = 0; // 0: the default policy
    bool deadLetter = false; // the local container "deadletters"
};

struct HttpAnswer
{
    int status = 0;
    QByteArray body;
};

QByteArray eventGridEvents(const QString &id)
{
    return QJsonDocument(QJsonArray{QJsonObject{{u"id"_s, id},
                                                {u"subject"_s, u"/orders/1"_s},
                                                {u"eventType"_s, u"Order.Created"_s},
                                                {u"eventTime"_s, u"2024-05-01T10:00:00Z"_s},
                                                {u"dataVersion"_s, u"1.0"_s},
                                                {u"data"_s, QJsonObject{{u"amount"_s, 5}}}}})
        .toJson(QJsonDocument::Compact);
}

QByteArray headerOf(const ReceivedRequest &record, QByteArrayView name)
{
    for (const auto &[key, value] : record.headers) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return {};
}

class Harness
{
public:
    Harness(QList<Subscription> subscriptions, QJsonArray receivers)
        : m_subscriptions(std::move(subscriptions))
        , m_receivers(std::move(receivers))
    {
        m_pump.setInterval(2);
        QObject::connect(&m_pump, &QTimer::timeout, &clock, [this] { clock.advanceMs(0); });
    }

    ~Harness() { stop(); }

    bool start(quint16 port = 0)
    {
        if (!m_store.open(m_directory.filePath(u"eventdesk.db"_s)))
            return false;
        EngineOptions options;
        options.jitter = false;
        engine = std::make_unique<Engine>(&clock, &network, &m_store, &m_sink, options);
        engine->setProvisioningStore(&m_provisioning);
        QObject::connect(engine.get(), &Engine::attemptLogged, engine.get(),
                         [this](const AttemptLogEntry &entry) { attempts.append(entry); });
        endpoint = std::make_unique<TopicEndpoint>(
            engine.get(), [this](const QString &topic) { return topicKeys.value(topic.toLower()); });
        endpoint->setWallClock([this] { return wallClock; });
        auto bound = endpoint->listen(QHostAddress::LocalHost, port);
        if (!bound) {
            qWarning("%s", qPrintable(bound.error()));
            return false;
        }
        this->port = bound.value();
        auto workspace = Workspace::fromJson(workspaceJson(), u"workspace.json"_s);
        if (!workspace) {
            qWarning("%s", qPrintable(workspace.error()));
            return false;
        }
        if (!WorkspaceFolder::prepareDeadLetterContainers(m_directory.path(), workspace.value()))
            return false;
        if (auto started = engine->start(workspace.value()); !started) {
            qWarning("%s", qPrintable(started.error()));
            return false;
        }
        m_pump.start();
        return true;
    }

    void stop()
    {
        m_pump.stop();
        if (engine)
            engine->shutdown();
        endpoint.reset();
        engine.reset();
        m_store.close();
    }

    QUrl url(const QString &path) const { return QUrl(u"http://127.0.0.1:%1%2"_s.arg(port).arg(path)); }

    void setReceivers(QJsonArray receivers) { m_receivers = std::move(receivers); } // from the next start()

    // The dead-letter records written to the local container.
    QList<QJsonObject> deadLetterRecords() const
    {
        return Testing::deadLetterRecordsBelow(m_directory.filePath(u"deadletters"_s));
    }

    HttpAnswer get(const QUrl &url) { return send(network.get(QNetworkRequest(url))); }

    HttpAnswer publish(const QString &topic, const QByteArray &body, const QByteArray &contentType,
                       const HttpHeaders &headers = {})
    {
        QNetworkRequest request(url(u"/topics/%1/api/events"_s.arg(topic)));
        request.setHeader(QNetworkRequest::ContentTypeHeader, contentType);
        for (const auto &[name, value] : headers)
            request.setRawHeader(name, value);
        return send(network.post(request, body));
    }

    SubscriptionSnapshot subscription(const QString &name) const
    {
        for (const SubscriptionSnapshot &snapshot : engine->snapshot().subscriptions) {
            if (snapshot.subscription == name)
                return snapshot;
        }
        return {};
    }

    ProvisioningState state(const QString &name) const { return subscription(name).provisioningState; }

    quint64 published(const QString &topic) const
    {
        for (const TopicSnapshot &snapshot : engine->snapshot().topics) {
            if (snapshot.topic == topic)
                return snapshot.published;
        }
        return 0;
    }

    QList<ReceivedRequest> records(const QString &receiver) const
    {
        return endpoint->receivers().records(receiver);
    }

    int notifications(const QString &receiver) const
    {
        int count = 0;
        for (const ReceivedRequest &record : records(receiver))
            count += record.kind == ReceivedRequest::Kind::Notification ? 1 : 0;
        return count;
    }

    int attemptsWith(DeliveryOutcome outcome) const
    {
        int count = 0;
        for (const AttemptLogEntry &entry : attempts)
            count += entry.outcome == outcome ? 1 : 0;
        return count;
    }

    SqliteDeliveryStore &store() { return m_store; }

    ManualClock clock{T0};
    QHash<QString, QString> topicKeys; // lower-case topic name -> access key
    QDateTime wallClock = QDateTime::currentDateTimeUtc(); // what SAS token expiries are compared with
    QNetworkAccessManager network;
    std::unique_ptr<Engine> engine;
    std::unique_ptr<TopicEndpoint> endpoint;
    QList<AttemptLogEntry> attempts;
    quint16 port = 0;

private:
    HttpAnswer send(QNetworkReply *reply)
    {
        std::unique_ptr<QNetworkReply> owner(reply);
        QSignalSpy finished(reply, &QNetworkReply::finished);
        if (!reply->isFinished())
            finished.wait(WaitMs);
        return {reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), reply->readAll()};
    }

    QByteArray workspaceJson() const
    {
        QJsonArray orders;
        QJsonArray cloud;
        for (const Subscription &subscription : m_subscriptions) {
            QJsonObject properties{
                {u"destination"_s,
                 QJsonObject{{u"endpointType"_s, u"WebHook"_s},
                             {u"properties"_s,
                              QJsonObject{{u"endpointUrl"_s,
                                           subscription.endpointUrl.isEmpty()
                                               ? url(u"/receivers/"_s + subscription.receiver).toString()
                                               : subscription.endpointUrl}}}}},
                {u"eventDeliverySchema"_s, subscription.deliverySchema}};
            if (subscription.timeToLiveMinutes > 0)
                properties.insert(u"retryPolicy"_s,
                                  QJsonObject{{u"eventTimeToLiveInMinutes"_s, subscription.timeToLiveMinutes}});
            if (subscription.deadLetter)
                properties.insert(u"deadLetterDestination"_s,
                                  QJsonObject{{u"endpointType"_s, u"StorageBlob"_s},
                                              {u"properties"_s, QJsonObject{{u"resourceId"_s, u"local"_s},
                                                                            {u"blobContainerName"_s, u"deadletters"_s}}}});
            if (!subscription.validation)
                properties.insert(u"x-eventdesk"_s, QJsonObject{{u"validation"_s, false}});
            const QJsonObject json{{u"name"_s, subscription.name}, {u"properties"_s, properties}};
            (subscription.topic == "cloud"_L1 ? cloud : orders).append(json);
        }
        const QJsonObject root{
            {u"topics"_s, QJsonArray{QJsonObject{{u"name"_s, u"orders"_s},
                                                 {u"inputSchema"_s, u"EventGridSchema"_s},
                                                 {u"eventSubscriptions"_s, orders}},
                                     QJsonObject{{u"name"_s, u"cloud"_s},
                                                 {u"inputSchema"_s, u"CloudEventSchemaV1_0"_s},
                                                 {u"eventSubscriptions"_s, cloud}}}},
            {u"receivers"_s, m_receivers},
            {u"settings"_s, QJsonObject{{u"deadLetterDelaySeconds"_s, 0}}}};
        return QJsonDocument(root).toJson();
    }

    QList<Subscription> m_subscriptions;
    QJsonArray m_receivers;
    QTemporaryDir m_directory;
    SqliteDeliveryStore m_store;
    FolderDeadLetterSink m_sink{m_directory.filePath(u"deadletters"_s)};
    ProvisioningFile m_provisioning{ProvisioningFile::defaultPath(m_directory.path())};
    QTimer m_pump; // fires what is due "now" on the manual clock; time itself only moves when told
};

const QString Padding(900, u'p');

// Events of about 1 KB each: 200 of them make a request that is parsed and stored off the
// engine thread (publishAsync takes requests of 32 KB and more there).
QJsonArray largeEvents(int count)
{
    QJsonArray events;
    for (int i = 0; i < count; ++i) {
        events.append(QJsonObject{{u"id"_s, u"big-%1"_s.arg(i)},
                                  {u"subject"_s, u"/orders/%1"_s.arg(i)},
                                  {u"eventType"_s, u"Order.Created"_s},
                                  {u"eventTime"_s, u"2024-05-01T10:00:00Z"_s},
                                  {u"dataVersion"_s, u"1.0"_s},
                                  {u"data"_s, QJsonObject{{u"padding"_s, Padding}}}});
    }
    return events;
}

// Waits, without running this thread's event loop (so that the engine cannot take them over
// yet), until the store holds this many unfinished deliveries.
qsizetype waitForStoredDeliveries(SqliteDeliveryStore &store, qsizetype count)
{
    QDeadlineTimer deadline(WaitMs);
    qsizetype stored = 0;
    do {
        auto deliveries = store.loadUnfinishedDeliveries();
        stored = deliveries ? deliveries->size() : -1;
        if (stored >= count)
            break;
        QThread::msleep(5);
    } while (!deadline.hasExpired());
    return stored;
}

const QString TopicKey = u"c2VjcmV0LWtleS1mb3Itb3JkZXJzLTEyMzQ1Njc4OTA="_s;

QString errorMessageOf(const HttpAnswer &answer)
{
    return QJsonDocument::fromJson(answer.body)[u"error"_s][u"message"_s].toString();
}

const QJsonObject AnsweringReceiver{{u"name"_s, u"answer"_s}, {u"status"_s, 200}};
const QJsonObject IgnoringReceiver{{u"name"_s, u"ignore"_s}, {u"status"_s, 200}, {u"validation"_s, u"ignore"_s}};
const QJsonObject RefusingReceiver{{u"name"_s, u"refuse"_s}, {u"status"_s, 200}, {u"validation"_s, u"refuse"_s}};
const QJsonObject StartingReceiver{{u"name"_s, u"starting"_s}, {u"status"_s, 200}, {u"validation"_s, u"unavailable"_s}};
constexpr qint64 Second = 1000;

} // namespace

class EndpointTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void eventGridHandshake_answeredThenDeliveriesFlow();
    void eventGridHandshake_ignored_awaitsManualValidationAndDeliveriesWait();
    void validationUrl_expiresAfterFiveMinutes_subscriptionFails();
    void cloudEventsHandshake_allowedOriginThenDeliveriesCarryIt();
    void cloudEventsHandshake_refused_failsAndHeldEventsDropped();
    void unreachableEndpoint_validationRetriedWithBackoff_heldEventsDeliveredOnceUp();
    void busyHandshake_retried_explicitRefusalIsNot();
    void heldEvents_timeToLiveRunsOut_deadLetteredWithValidationOutcome();
    void failedSubscription_validatedAgainAtRestart();
    void heldEvents_everyAcceptedEventEndsWithAFate();
    void cloudEventsAllowedRate_requestsSpacedToTheRate();
    void validationSwitchedOff_noHandshake();
    void provisioningState_survivesRestart_noSecondHandshake();
    void changedEndpoint_isValidatedAgain();
    void receivers_provokeBusySocketErrorAndTimedOut();
    void metrics_servedAndCountingDeliveries();
    void unknownReceiverAndPath_are404();
    void largePublish_parsedOffThread_answeredAfterCommit();
    void workspaceChangedWhileParsing_requestTakenAgain();
    void largePublish_subscriptionDeletedWhileStored_itsDeliveriesDropped();
    void largePublish_engineStoppedWhileStoring_deliveriesStayInStore();
    void sasToken_inEitherHeader_publishes();
    void sasToken_refused_401SaysWhichCheckFailed_data();
    void sasToken_refused_401SaysWhichCheckFailed();
};

// Event Grid schema: SubscriptionValidationEvent, aeg-event-type: SubscriptionValidation, and
// the endpoint echoes data.validationCode as {"validationResponse": ...}.
void EndpointTest::eventGridHandshake_answeredThenDeliveriesFlow()
{
    Harness harness({{u"orders"_s, u"sub-answer"_s, u"answer"_s}}, {AnsweringReceiver});
    QVERIFY(harness.start());
    QTRY_COMPARE_WITH_TIMEOUT(harness.state(u"sub-answer"_s), ProvisioningState::Succeeded, WaitMs);

    const ReceivedRequest handshake = harness.records(u"answer"_s).constFirst();
    QCOMPARE(handshake.kind, ReceivedRequest::Kind::ValidationHandshake);
    QCOMPARE(headerOf(handshake, "aeg-event-type"), QByteArray("SubscriptionValidation"));
    QCOMPARE(headerOf(handshake, "aeg-subscription-name"), QByteArray("SUB-ANSWER"));
    const QJsonObject event = QJsonDocument::fromJson(handshake.body).array().at(0).toObject();
    QCOMPARE(event[u"eventType"_s].toString(), u"Microsoft.EventGrid.SubscriptionValidationEvent"_s);
    QVERIFY(!event[u"data"_s][u"validationCode"_s].toString().isEmpty());
    QVERIFY2(event[u"data"_s][u"validationUrl"_s].toString().startsWith(
                 harness.url(u"/validate/orders/sub-answer?code="_s).toString()),
             qPrintable(event[u"data"_s][u"validationUrl"_s].toString()));
    QCOMPARE(handshake.responseStatus, 200);

    QCOMPARE(harness.publish(u"orders"_s, eventGridEvents(u"e1"_s), "application/json").status, 200);
    QTRY_COMPARE_WITH_TIMEOUT(harness.subscription(u"sub-answer"_s).delivered, quint64(1), WaitMs);
    QCOMPARE(harness.notifications(u"answer"_s), 1);
}

void EndpointTest::eventGridHandshake_ignored_awaitsManualValidationAndDeliveriesWait()
{
    Harness harness({{u"orders"_s, u"sub-manual"_s, u"ignore"_s}}, {IgnoringReceiver});
    QVERIFY(harness.start());
    QTRY_COMPARE_WITH_TIMEOUT(harness.state(u"sub-manual"_s), ProvisioningState::AwaitingManualActionValidation,
                              WaitMs);
    const SubscriptionSnapshot awaiting = harness.subscription(u"sub-manual"_s);
    QCOMPARE(awaiting.validationExpiresMs, harness.clock.nowMs() + 5 * Minute);
    QVERIFY(!awaiting.validationUrl.isEmpty());

    // Deliveries wait: accepted, pending, not attempted.
    QCOMPARE(harness.publish(u"orders"_s, eventGridEvents(u"e1"_s), "application/json").status, 200);
    QTRY_COMPARE_WITH_TIMEOUT(harness.subscription(u"sub-manual"_s).backlog, qint64(1), WaitMs);
    harness.clock.advanceMs(Minute);
    QCOMPARE(harness.notifications(u"ignore"_s), 0);
    QCOMPARE(harness.subscription(u"sub-manual"_s).requests, quint64(0));

    QUrl wrongCode(awaiting.validationUrl);
    wrongCode.setQuery(u"code=WRONG"_s);
    QCOMPARE(harness.get(wrongCode).status, 400);
    QCOMPARE(harness.state(u"sub-manual"_s), ProvisioningState::AwaitingManualActionValidation);

    const HttpAnswer validated = harness.get(QUrl(awaiting.validationUrl));
    QCOMPARE(validated.status, 200);
    QCOMPARE(QJsonDocument::fromJson(validated.body)[u"provisioningState"_s].toString(), u"Succeeded"_s);
    QCOMPARE(harness.state(u"sub-manual"_s), ProvisioningState::Succeeded);
    QTRY_COMPARE_WITH_TIMEOUT(harness.subscription(u"sub-manual"_s).delivered, quint64(1), WaitMs);
    QCOMPARE(harness.notifications(u"ignore"_s), 1);
}

void EndpointTest::validationUrl_expiresAfterFiveMinutes_subscriptionFails()
{
    Harness harness({{u"orders"_s, u"sub-late"_s, u"ignore"_s}}, {IgnoringReceiver});
    QVERIFY(harness.start());
    QTRY_COMPARE_WITH_TIMEOUT(harness.state(u"sub-late"_s), ProvisioningState::AwaitingManualActionValidation, WaitMs);
    const QString url = harness.subscription(u"sub-late"_s).validationUrl;
    QCOMPARE(harness.publish(u"orders"_s, eventGridEvents(u"e1"_s), "application/json").status, 200);

    harness.clock.advanceMs(5 * Minute - 1);
    QCOMPARE(harness.state(u"sub-late"_s), ProvisioningState::AwaitingManualActionValidation);
    harness.clock.advanceMs(1);
    QCOMPARE(harness.state(u"sub-late"_s), ProvisioningState::Failed);
    QCOMPARE(harness.get(QUrl(url)).status, 410);
    // Not stranded: the held delivery leaves (dropped: no dead-letter destination) with a reason
    // that names the failed validation.
    QTRY_COMPARE_WITH_TIMEOUT(
        harness.subscription(u"sub-late"_s).droppedByReason.value(DeadLetterReason::EndpointValidationFailed),
        quint64(1), WaitMs);
    QCOMPARE(harness.subscription(u"sub-late"_s).backlog, qint64(0));
    QCOMPARE(harness.notifications(u"ignore"_s), 0);

    // A new handshake can be asked for; this receiver ignores it again.
    const int before = int(harness.records(u"ignore"_s).size());
    QVERIFY(harness.engine->revalidate(u"orders"_s, u"sub-late"_s).hasValue());
    QTRY_COMPARE_WITH_TIMEOUT(harness.state(u"sub-late"_s), ProvisioningState::AwaitingManualActionValidation, WaitMs);
    QCOMPARE(harness.records(u"ignore"_s).size(), before + 1);
}

// CloudEvents: OPTIONS with WebHook-Request-Origin; WebHook-Allowed-Origin and -Rate accepted;
// deliveries then carry the origin.
void EndpointTest::cloudEventsHandshake_allowedOriginThenDeliveriesCarryIt()
{
    Harness harness({{u"cloud"_s, u"sub-ce"_s, u"answer"_s, u"CloudEventSchemaV1_0"_s}}, {AnsweringReceiver});
    QVERIFY(harness.start());
    QTRY_COMPARE_WITH_TIMEOUT(harness.state(u"sub-ce"_s), ProvisioningState::Succeeded, WaitMs);
    const ReceivedRequest handshake = harness.records(u"answer"_s).constFirst();
    QCOMPARE(handshake.kind, ReceivedRequest::Kind::AbuseProtectionHandshake);
    QCOMPARE(handshake.method, QByteArray("OPTIONS"));
    QCOMPARE(headerOf(handshake, "WebHook-Request-Origin"), QByteArray("eventgrid.azure.net"));
    QCOMPARE(harness.subscription(u"sub-ce"_s).allowedRate, u"*"_s);

    const QByteArray event = R"({"specversion":"1.0","id":"c1","source":"/test","type":"Test.Created","data":{"a":1}})";
    QCOMPARE(harness.publish(u"cloud"_s, event, "application/cloudevents+json; charset=utf-8").status, 200);
    QTRY_COMPARE_WITH_TIMEOUT(harness.notifications(u"answer"_s), 1, WaitMs);
    const ReceivedRequest delivery = harness.records(u"answer"_s).constLast();
    QCOMPARE(headerOf(delivery, "WebHook-Request-Origin"), QByteArray("eventgrid.azure.net"));
    QCOMPARE(headerOf(delivery, "aeg-metadata-version"), QByteArray("1.0"));
}

void EndpointTest::cloudEventsHandshake_refused_failsAndHeldEventsDropped()
{
    Harness harness({{u"cloud"_s, u"sub-ce"_s, u"refuse"_s, u"CloudEventSchemaV1_0"_s}}, {RefusingReceiver});
    QVERIFY(harness.start());
    QTRY_COMPARE_WITH_TIMEOUT(harness.state(u"sub-ce"_s), ProvisioningState::Failed, WaitMs);
    QVERIFY(harness.subscription(u"sub-ce"_s).provisioningMessage.contains(u"403"_s));
    QVERIFY(harness.subscription(u"sub-ce"_s).validationUrl.isEmpty()); // no manual validation
    // An explicit refusal is not retried: one handshake, however long we wait.
    harness.clock.advanceMs(10 * Minute);
    QCOMPARE(harness.records(u"refuse"_s).size(), 1);
    // An event accepted while the subscription is Failed does not wait for ever: it is dropped
    // (no dead-letter destination) with the reason EndpointValidationFailed.
    const QByteArray event = R"({"specversion":"1.0","id":"c1","source":"/test","type":"Test.Created"})";
    QCOMPARE(harness.publish(u"cloud"_s, event, "application/cloudevents+json").status, 200);
    QTRY_COMPARE_WITH_TIMEOUT(
        harness.subscription(u"sub-ce"_s).droppedByReason.value(DeadLetterReason::EndpointValidationFailed),
        quint64(1), WaitMs);
    QCOMPARE(harness.subscription(u"sub-ce"_s).backlog, qint64(0));
    QCOMPARE(harness.notifications(u"refuse"_s), 0);
}

// The usual order on a developer's machine: EventDesk first, the webhook a little later. Connection
// refused keeps the subscription Creating, asks again after 5 s, 10 s, ... and the events accepted
// meanwhile are held, then delivered once the endpoint answers the handshake.
void EndpointTest::unreachableEndpoint_validationRetriedWithBackoff_heldEventsDeliveredOnceUp()
{
    const quint16 latePort = Testing::closedLoopbackPort();
    const QString lateUrl = u"http://127.0.0.1:%1/receivers/answer"_s.arg(latePort);
    Harness harness({{u"orders"_s, u"sub-late"_s, u"answer"_s, u"EventGridSchema"_s, true, lateUrl}},
                    {AnsweringReceiver});
    QVERIFY(harness.start());
    QTRY_COMPARE_WITH_TIMEOUT(harness.subscription(u"sub-late"_s).endpointUnreachable, u"connection refused"_s,
                              WaitMs);
    SubscriptionSnapshot waiting = harness.subscription(u"sub-late"_s);
    QCOMPARE(waiting.provisioningState, ProvisioningState::Creating);
    QCOMPARE(waiting.provisioningMessage,
             u"endpoint unreachable: connection refused; next validation attempt in 5 s"_s);
    QCOMPARE(waiting.nextValidationMs, T0 + 5 * Second);

    for (int i = 0; i < 3; ++i)
        QCOMPARE(harness.publish(u"orders"_s, eventGridEvents(u"held-%1"_s.arg(i)), "application/json").status, 200);
    QTRY_COMPARE_WITH_TIMEOUT(harness.subscription(u"sub-late"_s).held, qint64(3), WaitMs);

    // Not yet: nothing is asked before the next attempt is due.
    harness.clock.advanceMs(5 * Second - 1);
    QCOMPARE(harness.subscription(u"sub-late"_s).nextValidationMs, T0 + 5 * Second);
    // The second handshake is refused too: the wait grows to 10 s.
    harness.clock.advanceMs(1);
    QTRY_COMPARE_WITH_TIMEOUT(harness.subscription(u"sub-late"_s).nextValidationMs, T0 + 15 * Second, WaitMs);
    QCOMPARE(harness.state(u"sub-late"_s), ProvisioningState::Creating);

    // The webhook comes up (an endpoint of its own on the port the subscription names).
    TopicEndpoint webhook(harness.engine.get(), [](const QString &) { return QString(); });
    QVERIFY(webhook.listen(QHostAddress::LocalHost, latePort).hasValue());
    harness.clock.advanceMs(10 * Second);
    QTRY_COMPARE_WITH_TIMEOUT(harness.state(u"sub-late"_s), ProvisioningState::Succeeded, WaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(harness.subscription(u"sub-late"_s).delivered, quint64(3), WaitMs);
    const SubscriptionSnapshot validated = harness.subscription(u"sub-late"_s);
    QCOMPARE(validated.held, qint64(0));
    QCOMPARE(validated.backlog, qint64(0));
    QVERIFY(validated.endpointUnreachable.isEmpty());
    const QList<ReceivedRequest> received = webhook.receivers().records(u"answer"_s);
    QCOMPARE(received.size(), 4);
    QCOMPARE(received.constFirst().kind, ReceivedRequest::Kind::ValidationHandshake);
}

// 503 (like 408, 429 and every 5xx) means "not ready yet": retried. 403 is the endpoint's answer:
// AwaitingManualActionValidation (Event Grid schema), not retried.
void EndpointTest::busyHandshake_retried_explicitRefusalIsNot()
{
    Harness harness({{u"orders"_s, u"sub-busy"_s, u"starting"_s}, {u"orders"_s, u"sub-no"_s, u"refuse"_s}},
                    {StartingReceiver, RefusingReceiver});
    QVERIFY(harness.start());
    QTRY_COMPARE_WITH_TIMEOUT(harness.subscription(u"sub-busy"_s).endpointUnreachable, u"HTTP 503"_s, WaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(harness.state(u"sub-no"_s), ProvisioningState::AwaitingManualActionValidation,
                              WaitMs);
    QVERIFY(harness.subscription(u"sub-no"_s).provisioningMessage.contains(u"HTTP 403"_s));
    QVERIFY(harness.subscription(u"sub-no"_s).endpointUnreachable.isEmpty());

    // 5 s, 10 s, 30 s, 1 min, then every 5 min: after each wait, the next handshake, then the
    // next (longer) wait.
    const qint64 waits[] = {5 * Second, 10 * Second, 30 * Second, Minute, 5 * Minute, 5 * Minute};
    QCOMPARE(harness.subscription(u"sub-busy"_s).nextValidationMs, harness.clock.nowMs() + waits[0]);
    for (int i = 0; i < 5; ++i) {
        harness.clock.advanceMs(waits[i]);
        QTRY_COMPARE_WITH_TIMEOUT(harness.subscription(u"sub-busy"_s).nextValidationMs,
                                  harness.clock.nowMs() + waits[i + 1], WaitMs);
    }
    QCOMPARE(harness.records(u"starting"_s).size(), 6);
    QCOMPARE(harness.state(u"sub-busy"_s), ProvisioningState::Creating);
    QCOMPARE(harness.records(u"refuse"_s).size(), 1);
}

// A held delivery whose time to live runs out before the endpoint is validated is dead-lettered
// with TimeToLiveExceeded and lastDeliveryOutcome EndpointValidationPending (0 attempts).
void EndpointTest::heldEvents_timeToLiveRunsOut_deadLetteredWithValidationOutcome()
{
    Subscription subscription{u"orders"_s, u"sub-never"_s, u"answer"_s, u"EventGridSchema"_s, true,
                              u"http://127.0.0.1:%1/hook"_s.arg(Testing::closedLoopbackPort())};
    subscription.timeToLiveMinutes = 1;
    subscription.deadLetter = true;
    Harness harness({subscription}, {AnsweringReceiver});
    QVERIFY(harness.start());
    QCOMPARE(harness.publish(u"orders"_s, eventGridEvents(u"never-1"_s), "application/json").status, 200);
    QCOMPARE(harness.publish(u"orders"_s, eventGridEvents(u"never-2"_s), "application/json").status, 200);
    QTRY_COMPARE_WITH_TIMEOUT(harness.subscription(u"sub-never"_s).held, qint64(2), WaitMs);

    harness.clock.advanceMs(Minute - 1);
    QCOMPARE(harness.subscription(u"sub-never"_s).held, qint64(2));
    harness.clock.advanceMs(1);
    QTRY_COMPARE_WITH_TIMEOUT(
        harness.subscription(u"sub-never"_s).deadLetteredByReason.value(DeadLetterReason::TimeToLiveExceeded),
        quint64(2), WaitMs);
    QCOMPARE(harness.subscription(u"sub-never"_s).held, qint64(0));
    QCOMPARE(harness.subscription(u"sub-never"_s).backlog, qint64(0));
    QCOMPARE(harness.state(u"sub-never"_s), ProvisioningState::Creating); // still asking

    const QList<QJsonObject> records = harness.deadLetterRecords();
    QCOMPARE(records.size(), 2);
    for (const QJsonObject &record : records) {
        QCOMPARE(record[u"deadLetterReason"_s].toString(), u"TimeToLiveExceeded"_s);
        QCOMPARE(record[u"lastDeliveryOutcome"_s].toString(), u"EndpointValidationPending"_s);
        QCOMPARE(record[u"deliveryAttempts"_s].toInt(), 0);
    }
}

// The invariant: every accepted event ends delivered, dead-lettered or dropped with a reason; none
// stays pending. Two events outlive their TTL while the endpoint is down, two are delivered once
// it is up, one is published to a Failed subscription.
void EndpointTest::heldEvents_everyAcceptedEventEndsWithAFate()
{
    const quint16 latePort = Testing::closedLoopbackPort();
    Subscription late{u"orders"_s, u"sub-late"_s, u"answer"_s, u"EventGridSchema"_s, true,
                      u"http://127.0.0.1:%1/receivers/answer"_s.arg(latePort)};
    late.timeToLiveMinutes = 10;
    late.deadLetter = true;
    Harness harness({late, {u"cloud"_s, u"sub-no"_s, u"refuse"_s, u"CloudEventSchemaV1_0"_s}},
                    {AnsweringReceiver, RefusingReceiver});
    QVERIFY(harness.start());
    QTRY_COMPARE_WITH_TIMEOUT(harness.state(u"sub-no"_s), ProvisioningState::Failed, WaitMs);

    QCOMPARE(harness.publish(u"orders"_s, eventGridEvents(u"early-1"_s), "application/json").status, 200);
    QCOMPARE(harness.publish(u"orders"_s, eventGridEvents(u"early-2"_s), "application/json").status, 200);
    const QByteArray cloudEvent = R"({"specversion":"1.0","id":"c1","source":"/test","type":"Test.Created"})";
    QCOMPARE(harness.publish(u"cloud"_s, cloudEvent, "application/cloudevents+json").status, 200);
    harness.clock.advanceMs(8 * Minute);
    QCOMPARE(harness.publish(u"orders"_s, eventGridEvents(u"later-1"_s), "application/json").status, 200);
    QCOMPARE(harness.publish(u"orders"_s, eventGridEvents(u"later-2"_s), "application/json").status, 200);
    harness.clock.advanceMs(2 * Minute); // the early ones' TTL runs out
    QTRY_COMPARE_WITH_TIMEOUT(
        harness.subscription(u"sub-late"_s).deadLetteredByReason.value(DeadLetterReason::TimeToLiveExceeded),
        quint64(2), WaitMs);
    QCOMPARE(harness.subscription(u"sub-late"_s).held, qint64(2));

    TopicEndpoint webhook(harness.engine.get(), [](const QString &) { return QString(); });
    QVERIFY(webhook.listen(QHostAddress::LocalHost, latePort).hasValue());
    // The next handshake (at most 5 min away) comes before the later ones' TTL (8 min away).
    const qint64 nextHandshake = harness.subscription(u"sub-late"_s).nextValidationMs;
    QVERIFY(nextHandshake > harness.clock.nowMs() && nextHandshake <= harness.clock.nowMs() + 5 * Minute);
    harness.clock.advanceMs(nextHandshake - harness.clock.nowMs());
    QTRY_COMPARE_WITH_TIMEOUT(harness.subscription(u"sub-late"_s).delivered, quint64(2), WaitMs);

    QTRY_COMPARE_WITH_TIMEOUT(harness.subscription(u"sub-no"_s)
                                  .droppedByReason.value(DeadLetterReason::EndpointValidationFailed),
                              quint64(1), WaitMs);
    const SubscriptionSnapshot orders = harness.subscription(u"sub-late"_s);
    QCOMPARE(orders.delivered + orders.deadLetteredByReason.value(DeadLetterReason::TimeToLiveExceeded), quint64(4));
    QCOMPARE(orders.backlog + orders.inFlight + orders.deadLetterPending, qint64(0));
    QCOMPARE(harness.subscription(u"sub-no"_s).backlog, qint64(0));
    // And in the store: nothing unfinished once the state changes are committed.
    QTRY_COMPARE_WITH_TIMEOUT(harness.store().loadUnfinishedDeliveries().value().size(), qsizetype(0), WaitMs);
}

// Failed is not forever: at the next start the subscription is validated again.
void EndpointTest::failedSubscription_validatedAgainAtRestart()
{
    const QJsonObject refusing{{u"name"_s, u"flip"_s}, {u"validation"_s, u"refuse"_s}};
    const QJsonObject answering{{u"name"_s, u"flip"_s}};
    Harness harness({{u"cloud"_s, u"sub-flip"_s, u"flip"_s, u"CloudEventSchemaV1_0"_s}}, {refusing});
    QVERIFY(harness.start());
    QTRY_COMPARE_WITH_TIMEOUT(harness.state(u"sub-flip"_s), ProvisioningState::Failed, WaitMs);
    const quint16 port = harness.port;
    harness.stop();

    harness.setReceivers({answering}); // the endpoint was fixed while EventDesk was not running
    QVERIFY(harness.start(port));
    QTRY_COMPARE_WITH_TIMEOUT(harness.state(u"sub-flip"_s), ProvisioningState::Succeeded, WaitMs);
    QCOMPARE(harness.records(u"flip"_s).constFirst().kind, ReceivedRequest::Kind::AbuseProtectionHandshake);
}

// WebHook-Allowed-Rate: 6 requests per minute means one request every 10 s of engine time; the
// wait shows as the subscription's next due time.
void EndpointTest::cloudEventsAllowedRate_requestsSpacedToTheRate()
{
    const QJsonObject limited{{u"name"_s, u"limited"_s}, {u"allowedRate"_s, 6}};
    Harness harness({{u"cloud"_s, u"sub-rate"_s, u"limited"_s, u"CloudEventSchemaV1_0"_s}}, {limited});
    QVERIFY(harness.start());
    QTRY_COMPARE_WITH_TIMEOUT(harness.state(u"sub-rate"_s), ProvisioningState::Succeeded, WaitMs);
    QCOMPARE(harness.subscription(u"sub-rate"_s).allowedRate, u"6"_s);

    for (int i = 0; i < 3; ++i) {
        const QByteArray event = QJsonDocument(QJsonObject{{u"specversion"_s, u"1.0"_s},
                                                           {u"id"_s, u"r%1"_s.arg(i)},
                                                           {u"source"_s, u"/test"_s},
                                                           {u"type"_s, u"Test.Created"_s}})
                                     .toJson(QJsonDocument::Compact);
        QCOMPARE(harness.publish(u"cloud"_s, event, "application/cloudevents+json").status, 200);
    }
    const qint64 start = harness.clock.nowMs();
    QTRY_COMPARE_WITH_TIMEOUT(harness.subscription(u"sub-rate"_s).delivered, quint64(1), WaitMs);
    QCOMPARE(harness.subscription(u"sub-rate"_s).nextDueMs, start + 10 * Second);

    // Requests are counted when sent, and the manual clock runs what is due inside advanceMs().
    harness.clock.advanceMs(10 * Second - 1);
    QCOMPARE(harness.subscription(u"sub-rate"_s).requests, quint64(1));
    harness.clock.advanceMs(1);
    QCOMPARE(harness.subscription(u"sub-rate"_s).requests, quint64(2));
    QTRY_COMPARE_WITH_TIMEOUT(harness.subscription(u"sub-rate"_s).delivered, quint64(2), WaitMs);
    harness.clock.advanceMs(10 * Second);
    QTRY_COMPARE_WITH_TIMEOUT(harness.subscription(u"sub-rate"_s).delivered, quint64(3), WaitMs);
    QCOMPARE(harness.notifications(u"limited"_s), 3);
}

void EndpointTest::validationSwitchedOff_noHandshake()
{
    Harness harness({{u"orders"_s, u"sub-plain"_s, u"refuse"_s, u"EventGridSchema"_s, false}}, {RefusingReceiver});
    QVERIFY(harness.start());
    QCOMPARE(harness.state(u"sub-plain"_s), ProvisioningState::Succeeded);
    QVERIFY(!harness.subscription(u"sub-plain"_s).validationEnabled);
    QCOMPARE(harness.publish(u"orders"_s, eventGridEvents(u"e1"_s), "application/json").status, 200);
    QTRY_COMPARE_WITH_TIMEOUT(harness.subscription(u"sub-plain"_s).delivered, quint64(1), WaitMs);
    QCOMPARE(harness.records(u"refuse"_s).size(), 1);
    QCOMPARE(harness.records(u"refuse"_s).constFirst().kind, ReceivedRequest::Kind::Notification);
}

void EndpointTest::provisioningState_survivesRestart_noSecondHandshake()
{
    Harness harness({{u"orders"_s, u"sub-answer"_s, u"answer"_s}}, {AnsweringReceiver});
    QVERIFY(harness.start());
    QTRY_COMPARE_WITH_TIMEOUT(harness.state(u"sub-answer"_s), ProvisioningState::Succeeded, WaitMs);
    const quint16 port = harness.port;
    harness.stop();
    QVERIFY(harness.start(port)); // same endpoint URL: same validation
    QCOMPARE(harness.state(u"sub-answer"_s), ProvisioningState::Succeeded);
    QCOMPARE(harness.publish(u"orders"_s, eventGridEvents(u"e1"_s), "application/json").status, 200);
    QTRY_COMPARE_WITH_TIMEOUT(harness.subscription(u"sub-answer"_s).delivered, quint64(1), WaitMs);
    for (const ReceivedRequest &record : harness.records(u"answer"_s))
        QCOMPARE(record.kind, ReceivedRequest::Kind::Notification);
}

void EndpointTest::changedEndpoint_isValidatedAgain()
{
    Harness harness({{u"orders"_s, u"sub-a"_s, u"answer"_s}}, {AnsweringReceiver, IgnoringReceiver});
    QVERIFY(harness.start());
    QTRY_COMPARE_WITH_TIMEOUT(harness.state(u"sub-a"_s), ProvisioningState::Succeeded, WaitMs);
    Workspace changed = harness.engine->workspace();
    changed.topics[0].eventSubscriptions[0].endpointUrl = harness.url(u"/receivers/ignore"_s);
    QVERIFY(harness.engine->applyWorkspace(changed).hasValue());
    QTRY_COMPARE_WITH_TIMEOUT(harness.state(u"sub-a"_s), ProvisioningState::AwaitingManualActionValidation, WaitMs);
    QCOMPARE(harness.records(u"ignore"_s).constFirst().kind, ReceivedRequest::Kind::ValidationHandshake);
}

// SPEC §7 through the built-in receivers: Busy (503 sequence), SocketError (connection closed
// without an answer), TimedOut (answer delayed past the D6 response timeout).
void EndpointTest::receivers_provokeBusySocketErrorAndTimedOut()
{
    const QJsonObject busyThenOk{{u"name"_s, u"busy"_s},
                                 {u"script"_s, QJsonObject{{u"mode"_s, u"sequence"_s},
                                                           {u"statuses"_s, QJsonArray{503, 200}},
                                                           {u"after"_s, u"stick"_s}}}};
    const QJsonObject dropping{{u"name"_s, u"drop"_s}, {u"status"_s, 200}, {u"closeConnection"_s, true}};
    const QJsonObject slow{{u"name"_s, u"slow"_s}, {u"status"_s, 200}, {u"delayMs"_s, 1500}};
    Harness harness({{u"orders"_s, u"sub-busy"_s, u"busy"_s, u"EventGridSchema"_s, false},
                     {u"orders"_s, u"sub-drop"_s, u"drop"_s, u"EventGridSchema"_s, false},
                     {u"orders"_s, u"sub-slow"_s, u"slow"_s, u"EventGridSchema"_s, false}},
                    {busyThenOk, dropping, slow});
    QVERIFY(harness.start());
    QCOMPARE(harness.publish(u"orders"_s, eventGridEvents(u"e1"_s), "application/json").status, 200);

    QTRY_COMPARE_WITH_TIMEOUT(harness.attemptsWith(DeliveryOutcome::Busy), 1, WaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(harness.attemptsWith(DeliveryOutcome::SocketError), 1, WaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(harness.notifications(u"slow"_s), 1, WaitMs);
    harness.clock.advanceMs(30'000); // SPEC D6: no answer within 30 s of engine time
    QCOMPARE(harness.attemptsWith(DeliveryOutcome::TimedOut), 1);
    // SPEC R4: the 503 is retried after at least 30 s; the second step answers 200.
    harness.clock.advanceMs(5'000);
    QTRY_COMPARE_WITH_TIMEOUT(harness.subscription(u"sub-busy"_s).delivered, quint64(1), WaitMs);
    QCOMPARE(harness.subscription(u"sub-drop"_s).delivered, quint64(0));
}

void EndpointTest::metrics_servedAndCountingDeliveries()
{
    Harness harness({{u"orders"_s, u"sub-answer"_s, u"answer"_s}}, {AnsweringReceiver});
    QVERIFY(harness.start());
    QTRY_COMPARE_WITH_TIMEOUT(harness.state(u"sub-answer"_s), ProvisioningState::Succeeded, WaitMs);
    QCOMPARE(harness.publish(u"orders"_s, eventGridEvents(u"e1"_s), "application/json").status, 200);
    QTRY_COMPARE_WITH_TIMEOUT(harness.subscription(u"sub-answer"_s).delivered, quint64(1), WaitMs);

    const HttpAnswer metrics = harness.get(harness.url(u"/metrics"_s));
    QCOMPARE(metrics.status, 200);
    const QList<QByteArray> lines = metrics.body.split('\n');
    QVERIFY(lines.contains("eventgrid_publish_success_total{topic=\"orders\"} 1"));
    QVERIFY(lines.contains("eventgrid_delivery_success_total{topic=\"orders\",subscription=\"sub-answer\"} 1"));
    QVERIFY(lines.contains("eventgrid_destination_processing_duration_ms_count{topic=\"orders\",subscription=\"sub-answer\"} 1"));
    QVERIFY(lines.contains("eventgrid_destination_processing_duration_ms_bucket{topic=\"orders\",subscription=\"sub-answer\",le=\"+Inf\"} 1"));
    QVERIFY(lines.contains("eventgrid_provisioning_state{topic=\"orders\",subscription=\"sub-answer\",state=\"Succeeded\"} 1"));
    QVERIFY(lines.contains("eventgrid_pending_deliveries{topic=\"orders\",subscription=\"sub-answer\"} 0"));
}

void EndpointTest::unknownReceiverAndPath_are404()
{
    Harness harness({}, {AnsweringReceiver});
    QVERIFY(harness.start());
    const HttpAnswer receiver = harness.get(harness.url(u"/receivers/nobody"_s));
    QCOMPARE(receiver.status, 404);
    QCOMPARE(QJsonDocument::fromJson(receiver.body)[u"error"_s][u"code"_s].toString(), u"NotFound"_s);
    QCOMPARE(harness.get(harness.url(u"/nothing/here"_s)).status, 404);
    QCOMPARE(harness.get(harness.url(u"/validate/orders/none?code=x"_s)).status, 404);
    QCOMPARE(harness.publish(u"nope"_s, "[]", "application/json").status, 404);
}

// Requests of 32 KB and more are parsed on a worker thread; the answer still comes only after the
// commit (SPEC D1), and a rejection still names the event and field (SPEC §10).
void EndpointTest::largePublish_parsedOffThread_answeredAfterCommit()
{
    Harness harness({{u"orders"_s, u"sub-plain"_s, u"answer"_s, u"EventGridSchema"_s, false}}, {AnsweringReceiver});
    QVERIFY(harness.start());
    QJsonArray events = largeEvents(200);
    const QString padding = Padding;
    const QByteArray body = QJsonDocument(events).toJson(QJsonDocument::Indented);
    QVERIFY(body.size() > 64 * 1024);

    QCOMPARE(harness.publish(u"orders"_s, body, "application/json").status, 200);
    // Answered 200 means stored: the counters say so before anything is delivered.
    QCOMPARE(harness.published(u"orders"_s), quint64(200));
    QTRY_COMPARE_WITH_TIMEOUT(harness.subscription(u"sub-plain"_s).delivered, quint64(200), WaitMs);
    const QList<ReceivedRequest> received = harness.records(u"answer"_s);
    QCOMPARE(received.size(), 200);
    const QJsonObject first = QJsonDocument::fromJson(received.constFirst().body).array().at(0).toObject();
    QVERIFY(first.value(u"id"_s).toString().startsWith(u"big-"_s));
    QCOMPARE(first.value(u"metadataVersion"_s).toString(), u"1"_s);
    QCOMPARE(first.value(u"data"_s)[u"padding"_s].toString(), padding);

    // A large request with a bad event: rejected whole, nothing stored.
    QJsonObject bad = events.at(150).toObject();
    bad.remove(u"eventType"_s);
    events.replace(150, bad);
    const HttpAnswer rejected = harness.publish(u"orders"_s, QJsonDocument(events).toJson(), "application/json");
    QCOMPARE(rejected.status, 400);
    QCOMPARE(QJsonDocument::fromJson(rejected.body)[u"error"_s][u"message"_s].toString(),
             u"event[150]: required field 'eventType' is missing"_s);
    QCOMPARE(harness.published(u"orders"_s), quint64(200));
}

// A request parsed against one workspace and handed back after the workspace changed is taken
// again against the current one.
void EndpointTest::workspaceChangedWhileParsing_requestTakenAgain()
{
    Harness harness({{u"orders"_s, u"sub-plain"_s, u"answer"_s, u"EventGridSchema"_s, false}}, {AnsweringReceiver});
    QVERIFY(harness.start());
    Engine &engine = *harness.engine;

    PublishTicket ticket;
    QCOMPARE(engine.preparePublish(u"orders"_s, eventGridEvents(u"e1"_s), "application/json", &ticket).httpStatus, 200);
    PublishParseResult parsed = Engine::parsePublish(ticket);
    QVERIFY(parsed.isAccepted());
    Workspace changed = engine.workspace();
    changed.topics.removeIf([](const Topic &topic) { return topic.name == "orders"_L1; });
    QVERIFY(engine.applyWorkspace(changed));
    const PublishResult gone = engine.publishParsed(ticket, std::move(parsed));
    QCOMPARE(gone.httpStatus, 404);
    QCOMPARE(gone.accepted, 0);

    // The same ticket against an unchanged workspace is stored.
    PublishTicket current;
    QCOMPARE(engine.preparePublish(u"cloud"_s, R"({"specversion":"1.0","id":"c1","source":"/s","type":"t"})",
                                   "application/cloudevents+json", &current).httpStatus, 200);
    const PublishResult stored = engine.publishParsed(current, Engine::parsePublish(current));
    QCOMPARE(stored.httpStatus, 200);
    QCOMPARE(stored.accepted, 1);
}

// A large request is stored on the parser thread. A subscription deleted after that commit but
// before the engine took the deliveries over loses them like the rest of its backlog (dropped,
// SubscriptionDeleted); the other subscription gets every event, and the publish is answered 200.
void EndpointTest::largePublish_subscriptionDeletedWhileStored_itsDeliveriesDropped()
{
    Harness harness({{u"orders"_s, u"sub-plain"_s, u"answer"_s, u"EventGridSchema"_s, false},
                     {u"orders"_s, u"sub-gone"_s, u"answer"_s, u"EventGridSchema"_s, false}},
                    {AnsweringReceiver});
    QVERIFY(harness.start());
    Engine &engine = *harness.engine;
    std::optional<PublishResult> answer;
    engine.publishAsync(u"orders"_s, QJsonDocument(largeEvents(200)).toJson(), "application/json",
                        [&](const PublishResult &result) { answer = result; });
    QVERIFY(!answer.has_value());
    QCOMPARE(waitForStoredDeliveries(harness.store(), 400), qsizetype(400));
    QVERIFY(!answer.has_value()); // SPEC D1: committed, but the engine has not answered yet

    Workspace changed = engine.workspace();
    for (Topic &topic : changed.topics)
        topic.eventSubscriptions.removeIf([](const EventSubscription &s) { return s.name == "sub-gone"_L1; });
    QVERIFY(engine.applyWorkspace(changed));

    QTRY_VERIFY_WITH_TIMEOUT(answer.has_value(), WaitMs);
    QCOMPARE(answer->httpStatus, 200);
    QCOMPARE(answer->accepted, 200);
    QCOMPARE(answer->deliveriesCreated, 400);
    QCOMPARE(harness.published(u"orders"_s), quint64(200));
    QTRY_COMPARE_WITH_TIMEOUT(harness.subscription(u"sub-plain"_s).delivered, quint64(200), WaitMs);
    QCOMPARE(harness.notifications(u"answer"_s), 200);
    QTRY_VERIFY_WITH_TIMEOUT(harness.store().loadUnfinishedDeliveries()->isEmpty(), WaitMs);
    const auto dropped = harness.store().droppedDeliveries(1000);
    QVERIFY(dropped);
    QCOMPARE(dropped->size(), 200);
    for (const DroppedEntry &entry : dropped.value()) {
        QCOMPARE(entry.subscription, u"sub-gone"_s);
        QCOMPARE(entry.reason, DeadLetterReason::SubscriptionDeleted);
        QVERIFY(entry.eventId.startsWith(u"big-"_s));
    }
}

// Stopping the engine waits for a large request being stored; its deliveries are not taken over
// any more but stay pending in the store (sent after a restart), and the request - committed -
// is still answered 200.
void EndpointTest::largePublish_engineStoppedWhileStoring_deliveriesStayInStore()
{
    Harness harness({{u"orders"_s, u"sub-plain"_s, u"answer"_s, u"EventGridSchema"_s, false}}, {AnsweringReceiver});
    QVERIFY(harness.start());
    Engine &engine = *harness.engine;
    std::optional<PublishResult> answer;
    engine.publishAsync(u"orders"_s, QJsonDocument(largeEvents(200)).toJson(), "application/json",
                        [&](const PublishResult &result) { answer = result; });
    engine.shutdown();
    // Checked at once: shutdown() returned only after the parser thread had committed.
    const auto stored = harness.store().loadUnfinishedDeliveries();
    QVERIFY(stored);
    QCOMPARE(stored->size(), 200);
    QTRY_VERIFY_WITH_TIMEOUT(answer.has_value(), WaitMs);
    QCOMPARE(answer->httpStatus, 200);
    QCOMPARE(answer->accepted, 200);
    QCOMPARE(harness.notifications(u"answer"_s), 0);
    const auto pending = harness.store().loadUnfinishedDeliveries();
    QVERIFY(pending);
    QCOMPARE(pending->size(), 200);
    for (const DeliveryRecord &record : pending.value())
        QCOMPARE(record.state, DeliveryState::Pending);
}

// PRODUCT "Topic endpoint": a topic with a key also takes a shared access signature made with
// it, in the aeg-sas-token header (what the SDKs send) or as Authorization: SharedAccessSignature.
void EndpointTest::sasToken_inEitherHeader_publishes()
{
    Harness harness({{u"orders"_s, u"sub-plain"_s, u"answer"_s, u"EventGridSchema"_s, false}}, {AnsweringReceiver});
    harness.topicKeys.insert(u"orders"_s, TopicKey);
    harness.wallClock = QDateTime(QDate(2030, 1, 1), QTime(0, 0), QTimeZone::utc());
    QVERIFY(harness.start());
    const QDateTime expiry = harness.wallClock.addSecs(3600);
    const QString endpoint = harness.url(u"/topics/orders/api/events"_s).toString();
    const QByteArray token = SharedAccessSignature::generate(endpoint + u"?apiVersion=2018-01-01"_s, expiry, TopicKey);

    const QList<HttpHeaders> credentials{
        {{"aeg-sas-token", token}},
        {{"Authorization", "SharedAccessSignature " + token}},
        {{"Authorization", "sharedaccesssignature  " + token}},
        // Signed for the name the client used; the endpoint answers under it as well.
        {{"aeg-sas-token", SharedAccessSignature::generate(
                               u"http://localhost:%1/topics/orders/api/events"_s.arg(harness.port), expiry, TopicKey)}},
    };
    for (qsizetype i = 0; i < credentials.size(); ++i) {
        const HttpAnswer answer = harness.publish(u"orders"_s, eventGridEvents(u"sas-%1"_s.arg(i)),
                                                  "application/json", credentials.at(i));
        QVERIFY2(answer.status == 200, qPrintable(u"credential %1: %2 %3"_s.arg(i).arg(answer.status).arg(
                                           QString::fromUtf8(answer.body))));
    }
    QCOMPARE(harness.published(u"orders"_s), quint64(credentials.size()));
    QTRY_COMPARE_WITH_TIMEOUT(harness.subscription(u"sub-plain"_s).delivered, quint64(credentials.size()), WaitMs);
}

void EndpointTest::sasToken_refused_401SaysWhichCheckFailed_data()
{
    QTest::addColumn<HttpHeaders>("headers");
    QTest::addColumn<QString>("expected");
    const QDateTime now(QDate(2030, 1, 1), QTime(0, 0), QTimeZone::utc());
    const QString endpoint = u"http://127.0.0.1:7000/topics/orders/api/events"_s;
    const QByteArray valid = SharedAccessSignature::generate(endpoint, now.addSecs(3600), TopicKey);
    const qsizetype signatureAt = valid.indexOf("&s=") + 3;
    QByteArray signature = QByteArray::fromBase64(QByteArray::fromPercentEncoding(valid.mid(signatureAt)));
    signature[0] = char(signature.at(0) ^ 1);
    const QByteArray forged = valid.left(signatureAt) + QUrl::toPercentEncoding(QString::fromLatin1(signature.toBase64()));

    QTest::newRow("no credential") << HttpHeaders{} << u"requires an access key"_s;
    // Engine time (T0, 2023) is long before the expiry: the wall clock (2030) is what counts.
    QTest::newRow("expired") << HttpHeaders{{"aeg-sas-token", SharedAccessSignature::generate(
                                                                  endpoint, now.addSecs(-3600), TopicKey)}}
                             << u"The SAS token expired at 2029-12-31T23:00:00Z"_s;
    QTest::newRow("forged signature") << HttpHeaders{{"aeg-sas-token", forged}} << u"signature does not match"_s;
    QTest::newRow("signed with another key")
        << HttpHeaders{{"aeg-sas-token", SharedAccessSignature::generate(endpoint, now.addSecs(3600), u"b3RoZXI="_s)}}
        << u"signature does not match"_s;
    QTest::newRow("another topic's resource")
        << HttpHeaders{{"aeg-sas-token", SharedAccessSignature::generate(u"http://127.0.0.1:7000/topics/cloud/api/events"_s,
                                                                         now.addSecs(3600), TopicKey)}}
        << u"does not name topic 'orders'"_s;
    QTest::newRow("malformed") << HttpHeaders{{"aeg-sas-token", "r=x&e=y"}} << u"The SAS token is malformed: "_s;
    QTest::newRow("malformed, Authorization")
        << HttpHeaders{{"Authorization", "SharedAccessSignature e=1%2F2%2F2030%203%3A04%3A05%20PM"}}
        << u"has no 'r' (resource) part"_s;
    QTest::newRow("Authorization without a token") << HttpHeaders{{"Authorization", "SharedAccessSignature"}}
                                                   << u"The SAS token is malformed: the token is empty."_s;
    QTest::newRow("a bare credential in Authorization") << HttpHeaders{{"Authorization", TopicKey.toLatin1()}}
                                                        << u"The Authorization header is not"_s;
    QTest::newRow("another Authorization scheme") << HttpHeaders{{"Authorization", "Bearer eyJ0eXAi"}}
                                                  << u"Authorization scheme 'Bearer' is not accepted"_s;
    QTest::newRow("a wrong key is not rescued by a token")
        << HttpHeaders{{"aeg-sas-key", "wrong"}, {"aeg-sas-token", valid}}
        << u"The access key presented for topic 'orders' is not valid."_s;
}

void EndpointTest::sasToken_refused_401SaysWhichCheckFailed()
{
    QFETCH(HttpHeaders, headers);
    QFETCH(QString, expected);
    Harness harness({{u"orders"_s, u"sub-plain"_s, u"answer"_s, u"EventGridSchema"_s, false}}, {AnsweringReceiver});
    harness.topicKeys.insert(u"orders"_s, TopicKey);
    harness.wallClock = QDateTime(QDate(2030, 1, 1), QTime(0, 0), QTimeZone::utc());
    QVERIFY(harness.start());

    const HttpAnswer answer = harness.publish(u"orders"_s, eventGridEvents(u"refused"_s), "application/json", headers);
    QCOMPARE(answer.status, 401);
    QCOMPARE(QJsonDocument::fromJson(answer.body)[u"error"_s][u"code"_s].toString(), u"Unauthorized"_s);
    QVERIFY2(errorMessageOf(answer).contains(expected), answer.body.constData());
    QVERIFY(!answer.body.contains(TopicKey.toLatin1()));
    for (const auto &[name, value] : headers) {
        if (const qsizetype at = value.indexOf("&s="); at >= 0)
            QVERIFY2(!answer.body.contains(value.mid(at + 3)), "the 401 repeats the signature");
    }
    QCOMPARE(harness.published(u"orders"_s), quint64(0));
}

QTEST_GUILESS_MAIN(EndpointTest)
#include "tst_endpoint.moc"
