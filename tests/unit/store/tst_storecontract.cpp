// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// The DeliveryStore contract, run against every backend of this build: each test function runs
// once per row of initTestCase_data() (sqlite, and postgresql on a throwaway server of this
// executable), on a new, empty store.

#include "host/StoreOpener.h"
#include "store/sqlite/SqliteDeliveryStore.h"
#if EVENTDESK_WITH_POSTGRESQL
#include "PostgresServer.h"
#include "store/postgres/PostgresDeliveryStore.h"
#endif

#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <memory>
#include <thread>

using namespace Qt::StringLiterals;
using namespace EventDesk;

namespace {

StoredEvent storedEvent(qint64 seq, const QString &id, const QString &topic = u"orders"_s)
{
    StoredEvent stored;
    stored.seq = seq;
    stored.topic = topic;
    stored.id = id;
    stored.eventType = u"Contoso.Order.Placed"_s;
    stored.subject = u"/orders/ü/%1"_s.arg(seq);
    stored.dataVersion = u"1.0"_s;
    stored.eventTime = u"2026-11-27T05:00:00.123Z"_s;
    stored.publishMs = 1'700'000'000'000 + seq;
    stored.body
        = QByteArray("{\"id\":\"") + id.toUtf8() + QByteArray("\",\"bin\":\"\0\xff\x01\"}", 14);
    return stored;
}

DeliveryRecord delivery(qint64 id, qint64 eventSeq, const QString &subscription)
{
    DeliveryRecord record;
    record.id = id;
    record.eventSeq = eventSeq;
    record.topic = u"orders"_s;
    record.subscription = subscription;
    record.state = DeliveryState::Pending;
    record.attempts = int(id % 3);
    record.dueMs = 5'000'000'000'000 + id;
    record.publishMs = 1'700'000'000'000 + eventSeq;
    record.lastOutcome = DeliveryOutcome::Busy;
    record.lastHttpStatus = 503;
    record.lastAttemptMs = 4'000'000'000'000 + id;
    record.reason = DeadLetterReason::None;
    record.deadLetterUnavailableSinceMs = 0;
    return record;
}

DeadLetterEntry deadLetter(const QString &topic, const QString &subscription,
                           const QString &eventId, DeadLetterReason reason, DeliveryOutcome outcome,
                           qint64 deadLetteredMs, const QByteArray &record)
{
    DeadLetterEntry entry;
    entry.topic = topic;
    entry.subscription = subscription;
    entry.eventId = eventId;
    entry.reason = reason;
    entry.lastOutcome = outcome;
    entry.lastHttpStatus = 500;
    entry.attempts = 30;
    entry.publishMs = deadLetteredMs - 1000;
    entry.lastAttemptMs = deadLetteredMs - 10;
    entry.deadLetteredMs = deadLetteredMs;
    entry.blobPath = u"deadletters/%1/2026/11/27/5/%2.json"_s.arg(subscription.toUpper(), eventId);
    entry.record = record;
    entry.eventType = u"Contoso.Order.Placed"_s;
    entry.subject = u"/orders"_s;
    entry.dataVersion = u"1.0"_s;
    entry.eventTime = u"2026-11-27T05:00:00Z"_s;
    entry.eventBody = QByteArray("{\"n\":\0}", 7);
    return entry;
}

bool sameDelivery(const DeliveryRecord &a, const DeliveryRecord &b)
{
    return a.id == b.id && a.eventSeq == b.eventSeq && a.topic == b.topic
        && a.subscription == b.subscription && a.state == b.state && a.attempts == b.attempts
        && a.dueMs == b.dueMs && a.publishMs == b.publishMs && a.lastOutcome == b.lastOutcome
        && a.lastHttpStatus == b.lastHttpStatus && a.lastAttemptMs == b.lastAttemptMs
        && a.reason == b.reason && a.deadLetterUnavailableSinceMs == b.deadLetterUnavailableSinceMs;
}

bool sameEvent(const StoredEvent &a, const StoredEvent &b)
{
    return a.seq == b.seq && a.topic == b.topic && a.id == b.id && a.eventType == b.eventType
        && a.subject == b.subject && a.dataVersion == b.dataVersion && a.eventTime == b.eventTime
        && a.publishMs == b.publishMs && a.body == b.body;
}

QList<qint64> idsOf(const QList<DeadLetterEntry> &entries)
{
    QList<qint64> ids;
    for (const DeadLetterEntry &entry : entries)
        ids.append(entry.id);
    return ids;
}

} // namespace

class StoreContractTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase_data();
    void initTestCase();
    void init();
    void cleanup();

    void publishRoundTripsEveryField();
    void insertPublishedIsAllOrNothing();
    void commitUpdatesAndFinishes();
    void eventLeavesWithItsLastDelivery();
    void commitWritesLogsAndProbation();
    void attemptLogStaysBounded();
    void deadLetterFiltersPagesAndCounts();
    void deadLettersByIdAndRemoval();
    void insertResubmittedIsAllOrNothing();
    void streamsManyDeliveriesInOrder();
    void callsFromSeveralThreads();
    void totalsCountWhatWasCommitted();
    void timeScalesAndDeadLetterTimes();

private:
    std::unique_ptr<DeliveryStore> openStore(int maxAttemptLogRows = 100000);
    QList<qint64> storeDeadLetters(const QList<DeadLetterEntry> &entries);

    std::unique_ptr<QTemporaryDir> m_folder;
    std::unique_ptr<DeliveryStore> m_store;
    QString m_location; // of the store openStore() opened last
    int m_databases = 0;
#if EVENTDESK_WITH_POSTGRESQL
    std::unique_ptr<Testing::PostgresServer> m_server;
#endif
};

void StoreContractTest::initTestCase_data()
{
    QTest::addColumn<QString>("backend");
    QTest::newRow("sqlite") << u"sqlite"_s;
#if EVENTDESK_WITH_POSTGRESQL
    QTest::newRow("postgresql") << u"postgresql"_s;
#endif
}

void StoreContractTest::initTestCase()
{
#if EVENTDESK_WITH_POSTGRESQL
    m_server = std::make_unique<Testing::PostgresServer>();
    QVERIFY2(m_server->isRunning(), qPrintable(m_server->errorText()));
#endif
}

std::unique_ptr<DeliveryStore> StoreContractTest::openStore(int maxAttemptLogRows)
{
    QFETCH_GLOBAL(QString, backend);
    if (backend == u"sqlite"_s) {
        auto store = std::make_unique<SqliteDeliveryStore>(maxAttemptLogRows);
        m_location = m_folder->filePath(u"store-%1.db"_s.arg(++m_databases));
        const auto opened = store->open(m_location);
        if (!opened) {
            qWarning() << opened.error();
            return {};
        }
        return store;
    }
#if EVENTDESK_WITH_POSTGRESQL
    const QString url = m_server->createDatabase(u"contract_%1"_s.arg(++m_databases));
    if (url.isEmpty()) {
        qWarning() << m_server->errorText();
        return {};
    }
    auto store = std::make_unique<PostgresDeliveryStore>(maxAttemptLogRows);
    m_location = url;
    const auto opened = store->open(url);
    if (!opened) {
        qWarning() << opened.error();
        return {};
    }
    return store;
#else
    return {};
#endif
}

void StoreContractTest::init()
{
    m_folder = std::make_unique<QTemporaryDir>();
    QVERIFY(m_folder->isValid());
    m_store = openStore();
    QVERIFY(m_store);
}

void StoreContractTest::cleanup()
{
    m_store.reset();
    m_folder.reset();
}

QList<qint64> StoreContractTest::storeDeadLetters(const QList<DeadLetterEntry> &entries)
{
    StoreBatch batch;
    batch.deadLetters = entries;
    if (auto committed = m_store->commit(batch); !committed) {
        qWarning() << committed.error();
        return {};
    }
    auto all = m_store->deadLetters({.limit = 0});
    return all ? idsOf(all.value()) : QList<qint64>();
}

void StoreContractTest::publishRoundTripsEveryField()
{
    const QList<StoredEvent> events
        = {storedEvent(7, u"a,b ✓ \"quoted\""_s), storedEvent(8, u"e-8"_s)};
    QList<DeliveryRecord> deliveries
        = {delivery(20, 7, u"sub-one"_s), delivery(21, 7, u"sub-two"_s),
           delivery(22, 8, u"sub-one"_s)};
    deliveries[1].state = DeliveryState::InFlight;
    deliveries[2].state = DeliveryState::DeadLetterPending;
    deliveries[2].reason = DeadLetterReason::MaxDeliveryAttemptsExceeded;
    deliveries[2].deadLetterUnavailableSinceMs = 123456789012;
    QVERIFY2(m_store->insertPublished(events, deliveries), "insertPublished");

    const auto loaded = m_store->loadUnfinishedDeliveries();
    QVERIFY2(loaded, qPrintable(loaded.error()));
    QCOMPARE(loaded->size(), deliveries.size());
    for (qsizetype i = 0; i < deliveries.size(); ++i)
        QVERIFY2(sameDelivery(loaded->at(i), deliveries.at(i)), qPrintable(QString::number(i)));

    QList<qint64> streamed;
    QVERIFY(m_store->forEachUnfinishedDelivery(
        [&](const DeliveryRecord &record) { streamed.append(record.id); }));
    QCOMPARE(streamed, (QList<qint64> {20, 21, 22}));

    const auto stored = m_store->loadEvents({8, 7, 7, 99});
    QVERIFY2(stored, qPrintable(stored.error()));
    QCOMPARE(stored->size(), 2);
    for (const StoredEvent &loadedEvent : stored.value()) {
        const StoredEvent &expected = loadedEvent.seq == 7 ? events[0] : events[1];
        QVERIFY2(sameEvent(loadedEvent, expected), qPrintable(loadedEvent.id));
    }

    const auto ids = m_store->maxIds();
    QVERIFY(ids);
    QCOMPARE(ids->eventSeq, 8);
    QCOMPARE(ids->deliveryId, 22);
}

void StoreContractTest::insertPublishedIsAllOrNothing()
{
    QVERIFY(m_store->insertPublished({storedEvent(1, u"one"_s)}, {delivery(1, 1, u"sub-one"_s)}));
    // Delivery id 1 exists: the whole second publish fails, its event included.
    const auto failed = m_store->insertPublished(
        {storedEvent(2, u"two"_s)}, {delivery(2, 2, u"sub-one"_s), delivery(1, 2, u"sub-two"_s)});
    QVERIFY(!failed);
    QVERIFY2(failed.error().contains(u"delivery 1"_s), qPrintable(failed.error()));
    const auto events = m_store->loadEvents({1, 2});
    QVERIFY(events);
    QCOMPARE(events->size(), 1);
    QCOMPARE(events->first().id, u"one"_s);
    const auto deliveries = m_store->loadUnfinishedDeliveries();
    QVERIFY(deliveries);
    QCOMPARE(deliveries->size(), 1);
    QCOMPARE(m_store->maxIds()->eventSeq, 1);
    // The store goes on working after the failure.
    QVERIFY(m_store->insertPublished({storedEvent(3, u"three"_s)}, {delivery(3, 3, u"sub-one"_s)}));
    QCOMPARE(m_store->loadUnfinishedDeliveries()->size(), 2);
}

void StoreContractTest::commitUpdatesAndFinishes()
{
    QVERIFY(m_store->insertPublished({storedEvent(1, u"one"_s), storedEvent(2, u"two"_s)},
                                     {delivery(1, 1, u"sub-one"_s), delivery(2, 2, u"sub-one"_s)}));
    DeliveryRecord updated = delivery(1, 1, u"sub-one"_s);
    updated.state = DeliveryState::DeadLetterPending;
    updated.attempts = 17;
    updated.dueMs = 42;
    updated.lastOutcome = DeliveryOutcome::TimedOut;
    updated.lastHttpStatus = 0;
    updated.lastAttemptMs = 41;
    updated.reason = DeadLetterReason::TimeToLiveExceeded;
    updated.deadLetterUnavailableSinceMs = 40;
    StoreBatch batch;
    batch.updates = {updated};
    batch.finished = {{2, 2, DeliveryState::Delivered}};
    QVERIFY(m_store->commit(batch));

    const auto loaded = m_store->loadUnfinishedDeliveries();
    QVERIFY(loaded);
    QCOMPARE(loaded->size(), 1);
    QVERIFY(sameDelivery(loaded->first(), updated));
    QCOMPARE(m_store->loadEvents({2})->size(), 0);

    // The high-water marks stay when the rows are gone: no id is handed out twice.
    QVERIFY(m_store->commit(StoreBatch {.finished = {{1, 1, DeliveryState::DeadLettered}}}));
    QCOMPARE(m_store->loadUnfinishedDeliveries()->size(), 0);
    const auto ids = m_store->maxIds();
    QVERIFY(ids);
    QCOMPARE(ids->eventSeq, 2);
    QCOMPARE(ids->deliveryId, 2);
}

void StoreContractTest::eventLeavesWithItsLastDelivery()
{
    QVERIFY(
        m_store->insertPublished({storedEvent(5, u"five"_s)},
                                 {delivery(10, 5, u"sub-one"_s), delivery(11, 5, u"sub-two"_s)}));
    QVERIFY(m_store->commit(StoreBatch {.finished = {{10, 5, DeliveryState::Delivered}}}));
    QCOMPARE(m_store->loadEvents({5})->size(), 1); // sub-two still needs it
    QVERIFY(m_store->commit(StoreBatch {.finished = {{11, 5, DeliveryState::Dropped}}}));
    QCOMPARE(m_store->loadEvents({5})->size(), 0);
}

void StoreContractTest::commitWritesLogsAndProbation()
{
    StoreBatch batch;
    batch.drops = {{u"orders"_s, u"sub-one"_s, u"d-1"_s, DeadLetterReason::SubscriptionDeleted,
                    DeliveryOutcome::Busy, 503, 3, 1000},
                   {u"orders"_s, u"sub-two"_s, u"d-2"_s, DeadLetterReason::TimeToLiveExceeded,
                    DeliveryOutcome::NotFound, 404, 4, 2000}};
    AttemptLogEntry first;
    first.timeMs = 100;
    first.topic = u"orders"_s;
    first.subscription = u"sub-one"_s;
    first.eventIds = {u"x,1"_s, u"ü:2:"_s, u""_s, u"3"_s};
    first.attempt = 2;
    first.httpStatus = 503;
    first.outcome = DeliveryOutcome::Busy;
    first.durationMs = 12;
    first.nextDueMs = 10100;
    AttemptLogEntry second = first;
    second.timeMs = 200;
    second.eventIds = {u"only"_s};
    second.httpStatus = 200;
    second.outcome = DeliveryOutcome::Delivered;
    second.nextDueMs = 0;
    batch.attempts = {first, second};
    batch.probation = {{u"orders"_s, u"sub-one"_s, 1, DeliveryOutcome::Busy, 5000, 60000, 10}};
    QVERIFY(m_store->commit(batch));
    // Probation is one row per subscription: a later state replaces it.
    QVERIFY(
        m_store->commit(StoreBatch {.probation = {{u"orders"_s, u"sub-one"_s, 2,
                                                   DeliveryOutcome::TimedOut, 9000, 120000, 12}}}));

    const auto drops = m_store->droppedDeliveries(0);
    QVERIFY(drops);
    QCOMPARE(drops->size(), 2);
    QCOMPARE(drops->at(0).eventId, u"d-2"_s); // newest first
    QCOMPARE(drops->at(0).reason, DeadLetterReason::TimeToLiveExceeded);
    QCOMPARE(drops->at(0).lastHttpStatus, 404);
    QCOMPARE(drops->at(0).droppedMs, 2000);
    QCOMPARE(m_store->droppedDeliveries(1)->size(), 1);

    const auto log = m_store->attemptLog(0);
    QVERIFY2(log, qPrintable(log.error()));
    QCOMPARE(log->size(), 2);
    QCOMPARE(log->at(0).timeMs, 200);
    QCOMPARE(log->at(0).eventIds, QStringList {u"only"_s});
    QCOMPARE(log->at(1).eventIds, first.eventIds);
    QCOMPARE(log->at(1).attempt, 2);
    QCOMPARE(log->at(1).httpStatus, 503);
    QCOMPARE(log->at(1).outcome, DeliveryOutcome::Busy);
    QCOMPARE(log->at(1).durationMs, 12);
    QCOMPARE(log->at(1).nextDueMs, 10100);
    QVERIFY(log->at(0).id > log->at(1).id);
    QCOMPARE(m_store->attemptLog(1)->size(), 1);

    const auto probation = m_store->loadProbation();
    QVERIFY(probation);
    QCOMPARE(probation->size(), 1);
    QCOMPARE(probation->first().state, 2);
    QCOMPARE(probation->first().cause, DeliveryOutcome::TimedOut);
    QCOMPARE(probation->first().untilMs, 9000);
    QCOMPARE(probation->first().durationMs, 120000);
    QCOMPARE(probation->first().consecutiveFailures, 12);
}

void StoreContractTest::attemptLogStaysBounded()
{
    m_store = openStore(10);
    QVERIFY(m_store);
    int written = 0;
    for (int commit = 0; commit < 5; ++commit) {
        StoreBatch batch;
        for (int i = 0; i < 7; ++i) {
            AttemptLogEntry entry;
            entry.timeMs = ++written;
            entry.topic = u"orders"_s;
            entry.subscription = u"sub-one"_s;
            entry.eventIds = {u"e-%1"_s.arg(written), u"f-%1"_s.arg(written)};
            batch.attempts.append(entry);
        }
        QVERIFY(m_store->commit(batch));
        const auto log = m_store->attemptLog(0);
        QVERIFY(log);
        QVERIFY2(log->size() <= 10, qPrintable(QString::number(log->size())));
        QCOMPARE(log->first().timeMs, written); // the newest is always kept
    }
    const auto log = m_store->attemptLog(0);
    QCOMPARE(log->size(), 10);
    QCOMPARE(log->last().timeMs, written - 9);
    QCOMPARE(log->last().eventIds,
             (QStringList {u"e-%1"_s.arg(written - 9), u"f-%1"_s.arg(written - 9)}));
}

void StoreContractTest::deadLetterFiltersPagesAndCounts()
{
    QList<DeadLetterEntry> entries;
    for (int i = 0; i < 12; ++i) {
        const QString topic = i % 2 ? u"orders"_s : u"billing"_s;
        const QString subscription = i % 3 ? u"sub-one"_s : u"sub-two"_s;
        const DeadLetterReason reason = i % 4 ? DeadLetterReason::MaxDeliveryAttemptsExceeded
                                              : DeadLetterReason::TimeToLiveExceeded;
        const DeliveryOutcome outcome = i < 6 ? DeliveryOutcome::Busy : DeliveryOutcome::NotFound;
        const QByteArray record = i == 5 ? QByteArray("{\"data\":\"Needle 100%_done\"}")
                                         : QByteArray("{\"data\":\"hay\"}");
        entries.append(deadLetter(topic, subscription, u"dl-%1"_s.arg(i), reason, outcome,
                                  10'000 + i * 1000, record));
    }
    const QList<qint64> ids = storeDeadLetters(entries);
    QCOMPARE(ids.size(), 12);
    QVERIFY(std::is_sorted(ids.crbegin(), ids.crend())); // newest first

    const auto all = m_store->deadLetters({.limit = 0});
    QVERIFY(all);
    const DeadLetterEntry &newest = all->first();
    QCOMPARE(newest.eventId, u"dl-11"_s);
    QCOMPARE(newest.blobPath, entries[11].blobPath);
    QCOMPARE(newest.record, entries[11].record);
    QCOMPARE(newest.eventBody, entries[11].eventBody);
    QCOMPARE(newest.deadLetteredMs, 21'000);
    QCOMPARE(newest.lastOutcome, DeliveryOutcome::NotFound);

    const auto count = [this](const DeadLetterQuery &query) {
        const auto counted = m_store->countDeadLetters(query);
        return counted ? counted.value() : -1;
    };
    QCOMPARE(count({}), 12);
    QCOMPARE(count({.topic = u"orders"_s}), 6);
    QCOMPARE(count({.subscription = u"sub-two"_s}), 4);
    QCOMPARE(count({.topic = u"orders"_s, .subscription = u"sub-two"_s}), 2); // 3, 9
    QCOMPARE(count({.reason = DeadLetterReason::TimeToLiveExceeded}), 3); // 0, 4, 8
    QCOMPARE(count({.lastOutcome = DeliveryOutcome::NotFound}), 6);
    QCOMPARE(count({.fromMs = 15'000}), 7);
    QCOMPARE(count({.toMs = 12'000}), 3);
    QCOMPARE(count({.fromMs = 12'000, .toMs = 14'000}), 3);
    // Text: a substring of the record, any case of ASCII letters, '%' and '_' taken literally.
    QCOMPARE(count({.text = u"needle"_s}), 1);
    QCOMPARE(count({.text = u"100%_d"_s}), 1);
    QCOMPARE(count({.text = u"0%d"_s}), 0);
    QCOMPARE(count({.text = u"HAY"_s}), 11);
    const auto found = m_store->deadLetters({.text = u"NEEDLE"_s});
    QVERIFY(found);
    QCOMPARE(found->size(), 1);
    QCOMPARE(found->first().eventId, u"dl-5"_s);

    // Keyset pages of 5 through one filter: every row once, newest first, the same count on every
    // page whatever beforeId is.
    DeadLetterQuery page {.subscription = u"sub-one"_s, .limit = 5};
    QList<qint64> paged;
    for (int pages = 0; pages < 10; ++pages) {
        const auto rows = m_store->deadLetters(page);
        QVERIFY(rows);
        QCOMPARE(count(page), 8);
        paged += idsOf(rows.value());
        if (rows->size() < page.limit)
            break;
        page.beforeId = rows->last().id;
    }
    QList<qint64> expected;
    for (const DeadLetterEntry &entry : all.value()) {
        if (entry.subscription == u"sub-one"_s)
            expected.append(entry.id);
    }
    QCOMPARE(paged, expected);
    QCOMPARE(m_store->deadLetters({.limit = 3})->size(), 3);
}

void StoreContractTest::deadLettersByIdAndRemoval()
{
    QList<DeadLetterEntry> entries;
    for (int i = 0; i < 4; ++i) {
        entries.append(deadLetter(u"orders"_s, u"sub-one"_s, u"dl-%1"_s.arg(i),
                                  DeadLetterReason::MaxDeliveryAttemptsExceeded,
                                  DeliveryOutcome::Busy, 1000 + i, "{}"));
    }
    const QList<qint64> ids = storeDeadLetters(entries); // newest first
    QCOMPARE(ids.size(), 4);
    const auto some = m_store->deadLettersById({ids[3], ids[1], 999'999, ids[1]});
    QVERIFY(some);
    QCOMPARE(idsOf(some.value()), (QList<qint64> {ids[1], ids[3]}));
    QCOMPARE(some->first().eventId, u"dl-2"_s);

    QVERIFY(m_store->removeDeadLetters({ids[0], ids[2]}));
    QCOMPARE(idsOf(m_store->deadLetters({}).value()), (QList<qint64> {ids[1], ids[3]}));
    // A new dead letter never takes the id of a removed one.
    const QList<qint64> after = storeDeadLetters(
        {deadLetter(u"orders"_s, u"sub-one"_s, u"dl-new"_s, DeadLetterReason::TimeToLiveExceeded,
                    DeliveryOutcome::Busy, 5000, "{}")});
    QCOMPARE(after.size(), 3);
    QVERIFY(after.first() > ids.first());
}

void StoreContractTest::insertResubmittedIsAllOrNothing()
{
    const QList<qint64> ids = storeDeadLetters(
        {deadLetter(u"orders"_s, u"sub-one"_s, u"dl-a"_s, DeadLetterReason::TimeToLiveExceeded,
                    DeliveryOutcome::Busy, 1000, "{}"),
         deadLetter(u"orders"_s, u"sub-one"_s, u"dl-b"_s, DeadLetterReason::TimeToLiveExceeded,
                    DeliveryOutcome::Busy, 2000, "{}")});
    QCOMPARE(ids.size(), 2);
    QVERIFY(
        m_store->insertPublished({storedEvent(1, u"existing"_s)}, {delivery(1, 1, u"sub-one"_s)}));

    ResubmissionEntry trace;
    trace.timeMs = 3000;
    trace.deadLetterId = ids[0];
    trace.eventId = u"dl-b"_s;
    trace.topic = u"orders"_s;
    trace.fromSubscription = u"sub-one"_s;
    trace.toSubscription = u"sub-one"_s;
    trace.deliveryId = 1; // taken: the whole resubmission fails
    trace.route = ResubmitRoute::ToSubscription;
    const auto failed = m_store->insertResubmitted(
        {storedEvent(2, u"dl-b"_s)}, {delivery(1, 2, u"sub-one"_s)}, {trace}, {ids[0]});
    QVERIFY(!failed);
    QCOMPARE(m_store->countDeadLetters({}).value(), 2);
    QCOMPARE(m_store->loadEvents({2})->size(), 0);

    trace.deliveryId = 2;
    const auto done = m_store->insertResubmitted({storedEvent(2, u"dl-b"_s)},
                                                 {delivery(2, 2, u"sub-one"_s)}, {trace}, {ids[0]});
    QVERIFY2(done, qPrintable(done.error()));
    QCOMPARE(idsOf(m_store->deadLetters({}).value()), (QList<qint64> {ids[1]}));
    QCOMPARE(m_store->loadEvents({2})->size(), 1);
    QCOMPARE(m_store->loadUnfinishedDeliveries()->size(), 2);
    QCOMPARE(m_store->maxIds()->deliveryId, 2);
}

void StoreContractTest::streamsManyDeliveriesInOrder()
{
    // More rows than one page of a backend that reads in pages, in more than one pipeline sync.
    constexpr int Count = 12'345;
    QList<StoredEvent> events;
    QList<DeliveryRecord> deliveries;
    for (int i = 1; i <= Count; ++i) {
        events.append(storedEvent(i, u"bulk-%1"_s.arg(i)));
        deliveries.append(delivery(i, i, u"sub-one"_s));
    }
    QVERIFY(m_store->insertPublished(events, deliveries));
    qint64 previous = 0;
    int visited = 0;
    bool ordered = true;
    QVERIFY(m_store->forEachUnfinishedDelivery([&](const DeliveryRecord &record) {
        ordered = ordered && record.id > previous;
        previous = record.id;
        ++visited;
    }));
    QCOMPARE(visited, Count);
    QVERIFY(ordered);
    QCOMPARE(m_store->loadEvents({1, Count / 2, Count})->size(), 3);
    StoreBatch finished;
    for (int i = 1; i <= Count; i += 2)
        finished.finished.append({i, i, DeliveryState::Delivered});
    QVERIFY(m_store->commit(finished));
    QCOMPARE(m_store->loadUnfinishedDeliveries()->size(), Count / 2);
}

void StoreContractTest::callsFromSeveralThreads()
{
    // The engine publishes from its parser threads while its own thread commits: the store
    // serializes the calls itself.
    constexpr int PerThread = 200;
    std::atomic<int> failures = 0;
    const auto publish = [&](qint64 first) {
        for (qint64 i = first; i < first + PerThread; ++i) {
            if (!m_store->insertPublished({storedEvent(i, u"t-%1"_s.arg(i))},
                                          {delivery(i, i, u"sub-one"_s)}))
                ++failures;
        }
    };
    const auto commit = [&] {
        for (int i = 0; i < PerThread; ++i) {
            AttemptLogEntry entry;
            entry.timeMs = i;
            entry.eventIds = {u"c-%1"_s.arg(i)};
            if (!m_store->commit(StoreBatch {.attempts = {entry}}) || !m_store->maxIds())
                ++failures;
        }
    };
    std::thread first(publish, 1);
    std::thread second(publish, 1 + PerThread);
    std::thread third(commit);
    first.join();
    second.join();
    third.join();
    QCOMPARE(failures.load(), 0);
    QCOMPARE(m_store->loadUnfinishedDeliveries()->size(), 2 * PerThread);
    QCOMPARE(m_store->attemptLog(0)->size(), PerThread);
    QCOMPARE(m_store->maxIds()->eventSeq, 2 * PerThread);
}

// The running totals (StoreTotals.h) count what each transaction wrote, as the engine counts it,
// and nothing of a transaction that failed; a reader beside the store reads them.
void StoreContractTest::totalsCountWhatWasCommitted()
{
    // Three events: the first matched by two subscriptions, the second by one, the third by none.
    QVERIFY(m_store->insertPublished(
        {storedEvent(1, u"e-1"_s), storedEvent(2, u"e-2"_s), storedEvent(3, u"e-3"_s)},
        {delivery(1, 1, u"sub-one"_s), delivery(2, 1, u"sub-two"_s), delivery(3, 2, u"sub-one"_s)}));
    // A publish that fails (its event seq exists) counts nothing.
    QVERIFY(!m_store->insertPublished({storedEvent(1, u"again"_s)}, {}));

    StoreBatch batch;
    AttemptLogEntry busy;
    busy.topic = u"orders"_s;
    busy.subscription = u"sub-one"_s;
    busy.eventIds = {u"e-1"_s, u"e-2"_s};
    busy.httpStatus = 503;
    busy.outcome = DeliveryOutcome::Busy;
    busy.durationMs = 30;
    AttemptLogEntry delivered = busy;
    delivered.eventIds = {u"e-1"_s};
    delivered.httpStatus = 200;
    delivered.outcome = DeliveryOutcome::Delivered;
    delivered.durationMs = 10;
    AttemptLogEntry timedOut = busy;
    timedOut.subscription = u"sub-two"_s;
    timedOut.eventIds = {u"e-1"_s};
    timedOut.httpStatus = 0;
    timedOut.outcome = DeliveryOutcome::TimedOut;
    AttemptLogEntry aborted = timedOut;
    aborted.outcome = DeliveryOutcome::Aborted; // its timeout is the attempt above
    batch.attempts = {busy, delivered, timedOut, aborted};
    batch.deadLetters = {deadLetter(u"orders"_s, u"sub-one"_s, u"e-2"_s,
                                    DeadLetterReason::MaxDeliveryAttemptsExceeded,
                                    DeliveryOutcome::Busy, 5000, "{}")};
    batch.drops = {{u"orders"_s, u"sub-two"_s, u"e-1"_s, DeadLetterReason::TimeToLiveExceeded,
                    DeliveryOutcome::TimedOut, 0, 3, 6000}};
    QVERIFY(m_store->commit(batch));

    // Resubmitting the dead letter creates a delivery, and publishes nothing.
    const auto deadLetters = m_store->deadLetters({.limit = 0});
    QVERIFY(deadLetters);
    QCOMPARE(deadLetters->size(), 1);
    QVERIFY(m_store->insertResubmitted({storedEvent(4, u"e-2"_s)}, {delivery(4, 4, u"sub-one"_s)},
                                       {}, {deadLetters->first().id}));

    // Enough commits that the PostgreSQL store folds its changes into totals at least once.
    for (int i = 0; i < 70; ++i) {
        AttemptLogEntry more = delivered;
        more.eventIds = {u"m-%1"_s.arg(i)};
        QVERIFY(m_store->commit(StoreBatch {.attempts = {more}}));
    }

    auto reader = openDeliveryStoreReader(m_location);
    QVERIFY2(reader, qPrintable(reader.error()));
    const auto totals = reader.value()->totals();
    QVERIFY2(totals, qPrintable(totals.error()));

    QCOMPARE(totals->topic(u"orders"_s).published, 3u);
    QCOMPARE(totals->topic(u"ORDERS"_s).unmatched, 1u); // names compare without case
    const SubscriptionTotals one = totals->subscription(u"orders"_s, u"sub-one"_s);
    QCOMPARE(one.matched, 3u); // two published, one resubmitted
    QCOMPARE(one.delivered, 71u);
    QCOMPARE(one.failedByOutcome.value(DeliveryOutcome::Busy), 2u); // per event
    QCOMPARE(one.failedAttempts(), 2u);
    QCOMPARE(one.requests, 72u);
    QCOMPARE(one.latencyCount, 72u);
    QCOMPARE(one.latencySumMs, 30.0 + 71 * 10.0);
    QCOMPARE(one.deadLetteredByReason.value(DeadLetterReason::MaxDeliveryAttemptsExceeded), 1u);
    QCOMPARE(one.dropped(), 0u);
    const SubscriptionTotals two = totals->subscription(u"orders"_s, u"sub-two"_s);
    QCOMPARE(two.matched, 1u);
    QCOMPARE(two.delivered, 0u);
    QCOMPARE(two.failedByOutcome.value(DeliveryOutcome::TimedOut), 1u);
    QCOMPARE(two.failedByOutcome.value(DeliveryOutcome::Aborted), 0u);
    QCOMPARE(two.requests, 1u);
    QCOMPARE(two.latencyCount, 0u); // no answer
    QCOMPARE(two.droppedByReason.value(DeadLetterReason::TimeToLiveExceeded), 1u);

    const SubscriptionTotals all = totals->allSubscriptions();
    QCOMPARE(all.matched, 4u);
    QCOMPARE(all.deadLettered(), 1u);
    QCOMPARE(all.dropped(), 1u);
    QCOMPARE(totals->allTopics().published, 3u);
}

// What a reader needs to show engine times honestly: the scale of the last run and of the fastest,
// and the times of the oldest and newest dead letter.
void StoreContractTest::timeScalesAndDeadLetterTimes()
{
    auto reader = openDeliveryStoreReader(m_location);
    QVERIFY2(reader, qPrintable(reader.error()));
    QCOMPARE(reader.value()->timeScales().value(), (EngineTimeScales {0, 0})); // never recorded
    QVERIFY(reader.value()->deadLetterTimes().value().isEmpty());

    QVERIFY(m_store->recordTimeScale(600));
    QCOMPARE(reader.value()->timeScales().value(), (EngineTimeScales {600, 600}));
    QVERIFY(m_store->recordTimeScale(1));
    QCOMPARE(reader.value()->timeScales().value(), (EngineTimeScales {1, 600}));
    QVERIFY(m_store->recordTimeScale(2.5));
    QCOMPARE(reader.value()->timeScales().value(), (EngineTimeScales {2.5, 600}));

    storeDeadLetters({deadLetter(u"orders"_s, u"a"_s, u"e-1"_s, DeadLetterReason::TimeToLiveExceeded,
                                 DeliveryOutcome::Busy, 7'000, "{}"),
                      deadLetter(u"orders"_s, u"a"_s, u"e-2"_s, DeadLetterReason::TimeToLiveExceeded,
                                 DeliveryOutcome::Busy, 3'000, "{}"),
                      deadLetter(u"orders"_s, u"b"_s, u"e-3"_s, DeadLetterReason::TimeToLiveExceeded,
                                 DeliveryOutcome::Busy, 5'000, "{}")});
    QCOMPARE(reader.value()->deadLetterTimes().value(), (TimeRange {3'000, 7'000}));
}

QTEST_GUILESS_MAIN(StoreContractTest)
#include "tst_storecontract.moc"
