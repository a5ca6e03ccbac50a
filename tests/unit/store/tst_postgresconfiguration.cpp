// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// The topics and event subscriptions of a PostgreSQL store several engines share
// (SharedConfiguration, issue 21): what goes in comes back, edits of different subscriptions
// merge, edits of the same one conflict, invalid rows are errors that name them, and the schema
// version 3 that holds them (migrated from version 2, refused when newer). Against a real server
// of this executable.

#include "PostgresServer.h"
#include "SharedStoreFixtures.h"
#include "model/Workspace.h"
#include "store/postgres/PostgresDeliveryStore.h"

#include <QFile>
#include <QJsonDocument>
#include <QTest>

#include <atomic>
#include <memory>
#include <thread>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using EventDesk::Testing::PostgresServer;

namespace {

// topics as workspace.json writes them: every field of every topic and subscription.
QByteArray serialised(const QList<Topic> &topics)
{
    Workspace workspace;
    workspace.topics = topics;
    return QJsonDocument(workspace.toJson().value("topics"_L1).toArray()).toJson();
}

EventSubscription *subscriptionNamed(QList<Topic> &topics, const QString &topic,
                                     const QString &subscription)
{
    for (Topic &candidate : topics) {
        if (candidate.name.compare(topic, Qt::CaseInsensitive) != 0)
            continue;
        for (EventSubscription &each : candidate.eventSubscriptions) {
            if (each.name.compare(subscription, Qt::CaseInsensitive) == 0)
                return &each;
        }
    }
    return nullptr;
}

EventSubscription webhook(const QString &name)
{
    EventSubscription subscription;
    subscription.name = name;
    subscription.endpointUrl = QUrl(u"http://localhost:8080/receivers/"_s + name);
    return subscription;
}

} // namespace

class PostgresConfigurationTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();

    void newStoreHasRevisionZero();
    void roundTripsEveryFieldKind();
    void revisionGrowsWithEveryChange();
    void editsOfDifferentSubscriptionsBothLand();
    void secondEditOfTheSameSubscriptionConflicts();
    void concurrentEditsOfDifferentSubscriptionsAllLand();
    void removingATopicRemovesItsSubscriptions();
    void removingATopicConflictsWithAnEditOfItsSubscription();
    void namesAreCaseInsensitive();
    void invalidConfigurationIsNeverWritten();
    void invalidRowIsAnErrorNamingIt_data();
    void invalidRowIsAnErrorNamingIt();
    void badBaseRevisionIsRefused();
    void migratesVersion2Store();
    void refusesVersion5();

private:
    QList<Topic> fixtureTopics();
    std::unique_ptr<PostgresDeliveryStore> openStore(const QString &database);

    std::unique_ptr<PostgresServer> m_server;
};

void PostgresConfigurationTest::initTestCase()
{
    m_server = std::make_unique<PostgresServer>();
    QVERIFY2(m_server->isRunning(), qPrintable(m_server->errorText()));
}

QList<Topic> PostgresConfigurationTest::fixtureTopics()
{
    QFile file(QStringLiteral(EVENTDESK_STORE_FIXTURES) + u"/shared-configuration.json"_s);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read the fixture %s", qPrintable(file.fileName()));
    const auto workspace = Workspace::fromJson(file.readAll(), file.fileName());
    if (!workspace)
        qFatal("%s", qPrintable(workspace.error()));
    return workspace->topics;
}

std::unique_ptr<PostgresDeliveryStore> PostgresConfigurationTest::openStore(const QString &database)
{
    return EventDesk::Testing::openSharedStore(*m_server, database);
}

void PostgresConfigurationTest::newStoreHasRevisionZero()
{
    auto store = openStore(u"fresh"_s);
    QVERIFY(store);
    QCOMPARE(store->sharedConfiguration(), static_cast<SharedConfiguration *>(store.get()));
    const auto revision = store->configurationRevision();
    QVERIFY2(revision, qPrintable(revision.error()));
    QCOMPARE(revision.value(), 0);
    const auto snapshot = store->loadConfiguration();
    QVERIFY2(snapshot, qPrintable(snapshot.error()));
    QCOMPARE(snapshot->revision, 0);
    QVERIFY(snapshot->topics.isEmpty());
}

void PostgresConfigurationTest::roundTripsEveryFieldKind()
{
    const QList<Topic> topics = fixtureTopics();
    QCOMPARE(topics.size(), 4);
    QCOMPARE(topics.first().eventSubscriptions.size(), 7);
    {
        auto writer = openStore(u"round_trip"_s);
        QVERIFY(writer);
        const auto revision = writer->replaceConfiguration(topics);
        QVERIFY2(revision, qPrintable(revision.error()));
        QCOMPARE(revision.value(), 1);
    }
    // Another connection (another instance) reads exactly what was written, in its order.
    auto reader = openStore(u"round_trip"_s);
    QVERIFY(reader);
    const auto snapshot = reader->loadConfiguration();
    QVERIFY2(snapshot, qPrintable(snapshot.error()));
    QCOMPARE(snapshot->revision, 1);
    QCOMPARE(serialised(snapshot->topics), serialised(topics));
    QCOMPARE(snapshot->topics.at(0).name, u"Orders"_s); // the name as written, not its key
    QCOMPARE(snapshot->topics.at(0).accessKeySecretRef, u"topic/Orders/key"_s);
    QCOMPARE(snapshot->topics.at(2).inputSchema, EventSchema::Custom);
    QCOMPARE(snapshot->topics.at(2).inputSchemaMapping.eventTypeDefaultValue, u"Order.Unknown"_s);
    QVERIFY(snapshot->topics.at(3).eventSubscriptions.isEmpty());
}

void PostgresConfigurationTest::revisionGrowsWithEveryChange()
{
    auto store = openStore(u"revisions"_s);
    QVERIFY(store);
    const QList<Topic> topics = fixtureTopics();
    QCOMPARE(store->replaceConfiguration(topics).value(), 1);
    QCOMPARE(store->replaceConfiguration(topics).value(), 2); // an import always counts

    QList<Topic> edited = topics;
    subscriptionNamed(edited, u"orders"_s, u"min"_s)->retryPolicy.maxDeliveryAttempts = 3;
    const auto saved = store->saveConfiguration(topics, edited, 2);
    QVERIFY2(saved, qPrintable(saved.error()));
    QCOMPARE(saved.value(), 3);
    QCOMPARE(store->configurationRevision().value(), 3);

    // An edit that changes nothing writes nothing.
    const auto unchanged = store->saveConfiguration(edited, edited, 3);
    QVERIFY2(unchanged, qPrintable(unchanged.error()));
    QCOMPARE(unchanged.value(), 3);
    QCOMPARE(store->configurationRevision().value(), 3);

    // Rows written keep the revision that wrote them; those the edit left alone keep theirs.
    QString answer;
    const QString url = m_server->databaseUrl(u"revisions"_s);
    QVERIFY(m_server->execute(url, "SELECT revision FROM config_subscriptions WHERE key = 'min'",
                              &answer));
    QCOMPARE(answer, u"3"_s);
    QVERIFY(m_server->execute(url, "SELECT revision FROM config_subscriptions WHERE key = 'hub'",
                              &answer));
    QCOMPARE(answer, u"2"_s);
}

void PostgresConfigurationTest::editsOfDifferentSubscriptionsBothLand()
{
    auto first = openStore(u"merge"_s);
    auto second = openStore(u"merge"_s);
    QVERIFY(first && second);
    const QList<Topic> topics = fixtureTopics();
    QCOMPARE(first->replaceConfiguration(topics).value(), 1);

    // Both read revision 1, each edits another subscription of the same topic, and a third
    // writer adds a topic meanwhile.
    QList<Topic> firstEdit = topics;
    subscriptionNamed(firstEdit, u"Orders"_s, u"min"_s)->retryPolicy.maxDeliveryAttempts = 4;
    QList<Topic> secondEdit = topics;
    subscriptionNamed(secondEdit, u"Orders"_s, u"queue"_s)->filter.subjectBeginsWith = u"/x/"_s;
    secondEdit[0].eventSubscriptions.append(webhook(u"added"_s));
    QList<Topic> thirdEdit = topics;
    Topic extra;
    extra.name = u"extra"_s;
    extra.eventSubscriptions = {webhook(u"one"_s)};
    thirdEdit.append(extra);

    const auto firstSaved = first->saveConfiguration(topics, firstEdit, 1);
    QVERIFY2(firstSaved, qPrintable(firstSaved.error()));
    const auto secondSaved = second->saveConfiguration(topics, secondEdit, 1);
    QVERIFY2(secondSaved, qPrintable(secondSaved.error()));
    const auto thirdSaved = second->saveConfiguration(topics, thirdEdit, 1);
    QVERIFY2(thirdSaved, qPrintable(thirdSaved.error()));
    QCOMPARE(firstSaved.value(), 2);
    QCOMPARE(secondSaved.value(), 3);
    QCOMPARE(thirdSaved.value(), 4);

    auto snapshot = first->loadConfiguration();
    QVERIFY2(snapshot, qPrintable(snapshot.error()));
    QCOMPARE(snapshot->revision, 4);
    QCOMPARE(
        subscriptionNamed(snapshot->topics, u"orders"_s, u"min"_s)->retryPolicy.maxDeliveryAttempts,
        4);
    QCOMPARE(subscriptionNamed(snapshot->topics, u"orders"_s, u"queue"_s)->filter.subjectBeginsWith,
             u"/x/"_s);
    QVERIFY(subscriptionNamed(snapshot->topics, u"orders"_s, u"added"_s));
    QVERIFY(subscriptionNamed(snapshot->topics, u"extra"_s, u"one"_s));
    // Everything else as imported; new rows come after the ones written before them.
    QCOMPARE(snapshot->topics.size(), 5);
    QCOMPARE(snapshot->topics.last().name, u"extra"_s);
    QCOMPARE(snapshot->topics.first().eventSubscriptions.last().name, u"added"_s);
    QCOMPARE(subscriptionNamed(snapshot->topics, u"orders"_s, u"Everything-1"_s)
                 ->filter.advancedFilters.size(),
             7);
}

void PostgresConfigurationTest::secondEditOfTheSameSubscriptionConflicts()
{
    auto first = openStore(u"conflict"_s);
    auto second = openStore(u"conflict"_s);
    QVERIFY(first && second);
    const QList<Topic> topics = fixtureTopics();
    QCOMPARE(first->replaceConfiguration(topics).value(), 1);

    QList<Topic> firstEdit = topics;
    subscriptionNamed(firstEdit, u"Orders"_s, u"min"_s)->retryPolicy.maxDeliveryAttempts = 4;
    // The second edit changes the same subscription and, besides, another one: none of it lands.
    QList<Topic> secondEdit = topics;
    subscriptionNamed(secondEdit, u"Orders"_s, u"min"_s)->retryPolicy.maxDeliveryAttempts = 9;
    subscriptionNamed(secondEdit, u"Orders"_s, u"hub"_s)->retryPolicy.maxDeliveryAttempts = 9;

    QCOMPARE(first->saveConfiguration(topics, firstEdit, 1).value(), 2);
    const auto refused = second->saveConfiguration(topics, secondEdit, 1);
    QVERIFY(!refused);
    QVERIFY2(refused.error().contains(u"event subscription 'min' of topic 'Orders'"_s),
             qPrintable(refused.error()));
    QVERIFY2(refused.error().contains(u"since revision 1"_s), qPrintable(refused.error()));
    QVERIFY2(refused.error().contains(u"Nothing was written"_s), qPrintable(refused.error()));

    const auto snapshot = second->loadConfiguration();
    QVERIFY(snapshot);
    QCOMPARE(snapshot->revision, 2);
    QCOMPARE(serialised(snapshot->topics), serialised(firstEdit));

    // Reloaded, the second writer's edit lands.
    QList<Topic> again = snapshot->topics;
    subscriptionNamed(again, u"Orders"_s, u"min"_s)->retryPolicy.maxDeliveryAttempts = 9;
    const auto redone = second->saveConfiguration(snapshot->topics, again, snapshot->revision);
    QVERIFY2(redone, qPrintable(redone.error()));
    QCOMPARE(redone.value(), 3);
}

void PostgresConfigurationTest::concurrentEditsOfDifferentSubscriptionsAllLand()
{
    // Two writers at the same time, each on its own connection and thread, each editing its own
    // subscription again and again from the configuration it just loaded: edits of different
    // subscriptions never conflict, so every one of them lands.
    constexpr int EditsPerWriter = 25;
    const QList<Topic> topics = fixtureTopics();
    {
        auto store = openStore(u"concurrent"_s);
        QVERIFY(store);
        QCOMPARE(store->replaceConfiguration(topics).value(), 1);
    }
    auto first = openStore(u"concurrent"_s);
    auto second = openStore(u"concurrent"_s);
    QVERIFY(first && second);
    std::atomic<int> failures = 0;
    QStringList errors[2];
    const auto edit = [&failures, &errors](PostgresDeliveryStore *store, int writer,
                                           const QString &subscription) {
        for (int edit = 1; edit <= EditsPerWriter; ++edit) {
            const auto loaded = store->loadConfiguration();
            if (!loaded) {
                ++failures;
                errors[writer].append(loaded.error());
                continue;
            }
            QList<Topic> after = loaded->topics;
            subscriptionNamed(after, u"Orders"_s, subscription)->filter.subjectBeginsWith
                = u"/edit-%1/"_s.arg(edit);
            const auto saved = store->saveConfiguration(loaded->topics, after, loaded->revision);
            if (!saved) {
                ++failures;
                errors[writer].append(saved.error());
            }
        }
    };
    std::thread one(edit, first.get(), 0, u"min"_s);
    std::thread two(edit, second.get(), 1, u"queue"_s);
    one.join();
    two.join();
    QVERIFY2(failures == 0, qPrintable((errors[0] + errors[1]).join(u'\n')));
    auto snapshot = first->loadConfiguration();
    QVERIFY(snapshot);
    QCOMPARE(snapshot->revision, 1 + 2 * EditsPerWriter);
    QCOMPARE(subscriptionNamed(snapshot->topics, u"orders"_s, u"min"_s)->filter.subjectBeginsWith,
             u"/edit-%1/"_s.arg(EditsPerWriter));
    QCOMPARE(subscriptionNamed(snapshot->topics, u"orders"_s, u"queue"_s)->filter.subjectBeginsWith,
             u"/edit-%1/"_s.arg(EditsPerWriter));
}

void PostgresConfigurationTest::removingATopicRemovesItsSubscriptions()
{
    auto store = openStore(u"removal"_s);
    QVERIFY(store);
    const QList<Topic> topics = fixtureTopics();
    QCOMPARE(store->replaceConfiguration(topics).value(), 1);
    QList<Topic> without = topics;
    without.removeFirst();
    const auto saved = store->saveConfiguration(topics, without, 1);
    QVERIFY2(saved, qPrintable(saved.error()));

    const QString url = m_server->databaseUrl(u"removal"_s);
    QString answer;
    QVERIFY(m_server->execute(
        url, "SELECT count(*) FROM config_subscriptions WHERE topic_key = 'orders'", &answer));
    QCOMPARE(answer, u"0"_s);
    QVERIFY(m_server->execute(url, "SELECT count(*) FROM config_subscriptions", &answer));
    QCOMPARE(answer, u"3"_s);
    const auto snapshot = store->loadConfiguration();
    QVERIFY(snapshot);
    QCOMPARE(serialised(snapshot->topics), serialised(without));

    // The same name added again is a new topic, without the old subscriptions.
    Topic orders;
    orders.name = u"ORDERS"_s;
    QList<Topic> readded = without;
    readded.append(orders);
    QVERIFY(store->saveConfiguration(without, readded, 2));
    const auto again = store->loadConfiguration();
    QVERIFY(again);
    QCOMPARE(again->topics.last().name, u"ORDERS"_s);
    QVERIFY(again->topics.last().eventSubscriptions.isEmpty());
}

void PostgresConfigurationTest::removingATopicConflictsWithAnEditOfItsSubscription()
{
    auto first = openStore(u"removal_conflict"_s);
    auto second = openStore(u"removal_conflict"_s);
    QVERIFY(first && second);
    const QList<Topic> topics = fixtureTopics();
    QCOMPARE(first->replaceConfiguration(topics).value(), 1);

    QList<Topic> edited = topics;
    subscriptionNamed(edited, u"custom"_s, u"wrapped"_s)->retryPolicy.maxDeliveryAttempts = 2;
    QVERIFY(first->saveConfiguration(topics, edited, 1));
    QList<Topic> removed = topics;
    removed.removeAt(2); // "custom"
    const auto refused = second->saveConfiguration(topics, removed, 1);
    QVERIFY(!refused);
    QVERIFY2(refused.error().contains(u"topic 'custom'"_s), qPrintable(refused.error()));
    const auto snapshot = second->loadConfiguration();
    QVERIFY(snapshot);
    QCOMPARE(serialised(snapshot->topics), serialised(edited));

    // A subscription added to a topic another writer removed: refused as well.
    QList<Topic> removedFirst = snapshot->topics;
    removedFirst.removeAt(1); // "Cloud-Events-Topic"
    QVERIFY(first->saveConfiguration(snapshot->topics, removedFirst, snapshot->revision));
    QList<Topic> addedTo = snapshot->topics;
    addedTo[1].eventSubscriptions.append(webhook(u"late"_s));
    const auto late = second->saveConfiguration(snapshot->topics, addedTo, snapshot->revision);
    QVERIFY(!late);
    QVERIFY2(late.error().contains(u"'late'"_s), qPrintable(late.error()));
    QVERIFY2(late.error().contains(u"'Cloud-Events-Topic'"_s), qPrintable(late.error()));
}

void PostgresConfigurationTest::namesAreCaseInsensitive()
{
    auto first = openStore(u"names"_s);
    auto second = openStore(u"names"_s);
    QVERIFY(first && second);
    Topic lower;
    lower.name = u"orders"_s;
    Topic upper;
    upper.name = u"ORDERS"_s;
    const auto duplicate = first->replaceConfiguration({lower, upper});
    QVERIFY(!duplicate);
    QVERIFY2(duplicate.error().contains(u"topics['ORDERS'].name: duplicate topic name"_s),
             qPrintable(duplicate.error()));
    QCOMPARE(first->configurationRevision().value(), 0); // nothing written

    lower.eventSubscriptions = {webhook(u"audit"_s), webhook(u"AUDIT"_s)};
    const auto duplicateSubscription = first->replaceConfiguration({lower});
    QVERIFY(!duplicateSubscription);
    QVERIFY2(duplicateSubscription.error().contains(
                 u"topics['orders'].eventSubscriptions['AUDIT'].name: duplicate"_s),
             qPrintable(duplicateSubscription.error()));

    // Two writers add "orders" and "Orders" from the same revision: the second one conflicts.
    lower.eventSubscriptions.clear();
    QVERIFY(first->replaceConfiguration({}));
    QVERIFY(first->saveConfiguration({}, {lower}, 1));
    Topic mixed;
    mixed.name = u"Orders"_s;
    const auto refused = second->saveConfiguration({}, {mixed}, 1);
    QVERIFY(!refused);
    QVERIFY2(refused.error().contains(u"added a topic named 'Orders'"_s),
             qPrintable(refused.error()));
    // A change of case only is a change of the topic, not a new one.
    const auto renamed = first->saveConfiguration({lower}, {mixed}, 2);
    QVERIFY2(renamed, qPrintable(renamed.error()));
    const auto snapshot = second->loadConfiguration();
    QVERIFY(snapshot);
    QCOMPARE(snapshot->topics.size(), 1);
    QCOMPARE(snapshot->topics.first().name, u"Orders"_s);
}

void PostgresConfigurationTest::invalidConfigurationIsNeverWritten()
{
    auto store = openStore(u"invalid_write"_s);
    QVERIFY(store);
    const QList<Topic> topics = fixtureTopics();
    QCOMPARE(store->replaceConfiguration(topics).value(), 1);
    QList<Topic> bad = topics;
    subscriptionNamed(bad, u"orders"_s, u"min"_s)->retryPolicy.maxDeliveryAttempts = 31;
    const auto refused = store->saveConfiguration(topics, bad, 1);
    QVERIFY(!refused);
    QVERIFY2(refused.error().contains(u"topics['Orders'].eventSubscriptions['min'].properties."
                                      "retryPolicy.maxDeliveryAttempts: must be an integer from 1 "
                                      "to 30 (got 31)"_s),
             qPrintable(refused.error()));
    QVERIFY(!store->replaceConfiguration(bad));
    Topic badName;
    badName.name = u"no spaces"_s;
    const auto badTopic = store->replaceConfiguration({badName});
    QVERIFY(!badTopic);
    QVERIFY2(badTopic.error().contains(u"topics['no spaces'].name: must be"_s),
             qPrintable(badTopic.error()));
    QCOMPARE(store->configurationRevision().value(), 1);
    const auto snapshot = store->loadConfiguration();
    QVERIFY(snapshot);
    QCOMPARE(serialised(snapshot->topics), serialised(topics));
}

void PostgresConfigurationTest::invalidRowIsAnErrorNamingIt_data()
{
    QTest::addColumn<QByteArray>("tampering");
    QTest::addColumn<QString>("expected");
    QTest::newRow("subscription out of range")
        << QByteArray("UPDATE config_subscriptions SET arm = replace(arm,"
                      " '\"maxDeliveryAttempts\":10', '\"maxDeliveryAttempts\":31')"
                      " WHERE key = 'everything-1'")
        << u"topics['Orders'].eventSubscriptions['Everything-1'].properties.retryPolicy."
           "maxDeliveryAttempts: must be an integer from 1 to 30 (got 31)"_s;
    QTest::newRow("subscription not JSON")
        << QByteArray("UPDATE config_subscriptions SET arm = '{\"name\":' WHERE key = 'hub'")
        << u"topics['Orders'].eventSubscriptions['hub']: not valid JSON"_s;
    QTest::newRow("topic schema unknown")
        << QByteArray("UPDATE config_topics SET arm = replace(arm, 'CustomInputSchema', 'Yaml')"
                      " WHERE key = 'custom'")
        << u"topics['custom'].inputSchema: must be"_s;
    QTest::newRow("topic row of another name")
        << QByteArray("UPDATE config_topics SET arm = replace(arm, 'no-subscriptions', 'other')"
                      " WHERE key = 'no-subscriptions'")
        << u"topics['no-subscriptions'].name: must be the row's key 'no-subscriptions'"_s;
}

void PostgresConfigurationTest::invalidRowIsAnErrorNamingIt()
{
    QFETCH(QByteArray, tampering);
    QFETCH(QString, expected);
    const QString database = u"invalid_row_%1"_s.arg(QString::fromLatin1(QTest::currentDataTag()))
                                 .replace(u' ', u'_')
                                 .toLower();
    auto store = openStore(database);
    QVERIFY(store);
    const QList<Topic> topics = fixtureTopics();
    QCOMPARE(store->replaceConfiguration(topics).value(), 1);
    QVERIFY2(m_server->execute(m_server->databaseUrl(database), tampering),
             qPrintable(m_server->errorText()));

    const auto snapshot = store->loadConfiguration();
    QVERIFY(!snapshot);
    QVERIFY2(snapshot.error().contains(expected), qPrintable(snapshot.error()));
    QVERIFY2(snapshot.error().contains(u"invalid row"_s), qPrintable(snapshot.error()));
    // An edit on top of an invalid row is refused too: nothing merges into an invalid whole.
    QList<Topic> edited = topics;
    subscriptionNamed(edited, u"orders"_s, u"bus-queue"_s)->retryPolicy.maxDeliveryAttempts = 2;
    const auto refused = store->saveConfiguration(topics, edited, 1);
    QVERIFY(!refused);
    QVERIFY2(refused.error().contains(expected), qPrintable(refused.error()));
    QCOMPARE(store->configurationRevision().value(), 1);
    // An import replaces the invalid row.
    QVERIFY(store->replaceConfiguration(topics));
    QVERIFY(store->loadConfiguration());
}

void PostgresConfigurationTest::badBaseRevisionIsRefused()
{
    auto store = openStore(u"base_revision"_s);
    QVERIFY(store);
    Topic topic;
    topic.name = u"orders"_s;
    const auto negative = store->saveConfiguration({}, {topic}, -1);
    QVERIFY(!negative);
    QVERIFY2(negative.error().contains(u"baseRevision must be 0 or more (got -1)"_s),
             qPrintable(negative.error()));
    const auto future = store->saveConfiguration({}, {topic}, 7);
    QVERIFY(!future);
    QVERIFY2(future.error().contains(u"baseRevision must be at most the store's configuration "
                                     "revision 0 (got 7)"_s),
             qPrintable(future.error()));
    QCOMPARE(store->configurationRevision().value(), 0);
    QVERIFY(store->saveConfiguration({}, {topic}, 0));
    QCOMPARE(store->configurationRevision().value(), 1);
}

void PostgresConfigurationTest::migratesVersion2Store()
{
    const QString database = u"version_two"_s;
    {
        auto store = openStore(database);
        QVERIFY(store);
        QVERIFY(store->registerInstance(InstanceInfo {u"host-a"_s, 11, 5000}));
        StoredEvent event;
        event.seq = 1;
        event.topic = u"orders"_s;
        event.id = u"event-1"_s;
        event.body = "{}";
        DeliveryRecord delivery;
        delivery.id = 1;
        delivery.eventSeq = 1;
        delivery.topic = u"orders"_s;
        delivery.subscription = u"min"_s;
        delivery.attempts = 2;
        QVERIFY(store->insertPublished({event}, {delivery}));
    }
    // The store as a version-2 EventDesk left it: a new store is version 1 plus each migration,
    // so taking the objects of versions 3 and 4 away gives version 2 exactly.
    const QString url = m_server->databaseUrl(database);
    QVERIFY2(m_server->execute(url,
                               "DROP TABLE totals; DROP TABLE total_changes;"
                               " DROP TABLE config_subscriptions; DROP TABLE config_topics;"
                               " DROP SEQUENCE config_positions;"
                               " DELETE FROM meta WHERE key = 'configuration_revision';"
                               " UPDATE eventdesk_store SET version = 2"),
             qPrintable(m_server->errorText()));

    auto store = openStore(database);
    QVERIFY(store);
    QString answer;
    QVERIFY(m_server->execute(url, "SELECT version FROM eventdesk_store", &answer));
    QCOMPARE(answer, u"4"_s);
    QCOMPARE(store->configurationRevision().value(), 0);
    // Version 4's totals, rebuilt from the rows: the unfinished delivery was matched, and its
    // event published.
    QVERIFY(m_server->execute(url,
                              "SELECT string_agg(subscription || ':' || counter || '=' || value, ','"
                              " ORDER BY subscription, counter) FROM totals",
                              &answer));
    QCOMPARE(answer, u":1=1,min:3=1"_s);
    const auto deliveries = store->loadUnfinishedDeliveries();
    QVERIFY(deliveries);
    QCOMPARE(deliveries->size(), 1);
    QCOMPARE(deliveries->first().attempts, 2);
    QCOMPARE(deliveries->first().subscription, u"min"_s);
    QVERIFY(m_server->execute(url, "SELECT host_name FROM instances", &answer));
    QCOMPARE(answer, u"host-a"_s);
    QVERIFY(
        m_server->execute(url, "SELECT count(*) FROM deliveries WHERE owner IS NOT NULL", &answer));
    QCOMPARE(answer, u"1"_s);
    const QList<Topic> topics = fixtureTopics();
    QCOMPARE(store->replaceConfiguration(topics).value(), 1);
}

void PostgresConfigurationTest::refusesVersion5()
{
    const QString database = u"version_five"_s;
    QVERIFY(openStore(database));
    QVERIFY(m_server->execute(m_server->databaseUrl(database),
                              "UPDATE eventdesk_store SET version = 5"));
    PostgresDeliveryStore store;
    const auto opened = store.open(m_server->databaseUrl(database));
    QVERIFY(!opened);
    QVERIFY2(opened.error().contains(u"newer EventDesk (store version 5, this build reads "
                                     "version 4)"_s),
             qPrintable(opened.error()));
    QVERIFY(!store.configurationRevision());
}

QTEST_GUILESS_MAIN(PostgresConfigurationTest)
#include "tst_postgresconfiguration.moc"
