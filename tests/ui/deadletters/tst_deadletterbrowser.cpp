// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "common/ColumnFitter.h"
#include "deadletters/DeadLetterBrowser.h"
#include "deadletters/DeadLetterModel.h"
#include "deadletters/DeadLetterRecordHighlighter.h"
#include "host/EngineHost.h"
#include "rules/DeadLetterFormatter.h"
#include "store/sqlite/SqliteDeliveryStore.h"
#include "workspace/WorkspaceFolder.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QCheckBox>
#include <QDateTimeEdit>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDesktopServices>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTableView>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QTextLayout>
#include <QTimer>

#include <memory>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using namespace EventDesk::Ui;

namespace {

const qint64 BaseTimeMs = QDateTime::fromString(u"2026-11-22T09:00:00Z"_s, Qt::ISODate).toMSecsSinceEpoch();

constexpr DeadLetterReason Reasons[] = {
    DeadLetterReason::MaxDeliveryAttemptsExceeded,
    DeadLetterReason::TimeToLiveExceeded,
    DeadLetterReason::UndeliverableDueToHttpBadRequest,
};

DeadLetterReason reasonOf(int index)
{
    return Reasons[index % 3];
}

// Dead letter number `index` of orders/sub-one, as the engine would index it.
DeadLetterEntry deadLetter(int index)
{
    DeadLetterEntry entry;
    entry.topic = u"orders"_s;
    entry.subscription = u"sub-one"_s;
    entry.eventId = u"order-%1"_s.arg(index, 7, 10, QLatin1Char('0'));
    entry.reason = reasonOf(index);
    entry.lastOutcome = entry.reason == DeadLetterReason::UndeliverableDueToHttpBadRequest
        ? DeliveryOutcome::BadRequest
        : (index % 2 ? DeliveryOutcome::Busy : DeliveryOutcome::TimedOut);
    entry.lastHttpStatus = entry.lastOutcome == DeliveryOutcome::BadRequest ? 400
        : entry.lastOutcome == DeliveryOutcome::Busy                        ? 503
                                                                            : 0;
    entry.attempts = entry.reason == DeadLetterReason::UndeliverableDueToHttpBadRequest ? 1 : 30;
    entry.publishMs = BaseTimeMs + qint64(index) * 1000;
    entry.lastAttemptMs = entry.publishMs + 600000;
    entry.deadLetteredMs = entry.lastAttemptMs + 300000;
    entry.blobPath = u"deadletters/SUB-ONE/2026/11/22/9/%1.json"_s.arg(index % 50);
    entry.eventType = u"Contoso.Orders.Created"_s;
    entry.subject = u"orders/%1"_s.arg(index);
    entry.dataVersion = u"1.0"_s;
    entry.eventTime = DeadLetterFormatter::formatTime(entry.publishMs);
    const QByteArray event = u"{\"id\":\"%1\",\"eventType\":\"Contoso.Orders.Created\",\"subject\":"
                             "\"orders/%2\",\"eventTime\":\"%3\",\"data\":{\"orderId\":%2,"
                             "\"customer\":\"customer-%2\",\"total\":%4},\"dataVersion\":\"1.0\","
                             "\"metadataVersion\":\"1\",\"topic\":\"orders\"}"_s
                                 .arg(entry.eventId)
                                 .arg(index)
                                 .arg(entry.eventTime)
                                 .arg(19.5 + index % 100)
                                 .toUtf8();
    entry.eventBody = event;
    DeadLetterInput input;
    input.deliveredBody = event;
    input.reason = entry.reason;
    input.deliveryAttempts = entry.attempts;
    input.lastDeliveryOutcome = entry.lastOutcome;
    input.lastHttpStatusCode = entry.lastHttpStatus;
    input.publishTimeMs = entry.publishMs;
    input.lastDeliveryAttemptTimeMs = entry.lastAttemptMs;
    entry.record = DeadLetterFormatter::record(input);
    return entry;
}

void fillStore(const QString &path, int count)
{
    SqliteDeliveryStore store;
    QVERIFY2(store.open(path), "open the store");
    constexpr int BatchSize = 10000;
    for (int start = 0; start < count; start += BatchSize) {
        StoreBatch batch;
        for (int index = start; index < std::min(count, start + BatchSize); ++index)
            batch.deadLetters.append(deadLetter(index));
        const auto committed = store.commit(batch);
        QVERIFY2(committed, qPrintable(committed.error()));
    }
}

quint16 closedPort()
{
    QTcpServer server;
    server.listen(QHostAddress::LocalHost, 0);
    const quint16 port = server.serverPort();
    server.close();
    return port;
}

QByteArray workspaceJson(quint16 port)
{
    return u"{\"topics\":[{\"name\":\"orders\",\"inputSchema\":\"EventGridSchema\","
             "\"eventSubscriptions\":[{\"name\":\"sub-one\",\"properties\":{"
             "\"destination\":{\"endpointType\":\"WebHook\",\"properties\":{\"endpointUrl\":"
             "\"http://127.0.0.1:%1/hook\"}},"
             "\"eventDeliverySchema\":\"EventGridSchema\","
             "\"retryPolicy\":{\"maxDeliveryAttempts\":30,\"eventTimeToLiveInMinutes\":1440},"
             "\"x-eventdesk\":{\"validation\":false},"
             "\"deadLetterDestination\":{\"endpointType\":\"StorageBlob\",\"properties\":"
             "{\"resourceId\":\"local\",\"blobContainerName\":\"deadletters\"}}}}]}],"
             "\"settings\":{\"deadLetterDelaySeconds\":300,\"probationThreshold\":10}}"_s
        .arg(port)
        .toUtf8();
}

// Clicks `button` of the next message box that opens (polls the modal widget; no fixed wait) and
// remembers its text. Stops when it goes out of scope.
class MessageBoxAnswer : public QObject
{
public:
    explicit MessageBoxAnswer(QMessageBox::StandardButton button)
    {
        m_timer.setInterval(10);
        QObject::connect(&m_timer, &QTimer::timeout, this, [this, button] {
            auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
            if (!box || !box->button(button))
                return;
            m_timer.stop();
            text = box->text();
            QTest::mouseClick(box->button(button), Qt::LeftButton);
        });
        m_timer.start();
    }
    QString text; // empty until a box was answered

private:
    QTimer m_timer;
};

QAction *actionNamed(QWidget *widget, const QString &text)
{
    const QList<QAction *> actions = widget->actions();
    for (QAction *action : actions) {
        if (action->text() == text)
            return action;
    }
    return nullptr;
}

qint64 storedCount(const QString &path, const QString &where = QString())
{
    SqliteDeliveryStore store;
    if (!store.open(path))
        return -1;
    DeadLetterQuery query;
    if (where == u"badrequest"_s)
        query.reason = DeadLetterReason::UndeliverableDueToHttpBadRequest;
    const auto count = store.countDeadLetters(query);
    return count ? count.value() : -1;
}

class UrlRecorder : public QObject
{
    Q_OBJECT
public:
    QList<QUrl> urls;
public Q_SLOTS:
    void open(const QUrl &url) { urls.append(url); }
};

} // namespace

class TestDeadLetterBrowser : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void modelPassesTheTester();
    void pagesGrowAsTheUserScrolls();
    void reasonFilterShowsOnlyThatReason();
    void textAndTimeFilters();
    void detailHighlightsTheDeadLetterFields();
    void copyPutsTheRecordOnTheClipboard();
    void deleteSelectedRemovesRows();
    void resubmitSelectedAndAllMatching();
    void exportWritesOneFilePerDeadLetter();
    void openBlobFolderOpensTheFolder();
    void reasonColumnShowsTheWholeReason();
    void screenshot();
    void measureOpeningTwoHundredThousand();

private:
    std::unique_ptr<QTemporaryDir> m_directory;
    std::unique_ptr<EngineHost> m_host;
    QString m_storePath;
    void startHost(int deadLetters);
};

void TestDeadLetterBrowser::initTestCase()
{
    QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
}

void TestDeadLetterBrowser::init()
{
    m_directory = std::make_unique<QTemporaryDir>();
    QVERIFY(m_directory->isValid());
}

void TestDeadLetterBrowser::cleanup()
{
    if (m_host)
        m_host->stop();
    m_host.reset();
    m_directory.reset();
}

void TestDeadLetterBrowser::startHost(int deadLetters)
{
    const QString directory = m_directory->path();
    QFile workspace(WorkspaceFolder::workspaceFile(directory));
    QVERIFY(workspace.open(QIODevice::WriteOnly));
    workspace.write(workspaceJson(closedPort()));
    workspace.close();
    m_storePath = WorkspaceFolder::storeFile(directory);
    fillStore(m_storePath, deadLetters);

    m_host = std::make_unique<EngineHost>();
    QSignalSpy started(m_host.get(), &EngineHost::started);
    EngineHost::Config config;
    config.workspaceDirectory = directory;
    config.listen.port = 0;
    m_host->start(config);
    QTRY_COMPARE(started.size(), 1);
    QVERIFY2(started.at(0).at(0).toBool(), qPrintable(started.at(0).at(1).toString()));
}

void TestDeadLetterBrowser::modelPassesTheTester()
{
    startHost(1000);
    DeadLetterBrowser browser(m_host.get());
    // The tester calls fetchMore() after every change, so it walks through every page.
    QAbstractItemModelTester tester(browser.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QTRY_COMPARE(browser.model()->rowCount(), 1000);
    QTRY_VERIFY(browser.model()->isAtEnd());
    browser.reasonCombo()->setCurrentIndex(1);
    QTRY_COMPARE(browser.model()->rowCount(), 334);
    browser.model()->removeIds({browser.model()->entry(5).id, browser.model()->entry(0).id});
    QCOMPARE(browser.model()->rowCount(), 332);
    browser.reload();
    QTRY_COMPARE(browser.model()->rowCount(), 334);
}

void TestDeadLetterBrowser::pagesGrowAsTheUserScrolls()
{
    startHost(5000);
    DeadLetterBrowser browser(m_host.get());
    browser.resize(1200, 600);
    browser.show();
    QVERIFY(QTest::qWaitForWindowExposed(&browser));

    DeadLetterModel *model = browser.model();
    QTRY_COMPARE(model->rowCount(), DeadLetterModel::PageSize);
    QVERIFY(model->canFetchMore(QModelIndex()));
    // Newest first.
    QCOMPARE(model->index(0, DeadLetterModel::EventIdColumn).data().toString(), u"order-0004999"_s);
    QTRY_COMPARE(browser.countLabel()->text(), u"5,000 dead letters"_s);

    model->fetchMore(QModelIndex());
    QTRY_COMPARE(model->rowCount(), 2 * DeadLetterModel::PageSize);
    // Scrolling to the end reads the next page.
    QScrollBar *bar = browser.tableView()->verticalScrollBar();
    QTRY_VERIFY(bar->maximum() > 0);
    bar->setValue(bar->maximum());
    QTRY_COMPARE(model->rowCount(), 3 * DeadLetterModel::PageSize);
    QCOMPARE(model->index(3 * DeadLetterModel::PageSize - 1, DeadLetterModel::EventIdColumn).data().toString(),
             u"order-0004400"_s);

    // Reading to the end stops at 5000.
    while (model->rowCount() < 5000) {
        const int before = model->rowCount();
        QTRY_VERIFY(!model->isFetching());
        model->fetchMore(QModelIndex());
        QTRY_VERIFY(model->rowCount() > before);
    }
    QTRY_VERIFY(model->isAtEnd() || !model->isFetching());
    model->fetchMore(QModelIndex());
    QTRY_VERIFY(model->isAtEnd());
    QCOMPARE(model->rowCount(), 5000);
    QVERIFY(!model->canFetchMore(QModelIndex()));
}

void TestDeadLetterBrowser::reasonFilterShowsOnlyThatReason()
{
    startHost(5000);
    DeadLetterBrowser browser(m_host.get());
    browser.show();
    QTRY_COMPARE(browser.model()->rowCount(), DeadLetterModel::PageSize);

    QComboBox *reasons = browser.reasonCombo();
    reasons->setCurrentIndex(reasons->findText(u"TimeToLiveExceeded"_s));
    QTRY_COMPARE(browser.countLabel()->text(), u"5,000 dead letters, 1,667 match"_s);
    QTRY_COMPARE(browser.model()->rowCount(), DeadLetterModel::PageSize);
    for (int row = 0; row < browser.model()->rowCount(); ++row) {
        QCOMPARE(browser.model()->index(row, DeadLetterModel::ReasonColumn).data().toString(),
                 u"TimeToLiveExceeded"_s);
    }
    // Reason and last outcome together.
    QComboBox *outcomes = browser.outcomeCombo();
    outcomes->setCurrentIndex(outcomes->findText(u"Busy"_s));
    // index % 3 == 1 and odd: index % 6 == 1 → 834 of 0..4999.
    QTRY_COMPARE(browser.countLabel()->text(), u"5,000 dead letters, 834 match"_s);
    QTRY_VERIFY(browser.model()->rowCount() > 0);
    for (int row = 0; row < browser.model()->rowCount(); ++row)
        QCOMPARE(browser.model()->entry(row).lastOutcome, DeliveryOutcome::Busy);

    // A subscription the workspace does not have shows nothing.
    browser.setFilterSubscription(u"orders"_s, u"sub-gone"_s);
    QTRY_COMPARE(browser.countLabel()->text(), u"5,000 dead letters, 0 match"_s);
    QCOMPARE(browser.model()->rowCount(), 0);
    browser.setFilterSubscription(u"orders"_s, u"sub-one"_s);
    QTRY_COMPARE(browser.countLabel()->text(), u"5,000 dead letters, 834 match"_s);
}

void TestDeadLetterBrowser::textAndTimeFilters()
{
    startHost(5000);
    DeadLetterBrowser browser(m_host.get());
    browser.show();
    QTRY_COMPARE(browser.model()->rowCount(), DeadLetterModel::PageSize);

    QTest::keyClicks(browser.searchField(), u"CUSTOMER-4242\""_s); // case-insensitive, whole value
    QTRY_COMPARE(browser.model()->rowCount(), 1);
    QCOMPARE(browser.model()->entry(0).eventId, u"order-0004242"_s);
    QTRY_COMPARE(browser.countLabel()->text(), u"5,000 dead letters, 1 match"_s);
    // LIKE wildcards in the search text are literal.
    browser.searchField()->setText(u"customer-42_2"_s);
    QTRY_COMPARE(browser.countLabel()->text(), u"5,000 dead letters, 0 match"_s);
    QCOMPARE(browser.model()->rowCount(), 0);
    browser.searchField()->clear();
    QTRY_COMPARE(browser.countLabel()->text(), u"5,000 dead letters"_s);

    // Time range: dead letters 100..199 (dead_lettered_ms = base + index s + 15 min).
    auto *from = browser.findChildren<QDateTimeEdit *>().value(0);
    auto *to = browser.findChildren<QDateTimeEdit *>().value(1);
    QVERIFY(from && to);
    from->setDateTime(QDateTime::fromMSecsSinceEpoch(BaseTimeMs + 900000 + 100000));
    to->setDateTime(QDateTime::fromMSecsSinceEpoch(BaseTimeMs + 900000 + 199000));
    const QList<QCheckBox *> checks = browser.findChildren<QCheckBox *>();
    QCOMPARE(checks.size(), 2);
    checks.at(0)->setChecked(true);
    checks.at(1)->setChecked(true);
    // "To" includes its whole minute: 100..199 plus the rest of that minute's seconds.
    QTRY_VERIFY(browser.countLabel()->text().endsWith(u" match"_s));
    // The page and the count are read apart, on readers of their own: either may come first.
    QTRY_VERIFY(browser.model()->rowCount() >= 100);
    const int matching = browser.model()->rowCount();
    for (int row = 0; row < matching; ++row) {
        const qint64 time = browser.model()->entry(row).deadLetteredMs;
        QVERIFY(time >= from->dateTime().toMSecsSinceEpoch());
        QVERIFY(time <= to->dateTime().toMSecsSinceEpoch() + 59999);
    }
}

void TestDeadLetterBrowser::detailHighlightsTheDeadLetterFields()
{
    startHost(300);
    DeadLetterBrowser browser(m_host.get());
    browser.show();
    QTRY_COMPARE(browser.model()->rowCount(), DeadLetterModel::PageSize);
    QSignalSpy shown(&browser, &DeadLetterBrowser::detailShown);
    QTableView *table = browser.tableView();
    table->setFocus();
    QTRY_VERIFY(browser.detailId() > 0);
    QTest::keyClick(table, Qt::Key_Down);
    const qint64 id = table->currentIndex().data(DeadLetterModel::IdRole).toLongLong();
    QTRY_VERIFY(!shown.isEmpty() && shown.last().at(0).toLongLong() == id);
    const QString text = browser.detailView()->toPlainText();
    QVERIFY(text.contains(u"\"id\": \"order-0000298\""_s));
    QVERIFY(text.contains(u"\"deadLetterReason\": \"TimeToLiveExceeded\""_s)); // 298 % 3 == 1

    const QColor highlight = browser.detailView()->palette().color(QPalette::Highlight);
    const auto isHighlighted = [&](const QString &member) {
        for (QTextBlock block = browser.detailView()->document()->begin(); block.isValid();
             block = block.next()) {
            if (!block.text().contains(u'"' + member + u'"'))
                continue;
            const QList<QTextLayout::FormatRange> formats = block.layout()->formats();
            for (const QTextLayout::FormatRange &range : formats) {
                if (range.format.background().color() == highlight)
                    return true;
            }
            return false;
        }
        return false;
    };
    QVERIFY(isHighlighted(u"deadLetterReason"_s));
    QVERIFY(isHighlighted(u"deliveryAttempts"_s));
    QVERIFY(isHighlighted(u"lastDeliveryOutcome"_s));
    QVERIFY(isHighlighted(u"publishTime"_s));
    QVERIFY(isHighlighted(u"lastDeliveryAttemptTime"_s));
    QVERIFY(!isHighlighted(u"subject"_s));
    QVERIFY(!isHighlighted(u"customer"_s));
    QVERIFY(DeadLetterRecordHighlighter::isDeadLetterField(u"lastdeliveryoutcome"));
}

void TestDeadLetterBrowser::copyPutsTheRecordOnTheClipboard()
{
    startHost(50);
    DeadLetterBrowser browser(m_host.get());
    browser.show();
    QTRY_COMPARE(browser.model()->rowCount(), 50);
    QApplication::clipboard()->clear();
    QTableView *table = browser.tableView();
    table->selectRow(3);
    table->setFocus();
    QTest::keySequence(table, QKeySequence::Copy);
    QTRY_VERIFY(QApplication::clipboard()->text().contains(u"order-0000046"_s));
    const QJsonDocument document = QJsonDocument::fromJson(QApplication::clipboard()->text().toUtf8());
    QCOMPARE(document.object().value(u"deadLetterReason"_s).toString(), u"TimeToLiveExceeded"_s);
}

void TestDeadLetterBrowser::deleteSelectedRemovesRows()
{
    startHost(1000);
    DeadLetterBrowser browser(m_host.get());
    browser.show();
    QTRY_COMPARE(browser.model()->rowCount(), DeadLetterModel::PageSize);
    QTRY_COMPARE(browser.countLabel()->text(), u"1,000 dead letters"_s);
    QTableView *table = browser.tableView();
    table->setFocus();
    table->selectRow(0);
    QTest::keyClick(table, Qt::Key_Down, Qt::ShiftModifier);
    QTest::keyClick(table, Qt::Key_Down, Qt::ShiftModifier);
    QCOMPARE(table->selectionModel()->selectedRows().size(), 3);

    QSignalSpy finished(&browser, &DeadLetterBrowser::operationFinished);
    {
        MessageBoxAnswer yes(QMessageBox::Yes);
        QTest::keyClick(table, Qt::Key_Delete);
        QTRY_COMPARE(finished.size(), 1);
        QCOMPARE(yes.text, u"Delete 3 dead letter(s)? They leave the index and can no longer be "
                           "resubmitted from EventDesk; the blob files stay."_s);
    }
    QCOMPARE(finished.at(0).at(0).toInt(), 3);
    QVERIFY(finished.at(0).at(1).toStringList().isEmpty());
    QCOMPARE(browser.model()->index(0, DeadLetterModel::EventIdColumn).data().toString(), u"order-0000996"_s);
    QTRY_COMPARE(browser.countLabel()->text(), u"997 dead letters"_s);
    QCOMPARE(storedCount(m_storePath), 997);

    // "No" leaves everything as it was.
    browser.activateWindow();
    table->setFocus();
    QTRY_VERIFY(table->hasFocus());
    table->selectRow(0);
    {
        MessageBoxAnswer no(QMessageBox::No);
        QTest::keyClick(table, Qt::Key_Delete);
        QTRY_VERIFY(!no.text.isEmpty());
    }
    QCOMPARE(finished.size(), 1);
    browser.reload();
    QTRY_COMPARE(browser.model()->rowCount(), DeadLetterModel::PageSize);
    QCOMPARE(browser.model()->index(0, DeadLetterModel::EventIdColumn).data().toString(), u"order-0000996"_s);
}

void TestDeadLetterBrowser::resubmitSelectedAndAllMatching()
{
    startHost(1200);
    DeadLetterBrowser browser(m_host.get());
    browser.show();
    QTRY_COMPARE(browser.model()->rowCount(), DeadLetterModel::PageSize);
    QSignalSpy finished(&browser, &DeadLetterBrowser::operationFinished);

    // One row: no question asked.
    QTableView *table = browser.tableView();
    table->selectRow(1);
    const QString resubmittedId = browser.model()->entry(1).eventId;
    actionNamed(&browser, u"Resubmit"_s)->trigger();
    QTRY_COMPARE(finished.size(), 1);
    QCOMPARE(finished.at(0).at(0).toInt(), 1);
    browser.reload();
    QTRY_COMPARE(browser.countLabel()->text(), u"1,199 dead letters"_s);
    QTRY_COMPARE(browser.model()->rowCount(), DeadLetterModel::PageSize);
    for (int row = 0; row < browser.model()->rowCount(); ++row)
        QVERIFY(browser.model()->entry(row).eventId != resubmittedId);

    // All matching one reason: 400 of 1199 (index % 3 == 2), in chunks of 500 → one chunk; and
    // the count comes first.
    QComboBox *reasons = browser.reasonCombo();
    reasons->setCurrentIndex(reasons->findText(u"UndeliverableDueToHttpBadRequest"_s));
    QTRY_COMPARE(browser.countLabel()->text(), u"1,199 dead letters, 400 match"_s);
    MessageBoxAnswer yes(QMessageBox::Yes);
    QAction *resubmitAll = actionNamed(&browser, u"Resubmit All Matching…"_s);
    QVERIFY(resubmitAll);
    QTRY_VERIFY(resubmitAll->isEnabled());
    resubmitAll->trigger();
    QTRY_VERIFY2(finished.size() == 2, qPrintable(browser.statusLabel()->text()));
    QCOMPARE(yes.text, u"Resubmit all 400 dead letters that match the filter to their subscriptions?"_s);
    QCOMPARE(finished.at(1).at(0).toInt(), 400);
    QVERIFY(finished.at(1).at(1).toStringList().isEmpty());
    QTRY_COMPARE(browser.countLabel()->text(), u"799 dead letters, 0 match"_s);
    QCOMPARE(browser.model()->rowCount(), 0);
    QCOMPARE(storedCount(m_storePath, u"badrequest"_s), 0);
    QVERIFY(browser.statusLabel()->text().contains(u"Resubmitted 400"_s));
}

void TestDeadLetterBrowser::exportWritesOneFilePerDeadLetter()
{
    startHost(700);
    DeadLetterBrowser browser(m_host.get());
    browser.show();
    QTRY_COMPARE(browser.model()->rowCount(), DeadLetterModel::PageSize);
    QTemporaryDir target;
    QSignalSpy finished(&browser, &DeadLetterBrowser::operationFinished);

    QTableView *table = browser.tableView();
    for (int row = 0; row < 5; ++row)
        table->selectionModel()->select(browser.model()->index(row * 2, 0),
                                        QItemSelectionModel::Select | QItemSelectionModel::Rows);
    browser.exportTo(target.filePath(u"selected"_s), DeadLetterBrowser::Scope::Selected);
    QTRY_COMPARE(finished.size(), 1);
    QDir selected(target.filePath(u"selected"_s));
    QCOMPARE(selected.entryList(QDir::Files).size(), 5);
    QFile file(selected.filePath(u"700-order-0000699.json"_s));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject record = QJsonDocument::fromJson(file.readAll()).object();
    QCOMPARE(record.value(u"id"_s).toString(), u"order-0000699"_s);
    QCOMPARE(record.value(u"deliveryAttempts"_s).toInt(), 30);

    // All matching: 700 rows in two chunks.
    browser.exportTo(target.filePath(u"all"_s), DeadLetterBrowser::Scope::AllMatching);
    QTRY_COMPARE(finished.size(), 2);
    QCOMPARE(finished.at(1).at(0).toInt(), 700);
    QCOMPARE(QDir(target.filePath(u"all"_s)).entryList(QDir::Files).size(), 700);
    QCOMPARE(storedCount(m_storePath), 700); // exporting keeps them
}

void TestDeadLetterBrowser::openBlobFolderOpensTheFolder()
{
    startHost(10);
    UrlRecorder recorder;
    QDesktopServices::setUrlHandler(u"file"_s, &recorder, "open");
    DeadLetterBrowser browser(m_host.get());
    browser.show();
    QTRY_COMPARE(browser.model()->rowCount(), 10);
    browser.tableView()->setCurrentIndex(browser.model()->index(0, 0));
    const QString folder = QDir(m_directory->path()).filePath(u"deadletters/deadletters/SUB-ONE/2026/11/22/9"_s);
    QVERIFY(QDir().mkpath(folder));
    actionNamed(&browser, u"Open Blob Folder"_s)->trigger();
    QDesktopServices::unsetUrlHandler(u"file"_s);
    QCOMPARE(recorder.urls.size(), 1);
    QCOMPARE(QFileInfo(recorder.urls.at(0).toLocalFile()).canonicalFilePath(), QFileInfo(folder).canonicalFilePath());
}

void TestDeadLetterBrowser::reasonColumnShowsTheWholeReason()
{
    // The columns fit their content: the longest reason name is not cut, short ids take little.
    startHost(30);
    DeadLetterBrowser browser(m_host.get());
    browser.resize(1200, 600);
    browser.show();
    QVERIFY(QTest::qWaitForWindowExposed(&browser));
    auto *table = browser.findChild<QTableView *>();
    QTRY_COMPARE(browser.model()->rowCount(), 30);
    int badRequestRow = -1;
    for (int row = 0; row < browser.model()->rowCount() && badRequestRow < 0; ++row)
        if (browser.model()->entry(row).reason
            == DeadLetterReason::UndeliverableDueToHttpBadRequest)
            badRequestRow = row;
    QVERIFY(badRequestRow >= 0);
    const QModelIndex reason = browser.model()->index(badRequestRow, DeadLetterModel::ReasonColumn);
    QCOMPARE(reason.data().toString(), u"UndeliverableDueToHttpBadRequest"_s);
    QTRY_VERIFY(!ElidedTextToolTipDelegate::isElided(table, reason));
    QVERIFY(table->columnWidth(DeadLetterModel::ReasonColumn)
            >= table->fontMetrics().horizontalAdvance(reason.data().toString()));
    // Narrowed by hand, the reason is elided and its tooltip gives it whole.
    table->setColumnWidth(DeadLetterModel::ReasonColumn, 60);
    QVERIFY(ElidedTextToolTipDelegate::isElided(table, reason));
    QVERIFY(ElidedTextToolTipDelegate::toolTip(table, reason)
                .startsWith(u"UndeliverableDueToHttpBadRequest"_s));
}

void TestDeadLetterBrowser::screenshot()
{
    startHost(600);
    DeadLetterBrowser browser(m_host.get());
    browser.resize(1400, 640);
    browser.show();
    QVERIFY(QTest::qWaitForWindowExposed(&browser));
    QTRY_COMPARE(browser.model()->rowCount(), DeadLetterModel::PageSize);
    browser.tableView()->selectRow(2);
    QTRY_VERIFY(browser.detailView()->toPlainText().contains(u"order-0000597"_s));
    QTRY_COMPARE(browser.countLabel()->text(), u"600 dead letters"_s);
    QDir().mkpath(u"/tmp/eventdesk-shots"_s);
    QVERIFY(browser.grab().save(u"/tmp/eventdesk-shots/deadletters-browser.png"_s));
}

void TestDeadLetterBrowser::measureOpeningTwoHundredThousand()
{
    // A measurement, not a timed test: prints how long the first rows take to appear.
    QElapsedTimer filling;
    filling.start();
    startHost(200000);
    const qint64 fillMs = filling.elapsed();
    QElapsedTimer opening;
    opening.start();
    DeadLetterBrowser browser(m_host.get());
    browser.resize(1200, 600);
    browser.show();
    QTRY_VERIFY(browser.model()->rowCount() > 0);
    const qint64 firstRowsMs = opening.elapsed();
    QTRY_COMPARE(browser.countLabel()->text(), u"200,000 dead letters"_s);
    const qint64 countMs = opening.elapsed();
    browser.searchField()->setText(u"customer-199999\""_s);
    QElapsedTimer searching;
    searching.start();
    QTRY_VERIFY_WITH_TIMEOUT(browser.countLabel()->text().endsWith(u"1 match"_s), 60000);
    const qint64 searchMs = searching.elapsed();
    qInfo().noquote() << u"200,000 dead letters (store filled in %1 ms): first %2 rows visible "
                         "after %3 ms, total count after %4 ms, payload search count after %5 ms"_s
                             .arg(fillMs)
                             .arg(DeadLetterModel::PageSize)
                             .arg(firstRowsMs)
                             .arg(countMs)
                             .arg(searchMs);
}

QTEST_MAIN(TestDeadLetterBrowser)
#include "tst_deadletterbrowser.moc"
