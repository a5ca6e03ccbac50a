// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// Subscriptions waiting for the keychain (Engine::setSecretsPending, docs/eventdeskd.md "Secrets"):
// on a manual clock and a fake access manager, a subscription whose secret has not come is held -
// not attempted, not counted, one alarm for its whole backlog (SPEC P5) - while every other one
// delivers; its held deliveries' TTL runs (SPEC R6/R7) and they go out as soon as it answers.

#include "FakeNetwork.h"
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

constexpr qint64 T0 = 1'700'000'000'000;
constexpr qint64 Minute = 60'000;

// "plain" needs no secret; "signed" has a secret delivery header (SPEC H2). TTL in minutes.
QByteArray workspaceJson(int signedTtlMinutes)
{
    const auto subscription = [](const QString &name, const QJsonObject &extra) {
        QJsonObject destination {{u"endpointUrl"_s, u"http://receiver.test/%1"_s.arg(name)}};
        for (auto it = extra.begin(); it != extra.end(); ++it)
            destination.insert(it.key(), it.value());
        return QJsonObject {
            {u"name"_s, name},
            {u"properties"_s,
             QJsonObject {
                 {u"destination"_s,
                  QJsonObject {{u"endpointType"_s, u"WebHook"_s}, {u"properties"_s, destination}}},
                 {u"retryPolicy"_s, QJsonObject {{u"eventTimeToLiveInMinutes"_s, 1440}}},
                 {u"deadLetterDestination"_s,
                  QJsonObject {{u"endpointType"_s, u"StorageBlob"_s},
                               {u"properties"_s,
                                QJsonObject {{u"resourceId"_s, u"local"_s},
                                             {u"blobContainerName"_s, u"deadletters"_s}}}}},
                 {u"x-eventdesk"_s, QJsonObject {{u"validation"_s, false}}}}}};
    };
    QJsonObject secretHeader {
        {u"deliveryAttributeMappings"_s,
         QJsonArray {QJsonObject {{u"name"_s, u"X-Api-Key"_s},
                                  {u"type"_s, u"Static"_s},
                                  {u"properties"_s, QJsonObject {{u"isSecret"_s, true}}}}}}};
    QJsonObject signedSubscription = subscription(u"signed"_s, secretHeader);
    QJsonObject properties = signedSubscription[u"properties"_s].toObject();
    properties[u"retryPolicy"_s] = QJsonObject {{u"eventTimeToLiveInMinutes"_s, signedTtlMinutes}};
    signedSubscription[u"properties"_s] = properties;
    const QJsonObject topic {
        {u"name"_s, u"orders"_s},
        {u"inputSchema"_s, u"EventGridSchema"_s},
        {u"eventSubscriptions"_s, QJsonArray {subscription(u"plain"_s, {}), signedSubscription}}};
    return QJsonDocument(
               QJsonObject {{u"topics"_s, QJsonArray {topic}},
                            {u"settings"_s, QJsonObject {{u"deadLetterDelaySeconds"_s, 0}}}})
        .toJson();
}

QByteArray events(int count)
{
    QJsonArray array;
    for (int i = 0; i < count; ++i) {
        array.append(QJsonObject {{u"id"_s, u"e%1"_s.arg(i)},
                                  {u"subject"_s, u"/orders/%1"_s.arg(i)},
                                  {u"eventType"_s, u"Order.Created"_s},
                                  {u"eventTime"_s, u"2024-05-01T10:00:00Z"_s},
                                  {u"dataVersion"_s, u"2.0"_s},
                                  {u"data"_s, QJsonObject {{u"amount"_s, i}}}});
    }
    return QJsonDocument(array).toJson(QJsonDocument::Compact);
}

// The engine of workspaceJson() whose "signed" subscription waits while `waiting` is true; its
// secret, once answered, is "s3cret".
struct Bench
{
    explicit Bench(int signedTtlMinutes = 1440)
    {
        auto parsed = Workspace::fromJson(workspaceJson(signedTtlMinutes), u"workspace.json"_s);
        if (!parsed)
            qFatal("test workspace invalid: %s", qPrintable(parsed.error()));
        workspace = parsed.value();
        if (auto prepared
            = WorkspaceFolder::prepareDeadLetterContainers(directory.path(), workspace);
            !prepared)
            qFatal("%s", qPrintable(prepared.error()));
        sink = std::make_unique<FolderDeadLetterSink>(
            WorkspaceFolder::deadLetterRoot(directory.path()));
        if (auto opened = store.open(directory.filePath(u"eventdesk.db"_s)); !opened)
            qFatal("%s", qPrintable(opened.error()));
        network.respondAlways(200);
        EngineOptions options;
        options.jitter = false;
        engine = std::make_unique<Engine>(&clock, &network, &store, sink.get(), options);
        engine->setSecretResolver(
            [this](const QString &, const QString &subscription, const QString &) {
                return !waiting && subscription == u"signed"_s ? u"s3cret"_s : QString();
            });
        engine->setSecretsPending([this](const QString &, const EventSubscription &subscription) {
            return waiting && subscription.name == u"signed"_s;
        });
        if (auto started = engine->start(workspace); !started)
            qFatal("%s", qPrintable(started.error()));
    }
    ~Bench()
    {
        engine->shutdown();
        engine.reset();
        store.close();
    }

    void settle()
    {
        for (int i = 0; i < 6; ++i) {
            clock.advanceMs(0);
            QCoreApplication::processEvents();
        }
    }
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
    QList<FakeAccessManager::Sent> sentTo(const QString &name) const
    {
        QList<FakeAccessManager::Sent> result;
        for (const FakeAccessManager::Sent &sent : network.sent) {
            if (sent.request.url().path() == u'/' + name)
                result.append(sent);
        }
        return result;
    }
    SubscriptionSnapshot state(const QString &name) const
    {
        const EngineSnapshot snapshot = engine->snapshot();
        for (const SubscriptionSnapshot &subscription : snapshot.subscriptions) {
            if (subscription.subscription == name)
                return subscription;
        }
        return {};
    }
    QJsonArray deadLetterRecords() const
    {
        QJsonArray all;
        QDirIterator it(WorkspaceFolder::deadLetterRoot(directory.path()), {u"*.json"_s},
                        QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            QFile file(it.next());
            if (!file.open(QIODevice::ReadOnly))
                continue;
            const QJsonArray records = QJsonDocument::fromJson(file.readAll()).array();
            for (const QJsonValue &record : records)
                all.append(record);
        }
        return all;
    }

    bool waiting = true;
    QTemporaryDir directory;
    Workspace workspace;
    ManualClock clock {T0};
    FakeAccessManager network;
    SqliteDeliveryStore store;
    std::unique_ptr<FolderDeadLetterSink> sink;
    std::unique_ptr<Engine> engine;
};

} // namespace

class tst_SecretsPending : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void othersDeliverWhileOneWaits();
    void heldUntilAnsweredThenDeliveredAsFirstAttempts();
    void timeToLiveRunsWhileWaiting();
    void changedWorkspaceAsksAgain();
};

void tst_SecretsPending::othersDeliverWhileOneWaits()
{
    Bench bench;
    const PublishResult result = bench.engine->publish(u"orders"_s, events(3), "application/json");
    QCOMPARE(result.httpStatus, 200);
    bench.settle();

    QCOMPARE(bench.sentTo(u"plain"_s).size(), 3);
    QCOMPARE(bench.state(u"plain"_s).delivered, quint64(3));
    QVERIFY(!bench.state(u"plain"_s).awaitingSecrets);
    QVERIFY(bench.sentTo(u"signed"_s).isEmpty());
    const SubscriptionSnapshot waiting = bench.state(u"signed"_s);
    QVERIFY(waiting.awaitingSecrets);
    QCOMPARE(waiting.backlog, 3);
    QCOMPARE(waiting.held, 3);
    QCOMPARE(waiting.requests, quint64(0));
    QVERIFY(waiting.failedByOutcome.isEmpty());
    // SPEC P5: the held backlog costs one alarm, at the earliest TTL end, not one per event or
    // a poll; nothing else is due.
    QCOMPARE(bench.clock.alarmAtMs(), T0 + 1440 * Minute);
}

void tst_SecretsPending::heldUntilAnsweredThenDeliveredAsFirstAttempts()
{
    Bench bench;
    QCOMPARE(bench.engine->publish(u"orders"_s, events(2), "application/json").httpStatus, 200);
    bench.advance(90 * Minute);
    QVERIFY(bench.sentTo(u"signed"_s).isEmpty());
    QCOMPARE(bench.state(u"signed"_s).held, 2);

    bench.waiting = false;
    bench.engine->secretsAnswered();
    bench.settle();
    const QList<FakeAccessManager::Sent> sent = bench.sentTo(u"signed"_s);
    QCOMPARE(sent.size(), 2);
    for (const FakeAccessManager::Sent &request : sent) {
        // Waiting was not an attempt: each is the first (SPEC D7 aeg-delivery-count 0), with its
        // secret header.
        QCOMPARE(request.header("aeg-delivery-count"), QByteArray("0"));
        QCOMPARE(request.header("X-Api-Key"), QByteArray("s3cret"));
    }
    const SubscriptionSnapshot answered = bench.state(u"signed"_s);
    QVERIFY(!answered.awaitingSecrets);
    QCOMPARE(answered.held, 0);
    QCOMPARE(answered.delivered, quint64(2));
}

void tst_SecretsPending::timeToLiveRunsWhileWaiting()
{
    Bench bench(30);
    QCOMPARE(bench.engine->publish(u"orders"_s, events(1), "application/json").httpStatus, 200);
    bench.advance(29 * Minute);
    QCOMPARE(bench.state(u"signed"_s).held, 1);
    QVERIFY(bench.deadLetterRecords().isEmpty());

    bench.advance(2 * Minute);
    QVERIFY(bench.sentTo(u"signed"_s).isEmpty());
    const QJsonArray records = bench.deadLetterRecords();
    QCOMPARE(records.size(), 1);
    const QJsonObject record = records.first().toObject();
    QCOMPARE(record[u"deadLetterReason"_s].toString(), u"TimeToLiveExceeded"_s);
    QCOMPARE(record[u"lastDeliveryOutcome"_s].toString(), u"KeychainPending"_s);
    QCOMPARE(record[u"deliveryAttempts"_s].toInt(), 0);
    QCOMPARE(bench.state(u"signed"_s).backlog, 0);
}

void tst_SecretsPending::changedWorkspaceAsksAgain()
{
    Bench bench;
    QCOMPARE(bench.engine->publish(u"orders"_s, events(1), "application/json").httpStatus, 200);
    bench.settle();
    QVERIFY(bench.state(u"signed"_s).awaitingSecrets);
    // The workspace is applied again (an edit) after the secret came: the answer counts there too.
    bench.waiting = false;
    QVERIFY(bench.engine->applyWorkspace(bench.workspace).hasValue());
    bench.settle();
    QVERIFY(!bench.state(u"signed"_s).awaitingSecrets);
    QCOMPARE(bench.sentTo(u"signed"_s).size(), 1);
}

QTEST_GUILESS_MAIN(tst_SecretsPending)
#include "tst_secretspending.moc"
