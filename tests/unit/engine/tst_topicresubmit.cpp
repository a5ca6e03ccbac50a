// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// Resubmitting dead letters through their topic (TopicResubmit) on the whole engine, a manual
// clock and the real SQLite store: every current subscription's filter decides again, the dry run
// counts exactly what the run then creates, the event keeps its id and data with a fresh time to
// live, what cannot be resubmitted is named and stays, and each new delivery is traced back to
// its dead letter in the store (the resubmissions table the event inspector reads).

#include "EngineUnitsFixture.h"
#include "FakeNetwork.h"
#include "FaultyDeliveryStore.h"

#include "deadletters/FolderDeadLetterSink.h"
#include "engine/Clock.h"
#include "engine/Engine.h"
#include "rules/DeadLetterFormatter.h"
#include "store/DeadLetterRows.h"
#include "store/sqlite/SqliteDeliveryStore.h"
#include "store/sqlite/SqliteReadOnlyDatabase.h"
#include "store/sqlite/SqliteStoreSchema.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using namespace EventDesk::Testing;

namespace {

EventSubscription subscription(const QString &name, const EventFilter &filter = {})
{
    EventSubscription config = EngineUnitsFixture::webhook(name);
    config.filter = filter;
    return config;
}

EventFilter eventTypes(const QStringList &types)
{
    EventFilter filter;
    filter.includedEventTypes = types;
    return filter;
}

EventFilter subjectBeginsWith(const QString &prefix)
{
    EventFilter filter;
    filter.subjectBeginsWith = prefix;
    return filter;
}

Topic topic(const QString &name, const QList<EventSubscription> &subscriptions,
            EventSchema schema = EventSchema::EventGrid)
{
    Topic result;
    result.name = name;
    result.inputSchema = schema;
    result.eventSubscriptions = subscriptions;
    return result;
}

// A dead letter of topic/subscriptionName as DeadLettering indexes an Event Grid event: the body
// is the event as stored (topic and metadataVersion filled in).
DeadLetterEntry eventGridDeadLetter(const QString &topicName, const QString &subscriptionName,
                                    const QString &eventId, const QString &eventType,
                                    const QString &subject)
{
    DeadLetterEntry entry;
    entry.topic = topicName;
    entry.subscription = subscriptionName;
    entry.eventId = eventId;
    entry.reason = DeadLetterReason::MaxDeliveryAttemptsExceeded;
    entry.lastOutcome = DeliveryOutcome::Busy;
    entry.lastHttpStatus = 503;
    entry.attempts = 30;
    entry.publishMs = T0 - 120 * Minute;
    entry.lastAttemptMs = T0 - 10 * Minute;
    entry.deadLetteredMs = T0 - 5 * Minute;
    entry.blobPath = u"deadletters/%1/2023/11/14/22/blob.json"_s.arg(subscriptionName.toUpper());
    entry.eventType = eventType;
    entry.subject = subject;
    entry.dataVersion = u"1.0"_s;
    entry.eventTime = u"2023-11-14T20:13:20.0000000Z"_s;
    entry.eventBody
        = QJsonDocument(QJsonObject {{u"id"_s, eventId},
                                     {u"subject"_s, subject},
                                     {u"eventType"_s, eventType},
                                     {u"eventTime"_s, entry.eventTime},
                                     {u"dataVersion"_s, u"1.0"_s},
                                     {u"data"_s, QJsonValue(QJsonObject {{u"amount"_s, 42}})},
                                     {u"topic"_s, QString(u"/topics/"_s + topicName)},
                                     {u"metadataVersion"_s, u"1"_s}})
              .toJson(QJsonDocument::Compact);
    entry.record = entry.eventBody;
    return entry;
}

// The engine on the real store (behind a FaultyDeliveryStore, so a test can make it fail).
class Harness
{
public:
    explicit Harness(const QList<Topic> &topics)
        : sink(directory.filePath(u"containers"_s))
    {
        storePath = directory.filePath(u"eventdesk.db"_s);
        QVERIFY(sqlite.open(storePath).hasValue());
        for (const Topic &topic : topics)
            workspace.topics.append(topic);
        EngineOptions options;
        options.jitter = false;
        engine = std::make_unique<Engine>(&clock, &network, &store, &sink, options);
        const auto started = engine->start(workspace);
        QVERIFY2(started.hasValue(), started ? "" : qPrintable(started.error()));
    }

    QList<qint64> seed(const QList<DeadLetterEntry> &entries)
    {
        StoreBatch batch;
        batch.deadLetters = entries;
        if (const auto committed = sqlite.commit(batch); !committed)
            qFatal("%s", qPrintable(committed.error()));
        QList<qint64> ids;
        DeadLetterQuery all;
        all.limit = 0;
        const QList<DeadLetterEntry> stored = sqlite.deadLetters(all).value();
        for (const DeadLetterEntry &entry : stored)
            ids.append(entry.id);
        return ids; // newest first, as the browser asks
    }

    void apply(const QList<Topic> &topics)
    {
        workspace.topics = topics;
        QVERIFY(engine->applyWorkspace(workspace).hasValue());
    }

    qint64 deadLetterCount() { return sqlite.countDeadLetters(DeadLetterQuery {}).value(); }

    // subscription → pending deliveries in the store.
    QMap<QString, int> storedDeliveries()
    {
        QMap<QString, int> counts;
        const QList<DeliveryRecord> records = sqlite.loadUnfinishedDeliveries().value();
        for (const DeliveryRecord &record : records)
            ++counts[record.subscription];
        return counts;
    }

    QList<ResubmissionEntry> resubmissionsOf(const QString &eventId)
    {
        SqliteReadOnlyDatabase reader;
        if (!reader.open(storePath))
            qFatal("cannot open a reader");
        QList<ResubmissionEntry> rows;
        const auto read = reader.select(
            resubmissionsOfEventSql(),
            [&rows](const SqliteStatement &row) { rows.append(readResubmission(row)); }, eventId);
        if (!read)
            qFatal("%s", qPrintable(read.error()));
        return rows;
    }

    QTemporaryDir directory;
    QString storePath;
    ManualClock clock {T0};
    FakeAccessManager network;
    SqliteDeliveryStore sqlite;
    FaultyDeliveryStore store {&sqlite};
    FolderDeadLetterSink sink;
    Workspace workspace;
    std::unique_ptr<Engine> engine;
};

QMap<QString, qint64> routesOf(const TopicResubmitResult &result)
{
    QMap<QString, qint64> routes;
    for (const ResubmitRouteCount &route : result.routes)
        routes.insert(route.topic + u'/' + route.subscription, route.deliveries);
    return routes;
}

} // namespace

class tst_TopicResubmit : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void dryRunCountsWhatTheRunThenCreates();
    void filtersOfTheCurrentSubscriptionsDecide();
    void keepsIdAndDataWithAFreshTimeToLive();
    void unmatchedDeadLettersStayInTheIndex();
    void namesWhatCannotBeResubmitted();
    void cloudEventsAndCustomSchemaEvents();
    void storeFailureChangesNothing();
    void resubmissionsTraceEachDeliveryToItsDeadLetter();
};

void tst_TopicResubmit::dryRunCountsWhatTheRunThenCreates()
{
    Harness h({topic(u"orders"_s,
                     {subscription(u"billing"_s, eventTypes({u"Order.Created"_s})),
                      subscription(u"shipping"_s, subjectBeginsWith(u"/shipments/"_s)),
                      subscription(u"audit"_s)})});
    QList<DeadLetterEntry> entries;
    for (int i = 0; i < 412; ++i)
        entries.append(eventGridDeadLetter(u"orders"_s, u"billing"_s, u"e%1"_s.arg(i),
                                           u"Order.Created"_s, u"/orders/%1"_s.arg(i)));
    const QList<qint64> ids = h.seed(entries);

    const TopicResubmitResult dryRun = h.engine->resubmitThroughTopic(ids, ResubmitRun::DryRun);
    QVERIFY2(dryRun.errors.isEmpty(), qPrintable(dryRun.errors.join(u'\n')));
    QCOMPARE(dryRun.resubmitted, qint64(412));
    QCOMPARE(dryRun.unmatched, qint64(0));
    QCOMPARE(dryRun.deliveriesCreated, qint64(824));
    // Every enabled subscription of the topic, in workspace order, the one that gets none too.
    QCOMPARE(dryRun.routes,
             (QList<ResubmitRouteCount> {{u"orders"_s, u"billing"_s, 412},
                                         {u"orders"_s, u"shipping"_s, 0},
                                         {u"orders"_s, u"audit"_s, 412}}));
    // A dry run changes nothing.
    QCOMPARE(h.deadLetterCount(), qint64(412));
    QVERIFY(h.storedDeliveries().isEmpty());
    QCOMPARE(h.store.calls(FaultyDeliveryStore::Operation::InsertResubmitted), 0);

    const TopicResubmitResult run = h.engine->resubmitThroughTopic(ids, ResubmitRun::Resubmit);
    QVERIFY(run.errors.isEmpty());
    QCOMPARE(run.resubmitted, dryRun.resubmitted);
    QCOMPARE(run.deliveriesCreated, dryRun.deliveriesCreated);
    QCOMPARE(run.routes, dryRun.routes);
    QCOMPARE(h.deadLetterCount(), qint64(0));
    const QMap<QString, int> stored = h.storedDeliveries();
    QCOMPARE(stored.value(u"billing"_s), 412);
    QCOMPARE(stored.value(u"shipping"_s), 0);
    QCOMPARE(stored.value(u"audit"_s), 412);
    const EngineSnapshot snapshot = h.engine->snapshot();
    for (const SubscriptionSnapshot &counters : snapshot.subscriptions)
        QCOMPARE(counters.backlog, counters.subscription == u"shipping"_s ? 0 : qint64(412));
}

void tst_TopicResubmit::filtersOfTheCurrentSubscriptionsDecide()
{
    Harness h({topic(u"orders"_s, {subscription(u"billing"_s), subscription(u"legacy"_s)})});
    const QList<qint64> ids = h.seed({eventGridDeadLetter(u"orders"_s, u"legacy"_s, u"e1"_s,
                                                          u"Order.Created"_s, u"/orders/1"_s)});
    // Since the event died in legacy: legacy was deleted, billing now takes only refunds, and
    // late was added.
    h.apply({topic(
        u"orders"_s,
        {subscription(u"billing"_s, eventTypes({u"Order.Refunded"_s})), subscription(u"late"_s)})});

    const TopicResubmitResult result = h.engine->resubmitThroughTopic(ids, ResubmitRun::Resubmit);
    QVERIFY2(result.errors.isEmpty(), qPrintable(result.errors.join(u'\n')));
    QCOMPARE(result.resubmitted, qint64(1));
    QCOMPARE(routesOf(result),
             (QMap<QString, qint64> {{u"orders/billing"_s, 0}, {u"orders/late"_s, 1}}));
    QCOMPARE(h.storedDeliveries(), (QMap<QString, int> {{u"late"_s, 1}}));
    QCOMPARE(h.deadLetterCount(), qint64(0));
}

void tst_TopicResubmit::keepsIdAndDataWithAFreshTimeToLive()
{
    Harness h({topic(u"orders"_s, {subscription(u"billing"_s)})});
    const DeadLetterEntry entry = eventGridDeadLetter(u"orders"_s, u"billing"_s, u"keep-me"_s,
                                                      u"Order.Created"_s, u"/orders/7"_s);
    const QList<qint64> ids = h.seed({entry});
    h.clock.advanceMs(3 * 60 * Minute);
    const qint64 now = h.clock.nowMs();

    QCOMPARE(h.engine->resubmitThroughTopic(ids, ResubmitRun::Resubmit).resubmitted, qint64(1));
    const QList<DeliveryRecord> deliveries = h.sqlite.loadUnfinishedDeliveries().value();
    QCOMPARE(deliveries.size(), 1);
    QCOMPARE(deliveries.at(0).attempts, 0); // fresh attempts
    QCOMPARE(deliveries.at(0).publishMs, now); // SPEC R7: the time to live starts again
    QCOMPARE(deliveries.at(0).dueMs, now); // SPEC D2: due at once
    const QList<StoredEvent> events = h.sqlite.loadEvents({deliveries.at(0).eventSeq}).value();
    QCOMPARE(events.size(), 1);
    QCOMPARE(events.at(0).id, u"keep-me"_s);
    QCOMPARE(events.at(0).publishMs, now);
    QCOMPARE(events.at(0).eventTime, entry.eventTime);
    const QJsonObject body = QJsonDocument::fromJson(events.at(0).body).object();
    QCOMPARE(body.value(u"data"_s).toObject().value(u"amount"_s).toInt(), 42);
    QCOMPARE(body.value(u"subject"_s).toString(), u"/orders/7"_s);
}

void tst_TopicResubmit::unmatchedDeadLettersStayInTheIndex()
{
    Harness h({topic(u"orders"_s, {subscription(u"billing"_s, eventTypes({u"Order.Created"_s}))})});
    const QList<qint64> ids = h.seed(
        {eventGridDeadLetter(u"orders"_s, u"billing"_s, u"match"_s, u"Order.Created"_s, u"/a"_s),
         eventGridDeadLetter(u"orders"_s, u"billing"_s, u"nomatch"_s, u"Order.Deleted"_s,
                             u"/b"_s)});

    const TopicResubmitResult dryRun = h.engine->resubmitThroughTopic(ids, ResubmitRun::DryRun);
    const TopicResubmitResult run = h.engine->resubmitThroughTopic(ids, ResubmitRun::Resubmit);
    for (const TopicResubmitResult &result : {dryRun, run}) {
        QCOMPARE(result.resubmitted, qint64(1));
        QCOMPARE(result.unmatched, qint64(1));
        QVERIFY(result.errors.isEmpty());
    }
    const QList<DeadLetterEntry> left = h.sqlite.deadLetters(DeadLetterQuery {}).value();
    QCOMPARE(left.size(), 1);
    QCOMPARE(left.at(0).eventId, u"nomatch"_s);
}

void tst_TopicResubmit::namesWhatCannotBeResubmitted()
{
    Harness h({topic(u"orders"_s, {subscription(u"billing"_s)}),
               topic(u"payments"_s, {subscription(u"ledger"_s)}),
               topic(u"returns"_s, {subscription(u"desk"_s)})});
    DeadLetterEntry noCopy
        = eventGridDeadLetter(u"orders"_s, u"billing"_s, u"no-copy"_s, u"Order.Created"_s, u"/c"_s);
    noCopy.eventBody.clear();
    const QList<qint64> ids = h.seed(
        {eventGridDeadLetter(u"orders"_s, u"billing"_s, u"fine"_s, u"Order.Created"_s, u"/a"_s),
         eventGridDeadLetter(u"payments"_s, u"ledger"_s, u"topic-gone"_s, u"Paid"_s, u"/p"_s),
         eventGridDeadLetter(u"returns"_s, u"desk"_s, u"schema-changed"_s, u"Returned"_s, u"/r"_s),
         noCopy});
    // payments deleted; returns now takes CloudEvents.
    h.apply({topic(u"orders"_s, {subscription(u"billing"_s)}),
             topic(u"returns"_s, {subscription(u"desk"_s)}, EventSchema::CloudEvents10)});

    const TopicResubmitResult result = h.engine->resubmitThroughTopic(ids, ResubmitRun::Resubmit);
    QCOMPARE(result.resubmitted, qint64(1));
    QCOMPARE(result.errors.size(), 3);
    const QString errors = result.errors.join(u'\n');
    const auto errorAbout = [&result](const QString &eventId) {
        for (const QString &error : result.errors) {
            if (error.contains(u"event "_s + eventId + u' '))
                return error;
        }
        return QString();
    };
    QVERIFY2(errorAbout(u"topic-gone"_s).contains(u"Topic 'payments' does not exist"_s),
             qPrintable(errors));
    QVERIFY2(errorAbout(u"schema-changed"_s).contains(u"no longer fits the input schema"_s)
                 && errorAbout(u"schema-changed"_s).contains(u"specversion"_s),
             qPrintable(errors));
    QVERIFY2(errorAbout(u"no-copy"_s).contains(u"no copy of the event"_s)
                 && errorAbout(u"no-copy"_s).contains(noCopy.blobPath),
             qPrintable(errors));
    // Each names its dead letter.
    for (const QString &error : result.errors)
        QVERIFY2(error.startsWith(u"dead letter "_s), qPrintable(error));
    QCOMPARE(h.deadLetterCount(), qint64(3)); // the refused ones stay
    QCOMPARE(h.storedDeliveries(), (QMap<QString, int> {{u"billing"_s, 1}}));
}

void tst_TopicResubmit::cloudEventsAndCustomSchemaEvents()
{
    Topic custom = topic(u"sensors"_s, {subscription(u"alerts"_s, eventTypes({u"Hot"_s}))},
                         EventSchema::Custom);
    custom.inputSchemaMapping.idSourceField = u"reading"_s;
    custom.inputSchemaMapping.eventTypeSourceField = u"kind"_s;
    custom.inputSchemaMapping.dataVersionDefaultValue = u"1.0"_s;
    Harness h({topic(u"devices"_s, {subscription(u"inventory"_s, subjectBeginsWith(u"/dev/"_s))},
                     EventSchema::CloudEvents10),
               custom});

    DeadLetterEntry cloudEvent;
    cloudEvent.topic = u"devices"_s;
    cloudEvent.subscription = u"inventory"_s;
    cloudEvent.eventId = u"ce-1"_s;
    cloudEvent.reason = DeadLetterReason::TimeToLiveExceeded;
    cloudEvent.publishMs = T0 - Minute;
    cloudEvent.eventBody
        = R"({"specversion":"1.0","id":"ce-1","source":"/fleet","type":"Added","subject":"/dev/9","data":{"n":1}})"_ba;
    DeadLetterEntry customEvent;
    customEvent.topic = u"sensors"_s;
    customEvent.subscription = u"alerts"_s;
    customEvent.eventId = u"r-77"_s;
    customEvent.reason = DeadLetterReason::TimeToLiveExceeded;
    customEvent.publishMs = T0 - 30 * Minute;
    customEvent.eventBody = R"({"reading":"r-77","kind":"Hot","celsius":81})"_ba;
    const QList<qint64> ids = h.seed({cloudEvent, customEvent});

    const TopicResubmitResult result = h.engine->resubmitThroughTopic(ids, ResubmitRun::Resubmit);
    QVERIFY2(result.errors.isEmpty(), qPrintable(result.errors.join(u'\n')));
    QCOMPARE(result.resubmitted, qint64(2));
    QCOMPARE(routesOf(result),
             (QMap<QString, qint64> {{u"devices/inventory"_s, 1}, {u"sensors/alerts"_s, 1}}));
    QMap<QString, StoredEvent> events;
    const QList<DeliveryRecord> records = h.sqlite.loadUnfinishedDeliveries().value();
    for (const DeliveryRecord &record : records) {
        const StoredEvent event = h.sqlite.loadEvents({record.eventSeq}).value().at(0);
        events.insert(event.id, event);
    }
    QCOMPARE(events.keys(), (QStringList {u"ce-1"_s, u"r-77"_s}));
    QCOMPARE(QJsonDocument::fromJson(events[u"ce-1"_s].body).object().value(u"source"_s).toString(),
             u"/fleet"_s);
    QCOMPARE(QJsonDocument::fromJson(events[u"r-77"_s].body).object().value(u"celsius"_s).toInt(),
             81);
    // A custom event without a mapped time keeps the one it was first given (its publish time).
    QCOMPARE(events[u"r-77"_s].eventTime, DeadLetterFormatter::formatTime(T0 - 30 * Minute));
}

void tst_TopicResubmit::storeFailureChangesNothing()
{
    Harness h({topic(u"orders"_s, {subscription(u"billing"_s)})});
    const QList<qint64> ids = h.seed(
        {eventGridDeadLetter(u"orders"_s, u"billing"_s, u"e1"_s, u"Order.Created"_s, u"/a"_s)});
    h.store.failNext(FaultyDeliveryStore::Operation::InsertResubmitted, 1, u"disk I/O error"_s);

    const TopicResubmitResult result = h.engine->resubmitThroughTopic(ids, ResubmitRun::Resubmit);
    QCOMPARE(result.resubmitted, qint64(0));
    QCOMPARE(result.errors.size(), 1);
    QVERIFY2(result.errors.at(0).contains(u"event e1"_s)
                 && result.errors.at(0).contains(u"disk I/O error"_s),
             qPrintable(result.errors.at(0)));
    QCOMPARE(h.deadLetterCount(), qint64(1));
    QVERIFY(h.storedDeliveries().isEmpty());
    QCOMPARE(h.engine->snapshot().subscriptions.at(0).backlog, qint64(0));

    // Tried again, it goes through.
    QCOMPARE(h.engine->resubmitThroughTopic(ids, ResubmitRun::Resubmit).resubmitted, qint64(1));
    QCOMPARE(h.deadLetterCount(), qint64(0));
}

void tst_TopicResubmit::resubmissionsTraceEachDeliveryToItsDeadLetter()
{
    Harness h({topic(u"orders"_s, {subscription(u"billing"_s), subscription(u"audit"_s)})});
    const QList<qint64> ids = h.seed(
        {eventGridDeadLetter(u"orders"_s, u"billing"_s, u"traced"_s, u"Order.Created"_s, u"/a"_s)});
    h.clock.advanceMs(Minute);
    QCOMPARE(h.engine->resubmitThroughTopic(ids, ResubmitRun::Resubmit).resubmitted, qint64(1));

    const QList<ResubmissionEntry> rows = h.resubmissionsOf(u"traced"_s);
    QCOMPARE(rows.size(), 2);
    QSet<qint64> deliveryIds;
    const QList<DeliveryRecord> records = h.sqlite.loadUnfinishedDeliveries().value();
    for (const DeliveryRecord &record : records)
        deliveryIds.insert(record.id);
    QStringList targets;
    for (const ResubmissionEntry &row : rows) {
        QCOMPARE(row.deadLetterId, ids.at(0));
        QCOMPARE(row.topic, u"orders"_s);
        QCOMPARE(row.fromSubscription, u"billing"_s);
        QCOMPARE(row.reason, DeadLetterReason::MaxDeliveryAttemptsExceeded);
        QCOMPARE(row.deadLetteredMs, T0 - 5 * Minute);
        QCOMPARE(row.timeMs, T0 + Minute);
        QCOMPARE(row.route, ResubmitRoute::ThroughTopic);
        QVERIFY(deliveryIds.contains(row.deliveryId));
        targets << row.toSubscription;
    }
    targets.sort();
    QCOMPARE(targets, (QStringList {u"audit"_s, u"billing"_s}));
}

QTEST_GUILESS_MAIN(tst_TopicResubmit)
#include "tst_topicresubmit.moc"
