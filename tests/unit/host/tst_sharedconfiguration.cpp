// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// An instance on a store several engines share (issue 21), below eventdeskd: how its
// workspace.json meets the store's configuration at start (SharedWorkspace::adopt), and how
// SharedConfigurationWatcher follows the configuration while it runs: a new revision applied, an
// invalid one or one the instance cannot apply refused (the last good one kept, logged once), a
// store that went away logged once and asked again. The watcher's polls are called by the test,
// not by its timer. Against a real PostgreSQL server of this executable.

#include "PostgresServer.h"
#include "SharedStoreFixtures.h"
#include "host/SharedConfigurationWatcher.h"
#include "store/postgres/PostgresDeliveryStore.h"
#include "workspace/SharedWorkspace.h"

#include <QFile>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

#include <memory>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using EventDesk::Testing::PostgresServer;

namespace {

// The warnings logged while a test runs (the watcher's "logged once" is counted).
QStringList s_warnings;
QtMessageHandler s_previousHandler = nullptr;

void recordWarnings(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    if (type == QtWarningMsg)
        s_warnings.append(message);
    s_previousHandler(type, context, message);
}

qsizetype warningsContaining(const QString &text)
{
    return std::count_if(s_warnings.cbegin(), s_warnings.cend(),
                         [&text](const QString &warning) { return warning.contains(text); });
}

Topic topicWith(const QString &name, const QStringList &subscriptions)
{
    Topic topic;
    topic.name = name;
    for (const QString &subscriptionName : subscriptions) {
        EventSubscription subscription;
        subscription.name = subscriptionName;
        subscription.endpointUrl = QUrl(u"http://localhost:8080/receivers/"_s + subscriptionName);
        topic.eventSubscriptions.append(subscription);
    }
    return topic;
}

Workspace localWorkspace(const QList<Topic> &topics)
{
    Workspace workspace;
    workspace.topics = topics;
    workspace.settings.deadLetterDelaySeconds = 42;
    return workspace;
}

// What the watcher's apply saw, and what it answers (synchronously unless held).
struct Applier
{
    QList<SharedConfigurationSnapshot> seen;
    Expected<void> answer;
    bool hold = false;
    std::function<void(const Expected<void> &)> pending;

    SharedConfigurationWatcher::Apply function()
    {
        return [this](const SharedConfigurationSnapshot &snapshot,
                      std::function<void(const Expected<void> &)> done) {
            seen.append(snapshot);
            if (hold)
                pending = std::move(done);
            else
                done(answer);
        };
    }
};

} // namespace

class SharedConfigurationTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void firstInstanceImportsItsTopics();
    void laterInstanceUsesTheStores();
    void instancesStartingTogether();
    void importAndExportFiles();
    void watcherAppliesNewRevisions();
    void watcherKeepsLastGoodConfiguration();
    void watcherWaitsForItsApply();
    void watcherRetriesAStoreThatWentAway();

private:
    std::unique_ptr<PostgresDeliveryStore> openStore(const QString &database);

    std::unique_ptr<PostgresServer> m_server;
};

void SharedConfigurationTest::initTestCase()
{
    m_server = std::make_unique<PostgresServer>();
    QVERIFY2(m_server->isRunning(), qPrintable(m_server->errorText()));
}

void SharedConfigurationTest::init()
{
    s_warnings.clear();
    s_previousHandler = qInstallMessageHandler(recordWarnings);
}

void SharedConfigurationTest::cleanup()
{
    qInstallMessageHandler(s_previousHandler);
}

std::unique_ptr<PostgresDeliveryStore> SharedConfigurationTest::openStore(const QString &database)
{
    return EventDesk::Testing::openSharedStore(*m_server, database);
}

void SharedConfigurationTest::firstInstanceImportsItsTopics()
{
    auto store = openStore(u"first"_s);
    QVERIFY(store);
    Workspace workspace = localWorkspace({topicWith(u"orders"_s, {u"audit"_s, u"billing"_s})});
    const Workspace before = workspace;
    const auto adopted = SharedWorkspace::adopt(*store, workspace);
    QVERIFY2(adopted, qPrintable(adopted.error()));
    QVERIFY(adopted->imported);
    QCOMPARE(adopted->revision, 1);
    QCOMPARE(workspace.toJson(), before.toJson());
    const auto snapshot = store->loadConfiguration();
    QVERIFY(snapshot);
    QCOMPARE(SharedWorkspace::withTopics(workspace, snapshot->topics).toJson(), before.toJson());
    QCOMPARE(SharedWorkspace::describe(snapshot->revision, snapshot->topics),
             u"revision 1 (1 topics, 2 subscriptions)"_s);
}

void SharedConfigurationTest::laterInstanceUsesTheStores()
{
    auto store = openStore(u"later"_s);
    QVERIFY(store);
    QVERIFY(store->replaceConfiguration({topicWith(u"orders"_s, {u"audit"_s})}));
    QVERIFY(store->replaceConfiguration({topicWith(u"orders"_s, {u"audit"_s, u"billing"_s})}));

    Workspace workspace = localWorkspace({topicWith(u"payments"_s, {u"ledger"_s})});
    const auto adopted = SharedWorkspace::adopt(*store, workspace);
    QVERIFY2(adopted, qPrintable(adopted.error()));
    QVERIFY(!adopted->imported);
    QCOMPARE(adopted->revision, 2);
    QCOMPARE(workspace.topics.size(), 1);
    QCOMPARE(workspace.topics.first().name, u"orders"_s);
    QCOMPARE(workspace.topics.first().eventSubscriptions.size(), 2);
    QCOMPARE(workspace.settings.deadLetterDelaySeconds, 42); // local settings stay
    QCOMPARE(store->configurationRevision().value(), 2); // nothing written
}

void SharedConfigurationTest::instancesStartingTogether()
{
    // Instances that all found revision 0 import as edits from the empty configuration: the first
    // one's topics stay; a later one whose topics clash with them writes nothing and runs on the
    // store's; a later one whose topics do not clash adds them.
    auto store = openStore(u"together"_s);
    QVERIFY(store);
    Workspace first = localWorkspace({topicWith(u"orders"_s, {u"audit"_s})});
    QVERIFY(SharedWorkspace::adopt(*store, first));
    const QList<Topic> clashing
        = {topicWith(u"Orders"_s, {u"other"_s}), topicWith(u"refunds"_s, {u"ledger"_s})};
    const auto refused = store->saveConfiguration({}, clashing, 0);
    QVERIFY(!refused);
    QVERIFY2(refused.error().contains(u"added a topic named 'Orders'"_s),
             qPrintable(refused.error()));
    QVERIFY(store->saveConfiguration({}, {topicWith(u"payments"_s, {u"ledger"_s})}, 0));

    Workspace second = localWorkspace(clashing);
    const auto adopted = SharedWorkspace::adopt(*store, second);
    QVERIFY(adopted);
    QVERIFY(!adopted->imported);
    QCOMPARE(adopted->revision, 2);
    QCOMPARE(second.topics.size(), 2);
    QCOMPARE(second.topics.at(0).name, u"orders"_s);
    QCOMPARE(second.topics.at(0).eventSubscriptions.first().name, u"audit"_s);
    QCOMPARE(second.topics.at(1).name, u"payments"_s);
}

void SharedConfigurationTest::importAndExportFiles()
{
    auto store = openStore(u"files"_s);
    QVERIFY(store);
    QTemporaryDir folder;
    const QString source = folder.filePath(u"source.json"_s);
    const Workspace written = localWorkspace({topicWith(u"orders"_s, {u"audit"_s})});
    {
        QFile file(source);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QJsonDocument(written.toJson()).toJson());
    }
    const auto imported = SharedWorkspace::importFile(*store, source);
    QVERIFY2(imported, qPrintable(imported.error()));
    QCOMPARE(imported->revision, 1);

    Workspace local;
    local.settings.probationThreshold = 77;
    const QString target = folder.filePath(u"target.json"_s);
    const auto exported = SharedWorkspace::exportFile(*store, local, target);
    QVERIFY2(exported, qPrintable(exported.error()));
    QFile file(target);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const auto read = Workspace::fromJson(file.readAll(), target);
    QVERIFY2(read, qPrintable(read.error()));
    QCOMPARE(read->topics.first().eventSubscriptions.first().name, u"audit"_s);
    QCOMPARE(read->settings.probationThreshold, 77);

    // Missing or invalid files: an error naming them; nothing written.
    const auto missing = SharedWorkspace::importFile(*store, folder.filePath(u"none.json"_s));
    QVERIFY(!missing);
    QVERIFY2(missing.error().contains(u"none.json"_s), qPrintable(missing.error()));
    const QString invalid = folder.filePath(u"invalid.json"_s);
    {
        QFile bad(invalid);
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write(R"({"topics":[{"name":"x"}]})");
    }
    const auto refused = SharedWorkspace::importFile(*store, invalid);
    QVERIFY(!refused);
    QVERIFY2(refused.error().contains(invalid + u": topics[0].name: must be 3 to 50"_s),
             qPrintable(refused.error()));
    QCOMPARE(store->configurationRevision().value(), 1);
    const auto unwritable = SharedWorkspace::exportFile(
        *store, local, folder.filePath(u"no-such-folder/target.json"_s));
    QVERIFY(!unwritable);
    QVERIFY2(unwritable.error().contains(u"cannot write"_s), qPrintable(unwritable.error()));
}

void SharedConfigurationTest::watcherAppliesNewRevisions()
{
    auto store = openStore(u"watch"_s);
    auto other = openStore(u"watch"_s);
    QVERIFY(store && other);
    QVERIFY(other->replaceConfiguration({topicWith(u"orders"_s, {u"audit"_s})}));
    Applier applier;
    SharedConfigurationWatcher watcher(store.get(), 1, u"test store"_s, applier.function());
    QSignalSpy applied(&watcher, &SharedConfigurationWatcher::applied);

    watcher.poll();
    QVERIFY(applier.seen.isEmpty()); // revision 1 is the one it runs on

    QVERIFY(other->replaceConfiguration({topicWith(u"orders"_s, {u"audit"_s, u"billing"_s})}));
    watcher.poll();
    QCOMPARE(applier.seen.size(), 1);
    QCOMPARE(applier.seen.first().revision, 2);
    QCOMPARE(applier.seen.first().topics.first().eventSubscriptions.size(), 2);
    QCOMPARE(watcher.appliedRevision(), 2);
    QCOMPARE(applied.size(), 1);
    QCOMPARE(applied.first().first().toLongLong(), 2);
    watcher.poll();
    QCOMPARE(applier.seen.size(), 1); // nothing new
}

void SharedConfigurationTest::watcherKeepsLastGoodConfiguration()
{
    auto store = openStore(u"keep"_s);
    QVERIFY(store);
    QVERIFY(store->replaceConfiguration({topicWith(u"orders"_s, {u"audit"_s})}));
    Applier applier;
    SharedConfigurationWatcher watcher(store.get(), 1, u"test store"_s, applier.function());
    QSignalSpy refused(&watcher, &SharedConfigurationWatcher::refused);

    // An invalid row: not applied, logged once however often it is polled.
    QVERIFY(m_server->execute(m_server->databaseUrl(u"keep"_s),
                              "UPDATE config_subscriptions SET arm = '[]';"
                              " UPDATE meta SET value = 2 WHERE key = 'configuration_revision'"));
    for (int poll = 0; poll < 3; ++poll)
        watcher.poll();
    QVERIFY(applier.seen.isEmpty());
    QCOMPARE(watcher.appliedRevision(), 1);
    QCOMPARE(refused.size(), 3);
    QCOMPARE(warningsContaining(u"cannot load the shared configuration's revision 2 (this "
                                "instance keeps revision 1)"_s),
             1);
    QCOMPARE(warningsContaining(u"topics['orders'].eventSubscriptions['audit']: must hold a JSON "
                                "object"_s),
             1);

    // A revision the instance cannot apply: not tried again until the next one.
    QVERIFY(store->replaceConfiguration({topicWith(u"orders"_s, {u"audit"_s, u"billing"_s})}));
    applier.answer = Error(u"the dead-letter folder cannot be created"_s);
    watcher.poll();
    watcher.poll();
    QCOMPARE(applier.seen.size(), 1);
    QCOMPARE(watcher.appliedRevision(), 1);
    QCOMPARE(warningsContaining(u"was not applied; this instance keeps revision 1"_s), 1);
    QCOMPARE(warningsContaining(u"the dead-letter folder cannot be created"_s), 1);

    applier.answer = {};
    QVERIFY(store->replaceConfiguration({topicWith(u"orders"_s, {u"billing"_s})}));
    watcher.poll();
    QCOMPARE(applier.seen.size(), 2);
    QCOMPARE(watcher.appliedRevision(), 4);
}

void SharedConfigurationTest::watcherWaitsForItsApply()
{
    auto store = openStore(u"wait"_s);
    QVERIFY(store);
    QVERIFY(store->replaceConfiguration({topicWith(u"orders"_s, {u"audit"_s})}));
    Applier applier;
    applier.hold = true;
    SharedConfigurationWatcher watcher(store.get(), 0, u"test store"_s, applier.function());
    watcher.poll();
    QCOMPARE(applier.seen.size(), 1);
    QVERIFY(store->replaceConfiguration({topicWith(u"orders"_s, {u"billing"_s})}));
    watcher.poll(); // the first apply has not answered: no second one meanwhile
    QCOMPARE(applier.seen.size(), 1);
    QCOMPARE(watcher.appliedRevision(), 0);
    applier.pending({});
    QCOMPARE(watcher.appliedRevision(), 1);
    applier.hold = false;
    watcher.poll();
    QCOMPARE(applier.seen.size(), 2);
    QCOMPARE(watcher.appliedRevision(), 2);
}

void SharedConfigurationTest::watcherRetriesAStoreThatWentAway()
{
    auto store = openStore(u"away"_s);
    QVERIFY(store);
    QVERIFY(store->replaceConfiguration({topicWith(u"orders"_s, {u"audit"_s})}));
    Applier applier;
    SharedConfigurationWatcher watcher(store.get(), 1, u"test store"_s, applier.function());

    QVERIFY2(m_server->halt(), qPrintable(m_server->errorText()));
    for (int poll = 0; poll < 3; ++poll)
        watcher.poll();
    QCOMPARE(warningsContaining(u"cannot read the shared configuration's revision"_s), 1);
    QVERIFY2(m_server->resume(), qPrintable(m_server->errorText()));

    auto other = openStore(u"away"_s);
    QVERIFY(other);
    QVERIFY(other->replaceConfiguration({topicWith(u"orders"_s, {u"billing"_s})}));
    watcher.poll();
    QCOMPARE(applier.seen.size(), 1);
    QCOMPARE(watcher.appliedRevision(), 2);
    QCOMPARE(warningsContaining(u"cannot read the shared configuration's revision"_s), 1);
}

QTEST_GUILESS_MAIN(SharedConfigurationTest)
#include "tst_sharedconfiguration.moc"
