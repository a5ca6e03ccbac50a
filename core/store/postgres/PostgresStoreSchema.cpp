// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// What an EventDesk store is in PostgreSQL, how PostgresDeliveryStore recognizes one, and the
// placeholder translation that lets the SQL of the shared row mappings run on it.

#include "PostgresStoreState.h"

#include "../../Logging.h"
#include "../StoreTotals.h"

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

// The tables mirror those of the SQLite store (SqliteStoreSchema.h, which says why each index
// exists), with PostgreSQL's types: every integer is a bigint (the binary format then reads one
// width), text is text, bytes are bytea. Ids the store assigns come from identity columns, which
// never hand out an id twice, as SQLite's AUTOINCREMENT does.
//
// A new store is created as version 1 and migrated to the current version in the same
// transaction, so that a new store and a migrated one are the same schema by construction.
const QList<QByteArray> CreateVersion1Statements = {
    // The store's identity and schema version; a database without it and without other tables
    // is made a store, one with other tables is left alone.
    "CREATE TABLE eventdesk_store (application text NOT NULL, version integer NOT NULL)"_ba,
    "INSERT INTO eventdesk_store (application, version) VALUES ('EventDesk', 1)"_ba,
    // High-water marks of the engine-assigned ids (maxIds()): events and deliveries are deleted
    // when they reach their fate, and an id must not be handed out again after a restart.
    "CREATE TABLE meta (key text PRIMARY KEY, value bigint NOT NULL)"_ba,
    "INSERT INTO meta (key, value) VALUES ('max_event_seq', 0), ('max_delivery_id', 0)"_ba,
    "CREATE TABLE events (seq bigint PRIMARY KEY, topic text, event_id text, event_type text,"
    " subject text, data_version text, event_time text, publish_ms bigint, body bytea)"_ba,
    "CREATE TABLE deliveries (id bigint PRIMARY KEY, event_seq bigint NOT NULL, topic text,"
    " subscription text, state bigint, attempts bigint, due_ms bigint, publish_ms bigint,"
    " last_outcome bigint, last_http_status bigint, last_attempt_ms bigint, reason bigint,"
    " dl_unavailable_since_ms bigint)"_ba,
    "CREATE INDEX deliveries_by_event ON deliveries (event_seq)"_ba,
    "CREATE TABLE dead_letters (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, topic text,"
    " subscription text, event_id text, reason bigint, last_outcome bigint,"
    " last_http_status bigint, attempts bigint, publish_ms bigint, last_attempt_ms bigint,"
    " dead_lettered_ms bigint, blob_path text, record bytea, event_type text, subject text,"
    " data_version text, event_time text, event_body bytea)"_ba,
    // The filters of deadLetterConditions(); an equality filter's index ends in id, so that a
    // keyset page (id < beforeId, newest first) is a range of the index.
    "CREATE INDEX dead_letters_by_subscription ON dead_letters (subscription, id)"_ba,
    "CREATE INDEX dead_letters_by_topic_subscription ON dead_letters (topic, subscription, id)"_ba,
    "CREATE INDEX dead_letters_by_reason ON dead_letters (reason, id)"_ba,
    "CREATE INDEX dead_letters_by_outcome ON dead_letters (last_outcome, id)"_ba,
    "CREATE INDEX dead_letters_by_time ON dead_letters (dead_lettered_ms)"_ba,
    "CREATE INDEX dead_letters_by_event ON dead_letters (event_id)"_ba,
    "CREATE TABLE dropped (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, topic text,"
    " subscription text, event_id text, reason bigint, last_outcome bigint,"
    " last_http_status bigint, attempts bigint, dropped_ms bigint)"_ba,
    "CREATE INDEX dropped_by_event ON dropped (event_id)"_ba,
    "CREATE TABLE attempt_log (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
    " time_ms bigint, topic text, subscription text, attempt bigint, http_status bigint,"
    " outcome bigint, duration_ms bigint, next_due_ms bigint)"_ba,
    "CREATE TABLE attempt_events (attempt_id bigint NOT NULL, position bigint NOT NULL,"
    " event_id text NOT NULL, PRIMARY KEY (attempt_id, position))"_ba,
    "CREATE TABLE resubmissions (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
    " time_ms bigint, dead_letter_id bigint, event_id text, topic text, from_subscription text,"
    " reason bigint, dead_lettered_ms bigint, to_subscription text, delivery_id bigint,"
    " route bigint)"_ba,
    "CREATE INDEX resubmissions_by_event ON resubmissions (event_id)"_ba,
    "CREATE TABLE probation (topic text NOT NULL, subscription text NOT NULL, state bigint,"
    " cause bigint, until_ms bigint, duration_ms bigint, failures bigint,"
    " PRIMARY KEY (topic, subscription))"_ba,
};

// Version 2: several engines share the store (InstanceLeases).
const QList<QByteArray> MigrateToVersion2Statements = {
    // The engines sharing the store; an instance is live while its last heartbeat (the server's
    // clock) is younger than its lease. A lost lease is never renewed: the engine registers again.
    "CREATE TABLE instances (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
    " host_name text NOT NULL, process_id bigint NOT NULL, started_at timestamptz NOT NULL,"
    " heartbeat timestamptz NOT NULL, lease_ms bigint NOT NULL)"_ba,
    // The instance a delivery belongs to: NULL for the rows of a version-1 store and for those an
    // instance released at shutdown (its row deleted), which the next instance claims. The
    // reference makes an insert by an instance whose row is gone fail instead of storing rows
    // nobody would ever claim. The index serves the claim and the deletes of instance rows.
    "ALTER TABLE deliveries ADD COLUMN owner bigint REFERENCES instances (id) ON DELETE SET NULL"_ba,
    "CREATE INDEX deliveries_by_owner ON deliveries (owner)"_ba,
    // Who made each attempt (NULL: a version-1 row, or a store nobody registered on).
    "ALTER TABLE attempt_log ADD COLUMN instance bigint"_ba,
    // From now on meta holds the end of the id blocks handed out (reserveIds()); it starts past
    // every id a version-1 engine used, whether or not its high-water marks had caught up.
    "UPDATE meta SET value = GREATEST(value, coalesce((SELECT max(seq) FROM events), 0))"
    " WHERE key = 'max_event_seq'"_ba,
    "UPDATE meta SET value = GREATEST(value, coalesce((SELECT max(id) FROM deliveries), 0))"
    " WHERE key = 'max_delivery_id'"_ba,
    // Probation is per destination and shared by every instance (SPEC P1-P4): each write of a
    // row takes the next revision, a write with an older revision than the row's is dropped (the
    // last writer wins), and the instances read the rows others wrote.
    "CREATE SEQUENCE probation_revisions"_ba,
    "ALTER TABLE probation ADD COLUMN revision bigint NOT NULL DEFAULT 0"_ba,
    "ALTER TABLE probation ADD COLUMN instance bigint"_ba,
    "UPDATE eventdesk_store SET version = 2"_ba,
};

// Version 3: the topics and event subscriptions live in the store (SharedConfiguration), one row
// each, so that every instance and the desktop app see one configuration.
const QList<QByteArray> MigrateToVersion3Statements = {
    // key: the name in lower case, for Event Grid's names are unique compared case-insensitively
    // (and made of ASCII letters, digits and '-', so lower() needs no locale). arm: the topic's
    // JSON as workspace.json holds it, without its eventSubscriptions, or the subscription's ARM
    // JSON (topicToJson, eventSubscriptionToArm); the store reads them back with the rules of
    // workspace.json. revision: the configuration revision that last wrote the row, which
    // saveConfiguration() compares with the revision an edit started from. position: the order
    // rows were first written in (config_positions), which a later change keeps.
    "CREATE SEQUENCE config_positions"_ba,
    "CREATE TABLE config_topics (key text PRIMARY KEY, name text NOT NULL,"
    " position bigint NOT NULL, revision bigint NOT NULL, arm text NOT NULL)"_ba,
    // Removing a topic removes its subscriptions (ON DELETE CASCADE).
    "CREATE TABLE config_subscriptions (topic_key text NOT NULL"
    " REFERENCES config_topics (key) ON DELETE CASCADE, key text NOT NULL, name text NOT NULL,"
    " position bigint NOT NULL, revision bigint NOT NULL, arm text NOT NULL,"
    " PRIMARY KEY (topic_key, key))"_ba,
    // The configuration's revision: 0 until an instance imports its workspace.json. Every writer
    // of the configuration updates this row first, which also makes the writers take turns.
    "INSERT INTO meta (key, value) VALUES ('configuration_revision', 0)"_ba,
    "UPDATE eventdesk_store SET version = 3"_ba,
};

// Version 4: the running totals (StoreTotals.h). totals holds a value per topic, subscription and
// counter; the writers never update it: each transaction appends its changes to total_changes, so
// that instances publishing to one topic at once never wait for each other's row, and an instance
// now and then moves the changes into totals (PostgresStoreState::compactTotals). A reader adds
// both up, in one statement (one snapshot: a change is in one table or the other).
const QList<QByteArray> MigrateToVersion4Statements = [] {
    QList<QByteArray> statements = {
        "CREATE TABLE totals (topic text NOT NULL, subscription text NOT NULL,"
        " counter bigint NOT NULL, value bigint NOT NULL,"
        " PRIMARY KEY (topic, subscription, counter))"_ba,
        "CREATE TABLE total_changes (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
        " topic text NOT NULL, subscription text NOT NULL, counter bigint NOT NULL,"
        " value bigint NOT NULL)"_ba,
    };
    statements += rebuildTotalsStatements();
    statements += "UPDATE eventdesk_store SET version = 4"_ba;
    return statements;
}();

// The migrations by the version they start from: Migrations[v - 1] takes version v to v + 1.
const QList<const QList<QByteArray> *> Migrations
    = {&MigrateToVersion2Statements, &MigrateToVersion3Statements, &MigrateToVersion4Statements};
static_assert(PostgresSchemaVersion == 4, "add the migration to the new version to Migrations");

// Whether the store table exists, and how many tables, views and sequences the schema the
// connection creates its tables in holds.
constexpr char IdentifySql[]
    = "SELECT to_regclass('eventdesk_store') IS NOT NULL, (SELECT count(*) FROM "
      "pg_catalog.pg_class c"
      " JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
      " WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S'))";

} // namespace

QByteArray postgresPlaceholders(QByteArrayView sql)
{
    QByteArray converted;
    converted.reserve(sql.size() + 16);
    int number = 0;
    bool quoted = false;
    for (const char character : sql) {
        if (character == '\'')
            quoted = !quoted;
        if (character == '?' && !quoted) {
            converted += '$' + QByteArray::number(++number);
            continue;
        }
        converted += character;
    }
    return converted;
}

void bindConditions(PostgresParameters &parameters, const SqlConditions &conditions)
{
    for (const SqlConditions::Value &value : conditions.values())
        std::visit([&](const auto &bound) { parameters.bind(bound); }, value);
}

Expected<void> PostgresStoreState::runInTransaction(const QList<QByteArray> &statements,
                                                    const QString &what)
{
    for (const QByteArray &sql : statements) {
        if (auto done = connection->run(sql, what); !done) {
            // The connection may be gone with the failure: then the server rolls back.
            if (connection->isConnected())
                (void)connection->run("ROLLBACK"_ba, u"roll back"_s);
            return Error(done.error());
        }
    }
    return {};
}

Expected<void> PostgresStoreState::migrateSchema()
{
    // One transaction for all steps: a store is at one version or the other, never between.
    // The version row is locked first, so that engines starting together on a version-1 store
    // migrate it once: the others wait, then find the current version.
    const QString what = u"migrate the store schema to version %1"_s.arg(PostgresSchemaVersion);
    if (auto begun = connection->run("BEGIN"_ba, what); !begun)
        return Error(begun.error());
    auto version = connection->run("SELECT version FROM eventdesk_store FOR UPDATE"_ba, what);
    if (!version) {
        if (connection->isConnected())
            (void)connection->run("ROLLBACK"_ba, u"roll back"_s);
        return Error(version.error());
    }
    QList<QByteArray> steps;
    for (qint64 from = version->rowCount() == 1 ? version->columnInt64(0) : PostgresSchemaVersion;
         from < PostgresSchemaVersion; ++from)
        steps += *Migrations.at(from - 1);
    if (auto migrated = runInTransaction(steps, what); !migrated)
        return migrated;
    if (auto committed = connection->run("COMMIT"_ba, what); !committed)
        return Error(committed.error());
    if (!steps.isEmpty())
        qCInfo(lcStore).noquote() << "Migrated delivery store" << connection->displayUrl()
                                  << "to schema version" << PostgresSchemaVersion;
    return {};
}

Expected<void> PostgresStoreState::openSchema()
{
    const QString what = u"read what the database holds"_s;
    auto identity = connection->run(IdentifySql, what);
    if (!identity)
        return Error(identity.error());
    if (identity->rowCount() != 1)
        return connection->error(what, u"no answer"_s);
    const bool isStore = identity->columnInt64(0) != 0;
    const qint64 objectCount = identity->columnInt64(1);

    if (isStore) {
        auto version = connection->run("SELECT application, version FROM eventdesk_store"_ba,
                                       u"read the store's schema version"_s);
        if (!version)
            return Error(version.error());
        if (version->rowCount() != 1 || version->columnText(0) != u"EventDesk"_s)
            return connection->error(u"open it: its eventdesk_store table is damaged (it must "
                                     "hold one row, 'EventDesk' and the schema version)"_s);
        const qint64 found = version->columnInt64(1);
        if (found > PostgresSchemaVersion) {
            return connection->error(
                u"open it: it was written by a newer EventDesk (store version %1, this build "
                "reads version %2)"_s.arg(found)
                    .arg(PostgresSchemaVersion));
        }
        if (found < 1)
            return connection->error(u"open it: its schema version %1 is not valid"_s.arg(found));
        if (found < PostgresSchemaVersion)
            return migrateSchema();
        return {};
    }
    if (objectCount > 0) {
        return connection->error(
            u"open it: the database holds %1 tables or other objects of another application and "
            "no EventDesk store; it was left unchanged (give EventDesk an empty database)"_s.arg(
                objectCount));
    }

    // One transaction: a store exists completely or not at all. Two engines creating the same
    // store at once: the second one's CREATE TABLE fails, and it finds the store at its next open.
    const QString create = u"create the store schema"_s;
    if (auto begun = connection->run("BEGIN"_ba, create); !begun)
        return Error(begun.error());
    QList<QByteArray> statements = CreateVersion1Statements;
    for (const QList<QByteArray> *migration : Migrations)
        statements += *migration;
    if (auto created = runInTransaction(statements, create); !created)
        return created;
    if (auto committed = connection->run("COMMIT"_ba, create); !committed)
        return Error(committed.error());
    qCInfo(lcStore).noquote() << "Created delivery store" << connection->displayUrl();
    return {};
}

} // namespace EventDesk
