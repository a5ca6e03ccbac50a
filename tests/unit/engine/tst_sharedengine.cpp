// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// Two engines on one PostgreSQL store (issue 21), each on a manual clock of its own and a fake
// access manager: what DeliveryClaims does at the engine's level. Who attempts what, the takeover
// of a dead instance's deliveries with their attempts and due times (SPEC R3, R8 go on), and an
// instance that comes back after its lease ran out: its late answers change nothing and it
// registers anew. An instance is made dead by moving its heartbeat back in the store (the server's
// clock judges leases), so no test waits for a lease. Deliveries claimed for a subscription the
// instance's configuration does not have yet are parked until it does, or dropped after a grace.

#include "FakeNetwork.h"
#include "PostgresServer.h"
#include "deadletters/FolderDeadLetterSink.h"
#include "engine/Clock.h"
#include "engine/DeliveryClaims.h"
#include "engine/Engine.h"
#include "store/postgres/PostgresDeliveryStore.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using EventDesk::Testing::PostgresServer;

namespace {

constexpr qint64 T0 = 1'700'000'000'000;
constexpr qint64 Second = 1000;

// Topic "orders" with these webhook subscriptions, each posting to http://receiver.test/<name>.
Workspace testWorkspace(const QStringList &subscriptionNames = {u"sub-one"_s})
{
    QJsonArray subscriptions;
    for (const QString &name : subscriptionNames) {
        subscriptions.append(QJsonObject {
            {u"name"_s, name},
            {u"properties"_s,
             QJsonObject {{u"destination"_s,
                           QJsonObject {{u"endpointType"_s, u"WebHook"_s},
                                        {u"properties"_s,
                                         QJsonObject {{u"endpointUrl"_s,
                                                       u"http://receiver.test/%1"_s.arg(name)}}}}},
                          {u"x-eventdesk"_s, QJsonObject {{u"validation"_s, false}}}}}});
    }
    const QJsonObject topic {{u"name"_s, u"orders"_s},
                             {u"inputSchema"_s, u"EventGridSchema"_s},
                             {u"eventSubscriptions"_s, subscriptions}};
    const QByteArray json = QJsonDocument(QJsonObject {{u"topics"_s, QJsonArray {topic}}}).toJson();
    auto parsed = Workspace::fromJson(json, u"workspace.json"_s);
    if (!parsed)
        qFatal("test workspace invalid: %s", qPrintable(parsed.error()));
    return parsed.value();
}

QByteArray events(const QStringList &ids)
{
    QJsonArray array;
    for (const QString &id : ids) {
        array.append(QJsonObject {{u"id"_s, id},
                                  {u"subject"_s, u"/orders"_s},
                                  {u"eventType"_s, u"Order.Created"_s},
                                  {u"eventTime"_s, u"2024-05-01T10:00:00Z"_s},
                                  {u"dataVersion"_s, u"1"_s},
                                  {u"data"_s, QJsonObject()}});
    }
    return QJsonDocument(array).toJson(QJsonDocument::Compact);
}

// One engine on the shared store: its own clock, access manager and dead-letter folder.
struct Instance
{
    explicit Instance(const QString &url, const Workspace &workspace = testWorkspace())
        : clock(T0)
    {
        const auto opened = store.open(url);
        if (!opened)
            qFatal("%s", qPrintable(opened.error()));
        sink = std::make_unique<FolderDeadLetterSink>(folder.path());
        EngineOptions options;
        options.jitter = false;
        engine = std::make_unique<Engine>(&clock, &network, &store, sink.get(), options);
        if (auto started = engine->start(workspace); !started)
            qFatal("%s", qPrintable(started.error()));
    }
    ~Instance() { engine->shutdown(); }

    void settle()
    {
        for (int i = 0; i < 6; ++i) {
            clock.advanceMs(0);
            QCoreApplication::processEvents();
        }
    }
    // Engine time forward alarm by alarm (the heartbeat's tick among them).
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
    int publish(const QStringList &ids)
    {
        const int status = engine->publish(u"orders"_s, events(ids), "application/json").httpStatus;
        settle();
        return status;
    }
    // The ids of the events sent, to one subscription's receiver or to all of them.
    QStringList sentEventIds(const QString &subscription = {}) const
    {
        QStringList ids;
        for (const FakeAccessManager::Sent &sent : network.sent) {
            if (!subscription.isEmpty()
                && sent.request.url().path() != QLatin1Char('/') + subscription)
                continue;
            for (const QJsonValue &event : QJsonDocument::fromJson(sent.body).array())
                ids.append(event[u"id"].toString());
        }
        ids.sort();
        return ids;
    }
    // Answers 503 to this subscription's receiver (its deliveries stay unfinished), 200 to others.
    void failFor(const QString &subscription)
    {
        network.setResponder([subscription](const FakeAccessManager::Sent &sent) {
            return sent.request.url().path() == QLatin1Char('/') + subscription ? 503 : 200;
        });
    }

    QTemporaryDir folder;
    ManualClock clock;
    FakeAccessManager network;
    PostgresDeliveryStore store;
    std::unique_ptr<FolderDeadLetterSink> sink;
    std::unique_ptr<Engine> engine;
};

} // namespace

class SharedEngineTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void eachInstanceAttemptsWhatItOwns();
    void takeoverKeepsAttemptsAndDueTimes();
    void instanceBackFromPauseChangesNothing();
    void unknownSubscriptionParkedUntilApplied();
    void unknownSubscriptionDroppedAfterGrace();
    void parkedDeliveriesOfDeadInstanceClaimed();

private:
    void makeDead(const QString &url, qint64 instance);
    QString count(const QString &url, const QByteArray &table);
    QList<DroppedEntry> dropped(Instance &instance);
    std::unique_ptr<PostgresServer> m_server;
    int m_databases = 0;
};

void SharedEngineTest::initTestCase()
{
    m_server = std::make_unique<PostgresServer>();
    QVERIFY2(m_server->isRunning(), qPrintable(m_server->errorText()));
}

void SharedEngineTest::makeDead(const QString &url, qint64 instance)
{
    QVERIFY(m_server->execute(url,
                              "UPDATE instances SET heartbeat = heartbeat - interval '1 hour'"
                              " WHERE id = "
                                  + QByteArray::number(instance)));
}

void SharedEngineTest::eachInstanceAttemptsWhatItOwns()
{
    const QString url = m_server->createDatabase(u"owners_%1"_s.arg(++m_databases));
    QVERIFY(!url.isEmpty());
    Instance first(url);
    Instance second(url);
    QVERIFY(first.engine->instanceId() > 0);
    QVERIFY(second.engine->instanceId() > 0);
    QVERIFY(first.engine->instanceId() != second.engine->instanceId());

    QCOMPARE(first.publish({u"a1"_s, u"a2"_s}), 200);
    QCOMPARE(second.publish({u"b1"_s}), 200);
    // Heartbeats and claims come and go: nobody takes what a live instance owns.
    for (int i = 0; i < 5; ++i) {
        first.advance(Second);
        second.advance(Second);
    }
    QCOMPARE(first.sentEventIds(), QStringList({u"a1"_s, u"a2"_s}));
    QCOMPARE(second.sentEventIds(), QStringList({u"b1"_s}));
    QVERIFY(first.engine->flush());
    QVERIFY(second.engine->flush());
    QString left;
    QVERIFY(m_server->execute(url, "SELECT count(*) FROM deliveries", &left));
    QCOMPARE(left, u"0"_s);
}

void SharedEngineTest::takeoverKeepsAttemptsAndDueTimes()
{
    const QString url = m_server->createDatabase(u"takeover_%1"_s.arg(++m_databases));
    QVERIFY(!url.isEmpty());
    Instance first(url);
    Instance second(url);
    // The first attempt fails (503): SPEC R3/R4, the next is due 30 s later.
    first.network.respondAlways(503);
    QCOMPARE(first.publish({u"e1"_s}), 200);
    QCOMPARE(first.network.sent.size(), 1);
    QVERIFY(first.engine->flush());

    makeDead(url, first.engine->instanceId());
    second.advance(Second); // its tick claims
    QCOMPARE(second.engine->snapshot().subscriptions.first().backlog, 1);
    QVERIFY(second.network.sent.isEmpty()); // not due yet: the retry time came along
    second.advance(30 * Second);
    QCOMPARE(second.network.sent.size(), 1);
    // The second attempt: one earlier attempt (aeg-delivery-count), counted on.
    QCOMPARE(second.network.sent.first().header("aeg-delivery-count"), QByteArray("1"));
    QVERIFY(second.engine->flush());
    QString left;
    QVERIFY(m_server->execute(url, "SELECT count(*) FROM deliveries", &left));
    QCOMPARE(left, u"0"_s);
    QString instances;
    QVERIFY(m_server->execute(
        url, "SELECT string_agg(DISTINCT instance::text, ',') FROM attempt_log", &instances));
    QCOMPARE(instances,
             u"%1,%2"_s.arg(first.engine->instanceId()).arg(second.engine->instanceId()));
}

void SharedEngineTest::instanceBackFromPauseChangesNothing()
{
    const QString url = m_server->createDatabase(u"paused_%1"_s.arg(++m_databases));
    QVERIFY(!url.isEmpty());
    Instance paused(url);
    Instance other(url);
    // Its request hangs; meanwhile its lease runs out and the other instance takes over.
    paused.network.respondAlways(0);
    QCOMPARE(paused.publish({u"e1"_s, u"e2"_s}), 200);
    QCOMPARE(paused.network.sent.size(), 2);
    const qint64 firstId = paused.engine->instanceId();
    makeDead(url, firstId);
    other.advance(Second);
    QCOMPARE(other.network.sent.size(), 2);
    QVERIFY(other.engine->flush());
    QString left;
    QVERIFY(m_server->execute(url, "SELECT count(*) FROM deliveries", &left));
    QCOMPARE(left, u"0"_s);

    // The late answers: failures it would retry, but the store fences them off and the instance
    // forgets the deliveries instead.
    for (const FakeAccessManager::Sent &sent : std::as_const(paused.network.sent))
        sent.reply->finishWithStatus(503);
    paused.settle();
    QVERIFY(paused.engine->flush());
    QCOMPARE(paused.engine->snapshot().subscriptions.first().backlog, 0);
    // Its next heartbeat finds the lease lost: it registers again.
    paused.advance(Second);
    QVERIFY(paused.engine->instanceId() != firstId);
    paused.advance(60 * Second); // no retry goes out
    QCOMPARE(paused.network.sent.size(), 2);
    QVERIFY(m_server->execute(url, "SELECT count(*) FROM deliveries", &left));
    QCOMPARE(left, u"0"_s);
    // It works on: what it accepts now it delivers.
    paused.network.respondAlways(200);
    QCOMPARE(paused.publish({u"e3"_s}), 200);
    QCOMPARE(paused.network.sent.size(), 3);
}

QString SharedEngineTest::count(const QString &url, const QByteArray &table)
{
    QString result;
    if (!m_server->execute(url, "SELECT count(*) FROM " + table, &result))
        return u"(query failed)"_s;
    return result;
}

QList<DroppedEntry> SharedEngineTest::dropped(Instance &instance)
{
    auto entries = instance.store.droppedDeliveries(100);
    if (!entries)
        qFatal("%s", qPrintable(entries.error()));
    return entries.value();
}

// Issue 21: the instance that stored deliveries for a new subscription stops before the other
// instance's poll applied the configuration with it. The other claims them during its run: they
// wait (not dropped, not attempted) and are delivered, once each, when the subscription arrives.
void SharedEngineTest::unknownSubscriptionParkedUntilApplied()
{
    const QString url = m_server->createDatabase(u"parked_%1"_s.arg(++m_databases));
    QVERIFY(!url.isEmpty());
    const Workspace withNew = testWorkspace({u"sub-one"_s, u"sub-new"_s});
    Instance first(url, withNew);
    Instance second(url, testWorkspace());
    first.failFor(u"sub-new"_s); // SPEC R3/R4: the next attempt of each is due 30 s later
    QCOMPARE(first.publish({u"e1"_s, u"e2"_s}), 200);
    QCOMPARE(first.sentEventIds(u"sub-new"_s), QStringList({u"e1"_s, u"e2"_s}));
    first.engine->shutdown(); // releases the two unfinished deliveries of sub-new
    QCOMPARE(count(url, "deliveries"), u"2"_s);

    second.advance(Second); // its tick claims them
    QCOMPARE(second.engine->snapshot().parkedDeliveries, 2);
    second.advance(5 * Second); // within the grace: kept, not attempted
    QCOMPARE(second.engine->snapshot().parkedDeliveries, 2);
    QVERIFY(second.network.sent.isEmpty());
    QVERIFY(second.engine->flush());
    QVERIFY(dropped(second).isEmpty());
    QCOMPARE(count(url, "deliveries"), u"2"_s);
    QString owner;
    QVERIFY(m_server->execute(url, "SELECT DISTINCT owner FROM deliveries", &owner));
    QCOMPARE(owner, QString::number(second.engine->instanceId())); // its rows now

    // Its configuration poll brings sub-new: the parked deliveries are adopted and go out when
    // due, their attempt count carried on.
    QVERIFY(second.engine->applyWorkspace(withNew));
    const EngineSnapshot applied = second.engine->snapshot();
    QCOMPARE(applied.parkedDeliveries, 0);
    QCOMPARE(applied.subscriptions.size(), 2);
    QCOMPARE(applied.subscriptions.at(1).subscription, u"sub-new"_s);
    QCOMPARE(applied.subscriptions.at(1).backlog, 2);
    second.advance(30 * Second);
    second.advance(60 * Second); // nothing more
    QCOMPARE(second.sentEventIds(u"sub-new"_s), QStringList({u"e1"_s, u"e2"_s}));
    QCOMPARE(second.network.sent.size(), 2);
    QCOMPARE(second.network.sent.first().header("aeg-delivery-count"), QByteArray("1"));
    QVERIFY(second.engine->flush());
    QCOMPARE(count(url, "deliveries"), u"0"_s);
    QVERIFY(dropped(second).isEmpty());
}

// A subscription that stays unknown was deleted: the deliveries claimed at start for it are
// dropped as SubscriptionDeleted once the grace is over, and the dropped log names them.
void SharedEngineTest::unknownSubscriptionDroppedAfterGrace()
{
    const QString url = m_server->createDatabase(u"grace_%1"_s.arg(++m_databases));
    QVERIFY(!url.isEmpty());
    Instance first(url, testWorkspace({u"sub-one"_s, u"sub-gone"_s}));
    first.failFor(u"sub-gone"_s);
    QCOMPARE(first.publish({u"e1"_s, u"e2"_s}), 200);
    QVERIFY(first.engine->flush());
    makeDead(url, first.engine->instanceId()); // it died

    Instance second(url, testWorkspace()); // claims at start
    QCOMPARE(second.engine->snapshot().parkedDeliveries, 2);
    second.advance(DeliveryClaims::UnknownSubscriptionGraceMs - Second);
    QCOMPARE(second.engine->snapshot().parkedDeliveries, 2);
    QVERIFY(second.engine->flush());
    QVERIFY(dropped(second).isEmpty());

    second.advance(2 * Second);
    QCOMPARE(second.engine->snapshot().parkedDeliveries, 0);
    QVERIFY(second.network.sent.isEmpty());
    QVERIFY(second.engine->flush());
    const QList<DroppedEntry> entries = dropped(second);
    QCOMPARE(entries.size(), 2);
    QStringList eventIds;
    for (const DroppedEntry &entry : entries) {
        QCOMPARE(entry.reason, DeadLetterReason::SubscriptionDeleted);
        QCOMPARE(entry.topic, u"orders"_s);
        QCOMPARE(entry.subscription, u"sub-gone"_s);
        QCOMPARE(entry.attempts, 1);
        eventIds.append(entry.eventId);
    }
    eventIds.sort();
    QCOMPARE(eventIds, QStringList({u"e1"_s, u"e2"_s}));
    QCOMPARE(count(url, "deliveries"), u"0"_s);
    // A configuration with the name again later is a new subscription: nothing comes back.
    QVERIFY(second.engine->applyWorkspace(testWorkspace({u"sub-one"_s, u"sub-gone"_s})));
    second.advance(60 * Second);
    QVERIFY(second.network.sent.isEmpty());
}

// Parked deliveries are rows of the instance that parked them: when it dies, an instance that
// knows their subscription claims and delivers them, and the dead one, back, neither delivers
// nor drops them.
void SharedEngineTest::parkedDeliveriesOfDeadInstanceClaimed()
{
    const QString url = m_server->createDatabase(u"parkeddead_%1"_s.arg(++m_databases));
    QVERIFY(!url.isEmpty());
    const Workspace withNew = testWorkspace({u"sub-one"_s, u"sub-new"_s});
    Instance first(url, withNew);
    first.failFor(u"sub-new"_s);
    QCOMPARE(first.publish({u"e1"_s}), 200);
    first.engine->shutdown();
    Instance parking(url, testWorkspace());
    QCOMPARE(parking.engine->snapshot().parkedDeliveries, 1);
    makeDead(url, parking.engine->instanceId());

    Instance knowing(url, withNew); // claims at start
    QCOMPARE(knowing.engine->snapshot().parkedDeliveries, 0);
    knowing.advance(30 * Second);
    QCOMPARE(knowing.sentEventIds(u"sub-new"_s), QStringList({u"e1"_s}));
    QVERIFY(knowing.engine->flush());
    QCOMPARE(count(url, "deliveries"), u"0"_s);

    // Back from its pause, it finds its lease lost and forgets what it had parked.
    parking.advance(DeliveryClaims::UnknownSubscriptionGraceMs + Second);
    QCOMPARE(parking.engine->snapshot().parkedDeliveries, 0);
    QVERIFY(parking.network.sent.isEmpty());
    QVERIFY(parking.engine->flush());
    QVERIFY(dropped(parking).isEmpty());
}

QTEST_GUILESS_MAIN(SharedEngineTest)
#include "tst_sharedengine.moc"
