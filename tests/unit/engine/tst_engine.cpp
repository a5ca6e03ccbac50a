// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// The engine on a manual clock and a fake access manager: the SPEC rules end to end, with the
// real SQLite store and the real local dead-letter container.

#include "FakeNetwork.h"

#include "UtcTime.h"
#include "deadletters/FolderDeadLetterSink.h"
#include "engine/Clock.h"
#include "engine/Engine.h"
#include "store/sqlite/SqliteDeliveryStore.h"
#include "workspace/WorkspaceFolder.h"

#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace Qt::StringLiterals;
using namespace EventDesk;

namespace {

constexpr qint64 T0 = 1'700'000'000'000; // engine time at the start of every test
constexpr qint64 Second = 1000;
constexpr qint64 Minute = 60 * Second;

QJsonObject subscriptionJson(const QString &name, const QJsonObject &extraProperties = {},
                             const QJsonObject &destinationExtra = {})
{
    QJsonObject destinationProperties{{u"endpointUrl"_s, u"http://receiver.test/%1"_s.arg(name)}};
    for (auto it = destinationExtra.begin(); it != destinationExtra.end(); ++it)
        destinationProperties.insert(it.key(), it.value());
    QJsonObject properties{
        {u"destination"_s, QJsonObject{{u"endpointType"_s, u"WebHook"_s},
                                       {u"properties"_s, destinationProperties}}},
        {u"deadLetterDestination"_s,
         QJsonObject{{u"endpointType"_s, u"StorageBlob"_s},
                     {u"properties"_s, QJsonObject{{u"resourceId"_s, u"local"_s},
                                                   {u"blobContainerName"_s, u"deadletters"_s}}}}},
        // The fake receivers do not implement the validation handshake (tst_endpoint covers it).
        {u"x-eventdesk"_s, QJsonObject{{u"validation"_s, false}}}};
    for (auto it = extraProperties.begin(); it != extraProperties.end(); ++it)
        properties.insert(it.key(), it.value());
    return QJsonObject{{u"name"_s, name}, {u"properties"_s, properties}};
}

QByteArray workspaceJson(const QJsonArray &subscriptions, const QJsonObject &settings = {})
{
    QJsonObject allSettings{{u"deadLetterDelaySeconds"_s, 300}, {u"probationThreshold"_s, 10}};
    for (auto it = settings.begin(); it != settings.end(); ++it)
        allSettings.insert(it.key(), it.value());
    const QJsonObject topic{{u"name"_s, u"orders"_s},
                            {u"inputSchema"_s, u"EventGridSchema"_s},
                            {u"eventSubscriptions"_s, subscriptions}};
    return QJsonDocument(QJsonObject{{u"topics"_s, QJsonArray{topic}}, {u"settings"_s, allSettings}})
        .toJson();
}

QByteArray events(int count, const QString &idPrefix = u"e"_s, const QString &eventType = u"Order.Created"_s)
{
    QJsonArray array;
    for (int i = 0; i < count; ++i) {
        array.append(QJsonObject{{u"id"_s, u"%1%2"_s.arg(idPrefix).arg(i)},
                                 {u"subject"_s, u"/orders/%1"_s.arg(i)},
                                 {u"eventType"_s, eventType},
                                 {u"eventTime"_s, u"2024-05-01T10:00:00Z"_s},
                                 {u"dataVersion"_s, u"2.0"_s},
                                 {u"data"_s, QJsonObject{{u"amount"_s, i}, {u"key1"_s, u"v%1"_s.arg(i)}}}});
    }
    return QJsonDocument(array).toJson(QJsonDocument::Compact);
}

class Harness
{
public:
    explicit Harness(const QByteArray &json, EngineOptions options = withoutJitter())
    {
        storePath = directory.filePath(u"eventdesk.db"_s);
        auto parsed = Workspace::fromJson(json, u"workspace.json"_s);
        if (!parsed)
            qFatal("test workspace invalid: %s", qPrintable(parsed.error()));
        workspace = parsed.value();
        if (auto prepared = WorkspaceFolder::prepareDeadLetterContainers(directory.path(), workspace); !prepared)
            qFatal("%s", qPrintable(prepared.error()));
        sink = std::make_unique<FolderDeadLetterSink>(WorkspaceFolder::deadLetterRoot(directory.path()));
        this->options = options;
        startEngine();
    }

    static EngineOptions withoutJitter()
    {
        EngineOptions options;
        options.jitter = false;
        return options;
    }

    void startEngine()
    {
        store = std::make_unique<SqliteDeliveryStore>();
        if (auto opened = store->open(storePath); !opened)
            qFatal("%s", qPrintable(opened.error()));
        engine = std::make_unique<Engine>(&clock, &network, store.get(), sink.get(), options);
        if (auto started = engine->start(workspace); !started)
            qFatal("%s", qPrintable(started.error()));
    }

    void stopEngine()
    {
        engine->shutdown();
        engine.reset();
        store->close();
        store.reset();
    }

    // Runs everything due now, including the queued completion of fake replies.
    void settle()
    {
        for (int i = 0; i < 6; ++i) {
            clock.advanceMs(0);
            QCoreApplication::processEvents();
        }
    }

    // Moves engine time forward alarm by alarm, letting replies complete at each step.
    void advance(qint64 ms)
    {
        const qint64 target = clock.nowMs() + ms;
        settle();
        while (clock.alarmAtMs() >= 0 && clock.alarmAtMs() <= target) {
            clock.advanceTo(clock.alarmAtMs());
            settle();
        }
        clock.advanceTo(target);
        settle();
    }

    PublishResult publish(const QByteArray &body)
    {
        PublishResult result = engine->publish(u"orders"_s, body, "application/json");
        settle();
        return result;
    }

    SubscriptionSnapshot subscription(const QString &name) const
    {
        const EngineSnapshot snapshot = engine->snapshot();
        for (const SubscriptionSnapshot &subscription : snapshot.subscriptions) {
            if (subscription.subscription == name)
                return subscription;
        }
        return {};
    }

    QStringList deadLetterFiles() const
    {
        QStringList files;
        QDirIterator it(WorkspaceFolder::deadLetterRoot(directory.path()), {u"*.json"_s}, QDir::Files,
                        QDirIterator::Subdirectories);
        while (it.hasNext())
            files.append(it.next());
        files.sort();
        return files;
    }

    QJsonArray deadLetterRecords() const
    {
        QJsonArray all;
        for (const QString &path : deadLetterFiles()) {
            QFile file(path);
            if (!file.open(QIODevice::ReadOnly))
                continue;
            const QJsonArray records = QJsonDocument::fromJson(file.readAll()).array();
            for (const QJsonValue &record : records)
                all.append(record);
        }
        return all;
    }

    // The dead-letter record of the event with this id, or an empty object when there is none.
    QJsonObject deadLetterRecord(const QString &eventId) const
    {
        const QJsonArray records = deadLetterRecords();
        for (const QJsonValue &record : records) {
            if (record[u"id"_s].toString() == eventId)
                return record.toObject();
        }
        return {};
    }

    QList<qint64> sentTimes() const
    {
        QList<qint64> times;
        for (qsizetype i = 0; i < sentAt.size(); ++i)
            times.append(sentAt.at(i) - T0);
        return times;
    }

    QTemporaryDir directory;
    QString storePath;
    ManualClock clock{T0};
    FakeAccessManager network;
    Workspace workspace;
    EngineOptions options;
    std::unique_ptr<SqliteDeliveryStore> store;
    std::unique_ptr<FolderDeadLetterSink> sink;
    std::unique_ptr<Engine> engine;
    QList<qint64> sentAt;
};

} // namespace

class tst_Engine : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void d2_deliversImmediately();
    void d4d7_bodyAndHeaders();
    void r9_workedExampleThroughEngine();
    void r2_noRetryDeadLettersAfterDelay();
    void l1_dropWithoutDestination();
    void b3b5_batchesRespectLimits();
    void b6_failedBatchRetriesEachEvent();
    void d6_timeoutThenLateSuccessCancelsRetry();
    void d6_abortAfterLateWindow();
    void p3p4_probationDefersAndProbes();
    void p3_noRetryProbationDeadLettersWithoutAttempt();
    void p3r7_deferredUntilTtlRanOut_outcomeIsProbation();
    void p5_backlogInProbationIsOneHeapEntry();
    void h_customHeaders();
    void filters_onlyMatchingSubscriptionsGetDeliveries();
    void d1_restartResumesPendingDeliveries();
    void l4_unavailableContainerRetriedThenDropped();
    void resubmit_keepsIdWithFreshAttempts();
    void deletedSubscriptionDropsBacklog();
    void deletedSubscriptionDroppedAtRestart();
    void publish_rejectedRequestStoresNothing();
};

void tst_Engine::d2_deliversImmediately()
{
    Harness harness(workspaceJson({subscriptionJson(u"sub-one"_s)}));
    const PublishResult result = harness.publish(events(3));
    QCOMPARE(result.httpStatus, 200);
    QCOMPARE(result.accepted, 3);
    // SPEC D2: sent without advancing the clock at all.
    QCOMPARE(harness.network.sent.size(), 3);
    QCOMPARE(harness.subscription(u"sub-one"_s).delivered, quint64(3));
    QVERIFY(harness.engine->flush().hasValue());
    auto unfinished = harness.store->loadUnfinishedDeliveries();
    QVERIFY(unfinished.hasValue());
    QCOMPARE(unfinished->size(), 0);
}

void tst_Engine::d4d7_bodyAndHeaders()
{
    Harness harness(workspaceJson({subscriptionJson(u"sub-one"_s)}));
    harness.network.respondAlways(500);
    harness.publish(events(1));
    QCOMPARE(harness.network.sent.size(), 1);
    const auto &first = harness.network.sent.at(0);
    // SPEC D4: a JSON array even with one event.
    const QJsonDocument body = QJsonDocument::fromJson(first.body);
    QVERIFY(body.isArray());
    QCOMPARE(body.array().size(), 1);
    QCOMPARE(body.array().at(0)[u"id"_s].toString(), u"e0"_s);
    QCOMPARE(body.array().at(0)[u"metadataVersion"_s].toString(), u"1"_s);
    QCOMPARE(first.request.header(QNetworkRequest::ContentTypeHeader).toString(), u"application/json"_s);
    // SPEC D7
    QCOMPARE(first.header("aeg-event-type"), "Notification"_ba);
    QCOMPARE(first.header("aeg-subscription-name"), "SUB-ONE"_ba);
    QCOMPARE(first.header("aeg-delivery-count"), "0"_ba);
    QCOMPARE(first.header("aeg-data-version"), "2.0"_ba);
    QCOMPARE(first.header("aeg-metadata-version"), "1"_ba);
    // D5: redirects are failures, never followed.
    QCOMPARE(first.request.attribute(QNetworkRequest::RedirectPolicyAttribute).toInt(),
             int(QNetworkRequest::ManualRedirectPolicy));

    harness.advance(10 * Second);
    QCOMPARE(harness.network.sent.size(), 2);
    QCOMPARE(harness.network.sent.at(1).header("aeg-delivery-count"), "1"_ba);
}

void tst_Engine::r9_workedExampleThroughEngine()
{
    // SPEC R9: TTL 30 min, 10 attempts, always 500, jitter off.
    const QJsonObject retry{{u"retryPolicy"_s, QJsonObject{{u"maxDeliveryAttempts"_s, 10},
                                                           {u"eventTimeToLiveInMinutes"_s, 30}}}};
    Harness harness(workspaceJson({subscriptionJson(u"sub-one"_s, retry)}));
    harness.network.setResponder([&harness](const FakeAccessManager::Sent &) {
        harness.sentAt.append(harness.clock.nowMs());
        return 500;
    });
    harness.publish(events(1));
    harness.advance(46 * Minute + 39 * Second);
    QCOMPARE(harness.sentTimes(),
             (QList<qint64>{0, 10 * Second, 40 * Second, 100 * Second, 400 * Second, 1000 * Second}));
    QVERIFY(harness.deadLetterFiles().isEmpty());
    // The seventh attempt would be due at 46:40: the TTL has expired, so it is dead-lettered then.
    harness.advance(1 * Second);
    QCOMPARE(harness.network.sent.size(), 6);
    const QJsonArray records = harness.deadLetterRecords();
    QCOMPARE(records.size(), 1);
    const QJsonObject record = records.at(0).toObject();
    QCOMPARE(record[u"deadLetterReason"_s].toString(), u"TimeToLiveExceeded"_s);
    QCOMPARE(record[u"deliveryAttempts"_s].toInt(), 6);
    QCOMPARE(record[u"lastDeliveryOutcome"_s].toString(), u"GenericError"_s);
    QCOMPARE(record[u"lastHttpStatusCode"_s].toInt(), 500);
    QCOMPARE(record[u"id"_s].toString(), u"e0"_s);
    // L6: the blob is named after the UTC hour of the write, not zero-padded.
    const QDateTime written = utcDateTime(T0 + 46 * Minute + 40 * Second);
    const QString expectedFolder = u"deadletters/SUB-ONE/%1/%2/%3/%4/"_s.arg(written.date().year())
                                       .arg(written.date().month())
                                       .arg(written.date().day())
                                       .arg(written.time().hour());
    QVERIFY2(harness.deadLetterFiles().at(0).contains(expectedFolder),
             qPrintable(harness.deadLetterFiles().at(0)));
    QCOMPARE(harness.subscription(u"sub-one"_s).deadLetteredByReason.value(DeadLetterReason::TimeToLiveExceeded),
             quint64(1));
}

void tst_Engine::r2_noRetryDeadLettersAfterDelay()
{
    Harness harness(workspaceJson({subscriptionJson(u"sub-one"_s)}));
    harness.network.respondAlways(400);
    harness.publish(events(2));
    QCOMPARE(harness.network.sent.size(), 2);
    // SPEC L3: written 5 min after the last attempt, not before.
    harness.advance(5 * Minute - Second);
    QVERIFY(harness.deadLetterFiles().isEmpty());
    QCOMPARE(harness.subscription(u"sub-one"_s).deadLetterPending, 2);
    harness.advance(Second);
    const QJsonArray records = harness.deadLetterRecords();
    QCOMPARE(records.size(), 2);
    QCOMPARE(harness.deadLetterFiles().size(), 1); // written together (L3)
    QCOMPARE(records.at(0)[u"deadLetterReason"_s].toString(), u"UndeliverableDueToHttpBadRequest"_s);
    QCOMPARE(records.at(0)[u"deliveryAttempts"_s].toInt(), 1);
    QCOMPARE(harness.network.sent.size(), 2); // R2: never retried
    QVERIFY(harness.engine->flush().hasValue());
    auto index = harness.store->deadLetters(DeadLetterQuery{});
    QVERIFY(index.hasValue());
    QCOMPARE(index->size(), 2);
}

void tst_Engine::l1_dropWithoutDestination()
{
    QJsonObject subscription = subscriptionJson(u"sub-one"_s);
    QJsonObject properties = subscription[u"properties"_s].toObject();
    properties.remove(u"deadLetterDestination"_s);
    subscription[u"properties"_s] = properties;
    Harness harness(workspaceJson({subscription}));
    harness.network.respondAlways(403);
    harness.publish(events(1));
    harness.advance(10 * Minute);
    QVERIFY(harness.deadLetterFiles().isEmpty());
    QCOMPARE(harness.subscription(u"sub-one"_s).droppedByReason.value(DeadLetterReason::UndeliverableDueToHttpForbidden),
             quint64(1));
    QVERIFY(harness.engine->flush().hasValue());
    auto dropped = harness.store->droppedDeliveries(10);
    QVERIFY(dropped.hasValue());
    QCOMPARE(dropped->size(), 1);
    QCOMPARE(dropped->at(0).eventId, u"e0"_s);
    QCOMPARE(dropped->at(0).reason, DeadLetterReason::UndeliverableDueToHttpForbidden);
}

void tst_Engine::b3b5_batchesRespectLimits()
{
    const QJsonObject batching{{u"maxEventsPerBatch"_s, 10}, {u"preferredBatchSizeInKilobytes"_s, 64}};
    Harness harness(workspaceJson({subscriptionJson(u"sub-one"_s, {}, batching)}));
    harness.publish(events(25));
    QList<int> sizes;
    for (const auto &sent : std::as_const(harness.network.sent))
        sizes.append(int(QJsonDocument::fromJson(sent.body).array().size()));
    // SPEC B3 (never more than 10) and B5 (what is ready goes now, the last batch is partial).
    QCOMPARE(sizes, (QList<int>{10, 10, 5}));
    QCOMPARE(harness.subscription(u"sub-one"_s).delivered, quint64(25));
}

void tst_Engine::b6_failedBatchRetriesEachEvent()
{
    const QJsonObject batching{{u"maxEventsPerBatch"_s, 5}};
    Harness harness(workspaceJson({subscriptionJson(u"sub-one"_s, {}, batching)}));
    int calls = 0;
    harness.network.setResponder([&calls](const FakeAccessManager::Sent &) { return ++calls == 1 ? 503 : 200; });
    harness.publish(events(5));
    QCOMPARE(harness.network.sent.size(), 1);
    QCOMPARE(harness.subscription(u"sub-one"_s).failedByOutcome.value(DeliveryOutcome::Busy), quint64(5));
    // SPEC R4: 503 waits at least 30 s; every event of the batch counts the attempt.
    harness.advance(29 * Second);
    QCOMPARE(harness.network.sent.size(), 1);
    harness.advance(Second);
    QCOMPARE(harness.network.sent.size(), 2);
    QCOMPARE(harness.network.sent.at(1).header("aeg-delivery-count"), "1"_ba);
    QCOMPARE(QJsonDocument::fromJson(harness.network.sent.at(1).body).array().size(), 5);
    QCOMPARE(harness.subscription(u"sub-one"_s).delivered, quint64(5));
}

void tst_Engine::d6_timeoutThenLateSuccessCancelsRetry()
{
    Harness harness(workspaceJson({subscriptionJson(u"sub-one"_s)}));
    harness.network.respondAlways(0); // hang
    harness.publish(events(1));
    QCOMPARE(harness.network.sent.size(), 1);
    harness.advance(30 * Second);
    // SPEC D6: failed with TimedOut at 30 s, a retry scheduled (10 s later), request still open.
    QCOMPARE(harness.subscription(u"sub-one"_s).failedByOutcome.value(DeliveryOutcome::TimedOut), quint64(1));
    QVERIFY(harness.network.sent.at(0).reply && harness.network.sent.at(0).reply->isHanging());
    harness.advance(5 * Second);
    harness.network.sent.at(0).reply->finishWithStatus(200);
    harness.settle();
    QCOMPARE(harness.subscription(u"sub-one"_s).delivered, quint64(1));
    harness.advance(10 * Minute);
    QCOMPARE(harness.network.sent.size(), 1); // the retry was cancelled
}

void tst_Engine::d6_abortAfterLateWindow()
{
    Harness harness(workspaceJson({subscriptionJson(u"sub-one"_s)}));
    harness.network.respondAlways(0);
    harness.publish(events(1));
    QPointer<FakeReply> first = harness.network.sent.at(0).reply;
    harness.advance(3 * Minute - Second);
    QVERIFY(first && first->isHanging());
    harness.advance(Second);
    // At 3 min the request is abandoned (Aborted).
    QVERIFY(!first || !first->isHanging());
    QVERIFY(harness.engine->flush().hasValue());
    auto log = harness.store->attemptLog(100);
    QVERIFY(log.hasValue());
    bool sawAborted = false;
    for (const AttemptLogEntry &entry : std::as_const(log.value()))
        sawAborted = sawAborted || entry.outcome == DeliveryOutcome::Aborted;
    QVERIFY(sawAborted);
}

void tst_Engine::p3p4_probationDefersAndProbes()
{
    Harness harness(workspaceJson({subscriptionJson(u"sub-one"_s)}, {{u"probationThreshold"_s, 3}}));
    harness.network.respondAlways(503);
    harness.publish(events(3));
    // Three consecutive Busy failures: probation for 10 s (SPEC P1, P2).
    SubscriptionSnapshot state = harness.subscription(u"sub-one"_s);
    QCOMPARE(state.probationState, ProbationTracker::State::InProbation);
    QCOMPARE(state.probationCause, DeliveryOutcome::Busy);
    QCOMPARE(state.probationUntilMs, T0 + 10 * Second);
    QCOMPARE(state.consecutiveFailures, 3);

    // Events published during probation wait (P3/P4: not sent, not lost).
    harness.publish(events(2, u"late"_s));
    QCOMPARE(harness.network.sent.size(), 3);

    // At 10 s the probation ends: exactly one request is tried first (half-open) and fails again.
    harness.advance(10 * Second);
    QCOMPARE(harness.network.sent.size(), 4);
    state = harness.subscription(u"sub-one"_s);
    QCOMPARE(state.probationState, ProbationTracker::State::InProbation);
    QCOMPARE(state.probationUntilMs, T0 + 10 * Second + 20 * Second); // doubled (P4)

    // Then the endpoint recovers: the probe succeeds and the backlog flows.
    harness.network.respondAlways(200);
    harness.advance(20 * Second);
    harness.advance(30 * Second);
    state = harness.subscription(u"sub-one"_s);
    QCOMPARE(state.probationState, ProbationTracker::State::Healthy);
    QCOMPARE(state.delivered, quint64(5));
    QCOMPARE(state.backlog, 0);
}

void tst_Engine::p3r7_deferredUntilTtlRanOut_outcomeIsProbation()
{
    // An event published while its subscription is in probation is deferred (P3, not an
    // attempt); when its TTL has run out by the time probation ends (R7) it is dead-lettered
    // with 0 attempts and lastDeliveryOutcome Probation: it was never sent, so nothing else
    // (least of all "Delivering") describes why.
    const QJsonObject ttlOneMinute{{u"retryPolicy"_s, QJsonObject{{u"eventTimeToLiveInMinutes"_s, 1}}}};
    Harness harness(workspaceJson({subscriptionJson(u"sub-one"_s, ttlOneMinute)},
                                  {{u"probationThreshold"_s, 1}, {u"deadLetterDelaySeconds"_s, 0}}));
    harness.network.respondAlways(404);
    harness.publish(events(1));
    QCOMPARE(harness.subscription(u"sub-one"_s).probationCause, DeliveryOutcome::NotFound); // 5 min
    harness.publish(events(1, u"late"_s));
    harness.advance(5 * 60 * Second + Second);
    harness.advance(Second);
    QCOMPARE(harness.network.sent.size(), 1);
    const QJsonObject record = harness.deadLetterRecord(u"late0"_s);
    QVERIFY(!record.isEmpty());
    QCOMPARE(record[u"deadLetterReason"_s].toString(), u"TimeToLiveExceeded"_s);
    QCOMPARE(record[u"deliveryAttempts"_s].toInt(), 0);
    QCOMPARE(record[u"lastDeliveryOutcome"_s].toString(), u"Probation"_s);
}

void tst_Engine::p3_noRetryProbationDeadLettersWithoutAttempt()
{
    Harness harness(workspaceJson({subscriptionJson(u"sub-one"_s)},
                                  {{u"probationThreshold"_s, 2}, {u"deadLetterDelaySeconds"_s, 0}}));
    harness.network.respondAlways(401);
    harness.publish(events(2));
    QCOMPARE(harness.subscription(u"sub-one"_s).probationCause, DeliveryOutcome::Unauthorized);
    harness.publish(events(1, u"during"_s));
    harness.settle();
    // SPEC P3: dead-lettered without an attempt, lastDeliveryOutcome Probation.
    QCOMPARE(harness.network.sent.size(), 2);
    harness.advance(Second);
    const QJsonObject record = harness.deadLetterRecord(u"during0"_s);
    QVERIFY(!record.isEmpty());
    QCOMPARE(record[u"lastDeliveryOutcome"_s].toString(), u"Probation"_s);
    QCOMPARE(record[u"deliveryAttempts"_s].toInt(), 0);
}

void tst_Engine::p5_backlogInProbationIsOneHeapEntry()
{
    Harness harness(workspaceJson({subscriptionJson(u"sub-one"_s)}, {{u"probationThreshold"_s, 1}}));
    harness.network.respondAlways(-int(QNetworkReply::ConnectionRefusedError));
    harness.publish(events(1));
    QCOMPARE(harness.subscription(u"sub-one"_s).probationCause, DeliveryOutcome::SocketError);
    harness.publish(events(500, u"backlog"_s));
    // SPEC P5: the only wake-up is the end of the probation (30 s for SocketError), however large
    // the backlog, and nothing is sent before it.
    QCOMPARE(harness.clock.alarmAtMs(), T0 + 30 * Second);
    QCOMPARE(harness.network.sent.size(), 1);
    QCOMPARE(harness.subscription(u"sub-one"_s).backlog, 501);
}

void tst_Engine::h_customHeaders()
{
    const QJsonObject destination{
        {u"deliveryAttributeMappings"_s,
         QJsonArray{QJsonObject{{u"name"_s, u"X-Static"_s}, {u"type"_s, u"Static"_s},
                                {u"properties"_s, QJsonObject{{u"value"_s, u"fixed"_s}, {u"isSecret"_s, false}}}},
                    QJsonObject{{u"name"_s, u"X-Secret"_s}, {u"type"_s, u"Static"_s},
                                {u"properties"_s, QJsonObject{{u"isSecret"_s, true}}}},
                    QJsonObject{{u"name"_s, u"X-Key"_s}, {u"type"_s, u"Dynamic"_s},
                                {u"properties"_s, QJsonObject{{u"sourceField"_s, u"data.key1"_s}}}},
                    QJsonObject{{u"name"_s, u"X-Amount"_s}, {u"type"_s, u"Dynamic"_s},
                                {u"properties"_s, QJsonObject{{u"sourceField"_s, u"data.amount"_s}}}},
                    QJsonObject{{u"name"_s, u"X-Missing"_s}, {u"type"_s, u"Dynamic"_s},
                                {u"properties"_s, QJsonObject{{u"sourceField"_s, u"data.nothing"_s}}}}}}};
    Harness harness(workspaceJson({subscriptionJson(u"sub-one"_s, {}, destination)}));
    harness.engine->setSecretResolver([](const QString &, const QString &, const QString &header) {
        return header == u"X-Secret"_s ? u"s3cret"_s : QString();
    });
    harness.publish(events(2));
    QCOMPARE(harness.network.sent.size(), 2);
    const auto &second = harness.network.sent.at(1);
    QCOMPARE(second.header("X-Static"), "fixed"_ba);
    QCOMPARE(second.header("X-Secret"), "s3cret"_ba); // SPEC H2
    QCOMPARE(second.header("X-Key"), "v1"_ba); // SPEC H3
    QCOMPARE(second.header("X-Amount"), "1"_ba);
    QVERIFY(!second.request.hasRawHeader("X-Missing"));
}

void tst_Engine::filters_onlyMatchingSubscriptionsGetDeliveries()
{
    const QJsonObject createdOnly{{u"filter"_s, QJsonObject{{u"includedEventTypes"_s, QJsonArray{u"Order.Created"_s}}}}};
    const QJsonObject bigOnly{{u"filter"_s, QJsonObject{{u"advancedFilters"_s,
                                                         QJsonArray{QJsonObject{{u"operatorType"_s, u"NumberGreaterThanOrEquals"_s},
                                                                                {u"key"_s, u"data.amount"_s},
                                                                                {u"value"_s, 8}}}}}}};
    Harness harness(workspaceJson({subscriptionJson(u"created"_s, createdOnly), subscriptionJson(u"big"_s, bigOnly)}));
    harness.publish(events(10));
    harness.publish(events(3, u"x"_s, u"Order.Deleted"_s));
    QCOMPARE(harness.subscription(u"created"_s).matched, quint64(10));
    QCOMPARE(harness.subscription(u"big"_s).matched, quint64(2)); // amounts 8 and 9
    const EngineSnapshot snapshot = harness.engine->snapshot();
    QCOMPARE(snapshot.topics.size(), 1);
    QCOMPARE(snapshot.topics.at(0).published, quint64(13));
    QCOMPARE(snapshot.topics.at(0).unmatched, quint64(3));
}

void tst_Engine::d1_restartResumesPendingDeliveries()
{
    Harness harness(workspaceJson({subscriptionJson(u"sub-one"_s)}));
    harness.network.respondAlways(500);
    harness.publish(events(4));
    QCOMPARE(harness.network.sent.size(), 4);
    harness.stopEngine();

    harness.network.respondAlways(200);
    harness.startEngine();
    QCOMPARE(harness.subscription(u"sub-one"_s).backlog, 4);
    harness.advance(10 * Second);
    QCOMPARE(harness.network.sent.size(), 8);
    QCOMPARE(harness.network.sent.at(7).header("aeg-delivery-count"), "1"_ba); // attempts survived
    QCOMPARE(harness.subscription(u"sub-one"_s).delivered, quint64(4));
}

void tst_Engine::l4_unavailableContainerRetriedThenDropped()
{
    Harness harness(workspaceJson({subscriptionJson(u"sub-one"_s)}, {{u"deadLetterDelaySeconds"_s, 0}}));
    QVERIFY(QDir(harness.sink->containerPath(u"deadletters"_s)).removeRecursively());
    harness.network.respondAlways(400);
    harness.publish(events(1));
    harness.advance(Minute);
    QCOMPARE(harness.subscription(u"sub-one"_s).deadLetterPending, 1);
    // The container comes back: the next write try succeeds.
    QVERIFY(QDir().mkpath(harness.sink->containerPath(u"deadletters"_s)));
    harness.advance(Minute);
    QCOMPARE(harness.deadLetterRecords().size(), 1);

    // Gone for good: after 4 h of unavailability the event is dropped with that reason.
    QVERIFY(QDir(harness.sink->containerPath(u"deadletters"_s)).removeRecursively());
    harness.publish(events(1, u"second"_s));
    harness.advance(4 * 60 * Minute - 2 * Minute);
    QCOMPARE(harness.subscription(u"sub-one"_s).deadLetterPending, 1);
    harness.advance(3 * Minute);
    QCOMPARE(harness.subscription(u"sub-one"_s).deadLetterPending, 0);
    QCOMPARE(harness.subscription(u"sub-one"_s).droppedByReason.value(DeadLetterReason::DeadLetterDestinationUnavailable),
             quint64(1));
}

void tst_Engine::resubmit_keepsIdWithFreshAttempts()
{
    Harness harness(workspaceJson({subscriptionJson(u"sub-one"_s)}, {{u"deadLetterDelaySeconds"_s, 0}}));
    harness.network.respondAlways(413);
    harness.publish(events(1));
    harness.advance(Second);
    QVERIFY(harness.engine->flush().hasValue());
    auto letters = harness.store->deadLetters(DeadLetterQuery{});
    QVERIFY(letters.hasValue());
    QCOMPARE(letters->size(), 1);
    QCOMPARE(letters->at(0).reason, DeadLetterReason::UndeliverableDueToHttpPayloadTooLarge);

    harness.network.respondAlways(200);
    const ResubmitResult result = harness.engine->resubmitDeadLetters({letters->at(0).id});
    QCOMPARE(result.resubmitted, 1);
    QVERIFY(result.errors.isEmpty());
    harness.settle();
    QCOMPARE(harness.network.sent.size(), 2);
    const auto &resent = harness.network.sent.at(1);
    QCOMPARE(resent.header("aeg-delivery-count"), "0"_ba); // fresh attempt count
    QCOMPARE(QJsonDocument::fromJson(resent.body).array().at(0)[u"id"_s].toString(), u"e0"_s);
    QVERIFY(harness.engine->flush().hasValue());
    QCOMPARE(harness.store->countDeadLetters(DeadLetterQuery{}).value(), qint64(0));
}

void tst_Engine::deletedSubscriptionDropsBacklog()
{
    Harness harness(workspaceJson({subscriptionJson(u"keep"_s), subscriptionJson(u"gone"_s)}));
    harness.network.respondAlways(500);
    harness.publish(events(3));
    auto reduced = Workspace::fromJson(workspaceJson({subscriptionJson(u"keep"_s)}), u"workspace.json"_s);
    QVERIFY(reduced.hasValue());
    QVERIFY(harness.engine->applyWorkspace(reduced.value()).hasValue());
    QVERIFY(harness.engine->flush().hasValue());
    auto dropped = harness.store->droppedDeliveries(10);
    QVERIFY(dropped.hasValue());
    QCOMPARE(dropped->size(), 3);
    QCOMPARE(dropped->at(0).reason, DeadLetterReason::SubscriptionDeleted);
    QCOMPARE(harness.subscription(u"keep"_s).backlog, 3);
}

// A store of one engine: the workspace is the whole configuration, so a delivery whose
// subscription is gone at start is dropped at once (no grace, nothing parked).
void tst_Engine::deletedSubscriptionDroppedAtRestart()
{
    Harness harness(workspaceJson({subscriptionJson(u"keep"_s), subscriptionJson(u"gone"_s)}));
    harness.network.respondAlways(500);
    harness.publish(events(2));
    harness.stopEngine();
    auto reduced
        = Workspace::fromJson(workspaceJson({subscriptionJson(u"keep"_s)}), u"workspace.json"_s);
    QVERIFY(reduced.hasValue());
    harness.workspace = reduced.value();
    harness.startEngine();
    QCOMPARE(harness.engine->snapshot().parkedDeliveries, 0);
    QVERIFY(harness.engine->flush().hasValue());
    auto dropped = harness.store->droppedDeliveries(10);
    QVERIFY(dropped.hasValue());
    QCOMPARE(dropped->size(), 2);
    for (const DroppedEntry &entry : std::as_const(dropped.value()))
        QCOMPARE(entry.reason, DeadLetterReason::SubscriptionDeleted);
    QCOMPARE(harness.subscription(u"keep"_s).backlog, 2);
}

void tst_Engine::publish_rejectedRequestStoresNothing()
{
    Harness harness(workspaceJson({subscriptionJson(u"sub-one"_s)}));
    const QByteArray batch = "[{\"id\":\"ok\",\"subject\":\"s\",\"eventType\":\"t\",\"eventTime\":\"2024-01-01T00:00:00Z\",\"dataVersion\":\"1\"},"
            "{\"id\":\"bad\",\"subject\":\"s\",\"eventType\":7,\"eventTime\":\"2024-01-01T00:00:00Z\",\"dataVersion\":\"1\"}]";
    const PublishResult result = harness.publish(batch);
    QCOMPARE(result.httpStatus, 400);
    QVERIFY2(result.errorMessage.contains(u"[1]"_s) && result.errorMessage.contains(u"eventType"_s),
             qPrintable(result.errorMessage));
    QCOMPARE(harness.network.sent.size(), 0);
    QVERIFY(harness.engine->flush().hasValue());
    QCOMPARE(harness.store->loadUnfinishedDeliveries()->size(), 0);
    const PublishResult unknown = harness.engine->publish(u"nope"_s, events(1), "application/json");
    QCOMPARE(unknown.httpStatus, 404);
    // The engine keeps working after rejections.
    QCOMPARE(harness.publish(events(1)).httpStatus, 200);
    QCOMPARE(harness.network.sent.size(), 1);
}

QTEST_GUILESS_MAIN(tst_Engine)
#include "tst_engine.moc"
