// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// The dead-letter browser's "resubmit through the topic" against a real EngineHost and store,
// offscreen: the dry run (progress, no change) answered by its dialog with the counts per
// subscription, the run it leads to, and a run canceled after its first chunk, which leaves what
// was resubmitted resubmitted (and traced in the resubmissions table) and the rest untouched.

#include "deadletters/DeadLetterBrowser.h"
#include "deadletters/DeadLetterModel.h"
#include "deadletters/TopicResubmitDialog.h"
#include "host/EngineHost.h"
#include "store/sqlite/SqliteDeliveryStore.h"
#include "store/sqlite/SqliteReadOnlyDatabase.h"
#include "store/sqlite/SqliteStoreSchema.h"
#include "workspace/WorkspaceFolder.h"

#include <QAction>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressDialog>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

#include <memory>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using namespace EventDesk::Ui;

namespace {

// Dead letter `index` of orders/sub-one: an Event Grid event of type Contoso.Orders.Created.
DeadLetterEntry deadLetter(int index)
{
    DeadLetterEntry entry;
    entry.topic = u"orders"_s;
    entry.subscription = u"sub-one"_s;
    entry.eventId = u"order-%1"_s.arg(index, 5, 10, QLatin1Char('0'));
    entry.reason = DeadLetterReason::MaxDeliveryAttemptsExceeded;
    entry.lastOutcome = DeliveryOutcome::Busy;
    entry.lastHttpStatus = 503;
    entry.attempts = 30;
    entry.publishMs = 1'795'000'000'000 + qint64(index) * 1000;
    entry.deadLetteredMs = entry.publishMs + 900'000;
    entry.blobPath = u"deadletters/SUB-ONE/2026/11/22/9/%1.json"_s.arg(index % 50);
    entry.eventType = u"Contoso.Orders.Created"_s;
    entry.subject = u"orders/%1"_s.arg(index);
    entry.dataVersion = u"1.0"_s;
    entry.eventTime = u"2026-11-22T09:00:00Z"_s;
    entry.eventBody
        = u"{\"id\":\"%1\",\"eventType\":\"Contoso.Orders.Created\",\"subject\":"
          "\"orders/%2\",\"eventTime\":\"2026-11-22T09:00:00Z\",\"data\":{\"orderId\":"
          "%2},\"dataVersion\":\"1.0\",\"metadataVersion\":\"1\",\"topic\":\"orders\"}"_s
              .arg(entry.eventId)
              .arg(index)
              .toUtf8();
    entry.record = entry.eventBody;
    return entry;
}

quint16 closedPort()
{
    QTcpServer server;
    server.listen(QHostAddress::LocalHost, 0);
    const quint16 port = server.serverPort();
    server.close();
    return port;
}

QByteArray subscriptionJson(const QString &name, quint16 port, const QString &filter)
{
    return (u"{\"name\":\"%1\",\"properties\":{\"destination\":{\"endpointType\":\"WebHook\","
            "\"properties\":{\"endpointUrl\":\"http://127.0.0.1:%2/%1\"}},%3"
            "\"eventDeliverySchema\":\"EventGridSchema\",\"x-eventdesk\":{\"validation\":false}}}"_s)
        .arg(name)
        .arg(port)
        .arg(filter)
        .toUtf8();
}

// orders: sub-one (where the events died), billing (their type), shipping (other subjects).
QByteArray workspaceJson(quint16 port)
{
    return "{\"topics\":[{\"name\":\"orders\",\"inputSchema\":\"EventGridSchema\","
           "\"eventSubscriptions\":["
        + subscriptionJson(u"sub-one"_s, port, QString()) + ','
        + subscriptionJson(u"billing"_s, port,
                           u"\"filter\":{\"includedEventTypes\":[\"Contoso.Orders.Created\"]},"_s)
        + ','
        + subscriptionJson(u"shipping"_s, port,
                           u"\"filter\":{\"subjectBeginsWith\":\"shipments/\"},"_s)
        + "]}],\"settings\":{\"deadLetterDelaySeconds\":300}}";
}

qint64 countRows(const QString &storePath, const QByteArray &sql)
{
    SqliteReadOnlyDatabase reader;
    if (!reader.open(storePath))
        return -1;
    qint64 count = -1;
    const auto read
        = reader.select(sql, [&count](const SqliteStatement &row) { count = row.columnInt64(0); });
    return read ? count : -1;
}

void saveShot(QWidget *widget, const QString &name)
{
    QDir().mkpath(u"/tmp/eventdesk-shots"_s);
    QVERIFY(widget->grab().save(u"/tmp/eventdesk-shots/"_s + name + u".png"_s));
}

} // namespace

class TestResubmitThroughTopic : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void dryRunThenResubmitAllMatching();
    void cancelKeepsAConsistentState();
    void dialogShowsWhatStaysAndWhy();

private:
    void startHost(int deadLetters);
    // Starts the dry run of all matching dead letters and returns its dialog.
    TopicResubmitDialog *dryRunAll(DeadLetterBrowser &browser);

    std::unique_ptr<QTemporaryDir> m_directory;
    std::unique_ptr<EngineHost> m_host;
    QString m_storePath;
};

void TestResubmitThroughTopic::initTestCase()
{
    QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
}

void TestResubmitThroughTopic::init()
{
    m_directory = std::make_unique<QTemporaryDir>();
    QVERIFY(m_directory->isValid());
}

void TestResubmitThroughTopic::cleanup()
{
    if (m_host)
        m_host->stop();
    m_host.reset();
    m_directory.reset();
}

void TestResubmitThroughTopic::startHost(int deadLetters)
{
    const QString directory = m_directory->path();
    QFile workspace(WorkspaceFolder::workspaceFile(directory));
    QVERIFY(workspace.open(QIODevice::WriteOnly));
    workspace.write(workspaceJson(closedPort()));
    workspace.close();
    m_storePath = WorkspaceFolder::storeFile(directory);
    {
        SqliteDeliveryStore store;
        QVERIFY(store.open(m_storePath));
        StoreBatch batch;
        for (int index = 0; index < deadLetters; ++index)
            batch.deadLetters.append(deadLetter(index));
        QVERIFY(store.commit(batch));
    }
    m_host = std::make_unique<EngineHost>();
    QSignalSpy started(m_host.get(), &EngineHost::started);
    EngineHost::Config config;
    config.workspaceDirectory = directory;
    config.listen.port = 0;
    m_host->start(config);
    QTRY_COMPARE(started.size(), 1);
    QVERIFY2(started.at(0).at(0).toBool(), qPrintable(started.at(0).at(1).toString()));
}

TopicResubmitDialog *TestResubmitThroughTopic::dryRunAll(DeadLetterBrowser &browser)
{
    QSignalSpy opened(&browser, &DeadLetterBrowser::topicResubmitDialogOpened);
    QAction *action = nullptr;
    for (QAction *candidate : browser.actions()) {
        if (candidate->text() == u"Resubmit All Matching Through Topic…"_s)
            action = candidate;
    }
    if (!action || !action->isEnabled())
        return nullptr;
    action->trigger();
    if (!opened.wait(30000))
        return nullptr;
    return qobject_cast<TopicResubmitDialog *>(opened.at(0).at(0).value<QDialog *>());
}

void TestResubmitThroughTopic::dryRunThenResubmitAllMatching()
{
    startHost(1200);
    DeadLetterBrowser browser(m_host.get());
    browser.resize(1300, 600);
    browser.show();
    QVERIFY(QTest::qWaitForWindowExposed(&browser));
    QTRY_COMPARE(browser.model()->rowCount(), DeadLetterModel::PageSize);
    QTRY_COMPARE(browser.countLabel()->text(), u"1,200 dead letters"_s);
    browser.tableView()->selectRow(0);
    QTRY_VERIFY(browser.detailView()->toPlainText().contains(u"order-01199"_s));
    saveShot(&browser, u"resubmit-through-topic-browser"_s);

    // The dry run goes through the operations' chunks with progress, and changes nothing.
    QSignalSpy progressed(browser.operations(), &DeadLetterOperations::progressed);
    TopicResubmitDialog *dialog = dryRunAll(browser);
    QVERIFY(dialog);
    QCOMPARE(progressed.size(), 3); // 500 + 500 + 200
    QCOMPARE(progressed.last().at(0).toLongLong(), 1200);
    QCOMPARE(dialog->summaryText(), u"1,200 events → sub-one 1,200, billing 1,200, shipping 0"_s);
    QCOMPARE(dialog->routeList()->topLevelItemCount(), 3);
    QCOMPARE(dialog->routeList()->topLevelItem(2)->text(1), u"shipping"_s);
    QCOMPARE(dialog->routeList()->topLevelItem(2)->text(2), u"0"_s);
    QCOMPARE(dialog->resubmitButton()->text(), u"Resubmit 1,200"_s);
    QVERIFY(dialog->resubmitButton()->isEnabled());
    QVERIFY(!dialog->problemList()->isVisible());
    QCOMPARE(countRows(m_storePath, "SELECT count(*) FROM dead_letters"), 1200);
    QCOMPARE(countRows(m_storePath, "SELECT count(*) FROM deliveries"), 0);
    saveShot(dialog, u"resubmit-through-topic-dry-run"_s);

    // Accepted: the same dead letters go through the topic, with progress.
    QSignalSpy finished(&browser, &DeadLetterBrowser::operationFinished);
    bool shotTaken = false;
    connect(browser.operations(), &DeadLetterOperations::progressed, &browser,
            [&browser, &shotTaken](qint64 examined) {
                QProgressDialog *progress = browser.operations()->progressDialog();
                if (shotTaken || examined < 500 || !progress)
                    return;
                shotTaken = true;
                progress->show();
                saveShot(progress, u"resubmit-through-topic-progress"_s);
            });
    QTest::mouseClick(dialog->resubmitButton(), Qt::LeftButton);
    QVERIFY(finished.wait(30000));
    QVERIFY(shotTaken);
    QCOMPARE(finished.at(0).at(0).toInt(), 1200);
    QVERIFY2(finished.at(0).at(1).toStringList().isEmpty(),
             qPrintable(finished.at(0).at(1).toStringList().join(u'\n')));
    QVERIFY2(browser.statusLabel()->text().startsWith(
                 u"Resubmitted 1,200 dead letters through their topics: sub-one 1,200, billing "
                 "1,200, shipping 0."_s),
             qPrintable(browser.statusLabel()->text()));
    // What the dry run said is what the run created: 2,400 deliveries, none to shipping.
    QCOMPARE(countRows(m_storePath, "SELECT count(*) FROM dead_letters"), 0);
    QCOMPARE(countRows(m_storePath, "SELECT count(*) FROM resubmissions"), 2400);
    QCOMPARE(countRows(m_storePath,
                       "SELECT count(*) FROM resubmissions WHERE to_subscription = 'shipping'"),
             0);
    QCOMPARE(countRows(m_storePath,
                       "SELECT count(DISTINCT dead_letter_id) FROM resubmissions"
                       " WHERE to_subscription = 'billing'"),
             1200);
    QTRY_COMPARE(browser.model()->rowCount(), 0);
    QTRY_COMPARE(browser.countLabel()->text(), u"0 dead letters"_s);
}

void TestResubmitThroughTopic::cancelKeepsAConsistentState()
{
    startHost(1200);
    DeadLetterBrowser browser(m_host.get());
    browser.show();
    QTRY_COMPARE(browser.model()->rowCount(), DeadLetterModel::PageSize);
    QTRY_COMPARE(browser.countLabel()->text(), u"1,200 dead letters"_s);
    TopicResubmitDialog *dialog = dryRunAll(browser);
    QVERIFY(dialog);

    // Cancel as the first chunk of the run is done: the run stops there.
    QSignalSpy finished(&browser, &DeadLetterBrowser::operationFinished);
    connect(browser.operations(), &DeadLetterOperations::progressed, &browser, [&browser] {
        if (QProgressDialog *progress = browser.operations()->progressDialog())
            Q_EMIT progress->canceled();
    });
    QTest::mouseClick(dialog->resubmitButton(), Qt::LeftButton);
    QVERIFY(finished.wait(30000));
    QCOMPARE(finished.at(0).at(0).toInt(), 500);
    QVERIFY2(browser.statusLabel()->text().contains(u"Canceled before the end."_s),
             qPrintable(browser.statusLabel()->text()));

    // What was resubmitted is resubmitted and traced; the rest is untouched.
    QCOMPARE(countRows(m_storePath, "SELECT count(*) FROM dead_letters"), 700);
    QCOMPARE(countRows(m_storePath, "SELECT count(DISTINCT dead_letter_id) FROM resubmissions"),
             500);
    QCOMPARE(countRows(m_storePath,
                       "SELECT count(*) FROM resubmissions r JOIN dead_letters d"
                       " ON d.id = r.dead_letter_id"),
             0);
    // The newest 500 went (the browser's order); the oldest 700 stay as they were.
    QCOMPARE(countRows(m_storePath, "SELECT max(id) FROM dead_letters"), 700);
    QCOMPARE(countRows(m_storePath,
                       "SELECT count(*) FROM dead_letters WHERE attempts = 30 AND reason = 1"
                       " AND length(event_body) > 0"),
             700);
    QCOMPARE(countRows(m_storePath, "SELECT count(*) FROM events"), 500);
    QTRY_COMPARE(browser.countLabel()->text(), u"700 dead letters"_s);
}

void TestResubmitThroughTopic::dialogShowsWhatStaysAndWhy()
{
    TopicResubmitResult dryRun;
    dryRun.resubmitted = 3;
    dryRun.unmatched = 2;
    dryRun.routes = {{u"orders"_s, u"billing"_s, 3}, {u"returns"_s, u"desk"_s, 0}};
    dryRun.errors = {u"dead letter 7 (event e7 of payments/ledger): Topic 'payments' does not "
                     "exist in this workspace."_s};
    TopicResubmitDialog dialog(dryRun, 6, false);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    // Two topics: each subscription is named with its topic.
    QCOMPARE(dialog.summaryText(), u"3 events → orders/billing 3, returns/desk 0"_s);
    QVERIFY(dialog.problemList()->isVisible());
    QVERIFY(dialog.problemList()->toPlainText().contains(u"Topic 'payments' does not exist"_s));
    const QList<QLabel *> labels = dialog.findChildren<QLabel *>();
    const bool factsShown = std::any_of(labels.cbegin(), labels.cend(), [](QLabel *label) {
        return label->text().contains(u"6 dead letters looked at."_s)
            && label->text().contains(u"2 match no subscription now"_s)
            && label->text().contains(u"1 cannot be resubmitted"_s);
    });
    QVERIFY(factsShown);
    QVERIFY(dialog.resubmitButton()->isEnabled());
    saveShot(&dialog, u"resubmit-through-topic-problems"_s);

    // A canceled dry run shows its partial counts and offers no resubmit.
    TopicResubmitDialog canceled(dryRun, 6, true);
    QVERIFY(!canceled.resubmitButton()->isEnabled());
    const QList<QLabel *> canceledLabels = canceled.findChildren<QLabel *>();
    QVERIFY(std::any_of(canceledLabels.cbegin(), canceledLabels.cend(), [](QLabel *label) {
        return label->text().contains(u"The dry run was canceled"_s);
    }));

    // Nothing to resubmit: the button says so by being disabled.
    TopicResubmitResult nothing;
    nothing.unmatched = 4;
    TopicResubmitDialog empty(nothing, 4, false);
    QVERIFY(!empty.resubmitButton()->isEnabled());
    QCOMPARE(empty.summaryText(), u"0 events → no subscription"_s);
}

QTEST_MAIN(TestResubmitThroughTopic)
#include "tst_resubmitthroughtopic.moc"
