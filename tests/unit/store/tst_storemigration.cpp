// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "store/sqlite/SqliteDeliveryStore.h"
#include "store/sqlite/SqliteReadOnlyDatabase.h"
#include "store/sqlite/SqliteStoreReader.h"
#include "store/sqlite/SqliteStoreSchema.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>

using namespace Qt::StringLiterals;
using namespace EventDesk;

// A workspace store of schema version 1, written by EventDesk before the schema changed
// (fixtures/README.md), opened by the current store: it is migrated in place, in one transaction,
// and loses nothing. A store of version 2 (version 3 without its resubmissions table) gains that
// table and keeps everything else; one of version 3 gains the running totals, rebuilt from what it
// kept.
class TestStoreMigration : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void keepsEveryRow();
    void migratedStoreWorksOn();
    void schemaIsThatOfANewStore();
    void failureLeavesVersion1Unchanged();
    void readerWaitsForTheMigration();
    void version2GainsTheResubmissionsTable();
    void version3GainsTotalsRebuiltFromItsRows();

private:
    // A copy of the version-1 fixture in a folder of its own; the fixture itself is never opened
    // (SQLite would create its -shm file in the source tree).
    QString copyOfVersion1(const QTemporaryDir &dir);

    QString m_fixture;
};

namespace {

// A plain SQLite connection that looks at the file behind the store's back, through the same
// SQLite library.
class RawDatabase final
{
public:
    explicit RawDatabase(const QString &filePath)
    {
        if (sqlite3_open_v2(QFile::encodeName(filePath).constData(), &m_database,
                            SQLITE_OPEN_READWRITE, nullptr)
            != SQLITE_OK) {
            qWarning("RawDatabase: %s", sqlite3_errmsg(m_database));
        }
        sqlite3_busy_timeout(m_database, 5000);
    }
    ~RawDatabase() { sqlite3_close_v2(m_database); }
    Q_DISABLE_COPY_MOVE(RawDatabase)

    bool execute(const QByteArray &sql) const
    {
        return sqlite3_exec(m_database, sql.constData(), nullptr, nullptr, nullptr) == SQLITE_OK;
    }

    // Every row of sql, each as its values with their types ("i:3|t:billing|b:00ff|null"), so
    // that two reads compare equal only if every value and its type are the same.
    QStringList rows(const QByteArray &sql, const QList<qint64> &parameters = {}) const
    {
        QStringList result;
        sqlite3_stmt *statement = nullptr;
        if (sqlite3_prepare_v2(m_database, sql.constData(), int(sql.size()), &statement, nullptr)
            != SQLITE_OK) {
            return {u"error: "_s + QString::fromUtf8(sqlite3_errmsg(m_database))};
        }
        for (int i = 0; i < parameters.size(); ++i)
            sqlite3_bind_int64(statement, i + 1, parameters.at(i));
        int stepped = SQLITE_OK;
        while ((stepped = sqlite3_step(statement)) == SQLITE_ROW) {
            QStringList values;
            for (int column = 0; column < sqlite3_column_count(statement); ++column) {
                switch (sqlite3_column_type(statement, column)) {
                case SQLITE_INTEGER:
                    values << u"i:"_s + QString::number(sqlite3_column_int64(statement, column));
                    break;
                case SQLITE_FLOAT:
                    values << u"f:"_s + QString::number(sqlite3_column_double(statement, column));
                    break;
                case SQLITE_TEXT:
                    values << u"t:"_s
                            + QString::fromUtf8(reinterpret_cast<const char *>(
                                                    sqlite3_column_text(statement, column)),
                                                sqlite3_column_bytes(statement, column));
                    break;
                case SQLITE_BLOB:
                    values << u"b:"_s
                            + QString::fromLatin1(
                                  QByteArray(static_cast<const char *>(
                                                 sqlite3_column_blob(statement, column)),
                                             sqlite3_column_bytes(statement, column))
                                      .toHex());
                    break;
                default:
                    values << u"null"_s;
                }
            }
            result << values.join(u'|');
        }
        if (stepped != SQLITE_DONE)
            result << u"error: "_s + QString::fromUtf8(sqlite3_errmsg(m_database));
        sqlite3_finalize(statement);
        return result;
    }

    qint64 number(const QByteArray &sql) const
    {
        const QStringList result = rows(sql);
        if (result.size() != 1 || !result.first().startsWith(u"i:"_s))
            return -1;
        return result.first().mid(2).toLongLong();
    }

private:
    sqlite3 *m_database = nullptr;
};

// The tables version 1 and version 2 have alike, which the migration must leave exactly as they
// were (rowid order: the order they were written in).
const QList<QByteArray> UnchangedTables
    = {"meta"_ba,    "events"_ba,    "deliveries"_ba,     "dead_letters"_ba,
       "dropped"_ba, "probation"_ba, "sqlite_sequence"_ba};

// The columns attempt_log keeps.
constexpr char AttemptColumns[]
    = "id, time_ms, topic, subscription, attempt, http_status, outcome, duration_ms, next_due_ms";

QStringList tableRows(const RawDatabase &raw, const QByteArray &table)
{
    return raw.rows("SELECT * FROM "_ba + table + " ORDER BY rowid"_ba);
}

// The ids of attempt_log's rows and their event ids as version 1 stored them, comma-joined.
QList<std::pair<qint64, QString>> version1EventIds(const RawDatabase &raw)
{
    QList<std::pair<qint64, QString>> result;
    for (const QString &row : raw.rows("SELECT id, event_ids FROM attempt_log ORDER BY id"_ba)) {
        const QStringList values = row.split(u'|');
        if (values.size() != 2)
            return {};
        // An attempt without events was stored as NULL.
        const QString joined = values.at(1) == u"null"_s ? QString() : values.at(1).mid(2);
        result.append({values.at(0).mid(2).toLongLong(), joined});
    }
    return result;
}

QStringList eventIdsOfAttempt(const RawDatabase &raw, qint64 attemptId)
{
    QStringList ids;
    for (const QString &row :
         raw.rows("SELECT event_id FROM attempt_events WHERE attempt_id = ? ORDER BY position"_ba,
                  {attemptId})) {
        ids << row.mid(2);
    }
    return ids;
}

// Everything a failed migration must leave as it was: the schema, the version and every row.
QStringList wholeStore(const RawDatabase &raw)
{
    QStringList all
        = raw.rows("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name"_ba);
    all << raw.rows("PRAGMA user_version"_ba);
    for (const QByteArray &table : UnchangedTables)
        all << tableRows(raw, table);
    all << raw.rows("SELECT * FROM attempt_log ORDER BY id"_ba);
    return all;
}

} // namespace

void TestStoreMigration::initTestCase()
{
    m_fixture = QStringLiteral(EVENTDESK_STORE_FIXTURES) + u"/store-v1.sqlite"_s;
    QVERIFY2(QFileInfo::exists(m_fixture), qPrintable(m_fixture));
}

QString TestStoreMigration::copyOfVersion1(const QTemporaryDir &dir)
{
    const QString path = dir.filePath(u"eventdesk.db"_s);
    if (!QFile::copy(m_fixture, path))
        return {};
    QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner);
    return path;
}

void TestStoreMigration::keepsEveryRow()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = copyOfVersion1(dir);
    QVERIFY(!path.isEmpty());

    QMap<QByteArray, QStringList> before;
    QStringList attemptsBefore;
    QList<std::pair<qint64, QString>> joinedIds;
    {
        RawDatabase raw(path);
        QCOMPARE(raw.number("PRAGMA user_version"_ba), 1);
        for (const QByteArray &table : UnchangedTables)
            before.insert(table, tableRows(raw, table));
        attemptsBefore
            = raw.rows("SELECT "_ba + AttemptColumns + " FROM attempt_log ORDER BY id"_ba);
        joinedIds = version1EventIds(raw);
    }
    // What fixtures/README.md says the file holds.
    QCOMPARE(before.value("events").size(), 40);
    QCOMPARE(before.value("deliveries").size(), 80);
    QCOMPARE(before.value("dead_letters").size(), 22);
    QCOMPARE(before.value("dropped").size(), 8);
    QCOMPARE(before.value("probation").size(), 2);
    QCOMPARE(attemptsBefore.size(), 20);
    QCOMPARE(joinedIds.size(), 20);

    {
        SqliteDeliveryStore store;
        const auto opened = store.open(path);
        QVERIFY2(opened, qPrintable(opened.error()));
    }

    RawDatabase raw(path);
    QCOMPARE(raw.number("PRAGMA user_version"_ba), StoreSchemaVersion);
    QCOMPARE(raw.rows("PRAGMA integrity_check"_ba), QStringList {u"t:ok"_s});
    for (const QByteArray &table : UnchangedTables)
        QCOMPARE(tableRows(raw, table), before.value(table));
    QCOMPARE(raw.rows("SELECT "_ba + AttemptColumns + " FROM attempt_log ORDER BY id"_ba),
             attemptsBefore);
    QCOMPARE(raw.number("SELECT count(*) FROM pragma_table_info('attempt_log')"
                        " WHERE name = 'event_ids'"_ba),
             0);

    // Every event id of every attempt, in the order of the request, in attempt_events.
    qint64 eventRows = 0;
    for (const auto &[attemptId, joined] : std::as_const(joinedIds)) {
        const QStringList expected = joined.isEmpty() ? QStringList() : joined.split(u',');
        QCOMPARE(eventIdsOfAttempt(raw, attemptId), expected);
        eventRows += expected.size();
    }
    QCOMPARE(raw.number("SELECT count(*) FROM attempt_events"_ba), eventRows);
    QCOMPARE(eventIdsOfAttempt(raw, 40).size(), 50);
    QCOMPARE(eventIdsOfAttempt(raw, 44), QStringList());
    QCOMPARE(
        eventIdsOfAttempt(raw, 28),
        (QStringList {u"evt-0017"_s, u"evt-0030"_s, u"evt-0043"_s, u"evt-0056"_s, u"evt-0009"_s}));
}

void TestStoreMigration::migratedStoreWorksOn()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = copyOfVersion1(dir);
    QVERIFY(!path.isEmpty());
    // The bound of the fixture's log (20 rows), so that the next attempts trim the migrated rows.
    SqliteDeliveryStore store(20);
    const auto opened = store.open(path);
    QVERIFY2(opened, qPrintable(opened.error()));

    // The store's own reads of the migrated rows.
    const auto ids = store.maxIds();
    QVERIFY(ids);
    QCOMPARE(ids->eventSeq, 60);
    QCOMPARE(ids->deliveryId, 120);
    const auto deliveries = store.loadUnfinishedDeliveries();
    QVERIFY(deliveries);
    QCOMPARE(deliveries->size(), 80);
    QCOMPARE(deliveries->at(30).id, 71);
    QCOMPARE(deliveries->at(30).state, DeliveryState::DeadLetterPending);
    QCOMPARE(deliveries->at(30).reason, DeadLetterReason::MaxDeliveryAttemptsExceeded);
    QCOMPARE(deliveries->at(30).deadLetterUnavailableSinceMs, 1'732'000'400'000);
    const auto events = store.loadEvents({21, 60});
    QVERIFY(events);
    QCOMPARE(events->size(), 2);
    const auto probation = store.loadProbation();
    QVERIFY(probation);
    QCOMPARE(probation->size(), 2);

    const auto letter = store.deadLettersById({23});
    QVERIFY(letter);
    QCOMPARE(letter->size(), 1);
    QCOMPARE(letter->first().eventId, u"dead-22"_s);
    QCOMPARE(letter->first().subscription, u"shipping"_s);
    QCOMPARE(letter->first().reason, DeadLetterReason::UndeliverableDueToHttpBadRequest);
    QCOMPARE(letter->first().lastOutcome, DeliveryOutcome::Probation);
    QCOMPARE(letter->first().lastHttpStatus, 422);
    QVERIFY(letter->first().record.contains("caf\xc3\xa9"));
    DeadLetterQuery byReason;
    byReason.reason = DeadLetterReason::TimeToLiveExceeded;
    QCOMPARE(store.countDeadLetters(byReason).value(), 6);
    DeadLetterQuery byOutcome;
    byOutcome.lastOutcome = DeliveryOutcome::Busy;
    QCOMPARE(store.countDeadLetters(byOutcome).value(), 4);
    DeadLetterQuery bySubscription;
    bySubscription.subscription = u"ledger-é"_s;
    bySubscription.text = u"CAFÉ"_s; // LIKE folds ASCII only: É does not match é
    QCOMPARE(store.countDeadLetters(bySubscription).value(), 0);
    bySubscription.text = u"50%"_s;
    QCOMPARE(store.countDeadLetters(bySubscription).value(), 5);

    const auto log = store.attemptLog(0);
    QVERIFY(log);
    QCOMPARE(log->size(), 20);
    QCOMPARE(log->first().id, 45);
    QCOMPARE(log->first().eventIds,
             (QStringList {u"evt-0016"_s, u"evt-0029"_s, u"evt-0042"_s, u"evt-0055"_s}));
    QCOMPARE(log->at(1).id, 44);
    QVERIFY(log->at(1).eventIds.isEmpty());
    QCOMPARE(log->at(5).id, 40);
    QCOMPARE(log->at(5).eventIds.size(), 50);
    QCOMPARE(log->at(5).eventIds.first(), u"evt-0041"_s);
    QCOMPARE(log->at(5).eventIds.last(), u"evt-0018"_s);
    QCOMPARE(log->at(5).httpStatus, 503);

    // New rows after the migrated ones: the AUTOINCREMENT counters went along (attempt 45 and
    // dead letter 24 were the last ones handed out; 24 was removed).
    AttemptLogEntry attempt;
    attempt.timeMs = 1'732'000'200'000;
    attempt.topic = u"orders"_s;
    attempt.subscription = u"billing"_s;
    attempt.eventIds = {u"evt-0060"_s, u"evt-0021"_s};
    DeadLetterEntry deadLetter;
    deadLetter.eventId = u"dead-new"_s;
    deadLetter.reason = DeadLetterReason::TimeToLiveExceeded;
    StoreBatch batch;
    batch.attempts = {attempt, attempt};
    batch.deadLetters = {deadLetter};
    const auto committed = store.commit(batch);
    QVERIFY2(committed, qPrintable(committed.error()));
    const auto newest = store.attemptLog(2);
    QVERIFY(newest);
    QCOMPARE(newest->size(), 2);
    QCOMPARE(newest->at(0).id, 47);
    QCOMPARE(newest->at(1).id, 46);
    QCOMPARE(newest->at(0).eventIds, attempt.eventIds);
    const auto letters = store.deadLetters(DeadLetterQuery {.limit = 1});
    QVERIFY(letters);
    QCOMPARE(letters->first().id, 25);
    QCOMPARE(letters->first().eventId, u"dead-new"_s);

    // The bound still holds, and trimming took the migrated attempts' events along.
    RawDatabase raw(path);
    QCOMPARE(raw.number("SELECT count(*) FROM attempt_log"_ba), 20);
    QCOMPARE(raw.number("SELECT min(id) FROM attempt_log"_ba), 28);
    QCOMPARE(raw.number("SELECT count(*) FROM attempt_events"
                        " WHERE attempt_id NOT IN (SELECT id FROM attempt_log)"_ba),
             0);
}

void TestStoreMigration::schemaIsThatOfANewStore()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString migrated = copyOfVersion1(dir);
    QVERIFY(!migrated.isEmpty());
    const QString created = dir.filePath(u"new.db"_s);
    for (const QString &path : {migrated, created}) {
        SqliteDeliveryStore store;
        const auto opened = store.open(path);
        QVERIFY2(opened, qPrintable(opened.error()));
    }
    const QByteArray schema
        = "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name"_ba;
    const QStringList createdSchema = RawDatabase(created).rows(schema);
    QVERIFY(createdSchema.size() > 10);
    QCOMPARE(RawDatabase(migrated).rows(schema), createdSchema);
    QCOMPARE(RawDatabase(migrated).number("PRAGMA application_id"_ba), StoreApplicationId);
}

void TestStoreMigration::failureLeavesVersion1Unchanged()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = copyOfVersion1(dir);
    QVERIFY(!path.isEmpty());
    // An object named like an index that the migration creates after it has copied the event ids
    // into attempt_events and rebuilt attempt_log without them: the migration fails there, and
    // everything before it must be undone with it.
    QStringList before;
    {
        RawDatabase raw(path);
        QVERIFY(raw.execute("CREATE INDEX dead_letters_by_event ON meta (value)"_ba));
        before = wholeStore(raw);
    }
    QVERIFY(before.size() > 150);

    {
        SqliteDeliveryStore store;
        const auto opened = store.open(path);
        QVERIFY(!opened);
        QVERIFY2(opened.error().contains(QDir::toNativeSeparators(path)),
                 qPrintable(opened.error()));
        QVERIFY2(opened.error().contains(u"upgrade the store from schema version 1"_s),
                 qPrintable(opened.error()));
        QVERIFY2(opened.error().contains(u"dead_letters_by_event"_s), qPrintable(opened.error()));
    }
    {
        RawDatabase raw(path);
        QCOMPARE(wholeStore(raw), before);
        QCOMPARE(raw.number("SELECT count(*) FROM sqlite_master WHERE name = 'attempt_events'"_ba),
                 0);
        QCOMPARE(raw.number("PRAGMA user_version"_ba), 1);
        // Without the obstacle, the next open migrates.
        QVERIFY(raw.execute("DROP INDEX dead_letters_by_event"_ba));
    }
    SqliteDeliveryStore store;
    const auto opened = store.open(path);
    QVERIFY2(opened, qPrintable(opened.error()));
    store.close();
    RawDatabase raw(path);
    QCOMPARE(raw.number("PRAGMA user_version"_ba), StoreSchemaVersion);
    QCOMPARE(eventIdsOfAttempt(raw, 40).size(), 50);
}

void TestStoreMigration::readerWaitsForTheMigration()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = copyOfVersion1(dir);
    QVERIFY(!path.isEmpty());

    // The desktop app's views read through SqliteReadOnlyDatabase, which never writes: it does not
    // read a version-1 store as if it were of the current schema.
    SqliteReadOnlyDatabase reader;
    const auto early = reader.open(path);
    QVERIFY(!early);
    QVERIFY2(early.error().contains(u"earlier EventDesk"_s), qPrintable(early.error()));
    QVERIFY2(early.error().contains(QDir::toNativeSeparators(path)), qPrintable(early.error()));
    QVERIFY(!reader.isOpen());

    SqliteDeliveryStore store;
    const auto opened = store.open(path);
    QVERIFY2(opened, qPrintable(opened.error()));
    const auto late = reader.open(path);
    QVERIFY2(late, qPrintable(late.error()));
    QList<AttemptLogEntry> attempts;
    const auto read = reader.select(
        attemptsOfEventSql(),
        [&attempts](const SqliteStatement &row) { attempts.append(readAttemptLogEntry(row)); },
        u"evt-0009"_s);
    QVERIFY2(read, qPrintable(read.error()));
    // The fixture's attempts that carried evt-0009 and were not trimmed: 28 and 40.
    QCOMPARE(attempts.size(), 2);
    QCOMPARE(attempts.at(0).id, 28);
    QCOMPARE(attempts.at(1).id, 40);
    QVERIFY(attempts.at(1).eventIds.contains(u"evt-0009"_s));
}

void TestStoreMigration::version2GainsTheResubmissionsTable()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(u"eventdesk.db"_s);
    // Version 3 is version 2 plus the resubmissions table and its index: a store of version 2 is
    // a new store without them, at user_version 2.
    {
        SqliteDeliveryStore store;
        QVERIFY(store.open(path));
        StoredEvent event;
        event.seq = 1;
        event.topic = u"orders"_s;
        event.id = u"e1"_s;
        event.body = R"({"id":"e1"})"_ba;
        DeliveryRecord delivery;
        delivery.id = 1;
        delivery.eventSeq = 1;
        delivery.topic = u"orders"_s;
        delivery.subscription = u"billing"_s;
        QVERIFY(store.insertPublished({event}, {delivery}));
        StoreBatch batch;
        DeadLetterEntry deadLetter;
        deadLetter.topic = u"orders"_s;
        deadLetter.subscription = u"billing"_s;
        deadLetter.eventId = u"dead-1"_s;
        deadLetter.eventBody = R"({"id":"dead-1"})"_ba;
        batch.deadLetters = {deadLetter, deadLetter};
        QVERIFY(store.commit(batch));
    }
    QStringList before;
    {
        RawDatabase raw(path);
        QVERIFY(raw.execute("DROP TABLE resubmissions"_ba));
        QVERIFY(raw.execute("DROP TABLE totals"_ba)); // version 4's
        QVERIFY(raw.execute("PRAGMA user_version = 2"_ba));
        for (const QByteArray &table : UnchangedTables)
            before << tableRows(raw, table);
    }
    QCOMPARE(before.size(), 7); // meta 2, events 1, deliveries 1, dead_letters 2, sqlite_sequence 1

    {
        SqliteDeliveryStore store;
        const auto opened = store.open(path);
        QVERIFY2(opened, qPrintable(opened.error()));
        {
            RawDatabase migrated(path);
            QStringList after;
            for (const QByteArray &table : UnchangedTables)
                after << tableRows(migrated, table);
            QCOMPARE(after, before);
        }
        // The migrated store takes a resubmit: event, delivery, trace, and the index row gone.
        StoredEvent event;
        event.seq = 2;
        event.topic = u"orders"_s;
        event.id = u"dead-1"_s;
        DeliveryRecord delivery;
        delivery.id = 2;
        delivery.eventSeq = 2;
        delivery.topic = u"orders"_s;
        delivery.subscription = u"audit"_s;
        ResubmissionEntry trace;
        trace.deadLetterId = 1;
        trace.eventId = u"dead-1"_s;
        trace.toSubscription = u"audit"_s;
        trace.deliveryId = 2;
        const auto resubmitted = store.insertResubmitted({event}, {delivery}, {trace}, {1});
        QVERIFY2(resubmitted, qPrintable(resubmitted.error()));
        QCOMPARE(store.countDeadLetters(DeadLetterQuery {}).value(), qint64(1));
    }
    RawDatabase raw(path);
    QCOMPARE(raw.number("PRAGMA user_version"_ba), StoreSchemaVersion);
    QCOMPARE(raw.rows("SELECT dead_letter_id, event_id, to_subscription, delivery_id, route FROM"
                      " resubmissions"_ba),
             QStringList {u"i:1|t:dead-1|t:audit|i:2|i:1"_s});
    QCOMPARE(
        raw.number("SELECT count(*) FROM sqlite_master WHERE name = 'resubmissions_by_event'"_ba),
        1);
    // Its schema is a new store's.
    const QString created = dir.filePath(u"new.db"_s);
    {
        SqliteDeliveryStore store;
        QVERIFY(store.open(created));
    }
    const QByteArray schema
        = "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name"_ba;
    QCOMPARE(raw.rows(schema), RawDatabase(created).rows(schema));
}

void TestStoreMigration::version3GainsTotalsRebuiltFromItsRows()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(u"eventdesk.db"_s);
    // A store of version 3 is a new store without the totals table, at user_version 3: two events
    // matched by billing (one delivered in a batch with another event, one dead-lettered after a
    // 503), one by audit (still pending), and a drop.
    {
        SqliteDeliveryStore store;
        QVERIFY(store.open(path));
        QList<StoredEvent> events;
        QList<DeliveryRecord> deliveries;
        for (qint64 seq = 1; seq <= 3; ++seq) {
            StoredEvent event;
            event.seq = seq;
            event.topic = u"orders"_s;
            event.id = u"e%1"_s.arg(seq);
            event.body = "{}"_ba;
            events << event;
            DeliveryRecord delivery;
            delivery.id = seq;
            delivery.eventSeq = seq;
            delivery.topic = u"orders"_s;
            delivery.subscription = seq == 3 ? u"audit"_s : u"billing"_s;
            deliveries << delivery;
        }
        QVERIFY(store.insertPublished(events, deliveries));
        StoreBatch batch;
        AttemptLogEntry delivered;
        delivered.topic = u"orders"_s;
        delivered.subscription = u"billing"_s;
        delivered.eventIds = {u"e1"_s, u"e0"_s};
        delivered.httpStatus = 200;
        delivered.durationMs = 8;
        delivered.outcome = DeliveryOutcome::Delivered;
        AttemptLogEntry busy = delivered;
        busy.eventIds = {u"e2"_s};
        busy.httpStatus = 503;
        busy.durationMs = 4;
        busy.outcome = DeliveryOutcome::Busy;
        batch.attempts = {delivered, busy};
        batch.finished = {{1, 1, DeliveryState::Delivered}, {2, 2, DeliveryState::DeadLettered}};
        DeadLetterEntry deadLetter;
        deadLetter.topic = u"orders"_s;
        deadLetter.subscription = u"billing"_s;
        deadLetter.eventId = u"e2"_s;
        deadLetter.reason = DeadLetterReason::MaxDeliveryAttemptsExceeded;
        batch.deadLetters = {deadLetter};
        batch.drops = {{u"orders"_s, u"gone"_s, u"e9"_s, DeadLetterReason::SubscriptionDeleted,
                        DeliveryOutcome::Busy, 503, 1, 10}};
        QVERIFY(store.commit(batch));
    }
    {
        RawDatabase raw(path);
        QVERIFY(raw.execute("DROP TABLE totals"_ba));
        QVERIFY(raw.execute("PRAGMA user_version = 3"_ba));
    }
    {
        SqliteDeliveryStore store;
        const auto opened = store.open(path);
        QVERIFY2(opened, qPrintable(opened.error()));
    }
    SqliteStoreReader reader(path);
    const auto totals = reader.totals();
    QVERIFY2(totals, qPrintable(totals.error()));
    const SubscriptionTotals billing = totals->subscription(u"orders"_s, u"billing"_s);
    QCOMPARE(billing.delivered, 2u); // the events of its request
    QCOMPARE(billing.failedByOutcome.value(DeliveryOutcome::Busy), 1u);
    QCOMPARE(billing.requests, 2u);
    QCOMPARE(billing.latencyCount, 2u);
    QCOMPARE(billing.latencySumMs, 12.0);
    QCOMPARE(billing.deadLetteredByReason.value(DeadLetterReason::MaxDeliveryAttemptsExceeded), 1u);
    QCOMPARE(billing.matched, 3u); // what reached a fate, and what has not yet
    QCOMPARE(totals->subscription(u"orders"_s, u"audit"_s).matched, 1u);
    QCOMPARE(totals->subscription(u"orders"_s, u"gone"_s).droppedByReason.value(
                 DeadLetterReason::SubscriptionDeleted),
             1u);
    // At least as many as its most matched subscription; unmatched ones left no trace.
    QCOMPARE(totals->topic(u"orders"_s).published, 3u);
    QCOMPARE(totals->topic(u"orders"_s).unmatched, 0u);

    // From now on the store counts as it writes.
    {
        SqliteDeliveryStore store;
        QVERIFY(store.open(path));
        StoreBatch batch;
        AttemptLogEntry delivered;
        delivered.topic = u"orders"_s;
        delivered.subscription = u"audit"_s;
        delivered.eventIds = {u"e3"_s};
        delivered.httpStatus = 200;
        delivered.outcome = DeliveryOutcome::Delivered;
        batch.attempts = {delivered};
        QVERIFY(store.commit(batch));
    }
    QCOMPARE(reader.totals()->subscription(u"orders"_s, u"audit"_s).delivered, 1u);
}

QTEST_GUILESS_MAIN(TestStoreMigration)
#include "tst_storemigration.moc"
