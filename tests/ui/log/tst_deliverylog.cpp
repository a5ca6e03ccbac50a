// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "log/DeliveryLogModel.h"
#include "log/DeliveryLogView.h"
#include "log/EventInspector.h"
#include "store/sqlite/SqliteDeliveryStore.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using namespace EventDesk::Ui;

namespace {

const qint64 BaseTimeMs = QDateTime(QDate(2026, 11, 22), QTime(14, 0)).toMSecsSinceEpoch();

AttemptLogEntry attempt(int index, const QString &subscription = u"sub-one"_s,
                        DeliveryOutcome outcome = DeliveryOutcome::Delivered,
                        QStringList eventIds = {})
{
    AttemptLogEntry entry;
    entry.timeMs = BaseTimeMs + index * 1000;
    entry.topic = u"orders"_s;
    entry.subscription = subscription;
    entry.eventIds = eventIds.isEmpty() ? QStringList{u"evt-%1"_s.arg(index)} : eventIds;
    entry.attempt = 1;
    entry.outcome = outcome;
    entry.httpStatus = outcome == DeliveryOutcome::Delivered ? 200
        : outcome == DeliveryOutcome::Busy                   ? 503
        : outcome == DeliveryOutcome::BadRequest             ? 400
                                                             : 0;
    entry.durationMs = 20 + index % 900;
    entry.nextDueMs = outcome == DeliveryOutcome::Delivered ? 0 : entry.timeMs + 10000;
    return entry;
}

QList<AttemptLogEntry> varied(int count, int firstIndex = 0)
{
    static const DeliveryOutcome outcomes[] = {
        DeliveryOutcome::Delivered, DeliveryOutcome::Delivered, DeliveryOutcome::Busy,
        DeliveryOutcome::Delivered, DeliveryOutcome::TimedOut,  DeliveryOutcome::BadRequest,
        DeliveryOutcome::Delivered, DeliveryOutcome::SocketError,
    };
    QList<AttemptLogEntry> entries;
    for (int i = firstIndex; i < firstIndex + count; ++i) {
        const DeliveryOutcome outcome = outcomes[i % 8];
        AttemptLogEntry entry = attempt(i, i % 3 == 0 ? u"sub-two"_s : u"sub-one"_s, outcome);
        if (i % 10 == 0)
            entry.eventIds << u"evt-%1-b"_s.arg(i) << u"evt-%1-c"_s.arg(i);
        entry.attempt = 1 + i % 4;
        entries.append(entry);
    }
    return entries;
}

void saveShot(QWidget *widget, const QString &name)
{
    QDir().mkpath(u"/tmp/eventdesk-shots"_s);
    QVERIFY(widget->grab().save(u"/tmp/eventdesk-shots/"_s + name + u".png"_s));
}

int visibleTopSequence(DeliveryLogView &view)
{
    const QModelIndex top = view.tableView()->indexAt(QPoint(1, 1));
    return top.isValid() ? top.data(DeliveryLogModel::SequenceRole).toInt() : -1;
}

} // namespace

class TestDeliveryLog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void modelsPassTheTester();
    void ringDropsTheOldestRows();
    void timeOrderIsArrivalOrderInBothDirections();
    void filtersNarrowTheRows();
    void historyLoadsFromTheStore();
    void scrolledAwayViewDoesNotJump();
    void enterRequestsTheInspector();
    void inspectorShowsTheEventTimeline();
    void inspectorTracesAResubmittedEvent();
    void screenshots();
};

void TestDeliveryLog::modelsPassTheTester()
{
    DeliveryLogModel model;
    DeliveryLogFilterModel filter;
    filter.setSourceModel(&model);
    QAbstractItemModelTester sourceTester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester filterTester(&filter, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setCapacity(50);
    model.append(varied(30));
    model.prependHistory(varied(10, 1000));
    QCOMPARE(model.rowCount(), 40);
    filter.setOnlyFailures(true);
    filter.sort(DeliveryLogModel::DurationColumn, Qt::DescendingOrder);
    model.append(varied(30, 30)); // 20 fall out of the ring
    QCOMPARE(model.rowCount(), 50);
    filter.setEventIdText(u"evt-4"_s);
    filter.setOnlyFailures(false);
    model.clear();
    QCOMPARE(filter.rowCount(), 0);

    model.append({attempt(7, u"sub-one"_s, DeliveryOutcome::Busy)});
    const QModelIndex status = model.index(0, DeliveryLogModel::StatusColumn);
    QCOMPARE(status.data().toString(), u"503"_s);
    QCOMPARE(model.index(0, DeliveryLogModel::OutcomeColumn).data().toString(), u"Busy"_s);
    QCOMPARE(model.index(0, DeliveryLogModel::OutcomeColumn).data(Qt::DecorationRole).value<QColor>().isValid(), true);
    QVERIFY(!model.index(0, DeliveryLogModel::NextDueColumn).data().toString().isEmpty());
}

void TestDeliveryLog::ringDropsTheOldestRows()
{
    DeliveryLogView view;
    view.logModel()->setCapacity(100);
    for (int batch = 0; batch < 5; ++batch)
        view.appendAttempts(varied(50, batch * 50));
    QCOMPARE(view.logModel()->rowCount(), 100);
    // The newest 100 of 250 remain, oldest first.
    QCOMPARE(view.logModel()->entry(0).eventIds.constFirst(), u"evt-150"_s);
    QCOMPARE(view.logModel()->entry(99).eventIds.constFirst(), u"evt-249"_s);
    // A burst larger than the ring keeps its newest rows.
    view.appendAttempts(varied(300, 1000));
    QCOMPARE(view.logModel()->rowCount(), 100);
    QCOMPARE(view.logModel()->entry(0).eventIds.constFirst(), u"evt-1200"_s);
}

// Time ascending is the arrival order, kept without sorting; the other orders sort, and coming
// back to time ascending restores the arrival order, with new rows at the bottom.
void TestDeliveryLog::timeOrderIsArrivalOrderInBothDirections()
{
    DeliveryLogModel model;
    DeliveryLogFilterModel filter;
    filter.setSourceModel(&model);
    model.prependHistory(varied(5, 100)); // older rows, read from the store
    model.append(varied(10));
    const auto shownIds = [&filter] {
        QStringList ids;
        for (int row = 0; row < filter.rowCount(); ++row)
            ids.append(filter.index(row, DeliveryLogModel::EventsColumn).data().toString());
        return ids;
    };
    QStringList arrival;
    for (int row = 0; row < model.rowCount(); ++row)
        arrival.append(model.index(row, DeliveryLogModel::EventsColumn).data().toString());

    filter.sort(DeliveryLogModel::TimeColumn, Qt::AscendingOrder);
    QCOMPARE(shownIds(), arrival);
    filter.sort(DeliveryLogModel::TimeColumn, Qt::DescendingOrder);
    QStringList reversed = arrival;
    std::reverse(reversed.begin(), reversed.end());
    QCOMPARE(shownIds(), reversed);
    filter.sort(DeliveryLogModel::DurationColumn, Qt::AscendingOrder);
    QVERIFY(shownIds() != arrival);
    filter.sort(DeliveryLogModel::TimeColumn, Qt::AscendingOrder);
    QCOMPARE(shownIds(), arrival);

    model.append(varied(3, 500));
    QCOMPARE(filter.rowCount(), 18);
    QCOMPARE(filter.index(17, DeliveryLogModel::EventsColumn).data().toString(),
             model.index(17, DeliveryLogModel::EventsColumn).data().toString());
}

void TestDeliveryLog::filtersNarrowTheRows()
{
    DeliveryLogView view;
    view.resize(1100, 500);
    view.show();
    view.appendAttempts(varied(200));
    QTableView *table = view.tableView();
    QCOMPARE(table->model()->rowCount(), 200);

    auto *failures = view.findChild<QCheckBox *>();
    QVERIFY(failures);
    QTest::mouseClick(failures, Qt::LeftButton, {}, QPoint(8, failures->height() / 2));
    QVERIFY(failures->isChecked());
    // Outcomes repeat every 8 rows, 4 of them Delivered.
    QCOMPARE(table->model()->rowCount(), 100);
    for (int row = 0; row < table->model()->rowCount(); ++row)
        QVERIFY(table->model()->index(row, DeliveryLogModel::OutcomeColumn).data().toString() != u"Delivered"_s);
    failures->setChecked(false);

    const QList<QComboBox *> combos = view.findChildren<QComboBox *>();
    QCOMPARE(combos.size(), 2);
    QComboBox *subscriptions = combos.at(0)->findText(u"orders / sub-two"_s) >= 0 ? combos.at(0) : combos.at(1);
    QComboBox *outcomes = subscriptions == combos.at(0) ? combos.at(1) : combos.at(0);
    subscriptions->setCurrentIndex(subscriptions->findText(u"orders / sub-two"_s));
    QCOMPARE(table->model()->rowCount(), 67); // i % 3 == 0 for i in 0..199
    outcomes->setCurrentIndex(outcomes->findText(u"Busy"_s));
    for (int row = 0; row < table->model()->rowCount(); ++row) {
        QCOMPARE(table->model()->index(row, DeliveryLogModel::OutcomeColumn).data().toString(), u"Busy"_s);
        QCOMPARE(table->model()->index(row, DeliveryLogModel::SubscriptionColumn).data().toString(), u"sub-two"_s);
    }
    QVERIFY(table->model()->rowCount() > 0);
    subscriptions->setCurrentIndex(0);
    outcomes->setCurrentIndex(0);
    QCOMPARE(table->model()->rowCount(), 200);

    // Event id text (debounced): matches any id of a batch, whole or partial.
    auto *search = view.findChild<QLineEdit *>();
    QTest::keyClicks(search, u"evt-120-c"_s);
    QTRY_COMPARE(table->model()->rowCount(), 1);
    QCOMPARE(table->model()->index(0, DeliveryLogModel::EventsColumn).data().toString(), u"evt-120 (+2)"_s);
    search->clear();
    QTRY_COMPARE(table->model()->rowCount(), 200);
}

void TestDeliveryLog::historyLoadsFromTheStore()
{
    QTemporaryDir directory;
    const QString path = directory.filePath(u"eventdesk.db"_s);
    {
        SqliteDeliveryStore store;
        QVERIFY(store.open(path));
        StoreBatch batch;
        batch.attempts = varied(300);
        QVERIFY(store.commit(batch));
    }
    DeliveryLogView view;
    QSignalSpy loaded(&view, &DeliveryLogView::historyLoaded);
    view.setStoreLocation(path);
    QVERIFY(view.isLoadingHistory());
    // A live row that arrives during the load, and one the store already holds.
    view.appendAttempts({varied(1, 299).constFirst(), attempt(5000)});
    QTRY_COMPARE(loaded.size(), 1);
    QCOMPARE(loaded.at(0).at(1).toString(), QString());
    QCOMPARE(view.logModel()->rowCount(), 301);
    QCOMPARE(view.logModel()->entry(0).eventIds.constFirst(), u"evt-0"_s);
    QCOMPARE(view.logModel()->entry(300).eventIds.constFirst(), u"evt-5000"_s);
    QVERIFY(view.logModel()->entry(0).id > 0);

    // The reader is read-only and does not block the engine's writes.
    SqliteDeliveryStore writer;
    QVERIFY(writer.open(path));
    StoreBatch more;
    more.attempts = varied(5, 400);
    QVERIFY(writer.commit(more));

    // A file that is not there is an error, not a crash.
    view.setStoreLocation(directory.filePath(u"missing.db"_s));
    QTRY_COMPARE(loaded.size(), 2);
    QVERIFY(loaded.at(1).at(1).toString().contains(u"missing.db"_s));

    // Nor is a file that is not a store; the message names it and says so.
    const QString notAStore = directory.filePath(u"notes.db"_s);
    {
        QFile file(notAStore);
        QVERIFY(file.open(QIODevice::WriteOnly));
        QVERIFY(file.write("these are notes, not a database\n") > 0);
    }
    view.setStoreLocation(notAStore);
    QTRY_COMPARE(loaded.size(), 3);
    const QString error = loaded.at(2).at(1).toString();
    QVERIFY2(error.contains(QDir::toNativeSeparators(notAStore)), qPrintable(error));
    QVERIFY2(error.contains(u"not an EventDesk store"_s), qPrintable(error));
    QCOMPARE(view.logModel()->rowCount(), 0);
}

void TestDeliveryLog::scrolledAwayViewDoesNotJump()
{
    DeliveryLogView view;
    view.resize(1000, 400);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.logModel()->setCapacity(1000);
    view.appendAttempts(varied(800));
    QScrollBar *bar = view.tableView()->verticalScrollBar();
    // At the bottom, the view follows the newest rows.
    QTRY_COMPARE(bar->value(), bar->maximum());

    bar->setValue(bar->maximum() / 2);
    const int topBefore = visibleTopSequence(view);
    QVERIFY(topBefore > 0);
    view.appendAttempts(varied(100, 800)); // appended below
    QCOMPARE(visibleTopSequence(view), topBefore);
    view.appendAttempts(varied(300, 900)); // the ring drops 200 rows above
    QCOMPARE(view.logModel()->rowCount(), 1000);
    QCOMPARE(visibleTopSequence(view), topBefore);

    bar->setValue(bar->maximum());
    view.appendAttempts(varied(10, 1200));
    QTRY_COMPARE(bar->value(), bar->maximum());
    const QModelIndex last = view.tableView()->model()->index(view.tableView()->model()->rowCount() - 1, 0);
    QVERIFY(view.tableView()->viewport()->rect().intersects(view.tableView()->visualRect(last)));
}

void TestDeliveryLog::enterRequestsTheInspector()
{
    DeliveryLogView view;
    view.resize(900, 300);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.appendAttempts(varied(20));
    QSignalSpy inspect(&view, &DeliveryLogView::inspectEventRequested);
    QTableView *table = view.tableView();
    table->setFocus();
    table->setCurrentIndex(table->model()->index(10, 0));
    QTest::keyClick(table, Qt::Key_Return);
    QCOMPARE(inspect.size(), 1);
    QCOMPARE(inspect.at(0).at(0).toString(), u"evt-10"_s);
}

void TestDeliveryLog::inspectorShowsTheEventTimeline()
{
    QTemporaryDir directory;
    const QString path = directory.filePath(u"eventdesk.db"_s);
    {
        SqliteDeliveryStore store;
        QVERIFY(store.open(path));
        StoreBatch batch;
        static const DeliveryOutcome outcomes[] = {
            DeliveryOutcome::Busy,    DeliveryOutcome::TimedOut,   DeliveryOutcome::Busy,
            DeliveryOutcome::SocketError, DeliveryOutcome::GenericError, DeliveryOutcome::Busy};
        for (int i = 0; i < 6; ++i) {
            AttemptLogEntry entry = attempt(i * 30, u"sub-one"_s, outcomes[i],
                                            {u"evt-other"_s, u"evt-six"_s});
            entry.attempt = i + 1;
            entry.httpStatus = outcomes[i] == DeliveryOutcome::Busy ? 503
                : outcomes[i] == DeliveryOutcome::GenericError      ? 500
                                                                    : 0;
            entry.nextDueMs = i < 5 ? entry.timeMs + 30000 : 0;
            batch.attempts.append(entry);
        }
        // Ids that contain "evt-six" but are not it.
        batch.attempts.append(attempt(500, u"sub-one"_s, DeliveryOutcome::Delivered, {u"evt-sixty"_s}));
        batch.attempts.append(attempt(501, u"sub-one"_s, DeliveryOutcome::Delivered, {u"x-evt-six"_s}));
        // Delivered to the second subscription on the first try.
        batch.attempts.append(attempt(2, u"sub-two"_s, DeliveryOutcome::Delivered, {u"evt-six"_s}));
        DeadLetterEntry deadLetter;
        deadLetter.topic = u"orders"_s;
        deadLetter.subscription = u"sub-one"_s;
        deadLetter.eventId = u"evt-six"_s;
        deadLetter.reason = DeadLetterReason::MaxDeliveryAttemptsExceeded;
        deadLetter.lastOutcome = DeliveryOutcome::Busy;
        deadLetter.lastHttpStatus = 503;
        deadLetter.attempts = 6;
        deadLetter.deadLetteredMs = BaseTimeMs + 200000;
        deadLetter.blobPath = u"deadletters/SUB-ONE/2026/11/22/14/5c1f.json"_s;
        deadLetter.record = R"({"id":"evt-six","eventType":"Contoso.Orders.Created","subject":"orders/42","data":{"orderId":42},"deadLetterReason":"MaxDeliveryAttemptsExceeded","deliveryAttempts":6,"lastDeliveryOutcome":"Busy","lastHttpStatusCode":503})"_ba;
        batch.deadLetters.append(deadLetter);
        QVERIFY(store.commit(batch));
    }

    EventInspector inspector;
    inspector.resize(1000, 520);
    inspector.setStoreLocation(path);
    QSignalSpy shown(&inspector, &EventInspector::historyShown);
    inspector.showEvent(u"evt-six"_s);
    QVERIFY(inspector.isLoading());
    QTRY_COMPARE(shown.size(), 1);
    QCOMPARE(inspector.history().attempts.size(), 7);

    const QList<EventTimeline::Item> &items = inspector.timeline()->items();
    const auto count = [&items](EventTimeline::Item::Kind kind) {
        return std::count_if(items.cbegin(), items.cend(),
                             [kind](const EventTimeline::Item &item) { return item.kind == kind; });
    };
    QCOMPARE(count(EventTimeline::Item::Kind::Lane), 2);
    QCOMPARE(count(EventTimeline::Item::Kind::Attempt), 7);
    QCOMPARE(count(EventTimeline::Item::Kind::Fate), 2);
    // sub-one: six attempts, then the dead letter at the end of its lane.
    QCOMPARE(items.at(0).title, u"orders / sub-one"_s);
    QVERIFY(items.at(1).title.startsWith(u"Attempt 1 · 503 · Busy"_s));
    QCOMPARE(items.at(7).kind, EventTimeline::Item::Kind::Fate);
    QCOMPARE(items.at(7).fate, DeliveryState::DeadLettered);
    QVERIFY(items.at(7).title.contains(u"MaxDeliveryAttemptsExceeded"_s));
    QCOMPARE(items.last().fate, DeliveryState::Delivered);
    QVERIFY(inspector.payloadView()->toPlainText().contains(u"\"deadLetterReason\": \"MaxDeliveryAttemptsExceeded\""_s));

    QDir().mkpath(u"/tmp/eventdesk-shots"_s);
    inspector.show();
    QVERIFY(QTest::qWaitForWindowExposed(&inspector));
    saveShot(&inspector, u"inspector-six-attempts"_s);

    // An unknown id says so.
    inspector.showEvent(u"evt-unknown"_s);
    QTRY_COMPARE(shown.size(), 2);
    QCOMPARE(inspector.timeline()->items().size(), 0);
}

void TestDeliveryLog::inspectorTracesAResubmittedEvent()
{
    QTemporaryDir directory;
    const QString path = directory.filePath(u"eventdesk.db"_s);
    qint64 deadLetterId = 0;
    {
        SqliteDeliveryStore store;
        QVERIFY(store.open(path));
        StoreBatch batch;
        for (int i = 0; i < 3; ++i) {
            AttemptLogEntry entry
                = attempt(i * 10, u"sub-one"_s, DeliveryOutcome::Busy, {u"evt-back"_s});
            entry.attempt = i + 1;
            batch.attempts.append(entry);
        }
        DeadLetterEntry deadLetter;
        deadLetter.topic = u"orders"_s;
        deadLetter.subscription = u"sub-one"_s;
        deadLetter.eventId = u"evt-back"_s;
        deadLetter.reason = DeadLetterReason::MaxDeliveryAttemptsExceeded;
        deadLetter.deadLetteredMs = BaseTimeMs + 60000;
        batch.deadLetters.append(deadLetter);
        QVERIFY(store.commit(batch));
        deadLetterId = store.deadLetters(DeadLetterQuery {}).value().at(0).id;

        // Resubmitted through the topic at +100 s: to sub-one again and to sub-three.
        StoredEvent event;
        event.seq = 1;
        event.topic = u"orders"_s;
        event.id = u"evt-back"_s;
        event.publishMs = BaseTimeMs + 100000;
        event.body = R"({"id":"evt-back"})"_ba;
        QList<DeliveryRecord> deliveries;
        QList<ResubmissionEntry> resubmissions;
        for (const QString &subscription : {u"sub-one"_s, u"sub-three"_s}) {
            DeliveryRecord record;
            record.id = deliveries.size() + 1;
            record.eventSeq = 1;
            record.topic = u"orders"_s;
            record.subscription = subscription;
            record.publishMs = record.dueMs = event.publishMs;
            deliveries.append(record);
            ResubmissionEntry resubmission;
            resubmission.timeMs = event.publishMs;
            resubmission.deadLetterId = deadLetterId;
            resubmission.eventId = event.id;
            resubmission.topic = u"orders"_s;
            resubmission.fromSubscription = u"sub-one"_s;
            resubmission.reason = deadLetter.reason;
            resubmission.deadLetteredMs = deadLetter.deadLetteredMs;
            resubmission.toSubscription = subscription;
            resubmission.deliveryId = record.id;
            resubmissions.append(resubmission);
        }
        QVERIFY(store.insertResubmitted({event}, deliveries, resubmissions, {deadLetterId}));
        StoreBatch after;
        after.attempts.append(
            attempt(101, u"sub-one"_s, DeliveryOutcome::Delivered, {u"evt-back"_s}));
        after.attempts.append(
            attempt(102, u"sub-three"_s, DeliveryOutcome::Delivered, {u"evt-back"_s}));
        after.finished = {{1, 1, DeliveryState::Delivered}, {2, 1, DeliveryState::Delivered}};
        QVERIFY(store.commit(after));
    }

    EventInspector inspector;
    inspector.resize(1000, 560);
    inspector.setStoreLocation(path);
    QSignalSpy shown(&inspector, &EventInspector::historyShown);
    inspector.showEvent(u"evt-back"_s);
    QTRY_COMPARE(shown.size(), 1);
    QCOMPARE(inspector.history().resubmissions.size(), 2);
    QVERIFY(inspector.history().deadLetters.isEmpty()); // the index row left with the resubmit

    QStringList shape;
    for (const EventTimeline::Item &item : inspector.timeline()->items())
        shape << item.title.section(u" · "_s, 0, 0);
    const QString resubmitted
        = u"Resubmitted through the topic from dead letter %1 (MaxDeliveryAttemptsExceeded)"_s.arg(
            deadLetterId);
    QCOMPARE(shape,
             (QStringList {u"orders / sub-one"_s, u"Attempt 1"_s, u"Attempt 2"_s, u"Attempt 3"_s,
                           resubmitted, u"Attempt 1"_s, u"Delivered"_s, u"orders / sub-three"_s,
                           resubmitted, u"Attempt 1"_s, u"Delivered"_s}));
    const EventTimeline::Item &trace = inspector.timeline()->items().at(4);
    QCOMPARE(trace.kind, EventTimeline::Item::Kind::Resubmitted);
    QVERIFY2(trace.detail.contains(u"dead in sub-one"_s)
                 && trace.detail.contains(u"now to sub-one, sub-three"_s),
             qPrintable(trace.detail));

    QDir().mkpath(u"/tmp/eventdesk-shots"_s);
    inspector.show();
    QVERIFY(QTest::qWaitForWindowExposed(&inspector));
    saveShot(&inspector, u"inspector-resubmitted-through-topic"_s);
}

void TestDeliveryLog::screenshots()
{
    DeliveryLogView view;
    view.resize(1180, 560);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.appendAttempts(varied(200));
    auto *count = view.findChild<QLabel *>(u"countLabel"_s);
    QTRY_COMPARE(count->text(), u"200 attempts"_s);
    saveShot(&view, u"log-200-rows"_s);
}

QTEST_MAIN(TestDeliveryLog)
#include "tst_deliverylog.moc"
