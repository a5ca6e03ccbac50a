// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "host/EngineHost.h"
#include "receivers/ReceivedRequestModel.h"
#include "receivers/ReceiverListModel.h"
#include "receivers/ReceiversView.h"
#include "secrets/SecretCache.h"
#include "secrets/SecretStore.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QClipboard>
#include <QDir>
#include <QFile>
#include <QGuiApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTableView>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include <memory>

using namespace EventDesk;
using namespace EventDesk::Ui;
using namespace Qt::StringLiterals;

namespace {

quint16 freePort()
{
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    return probe.serverPort();
}

ReceivedRequest notification(const QString &receiver, quint64 sequence, int status, int events = 1)
{
    ReceivedRequest record;
    record.receiver = receiver;
    record.sequence = sequence;
    record.receivedMs = 1'795'000'000'000 + qint64(sequence) * 1000;
    record.method = "POST";
    record.target = "/receivers/" + receiver.toUtf8();
    record.headers = {{"Content-Type", "application/json"},
                      {"aeg-event-type", "Notification"},
                      {"aeg-delivery-count", QByteArray::number(sequence - 1)}};
    QJsonArray array;
    for (int i = 0; i < events; ++i)
        array.append(QJsonObject{{u"id"_s, u"event-%1"_s.arg(i)}, {u"eventType"_s, u"Order.Created"_s}});
    record.body = QJsonDocument(array).toJson(QJsonDocument::Compact);
    record.responseStatus = status;
    return record;
}

void writeWorkspace(const QString &directory, quint16 port)
{
    const QString base = u"http://127.0.0.1:%1/receivers/"_s.arg(port);
    const auto subscription = [&](const QString &name, const QString &receiver) {
        return QJsonObject{
            {u"name"_s, name},
            {u"properties"_s,
             QJsonObject{{u"destination"_s,
                          QJsonObject{{u"endpointType"_s, u"WebHook"_s},
                                      {u"properties"_s, QJsonObject{{u"endpointUrl"_s, QString(base + receiver)}}}}},
                         {u"x-eventdesk"_s, QJsonObject{{u"validation"_s, false}}}}}};
    };
    const QJsonObject topic{{u"name"_s, u"orders"_s},
                            {u"inputSchema"_s, u"EventGridSchema"_s},
                            {u"eventSubscriptions"_s,
                             QJsonArray{subscription(u"to-flaky"_s, u"flaky"_s),
                                        subscription(u"to-ok"_s, u"ok"_s)}}};
    const QJsonArray receivers{
        QJsonObject{{u"name"_s, u"flaky"_s},
                    {u"script"_s, QJsonObject{{u"mode"_s, u"sequence"_s},
                                              {u"statuses"_s, QJsonArray{503, 200}},
                                              {u"after"_s, u"repeat"_s}}}},
        QJsonObject{{u"name"_s, u"ok"_s}, {u"status"_s, 200}},
        QJsonObject{{u"name"_s, u"chaos"_s},
                    {u"status"_s, 200},
                    {u"failureRate"_s, 0.3},
                    {u"seed"_s, 42},
                    {u"failureStatus"_s, 503},
                    {u"delayMs"_s, 1500},
                    {u"validation"_s, u"refuse"_s}}};
    const QJsonObject root{{u"topics"_s, QJsonArray{topic}}, {u"receivers"_s, receivers}};
    QFile file(directory + u"/workspace.json"_s);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QJsonDocument(root).toJson());
}

QByteArray events(int count)
{
    QJsonArray array;
    for (int i = 0; i < count; ++i) {
        array.append(QJsonObject{{u"id"_s, u"order-%1"_s.arg(i + 1)},
                                 {u"subject"_s, u"/orders/%1"_s.arg(i + 1)},
                                 {u"eventType"_s, u"Contoso.Orders.OrderCreated"_s},
                                 {u"eventTime"_s, u"2026-11-22T21:00:00Z"_s},
                                 {u"dataVersion"_s, u"1.0"_s},
                                 {u"data"_s, QJsonObject{{u"orderId"_s, 4711 + i}, {u"amount"_s, 25.5}}}});
    }
    return QJsonDocument(array).toJson(QJsonDocument::Compact);
}

int rowWithResponse(const QAbstractItemModel *model, const QString &response)
{
    for (int row = 0; row < model->rowCount(); ++row) {
        if (model->index(row, ReceivedRequestModel::ResponseColumn).data().toString() == response)
            return row;
    }
    return -1;
}

// The value of the header line "name: value" in a request's detail text, null when there is none.
// Names compare without case, as in HTTP: from Qt 6.7 on, QNetworkRequest sends every header name
// in lower case ("x-tenant"), before it as written ("X-Tenant").
QString headerValue(const QString &detail, QLatin1StringView name)
{
    const QStringList lines = detail.split(u'\n');
    for (const QString &line : lines) {
        const qsizetype colon = line.indexOf(u": "_s);
        if (colon > 0 && QStringView(line).left(colon).compare(name, Qt::CaseInsensitive) == 0)
            return line.mid(colon + 2);
    }
    return {};
}

} // namespace

class tst_ReceiversView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void describeScript_data();
    void describeScript();
    void receiverListModel();
    void requestModelMergesAndBounds();
    void requestModelColumns();
    void liveEngine();
    void secretsMaskedUntilRevealed();
};

void tst_ReceiversView::describeScript_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("expected");
    QTest::newRow("fixed") << R"({"name":"a","status":200})"_ba << u"fixed 200"_s;
    QTest::newRow("sequence repeat")
        << R"({"name":"a","script":{"mode":"sequence","statuses":[503,503,200],"after":"repeat"}})"_ba
        << u"503, 503, 200 then repeat"_s;
    QTest::newRow("sequence stick")
        << R"({"name":"a","script":{"mode":"sequence","statuses":[500,"close",200],"after":"stick"}})"_ba
        << u"500, close, 200 then stay at 200"_s;
    QTest::newRow("failure rate")
        << R"({"name":"a","status":200,"failureRate":0.3,"seed":42,"failureStatus":503})"_ba
        << u"fixed 200; 30 % fail (seed 42) with 503"_s;
    QTest::newRow("delay") << R"({"name":"a","status":200,"delayMs":45000})"_ba << u"fixed 200; delay 45 s"_s;
    QTest::newRow("close") << R"({"name":"a","closeConnection":true})"_ba << u"closes connection"_s;
    QTest::newRow("refuse validation") << R"({"name":"a","status":200,"validation":"refuse"})"_ba
                                       << u"fixed 200; refuses validation"_s;
}

void tst_ReceiversView::describeScript()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, expected);
    const auto receiver = TestReceiver::fromJson(QJsonDocument::fromJson(json).object(), u"receivers[0]"_s);
    QVERIFY2(receiver.hasValue(), qPrintable(receiver.error()));
    QCOMPARE(describeReceiverScript(receiver.value()), expected);
}

void tst_ReceiversView::receiverListModel()
{
    ReceiverListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    TestReceiver flaky;
    flaky.name = u"Flaky"_s;
    flaky.mode = TestReceiver::Mode::Sequence;
    flaky.statuses = {503, 200};
    TestReceiver ok;
    ok.name = u"ok"_s;
    model.setReceivers({flaky, ok}, u"http://127.0.0.1:5170"_s);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.index(0, ReceiverListModel::UrlColumn).data().toString(),
             u"http://127.0.0.1:5170/receivers/Flaky"_s);
    QCOMPARE(model.index(1, ReceiverListModel::ScriptColumn).data().toString(), u"fixed 200"_s);
    QCOMPARE(model.index(0, ReceiverListModel::RequestsColumn).data().toString(), u"0"_s);

    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.setReceivedCount(u"flaky"_s, 7); // names compare case-insensitively
    QCOMPARE(changed.size(), 1);
    QCOMPARE(model.index(0, ReceiverListModel::RequestsColumn).data().toString(), u"7"_s);
    QCOMPARE(model.rowOf(u"FLAKY"_s), 0);

    model.setReceivers({ok}, u"http://127.0.0.1:5170"_s); // counts of removed receivers go
    model.setReceivers({flaky, ok}, u"http://127.0.0.1:5170"_s);
    QCOMPARE(model.index(0, ReceiverListModel::RequestsColumn).data().toString(), u"0"_s);
}

void tst_ReceiversView::requestModelMergesAndBounds()
{
    ReceivedRequestModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setCurrentReceiver(u"flaky"_s);

    // The live signal (3..4) may arrive before the fetch (1..3): each record is held once, in order.
    model.addRecords({notification(u"flaky"_s, 3, 200), notification(u"flaky"_s, 4, 503)});
    model.addRecords({notification(u"flaky"_s, 1, 503), notification(u"flaky"_s, 2, 200),
                      notification(u"flaky"_s, 3, 200)});
    QCOMPARE(model.rowCount(), 4);
    for (int row = 0; row < 4; ++row)
        QCOMPARE(model.record(row).sequence, quint64(row + 1));
    QCOMPARE(model.lastSequence(u"Flaky"_s), quint64(4));

    // Another receiver's records are kept but not shown.
    model.addRecords({notification(u"ok"_s, 1, 200)});
    QCOMPARE(model.rowCount(), 4);
    model.setCurrentReceiver(u"ok"_s);
    QCOMPARE(model.rowCount(), 1);
    model.setCurrentReceiver(u"flaky"_s);

    // Bounded like the engine's ring: 1000 rows, the oldest dropped.
    QList<ReceivedRequest> burst;
    for (quint64 sequence = 5; sequence <= 1010; ++sequence)
        burst.append(notification(u"flaky"_s, sequence, 200));
    model.addRecords(burst);
    QCOMPARE(model.rowCount(), ReceivedRequestModel::Capacity);
    QCOMPARE(model.record(0).sequence, quint64(11));
    QCOMPARE(model.record(model.rowCount() - 1).sequence, quint64(1010));
    QCOMPARE(model.lastSequence(u"flaky"_s), quint64(1010));
    // A record older than the ring holds is not brought back.
    model.addRecords({notification(u"flaky"_s, 3, 200)});
    QCOMPARE(model.rowCount(), ReceivedRequestModel::Capacity);
    QCOMPARE(model.record(0).sequence, quint64(11));

    model.retainReceivers({u"ok"_s});
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.recordCount(u"ok"_s), 1);
    model.clear();
    QCOMPARE(model.recordCount(u"ok"_s), 0);
}

void tst_ReceiversView::requestModelColumns()
{
    ReceivedRequestModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setCurrentReceiver(u"r"_s);
    ReceivedRequest closed = notification(u"r"_s, 1, 0, 3);
    ReceivedRequest handshake;
    handshake.receiver = u"r"_s;
    handshake.sequence = 2;
    handshake.kind = ReceivedRequest::Kind::AbuseProtectionHandshake;
    handshake.method = "OPTIONS";
    handshake.headers = {{"WebHook-Request-Origin", "eventgrid.azure.net"}};
    handshake.responseStatus = 200;
    model.addRecords({closed, handshake});
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.index(0, ReceivedRequestModel::KindColumn).data().toString(), u"Notification"_s);
    QCOMPARE(model.index(0, ReceivedRequestModel::EventTypeColumn).data().toString(), u"Notification"_s);
    QCOMPARE(model.index(0, ReceivedRequestModel::DeliveryCountColumn).data().toString(), u"0"_s);
    QCOMPARE(model.index(0, ReceivedRequestModel::EventsColumn).data().toInt(), 3);
    QCOMPARE(model.index(0, ReceivedRequestModel::ResponseColumn).data().toString(), u"closed"_s);
    QCOMPARE(model.index(1, ReceivedRequestModel::KindColumn).data().toString(), u"Abuse protection"_s);
    QCOMPARE(model.index(1, ReceivedRequestModel::MethodColumn).data().toString(), u"OPTIONS"_s);
    QCOMPARE(model.index(1, ReceivedRequestModel::ResponseColumn).data().toString(), u"200"_s);
    QCOMPARE(ReceivedRequestModel::eventCount(R"({"id":"1"})"_ba), 1);
    QCOMPARE(ReceivedRequestModel::eventCount(QByteArray()), 0);
}

void tst_ReceiversView::liveEngine()
{
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    const quint16 port = freePort();
    writeWorkspace(directory.path(), port);

    EngineHost host;
    QSignalSpy started(&host, &EngineHost::started);
    ReceiversView view(&host);
    view.resize(1280, 720);
    view.show();

    auto *receiverList = view.findChild<QTreeView *>(u"receiverList"_s);
    auto *requestTable = view.findChild<QTableView *>(u"requestTable"_s);
    auto *requestDetail = view.findChild<QPlainTextEdit *>(u"requestDetail"_s);
    auto *responseDetail = view.findChild<QPlainTextEdit *>(u"responseDetail"_s);
    auto *hint = view.findChild<QLabel *>(u"receiversHint"_s);
    QVERIFY(receiverList && requestTable && requestDetail && responseDetail && hint);
    QAbstractItemModelTester receiverTester(receiverList->model(),
                                            QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester requestTester(requestTable->model(),
                                           QAbstractItemModelTester::FailureReportingMode::QtTest);

    EngineHost::Config config;
    config.workspaceDirectory = directory.path();
    config.listen.port = port;
    config.jitter = false;
    config.timeScale = 60.0; // the 10 s retry comes after a few hundred milliseconds
    host.start(config);
    QTRY_COMPARE(started.size(), 1);
    QVERIFY2(started.at(0).at(0).toBool(), qPrintable(started.at(0).at(1).toString()));

    // The view lists the workspace's receivers with their URL and script.
    const QAbstractItemModel *receivers = receiverList->model();
    QTRY_COMPARE(receivers->rowCount(), 3);
    QCOMPARE(receivers->index(0, ReceiverListModel::NameColumn).data().toString(), u"flaky"_s);
    QCOMPARE(receivers->index(0, ReceiverListModel::UrlColumn).data().toString(),
             host.listenUrl() + u"/receivers/flaky"_s);
    QCOMPARE(receivers->index(0, ReceiverListModel::ScriptColumn).data().toString(), u"503, 200 then repeat"_s);
    QVERIFY(hint->text().contains(u"workspace.json"_s));
    QVERIFY(hint->text().contains(QDir::toNativeSeparators(QDir(directory.path()).absolutePath()).toHtmlEscaped()));
    QCOMPARE(receiverList->currentIndex().row(), 0);

    bool published = false;
    host.publish(u"orders"_s, events(2), "application/json",
                 [&published](const PublishResult &) { published = true; });
    QTRY_VERIFY(published);

    // The first notification is answered 503 (the script's first step), the retry 200.
    const QAbstractItemModel *requests = requestTable->model();
    QTRY_VERIFY(rowWithResponse(requests, u"503"_s) >= 0);
    QTRY_VERIFY_WITH_TIMEOUT(rowWithResponse(requests, u"200"_s) >= 0, 15000);
    QTRY_COMPARE(receivers->index(0, ReceiverListModel::RequestsColumn).data().toString(),
                 QString::number(requests->rowCount()));
    const int failed = rowWithResponse(requests, u"503"_s);
    QCOMPARE(requests->index(failed, ReceivedRequestModel::KindColumn).data().toString(), u"Notification"_s);
    QCOMPARE(requests->index(failed, ReceivedRequestModel::MethodColumn).data().toString(), u"POST"_s);
    QCOMPARE(requests->index(failed, ReceivedRequestModel::EventTypeColumn).data().toString(), u"Notification"_s);
    QCOMPARE(requests->index(failed, ReceivedRequestModel::DeliveryCountColumn).data().toString(), u"0"_s);

    // Clicking the request shows its headers and pretty-printed body, and the answer given.
    QVERIFY(requestDetail->toPlainText().isEmpty());
    const QRect cell = requestTable->visualRect(requests->index(failed, ReceivedRequestModel::TimeColumn));
    QTest::mouseClick(requestTable->viewport(), Qt::LeftButton, {}, cell.center());
    QTRY_VERIFY(requestDetail->toPlainText().contains(u"aeg-event-type: Notification"_s));
    QVERIFY(requestDetail->toPlainText().contains(u"Contoso.Orders.OrderCreated"_s));
    QVERIFY(requestDetail->toPlainText().contains(u"\n    "_s)); // indented JSON
    QVERIFY(responseDetail->toPlainText().startsWith(u"HTTP 503"_s));
    QVERIFY(responseDetail->toPlainText().contains(u"Busy, retried"_s));

    // Keyboard: Down in the receiver list selects "ok", whose requests replace the table's.
    receiverList->setFocus();
    QTest::keyClick(receiverList, Qt::Key_Down);
    QCOMPARE(receiverList->currentIndex().row(), 1);
    QTRY_VERIFY(rowWithResponse(requests, u"200"_s) >= 0);
    QCOMPARE(rowWithResponse(requests, u"503"_s), -1);
    QVERIFY(requestDetail->toPlainText().isEmpty());

    // Records come back from the engine on reload (fetched by sequence, no duplicates).
    QTest::keyClick(receiverList, Qt::Key_Up);
    const int shown = requests->rowCount();
    view.reload();
    QCOMPARE(receiverList->currentIndex().row(), 0);
    QTRY_COMPARE(requests->rowCount(), shown);

    // Screenshot with a request selected, once the first event's retry has arrived too.
    QTRY_VERIFY(requests->rowCount() >= 3);
    QTest::mouseClick(requestTable->viewport(), Qt::LeftButton, {},
                      requestTable->visualRect(requests->index(rowWithResponse(requests, u"503"_s), 0)).center());
    QDir().mkpath(u"/tmp/eventdesk-shots"_s);
    QVERIFY(view.grab().save(u"/tmp/eventdesk-shots/receivers.png"_s));

    host.stop();
}

// A subscription to the built-in receiver "ok" that sends credentials: a function key in the URL,
// an Authorization header and an API key (both secret delivery headers, values from the secret
// store), and an ordinary header. The view masks the credentials, in what it shows and in what is
// copied from it, until "Show secret values" is ticked.
void tst_ReceiversView::secretsMaskedUntilRevealed()
{
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    const quint16 port = freePort();
    const QString functionKey = u"FnKey-Q29weVRoaXNOb3Q0"_s;
    const QString apiKey = u"sk_live_UmV2ZWFsT25seU9uQ2xpY2s"_s;
    const QString bearer = u"Bearer eyJhbGciOiJub25lIn0.c2VjcmV0LXRva2Vu"_s;
    const auto header = [](const QString &name, bool secret, const QString &value = {}) {
        QJsonObject properties {{u"isSecret"_s, secret}};
        if (!secret)
            properties.insert(u"value"_s, value);
        return QJsonObject {
            {u"name"_s, name}, {u"type"_s, u"Static"_s}, {u"properties"_s, properties}};
    };
    const QJsonObject subscription {
        {u"name"_s, u"to-ok"_s},
        {u"properties"_s,
         QJsonObject {
             {u"destination"_s,
              QJsonObject {
                  {u"endpointType"_s, u"WebHook"_s},
                  {u"properties"_s,
                   QJsonObject {
                       {u"endpointUrl"_s,
                        u"http://127.0.0.1:%1/receivers/ok?code=%2"_s.arg(port).arg(functionKey)},
                       {u"deliveryAttributeMappings"_s,
                        QJsonArray {header(u"X-Api-Key"_s, true), header(u"Authorization"_s, true),
                                    header(u"X-Tenant"_s, false, u"contoso"_s)}}}}}},
             {u"x-eventdesk"_s, QJsonObject {{u"validation"_s, false}}}}}};
    const QJsonObject root {
        {u"topics"_s,
         QJsonArray {QJsonObject {{u"name"_s, u"orders"_s},
                                  {u"eventSubscriptions"_s, QJsonArray {subscription}}}}},
        {u"receivers"_s, QJsonArray {QJsonObject {{u"name"_s, u"ok"_s}, {u"status"_s, 200}}}}};
    {
        QFile file(directory.filePath(u"workspace.json"_s));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QJsonDocument(root).toJson());
    }

    MemorySecretStore store;
    bool stored = false;
    store.write(u"header/orders/to-ok/X-Api-Key"_s, apiKey,
                [&stored](const Expected<void> &done) { stored = done.hasValue(); });
    QVERIFY(stored);
    store.write(u"header/orders/to-ok/Authorization"_s, bearer,
                [&stored](const Expected<void> &done) { stored = done.hasValue(); });
    QVERIFY(stored);
    auto secrets = std::make_shared<SecretCache>(QList<SecretStore *> {&store});
    QSignalSpy secretsLoaded(secrets.get(), &SecretCache::loaded);
    secrets->load(Workspace::fromJson(QJsonDocument(root).toJson(), u"workspace.json"_s).value());
    QTRY_COMPARE(secretsLoaded.size(), 1);

    EngineHost host;
    QSignalSpy started(&host, &EngineHost::started);
    ReceiversView view(&host);
    view.resize(1280, 720);
    view.show();
    auto *requestTable = view.findChild<QTableView *>(u"requestTable"_s);
    auto *requestDetail = view.findChild<QPlainTextEdit *>(u"requestDetail"_s);
    auto *reveal = view.findChild<QCheckBox *>(u"revealSecrets"_s);
    QVERIFY(requestTable && requestDetail && reveal);
    QVERIFY(!reveal->isChecked());

    EngineHost::Config config;
    config.workspaceDirectory = directory.path();
    config.listen.port = port;
    config.jitter = false;
    config.secrets = secrets;
    host.start(config);
    QTRY_COMPARE(started.size(), 1);
    QVERIFY2(started.at(0).at(0).toBool(), qPrintable(started.at(0).at(1).toString()));
    bool published = false;
    host.publish(u"orders"_s, events(1), "application/json",
                 [&published](const PublishResult &) { published = true; });
    QTRY_VERIFY(published);
    const QAbstractItemModel *requests = requestTable->model();
    QTRY_VERIFY(rowWithResponse(requests, u"200"_s) >= 0);
    QTest::mouseClick(
        requestTable->viewport(), Qt::LeftButton, {},
        requestTable->visualRect(requests->index(rowWithResponse(requests, u"200"_s), 0)).center());
    QTRY_COMPARE(headerValue(requestDetail->toPlainText(), "X-Tenant"_L1), u"contoso"_s);

    // Masked: the values are not shown, nor is their length.
    const QString mask = SecretStore::masked(u"x"_s);
    QString shown = requestDetail->toPlainText();
    QVERIFY2(headerValue(shown, "X-Api-Key"_L1) == mask && headerValue(shown, "Authorization"_L1) == mask,
             qPrintable(shown));
    QVERIFY2(shown.startsWith(u"POST /receivers/ok?code=***  ("_s), qPrintable(shown));
    for (const QString &secret : {functionKey, apiKey, bearer})
        QVERIFY2(!shown.contains(secret), qPrintable(secret));
    // What is copied is what is shown.
    requestDetail->selectAll();
    requestDetail->copy();
    const QString copied = QGuiApplication::clipboard()->text();
    QCOMPARE(headerValue(copied, "X-Tenant"_L1), u"contoso"_s);
    for (const QString &secret : {functionKey, apiKey, bearer})
        QVERIFY2(!copied.contains(secret), qPrintable(copied));
    QDir().mkpath(u"/tmp/eventdesk-shots"_s);
    QVERIFY(view.grab().save(u"/tmp/eventdesk-shots/receivers-secrets-masked.png"_s));

    // Revealed on request, for the selected request as it is shown.
    // (On the box itself: the check box spans the pane's width, its text does not.)
    const QPoint box(reveal->height() / 2, reveal->height() / 2);
    QTest::mouseClick(reveal, Qt::LeftButton, {}, box);
    QVERIFY(reveal->isChecked());
    shown = requestDetail->toPlainText();
    QVERIFY2(headerValue(shown, "X-Api-Key"_L1) == apiKey
                 && headerValue(shown, "Authorization"_L1) == bearer
                 && shown.contains(u"?code="_s + functionKey),
             qPrintable(shown));
    QVERIFY(view.grab().save(u"/tmp/eventdesk-shots/receivers-secrets-revealed.png"_s));

    // And masked again.
    QTest::mouseClick(reveal, Qt::LeftButton, {}, box);
    QVERIFY(!reveal->isChecked());
    QVERIFY(!requestDetail->toPlainText().contains(apiKey));
    host.stop();
}

QTEST_MAIN(tst_ReceiversView)
#include "tst_receiversview.moc"
