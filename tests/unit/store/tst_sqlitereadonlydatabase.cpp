// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "StoreFiles.h"
#include "store/sqlite/SqliteDeliveryStore.h"
#include "store/sqlite/SqliteReadOnlyDatabase.h"
#include "store/sqlite/SqliteStoreSchema.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <sqlite3.h>

#include <atomic>
#include <memory>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using EventDesk::StoreFiles::fileDigest;
using EventDesk::StoreFiles::openDescriptors;

namespace {

// Runs SQL on a read-write connection of its own, as another program would.
bool executeRaw(const QString &filePath, const QByteArray &sql)
{
    sqlite3 *database = nullptr;
    bool done = sqlite3_open_v2(QFile::encodeName(filePath).constData(), &database,
                                SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr)
        == SQLITE_OK;
    done = done && sqlite3_exec(database, sql.constData(), nullptr, nullptr, nullptr) == SQLITE_OK;
    sqlite3_close_v2(database);
    return done;
}

DeadLetterEntry makeDeadLetter(int index)
{
    DeadLetterEntry entry;
    entry.topic = u"orders"_s;
    entry.subscription = index % 2 == 0 ? u"billing-ß"_s : u"audit"_s;
    entry.eventId = u"event-%1 東京"_s.arg(index);
    entry.reason = index % 3 == 0 ? DeadLetterReason::TimeToLiveExceeded
                                  : DeadLetterReason::MaxDeliveryAttemptsExceeded;
    entry.lastOutcome = DeliveryOutcome::Busy;
    entry.lastHttpStatus = 503;
    entry.attempts = 30;
    entry.publishMs = 1000 + index;
    entry.lastAttemptMs = 2000 + index;
    entry.deadLetteredMs = 3000 + index;
    entry.blobPath = u"deadletters/BILLING/2024/5/1/10/%1.json"_s.arg(index);
    entry.record = "[{\"n\":"_ba + QByteArray::number(index) + "}]"_ba;
    entry.eventType = u"Contoso.Order.Created"_s;
    entry.subject = u"/orders/%1"_s.arg(index);
    entry.dataVersion = u"1.0"_s;
    entry.eventTime = u"2024-05-01T10:00:00.0000000Z"_s;
    entry.eventBody = "{\"n\":"_ba + QByteArray::number(index) + '}';
    return entry;
}

QList<DeadLetterEntry> deadLetters(int first, int count)
{
    QList<DeadLetterEntry> entries;
    for (int i = first; i < first + count; ++i)
        entries.append(makeDeadLetter(i));
    return entries;
}

Expected<qint64> countDeadLetters(SqliteReadOnlyDatabase &reader)
{
    qint64 count = -1;
    const auto read
        = reader.select("SELECT count(*) FROM dead_letters"_ba,
                        [&count](const SqliteStatement &row) { count = row.columnInt64(0); });
    if (!read)
        return Error(read.error());
    return count;
}

} // namespace

class TestSqliteReadOnlyDatabase final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void readsWhatTheStoreWrote();
    void refusesFilesThatAreNotStores_data();
    void refusesFilesThatAreNotStores();
    void refusesNewerStore();
    void readsWhileTheStoreWrites();
    void readsOnAnotherThreadWhileTheStoreCommits();
    void cannotWrite();
    void cachesStatementsAndReportsBadSql();
    void closesCleanly();
    void searchPatternMatchesLiterally();
};

void TestSqliteReadOnlyDatabase::readsWhatTheStoreWrote()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(u"eventdesk.db"_s);
    SqliteDeliveryStore store;
    QVERIFY(store.open(path));
    StoreBatch batch;
    batch.deadLetters = deadLetters(1, 5);
    AttemptLogEntry attempt;
    attempt.timeMs = 5000;
    attempt.topic = u"orders"_s;
    attempt.subscription = u"billing-ß"_s;
    attempt.eventIds = {u"event-1 東京"_s, u"event-2"_s};
    attempt.attempt = 3;
    attempt.httpStatus = 500;
    attempt.outcome = DeliveryOutcome::GenericError;
    attempt.durationMs = 12;
    attempt.nextDueMs = 15000;
    batch.attempts = {attempt};
    QVERIFY(store.commit(batch));

    SqliteReadOnlyDatabase reader;
    const auto opened = reader.open(path);
    QVERIFY2(opened, qPrintable(opened.error()));
    QVERIFY(reader.isOpen());
    QCOMPARE(reader.filePath(), path);

    // The store's own row reader over the same columns gives what the store's API gives.
    QList<DeadLetterEntry> read;
    auto result = reader.select(
        "SELECT "_ba + DeadLetterColumns
            + " FROM dead_letters WHERE subscription = ?"
              " ORDER BY id DESC"_ba,
        [&read](const SqliteStatement &row) { read.append(readDeadLetter(row)); }, u"billing-ß"_s);
    QVERIFY2(result, qPrintable(result.error()));
    DeadLetterQuery query;
    query.subscription = u"billing-ß"_s;
    const auto expected = store.deadLetters(query);
    QVERIFY(expected);
    QCOMPARE(read.size(), 2);
    QCOMPARE(expected->size(), 2);
    for (int i = 0; i < read.size(); ++i) {
        QCOMPARE(read.at(i).id, expected->at(i).id);
        QCOMPARE(read.at(i).eventId, expected->at(i).eventId);
        QCOMPARE(read.at(i).subscription, expected->at(i).subscription);
        QCOMPARE(read.at(i).reason, expected->at(i).reason);
        QCOMPARE(read.at(i).blobPath, expected->at(i).blobPath);
        QCOMPARE(read.at(i).record, expected->at(i).record);
        QCOMPARE(read.at(i).eventBody, expected->at(i).eventBody);
    }
    QCOMPARE(read.at(0).eventId, u"event-4 東京"_s);

    // The index columns leave the bytes out and keep everything else.
    QList<DeadLetterEntry> index;
    result = reader.select(
        "SELECT "_ba + DeadLetterIndexColumns + " FROM dead_letters ORDER BY id DESC LIMIT 1"_ba,
        [&index](const SqliteStatement &row) { index.append(readDeadLetter(row)); });
    QVERIFY2(result, qPrintable(result.error()));
    QCOMPARE(index.size(), 1);
    QCOMPARE(index.at(0).eventId, u"event-5 東京"_s);
    QCOMPARE(index.at(0).eventType, u"Contoso.Order.Created"_s);
    QCOMPARE(index.at(0).eventTime, u"2024-05-01T10:00:00.0000000Z"_s);
    QVERIFY(index.at(0).record.isEmpty());
    QVERIFY(index.at(0).eventBody.isEmpty());

    QList<AttemptLogEntry> attempts;
    result = reader.select(
        "SELECT "_ba + AttemptLogColumns + " FROM attempt_log"_ba,
        [&attempts](const SqliteStatement &row) { attempts.append(readAttemptLogEntry(row)); });
    QVERIFY2(result, qPrintable(result.error()));
    QCOMPARE(attempts.size(), 1);
    QCOMPARE(attempts.at(0).eventIds, attempt.eventIds);
    QCOMPARE(attempts.at(0).subscription, attempt.subscription);
    QCOMPARE(attempts.at(0).nextDueMs, attempt.nextDueMs);
    QVERIFY(attempts.at(0).id > 0);
}

void TestSqliteReadOnlyDatabase::refusesFilesThatAreNotStores_data()
{
    QTest::addColumn<QByteArray>("contents");
    QTest::addColumn<QByteArray>("foreignSql");
    QTest::addColumn<QString>("expected");
    QTest::newRow("text file") << "name,amount\nalice,12\n"_ba << QByteArray()
                               << u"not an EventDesk store (not an SQLite database)"_s;
    QTest::newRow("empty file") << QByteArray("") << QByteArray()
                                << u"the file is empty, not an EventDesk store"_s;
    QTest::newRow("damaged SQLite file")
        << ("SQLite format 3"_ba + '\0' + QByteArray(4080, '\x5a')) << QByteArray() << u"damaged"_s;
    QTest::newRow("foreign SQLite database")
        << QByteArray()
        << "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT);"
           " INSERT INTO customers VALUES (1, 'x')"_ba
        << u"SQLite database of another application, not an EventDesk store"_s;
    QTest::newRow("foreign SQLite database with our table names")
        << QByteArray() << "CREATE TABLE dead_letters (id INTEGER PRIMARY KEY, record BLOB)"_ba
        << u"SQLite database of another application, not an EventDesk store"_s;
    QTest::newRow("SQLite database without tables")
        << QByteArray() << "PRAGMA user_version = 7"_ba
        << u"empty SQLite database, not an EventDesk store"_s;
    QTest::newRow("missing file") << QByteArray() << QByteArray() << u"the file does not exist"_s;
}

void TestSqliteReadOnlyDatabase::refusesFilesThatAreNotStores()
{
    QFETCH(QByteArray, contents);
    QFETCH(QByteArray, foreignSql);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(u"precious.db"_s);
    if (!foreignSql.isEmpty()) {
        QVERIFY(executeRaw(path, foreignSql));
    } else if (!contents.isNull()) {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        QCOMPARE(file.write(contents), contents.size());
    }
    const QByteArray before = fileDigest(path);

    SqliteReadOnlyDatabase reader;
    const auto opened = reader.open(path);
    QVERIFY(!opened);
    // The message names the file, as the user knows it, and says what is wrong with it.
    QVERIFY2(opened.error().contains(QDir::toNativeSeparators(path)), qPrintable(opened.error()));
    QVERIFY2(opened.error().contains(expected), qPrintable(opened.error()));
    QVERIFY(!reader.isOpen());
    QVERIFY2(reader.statement("SELECT 1"_ba).error().contains(u"not open"_s),
             qPrintable(reader.statement("SELECT 1"_ba).error()));
    QCOMPARE(fileDigest(path), before);
    QCOMPARE(QFileInfo::exists(path), !before.isEmpty());
    QVERIFY(!QFile::exists(path + u"-wal"_s));
    if (const int descriptors = openDescriptors(path); descriptors >= 0 && !before.isEmpty())
        QCOMPARE(descriptors, 0);
}

void TestSqliteReadOnlyDatabase::refusesNewerStore()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(u"eventdesk.db"_s);
    {
        SqliteDeliveryStore store;
        QVERIFY(store.open(path));
    }
    QVERIFY(
        executeRaw(path, "PRAGMA user_version = "_ba + QByteArray::number(StoreSchemaVersion + 1)));
    SqliteReadOnlyDatabase reader;
    const auto opened = reader.open(path);
    QVERIFY(!opened);
    QVERIFY2(opened.error().contains(QDir::toNativeSeparators(path)), qPrintable(opened.error()));
    QVERIFY2(opened.error().contains(u"newer EventDesk"_s), qPrintable(opened.error()));
    QVERIFY(!reader.isOpen());
}

void TestSqliteReadOnlyDatabase::readsWhileTheStoreWrites()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(u"eventdesk.db"_s);
    SqliteDeliveryStore store;
    QVERIFY(store.open(path));
    StoreBatch first;
    first.deadLetters = deadLetters(1, 50);
    QVERIFY(store.commit(first));

    SqliteReadOnlyDatabase reader;
    const auto opened = reader.open(path);
    QVERIFY2(opened, qPrintable(opened.error()));
    QCOMPARE(countDeadLetters(reader).value(), qint64(50));

    // The store commits while the reader is in the middle of its rows: WAL lets the writer go on,
    // and the reader goes on seeing the snapshot it started with.
    int rowsSeen = 0;
    Expected<void> committedMeanwhile = Error(u"not tried"_s);
    const auto read
        = reader.select("SELECT id FROM dead_letters ORDER BY id"_ba, [&](const SqliteStatement &) {
              if (rowsSeen++ == 10) {
                  StoreBatch more;
                  more.deadLetters = deadLetters(51, 25);
                  committedMeanwhile = store.commit(more);
              }
          });
    QVERIFY2(read, qPrintable(read.error()));
    QVERIFY2(committedMeanwhile, qPrintable(committedMeanwhile.error()));
    QCOMPARE(rowsSeen, 50);
    // The next read starts a new snapshot (the cached statement was reset after its rows).
    QCOMPARE(countDeadLetters(reader).value(), qint64(75));

    // Another writer holding the write lock (in WAL: readers are not blocked by it) does not
    // make the reader wait for its busy timeout, and its uncommitted rows stay invisible.
    sqlite3 *writer = nullptr;
    QCOMPARE(sqlite3_open_v2(QFile::encodeName(path).constData(), &writer, SQLITE_OPEN_READWRITE,
                             nullptr),
             SQLITE_OK);
    const std::unique_ptr<sqlite3, int (*)(sqlite3 *)> closeWriter(writer, sqlite3_close_v2);
    QCOMPARE(sqlite3_exec(writer, "BEGIN EXCLUSIVE; DELETE FROM dead_letters", nullptr, nullptr,
                          nullptr),
             SQLITE_OK);
    QElapsedTimer timer;
    timer.start();
    QCOMPARE(countDeadLetters(reader).value(), qint64(75));
    QVERIFY2(timer.elapsed() < 2000, "the reader waited for the writer's lock");
    QCOMPARE(sqlite3_exec(writer, "ROLLBACK", nullptr, nullptr, nullptr), SQLITE_OK);

    // Closing the reader leaves the store's connection working.
    reader.close();
    StoreBatch last;
    last.deadLetters = deadLetters(76, 5);
    QVERIFY(store.commit(last));
    QCOMPARE(store.countDeadLetters({}).value(), qint64(80));
}

void TestSqliteReadOnlyDatabase::readsOnAnotherThreadWhileTheStoreCommits()
{
    // The desktop app's views read on a thread of their own while the engine commits.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(u"eventdesk.db"_s);
    SqliteDeliveryStore store;
    QVERIFY(store.open(path));
    constexpr int Batches = 40;
    constexpr int PerBatch = 25;

    std::atomic<bool> writing {true};
    QString readerError;
    int reads = 0;
    bool countsGrewMonotonically = true;
    std::unique_ptr<QThread> thread(QThread::create([&] {
        SqliteReadOnlyDatabase reader;
        if (auto opened = reader.open(path); !opened) {
            readerError = opened.error();
            return;
        }
        qint64 previous = 0;
        while (writing.load() || reads == 0) {
            const auto count = countDeadLetters(reader);
            if (!count) {
                readerError = count.error();
                return;
            }
            countsGrewMonotonically = countsGrewMonotonically && count.value() >= previous
                && count.value() % PerBatch == 0;
            previous = count.value();
            ++reads;
        }
    }));
    thread->start();
    for (int i = 0; i < Batches; ++i) {
        StoreBatch batch;
        batch.deadLetters = deadLetters(i * PerBatch, PerBatch);
        const auto committed = store.commit(batch);
        QVERIFY2(committed, qPrintable(committed.error()));
    }
    writing = false;
    QVERIFY(thread->wait(30000));
    QVERIFY2(readerError.isEmpty(), qPrintable(readerError));
    QVERIFY(reads > 0);
    // Every read saw whole transactions, never a part of one.
    QVERIFY(countsGrewMonotonically);
    QCOMPARE(store.countDeadLetters({}).value(), qint64(Batches * PerBatch));
}

void TestSqliteReadOnlyDatabase::cannotWrite()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(u"eventdesk.db"_s);
    {
        SqliteDeliveryStore store;
        QVERIFY(store.open(path));
        StoreBatch batch;
        batch.deadLetters = deadLetters(1, 3);
        QVERIFY(store.commit(batch));
    }
    SqliteReadOnlyDatabase reader;
    QVERIFY(reader.open(path));

    const auto ignoreRows = [](const SqliteStatement &) {
    };
    const auto deleted = reader.select("DELETE FROM dead_letters"_ba, ignoreRows);
    QVERIFY(!deleted);
    QVERIFY2(deleted.error().contains(QDir::toNativeSeparators(path)), qPrintable(deleted.error()));
    QVERIFY2(deleted.error().contains(u"readonly"_s), qPrintable(deleted.error()));
    const auto stamped = reader.select("PRAGMA user_version = 9"_ba, ignoreRows);
    QVERIFY(!stamped);
    QVERIFY2(stamped.error().contains(u"readonly"_s), qPrintable(stamped.error()));
    QCOMPARE(countDeadLetters(reader).value(), qint64(3));
    reader.close();

    SqliteDeliveryStore store;
    QVERIFY(store.open(path)); // still version 1
    QCOMPARE(store.countDeadLetters({}).value(), qint64(3));
}

void TestSqliteReadOnlyDatabase::cachesStatementsAndReportsBadSql()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(u"eventdesk.db"_s);
    {
        SqliteDeliveryStore store;
        QVERIFY(store.open(path));
    }
    SqliteReadOnlyDatabase reader;
    QVERIFY(reader.open(path));
    const QByteArray sql = "SELECT count(*) FROM attempt_log"_ba;
    const auto first = reader.statement(sql);
    QVERIFY2(first, qPrintable(first.error()));
    const auto second = reader.statement(sql);
    QVERIFY(second);
    QCOMPARE(second.value(), first.value());
    QVERIFY(reader.statement("SELECT count(*) FROM dead_letters"_ba).value() != first.value());

    const auto bad = reader.statement("SELECT name FROM no_such_table"_ba);
    QVERIFY(!bad);
    QVERIFY2(bad.error().contains(QDir::toNativeSeparators(path)), qPrintable(bad.error()));
    QVERIFY2(bad.error().contains(u"no_such_table"_s), qPrintable(bad.error()));
    // A failed statement leaves the connection usable.
    QCOMPARE(countDeadLetters(reader).value(), qint64(0));
}

void TestSqliteReadOnlyDatabase::closesCleanly()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(u"eventdesk.db"_s);
    {
        SqliteDeliveryStore store;
        QVERIFY(store.open(path));
    }
    SqliteReadOnlyDatabase reader;
    QVERIFY(reader.open(path));
    // A statement cached but not finished (stepped once, never reset) must not keep the file open.
    const auto statement = reader.statement("SELECT 1 UNION ALL SELECT 2"_ba);
    QVERIFY(statement);
    QVERIFY(statement.value()->step() == SQLITE_ROW);
    if (const int descriptors = openDescriptors(path); descriptors >= 0)
        QVERIFY(descriptors > 0);
    reader.close();
    QVERIFY(!reader.isOpen());
    if (const int descriptors = openDescriptors(path); descriptors >= 0)
        QCOMPARE(descriptors, 0);
    QVERIFY(!reader.statement("SELECT 1"_ba));
    // And it opens again.
    const auto reopened = reader.open(path);
    QVERIFY2(reopened, qPrintable(reopened.error()));
    QCOMPARE(countDeadLetters(reader).value(), qint64(0));
}

void TestSqliteReadOnlyDatabase::searchPatternMatchesLiterally()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(u"eventdesk.db"_s);
    {
        SqliteDeliveryStore store;
        QVERIFY(store.open(path));
        StoreBatch batch;
        batch.deadLetters = deadLetters(1, 4);
        batch.deadLetters[0].record = R"([{"discount":"100%_off"}])"_ba;
        batch.deadLetters[1].record = R"([{"discount":"100x_off"}])"_ba;
        batch.deadLetters[2].record = R"([{"path":"C:\\Temp\\100%_OFF"}])"_ba;
        batch.deadLetters[3].record = R"([{"discount":"100%_off too"}])"_ba;
        QVERIFY(store.commit(batch));
    }
    SqliteReadOnlyDatabase reader;
    QVERIFY(reader.open(path));
    const auto matching = [&reader](const QString &text, const QString &subscription) {
        SqlConditions conditions;
        conditions.add("CAST(record AS TEXT) LIKE ? ESCAPE '\\'", likeContainsPattern(text));
        if (!subscription.isEmpty())
            conditions.add("subscription = ?", subscription);
        QList<qint64> ids;
        const auto statement = reader.statement("SELECT id FROM dead_letters"_ba
                                                + conditions.whereClause() + " ORDER BY id"_ba);
        if (!statement)
            return QList<qint64> {-1};
        conditions.bind(*statement.value());
        const auto read = reader.readRows(*statement.value(), [&ids](const SqliteStatement &row) {
            ids.append(row.columnInt64(0));
        });
        return read ? ids : QList<qint64> {-1};
    };
    // '%', '_' and '\' are characters here, not wildcards or escapes; ASCII letters ignore case.
    QCOMPARE(matching(u"100%_off"_s, QString()), (QList<qint64> {1, 3, 4}));
    QCOMPARE(matching(u"%"_s, QString()), (QList<qint64> {1, 3, 4}));
    QCOMPARE(matching(u"x_"_s, QString()), (QList<qint64> {2}));
    QCOMPARE(matching(u"\\Temp\\"_s, QString()), (QList<qint64> {3}));
    // Conditions join with AND and bind in the order they were added.
    QCOMPARE(matching(u"100%_off"_s, u"audit"_s), (QList<qint64> {1, 3}));
    QCOMPARE(matching(u"100%_off"_s, u"billing-ß"_s), (QList<qint64> {4}));
    QCOMPARE(SqlConditions().whereClause(), QByteArray());
}

QTEST_GUILESS_MAIN(TestSqliteReadOnlyDatabase)

#include "tst_sqlitereadonlydatabase.moc"
