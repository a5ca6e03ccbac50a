// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// DeliveryStoreReader, the read side of the desktop app's views and of the monitor, on both
// backends: the same rows written through SqliteDeliveryStore and through PostgresDeliveryStore
// (with a registered instance) read back the same through SqliteStoreReader and
// PostgresStoreReader. The PostgreSQL reader creates nothing, writes nothing, and never shows a
// password. Against a real server of this executable.

#include "PostgresServer.h"
#include "host/StoreOpener.h"
#include "store/postgres/PostgresDeliveryStore.h"
#include "store/sqlite/SqliteDeliveryStore.h"

#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using EventDesk::Testing::PostgresServer;

namespace {

StoredEvent storedEvent(qint64 seq, const QString &id)
{
    StoredEvent stored;
    stored.seq = seq;
    stored.topic = u"orders"_s;
    stored.id = id;
    stored.eventType = u"Order.Created"_s;
    stored.subject = u"/orders/"_s + id;
    stored.dataVersion = u"1"_s;
    stored.eventTime = u"2026-11-27T08:00:00Z"_s;
    stored.publishMs = 1000;
    stored.body = "{\"id\":\"" + id.toUtf8() + "\"}";
    return stored;
}

DeliveryRecord delivery(qint64 id, qint64 seq, const QString &subscription)
{
    DeliveryRecord record;
    record.id = id;
    record.eventSeq = seq;
    record.topic = u"orders"_s;
    record.subscription = subscription;
    record.dueMs = 1000;
    record.publishMs = 1000;
    return record;
}

DeadLetterEntry deadLetter(const QString &subscription, const QString &eventId,
                           DeadLetterReason reason, const QByteArray &record, qint64 timeMs)
{
    DeadLetterEntry entry;
    entry.topic = u"orders"_s;
    entry.subscription = subscription;
    entry.eventId = eventId;
    entry.reason = reason;
    entry.lastOutcome = DeliveryOutcome::GenericError;
    entry.lastHttpStatus = 500;
    entry.attempts = 3;
    entry.publishMs = 1000;
    entry.lastAttemptMs = timeMs - 10;
    entry.deadLetteredMs = timeMs;
    entry.blobPath = u"deadletters/"_s + subscription.toUpper() + u"/"_s + eventId + u".json"_s;
    entry.record = record;
    entry.eventType = u"Order.Created"_s;
    entry.eventBody = "{}";
    return entry;
}

AttemptLogEntry attempt(qint64 timeMs, const QString &subscription, const QStringList &eventIds,
                        int status, DeliveryOutcome outcome)
{
    AttemptLogEntry entry;
    entry.timeMs = timeMs;
    entry.topic = u"orders"_s;
    entry.subscription = subscription;
    entry.eventIds = eventIds;
    entry.attempt = 1;
    entry.httpStatus = status;
    entry.outcome = outcome;
    entry.durationMs = 12;
    entry.nextDueMs = outcome == DeliveryOutcome::Delivered ? 0 : 9000;
    return entry;
}

// Three events; billing has one delivery in flight and one waiting for its retry (attempted
// once, 503), audit's was dead-lettered; two dead letters, a drop, three attempts, probation.
bool writeRows(DeliveryStore &store)
{
    const auto published = store.insertPublished(
        {storedEvent(1, u"e-1"_s), storedEvent(2, u"e-2"_s), storedEvent(3, u"e-3"_s)},
        {delivery(1, 1, u"billing"_s), delivery(2, 2, u"billing"_s), delivery(3, 3, u"audit"_s)});
    if (!published) {
        qWarning() << published.error();
        return false;
    }
    StoreBatch batch;
    DeliveryRecord inFlight = delivery(1, 1, u"billing"_s);
    inFlight.state = DeliveryState::InFlight;
    DeliveryRecord retry = delivery(2, 2, u"billing"_s);
    retry.attempts = 1;
    retry.dueMs = 9000;
    retry.lastOutcome = DeliveryOutcome::Busy;
    retry.lastHttpStatus = 503;
    batch.updates = {inFlight, retry};
    batch.finished = {FinishedDelivery {3, 3, DeliveryState::DeadLettered}};
    batch.deadLetters
        = {deadLetter(u"audit"_s, u"e-3"_s, DeadLetterReason::MaxDeliveryAttemptsExceeded,
                      "{\"id\":\"e-3\",\"note\":\"Needle in the record\"}", 2000),
           deadLetter(u"billing"_s, u"e-9"_s, DeadLetterReason::TimeToLiveExceeded,
                      "{\"id\":\"e-9\"}", 2100)};
    DroppedEntry drop;
    drop.topic = u"orders"_s;
    drop.subscription = u"billing"_s;
    drop.eventId = u"e-8"_s;
    drop.reason = DeadLetterReason::TimeToLiveExceeded;
    drop.attempts = 2;
    drop.droppedMs = 2200;
    batch.drops = {drop};
    batch.attempts = {attempt(1500, u"billing"_s, {u"e-1"_s, u"e-2"_s}, 503, DeliveryOutcome::Busy),
                      attempt(1600, u"audit"_s, {u"e-3"_s}, 500, DeliveryOutcome::GenericError),
                      attempt(1700, u"audit"_s, {u"e-3"_s}, 500, DeliveryOutcome::GenericError)};
    ProbationRecord probation;
    probation.topic = u"orders"_s;
    probation.subscription = u"billing"_s;
    probation.state = 1;
    probation.cause = DeliveryOutcome::Busy;
    probation.untilMs = 50000;
    probation.durationMs = 10000;
    probation.consecutiveFailures = 10;
    batch.probation = {probation};
    const auto committed = store.commit(batch);
    if (!committed)
        qWarning() << committed.error();
    return committed.hasValue();
}

QString describe(const AttemptLogEntry &entry)
{
    return u"attempt %1 %2 %3/%4 [%5] #%6 %7 %8 %9ms next %10"_s.arg(entry.id)
        .arg(entry.timeMs)
        .arg(entry.topic, entry.subscription, entry.eventIds.join(u','))
        .arg(entry.attempt)
        .arg(entry.httpStatus)
        .arg(int(entry.outcome))
        .arg(entry.durationMs)
        .arg(entry.nextDueMs);
}

QString describe(const DeadLetterEntry &entry)
{
    const QStringList fields = {QString::number(entry.id),
                                entry.topic + u'/' + entry.subscription,
                                entry.eventId,
                                u"reason "_s + QString::number(int(entry.reason)),
                                u"outcome "_s + QString::number(int(entry.lastOutcome)),
                                QString::number(entry.lastHttpStatus),
                                u"x"_s + QString::number(entry.attempts),
                                QString::number(entry.deadLetteredMs),
                                entry.blobPath,
                                entry.eventType,
                                u'[' + QString::fromUtf8(entry.record) + u']',
                                u'[' + QString::fromUtf8(entry.eventBody) + u']'};
    return u"dead letter "_s + fields.join(u' ');
}

// Everything the reader answers for the rows of writeRows(), as text (the instance of an attempt
// aside: only a shared store records it).
QStringList describeAll(DeliveryStoreReader &reader)
{
    QStringList lines;
    const auto fail = [&lines](const QString &what, const QString &error) {
        lines << u"ERROR %1: %2"_s.arg(what, error);
    };
    if (auto attempts = reader.newestAttempts(10); attempts) {
        for (const AttemptLogEntry &entry : std::as_const(attempts.value()))
            lines << u"newest "_s + describe(entry);
    } else {
        fail(u"newest"_s, attempts.error());
    }
    if (auto attempts = reader.attemptsAfter(1, 0); attempts) {
        for (const AttemptLogEntry &entry : std::as_const(attempts.value()))
            lines << u"after 1 "_s + describe(entry);
    } else {
        fail(u"after"_s, attempts.error());
    }
    for (const QString &eventId : {u"e-1"_s, u"e-3"_s}) {
        auto history = reader.eventHistory(eventId);
        if (!history) {
            fail(u"history"_s, history.error());
            continue;
        }
        lines << u"history %1: %2 attempts, %3 dead letters, %4 drops, %5 events, %6 unfinished"_s
                     .arg(history->eventId)
                     .arg(history->attempts.size())
                     .arg(history->deadLetters.size())
                     .arg(history->drops.size())
                     .arg(history->events.size())
                     .arg(history->unfinished.size());
        for (const DeliveryRecord &record : std::as_const(history->unfinished)) {
            lines << u"unfinished %1 state %2 attempts %3 due %4"_s.arg(record.id)
                         .arg(int(record.state))
                         .arg(record.attempts)
                         .arg(record.dueMs);
        }
        for (const StoredEvent &stored : std::as_const(history->events))
            lines << u"event %1 %2 %3"_s.arg(stored.seq)
                         .arg(stored.id, QString::fromUtf8(stored.body));
    }
    DeadLetterQuery all;
    DeadLetterQuery needle;
    needle.text = u"needle"_s; // the record says "Needle": case is ignored on both backends
    DeadLetterQuery billing;
    billing.subscription = u"billing"_s;
    for (const auto &[name, query] : {std::pair {u"all"_s, all}, std::pair {u"needle"_s, needle},
                                      std::pair {u"billing"_s, billing}}) {
        if (auto rows = reader.deadLetters(query, DeadLetterFields::IndexOnly); rows) {
            for (const DeadLetterEntry &entry : std::as_const(rows.value()))
                lines << name + u" page "_s + describe(entry);
        } else {
            fail(name, rows.error());
        }
        if (auto ids = reader.deadLetterIds(query); ids) {
            QStringList texts;
            for (const qint64 id : std::as_const(ids.value()))
                texts << QString::number(id);
            lines << name + u" ids "_s + texts.join(u',');
        } else {
            fail(name, ids.error());
        }
        if (auto count = reader.countDeadLetters(query); count)
            lines << name + u" count "_s + QString::number(count.value());
        else
            fail(name, count.error());
    }
    if (auto rows = reader.deadLettersById({1, 2, 77}); rows) {
        for (const DeadLetterEntry &entry : std::as_const(rows.value()))
            lines << u"by id "_s + describe(entry);
    } else {
        fail(u"by id"_s, rows.error());
    }
    if (auto marks = reader.watermarks(); marks)
        lines << u"watermarks %1 %2 %3"_s.arg(marks->attempt)
                     .arg(marks->deadLetter)
                     .arg(marks->dropped);
    else
        fail(u"watermarks"_s, marks.error());
    if (auto fates = reader.deadLettersAfter(0); fates) {
        for (const FateCount &fate : std::as_const(fates.value()))
            lines << u"dead-lettered %1/%2 %3 x%4 newest %5"_s.arg(fate.topic, fate.subscription)
                         .arg(int(fate.reason))
                         .arg(fate.count)
                         .arg(fate.newestId);
    } else {
        fail(u"dead letters after"_s, fates.error());
    }
    if (auto fates = reader.dropsAfter(0); fates) {
        for (const FateCount &fate : std::as_const(fates.value()))
            lines << u"dropped %1/%2 %3 x%4 newest %5"_s.arg(fate.topic, fate.subscription)
                         .arg(int(fate.reason))
                         .arg(fate.count)
                         .arg(fate.newestId);
    } else {
        fail(u"drops after"_s, fates.error());
    }
    if (auto gauges = reader.deliveryGauges(); gauges) {
        QStringList gaugeLines;
        for (const DeliveryGauge &gauge : std::as_const(gauges.value()))
            gaugeLines << u"gauge %1/%2 state %3 x%4 due %5"_s.arg(gauge.topic, gauge.subscription)
                              .arg(int(gauge.state))
                              .arg(gauge.count)
                              .arg(gauge.earliestDueMs);
        gaugeLines.sort(); // GROUP BY promises no order
        lines += gaugeLines;
    } else {
        fail(u"gauges"_s, gauges.error());
    }
    if (auto probation = reader.probation(); probation) {
        for (const ProbationRecord &record : std::as_const(probation.value()))
            lines << u"probation %1/%2 state %3 cause %4 until %5 failures %6"_s
                         .arg(record.topic, record.subscription)
                         .arg(record.state)
                         .arg(int(record.cause))
                         .arg(record.untilMs)
                         .arg(record.consecutiveFailures);
    } else {
        fail(u"probation"_s, probation.error());
    }
    return lines;
}

} // namespace

class StoreReaderTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void bothBackendsReadTheSame();
    void sharedStoreNamesInstances();
    void emptyDatabaseIsLeftAlone();
    void errorsHideThePassword();
    void sqliteFileThatIsMissing();

private:
    std::unique_ptr<PostgresServer> m_server;
};

void StoreReaderTest::initTestCase()
{
    m_server = std::make_unique<PostgresServer>();
    QVERIFY2(m_server->isRunning(), qPrintable(m_server->errorText()));
}

void StoreReaderTest::bothBackendsReadTheSame()
{
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    const QString file = directory.filePath(u"eventdesk.db"_s);
    SqliteDeliveryStore sqlite;
    QVERIFY(sqlite.open(file).hasValue());
    QVERIFY(writeRows(sqlite));

    const QString url = m_server->createDatabase(u"same_rows"_s);
    QVERIFY2(!url.isEmpty(), qPrintable(m_server->errorText()));
    PostgresDeliveryStore postgres;
    QVERIFY(postgres.open(url).hasValue());
    QVERIFY(postgres.registerInstance({u"host-a"_s, 4242, 10000}).hasValue());
    QVERIFY(writeRows(postgres));

    auto sqliteReader = openDeliveryStoreReader(file);
    QVERIFY2(sqliteReader.hasValue(), qPrintable(sqliteReader.error()));
    auto postgresReader = openDeliveryStoreReader(url);
    QVERIFY2(postgresReader.hasValue(), qPrintable(postgresReader.error()));
    QVERIFY(!sqliteReader.value()->isShared());
    QVERIFY(postgresReader.value()->isShared());

    const QStringList fromSqlite = describeAll(*sqliteReader.value());
    const QStringList fromPostgres = describeAll(*postgresReader.value());
    QCOMPARE(fromPostgres, fromSqlite);

    // And what they agree on is what was written, not nothing.
    QVERIFY2(!fromSqlite.join(u'\n').contains(u"ERROR"_s), qPrintable(fromSqlite.join(u'\n')));
    QCOMPARE(fromSqlite.filter(u"newest attempt"_s).size(), 3);
    QVERIFY(fromSqlite.first().startsWith(u"newest attempt 3 1700 orders/audit [e-3]"_s));
    QVERIFY(fromSqlite.contains(
        u"after 1 attempt 2 1600 orders/audit [e-3] #1 500 13 12ms next 9000"_s));
    QVERIFY(fromSqlite.contains(
        u"history e-1: 1 attempts, 0 dead letters, 0 drops, 1 events, 1 unfinished"_s));
    QVERIFY(fromSqlite.contains(
        u"history e-3: 2 attempts, 1 dead letters, 0 drops, 0 events, 0 unfinished"_s));
    QVERIFY(fromSqlite.contains(u"all count 2"_s));
    QVERIFY(fromSqlite.contains(u"needle count 1"_s));
    QVERIFY(fromSqlite.contains(u"needle ids 1"_s));
    QVERIFY(fromSqlite.contains(u"billing ids 2"_s));
    QVERIFY(fromSqlite.contains(u"all ids 2,1"_s));
    // A page of index fields carries no record; a read by id carries it.
    QVERIFY(fromSqlite.filter(u"all page dead letter 1 "_s).constFirst().endsWith(u"[] []"_s));
    QVERIFY(fromSqlite.filter(u"by id dead letter 1 "_s).constFirst().contains(u"Needle"_s));
    QCOMPARE(fromSqlite.filter(u"by id "_s).size(), 2);
    QVERIFY(fromSqlite.contains(u"watermarks 3 2 1"_s));
    QVERIFY(fromSqlite.contains(u"gauge orders/billing state 0 x1 due 9000"_s));
    QVERIFY(fromSqlite.contains(u"gauge orders/billing state 1 x1 due 1000"_s));
    QVERIFY(
        fromSqlite.contains(u"probation orders/billing state 1 cause 7 until 50000 failures 10"_s));

    // Only the shared store knows who made an attempt.
    const auto postgresAttempts = postgresReader.value()->newestAttempts(0);
    QVERIFY(postgresAttempts.hasValue());
    QCOMPARE(postgresAttempts->size(), 3);
    for (const AttemptLogEntry &entry : std::as_const(postgresAttempts.value()))
        QCOMPARE(entry.instance, postgres.instanceId());
    const auto sqliteAttempts = sqliteReader.value()->newestAttempts(0);
    QVERIFY(sqliteAttempts.hasValue());
    for (const AttemptLogEntry &entry : std::as_const(sqliteAttempts.value()))
        QCOMPARE(entry.instance, 0);
}

void StoreReaderTest::sharedStoreNamesInstances()
{
    const QString url = m_server->createDatabase(u"instances"_s);
    QVERIFY2(!url.isEmpty(), qPrintable(m_server->errorText()));
    PostgresDeliveryStore first;
    QVERIFY(first.open(url).hasValue());
    QVERIFY(first.registerInstance({u"host-a"_s, 101, 10000}).hasValue());
    PostgresDeliveryStore second;
    QVERIFY(second.open(url).hasValue());
    QVERIFY(second.registerInstance({u"host-b"_s, 202, 4000}).hasValue());
    QVERIFY(first
                .insertPublished({storedEvent(1, u"e-1"_s), storedEvent(2, u"e-2"_s)},
                                 {delivery(1, 1, u"billing"_s), delivery(2, 2, u"billing"_s)})
                .hasValue());
    // The second instance was last heard of a minute ago by the server's clock.
    QVERIFY(m_server->execute(url,
                              "UPDATE instances SET heartbeat = clock_timestamp()"
                              " - interval '60 seconds' WHERE id = "
                                  + QByteArray::number(second.instanceId())));

    auto reader = openDeliveryStoreReader(url);
    QVERIFY2(reader.hasValue(), qPrintable(reader.error()));
    const auto instances = reader.value()->instances();
    QVERIFY2(instances.hasValue(), qPrintable(instances.error()));
    QCOMPARE(instances->size(), 2);
    const InstanceStatus &a = instances->at(0);
    QCOMPARE(a.id, first.instanceId());
    QCOMPARE(a.hostName, u"host-a"_s);
    QCOMPARE(a.processId, 101);
    QCOMPARE(a.leaseMs, 10000);
    QCOMPARE(a.ownedDeliveries, 2);
    QVERIFY2(a.heartbeatAgeMs >= 0 && a.heartbeatAgeMs < 60000,
             qPrintable(QString::number(a.heartbeatAgeMs)));
    QVERIFY(a.startedMs > 0);
    const InstanceStatus &b = instances->at(1);
    QCOMPARE(b.hostName, u"host-b"_s);
    QCOMPARE(b.ownedDeliveries, 0);
    QVERIFY2(b.heartbeatAgeMs >= 60000, qPrintable(QString::number(b.heartbeatAgeMs)));

    // Released at shutdown: the row goes.
    QVERIFY(second.releaseInstance().hasValue());
    const auto after = reader.value()->instances();
    QVERIFY(after.hasValue());
    QCOMPARE(after->size(), 1);
}

void StoreReaderTest::emptyDatabaseIsLeftAlone()
{
    const QString url = m_server->createDatabase(u"empty"_s);
    QVERIFY2(!url.isEmpty(), qPrintable(m_server->errorText()));
    auto reader = openDeliveryStoreReader(url);
    QVERIFY(!reader.hasValue());
    QVERIFY2(reader.error().contains(u"holds no EventDesk store yet"_s),
             qPrintable(reader.error()));
    QString tables;
    QVERIFY(m_server->execute(url,
                              "SELECT count(*) FROM pg_catalog.pg_class c JOIN"
                              " pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
                              " WHERE n.nspname = 'public'",
                              &tables));
    QCOMPARE(tables, u"0"_s);

    // Once an engine has created the store, the same location reads.
    PostgresDeliveryStore engine;
    QVERIFY(engine.open(url).hasValue());
    auto again = openDeliveryStoreReader(url);
    QVERIFY2(again.hasValue(), qPrintable(again.error()));
    const auto marks = again.value()->watermarks();
    QVERIFY2(marks.hasValue(), qPrintable(marks.error()));
    QCOMPARE(marks->attempt, 0);
}

void StoreReaderTest::errorsHideThePassword()
{
    QString url = m_server->databaseUrl(u"no_such_database"_s);
    url.replace(u"eventdesk@"_s, u"eventdesk:Sesame-4711@"_s);
    auto reader = openDeliveryStoreReader(url);
    QVERIFY(!reader.hasValue());
    QVERIFY2(!reader.error().contains(u"Sesame-4711"_s), qPrintable(reader.error()));
    QVERIFY2(reader.error().contains(u"eventdesk:***@"_s), qPrintable(reader.error()));
}

void StoreReaderTest::sqliteFileThatIsMissing()
{
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    const QString file = directory.filePath(u"missing.db"_s);
    auto reader = openDeliveryStoreReader(file);
    QVERIFY(!reader.hasValue());
    QVERIFY2(reader.error().contains(file), qPrintable(reader.error()));
}

QTEST_GUILESS_MAIN(StoreReaderTest)
#include "tst_storereader.moc"
