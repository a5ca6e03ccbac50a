// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// Two engines on one PostgreSQL store (issue 21), each on a manual clock of its own and a fake
// access manager: what DeliveryClaims does at the engine's level. Who attempts what, the takeover
// of a dead instance's deliveries with their attempts and due times (SPEC R3, R8 go on), and an
// instance that comes back after its lease ran out: its late answers change nothing and it
// registers anew. An instance is made dead by moving its heartbeat back in the store (the server's
// clock judges leases), so no test waits for a lease.

#include "FakeNetwork.h"
#include "PostgresServer.h"
#include "engine/Clock.h"
#include "engine/Engine.h"
#include "io/DeadLetterSink.h"
#include "store/PostgresDeliveryStore.h"

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

Workspace testWorkspace()
{
    const QJsonObject subscription {
        {u"name"_s, u"sub-one"_s},
        {u"properties"_s,
         QJsonObject {
             {u"destination"_s,
              QJsonObject {{u"endpointType"_s, u"WebHook"_s},
                           {u"properties"_s,
                            QJsonObject {{u"endpointUrl"_s, u"http://receiver.test/a"_s}}}}},
             {u"x-eventdesk"_s, QJsonObject {{u"validation"_s, false}}}}}};
    const QJsonObject topic {{u"name"_s, u"orders"_s},
                             {u"inputSchema"_s, u"EventGridSchema"_s},
                             {u"eventSubscriptions"_s, QJsonArray {subscription}}};
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
    explicit Instance(const QString &url)
        : clock(T0)
    {
        const auto opened = store.open(url);
        if (!opened)
            qFatal("%s", qPrintable(opened.error()));
        sink = std::make_unique<FolderDeadLetterSink>(folder.path());
        EngineOptions options;
        options.jitter = false;
        engine = std::make_unique<Engine>(&clock, &network, &store, sink.get(), options);
        if (auto started = engine->start(testWorkspace()); !started)
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
    QStringList sentEventIds() const
    {
        QStringList ids;
        for (const FakeAccessManager::Sent &sent : network.sent) {
            for (const QJsonValue &event : QJsonDocument::fromJson(sent.body).array())
                ids.append(event[u"id"].toString());
        }
        return ids;
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

private:
    void makeDead(const QString &url, qint64 instance);
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
    QStringList firstSent = first.sentEventIds();
    firstSent.sort();
    QCOMPARE(firstSent, QStringList({u"a1"_s, u"a2"_s}));
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

QTEST_GUILESS_MAIN(SharedEngineTest)
#include "tst_sharedengine.moc"
