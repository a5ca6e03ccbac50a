// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// Several engines on one PostgreSQL store (issue 21), at the store's level: the version-1 store
// migrated to version 2, instances and their leases, id blocks, claims that never hand the same
// delivery to two instances, and fencing of the changes of an instance that lost a delivery.
// Against a real server of this executable. An instance is made dead by moving its last heartbeat
// back in the store (the server's clock judges leases), so nothing here waits for a lease to run
// out.

#include "PostgresServer.h"
#include "store/postgres/PostgresDeliveryStore.h"

#include <QSet>
#include <QTest>

#include <memory>
#include <thread>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using EventDesk::Testing::PostgresServer;

namespace {

// The schema version 1 of the store, as EventDesk's first PostgreSQL store created it.
constexpr char Version1Schema[]
    = "CREATE TABLE eventdesk_store (application text NOT NULL, version integer NOT NULL);"
      "INSERT INTO eventdesk_store (application, version) VALUES ('EventDesk', 1);"
      "CREATE TABLE meta (key text PRIMARY KEY, value bigint NOT NULL);"
      "INSERT INTO meta (key, value) VALUES ('max_event_seq', 0), ('max_delivery_id', 0);"
      "CREATE TABLE events (seq bigint PRIMARY KEY, topic text, event_id text, event_type text,"
      " subject text, data_version text, event_time text, publish_ms bigint, body bytea);"
      "CREATE TABLE deliveries (id bigint PRIMARY KEY, event_seq bigint NOT NULL, topic text,"
      " subscription text, state bigint, attempts bigint, due_ms bigint, publish_ms bigint,"
      " last_outcome bigint, last_http_status bigint, last_attempt_ms bigint, reason bigint,"
      " dl_unavailable_since_ms bigint);"
      "CREATE INDEX deliveries_by_event ON deliveries (event_seq);"
      "CREATE TABLE dead_letters (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, topic text,"
      " subscription text, event_id text, reason bigint, last_outcome bigint,"
      " last_http_status bigint, attempts bigint, publish_ms bigint, last_attempt_ms bigint,"
      " dead_lettered_ms bigint, blob_path text, record bytea, event_type text, subject text,"
      " data_version text, event_time text, event_body bytea);"
      "CREATE INDEX dead_letters_by_subscription ON dead_letters (subscription, id);"
      "CREATE INDEX dead_letters_by_topic_subscription ON dead_letters (topic, subscription, id);"
      "CREATE INDEX dead_letters_by_reason ON dead_letters (reason, id);"
      "CREATE INDEX dead_letters_by_outcome ON dead_letters (last_outcome, id);"
      "CREATE INDEX dead_letters_by_time ON dead_letters (dead_lettered_ms);"
      "CREATE INDEX dead_letters_by_event ON dead_letters (event_id);"
      "CREATE TABLE dropped (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, topic text,"
      " subscription text, event_id text, reason bigint, last_outcome bigint,"
      " last_http_status bigint, attempts bigint, dropped_ms bigint);"
      "CREATE INDEX dropped_by_event ON dropped (event_id);"
      "CREATE TABLE attempt_log (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
      " time_ms bigint, topic text, subscription text, attempt bigint, http_status bigint,"
      " outcome bigint, duration_ms bigint, next_due_ms bigint);"
      "CREATE TABLE attempt_events (attempt_id bigint NOT NULL, position bigint NOT NULL,"
      " event_id text NOT NULL, PRIMARY KEY (attempt_id, position));"
      "CREATE TABLE resubmissions (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
      " time_ms bigint, dead_letter_id bigint, event_id text, topic text, from_subscription text,"
      " reason bigint, dead_lettered_ms bigint, to_subscription text, delivery_id bigint,"
      " route bigint);"
      "CREATE INDEX resubmissions_by_event ON resubmissions (event_id);"
      "CREATE TABLE probation (topic text NOT NULL, subscription text NOT NULL, state bigint,"
      " cause bigint, until_ms bigint, duration_ms bigint, failures bigint,"
      " PRIMARY KEY (topic, subscription));";

// What a version-1 engine left behind: three events with a delivery each, mid-retry (two failed
// attempts, the next due at 5000 + id), one attempt logged, and high-water marks past the rows
// (events 4 to 9 were delivered and removed).
constexpr char Version1Rows[]
    = "INSERT INTO events (seq, topic, event_id, event_type, subject, data_version, event_time,"
      " publish_ms, body) SELECT n, 'orders', 'old-' || n, 'T', 's', '1', '', 1000, '{}'"
      " FROM generate_series(1, 3) AS n;"
      "INSERT INTO deliveries (id, event_seq, topic, subscription, state, attempts, due_ms,"
      " publish_ms, last_outcome, last_http_status, last_attempt_ms, reason,"
      " dl_unavailable_since_ms) SELECT n, n, 'orders', 'sub-one', 0, 2, 5000 + n, 1000, 4, 503,"
      " 3000, 0, 0 FROM generate_series(1, 3) AS n;"
      "INSERT INTO attempt_log (time_ms, topic, subscription, attempt, http_status, outcome,"
      " duration_ms, next_due_ms) VALUES (3000, 'orders', 'sub-one', 2, 503, 4, 7, 5001);"
      "UPDATE meta SET value = 9;";

StoredEvent storedEvent(qint64 seq)
{
    StoredEvent stored;
    stored.seq = seq;
    stored.topic = u"orders"_s;
    stored.id = u"event-%1"_s.arg(seq);
    stored.body = "{}";
    return stored;
}

DeliveryRecord delivery(qint64 id, qint64 eventSeq)
{
    DeliveryRecord record;
    record.id = id;
    record.eventSeq = eventSeq;
    record.topic = u"orders"_s;
    record.subscription = u"sub-one"_s;
    record.dueMs = 1000 + id;
    record.publishMs = 1000;
    return record;
}

// count events with a delivery each, ids and seqs first .. first + count - 1.
bool insertDeliveries(DeliveryStore &store, qint64 first, qint64 count)
{
    QList<StoredEvent> events;
    QList<DeliveryRecord> deliveries;
    for (qint64 id = first; id < first + count; ++id) {
        events.append(storedEvent(id));
        deliveries.append(delivery(id, id));
    }
    return bool(store.insertPublished(events, deliveries));
}

InstanceInfo instanceInfo(qint64 processId)
{
    return InstanceInfo {u"test-host"_s, processId, 10'000};
}

QList<qint64> claimIds(InstanceLeases &leases, int limit = 1000)
{
    QList<qint64> ids;
    for (;;) {
        const auto claimed = leases.claimDeliveries(
            limit, [&](const DeliveryRecord &record) { ids.append(record.id); });
        if (!claimed || claimed.value() == 0)
            return ids;
    }
}

} // namespace

class PostgresLeasesTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();

    void migratesVersion1Store();
    void failedMigrationLeavesVersion1Untouched();
    void idBlocksNeverOverlap();
    void twoInstancesNeverClaimTheSameDelivery();
    void liveInstancesKeepTheirDeliveries();
    void deadInstanceIsTakenOverAndFenced();
    void releasedDeliveriesAreClaimableAtOnce();
    void attemptsNameTheirInstance();
    void probationIsReadByTheOtherInstances();

private:
    // A new database as a store with a registered instance per store returned.
    QString newStore(const QString &name);
    std::unique_ptr<PostgresDeliveryStore> openStore(const QString &url);
    void makeDead(const QString &url, qint64 instance);

    std::unique_ptr<PostgresServer> m_server;
};

void PostgresLeasesTest::initTestCase()
{
    m_server = std::make_unique<PostgresServer>();
    QVERIFY2(m_server->isRunning(), qPrintable(m_server->errorText()));
}

QString PostgresLeasesTest::newStore(const QString &name)
{
    const QString url = m_server->createDatabase(name);
    if (url.isEmpty())
        qWarning() << m_server->errorText();
    return url;
}

std::unique_ptr<PostgresDeliveryStore> PostgresLeasesTest::openStore(const QString &url)
{
    auto store = std::make_unique<PostgresDeliveryStore>();
    const auto opened = store->open(url);
    if (!opened) {
        qWarning() << opened.error();
        return nullptr;
    }
    return store;
}

void PostgresLeasesTest::makeDead(const QString &url, qint64 instance)
{
    QVERIFY(m_server->execute(url,
                              "UPDATE instances SET heartbeat = heartbeat - interval '1 hour'"
                              " WHERE id = "
                                  + QByteArray::number(instance)));
}

void PostgresLeasesTest::migratesVersion1Store()
{
    const QString url = newStore(u"version_one"_s);
    QVERIFY(!url.isEmpty());
    QVERIFY2(m_server->execute(url, Version1Schema), qPrintable(m_server->errorText()));
    QVERIFY2(m_server->execute(url, Version1Rows), qPrintable(m_server->errorText()));

    auto store = openStore(url);
    QVERIFY(store);
    QString answer;
    QVERIFY(m_server->execute(url, "SELECT version FROM eventdesk_store", &answer));
    QCOMPARE(answer, u"4"_s);
    QVERIFY(m_server->execute(url, "SELECT count(*) FROM eventdesk_store", &answer));
    QCOMPARE(answer, u"1"_s);

    // Nothing lost: the deliveries as the version-1 engine left them, with no owner yet.
    const auto deliveries = store->loadUnfinishedDeliveries();
    QVERIFY(deliveries);
    QCOMPARE(deliveries->size(), 3);
    for (const DeliveryRecord &record : std::as_const(deliveries.value())) {
        QCOMPARE(record.attempts, 2);
        QCOMPARE(record.dueMs, 5000 + record.id);
        QCOMPARE(record.lastHttpStatus, 503);
    }
    QVERIFY(m_server->execute(url, "SELECT count(*) FROM deliveries WHERE owner IS NULL", &answer));
    QCOMPARE(answer, u"3"_s);
    const auto log = store->attemptLog(10);
    QVERIFY(log);
    QCOMPARE(log->size(), 1);
    QCOMPARE(log->first().instance, 0); // made before instances existed
    QCOMPARE(log->first().nextDueMs, 5001);

    // The first instance takes the old deliveries over unchanged, and numbers past the old ids.
    const auto instance = store->registerInstance(instanceInfo(1));
    QVERIFY2(instance, qPrintable(instance.error()));
    const auto seq = store->reserveIds(IdKind::EventSeq, 100);
    QVERIFY(seq);
    QCOMPARE(seq.value(), 10); // past the high-water mark 9, not just past the rows
    QList<DeliveryRecord> claimed;
    QVERIFY(
        store->claimDeliveries(10, [&](const DeliveryRecord &record) { claimed.append(record); }));
    QCOMPARE(claimed.size(), 3);
    for (const DeliveryRecord &record : std::as_const(claimed)) {
        QCOMPARE(record.attempts, 2);
        QCOMPARE(record.dueMs, 5000 + record.id);
        QCOMPARE(record.publishMs, 1000);
    }

    // Opened again: already version 2, nothing migrated twice.
    store.reset();
    store = openStore(url);
    QVERIFY(store);
    QVERIFY(m_server->execute(url, "SELECT count(*) FROM deliveries", &answer));
    QCOMPARE(answer, u"3"_s);
}

void PostgresLeasesTest::failedMigrationLeavesVersion1Untouched()
{
    const QString url = newStore(u"failed_migration"_s);
    QVERIFY(!url.isEmpty());
    QVERIFY(m_server->execute(url, Version1Schema));
    QVERIFY(m_server->execute(url, Version1Rows));
    // Something in the way of the migration's own table: its CREATE TABLE fails midway.
    QVERIFY(m_server->execute(url, "CREATE TABLE instances (something text)"));

    PostgresDeliveryStore store;
    const auto opened = store.open(url);
    QVERIFY(!opened);
    QVERIFY2(opened.error().contains(u"migrate the store schema to version 4"_s),
             qPrintable(opened.error()));
    // One transaction: none of the steps before the failing one stayed.
    QString answer;
    QVERIFY(m_server->execute(url, "SELECT version FROM eventdesk_store", &answer));
    QCOMPARE(answer, u"1"_s);
    QVERIFY(m_server->execute(url,
                              "SELECT count(*) FROM information_schema.columns"
                              " WHERE table_name = 'deliveries' AND column_name = 'owner'",
                              &answer));
    QCOMPARE(answer, u"0"_s);
    QVERIFY(m_server->execute(url, "SELECT value FROM meta WHERE key = 'max_event_seq'", &answer));
    QCOMPARE(answer, u"9"_s);
    QVERIFY(m_server->execute(url, "SELECT count(*) FROM deliveries", &answer));
    QCOMPARE(answer, u"3"_s);
}

void PostgresLeasesTest::idBlocksNeverOverlap()
{
    const QString url = newStore(u"id_blocks"_s);
    QVERIFY(!url.isEmpty());
    auto first = openStore(url);
    auto second = openStore(url);
    QVERIFY(first && second);
    QVERIFY(first->registerInstance(instanceInfo(1)));
    QVERIFY(second->registerInstance(instanceInfo(2)));
    QList<QPair<qint64, qint64>> blocks; // first id, count
    for (int round = 0; round < 20; ++round) {
        for (PostgresDeliveryStore *store : {first.get(), second.get()}) {
            const qint64 count = 1 + round * 7;
            const auto reserved = store->reserveIds(IdKind::DeliveryId, count);
            QVERIFY2(reserved, qPrintable(reserved.error()));
            blocks.append({reserved.value(), count});
        }
    }
    std::sort(blocks.begin(), blocks.end());
    for (qsizetype i = 1; i < blocks.size(); ++i)
        QVERIFY(blocks.at(i - 1).first + blocks.at(i - 1).second <= blocks.at(i).first);
    // Event seqs are counted apart from delivery ids.
    QCOMPARE(first->reserveIds(IdKind::EventSeq, 5).value(), 1);
    const auto refused = first->reserveIds(IdKind::EventSeq, 0);
    QVERIFY(!refused);
    QVERIFY2(refused.error().contains(u"at least one"_s), qPrintable(refused.error()));
}

void PostgresLeasesTest::twoInstancesNeverClaimTheSameDelivery()
{
    constexpr qint64 Count = 3000;
    const QString url = newStore(u"concurrent_claims"_s);
    QVERIFY(!url.isEmpty());
    {
        // Stored by nobody's instance (as a version-1 store's rows): anyone may claim them.
        auto loader = openStore(url);
        QVERIFY(loader);
        QVERIFY(insertDeliveries(*loader, 1, Count));
    }
    auto first = openStore(url);
    auto second = openStore(url);
    QVERIFY(first && second);
    const qint64 firstId = first->registerInstance(instanceInfo(1)).value();
    const qint64 secondId = second->registerInstance(instanceInfo(2)).value();
    QVERIFY(firstId != secondId);

    // Both claim at once, small pages, until nothing is left.
    QList<qint64> firstClaimed;
    QList<qint64> secondClaimed;
    std::thread other([&] { secondClaimed = claimIds(*second, 50); });
    firstClaimed = claimIds(*first, 50);
    other.join();

    const QSet<qint64> firstSet(firstClaimed.cbegin(), firstClaimed.cend());
    const QSet<qint64> secondSet(secondClaimed.cbegin(), secondClaimed.cend());
    QCOMPARE(firstSet.size(), firstClaimed.size()); // never twice to one either
    QCOMPARE(secondSet.size(), secondClaimed.size());
    QVERIFY(!firstSet.intersects(secondSet));
    QCOMPARE(firstSet.size() + secondSet.size(), Count);
    QString answer;
    QVERIFY(m_server->execute(
        url, "SELECT count(*) FROM deliveries WHERE owner = " + QByteArray::number(firstId),
        &answer));
    QCOMPARE(answer.toLongLong(), firstSet.size());
    QVERIFY(m_server->execute(url, "SELECT count(*) FROM deliveries WHERE owner IS NULL", &answer));
    QCOMPARE(answer, u"0"_s);
    qInfo("claimed %lld and %lld of %lld", qint64(firstSet.size()), qint64(secondSet.size()),
          Count);
}

void PostgresLeasesTest::liveInstancesKeepTheirDeliveries()
{
    const QString url = newStore(u"live_owners"_s);
    QVERIFY(!url.isEmpty());
    auto owner = openStore(url);
    auto other = openStore(url);
    QVERIFY(owner && other);
    QVERIFY(owner->registerInstance(instanceInfo(1)));
    QVERIFY(other->registerInstance(instanceInfo(2)));
    // Stored by an instance: its own from the start, and nobody else's while it lives.
    QVERIFY(insertDeliveries(*owner, 1, 10));
    QVERIFY(claimIds(*other).isEmpty());
    QVERIFY(claimIds(*owner).isEmpty()); // already its own: nothing to claim
    QCOMPARE(owner->renewLease().value(), InstanceLeases::Lease::Held);
    QVERIFY(claimIds(*other).isEmpty());
}

void PostgresLeasesTest::deadInstanceIsTakenOverAndFenced()
{
    const QString url = newStore(u"takeover"_s);
    QVERIFY(!url.isEmpty());
    auto stalled = openStore(url);
    auto survivor = openStore(url);
    QVERIFY(stalled && survivor);
    const qint64 stalledId = stalled->registerInstance(instanceInfo(1)).value();
    const qint64 survivorId = survivor->registerInstance(instanceInfo(2)).value();
    QVERIFY(insertDeliveries(*stalled, 1, 4));
    // Delivery 4 failed once and waits for its retry.
    DeliveryRecord retrying = delivery(4, 4);
    retrying.attempts = 1;
    retrying.dueMs = 99'000;
    retrying.lastOutcome = DeliveryOutcome::Busy;
    retrying.lastHttpStatus = 503;
    QVERIFY(stalled->commit(StoreBatch {.updates = {retrying}}));
    QVERIFY(stalled->takeLostDeliveries().isEmpty());

    // The stalled instance's lease runs out (as if it had been paused): the survivor takes every
    // delivery over, as they were stored.
    makeDead(url, stalledId);
    QList<DeliveryRecord> taken;
    QVERIFY(survivor->claimDeliveries(100,
                                      [&](const DeliveryRecord &record) { taken.append(record); }));
    QCOMPARE(taken.size(), 4);
    for (const DeliveryRecord &record : std::as_const(taken)) {
        QCOMPARE(record.publishMs, 1000);
        QCOMPARE(record.attempts, record.id == 4 ? 1 : 0);
        QCOMPARE(record.dueMs, record.id == 4 ? 99'000 : 1000 + record.id);
    }

    // The stalled instance comes back: its changes to what it lost change nothing, and it learns
    // which deliveries it lost.
    DeliveryRecord stale = delivery(2, 2);
    stale.attempts = 7;
    QVERIFY(stalled->commit(
        StoreBatch {.updates = {stale}, .finished = {{1, 1, DeliveryState::Delivered}}}));
    QList<qint64> lost = stalled->takeLostDeliveries();
    std::sort(lost.begin(), lost.end());
    QCOMPARE(lost, QList<qint64>({1, 2}));
    QVERIFY(stalled->takeLostDeliveries().isEmpty()); // reported once
    QString answer;
    QVERIFY(m_server->execute(url, "SELECT attempts FROM deliveries WHERE id = 2", &answer));
    QCOMPARE(answer, u"0"_s);
    QVERIFY(m_server->execute(
        url, "SELECT count(*) FROM deliveries WHERE owner = " + QByteArray::number(survivorId),
        &answer));
    QCOMPARE(answer, u"4"_s);
    // Its lease stays lost; registered again it is a new instance, which owns nothing yet.
    QCOMPARE(stalled->renewLease().value(), InstanceLeases::Lease::Lost);
    QCOMPARE(stalled->renewLease().value(), InstanceLeases::Lease::Lost);
    const qint64 again = stalled->registerInstance(instanceInfo(1)).value();
    QVERIFY(again != stalledId);
    QCOMPARE(stalled->renewLease().value(), InstanceLeases::Lease::Held);
    QVERIFY(claimIds(*stalled).isEmpty());

    // The owner's own changes go through.
    DeliveryRecord owned = taken.first();
    owned.attempts = 3;
    QVERIFY(survivor->commit(StoreBatch {
        .updates = {owned},
        .finished = {{taken.last().id, taken.last().eventSeq, DeliveryState::Delivered}}}));
    QVERIFY(survivor->takeLostDeliveries().isEmpty());
    QVERIFY(m_server->execute(url, "SELECT count(*) FROM deliveries", &answer));
    QCOMPARE(answer, u"3"_s);
}

void PostgresLeasesTest::releasedDeliveriesAreClaimableAtOnce()
{
    const QString url = newStore(u"released"_s);
    QVERIFY(!url.isEmpty());
    auto leaving = openStore(url);
    auto staying = openStore(url);
    QVERIFY(leaving && staying);
    QVERIFY(leaving->registerInstance(instanceInfo(1)));
    QVERIFY(staying->registerInstance(instanceInfo(2)));
    QVERIFY(insertDeliveries(*leaving, 1, 5));
    QVERIFY(claimIds(*staying).isEmpty());
    QVERIFY(leaving->releaseInstance());
    QCOMPARE(leaving->instanceId(), 0);
    // No lease to wait for: the clean shutdown gave them up.
    QCOMPARE(claimIds(*staying).size(), 5);
    QString answer;
    QVERIFY(m_server->execute(url, "SELECT count(*) FROM instances", &answer));
    QCOMPARE(answer, u"1"_s);
}

void PostgresLeasesTest::attemptsNameTheirInstance()
{
    const QString url = newStore(u"attempt_instances"_s);
    QVERIFY(!url.isEmpty());
    auto first = openStore(url);
    auto second = openStore(url);
    QVERIFY(first && second);
    const qint64 firstId = first->registerInstance(instanceInfo(1)).value();
    const qint64 secondId = second->registerInstance(instanceInfo(2)).value();
    AttemptLogEntry entry;
    entry.topic = u"orders"_s;
    entry.subscription = u"sub-one"_s;
    entry.eventIds = {u"event-1"_s};
    entry.attempt = 1;
    entry.httpStatus = 200;
    entry.timeMs = 1;
    QVERIFY(first->commit(StoreBatch {.attempts = {entry}}));
    entry.timeMs = 2;
    QVERIFY(second->commit(StoreBatch {.attempts = {entry}}));
    const auto log = first->attemptLog(10);
    QVERIFY(log);
    QCOMPARE(log->size(), 2);
    QCOMPARE(log->at(0).instance, secondId); // newest first
    QCOMPARE(log->at(1).instance, firstId);
    QCOMPARE(log->at(1).eventIds, QStringList({u"event-1"_s}));
}

void PostgresLeasesTest::probationIsReadByTheOtherInstances()
{
    const QString url = newStore(u"shared_probation"_s);
    QVERIFY(!url.isEmpty());
    auto first = openStore(url);
    auto second = openStore(url);
    QVERIFY(first && second);
    const qint64 firstId = first->registerInstance(instanceInfo(1)).value();
    const qint64 secondId = second->registerInstance(instanceInfo(2)).value();
    ProbationRecord record;
    record.topic = u"orders"_s;
    record.subscription = u"sub-one"_s;
    record.state = 1;
    record.cause = DeliveryOutcome::Busy;
    record.untilMs = 50'000;
    record.durationMs = 10'000;
    record.consecutiveFailures = 10;
    QVERIFY(first->commit(StoreBatch {.probation = {record}}));
    // Written by the first: the second reads it, the first does not read its own.
    QVERIFY(first->probationOfOthers()->isEmpty());
    const auto seen = second->probationOfOthers();
    QVERIFY(seen);
    QCOMPARE(seen->size(), 1);
    QCOMPARE(seen->first().instance, firstId);
    QCOMPARE(seen->first().untilMs, 50'000);
    const qint64 firstRevision = seen->first().revision;
    QVERIFY(firstRevision > 0);

    // The second writes the same subscription's row later: the last writer's state, with a
    // higher revision, is the one the first reads.
    record.state = 0;
    record.cause = DeliveryOutcome::Delivered;
    record.untilMs = 0;
    record.consecutiveFailures = 0;
    QVERIFY(second->commit(StoreBatch {.probation = {record}}));
    QVERIFY(second->probationOfOthers()->isEmpty());
    const auto back = first->probationOfOthers();
    QVERIFY(back);
    QCOMPARE(back->size(), 1);
    QCOMPARE(back->first().instance, secondId);
    QCOMPARE(back->first().state, 0);
    QVERIFY(back->first().revision > firstRevision);
    // Every instance still loads it at start as before.
    QCOMPARE(first->loadProbation()->size(), 1);
}

QTEST_GUILESS_MAIN(PostgresLeasesTest)
#include "tst_postgresleases.moc"
