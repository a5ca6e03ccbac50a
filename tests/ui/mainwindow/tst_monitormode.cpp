// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// One owner per workspace (docs/user-guide.md): the desktop app opening a workspace that another
// process owns. eventdesk_lock_holder holds the workspace's lock as another engine would, and this
// test writes the store as that engine's store would be written; the window is asked what to do
// through an injected handler, so no modal dialog blocks the test.

#include "LockHolder.h"
#include "dashboard/DashboardView.h"
#include "deadletters/DeadLetterBrowser.h"
#include "deadletters/DeadLetterModel.h"
#include "editor/SubscriptionEditor.h"
#include "log/DeliveryLogModel.h"
#include "log/DeliveryLogView.h"
#include "mainwindow/Banner.h"
#include "mainwindow/MainWindow.h"
#include "mainwindow/WorkspaceInUseDialog.h"
#include "mainwindow/WorkspaceTreeModel.h"
#include "store/sqlite/SqliteDeliveryStore.h"
#include "workspace/WorkspaceFolder.h"

#include <QAction>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPushButton>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QtTest>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using EventDesk::Testing::LockHolder;
using Action = EventDesk::Ui::WorkspaceInUseChoice::Action;

namespace {

constexpr int Timeout = 20'000;

quint16 freePort()
{
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    return probe.serverPort();
}

QJsonObject subscriptionJson(const QString &name, const QString &endpoint)
{
    return QJsonObject{
        {u"name"_s, name},
        {u"properties"_s,
         QJsonObject{{u"destination"_s,
                      QJsonObject{{u"endpointType"_s, u"WebHook"_s},
                                  {u"properties"_s, QJsonObject{{u"endpointUrl"_s, endpoint}}}}},
                     {u"x-eventdesk"_s, QJsonObject{{u"validation"_s, false}}},
                     {u"deadLetterDestination"_s,
                      QJsonObject{{u"endpointType"_s, u"StorageBlob"_s},
                                  {u"properties"_s, QJsonObject{{u"resourceId"_s, u"local"_s},
                                                                {u"blobContainerName"_s, u"deadletters"_s}}}}}}}};
}

// Topic "orders" with "ok-sub" (the built-in receiver "ok" on port) and "failing".
void writeWorkspace(const QString &directory, quint16 port)
{
    const QString base = u"http://127.0.0.1:%1/receivers/"_s.arg(port);
    const QJsonObject topic{{u"name"_s, u"orders"_s},
                            {u"inputSchema"_s, u"EventGridSchema"_s},
                            {u"eventSubscriptions"_s, QJsonArray{subscriptionJson(u"ok-sub"_s, base + u"ok"_s),
                                                                 subscriptionJson(u"failing"_s, base + u"broken"_s)}}};
    const QJsonObject root{{u"topics"_s, QJsonArray{topic}},
                           {u"receivers"_s, QJsonArray{QJsonObject{{u"name"_s, u"ok"_s}, {u"status"_s, 200}},
                                                       QJsonObject{{u"name"_s, u"broken"_s}, {u"status"_s, 400}}}},
                           {u"settings"_s, QJsonObject{{u"deadLetterDelaySeconds"_s, 0}}}};
    QVERIFY(QDir().mkpath(directory));
    QFile file(WorkspaceFolder::workspaceFile(directory));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QJsonDocument(root).toJson());
}

// The store of the workspace, written as its owner's engine writes it.
class OwnerStore
{
public:
    bool open(const QString &directory)
    {
        const auto opened = m_store.open(WorkspaceFolder::storeFile(directory));
        if (!opened)
            qWarning("%s", qPrintable(opened.error()));
        return opened.hasValue();
    }

    // Accepted events, pending for subscription, due now.
    bool publish(const QStringList &ids, const QString &subscription)
    {
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        QList<StoredEvent> events;
        QList<DeliveryRecord> deliveries;
        for (const QString &id : ids) {
            StoredEvent event;
            event.seq = m_nextSeq++;
            event.topic = u"orders"_s;
            event.id = id;
            event.eventType = u"Order.Created"_s;
            event.subject = u"/orders/1"_s;
            event.dataVersion = u"1.0"_s;
            event.eventTime = u"2026-01-01T00:00:00Z"_s;
            event.publishMs = now;
            event.body = QJsonDocument(QJsonObject{{u"id"_s, id},
                                                   {u"subject"_s, event.subject},
                                                   {u"eventType"_s, event.eventType},
                                                   {u"eventTime"_s, event.eventTime},
                                                   {u"dataVersion"_s, event.dataVersion},
                                                   {u"data"_s, QJsonObject{{u"amount"_s, 5}}}})
                             .toJson(QJsonDocument::Compact);
            events.append(event);
            DeliveryRecord delivery;
            delivery.id = m_nextDelivery++;
            delivery.eventSeq = event.seq;
            delivery.topic = u"orders"_s;
            delivery.subscription = subscription;
            delivery.dueMs = now;
            delivery.publishMs = now;
            deliveries.append(delivery);
        }
        return m_store.insertPublished(events, deliveries).hasValue();
    }

    bool logAttempt(const QString &subscription, const QString &eventId, DeliveryOutcome outcome,
                    int httpStatus)
    {
        StoreBatch batch;
        AttemptLogEntry attempt;
        attempt.timeMs = QDateTime::currentMSecsSinceEpoch();
        attempt.topic = u"orders"_s;
        attempt.subscription = subscription;
        attempt.eventIds = {eventId};
        attempt.attempt = 1;
        attempt.httpStatus = httpStatus;
        attempt.outcome = outcome;
        attempt.durationMs = 12;
        batch.attempts.append(attempt);
        return m_store.commit(batch).hasValue();
    }

    bool deadLetter(const QString &subscription, const QString &eventId)
    {
        StoreBatch batch;
        DeadLetterEntry entry;
        entry.topic = u"orders"_s;
        entry.subscription = subscription;
        entry.eventId = eventId;
        entry.reason = DeadLetterReason::UndeliverableDueToHttpBadRequest;
        entry.lastOutcome = DeliveryOutcome::BadRequest;
        entry.lastHttpStatus = 400;
        entry.attempts = 1;
        entry.publishMs = entry.lastAttemptMs = entry.deadLetteredMs = QDateTime::currentMSecsSinceEpoch();
        entry.blobPath = u"deadletters/FAILING/%1.json"_s.arg(eventId);
        entry.record = QJsonDocument(QJsonObject{{u"id"_s, eventId}, {u"deadLetterReason"_s, u"UndeliverableDueToHttpBadRequest"_s}})
                           .toJson(QJsonDocument::Compact);
        entry.eventType = u"Order.Created"_s;
        entry.eventBody = "{}";
        batch.deadLetters.append(entry);
        return m_store.commit(batch).hasValue();
    }

    void close() { m_store.close(); }

private:
    SqliteDeliveryStore m_store;
    qint64 m_nextSeq = 1;
    qint64 m_nextDelivery = 1;
};

QAction *findAction(QWidget &window, const QString &text)
{
    const auto actions = window.findChildren<QAction *>();
    for (QAction *action : actions) {
        if (action->text() == text)
            return action;
    }
    return nullptr;
}

qint64 backlogOf(Ui::MainWindow &window, const QString &subscription)
{
    return window.treeModel()
        ->subscriptionIndex(u"orders"_s, subscription)
        .siblingAtColumn(Ui::WorkspaceTreeModel::BacklogColumn)
        .data()
        .toLongLong();
}

qint64 pidInLockFile(const QString &directory)
{
    QFile file(WorkspaceFolder::lockFile(directory));
    if (!file.open(QIODevice::ReadOnly))
        return 0;
    return file.readLine().trimmed().toLongLong();
}

// A workspace owned by the lock holder, whose store holds 3 pending deliveries for ok-sub, two
// logged attempts and one dead letter of "failing"; and a window asked through a handler.
struct Fixture
{
    Fixture()
    {
        port = freePort();
        writeWorkspace(directory.path(), port);
        QVERIFY(store.open(directory.path()));
        QVERIFY(store.publish({u"pending-1"_s, u"pending-2"_s, u"pending-3"_s}, u"ok-sub"_s));
        QVERIFY(store.logAttempt(u"ok-sub"_s, u"pending-1"_s, DeliveryOutcome::Busy, 503));
        QVERIFY(store.logAttempt(u"failing"_s, u"doomed-1"_s, DeliveryOutcome::BadRequest, 400));
        QVERIFY(store.deadLetter(u"failing"_s, u"doomed-1"_s));
        QVERIFY2(holder.start(directory.path()), qPrintable(holder.errorText()));

        Ui::MainWindow::Options options;
        options.listen.port = port;
        options.jitter = false;
        window = std::make_unique<Ui::MainWindow>(options);
        window->setWorkspaceInUseHandler([this](const QString &asked, const WorkspaceOwner &owner) {
            ++questions;
            askedDirectory = asked;
            askedOwner = owner;
            return answer;
        });
        window->resize(1280, 800);
        window->show();
    }

    QTemporaryDir directory;
    quint16 port = 0;
    OwnerStore store;
    LockHolder holder;
    std::unique_ptr<Ui::MainWindow> window;
    Ui::WorkspaceInUseChoice answer;
    int questions = 0;
    QString askedDirectory;
    WorkspaceOwner askedOwner;
};

} // namespace

class tst_MonitorMode : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void monitorShowsTheOwnersDataReadOnly();
    void monitorFollowsWhatTheOwnerWrites();
    void pickAnotherWorkspaceOpensIt();
    void cancelLeavesTheOpenWorkspaceAlone();
    void takeOverAfterTheOwnerIsKilled();
    void dialogOffersTheThreeChoices();
    void screenshots();
};

void tst_MonitorMode::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    QVERIFY2(QFileInfo(LockHolder::executablePath()).isExecutable(),
             qPrintable(LockHolder::executablePath()));
}

void tst_MonitorMode::monitorShowsTheOwnersDataReadOnly()
{
    Fixture fixture;
    fixture.answer.action = Action::Monitor;
    Ui::MainWindow &window = *fixture.window;
    window.openWorkspace(fixture.directory.path());

    // Asked once, with the holder's details.
    QCOMPARE(fixture.questions, 1);
    QCOMPARE(fixture.askedDirectory, QDir(fixture.directory.path()).absolutePath());
    QCOMPARE(fixture.askedOwner.pid, fixture.holder.pid());
    QCOMPARE(fixture.askedOwner.application, LockHolder::applicationName());

    QTRY_VERIFY_WITH_TIMEOUT(window.isMonitoring(), Timeout);
    QVERIFY(!window.engineHost()->isRunning());
    QVERIFY(window.windowTitle().contains(u"Read-Only Monitor"_s));
    QVERIFY2(window.windowTitle().contains(u"%1 pid %2"_s.arg(LockHolder::applicationName()).arg(fixture.holder.pid())),
             qPrintable(window.windowTitle()));
    Ui::Banner *banner = window.monitorBanner();
    QVERIFY(banner->isVisible());
    QVERIFY2(banner->label()->text().contains(u"pid %1"_s.arg(fixture.holder.pid())), qPrintable(banner->label()->text()));
    QVERIFY(!banner->button(u"takeOver"_s)->isVisible());

    // Every command that changes the workspace or needs an engine is off; reading is not.
    QTRY_COMPARE_WITH_TIMEOUT(window.editor()->subscription().name, u"ok-sub"_s, Timeout);
    for (const QString &text :
         {u"New &Topic…"_s, u"New &Subscription"_s, u"&Rename…"_s, u"&Disable"_s, u"De&lete…"_s,
          u"Se&nd Test Event…"_s, u"&Validate Now"_s, u"Topic &Access Key…"_s,
          u"Cop&y SAS Token…"_s, u"&Import Subscriptions…"_s}) {
        QAction *action = findAction(window, text);
        QVERIFY2(action, qPrintable(text));
        QVERIFY2(!action->isEnabled(), qPrintable(text));
    }
    QVERIFY(findAction(window, u"&Export Subscriptions…"_s)->isEnabled());
    QVERIFY(findAction(window, u"Sho&w Dead Letters"_s)->isEnabled());
    QVERIFY(!window.editor()->isEnabled());
    QVERIFY(!window.tabs()->isTabEnabled(window.tabs()->count() - 1)); // Test Receivers

    // The data: the backlog in the tree, the delivery log's history, the dead letter.
    QTRY_COMPARE_WITH_TIMEOUT(backlogOf(window, u"ok-sub"_s), 3, Timeout);
    // The counts are the store's totals: what the owner accepted and dead-lettered before the
    // monitor opened.
    QTRY_COMPARE_WITH_TIMEOUT(window.treeModel()
                                  ->topicIndex(u"orders"_s)
                                  .siblingAtColumn(Ui::WorkspaceTreeModel::StateColumn)
                                  .data()
                                  .toString(),
                              u"3 published"_s, Timeout);
    QCOMPARE(window.treeModel()
                 ->subscriptionIndex(u"orders"_s, u"failing"_s)
                 .siblingAtColumn(Ui::WorkspaceTreeModel::DeadLetterColumn)
                 .data()
                 .toLongLong(),
             1);
    QTRY_COMPARE_WITH_TIMEOUT(window.deliveryLog()->logModel()->rowCount(), 2, Timeout);
    Ui::DeadLetterBrowser *browser = window.deadLetterBrowser();
    QVERIFY(browser->isReadOnly());
    QTRY_COMPARE_WITH_TIMEOUT(browser->model()->rowCount(), 1, Timeout);
    browser->tableView()->selectRow(0);
    for (const QString &text : {u"Resubmit"_s, u"Delete"_s, u"Resubmit All Matching…"_s, u"Delete All Matching…"_s}) {
        QAction *action = findAction(*browser, text);
        QVERIFY2(action, qPrintable(text));
        QVERIFY2(!action->isEnabled(), qPrintable(text));
    }
    QVERIFY(findAction(*browser, u"Copy"_s)->isEnabled());

    // Nothing was delivered from here, and the holder still owns the workspace.
    QCOMPARE(backlogOf(window, u"ok-sub"_s), 3);
    QCOMPARE(pidInLockFile(fixture.directory.path()), fixture.holder.pid());
}

void tst_MonitorMode::monitorFollowsWhatTheOwnerWrites()
{
    Fixture fixture;
    fixture.answer.action = Action::Monitor;
    Ui::MainWindow &window = *fixture.window;
    window.openWorkspace(fixture.directory.path());
    QTRY_VERIFY_WITH_TIMEOUT(window.isMonitoring(), Timeout);
    QTRY_COMPARE_WITH_TIMEOUT(window.deliveryLog()->logModel()->rowCount(), 2, Timeout);
    QTRY_COMPARE_WITH_TIMEOUT(backlogOf(window, u"ok-sub"_s), 3, Timeout);
    window.tabs()->setCurrentWidget(window.deadLetterBrowser());
    QTRY_COMPARE_WITH_TIMEOUT(window.deadLetterBrowser()->model()->rowCount(), 1, Timeout);

    // The owner goes on: two more events, an attempt, a dead letter.
    QVERIFY(fixture.store.publish({u"pending-4"_s, u"pending-5"_s}, u"ok-sub"_s));
    QVERIFY(fixture.store.logAttempt(u"failing"_s, u"doomed-2"_s, DeliveryOutcome::BadRequest, 400));
    QVERIFY(fixture.store.deadLetter(u"failing"_s, u"doomed-2"_s));

    QTRY_COMPARE_WITH_TIMEOUT(backlogOf(window, u"ok-sub"_s), 5, Timeout);
    QTRY_COMPARE_WITH_TIMEOUT(window.deliveryLog()->logModel()->rowCount(), 3, Timeout);
    const AttemptLogEntry newest = window.deliveryLog()->logModel()->entry(2);
    QCOMPARE(newest.eventIds, QStringList{u"doomed-2"_s});
    // New dead letters join the store's totals, and the browser on screen shows them.
    QTRY_COMPARE_WITH_TIMEOUT(window.treeModel()
                                  ->subscriptionIndex(u"orders"_s, u"failing"_s)
                                  .siblingAtColumn(Ui::WorkspaceTreeModel::DeadLetterColumn)
                                  .data()
                                  .toLongLong(),
                              2, Timeout);
    QTRY_COMPARE_WITH_TIMEOUT(window.treeModel()
                                  ->topicIndex(u"orders"_s)
                                  .siblingAtColumn(Ui::WorkspaceTreeModel::StateColumn)
                                  .data()
                                  .toString(),
                              u"5 published"_s, Timeout);
    window.tabs()->setCurrentWidget(window.dashboard());
    QTRY_COMPARE_WITH_TIMEOUT(window.dashboard()->headline(u"Backlog"_s), QLocale().toString(5), Timeout);
    window.tabs()->setCurrentWidget(window.deadLetterBrowser());
    QTRY_COMPARE_WITH_TIMEOUT(window.deadLetterBrowser()->model()->rowCount(), 2, Timeout);
}

void tst_MonitorMode::pickAnotherWorkspaceOpensIt()
{
    QTemporaryDir other; // outlives the window, whose engine runs there
    Fixture fixture;
    writeWorkspace(other.path(), fixture.port);
    fixture.answer.action = Action::OpenAnother;
    fixture.answer.otherDirectory = other.path();
    Ui::MainWindow &window = *fixture.window;
    window.openWorkspace(fixture.directory.path());

    QCOMPARE(fixture.questions, 1);
    QTRY_VERIFY_WITH_TIMEOUT(window.engineHost()->isRunning(), Timeout);
    QVERIFY(!window.isMonitoring());
    QCOMPARE(window.workspaceDirectory(), QDir(other.path()).absolutePath());
    QCOMPARE(window.engineHost()->config().workspaceDirectory, QDir(other.path()).absolutePath());
    QCOMPARE(pidInLockFile(other.path()), QCoreApplication::applicationPid());
    QVERIFY(!window.monitorBanner()->isVisible());
    QVERIFY(!window.windowTitle().contains(u"Monitor"_s));
    QVERIFY(findAction(window, u"New &Subscription"_s)->isEnabled());
    // The busy workspace is the holder's still.
    QCOMPARE(pidInLockFile(fixture.directory.path()), fixture.holder.pid());
}

void tst_MonitorMode::cancelLeavesTheOpenWorkspaceAlone()
{
    QTemporaryDir mine; // outlives the window, whose engine runs there
    Fixture fixture;
    writeWorkspace(mine.path(), fixture.port);
    Ui::MainWindow &window = *fixture.window;
    window.openWorkspace(mine.path());
    QTRY_VERIFY_WITH_TIMEOUT(window.engineHost()->isRunning(), Timeout);
    QCOMPARE(fixture.questions, 0);

    fixture.answer.action = Action::Cancel;
    window.openWorkspace(fixture.directory.path());
    QCOMPARE(fixture.questions, 1);
    QVERIFY(window.engineHost()->isRunning());
    QVERIFY(!window.isMonitoring());
    QCOMPARE(window.workspaceDirectory(), QDir(mine.path()).absolutePath());
    QCOMPARE(pidInLockFile(mine.path()), QCoreApplication::applicationPid());
    QCOMPARE(pidInLockFile(fixture.directory.path()), fixture.holder.pid());

    // With nothing open, Cancel leaves the window empty.
    Ui::MainWindow::Options options;
    options.listen.port = freePort();
    Ui::MainWindow empty(options);
    int asked = 0;
    empty.setWorkspaceInUseHandler([&asked](const QString &, const WorkspaceOwner &) {
        ++asked;
        return Ui::WorkspaceInUseChoice{};
    });
    empty.openWorkspace(fixture.directory.path());
    QCOMPARE(asked, 1);
    QVERIFY(!empty.engineHost()->isRunning());
    QVERIFY(!empty.isMonitoring());
    QCOMPARE(empty.treeModel()->rowCount(), 0);
}

void tst_MonitorMode::takeOverAfterTheOwnerIsKilled()
{
    Fixture fixture;
    fixture.answer.action = Action::Monitor;
    Ui::MainWindow &window = *fixture.window;
    window.openWorkspace(fixture.directory.path());
    QTRY_VERIFY_WITH_TIMEOUT(window.isMonitoring(), Timeout);
    QTRY_COMPARE_WITH_TIMEOUT(backlogOf(window, u"ok-sub"_s), 3, Timeout);
    fixture.store.close();

    fixture.holder.kill();
    QPushButton *takeOver = window.monitorBanner()->button(u"takeOver"_s);
    QTRY_VERIFY_WITH_TIMEOUT(takeOver->isVisible(), Timeout);
    QVERIFY(window.windowTitle().contains(u"owner stopped"_s));
    QVERIFY2(window.monitorBanner()->label()->text().contains(u"has stopped"_s),
             qPrintable(window.monitorBanner()->label()->text()));

    QTest::mouseClick(takeOver, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(window.engineHost()->isRunning(), Timeout);
    QVERIFY(!window.isMonitoring());
    QVERIFY(!window.monitorBanner()->isVisible());
    QCOMPARE(pidInLockFile(fixture.directory.path()), QCoreApplication::applicationPid());
    // This window's engine delivers what the dead owner left pending.
    QTRY_COMPARE_WITH_TIMEOUT(backlogOf(window, u"ok-sub"_s), 0, Timeout);
    QVERIFY(findAction(window, u"Se&nd Test Event…"_s)->isEnabled());
}

void tst_MonitorMode::dialogOffersTheThreeChoices()
{
    WorkspaceOwner owner;
    owner.pid = 4242;
    owner.application = u"eventdeskd"_s;
    owner.hostName = u"build-7"_s;
    owner.since = QDateTime::currentDateTime();
    QVERIFY2(Ui::WorkspaceInUseDialog::ownerText(owner).startsWith(u"eventdeskd (pid 4242 on build-7, since "_s),
             qPrintable(Ui::WorkspaceInUseDialog::ownerText(owner)));
    Ui::WorkspaceInUseDialog dialog(u"/srv/workspaces/orders"_s, owner);
    QVERIFY2(dialog.text().contains(u"“orders”"_s), qPrintable(dialog.text()));
    QVERIFY2(dialog.text().contains(u"eventdeskd"_s), qPrintable(dialog.text()));
    QVERIFY2(dialog.text().contains(u"pid 4242 on build-7"_s), qPrintable(dialog.text()));
    QVERIFY(!dialog.text().contains(u"eventdesk.lock"_s));
    QVERIFY(dialog.monitorButton()->isDefault());
    QCOMPARE(dialog.chosenAction(), Action::Cancel);

    QTimer::singleShot(0, &dialog, [&dialog] { dialog.openAnotherButton()->click(); });
    QCOMPARE(dialog.exec(), int(QDialog::Accepted));
    QCOMPARE(dialog.chosenAction(), Action::OpenAnother);
    QTimer::singleShot(0, &dialog, [&dialog] { dialog.monitorButton()->click(); });
    QCOMPARE(dialog.exec(), int(QDialog::Accepted));
    QCOMPARE(dialog.chosenAction(), Action::Monitor);
    QTimer::singleShot(0, &dialog, [&dialog] { dialog.reject(); });
    QCOMPARE(dialog.exec(), int(QDialog::Rejected));
    QCOMPARE(dialog.chosenAction(), Action::Cancel);

    // An owner on another host cannot be checked: the dialog says how to free the workspace.
    owner.onThisHost = false;
    Ui::WorkspaceInUseDialog remote(u"/srv/workspaces/orders"_s, owner);
    QVERIFY2(remote.text().contains(QDir::toNativeSeparators(u"/srv/workspaces/orders/eventdesk.lock"_s)),
             qPrintable(remote.text()));
}

// EVENTDESK_SCREENSHOT_DIR=DIR: saves the dialog and the monitor mode's window as PNGs there.
void tst_MonitorMode::screenshots()
{
    const QString target = qEnvironmentVariable("EVENTDESK_SCREENSHOT_DIR");
    if (target.isEmpty())
        QSKIP("EVENTDESK_SCREENSHOT_DIR is not set");
    QVERIFY(QDir().mkpath(target));
    Fixture fixture;
    fixture.answer.action = Action::Monitor;
    Ui::MainWindow &window = *fixture.window;

    {
        Ui::WorkspaceInUseDialog dialog(fixture.directory.path(),
                                        *WorkspaceLock::currentOwner(fixture.directory.path()), &window);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QVERIFY(dialog.grab().save(QDir(target).filePath(u"workspace-in-use-dialog.png"_s)));
    }

    window.openWorkspace(fixture.directory.path());
    QTRY_VERIFY_WITH_TIMEOUT(window.isMonitoring(), Timeout);
    QTRY_COMPARE_WITH_TIMEOUT(window.deliveryLog()->logModel()->rowCount(), 2, Timeout);
    // A few seconds of the owner at work, one step per snapshot, so the charts have lines.
    for (int step = 0; step < 8; ++step) {
        const int points = window.dashboard()->pointCount();
        const QString id = u"busy-%1"_s.arg(step);
        QVERIFY(fixture.store.logAttempt(u"ok-sub"_s, id, step % 3 == 2 ? DeliveryOutcome::Delivered : DeliveryOutcome::Busy,
                                         step % 3 == 2 ? 200 : 503));
        if (step % 4 == 1)
            QVERIFY(fixture.store.publish({id}, u"ok-sub"_s));
        QTRY_VERIFY_WITH_TIMEOUT(window.dashboard()->pointCount() > points, Timeout);
    }
    window.dashboard()->refresh();
    QVERIFY(window.grab().save(QDir(target).filePath(u"monitor-dashboard.png"_s)));
    window.tabs()->setCurrentWidget(window.deliveryLog());
    QVERIFY(window.grab().save(QDir(target).filePath(u"monitor-delivery-log.png"_s)));
    window.tabs()->setCurrentWidget(window.deadLetterBrowser());
    QTRY_COMPARE_WITH_TIMEOUT(window.deadLetterBrowser()->model()->rowCount(), 1, Timeout);
    QVERIFY(window.grab().save(QDir(target).filePath(u"monitor-dead-letters.png"_s)));
    window.tabs()->setCurrentWidget(window.editor());
    QVERIFY(window.grab().save(QDir(target).filePath(u"monitor-editor.png"_s)));

    fixture.holder.kill();
    QTRY_VERIFY_WITH_TIMEOUT(window.monitorBanner()->button(u"takeOver"_s)->isVisible(), Timeout);
    window.tabs()->setCurrentWidget(window.dashboard());
    QVERIFY(window.grab().save(QDir(target).filePath(u"monitor-owner-stopped.png"_s)));
}

QTEST_MAIN(tst_MonitorMode)
#include "tst_monitormode.moc"
