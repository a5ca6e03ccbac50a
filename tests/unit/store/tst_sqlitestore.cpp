// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "StoreFiles.h"
#include "store/sqlite/SqliteDeliveryStore.h"
#include "store/sqlite/SqliteReadOnlyDatabase.h"
#include "store/sqlite/SqliteStoreSchema.h"

#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>
#include <QVariant>

#include <sqlite3.h>

#include <algorithm>

#ifdef Q_OS_UNIX
#include <sys/resource.h>

#include <csignal>
#endif

using namespace Qt::StringLiterals;
using namespace EventDesk;
using EventDesk::StoreFiles::fileDigest;
using EventDesk::StoreFiles::openDescriptors;

namespace {

// A plain read-write SQLite connection that looks at the file (and changes it) behind the store's
// back, through the same SQLite library.
class RawConnection final
{
public:
    explicit RawConnection(const QString &filePath)
    {
        if (sqlite3_open_v2(QFile::encodeName(filePath).constData(), &m_database,
                            SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr)
            != SQLITE_OK) {
            qWarning("RawConnection: %s", sqlite3_errmsg(m_database));
        }
        sqlite3_busy_timeout(m_database, 5000);
    }
    ~RawConnection() { sqlite3_close_v2(m_database); }
    Q_DISABLE_COPY_MOVE(RawConnection)

    bool execute(const QString &sql) const
    {
        return sqlite3_exec(m_database, sql.toUtf8().constData(), nullptr, nullptr, nullptr)
            == SQLITE_OK;
    }
    // The first column of the first row; an invalid QVariant for no row, NULL or an error.
    QVariant scalar(const QString &sql) const
    {
        const QByteArray utf8 = sql.toUtf8();
        sqlite3_stmt *statement = nullptr;
        QVariant value;
        if (sqlite3_prepare_v2(m_database, utf8.constData(), int(utf8.size()), &statement, nullptr)
                == SQLITE_OK
            && sqlite3_step(statement) == SQLITE_ROW) {
            switch (sqlite3_column_type(statement, 0)) {
            case SQLITE_INTEGER:
                value = qint64(sqlite3_column_int64(statement, 0));
                break;
            case SQLITE_FLOAT:
                value = sqlite3_column_double(statement, 0);
                break;
            case SQLITE_TEXT: {
                const auto *text
                    = reinterpret_cast<const char *>(sqlite3_column_text(statement, 0));
                value = QString::fromUtf8(text, sqlite3_column_bytes(statement, 0));
                break;
            }
            case SQLITE_BLOB: {
                const auto *data = static_cast<const char *>(sqlite3_column_blob(statement, 0));
                value = QByteArray(data, sqlite3_column_bytes(statement, 0));
                break;
            }
            default:
                break;
            }
        }
        sqlite3_finalize(statement);
        return value;
    }

private:
    sqlite3 *m_database = nullptr;
};

StoredEvent makeEvent(qint64 seq)
{
    StoredEvent event;
    event.seq = seq;
    event.topic = u"orders"_s;
    event.id = u"event-%1"_s.arg(seq);
    event.eventType = u"Contoso.Order.Created"_s;
    event.subject = u"/orders/%1"_s.arg(seq);
    event.dataVersion = u"1.0"_s;
    event.eventTime = u"2024-05-01T10:00:00.0000000Z"_s;
    event.publishMs = 1'700'000'000'000 + seq;
    event.body = QByteArrayLiteral("{\"id\":\"event-") + QByteArray::number(seq)
        + QByteArrayLiteral("\",\"data\":{\"bytes\":\"\\u0000\xc3\xa9\"}}");
    return event;
}

DeliveryRecord makeDelivery(qint64 id, qint64 eventSeq, const QString &subscription)
{
    DeliveryRecord delivery;
    delivery.id = id;
    delivery.eventSeq = eventSeq;
    delivery.topic = u"orders"_s;
    delivery.subscription = subscription;
    delivery.state = DeliveryState::Pending;
    delivery.dueMs = 1'700'000'000'000 + eventSeq;
    delivery.publishMs = 1'700'000'000'000 + eventSeq;
    return delivery;
}

DeadLetterEntry makeDeadLetter(int index)
{
    DeadLetterEntry entry;
    entry.topic = index % 3 == 0 ? u"payments"_s : u"orders"_s;
    entry.subscription = index % 2 == 0 ? u"billing"_s : u"audit"_s;
    entry.eventId = u"event-%1"_s.arg(index);
    entry.reason = index % 5 == 0 ? DeadLetterReason::TimeToLiveExceeded
                                  : DeadLetterReason::MaxDeliveryAttemptsExceeded;
    entry.lastOutcome = index % 6 == 0 ? DeliveryOutcome::TimedOut : DeliveryOutcome::Busy;
    entry.lastHttpStatus = 503;
    entry.attempts = 30;
    entry.publishMs = 1000 + index;
    entry.lastAttemptMs = 2000 + index;
    entry.deadLetteredMs = 3000 + index;
    entry.blobPath = u"deadletters/BILLING/2024/5/1/10/%1.json"_s.arg(index);
    entry.record = index % 4 == 0 ? QByteArrayLiteral("[{\"note\":\"has a NeedLe inside\"}]")
                                  : QByteArrayLiteral("[{\"note\":\"plain\"}]");
    if (index == 7)
        entry.record = QByteArrayLiteral("[{\"discount\":\"100%_off\"}]");
    entry.eventType = u"Contoso.Order.Created"_s;
    entry.subject = u"/orders/%1"_s.arg(index);
    entry.dataVersion = u"1.0"_s;
    entry.eventTime = u"2024-05-01T10:00:00.0000000Z"_s;
    entry.eventBody = QByteArrayLiteral("{\"n\":") + QByteArray::number(index) + '}';
    return entry;
}

AttemptLogEntry makeAttempt(int index)
{
    AttemptLogEntry entry;
    entry.timeMs = 5000 + index;
    entry.topic = u"orders"_s;
    entry.subscription = u"billing"_s;
    entry.eventIds = {u"event-%1"_s.arg(index), u"event-%1b"_s.arg(index)};
    entry.attempt = 1 + index % 30;
    entry.httpStatus = 500;
    entry.outcome = DeliveryOutcome::GenericError;
    entry.durationMs = 12;
    entry.nextDueMs = 15000 + index;
    return entry;
}

bool sameEvent(const StoredEvent &a, const StoredEvent &b)
{
    return a.seq == b.seq && a.topic == b.topic && a.id == b.id && a.eventType == b.eventType
        && a.subject == b.subject && a.dataVersion == b.dataVersion && a.eventTime == b.eventTime
        && a.publishMs == b.publishMs && a.body == b.body;
}

bool sameDelivery(const DeliveryRecord &a, const DeliveryRecord &b)
{
    return a.id == b.id && a.eventSeq == b.eventSeq && a.topic == b.topic
        && a.subscription == b.subscription && a.state == b.state && a.attempts == b.attempts
        && a.dueMs == b.dueMs && a.publishMs == b.publishMs && a.lastOutcome == b.lastOutcome
        && a.lastHttpStatus == b.lastHttpStatus && a.lastAttemptMs == b.lastAttemptMs
        && a.reason == b.reason && a.deadLetterUnavailableSinceMs == b.deadLetterUnavailableSinceMs;
}

bool sameDeadLetter(const DeadLetterEntry &a, const DeadLetterEntry &b)
{
    // The id is the store's; everything else must come back as written.
    return a.topic == b.topic && a.subscription == b.subscription && a.eventId == b.eventId
        && a.reason == b.reason && a.lastOutcome == b.lastOutcome
        && a.lastHttpStatus == b.lastHttpStatus && a.attempts == b.attempts
        && a.publishMs == b.publishMs && a.lastAttemptMs == b.lastAttemptMs
        && a.deadLetteredMs == b.deadLetteredMs && a.blobPath == b.blobPath && a.record == b.record
        && a.eventType == b.eventType && a.subject == b.subject && a.dataVersion == b.dataVersion
        && a.eventTime == b.eventTime && a.eventBody == b.eventBody;
}

QList<qint64> idsOf(const QList<DeadLetterEntry> &entries)
{
    QList<qint64> ids;
    for (const DeadLetterEntry &entry : entries)
        ids.append(entry.id);
    return ids;
}

bool isNewestFirst(const QList<qint64> &ids)
{
    return std::adjacent_find(ids.cbegin(), ids.cend(), std::less_equal<qint64>()) == ids.cend();
}

} // namespace

class TestSqliteStore : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void createsSchemaInWalMode();
    void reopenKeepsData();
    void maxIdsSurviveFinishedEvents();
    void finishedInRunsAndGaps();
    void logCheckpointedWhileOpen();
    void insertPublishedIsAtomic();
    void commitUpdatesAndFinishesDeliveries();
    void commitPersistsLogsNewestFirst();
    void attemptLogStaysBounded_data();
    void attemptLogStaysBounded();
    void attemptEventIdsKeepTheirOrderAndCharacters();
    void decodesEventIds();
    void deadLetterPagesFiltersAndCount();
    void removeDeadLetters();
    void refusesFilesThatAreNotStores_data();
    void refusesFilesThatAreNotStores();
    void refusesNewerSchema();
    void reportsErrorsInsteadOfCrashing();
    void loadEventsBeyondVariableLimit();
    void storesCoexistInOneProcess();
    void textRoundTripsExactly();
    void nullAndEmptyKeepTheirMeaning();
    void commitRollsBackEverythingOnError();
    void fullDiskLeavesNothingBehind();
    void streamsDeliveriesAndReportsDamage();
};

void TestSqliteStore::createsSchemaInWalMode()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(u"store.db"_s);
    {
        SqliteDeliveryStore store;
        const auto opened = store.open(path);
        QVERIFY2(opened, qPrintable(opened.error()));
    }
    // The journal mode is a property of the file, so a second connection must see WAL (the
    // crash safety of SPEC D1 at synchronous=NORMAL depends on it).
    RawConnection raw(path);
    QCOMPARE(raw.scalar(u"PRAGMA journal_mode"_s).toString(), u"wal"_s);
    QCOMPARE(raw.scalar(u"PRAGMA user_version"_s).toInt(), StoreSchemaVersion);
    QVERIFY(raw.scalar(u"PRAGMA application_id"_s).toInt() != 0);
    const QStringList tables
        = {u"meta"_s,    u"events"_s,      u"deliveries"_s,     u"dead_letters"_s,
           u"dropped"_s, u"attempt_log"_s, u"attempt_events"_s, u"probation"_s};
    for (const QString &table : tables) {
        const QString sql = u"SELECT count(*) FROM sqlite_master WHERE type = 'table'"
                            " AND name = '%1'"_s.arg(table);
        QVERIFY2(raw.scalar(sql).toInt() == 1, qPrintable(table));
    }
    const QStringList indexes = {u"deliveries_by_event"_s,
                                 u"dead_letters_by_subscription"_s,
                                 u"dead_letters_by_topic_subscription"_s,
                                 u"dead_letters_by_reason"_s,
                                 u"dead_letters_by_outcome"_s,
                                 u"dead_letters_by_time"_s,
                                 u"dead_letters_by_event"_s,
                                 u"dropped_by_event"_s};
    for (const QString &index : indexes) {
        const QString sql = u"SELECT count(*) FROM sqlite_master WHERE type = 'index'"
                            " AND name = '%1'"_s.arg(index);
        QVERIFY2(raw.scalar(sql).toInt() == 1, qPrintable(index));
    }
}

void TestSqliteStore::reopenKeepsData()
{
    // SPEC D1: accepted events and their delivery state survive a restart.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(u"store.db"_s);
    const QList<StoredEvent> events = {makeEvent(1), makeEvent(2)};
    QList<DeliveryRecord> deliveries
        = {makeDelivery(10, 1, u"billing"_s), makeDelivery(11, 1, u"audit"_s),
           makeDelivery(12, 2, u"billing"_s)};
    deliveries[1].state = DeliveryState::InFlight;
    deliveries[1].attempts = 3;
    deliveries[1].lastOutcome = DeliveryOutcome::TimedOut;
    deliveries[1].lastHttpStatus = 408;
    deliveries[1].lastAttemptMs = 123456;
    deliveries[2].state = DeliveryState::DeadLetterPending;
    deliveries[2].reason = DeadLetterReason::UndeliverableDueToHttpForbidden;
    deliveries[2].deadLetterUnavailableSinceMs = 777;
    {
        SqliteDeliveryStore store;
        QVERIFY(store.open(path));
        const auto inserted = store.insertPublished(events, deliveries);
        QVERIFY2(inserted, qPrintable(inserted.error()));
        store.close();
    }
    SqliteDeliveryStore store;
    QVERIFY(store.open(path));
    const auto loaded = store.loadUnfinishedDeliveries();
    QVERIFY2(loaded, qPrintable(loaded.error()));
    QCOMPARE(loaded->size(), deliveries.size());
    for (int i = 0; i < deliveries.size(); ++i)
        QVERIFY2(sameDelivery(loaded->at(i), deliveries.at(i)), qPrintable(QString::number(i)));

    auto loadedEvents = store.loadEvents({2, 1});
    QVERIFY2(loadedEvents, qPrintable(loadedEvents.error()));
    QCOMPARE(loadedEvents->size(), 2);
    std::sort(loadedEvents->begin(), loadedEvents->end(),
              [](const StoredEvent &a, const StoredEvent &b) { return a.seq < b.seq; });
    QVERIFY(sameEvent(loadedEvents->at(0), events.at(0)));
    QVERIFY(sameEvent(loadedEvents->at(1), events.at(1)));

    const auto ids = store.maxIds();
    QVERIFY(ids);
    QCOMPARE(ids->eventSeq, 2);
    QCOMPARE(ids->deliveryId, 12);
}

void TestSqliteStore::logCheckpointedWhileOpen()
{
    // The write-ahead log is copied into the database file by a background connection while the
    // store stays open and idle: the file grows to hold what was committed, the log stays
    // bounded, and everything reads back after a reopen.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(u"store.db"_s);
    SqliteDeliveryStore store;
    QVERIFY(store.open(path));
    const QByteArray padding(3000, 'p'); // one event per 4 KB page
    qint64 seq = 0;
    for (int commit = 0; commit < 12; ++commit) { // ~6,000 pages in all, in 12 transactions
        QList<StoredEvent> events;
        QList<DeliveryRecord> deliveries;
        for (int i = 0; i < 500; ++i) {
            StoredEvent event = makeEvent(++seq);
            event.body = padding;
            events.append(event);
            deliveries.append(makeDelivery(seq, seq, u"billing"_s));
        }
        const auto stored = store.insertPublished(events, deliveries);
        QVERIFY2(stored, qPrintable(stored.error()));
    }
    QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(path).size() > 4000LL * 4096, 20000);
    QVERIFY(QFileInfo(path + u"-wal"_s).size() < 64000LL * 4096);

    store.close();
    QVERIFY(!QFileInfo::exists(path + u"-wal"_s));
    QVERIFY(store.open(path));
    const auto loaded = store.loadUnfinishedDeliveries();
    QVERIFY(loaded);
    QCOMPARE(loaded->size(), qsizetype(seq));
    const auto last = store.loadEvents({seq});
    QVERIFY(last);
    QCOMPARE(last->size(), 1);
    QCOMPARE(last->first().body, padding);
}

void TestSqliteStore::finishedInRunsAndGaps()
{
    // Finished deliveries are removed in runs of consecutive ids: a gap, an unsorted list,
    // duplicates and an event that another subscription still waits for must all come out right.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    SqliteDeliveryStore store;
    QVERIFY(store.open(dir.filePath(u"store.db"_s)));
    QList<StoredEvent> events;
    QList<DeliveryRecord> deliveries;
    for (qint64 seq = 1; seq <= 10; ++seq) {
        events.append(makeEvent(seq));
        deliveries.append(makeDelivery(seq, seq, u"billing"_s));
    }
    deliveries.append(makeDelivery(11, 4, u"audit"_s)); // event 4 has a second delivery
    QVERIFY(store.insertPublished(events, deliveries));

    StoreBatch batch;
    for (const qint64 id : {7, 3, 5, 4, 6, 9, 2, 3})
        batch.finished.append({id, id, DeliveryState::Delivered});
    const auto committed = store.commit(batch);
    QVERIFY2(committed, qPrintable(committed.error()));

    const auto left = store.loadUnfinishedDeliveries();
    QVERIFY(left);
    QList<qint64> leftIds;
    for (const DeliveryRecord &record : left.value())
        leftIds.append(record.id);
    QCOMPARE(leftIds, (QList<qint64>{1, 8, 10, 11}));
    const auto kept = store.loadEvents({1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
    QVERIFY(kept);
    QList<qint64> keptSeqs;
    for (const StoredEvent &event : kept.value())
        keptSeqs.append(event.seq);
    std::sort(keptSeqs.begin(), keptSeqs.end());
    QCOMPARE(keptSeqs, (QList<qint64>{1, 4, 8, 10}));
}

void TestSqliteStore::maxIdsSurviveFinishedEvents()
{
    // Finished events and deliveries are deleted; their ids must still never be handed out again.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(u"store.db"_s);
    {
        SqliteDeliveryStore store;
        QVERIFY(store.open(path));
        QVERIFY(store.insertPublished({makeEvent(41)}, {makeDelivery(90, 41, u"billing"_s)}));
        StoreBatch batch;
        batch.finished.append({90, 41, DeliveryState::Delivered});
        QVERIFY(store.commit(batch));
    }
    SqliteDeliveryStore store;
    QVERIFY(store.open(path));
    const auto deliveries = store.loadUnfinishedDeliveries();
    QVERIFY(deliveries);
    QVERIFY(deliveries->isEmpty());
    const auto ids = store.maxIds();
    QVERIFY2(ids, qPrintable(ids.error()));
    QCOMPARE(ids->eventSeq, 41);
    QCOMPARE(ids->deliveryId, 90);
}

void TestSqliteStore::insertPublishedIsAtomic()
{
    // SPEC D1 / §10: a publish is stored whole or not at all; the engine acknowledges only success.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(u"store.db"_s);
    SqliteDeliveryStore store;
    QVERIFY(store.open(path));
    QVERIFY(store.insertPublished({makeEvent(1)}, {makeDelivery(1, 1, u"billing"_s)}));

    // Events 2 and 3 insert fine; the second delivery reuses id 1 and must fail the whole call.
    const auto failed = store.insertPublished(
        {makeEvent(2), makeEvent(3)},
        {makeDelivery(2, 2, u"billing"_s), makeDelivery(1, 3, u"billing"_s)});
    QVERIFY(!failed);
    QVERIFY2(failed.error().contains(path), qPrintable(failed.error()));
    QVERIFY2(failed.error().contains(u"UNIQUE"_s, Qt::CaseInsensitive), qPrintable(failed.error()));

    store.close();
    QVERIFY(store.open(path));
    const auto deliveries = store.loadUnfinishedDeliveries();
    QVERIFY(deliveries);
    QCOMPARE(deliveries->size(), 1);
    QCOMPARE(deliveries->at(0).id, 1);
    QCOMPARE(deliveries->at(0).eventSeq, 1);
    const auto events = store.loadEvents({1, 2, 3});
    QVERIFY(events);
    QCOMPARE(events->size(), 1);
    QCOMPARE(events->at(0).seq, 1);
    const auto ids = store.maxIds();
    QVERIFY(ids);
    QCOMPARE(ids->eventSeq, 1);
    QCOMPARE(ids->deliveryId, 1);

    // The store is still usable after the rollback.
    QVERIFY(store.insertPublished({makeEvent(2)}, {makeDelivery(2, 2, u"billing"_s)}));
    QCOMPARE(store.loadUnfinishedDeliveries()->size(), 2);
}

void TestSqliteStore::commitUpdatesAndFinishesDeliveries()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(u"store.db"_s);
    SqliteDeliveryStore store;
    QVERIFY(store.open(path));
    // Event 1 goes to two subscriptions (SPEC §1: one delivery each), event 2 to one.
    QVERIFY(store.insertPublished({makeEvent(1), makeEvent(2)},
                                  {makeDelivery(1, 1, u"billing"_s), makeDelivery(2, 1, u"audit"_s),
                                   makeDelivery(3, 2, u"billing"_s)}));

    DeliveryRecord updated = makeDelivery(1, 1, u"billing"_s);
    updated.state = DeliveryState::DeadLetterPending;
    updated.attempts = 7;
    updated.dueMs = 99'000;
    updated.lastOutcome = DeliveryOutcome::Busy;
    updated.lastHttpStatus = 503;
    updated.lastAttemptMs = 98'000;
    updated.reason = DeadLetterReason::MaxDeliveryAttemptsExceeded;
    updated.deadLetterUnavailableSinceMs = 97'000;

    StoreBatch batch;
    batch.updates.append(updated);
    batch.finished.append({2, 1, DeliveryState::Delivered});
    batch.finished.append({3, 2, DeliveryState::Dropped});
    const auto committed = store.commit(batch);
    QVERIFY2(committed, qPrintable(committed.error()));

    store.close();
    QVERIFY(store.open(path));
    auto deliveries = store.loadUnfinishedDeliveries();
    QVERIFY(deliveries);
    QCOMPARE(deliveries->size(), 1);
    QVERIFY(sameDelivery(deliveries->at(0), updated));
    // Event 1 still has delivery 1; event 2 lost its only delivery.
    auto events = store.loadEvents({1, 2});
    QVERIFY(events);
    QCOMPARE(events->size(), 1);
    QCOMPARE(events->at(0).seq, 1);

    StoreBatch last;
    last.finished.append({1, 1, DeliveryState::DeadLettered});
    QVERIFY(store.commit(last));
    deliveries = store.loadUnfinishedDeliveries();
    QVERIFY(deliveries);
    QVERIFY(deliveries->isEmpty());
    events = store.loadEvents({1, 2});
    QVERIFY(events);
    QVERIFY(events->isEmpty());
}

void TestSqliteStore::commitPersistsLogsNewestFirst()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(u"store.db"_s);
    SqliteDeliveryStore store;
    QVERIFY(store.open(path));

    StoreBatch first;
    first.deadLetters = {makeDeadLetter(1), makeDeadLetter(2)};
    DroppedEntry drop;
    drop.topic = u"orders"_s;
    drop.subscription = u"audit"_s;
    drop.eventId = u"event-5"_s;
    drop.reason = DeadLetterReason::DeadLetterDestinationUnavailable; // SPEC L4
    drop.lastOutcome = DeliveryOutcome::SocketError;
    drop.lastHttpStatus = 0;
    drop.attempts = 4;
    drop.droppedMs = 4444;
    DroppedEntry laterDrop = drop;
    laterDrop.eventId = u"event-6"_s;
    laterDrop.reason = DeadLetterReason::SubscriptionDeleted;
    first.drops = {drop, laterDrop};
    first.attempts = {makeAttempt(1), makeAttempt(2)};
    ProbationRecord probation;
    probation.topic = u"orders"_s;
    probation.subscription = u"billing"_s;
    probation.state = 1;
    probation.cause = DeliveryOutcome::Busy; // SPEC P1: 10 s
    probation.untilMs = 10'000;
    probation.durationMs = 10'000;
    probation.consecutiveFailures = 10;
    first.probation = {probation};
    QVERIFY(store.commit(first));

    // SPEC P4: a failed half-open attempt doubles the probation; the row is replaced, not added.
    StoreBatch second;
    probation.durationMs = 20'000;
    probation.untilMs = 40'000;
    probation.consecutiveFailures = 11;
    second.probation = {probation};
    second.attempts = {makeAttempt(3)};
    QVERIFY(store.commit(second));

    store.close();
    QVERIFY(store.open(path));

    const auto deadLetters = store.deadLetters({});
    QVERIFY(deadLetters);
    QCOMPARE(deadLetters->size(), 2);
    QVERIFY(sameDeadLetter(deadLetters->at(0), makeDeadLetter(2)));
    QVERIFY(sameDeadLetter(deadLetters->at(1), makeDeadLetter(1)));
    QVERIFY(deadLetters->at(0).id > deadLetters->at(1).id);

    const auto drops = store.droppedDeliveries(0);
    QVERIFY(drops);
    QCOMPARE(drops->size(), 2);
    QCOMPARE(drops->at(0).eventId, u"event-6"_s);
    QCOMPARE(drops->at(0).reason, DeadLetterReason::SubscriptionDeleted);
    QCOMPARE(drops->at(1).eventId, u"event-5"_s);
    QCOMPARE(drops->at(1).reason, DeadLetterReason::DeadLetterDestinationUnavailable);
    QCOMPARE(drops->at(1).lastOutcome, DeliveryOutcome::SocketError);
    QCOMPARE(drops->at(1).attempts, 4);
    QCOMPARE(drops->at(1).droppedMs, 4444);
    QCOMPARE(store.droppedDeliveries(1)->size(), 1);

    const auto attempts = store.attemptLog(0);
    QVERIFY(attempts);
    QCOMPARE(attempts->size(), 3);
    QCOMPARE(attempts->at(0).timeMs, makeAttempt(3).timeMs);
    QCOMPARE(attempts->at(2).timeMs, makeAttempt(1).timeMs);
    const AttemptLogEntry expected = makeAttempt(2);
    const AttemptLogEntry &actual = attempts->at(1);
    QCOMPARE(actual.eventIds, expected.eventIds);
    QCOMPARE(actual.topic, expected.topic);
    QCOMPARE(actual.subscription, expected.subscription);
    QCOMPARE(actual.attempt, expected.attempt);
    QCOMPARE(actual.httpStatus, expected.httpStatus);
    QCOMPARE(actual.outcome, expected.outcome);
    QCOMPARE(actual.durationMs, expected.durationMs);
    QCOMPARE(actual.nextDueMs, expected.nextDueMs);
    QVERIFY(attempts->at(0).id > attempts->at(1).id);
    QCOMPARE(store.attemptLog(2)->size(), 2);

    const auto probationRecords = store.loadProbation();
    QVERIFY(probationRecords);
    QCOMPARE(probationRecords->size(), 1);
    QCOMPARE(probationRecords->at(0).subscription, u"billing"_s);
    QCOMPARE(probationRecords->at(0).state, 1);
    QCOMPARE(probationRecords->at(0).cause, DeliveryOutcome::Busy);
    QCOMPARE(probationRecords->at(0).durationMs, 20'000);
    QCOMPARE(probationRecords->at(0).untilMs, 40'000);
    QCOMPARE(probationRecords->at(0).consecutiveFailures, 11);
}

void TestSqliteStore::attemptLogStaysBounded_data()
{
    QTest::addColumn<int>("bound");
    QTest::addColumn<int>("rowsPerCommit");
    QTest::addColumn<int>("commits");
    // A bound of 10 trims on every commit; 250 trims every 2 ids and 2000 every 20 ids, so
    // single rows and small batches also commit without trimming in between.
    QTest::newRow("bound 10, single rows") << 10 << 1 << 25;
    QTest::newRow("bound 10, one big commit") << 10 << 37 << 1;
    QTest::newRow("bound 250, single rows") << 250 << 1 << 300;
    QTest::newRow("bound 250, batches of 7") << 250 << 7 << 120;
    QTest::newRow("bound 2000, batches of 7") << 2000 << 7 << 300;
    QTest::newRow("bound 2000, batches of 333") << 2000 << 333 << 12;
}

void TestSqliteStore::attemptLogStaysBounded()
{
    QFETCH(int, bound);
    QFETCH(int, rowsPerCommit);
    QFETCH(int, commits);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    SqliteDeliveryStore store(bound);
    QVERIFY(store.open(dir.filePath(u"store.db"_s)));

    int written = 0;
    for (int commit = 0; commit < commits; ++commit) {
        StoreBatch batch;
        for (int row = 0; row < rowsPerCommit; ++row)
            batch.attempts.append(makeAttempt(++written));
        const auto committed = store.commit(batch);
        QVERIFY2(committed, qPrintable(committed.error()));
        const auto log = store.attemptLog(0);
        QVERIFY(log);
        QVERIFY2(log->size() <= bound,
                 qPrintable(u"%1 rows after %2 written"_s.arg(log->size()).arg(written)));
    }
    const auto log = store.attemptLog(0);
    QVERIFY(log);
    // Trimming must keep most of the bound, and always the newest rows.
    const int step = std::clamp(bound / 100, 1, 1000);
    QVERIFY2(log->size() >= std::min(written, bound - step + 1),
             qPrintable(QString::number(log->size())));
    QCOMPARE(log->first().timeMs, makeAttempt(written).timeMs);
    QCOMPARE(log->last().timeMs, makeAttempt(written - int(log->size()) + 1).timeMs);
    // Trimming removes the event ids of the attempts it removes, and only those.
    RawConnection raw(dir.filePath(u"store.db"_s));
    QCOMPARE(raw.scalar(u"SELECT count(*) FROM attempt_events"_s).toLongLong(), 2 * log->size());
    QCOMPARE(raw.scalar(u"SELECT count(*) FROM attempt_events WHERE attempt_id NOT IN"
                        " (SELECT id FROM attempt_log)"_s)
                 .toLongLong(),
             0);
}

void TestSqliteStore::attemptEventIdsKeepTheirOrderAndCharacters()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(u"store.db"_s);
    SqliteDeliveryStore store;
    QVERIFY(store.open(path));
    // Commas, colons and digits (the separators of the comma-joined log of version 1 and of
    // decodeEventIds()), an empty id, a repeated one, and the order of the request, which is
    // not the order of the ids.
    AttemptLogEntry batch = makeAttempt(1);
    batch.eventIds = {u"b,c"_s, u"a"_s, u"12:3:x"_s, u""_s, u"a"_s, u"événement"_s};
    AttemptLogEntry single = makeAttempt(2);
    single.eventIds = {u"b"_s};
    AttemptLogEntry none = makeAttempt(3);
    none.eventIds.clear();
    // Long enough for the statements that write many rows at once, and a remainder.
    AttemptLogEntry large = makeAttempt(4);
    large.eventIds.clear();
    for (int index = 2 * AttemptEventsPerInsert + 7; index > 0; --index)
        large.eventIds.append(u"large-%1"_s.arg(index));
    QVERIFY(store.commit(StoreBatch {.attempts = {batch, single, none, large}}));

    const auto log = store.attemptLog(0);
    QVERIFY(log);
    QCOMPARE(log->size(), 4);
    QCOMPARE(log->at(3).eventIds, batch.eventIds);
    QCOMPARE(log->at(2).eventIds, single.eventIds);
    QCOMPARE(log->at(1).eventIds, QStringList());
    QCOMPARE(log->at(0).eventIds, large.eventIds);
    QCOMPARE(log->first().id - log->last().id, 3);

    // The event inspector's lookup finds whole ids only, each attempt once.
    SqliteReadOnlyDatabase reader;
    QVERIFY(reader.open(path));
    const auto attemptsOf = [&reader](const QString &eventId) {
        QList<qint64> ids;
        const auto read = reader.select(
            attemptsOfEventSql(),
            [&ids](const SqliteStatement &row) { ids.append(readAttemptLogEntry(row).id); },
            eventId);
        if (!read)
            ids.append(-1);
        return ids;
    };
    QCOMPARE(attemptsOf(u"b,c"_s), QList<qint64> {log->at(3).id});
    QCOMPARE(attemptsOf(u"b"_s), QList<qint64> {log->at(2).id});
    QCOMPARE(attemptsOf(u"a"_s), QList<qint64> {log->at(3).id});
    QCOMPARE(attemptsOf(u"c"_s), QList<qint64>());
    QCOMPARE(attemptsOf(u"événement"_s), QList<qint64> {log->at(3).id});
    QCOMPARE(attemptsOf(u"large-100"_s), QList<qint64> {log->at(0).id});
}

void TestSqliteStore::decodesEventIds()
{
    QCOMPARE(decodeEventIds(""), QStringList());
    QCOMPARE(decodeEventIds("0:3:abc1:0:2:4:a,:d"), (QStringList {u"abc"_s, u""_s, u"a,:d"_s}));
    // In any order of the rows: by position.
    QCOMPARE(decodeEventIds("2:1:c0:1:a1:1:b"), (QStringList {u"a"_s, u"b"_s, u"c"_s}));
    // UTF-8 lengths in bytes.
    QCOMPARE(decodeEventIds("0:3:éx1:1:y"), (QStringList {u"éx"_s, u"y"_s}));
    // Damaged text: the ids before the damage.
    QCOMPARE(decodeEventIds("0:1:a1:9:b"), QStringList {u"a"_s});
    QCOMPARE(decodeEventIds("0:1:ax:1:b"), QStringList {u"a"_s});
}

void TestSqliteStore::deadLetterPagesFiltersAndCount()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    SqliteDeliveryStore store;
    QVERIFY(store.open(dir.filePath(u"store.db"_s)));
    StoreBatch batch;
    for (int index = 1; index <= 25; ++index)
        batch.deadLetters.append(makeDeadLetter(index));
    QVERIFY(store.commit(batch));

    // Keyset pages: 10 + 10 + 5, newest first, no overlap.
    DeadLetterQuery query;
    query.limit = 10;
    QList<qint64> seen;
    QList<int> pageSizes;
    for (;;) {
        const auto page = store.deadLetters(query);
        QVERIFY2(page, qPrintable(page.error()));
        if (page->isEmpty())
            break;
        pageSizes.append(int(page->size()));
        seen += idsOf(page.value());
        query.beforeId = page->last().id;
    }
    QCOMPARE(pageSizes, (QList<int> {10, 10, 5}));
    QCOMPARE(seen.size(), 25);
    QVERIFY(isNewestFirst(seen));
    QCOMPARE(store.deadLetters({})->first().eventId, u"event-25"_s);

    auto check = [&](DeadLetterQuery filter, auto predicate, int expectedCount) {
        filter.limit = 0;
        const auto entries = store.deadLetters(filter);
        QVERIFY2(entries, qPrintable(entries.error()));
        QCOMPARE(entries->size(), expectedCount);
        QVERIFY(isNewestFirst(idsOf(entries.value())));
        for (const DeadLetterEntry &entry : entries.value())
            QVERIFY2(predicate(entry), qPrintable(entry.eventId));
        filter.beforeId = 1; // ignored by the count
        filter.limit = 1;
        const auto count = store.countDeadLetters(filter);
        QVERIFY2(count, qPrintable(count.error()));
        QCOMPARE(count.value(), expectedCount);
    };

    check(
        {}, [](const DeadLetterEntry &) { return true; }, 25);
    DeadLetterQuery bySubscription;
    bySubscription.subscription = u"billing"_s;
    check(
        bySubscription, [](const DeadLetterEntry &e) { return e.subscription == u"billing"_s; },
        12);
    if (QTest::currentTestFailed())
        return;
    DeadLetterQuery byTopicAndReason;
    byTopicAndReason.topic = u"payments"_s;
    byTopicAndReason.reason = DeadLetterReason::TimeToLiveExceeded;
    check(
        byTopicAndReason,
        [](const DeadLetterEntry &e) {
            return e.topic == u"payments"_s && e.reason == DeadLetterReason::TimeToLiveExceeded;
        },
        1); // of 1..25 only 15 is divisible by both 3 (payments) and 5 (TimeToLiveExceeded)
    if (QTest::currentTestFailed())
        return;
    DeadLetterQuery byText;
    byText.text = u"needle"_s; // the records say "NeedLe": the search ignores ASCII case
    check(
        byText, [](const DeadLetterEntry &e) { return e.record.contains("NeedLe"); }, 6);
    if (QTest::currentTestFailed())
        return;
    // LIKE wildcards in the search text are literal: only record 7 contains "%_".
    DeadLetterQuery byWildcards;
    byWildcards.text = u"%_"_s;
    check(
        byWildcards, [](const DeadLetterEntry &e) { return e.eventId == u"event-7"_s; }, 1);
    if (QTest::currentTestFailed())
        return;
    // The browser's filters beyond those of version 1: the last outcome and a time range
    // (dead-lettered at 3000 + index).
    DeadLetterQuery byOutcome;
    byOutcome.lastOutcome = DeliveryOutcome::TimedOut;
    check(
        byOutcome,
        [](const DeadLetterEntry &e) { return e.lastOutcome == DeliveryOutcome::TimedOut; },
        4); // 6, 12, 18, 24
    if (QTest::currentTestFailed())
        return;
    DeadLetterQuery byTime;
    byTime.fromMs = 3010;
    byTime.toMs = 3015;
    check(
        byTime,
        [](const DeadLetterEntry &e) {
            return e.deadLetteredMs >= 3010 && e.deadLetteredMs <= 3015;
        },
        6);
    if (QTest::currentTestFailed())
        return;
    DeadLetterQuery since;
    since.fromMs = 3020;
    check(
        since, [](const DeadLetterEntry &e) { return e.deadLetteredMs >= 3020; }, 6);
    if (QTest::currentTestFailed())
        return;
    DeadLetterQuery until;
    until.toMs = 3003;
    until.lastOutcome = DeliveryOutcome::Busy;
    check(
        until, [](const DeadLetterEntry &e) { return e.deadLetteredMs <= 3003; }, 3);
    if (QTest::currentTestFailed())
        return;
    DeadLetterQuery allFilters = bySubscription;
    allFilters.text = u"NEEDLE"_s;
    allFilters.reason = DeadLetterReason::MaxDeliveryAttemptsExceeded;
    check(
        allFilters,
        [](const DeadLetterEntry &e) {
            return e.subscription == u"billing"_s && e.record.contains("NeedLe")
                && e.reason == DeadLetterReason::MaxDeliveryAttemptsExceeded;
        },
        5); // 4, 8, 12, 16, 24 (20 is TimeToLiveExceeded)
    if (QTest::currentTestFailed())
        return;

    // Paging inside a filter.
    DeadLetterQuery filteredPage = bySubscription;
    filteredPage.limit = 5;
    const auto firstPage = store.deadLetters(filteredPage);
    QVERIFY(firstPage);
    QCOMPARE(firstPage->size(), 5);
    filteredPage.beforeId = firstPage->last().id;
    const auto secondPage = store.deadLetters(filteredPage);
    QVERIFY(secondPage);
    QCOMPARE(secondPage->size(), 5);
    QVERIFY(secondPage->first().id < firstPage->last().id);
    QCOMPARE(secondPage->first().subscription, u"billing"_s);

    const auto byId = store.deadLettersById({seen.at(24), seen.at(0), seen.at(3), 999'999});
    QVERIFY(byId);
    QCOMPARE(idsOf(byId.value()), (QList<qint64> {seen.at(0), seen.at(3), seen.at(24)}));
    QVERIFY(sameDeadLetter(byId->last(), makeDeadLetter(1)));
    // Enough ids for an IN list, each repeated: every entry once, newest first.
    const auto allById = store.deadLettersById(seen + seen);
    QVERIFY2(allById, qPrintable(allById.error()));
    QCOMPARE(idsOf(allById.value()), seen);
    QVERIFY(sameDeadLetter(allById->first(), makeDeadLetter(25)));
}

void TestSqliteStore::removeDeadLetters()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(u"store.db"_s);
    SqliteDeliveryStore store;
    QVERIFY(store.open(path));
    StoreBatch batch;
    for (int index = 1; index <= 6; ++index)
        batch.deadLetters.append(makeDeadLetter(index));
    QVERIFY(store.commit(batch));
    const QList<qint64> ids = idsOf(store.deadLetters({}).value());
    QCOMPARE(ids.size(), 6);

    const auto removed = store.removeDeadLetters({ids.at(0), ids.at(2), ids.at(5)});
    QVERIFY2(removed, qPrintable(removed.error()));
    store.close();
    QVERIFY(store.open(path));
    QCOMPARE(store.countDeadLetters({}).value(), 3);
    QCOMPARE(idsOf(store.deadLetters({}).value()),
             (QList<qint64> {ids.at(1), ids.at(3), ids.at(4)}));

    // AUTOINCREMENT: a new dead letter never takes a removed id, so keyset pages stay valid.
    StoreBatch more;
    more.deadLetters.append(makeDeadLetter(7));
    QVERIFY(store.commit(more));
    QVERIFY(store.deadLetters({})->first().id > ids.at(0));
}

void TestSqliteStore::refusesFilesThatAreNotStores_data()
{
    QTest::addColumn<QByteArray>("contents");
    QTest::addColumn<QString>("foreignTableSql");
    QTest::newRow("text file") << QByteArrayLiteral("name,amount\nalice,12\n") << QString();
    QTest::newRow("damaged SQLite file")
        << (QByteArrayLiteral("SQLite format 3") + '\0' + QByteArray(4080, '\x5a')) << QString();
    QTest::newRow("foreign SQLite database")
        << QByteArray() << u"CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)"_s;
    QTest::newRow("foreign SQLite database with our table names")
        << QByteArray() << u"CREATE TABLE events (seq INTEGER PRIMARY KEY, topic TEXT)"_s;
}

void TestSqliteStore::refusesFilesThatAreNotStores()
{
    QFETCH(QByteArray, contents);
    QFETCH(QString, foreignTableSql);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(u"precious.db"_s);
    if (foreignTableSql.isEmpty()) {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        QCOMPARE(file.write(contents), contents.size());
    } else {
        RawConnection raw(path);
        QVERIFY(raw.execute(foreignTableSql));
        QVERIFY(raw.execute(
            u"INSERT INTO %1 VALUES (1, 'x')"_s.arg(foreignTableSql.section(u' ', 2, 2))));
    }
    const QByteArray before = fileDigest(path);
    QVERIFY(!before.isEmpty());

    SqliteDeliveryStore store;
    const auto opened = store.open(path);
    QVERIFY(!opened);
    QVERIFY2(opened.error().contains(path), qPrintable(opened.error()));
    QVERIFY2(opened.error().contains(u"not an EventDesk store"_s), qPrintable(opened.error()));
    QVERIFY(store.loadUnfinishedDeliveries().error().contains(u"not open"_s));
    store.close();
    QCOMPARE(fileDigest(path), before);
    QVERIFY(!QFile::exists(path + u"-wal"_s));
    // The refused file is not kept open behind the caller's back.
    if (const int descriptors = openDescriptors(path); descriptors >= 0)
        QCOMPARE(descriptors, 0);
}

void TestSqliteStore::refusesNewerSchema()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(u"store.db"_s);
    {
        SqliteDeliveryStore store;
        QVERIFY(store.open(path));
    }
    {
        RawConnection raw(path);
        QVERIFY(raw.execute(u"PRAGMA user_version = %1"_s.arg(StoreSchemaVersion + 1)));
    }
    const QByteArray before = fileDigest(path);
    SqliteDeliveryStore store;
    const auto opened = store.open(path);
    QVERIFY(!opened);
    QVERIFY2(opened.error().contains(path), qPrintable(opened.error()));
    QVERIFY2(opened.error().contains(u"newer"_s), qPrintable(opened.error()));
    QCOMPARE(fileDigest(path), before);
}

void TestSqliteStore::reportsErrorsInsteadOfCrashing()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());

    SqliteDeliveryStore closed;
    QVERIFY(!closed.insertPublished({makeEvent(1)}, {}));
    QVERIFY(!closed.commit(StoreBatch {.attempts = {makeAttempt(1)}}));
    QVERIFY(!closed.maxIds());
    QVERIFY(!closed.deadLetters({}));
    QVERIFY(!closed.attemptLog(10));

    const QString missingFolder = dir.filePath(u"no/such/folder/store.db"_s);
    SqliteDeliveryStore store;
    const auto inMissingFolder = store.open(missingFolder);
    QVERIFY(!inMissingFolder);
    QVERIFY2(inMissingFolder.error().contains(missingFolder), qPrintable(inMissingFolder.error()));

    const auto onFolder = store.open(dir.path());
    QVERIFY(!onFolder);
    QVERIFY2(onFolder.error().contains(dir.path()), qPrintable(onFolder.error()));

    // Still usable for a good file afterwards.
    const auto good = store.open(dir.filePath(u"good.db"_s));
    QVERIFY2(good, qPrintable(good.error()));
    QVERIFY(store.insertPublished({makeEvent(1)}, {makeDelivery(1, 1, u"billing"_s)}));
}

void TestSqliteStore::loadEventsBeyondVariableLimit()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    SqliteDeliveryStore store;
    QVERIFY(store.open(dir.filePath(u"store.db"_s)));
    constexpr int EventCount = 5000;
    QList<StoredEvent> events;
    QList<DeliveryRecord> deliveries;
    QList<qint64> seqs;
    for (int seq = 1; seq <= EventCount; ++seq) {
        events.append(makeEvent(seq));
        deliveries.append(makeDelivery(seq, seq, u"billing"_s));
        seqs.append(seq);
    }
    const auto inserted = store.insertPublished(events, deliveries);
    QVERIFY2(inserted, qPrintable(inserted.error()));

    // More seqs than SQLite's 999 host parameters, plus seqs that do not exist.
    seqs << 10'001 << 10'002;
    const auto loaded = store.loadEvents(seqs);
    QVERIFY2(loaded, qPrintable(loaded.error()));
    QCOMPARE(loaded->size(), EventCount);
    QList<StoredEvent> sorted = loaded.value();
    std::sort(sorted.begin(), sorted.end(),
              [](const StoredEvent &a, const StoredEvent &b) { return a.seq < b.seq; });
    for (int i = 0; i < EventCount; ++i)
        QVERIFY2(sameEvent(sorted.at(i), events.at(i)), qPrintable(QString::number(i)));

    // A chunk that is not full: 501 seqs, no duplicates in the answer.
    const auto partial = store.loadEvents(seqs.mid(1000, 501));
    QVERIFY(partial);
    QCOMPARE(partial->size(), 501);
    QList<qint64> partialSeqs;
    for (const StoredEvent &event : partial.value())
        partialSeqs.append(event.seq);
    std::sort(partialSeqs.begin(), partialSeqs.end());
    QCOMPARE(partialSeqs, seqs.mid(1000, 501));

    // A few seqs are read one by one, more as an IN list: either way a repeated seq gives its
    // event once and a missing one gives nothing.
    for (const int count : {1, 2, 15, 16, 17, 40, 499, 500}) {
        QList<qint64> request;
        for (int i = 0; i < count; ++i)
            request.append(4000 - 7 * i);
        request.append(request.first());
        request.insert(request.size() / 2, 99'999);
        const auto some = store.loadEvents(request);
        QVERIFY2(some, qPrintable(some.error()));
        QCOMPARE(some->size(), count);
        QList<qint64> someSeqs;
        for (const StoredEvent &event : some.value())
            someSeqs.append(event.seq);
        std::sort(someSeqs.begin(), someSeqs.end());
        QList<qint64> expected = request.mid(0, request.size() - 1);
        expected.removeAll(99'999);
        std::sort(expected.begin(), expected.end());
        QCOMPARE(someSeqs, expected);
        QVERIFY(sameEvent(some->first(), events.at(some->first().seq - 1)));
    }
}

void TestSqliteStore::storesCoexistInOneProcess()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString firstPath = dir.filePath(u"first.db"_s);
    const QString secondPath = dir.filePath(u"second.db"_s);
    {
        SqliteDeliveryStore first;
        SqliteDeliveryStore second;
        QVERIFY(first.open(firstPath));
        QVERIFY(second.open(secondPath));
        QVERIFY(first.insertPublished({makeEvent(1)}, {makeDelivery(1, 1, u"billing"_s)}));
        QVERIFY(second.insertPublished(
            {makeEvent(5), makeEvent(6)},
            {makeDelivery(5, 5, u"audit"_s), makeDelivery(6, 6, u"audit"_s)}));
        QCOMPARE(first.loadUnfinishedDeliveries()->size(), 1);
        QCOMPARE(second.loadUnfinishedDeliveries()->size(), 2);
        QVERIFY(QFile::exists(firstPath + u"-wal"_s));
        if (openDescriptors(firstPath) >= 0) {
            QVERIFY(openDescriptors(firstPath) > 0);
            QVERIFY(openDescriptors(secondPath) > 0);
        }

        // Closing the last connection to a file checkpoints and removes its WAL: the file is
        // really released, while the other store keeps working.
        first.close();
        QVERIFY(!QFile::exists(firstPath + u"-wal"_s));
        QVERIFY(QFile::exists(secondPath + u"-wal"_s));
        if (const int descriptors = openDescriptors(firstPath); descriptors >= 0)
            QCOMPARE(descriptors, 0);
        QCOMPARE(second.maxIds()->eventSeq, 6);
    }
    // Destroying a store closes its connection (no leftovers holding the file).
    QVERIFY(!QFile::exists(secondPath + u"-wal"_s));
    if (const int descriptors = openDescriptors(secondPath); descriptors >= 0)
        QCOMPARE(descriptors, 0);
}

void TestSqliteStore::textRoundTripsExactly()
{
    // Text is stored as UTF-8 with its length: characters outside Latin-1, surrogate pairs and
    // embedded NULs come back unchanged, and another connection reads the same text.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(u"store.db"_s);
    const QString awkward = u"Zürich – 東京 🚚 "_s + QChar(0) + u" after a NUL"_s;
    QCOMPARE(awkward.count(QChar(0)), 1);

    StoredEvent event = makeEvent(1);
    event.topic = u"orders-ä"_s;
    event.id = awkward;
    event.subject = u"/orders/Ω/"_s + awkward;
    event.eventType = u"Contoso.Bestellung.Geändert"_s;
    event.body = QByteArray("binary\0body\xff\xfe", 13);
    DeliveryRecord delivery = makeDelivery(1, 1, u"billing-ß"_s);
    delivery.topic = event.topic;
    DeadLetterEntry deadLetter = makeDeadLetter(1);
    deadLetter.eventId = awkward;
    deadLetter.subscription = u"billing-ß"_s;
    deadLetter.blobPath = u"deadletters/BILLING-SS/"_s + awkward + u".json"_s;
    deadLetter.record = awkward.toUtf8();
    deadLetter.subject = event.subject;
    DroppedEntry drop;
    drop.topic = event.topic;
    drop.subscription = u"billing-ß"_s;
    drop.eventId = awkward;
    AttemptLogEntry attempt = makeAttempt(1);
    attempt.subscription = u"billing-ß"_s;
    attempt.eventIds = {awkward, u"événement-2"_s};
    ProbationRecord probation;
    probation.topic = event.topic;
    probation.subscription = u"billing-ß"_s;
    probation.state = 1;

    {
        SqliteDeliveryStore store;
        QVERIFY(store.open(path));
        const auto inserted = store.insertPublished({event}, {delivery});
        QVERIFY2(inserted, qPrintable(inserted.error()));
        StoreBatch batch;
        batch.deadLetters = {deadLetter};
        batch.drops = {drop};
        batch.attempts = {attempt};
        batch.probation = {probation};
        const auto committed = store.commit(batch);
        QVERIFY2(committed, qPrintable(committed.error()));
    }

    SqliteDeliveryStore store;
    QVERIFY(store.open(path));
    const auto events = store.loadEvents({1});
    QVERIFY2(events, qPrintable(events.error()));
    QCOMPARE(events->size(), 1);
    QCOMPARE(events->first().id, awkward);
    QVERIFY(sameEvent(events->first(), event));
    const auto deliveries = store.loadUnfinishedDeliveries();
    QVERIFY(deliveries);
    QCOMPARE(deliveries->size(), 1);
    QVERIFY(sameDelivery(deliveries->first(), delivery));
    const auto deadLetters = store.deadLetters({});
    QVERIFY(deadLetters);
    QCOMPARE(deadLetters->size(), 1);
    QVERIFY(sameDeadLetter(deadLetters->first(), deadLetter));
    // The search matches non-ASCII text too (LIKE folds only ASCII case, so the case must match).
    DeadLetterQuery search;
    search.text = u"東京 🚚"_s;
    search.subscription = u"billing-ß"_s;
    QCOMPARE(store.countDeadLetters(search).value(), 1);
    const auto drops = store.droppedDeliveries(0);
    QVERIFY(drops);
    QCOMPARE(drops->size(), 1);
    QCOMPARE(drops->first().eventId, awkward);
    QCOMPARE(drops->first().subscription, drop.subscription);
    const auto attempts = store.attemptLog(0);
    QVERIFY(attempts);
    QCOMPARE(attempts->size(), 1);
    QCOMPARE(attempts->first().eventIds, attempt.eventIds);
    QCOMPARE(attempts->first().subscription, attempt.subscription);
    const auto probationRecords = store.loadProbation();
    QVERIFY(probationRecords);
    QCOMPARE(probationRecords->size(), 1);
    QCOMPARE(probationRecords->first().topic, probation.topic);
    QCOMPARE(probationRecords->first().subscription, probation.subscription);
    store.close();

    RawConnection raw(path);
    QCOMPARE(raw.scalar(u"SELECT event_id FROM events WHERE seq = 1"_s).toString(), awkward);
    QCOMPARE(raw.scalar(u"SELECT typeof(event_id) FROM events WHERE seq = 1"_s).toString(),
             u"text"_s);
    // UTF-8 bytes, the NUL included: not cut at the NUL, not stored as UTF-16.
    QCOMPARE(raw.scalar(u"SELECT length(CAST(event_id AS BLOB)) FROM events"_s).toLongLong(),
             awkward.toUtf8().size());
    QCOMPARE(raw.scalar(u"SELECT body FROM events WHERE seq = 1"_s).toByteArray(), event.body);
    QCOMPARE(raw.scalar(u"SELECT subscription FROM deliveries WHERE id = 1"_s).toString(),
             delivery.subscription);
}

void TestSqliteStore::nullAndEmptyKeepTheirMeaning()
{
    // QtSql wrote a null QString or QByteArray as NULL and an empty one as '' or an empty BLOB;
    // existing store files hold both. Both read back as empty, and NULL numbers as 0.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(u"store.db"_s);
    StoredEvent event = makeEvent(1);
    event.subject = QString();
    event.dataVersion = u""_s;
    event.body = QByteArray("");
    QVERIFY(!event.body.isNull());
    DeadLetterEntry deadLetter = makeDeadLetter(1);
    deadLetter.record = QByteArray();
    deadLetter.eventBody = QByteArray("");
    deadLetter.blobPath = QString();
    {
        SqliteDeliveryStore store;
        QVERIFY(store.open(path));
        QVERIFY(store.insertPublished({event}, {makeDelivery(1, 1, u"billing"_s)}));
        QVERIFY(store.commit(StoreBatch {.deadLetters = {deadLetter}}));
    }
    {
        RawConnection raw(path);
        QCOMPARE(raw.scalar(u"SELECT typeof(subject) FROM events"_s).toString(), u"null"_s);
        QCOMPARE(raw.scalar(u"SELECT typeof(data_version) FROM events"_s).toString(), u"text"_s);
        QCOMPARE(raw.scalar(u"SELECT typeof(body) FROM events"_s).toString(), u"blob"_s);
        QCOMPARE(raw.scalar(u"SELECT typeof(record) FROM dead_letters"_s).toString(), u"null"_s);
        QCOMPARE(raw.scalar(u"SELECT typeof(event_body) FROM dead_letters"_s).toString(),
                 u"blob"_s);
        QCOMPARE(raw.scalar(u"SELECT typeof(blob_path) FROM dead_letters"_s).toString(), u"null"_s);
        // Rows whose every column but the key is NULL.
        QVERIFY(raw.execute(u"INSERT INTO events (seq) VALUES (50)"_s));
        QVERIFY(raw.execute(u"INSERT INTO deliveries (id) VALUES (50)"_s));
        QVERIFY(raw.execute(u"INSERT INTO dead_letters (id) VALUES (500)"_s));
        QVERIFY(raw.execute(u"INSERT INTO dropped (id) VALUES (500)"_s));
        QVERIFY(raw.execute(u"INSERT INTO attempt_log (id) VALUES (500)"_s));
        QVERIFY(raw.execute(u"INSERT INTO probation (topic) VALUES ('orders')"_s));
    }

    SqliteDeliveryStore store;
    QVERIFY(store.open(path));
    auto events = store.loadEvents({1, 50});
    QVERIFY2(events, qPrintable(events.error()));
    QCOMPARE(events->size(), 2);
    std::sort(events->begin(), events->end(),
              [](const StoredEvent &a, const StoredEvent &b) { return a.seq < b.seq; });
    QVERIFY(sameEvent(events->at(0), event));
    const StoredEvent &empty = events->at(1);
    QVERIFY(empty.topic.isEmpty() && empty.id.isEmpty() && empty.eventType.isEmpty()
            && empty.subject.isEmpty() && empty.dataVersion.isEmpty() && empty.eventTime.isEmpty()
            && empty.body.isEmpty());
    QCOMPARE(empty.publishMs, 0);

    const auto deliveries = store.loadUnfinishedDeliveries();
    QVERIFY(deliveries);
    QCOMPARE(deliveries->size(), 2);
    const DeliveryRecord &bare = deliveries->at(1);
    QCOMPARE(bare.id, 50);
    QVERIFY(bare.topic.isEmpty() && bare.subscription.isEmpty());
    QCOMPARE(bare.state, DeliveryState::Pending);
    QCOMPARE(bare.eventSeq + bare.attempts + bare.dueMs + bare.publishMs + bare.lastHttpStatus
                 + bare.lastAttemptMs + bare.deadLetterUnavailableSinceMs,
             0);
    QCOMPARE(bare.reason, DeadLetterReason::None);

    const auto deadLetters = store.deadLetters({});
    QVERIFY(deadLetters);
    QCOMPARE(deadLetters->size(), 2);
    QCOMPARE(deadLetters->at(0).id, 500);
    QVERIFY(deadLetters->at(0).eventId.isEmpty() && deadLetters->at(0).record.isEmpty()
            && deadLetters->at(0).blobPath.isEmpty() && deadLetters->at(0).eventBody.isEmpty());
    QVERIFY(sameDeadLetter(deadLetters->at(1), deadLetter));
    QVERIFY(deadLetters->at(1).record.isEmpty());
    // A NULL record is no match for a search, and no failure either.
    QCOMPARE(store.countDeadLetters(DeadLetterQuery {.text = u"plain"_s}).value(), 0);

    const auto drops = store.droppedDeliveries(0);
    QVERIFY(drops);
    QCOMPARE(drops->size(), 1);
    QVERIFY(drops->first().eventId.isEmpty());
    QCOMPARE(drops->first().droppedMs, 0);
    const auto attempts = store.attemptLog(0);
    QVERIFY(attempts);
    QCOMPARE(attempts->size(), 1);
    QVERIFY(attempts->first().eventIds.isEmpty());
    QVERIFY(attempts->first().topic.isEmpty());
    const auto probation = store.loadProbation();
    QVERIFY(probation);
    QCOMPARE(probation->size(), 1);
    QCOMPARE(probation->first().topic, u"orders"_s);
    QVERIFY(probation->first().subscription.isEmpty());
    QCOMPARE(probation->first().untilMs, 0);
}

void TestSqliteStore::commitRollsBackEverythingOnError()
{
    // A group commit is one transaction: when its last statement fails, the changes made by the
    // statements before it must not stay.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(u"store.db"_s);
    SqliteDeliveryStore store;
    QVERIFY(store.open(path));
    QVERIFY(store.insertPublished(
        {makeEvent(1), makeEvent(2)},
        {makeDelivery(1, 1, u"billing"_s), makeDelivery(2, 2, u"billing"_s)}));
    {
        // Probation is written last in a commit.
        RawConnection raw(path);
        QVERIFY(raw.execute(u"CREATE TRIGGER refuse_probation BEFORE INSERT ON probation"
                            " BEGIN SELECT RAISE(ABORT, 'probation refused by the test'); END"_s));
    }

    DeliveryRecord updated = makeDelivery(1, 1, u"billing"_s);
    updated.attempts = 5;
    updated.state = DeliveryState::DeadLetterPending;
    StoreBatch batch;
    batch.updates = {updated};
    batch.finished = {{2, 2, DeliveryState::Delivered}};
    batch.deadLetters = {makeDeadLetter(1)};
    batch.drops = {DroppedEntry {.eventId = u"event-9"_s}};
    batch.attempts = {makeAttempt(1)};
    batch.probation = {ProbationRecord {.topic = u"orders"_s, .subscription = u"billing"_s}};
    const auto failed = store.commit(batch);
    QVERIFY(!failed);
    QVERIFY2(failed.error().contains(path), qPrintable(failed.error()));
    QVERIFY2(failed.error().contains(u"probation refused by the test"_s),
             qPrintable(failed.error()));

    auto check = [&](qsizetype expectedRows, int expectedAttempts) {
        const auto deliveries = store.loadUnfinishedDeliveries();
        QVERIFY(deliveries);
        QCOMPARE(deliveries->size(), expectedRows);
        QCOMPARE(deliveries->first().attempts, expectedAttempts);
        QCOMPARE(store.loadEvents({1, 2})->size(), expectedRows);
    };
    check(2, 0);
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(store.countDeadLetters({}).value(), 0);
    QVERIFY(store.droppedDeliveries(0)->isEmpty());
    QVERIFY(store.attemptLog(0)->isEmpty());
    QVERIFY(store.loadProbation()->isEmpty());

    // The statements prepared before the schema changed keep working once it changes back.
    {
        RawConnection raw(path);
        QVERIFY(raw.execute(u"DROP TRIGGER refuse_probation"_s));
    }
    const auto committed = store.commit(batch);
    QVERIFY2(committed, qPrintable(committed.error()));
    check(1, 5);
    QCOMPARE(store.countDeadLetters({}).value(), 1);
    QCOMPARE(store.droppedDeliveries(0)->size(), 1);
    QCOMPARE(store.attemptLog(0)->size(), 1);
    QCOMPARE(store.loadProbation()->size(), 1);
}

#ifdef Q_OS_UNIX
namespace {

// Lowers the largest file this process may write while it lives: writes past it fail the way
// they fail on a full disk (SQLite sees a failed write), without needing a small file system.
class FileSizeLimit final
{
public:
    explicit FileSizeLimit(rlim_t bytes)
    {
        m_previousHandler = std::signal(SIGXFSZ, SIG_IGN); // report EFBIG instead of dying
        m_valid = getrlimit(RLIMIT_FSIZE, &m_previous) == 0;
        rlimit lowered = m_previous;
        lowered.rlim_cur = bytes;
        m_valid = m_valid && setrlimit(RLIMIT_FSIZE, &lowered) == 0;
    }
    ~FileSizeLimit()
    {
        setrlimit(RLIMIT_FSIZE, &m_previous);
        std::signal(SIGXFSZ, m_previousHandler);
    }
    bool isValid() const { return m_valid; }
    Q_DISABLE_COPY_MOVE(FileSizeLimit)

private:
    rlimit m_previous {};
    void (*m_previousHandler)(int) = nullptr;
    bool m_valid = false;
};

} // namespace
#endif

void TestSqliteStore::fullDiskLeavesNothingBehind()
{
#ifndef Q_OS_UNIX
    QSKIP("Needs a file size limit (setrlimit) to make writes fail");
#else
    // SPEC D1 / §10: a write that fails half-way (a full disk) is an error, never a crash and
    // never a partly stored publish or commit; the store works again once there is room.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(u"store.db"_s);
    SqliteDeliveryStore store;
    QVERIFY(store.open(path));
    QVERIFY(store.insertPublished({makeEvent(1)}, {makeDelivery(1, 1, u"billing"_s)}));

    constexpr int EventCount = 3000; // ~3 MB of bodies: more than the limit below
    QList<StoredEvent> events;
    QList<DeliveryRecord> deliveries;
    StoreBatch batch;
    for (int seq = 2; seq <= EventCount + 1; ++seq) {
        StoredEvent event = makeEvent(seq);
        event.body = QByteArray(1024, char('a' + seq % 26));
        events.append(event);
        deliveries.append(makeDelivery(seq, seq, u"billing"_s));
        DeadLetterEntry deadLetter = makeDeadLetter(seq);
        deadLetter.record = event.body;
        batch.deadLetters.append(deadLetter);
    }
    batch.finished = {{1, 1, DeliveryState::Delivered}};

    {
        FileSizeLimit limit(1024 * 1024);
        QVERIFY(limit.isValid());
        const auto inserted = store.insertPublished(events, deliveries);
        QVERIFY(!inserted);
        QVERIFY2(inserted.error().contains(path), qPrintable(inserted.error()));
        const auto committed = store.commit(batch);
        QVERIFY(!committed);
        QVERIFY2(committed.error().contains(path), qPrintable(committed.error()));
    }

    const auto afterFailure = store.loadUnfinishedDeliveries();
    QVERIFY2(afterFailure, qPrintable(afterFailure.error()));
    QCOMPARE(afterFailure->size(), 1);
    QCOMPARE(store.loadEvents({1, 2, EventCount + 1})->size(), 1);
    QCOMPARE(store.countDeadLetters({}).value(), 0);
    QCOMPARE(store.maxIds()->eventSeq, 1);

    const auto inserted = store.insertPublished(events, deliveries);
    QVERIFY2(inserted, qPrintable(inserted.error()));
    const auto committed = store.commit(batch);
    QVERIFY2(committed, qPrintable(committed.error()));
    store.close();
    QVERIFY(store.open(path));
    QCOMPARE(store.loadUnfinishedDeliveries()->size(), EventCount);
    QCOMPARE(store.countDeadLetters({}).value(), EventCount);
    QCOMPARE(store.maxIds()->eventSeq, EventCount + 1);
#endif
}

void TestSqliteStore::streamsDeliveriesAndReportsDamage()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(u"store.db"_s);
    constexpr int DeliveryCount = 5000;
    {
        SqliteDeliveryStore store;
        QVERIFY(store.open(path));
        // Names that alternate row by row, names that come in runs (the stream converts a name
        // only when it changes), and names beyond ASCII.
        QList<DeliveryRecord> deliveries;
        for (int id = 1; id <= DeliveryCount; ++id) {
            DeliveryRecord delivery = makeDelivery(
                id, 1 + id % 3,
                id <= DeliveryCount / 2 ? (id % 2 ? u"billing"_s : u"audit"_s)
                                        : (id / 700 % 2 ? u"r\u00e9servations"_s : u"audit"_s));
            if (id / 1000 % 2)
                delivery.topic = u"\u00e9picerie-\u6ce8\u6587"_s;
            deliveries.append(delivery);
        }
        QVERIFY(store.insertPublished({makeEvent(1), makeEvent(2), makeEvent(3)}, deliveries));
        QCOMPARE(store.unfinishedDeliveryCountHint(), DeliveryCount);

        // The stream gives the rows of loadUnfinishedDeliveries(), in id order, and the visitor
        // may use the store meanwhile (the engine loads events while it rebuilds its queues).
        const auto loaded = store.loadUnfinishedDeliveries();
        QVERIFY(loaded);
        QCOMPARE(loaded->size(), DeliveryCount);
        qsizetype visited = 0;
        bool sameRows = true;
        bool storeUsable = true;
        const auto streamed = store.forEachUnfinishedDelivery([&](const DeliveryRecord &record) {
            sameRows = sameRows && visited < loaded->size()
                && sameDelivery(record, loaded->at(visited))
                && sameDelivery(record, deliveries.at(visited));
            if (visited % 1000 == 0) {
                const auto events = store.loadEvents({record.eventSeq});
                storeUsable = storeUsable && events && events->size() == 1;
                const auto all = store.loadUnfinishedDeliveries();
                storeUsable = storeUsable && all && all->size() == DeliveryCount;
            }
            ++visited;
        });
        QVERIFY2(streamed, qPrintable(streamed.error()));
        QCOMPARE(visited, DeliveryCount);
        QVERIFY(sameRows);
        QVERIFY(storeUsable);
    }

    // Damage the second half of the file (the deliveries with the highest ids were written
    // last): a stream that meets a damaged page reports an error, not a short backlog.
    {
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadWrite));
        constexpr qint64 PageSize = 4096;
        const qint64 pages = file.size() / PageSize;
        QVERIFY(pages > 20);
        QVERIFY(file.seek(pages / 2 * PageSize));
        const QByteArray garbage((pages - pages / 2) * PageSize, '\x5a');
        QCOMPARE(file.write(garbage), garbage.size());
    }
    SqliteDeliveryStore store;
    const auto opened = store.open(path);
    QVERIFY2(opened, qPrintable(opened.error()));
    qsizetype visited = 0;
    const auto streamed
        = store.forEachUnfinishedDelivery([&](const DeliveryRecord &) { ++visited; });
    QVERIFY(!streamed);
    QVERIFY2(streamed.error().contains(path), qPrintable(streamed.error()));
    QVERIFY2(visited > 0 && visited < DeliveryCount, qPrintable(QString::number(visited)));
    const auto loaded = store.loadUnfinishedDeliveries();
    QVERIFY(!loaded);
    QVERIFY2(loaded.error().contains(path), qPrintable(loaded.error()));
}

QTEST_GUILESS_MAIN(TestSqliteStore)
#include "tst_sqlitestore.moc"
