// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// The desktop app on a shared workspace (File ▸ Open Shared Workspace…): a PostgreSQL store that
// eventdeskd instances share, written here by two PostgresDeliveryStore instances as their engines
// would. The health classes of the instances, the instance column of the delivery log, the open
// dialog's checks, the window on the store (dashboard, delivery log, instances, title, status bar)
// and that a password reaches neither the settings nor anything on screen. Against a real server
// of this executable. With EVENTDESK_SCREENSHOT_DIR set, the window's views and the dialog are
// saved there as PNG files.

#include "PostgresServer.h"
#include "SecretScan.h"
#include "SharedStoreFixtures.h"
#include "dashboard/DashboardView.h"
#include "dashboard/InstancesView.h"
#include "deadletters/DeadLetterBrowser.h"
#include "deadletters/DeadLetterModel.h"
#include "editor/SubscriptionEditor.h"
#include "log/DeliveryLogModel.h"
#include "log/DeliveryLogView.h"
#include "mainwindow/MainStatusBar.h"
#include "mainwindow/MainWindow.h"
#include "mainwindow/OpenSharedWorkspaceDialog.h"
#include "mainwindow/SharedWorkspaceMode.h"
#include "mainwindow/WorkspaceTreeModel.h"
#include "secrets/SecretStore.h"
#include "store/postgres/PostgresDeliveryStore.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using namespace EventDesk::Ui;
using EventDesk::Testing::ordersTopics;
using EventDesk::Testing::PostgresServer;
using EventDesk::Testing::unreachableWebhook;

namespace {

constexpr char Password[] = "Opal-Sesame-9931";

InstanceStatus instance(qint64 id, qint64 leaseMs, qint64 heartbeatAgeMs)
{
    InstanceStatus status;
    status.id = id;
    status.hostName = u"host-%1"_s.arg(id);
    status.processId = 1000 + id;
    status.leaseMs = leaseMs;
    status.heartbeatAgeMs = heartbeatAgeMs;
    status.startedMs = 1'764'230'400'000;
    return status;
}

// Published at 2025-11-27 08:00 UTC, due a minute later.
constexpr EventDesk::Testing::OrdersRows Rows {1'764'230'400'000, 1'764'230'460'000};

AttemptLogEntry attempt(qint64 seq, const QString &subscription, DeliveryOutcome outcome,
                        int status)
{
    AttemptLogEntry entry;
    entry.timeMs = 1'764'230'400'000 + seq * 1000;
    entry.topic = u"orders"_s;
    entry.subscription = subscription;
    entry.eventIds = {u"order-%1"_s.arg(seq)};
    entry.attempt = 1;
    entry.httpStatus = status;
    entry.outcome = outcome;
    entry.durationMs = 40 + seq;
    entry.nextDueMs = outcome == DeliveryOutcome::Delivered ? 0 : entry.timeMs + 10000;
    return entry;
}

// Every text the window shows: labels, window titles, actions and menus, tab texts, and the
// cells of its tables.
QStringList visibleTexts(QWidget *window)
{
    QStringList texts {window->windowTitle()};
    const QList<QWidget *> widgets = window->findChildren<QWidget *>();
    for (QWidget *widget : widgets) {
        texts << widget->windowTitle() << widget->toolTip();
        if (auto *label = qobject_cast<QLabel *>(widget))
            texts << label->text();
        if (auto *edit = qobject_cast<QLineEdit *>(widget)) {
            if (edit->echoMode() == QLineEdit::Normal)
                texts << edit->text();
        }
        if (auto *tabs = qobject_cast<QTabWidget *>(widget)) {
            for (int i = 0; i < tabs->count(); ++i)
                texts << tabs->tabText(i) << tabs->tabToolTip(i);
        }
        if (auto *table = qobject_cast<QTableView *>(widget); table && table->model()) {
            const QAbstractItemModel *model = table->model();
            for (int row = 0; row < model->rowCount(); ++row) {
                for (int column = 0; column < model->columnCount(); ++column)
                    texts << model->index(row, column).data().toString()
                          << model->index(row, column).data(Qt::ToolTipRole).toString();
            }
        }
    }
    for (QAction *action : window->findChildren<QAction *>())
        texts << action->text() << action->toolTip();
    return texts;
}

QAction *actionNamed(QWidget *window, const QString &text)
{
    for (QAction *action : window->findChildren<QAction *>()) {
        if (action->text() == text)
            return action;
    }
    return nullptr;
}

void saveScreenshot(QWidget *widget, const QString &name)
{
    const QString directory = qEnvironmentVariable("EVENTDESK_SCREENSHOT_DIR");
    if (directory.isEmpty())
        return;
    QDir().mkpath(directory);
    QVERIFY(widget->grab().save(QDir(directory).filePath(name)));
}

} // namespace

class SharedWorkspaceTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void instanceHealth_data();
    void instanceHealth();
    void instancesModel();
    void instanceColumn();
    void locationFromFields_data();
    void locationFromFields();
    void locationFromUrl();
    void dialogChecksBeforeOpening();
    void windowOnASharedStore();
    void editsTheSharedConfiguration();

private:
    std::unique_ptr<PostgresServer> m_server;
    QTemporaryDir m_home;
};

void SharedWorkspaceTest::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_home.isValid());
    // The settings of this test live in a folder of its own, where the password is looked for.
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_home.path());
    m_server = std::make_unique<PostgresServer>();
    QVERIFY2(m_server->isRunning(), qPrintable(m_server->errorText()));
}

void SharedWorkspaceTest::init()
{
    QSettings().clear();
}

void SharedWorkspaceTest::instanceHealth_data()
{
    QTest::addColumn<qint64>("leaseMs");
    QTest::addColumn<qint64>("heartbeatAgeMs");
    QTest::addColumn<InstanceHealth>("health");
    // Heartbeats every tenth of the lease: live up to three tenths, late up to the lease, dead
    // beyond it (when the store lets the others take over).
    QTest::newRow("just renewed") << 10000LL << 0LL << InstanceHealth::Live;
    QTest::newRow("one interval") << 10000LL << 1000LL << InstanceHealth::Live;
    QTest::newRow("three intervals") << 10000LL << 3000LL << InstanceHealth::Live;
    QTest::newRow("past three intervals") << 10000LL << 3001LL << InstanceHealth::Late;
    QTest::newRow("at its lease") << 10000LL << 10000LL << InstanceHealth::Late;
    QTest::newRow("past its lease") << 10000LL << 10001LL << InstanceHealth::Dead;
    QTest::newRow("short lease, late") << 1000LL << 400LL << InstanceHealth::Late;
    QTest::newRow("long lease, live") << 600000LL << 150000LL << InstanceHealth::Live;
}

void SharedWorkspaceTest::instanceHealth()
{
    QFETCH(qint64, leaseMs);
    QFETCH(qint64, heartbeatAgeMs);
    QFETCH(InstanceHealth, health);
    QCOMPARE(Ui::instanceHealth(instance(1, leaseMs, heartbeatAgeMs)), health);
}

void SharedWorkspaceTest::instancesModel()
{
    InstancesView view;
    QAbstractItemModelTester tester(view.model(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(view.summary().contains(u"No instance"_s));
    view.setInstances(
        {instance(1, 10000, 200), instance(2, 10000, 5000), instance(3, 10000, 60000)});
    QCOMPARE(view.model()->rowCount(), 3);
    QCOMPARE(view.model()->count(InstanceHealth::Live), 1);
    QCOMPARE(view.model()->count(InstanceHealth::Late), 1);
    QCOMPARE(view.model()->count(InstanceHealth::Dead), 1);
    const QAbstractItemModel *model = view.model();
    QCOMPARE(model->index(1, InstancesModel::HostColumn).data().toString(), u"host-2"_s);
    QCOMPARE(model->index(1, InstancesModel::HealthColumn).data().toString(), u"Late"_s);
    QCOMPARE(model->index(2, InstancesModel::HealthColumn).data().toString(), u"Dead"_s);
    QCOMPARE(model->index(0, InstancesModel::HeartbeatColumn).data().toString(), u"200 ms ago"_s);
    QVERIFY(view.summary().startsWith(u"3 instance(s): 1 live, 1 late, 1 dead."_s));
    // The next poll: same instances, one now dead; then one gone.
    view.setInstances(
        {instance(1, 10000, 200), instance(2, 10000, 11000), instance(3, 10000, 61000)});
    QCOMPARE(view.model()->count(InstanceHealth::Dead), 2);
    view.setInstances({instance(1, 10000, 300)});
    QCOMPARE(view.model()->rowCount(), 1);
}

void SharedWorkspaceTest::instanceColumn()
{
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    DeliveryLogView view;
    view.setStoreLocation(directory.filePath(u"eventdesk.db"_s));
    QVERIFY(!view.showsInstances()); // a store of one engine records no instance
    view.setStoreLocation(m_server->url());
    QVERIFY(view.showsInstances());

    auto *table = view.findChild<QTableView *>();
    QVERIFY(table);
    const QAbstractItemModel *model = table->model();
    AttemptLogEntry entry = attempt(1, u"billing"_s, DeliveryOutcome::Delivered, 200);
    entry.instance = 7;
    view.appendAttempts({entry});
    QTRY_COMPARE(model->rowCount(), 1);
    QCOMPARE(model->index(0, DeliveryLogModel::InstanceColumn).data().toString(), u"7"_s);
    view.setInstances({instance(7, 10000, 100)});
    QCOMPARE(model->index(0, DeliveryLogModel::InstanceColumn).data().toString(), u"7 · host-7"_s);
    QCOMPARE(model->headerData(DeliveryLogModel::InstanceColumn, Qt::Horizontal).toString(),
             u"Instance"_s);
}

void SharedWorkspaceTest::locationFromFields_data()
{
    QTest::addColumn<QString>("host");
    QTest::addColumn<QString>("port");
    QTest::addColumn<QString>("database");
    QTest::addColumn<QString>("user");
    QTest::addColumn<QString>("expected"); // the URL, or the start of the error
    QTest::newRow("all") << u"db.internal"_s << u"6543"_s << u"events"_s << u"ops"_s
                         << u"postgresql://ops@db.internal:6543/events"_s;
    QTest::newRow("default port") << u"10.0.0.5"_s << QString() << u"events"_s << u"ops"_s
                                  << u"postgresql://ops@10.0.0.5:5432/events"_s;
    QTest::newRow("no host") << u" "_s << u"5432"_s << u"events"_s << u"ops"_s << u"Host: "_s;
    QTest::newRow("host with slash") << u"db/x"_s << u"5432"_s << u"events"_s << u"ops"_s
                                     << u"Host: must be a name or an IP address"_s;
    QTest::newRow("port 0") << u"db"_s << u"0"_s << u"events"_s << u"ops"_s
                            << u"Port: must be a number from 1 to 65535 (got '0')"_s;
    QTest::newRow("port too big") << u"db"_s << u"65536"_s << u"events"_s << u"ops"_s
                                  << u"Port: must be a number from 1 to 65535 (got '65536')"_s;
    QTest::newRow("port text") << u"db"_s << u"pg"_s << u"events"_s << u"ops"_s
                               << u"Port: must be a number from 1 to 65535 (got 'pg')"_s;
    QTest::newRow("no database") << u"db"_s << u"5432"_s << QString() << u"ops"_s
                                 << u"Database: "_s;
    QTest::newRow("no user") << u"db"_s << u"5432"_s << u"events"_s << QString() << u"User: "_s;
}

void SharedWorkspaceTest::locationFromFields()
{
    QFETCH(QString, host);
    QFETCH(QString, port);
    QFETCH(QString, database);
    QFETCH(QString, user);
    QFETCH(QString, expected);
    const auto location = SharedWorkspaceLocation::fromFields(host, port, database, user,
                                                              QString::fromLatin1(Password));
    if (expected.startsWith(u"postgresql://"_s)) {
        QVERIFY2(location.hasValue(), qPrintable(location.error()));
        QCOMPARE(location->url, expected);
        QCOMPARE(location->password, QString::fromLatin1(Password));
        QVERIFY(location->connectionUrl().contains(QString::fromLatin1(Password)));
        QVERIFY(!location->url.contains(QString::fromLatin1(Password)));
    } else {
        QVERIFY(!location.hasValue());
        QVERIFY2(location.error().startsWith(expected), qPrintable(location.error()));
    }
}

void SharedWorkspaceTest::locationFromUrl()
{
    const QString typed = u"postgresql://ops:%1@db.internal:6543/events?sslmode=require"_s.arg(
        QString::fromLatin1(Password));
    auto location = SharedWorkspaceLocation::fromUrl(typed, QString());
    QVERIFY2(location.hasValue(), qPrintable(location.error()));
    QCOMPARE(location->url, u"postgresql://ops@db.internal:6543/events?sslmode=require"_s);
    QCOMPARE(location->password, QString::fromLatin1(Password));

    location = SharedWorkspaceLocation::fromUrl(
        u"postgres://ops@db:5432/events?password=%1"_s.arg(QString::fromLatin1(Password)),
        QString());
    QVERIFY2(location.hasValue(), qPrintable(location.error()));
    QVERIFY(!location->url.contains(QString::fromLatin1(Password)));
    QCOMPARE(location->password, QString::fromLatin1(Password));

    location = SharedWorkspaceLocation::fromUrl(u"/srv/workspace"_s, QString());
    QVERIFY(!location.hasValue());
    QVERIFY2(location.error().startsWith(u"URL: must be postgresql://USER@HOST:PORT/DATABASE"_s),
             qPrintable(location.error()));
    location = SharedWorkspaceLocation::fromUrl(
        u"mysql://ops:%1@db/events"_s.arg(QString::fromLatin1(Password)), QString());
    QVERIFY(!location.hasValue());
    QVERIFY2(!location.error().contains(QString::fromLatin1(Password)),
             qPrintable(location.error()));
}

void SharedWorkspaceTest::dialogChecksBeforeOpening()
{
    OpenSharedWorkspaceDialog dialog(u"memory (this run only)"_s);
    auto *password = dialog.findChild<QLineEdit *>(u"password"_s);
    QVERIFY(password);
    QCOMPARE(password->echoMode(), QLineEdit::Password);
    // A field wrong: the dialog says which, and stays open.
    dialog.findChild<QLineEdit *>(u"host"_s)->setText(u"127.0.0.1"_s);
    dialog.findChild<QLineEdit *>(u"port"_s)->setText(u"99999"_s);
    dialog.findChild<QLineEdit *>(u"database"_s)->setText(u"no_such_database"_s);
    dialog.findChild<QLineEdit *>(u"user"_s)->setText(u"eventdesk"_s);
    password->setText(QString::fromLatin1(Password));
    dialog.show();
    saveScreenshot(&dialog, u"open-shared-workspace.png"_s);
    dialog.accept();
    QVERIFY(!dialog.isChecking());
    QVERIFY2(dialog.errorText().startsWith(u"Port: must be a number from 1 to 65535"_s),
             qPrintable(dialog.errorText()));
    QCOMPARE(dialog.result(), int(QDialog::Rejected));

    // A store that cannot be read: the store's error, without the password.
    dialog.findChild<QLineEdit *>(u"port"_s)->setText(QString::number(m_server->port()));
    dialog.accept();
    QTRY_VERIFY(!dialog.isChecking());
    QVERIFY2(dialog.errorText().contains(u"could not be opened"_s), qPrintable(dialog.errorText()));
    QVERIFY2(dialog.errorText().contains(u"no_such_database"_s), qPrintable(dialog.errorText()));
    QVERIFY2(!dialog.errorText().contains(QString::fromLatin1(Password)),
             qPrintable(dialog.errorText()));
    QCOMPARE(dialog.result(), int(QDialog::Rejected));
    saveScreenshot(&dialog, u"open-shared-workspace-error.png"_s);

    // A check that quotes the password back is masked too.
    dialog.setCheck([](const QString &url) -> Expected<void> {
        return Error(u"server said: bad password in "_s + url);
    });
    dialog.accept();
    QTRY_VERIFY(!dialog.isChecking());
    QVERIFY2(!dialog.errorText().contains(QString::fromLatin1(Password)),
             qPrintable(dialog.errorText()));

    // A store that can be read: accepted.
    const QString url = m_server->createDatabase(u"dialog_store"_s);
    QVERIFY(!url.isEmpty());
    PostgresDeliveryStore engine;
    QVERIFY(engine.open(url).hasValue());
    dialog.setCheck({});
    OpenSharedWorkspaceDialog reading {QString()};
    QVERIFY(!reading.findChild<QCheckBox *>(u"rememberPassword"_s)->isEnabled());
    reading.setLocation(url);
    QCOMPARE(reading.findChild<QLineEdit *>(u"database"_s)->text(), u"dialog_store"_s);
    reading.accept();
    QTRY_VERIFY(!reading.isChecking());
    QCOMPARE(reading.result(), int(QDialog::Accepted));
    QCOMPARE(reading.location().url, url);
}

void SharedWorkspaceTest::windowOnASharedStore()
{
    const QString url = m_server->createDatabase(u"shared_window"_s);
    QVERIFY2(!url.isEmpty(), qPrintable(m_server->errorText()));
    // Two instances: the first delivers orders' billing subscription, the second its audit one.
    PostgresDeliveryStore first;
    QVERIFY(first.open(url).hasValue());
    QVERIFY(first.replaceConfiguration(ordersTopics()).hasValue());
    QVERIFY(first.registerInstance({u"build-7"_s, 4242, 10000}).hasValue());
    PostgresDeliveryStore second;
    QVERIFY(second.open(url).hasValue());
    QVERIFY(second.registerInstance({u"build-9"_s, 5151, 10000}).hasValue());
    QList<StoredEvent> events;
    QList<DeliveryRecord> billing;
    for (qint64 seq = 1; seq <= 6; ++seq) {
        events << Rows.event(seq);
        billing << Rows.delivery(seq, u"billing"_s);
    }
    QVERIFY(first.insertPublished(events, billing).hasValue());
    QVERIFY(second
                .insertPublished({Rows.event(7), Rows.event(8)},
                                 {Rows.delivery(7, u"audit"_s), Rows.delivery(8, u"audit"_s)})
                .hasValue());
    StoreBatch firstBatch;
    firstBatch.attempts = {attempt(1, u"billing"_s, DeliveryOutcome::Delivered, 200),
                           attempt(2, u"billing"_s, DeliveryOutcome::Busy, 503),
                           attempt(3, u"billing"_s, DeliveryOutcome::Delivered, 200)};
    firstBatch.finished = {FinishedDelivery {1, 1, DeliveryState::Delivered},
                           FinishedDelivery {3, 3, DeliveryState::Delivered}};
    QVERIFY(first.commit(firstBatch).hasValue());
    StoreBatch secondBatch;
    secondBatch.attempts = {attempt(7, u"audit"_s, DeliveryOutcome::NotFound, 404)};
    // The second instance dead-lettered audit's other event.
    secondBatch.finished = {FinishedDelivery {8, 8, DeliveryState::DeadLettered}};
    DeadLetterEntry deadLetter;
    deadLetter.topic = u"orders"_s;
    deadLetter.subscription = u"audit"_s;
    deadLetter.eventId = u"order-8"_s;
    deadLetter.reason = DeadLetterReason::MaxDeliveryAttemptsExceeded;
    deadLetter.lastOutcome = DeliveryOutcome::NotFound;
    deadLetter.lastHttpStatus = 404;
    deadLetter.attempts = 10;
    deadLetter.deadLetteredMs = 1'764'230'410'000;
    deadLetter.blobPath = u"deadletters/AUDIT/order-8.json"_s;
    deadLetter.record = "{\"id\":\"order-8\"}";
    secondBatch.deadLetters = {deadLetter};
    QVERIFY(second.commit(secondBatch).hasValue());

    MainWindow window(MainWindow::Options {});
    window.useSecretStore(
        std::make_unique<MemorySecretStore>(MemorySecretStore::Usage::ThisRunOnly));
    window.resize(1360, 760);
    window.show();
    QSignalSpy started(window.engineHost(), &EngineHost::monitorStarted);

    auto location = SharedWorkspaceLocation::fromUrl(url, QString::fromLatin1(Password));
    QVERIFY(location.hasValue());
    location.value().rememberPassword = true;
    // The server of the test trusts loopback connections: the password is carried, not checked.
    window.openSharedWorkspace(location.value());
    QTRY_COMPARE(started.count(), 1);
    QVERIFY(started.constFirst().at(0).toBool());
    QVERIFY(window.engineHost()->isMonitoringSharedStore());
    QVERIFY(window.sharedWorkspaceMode()->isActive());

    // The instances, in a tab of their own; the status bar says how many are monitored.
    InstancesView *instances = window.sharedWorkspaceMode()->instancesView();
    QVERIFY(window.tabs()->indexOf(instances) >= 0);
    QTRY_COMPARE(instances->model()->rowCount(), 2);
    QCOMPARE(instances->model()->index(0, InstancesModel::HostColumn).data().toString(),
             u"build-7"_s);
    QCOMPARE(instances->model()->index(0, InstancesModel::DeliveriesColumn).data().toLongLong(), 4);
    QCOMPARE(instances->model()->count(InstanceHealth::Live), 2);
    QTRY_VERIFY(window.statusBar()->findChildren<QLabel *>().size() > 0);
    QStringList statusTexts;
    for (QLabel *label : window.statusBar()->findChildren<QLabel *>())
        statusTexts << label->text();
    QVERIFY2(
        statusTexts.join(u'|').contains(u"Shared workspace — monitoring 2 instance(s) (2 live)"_s),
        qPrintable(statusTexts.join(u'|')));
    QVERIFY2(window.windowTitle().startsWith(u"shared_window — Shared Workspace"_s),
             qPrintable(window.windowTitle()));

    // The delivery log: the history, with the instance that made each attempt.
    DeliveryLogView *log = window.deliveryLog();
    QVERIFY(log->showsInstances());
    auto *logTable = log->findChild<QTableView *>();
    QTRY_COMPARE(logTable->model()->rowCount(), 4);
    const auto instanceCells = [logTable] {
        QStringList cells;
        const QAbstractItemModel *model = logTable->model();
        for (int row = 0; row < model->rowCount(); ++row)
            cells << model->index(row, DeliveryLogModel::InstanceColumn).data().toString();
        return cells;
    };
    QTRY_VERIFY2(instanceCells().contains(u"%1 · build-7"_s.arg(first.instanceId())),
                 qPrintable(instanceCells().join(u',')));
    QVERIFY2(instanceCells().contains(u"%1 · build-9"_s.arg(second.instanceId())),
             qPrintable(instanceCells().join(u',')));

    // New attempts by an instance reach the log with the monitor's next poll.
    StoreBatch later;
    later.attempts = {attempt(4, u"billing"_s, DeliveryOutcome::Delivered, 200)};
    later.finished = {FinishedDelivery {4, 4, DeliveryState::Delivered}};
    QVERIFY(first.commit(later).hasValue());
    QTRY_COMPARE(logTable->model()->rowCount(), 5);

    // The dead letters the instances wrote.
    window.tabs()->setCurrentWidget(window.deadLetterBrowser());
    QTRY_COMPARE(window.deadLetterBrowser()->tableView()->model()->rowCount(), 1);
    QCOMPARE(window.deadLetterBrowser()
                 ->tableView()
                 ->model()
                 ->index(0, DeadLetterModel::EventIdColumn)
                 .data()
                 .toString(),
             u"order-8"_s);
    saveScreenshot(&window, u"shared-dead-letters.png"_s);
    // A local container's blob is in the folder of the instance that wrote it: the app says so
    // instead of looking for it in a folder of its own.
    DeadLetterBrowser *browser = window.deadLetterBrowser();
    browser->tableView()->setCurrentIndex(browser->tableView()->model()->index(0, 0));
    QAction *openFolder = nullptr;
    for (QAction *action : browser->findChildren<QAction *>()) {
        if (action->text() == u"Open Blob Folder"_s)
            openFolder = action;
    }
    QVERIFY(openFolder);
    openFolder->trigger();
    QTRY_VERIFY2(
        browser->statusLabel()->text().contains(u"a shared workspace has no local folder"_s),
        qPrintable(browser->statusLabel()->text()));

    // Views for the eye.
    window.tabs()->setCurrentWidget(window.dashboard());
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    saveScreenshot(&window, u"shared-dashboard.png"_s);
    window.tabs()->setCurrentWidget(log);
    saveScreenshot(&window, u"shared-delivery-log.png"_s);
    window.tabs()->setCurrentWidget(instances);
    saveScreenshot(&window, u"shared-instances.png"_s);

    // The password: in the secret store as asked, in no setting, nowhere on screen.
    QTRY_VERIFY(!QSettings().value(u"workspace/recent"_s).toStringList().isEmpty());
    QCOMPARE(QSettings().value(u"workspace/recent"_s).toStringList().constFirst(), url);
    QSettings().sync();
    QCOMPARE(Testing::filesContaining(m_home.path(), QString::fromLatin1(Password)), QStringList());
    for (const QString &text : visibleTexts(&window))
        QVERIFY2(!text.contains(QString::fromLatin1(Password)), qPrintable(text));
    QString kept;
    bool answered = false;
    window.activeSecretStore()->read(sharedWorkspacePasswordKey(url),
                                     [&](const Expected<std::optional<QString>> &value) {
                                         answered = true;
                                         if (value && value.value())
                                             kept = *value.value();
                                     });
    QTRY_VERIFY(answered);
    QCOMPARE(kept, QString::fromLatin1(Password));

    // The recent list offers it by its URL.
    bool listed = false;
    for (QAction *action : window.menuBar()->findChildren<QAction *>()) {
        if (action->text() == u"Shared: "_s + url)
            listed = action->isEnabled();
    }
    QVERIFY(listed);

    // An instance that stops cleanly leaves the list.
    QVERIFY(second.releaseInstance().hasValue());
    QTRY_COMPARE(instances->model()->rowCount(), 1);
}

void SharedWorkspaceTest::editsTheSharedConfiguration()
{
    const QString url = m_server->createDatabase(u"shared_edits"_s);
    QVERIFY2(!url.isEmpty(), qPrintable(m_server->errorText()));
    PostgresDeliveryStore instance;
    QVERIFY(instance.open(url).hasValue());
    QVERIFY(instance.replaceConfiguration(ordersTopics()).hasValue());

    MainWindow window(MainWindow::Options {});
    window.useSecretStore(
        std::make_unique<MemorySecretStore>(MemorySecretStore::Usage::ThisRunOnly));
    window.show();
    auto location = SharedWorkspaceLocation::fromUrl(url, QString());
    QVERIFY(location.hasValue());
    window.openSharedWorkspace(location.value());

    // The tree shows the store's topics and subscriptions.
    WorkspaceTreeModel *tree = window.treeModel();
    QTRY_COMPARE(tree->rowCount(), 1);
    const QModelIndex orders = tree->index(0, 0);
    QTRY_COMPARE(tree->rowCount(orders), 2);

    // An edit (Disable) goes to the store, not to a workspace.json.
    window.selectSubscription(u"orders"_s, u"billing"_s);
    QVERIFY(window.editor()->isEnabled());
    QAction *disable = actionNamed(&window, u"&Disable"_s);
    QVERIFY(disable);
    QVERIFY(disable->isEnabled());
    const auto before = instance.configurationRevision();
    QVERIFY(before.hasValue());
    disable->trigger();
    QTRY_VERIFY(instance.configurationRevision().value() > before.value());
    const auto stored = instance.loadConfiguration();
    QVERIFY(stored.hasValue());
    QVERIFY(!stored->topics.constFirst().eventSubscriptions.constFirst().enabled);
    QVERIFY(stored->topics.constFirst().eventSubscriptions.at(1).enabled);

    // A subscription another writer adds appears with the monitor's next poll.
    QList<Topic> added = stored->topics;
    added[0].eventSubscriptions.append(unreachableWebhook(u"archive"_s));
    QVERIFY(instance.saveConfiguration(stored->topics, added, stored->revision).hasValue());
    QTRY_COMPARE(tree->rowCount(tree->index(0, 0)), 3);
    saveScreenshot(&window, u"shared-configuration.png"_s);

    // File ▸ Import workspace.json…: the file's topics become the whole configuration.
    QTemporaryDir files;
    QVERIFY(files.isValid());
    const QString importPath = files.filePath(u"payments.json"_s);
    QFile importFile(importPath);
    QVERIFY(importFile.open(QIODevice::WriteOnly));
    importFile.write("{\"topics\":[{\"name\":\"payments\",\"inputSchema\":\"EventGridSchema\","
                     "\"eventSubscriptions\":[{\"name\":\"ledger\",\"properties\":{\"destination\":"
                     "{\"endpointType\":\"WebHook\",\"properties\":{\"endpointUrl\":"
                     "\"http://127.0.0.1:9/ledger\"}}}}]}]}");
    importFile.close();
    std::optional<Expected<void>> imported;
    window.importSharedWorkspaceFile(importPath,
                                     [&](const Expected<void> &result) { imported = result; });
    QTRY_VERIFY(imported.has_value());
    QVERIFY2(imported->hasValue(), qPrintable(imported->error()));
    QTRY_COMPARE(tree->rowCount(), 1);
    QCOMPARE(tree->index(0, 0).data().toString(), u"payments"_s);
    const auto afterImport = instance.loadConfiguration();
    QVERIFY(afterImport.hasValue());
    QCOMPARE(afterImport->topics.size(), 1);
    QCOMPARE(afterImport->topics.constFirst().name, u"payments"_s);

    // File ▸ Export workspace.json…: the store's topics, in a file the import reads back.
    const QString exportPath = files.filePath(u"exported.json"_s);
    std::optional<Expected<void>> exported;
    window.exportSharedWorkspaceFile(exportPath,
                                     [&](const Expected<void> &result) { exported = result; });
    QTRY_VERIFY(exported.has_value());
    QVERIFY2(exported->hasValue(), qPrintable(exported->error()));
    QFile exportFile(exportPath);
    QVERIFY(exportFile.open(QIODevice::ReadOnly));
    const auto written = Workspace::fromJson(exportFile.readAll(), exportPath);
    QVERIFY2(written.hasValue(), qPrintable(written.error()));
    QCOMPARE(written->topics.size(), 1);
    QCOMPARE(written->topics.constFirst().eventSubscriptions.constFirst().name, u"ledger"_s);
}

QTEST_MAIN(SharedWorkspaceTest)
#include "tst_sharedworkspace.moc"
