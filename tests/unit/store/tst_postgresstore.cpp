// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// What only the PostgreSQL store has to get right (the DeliveryStore contract itself is
// tst_storecontract): its schema and which databases it refuses, a server that goes away and comes
// back, and URLs whose password must never show. Against a real server of this executable.

#include "PostgresServer.h"
#include "host/StoreOpener.h"
#include "store/postgres/PostgresConnection.h"
#include "store/postgres/PostgresDeliveryStore.h"

#include <QTest>

#include <future>
#include <memory>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using EventDesk::Testing::PostgresServer;

namespace {

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
    return record;
}

} // namespace

class PostgresStoreTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();

    void createsSchemaOnceAndReopens();
    void refusesNewerSchemaVersion();
    void leavesForeignDatabaseAlone();
    void errorsNameTheStoreWithoutPassword_data();
    void errorsNameTheStoreWithoutPassword();
    void redactsPasswords_data();
    void redactsPasswords();
    void rejectsOtherLocations();
    void serverGoneIsAnErrorAndComesBack();
    void publishConnectionComesBackOnItsOwn();
    void publishDoesNotWaitBehindACommit();
    void closeClosesBothConnections();
    void largePublishKeepsEveryRowAndNamesTheOneThatFails();
    void manyAttemptsInOneCommitKeepTheirOrderAndEvents();

private:
    // The store's connections to the database of url (the store names itself "eventdesk" to the
    // server; the connections that ask, and those of earlier asks still ending, do not).
    int backendCount(const QString &url);

    std::unique_ptr<PostgresServer> m_server;
};

int PostgresStoreTest::backendCount(const QString &url)
{
    const QString database = url.section(u'/', -1);
    QString answer;
    if (!m_server->execute(url,
                           "SELECT count(*) FROM pg_stat_activity WHERE datname = '"
                               + database.toUtf8() + "' AND application_name = 'eventdesk'",
                           &answer))
        return -1;
    return answer.toInt();
}

void PostgresStoreTest::initTestCase()
{
    m_server = std::make_unique<PostgresServer>();
    QVERIFY2(m_server->isRunning(), qPrintable(m_server->errorText()));
}

void PostgresStoreTest::createsSchemaOnceAndReopens()
{
    const QString url = m_server->createDatabase(u"reopened"_s);
    QVERIFY2(!url.isEmpty(), qPrintable(m_server->errorText()));
    {
        PostgresDeliveryStore store;
        const auto opened = store.open(url);
        QVERIFY2(opened, qPrintable(opened.error()));
        QVERIFY(store.insertPublished({storedEvent(1)}, {delivery(1, 1)}));
    }
    QString version;
    QVERIFY(m_server->execute(url, "SELECT version FROM eventdesk_store", &version));
    QCOMPARE(version, u"4"_s);
    QString tables;
    QVERIFY(m_server->execute(url, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'",
                              &tables));
    const QString tablesAtCreation = tables;

    PostgresDeliveryStore store;
    const auto reopened = store.open(url);
    QVERIFY2(reopened, qPrintable(reopened.error()));
    const auto deliveries = store.loadUnfinishedDeliveries();
    QVERIFY(deliveries);
    QCOMPARE(deliveries->size(), 1);
    QCOMPARE(deliveries->first().id, 1);
    QVERIFY(m_server->execute(url, "SELECT count(*) FROM eventdesk_store", &version));
    QCOMPARE(version, u"1"_s); // created once: still one row
    QVERIFY(m_server->execute(url, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'",
                              &tables));
    QCOMPARE(tables, tablesAtCreation);
}

void PostgresStoreTest::refusesNewerSchemaVersion()
{
    const QString url = m_server->createDatabase(u"newer"_s);
    QVERIFY(!url.isEmpty());
    {
        PostgresDeliveryStore store;
        QVERIFY(store.open(url));
    }
    QVERIFY(m_server->execute(url, "UPDATE eventdesk_store SET version = 99"));
    PostgresDeliveryStore store;
    const auto opened = store.open(url);
    QVERIFY(!opened);
    QVERIFY2(opened.error().contains(u"newer EventDesk"_s), qPrintable(opened.error()));
    QVERIFY2(opened.error().contains(u"version 99"_s), qPrintable(opened.error()));
    QVERIFY2(opened.error().contains(url), qPrintable(opened.error()));
    // A refused store cannot be used by accident.
    QVERIFY(!store.maxIds());
}

void PostgresStoreTest::leavesForeignDatabaseAlone()
{
    const QString url = m_server->createDatabase(u"foreign_app"_s);
    QVERIFY(!url.isEmpty());
    QVERIFY(m_server->execute(url,
                              "CREATE TABLE customers (id integer PRIMARY KEY, name text);"
                              "INSERT INTO customers VALUES (1, 'Ada')"));
    PostgresDeliveryStore store;
    const auto opened = store.open(url);
    QVERIFY(!opened);
    QVERIFY2(opened.error().contains(u"another application"_s), qPrintable(opened.error()));
    QVERIFY2(opened.error().contains(u"left unchanged"_s), qPrintable(opened.error()));
    QString tables;
    QVERIFY(m_server->execute(url,
                              "SELECT string_agg(tablename, ',') FROM pg_tables"
                              " WHERE schemaname = 'public'",
                              &tables));
    QCOMPARE(tables, u"customers"_s);
}

void PostgresStoreTest::errorsNameTheStoreWithoutPassword_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("shown"); // what the error must name
    const quint16 port = m_server->port();
    // Trust authentication lets any password in; a database that does not exist fails all the
    // same, and so does a port nobody listens on.
    QTest::newRow("no such database")
        << u"postgresql://eventdesk:Sup3r-S3cret@127.0.0.1:%1/missing_db"_s.arg(port)
        << u"postgresql://eventdesk:***@127.0.0.1:%1/missing_db"_s.arg(port);
    QTest::newRow("password parameter")
        << u"postgres://eventdesk@127.0.0.1:%1/missing_db?password=Sup3r-S3cret"_s.arg(port)
        << u"password=***"_s;
    QTest::newRow("nobody listening") << u"postgresql://someone:Sup3r-S3cret@127.0.0.1:1/db"_s
                                      << u"postgresql://someone:***@127.0.0.1:1/db"_s;
    QTest::newRow("bad port") << u"postgresql://someone:Sup3r-S3cret@127.0.0.1:port/db"_s
                              << u"Store "_s;
}

void PostgresStoreTest::errorsNameTheStoreWithoutPassword()
{
    QFETCH(QString, url);
    QFETCH(QString, shown);
    PostgresDeliveryStore store;
    const auto opened = store.open(url);
    QVERIFY(!opened);
    QVERIFY2(!opened.error().contains(u"Sup3r-S3cret"_s), qPrintable(opened.error()));
    QVERIFY2(opened.error().contains(shown), qPrintable(opened.error()));
    // Through the selector of eventdeskd and the app too.
    const auto selected = openDeliveryStore(url, {});
    QVERIFY(!selected);
    QVERIFY2(!selected.error().contains(u"Sup3r-S3cret"_s), qPrintable(selected.error()));
}

void PostgresStoreTest::redactsPasswords_data()
{
    QTest::addColumn<QString>("location");
    QTest::addColumn<QString>("redacted");
    QTest::newRow("none") << u"postgresql://ed@db.example:5432/events"_s
                          << u"postgresql://ed@db.example:5432/events"_s;
    QTest::newRow("user part") << u"postgresql://ed:pw@db.example/events"_s
                               << u"postgresql://ed:***@db.example/events"_s;
    QTest::newRow("parameter") << u"postgres://ed@db.example/events?sslmode=require&password=pw"_s
                               << u"postgres://ed@db.example/events?sslmode=require&password=***"_s;
    QTest::newRow("other scheme") << u"mysql://ed:pw@db.example/events"_s
                                  << u"mysql://ed:***@db.example/events"_s;
    QTest::newRow("not a URL") << u"/var/lib/store.db"_s << u"/var/lib/store.db"_s;
}

void PostgresStoreTest::redactsPasswords()
{
    QFETCH(QString, location);
    QFETCH(QString, redacted);
    QCOMPARE(redactedStoreLocation(location), redacted);
}

void PostgresStoreTest::rejectsOtherLocations()
{
    QVERIFY(storeLocationProblem(u""_s).isEmpty());
    QVERIFY(storeLocationProblem(u"postgresql://ed@localhost/events"_s).isEmpty());
    QVERIFY(storeLocationProblem(u"POSTGRES://ed@localhost/events"_s).isEmpty());
    const QString problem = storeLocationProblem(u"mysql://ed@localhost/events"_s);
    QVERIFY(problem.contains(u"postgresql://"_s));
    const auto opened = openDeliveryStore(u"/var/lib/store.db"_s, {});
    QVERIFY(!opened);
    QVERIFY2(opened.error().contains(u"postgresql://USER@HOST:PORT/DATABASE"_s),
             qPrintable(opened.error()));
}

void PostgresStoreTest::serverGoneIsAnErrorAndComesBack()
{
    const QString url = m_server->createDatabase(u"restarted"_s);
    QVERIFY(!url.isEmpty());
    PostgresDeliveryStore store;
    QVERIFY(store.open(url));
    QVERIFY(store.insertPublished({storedEvent(1)}, {delivery(1, 1)}));

    QVERIFY2(m_server->halt(), qPrintable(m_server->errorText()));
    // The connection the store had is gone, and so is the server: errors, no crash, each naming
    // the store.
    const auto lost = store.insertPublished({storedEvent(2)}, {delivery(2, 2)});
    QVERIFY(!lost);
    QVERIFY2(lost.error().contains(url), qPrintable(lost.error()));
    const auto refused = store.loadUnfinishedDeliveries();
    QVERIFY(!refused);
    QVERIFY2(refused.error().contains(url), qPrintable(refused.error()));
    QVERIFY(!store.commit(StoreBatch {.finished = {{1, 1, DeliveryState::Delivered}}}));

    QVERIFY2(m_server->resume(), qPrintable(m_server->errorText()));
    // The next call connects again and works; what was committed before is there, the publish
    // that failed is not.
    const auto deliveries = store.loadUnfinishedDeliveries();
    QVERIFY2(deliveries, qPrintable(deliveries.error()));
    QCOMPARE(deliveries->size(), 1);
    QCOMPARE(deliveries->first().id, 1);
    QVERIFY(store.insertPublished({storedEvent(3)}, {delivery(3, 3)}));
    QCOMPARE(store.maxIds()->deliveryId, 3);
}

// The publishes have a connection of their own: after the server comes back it connects again by
// itself, before any other call of the store has, and its errors hide the password too; the other
// connection, idle meanwhile, learns of the loss from it.
void PostgresStoreTest::publishConnectionComesBackOnItsOwn()
{
    const QString plain = m_server->createDatabase(u"publish_restarted"_s);
    QVERIFY(!plain.isEmpty());
    // Trust authentication lets any password in.
    QString url = plain;
    url.replace(u"eventdesk@"_s, u"eventdesk:Sup3r-S3cret@"_s);
    const QString shown = redactedStoreLocation(url);
    QVERIFY(shown.contains(u"***"_s));
    PostgresDeliveryStore store;
    QVERIFY(store.open(url));
    QVERIFY(store.insertPublished({storedEvent(1)}, {delivery(1, 1)}));
    QVERIFY(store.commit(StoreBatch {.updates = {delivery(1, 1)}}));

    QVERIFY2(m_server->halt(), qPrintable(m_server->errorText()));
    const auto lost = store.insertPublished({storedEvent(2)}, {delivery(2, 2)});
    QVERIFY(!lost);
    QVERIFY2(lost.error().contains(shown), qPrintable(lost.error()));
    QVERIFY2(!lost.error().contains(u"Sup3r-S3cret"_s), qPrintable(lost.error()));
    DeliveryRecord resubmitted = delivery(3, 3);
    const auto lostResubmission = store.insertResubmitted({storedEvent(3)}, {resubmitted}, {}, {});
    QVERIFY(!lostResubmission);
    QVERIFY2(!lostResubmission.error().contains(u"Sup3r-S3cret"_s),
             qPrintable(lostResubmission.error()));

    QVERIFY2(m_server->resume(), qPrintable(m_server->errorText()));
    // The publish is the first call after the server returned: its connection comes back on its
    // own. The first connection made no call while the server was away, yet its first call works:
    // the publish connection's loss told it that its connection is gone as well.
    const auto published = store.insertPublished({storedEvent(4)}, {delivery(4, 4)});
    QVERIFY2(published, qPrintable(published.error()));
    const auto deliveries = store.loadUnfinishedDeliveries();
    QVERIFY2(deliveries, qPrintable(deliveries.error()));
    QCOMPARE(deliveries->size(), 2);
    QCOMPARE(deliveries->at(0).id, 1);
    QCOMPARE(deliveries->at(1).id, 4);
    QVERIFY(store.commit(StoreBatch {.finished = {{4, 4, DeliveryState::Delivered}}}));
    QCOMPARE(store.loadUnfinishedDeliveries()->size(), 1);

    // The other way round: only the first connection finds the server gone, and the publish
    // connection, idle meanwhile, works at its first call after the server returned.
    QVERIFY2(m_server->halt(), qPrintable(m_server->errorText()));
    QVERIFY(!store.loadUnfinishedDeliveries());
    QVERIFY2(m_server->resume(), qPrintable(m_server->errorText()));
    const auto publishedAgain = store.insertPublished({storedEvent(5)}, {delivery(5, 5)});
    QVERIFY2(publishedAgain, qPrintable(publishedAgain.error()));
    QCOMPARE(store.loadUnfinishedDeliveries()->size(), 2);
}

// A publish runs while a group commit is under way: here the commit waits for a row that another
// client holds locked, and the publish still commits meanwhile (on one connection it waited for
// the commit, which waited for the lock this test releases only after the publish returned).
void PostgresStoreTest::publishDoesNotWaitBehindACommit()
{
    const QString url = m_server->createDatabase(u"publish_beside_commit"_s);
    QVERIFY(!url.isEmpty());
    PostgresDeliveryStore store;
    QVERIFY(store.open(url));
    QVERIFY(store.insertPublished({storedEvent(1)}, {delivery(1, 1)}));

    std::future<Expected<void>> committing;
    std::future<Expected<void>> publishing;
    // Declared after the futures, so destroyed before them: leaving this test early, even through
    // a failed check, ends the other client's transaction and so lets both calls finish.
    PostgresConnection holder(url);
    QVERIFY(holder.run("BEGIN"_ba, u"begin"_s));
    QVERIFY(holder.run("SELECT id FROM deliveries WHERE id = 1 FOR UPDATE"_ba, u"lock"_s));

    DeliveryRecord retried = delivery(1, 1);
    retried.attempts = 1;
    retried.dueMs = 5000;
    committing = std::async(std::launch::async, [&store, retried] {
        return store.commit(StoreBatch {.updates = {retried}});
    });
    // The commit's UPDATE waits for the row lock (pg_locks shows the request not granted).
    QString waiting;
    QTRY_VERIFY(
        m_server->execute(url, "SELECT count(*) FROM pg_locks WHERE NOT granted"_ba, &waiting)
        && waiting.toInt() > 0);

    publishing = std::async(std::launch::async, [&store] {
        return store.insertPublished({storedEvent(2)}, {delivery(2, 2)});
    });
    QTRY_VERIFY(publishing.wait_for(std::chrono::seconds(0)) == std::future_status::ready);
    const auto published = publishing.get();
    QVERIFY2(published, qPrintable(published.error()));
    // Committed and visible to others while the commit still waits.
    QString events;
    QVERIFY(m_server->execute(url, "SELECT count(*) FROM events WHERE seq = 2"_ba, &events));
    QCOMPARE(events, u"1"_s);
    QVERIFY(committing.wait_for(std::chrono::seconds(0)) != std::future_status::ready);

    QVERIFY(holder.run("COMMIT"_ba, u"commit"_s));
    const auto committed = committing.get();
    QVERIFY2(committed, qPrintable(committed.error()));
    const auto deliveries = store.loadUnfinishedDeliveries();
    QVERIFY2(deliveries, qPrintable(deliveries.error()));
    QCOMPARE(deliveries->size(), 2);
    QCOMPARE(deliveries->at(0).attempts, 1);
    QCOMPARE(deliveries->at(0).dueMs, 5000);
    QCOMPARE(deliveries->at(1).id, 2);
}

// Both connections are the store's: open() makes two, close() ends both (the server sees them go).
void PostgresStoreTest::closeClosesBothConnections()
{
    const QString url = m_server->createDatabase(u"closes_both"_s);
    QVERIFY(!url.isEmpty());
    PostgresDeliveryStore store;
    QVERIFY(store.open(url));
    QCOMPARE(backendCount(url), 2);
    store.close();
    QTRY_COMPARE(backendCount(url), 0);
    QVERIFY(!store.insertPublished({storedEvent(1)}, {delivery(1, 1)}));
    QVERIFY(!store.loadUnfinishedDeliveries());
    QVERIFY(store.open(url));
    QCOMPARE(backendCount(url), 2);
}

// A publish of more rows than one insert statement carries (the store sends them as arrays, some
// hundred rows per statement): every row and field arrives, NULL and '' stay apart, and when one
// row of a later statement fails the error names that row and nothing of the publish is kept.
void PostgresStoreTest::largePublishKeepsEveryRowAndNamesTheOneThatFails()
{
    constexpr int EventCount = 4500;
    const QString url = m_server->createDatabase(u"large_publish"_s);
    QVERIFY(!url.isEmpty());
    PostgresDeliveryStore store;
    QVERIFY(store.open(url));

    QList<StoredEvent> events;
    QList<DeliveryRecord> deliveries;
    for (int seq = 1; seq <= EventCount; ++seq) {
        StoredEvent event = storedEvent(seq);
        event.eventType = u"Order.Placed"_s;
        event.subject
            = seq % 3 == 0 ? QString() : (seq % 3 == 1 ? u""_s : u"/orders/ü%1"_s.arg(seq));
        event.body = seq % 5 == 0 ? QByteArray("", 0) : "{\"n\":" + QByteArray::number(seq) + '}';
        event.publishMs = 1'700'000'000'000 + seq;
        events.append(event);
        for (int copy = 0; copy < 2; ++copy) {
            DeliveryRecord record = delivery(2 * seq - 1 + copy, seq);
            record.subscription = copy == 0 ? u"sub-one"_s : u"sub-two"_s;
            record.dueMs = 1'700'000'100'000 + seq;
            record.attempts = copy;
            deliveries.append(record);
        }
    }
    const auto stored = store.insertPublished(events, deliveries);
    QVERIFY2(stored, qPrintable(stored.error()));

    const auto loadedDeliveries = store.loadUnfinishedDeliveries();
    QVERIFY2(loadedDeliveries, qPrintable(loadedDeliveries.error()));
    QCOMPARE(loadedDeliveries->size(), 2 * EventCount);
    for (const DeliveryRecord &record : loadedDeliveries.value()) {
        const qint64 seq = (record.id + 1) / 2;
        QCOMPARE(record.eventSeq, seq);
        QCOMPARE(record.subscription, record.id % 2 == 1 ? u"sub-one"_s : u"sub-two"_s);
        QCOMPARE(record.dueMs, 1'700'000'100'000 + seq);
        QCOMPARE(record.attempts, record.id % 2 == 1 ? 0 : 1);
    }
    const auto loadedEvents = store.loadEvents({1, 2, 3, 5, 2999, EventCount});
    QVERIFY2(loadedEvents, qPrintable(loadedEvents.error()));
    QCOMPARE(loadedEvents->size(), 6);
    for (const StoredEvent &event : loadedEvents.value()) {
        const StoredEvent &expected = events.at(event.seq - 1);
        QCOMPARE(event.id, expected.id);
        QCOMPARE(event.eventType, expected.eventType);
        QCOMPARE(event.subject, expected.subject);
        QCOMPARE(event.subject.isNull(), expected.subject.isNull());
        QCOMPARE(event.body, expected.body);
        QCOMPARE(event.publishMs, expected.publishMs);
    }
    QCOMPARE(store.maxIds()->deliveryId, 2 * EventCount);

    // The second publish reuses delivery id 7 in its 6,001st delivery row (a later statement).
    QList<StoredEvent> moreEvents;
    QList<DeliveryRecord> moreDeliveries;
    for (int seq = EventCount + 1; seq <= 2 * EventCount; ++seq) {
        moreEvents.append(storedEvent(seq));
        moreDeliveries.append(delivery(2 * seq - 1, seq));
        moreDeliveries.append(delivery(2 * seq, seq));
    }
    moreDeliveries[6000].id = 7;
    const auto failed = store.insertPublished(moreEvents, moreDeliveries);
    QVERIFY(!failed);
    QVERIFY2(failed.error().contains(
                 u"store delivery 7 (event seq %1"_s.arg(moreDeliveries[6000].eventSeq)),
             qPrintable(failed.error()));
    QVERIFY2(failed.error().contains(url), qPrintable(failed.error()));
    QCOMPARE(store.loadUnfinishedDeliveries()->size(), 2 * EventCount);
    QVERIFY(store.loadEvents({EventCount + 1})->isEmpty());
    QCOMPARE(store.maxIds()->eventSeq, EventCount);
}

// A group commit of more attempts than one statement carries: every attempt is logged, newest
// last (ids in the order given), each with its own events in request order, none with another's.
void PostgresStoreTest::manyAttemptsInOneCommitKeepTheirOrderAndEvents()
{
    constexpr int AttemptCount = 1234;
    const QString url = m_server->createDatabase(u"many_attempts"_s);
    QVERIFY(!url.isEmpty());
    PostgresDeliveryStore store(2 * AttemptCount);
    QVERIFY(store.open(url));
    StoreBatch batch;
    for (int i = 1; i <= AttemptCount; ++i) {
        AttemptLogEntry entry;
        entry.timeMs = 1000 + i;
        entry.topic = u"orders"_s;
        entry.subscription = i % 2 == 0 ? u"sub-one"_s : u"sub-two"_s;
        entry.attempt = i % 30 + 1;
        entry.httpStatus = i % 7 == 0 ? 503 : 200;
        entry.durationMs = i;
        for (int event = 0; event < i % 4; ++event) // 0 to 3 events
            entry.eventIds.append(u"a%1-e%2"_s.arg(i).arg(event));
        batch.attempts.append(entry);
    }
    const auto committed = store.commit(batch);
    QVERIFY2(committed, qPrintable(committed.error()));
    const auto log = store.attemptLog(0);
    QVERIFY2(log, qPrintable(log.error()));
    QCOMPARE(log->size(), AttemptCount);
    for (int row = 0; row < AttemptCount; ++row) {
        const AttemptLogEntry &logged = log->at(row); // newest first
        const AttemptLogEntry &given = batch.attempts.at(AttemptCount - 1 - row);
        QCOMPARE(logged.timeMs, given.timeMs);
        QCOMPARE(logged.subscription, given.subscription);
        QCOMPARE(logged.attempt, given.attempt);
        QCOMPARE(logged.httpStatus, given.httpStatus);
        QCOMPARE(logged.durationMs, given.durationMs);
        QCOMPARE(logged.eventIds, given.eventIds);
        if (row > 0)
            QVERIFY(logged.id < log->at(row - 1).id);
    }
}

QTEST_GUILESS_MAIN(PostgresStoreTest)
#include "tst_postgresstore.moc"
