#include "SqliteDeliveryStore.h"

#include "SqliteStatement.h"
#include "SqliteStoreSchema.h"

#include "../Logging.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <sqlite3.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

// SQLite before 3.32 allows 999 host parameters per statement; stay well below it.
constexpr int MaxParametersPerQuery = 500;

// Wait this long for another connection's write lock instead of failing at once.
constexpr int BusyTimeoutMs = 5000;

const QString MaxEventSeqKey = u"max_event_seq"_s;
const QString MaxDeliveryIdKey = u"max_delivery_id"_s;

const QList<QByteArray> SchemaStatements = {
    // High-water marks of the engine-assigned ids: events and deliveries are deleted when they
    // reach their fate, and maxIds() must not hand out an id again after a restart.
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL)"_ba,
    "INSERT INTO meta (key, value) VALUES ('max_event_seq', 0), ('max_delivery_id', 0)"_ba,
    "CREATE TABLE events (seq INTEGER PRIMARY KEY, topic TEXT, event_id TEXT, event_type TEXT,"
    " subject TEXT, data_version TEXT, event_time TEXT, publish_ms INTEGER, body BLOB)"_ba,
    "CREATE TABLE deliveries (id INTEGER PRIMARY KEY, event_seq INTEGER, topic TEXT,"
    " subscription TEXT, state INTEGER, attempts INTEGER, due_ms INTEGER, publish_ms INTEGER,"
    " last_outcome INTEGER, last_http_status INTEGER, last_attempt_ms INTEGER, reason INTEGER,"
    " dl_unavailable_since_ms INTEGER)"_ba,
    "CREATE INDEX deliveries_by_event ON deliveries (event_seq)"_ba,
    // AUTOINCREMENT: ids of removed rows are never reused, so keyset pages stay stable.
    "CREATE TABLE dead_letters (id INTEGER PRIMARY KEY AUTOINCREMENT, topic TEXT,"
    " subscription TEXT, event_id TEXT, reason INTEGER, last_outcome INTEGER,"
    " last_http_status INTEGER, attempts INTEGER, publish_ms INTEGER, last_attempt_ms INTEGER,"
    " dead_lettered_ms INTEGER, blob_path TEXT, record BLOB, event_type TEXT, subject TEXT,"
    " data_version TEXT, event_time TEXT, event_body BLOB)"_ba,
    "CREATE INDEX dead_letters_by_subscription ON dead_letters (subscription, id)"_ba,
    "CREATE INDEX dead_letters_by_reason ON dead_letters (reason, id)"_ba,
    "CREATE TABLE dropped (id INTEGER PRIMARY KEY AUTOINCREMENT, topic TEXT, subscription TEXT,"
    " event_id TEXT, reason INTEGER, last_outcome INTEGER, last_http_status INTEGER,"
    " attempts INTEGER, dropped_ms INTEGER)"_ba,
    "CREATE TABLE attempt_log (id INTEGER PRIMARY KEY AUTOINCREMENT, time_ms INTEGER,"
    " topic TEXT, subscription TEXT, event_ids TEXT, attempt INTEGER, http_status INTEGER,"
    " outcome INTEGER, duration_ms INTEGER, next_due_ms INTEGER)"_ba,
    "CREATE TABLE probation (topic TEXT, subscription TEXT, state INTEGER, cause INTEGER,"
    " until_ms INTEGER, duration_ms INTEGER, failures INTEGER,"
    " PRIMARY KEY (topic, subscription))"_ba,
    "PRAGMA application_id = "_ba + QByteArray::number(StoreApplicationId),
    "PRAGMA user_version = "_ba + QByteArray::number(StoreSchemaVersion),
};

// Below this many keys, selectByKeys() reads row by row (see there).
constexpr qsizetype MinKeysPerList = 16;

const QByteArray LoadDeliveriesSql
    = "SELECT "_ba + DeliveryColumns + " FROM deliveries ORDER BY id"_ba;
const QByteArray EventsByKeySql = "SELECT "_ba + EventColumns + " FROM events WHERE seq = ?"_ba;
const QByteArray EventsByKeyListSql = "SELECT "_ba + EventColumns + " FROM events WHERE seq IN ("_ba
    + parameterList(MaxParametersPerQuery) + ')';
const QByteArray DeadLettersByKeySql
    = "SELECT "_ba + DeadLetterColumns + " FROM dead_letters WHERE id = ?"_ba;
const QByteArray DeadLettersByKeyListSql = "SELECT "_ba + DeadLetterColumns
    + " FROM dead_letters WHERE id IN ("_ba + parameterList(MaxParametersPerQuery) + ')';

enum class Keyset { Ignore, Apply };

// The filters shared by deadLetters() and countDeadLetters().
SqlConditions deadLetterFilter(const DeadLetterQuery &query, Keyset keyset)
{
    SqlConditions filter;
    if (!query.topic.isEmpty())
        filter.add("topic = ?", query.topic);
    if (!query.subscription.isEmpty())
        filter.add("subscription = ?", query.subscription);
    if (query.reason != DeadLetterReason::None)
        filter.add("reason = ?", qint64(query.reason));
    if (!query.text.isEmpty()) {
        // LIKE ignores the case of ASCII letters, which is what a search box user expects; the
        // record is a BLOB, and SQLite compares BLOBs case-sensitively unless cast to TEXT.
        filter.add("CAST(record AS TEXT) LIKE ? ESCAPE '\\'", likeContainsPattern(query.text));
    }
    if (keyset == Keyset::Apply && query.beforeId > 0)
        filter.add("id < ?", query.beforeId);
    return filter;
}

} // namespace

namespace {

// Copies the write-ahead log back into the database file on a thread of its own, over a
// connection of its own. SQLite's automatic checkpoint runs inside the commit that crosses the
// threshold, on the engine's thread: with 1 KB events arriving at tens of thousands per second it
// stalled the engine for ~60 ms every few hundred milliseconds (bench/RESULTS.md, benchmark 2).
// A PASSIVE checkpoint never blocks the writer; it copies what is committed and leaves the rest
// for the next round. The engine's connection asks for one after each commit that leaves the log
// at CheckpointPages or more, and checkpoints itself only if this thread falls far behind.
class WalCheckpointer final
{
public:
    static constexpr int CheckpointPages = 4000; // 16 MB of 4 KB pages
    static constexpr int WriterCheckpointPages = 64000; // 256 MB: the writer steps in

    ~WalCheckpointer() { stop(); }

    // False when the second connection cannot be opened; the writer then checkpoints itself.
    bool start(const QByteArray &encodedPath)
    {
        if (sqlite3_open_v2(encodedPath.constData(), &m_database,
                            SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr)
            != SQLITE_OK) {
            sqlite3_close(m_database);
            m_database = nullptr;
            return false;
        }
        sqlite3_busy_timeout(m_database, 1000);
        // A connection learns that the file is in WAL mode by reading it; until then a checkpoint
        // on it does nothing.
        if (sqlite3_exec(m_database, "PRAGMA journal_mode", nullptr, nullptr, nullptr) != SQLITE_OK) {
            sqlite3_close(m_database);
            m_database = nullptr;
            return false;
        }
        m_thread = std::thread([this] { run(); });
        return true;
    }

    void stop()
    {
        {
            std::lock_guard lock(m_mutex);
            m_stopping = true;
        }
        m_wake.notify_one();
        if (m_thread.joinable())
            m_thread.join();
        sqlite3_close(m_database);
        m_database = nullptr;
    }

    void request()
    {
        {
            std::lock_guard lock(m_mutex);
            m_wanted = true;
        }
        m_wake.notify_one();
    }

private:
    void run()
    {
        std::unique_lock lock(m_mutex);
        for (;;) {
            m_wake.wait(lock, [this] { return m_wanted || m_stopping; });
            if (m_stopping)
                return;
            m_wanted = false;
            lock.unlock();
            int logFrames = 0;
            int copiedFrames = 0;
            const int result = sqlite3_wal_checkpoint_v2(m_database, nullptr,
                                                         SQLITE_CHECKPOINT_PASSIVE, &logFrames,
                                                         &copiedFrames);
            // BUSY: another checkpoint is running; the next commit asks again.
            if (result != SQLITE_OK && result != SQLITE_BUSY) {
                qCWarning(lcStore) << "Background checkpoint of the delivery store failed:"
                                   << sqlite3_errmsg(m_database);
            }
            lock.lock();
        }
    }

    sqlite3 *m_database = nullptr;
    std::thread m_thread;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_wanted = false;
    bool m_stopping = false;
};

int walCommitted(void *checkpointer, sqlite3 *database, const char *, int logPages)
{
    if (logPages >= WalCheckpointer::WriterCheckpointPages) {
        // The background checkpoint cannot keep up: the writer copies, so the log stays bounded.
        sqlite3_wal_checkpoint_v2(database, nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
    } else if (logPages >= WalCheckpointer::CheckpointPages) {
        static_cast<WalCheckpointer *>(checkpointer)->request();
    }
    return SQLITE_OK;
}

} // namespace

struct SqliteDeliveryStore::Private
{
    // Every public call holds it: the engine stores large publishes on its parser threads
    // while its own thread commits delivery changes. Recursive, because a visitor of
    // forEachUnfinishedDelivery may call back into the store.
    std::recursive_mutex mutex;

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
    Error sqlError(const QString &what, const QString &cause) const
    {
        return Error(
            u"Store %1: could not %2: %3"_s.arg(QDir::toNativeSeparators(filePath), what, cause));
    }
    Error notOpen() const { return Error(u"The delivery store is not open."_s); }
    QString lastErrorText() const { return QString::fromUtf8(sqlite3_errmsg(database)); }

    // Prepared on first use and kept until close(): SQLite compiles each statement only once.
    SqliteStatement *statement(const QByteArray &sql, QString *errorText)
    {
        auto it = statements.find(sql);
        if (it != statements.end())
            return &it->second;
        SqliteStatement prepared = SqliteStatement::prepare(database, sql);
        if (!prepared.isValid()) {
            *errorText = prepared.errorText();
            return nullptr;
        }
        return &statements.emplace(sql, std::move(prepared)).first->second;
    }

    // For statements that run once per connection (schema, pragmas).
    Expected<void> runOnce(const QByteArray &sql, const QString &what)
    {
        if (sqlite3_exec(database, sql.constData(), nullptr, nullptr, nullptr) != SQLITE_OK)
            return sqlError(what, lastErrorText());
        return {};
    }

    // Runs one of the cached statements that return no rows.
    Expected<void> runCached(const QByteArray &sql, const QString &what)
    {
        QString errorText;
        SqliteStatement *cached = statement(sql, &errorText);
        if (!cached)
            return sqlError(what, errorText);
        if (!cached->execute())
            return sqlError(what, cached->errorText());
        return {};
    }

    // Reads every row of a statement whose values are bound; a damaged page shows up as an
    // error, not as a short list.
    template<typename Row, typename Read>
    Expected<QList<Row>> collect(SqliteStatement &query, const QString &what, Read read,
                                 QList<Row> rows = {})
    {
        const SqliteStatementReset reset(query);
        int result = SQLITE_OK;
        while ((result = query.step()) == SQLITE_ROW)
            rows.append(read(query));
        if (result != SQLITE_DONE)
            return sqlError(what, query.errorText());
        return rows;
    }

    // The rows whose integer key is in keys, each once, in no promised order. Measured
    // with the C API on 50k events of 1 KB: an IN list of MaxParametersPerQuery bound keys reads
    // ~4 us per row against 5-9 us for a SELECT per key, but costs ~25 us even for one key, so
    // the few keys left over after the full lists are read one by one.
    template<typename Row, typename Read>
    Expected<QList<Row>> selectByKeys(const QByteArray &singleKeySql, const QByteArray &keyListSql,
                                      QList<qint64> keys, const QString &what, Read read)
    {
        QString errorText;
        SqliteStatement *list = statement(keyListSql, &errorText);
        SqliteStatement *single = list ? statement(singleKeySql, &errorText) : nullptr;
        if (!single)
            return error(u"prepare to %1: %2"_s.arg(what, errorText));
        // Sorted, a repeated key gives its row once even when the repeats would fall into
        // different lists, and the rows are read in the order they lie in the file.
        std::sort(keys.begin(), keys.end());
        keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
        Expected<QList<Row>> rows = QList<Row>();
        rows->reserve(keys.size());
        qsizetype start = 0;
        for (; keys.size() - start >= MinKeysPerList; start += MaxParametersPerQuery) {
            // One statement for every list: a short list repeats its last key, which IN ignores.
            for (int i = 0; i < MaxParametersPerQuery; ++i)
                list->bind(i + 1, keys.at(std::min(start + i, keys.size() - 1)));
            rows = collect<Row>(*list, what, read, std::move(rows).value());
            if (!rows)
                return rows;
        }
        for (qsizetype i = start; i < keys.size(); ++i) {
            single->bind(1, keys.at(i));
            rows = collect<Row>(*single, what, read, std::move(rows).value());
            if (!rows)
                return rows;
        }
        return rows;
    }

    template<typename Work> Expected<void> inTransaction(const QString &what, Work &&work)
    {
        if (!sqlite3_get_autocommit(database)) {
            // Only a ROLLBACK that failed (an I/O error) leaves a transaction open; without this
            // every later BEGIN would fail with "cannot start a transaction within a transaction".
            rollback();
        }
        if (auto begun = runCached("BEGIN"_ba, what); !begun)
            return begun;
        Expected<void> result = work();
        if (result)
            result = runCached("COMMIT"_ba, what);
        if (!result && !sqlite3_get_autocommit(database)) {
            // After some errors (a full disk, for example) SQLite has rolled back already; after
            // the others (a constraint) the transaction is still open and must not keep the rows
            // that went in before the failure.
            rollback();
        }
        return result;
    }
    void rollback()
    {
        if (auto rolledBack = runCached("ROLLBACK"_ba, u"roll back"_s); !rolledBack)
            qCWarning(lcStore) << rolledBack.error();
    }

    Expected<void> removeFinished(const QList<FinishedDelivery> &finished);
    Expected<void> trimAttemptLog(qint64 previousId, qint64 lastId);
    Expected<void> identifyFile(bool *isNew);
    Expected<void> configureConnection();
    void closeConnection();

    QString filePath;
    sqlite3 *database = nullptr;
    std::unique_ptr<WalCheckpointer> checkpointer;
    const int maxAttemptLogRows;
    const int attemptLogTrimStep;
    std::map<QByteArray, SqliteStatement> statements;
};

Expected<void> SqliteDeliveryStore::Private::removeFinished(const QList<FinishedDelivery> &finished)
{
    // Ids are handed out in order and deliveries mostly finish in order, so the finished rows
    // come in runs of consecutive ids: each run is one range DELETE, which walks the leaf pages
    // once instead of descending the B-tree per row (a batch of 1000 deliveries is one
    // statement). First the deliveries, then their events that have no delivery left (the index
    // on deliveries(event_seq) keeps NOT EXISTS a lookup, not a scan).
    QString errorText;
    SqliteStatement *removeDeliveries
        = statement("DELETE FROM deliveries WHERE id BETWEEN ? AND ?"_ba, &errorText);
    SqliteStatement *removeEvents = removeDeliveries
        ? statement("DELETE FROM events WHERE seq BETWEEN ? AND ? AND NOT EXISTS"
                    " (SELECT 1 FROM deliveries WHERE event_seq = events.seq)"_ba,
                    &errorText)
        : nullptr;
    if (!removeEvents)
        return error(u"prepare removing finished deliveries: %1"_s.arg(errorText));

    const auto removeRuns = [this](SqliteStatement *remove, std::vector<qint64> keys,
                                   const QString &what) -> Expected<void> {
        std::sort(keys.begin(), keys.end());
        keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
        for (size_t first = 0; first < keys.size();) {
            size_t last = first;
            while (last + 1 < keys.size() && keys[last + 1] == keys[last] + 1)
                ++last;
            remove->bind(1, keys[first]);
            remove->bind(2, keys[last]);
            if (!remove->execute()) {
                return sqlError(u"%1 %2 to %3"_s.arg(what).arg(keys[first]).arg(keys[last]),
                                remove->errorText());
            }
            first = last + 1;
        }
        return {};
    };
    std::vector<qint64> deliveryIds;
    std::vector<qint64> eventSeqs;
    deliveryIds.reserve(size_t(finished.size()));
    eventSeqs.reserve(size_t(finished.size()));
    for (const FinishedDelivery &delivery : finished) {
        deliveryIds.push_back(delivery.id);
        eventSeqs.push_back(delivery.eventSeq);
    }
    if (auto removed = removeRuns(removeDeliveries, std::move(deliveryIds),
                                  u"remove finished deliveries"_s);
        !removed)
        return removed;
    return removeRuns(removeEvents, std::move(eventSeqs), u"remove finished events (seq)"_s);
}

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
    SqliteStatement *trim = statement("DELETE FROM attempt_log WHERE id <= ?"_ba, &errorText);
    if (!trim)
        return error(u"prepare trimming the delivery log: %1"_s.arg(errorText));
    trim->bind(1, newestRemovedId);
    if (!trim->execute())
        return sqlError(u"trim the delivery log"_s, trim->errorText());
    return {};
}

Expected<void> SqliteDeliveryStore::Private::identifyFile(bool *isNew)
{
    // Runs once per open: not worth a place in the statement cache.
    SqliteStatement query = SqliteStatement::prepare(database, StoreIdentitySql);
    if (!query.isValid() || query.step() != SQLITE_ROW) {
        // A WAL database cannot even be read without creating its -shm file, so a read-only
        // location fails here too; say so rather than blaming the file.
        const QFileInfo info(filePath);
        if (!info.isWritable() || !QFileInfo(info.absolutePath()).isWritable()) {
            return sqlError(u"open it: the file or its folder is read-only (the store needs to "
                            "write the file and its -wal and -shm files next to it)"_s,
                            query.errorText());
        }
        return sqlError(u"read the file (damaged, or not an EventDesk store?)"_s,
                        query.errorText());
    }
    const qint64 applicationId = query.columnInt64(0);
    const qint64 userVersion = query.columnInt64(1);
    const qint64 objectCount = query.columnInt64(2);

    if (applicationId == StoreApplicationId) {
        if (const QString problem = storeVersionProblem(userVersion); !problem.isEmpty())
            return error(u"open it: "_s + problem);
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
    // journal_mode answers with the mode in effect: a read-only file or directory silently
    // keeps the old mode, and D1's crash safety at synchronous=NORMAL needs WAL.
    SqliteStatement query = SqliteStatement::prepare(database, "PRAGMA journal_mode = WAL"_ba);
    if (!query.isValid() || query.step() != SQLITE_ROW)
        return sqlError(u"switch to WAL journal mode"_s, query.errorText());
    const QString journalMode = query.columnText(0);
    if (journalMode.compare(u"wal"_s, Qt::CaseInsensitive) != 0) {
        return error(u"switch to WAL journal mode (the mode is still \"%1\"; is the file or its "
                     "folder read-only?)"_s.arg(journalMode));
    }
    if (auto result = runOnce("PRAGMA synchronous = NORMAL"_ba, u"set synchronous mode"_s); !result)
        return result;
    // A delivered event's rows are deleted shortly after they were inserted. With SQLite's
    // default 2 MB page cache those pages had been evicted again and were read back for the
    // delete; 32 MB keep them (the group commit of benchmark 2 went from ~18 to ~6 us per
    // finished delivery with this and the checkpoints below; bench/RESULTS.md). The cache is a
    // ceiling, filled only as pages are used.
    if (auto result = runOnce("PRAGMA cache_size = -32768"_ba, u"set the page cache size"_s);
        !result)
        return result;
    // Debian builds SQLite with secure_delete on, other platforms' SQLite with it off. On, every
    // delivered event's deleted content is overwritten with zeros and written to the log a second
    // time (measured in benchmark 2: ~1.1 KB more written per 1 KB event). FAST, the same on every
    // platform, clears deleted content inside the b-tree pages it writes anyway and adds no I/O;
    // traces stay in freed pages until the next publish reuses them.
    if (auto result = runOnce("PRAGMA secure_delete = FAST"_ba, u"set secure delete"_s); !result)
        return result;
    return runOnce("PRAGMA foreign_keys = OFF"_ba, u"turn off foreign keys"_s);
}

void SqliteDeliveryStore::Private::closeConnection()
{
    // Its connection goes first, so that the engine's, the last one, checkpoints everything and
    // removes the log as it closes.
    checkpointer.reset();
    if (!database)
        return;
    // sqlite3_close refuses to close a connection that still has statements.
    statements.clear();
    if (sqlite3_close(database) != SQLITE_OK) {
        // Only a statement that outlived its use can cause this; close the connection when it is
        // finalized rather than leak the connection and keep the file open.
        qCWarning(lcStore) << "Closing the delivery store" << filePath
                           << "while a statement is unfinished:" << lastErrorText();
        sqlite3_close_v2(database);
    }
    database = nullptr;
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
    const std::lock_guard lock(d->mutex);
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

    // NOMUTEX: the store is used by one thread at a time (not necessarily the one that created
    // it), so SQLite's per-connection mutex would only cost time. What stays needed are SQLite's
    // locks shared by all connections (the desktop app's views read the file from threads of
    // their own), which a library built with SQLITE_THREADSAFE=0 does not have.
    if (sqlite3_threadsafe() == 0) {
        return d->error(u"open it: the SQLite library in use was built without thread support "
                        "(SQLITE_THREADSAFE=0)"_s);
    }
    const int opened = sqlite3_open_v2(
        QFile::encodeName(filePath).constData(), &d->database,
        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
    if (opened != SQLITE_OK) {
        // The handle exists even when opening failed (unless memory ran out) and must be closed.
        const QString cause
            = d->database ? d->lastErrorText() : QString::fromUtf8(sqlite3_errstr(opened));
        d->closeConnection();
        return d->sqlError(u"open it"_s, cause);
    }

    auto fail = [this](const Expected<void> &result) {
        d->closeConnection();
        return result;
    };
    if (sqlite3_busy_timeout(d->database, BusyTimeoutMs) != SQLITE_OK)
        return fail(d->sqlError(u"set busy timeout"_s, d->lastErrorText()));
    bool isNew = false;
    if (auto result = d->identifyFile(&isNew); !result)
        return fail(result);
    if (auto result = d->configureConnection(); !result)
        return fail(result);
    d->checkpointer = std::make_unique<WalCheckpointer>();
    if (d->checkpointer->start(QFile::encodeName(filePath))) {
        // Replaces SQLite's automatic checkpoint (itself a WAL hook) on this connection.
        sqlite3_wal_hook(d->database, walCommitted, d->checkpointer.get());
    } else {
        qCInfo(lcStore) << "No background checkpoints for" << filePath
                        << "(a second connection could not be opened); the engine checkpoints";
        d->checkpointer.reset();
        sqlite3_wal_autocheckpoint(d->database, WalCheckpointer::CheckpointPages);
    }
    if (isNew) {
        auto result = d->inTransaction(u"create the store schema"_s, [this]() -> Expected<void> {
            for (const QByteArray &sql : SchemaStatements) {
                if (auto result = d->runOnce(sql, u"create the store schema"_s); !result)
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
    const std::lock_guard lock(d->mutex);
    d->closeConnection();
}

Expected<DeliveryStore::MaxIds> SqliteDeliveryStore::maxIds()
{
    const std::lock_guard lock(d->mutex);
    if (!d->database)
        return d->notOpen();
    QString errorText;
    SqliteStatement *query
        = d->statement("SELECT max(coalesce((SELECT value FROM meta WHERE key = ?), 0),"
                       " coalesce((SELECT max(seq) FROM events), 0)),"
                       " max(coalesce((SELECT value FROM meta WHERE key = ?), 0),"
                       " coalesce((SELECT max(id) FROM deliveries), 0))"_ba,
                       &errorText);
    if (!query)
        return d->error(u"prepare reading the highest ids: %1"_s.arg(errorText));
    query->bindAll(MaxEventSeqKey, MaxDeliveryIdKey);
    const auto rows
        = d->collect<MaxIds>(*query, u"read the highest ids"_s, [](const SqliteStatement &row) {
              MaxIds ids;
              ids.eventSeq = row.columnInt64(0);
              ids.deliveryId = row.columnInt64(1);
              return ids;
          });
    if (!rows)
        return Error(rows.error());
    if (rows->size() != 1)
        return d->error(u"read the highest ids: no answer"_s);
    return rows->first();
}

Expected<void> SqliteDeliveryStore::insertPublished(const QList<StoredEvent> &events,
                                                    const QList<DeliveryRecord> &deliveries)
{
    const std::lock_guard lock(d->mutex);
    if (!d->database)
        return d->notOpen();
    if (events.isEmpty() && deliveries.isEmpty())
        return {};
    const QString what = u"store %1 published events"_s.arg(events.size());
    // SPEC D1: the publish is acknowledged only after this transaction commits, and a failure
    // leaves nothing behind.
    return d->inTransaction(what, [&]() -> Expected<void> {
        QString errorText;
        SqliteStatement *insertEvent
            = d->statement("INSERT INTO events (seq, topic, event_id, event_type, subject,"
                           " data_version, event_time, publish_ms, body)"
                           " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"_ba,
                           &errorText);
        SqliteStatement *insertDelivery = insertEvent
            ? d->statement("INSERT INTO deliveries (id, event_seq, topic,"
                           " subscription, state, attempts, due_ms, publish_ms,"
                           " last_outcome, last_http_status, last_attempt_ms, reason,"
                           " dl_unavailable_since_ms)"
                           " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"_ba,
                           &errorText)
            : nullptr;
        SqliteStatement *raiseMaximum = insertDelivery
            ? d->statement("UPDATE meta SET value = max(value, ?) WHERE key = ?"_ba, &errorText)
            : nullptr;
        if (!raiseMaximum)
            return d->error(u"prepare storing published events: %1"_s.arg(errorText));

        qint64 maxSeq = 0;
        for (const StoredEvent &event : events) {
            insertEvent->bindAll(event.seq, event.topic, event.id, event.eventType, event.subject,
                                 event.dataVersion, event.eventTime, event.publishMs, event.body);
            if (!insertEvent->execute()) {
                return d->sqlError(u"store event %1 (seq %2)"_s.arg(event.id).arg(event.seq),
                                   insertEvent->errorText());
            }
            maxSeq = std::max(maxSeq, event.seq);
        }
        qint64 maxDeliveryId = 0;
        for (const DeliveryRecord &delivery : deliveries) {
            insertDelivery->bindAll(delivery.id, delivery.eventSeq, delivery.topic,
                                    delivery.subscription, static_cast<int>(delivery.state),
                                    delivery.attempts, delivery.dueMs, delivery.publishMs,
                                    static_cast<int>(delivery.lastOutcome), delivery.lastHttpStatus,
                                    delivery.lastAttemptMs, static_cast<int>(delivery.reason),
                                    delivery.deadLetterUnavailableSinceMs);
            if (!insertDelivery->execute()) {
                return d->sqlError(
                    u"store delivery %1 (event seq %2, subscription %3)"_s.arg(delivery.id)
                        .arg(delivery.eventSeq)
                        .arg(delivery.subscription),
                    insertDelivery->errorText());
            }
            maxDeliveryId = std::max(maxDeliveryId, delivery.id);
        }
        raiseMaximum->bindAll(maxSeq, MaxEventSeqKey);
        bool raised = raiseMaximum->execute();
        if (raised) {
            raiseMaximum->bindAll(maxDeliveryId, MaxDeliveryIdKey);
            raised = raiseMaximum->execute();
        }
        if (!raised)
            return d->sqlError(u"record the highest ids"_s, raiseMaximum->errorText());
        return {};
    });
}

Expected<void> SqliteDeliveryStore::commit(const StoreBatch &batch)
{
    const std::lock_guard lock(d->mutex);
    if (!d->database)
        return d->notOpen();
    if (batch.isEmpty())
        return {};
    return d->inTransaction(u"commit delivery changes"_s, [&]() -> Expected<void> {
        QString errorText;
        auto prepared = [&](const QByteArray &sql) {
            return d->statement(sql, &errorText);
        };
        auto prepareFailed = [&] {
            return d->error(u"prepare committing delivery changes: %1"_s.arg(errorText));
        };

        if (!batch.updates.isEmpty()) {
            SqliteStatement *update = prepared(
                "UPDATE deliveries SET state = ?, attempts = ?, due_ms = ?, last_outcome = ?,"
                " last_http_status = ?, last_attempt_ms = ?, reason = ?,"
                " dl_unavailable_since_ms = ? WHERE id = ?"_ba);
            if (!update)
                return prepareFailed();
            for (const DeliveryRecord &delivery : batch.updates) {
                update->bindAll(static_cast<int>(delivery.state), delivery.attempts, delivery.dueMs,
                                static_cast<int>(delivery.lastOutcome), delivery.lastHttpStatus,
                                delivery.lastAttemptMs, static_cast<int>(delivery.reason),
                                delivery.deadLetterUnavailableSinceMs, delivery.id);
                if (!update->execute()) {
                    return d->sqlError(u"update delivery %1"_s.arg(delivery.id),
                                       update->errorText());
                }
            }
        }

        if (!batch.finished.isEmpty()) {
            if (auto removed = d->removeFinished(batch.finished); !removed)
                return removed;
        }

        if (!batch.deadLetters.isEmpty()) {
            SqliteStatement *insert = prepared(
                "INSERT INTO dead_letters (topic, subscription, event_id, reason, last_outcome,"
                " last_http_status, attempts, publish_ms, last_attempt_ms, dead_lettered_ms,"
                " blob_path, record, event_type, subject, data_version, event_time, event_body)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"_ba);
            if (!insert)
                return prepareFailed();
            for (const DeadLetterEntry &entry : batch.deadLetters) {
                insert->bindAll(entry.topic, entry.subscription, entry.eventId,
                                static_cast<int>(entry.reason), static_cast<int>(entry.lastOutcome),
                                entry.lastHttpStatus, entry.attempts, entry.publishMs,
                                entry.lastAttemptMs, entry.deadLetteredMs, entry.blobPath,
                                entry.record, entry.eventType, entry.subject, entry.dataVersion,
                                entry.eventTime, entry.eventBody);
                if (!insert->execute()) {
                    return d->sqlError(u"index dead letter of event %1"_s.arg(entry.eventId),
                                       insert->errorText());
                }
            }
        }

        if (!batch.drops.isEmpty()) {
            SqliteStatement *insert = prepared(
                "INSERT INTO dropped (topic, subscription, event_id, reason, last_outcome,"
                " last_http_status, attempts, dropped_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"_ba);
            if (!insert)
                return prepareFailed();
            for (const DroppedEntry &entry : batch.drops) {
                insert->bindAll(entry.topic, entry.subscription, entry.eventId,
                                static_cast<int>(entry.reason), static_cast<int>(entry.lastOutcome),
                                entry.lastHttpStatus, entry.attempts, entry.droppedMs);
                if (!insert->execute()) {
                    return d->sqlError(u"record dropped event %1"_s.arg(entry.eventId),
                                       insert->errorText());
                }
            }
        }

        if (!batch.attempts.isEmpty()) {
            SqliteStatement *insert = prepared(
                "INSERT INTO attempt_log (time_ms, topic, subscription, event_ids, attempt,"
                " http_status, outcome, duration_ms, next_due_ms)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"_ba);
            if (!insert)
                return prepareFailed();
            qint64 firstId = 0;
            qint64 lastId = 0;
            for (const AttemptLogEntry &entry : batch.attempts) {
                insert->bindAll(entry.timeMs, entry.topic, entry.subscription,
                                entry.eventIds.join(u','), entry.attempt, entry.httpStatus,
                                static_cast<int>(entry.outcome), entry.durationMs, entry.nextDueMs);
                if (!insert->execute())
                    return d->sqlError(u"write the delivery log"_s, insert->errorText());
                lastId = sqlite3_last_insert_rowid(d->database);
                if (firstId == 0)
                    firstId = lastId;
            }
            if (auto result = d->trimAttemptLog(firstId - 1, lastId); !result)
                return result;
        }

        if (!batch.probation.isEmpty()) {
            SqliteStatement *upsert = prepared(
                "INSERT OR REPLACE INTO probation (topic, subscription, state, cause, until_ms,"
                " duration_ms, failures) VALUES (?, ?, ?, ?, ?, ?, ?)"_ba);
            if (!upsert)
                return prepareFailed();
            for (const ProbationRecord &record : batch.probation) {
                upsert->bindAll(record.topic, record.subscription, record.state,
                                static_cast<int>(record.cause), record.untilMs, record.durationMs,
                                record.consecutiveFailures);
                if (!upsert->execute()) {
                    return d->sqlError(u"store probation of %1"_s.arg(record.subscription),
                                       upsert->errorText());
                }
            }
        }
        return {};
    });
}

Expected<QList<DeliveryRecord>> SqliteDeliveryStore::loadUnfinishedDeliveries()
{
    const std::lock_guard lock(d->mutex);
    if (!d->database)
        return d->notOpen();
    QString errorText;
    SqliteStatement *query = d->statement(LoadDeliveriesSql, &errorText);
    if (!query)
        return d->error(u"prepare loading deliveries: %1"_s.arg(errorText));
    return d->collect<DeliveryRecord>(*query, u"load deliveries"_s,
                                      [](const SqliteStatement &row) { return readDelivery(row); });
}

Expected<void> SqliteDeliveryStore::forEachUnfinishedDelivery(
    const std::function<void(const DeliveryRecord &)> &visit)
{
    const std::lock_guard lock(d->mutex);
    if (!d->database)
        return d->notOpen();
    // A statement of its own rather than the cached one of loadUnfinishedDeliveries(): visit may
    // call back into the store, and this runs once per start-up. SQLite steps through the table,
    // so a million-row backlog streams through one record.
    SqliteStatement query = SqliteStatement::prepare(d->database, LoadDeliveriesSql);
    if (!query.isValid())
        return d->sqlError(u"prepare loading deliveries"_s, query.errorText());
    DeliveryRecord record;
    int result = SQLITE_OK;
    while ((result = query.step()) == SQLITE_ROW) {
        readDelivery(query, record);
        visit(record);
    }
    if (result != SQLITE_DONE)
        return d->sqlError(u"load deliveries"_s, query.errorText());
    return {};
}

Expected<QList<StoredEvent>> SqliteDeliveryStore::loadEvents(const QList<qint64> &seqs)
{
    const std::lock_guard lock(d->mutex);
    if (!d->database)
        return d->notOpen();
    if (seqs.isEmpty())
        return QList<StoredEvent>();
    return d->selectByKeys<StoredEvent>(EventsByKeySql, EventsByKeyListSql, seqs, u"load events"_s,
                                        readEvent);
}

Expected<QList<ProbationRecord>> SqliteDeliveryStore::loadProbation()
{
    const std::lock_guard lock(d->mutex);
    if (!d->database)
        return d->notOpen();
    QString errorText;
    SqliteStatement *query = d->statement("SELECT topic, subscription, state, cause, until_ms,"
                                          " duration_ms, failures FROM probation"_ba,
                                          &errorText);
    if (!query)
        return d->error(u"prepare loading probation: %1"_s.arg(errorText));
    return d->collect<ProbationRecord>(*query, u"load probation"_s, [](const SqliteStatement &row) {
        ProbationRecord record;
        record.topic = row.columnText(0);
        record.subscription = row.columnText(1);
        record.state = row.columnInt(2);
        record.cause = static_cast<DeliveryOutcome>(row.columnInt(3));
        record.untilMs = row.columnInt64(4);
        record.durationMs = row.columnInt64(5);
        record.consecutiveFailures = row.columnInt(6);
        return record;
    });
}

Expected<QList<DeadLetterEntry>> SqliteDeliveryStore::deadLetters(const DeadLetterQuery &query)
{
    const std::lock_guard lock(d->mutex);
    if (!d->database)
        return d->notOpen();
    const SqlConditions filter = deadLetterFilter(query, Keyset::Apply);
    QString errorText;
    // Keyset pagination (id < beforeId) costs the same on every page, unlike OFFSET.
    SqliteStatement *statement
        = d->statement("SELECT "_ba + DeadLetterColumns + " FROM dead_letters"_ba
                           + filter.whereClause() + " ORDER BY id DESC LIMIT ?"_ba,
                       &errorText);
    if (!statement)
        return d->error(u"prepare browsing dead letters: %1"_s.arg(errorText));
    const int bound = filter.bind(*statement);
    statement->bind(bound + 1, query.limit > 0 ? query.limit : -1);
    return d->collect<DeadLetterEntry>(*statement, u"browse dead letters"_s, readDeadLetter);
}

Expected<QList<DeadLetterEntry>> SqliteDeliveryStore::deadLettersById(const QList<qint64> &ids)
{
    const std::lock_guard lock(d->mutex);
    if (!d->database)
        return d->notOpen();
    if (ids.isEmpty())
        return QList<DeadLetterEntry>();
    auto entries = d->selectByKeys<DeadLetterEntry>(DeadLettersByKeySql, DeadLettersByKeyListSql,
                                                    ids, u"read dead letters"_s, readDeadLetter);
    if (entries) {
        std::sort(entries->begin(), entries->end(),
                  [](const DeadLetterEntry &a, const DeadLetterEntry &b) { return a.id > b.id; });
    }
    return entries;
}

Expected<qint64> SqliteDeliveryStore::countDeadLetters(const DeadLetterQuery &query)
{
    const std::lock_guard lock(d->mutex);
    if (!d->database)
        return d->notOpen();
    const SqlConditions filter = deadLetterFilter(query, Keyset::Ignore);
    QString errorText;
    SqliteStatement *statement
        = d->statement("SELECT count(*) FROM dead_letters"_ba + filter.whereClause(), &errorText);
    if (!statement)
        return d->error(u"prepare counting dead letters: %1"_s.arg(errorText));
    filter.bind(*statement);
    const auto counts
        = d->collect<qint64>(*statement, u"count dead letters"_s,
                             [](const SqliteStatement &row) { return row.columnInt64(0); });
    if (!counts)
        return Error(counts.error());
    if (counts->size() != 1)
        return d->error(u"count dead letters: no answer"_s);
    return counts->first();
}

Expected<void> SqliteDeliveryStore::removeDeadLetters(const QList<qint64> &ids)
{
    const std::lock_guard lock(d->mutex);
    if (!d->database)
        return d->notOpen();
    if (ids.isEmpty())
        return {};
    return d->inTransaction(u"remove dead letters"_s, [&]() -> Expected<void> {
        QString errorText;
        SqliteStatement *remove
            = d->statement("DELETE FROM dead_letters WHERE id = ?"_ba, &errorText);
        if (!remove)
            return d->error(u"prepare removing dead letters: %1"_s.arg(errorText));
        for (const qint64 id : ids) {
            remove->bind(1, id);
            if (!remove->execute())
                return d->sqlError(u"remove dead letter %1"_s.arg(id), remove->errorText());
        }
        return {};
    });
}

Expected<QList<DroppedEntry>> SqliteDeliveryStore::droppedDeliveries(int limit)
{
    const std::lock_guard lock(d->mutex);
    if (!d->database)
        return d->notOpen();
    QString errorText;
    SqliteStatement *query = d->statement(
        "SELECT "_ba + DroppedColumns + " FROM dropped ORDER BY id DESC LIMIT ?"_ba, &errorText);
    if (!query)
        return d->error(u"prepare reading dropped deliveries: %1"_s.arg(errorText));
    query->bind(1, limit > 0 ? limit : -1);
    return d->collect<DroppedEntry>(*query, u"read dropped deliveries"_s, readDropped);
}

Expected<QList<AttemptLogEntry>> SqliteDeliveryStore::attemptLog(int limit)
{
    const std::lock_guard lock(d->mutex);
    if (!d->database)
        return d->notOpen();
    QString errorText;
    SqliteStatement *query = d->statement("SELECT "_ba + AttemptLogColumns
                                              + " FROM attempt_log ORDER BY id DESC LIMIT ?"_ba,
                                          &errorText);
    if (!query)
        return d->error(u"prepare reading the delivery log: %1"_s.arg(errorText));
    query->bind(1, limit > 0 ? limit : -1);
    return d->collect<AttemptLogEntry>(*query, u"read the delivery log"_s, readAttemptLogEntry);
}

} // namespace EventDesk
