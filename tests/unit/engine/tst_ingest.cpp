// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// Ingest: the publish path. A request is answered 404/503 before anything is parsed, validated
// whole (SPEC §10), matched against the topic's enabled subscriptions' filters, stored with its
// deliveries in one transaction before it is answered (D1), and its deliveries are due at once
// (D2). Large requests are parsed and stored on a parser thread; the answer comes back on the
// engine thread after the commit.

#include "EngineUnitsFixture.h"

#include "engine/Ingest.h"
#include "rules/DeadLetterFormatter.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QThread>
#include <QtTest>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using namespace EventDesk::Testing;

using Operation = FaultyDeliveryStore::Operation;

namespace {

// Ingest on the fixture's units, over a workspace with two topics:
//   orders: "created" (Order.Created only), "all" (no filter), "big" (data.amount >= 8),
//           "disabled" (switched off)
//   audit:  "audited"
struct IngestBench
{
    IngestBench()
        : created(f.addSubscription(withEventTypes(u"created"_s, {u"Order.Created"_s})))
        , all(f.addSubscription(EngineUnitsFixture::webhook(u"all"_s)))
        , big(f.addSubscription(withMinimumAmount(u"big"_s, 8)))
        , disabled(f.addSubscription(switchedOff(u"disabled"_s)))
        , audited(f.addSubscription(EngineUnitsFixture::webhook(u"audited"_s), u"audit"_s))
    {
    }

    static EventSubscription withEventTypes(const QString &name, const QStringList &types)
    {
        EventSubscription config = EngineUnitsFixture::webhook(name);
        config.filter.includedEventTypes = types;
        return config;
    }

    static EventSubscription withMinimumAmount(const QString &name, double minimum)
    {
        EventSubscription config = EngineUnitsFixture::webhook(name);
        AdvancedFilter filter;
        filter.op = FilterOperator::NumberGreaterThanOrEquals;
        filter.key = u"data.amount"_s;
        filter.numbers = {minimum};
        config.filter.advancedFilters = {filter};
        return config;
    }

    static EventSubscription switchedOff(const QString &name)
    {
        EventSubscription config = EngineUnitsFixture::webhook(name);
        config.enabled = false;
        return config;
    }

    // Stored rows per subscription name.
    QHash<QString, int> storedDeliveries()
    {
        QHash<QString, int> counts;
        const auto rows = f.sqlite.loadUnfinishedDeliveries();
        for (const DeliveryRecord &record : rows.value())
            ++counts[record.subscription];
        return counts;
    }

    const TopicSnapshot &orders() { return f.state.topicCounters[u"orders"_s]; }

    EngineUnitsFixture f;
    Subscription &created;
    Subscription &all;
    Subscription &big;
    Subscription &disabled;
    Subscription &audited;
    Ingest ingest {f.state, f.signals, f.scheduler, f.outcomes};
};

QByteArray concatenated(const QByteArray &first, const QByteArray &second)
{
    QJsonArray events = QJsonDocument::fromJson(first).array();
    for (const QJsonValue &event : QJsonDocument::fromJson(second).array())
        events.append(event);
    return QJsonDocument(events).toJson(QJsonDocument::Compact);
}

} // namespace

class tst_Ingest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void prepare_unknownTopicIs404();
    void prepare_notRunningIs503();
    void prepare_targetsTheTopicsEnabledSubscriptions();
    void d1_publishStoresEventsAndDeliveriesBeforeAnswering();
    void d2_deliveriesAreDueAtOnceInTheMatchingSubscriptionsOnly();
    void unmatchedEventsAreStoredAndCounted();
    void d1_storeFailureAnswers503AndAdoptsNothing();
    void rejectedRequestStoresNothingAndIsCounted_data();
    void rejectedRequestStoresNothingAndIsCounted();
    void publishParsed_changedWorkspaceParsesAgain();
    void publishParsed_deletedSubscriptionDropsItsDeliveries();
    void publishAsync_smallBodyIsPublishedBeforeReturning();
    void publishAsync_largeBodyIsParsedAndStoredOnAParserThread();
    void publishAsync_largeRejectedBodyIsAnsweredOnTheEngineThread();
};

void tst_Ingest::prepare_unknownTopicIs404()
{
    IngestBench bench;
    bench.f.start();
    PublishTicket ticket;
    const PublishResult result = bench.ingest.prepare(u"nope"_s, "[]", "application/json", &ticket);
    QCOMPARE(result.httpStatus, 404);
    QCOMPARE(result.errorCode, u"NotFound"_s);
    QVERIFY2(result.errorMessage.contains(u"'nope'"_s), qPrintable(result.errorMessage));
    QVERIFY(ticket.targets.isEmpty());
}

void tst_Ingest::prepare_notRunningIs503()
{
    IngestBench bench; // not started, or shutting down
    PublishTicket ticket;
    const PublishResult result = bench.ingest.prepare(
        u"orders"_s, EngineUnitsFixture::eventGridBatch(1), "application/json", &ticket);
    QCOMPARE(result.httpStatus, 503);
    QCOMPARE(result.errorCode, u"ServiceUnavailable"_s);
    QCOMPARE(
        bench.ingest.publish(u"orders"_s, EngineUnitsFixture::eventGridBatch(1), "application/json")
            .httpStatus,
        503);
    QCOMPARE(bench.f.store.calls(Operation::InsertPublished), 0);
}

void tst_Ingest::prepare_targetsTheTopicsEnabledSubscriptions()
{
    IngestBench bench;
    Subscription &removed = bench.f.addSubscription(EngineUnitsFixture::webhook(u"removed"_s));
    removed.removed = true;
    bench.f.start();
    bench.f.clock.advanceMs(1234);
    const QByteArray body = EngineUnitsFixture::eventGridBatch(2);

    PublishTicket ticket;
    const PublishResult result
        = bench.ingest.prepare(u"ORDERS"_s, body, "application/json", &ticket);

    QCOMPARE(result.httpStatus, 200);
    QCOMPARE(ticket.topic.name, u"orders"_s); // topic names are case-insensitive
    QStringList targets;
    for (const PublishTarget &target : std::as_const(ticket.targets)) {
        targets.append(target.subscription);
        QCOMPARE(target.subscriptionIndex,
                 bench.f.state.findSubscription(u"orders"_s, target.subscription)->index);
    }
    QCOMPARE(targets, (QStringList {u"created"_s, u"all"_s, u"big"_s}));
    QCOMPARE(ticket.targets.at(0).filter.includedEventTypes, QStringList {u"Order.Created"_s});
    QCOMPARE(ticket.body, body);
    QCOMPARE(ticket.nowMs, T0 + 1234);
    QCOMPARE(ticket.publishTimeIso, DeadLetterFormatter::formatTime(T0 + 1234));
    QCOMPARE(ticket.workspaceGeneration, bench.f.state.workspaceGeneration.load());
    // "big" has an advanced filter: the parse must build the views it reads.
    QCOMPARE(ticket.filterViews, EventParser::FilterViews::Build);

    PublishTicket audit;
    QCOMPARE(bench.ingest.prepare(u"audit"_s, body, "application/json", &audit).httpStatus, 200);
    QCOMPARE(audit.targets.size(), 1);
    QCOMPARE(audit.targets.at(0).subscription, u"audited"_s);
    QCOMPARE(audit.filterViews, EventParser::FilterViews::Skip);
}

void tst_Ingest::d1_publishStoresEventsAndDeliveriesBeforeAnswering()
{
    IngestBench bench;
    bench.f.start();
    const QByteArray body
        = concatenated(EngineUnitsFixture::eventGridBatch(10, u"c"_s, u"Order.Created"_s),
                       EngineUnitsFixture::eventGridBatch(3, u"d"_s, u"Order.Deleted"_s));

    const PublishResult result = bench.ingest.publish(u"orders"_s, body, "application/json");

    QCOMPARE(result.httpStatus, 200);
    QCOMPARE(result.accepted, 13);
    QCOMPARE(result.deliveriesCreated, 10 + 13 + 2);
    // SPEC D1: in the store when the answer is given, in one transaction, not through the
    // group commit of delivery changes.
    QCOMPARE(bench.f.store.calls(Operation::InsertPublished), 1);
    QCOMPARE(bench.f.store.calls(Operation::Commit), 0);
    const QHash<QString, int> stored = bench.storedDeliveries();
    QCOMPARE(stored.value(u"created"_s), 10);
    QCOMPARE(stored.value(u"all"_s), 13);
    QCOMPARE(stored.value(u"big"_s), 2);
    QCOMPARE(stored.value(u"disabled"_s), 0);
    QCOMPARE(stored.value(u"audited"_s), 0);
    const auto rows = bench.f.sqlite.loadUnfinishedDeliveries();
    QList<qint64> seqs;
    for (const DeliveryRecord &record : rows.value()) {
        QCOMPARE(record.state, DeliveryState::Pending);
        QCOMPARE(record.dueMs, T0);
        QCOMPARE(record.publishMs, T0);
        QCOMPARE(record.attempts, 0);
        if (!seqs.contains(record.eventSeq))
            seqs.append(record.eventSeq);
    }
    const auto events = bench.f.sqlite.loadEvents(seqs);
    QCOMPARE(events->size(), 13);
    QStringList ids;
    for (const StoredEvent &event : events.value()) {
        ids.append(event.id);
        QCOMPARE(event.topic, u"orders"_s);
        QCOMPARE(event.publishMs, T0);
        // SPEC S1: topic and metadataVersion filled in.
        QCOMPARE(QJsonDocument::fromJson(event.body)[u"topic"_s].toString(), bench.all.topicPath);
    }
    ids.sort();
    QCOMPARE(ids.first(), u"c0"_s);
    QCOMPARE(ids.last(), u"d2"_s);
}

void tst_Ingest::d2_deliveriesAreDueAtOnceInTheMatchingSubscriptionsOnly()
{
    IngestBench bench;
    bench.f.start();
    bench.f.clock.advanceMs(5 * Second);
    const qint64 now = bench.f.clock.nowMs();
    const QByteArray body
        = concatenated(EngineUnitsFixture::eventGridBatch(10, u"c"_s, u"Order.Created"_s),
                       EngineUnitsFixture::eventGridBatch(3, u"d"_s, u"Order.Deleted"_s));

    bench.ingest.publish(u"orders"_s, body, "application/json");

    // Every delivery is in memory, pending in its subscription's heap, due now.
    QCOMPARE(bench.f.state.deliveries.size(), size_t(25));
    for (const auto &[id, delivery] : bench.f.state.deliveries) {
        QCOMPARE(delivery.state, DeliveryState::Pending);
        QCOMPARE(delivery.dueMs, now);
        QCOMPARE(delivery.publishMs, now);
        QVERIFY(delivery.event); // held: it is about to be sent
    }
    QCOMPARE(bench.created.pending.size(), size_t(10));
    QCOMPARE(bench.all.pending.size(), size_t(13));
    QCOMPARE(bench.big.pending.size(), size_t(2));
    QVERIFY(bench.disabled.pending.empty());
    QVERIFY(bench.audited.pending.empty());
    QCOMPARE(bench.created.counters.matched, quint64(10));
    QCOMPARE(bench.all.counters.matched, quint64(13));
    QCOMPARE(bench.big.counters.matched, quint64(2));
    QCOMPARE(bench.all.counters.backlog, 13);
    // SPEC D2: each matching subscription is due now; no artificial wait.
    QCOMPARE(bench.created.scheduledAtMs, now);
    QCOMPARE(bench.all.scheduledAtMs, now);
    QCOMPARE(bench.big.scheduledAtMs, now);
    QCOMPARE(bench.disabled.scheduledAtMs, -1);
    QCOMPARE(bench.audited.scheduledAtMs, -1);
    QCOMPARE(bench.f.clock.alarmAtMs(), now);
    QCOMPARE(bench.orders().published, quint64(13));
    QCOMPARE(bench.orders().unmatched, quint64(0));
    // The big ones are the events with data.amount 8 and 9.
    QStringList bigIds;
    for (const HeapEntry &entry : bench.big.pending)
        bigIds.append(bench.f.delivery(qint64(entry.key))->event->id);
    bigIds.sort();
    QCOMPARE(bigIds, (QStringList {u"c8"_s, u"c9"_s}));
}

void tst_Ingest::unmatchedEventsAreStoredAndCounted()
{
    IngestBench bench;
    bench.audited.config.filter.includedEventTypes = {u"Audit.Entry"_s};
    bench.f.start();

    const PublishResult result = bench.ingest.publish(
        u"audit"_s, EngineUnitsFixture::eventGridBatch(2), "application/json");

    QCOMPARE(result.httpStatus, 200);
    QCOMPARE(result.accepted, 2);
    QCOMPARE(result.deliveriesCreated, 0);
    QCOMPARE(bench.f.state.topicCounters[u"audit"_s].published, quint64(2));
    QCOMPARE(bench.f.state.topicCounters[u"audit"_s].unmatched, quint64(2));
    QVERIFY(bench.f.state.deliveries.empty());
    QCOMPARE(bench.f.store.calls(Operation::InsertPublished), 1);
}

void tst_Ingest::d1_storeFailureAnswers503AndAdoptsNothing()
{
    IngestBench bench;
    bench.f.start();
    bench.f.store.failNext(Operation::InsertPublished, 1, u"disk I/O error"_s);

    const PublishResult result = bench.ingest.publish(
        u"orders"_s, EngineUnitsFixture::eventGridBatch(3), "application/json");

    // SPEC D1: not stored, so not acknowledged, and nothing to deliver. 503 with Retry-After:
    // the publisher sends it again once the store takes writes.
    QCOMPARE(result.httpStatus, 503);
    QCOMPARE(result.errorCode, u"ServiceUnavailable"_s);
    QCOMPARE(result.retryAfterSeconds, Ingest::StoreRetryAfterSeconds);
    QVERIFY2(result.errorMessage.contains(u"disk I/O error"_s), qPrintable(result.errorMessage));
    QVERIFY(!bench.f.state.storeHealth.isWritable());
    QCOMPARE(bench.f.state.storeHealth.snapshot().writeFailures, quint64(1));
    QCOMPARE(bench.f.state.storeHealth.snapshot().lastError, u"disk I/O error"_s);
    QCOMPARE(result.accepted, 0);
    QVERIFY(bench.f.state.deliveries.empty());
    QVERIFY(bench.all.pending.empty());
    QCOMPARE(bench.all.scheduledAtMs, -1);
    QCOMPARE(bench.orders().published, quint64(0));
    QCOMPARE(bench.orders().rejectedRequests, quint64(1));
    QCOMPARE(bench.f.storedUnfinishedDeliveries(), 0);

    // The next request is stored as usual.
    QCOMPARE(
        bench.ingest.publish(u"orders"_s, EngineUnitsFixture::eventGridBatch(1), "application/json")
            .httpStatus,
        200);
    QCOMPARE(bench.f.storedUnfinishedDeliveries(), 2); // created and all; not big (amount 0)
    QVERIFY(bench.f.state.storeHealth.isWritable());
    QCOMPARE(bench.f.state.storeHealth.snapshot().writeFailures, quint64(1));
}

void tst_Ingest::rejectedRequestStoresNothingAndIsCounted_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<int>("httpStatus");
    QTest::addColumn<QString>("named");

    QJsonArray events = QJsonDocument::fromJson(EngineUnitsFixture::eventGridBatch(3)).array();
    QJsonObject second = events.at(1).toObject();
    second.remove(u"eventType"_s);
    events.replace(1, second);
    QTest::newRow("second event without eventType")
        << QJsonDocument(events).toJson(QJsonDocument::Compact) << 400 << u"[1]"_s;
    QTest::newRow("malformed JSON") << QByteArray("[{\"id\":") << 400 << QString();
    QTest::newRow("over 1 MB") << EngineUnitsFixture::eventGridBatch(3, u"e"_s, u"Order.Created"_s,
                                                                     QString(400 * 1024, u'x'))
                               << 413 << QString();
}

void tst_Ingest::rejectedRequestStoresNothingAndIsCounted()
{
    QFETCH(QByteArray, body);
    QFETCH(int, httpStatus);
    QFETCH(QString, named);

    IngestBench bench;
    bench.f.start();

    const PublishResult result = bench.ingest.publish(u"orders"_s, body, "application/json");

    QCOMPARE(result.httpStatus, httpStatus);
    QVERIFY(!result.errorMessage.isEmpty());
    QVERIFY2(result.errorMessage.contains(named), qPrintable(result.errorMessage));
    // Accepted or rejected whole (§10): nothing from it is stored or scheduled.
    QCOMPARE(bench.f.store.calls(Operation::InsertPublished), 0);
    QVERIFY(bench.f.state.deliveries.empty());
    QCOMPARE(bench.orders().rejectedRequests, quint64(1));
    QCOMPARE(bench.orders().published, quint64(0));
    QCOMPARE(bench.f.clock.alarmAtMs(), -1);
}

void tst_Ingest::publishParsed_changedWorkspaceParsesAgain()
{
    IngestBench bench;
    bench.f.start();
    const QByteArray body = EngineUnitsFixture::eventGridBatch(3);
    // A parse that does not match the ticket's body shows whether it was used or redone.
    const PublishParseResult staleParse; // accepted, no events

    PublishTicket unchanged;
    QCOMPARE(bench.ingest.prepare(u"orders"_s, body, "application/json", &unchanged).httpStatus,
             200);
    QCOMPARE(bench.ingest.publishParsed(unchanged, staleParse).accepted, 0);

    PublishTicket changed;
    QCOMPARE(bench.ingest.prepare(u"orders"_s, body, "application/json", &changed).httpStatus, 200);
    ++bench.f.state.workspaceGeneration; // the workspace was applied while it was parsed
    const PublishResult reparsed = bench.ingest.publishParsed(changed, staleParse);
    QCOMPARE(reparsed.httpStatus, 200);
    QCOMPARE(reparsed.accepted, 3);
    QCOMPARE(bench.all.pending.size(), size_t(3));

    // The topic may be gone by then.
    PublishTicket orphaned;
    QCOMPARE(bench.ingest.prepare(u"audit"_s, body, "application/json", &orphaned).httpStatus, 200);
    bench.f.state.workspace.topics.removeIf(
        [](const Topic &topic) { return topic.name == u"audit"_s; });
    ++bench.f.state.workspaceGeneration;
    QCOMPARE(bench.ingest.publishParsed(orphaned, Ingest::parse(orphaned)).httpStatus, 404);
    QVERIFY(bench.audited.pending.empty());
}

void tst_Ingest::publishParsed_deletedSubscriptionDropsItsDeliveries()
{
    IngestBench bench;
    bench.f.start();
    const QByteArray body = EngineUnitsFixture::eventGridBatch(2);
    PublishTicket ticket;
    QCOMPARE(bench.ingest.prepare(u"audit"_s, body, "application/json", &ticket).httpStatus, 200);
    bench.audited.removed = true; // deleted while the request was being stored

    const PublishResult result = bench.ingest.publishParsed(ticket, Ingest::parse(ticket));

    // Stored and acknowledged (D1), then dropped like the rest of that subscription's backlog.
    QCOMPARE(result.httpStatus, 200);
    QCOMPARE(result.accepted, 2);
    QVERIFY(bench.audited.pending.empty());
    QVERIFY(bench.f.state.deliveries.empty());
    QCOMPARE(bench.audited.counters.backlog, 0);
    QCOMPARE(bench.audited.counters.droppedByReason.value(DeadLetterReason::SubscriptionDeleted),
             quint64(2));
    QVERIFY(bench.f.flush().hasValue());
    QCOMPARE(bench.f.storedUnfinishedDeliveries(), 0);
    QCOMPARE(bench.f.sqlite.droppedDeliveries(10)->size(), 2);
}

void tst_Ingest::publishAsync_smallBodyIsPublishedBeforeReturning()
{
    IngestBench bench;
    bench.f.start();
    std::optional<PublishResult> answer;

    bench.ingest.publishAsync(u"orders"_s, EngineUnitsFixture::eventGridBatch(2),
                              "application/json",
                              [&answer](const PublishResult &result) { answer = result; });

    // Below 32 KB a request is cheaper to parse here than on another thread.
    QVERIFY(answer.has_value());
    QCOMPARE(answer->accepted, 2);
    QCOMPARE(bench.f.store.lastThread(Operation::InsertPublished), QThread::currentThread());
}

void tst_Ingest::publishAsync_largeBodyIsParsedAndStoredOnAParserThread()
{
    IngestBench bench;
    bench.f.start();
    const QByteArray body
        = EngineUnitsFixture::eventGridBatch(100, u"e"_s, u"Order.Created"_s, QString(500, u'p'));
    QVERIFY(body.size() > 32 * 1024);
    std::optional<PublishResult> answer;
    QThread *answeredOn = nullptr;
    int storedWhenAnswered = -1;
    size_t adoptedWhenAnswered = 0;

    bench.ingest.publishAsync(u"orders"_s, body, "application/json",
                              [&](const PublishResult &result) {
                                  answer = result;
                                  answeredOn = QThread::currentThread();
                                  storedWhenAnswered = int(bench.f.storedUnfinishedDeliveries());
                                  adoptedWhenAnswered = bench.f.state.deliveries.size();
                              });

    QVERIFY(!answer.has_value()); // the engine thread goes on meanwhile
    QTRY_VERIFY(answer.has_value());
    QCOMPARE(answer->httpStatus, 200);
    QCOMPARE(answer->accepted, 100);
    QCOMPARE(answer->deliveriesCreated, 100 + 100 + 92); // created, all, big (amount >= 8)
    // Stored on a parser thread, answered on the engine thread after the commit (SPEC D1).
    QVERIFY(bench.f.store.lastThread(Operation::InsertPublished) != nullptr);
    QVERIFY(bench.f.store.lastThread(Operation::InsertPublished) != QThread::currentThread());
    QCOMPARE(answeredOn, QThread::currentThread());
    QCOMPARE(storedWhenAnswered, 292);
    QCOMPARE(adoptedWhenAnswered, size_t(292));
    QCOMPARE(bench.all.pending.size(), size_t(100));
    QCOMPARE(bench.all.scheduledAtMs, T0);
    QCOMPARE(bench.orders().published, quint64(100));
}

void tst_Ingest::publishAsync_largeRejectedBodyIsAnsweredOnTheEngineThread()
{
    IngestBench bench;
    bench.f.start();
    QByteArray body
        = EngineUnitsFixture::eventGridBatch(100, u"e"_s, u"Order.Created"_s, QString(500, u'p'));
    body.chop(1); // no closing bracket: malformed JSON
    std::optional<PublishResult> answer;
    QThread *answeredOn = nullptr;

    bench.ingest.publishAsync(u"orders"_s, body, "application/json",
                              [&](const PublishResult &result) {
                                  answer = result;
                                  answeredOn = QThread::currentThread();
                              });

    QTRY_VERIFY(answer.has_value());
    QCOMPARE(answer->httpStatus, 400);
    QCOMPARE(answeredOn, QThread::currentThread());
    // Rejections are counted on the engine thread, which owns the counters.
    QCOMPARE(bench.orders().rejectedRequests, quint64(1));
    QCOMPARE(bench.f.store.calls(Operation::InsertPublished), 0);
}

QTEST_GUILESS_MAIN(tst_Ingest)
#include "tst_ingest.moc"
