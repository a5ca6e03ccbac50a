// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// The engine with delivery lanes (Engine::setDeliveryLanes): requests posted and their replies
// handled on the lanes' threads, against a real HTTP receiver on loopback. The rules themselves
// are table-tested in tst_engine on the engine's own thread; this covers the hand-over between
// threads: every event delivered once, outcomes that need the engine thread (retries on the
// clock, D6 timeouts and aborts), and a shutdown with requests open on the lanes.
#include "ScriptedReceiver.h"

#include "deadletters/FolderDeadLetterSink.h"
#include "engine/Clock.h"
#include "engine/Engine.h"
#include "store/sqlite/SqliteDeliveryStore.h"
#include "workspace/WorkspaceFolder.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using EventDesk::Testing::ReceiverAction;
using EventDesk::Testing::ScriptedReceiver;

namespace {

constexpr int Lanes = 3; // more lanes than this machine may have cores: they still take turns

QByteArray eventsJson(int first, int count)
{
    QJsonArray array;
    for (int i = first; i < first + count; ++i) {
        array.append(QJsonObject{{u"id"_s, u"lane-%1"_s.arg(i)},
                                 {u"subject"_s, u"/lanes/%1"_s.arg(i)},
                                 {u"eventType"_s, u"Lane.Test"_s},
                                 {u"eventTime"_s, u"2024-05-01T10:00:00Z"_s},
                                 {u"dataVersion"_s, u"1.0"_s},
                                 {u"data"_s, QJsonObject{{u"n"_s, i}}}});
    }
    return QJsonDocument(array).toJson(QJsonDocument::Compact);
}

// One topic, one subscription to the receiver; the handshake is off (tst_endpoint covers it).
class LaneHarness
{
public:
    LaneHarness(const QUrl &endpoint, std::unique_ptr<Clock> engineClock, EngineOptions engineOptions)
        : clock(std::move(engineClock))
        , options(engineOptions)
    {
        const QJsonObject subscription{
            {u"name"_s, u"lanes"_s},
            {u"properties"_s,
             QJsonObject{{u"destination"_s,
                          QJsonObject{{u"endpointType"_s, u"WebHook"_s},
                                      {u"properties"_s, QJsonObject{{u"endpointUrl"_s, endpoint.toString()}}}}},
                         {u"x-eventdesk"_s, QJsonObject{{u"validation"_s, false}}}}}};
        const QJsonObject topic{{u"name"_s, u"orders"_s},
                                {u"inputSchema"_s, u"EventGridSchema"_s},
                                {u"eventSubscriptions"_s, QJsonArray{subscription}}};
        auto parsed = Workspace::fromJson(QJsonDocument(QJsonObject{{u"topics"_s, QJsonArray{topic}}}).toJson(),
                                          u"workspace.json"_s);
        if (!parsed)
            qFatal("test workspace invalid: %s", qPrintable(parsed.error()));
        workspace = parsed.value();
        sink = std::make_unique<FolderDeadLetterSink>(WorkspaceFolder::deadLetterRoot(directory.path()));
        start();
    }

    ~LaneHarness()
    {
        if (engine)
            stop();
    }

    void start()
    {
        store = std::make_unique<SqliteDeliveryStore>();
        if (auto opened = store->open(directory.filePath(u"eventdesk.db"_s)); !opened)
            qFatal("%s", qPrintable(opened.error()));
        engine = std::make_unique<Engine>(clock.get(), &network, store.get(), sink.get(), options);
        engine->setDeliveryLanes(Lanes);
        attempts = std::make_unique<QSignalSpy>(engine.get(), &Engine::attemptLogged);
        if (auto started = engine->start(workspace); !started)
            qFatal("%s", qPrintable(started.error()));
    }

    void stop()
    {
        engine->shutdown();
        attempts.reset();
        engine.reset();
        store->close();
        store.reset();
    }

    // Outcomes of the attempts logged so far, in the order the engine thread signalled them.
    QList<DeliveryOutcome> outcomes() const
    {
        QList<DeliveryOutcome> result;
        for (const QList<QVariant> &arguments : std::as_const(*attempts))
            result.append(arguments.at(0).value<AttemptLogEntry>().outcome);
        return result;
    }

    qsizetype unfinishedDeliveries()
    {
        auto unfinished = store->loadUnfinishedDeliveries();
        return unfinished ? unfinished->size() : -1;
    }

    QTemporaryDir directory;
    std::unique_ptr<Clock> clock;
    EngineOptions options;
    Workspace workspace;
    QNetworkAccessManager network; // handshakes only: deliveries go through the lanes
    std::unique_ptr<FolderDeadLetterSink> sink;
    std::unique_ptr<SqliteDeliveryStore> store;
    std::unique_ptr<Engine> engine;
    std::unique_ptr<QSignalSpy> attempts;
};

EngineOptions withoutJitter()
{
    EngineOptions options;
    options.jitter = false;
    return options;
}

} // namespace

class LanesTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void d1_everyEventDeliveredOnceAndEveryAttemptLogged();
    void r4_failureOnALaneIsRetriedOnTheEngineClock();
    void d6_timeoutAndAbortOfARequestOpenOnALane();
    void shutdownWithRequestsOpenOnLanes_deliveriesStayPending();

private:
    std::unique_ptr<ScriptedReceiver> m_receiver;
};

void LanesTest::init()
{
    m_receiver = std::make_unique<ScriptedReceiver>();
    QVERIFY(m_receiver->listen());
}

void LanesTest::d1_everyEventDeliveredOnceAndEveryAttemptLogged()
{
    LaneHarness harness(m_receiver->url(), std::make_unique<SystemClock>(), withoutJitter());
    constexpr int Count = 600;
    for (int first = 0; first < Count; first += 100)
        QCOMPARE(harness.engine->publish(u"orders"_s, eventsJson(first, 100), "application/json").httpStatus, 200);

    QTRY_COMPARE_WITH_TIMEOUT(m_receiver->acceptedEventIds().size(), qsizetype(Count), 30000);
    // SPEC D1 with nothing failing: each event exactly once (a duplicate would be a second request).
    QCOMPARE(m_receiver->requestCount(), qsizetype(Count));
    // Attempts finished on the lanes are signalled on the engine thread with the next commit.
    QTRY_COMPARE_WITH_TIMEOUT(harness.attempts->size(), qsizetype(Count), 10000);
    QVERIFY(harness.outcomes().count(DeliveryOutcome::Delivered) == Count);
    for (const QList<QVariant> &arguments : std::as_const(*harness.attempts))
        QCOMPARE(arguments.at(0).value<AttemptLogEntry>().eventIds.size(), qsizetype(1));
    QTRY_COMPARE(harness.unfinishedDeliveries(), qsizetype(0));
    const EngineSnapshot snapshot = harness.engine->snapshot();
    QCOMPARE(snapshot.subscriptions.size(), qsizetype(1));
    QCOMPARE(snapshot.subscriptions.front().delivered, quint64(Count));
    QCOMPARE(snapshot.subscriptions.front().inFlight, qint64(0));
}

void LanesTest::r4_failureOnALaneIsRetriedOnTheEngineClock()
{
    // 1000x engine time: R4's 30 s after a 503 pass in 30 ms; D6 is pushed out of the way.
    EngineOptions options = withoutJitter();
    options.responseTimeoutMs = 3'600'000;
    options.abortAfterMs = 6 * options.responseTimeoutMs;
    LaneHarness harness(m_receiver->url(), std::make_unique<ScaledClock>(1000.0), options);
    m_receiver->setScript({ReceiverAction::respond(503), ReceiverAction::respond(503)});
    QCOMPARE(harness.engine->publish(u"orders"_s, eventsJson(0, 2), "application/json").httpStatus, 200);

    QTRY_COMPARE_WITH_TIMEOUT(m_receiver->acceptedEventIds().size(), qsizetype(2), 20000);
    QCOMPARE(m_receiver->requestCount(), qsizetype(4));
    QTRY_COMPARE(harness.attempts->size(), qsizetype(4));
    const QList<DeliveryOutcome> outcomes = harness.outcomes();
    QCOMPARE(outcomes.count(DeliveryOutcome::Busy), 2);
    QCOMPARE(outcomes.count(DeliveryOutcome::Delivered), 2);
    // The retry waited for the engine clock (R3/R4: at least 30 s of engine time after the 503).
    for (const QList<QVariant> &arguments : std::as_const(*harness.attempts)) {
        const AttemptLogEntry entry = arguments.at(0).value<AttemptLogEntry>();
        if (entry.outcome == DeliveryOutcome::Busy)
            QVERIFY2(entry.nextDueMs >= entry.timeMs + 30'000, qPrintable(QString::number(entry.nextDueMs - entry.timeMs)));
    }
    QTRY_COMPARE(harness.unfinishedDeliveries(), qsizetype(0));
}

void LanesTest::d6_timeoutAndAbortOfARequestOpenOnALane()
{
    EngineOptions options = withoutJitter();
    options.responseTimeoutMs = 300;
    options.abortAfterMs = 900;
    LaneHarness harness(m_receiver->url(), std::make_unique<SystemClock>(), options);
    m_receiver->setDefaultAction(ReceiverAction::hang());
    QCOMPARE(harness.engine->publish(u"orders"_s, eventsJson(0, 1), "application/json").httpStatus, 200);

    // SPEC D6: TimedOut at the response timeout (engine thread), then the request is aborted at
    // the limit on the lane that posted it, which logs the attempt as Aborted.
    QTRY_VERIFY_WITH_TIMEOUT(harness.outcomes().contains(DeliveryOutcome::Aborted), 10000);
    const QList<DeliveryOutcome> outcomes = harness.outcomes();
    QCOMPARE(outcomes.first(), DeliveryOutcome::TimedOut);
    QCOMPARE(outcomes.count(DeliveryOutcome::Aborted), 1);
    QCOMPARE(outcomes.count(DeliveryOutcome::Delivered), 0);
    // The delivery is still pending its retry, not lost.
    QCOMPARE(harness.unfinishedDeliveries(), qsizetype(1));
}

void LanesTest::shutdownWithRequestsOpenOnLanes_deliveriesStayPending()
{
    LaneHarness harness(m_receiver->url(), std::make_unique<SystemClock>(), withoutJitter());
    m_receiver->setDefaultAction(ReceiverAction::hang());
    QCOMPARE(harness.engine->publish(u"orders"_s, eventsJson(0, 20), "application/json").httpStatus, 200);
    // The subscription's slots (8 by default) are taken by requests open on the lanes.
    QTRY_COMPARE(m_receiver->requestCount(), qsizetype(8));

    harness.stop();
    // Canceled by the shutdown: every delivery is still in the store ...
    m_receiver->setDefaultAction(ReceiverAction::respond(200));
    harness.start();
    QCOMPARE(harness.unfinishedDeliveries(), qsizetype(20));
    // ... and is sent again after the restart (D1), once each: the stopped engine sent nothing
    // beyond the 8 requests it had open.
    QTRY_COMPARE_WITH_TIMEOUT(m_receiver->acceptedEventIds().size(), qsizetype(20), 20000);
    QCOMPARE(m_receiver->requestCount(), qsizetype(8 + 20));
}

QTEST_GUILESS_MAIN(LanesTest)
#include "tst_lanes.moc"
