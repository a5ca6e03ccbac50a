// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// A workspace with history, opened in the app: eventdeskd (600 times faster than the wall clock)
// delivered twelve events to one webhook and dead-lettered them at another that answers 400, then
// stopped. The window shows the workspace's totals — twelve published, delivered, failed and dead
// letters — in the tree, the status bar and the dashboard, whether the store is the workspace's
// SQLite file or a PostgreSQL store the instances share.

#include "DaemonProcess.h"
#include "ScriptedReceiver.h"
#include "common/FilterBar.h"
#include "dashboard/DashboardView.h"
#include "dashboard/ProbationTimeline.h"
#include "deadletters/DeadLetterBrowser.h"
#include "deadletters/DeadLetterModel.h"
#include "log/DeliveryLogModel.h"
#include "log/DeliveryLogView.h"
#include "host/EngineHost.h"
#include "host/StoreOpener.h"
#include "mainwindow/MainWindow.h"
#include "mainwindow/OpenSharedWorkspaceDialog.h"
#include "mainwindow/WorkspaceTreeModel.h"
#include "secrets/SecretCache.h"
#include "workspace/WorkspaceFolder.h"
#if EVENTDESK_WITH_POSTGRESQL
#include "PostgresServer.h"
#endif

#include <QCheckBox>
#include <QDateTimeEdit>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLocale>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using namespace EventDesk::Testing;

namespace {

constexpr int Timeout = 30'000;
constexpr int Events = 12;

QJsonObject subscriptionJson(const QString &name, const QUrl &endpoint)
{
    return QJsonObject{
        {u"name"_s, name},
        {u"properties"_s,
         QJsonObject{{u"destination"_s,
                      QJsonObject{{u"endpointType"_s, u"WebHook"_s},
                                  {u"properties"_s, QJsonObject{{u"endpointUrl"_s, endpoint.toString()}}}}},
                     {u"x-eventdesk"_s, QJsonObject{{u"validation"_s, false}}},
                     {u"deadLetterDestination"_s,
                      QJsonObject{{u"endpointType"_s, u"StorageBlob"_s},
                                  {u"properties"_s, QJsonObject{{u"resourceId"_s, u"local"_s},
                                                                {u"blobContainerName"_s, u"deadletters"_s}}}}}}}};
}

QByteArray events()
{
    QJsonArray array;
    for (int i = 0; i < Events; ++i) {
        array.append(QJsonObject{{u"id"_s, u"order-%1"_s.arg(i)},
                                 {u"subject"_s, u"/orders/%1"_s.arg(i)},
                                 {u"eventType"_s, u"Order.Created"_s},
                                 {u"eventTime"_s, u"2026-11-29T08:00:00Z"_s},
                                 {u"dataVersion"_s, u"1.0"_s},
                                 {u"data"_s, QJsonObject{{u"amount"_s, i}}}});
    }
    return QJsonDocument(array).toJson(QJsonDocument::Compact);
}

QString statusTexts(Ui::MainWindow &window)
{
    QStringList texts;
    for (QLabel *label : window.statusBar()->findChildren<QLabel *>())
        texts << label->text();
    return texts.join(u" | "_s);
}

qint64 treeColumn(Ui::MainWindow &window, const QString &subscription, int column)
{
    return window.treeModel()
        ->subscriptionIndex(u"orders"_s, subscription)
        .siblingAtColumn(column)
        .data()
        .toLongLong();
}

} // namespace

class WorkspaceHistoryTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void sqliteWorkspaceShowsItsTotals();
    void sharedStoreShowsItsTotals();
    void timeFiltersOfAFastWorkspace();

private:
    // Runs eventdeskd on the workspace until every event reached its fate, then stops it.
    // idleMs: how long the daemon runs before the publish (at 600x, a second is ten minutes of
    // engine time ahead of the wall clock).
    void fillWorkspace(const QStringList &extraArguments, const QString &storeLocation, int idleMs = 0);
    // A window on screen, with a secret store of its own, listening on any free port.
    static std::unique_ptr<Ui::MainWindow> newWindow();
    // The window's views against the totals the daemon left.
    void checkWindow(Ui::MainWindow &window);

    std::unique_ptr<QTemporaryDir> m_workspace;
    std::unique_ptr<ScriptedReceiver> m_receiver;
#if EVENTDESK_WITH_POSTGRESQL
    std::unique_ptr<PostgresServer> m_server;
#endif
};

void WorkspaceHistoryTest::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
}

void WorkspaceHistoryTest::init()
{
    m_workspace = std::make_unique<QTemporaryDir>();
    QVERIFY(m_workspace->isValid());
    m_receiver = std::make_unique<ScriptedReceiver>();
    m_receiver->setResponder([](const Testing::ReceivedRequest &request) {
        return request.path.startsWith("/broken") ? ReceiverAction::respond(400)
                                                  : ReceiverAction::respond(200);
    });
    QVERIFY(m_receiver->listen());
    const QJsonObject topic{{u"name"_s, u"orders"_s},
                            {u"inputSchema"_s, u"EventGridSchema"_s},
                            {u"eventSubscriptions"_s,
                             QJsonArray{subscriptionJson(u"ok-sub"_s, m_receiver->url(u"/ok"_s)),
                                        subscriptionJson(u"failing"_s, m_receiver->url(u"/broken"_s))}}};
    const QJsonObject root{{u"topics"_s, QJsonArray{topic}},
                           {u"settings"_s, QJsonObject{{u"deadLetterDelaySeconds"_s, 0}}}};
    QFile file(m_workspace->filePath(u"workspace.json"_s));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QJsonDocument(root).toJson());
}

void WorkspaceHistoryTest::cleanup()
{
    m_receiver.reset();
    m_workspace.reset();
}

void WorkspaceHistoryTest::fillWorkspace(const QStringList &extraArguments,
                                         const QString &storeLocation, int idleMs)
{
    DaemonProcess daemon(m_workspace->path());
    daemon.setTimeScale(600);
    daemon.setExtraArguments(extraArguments);
    QVERIFY2(daemon.start(), qPrintable(daemon.standardError()));
    if (idleMs > 0)
        QTest::qWait(idleMs);
    const HttpResult published = daemon.publish(u"orders"_s, events());
    QCOMPARE(published.status, 200);
    // Every event delivered to ok-sub and dead-lettered at failing.
    auto reader = openDeliveryStoreReader(storeLocation);
    QVERIFY2(reader, qPrintable(reader.error()));
    const auto finished = [&] {
        const auto totals = reader.value()->totals();
        if (!totals)
            return false;
        return totals->subscription(u"orders"_s, u"ok-sub"_s).delivered == quint64(Events)
            && totals->subscription(u"orders"_s, u"failing"_s).deadLettered() == quint64(Events);
    };
    QTRY_VERIFY_WITH_TIMEOUT(finished(), Timeout);
    QVERIFY2(daemon.terminate(), qPrintable(daemon.standardError()));
}

std::unique_ptr<Ui::MainWindow> WorkspaceHistoryTest::newWindow()
{
    Ui::MainWindow::Options options;
    options.listen.port = 0;
    auto window = std::make_unique<Ui::MainWindow>(options);
    window->useSecretStore(std::make_unique<MemorySecretStore>(MemorySecretStore::Usage::ThisRunOnly));
    window->resize(1360, 760);
    window->show();
    return window;
}

void WorkspaceHistoryTest::checkWindow(Ui::MainWindow &window)
{
    // The tree: the topic's publishes, each subscription's dead letters.
    QTRY_COMPARE_WITH_TIMEOUT(window.treeModel()
                                  ->topicIndex(u"orders"_s)
                                  .siblingAtColumn(Ui::WorkspaceTreeModel::StateColumn)
                                  .data()
                                  .toString(),
                              u"%1 published"_s.arg(Events), Timeout);
    QCOMPARE(treeColumn(window, u"failing"_s, Ui::WorkspaceTreeModel::DeadLetterColumn), Events);
    QCOMPARE(treeColumn(window, u"ok-sub"_s, Ui::WorkspaceTreeModel::DeadLetterColumn), 0);
    const QString tip = window.treeModel()
                            ->subscriptionIndex(u"orders"_s, u"ok-sub"_s)
                            .data(Qt::ToolTipRole)
                            .toString();
    QVERIFY2(tip.contains(u"Matched %1, delivered %1"_s.arg(Events)), qPrintable(tip));

    // The status bar.
    const QString expected = u"Published %1 · Delivered %1 · Failed attempts %1 · Dead-lettered %1 · "
                             "Dropped 0"_s.arg(Events);
    QTRY_VERIFY2_WITH_TIMEOUT(statusTexts(window).contains(expected), qPrintable(statusTexts(window)),
                              Timeout);

    // The dashboard's headline, for the workspace and for one subscription.
    window.tabs()->setCurrentWidget(window.dashboard());
    Ui::DashboardView *dashboard = window.dashboard();
    dashboard->setSelection(QString(), QString()); // every subscription
    QTRY_COMPARE_WITH_TIMEOUT(dashboard->headline(u"Dead-lettered"_s), QLocale().toString(Events), Timeout);
    QCOMPARE(dashboard->headline(u"Delivered"_s), QLocale().toString(Events));
    QCOMPARE(dashboard->headline(u"Failed"_s), QLocale().toString(Events));
    dashboard->setSelection(u"orders"_s, u"failing"_s);
    QCOMPARE(dashboard->headline(u"Delivered"_s), QLocale().toString(0));
    QCOMPARE(dashboard->headline(u"Dead-lettered"_s), QLocale().toString(Events));
}

void WorkspaceHistoryTest::sqliteWorkspaceShowsItsTotals()
{
    fillWorkspace({}, WorkspaceFolder::storeFile(m_workspace->path()));
    if (QTest::currentTestFailed())
        return;

    const std::unique_ptr<Ui::MainWindow> window = newWindow();
    window->openWorkspace(m_workspace->path());
    QTRY_VERIFY_WITH_TIMEOUT(window->engineHost()->isRunning(), Timeout);
    checkWindow(*window);
}

void WorkspaceHistoryTest::sharedStoreShowsItsTotals()
{
#if EVENTDESK_WITH_POSTGRESQL
    m_server = std::make_unique<PostgresServer>();
    QVERIFY2(m_server->isRunning(), qPrintable(m_server->errorText()));
    const QString url = m_server->createDatabase(u"history"_s);
    QVERIFY2(!url.isEmpty(), qPrintable(m_server->errorText()));
    fillWorkspace({u"--store"_s, url}, url);
    if (QTest::currentTestFailed())
        return;

    const std::unique_ptr<Ui::MainWindow> window = newWindow();
    const auto location = Ui::SharedWorkspaceLocation::fromUrl(url, QString());
    QVERIFY2(location, qPrintable(location.error()));
    window->openSharedWorkspace(location.value());
    QTRY_VERIFY_WITH_TIMEOUT(window->engineHost()->isMonitoringSharedStore(), Timeout);
    checkWindow(*window);
#else
    QSKIP("This build has no PostgreSQL store.");
#endif
}

// The dead letters of a run at 600x lie ahead of the wall clock. Opened afterwards at the wall
// clock's pace, the views say their times are an engine's that ran faster; ticking To keeps every
// dead letter in; a range that hides them all says so, and Show All brings them back.
void WorkspaceHistoryTest::timeFiltersOfAFastWorkspace()
{
    fillWorkspace({}, WorkspaceFolder::storeFile(m_workspace->path()), 1500);
    if (QTest::currentTestFailed())
        return;

    const std::unique_ptr<Ui::MainWindow> opened = newWindow();
    Ui::MainWindow &window = *opened;
    window.openWorkspace(m_workspace->path());
    QTRY_VERIFY_WITH_TIMEOUT(window.engineHost()->isRunning(), Timeout);
    Ui::DeadLetterBrowser *browser = window.deadLetterBrowser();
    window.tabs()->setCurrentWidget(browser);
    QTRY_COMPARE_WITH_TIMEOUT(browser->model()->rowCount(), Events, Timeout);

    // The app's engine keeps the wall clock's time; the run before it went 600 times faster.
    Ui::FilterBar *filter = browser->filterBar();
    QTRY_COMPARE_WITH_TIMEOUT(filter->timeNoteLabel()->text(), u"Engine time: some runs went ×600"_s,
                              Timeout);
    QVERIFY(filter->timeNoteLabel()->isVisibleTo(browser));
    QCOMPARE(window.deliveryLog()->logModel()->headerData(0, Qt::Horizontal).toString(),
             u"Time (Engine time: some runs went ×600)"_s);
    QCOMPARE(window.dashboard()->probationTimeline()->timeNoteLabel()->text(),
             u"Engine time: some runs went ×600"_s);

    // The dead letters were written ahead of this clock, and To offers their newest minute.
    const TimeRange times = browser->deadLetterTimes();
    QVERIFY(times.newestMs >= times.oldestMs && times.oldestMs > 0);
    QVERIFY2(times.newestMs > QDateTime::currentMSecsSinceEpoch() + 60'000,
             qPrintable(QDateTime::fromMSecsSinceEpoch(times.newestMs).toString(Qt::ISODate)));
    filter->toCheck()->setChecked(true);
    filter->applyNow();
    QTRY_COMPARE_WITH_TIMEOUT(browser->model()->filter().toMs != 0, true, Timeout);
    QTRY_COMPARE_WITH_TIMEOUT(browser->model()->rowCount(), Events, Timeout);

    // A range before all of them: none left, and the browser says where they are.
    filter->toEdit()->setDateTime(QDateTime::fromMSecsSinceEpoch(times.oldestMs).addSecs(-3600));
    filter->applyNow();
    QTRY_COMPARE_WITH_TIMEOUT(browser->model()->rowCount(), 0, Timeout);
    QTRY_VERIFY_WITH_TIMEOUT(browser->statusLabel()->text().contains(u"No dead letter in this time range"_s),
                             Timeout);
    QVERIFY2(browser->statusLabel()->text().contains(u"show-all"_s), qPrintable(browser->statusLabel()->text()));
    QVERIFY(browser->statusLabel()->textInteractionFlags().testFlag(Qt::LinksAccessibleByMouse));
    QVERIFY(browser->statusLabel()->textInteractionFlags().testFlag(Qt::LinksAccessibleByKeyboard));
    Q_EMIT browser->statusLabel()->linkActivated(u"show-all"_s);
    QVERIFY(!filter->toCheck()->isChecked());
    QTRY_COMPARE_WITH_TIMEOUT(browser->model()->rowCount(), Events, Timeout);
    QTRY_VERIFY_WITH_TIMEOUT(!browser->statusLabel()->isVisible(), Timeout);
}

QTEST_MAIN(WorkspaceHistoryTest)
#include "tst_workspacehistory.moc"
