// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// PostgresDeliveryStore as the keeper of the topics and event subscriptions of the engines that
// share it (SharedConfiguration, issue 21): one row per topic and per subscription, holding the
// JSON workspace.json holds for it, read back with workspace.json's rules. The tables are in
// PostgresStoreSchema.cpp (version 3).
//
// Every writer first increments the configuration revision in meta: that row lock makes writers
// take turns, and each statement after it (READ COMMITTED) sees what the writer before committed,
// so the conflict checks below compare against the latest rows, not a stale snapshot.

#include "PostgresDeliveryStore.h"

#include "../../model/Workspace.h"
#include "PostgresStoreState.h"

#include <QHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

const QByteArray RevisionSql = "SELECT value FROM meta WHERE key = 'configuration_revision'"_ba;
const QByteArray NextRevisionSql = "UPDATE meta SET value = value + 1"
                                   " WHERE key = 'configuration_revision' RETURNING value"_ba;
// The whole configuration in one statement, so in one snapshot: the revision and the rows agree.
// One row per subscription (or per topic without any); a configuration without topics is one row
// of NULLs after the revision.
const QByteArray LoadSql
    = "SELECT r.value, t.key, t.name, t.arm, s.key, s.name, s.arm"
      " FROM (SELECT value FROM meta WHERE key = 'configuration_revision') r"
      " LEFT JOIN (config_topics t LEFT JOIN config_subscriptions s ON s.topic_key = t.key)"
      " ON true ORDER BY t.position, s.position"_ba;

// An edit's statements: each returns the row it wrote, none when another writer got there first
// (the row was changed after the edit's base revision, removed, or added under the same name).
const QByteArray InsertTopicSql = "INSERT INTO config_topics (key, name, position, revision, arm)"
                                  " VALUES ($1, $2, nextval('config_positions'), $3, $4)"
                                  " ON CONFLICT (key) DO NOTHING RETURNING key"_ba;
const QByteArray UpdateTopicSql = "UPDATE config_topics SET name = $2, revision = $3, arm = $4"
                                  " WHERE key = $1 AND revision <= $5 RETURNING key"_ba;
// A topic removed takes its subscriptions with it (ON DELETE CASCADE): none of them may have been
// changed or added after the base revision either.
const QByteArray DeleteTopicSql
    = "DELETE FROM config_topics WHERE key = $1 AND revision <= $2 AND NOT EXISTS"
      " (SELECT 1 FROM config_subscriptions WHERE topic_key = $1 AND revision > $2)"
      " RETURNING key"_ba;
const QByteArray InsertSubscriptionSql
    = "INSERT INTO config_subscriptions (topic_key, key, name, position, revision, arm)"
      " SELECT $1, $2, $3, nextval('config_positions'), $4, $5"
      " WHERE EXISTS (SELECT 1 FROM config_topics WHERE key = $1)"
      " ON CONFLICT (topic_key, key) DO NOTHING RETURNING key"_ba;
const QByteArray UpdateSubscriptionSql
    = "UPDATE config_subscriptions SET name = $3, revision = $4, arm = $5"
      " WHERE topic_key = $1 AND key = $2 AND revision <= $6 RETURNING key"_ba;
const QByteArray DeleteSubscriptionSql
    = "DELETE FROM config_subscriptions WHERE topic_key = $1 AND key = $2 AND revision <= $3"
      " RETURNING key"_ba;

// An import's statements: the revision is the one the transaction's first statement took.
const QByteArray DeleteAllSql = "DELETE FROM config_topics"_ba;
const QByteArray ImportTopicSql
    = "INSERT INTO config_topics (key, name, position, revision, arm)"
      " VALUES ($1, $2, nextval('config_positions'),"
      " (SELECT value FROM meta WHERE key = 'configuration_revision'), $3)"_ba;
const QByteArray ImportSubscriptionSql
    = "INSERT INTO config_subscriptions (topic_key, key, name, position, revision, arm)"
      " VALUES ($1, $2, $3, nextval('config_positions'),"
      " (SELECT value FROM meta WHERE key = 'configuration_revision'), $4)"_ba;

// Event Grid compares names case-insensitively; they are ASCII letters, digits and '-'.
QString nameKey(const QString &name)
{
    return name.toLower();
}

QString topicPath(const QString &topic)
{
    return u"topics['%1']"_s.arg(topic);
}

QString subscriptionPath(const QString &topic, const QString &subscription)
{
    return topicPath(topic) + u".eventSubscriptions['%1']"_s.arg(subscription);
}

// The row of a topic: its JSON as workspace.json holds it, without the subscriptions (rows of
// their own).
QString topicRow(const Topic &topic)
{
    QJsonObject object = topicToJson(topic);
    object.remove("eventSubscriptions"_L1);
    return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
}

QString subscriptionRow(const EventSubscription &subscription)
{
    return QString::fromUtf8(
        QJsonDocument(eventSubscriptionToArm(subscription)).toJson(QJsonDocument::Compact));
}

Expected<QJsonObject> parseRow(const QString &arm, const QString &path)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(arm.toUtf8(), &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return Error(u"%1: not valid JSON at offset %2: %3"_s.arg(path)
                         .arg(parseError.offset)
                         .arg(parseError.errorString()));
    if (!document.isObject())
        return Error(u"%1: must hold a JSON object"_s.arg(path));
    return document.object();
}

// Reads the rows of the configuration (each topic row followed by its subscription rows) as
// workspace.json is read: every field checked, the error names the topic and subscription.
class ConfigurationReader final
{
public:
    Expected<void> addTopic(const QString &key, const QString &name, const QString &arm)
    {
        const QString path = topicPath(name);
        auto object = parseRow(arm, path);
        if (!object)
            return Error(object.error());
        // Subscriptions are rows of their own; a topic row that holds some is read without them.
        object->remove("eventSubscriptions"_L1);
        auto topic = topicFromJson(object.value(), path);
        if (!topic)
            return Error(topic.error());
        if (nameKey(topic->name) != key)
            return Error(u"%1.name: must be the row's key '%2' in any case (got '%3')"_s.arg(
                path, key, topic->name));
        m_topics.append(std::move(topic).value());
        return {};
    }

    Expected<void> addSubscription(const QString &key, const QString &name, const QString &arm)
    {
        Topic &topic = m_topics.last();
        const QString path = subscriptionPath(topic.name, name);
        auto object = parseRow(arm, path);
        if (!object)
            return Error(object.error());
        auto subscription = eventSubscriptionFromArm(object.value(), path, topic.inputSchema);
        if (!subscription)
            return Error(subscription.error());
        if (nameKey(subscription->name) != key)
            return Error(u"%1.name: must be the row's key '%2' in any case (got '%3')"_s.arg(
                path, key, subscription->name));
        topic.eventSubscriptions.append(std::move(subscription).value());
        return {};
    }

    QList<Topic> takeTopics() { return std::exchange(m_topics, {}); }

private:
    QList<Topic> m_topics;
};

// What the configuration reads as after it is written: the rows of topics as the reader reads
// them, or the first problem. Nothing is written that would not read back.
Expected<void> checkWritable(const QList<Topic> &topics)
{
    ConfigurationReader reader;
    QHash<QString, QString> topicNames;
    for (const Topic &topic : topics) {
        const QString key = nameKey(topic.name);
        if (const auto earlier = topicNames.constFind(key); earlier != topicNames.cend())
            return Error(u"%1.name: duplicate topic name '%2' (see topics['%3']; names are "
                         "compared case-insensitively)"_s.arg(topicPath(topic.name), topic.name,
                                                              earlier.value()));
        topicNames.insert(key, topic.name);
        if (auto read = reader.addTopic(key, topic.name, topicRow(topic)); !read)
            return read;
        QHash<QString, QString> subscriptionNames;
        for (const EventSubscription &subscription : topic.eventSubscriptions) {
            const QString subscriptionKey = nameKey(subscription.name);
            if (const auto earlier = subscriptionNames.constFind(subscriptionKey);
                earlier != subscriptionNames.cend())
                return Error(u"%1.name: duplicate event subscription name '%2' in topic '%3' "
                             "(names are compared case-insensitively)"_s.arg(
                                 subscriptionPath(topic.name, subscription.name), subscription.name,
                                 topic.name));
            subscriptionNames.insert(subscriptionKey, subscription.name);
            if (auto read = reader.addSubscription(subscriptionKey, subscription.name,
                                                   subscriptionRow(subscription));
                !read)
                return read;
        }
    }
    return {};
}

const Topic *findByKey(const QList<Topic> &topics, const QString &key)
{
    for (const Topic &topic : topics) {
        if (nameKey(topic.name) == key)
            return &topic;
    }
    return nullptr;
}

const EventSubscription *findByKey(const QList<EventSubscription> &subscriptions,
                                   const QString &key)
{
    for (const EventSubscription &subscription : subscriptions) {
        if (nameKey(subscription.name) == key)
            return &subscription;
    }
    return nullptr;
}

// The statements of an edit, run one by one inside one transaction (each one's answer decides
// whether the edit goes on); rolled back unless committed, also on an early return.
class EditTransaction final
{
public:
    EditTransaction(PostgresConnection &connection, const QString &what)
        : m_connection(connection)
        , m_what(what)
    {
    }
    ~EditTransaction()
    {
        if (m_open && m_connection.isConnected())
            (void)m_connection.run("ROLLBACK"_ba, u"roll back"_s);
    }
    Q_DISABLE_COPY_MOVE(EditTransaction)

    Expected<void> begin()
    {
        if (auto begun = m_connection.run("BEGIN"_ba, m_what); !begun)
            return Error(begun.error());
        m_open = true;
        return {};
    }
    Expected<PostgresResult> execute(const QByteArray &sql, const PostgresParameters &parameters)
    {
        return m_connection.execute(sql, parameters, m_what);
    }
    // Whether the statement wrote its row; false: another writer was first.
    Expected<bool> wrote(const QByteArray &sql, const PostgresParameters &parameters)
    {
        auto result = execute(sql, parameters);
        if (!result)
            return Error(result.error());
        return result->rowCount() == 1;
    }
    Expected<void> commit()
    {
        if (auto committed = m_connection.run("COMMIT"_ba, m_what); !committed)
            return Error(committed.error());
        m_open = false;
        return {};
    }

private:
    PostgresConnection &m_connection;
    QString m_what;
    bool m_open = false;
};

Error conflict(qint64 baseRevision, const QString &what)
{
    return Error(
        u"The configuration was changed by another writer since revision %1: %2. Nothing "
        "was written; load the configuration again and redo the change."_s.arg(baseRevision)
            .arg(what));
}

// Reads the answer of LoadSql.
Expected<SharedConfigurationSnapshot> readSnapshot(PostgresResult &result)
{
    SharedConfigurationSnapshot snapshot;
    ConfigurationReader reader;
    QString lastTopic;
    const int count = result.rowCount();
    for (int row = 0; row < count; ++row) {
        result.setRow(row);
        snapshot.revision = result.columnInt64(0);
        if (result.isNull(1))
            continue;
        const QString topicKey = result.columnText(1);
        if (row == 0 || topicKey != lastTopic) {
            if (auto read = reader.addTopic(topicKey, result.columnText(2), result.columnText(3));
                !read)
                return Error(read.error());
            lastTopic = topicKey;
        }
        if (!result.isNull(4)) {
            if (auto read = reader.addSubscription(result.columnText(4), result.columnText(5),
                                                   result.columnText(6));
                !read)
                return Error(read.error());
        }
    }
    snapshot.topics = reader.takeTopics();
    return snapshot;
}

} // namespace

Expected<qint64> PostgresDeliveryStore::configurationRevision()
{
    const std::lock_guard lock(d->mutex);
    if (!d->connection)
        return d->notOpen();
    auto revision = d->connection->execute(RevisionSql, {}, u"read the configuration revision"_s);
    if (!revision)
        return Error(revision.error());
    if (revision->rowCount() != 1)
        return d->connection->error(u"read the configuration revision"_s,
                                    u"the store's meta table lacks its configuration row"_s);
    return revision->columnInt64(0);
}

Expected<SharedConfigurationSnapshot> PostgresDeliveryStore::loadConfiguration()
{
    const std::lock_guard lock(d->mutex);
    if (!d->connection)
        return d->notOpen();
    const QString what = u"load the configuration"_s;
    auto rows = d->connection->execute(LoadSql, {}, what);
    if (!rows)
        return Error(rows.error());
    if (rows->rowCount() == 0)
        return d->connection->error(what, u"the store's meta table lacks its configuration row"_s);
    auto snapshot = readSnapshot(rows.value());
    if (!snapshot)
        return d->connection->error(what, u"it holds an invalid row: "_s + snapshot.error());
    return snapshot;
}

Expected<qint64> PostgresDeliveryStore::saveConfiguration(const QList<Topic> &before,
                                                          const QList<Topic> &after,
                                                          qint64 baseRevision)
{
    const QString what = u"save the configuration"_s;
    if (baseRevision < 0)
        return Error(u"baseRevision must be 0 or more (got %1)"_s.arg(baseRevision));
    if (auto writable = checkWritable(after); !writable)
        return Error(u"Cannot %1: %2"_s.arg(what, writable.error()));

    const std::lock_guard lock(d->mutex);
    if (!d->connection)
        return d->notOpen();

    // The differences, by name in any case: a renamed topic or subscription is one removed and
    // one added.
    QStringList removedTopics;
    for (const Topic &topic : before) {
        if (!findByKey(after, nameKey(topic.name)))
            removedTopics.append(topic.name);
    }
    bool changes = !removedTopics.isEmpty();
    for (const Topic &topic : after) {
        const Topic *old = findByKey(before, nameKey(topic.name));
        if (!old || topicRow(*old) != topicRow(topic)
            || old->eventSubscriptions.size() != topic.eventSubscriptions.size())
            changes = true;
        for (qsizetype index = 0; old && !changes && index < topic.eventSubscriptions.size();
             ++index) {
            const EventSubscription &subscription = topic.eventSubscriptions.at(index);
            const EventSubscription *was
                = findByKey(old->eventSubscriptions, nameKey(subscription.name));
            changes = !was || subscriptionRow(*was) != subscriptionRow(subscription);
        }
    }
    if (!changes)
        return configurationRevision(); // nothing to write: the revision stays

    EditTransaction transaction(*d->connection, what);
    if (auto begun = transaction.begin(); !begun)
        return Error(begun.error());
    auto next = transaction.execute(NextRevisionSql, {});
    if (!next)
        return Error(next.error());
    if (next->rowCount() != 1)
        return d->connection->error(what, u"the store's meta table lacks its configuration row"_s);
    const qint64 revision = next->columnInt64(0);
    if (baseRevision >= revision)
        return Error(u"baseRevision must be at most the store's configuration revision %1 (got "
                     "%2)"_s.arg(revision - 1)
                         .arg(baseRevision));

    for (const QString &name : std::as_const(removedTopics)) {
        PostgresParameters parameters;
        parameters.bindAll(nameKey(name), baseRevision);
        auto wrote = transaction.wrote(DeleteTopicSql, parameters);
        if (!wrote)
            return Error(wrote.error());
        if (!wrote.value())
            return conflict(baseRevision,
                            u"it changed or removed the topic '%1' or one of its event "
                            "subscriptions, which this change removes"_s.arg(name));
    }

    for (const Topic &topic : after) {
        const QString topicKey = nameKey(topic.name);
        const Topic *old = findByKey(before, topicKey);
        if (!old || topicRow(*old) != topicRow(topic)) {
            PostgresParameters parameters;
            parameters.bindAll(topicKey, topic.name, revision, topicRow(topic));
            if (old)
                parameters.bind(baseRevision);
            auto wrote = transaction.wrote(old ? UpdateTopicSql : InsertTopicSql, parameters);
            if (!wrote)
                return Error(wrote.error());
            if (!wrote.value())
                return conflict(baseRevision,
                                old ? u"it changed or removed the topic '%1'"_s.arg(topic.name)
                                    : u"it added a topic named '%1'"_s.arg(topic.name));
        }
        const QList<EventSubscription> none;
        const QList<EventSubscription> &was = old ? old->eventSubscriptions : none;
        for (const EventSubscription &subscription : was) {
            const QString key = nameKey(subscription.name);
            if (findByKey(topic.eventSubscriptions, key))
                continue;
            PostgresParameters parameters;
            parameters.bindAll(topicKey, key, baseRevision);
            auto wrote = transaction.wrote(DeleteSubscriptionSql, parameters);
            if (!wrote)
                return Error(wrote.error());
            if (!wrote.value())
                return conflict(baseRevision,
                                u"it changed or removed the event subscription '%1' of topic "
                                "'%2'"_s.arg(subscription.name, topic.name));
        }
        for (const EventSubscription &subscription : topic.eventSubscriptions) {
            const QString key = nameKey(subscription.name);
            const EventSubscription *previous = findByKey(was, key);
            const QString row = subscriptionRow(subscription);
            if (previous && subscriptionRow(*previous) == row)
                continue;
            PostgresParameters parameters;
            parameters.bindAll(topicKey, key, subscription.name, revision, row);
            if (previous)
                parameters.bind(baseRevision);
            auto wrote = transaction.wrote(previous ? UpdateSubscriptionSql : InsertSubscriptionSql,
                                           parameters);
            if (!wrote)
                return Error(wrote.error());
            if (!wrote.value())
                return conflict(
                    baseRevision,
                    previous
                        ? u"it changed or removed the event subscription '%1' of topic '%2'"_s.arg(
                            subscription.name, topic.name)
                        : u"it removed the topic '%2' or added an event subscription named "
                          "'%1' to it"_s.arg(subscription.name, topic.name));
        }
    }

    // Edits of different rows merge; the result must still read as a configuration (a topic's
    // input schema changed by one writer, a subscription of it by another, may not agree).
    auto merged = transaction.execute(LoadSql, {});
    if (!merged)
        return Error(merged.error());
    if (auto valid = readSnapshot(merged.value()); !valid)
        return conflict(baseRevision,
                        u"together with this change the configuration would not be valid: "_s
                            + valid.error());
    if (auto committed = transaction.commit(); !committed)
        return Error(committed.error());
    return revision;
}

Expected<qint64> PostgresDeliveryStore::replaceConfiguration(const QList<Topic> &topics)
{
    const QString what = u"import the configuration"_s;
    if (auto writable = checkWritable(topics); !writable)
        return Error(u"Cannot %1: %2"_s.arg(what, writable.error()));

    const std::lock_guard lock(d->mutex);
    if (!d->connection)
        return d->notOpen();
    PostgresTransaction transaction;
    transaction.add(NextRevisionSql, u"take the next configuration revision"_s);
    transaction.add(DeleteAllSql, u"remove the topics"_s);
    for (const Topic &topic : topics) {
        const QString topicKey = nameKey(topic.name);
        transaction.add(ImportTopicSql, u"store topic '%1'"_s.arg(topic.name))
            .bindAll(topicKey, topic.name, topicRow(topic));
        for (const EventSubscription &subscription : topic.eventSubscriptions) {
            transaction
                .add(ImportSubscriptionSql,
                     u"store event subscription '%1' of topic '%2'"_s.arg(subscription.name,
                                                                          topic.name))
                .bindAll(topicKey, nameKey(subscription.name), subscription.name,
                         subscriptionRow(subscription));
        }
    }
    auto results = d->connection->transaction(transaction.commands, transaction.whats);
    if (!results)
        return Error(results.error());
    const PostgresResult &revision = results->front();
    if (revision.rowCount() != 1)
        return d->connection->error(what, u"the store's meta table lacks its configuration row"_s);
    return revision.columnInt64(0);
}

} // namespace EventDesk
