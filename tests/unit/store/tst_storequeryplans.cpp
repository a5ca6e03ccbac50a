// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "store/sqlite/SqliteDeliveryStore.h"
#include "store/sqlite/SqliteReadOnlyDatabase.h"
#include "store/sqlite/SqliteStoreSchema.h"

#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace EventDesk;

// SQLite's query plans (EXPLAIN QUERY PLAN) of every query that filters the dead-letter index or
// the delivery log, as the store and the desktop app's views build them: each filter alone and
// every combination must be served by an index, not by reading the whole table. The plans are
// those of a store as EventDesk creates it (no ANALYZE statistics, as in every workspace).
class TestStoreQueryPlans : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void deadLetterFilters_data();
    void deadLetterFilters();
    void deadLetterListsWithoutIndexableFilter();
    void eventInspectorLookups();
    void deliveryLog();

private:
    // The plan of sql, one line per step, "SCAN TABLE x" of older SQLite versions written as
    // "SCAN x" as SQLite 3.36 and later write it.
    QStringList plan(const QByteArray &sql);

    QTemporaryDir m_dir;
    SqliteReadOnlyDatabase m_reader;
};

namespace {

// The filters of DeadLetterQuery (the dead-letter browser's), one bit each.
enum Filter {
    Topic = 1 << 0,
    Subscription = 1 << 1,
    Reason = 1 << 2,
    Outcome = 1 << 3,
    From = 1 << 4,
    To = 1 << 5,
    Text = 1 << 6,
    AllFilters = (1 << 7) - 1,
};

QString filterName(int filters)
{
    static const char *const names[]
        = {"topic", "subscription", "reason", "outcome", "from", "to", "text"};
    QStringList parts;
    for (int bit = 0; bit < 7; ++bit) {
        if (filters & (1 << bit))
            parts << QString::fromLatin1(names[bit]);
    }
    return parts.isEmpty() ? u"no filter"_s : parts.join(u'+');
}

DeadLetterQuery queryOf(int filters, qint64 beforeId)
{
    DeadLetterQuery query;
    if (filters & Topic)
        query.topic = u"orders"_s;
    if (filters & Subscription)
        query.subscription = u"billing"_s;
    if (filters & Reason)
        query.reason = DeadLetterReason::TimeToLiveExceeded;
    if (filters & Outcome)
        query.lastOutcome = DeliveryOutcome::Busy;
    if (filters & From)
        query.fromMs = 1'700'000'000'000;
    if (filters & To)
        query.toMs = 1'800'000'000'000;
    if (filters & Text)
        query.text = u"needle"_s;
    query.beforeId = beforeId;
    return query;
}

bool readsWholeTable(const QStringList &plan, const QString &table)
{
    return std::any_of(plan.cbegin(), plan.cend(), [&table](const QString &line) {
        return line == u"SCAN "_s + table || line.startsWith(u"SCAN "_s + table + u' ');
    });
}

// A step that looks rows of table up through one of its secondary indexes.
bool searchesIndex(const QStringList &plan, const QString &table)
{
    return std::any_of(plan.cbegin(), plan.cend(), [&table](const QString &line) {
        return line.startsWith(u"SEARCH "_s + table + u" USING INDEX "_s)
            || line.startsWith(u"SEARCH "_s + table + u" USING COVERING INDEX "_s);
    });
}

bool contains(const QStringList &plan, const QString &line)
{
    return plan.contains(line);
}

} // namespace

void TestStoreQueryPlans::initTestCase()
{
    QVERIFY(m_dir.isValid());
    const QString path = m_dir.filePath(u"store.db"_s);
    SqliteDeliveryStore store;
    const auto opened = store.open(path);
    QVERIFY2(opened, qPrintable(opened.error()));
    store.close();
    const auto read = m_reader.open(path);
    QVERIFY2(read, qPrintable(read.error()));
}

QStringList TestStoreQueryPlans::plan(const QByteArray &sql)
{
    QStringList lines;
    const auto explained
        = m_reader.select("EXPLAIN QUERY PLAN "_ba + sql, [&lines](const SqliteStatement &row) {
              QString line = row.columnText(3);
              if (line.startsWith(u"SCAN TABLE "_s) || line.startsWith(u"SEARCH TABLE "_s))
                  line.remove(line.indexOf(u"TABLE "_s), 6);
              lines << line;
          });
    if (!explained)
        lines << u"error: "_s + explained.error();
    return lines;
}

void TestStoreQueryPlans::deadLetterFilters_data()
{
    QTest::addColumn<int>("filters");
    QTest::addColumn<qint64>("beforeId");
    for (int filters = 1; filters <= AllFilters; ++filters) {
        if (filters == Text)
            continue; // deadLetterListsWithoutIndexableFilter()
        QTest::newRow(qPrintable(filterName(filters))) << filters << qint64(0);
        QTest::newRow(qPrintable(filterName(filters) + u", next page"_s))
            << filters << qint64(1000);
    }
}

// Every page of the dead-letter browser and of the store's deadLetters(), the browser's list of
// the ids of all matching dead letters, and the counts.
void TestStoreQueryPlans::deadLetterFilters()
{
    QFETCH(int, filters);
    QFETCH(qint64, beforeId);
    const SqlConditions conditions = deadLetterConditions(queryOf(filters, beforeId));
    QList<QByteArray> queries = {
        deadLetterPageSql(conditions, DeadLetterFields::IndexOnly),
        deadLetterPageSql(conditions, DeadLetterFields::All),
        // DeadLetterBrowser: the ids of all matching dead letters, a chunk at a time.
        "SELECT id FROM dead_letters"_ba + conditions.whereClause()
            + " ORDER BY id DESC LIMIT ?"_ba,
    };
    if (beforeId == 0)
        queries << deadLetterCountSql(conditions);
    for (const QByteArray &sql : std::as_const(queries)) {
        const QStringList steps = plan(sql);
        const QString shown = QString::fromUtf8(sql) + u"\n  plan: "_s + steps.join(u" / "_s);
        QVERIFY2(!steps.isEmpty() && !steps.first().startsWith(u"error"_s), qPrintable(shown));
        QVERIFY2(!readsWholeTable(steps, u"dead_letters"_s), qPrintable(shown));
        if (beforeId == 0) {
            // The first page and the count start from nothing: an index of a filter finds the rows.
            QVERIFY2(searchesIndex(steps, u"dead_letters"_s), qPrintable(shown));
        } else if (filters & (Topic | Subscription | Reason | Outcome)) {
            QVERIFY2(searchesIndex(steps, u"dead_letters"_s), qPrintable(shown));
        } else {
            // A later page of a time range reads one of two ranges, as SQLite's planner weighs
            // them: the primary key down from where the last page ended (SQLite 3.40, Debian 12),
            // or the time index's range, sorted by id (SQLite 3.46, Debian 13). Never the table.
            const bool byKeyset
                = contains(steps, u"SEARCH dead_letters USING INTEGER PRIMARY KEY (rowid<?)"_s);
            const bool byTime = std::any_of(steps.cbegin(), steps.cend(), [](const QString &step) {
                return step.startsWith(u"SEARCH dead_letters USING INDEX dead_letters_by_time ("_s)
                    || step.startsWith(
                        u"SEARCH dead_letters USING COVERING INDEX dead_letters_by_time ("_s);
            });
            QVERIFY2(byKeyset || byTime, qPrintable(shown));
        }
    }
}

// No B-tree index can serve the text filter (a substring anywhere in the record), nor a list of
// everything. Both walk the table newest first, which a page ends after its limit; neither may
// sort the table.
void TestStoreQueryPlans::deadLetterListsWithoutIndexableFilter()
{
    for (const int filters : {0, int(Text)}) {
        const SqlConditions first = deadLetterConditions(queryOf(filters, 0));
        const SqlConditions next = deadLetterConditions(queryOf(filters, 1000));
        const QStringList firstPage = plan(deadLetterPageSql(first, DeadLetterFields::IndexOnly));
        QCOMPARE(firstPage, QStringList {u"SCAN dead_letters"_s});
        const QStringList nextPage = plan(deadLetterPageSql(next, DeadLetterFields::IndexOnly));
        QCOMPARE(nextPage,
                 QStringList {u"SEARCH dead_letters USING INTEGER PRIMARY KEY (rowid<?)"_s});
    }
    // Counting everything reads the smallest index rather than the records.
    const QStringList countAll = plan(deadLetterCountSql(SqlConditions()));
    QCOMPARE(countAll.size(), 1);
    QVERIFY2(countAll.first().startsWith(u"SCAN dead_letters USING COVERING INDEX "_s),
             qPrintable(countAll.join(u" / "_s)));
}

// The event inspector's history of one event id (EventInspector): its attempts, dead letters and
// dropped deliveries.
void TestStoreQueryPlans::eventInspectorLookups()
{
    // The one lookup that reads a whole table, by design: attempt_events has no index on the
    // event id, which would cost every group commit an index page per delivered event (see
    // StoreSchema::CreateAttemptEvents). The attempts found are then read by their id.
    const QStringList attempts = plan(attemptsOfEventSql());
    const QString shownAttempts = attempts.join(u" / "_s);
    QVERIFY2(!readsWholeTable(attempts, u"attempt_log"_s), qPrintable(shownAttempts));
    QVERIFY2(contains(attempts, u"SCAN attempt_events"_s), qPrintable(shownAttempts));
    QVERIFY2(contains(attempts, u"SEARCH attempt_log USING INTEGER PRIMARY KEY (rowid=?)"_s),
             qPrintable(shownAttempts));

    const QStringList deadLetters = plan(deadLettersOfEventSql());
    QVERIFY2(contains(deadLetters,
                      u"SEARCH dead_letters USING INDEX dead_letters_by_event (event_id=?)"_s),
             qPrintable(deadLetters.join(u" / "_s)));
    const QStringList dropped = plan(droppedOfEventSql());
    QVERIFY2(contains(dropped, u"SEARCH dropped USING INDEX dropped_by_event (event_id=?)"_s),
             qPrintable(dropped.join(u" / "_s)));
}

// The delivery log: its history (DeliveryLogView, the store's attemptLog()) walks the newest
// attempts by id and gathers each one's event ids by the primary key of attempt_events; trimming
// removes a range of both primary keys.
void TestStoreQueryPlans::deliveryLog()
{
    const QStringList newest = plan(newestAttemptsSql());
    const QString shownNewest = newest.join(u" / "_s);
    QVERIFY2(contains(newest, u"SCAN attempt_log"_s), qPrintable(shownNewest));
    QVERIFY2(!newest.join(u' ').contains(u"TEMP B-TREE"_s), qPrintable(shownNewest));
    QVERIFY2(!readsWholeTable(newest, u"attempt_events"_s), qPrintable(shownNewest));
    QVERIFY2(contains(newest, u"SEARCH attempt_events USING PRIMARY KEY (attempt_id=?)"_s),
             qPrintable(shownNewest));

    const QStringList trimEvents = plan(TrimAttemptEventsSql);
    QCOMPARE(trimEvents, QStringList {u"SEARCH attempt_events USING PRIMARY KEY (attempt_id<?)"_s});
    const QStringList trimLog = plan(TrimAttemptLogSql);
    QCOMPARE(trimLog, QStringList {u"SEARCH attempt_log USING INTEGER PRIMARY KEY (rowid<?)"_s});
}

QTEST_GUILESS_MAIN(TestStoreQueryPlans)
#include "tst_storequeryplans.moc"
