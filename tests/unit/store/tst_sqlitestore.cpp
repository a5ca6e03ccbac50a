#include "store/SqliteDeliveryStore.h"

#include <QCryptographicHash>
#include <QFile>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace Qt::StringLiterals;
using namespace EventDesk;

namespace {

// A plain QSQLITE connection that looks at the file behind the store's back.
class RawConnection final
{
public:
    explicit RawConnection(const QString &filePath)
        : m_name(u"tst-raw-%1"_s.arg(++s_counter))
    {
        QSqlDatabase database = QSqlDatabase::addDatabase(u"QSQLITE"_s, m_name);
        database.setDatabaseName(filePath);
        database.open();
    }
    ~RawConnection()
    {
        QSqlDatabase::database(m_name, false).close();
        QSqlDatabase::removeDatabase(m_name);
    }

    bool execute(const QString &sql) const
    {
        QSqlQuery query(QSqlDatabase::database(m_name, false));
        return query.exec(sql);
    }
    QVariant scalar(const QString &sql) const
    {
        QSqlQuery query(QSqlDatabase::database(m_name, false));
        if (!query.exec(sql) || !query.next())
            return {};
        return query.value(0);
    }

private:
    static inline int s_counter = 0;
    QString m_name;
};

QByteArray fileDigest(const QString &filePath)
{
    QFile file(filePath);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QCryptographicHash::hash(file.readAll(), QCryptographicHash::Sha256);
}

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
    entry.lastOutcome = DeliveryOutcome::Busy;
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
    void insertPublishedIsAtomic();
    void commitUpdatesAndFinishesDeliveries();
    void commitPersistsLogsNewestFirst();
    void attemptLogStaysBounded_data();
    void attemptLogStaysBounded();
    void deadLetterPagesFiltersAndCount();
    void removeDeadLetters();
    void refusesFilesThatAreNotStores_data();
    void refusesFilesThatAreNotStores();
    void refusesNewerSchema();
    void reportsErrorsInsteadOfCrashing();
    void loadEventsBeyondVariableLimit();
    void storesCoexistInOneProcess();
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
    QCOMPARE(raw.scalar(u"PRAGMA user_version"_s).toInt(), 1);
    QVERIFY(raw.scalar(u"PRAGMA application_id"_s).toInt() != 0);
    const QStringList tables = {u"events"_s,  u"deliveries"_s,  u"dead_letters"_s,
                                u"dropped"_s, u"attempt_log"_s, u"probation"_s};
    for (const QString &table : tables) {
        const QString sql = u"SELECT count(*) FROM sqlite_master WHERE type = 'table'"
                            " AND name = '%1'"_s.arg(table);
        QVERIFY2(raw.scalar(sql).toInt() == 1, qPrintable(table));
    }
    QCOMPARE(raw.scalar(u"SELECT count(*) FROM sqlite_master WHERE type = 'index'"
                        " AND name IN ('deliveries_by_event', 'dead_letters_by_subscription',"
                        " 'dead_letters_by_reason')"_s)
                 .toInt(),
             3);
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
    QVERIFY(QSqlDatabase::connectionNames().isEmpty());
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
        QVERIFY(raw.execute(u"PRAGMA user_version = 2"_s));
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
}

void TestSqliteStore::storesCoexistInOneProcess()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    {
        SqliteDeliveryStore first;
        SqliteDeliveryStore second;
        QVERIFY(first.open(dir.filePath(u"first.db"_s)));
        QVERIFY(second.open(dir.filePath(u"second.db"_s)));
        QCOMPARE(QSqlDatabase::connectionNames().size(), 2);
        QVERIFY(first.insertPublished({makeEvent(1)}, {makeDelivery(1, 1, u"billing"_s)}));
        QVERIFY(second.insertPublished(
            {makeEvent(5), makeEvent(6)},
            {makeDelivery(5, 5, u"audit"_s), makeDelivery(6, 6, u"audit"_s)}));
        QCOMPARE(first.loadUnfinishedDeliveries()->size(), 1);
        QCOMPARE(second.loadUnfinishedDeliveries()->size(), 2);
        first.close();
        QCOMPARE(QSqlDatabase::connectionNames().size(), 1);
        QCOMPARE(second.maxIds()->eventSeq, 6);
    }
    // Closing removes the connection (no "connection still in use" leftovers).
    QVERIFY(QSqlDatabase::connectionNames().isEmpty());
}

QTEST_GUILESS_MAIN(TestSqliteStore)
#include "tst_sqlitestore.moc"
