// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// EndpointValidation over the fake access manager, whose answers carry bodies and headers: the
// Event Grid schema handshake (the code echoed, or the validation URL visited within 5 minutes),
// the CloudEvents OPTIONS abuse-protection request, an unreachable endpoint asked again with
// back-off, what becomes of the deliveries held meanwhile, and what is saved for the next start.

#include "EngineUnitsFixture.h"
#include "FakeNetwork.h"

#include "engine/Dispatcher.h"
#include "engine/EndpointValidation.h"
#include "workspace/ProvisioningFile.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QUrlQuery>
#include <QtTest>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using namespace EventDesk::Testing;

namespace {

using Answer = FakeAccessManager::Answer;

// Keeps what EndpointValidation saves and hands back what a test restores.
class RecordingProvisioningStore final : public ProvisioningStore
{
public:
    Expected<QList<ProvisioningRecord>> load() override { return restored; }
    Expected<void> save(const QList<ProvisioningRecord> &records) override
    {
        saves.append(records);
        if (!saveError.isEmpty())
            return Error(saveError);
        return {};
    }

    QList<ProvisioningRecord> restored;
    QList<QList<ProvisioningRecord>> saves;
    QString saveError;
};

QJsonObject handshakeEvent(const FakeAccessManager::Sent &sent)
{
    return QJsonDocument::fromJson(sent.body).array().at(0).toObject();
}

bool isHandshake(const FakeAccessManager::Sent &sent)
{
    return sent.header("aeg-event-type") != "Notification";
}

// A webhook that echoes the validation code, as Event Grid asks, and accepts deliveries.
Answer echoingEndpoint(const FakeAccessManager::Sent &sent)
{
    if (!isHandshake(sent))
        return {200, {}, {}};
    const QString code = handshakeEvent(sent)[u"data"_s][u"validationCode"_s].toString();
    return {200, QJsonDocument(QJsonObject {{u"validationResponse"_s, code}}).toJson(), {}};
}

// EndpointValidation on the fixture's units, wired to the scheduler as the engine wires it, with
// a Dispatcher that sends what validation stops holding.
struct ValidationBench
{
    ValidationBench()
    {
        validation.setStore(&provisioning);
        validation.setBaseUrl(QUrl(u"http://127.0.0.1:5080"_s));
        f.wire({&dispatcher, nullptr, &validation});
    }

    // A subscription whose endpoint is to be validated, taken in as the engine's rebuild does.
    Subscription &add(EventSubscription config)
    {
        config.validationEnabled = true;
        Subscription &subscription = f.addSubscription(config);
        const StateLock lock(f.state.lock);
        validation.update(subscription);
        validation.holdBacklog(subscription);
        return subscription;
    }

    Subscription &addCloudEvents(const QString &name,
                                 EngineUnitsFixture::DeadLetter deadLetter
                                 = EngineUnitsFixture::DeadLetter::LocalContainer)
    {
        EventSubscription config = EngineUnitsFixture::webhook(name, deadLetter);
        config.deliverySchema = EventSchema::CloudEvents10;
        return add(config);
    }

    // The validation requests sent (not the deliveries).
    QList<FakeAccessManager::Sent> handshakes() const
    {
        QList<FakeAccessManager::Sent> requests;
        for (const FakeAccessManager::Sent &sent : network.sent) {
            if (isHandshake(sent))
                requests.append(sent);
        }
        return requests;
    }

    QList<ProvisioningRecord> lastSave() const
    {
        return provisioning.saves.isEmpty() ? QList<ProvisioningRecord>()
                                            : provisioning.saves.last();
    }

    EngineUnitsFixture f;
    FakeAccessManager network;
    RecordingProvisioningStore provisioning;
    Dispatcher dispatcher {f.state, f.signals, f.commits, f.scheduler, f.outcomes, &network};
    EndpointValidation validation {f.state, f.signals, f.scheduler, f.outcomes, &network};
};

} // namespace

class tst_EndpointValidation : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void eventGridHandshakeEchoedSucceeds();
    void eventGridHandshakeNotEchoedAwaitsManualValidation_data();
    void eventGridHandshakeNotEchoedAwaitsManualValidation();
    void completeManual_rightCodeValidates();
    void completeManual_wrongCodeUnknownOrNotAwaiting();
    void completeManual_afterFiveMinutesHasExpired();
    void cloudEventsAbuseProtection_data();
    void cloudEventsAbuseProtection();
    void unreachableEndpointIsAskedAgainWithBackOff();
    void unansweredHandshakeIsUnreachableAfterTheResponseTimeout();
    void r6_heldDeliveriesEndWhenTheirTtlRunsOut_data();
    void r6_heldDeliveriesEndWhenTheirTtlRunsOut();
    void failedValidationEndsHeldDeliveries_data();
    void failedValidationEndsHeldDeliveries();
    void revalidateSendsTheHandshakeAgainAtOnce();
    void changedEndpointIsValidatedAgain();
    void saveWritesValidatedRecordsOnly();
    void failedSaveIsAStoreError();
    void validatedStateSurvivesARestart();
    void endpointKeyInUrl_notKept_changedKeyAloneValidatesAgain();
};

void tst_EndpointValidation::eventGridHandshakeEchoedSucceeds()
{
    ValidationBench bench;
    QSignalSpy provisioningChanged(&bench.f.signals, &EngineSignals::provisioningChanged);
    bench.network.setAnswerResponder(echoingEndpoint);
    Subscription &subscription = bench.add(EngineUnitsFixture::webhook(u"sub-one"_s));
    QCOMPARE(subscription.provisioningState(), ProvisioningState::Creating);
    QCOMPARE(provisioningChanged.size(), 1);
    bench.f.addDeliveries(subscription, 2); // held until validated
    QVERIFY(subscription.heldTracked);
    QCOMPARE(subscription.heldExpiry.size(), size_t(2));
    bench.f.start();
    QCOMPARE(bench.f.clock.alarmAtMs(), T0); // the handshake goes out at once

    bench.f.settle();

    QCOMPARE(bench.handshakes().size(), 1);
    const FakeAccessManager::Sent &handshake = bench.network.sent.at(0);
    QCOMPARE(handshake.request.url(), QUrl(u"http://receiver.test/sub-one"_s));
    QCOMPARE(handshake.header("aeg-event-type"), "SubscriptionValidation"_ba);
    QCOMPARE(handshake.header("aeg-subscription-name"), "SUB-ONE"_ba);
    QCOMPARE(handshake.header("aeg-delivery-count"), "0"_ba);
    const QJsonObject event = handshakeEvent(handshake);
    QCOMPARE(event[u"eventType"_s].toString(),
             u"Microsoft.EventGrid.SubscriptionValidationEvent"_s);
    QCOMPARE(event[u"topic"_s].toString(), subscription.topicPath);
    const QString code = event[u"data"_s][u"validationCode"_s].toString();
    QVERIFY(!code.isEmpty());
    const QUrl validationUrl(event[u"data"_s][u"validationUrl"_s].toString());
    QCOMPARE(validationUrl.adjusted(QUrl::RemoveQuery),
             QUrl(u"http://127.0.0.1:5080/validate/orders/sub-one"_s));
    QCOMPARE(QUrlQuery(validationUrl).queryItemValue(u"code"_s), code);

    QCOMPARE(subscription.provisioningState(), ProvisioningState::Succeeded);
    QCOMPARE(subscription.validation.record.message, u"the endpoint echoed the validation code"_s);
    QVERIFY(subscription.validation.record.validationCode.isEmpty());
    QCOMPARE(provisioningChanged.size(), 2);
    // Validated: nothing is held any more, and the backlog, sent only now, is delivered.
    QVERIFY(!subscription.heldTracked);
    QVERIFY(subscription.heldExpiry.empty());
    QCOMPARE(bench.network.sent.size(), 3);
    QCOMPARE(bench.network.sent.at(1).header("aeg-event-type"), "Notification"_ba);
    QCOMPARE(subscription.counters.delivered, quint64(2));
    QCOMPARE(subscription.counters.backlog, 0);
    QCOMPARE(bench.lastSave().size(), 1);
    QCOMPARE(bench.lastSave().at(0).state, ProvisioningState::Succeeded);
}

void tst_EndpointValidation::eventGridHandshakeNotEchoedAwaitsManualValidation_data()
{
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QString>("because");
    QTest::newRow("wrong code") << 200 << QByteArray(R"({"validationResponse":"WRONG"})")
                                << u"wrong validationResponse"_s;
    QTest::newRow("no code") << 200 << QByteArray("{}") << u"without validationResponse"_s;
    QTest::newRow("refused") << 400 << QByteArray() << u"answered HTTP 400"_s;
}

void tst_EndpointValidation::eventGridHandshakeNotEchoedAwaitsManualValidation()
{
    QFETCH(int, status);
    QFETCH(QByteArray, body);
    QFETCH(QString, because);

    ValidationBench bench;
    bench.network.setAnswerResponder([&](const FakeAccessManager::Sent &) {
        return Answer {status, body, {}};
    });
    Subscription &subscription = bench.add(EngineUnitsFixture::webhook(u"sub-one"_s));
    bench.f.start();
    bench.f.settle();

    const ProvisioningRecord &record = subscription.validation.record;
    QCOMPARE(record.state, ProvisioningState::AwaitingManualActionValidation);
    QVERIFY2(record.message.contains(because), qPrintable(record.message));
    QCOMPARE(record.expiresMs, T0 + 5 * Minute);
    // The code stays, for the validation URL a person visits.
    QCOMPARE(record.validationCode,
             handshakeEvent(bench.network.sent.at(0))[u"data"_s][u"validationCode"_s].toString());
    const QString url = bench.validation.validationUrl(subscription);
    QVERIFY2(url.startsWith(u"http://127.0.0.1:5080/validate/orders/sub-one?code="_s),
             qPrintable(url));
    QVERIFY(url.endsWith(record.validationCode));
    QCOMPARE(bench.f.clock.alarmAtMs(), T0 + 5 * Minute); // when the URL expires
    QCOMPARE(bench.lastSave().size(), 1);
    QCOMPARE(bench.lastSave().at(0).state, ProvisioningState::AwaitingManualActionValidation);
}

void tst_EndpointValidation::completeManual_rightCodeValidates()
{
    ValidationBench bench;
    bench.network.respondAlways(200); // answers without echoing
    Subscription &subscription = bench.add(EngineUnitsFixture::webhook(u"sub-one"_s));
    bench.f.addDeliveries(subscription, 1);
    bench.f.start();
    bench.f.settle();
    const QString code = subscription.validation.record.validationCode;
    bench.f.advance(4 * Minute);

    ManualValidationResult result;
    {
        const StateLock lock(bench.f.state.lock);
        result = bench.validation.completeManual(u"ORDERS"_s, u"sub-one"_s, code);
    }
    QCOMPARE(result.httpStatus, 200);
    QCOMPARE(subscription.provisioningState(), ProvisioningState::Succeeded);
    QCOMPARE(subscription.validation.record.message, u"validated through the validation URL"_s);
    QCOMPARE(subscription.scheduledAtMs, T0); // its backlog is due now
    QCOMPARE(bench.lastSave().at(0).state, ProvisioningState::Succeeded);
    bench.f.settle();
    QCOMPARE(subscription.counters.delivered, quint64(1));

    {
        const StateLock lock(bench.f.state.lock);
        result = bench.validation.completeManual(u"orders"_s, u"sub-one"_s, code);
    }
    QCOMPARE(result.httpStatus, 200);
    QVERIFY2(result.message.contains(u"already validated"_s), qPrintable(result.message));
}

void tst_EndpointValidation::completeManual_wrongCodeUnknownOrNotAwaiting()
{
    ValidationBench bench;
    bench.network.respondAlways(200);
    Subscription &awaiting = bench.add(EngineUnitsFixture::webhook(u"awaiting"_s));
    bench.f.start();
    bench.f.settle();
    Subscription &creating = bench.add(EngineUnitsFixture::webhook(u"creating"_s));
    const StateLock lock(bench.f.state.lock);

    QCOMPARE(
        bench.validation.completeManual(u"orders"_s, u"awaiting"_s, u"NOT-THE-CODE"_s).httpStatus,
        400);
    QCOMPARE(bench.validation.completeManual(u"orders"_s, u"awaiting"_s, QString()).httpStatus,
             400);
    QCOMPARE(awaiting.provisioningState(), ProvisioningState::AwaitingManualActionValidation);
    QCOMPARE(bench.validation.completeManual(u"orders"_s, u"nobody"_s, u"x"_s).httpStatus, 404);
    QCOMPARE(bench.validation.completeManual(u"orders"_s, u"creating"_s, u"x"_s).httpStatus, 409);
    QCOMPARE(creating.provisioningState(), ProvisioningState::Creating);
}

void tst_EndpointValidation::completeManual_afterFiveMinutesHasExpired()
{
    {
        // Visited exactly when the URL stops working, before the alarm for it has rung.
        ValidationBench bench;
        bench.network.respondAlways(200);
        Subscription &subscription = bench.add(EngineUnitsFixture::webhook(u"visited-late"_s));
        bench.f.start();
        bench.f.settle();
        const QString code = subscription.validation.record.validationCode;
        bench.f.clock.cancelAlarm();
        bench.f.clock.advanceTo(T0 + 5 * Minute);

        const StateLock lock(bench.f.state.lock);
        const ManualValidationResult result
            = bench.validation.completeManual(u"orders"_s, u"visited-late"_s, code);
        QCOMPARE(result.httpStatus, 410);
        QCOMPARE(subscription.provisioningState(), ProvisioningState::Failed);
    }
    {
        // Not visited: the URL's expiry fails the validation on its own.
        ValidationBench bench;
        bench.network.respondAlways(200);
        Subscription &subscription = bench.add(EngineUnitsFixture::webhook(u"never-visited"_s));
        bench.f.start();
        bench.f.settle();
        const QString code = subscription.validation.record.validationCode;
        bench.f.advance(5 * Minute - 1);
        QCOMPARE(subscription.provisioningState(),
                 ProvisioningState::AwaitingManualActionValidation);
        bench.f.advance(1);
        QCOMPARE(subscription.provisioningState(), ProvisioningState::Failed);
        QCOMPARE(subscription.validation.record.message,
                 u"the validation URL was not visited within 5 minutes"_s);
        QCOMPARE(bench.lastSave().at(0).state, ProvisioningState::Failed);

        // A late visit with the right code is told it expired; any other code, that it failed.
        const StateLock lock(bench.f.state.lock);
        QCOMPARE(bench.validation.completeManual(u"orders"_s, u"never-visited"_s, code).httpStatus,
                 410);
        QCOMPARE(
            bench.validation.completeManual(u"orders"_s, u"never-visited"_s, u"x"_s).httpStatus,
            409);
    }
}

void tst_EndpointValidation::cloudEventsAbuseProtection_data()
{
    QTest::addColumn<int>("status");
    QTest::addColumn<FakeReply::Headers>("headers");
    QTest::addColumn<ProvisioningState>("state");
    QTest::addColumn<QString>("allowedRate");
    QTest::addColumn<QString>("message");

    QTest::newRow("origin and rate")
        << 200
        << FakeReply::Headers {{"WebHook-Allowed-Origin", "eventgrid.azure.net"},
                               {"WebHook-Allowed-Rate", "120"}}
        << ProvisioningState::Succeeded << u"120"_s
        << u"the endpoint allowed origin eventgrid.azure.net at rate 120"_s;
    QTest::newRow("any origin") << 200 << FakeReply::Headers {{"WebHook-Allowed-Origin", "*"}}
                                << ProvisioningState::Succeeded << QString()
                                << u"the endpoint allowed origin eventgrid.azure.net"_s;
    QTest::newRow("another origin")
        << 200 << FakeReply::Headers {{"WebHook-Allowed-Origin", "example.com"}}
        << ProvisioningState::Failed << QString()
        << u"the endpoint answered the abuse-protection request without WebHook-Allowed-Origin: "
           u"eventgrid.azure.net (or *)"_s;
    QTest::newRow("no origin") << 200 << FakeReply::Headers {} << ProvisioningState::Failed
                               << QString()
                               << u"the endpoint answered the abuse-protection request without "
                                  u"WebHook-Allowed-Origin: eventgrid.azure.net (or *)"_s;
    QTest::newRow("refused") << 403 << FakeReply::Headers {{"WebHook-Allowed-Origin", "*"}}
                             << ProvisioningState::Failed << QString()
                             << u"the endpoint answered HTTP 403"_s;
}

void tst_EndpointValidation::cloudEventsAbuseProtection()
{
    QFETCH(int, status);
    QFETCH(FakeReply::Headers, headers);
    QFETCH(ProvisioningState, state);
    QFETCH(QString, allowedRate);
    QFETCH(QString, message);

    ValidationBench bench;
    bench.network.setAnswerResponder([&](const FakeAccessManager::Sent &) {
        return Answer {status, {}, headers};
    });
    Subscription &subscription = bench.addCloudEvents(u"sub-one"_s);
    bench.f.start();
    bench.f.settle();

    QCOMPARE(bench.network.sent.size(), 1);
    const FakeAccessManager::Sent &request = bench.network.sent.at(0);
    QCOMPARE(request.request.attribute(QNetworkRequest::CustomVerbAttribute).toByteArray(),
             "OPTIONS"_ba);
    QCOMPARE(request.header("WebHook-Request-Origin"), "eventgrid.azure.net"_ba);
    QCOMPARE(request.header("aeg-subscription-name"), "SUB-ONE"_ba);
    QVERIFY(request.body.isEmpty());
    QCOMPARE(subscription.provisioningState(), state);
    QCOMPARE(subscription.validation.record.allowedRate, allowedRate);
    QCOMPARE(subscription.validation.record.message, message);
}

void tst_EndpointValidation::unreachableEndpointIsAskedAgainWithBackOff()
{
    ValidationBench bench;
    QList<qint64> askedAt;
    bench.network.setResponder([&](const FakeAccessManager::Sent &) {
        askedAt.append(bench.f.clock.nowMs() - T0);
        return -int(QNetworkReply::ConnectionRefusedError);
    });
    Subscription &subscription = bench.add(EngineUnitsFixture::webhook(u"sub-one"_s));
    bench.f.start();

    bench.f.settle();
    QCOMPARE(subscription.provisioningState(), ProvisioningState::Creating);
    QCOMPARE(subscription.validation.record.message,
             u"endpoint unreachable: connection refused; next validation attempt in 5 s"_s);
    QCOMPARE(subscription.validation.unreachableBecause, u"connection refused"_s);
    QCOMPARE(subscription.validation.nextAttemptMs, T0 + 5 * Second);

    bench.f.advance(13 * Minute);
    // 5 s, 10 s, 30 s, 1 min, then every 5 min: a webhook started later is the usual order.
    QCOMPARE(askedAt,
             (QList<qint64> {0, 5 * Second, 15 * Second, 45 * Second, 105 * Second, 405 * Second,
                             705 * Second}));
    QCOMPARE(subscription.provisioningState(), ProvisioningState::Creating);
    QCOMPARE(subscription.validation.unansweredHandshakes, 7);
    QVERIFY2(subscription.validation.record.message.endsWith(u"next validation attempt in 5 min"_s),
             qPrintable(subscription.validation.record.message));
    // Only an explicit refusal fails it; a subscription still Creating is not saved.
    QVERIFY(bench.lastSave().isEmpty());

    // The endpoint comes up: the next handshake validates it.
    bench.network.setAnswerResponder(echoingEndpoint);
    bench.f.advance(5 * Minute);
    QCOMPARE(subscription.provisioningState(), ProvisioningState::Succeeded);
    QCOMPARE(subscription.validation.unansweredHandshakes, 0);
    QVERIFY(subscription.validation.unreachableBecause.isEmpty());
}

void tst_EndpointValidation::unansweredHandshakeIsUnreachableAfterTheResponseTimeout()
{
    ValidationBench bench;
    bench.network.respondAlways(0); // hangs
    Subscription &subscription = bench.add(EngineUnitsFixture::webhook(u"sub-one"_s));
    bench.f.start();
    bench.f.settle();
    const QPointer<FakeReply> first = bench.network.sent.at(0).reply;

    bench.f.advance(30 * Second - 1);
    QVERIFY(first && first->isHanging());
    bench.f.advance(1);
    // SPEC D6's 30 s apply to the handshake too: given up, asked again 5 s later.
    QVERIFY(!first || !first->isHanging());
    QCOMPARE(subscription.validation.record.message,
             u"endpoint unreachable: no answer within 30 s; next validation attempt in 5 s"_s);
    QCOMPARE(bench.network.sent.size(), 1);
    bench.f.advance(5 * Second);
    QCOMPARE(bench.network.sent.size(), 2);
}

void tst_EndpointValidation::r6_heldDeliveriesEndWhenTheirTtlRunsOut_data()
{
    QTest::addColumn<EngineUnitsFixture::DeadLetter>("deadLetter");
    QTest::newRow("dead-lettered") << EngineUnitsFixture::DeadLetter::LocalContainer;
    QTest::newRow("dropped (L1)") << EngineUnitsFixture::DeadLetter::None;
}

void tst_EndpointValidation::r6_heldDeliveriesEndWhenTheirTtlRunsOut()
{
    QFETCH(EngineUnitsFixture::DeadLetter, deadLetter);

    ValidationBench bench;
    bench.f.state.workspace.settings.deadLetterDelaySeconds = 0;
    bench.network.respondAlways(-int(QNetworkReply::ConnectionRefusedError));
    EventSubscription config = EngineUnitsFixture::webhook(u"sub-one"_s, deadLetter);
    config.retryPolicy.eventTimeToLiveInMinutes = 1;
    Subscription &subscription = bench.add(config);
    bench.f.start();
    const QList<Delivery *> early = bench.f.addDeliveries(subscription, 2, u"early"_s);
    bench.f.advance(30 * Second);
    Delivery &late = bench.f.addDelivery(subscription, u"late"_s);
    const qint64 firstId = early.at(0)->id;

    bench.f.advanceTo(T0 + Minute - 1);
    QCOMPARE(subscription.counters.backlog, 3);

    bench.f.advance(1);
    // SPEC R6: held, not attempted, and their TTL still runs: they end TimeToLiveExceeded.
    QCOMPARE(subscription.counters.backlog, 1);
    QCOMPARE(late.state, DeliveryState::Pending);
    if (deadLetter == EngineUnitsFixture::DeadLetter::LocalContainer) {
        for (const Delivery *delivery : early) {
            QCOMPARE(delivery->state, DeliveryState::DeadLetterPending);
            QCOMPARE(delivery->reason, DeadLetterReason::TimeToLiveExceeded);
            QCOMPARE(delivery->lastOutcome, DeliveryOutcome::EndpointValidationPending);
            QCOMPARE(delivery->attempts, 0);
        }
    } else {
        QVERIFY(!bench.f.delivery(firstId));
        QCOMPARE(subscription.counters.droppedByReason.value(DeadLetterReason::TimeToLiveExceeded),
                 quint64(2));
    }
    bench.f.advanceTo(T0 + 90 * Second);
    QCOMPARE(subscription.counters.backlog, 0);
    QVERIFY(subscription.heldExpiry.empty());
    QCOMPARE(subscription.provisioningState(), ProvisioningState::Creating);
}

void tst_EndpointValidation::failedValidationEndsHeldDeliveries_data()
{
    r6_heldDeliveriesEndWhenTheirTtlRunsOut_data();
}

void tst_EndpointValidation::failedValidationEndsHeldDeliveries()
{
    QFETCH(EngineUnitsFixture::DeadLetter, deadLetter);

    ValidationBench bench;
    bench.f.state.workspace.settings.deadLetterDelaySeconds = 0;
    bench.network.respondAlways(403);
    Subscription &subscription = bench.addCloudEvents(u"sub-one"_s, deadLetter);
    const QList<Delivery *> held = bench.f.addDeliveries(subscription, 2);
    const qint64 firstId = held.at(0)->id;
    bench.f.start();

    bench.f.settle();

    QCOMPARE(subscription.provisioningState(), ProvisioningState::Failed);
    QCOMPARE(subscription.counters.backlog, 0);
    if (deadLetter == EngineUnitsFixture::DeadLetter::LocalContainer) {
        for (const Delivery *delivery : held) {
            QCOMPARE(delivery->state, DeliveryState::DeadLetterPending);
            QCOMPARE(delivery->reason, DeadLetterReason::EndpointValidationFailed);
            QCOMPARE(delivery->lastOutcome, DeliveryOutcome::EndpointValidationFailed);
        }
    } else {
        QVERIFY(!bench.f.delivery(firstId));
        QCOMPARE(
            subscription.counters.droppedByReason.value(DeadLetterReason::EndpointValidationFailed),
            quint64(2));
    }

    // What arrives while it stays Failed does not wait for ever either.
    Delivery &arrived = bench.f.addDelivery(subscription, u"arrived"_s);
    const qint64 arrivedId = arrived.id;
    bench.f.settle();
    QCOMPARE(subscription.counters.backlog, 0);
    if (deadLetter == EngineUnitsFixture::DeadLetter::LocalContainer)
        QCOMPARE(arrived.reason, DeadLetterReason::EndpointValidationFailed);
    else
        QVERIFY(!bench.f.delivery(arrivedId));
    QCOMPARE(bench.network.sent.size(), 1); // the handshake; no delivery was attempted
}

void tst_EndpointValidation::revalidateSendsTheHandshakeAgainAtOnce()
{
    ValidationBench bench;
    bench.network.setAnswerResponder([](const FakeAccessManager::Sent &) {
        return Answer {200, {}, {{"WebHook-Allowed-Origin", "*"}, {"WebHook-Allowed-Rate", "60"}}};
    });
    Subscription &subscription = bench.addCloudEvents(u"sub-one"_s);
    EventSubscription unvalidated = EngineUnitsFixture::webhook(u"unvalidated"_s);
    bench.f.addSubscription(unvalidated);
    bench.f.start();
    bench.f.settle();
    QCOMPARE(subscription.provisioningState(), ProvisioningState::Succeeded);
    QCOMPARE(subscription.validation.record.allowedRate, u"60"_s);

    bench.network.respondAlways(403); // the endpoint changed its mind
    bench.f.advance(Minute);
    {
        const StateLock lock(bench.f.state.lock);
        QVERIFY(bench.validation.revalidate(u"orders"_s, u"sub-one"_s).hasValue());
    }
    QCOMPARE(subscription.provisioningState(), ProvisioningState::Creating);
    QCOMPARE(subscription.validation.record.message, u"sending the validation handshake"_s);
    QVERIFY(subscription.validation.record.allowedRate.isEmpty());
    bench.f.settle(); // "Validate Now": at once, not at a back-off step
    QCOMPARE(bench.network.sent.size(), 2);
    QCOMPARE(subscription.provisioningState(), ProvisioningState::Failed);

    const StateLock lock(bench.f.state.lock);
    const Expected<void> unknown = bench.validation.revalidate(u"orders"_s, u"nobody"_s);
    QVERIFY(!unknown.hasValue());
    QVERIFY2(unknown.error().contains(u"nobody"_s), qPrintable(unknown.error()));
    const Expected<void> switchedOff = bench.validation.revalidate(u"orders"_s, u"unvalidated"_s);
    QVERIFY(!switchedOff.hasValue());
    QVERIFY2(switchedOff.error().contains(u"switched off"_s), qPrintable(switchedOff.error()));
}

void tst_EndpointValidation::changedEndpointIsValidatedAgain()
{
    ValidationBench bench;
    bench.network.setAnswerResponder(echoingEndpoint);
    Subscription &subscription = bench.add(EngineUnitsFixture::webhook(u"sub-one"_s));
    bench.f.start();
    bench.f.settle();
    QCOMPARE(subscription.provisioningState(), ProvisioningState::Succeeded);

    // The same endpoint and schema (another setting changed): the validation still holds.
    {
        const StateLock lock(bench.f.state.lock);
        subscription.config.retryPolicy.maxDeliveryAttempts = 5;
        bench.validation.update(subscription);
    }
    QCOMPARE(subscription.provisioningState(), ProvisioningState::Succeeded);

    // Another endpoint: validated again, as Event Grid does on an update.
    {
        const StateLock lock(bench.f.state.lock);
        subscription.config.endpointUrl = QUrl(u"http://receiver.test/moved"_s);
        bench.validation.update(subscription);
        bench.f.scheduler.reschedule(subscription, bench.f.clock.nowMs());
    }
    QCOMPARE(subscription.provisioningState(), ProvisioningState::Creating);
    bench.f.settle();
    QCOMPARE(bench.network.sent.size(), 2);
    QCOMPARE(bench.network.sent.at(1).request.url(), QUrl(u"http://receiver.test/moved"_s));
    QCOMPARE(subscription.provisioningState(), ProvisioningState::Succeeded);
}

void tst_EndpointValidation::saveWritesValidatedRecordsOnly()
{
    ValidationBench bench;
    bench.network.setAnswerResponder([](const FakeAccessManager::Sent &sent) {
        if (sent.request.url().path() == u"/validated"_s)
            return echoingEndpoint(sent);
        return Answer {-int(QNetworkReply::ConnectionRefusedError), {}, {}};
    });
    Subscription &validated = bench.add(EngineUnitsFixture::webhook(u"validated"_s));
    bench.add(EngineUnitsFixture::webhook(u"unreachable"_s));
    bench.f.addSubscription(EngineUnitsFixture::webhook(u"switched-off"_s));
    Subscription &removed = bench.add(EngineUnitsFixture::webhook(u"removed"_s));
    bench.f.start();
    bench.f.settle();
    QCOMPARE(removed.provisioningState(), ProvisioningState::Creating);
    removed.validation.record.state = ProvisioningState::Succeeded;
    removed.removed = true;

    {
        const StateLock lock(bench.f.state.lock);
        bench.validation.save();
    }

    // Handshakes under way are sent again after a restart; switched-off and deleted
    // subscriptions have nothing to keep.
    const QList<ProvisioningRecord> saved = bench.lastSave();
    QCOMPARE(saved.size(), 1);
    const ProvisioningRecord &record = saved.at(0);
    QCOMPARE(record, validated.validation.record);
    QCOMPARE(record.topic, u"orders"_s);
    QCOMPARE(record.subscription, u"validated"_s);
    QCOMPARE(record.state, ProvisioningState::Succeeded);
    QVERIFY2(record.fingerprint.startsWith(u"http://receiver.test/validated"_s),
             qPrintable(record.fingerprint));
    QVERIFY(record.validationCode.isEmpty());
    QCOMPARE(record.expiresMs, 0);
}

void tst_EndpointValidation::failedSaveIsAStoreError()
{
    ValidationBench bench;
    QSignalSpy storeErrors(&bench.f.signals, &EngineSignals::storeError);
    bench.provisioning.saveError = u"provisioning.json: permission denied"_s;
    bench.network.setAnswerResponder(echoingEndpoint);
    Subscription &subscription = bench.add(EngineUnitsFixture::webhook(u"sub-one"_s));
    bench.f.start();
    bench.f.settle();

    QCOMPARE(subscription.provisioningState(), ProvisioningState::Succeeded);
    QCOMPARE(storeErrors.size(), 1);
    QCOMPARE(storeErrors.at(0).at(0).toString(), u"provisioning.json: permission denied"_s);
}

void tst_EndpointValidation::validatedStateSurvivesARestart()
{
    QList<ProvisioningRecord> kept;
    {
        ValidationBench first;
        first.network.setAnswerResponder([](const FakeAccessManager::Sent &sent) {
            if (sent.request.url().path() == u"/validated"_s)
                return echoingEndpoint(sent);
            return Answer {200, {}, {}}; // not echoed: awaiting the validation URL
        });
        first.add(EngineUnitsFixture::webhook(u"validated"_s));
        first.add(EngineUnitsFixture::webhook(u"awaiting"_s));
        first.f.start();
        first.f.settle();
        kept = first.lastSave();
    }
    QCOMPARE(kept.size(), 2);

    ValidationBench restarted;
    restarted.network.respondAlways(-int(QNetworkReply::ConnectionRefusedError));
    restarted.provisioning.restored = kept;
    QVERIFY(restarted.validation.loadRestored().hasValue());
    Subscription &validated = restarted.add(EngineUnitsFixture::webhook(u"validated"_s));
    Subscription &awaiting = restarted.add(EngineUnitsFixture::webhook(u"awaiting"_s));
    restarted.validation.forgetRestored();
    restarted.f.start();
    restarted.f.settle();

    // A validated endpoint is not validated again; any other state is.
    QCOMPARE(validated.provisioningState(), ProvisioningState::Succeeded);
    QCOMPARE(awaiting.provisioningState(), ProvisioningState::Creating);
    QCOMPARE(restarted.network.sent.size(), 1);
    QCOMPARE(restarted.network.sent.at(0).request.url(), QUrl(u"http://receiver.test/awaiting"_s));
}

// An Azure Function's URL carries its key ("?code="). provisioning.json keeps a keyed hash of the
// fingerprint instead of the URL: the same URL is still recognised after a restart, and a new key
// alone - the masked URLs being equal - validates the endpoint again.
void tst_EndpointValidation::endpointKeyInUrl_notKept_changedKeyAloneValidatesAgain()
{
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    const QString path = ProvisioningFile::defaultPath(directory.path());
    const QString firstKey = u"FirstFunctionKey-0123456789abcdef"_s;
    EventSubscription config = EngineUnitsFixture::webhook(u"function"_s);
    config.endpointUrl = QUrl(u"http://receiver.test/api/hook?code="_s + firstKey);
    {
        ValidationBench first;
        ProvisioningFile file(path);
        first.validation.setStore(&file);
        first.network.setAnswerResponder(echoingEndpoint);
        QVERIFY(first.validation.loadRestored().hasValue());
        Subscription &subscription = first.add(config);
        first.validation.forgetRestored();
        first.f.start();
        first.f.settle();
        QCOMPARE(subscription.provisioningState(), ProvisioningState::Succeeded);
    }
    QFile saved(path);
    QVERIFY(saved.open(QIODevice::ReadOnly));
    const QByteArray bytes = saved.readAll();
    QVERIFY2(!bytes.contains(firstKey.toUtf8()), bytes.constData());
    QVERIFY2(bytes.contains("http://receiver.test/api/hook?code=***|EventGridSchema|hmac-sha256:"),
             bytes.constData());

    const auto restart = [&path, &config](int *handshakes) {
        ValidationBench restarted;
        ProvisioningFile file(path);
        restarted.validation.setStore(&file);
        restarted.network.respondAlways(-int(QNetworkReply::ConnectionRefusedError));
        if (!restarted.validation.loadRestored().hasValue())
            return ProvisioningState::Failed;
        Subscription &subscription = restarted.add(config);
        restarted.validation.forgetRestored();
        restarted.f.start();
        restarted.f.settle();
        *handshakes = int(restarted.handshakes().size());
        return subscription.provisioningState();
    };
    int handshakes = -1;
    QCOMPARE(restart(&handshakes), ProvisioningState::Succeeded); // same URL: recognised
    QCOMPARE(handshakes, 0);

    config.endpointUrl = QUrl(u"http://receiver.test/api/hook?code=SecondFunctionKey-0123456789"_s);
    QCOMPARE(restart(&handshakes), ProvisioningState::Creating); // new key: validated again
    QCOMPARE(handshakes, 1);
}

QTEST_GUILESS_MAIN(tst_EndpointValidation)
#include "tst_endpointvalidation.moc"
