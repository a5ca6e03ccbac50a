// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// Dispatcher without delivery lanes of its own, over the fake access manager: due deliveries go
// out in batches within the batch policy (SPEC B3–B5) with Event Grid's headers (D7) and the
// subscription's own (H1–H3); answers finish, retry or time them out (D2, D5, D6); probation
// decides whether a due subscription sends, waits or dead-letters without an attempt (P3, P4).

#include "EngineUnitsFixture.h"
#include "FakeNetwork.h"

#include "engine/Dispatcher.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QtTest>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using namespace EventDesk::Testing;

using Operation = FaultyDeliveryStore::Operation;

namespace {

constexpr int Hang = 0; // FakeAccessManager: leave the reply open

// The Dispatcher on the fixture's units, wired to the scheduler as the engine wires it.
struct DispatcherBench
{
    explicit DispatcherBench(EngineOptions options = EngineUnitsFixture::withoutJitter())
        : f(options)
    {
        f.wire({&dispatcher});
    }

    // The subscription's due deliveries, as its turn would send them; the requests go out when
    // the state lock is released.
    void serviceDue(Subscription &subscription)
    {
        const StateLock lock(f.state.lock);
        dispatcher.serviceDue(subscription, f.clock.nowMs());
    }

    QJsonArray sentEvents(qsizetype request) const
    {
        return QJsonDocument::fromJson(network.sent.at(request).body).array();
    }

    QStringList sentIds(qsizetype request) const
    {
        QStringList ids;
        for (const QJsonValue &event : sentEvents(request))
            ids.append(event[u"id"_s].toString());
        return ids;
    }

    EngineUnitsFixture f;
    FakeAccessManager network;
    Dispatcher dispatcher {f.state, f.signals, f.commits, f.scheduler, f.outcomes, &network};
};

EventSubscription batching(const QString &name, int maxEvents, int preferredKilobytes)
{
    EventSubscription config = EngineUnitsFixture::webhook(name);
    config.batchPolicy.enabled = true;
    config.batchPolicy.maxEventsPerBatch = maxEvents;
    config.batchPolicy.preferredBatchSizeInKilobytes = preferredKilobytes;
    return config;
}

} // namespace

class tst_Dispatcher : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void b3b5_dueDeliveriesGoOutInBatchesWithinThePolicy();
    void freeSlotsLimitTheRequests();
    void b4_batchStaysWithinThePreferredSize();
    void d7h_deliveryHeaders();
    void h2_secretWithoutResolverIsOmitted();
    void d4d7_cloudEventsDelivery();
    void d2_successFinishesAndTheFreedSlotIsRefilledAtOnce();
    void r1b6_failedBatchRetriesEachDelivery();
    void d6_timeoutFailsTheAttemptAndALateSuccessCancelsTheRetry();
    void d6_requestIsAbortedAtTheLateWindowsEnd();
    void p4_halfOpenProbationSendsExactlyOneRequest();
    void allowedRateSpacesTheRequests();
    void p3_transientProbationDefers();
    void p3_noRetryProbationEndsDueDeliveriesWithoutAttempt_data();
    void p3_noRetryProbationEndsDueDeliveriesWithoutAttempt();
    void unreadableStorePutsTheBatchBack();
};

void tst_Dispatcher::b3b5_dueDeliveriesGoOutInBatchesWithinThePolicy()
{
    DispatcherBench bench;
    bench.network.respondAlways(Hang);
    Subscription &subscription = bench.f.addSubscription(batching(u"sub-one"_s, 3, 64));
    const QList<Delivery *> due = bench.f.addDeliveries(subscription, 7);
    const QList<Delivery *> later = bench.f.addDeliveries(
        subscription, {bench.f.event(subscription, u"later0"_s)}, T0 + Minute, T0);
    bench.f.start();

    bench.serviceDue(subscription);

    // SPEC B3: never more than 3 per request; B5: what is due now, without waiting to fill.
    QCOMPARE(bench.network.sent.size(), 3);
    QList<qsizetype> sizes;
    QStringList ids;
    for (qsizetype i = 0; i < bench.network.sent.size(); ++i) {
        sizes.append(bench.sentEvents(i).size());
        ids += bench.sentIds(i);
        QCOMPARE(
            bench.network.sent.at(i).request.header(QNetworkRequest::ContentTypeHeader).toString(),
            u"application/json"_s);
    }
    QCOMPARE(sizes, (QList<qsizetype> {3, 3, 1}));
    ids.sort();
    QCOMPARE(ids, (QStringList {u"e0"_s, u"e1"_s, u"e2"_s, u"e3"_s, u"e4"_s, u"e5"_s, u"e6"_s}));
    for (const Delivery *delivery : due)
        QCOMPARE(delivery->state, DeliveryState::InFlight);
    QCOMPARE(later.constFirst()->state, DeliveryState::Pending);
    QCOMPARE(subscription.inFlightRequests, 3);
    QCOMPARE(subscription.counters.requests, quint64(3));
    QCOMPARE(subscription.counters.inFlight, 7);
    QCOMPARE(subscription.counters.backlog, 1);
}

void tst_Dispatcher::freeSlotsLimitTheRequests()
{
    DispatcherBench bench;
    bench.network.respondAlways(Hang);
    bench.f.state.workspace.settings.maxConcurrentRequestsPerSubscription = 3;
    Subscription &subscription = bench.f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s));
    bench.f.addDeliveries(subscription, 5);
    subscription.inFlightRequests = 1;
    bench.f.start();

    bench.serviceDue(subscription);

    QCOMPARE(bench.network.sent.size(), 2); // 3 slots, 1 taken
    QCOMPARE(subscription.inFlightRequests, 3);
    QCOMPARE(subscription.counters.backlog, 3); // still due: the next reply takes them
}

void tst_Dispatcher::b4_batchStaysWithinThePreferredSize()
{
    DispatcherBench bench;
    bench.network.respondAlways(Hang);
    Subscription &subscription = bench.f.addSubscription(batching(u"sub-one"_s, 10, 1));
    QList<StoredEvent> events;
    for (int i = 0; i < 4; ++i)
        events.append(
            bench.f.event(subscription, u"small%1"_s.arg(i), {{u"text"_s, QString(250, u'x')}}));
    events.append(bench.f.event(subscription, u"large"_s, {{u"text"_s, QString(3000, u'y')}}));
    bench.f.addDeliveries(subscription, events, T0, T0);
    bench.f.start();

    bench.serviceDue(subscription);

    QStringList sent;
    for (qsizetype i = 0; i < bench.network.sent.size(); ++i) {
        const QStringList ids = bench.sentIds(i);
        sent += ids;
        // SPEC B4: within 1 KB, except an event larger than that, which goes alone.
        if (ids.contains(u"large"_s))
            QCOMPARE(ids.size(), 1);
        else
            QVERIFY2(bench.network.sent.at(i).body.size() <= 1024,
                     qPrintable(QString::number(bench.network.sent.at(i).body.size())));
    }
    QVERIFY(bench.network.sent.size() >= 3); // four 400-byte events do not fit one 1 KB batch
    sent.sort();
    QCOMPARE(sent, (QStringList {u"large"_s, u"small0"_s, u"small1"_s, u"small2"_s, u"small3"_s}));
}

void tst_Dispatcher::d7h_deliveryHeaders()
{
    DispatcherBench bench;
    bench.network.respondAlways(Hang);
    bench.dispatcher.setSecretResolver(
        [](const QString &topic, const QString &subscription, const QString &header) {
            if (topic != u"orders"_s || subscription != u"sub-one"_s)
                return QString();
            if (header == u"X-Secret"_s)
                return u"s3cret"_s;
            if (header == u"X-Broken-Secret"_s)
                return u"one\r\ntwo"_s;
            return QString();
        });
    EventSubscription config = EngineUnitsFixture::webhook(u"sub-one"_s);
    config.deliveryHeaders = {EngineUnitsFixture::staticHeader(u"X-Static"_s, u"fixed"_s),
                              EngineUnitsFixture::staticHeader(u"X-Secret"_s, QString(), true),
                              EngineUnitsFixture::staticHeader(u"X-Broken-Secret"_s, QString(), true),
                              EngineUnitsFixture::dynamicHeader(u"X-Key"_s, u"data.key1"_s),
                              EngineUnitsFixture::dynamicHeader(u"X-Amount"_s, u"data.amount"_s),
                              EngineUnitsFixture::dynamicHeader(u"X-Flag"_s, u"data.flag"_s),
                              EngineUnitsFixture::dynamicHeader(u"X-Subject"_s, u"subject"_s),
                              EngineUnitsFixture::dynamicHeader(u"X-Note"_s, u"data.note"_s),
                              EngineUnitsFixture::dynamicHeader(u"X-Nested"_s, u"data.nested"_s),
                              EngineUnitsFixture::dynamicHeader(u"X-Missing"_s, u"data.nothing"_s)};
    Subscription &subscription = bench.f.addSubscription(config);
    const QJsonObject data {{u"key1"_s, u"v1"_s},
                            {u"amount"_s, 12.5},
                            {u"flag"_s, true},
                            {u"note"_s, u"first line\nsecond line"_s},
                            {u"nested"_s, QJsonObject {{u"a"_s, 1}}}};
    Delivery &delivery
        = *bench.f.addDeliveries(subscription, {bench.f.event(subscription, u"e0"_s, data)}, T0, T0)
               .constFirst();
    delivery.attempts = 2; // a retry: two attempts before this one
    bench.f.start();

    bench.serviceDue(subscription);

    QCOMPARE(bench.network.sent.size(), 1);
    const FakeAccessManager::Sent &sent = bench.network.sent.at(0);
    QCOMPARE(sent.request.url(), QUrl(u"http://receiver.test/sub-one"_s));
    QCOMPARE(sent.request.header(QNetworkRequest::ContentTypeHeader).toString(),
             u"application/json"_s);
    // SPEC D5: a redirect is a failed attempt, never followed.
    QCOMPARE(sent.request.attribute(QNetworkRequest::RedirectPolicyAttribute).toInt(),
             int(QNetworkRequest::ManualRedirectPolicy));
    // SPEC D4: an array even with one event.
    QCOMPARE(bench.sentIds(0), QStringList {u"e0"_s});
    // SPEC D7
    QCOMPARE(sent.header("aeg-event-type"), "Notification"_ba);
    QCOMPARE(sent.header("aeg-subscription-name"), "SUB-ONE"_ba);
    QCOMPARE(sent.header("aeg-delivery-count"), "2"_ba);
    QCOMPARE(sent.header("aeg-data-version"), "2.0"_ba);
    QCOMPARE(sent.header("aeg-metadata-version"), "1"_ba);
    QVERIFY(!sent.request.hasRawHeader("WebHook-Request-Origin"));
    // SPEC H2: static and secret values; H3: scalar values from the event.
    QCOMPARE(sent.header("X-Static"), "fixed"_ba);
    QCOMPARE(sent.header("X-Secret"), "s3cret"_ba);
    QCOMPARE(sent.header("X-Key"), "v1"_ba);
    QCOMPARE(sent.header("X-Amount"), "12.5"_ba);
    QCOMPARE(sent.header("X-Flag"), "true"_ba);
    QCOMPARE(sent.header("X-Subject"), "/orders/e0"_ba);
    // H1: a value with a line break never splits a header; H3: non-scalar or missing: omitted.
    QVERIFY(!sent.request.hasRawHeader("X-Broken-Secret"));
    QVERIFY(!sent.request.hasRawHeader("X-Note"));
    QVERIFY(!sent.request.hasRawHeader("X-Nested"));
    QVERIFY(!sent.request.hasRawHeader("X-Missing"));
}

void tst_Dispatcher::h2_secretWithoutResolverIsOmitted()
{
    DispatcherBench bench;
    bench.network.respondAlways(Hang);
    EventSubscription config = EngineUnitsFixture::webhook(u"sub-one"_s);
    config.deliveryHeaders
        = {EngineUnitsFixture::staticHeader(u"X-Secret"_s, QString(), true), EngineUnitsFixture::staticHeader(u"X-Static"_s, u"fixed"_s)};
    Subscription &subscription = bench.f.addSubscription(config);
    bench.f.addDeliveries(subscription, 1);
    bench.f.start();

    bench.serviceDue(subscription);

    QCOMPARE(bench.network.sent.size(), 1);
    QVERIFY(!bench.network.sent.at(0).request.hasRawHeader("X-Secret"));
    QCOMPARE(bench.network.sent.at(0).header("X-Static"), "fixed"_ba);
}

void tst_Dispatcher::d4d7_cloudEventsDelivery()
{
    DispatcherBench bench;
    bench.network.respondAlways(Hang);
    EventSubscription config = EngineUnitsFixture::webhook(u"sub-one"_s);
    config.deliverySchema = EventSchema::CloudEvents10; // from an Event Grid schema topic (S4)
    Subscription &subscription = bench.f.addSubscription(config);
    bench.f.addDeliveries(subscription, 1);
    bench.f.start();

    bench.serviceDue(subscription);

    QCOMPARE(bench.network.sent.size(), 1);
    const FakeAccessManager::Sent &sent = bench.network.sent.at(0);
    QCOMPARE(sent.request.header(QNetworkRequest::ContentTypeHeader).toString(),
             u"application/cloudevents+json; charset=utf-8"_s);
    QCOMPARE(sent.header("aeg-metadata-version"), "1.0"_ba);
    QCOMPARE(sent.header("WebHook-Request-Origin"), "eventgrid.azure.net"_ba);
    // SPEC D4: one structured-mode CloudEvent without batching, not an array.
    const QJsonDocument body = QJsonDocument::fromJson(sent.body);
    QVERIFY(body.isObject());
    QCOMPARE(body[u"specversion"_s].toString(), u"1.0"_s);
    QCOMPARE(body[u"id"_s].toString(), u"e0"_s);
    QCOMPARE(body[u"type"_s].toString(), u"Order.Created"_s);
    QCOMPARE(body[u"source"_s].toString(), subscription.topicPath);
}

void tst_Dispatcher::d2_successFinishesAndTheFreedSlotIsRefilledAtOnce()
{
    DispatcherBench bench;
    bench.f.state.workspace.settings.maxConcurrentRequestsPerSubscription = 1;
    Subscription &subscription = bench.f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s));
    bench.f.addDeliveries(subscription, 3);
    // The subscription's turn as the engine runs it, counted.
    int turns = 0;
    bench.f.scheduler.setHooks(DeliveryScheduler::Hooks {
        [&](Subscription &serviced, qint64 now) {
            ++turns;
            bench.dispatcher.serviceDue(serviced, now);
            bench.f.scheduler.reschedule(serviced, now);
        },
        [](Subscription &, qint64) { return qint64(-1); },
        [&](quint64 requestId, DeliveryScheduler::Deadline deadline, qint64 now) {
            bench.dispatcher.deadlineDue(requestId, deadline, now);
        },
        [&](quint64 requestId) {
            return bench.dispatcher.isOpen(requestId);
        }});
    bench.f.start();

    bench.serviceDue(subscription);
    QCOMPARE(bench.network.sent.size(), 1);
    // Only replies are handled; engine time does not move and no alarm rings.
    for (int i = 0; i < 10; ++i)
        QCoreApplication::processEvents();

    // SPEC D2: each reply's freed slot is used by the subscription's turn right away.
    QCOMPARE(bench.network.sent.size(), 3);
    QCOMPARE(turns, 3); // one per reply
    QCOMPARE(bench.f.clock.nowMs(), T0);
    QCOMPARE(subscription.counters.delivered, quint64(3));
    QCOMPARE(subscription.inFlightRequests, 0);
    QCOMPARE(subscription.counters.inFlight, 0);
    QVERIFY(bench.f.state.deliveries.empty());
    QVERIFY(bench.f.flush().hasValue());
    QCOMPARE(bench.f.storedUnfinishedDeliveries(), 0);
    const auto log = bench.f.sqlite.attemptLog(10);
    QCOMPARE(log->size(), 3);
    for (const AttemptLogEntry &entry : log.value()) {
        QCOMPARE(entry.outcome, DeliveryOutcome::Delivered);
        QCOMPARE(entry.httpStatus, 200);
        QCOMPARE(entry.attempt, 1);
    }
}

void tst_Dispatcher::r1b6_failedBatchRetriesEachDelivery()
{
    DispatcherBench bench;
    QSignalSpy probationChanged(&bench.f.signals, &EngineSignals::probationChanged);
    QSignalSpy attemptLogged(&bench.f.signals, &EngineSignals::attemptLogged);
    bench.network.respondAlways(500);
    Subscription &subscription = bench.f.addSubscription(batching(u"sub-one"_s, 2, 64));
    const QList<Delivery *> deliveries = bench.f.addDeliveries(subscription, 2);
    bench.f.start();
    bench.f.settle();

    QCOMPARE(bench.network.sent.size(), 1);
    // SPEC B6: the batch failed as a whole; each event counts the attempt and is retried (R3).
    for (const Delivery *delivery : deliveries) {
        QCOMPARE(delivery->state, DeliveryState::Pending);
        QCOMPARE(delivery->attempts, 1);
        QCOMPARE(delivery->lastOutcome, DeliveryOutcome::GenericError);
        QCOMPARE(delivery->lastHttpStatus, 500);
        QCOMPARE(delivery->lastAttemptMs, T0);
        QCOMPARE(delivery->dueMs, T0 + 10 * Second);
    }
    QCOMPARE(subscription.counters.failedByOutcome.value(DeliveryOutcome::GenericError),
             quint64(2));
    QCOMPARE(subscription.inFlightRequests, 0);
    QCOMPARE(subscription.counters.inFlight, 0);
    QCOMPARE(subscription.counters.backlog, 2);
    QCOMPARE(subscription.probation.consecutiveFailures(), 1); // one request, one failure (P2)
    QCOMPARE(probationChanged.size(), 1);
    QCOMPARE(attemptLogged.size(), 1);
    const AttemptLogEntry entry = attemptLogged.at(0).at(0).value<AttemptLogEntry>();
    QCOMPARE(entry.outcome, DeliveryOutcome::GenericError);
    QCOMPARE(entry.httpStatus, 500);
    QCOMPARE(entry.attempt, 1);
    QCOMPARE(entry.nextDueMs, T0 + 10 * Second);
    QStringList eventIds = entry.eventIds;
    eventIds.sort();
    QCOMPARE(eventIds, (QStringList {u"e0"_s, u"e1"_s}));
    QVERIFY(bench.f.flush().hasValue());
    QCOMPARE(bench.f.storedDelivery(deliveries.at(0)->id)->attempts, 1);
    QCOMPARE(bench.f.sqlite.attemptLog(10)->size(), 1);

    bench.network.respondAlways(200);
    bench.f.advance(10 * Second - 1);
    QCOMPARE(bench.network.sent.size(), 1);
    bench.f.advance(1);
    QCOMPARE(bench.network.sent.size(), 2);
    QCOMPARE(bench.network.sent.at(1).header("aeg-delivery-count"), "1"_ba);
    QCOMPARE(bench.sentEvents(1).size(), 2);
    QCOMPARE(subscription.counters.delivered, quint64(2));
}

void tst_Dispatcher::d6_timeoutFailsTheAttemptAndALateSuccessCancelsTheRetry()
{
    DispatcherBench bench;
    bench.network.respondAlways(Hang);
    Subscription &subscription = bench.f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s));
    Delivery &delivery = bench.f.addDelivery(subscription, u"e0"_s);
    const qint64 id = delivery.id;
    bench.f.start();
    bench.f.settle();
    QCOMPARE(bench.network.sent.size(), 1);
    QCOMPARE(subscription.inFlightRequests, 1);

    bench.f.advance(30 * Second - 1);
    QCOMPARE(delivery.state, DeliveryState::InFlight);
    bench.f.advance(1);
    // SPEC D6: no answer within 30 s is a failed attempt; its retry is scheduled, its slot freed,
    // and the request stays open for a late answer.
    QCOMPARE(delivery.state, DeliveryState::Pending);
    QCOMPARE(delivery.attempts, 1);
    QCOMPARE(delivery.lastOutcome, DeliveryOutcome::TimedOut);
    QCOMPARE(delivery.dueMs, T0 + 40 * Second);
    QCOMPARE(subscription.counters.failedByOutcome.value(DeliveryOutcome::TimedOut), quint64(1));
    QCOMPARE(subscription.inFlightRequests, 0);
    QCOMPARE(subscription.probation.consecutiveFailures(), 1);
    QVERIFY(bench.dispatcher.isOpen(1));
    QVERIFY(bench.network.sent.at(0).reply->isHanging());

    bench.f.advance(5 * Second);
    bench.network.sent.at(0).reply->finishWithStatus(200);
    bench.f.settle();
    QVERIFY(!bench.f.delivery(id));
    QCOMPARE(subscription.counters.delivered, quint64(1));
    QCOMPARE(subscription.counters.backlog, 0);
    QCOMPARE(subscription.probation.consecutiveFailures(), 0);
    QVERIFY(!bench.dispatcher.isOpen(1));
    bench.f.advance(10 * Minute);
    QCOMPARE(bench.network.sent.size(), 1); // the retry was cancelled

    QVERIFY(bench.f.flush().hasValue());
    QCOMPARE(bench.f.storedUnfinishedDeliveries(), 0);
    const auto log = bench.f.sqlite.attemptLog(10);
    QVERIFY(log.hasValue());
    QList<DeliveryOutcome> outcomes;
    for (const AttemptLogEntry &entry : log.value())
        outcomes.append(entry.outcome);
    QCOMPARE(outcomes.size(), 2); // the attempt, logged twice: timed out, then answered
    QVERIFY(outcomes.contains(DeliveryOutcome::TimedOut));
    QVERIFY(outcomes.contains(DeliveryOutcome::Delivered));
}

void tst_Dispatcher::d6_requestIsAbortedAtTheLateWindowsEnd()
{
    DispatcherBench bench;
    int requests = 0;
    bench.network.setResponder([&requests](const FakeAccessManager::Sent &) {
        return ++requests == 1 ? Hang : 200; // the retry is answered
    });
    Subscription &subscription = bench.f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s));
    bench.f.addDeliveries(subscription, 1);
    bench.f.start();
    bench.f.settle();
    const QPointer<FakeReply> first = bench.network.sent.at(0).reply;

    bench.f.advance(3 * Minute - 1);
    QCOMPARE(bench.network.sent.size(), 2); // the retry went out at 40 s and succeeded
    QCOMPARE(subscription.counters.delivered, quint64(1));
    QVERIFY(first && first->isHanging());
    QVERIFY(bench.dispatcher.isOpen(1));

    bench.f.advance(1);
    // SPEC D6: abandoned 3 min after it was sent.
    QVERIFY(!first || !first->isHanging());
    QVERIFY(!bench.dispatcher.isOpen(1));
    QCOMPARE(subscription.counters.delivered, quint64(1));
    QVERIFY(bench.f.flush().hasValue());
    const auto log = bench.f.sqlite.attemptLog(10);
    QVERIFY(log.hasValue());
    bool aborted = false;
    for (const AttemptLogEntry &entry : log.value())
        aborted = aborted || (entry.outcome == DeliveryOutcome::Aborted && entry.attempt == 1);
    QVERIFY(aborted);
}

void tst_Dispatcher::p4_halfOpenProbationSendsExactlyOneRequest()
{
    DispatcherBench bench;
    bench.network.respondAlways(Hang);
    Subscription &subscription = bench.f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s));
    subscription.probation.setThreshold(1);
    subscription.probation.recordFailure(DeliveryOutcome::Busy, T0 - 10 * Second); // ends at T0
    bench.f.addDeliveries(subscription, 5);
    bench.f.start();
    bench.f.settle();

    // SPEC P4: the probation ended; one delivery is tried first.
    QCOMPARE(bench.network.sent.size(), 1);
    QCOMPARE(bench.sentEvents(0).size(), 1);
    QCOMPARE(subscription.probation.state(), ProbationTracker::State::HalfOpen);
    QVERIFY(subscription.probation.isProbeInFlight());
    bench.serviceDue(subscription);
    bench.f.advance(10 * Second);
    QCOMPARE(bench.network.sent.size(), 1);

    bench.network.sent.at(0).reply->finishWithStatus(200);
    bench.f.settle();
    // The probe succeeded: healthy again, and the backlog flows.
    QCOMPARE(subscription.probation.state(), ProbationTracker::State::Healthy);
    QCOMPARE(bench.network.sent.size(), 5);
}

void tst_Dispatcher::allowedRateSpacesTheRequests()
{
    DispatcherBench bench;
    QList<qint64> sentAt;
    bench.network.setResponder([&](const FakeAccessManager::Sent &) {
        sentAt.append(bench.f.clock.nowMs() - T0);
        return 200;
    });
    Subscription &subscription = bench.f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s));
    subscription.validation.record.allowedRate = u"6"_s; // WebHook-Allowed-Rate: 6 per minute
    bench.f.addDeliveries(subscription, 3);
    bench.f.start();

    bench.f.advance(Minute);
    QCOMPARE(sentAt, (QList<qint64> {0, 10 * Second, 20 * Second}));
    QCOMPARE(subscription.counters.delivered, quint64(3));
}

void tst_Dispatcher::p3_transientProbationDefers()
{
    DispatcherBench bench;
    Subscription &subscription = bench.f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s));
    subscription.probation.setThreshold(1);
    subscription.probation.recordFailure(DeliveryOutcome::SocketError, T0); // 30 s
    const QList<Delivery *> deliveries = bench.f.addDeliveries(subscription, 2);
    bench.f.start();

    bench.serviceDue(subscription);
    bench.f.advance(30 * Second - 1);

    QCOMPARE(bench.network.sent.size(), 0);
    for (const Delivery *delivery : deliveries) {
        QCOMPARE(delivery->state, DeliveryState::Pending);
        QCOMPARE(delivery->attempts, 0); // deferral is not an attempt
    }
    QCOMPARE(subscription.counters.backlog, 2);
}

void tst_Dispatcher::p3_noRetryProbationEndsDueDeliveriesWithoutAttempt_data()
{
    QTest::addColumn<EngineUnitsFixture::DeadLetter>("deadLetter");
    QTest::newRow("dead-lettered") << EngineUnitsFixture::DeadLetter::LocalContainer;
    QTest::newRow("dropped (L1)") << EngineUnitsFixture::DeadLetter::None;
}

void tst_Dispatcher::p3_noRetryProbationEndsDueDeliveriesWithoutAttempt()
{
    QFETCH(EngineUnitsFixture::DeadLetter, deadLetter);

    DispatcherBench bench;
    Subscription &subscription
        = bench.f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s, deadLetter));
    subscription.probation.setThreshold(1);
    subscription.probation.recordFailure(DeliveryOutcome::Unauthorized, T0); // 5 min
    const QList<Delivery *> deliveries = bench.f.addDeliveries(subscription, 2);
    const qint64 firstId = deliveries.at(0)->id;
    bench.f.start();

    bench.serviceDue(subscription);

    QCOMPARE(bench.network.sent.size(), 0);
    QCOMPARE(subscription.counters.backlog, 0);
    if (deadLetter == EngineUnitsFixture::DeadLetter::LocalContainer) {
        for (const Delivery *delivery : deliveries) {
            QCOMPARE(delivery->state, DeliveryState::DeadLetterPending);
            QCOMPARE(delivery->lastOutcome, DeliveryOutcome::Probation);
            QCOMPARE(delivery->reason, DeadLetterReason::UndeliverableDueToHttpUnauthorized);
            QCOMPARE(delivery->attempts, 0);
        }
        QCOMPARE(subscription.counters.deadLetterPending, 2);
    } else {
        QVERIFY(!bench.f.delivery(firstId));
        QCOMPARE(subscription.counters.droppedByReason.value(
                     DeadLetterReason::UndeliverableDueToHttpUnauthorized),
                 quint64(2));
        QVERIFY(bench.f.flush().hasValue());
        QCOMPARE(bench.f.sqlite.droppedDeliveries(10)->at(0).lastOutcome,
                 DeliveryOutcome::Probation);
    }
}

void tst_Dispatcher::unreadableStorePutsTheBatchBack()
{
    DispatcherBench bench;
    QSignalSpy storeErrors(&bench.f.signals, &EngineSignals::storeError);
    Subscription &subscription = bench.f.addSubscription(batching(u"sub-one"_s, 10, 64));
    // Retries after a restart: the events are in the store only.
    const QList<Delivery *> deliveries = bench.f.addDeliveries(
        subscription, {bench.f.event(subscription, u"e0"_s), bench.f.event(subscription, u"e1"_s)},
        T0, T0, EngineUnitsFixture::Placement::Pending, EngineUnitsFixture::Payload::InStoreOnly);
    bench.f.start();
    bench.f.store.failNext(Operation::LoadEvents);

    bench.serviceDue(subscription);

    QCOMPARE(bench.network.sent.size(), 0);
    QCOMPARE(storeErrors.size(), 1);
    for (const Delivery *delivery : deliveries) {
        QCOMPARE(delivery->state, DeliveryState::Pending);
        QCOMPARE(delivery->attempts, 0);
        QCOMPARE(delivery->dueMs, T0 + Second); // tried again shortly
    }
    QCOMPARE(subscription.counters.backlog, 2);
    QCOMPARE(subscription.inFlightRequests, 0);

    bench.f.advance(Second - 1);
    QCOMPARE(bench.network.sent.size(), 0);
    bench.f.advance(1);
    QCOMPARE(bench.network.sent.size(), 1);
    QCOMPARE(bench.sentEvents(0).size(), 2);
    QCOMPARE(subscription.counters.delivered, quint64(2));
}

QTEST_GUILESS_MAIN(tst_Dispatcher)
#include "tst_dispatcher.moc"
