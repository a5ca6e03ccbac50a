// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// The desktop app's window driven as a user would, on a real engine (its own thread, its own
// topic endpoint and built-in receivers on a free loopback port).

#include "SecretScan.h"
#include "WidgetInput.h"
#include "deadletters/DeadLetterBrowser.h"
#include "deadletters/DeadLetterModel.h"
#include "editor/SubscriptionEditor.h"
#include "endpoint/SharedAccessSignature.h"
#include "endpoint/TestReceiverService.h"
#include "mainwindow/MainWindow.h"
#include "mainwindow/WorkspaceLayout.h"
#include "mainwindow/WorkspaceTreeModel.h"
#include "secrets/SecretStore.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QHeaderView>
#include <QIcon>
#include <QImage>
#include <QInputDialog>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QLoggingCategory>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTimer>
#include <QTreeView>
#include <QtTest>

#include <optional>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using EventDesk::Testing::retype;

namespace {

// Every message EventDesk's categories log while it exists, debug level included (whatever
// QT_LOGGING_RULES says), as "category: message"; they still reach the usual output.
class LogCapture final
{
public:
    LogCapture()
    {
        s_active = this;
        s_previousHandler = qInstallMessageHandler(&LogCapture::record);
        s_previousFilter = QLoggingCategory::installFilter(&LogCapture::enableAll);
    }
    ~LogCapture()
    {
        QLoggingCategory::installFilter(s_previousFilter);
        qInstallMessageHandler(s_previousHandler);
        s_active = nullptr;
    }
    LogCapture(const LogCapture &) = delete;
    LogCapture &operator=(const LogCapture &) = delete;

    QByteArray text() const { return m_messages.join(u'\n').toUtf8(); }

private:
    static void record(QtMsgType type, const QMessageLogContext &context, const QString &message)
    {
        if (s_active)
            s_active->m_messages.append(QString::fromLatin1(context.category) + u": " + message);
        if (s_previousHandler && type != QtDebugMsg)
            s_previousHandler(type, context, message);
    }
    static void enableAll(QLoggingCategory *category)
    {
        if (s_previousFilter)
            s_previousFilter(category);
        if (qstrncmp(category->categoryName(), "eventdesk", 9) == 0) {
            for (const QtMsgType type : {QtDebugMsg, QtInfoMsg, QtWarningMsg, QtCriticalMsg})
                category->setEnabled(type, true);
        }
    }

    static inline LogCapture *s_active = nullptr;
    static inline QtMessageHandler s_previousHandler = nullptr;
    static inline QLoggingCategory::CategoryFilter s_previousFilter = nullptr;
    QStringList m_messages;
};

quint16 freePort()
{
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    return probe.serverPort();
}

QJsonObject subscriptionJson(const QString &name, const QString &endpoint, bool validation = false)
{
    return QJsonObject{
        {u"name"_s, name},
        {u"properties"_s,
         QJsonObject{{u"destination"_s,
                      QJsonObject{{u"endpointType"_s, u"WebHook"_s},
                                  {u"properties"_s, QJsonObject{{u"endpointUrl"_s, endpoint}}}}},
                     {u"x-eventdesk"_s, QJsonObject{{u"enabled"_s, true}, {u"validation"_s, validation}}},
                     {u"deadLetterDestination"_s,
                      QJsonObject{{u"endpointType"_s, u"StorageBlob"_s},
                                  {u"properties"_s, QJsonObject{{u"resourceId"_s, u"local"_s},
                                                                {u"blobContainerName"_s, u"deadletters"_s}}}}}}}};
}

// A workspace with one topic, "orders", and these subscriptions.
Expected<Workspace> ordersWorkspace(const QJsonArray &subscriptions)
{
    const QByteArray json = QJsonDocument(QJsonObject{
        {u"topics"_s, QJsonArray{QJsonObject{{u"name"_s, u"orders"_s},
                                             {u"eventSubscriptions"_s, subscriptions}}}}})
                                .toJson();
    return Workspace::fromJson(json, u"workspace.json"_s);
}

// A workspace with a healthy and a failing built-in receiver; dead letters are written at once.
void writeWorkspace(const QString &directory, quint16 port, bool withRefusingEndpoint = false)
{
    const QString base = u"http://127.0.0.1:%1/receivers/"_s.arg(port);
    QJsonArray subscriptions{subscriptionJson(u"ok-sub"_s, base + u"ok"_s),
                             subscriptionJson(u"failing"_s, base + u"broken"_s)};
    if (withRefusingEndpoint)
        subscriptions.append(subscriptionJson(u"unvalidated"_s, base + u"refuser"_s, true));
    const QJsonObject topic{{u"name"_s, u"orders"_s},
                            {u"inputSchema"_s, u"EventGridSchema"_s},
                            {u"eventSubscriptions"_s, subscriptions}};
    const QJsonObject root{{u"topics"_s, QJsonArray{topic}},
                           {u"receivers"_s, QJsonArray{QJsonObject{{u"name"_s, u"ok"_s}, {u"status"_s, 200}},
                                                       QJsonObject{{u"name"_s, u"broken"_s}, {u"status"_s, 400}},
                                                       QJsonObject{{u"name"_s, u"refuser"_s}, {u"status"_s, 200},
                                                                   {u"validation"_s, u"refuse"_s}}}},
                           {u"settings"_s, QJsonObject{{u"deadLetterDelaySeconds"_s, 0}}}};
    QFile file(directory + u"/workspace.json"_s);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QJsonDocument(root).toJson());
}

QByteArray oneEvent(const QString &id)
{
    return QJsonDocument(QJsonArray{QJsonObject{{u"id"_s, id},
                                                {u"subject"_s, u"/orders/1"_s},
                                                {u"eventType"_s, u"Order.Created"_s},
                                                {u"eventTime"_s, u"2026-01-01T00:00:00Z"_s},
                                                {u"dataVersion"_s, u"1.0"_s},
                                                {u"data"_s, QJsonObject{{u"amount"_s, 5}}}}})
        .toJson(QJsonDocument::Compact);
}

QAction *findAction(QWidget &window, const QString &text)
{
    const auto actions = window.findChildren<QAction *>();
    for (QAction *action : actions) {
        if (action->text() == text)
            return action;
    }
    return nullptr;
}

struct Fixture
{
    explicit Fixture(bool withRefusingEndpoint = false)
    {
        port = freePort();
        writeWorkspace(directory.path(), port, withRefusingEndpoint);
        Ui::MainWindow::Options options;
        options.listen.port = port;
        options.jitter = false;
        window = std::make_unique<Ui::MainWindow>(options);
        // Wider than the offscreen screen (800 px), whose size a first run's window now keeps to:
        // the layout tests want the room of a desktop.
        window->resize(1440, 900);
        QObject::connect(window->engineHost(), &EngineHost::snapshotReady, window.get(),
                         [this](const EngineSnapshot &snapshot) { last = snapshot; });
        window->show();
        window->openWorkspace(directory.path());
    }

    SubscriptionSnapshot state(const QString &subscription) const
    {
        for (const SubscriptionSnapshot &candidate : last.subscriptions) {
            if (candidate.subscription == subscription)
                return candidate;
        }
        return {};
    }

    QTemporaryDir directory;
    quint16 port = 0;
    std::unique_ptr<Ui::MainWindow> window;
    EngineSnapshot last;
};

} // namespace

class tst_MainWindow : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void treeShowsWorkspace();
    void treeRepaintsOnlyRowsThatChanged();
    void treeNamesFitUnlessSizedByUser();
    void createSubscriptionInvalidThenValid();
    void sendEventCountedAsDelivered();
    void failingReceiverDeadLetterResubmitted();
    void secretHeaderGoesToSecretStoreNotWorkspace();
    void treeShowsProvisioningState();
    void treeShowsWaitingEndpointAndHeldEvents();
    void topicAccessKeyRequiredAfterSettingIt();
    void copiedSasTokenPublishes();
    void destinationCredentialGoesToSecretStoreNotWorkspace();
    void splitterPositionsAreRememberedPerWorkspace();
    void firstRunWindowFitsTheScreen();
};

void tst_MainWindow::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
}

void tst_MainWindow::treeShowsWorkspace()
{
    Fixture fixture;
    QTRY_VERIFY_WITH_TIMEOUT(fixture.window->engineHost()->isRunning(), 20000);
    Ui::WorkspaceTreeModel *model = fixture.window->treeModel();
    QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model->rowCount(), 1);
    const QModelIndex topic = model->topicIndex(u"orders"_s);
    QVERIFY(topic.isValid());
    QCOMPARE(model->rowCount(topic), 2);
    QTRY_COMPARE_WITH_TIMEOUT(model->subscriptionIndex(u"orders"_s, u"ok-sub"_s)
                                  .siblingAtColumn(Ui::WorkspaceTreeModel::StateColumn)
                                  .data()
                                  .toString(),
                              u"Healthy"_s, 10000);
    // The first subscription opens in the editor.
    QCOMPARE(fixture.window->editor()->subscription().name, u"ok-sub"_s);
}

void tst_MainWindow::createSubscriptionInvalidThenValid()
{
    Fixture fixture;
    QTRY_VERIFY_WITH_TIMEOUT(fixture.window->engineHost()->isRunning(), 20000);
    Ui::MainWindow &window = *fixture.window;
    window.treeView()->setCurrentIndex(window.treeModel()->topicIndex(u"orders"_s));
    QAction *newSubscription = findAction(window, u"New &Subscription"_s);
    QVERIFY(newSubscription);
    QVERIFY(newSubscription->isEnabled());
    newSubscription->trigger();
    QCOMPARE(window.tabs()->currentWidget(), window.editor());

    Ui::SubscriptionEditor *editor = window.editor();
    auto *name = editor->findChild<QLineEdit *>(u"nameEdit"_s);
    auto *endpoint = editor->findChild<QLineEdit *>(u"endpointEdit"_s);
    auto *attempts = editor->findChild<QSpinBox *>(u"maxAttemptsSpin"_s);
    auto *save = editor->findChild<QPushButton *>(u"saveButton"_s);
    QVERIFY(name && endpoint && attempts && save);

    name->clear();
    QTest::keyClicks(name, u"new-hook"_s);
    endpoint->clear();
    QTest::keyClicks(endpoint, u"http://127.0.0.1:%1/receivers/ok"_s.arg(fixture.port));
    attempts->selectAll();
    QTest::keyClicks(attempts, u"31"_s);
    // Out of range: the limit is named and Save is disabled.
    QVERIFY(!save->isEnabled());
    QVERIFY2(editor->validationMessage().contains(u"30"_s), qPrintable(editor->validationMessage()));

    attempts->selectAll();
    QTest::keyClicks(attempts, u"5"_s);
    QTRY_VERIFY(save->isEnabled());
    QTest::mouseClick(save, Qt::LeftButton);

    QTRY_VERIFY_WITH_TIMEOUT(window.treeModel()->subscriptionIndex(u"orders"_s, u"new-hook"_s).isValid(), 10000);
    QFile file(fixture.directory.path() + u"/workspace.json"_s);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray saved = file.readAll();
    QVERIFY(saved.contains("new-hook"));
    QVERIFY(saved.contains("\"maxDeliveryAttempts\": 5"));
    QVERIFY(!editor->isModified());
}

void tst_MainWindow::sendEventCountedAsDelivered()
{
    Fixture fixture;
    QTRY_VERIFY_WITH_TIMEOUT(fixture.window->engineHost()->isRunning(), 20000);
    int status = 0;
    fixture.window->engineHost()->publish(u"orders"_s, oneEvent(u"gui-1"_s), "application/json",
                                          [&status](const PublishResult &result) { status = result.httpStatus; });
    QTRY_COMPARE_WITH_TIMEOUT(status, 200, 10000);
    QTRY_COMPARE_WITH_TIMEOUT(fixture.state(u"ok-sub"_s).delivered, quint64(1), 15000);
}

void tst_MainWindow::failingReceiverDeadLetterResubmitted()
{
    Fixture fixture;
    QTRY_VERIFY_WITH_TIMEOUT(fixture.window->engineHost()->isRunning(), 20000);
    Ui::MainWindow &window = *fixture.window;
    window.engineHost()->publish(u"orders"_s, oneEvent(u"doomed-1"_s), "application/json", [](const PublishResult &) {});

    // 400 is a no-retry error (SPEC R2): dead-lettered at once (delay 0 in this workspace).
    QTRY_COMPARE_WITH_TIMEOUT(fixture.state(u"failing"_s).deadLetteredByReason.value(
                                  DeadLetterReason::UndeliverableDueToHttpBadRequest),
                              quint64(1), 15000);
    Ui::DeadLetterBrowser *browser = window.deadLetterBrowser();
    QAbstractItemModelTester tester(browser->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    browser->reload();
    QTRY_COMPARE_WITH_TIMEOUT(browser->model()->rowCount(), 1, 10000);
    QVERIFY(browser->model()->index(0, 0).isValid());

    // Point the subscription at the healthy receiver, then resubmit: delivered with its id kept.
    Workspace changed = window.engineHost()->workspace();
    changed.topics[0].eventSubscriptions[1].endpointUrl = QUrl(u"http://127.0.0.1:%1/receivers/ok"_s.arg(fixture.port));
    bool applied = false;
    window.engineHost()->applyWorkspace(changed, [&applied](const Expected<void> &result) { applied = result.hasValue(); });
    QTRY_VERIFY_WITH_TIMEOUT(applied, 10000);
    int resubmitted = -1;
    DeadLetterQuery query;
    query.topic = u"orders"_s;
    query.subscription = u"failing"_s;
    query.limit = 0;
    window.engineHost()->resubmitDeadLetters(query, [&resubmitted](const ResubmitResult &result) {
        resubmitted = result.resubmitted;
    });
    QTRY_COMPARE_WITH_TIMEOUT(resubmitted, 1, 10000);
    QTRY_COMPARE_WITH_TIMEOUT(fixture.state(u"failing"_s).delivered, quint64(1), 15000);
    browser->reload();
    QTRY_COMPARE_WITH_TIMEOUT(browser->model()->rowCount(), 0, 10000);
}

void tst_MainWindow::secretHeaderGoesToSecretStoreNotWorkspace()
{
    const LogCapture log;
    Fixture fixture;
    Ui::MainWindow &window = *fixture.window;
    // The opt-in "this run only" store stands in for the keychain (SPEC H2).
    window.useSecretStore(std::make_unique<MemorySecretStore>(MemorySecretStore::Usage::ThisRunOnly));
    QTRY_VERIFY_WITH_TIMEOUT(window.engineHost()->isRunning(), 20000);
    window.selectSubscription(u"orders"_s, u"ok-sub"_s);
    QCOMPARE(window.editor()->subscription().name, u"ok-sub"_s);

    EventSubscription edited = window.editor()->subscription();
    DeliveryHeader header;
    header.name = u"X-Api-Key"_s;
    header.kind = DeliveryHeader::Kind::Static;
    header.secret = true;
    header.value = u"very-secret-value-42"_s;
    edited.deliveryHeaders.append(header);
    Q_EMIT window.editor()->saveRequested(edited);

    // Saved: the workspace file names the header but never holds its value.
    QTRY_VERIFY_WITH_TIMEOUT(!window.engineHost()->workspace().topics.at(0).eventSubscriptions.at(0).deliveryHeaders.isEmpty(),
                             10000);
    QFile file(fixture.directory.path() + u"/workspace.json"_s);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray saved = file.readAll();
    QVERIFY(saved.contains("X-Api-Key"));
    QVERIFY(!saved.contains("very-secret-value-42"));

    // The store holds it, and deliveries carry it.
    QString stored;
    window.activeSecretStore()->read(SecretKeys::deliveryHeader(u"orders"_s, u"ok-sub"_s, u"X-Api-Key"_s),
                                     [&stored](const Expected<std::optional<QString>> &value) {
                                         if (value && value.value())
                                             stored = *value.value();
                                     });
    QTRY_COMPARE(stored, u"very-secret-value-42"_s);
    window.engineHost()->publish(u"orders"_s, oneEvent(u"secret-1"_s), "application/json", [](const PublishResult &) {});
    QByteArray received;
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            window.engineHost()->receiverRecords(u"ok"_s, 0, [&received](const QList<ReceivedRequest> &records) {
                for (const ReceivedRequest &record : records) {
                    for (const auto &[name, value] : record.headers) {
                        if (name.compare("x-api-key", Qt::CaseInsensitive) == 0)
                            received = value;
                    }
                }
            });
            return !received.isEmpty();
        }(),
        15000);
    QCOMPARE(received, "very-secret-value-42"_ba);

    // Nowhere in the workspace folder - the store and its write-ahead log included - once the
    // engine has committed and stopped, and not in anything the app logged meanwhile.
    window.engineHost()->stop();
    QVERIFY(!window.engineHost()->isRunning());
    QVERIFY2(QFileInfo::exists(fixture.directory.filePath(u"eventdesk.db"_s)),
             qPrintable(Testing::allFiles(fixture.directory.path()).join(u", "_s)));
    QCOMPARE(Testing::filesContaining(fixture.directory.path(), u"very-secret-value-42"_s), QStringList());
    QVERIFY2(log.text().contains("eventdesk.delivery"), "nothing was logged: the check would see nothing");
    QVERIFY(!Testing::containsSecret(log.text(), u"very-secret-value-42"_s));
}

void tst_MainWindow::treeShowsProvisioningState()
{
    // An Event Grid schema endpoint that does not echo the validation code stays awaiting manual
    // validation, and the tree says so instead of "Healthy".
    Fixture fixture(true);
    QTRY_VERIFY_WITH_TIMEOUT(fixture.window->engineHost()->isRunning(), 20000);
    Ui::WorkspaceTreeModel *model = fixture.window->treeModel();
    const QModelIndex state = model->subscriptionIndex(u"orders"_s, u"unvalidated"_s)
                                  .siblingAtColumn(Ui::WorkspaceTreeModel::StateColumn);
    QTRY_COMPARE_WITH_TIMEOUT(state.data().toString(), u"Awaiting manual validation"_s, 15000);
    QVERIFY(state.data(Qt::ToolTipRole).toString().contains(u"/validate/"_s));
    QCOMPARE(model->subscriptionIndex(u"orders"_s, u"ok-sub"_s)
                 .siblingAtColumn(Ui::WorkspaceTreeModel::StateColumn)
                 .data()
                 .toString(),
             u"Healthy"_s);
}

// Several snapshots a second reach the tree: a row is announced (and repainted) only when what it
// draws changes, not for counters that only its tooltip reads.
void tst_MainWindow::treeRepaintsOnlyRowsThatChanged()
{
    QJsonArray subscriptions;
    for (int i = 0; i < 5; ++i)
        subscriptions.append(subscriptionJson(u"sub-%1"_s.arg(i), u"http://127.0.0.1:7071/hook"_s, false));
    const auto workspace = ordersWorkspace(subscriptions);
    QVERIFY2(workspace.hasValue(), qPrintable(workspace.error()));
    Ui::WorkspaceTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setWorkspace(workspace.value());

    EngineSnapshot snapshot;
    snapshot.nowMs = 1'000'000;
    snapshot.topics = {TopicSnapshot{u"orders"_s, 10, 0, 0}};
    for (int i = 0; i < 5; ++i) {
        SubscriptionSnapshot state;
        state.topic = u"orders"_s;
        state.subscription = u"sub-%1"_s.arg(i);
        snapshot.subscriptions.append(state);
    }
    model.applySnapshot(snapshot);

    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    // Counters the rows do not draw (delivered, matched): nothing to repaint.
    snapshot.nowMs += 250;
    snapshot.subscriptions[1].delivered = 40;
    snapshot.subscriptions[1].matched = 40;
    model.applySnapshot(snapshot);
    QCOMPARE(changed.count(), 0);

    // sub-2's and sub-3's backlogs change: one run of two rows, then the topic's sums.
    snapshot.subscriptions[2].backlog = 7;
    snapshot.subscriptions[3].backlog = 1;
    model.applySnapshot(snapshot);
    QCOMPARE(changed.count(), 2);
    const QModelIndex orders = model.topicIndex(u"orders"_s);
    QCOMPARE(changed.at(0).at(0).value<QModelIndex>(), model.index(2, 0, orders));
    QCOMPARE(changed.at(0).at(1).value<QModelIndex>(),
             model.index(3, Ui::WorkspaceTreeModel::DeadLetterColumn, orders));
    QCOMPARE(changed.at(1).at(0).value<QModelIndex>().row(), orders.row());
    QCOMPARE(model.index(2, Ui::WorkspaceTreeModel::BacklogColumn, orders).data().toLongLong(), 7);

    // The counts are the store's totals (the snapshots' counters are the engine's since it
    // started): the first totals change every row that shows one, later ones only those whose
    // count changed.
    changed.clear();
    const auto total = [](const QString &subscription, TotalCounter counter, qint64 value) {
        return TotalChange {u"orders"_s, subscription, int(counter), value};
    };
    const int expired = int(TotalCounter::DeadLetteredBase) + int(DeadLetterReason::TimeToLiveExceeded);
    QList<TotalChange> rows {total(QString(), TotalCounter::Published, 10),
                             total(u"sub-3"_s, TotalCounter(expired), 1)};
    model.setTotals(StoreTotals::fromRows(rows));
    QCOMPARE(changed.count(), 2); // sub-3's row, the topic's
    QCOMPARE(changed.at(0).at(0).value<QModelIndex>(), model.index(3, 0, orders));
    QCOMPARE(model.index(3, Ui::WorkspaceTreeModel::DeadLetterColumn, orders).data().toLongLong(), 1);
    QCOMPARE(model.topicIndex(u"orders"_s).siblingAtColumn(Ui::WorkspaceTreeModel::StateColumn).data().toString(),
             u"10 published"_s);
    QCOMPARE(model.topicIndex(u"orders"_s).siblingAtColumn(Ui::WorkspaceTreeModel::DeadLetterColumn).data().toLongLong(), 1);

    // A new publish count changes the topic's row only.
    changed.clear();
    rows[0].value = 11;
    model.setTotals(StoreTotals::fromRows(rows));
    QCOMPARE(changed.count(), 1);
    QVERIFY(!changed.at(0).at(0).value<QModelIndex>().parent().isValid());
    // Nor does the engine's own count of publishes repaint anything.
    changed.clear();
    snapshot.topics[0].published = 12;
    model.applySnapshot(snapshot);
    QCOMPARE(changed.count(), 0);
}

// A webhook that is not up yet: the state says why, when the next handshake goes out and how many
// events wait for it; the light is amber, not green.
void tst_MainWindow::treeShowsWaitingEndpointAndHeldEvents()
{
    const auto workspace
        = ordersWorkspace({subscriptionJson(u"late"_s, u"http://127.0.0.1:7071/hook"_s, true)});
    QVERIFY2(workspace.hasValue(), qPrintable(workspace.error()));
    Ui::WorkspaceTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setWorkspace(workspace.value());

    EngineSnapshot snapshot;
    snapshot.nowMs = 1'000'000;
    SubscriptionSnapshot late;
    late.topic = u"orders"_s;
    late.subscription = u"late"_s;
    late.provisioningState = ProvisioningState::Creating;
    late.provisioningMessage = u"endpoint unreachable: connection refused; next validation attempt in 30 s"_s;
    late.endpointUnreachable = u"connection refused"_s;
    late.nextValidationMs = snapshot.nowMs + 20'000;
    late.backlog = 3;
    late.held = 3;
    snapshot.subscriptions = {late};
    model.applySnapshot(snapshot);

    const QModelIndex row = model.subscriptionIndex(u"orders"_s, u"late"_s);
    const QModelIndex state = row.siblingAtColumn(Ui::WorkspaceTreeModel::StateColumn);
    QCOMPARE(state.data().toString(), u"Waiting for endpoint (connection refused) · retry in 20 s · 3 held"_s);
    QVERIFY(state.data(Qt::ToolTipRole).toString().contains(u"3 event(s) held"_s));
    QVERIFY(state.data(Qt::ToolTipRole).toString().contains(late.provisioningMessage));
    const QColor light = row.data(Qt::DecorationRole).value<QIcon>().pixmap(16, 16).toImage().pixelColor(8, 8);
    QVERIFY2(light.red() > light.green(), qPrintable(light.name())); // amber, not green

    late.nextValidationMs = 0; // the handshake is under way
    snapshot.subscriptions = {late};
    model.applySnapshot(snapshot);
    QCOMPARE(state.data().toString(), u"Waiting for endpoint (connection refused) · validating now · 3 held"_s);
}

void tst_MainWindow::topicAccessKeyRequiredAfterSettingIt()
{
    Fixture fixture;
    Ui::MainWindow &window = *fixture.window;
    window.useSecretStore(std::make_unique<MemorySecretStore>(MemorySecretStore::Usage::ThisRunOnly));
    QTRY_VERIFY_WITH_TIMEOUT(window.engineHost()->isRunning(), 20000);

    bool done = false;
    QString error;
    window.setTopicAccessKey(u"orders"_s, u"k3y-for-orders"_s, [&](const Expected<void> &result) {
        done = true;
        error = result.error();
    });
    QTRY_VERIFY_WITH_TIMEOUT(done, 10000);
    QVERIFY2(error.isEmpty(), qPrintable(error));

    QNetworkAccessManager network;
    auto post = [&](const QByteArray &key) {
        QNetworkRequest request(QUrl(window.engineHost()->listenUrl() + u"/topics/orders/api/events"_s));
        request.setHeader(QNetworkRequest::ContentTypeHeader, "application/json"_ba);
        if (!key.isEmpty())
            request.setRawHeader("aeg-sas-key", key);
        QNetworkReply *reply = network.post(request, oneEvent(u"keyed-1"_s));
        QSignalSpy finished(reply, &QNetworkReply::finished);
        finished.wait(10000);
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        reply->deleteLater();
        return status;
    };
    QCOMPARE(post(QByteArray()), 401);
    QCOMPARE(post("wrong"_ba), 401);
    QCOMPARE(post("k3y-for-orders"_ba), 200);

    // The workspace refers to the key; it never holds it.
    QFile file(fixture.directory.path() + u"/workspace.json"_s);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray saved = file.readAll();
    QVERIFY(saved.contains("topic/orders/key"));
    QVERIFY(!saved.contains("k3y-for-orders"));
}

// Workspace ▸ Copy SAS Token…: a token for the selected topic, valid for the hours chosen, signed
// with the topic's key, on the clipboard; the endpoint takes it in aeg-sas-token.
void tst_MainWindow::copiedSasTokenPublishes()
{
    Fixture fixture;
    Ui::MainWindow &window = *fixture.window;
    window.useSecretStore(std::make_unique<MemorySecretStore>(MemorySecretStore::Usage::ThisRunOnly));
    QTRY_VERIFY_WITH_TIMEOUT(window.engineHost()->isRunning(), 20000);
    const QString key = u"c2VjcmV0LWtleS1mb3Itb3JkZXJzLTEyMzQ1Njc4OTA="_s;
    bool done = false;
    QString error;
    window.setTopicAccessKey(u"orders"_s, key, [&](const Expected<void> &result) {
        done = true;
        error = result.error();
    });
    QTRY_VERIFY_WITH_TIMEOUT(done, 10000);
    QVERIFY2(error.isEmpty(), qPrintable(error));

    window.treeView()->setCurrentIndex(window.treeModel()->topicIndex(u"orders"_s));
    QAction *copy = findAction(window, u"Cop&y SAS Token…"_s);
    QVERIFY(copy);
    QVERIFY(copy->isEnabled());
    QApplication::clipboard()->clear();
    bool answered = false;
    QTimer::singleShot(0, &window, [&] {
        auto *dialog = window.findChild<QInputDialog *>(u"sasTokenDialog"_s);
        if (!dialog)
            return;
        dialog->setIntValue(2);
        QDir().mkpath(u"/tmp/eventdesk-shots"_s);
        dialog->grab().save(u"/tmp/eventdesk-shots/sas-token-dialog.png"_s);
        answered = true;
        dialog->accept();
    });
    copy->trigger();
    QVERIFY2(answered, "the dialog asking how long the token is valid did not open");

    const QByteArray token = QApplication::clipboard()->text().toLatin1();
    const QDateTime now = QDateTime::currentDateTimeUtc();
    const auto verdict = SharedAccessSignature::check(token, u"orders"_s, key, now);
    QVERIFY2(verdict.isValid(), qPrintable(verdict.message));
    const auto parsed = SharedAccessSignature::parse(token);
    QVERIFY(parsed);
    QVERIFY(parsed->expiresOn() > now.addSecs(3600)); // two hours were chosen
    QVERIFY(parsed->expiresOn() <= now.addSecs(2 * 3600));
    QVERIFY2(window.statusBar()->currentMessage().startsWith(u"Copied a SAS token for orders"_s),
             qPrintable(window.statusBar()->currentMessage()));
    window.grab().save(u"/tmp/eventdesk-shots/sas-token-copied.png"_s);

    QNetworkAccessManager network;
    QNetworkRequest request(QUrl(window.engineHost()->listenUrl() + u"/topics/orders/api/events"_s));
    request.setHeader(QNetworkRequest::ContentTypeHeader, "application/json"_ba);
    request.setRawHeader("aeg-sas-token", token);
    QNetworkReply *reply = network.post(request, oneEvent(u"sas-1"_s));
    QSignalSpy finished(reply, &QNetworkReply::finished);
    QVERIFY(finished.wait(10000));
    QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
    reply->deleteLater();
}

// A storage queue destination made in the editor: its account key is asked for in the secret
// dialog, checked, kept in the secret store (the opt-in memory store standing in for the
// keychain) and never written to workspace.json; the tree shows the queue, not an empty URL.
void tst_MainWindow::destinationCredentialGoesToSecretStoreNotWorkspace()
{
    Fixture fixture(true);
    Ui::MainWindow &window = *fixture.window;
    window.useSecretStore(
        std::make_unique<MemorySecretStore>(MemorySecretStore::Usage::ThisRunOnly));
    QTRY_VERIFY_WITH_TIMEOUT(window.engineHost()->isRunning(), 20000);
    QVERIFY(QTest::qWaitForWindowActive(&window));
    window.selectSubscription(u"orders"_s, u"ok-sub"_s);
    Ui::SubscriptionEditor *editor = window.editor();
    auto *type = Testing::child<QComboBox>(editor, u"destinationTypeCombo"_s);
    type->setCurrentIndex(type->findData(int(DestinationType::StorageQueue)));
    retype(Testing::child<QLineEdit>(editor, u"resourceNameEdit"_s), u"devstoreaccount1"_s);
    retype(Testing::child<QLineEdit>(editor, u"queueNameEdit"_s), u"orders"_s);
    auto *status = Testing::child<QLabel>(editor, u"credentialStatus"_s);
    auto *button = Testing::child<QPushButton>(editor, u"credentialButton"_s);
    QTRY_VERIFY2(status->text().startsWith(u"⚠ Not stored yet"_s), qPrintable(status->text()));

    const QString key = u"Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq=="_s;
    bool answered = false;
    QTimer::singleShot(0, &window, [&] {
        auto *dialog = qobject_cast<QDialog *>(QApplication::activeModalWidget());
        QVERIFY(dialog);
        QVERIFY(dialog->windowTitle().contains(u"devstoreaccount1"_s));
        auto *edit = dialog->findChild<QLineEdit *>();
        QCOMPARE(edit->echoMode(), QLineEdit::Password);
        QPushButton *ok = dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
        auto *problem = dialog->findChild<QLabel *>(u"secretProblem"_s);
        // Another account's connection string is refused with the reason, before it is stored.
        edit->setText(u"DefaultEndpointsProtocol=https;AccountName=other;AccountKey=a2V5"_s);
        QVERIFY(!ok->isEnabled());
        QVERIFY2(problem->text().contains(u"is that of account 'other'"_s),
                 qPrintable(problem->text()));
        QDir().mkpath(u"/tmp/ui-shots"_s);
        QCoreApplication::processEvents(); // the relayout for the message, before the grab
        dialog->grab().save(u"/tmp/ui-shots/credential-dialog-refused.png"_s);
        edit->setText(key);
        QVERIFY(ok->isEnabled());
        QCOMPARE(problem->text(), QString());
        answered = true;
        ok->click();
    });
    QTest::mouseClick(button, Qt::LeftButton);
    QVERIFY(answered);
    QTRY_VERIFY2(status->text().startsWith(u"✓ A key of account “devstoreaccount1” is stored"_s),
                 qPrintable(status->text()));
    QString stored;
    window.activeSecretStore()->read(SecretKeys::storageAccountKey(u"devstoreaccount1"_s),
                                     [&stored](const Expected<std::optional<QString>> &value) {
                                         if (value && value.value())
                                             stored = *value.value();
                                     });
    QTRY_COMPARE(stored, key);

    QTest::mouseClick(editor->findChild<QPushButton *>(u"saveButton"_s), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(
        window.engineHost()->workspace().topics.at(0).eventSubscriptions.at(0).destination.type,
        DestinationType::StorageQueue, 10000);
    QFile file(fixture.directory.path() + u"/workspace.json"_s);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray saved = file.readAll();
    QVERIFY(saved.contains("\"StorageQueue\""));
    QVERIFY(saved.contains("storageAccounts/devstoreaccount1"));
    QVERIFY(!saved.contains(key.left(16).toUtf8()));

    // The tree says where the subscription delivers; a webhook still shows its URL.
    const QModelIndex row = window.treeModel()->subscriptionIndex(u"orders"_s, u"ok-sub"_s);
    const QString tip = row.data(Qt::ToolTipRole).toString();
    QVERIFY2(tip.startsWith(u"ok-sub → storage queue 'orders' of account 'devstoreaccount1'"_s),
             qPrintable(tip));
    const QString webhookTip = window.treeModel()
                                   ->subscriptionIndex(u"orders"_s, u"failing"_s)
                                   .data(Qt::ToolTipRole)
                                   .toString();
    QVERIFY2(webhookTip.startsWith(
                 u"failing → webhook http://127.0.0.1:%1/receivers/broken"_s.arg(fixture.port)),
             qPrintable(webhookTip));
    // A queue has no endpoint handshake to ask for.
    QAction *validate = findAction(window, u"&Validate Now"_s);
    QVERIFY(validate);
    QVERIFY(!validate->isEnabled());
    window.selectSubscription(u"orders"_s, u"unvalidated"_s);
    QVERIFY(validate->isEnabled()); // a webhook that validates its endpoint
}

void tst_MainWindow::splitterPositionsAreRememberedPerWorkspace()
{
    std::optional<Fixture> fixture(std::in_place);
    QTRY_VERIFY_WITH_TIMEOUT(fixture->window->engineHost()->isRunning(), 20000);
    QSplitter *splitter = fixture->window->workspaceSplitter();
    // The tree no longer takes half the window by default.
    QVERIFY2(splitter->sizes().first() < splitter->width() / 3, qPrintable(QString::number(splitter->sizes().first())));
    const int total = splitter->sizes().first() + splitter->sizes().last();
    splitter->setSizes({250, total - 250});
    const QString first = fixture->directory.path();

    QTemporaryDir other;
    writeWorkspace(other.path(), fixture->port);
    fixture->window->openWorkspace(other.path());
    QTRY_VERIFY_WITH_TIMEOUT(fixture->window->engineHost()->isRunning()
                                 && fixture->window->workspaceDirectory() == QDir(other.path()).absolutePath(),
                             20000);
    QCOMPARE(splitter->sizes().first(), 250); // a workspace seen for the first time keeps them
    splitter->setSizes({420, total - 420});

    fixture->window->openWorkspace(first);
    QTRY_VERIFY_WITH_TIMEOUT(fixture->window->engineHost()->isRunning()
                                 && fixture->window->workspaceDirectory() == QDir(first).absolutePath(),
                             20000);
    QCOMPARE(splitter->sizes().first(), 250);
    QVERIFY(fixture->window->workspaceLayout()->hasSavedLayout(other.path()));

    // A new window (the app started again) opens the other workspace as it was left.
    fixture->window->close();
    fixture.reset();
    // The window's own geometry is not what this test is about: restored, it is fitted into the
    // screen (800x800 on the offscreen platform, from Qt 6.8 on), where the tabs' minimum width
    // leaves the tree less than 420 pixels. Without it, the window opens at its default size,
    // as the first one did.
    QSettings().remove(u"window/geometry"_s);
    Ui::MainWindow::Options options;
    options.listen.port = freePort();
    options.jitter = false;
    Ui::MainWindow window(options);
    window.resize(1440, 900);
    window.show();
    window.openWorkspace(other.path());
    QTRY_VERIFY_WITH_TIMEOUT(window.engineHost()->isRunning(), 20000);
    QCOMPARE(window.workspaceSplitter()->sizes().first(), 420);
}

void tst_MainWindow::treeNamesFitUnlessSizedByUser()
{
    QSettings().remove(u"window/treeNamesSizedByUser"_s);
    Fixture fixture;
    QTRY_VERIFY_WITH_TIMEOUT(fixture.window->engineHost()->isRunning(), 20000);
    QTreeView *tree = fixture.window->treeView();
    const int standard = tree->columnWidth(Ui::WorkspaceTreeModel::NameColumn);

    // A workspace whose subscription's name is longer than the column.
    const QString longName = u"demo-receiver-of-the-billing-team"_s;
    QTemporaryDir other;
    {
        const QJsonObject topic {{u"name"_s, u"orders"_s},
                                 {u"inputSchema"_s, u"EventGridSchema"_s},
                                 {u"eventSubscriptions"_s,
                                  QJsonArray {subscriptionJson(
                                      longName, u"http://127.0.0.1:%1/receivers/ok"_s.arg(fixture.port))}}};
        QFile file(other.filePath(u"workspace.json"_s));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QJsonDocument(QJsonObject {{u"topics"_s, QJsonArray {topic}},
                                              {u"receivers"_s, QJsonArray {QJsonObject {{u"name"_s, u"ok"_s}}}}})
                       .toJson());
    }
    fixture.window->openWorkspace(other.path());
    QTRY_VERIFY_WITH_TIMEOUT(fixture.window->engineHost()->isRunning()
                                 && fixture.window->workspaceDirectory() == QDir(other.path()).absolutePath(),
                             20000);
    // The name is drawn whole: its column holds the indentation, the state dot and the text.
    const QModelIndex row = tree->model()->index(0, 0, tree->model()->index(0, 0));
    QCOMPARE(row.data().toString(), longName);
    const int needed = tree->visualRect(row).left() - tree->visualRect(row.parent()).left()
        + tree->fontMetrics().horizontalAdvance(longName);
    // Room for it: the tree gets half of the window (the column takes at most half the tree).
    QSplitter *splitter = fixture.window->workspaceSplitter();
    const int total = splitter->sizes().first() + splitter->sizes().last();
    splitter->setSizes({total / 2, total - total / 2});
    QVERIFY2(tree->viewport()->width() / 2 >= needed, qPrintable(QString::number(tree->viewport()->width())));
    fixture.window->openWorkspace(other.path()); // fitted as it opens
    QTRY_VERIFY_WITH_TIMEOUT(fixture.window->engineHost()->isRunning(), 20000);
    QTRY_VERIFY2(tree->columnWidth(Ui::WorkspaceTreeModel::NameColumn) >= needed,
                 qPrintable(u"%1 < %2"_s.arg(tree->columnWidth(Ui::WorkspaceTreeModel::NameColumn)).arg(needed)));
    QVERIFY(tree->columnWidth(Ui::WorkspaceTreeModel::NameColumn) > standard);
    QVERIFY(tree->columnWidth(Ui::WorkspaceTreeModel::NameColumn) <= std::max(standard, tree->viewport()->width() / 2));

    // Sized by hand: the user's width stays, here and in the next workspace opened.
    tree->header()->resizeSection(Ui::WorkspaceTreeModel::NameColumn, 120);
    fixture.window->openWorkspace(fixture.directory.path());
    QTRY_VERIFY_WITH_TIMEOUT(fixture.window->engineHost()->isRunning()
                                 && fixture.window->workspaceDirectory() == QDir(fixture.directory.path()).absolutePath(),
                             20000);
    QCoreApplication::processEvents();
    QCOMPARE(tree->columnWidth(Ui::WorkspaceTreeModel::NameColumn), 120);
    fixture.window->close();
    QSettings().remove(u"window/treeNamesSizedByUser"_s);
    QSettings().remove(u"window/treeHeader"_s);
}

// A first run (no geometry kept) sizes the window to 1440x900 at most, and never larger than the
// screen's available area (unless the window's own minimum is larger still).
void tst_MainWindow::firstRunWindowFitsTheScreen()
{
    QSettings().remove(u"window/geometry"_s);
    Ui::MainWindow window(Ui::MainWindow::Options {});
    QScreen *screen = window.screen();
    QVERIFY(screen);
    const QSize available = screen->availableGeometry().size();
    const QSize minimum = window.minimumSizeHint();
    QVERIFY2(window.width() <= std::max({1440, minimum.width()})
                 && window.width() <= std::max(available.width(), minimum.width()),
             qPrintable(u"%1 wide, screen %2, minimum %3"_s.arg(window.width()).arg(available.width()).arg(minimum.width())));
    QVERIFY2(window.height() <= std::max(available.height(), minimum.height()),
             qPrintable(u"%1 high, screen %2, minimum %3"_s.arg(window.height()).arg(available.height()).arg(minimum.height())));
}

QTEST_MAIN(tst_MainWindow)
#include "tst_mainwindow.moc"
