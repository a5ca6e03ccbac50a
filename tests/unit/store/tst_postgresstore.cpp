// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// What only the PostgreSQL store has to get right (the DeliveryStore contract itself is
// tst_storecontract): its schema and which databases it refuses, a server that goes away and comes
// back, and URLs whose password must never show. Against a real server of this executable.

#include "PostgresServer.h"
#include "store/DeliveryStores.h"
#include "store/PostgresDeliveryStore.h"

#include <QTest>

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

private:
    std::unique_ptr<PostgresServer> m_server;
};

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
    QCOMPARE(version, u"3"_s);
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

QTEST_GUILESS_MAIN(PostgresStoreTest)
#include "tst_postgresstore.moc"
