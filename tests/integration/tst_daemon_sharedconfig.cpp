// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// eventdeskd on a PostgreSQL store several instances share (issue 21): the topics and event
// subscriptions live in the store. The first instance imports its workspace.json's topics, the
// next one (whose workspace.json holds other topics) runs on the store's; a configuration imported
// by a third process is picked up and delivered to by both while they run; an invalid change is
// refused and both keep their last good configuration; export and import round-trip; a bad
// import file changes nothing and names the JSON path.

#include "DaemonProcess.h"
#include "PostgresServer.h"
#include "ScriptedReceiver.h"

#include <QFile>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace Qt::StringLiterals;
using namespace EventDesk::Testing;

namespace {

// Generous: the instances poll every 500 ms; these bound a failure, not the latency.
constexpr int PickUpTimeoutMs = 20'000;

QJsonObject subscriptionTo(const QString &name, const QUrl &url)
{
    WorkspaceJson::SubscriptionOptions options;
    options.name = name;
    options.endpointUrl = url;
    return WorkspaceJson::subscription(options);
}

// How many requests the receiver got on path carrying the event id.
int deliveriesOf(const ScriptedReceiver &receiver, const QByteArray &path, const QString &id)
{
    int count = 0;
    for (const ReceivedRequest &request : receiver.requests()) {
        if (request.path == path && request.eventIds().contains(id))
            ++count;
    }
    return count;
}

QByteArray readFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

class DaemonSharedConfigurationTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void actionsNeedAPostgresStore_data();
    void actionsNeedAPostgresStore();
    void instancesShareTheStoresConfiguration();

private:
    // Runs eventdeskd --store store with arguments until it exits; returns its exit code (-1:
    // it did not exit).
    int runAction(const QString &workspaceDir, const QString &store, const QStringList &arguments,
                  QString *output = nullptr);
    QString revisionOf(const QString &store);

    std::unique_ptr<PostgresServer> m_server;
    QTemporaryDir m_files;
};

void DaemonSharedConfigurationTest::initTestCase()
{
    QVERIFY2(QFileInfo(DaemonProcess::executablePath()).isExecutable(),
             qPrintable(DaemonProcess::executablePath()));
    QVERIFY(m_files.isValid());
    m_server = std::make_unique<PostgresServer>();
    QVERIFY2(m_server->isRunning(), qPrintable(m_server->errorText()));
}

int DaemonSharedConfigurationTest::runAction(const QString &workspaceDir, const QString &store,
                                             const QStringList &arguments, QString *output)
{
    DaemonProcess action(workspaceDir);
    QStringList all = arguments;
    if (!store.isEmpty())
        all += {u"--store"_s, store};
    all += {u"--secret-store"_s, u"none"_s};
    action.setExtraArguments(all);
    if (!action.runExpectingExit()) {
        qWarning().noquote() << action.standardError();
        return -1;
    }
    if (output)
        *output = action.standardOutput() + action.standardError();
    return action.exitStatus() == QProcess::NormalExit ? action.exitCode() : -1;
}

QString DaemonSharedConfigurationTest::revisionOf(const QString &store)
{
    QString revision;
    if (!m_server->execute(store, "SELECT value FROM meta WHERE key = 'configuration_revision'",
                           &revision))
        qWarning().noquote() << m_server->errorText();
    return revision;
}

void DaemonSharedConfigurationTest::actionsNeedAPostgresStore_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("expected");
    QTest::newRow("import without a store") << QStringList {u"--import-workspace"_s, u"some.json"_s}
                                            << u"--import-workspace: needs --store postgresql://"_s;
    QTest::newRow("export without a store") << QStringList {u"--export-workspace"_s, u"some.json"_s}
                                            << u"--export-workspace: needs --store postgresql://"_s;
    QTest::newRow("both at once") << QStringList {u"--import-workspace"_s,
                                                  u"a.json"_s,
                                                  u"--export-workspace"_s,
                                                  u"b.json"_s,
                                                  u"--store"_s,
                                                  u"postgresql://x@127.0.0.1/x"_s}
                                  << u"give one of them at a time"_s;
}

void DaemonSharedConfigurationTest::actionsNeedAPostgresStore()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, expected);
    QTemporaryDir workspace;
    QString output;
    QCOMPARE(runAction(workspace.path(), QString(), arguments, &output), 2);
    QVERIFY2(output.contains(expected), qPrintable(output));
}

void DaemonSharedConfigurationTest::instancesShareTheStoresConfiguration()
{
    const QString store = m_server->createDatabase(u"shared"_s);
    QVERIFY2(!store.isEmpty(), qPrintable(m_server->errorText()));
    ScriptedReceiver receiver;
    QVERIFY(receiver.listen());
    receiver.setDefaultAction(ReceiverAction::respond(200));

    // Two instances, each with its own workspace.json: the first has "orders", the second
    // "payments" and other settings.
    QTemporaryDir first;
    QTemporaryDir second;
    QVERIFY(WorkspaceJson::write(
        first.path(),
        WorkspaceJson::workspace({WorkspaceJson::topic(
            u"orders"_s, {subscriptionTo(u"audit"_s, receiver.url(u"/audit"_s))})})));
    QVERIFY(WorkspaceJson::write(
        second.path(),
        WorkspaceJson::workspace(
            {WorkspaceJson::topic(u"payments"_s,
                                  {subscriptionTo(u"ledger"_s, receiver.url(u"/ledger"_s))})},
            120, 5)));
    const QByteArray secondFile = readFile(second.path() + u"/workspace.json"_s);
    const auto instance = [&store](const QString &workspace) {
        auto daemon = std::make_unique<DaemonProcess>(workspace);
        daemon->setExtraArguments({u"--store"_s, store, u"--secret-store"_s, u"none"_s});
        return daemon;
    };
    auto one = instance(first.path());
    QVERIFY2(one->start(), qPrintable(one->standardError()));
    QVERIFY2(one->standardError().contains(u"imported this workspace.json's topics as revision 1 "
                                           "(1 topics, 1 subscriptions)"_s),
             qPrintable(one->standardError()));
    auto two = instance(second.path());
    QVERIFY2(two->start(), qPrintable(two->standardError()));
    QVERIFY2(two->standardError().contains(
                 u"using the shared configuration, revision 1 (1 topics, 1 subscriptions)"_s),
             qPrintable(two->standardError()));
    QVERIFY2(two->standardError().contains(u"topics differ from the shared configuration's and "
                                           "are ignored"_s),
             qPrintable(two->standardError()));
    QCOMPARE(revisionOf(store), u"1"_s);

    // The second instance serves the store's topic, not its own file's.
    QCOMPARE(two->publish(u"payments"_s, eventBatch({u"p-1"_s})).status, 404);
    QCOMPARE(two->publish(u"orders"_s, eventBatch({u"o-1"_s})).status, 200);
    QTRY_COMPARE_WITH_TIMEOUT(deliveriesOf(receiver, "/audit", u"o-1"_s), 1, PickUpTimeoutMs);
    QCOMPARE(readFile(second.path() + u"/workspace.json"_s), secondFile); // left as it was

    // A third process imports a configuration with a second subscription.
    const QString importFile = m_files.filePath(u"import.json"_s);
    QVERIFY(WorkspaceJson::write(
        m_files.path(),
        WorkspaceJson::workspace(
            {WorkspaceJson::topic(u"orders"_s,
                                  {subscriptionTo(u"audit"_s, receiver.url(u"/audit"_s)),
                                   subscriptionTo(u"billing"_s, receiver.url(u"/billing"_s))})})));
    QVERIFY(QFile::rename(m_files.filePath(u"workspace.json"_s), importFile));
    QTemporaryDir third;
    QString output;
    QCOMPARE(runAction(third.path(), store, {u"--import-workspace"_s, importFile}, &output), 0);
    QVERIFY2(output.contains(u"revision 2 (1 topics, 2 subscriptions)"_s), qPrintable(output));

    // Both instances pick it up while they run, and deliver to the new subscription.
    for (DaemonProcess *daemon : {one.get(), two.get()}) {
        QTRY_VERIFY2_WITH_TIMEOUT(
            daemon->standardError().contains(
                u"applied the shared configuration, revision 2 (1 topics, 2 subscriptions)"_s),
            qPrintable(daemon->standardError()), PickUpTimeoutMs);
    }
    QCOMPARE(one->publish(u"orders"_s, eventBatch({u"o-2"_s})).status, 200);
    QCOMPARE(two->publish(u"orders"_s, eventBatch({u"o-3"_s})).status, 200);
    for (const QString &id : {u"o-2"_s, u"o-3"_s}) {
        QTRY_COMPARE_WITH_TIMEOUT(deliveriesOf(receiver, "/billing", id), 1, PickUpTimeoutMs);
        QTRY_COMPARE_WITH_TIMEOUT(deliveriesOf(receiver, "/audit", id), 1, PickUpTimeoutMs);
    }

    // Export round-trips: the store's topics with the exporting instance's settings; imported
    // again and exported again, the same file.
    const QString exported = m_files.filePath(u"exported.json"_s);
    QCOMPARE(runAction(second.path(), store, {u"--export-workspace"_s, exported}, &output), 0);
    const QJsonObject exportedJson = QJsonDocument::fromJson(readFile(exported)).object();
    QCOMPARE(exportedJson.value("topics"_L1).toArray().size(), 1);
    const QJsonObject orders = exportedJson.value("topics"_L1).toArray().at(0).toObject();
    QCOMPARE(orders.value("name"_L1).toString(), u"orders"_s);
    QCOMPARE(orders.value("eventSubscriptions"_L1).toArray().size(), 2);
    QCOMPARE(
        exportedJson.value("settings"_L1).toObject().value("deadLetterDelaySeconds"_L1).toInt(),
        120);
    QCOMPARE(runAction(third.path(), store, {u"--import-workspace"_s, exported}, &output), 0);
    QCOMPARE(revisionOf(store), u"3"_s);
    for (DaemonProcess *daemon : {one.get(), two.get()}) {
        QTRY_VERIFY2_WITH_TIMEOUT(
            daemon->standardError().contains(
                u"applied the shared configuration, revision 3 (1 topics, 2 subscriptions)"_s),
            qPrintable(daemon->standardError()), PickUpTimeoutMs);
    }
    const QString again = m_files.filePath(u"again.json"_s);
    QCOMPARE(runAction(second.path(), store, {u"--export-workspace"_s, again}, &output), 0);
    QCOMPARE(readFile(again), readFile(exported));

    // A bad import file changes nothing, and says where it is wrong.
    const QString badFile = m_files.filePath(u"bad.json"_s);
    QByteArray bad = readFile(exported);
    QVERIFY(bad.contains("\"maxDeliveryAttempts\": 30"));
    bad.replace("\"maxDeliveryAttempts\": 30", "\"maxDeliveryAttempts\": 31");
    QFile badOut(badFile);
    QVERIFY(badOut.open(QIODevice::WriteOnly) && badOut.write(bad) == bad.size());
    badOut.close();
    QCOMPARE(runAction(third.path(), store, {u"--import-workspace"_s, badFile}, &output), 2);
    QVERIFY2(output.contains(badFile
                             + u": topics[0].eventSubscriptions[0].properties.retryPolicy."
                               "maxDeliveryAttempts: must be an integer from 1 to 30 (got "
                               "31)"_s),
             qPrintable(output));
    QCOMPARE(revisionOf(store), u"3"_s);

    // An invalid row written behind EventDesk's back: both instances log it and keep their last
    // good configuration (revision 3, still delivering to both subscriptions).
    QVERIFY2(m_server->execute(store,
                               "UPDATE config_subscriptions SET arm = '{}' WHERE key = 'billing';"
                               " UPDATE meta SET value = 4 WHERE key = 'configuration_revision'"),
             qPrintable(m_server->errorText()));
    for (DaemonProcess *daemon : {one.get(), two.get()}) {
        QTRY_VERIFY2_WITH_TIMEOUT(
            daemon->standardError().contains(
                u"cannot load the shared configuration's revision 4 (this instance keeps revision "
                "3)"_s),
            qPrintable(daemon->standardError()), PickUpTimeoutMs);
        QVERIFY2(
            daemon->standardError().contains(u"topics['orders'].eventSubscriptions['billing']"_s),
            qPrintable(daemon->standardError()));
    }
    QCOMPARE(one->publish(u"orders"_s, eventBatch({u"o-4"_s})).status, 200);
    QTRY_COMPARE_WITH_TIMEOUT(deliveriesOf(receiver, "/billing", u"o-4"_s), 1, PickUpTimeoutMs);

    // Fixed by an import: picked up again, here without the billing subscription.
    QVERIFY(QFile::remove(importFile));
    QVERIFY(WorkspaceJson::write(
        m_files.path(),
        WorkspaceJson::workspace({WorkspaceJson::topic(
            u"orders"_s, {subscriptionTo(u"audit"_s, receiver.url(u"/audit"_s))})})));
    QVERIFY(QFile::rename(m_files.filePath(u"workspace.json"_s), importFile));
    QCOMPARE(runAction(third.path(), store, {u"--import-workspace"_s, importFile}, &output), 0);
    for (DaemonProcess *daemon : {one.get(), two.get()}) {
        QTRY_VERIFY2_WITH_TIMEOUT(
            daemon->standardError().contains(
                u"applied the shared configuration, revision 5 (1 topics, 1 subscriptions)"_s),
            qPrintable(daemon->standardError()), PickUpTimeoutMs);
    }
    QCOMPARE(two->publish(u"orders"_s, eventBatch({u"o-5"_s})).status, 200);
    QTRY_COMPARE_WITH_TIMEOUT(deliveriesOf(receiver, "/audit", u"o-5"_s), 1, PickUpTimeoutMs);
    QCOMPARE(deliveriesOf(receiver, "/billing", u"o-5"_s), 0);

    QVERIFY2(one->terminate(), qPrintable(one->standardError()));
    QVERIFY2(two->terminate(), qPrintable(two->standardError()));
}

QTEST_GUILESS_MAIN(DaemonSharedConfigurationTest)
#include "tst_daemon_sharedconfig.moc"
