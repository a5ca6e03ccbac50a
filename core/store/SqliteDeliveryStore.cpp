#include "SqliteDeliveryStore.h"

#include "../Logging.h"

#include <QAtomicInteger>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

#include <algorithm>
#include <cstring>
#include <map>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

constexpr int SchemaVersion = 1;

// PRAGMA application_id ("EvDk"): tells an EventDesk store apart from any other SQLite file,
// so that open() never adds tables to somebody else's database.
constexpr int ApplicationId = 0x45764b64;

// SQLite before 3.32 allows 999 host parameters per statement; stay well below it.
constexpr int MaxParametersPerQuery = 500;

// The first 16 bytes of every SQLite 3 database file (the NUL included).
constexpr char SqliteFileHeader[] = "SQLite format 3";
static_assert(sizeof(SqliteFileHeader) == 16);

const QString MaxEventSeqKey = u"max_event_seq"_s;
const QString MaxDeliveryIdKey = u"max_delivery_id"_s;

const QStringList SchemaStatements = {
    // High-water marks of the engine-assigned ids: events and deliveries are deleted when they
    // reach their fate, and maxIds() must not hand out an id again after a restart.
    u"CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL)"_s,
    u"INSERT INTO meta (key, value) VALUES ('max_event_seq', 0), ('max_delivery_id', 0)"_s,
    u"CREATE TABLE events (seq INTEGER PRIMARY KEY, topic TEXT, event_id TEXT, event_type TEXT,"
    " subject TEXT, data_version TEXT, event_time TEXT, publish_ms INTEGER, body BLOB)"_s,
    u"CREATE TABLE deliveries (id INTEGER PRIMARY KEY, event_seq INTEGER, topic TEXT,"
    " subscription TEXT, state INTEGER, attempts INTEGER, due_ms INTEGER, publish_ms INTEGER,"
    " last_outcome INTEGER, last_http_status INTEGER, last_attempt_ms INTEGER, reason INTEGER,"
    " dl_unavailable_since_ms INTEGER)"_s,
    u"CREATE INDEX deliveries_by_event ON deliveries (event_seq)"_s,
    // AUTOINCREMENT: ids of removed rows are never reused, so keyset pages stay stable.
    u"CREATE TABLE dead_letters (id INTEGER PRIMARY KEY AUTOINCREMENT, topic TEXT,"
    " subscription TEXT, event_id TEXT, reason INTEGER, last_outcome INTEGER,"
    " last_http_status INTEGER, attempts INTEGER, publish_ms INTEGER, last_attempt_ms INTEGER,"
    " dead_lettered_ms INTEGER, blob_path TEXT, record BLOB, event_type TEXT, subject TEXT,"
    " data_version TEXT, event_time TEXT, event_body BLOB)"_s,
    u"CREATE INDEX dead_letters_by_subscription ON dead_letters (subscription, id)"_s,
    u"CREATE INDEX dead_letters_by_reason ON dead_letters (reason, id)"_s,
    u"CREATE TABLE dropped (id INTEGER PRIMARY KEY AUTOINCREMENT, topic TEXT, subscription TEXT,"
    " event_id TEXT, reason INTEGER, last_outcome INTEGER, last_http_status INTEGER,"
    " attempts INTEGER, dropped_ms INTEGER)"_s,
    u"CREATE TABLE attempt_log (id INTEGER PRIMARY KEY AUTOINCREMENT, time_ms INTEGER,"
    " topic TEXT, subscription TEXT, event_ids TEXT, attempt INTEGER, http_status INTEGER,"
    " outcome INTEGER, duration_ms INTEGER, next_due_ms INTEGER)"_s,
    u"CREATE TABLE probation (topic TEXT, subscription TEXT, state INTEGER, cause INTEGER,"
    " until_ms INTEGER, duration_ms INTEGER, failures INTEGER,"
    " PRIMARY KEY (topic, subscription))"_s,
    u"PRAGMA application_id = %1"_s.arg(ApplicationId),
    u"PRAGMA user_version = %1"_s.arg(SchemaVersion),
};

constexpr auto DeliveryColumns = "id, event_seq, topic, subscription, state, attempts, due_ms,"
                                 " publish_ms, last_outcome, last_http_status, last_attempt_ms,"
                                 " reason, dl_unavailable_since_ms"_L1;
constexpr auto EventColumns = "seq, topic, event_id, event_type, subject, data_version,"
                              " event_time, publish_ms, body"_L1;
constexpr auto DeadLetterColumns = "id, topic, subscription, event_id, reason, last_outcome,"
                                   " last_http_status, attempts, publish_ms, last_attempt_ms,"
                                   " dead_lettered_ms, blob_path, record, event_type, subject,"
                                   " data_version, event_time, event_body"_L1;

QAtomicInteger<quint64> s_connectionCounter;

// Binds values to positions 0..n-1 of a prepared statement and runs it.
template<typename... Values> bool execute(QSqlQuery &query, const Values &...values)
{
    int position = 0;
    (query.bindValue(position++, QVariant::fromValue(values)), ...);
    return query.exec();
}

QString placeholders(int count)
{
    QString result;
    result.reserve(count * 2);
    for (int i = 0; i < count; ++i)
        result += i == 0 ? u"?"_s : u",?"_s;
    return result;
}

// LIKE pattern that matches text literally anywhere (the escape character is '\').
QString containsPattern(const QString &text)
{
    QString escaped;
    escaped.reserve(text.size() + 2);
    escaped += u'%';
    for (const QChar character : text) {
        if (character == u'\\' || character == u'%' || character == u'_')
            escaped += u'\\';
        escaped += character;
    }
    escaped += u'%';
    return escaped;
}

DeliveryRecord readDelivery(const QSqlQuery &query)
{
    DeliveryRecord record;
    record.id = query.value(0).toLongLong();
    record.eventSeq = query.value(1).toLongLong();
    record.topic = query.value(2).toString();
    record.subscription = query.value(3).toString();
    record.state = static_cast<DeliveryState>(query.value(4).toInt());
    record.attempts = query.value(5).toInt();
    record.dueMs = query.value(6).toLongLong();
    record.publishMs = query.value(7).toLongLong();
    record.lastOutcome = static_cast<DeliveryOutcome>(query.value(8).toInt());
    record.lastHttpStatus = query.value(9).toInt();
    record.lastAttemptMs = query.value(10).toLongLong();
    record.reason = static_cast<DeadLetterReason>(query.value(11).toInt());
    record.deadLetterUnavailableSinceMs = query.value(12).toLongLong();
    return record;
}

StoredEvent readEvent(const QSqlQuery &query)
{
    StoredEvent event;
    event.seq = query.value(0).toLongLong();
    event.topic = query.value(1).toString();
    event.id = query.value(2).toString();
    event.eventType = query.value(3).toString();
    event.subject = query.value(4).toString();
    event.dataVersion = query.value(5).toString();
    event.eventTime = query.value(6).toString();
    event.publishMs = query.value(7).toLongLong();
    event.body = query.value(8).toByteArray();
    return event;
}

DeadLetterEntry readDeadLetter(const QSqlQuery &query)
{
    DeadLetterEntry entry;
    entry.id = query.value(0).toLongLong();
    entry.topic = query.value(1).toString();
    entry.subscription = query.value(2).toString();
    entry.eventId = query.value(3).toString();
    entry.reason = static_cast<DeadLetterReason>(query.value(4).toInt());
    entry.lastOutcome = static_cast<DeliveryOutcome>(query.value(5).toInt());
    entry.lastHttpStatus = query.value(6).toInt();
    entry.attempts = query.value(7).toInt();
    entry.publishMs = query.value(8).toLongLong();
    entry.lastAttemptMs = query.value(9).toLongLong();
    entry.deadLetteredMs = query.value(10).toLongLong();
    entry.blobPath = query.value(11).toString();
    entry.record = query.value(12).toByteArray();
    entry.eventType = query.value(13).toString();
    entry.subject = query.value(14).toString();
    entry.dataVersion = query.value(15).toString();
    entry.eventTime = query.value(16).toString();
    entry.eventBody = query.value(17).toByteArray();
    return entry;
}

// The filters shared by deadLetters() and countDeadLetters().
struct DeadLetterFilter
{
    QString whereClause;
    QVariantList values;
};

DeadLetterFilter deadLetterFilter(const DeadLetterQuery &query, bool withKeyset)
{
    QStringList conditions;
    DeadLetterFilter filter;
    if (!query.topic.isEmpty()) {
        conditions << u"topic = ?"_s;
        filter.values << query.topic;
    }
    if (!query.subscription.isEmpty()) {
        conditions << u"subscription = ?"_s;
        filter.values << query.subscription;
    }
    if (query.reason != DeadLetterReason::None) {
        conditions << u"reason = ?"_s;
        filter.values << static_cast<int>(query.reason);
    }
    if (!query.text.isEmpty()) {
        // LIKE ignores the case of ASCII letters, which is what a search box user expects; the
        // record is a BLOB, and SQLite compares BLOBs case-sensitively unless cast to TEXT.
        conditions << u"CAST(record AS TEXT) LIKE ? ESCAPE '\\'"_s;
        filter.values << containsPattern(query.text);
    }
    if (withKeyset && query.beforeId > 0) {
        conditions << u"id < ?"_s;
        filter.values << query.beforeId;
    }
    if (!conditions.isEmpty())
        filter.whereClause = u" WHERE "_s + conditions.join(u" AND "_s);
    return filter;
}

} // namespace

struct SqliteDeliveryStore::Private
{
    explicit Private(int maxRows)
        : maxAttemptLogRows(std::max(1, maxRows))
        // Trimming only when the newest id crosses a multiple of this step keeps the DELETE off
        // the per-commit path (one trim per 1000 log rows at the default bound).
        , attemptLogTrimStep(std::clamp(maxAttemptLogRows / 100, 1, 1000))
    {
    }

    Error error(const QString &what) const
    {
        return Error(u"Store %1: could not %2"_s.arg(QDir::toNativeSeparators(filePath), what));
    }
    Error sqlError(const QString &what, const QSqlError &cause) const
    {
        return Error(u"Store %1: could not %2: %3"_s.arg(QDir::toNativeSeparators(filePath), what,
                                                         cause.text()));
    }
    Error notOpen() const { return Error(u"The delivery store is not open."_s); }

    // Prepared once per store and reused (SQLite compiles a statement only once).
    QSqlQuery *statement(const QString &sql, QString *errorText)
    {
        auto it = statements.find(sql);
        if (it != statements.end())
            return it->second.get();
        auto query = std::make_unique<QSqlQuery>(database);
        query->setForwardOnly(true);
        if (!query->prepare(sql)) {
            *errorText = query->lastError().text();
            return nullptr;
        }
        return statements.emplace(sql, std::move(query)).first->second.get();
    }

    // Reads every row of an executed query; a damaged page shows up as an error, not as a short
    // list.
    template<typename Row, typename Read>
    Expected<QList<Row>> collect(QSqlQuery &query, const QString &what, Read read)
    {
        QList<Row> rows;
        while (query.next())
            rows.append(read(query));
        const QSqlError readError = query.lastError();
        query.finish();
        if (readError.isValid())
            return sqlError(what, readError);
        return rows;
    }

    Expected<void> runStatement(const QString &sql, const QString &what)
    {
        QSqlQuery query(database);
        if (!query.exec(sql))
            return sqlError(what, query.lastError());
        return {};
    }

    template<typename Work> Expected<void> inTransaction(const QString &what, Work &&work)
    {
        if (!database.transaction())
            return sqlError(what, database.lastError());
        Expected<void> result = work();
        if (result && !database.commit())
            result = sqlError(what, database.lastError());
        if (!result) {
            // SQLite may already have rolled back (e.g. on a full disk); a second rollback then
            // fails harmlessly, and the error that matters is the first one.
            database.rollback();
        }
        return result;
    }

    Expected<void> trimAttemptLog(qint64 previousId, qint64 lastId);
    Expected<void> identifyFile(bool *isNew);
    Expected<void> configureConnection();
    void closeConnection();

    QString filePath;
    QString connectionName;
    QSqlDatabase database;
    const int maxAttemptLogRows;
    const int attemptLogTrimStep;
    std::map<QString, std::unique_ptr<QSqlQuery>> statements;
};

Expected<void> SqliteDeliveryStore::Private::trimAttemptLog(qint64 previousId, qint64 lastId)
{
    if (previousId / attemptLogTrimStep == lastId / attemptLogTrimStep)
        return {};
    // Keeping maxAttemptLogRows - step + 1 rows leaves room for the step - 1 rows written
    // before the next trim, so the log never holds more than maxAttemptLogRows rows.
    const qint64 newestRemovedId = lastId - maxAttemptLogRows + attemptLogTrimStep - 1;
    if (newestRemovedId <= 0)
        return {};
    QString errorText;
    QSqlQuery *trim = statement(u"DELETE FROM attempt_log WHERE id <= ?"_s, &errorText);
    if (!trim)
        return error(u"prepare trimming the delivery log: %1"_s.arg(errorText));
    if (!execute(*trim, newestRemovedId))
        return sqlError(u"trim the delivery log"_s, trim->lastError());
    return {};
}

Expected<void> SqliteDeliveryStore::Private::identifyFile(bool *isNew)
{
    QSqlQuery query(database);
    query.setForwardOnly(true);
    const QString sql = u"SELECT (SELECT application_id FROM pragma_application_id),"
                        " (SELECT user_version FROM pragma_user_version),"
                        " (SELECT count(*) FROM sqlite_master)"_s;
    if (!query.exec(sql) || !query.next()) {
        // A WAL database cannot even be read without creating its -shm file, so a read-only
        // location fails here too; say so rather than blaming the file.
        const QFileInfo info(filePath);
        if (!info.isWritable() || !QFileInfo(info.absolutePath()).isWritable()) {
            return sqlError(u"open it: the file or its folder is read-only (the store needs to "
                            "write the file and its -wal and -shm files next to it)"_s,
                            query.lastError());
        }
        return sqlError(u"read the file (damaged, or not an EventDesk store?)"_s,
                        query.lastError());
    }
    const int applicationId = query.value(0).toInt();
    const int userVersion = query.value(1).toInt();
    const qint64 objectCount = query.value(2).toLongLong();
    query.finish();

    if (applicationId == ApplicationId) {
        if (userVersion > SchemaVersion) {
            return error(u"open it: it was written by a newer EventDesk (store version %1, this "
                         "build reads version %2)"_s.arg(userVersion)
                             .arg(SchemaVersion));
        }
        if (userVersion < 1)
            return error(u"open it: the store has no schema version (damaged file)"_s);
        *isNew = false;
        return {};
    }
    // An SQLite file without tables holds nothing that creating the schema could destroy.
    if (applicationId == 0 && userVersion == 0 && objectCount == 0) {
        *isNew = true;
        return {};
    }
    return error(u"open it: it is an SQLite database of another application, not an EventDesk "
                 "store; it was left unchanged"_s);
}

Expected<void> SqliteDeliveryStore::Private::configureConnection()
{
    QSqlQuery query(database);
    query.setForwardOnly(true);
    // journal_mode answers with the mode in effect: a read-only file or directory silently
    // keeps the old mode, and D1's crash safety at synchronous=NORMAL needs WAL.
    if (!query.exec(u"PRAGMA journal_mode = WAL"_s) || !query.next())
        return sqlError(u"switch to WAL journal mode"_s, query.lastError());
    const QString journalMode = query.value(0).toString();
    query.finish();
    if (journalMode.compare(u"wal"_s, Qt::CaseInsensitive) != 0) {
        return error(u"switch to WAL journal mode (the mode is still \"%1\"; is the file or its "
                     "folder read-only?)"_s.arg(journalMode));
    }
    if (auto result = runStatement(u"PRAGMA synchronous = NORMAL"_s, u"set synchronous mode"_s);
        !result)
        return result;
    return runStatement(u"PRAGMA foreign_keys = OFF"_s, u"turn off foreign keys"_s);
}

void SqliteDeliveryStore::Private::closeConnection()
{
    if (connectionName.isEmpty())
        return;
    // Every query must be gone before the connection is removed, or Qt warns and keeps it.
    statements.clear();
    database.close();
    database = QSqlDatabase();
    QSqlDatabase::removeDatabase(connectionName);
    connectionName.clear();
}

SqliteDeliveryStore::SqliteDeliveryStore(int maxAttemptLogRows)
    : d(std::make_unique<Private>(maxAttemptLogRows))
{
}

SqliteDeliveryStore::~SqliteDeliveryStore()
{
    close();
}

Expected<void> SqliteDeliveryStore::open(const QString &filePath)
{
    close();
    d->filePath = filePath;

    const QFileInfo info(filePath);
    if (info.isDir())
        return d->error(u"open it: it is a folder"_s);
    if (info.exists() && info.size() > 0) {
        // Checked before SQLite sees the file: a text file must not become a database.
        QFile file(filePath);
        if (!file.open(QIODevice::ReadOnly))
            return d->error(u"read it: %1"_s.arg(file.errorString()));
        const QByteArray header = file.read(sizeof(SqliteFileHeader));
        if (header.size() != qsizetype(sizeof(SqliteFileHeader))
            || std::memcmp(header.constData(), SqliteFileHeader, sizeof(SqliteFileHeader)) != 0) {
            return d->error(u"open it: it is not an EventDesk store (not an SQLite database); "
                            "it was left unchanged"_s);
        }
    }

    d->connectionName = u"eventdesk-store-%1"_s.arg(s_connectionCounter.fetchAndAddRelaxed(1));
    d->database = QSqlDatabase::addDatabase(u"QSQLITE"_s, d->connectionName);
    if (!d->database.isValid()) {
        const Error error = d->sqlError(u"load the Qt SQLite driver"_s, d->database.lastError());
        d->closeConnection();
        return error;
    }
    d->database.setDatabaseName(filePath);
    if (!d->database.open()) {
        const Error error = d->sqlError(u"open it"_s, d->database.lastError());
        d->closeConnection();
        return error;
    }

    auto fail = [this](const Expected<void> &result) {
        d->closeConnection();
        return result;
    };
    // Wait for another connection's write lock instead of failing at once.
    if (auto result = d->runStatement(u"PRAGMA busy_timeout = 5000"_s, u"set busy timeout"_s);
        !result)
        return fail(result);
    bool isNew = false;
    if (auto result = d->identifyFile(&isNew); !result)
        return fail(result);
    if (auto result = d->configureConnection(); !result)
        return fail(result);
    if (isNew) {
        auto result = d->inTransaction(u"create the store schema"_s, [this]() -> Expected<void> {
            for (const QString &sql : SchemaStatements) {
                if (auto result = d->runStatement(sql, u"create the store schema"_s); !result)
                    return result;
            }
            return {};
        });
        if (!result)
            return fail(result);
        qCInfo(lcStore) << "Created delivery store" << filePath;
    }
    return {};
}

void SqliteDeliveryStore::close()
{
    d->closeConnection();
}

Expected<DeliveryStore::MaxIds> SqliteDeliveryStore::maxIds()
{
    if (!d->database.isOpen())
        return d->notOpen();
    QString errorText;
    QSqlQuery *query
        = d->statement(u"SELECT max(coalesce((SELECT value FROM meta WHERE key = ?), 0),"
                       " coalesce((SELECT max(seq) FROM events), 0)),"
                       " max(coalesce((SELECT value FROM meta WHERE key = ?), 0),"
                       " coalesce((SELECT max(id) FROM deliveries), 0))"_s,
                       &errorText);
    if (!query)
        return d->error(u"prepare reading the highest ids: %1"_s.arg(errorText));
    if (!execute(*query, MaxEventSeqKey, MaxDeliveryIdKey) || !query->next())
        return d->sqlError(u"read the highest ids"_s, query->lastError());
    MaxIds ids;
    ids.eventSeq = query->value(0).toLongLong();
    ids.deliveryId = query->value(1).toLongLong();
    query->finish();
    return ids;
}

Expected<void> SqliteDeliveryStore::insertPublished(const QList<StoredEvent> &events,
                                                    const QList<DeliveryRecord> &deliveries)
{
    if (!d->database.isOpen())
        return d->notOpen();
    if (events.isEmpty() && deliveries.isEmpty())
        return {};
    const QString what = u"store %1 published events"_s.arg(events.size());
    // SPEC D1: the publish is acknowledged only after this transaction commits, and a failure
    // leaves nothing behind.
    return d->inTransaction(what, [&]() -> Expected<void> {
        QString errorText;
        QSqlQuery *insertEvent = d->statement(
            u"INSERT INTO events (seq, topic, event_id, event_type, subject, data_version,"
            " event_time, publish_ms, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"_s,
            &errorText);
        QSqlQuery *insertDelivery = insertEvent
            ? d->statement(u"INSERT INTO deliveries (id, event_seq, topic,"
                           " subscription, state, attempts, due_ms, publish_ms,"
                           " last_outcome, last_http_status, last_attempt_ms, reason,"
                           " dl_unavailable_since_ms)"
                           " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"_s,
                           &errorText)
            : nullptr;
        QSqlQuery *raiseMaximum = insertDelivery
            ? d->statement(u"UPDATE meta SET value = max(value, ?) WHERE key = ?"_s, &errorText)
            : nullptr;
        if (!raiseMaximum)
            return d->error(u"prepare storing published events: %1"_s.arg(errorText));

        qint64 maxSeq = 0;
        for (const StoredEvent &event : events) {
            if (!execute(*insertEvent, event.seq, event.topic, event.id, event.eventType,
                         event.subject, event.dataVersion, event.eventTime, event.publishMs,
                         event.body)) {
                return d->sqlError(u"store event %1 (seq %2)"_s.arg(event.id).arg(event.seq),
                                   insertEvent->lastError());
            }
            maxSeq = std::max(maxSeq, event.seq);
        }
        qint64 maxDeliveryId = 0;
        for (const DeliveryRecord &delivery : deliveries) {
            if (!execute(*insertDelivery, delivery.id, delivery.eventSeq, delivery.topic,
                         delivery.subscription, static_cast<int>(delivery.state), delivery.attempts,
                         delivery.dueMs, delivery.publishMs, static_cast<int>(delivery.lastOutcome),
                         delivery.lastHttpStatus, delivery.lastAttemptMs,
                         static_cast<int>(delivery.reason),
                         delivery.deadLetterUnavailableSinceMs)) {
                return d->sqlError(
                    u"store delivery %1 (event seq %2, subscription %3)"_s.arg(delivery.id)
                        .arg(delivery.eventSeq)
                        .arg(delivery.subscription),
                    insertDelivery->lastError());
            }
            maxDeliveryId = std::max(maxDeliveryId, delivery.id);
        }
        if (!execute(*raiseMaximum, maxSeq, MaxEventSeqKey)
            || !execute(*raiseMaximum, maxDeliveryId, MaxDeliveryIdKey)) {
            return d->sqlError(u"record the highest ids"_s, raiseMaximum->lastError());
        }
        return {};
    });
}

Expected<void> SqliteDeliveryStore::commit(const StoreBatch &batch)
{
    if (!d->database.isOpen())
        return d->notOpen();
    if (batch.isEmpty())
        return {};
    return d->inTransaction(u"commit delivery changes"_s, [&]() -> Expected<void> {
        QString errorText;
        auto prepared = [&](const QString &sql) {
            return d->statement(sql, &errorText);
        };
        auto prepareFailed = [&] {
            return d->error(u"prepare committing delivery changes: %1"_s.arg(errorText));
        };

        if (!batch.updates.isEmpty()) {
            QSqlQuery *update = prepared(
                u"UPDATE deliveries SET state = ?, attempts = ?, due_ms = ?, last_outcome = ?,"
                " last_http_status = ?, last_attempt_ms = ?, reason = ?,"
                " dl_unavailable_since_ms = ? WHERE id = ?"_s);
            if (!update)
                return prepareFailed();
            for (const DeliveryRecord &delivery : batch.updates) {
                if (!execute(*update, static_cast<int>(delivery.state), delivery.attempts,
                             delivery.dueMs, static_cast<int>(delivery.lastOutcome),
                             delivery.lastHttpStatus, delivery.lastAttemptMs,
                             static_cast<int>(delivery.reason),
                             delivery.deadLetterUnavailableSinceMs, delivery.id)) {
                    return d->sqlError(u"update delivery %1"_s.arg(delivery.id),
                                       update->lastError());
                }
            }
        }

        if (!batch.finished.isEmpty()) {
            // Set-based, MaxParametersPerQuery ids per statement, the ids written as integer
            // literals: QSqlResult::bindValue costs ~2.7k instructions per value in Qt 6.4 (it
            // formats a placeholder name per call), which made these deletes the largest part of
            // a group commit. First the deliveries, then their events that have no delivery left
            // (the index on deliveries(event_seq) keeps NOT EXISTS a lookup, not a scan).
            auto idList = [&](qsizetype start, auto idOf) {
                QString list;
                const qsizetype end = std::min<qsizetype>(start + MaxParametersPerQuery, batch.finished.size());
                list.reserve((end - start) * 8);
                for (qsizetype i = start; i < end; ++i) {
                    if (i > start)
                        list += u',';
                    list += QString::number(idOf(batch.finished.at(i)));
                }
                return list;
            };
            for (qsizetype start = 0; start < batch.finished.size(); start += MaxParametersPerQuery) {
                QSqlQuery remove(d->database);
                const QString ids = idList(start, [](const FinishedDelivery &finished) { return finished.id; });
                if (!remove.exec(u"DELETE FROM deliveries WHERE id IN ("_s + ids + u')'))
                    return d->sqlError(u"remove finished deliveries"_s, remove.lastError());
            }
            for (qsizetype start = 0; start < batch.finished.size(); start += MaxParametersPerQuery) {
                QSqlQuery remove(d->database);
                const QString seqs = idList(start, [](const FinishedDelivery &finished) { return finished.eventSeq; });
                if (!remove.exec(u"DELETE FROM events WHERE seq IN ("_s + seqs
                                 + u") AND NOT EXISTS (SELECT 1 FROM deliveries WHERE event_seq = events.seq)"_s))
                    return d->sqlError(u"remove finished events"_s, remove.lastError());
            }
        }

        if (!batch.deadLetters.isEmpty()) {
            QSqlQuery *insert = prepared(
                u"INSERT INTO dead_letters (topic, subscription, event_id, reason, last_outcome,"
                " last_http_status, attempts, publish_ms, last_attempt_ms, dead_lettered_ms,"
                " blob_path, record, event_type, subject, data_version, event_time, event_body)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"_s);
            if (!insert)
                return prepareFailed();
            for (const DeadLetterEntry &entry : batch.deadLetters) {
                if (!execute(*insert, entry.topic, entry.subscription, entry.eventId,
                             static_cast<int>(entry.reason), static_cast<int>(entry.lastOutcome),
                             entry.lastHttpStatus, entry.attempts, entry.publishMs,
                             entry.lastAttemptMs, entry.deadLetteredMs, entry.blobPath,
                             entry.record, entry.eventType, entry.subject, entry.dataVersion,
                             entry.eventTime, entry.eventBody)) {
                    return d->sqlError(u"index dead letter of event %1"_s.arg(entry.eventId),
                                       insert->lastError());
                }
            }
        }

        if (!batch.drops.isEmpty()) {
            QSqlQuery *insert = prepared(
                u"INSERT INTO dropped (topic, subscription, event_id, reason, last_outcome,"
                " last_http_status, attempts, dropped_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"_s);
            if (!insert)
                return prepareFailed();
            for (const DroppedEntry &entry : batch.drops) {
                if (!execute(*insert, entry.topic, entry.subscription, entry.eventId,
                             static_cast<int>(entry.reason), static_cast<int>(entry.lastOutcome),
                             entry.lastHttpStatus, entry.attempts, entry.droppedMs)) {
                    return d->sqlError(u"record dropped event %1"_s.arg(entry.eventId),
                                       insert->lastError());
                }
            }
        }

        if (!batch.attempts.isEmpty()) {
            QSqlQuery *insert = prepared(
                u"INSERT INTO attempt_log (time_ms, topic, subscription, event_ids, attempt,"
                " http_status, outcome, duration_ms, next_due_ms)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"_s);
            if (!insert)
                return prepareFailed();
            qint64 firstId = 0;
            qint64 lastId = 0;
            for (const AttemptLogEntry &entry : batch.attempts) {
                if (!execute(*insert, entry.timeMs, entry.topic, entry.subscription,
                             entry.eventIds.join(u','), entry.attempt, entry.httpStatus,
                             static_cast<int>(entry.outcome), entry.durationMs, entry.nextDueMs)) {
                    return d->sqlError(u"write the delivery log"_s, insert->lastError());
                }
                lastId = insert->lastInsertId().toLongLong();
                if (firstId == 0)
                    firstId = lastId;
            }
            if (auto result = d->trimAttemptLog(firstId - 1, lastId); !result)
                return result;
        }

        if (!batch.probation.isEmpty()) {
            QSqlQuery *upsert = prepared(
                u"INSERT OR REPLACE INTO probation (topic, subscription, state, cause, until_ms,"
                " duration_ms, failures) VALUES (?, ?, ?, ?, ?, ?, ?)"_s);
            if (!upsert)
                return prepareFailed();
            for (const ProbationRecord &record : batch.probation) {
                if (!execute(*upsert, record.topic, record.subscription, record.state,
                             static_cast<int>(record.cause), record.untilMs, record.durationMs,
                             record.consecutiveFailures)) {
                    return d->sqlError(u"store probation of %1"_s.arg(record.subscription),
                                       upsert->lastError());
                }
            }
        }
        return {};
    });
}

Expected<QList<DeliveryRecord>> SqliteDeliveryStore::loadUnfinishedDeliveries()
{
    if (!d->database.isOpen())
        return d->notOpen();
    QString errorText;
    QSqlQuery *query = d->statement(
        u"SELECT "_s + DeliveryColumns + u" FROM deliveries ORDER BY id"_s, &errorText);
    if (!query)
        return d->error(u"prepare loading deliveries: %1"_s.arg(errorText));
    if (!query->exec())
        return d->sqlError(u"load deliveries"_s, query->lastError());
    return d->collect<DeliveryRecord>(*query, u"load deliveries"_s, readDelivery);
}

Expected<void> SqliteDeliveryStore::forEachUnfinishedDelivery(
    const std::function<void(const DeliveryRecord &)> &visit)
{
    if (!d->database.isOpen())
        return d->notOpen();
    // Forward-only: the driver keeps no copy of the rows read, so a million-row backlog streams
    // through one record.
    QSqlQuery query(d->database);
    query.setForwardOnly(true);
    if (!query.prepare(u"SELECT "_s + DeliveryColumns + u" FROM deliveries ORDER BY id"_s))
        return d->sqlError(u"prepare loading deliveries"_s, query.lastError());
    if (!query.exec())
        return d->sqlError(u"load deliveries"_s, query.lastError());
    DeliveryRecord record;
    while (query.next()) {
        record.topic = query.value(2).toString();
        record.subscription = query.value(3).toString();
        record.id = query.value(0).toLongLong();
        record.eventSeq = query.value(1).toLongLong();
        record.state = static_cast<DeliveryState>(query.value(4).toInt());
        record.attempts = query.value(5).toInt();
        record.dueMs = query.value(6).toLongLong();
        record.publishMs = query.value(7).toLongLong();
        record.lastOutcome = static_cast<DeliveryOutcome>(query.value(8).toInt());
        record.lastHttpStatus = query.value(9).toInt();
        record.lastAttemptMs = query.value(10).toLongLong();
        record.reason = static_cast<DeadLetterReason>(query.value(11).toInt());
        record.deadLetterUnavailableSinceMs = query.value(12).toLongLong();
        visit(record);
    }
    const QSqlError readError = query.lastError();
    if (readError.isValid())
        return d->sqlError(u"load deliveries"_s, readError);
    return {};
}

Expected<QList<StoredEvent>> SqliteDeliveryStore::loadEvents(const QList<qint64> &seqs)
{
    if (!d->database.isOpen())
        return d->notOpen();
    QList<StoredEvent> events;
    if (seqs.isEmpty())
        return events;
    QString errorText;
    // One statement for every chunk: a short last chunk repeats a seq, which IN ignores.
    QSqlQuery *query = d->statement(u"SELECT "_s + EventColumns + u" FROM events WHERE seq IN ("_s
                                        + placeholders(MaxParametersPerQuery) + u')',
                                    &errorText);
    if (!query)
        return d->error(u"prepare loading events: %1"_s.arg(errorText));
    events.reserve(seqs.size());
    for (qsizetype start = 0; start < seqs.size(); start += MaxParametersPerQuery) {
        for (int i = 0; i < MaxParametersPerQuery; ++i) {
            const qsizetype index = std::min(start + i, seqs.size() - 1);
            query->bindValue(i, seqs.at(index));
        }
        if (!query->exec())
            return d->sqlError(u"load events"_s, query->lastError());
        auto chunk = d->collect<StoredEvent>(*query, u"load events"_s, readEvent);
        if (!chunk)
            return Error(chunk.error());
        events.append(std::move(chunk).value());
    }
    return events;
}

Expected<QList<ProbationRecord>> SqliteDeliveryStore::loadProbation()
{
    if (!d->database.isOpen())
        return d->notOpen();
    QString errorText;
    QSqlQuery *query = d->statement(u"SELECT topic, subscription, state, cause, until_ms,"
                                    " duration_ms, failures FROM probation"_s,
                                    &errorText);
    if (!query)
        return d->error(u"prepare loading probation: %1"_s.arg(errorText));
    if (!query->exec())
        return d->sqlError(u"load probation"_s, query->lastError());
    return d->collect<ProbationRecord>(*query, u"load probation"_s, [](const QSqlQuery &row) {
        ProbationRecord record;
        record.topic = row.value(0).toString();
        record.subscription = row.value(1).toString();
        record.state = row.value(2).toInt();
        record.cause = static_cast<DeliveryOutcome>(row.value(3).toInt());
        record.untilMs = row.value(4).toLongLong();
        record.durationMs = row.value(5).toLongLong();
        record.consecutiveFailures = row.value(6).toInt();
        return record;
    });
}

Expected<QList<DeadLetterEntry>> SqliteDeliveryStore::deadLetters(const DeadLetterQuery &query)
{
    if (!d->database.isOpen())
        return d->notOpen();
    const DeadLetterFilter filter = deadLetterFilter(query, true);
    QString errorText;
    // Keyset pagination (id < beforeId) costs the same on every page, unlike OFFSET.
    QSqlQuery *statement = d->statement(u"SELECT "_s + DeadLetterColumns + u" FROM dead_letters"_s
                                            + filter.whereClause + u" ORDER BY id DESC LIMIT ?"_s,
                                        &errorText);
    if (!statement)
        return d->error(u"prepare browsing dead letters: %1"_s.arg(errorText));
    int position = 0;
    for (const QVariant &value : filter.values)
        statement->bindValue(position++, value);
    statement->bindValue(position, query.limit > 0 ? query.limit : -1);
    if (!statement->exec())
        return d->sqlError(u"browse dead letters"_s, statement->lastError());
    return d->collect<DeadLetterEntry>(*statement, u"browse dead letters"_s, readDeadLetter);
}

Expected<QList<DeadLetterEntry>> SqliteDeliveryStore::deadLettersById(const QList<qint64> &ids)
{
    if (!d->database.isOpen())
        return d->notOpen();
    QList<DeadLetterEntry> entries;
    if (ids.isEmpty())
        return entries;
    QString errorText;
    QSqlQuery *query
        = d->statement(u"SELECT "_s + DeadLetterColumns + u" FROM dead_letters WHERE id IN ("_s
                           + placeholders(MaxParametersPerQuery) + u')',
                       &errorText);
    if (!query)
        return d->error(u"prepare reading dead letters: %1"_s.arg(errorText));
    for (qsizetype start = 0; start < ids.size(); start += MaxParametersPerQuery) {
        for (int i = 0; i < MaxParametersPerQuery; ++i)
            query->bindValue(i, ids.at(std::min(start + i, ids.size() - 1)));
        if (!query->exec())
            return d->sqlError(u"read dead letters"_s, query->lastError());
        auto chunk = d->collect<DeadLetterEntry>(*query, u"read dead letters"_s, readDeadLetter);
        if (!chunk)
            return Error(chunk.error());
        entries.append(std::move(chunk).value());
    }
    std::sort(entries.begin(), entries.end(),
              [](const DeadLetterEntry &a, const DeadLetterEntry &b) { return a.id > b.id; });
    return entries;
}

Expected<qint64> SqliteDeliveryStore::countDeadLetters(const DeadLetterQuery &query)
{
    if (!d->database.isOpen())
        return d->notOpen();
    const DeadLetterFilter filter = deadLetterFilter(query, false);
    QString errorText;
    QSqlQuery *statement
        = d->statement(u"SELECT count(*) FROM dead_letters"_s + filter.whereClause, &errorText);
    if (!statement)
        return d->error(u"prepare counting dead letters: %1"_s.arg(errorText));
    int position = 0;
    for (const QVariant &value : filter.values)
        statement->bindValue(position++, value);
    if (!statement->exec() || !statement->next())
        return d->sqlError(u"count dead letters"_s, statement->lastError());
    const qint64 count = statement->value(0).toLongLong();
    statement->finish();
    return count;
}

Expected<void> SqliteDeliveryStore::removeDeadLetters(const QList<qint64> &ids)
{
    if (!d->database.isOpen())
        return d->notOpen();
    if (ids.isEmpty())
        return {};
    return d->inTransaction(u"remove dead letters"_s, [&]() -> Expected<void> {
        QString errorText;
        QSqlQuery *remove = d->statement(u"DELETE FROM dead_letters WHERE id = ?"_s, &errorText);
        if (!remove)
            return d->error(u"prepare removing dead letters: %1"_s.arg(errorText));
        for (const qint64 id : ids) {
            if (!execute(*remove, id))
                return d->sqlError(u"remove dead letter %1"_s.arg(id), remove->lastError());
        }
        return {};
    });
}

Expected<QList<DroppedEntry>> SqliteDeliveryStore::droppedDeliveries(int limit)
{
    if (!d->database.isOpen())
        return d->notOpen();
    QString errorText;
    QSqlQuery *query = d->statement(u"SELECT topic, subscription, event_id, reason, last_outcome,"
                                    " last_http_status, attempts, dropped_ms FROM dropped"
                                    " ORDER BY id DESC LIMIT ?"_s,
                                    &errorText);
    if (!query)
        return d->error(u"prepare reading dropped deliveries: %1"_s.arg(errorText));
    if (!execute(*query, limit > 0 ? limit : -1))
        return d->sqlError(u"read dropped deliveries"_s, query->lastError());
    return d->collect<DroppedEntry>(*query, u"read dropped deliveries"_s, [](const QSqlQuery &row) {
        DroppedEntry entry;
        entry.topic = row.value(0).toString();
        entry.subscription = row.value(1).toString();
        entry.eventId = row.value(2).toString();
        entry.reason = static_cast<DeadLetterReason>(row.value(3).toInt());
        entry.lastOutcome = static_cast<DeliveryOutcome>(row.value(4).toInt());
        entry.lastHttpStatus = row.value(5).toInt();
        entry.attempts = row.value(6).toInt();
        entry.droppedMs = row.value(7).toLongLong();
        return entry;
    });
}

Expected<QList<AttemptLogEntry>> SqliteDeliveryStore::attemptLog(int limit)
{
    if (!d->database.isOpen())
        return d->notOpen();
    QString errorText;
    QSqlQuery *query = d->statement(u"SELECT id, time_ms, topic, subscription, event_ids, attempt,"
                                    " http_status, outcome, duration_ms, next_due_ms"
                                    " FROM attempt_log ORDER BY id DESC LIMIT ?"_s,
                                    &errorText);
    if (!query)
        return d->error(u"prepare reading the delivery log: %1"_s.arg(errorText));
    if (!execute(*query, limit > 0 ? limit : -1))
        return d->sqlError(u"read the delivery log"_s, query->lastError());
    return d->collect<AttemptLogEntry>(
        *query, u"read the delivery log"_s, [](const QSqlQuery &row) {
            AttemptLogEntry entry;
            entry.id = row.value(0).toLongLong();
            entry.timeMs = row.value(1).toLongLong();
            entry.topic = row.value(2).toString();
            entry.subscription = row.value(3).toString();
            const QString eventIds = row.value(4).toString();
            if (!eventIds.isEmpty())
                entry.eventIds = eventIds.split(u',');
            entry.attempt = row.value(5).toInt();
            entry.httpStatus = row.value(6).toInt();
            entry.outcome = static_cast<DeliveryOutcome>(row.value(7).toInt());
            entry.durationMs = row.value(8).toLongLong();
            entry.nextDueMs = row.value(9).toLongLong();
            return entry;
        });
}

} // namespace EventDesk
