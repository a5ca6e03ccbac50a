// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// Benchmark 8: several eventdeskd on one PostgreSQL store (issue 21) against one eventdeskd on its
// SQLite file, end to end, with batching off and on.
//   setup:    a throwaway PostgreSQL cluster (scripts/start-postgres.sh: loopback, fsync off, as
//             for the tests); real eventdeskd processes, each with its own workspace folder (the
//             same workspace.json: topic "bench", one subscription to nginx answering 204) and
//             port; a fresh database per measurement.
//   measured: events/s from the first publish to the moment the store holds no delivery any more
//             (every event published over HTTP in 1 MB requests, two lean HTTP/1.1 connections
//             per instance taking the next request from one queue; the store polled every 10 ms
//             once every publish was answered). SQLite 1 instance, PostgreSQL 1 and 2 instances.
//             CPU time per event of each eventdeskd, of the PostgreSQL server's processes and of
//             this process (publishers and polling), from /proc and getrusage.
//   baseline: the SQLite figure of the same run (and PostgreSQL 1 instance for 2 instances).
//   claims:   the cost of a takeover at the store: K deliveries of an instance whose lease ran out
//             claimed by another (PostgresDeliveryStore::claimDeliveries, pages of
//             DeliveryClaims::ClaimsPerPage) - wall time and server CPU per delivery; and the
//             claim every heartbeat makes when there is nothing to take.
#include "BenchCommon.h"
#include "BenchPostgres.h"
#include "BenchPublisher.h"
#include "engine/DeliveryClaims.h"
#include "store/postgres/PostgresDeliveryStore.h"
#include "workspace/WorkspaceFolder.h"

#include <QCommandLineParser>
#include <QHostInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QThread>
#include <QUrl>

#include <sqlite3.h>

#include <memory>
#include <vector>

using namespace Qt::StringLiterals;

namespace {

constexpr int EventSize = 1024;
constexpr int PublishersPerInstance = 2;
constexpr int PollIntervalMs = 10;
constexpr int LeaseSeconds = 30; // no instance may look dead during a measurement

enum class Backend { Sqlite, Postgres };

struct Setup
{
    Backend backend = Backend::Sqlite;
    int instances = 1;
    bool batching = false;

    QString name() const
    {
        return (backend == Backend::Sqlite ? u"SQLite"_s : u"PostgreSQL"_s)
            + u", %1 instance%2, batching %3"_s.arg(instances)
                  .arg(instances > 1 ? u"s"_s : QString())
                  .arg(batching ? u"on"_s : u"off"_s);
    }
};

struct Measurement
{
    double eventsPerSecond = 0;
    QList<double> instanceCpuUs; // per event, each eventdeskd
    double serverCpuUs = 0; // per event, the PostgreSQL server
    double clientCpuUs = 0; // per event, this process
};

// One eventdeskd on a workspace folder; stopped (SIGTERM) when destroyed.
class Daemon final
{
public:
    ~Daemon()
    {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.terminate();
            if (!m_process.waitForFinished(60000)) {
                m_process.kill();
                m_process.waitForFinished();
            }
        }
    }

    QString start(const QString &program, const QString &workspace, const QString &store)
    {
        QStringList arguments {u"--workspace"_s,    workspace, u"--listen"_s,   u"127.0.0.1:0"_s,
                               u"--secret-store"_s, u"none"_s, u"--no-jitter"_s};
        if (!store.isEmpty())
            arguments
                += {u"--store"_s, store, u"--instance-lease"_s, QString::number(LeaseSeconds)};
        m_process.start(program, arguments);
        const QRegularExpression listening(u"EventDesk listening on (http://\\S+)"_s);
        QByteArray output;
        Bench::spinUntil(
            [&] {
                output += m_process.readAllStandardOutput();
                return m_process.state() == QProcess::NotRunning
                    || listening.match(QString::fromUtf8(output)).hasMatch();
            },
            60000, 5);
        const auto match = listening.match(QString::fromUtf8(output));
        if (!match.hasMatch()) {
            return u"eventdeskd did not start: %1"_s.arg(
                QString::fromUtf8(m_process.readAllStandardError()).trimmed().right(600));
        }
        m_endpoint = QUrl(match.captured(1) + u"/topics/bench/api/events?api-version=2018-01-01"_s);
        return {};
    }

    qint64 processId() const { return m_process.processId(); }
    const QUrl &endpoint() const { return m_endpoint; }

private:
    QProcess m_process;
    QUrl m_endpoint;
};

// Whether the store still holds deliveries (and, at the end, dead letters or drops: there must
// be none, nginx accepts everything).
class StoreProbe
{
public:
    virtual ~StoreProbe() = default;
    virtual QString open() = 0;
    virtual bool isEmpty() = 0; // no delivery left
    virtual qint64 failures() = 0; // dead letters and drops
};

class SqliteProbe final : public StoreProbe
{
public:
    explicit SqliteProbe(const QString &file)
        : m_file(file)
    {
    }
    ~SqliteProbe() override
    {
        sqlite3_finalize(m_any);
        sqlite3_close(m_db);
    }
    QString open() override
    {
        if (sqlite3_open_v2(QFile::encodeName(m_file).constData(), &m_db, SQLITE_OPEN_READONLY,
                            nullptr)
                != SQLITE_OK
            || sqlite3_prepare_v2(m_db, "SELECT EXISTS (SELECT 1 FROM deliveries)", -1, &m_any,
                                  nullptr)
                != SQLITE_OK)
            return u"cannot read %1: %2"_s.arg(m_file, QString::fromUtf8(sqlite3_errmsg(m_db)));
        sqlite3_busy_timeout(m_db, 1000);
        return {};
    }
    bool isEmpty() override
    {
        bool empty = false;
        if (sqlite3_step(m_any) == SQLITE_ROW)
            empty = sqlite3_column_int(m_any, 0) == 0;
        sqlite3_reset(m_any);
        return empty;
    }
    qint64 failures() override
    {
        sqlite3_stmt *count = nullptr;
        sqlite3_prepare_v2(
            m_db, "SELECT (SELECT count(*) FROM dead_letters) + (SELECT count(*) FROM dropped)", -1,
            &count, nullptr);
        const qint64 total
            = count && sqlite3_step(count) == SQLITE_ROW ? sqlite3_column_int64(count, 0) : -1;
        sqlite3_finalize(count);
        return total;
    }

private:
    QString m_file;
    sqlite3 *m_db = nullptr;
    sqlite3_stmt *m_any = nullptr;
};

class PostgresProbe final : public StoreProbe
{
public:
    explicit PostgresProbe(const QString &url)
        : m_url(url)
    {
    }
    ~PostgresProbe() override { PQfinish(m_connection); }
    QString open() override
    {
        m_connection = PQconnectdb(m_url.toUtf8().constData());
        if (PQstatus(m_connection) != CONNECTION_OK)
            return QString::fromUtf8(PQerrorMessage(m_connection));
        return {};
    }
    // Through the primary key's index: its entries of deleted rows are marked dead by the first
    // scan that meets them, so that the poll stays cheap while the table empties.
    bool isEmpty() override
    {
        return answer("SELECT count(*) FROM (SELECT id FROM deliveries ORDER BY id LIMIT 1) AS one")
            == 0;
    }
    qint64 failures() override
    {
        return answer(
            "SELECT (SELECT count(*) FROM dead_letters) + (SELECT count(*) FROM dropped)");
    }

private:
    qint64 answer(const char *sql)
    {
        PGresult *result = PQexec(m_connection, sql);
        const qint64 value = PQresultStatus(result) == PGRES_TUPLES_OK && PQntuples(result) == 1
            ? QByteArray(PQgetvalue(result, 0, 0)).toLongLong()
            : -1;
        PQclear(result);
        return value;
    }

    QString m_url;
    PGconn *m_connection = nullptr;
};

Measurement measure(Bench::PostgresCluster &cluster, const QString &daemon, const Setup &setup,
                    const QUrl &receiver, qint64 events, int run, QString *error)
{
    Measurement measurement;
    QString store;
    if (setup.backend == Backend::Postgres) {
        store = cluster.createDatabase(u"run_%1"_s.arg(run));
        if (store.isEmpty()) {
            *error = u"cannot create a database: %1"_s.arg(cluster.errorText());
            return measurement;
        }
    }
    Bench::SubscriptionSpec spec {u"sub0"_s, receiver.toString(), setup.batching, 5000, 1024};
    std::vector<std::unique_ptr<QTemporaryDir>> folders;
    std::vector<std::unique_ptr<Daemon>> daemons;
    for (int i = 0; i < setup.instances; ++i) {
        folders.push_back(std::make_unique<QTemporaryDir>());
        const QString workspace = folders.back()->filePath(u"workspace"_s);
        if (!Bench::writeWorkspace(workspace, {spec})) {
            *error = u"cannot write the workspace"_s;
            return measurement;
        }
        daemons.push_back(std::make_unique<Daemon>());
        if (const QString failed = daemons.back()->start(daemon, workspace, store);
            !failed.isEmpty()) {
            *error = failed;
            return measurement;
        }
    }
    std::unique_ptr<StoreProbe> probe;
    if (setup.backend == Backend::Postgres)
        probe = std::make_unique<PostgresProbe>(store);
    else
        probe = std::make_unique<SqliteProbe>(
            EventDesk::WorkspaceFolder::storeFile(folders.front()->filePath(u"workspace"_s)));
    if (const QString failed = probe->open(); !failed.isEmpty()) {
        *error = failed;
        return measurement;
    }

    const QList<QByteArray> bodies = Bench::publishBodies(events, EventSize, 1024 * 1024);
    qsizetype next = 0;
    qsizetype answered = 0;
    int rejected = 0;
    const Bench::NextBody nextBody = [&] {
        return next < bodies.size() ? bodies.at(next++) : QByteArray();
    };
    const Bench::Answered onAnswer = [&](int status, const QByteArray &answer) {
        if (status != 200 && rejected++ == 0)
            Bench::info(u"publish rejected (%1): %2"_s.arg(status).arg(
                QString::fromUtf8(answer.left(300))));
        ++answered;
    };

    QList<double> cpuBefore;
    for (const auto &daemon : daemons)
        cpuBefore.append(Bench::processCpuSeconds(daemon->processId()));
    const double serverBefore = setup.backend == Backend::Postgres ? cluster.serverCpuSeconds() : 0;
    const double clientBefore = Bench::cpuSeconds();
    QElapsedTimer timer;
    timer.start();
    std::vector<std::unique_ptr<Bench::PlainPublisher>> publishers;
    for (int p = 0; p < PublishersPerInstance; ++p) {
        for (const auto &daemon : daemons)
            publishers.push_back(
                std::make_unique<Bench::PlainPublisher>(daemon->endpoint(), nextBody, onAnswer));
    }
    double lastAnswerSeconds = 0;
    const bool complete = Bench::spinUntil(
        [&] {
            if (rejected > 0)
                return true;
            if (answered < bodies.size())
                return false;
            if (lastAnswerSeconds == 0)
                lastAnswerSeconds = double(timer.nsecsElapsed()) / 1e9;
            return probe->isEmpty();
        },
        600000, PollIntervalMs);
    const double seconds = double(timer.nsecsElapsed()) / 1e9;
    for (qsizetype i = 0; i < qsizetype(daemons.size()); ++i) {
        measurement.instanceCpuUs.append(
            1e6 * (Bench::processCpuSeconds(daemons[size_t(i)]->processId()) - cpuBefore[i])
            / double(events));
    }
    if (setup.backend == Backend::Postgres)
        measurement.serverCpuUs
            = 1e6 * (cluster.serverCpuSeconds() - serverBefore) / double(events);
    measurement.clientCpuUs = 1e6 * (Bench::cpuSeconds() - clientBefore) / double(events);
    if (!complete || rejected > 0) {
        *error
            = u"%1 publish requests rejected, %2 of %3 answered, store emptied: %4"_s.arg(rejected)
                  .arg(answered)
                  .arg(bodies.size())
                  .arg(complete ? u"yes"_s : u"no"_s);
        return measurement;
    }
    if (const qint64 failures = probe->failures(); failures != 0) {
        *error = u"%1 dead letters or drops (or the count failed: -1)"_s.arg(failures);
        return measurement;
    }
    measurement.eventsPerSecond = double(events) / seconds;
    QStringList perInstance;
    for (const double cpu : std::as_const(measurement.instanceCpuUs))
        perInstance.append(Bench::number(cpu, 1));
    Bench::info(
        u"%1: %2 events/s (%3 events, %4 s, last publish answered at %5 s); CPU per event: "
        u"eventdeskd %6 us"
        "%7, this process %8 us"_s.arg(setup.name(), Bench::number(measurement.eventsPerSecond))
            .arg(events)
            .arg(Bench::number(seconds, 2), Bench::number(lastAnswerSeconds, 2),
                 perInstance.join(u" + "_s),
                 setup.backend == Backend::Postgres
                     ? u", PostgreSQL server %1 us"_s.arg(Bench::number(measurement.serverCpuUs, 1))
                     : QString(),
                 Bench::number(measurement.clientCpuUs, 1)));
    return measurement;
}

double totalInstanceCpu(const Measurement &measurement)
{
    double total = 0;
    for (const double cpu : measurement.instanceCpuUs)
        total += cpu;
    return total;
}

// K deliveries of an instance whose lease ran out, claimed by another: per delivery, wall time
// and server CPU. Also the claim each heartbeat makes when nothing is claimable.
bool measureClaims(Bench::PostgresCluster &cluster, qint64 count)
{
    using namespace EventDesk;
    const QString url = cluster.createDatabase(u"claims"_s);
    if (url.isEmpty()) {
        Bench::info(u"claims: cannot create a database: %1"_s.arg(cluster.errorText()));
        return false;
    }
    PostgresDeliveryStore owner;
    PostgresDeliveryStore taker;
    if (!owner.open(url) || !taker.open(url))
        return false;
    // Both leases hold while the rows go in and while the empty claims run; then the owner's is
    // made to have run out, as if it had stopped for longer than its lease.
    const auto ownerId = owner.registerInstance({QHostInfo::localHostName(), 1, 600000});
    const auto takerId = taker.registerInstance({QHostInfo::localHostName(), 2, 600000});
    if (!ownerId || !takerId)
        return false;
    constexpr qint64 RowsPerPublish = 5000;
    for (qint64 first = 1; first <= count; first += RowsPerPublish) {
        QList<StoredEvent> events;
        QList<DeliveryRecord> deliveries;
        for (qint64 seq = first; seq < std::min(count + 1, first + RowsPerPublish); ++seq) {
            StoredEvent event;
            event.seq = seq;
            event.topic = u"bench"_s;
            event.id = QString::number(seq);
            event.body = Bench::eventJson(seq, EventSize);
            events.append(event);
            DeliveryRecord delivery;
            delivery.id = seq;
            delivery.eventSeq = seq;
            delivery.topic = u"bench"_s;
            delivery.subscription = u"sub0"_s;
            delivery.dueMs = 1'700'000'000'000 + seq;
            deliveries.append(delivery);
        }
        if (auto stored = owner.insertPublished(events, deliveries); !stored) {
            Bench::info(u"claims: %1"_s.arg(stored.error()));
            return false;
        }
    }
    // While the owner's lease holds: nothing to claim, as at nearly every heartbeat.
    constexpr int EmptyClaims = 200;
    QElapsedTimer timer;
    timer.start();
    for (int i = 0; i < EmptyClaims; ++i) {
        if (auto claimed
            = taker.claimDeliveries(DeliveryClaims::ClaimsPerPage, [](const DeliveryRecord &) {});
            !claimed || claimed.value() != 0) {
            Bench::info(u"claims: the claim took rows of a live instance or failed"_s);
            return false;
        }
    }
    const double emptyClaimMs = double(timer.nsecsElapsed()) / 1e6 / EmptyClaims;
    if (!cluster.execute(
            url,
            "UPDATE instances SET heartbeat = heartbeat - interval '1 hour' WHERE id = "
                + QByteArray::number(ownerId.value()))) {
        Bench::info(u"claims: cannot age the owner's heartbeat: %1"_s.arg(cluster.errorText()));
        return false;
    }
    const double serverBefore = cluster.serverCpuSeconds();
    const double clientBefore = Bench::cpuSeconds();
    timer.restart();
    qint64 claimed = 0;
    for (;;) {
        auto page
            = taker.claimDeliveries(DeliveryClaims::ClaimsPerPage, [](const DeliveryRecord &) {});
        if (!page) {
            Bench::info(u"claims: %1"_s.arg(page.error()));
            return false;
        }
        if (page.value() == 0)
            break;
        claimed += page.value();
    }
    const double seconds = double(timer.nsecsElapsed()) / 1e9;
    const double serverUs
        = 1e6 * (cluster.serverCpuSeconds() - serverBefore) / double(std::max<qint64>(1, claimed));
    const double clientUs
        = 1e6 * (Bench::cpuSeconds() - clientBefore) / double(std::max<qint64>(1, claimed));
    if (claimed != count) {
        Bench::info(u"claims: %1 of %2 deliveries claimed"_s.arg(claimed).arg(count));
        return false;
    }
    Bench::info(
        u"claims: takeover of %1 deliveries in %2 s: %3 us per delivery (server CPU %4 us, store "
        u"client %5 us);"
        " a claim with nothing to take (%1 rows owned by a live instance): %6 ms"_s.arg(count)
            .arg(Bench::number(seconds, 2), Bench::number(1e6 * seconds / double(count), 1),
                 Bench::number(serverUs, 1), Bench::number(clientUs, 1),
                 Bench::number(emptyClaimMs, 2)));
    Bench::result(u"8 claim cost per delivery (takeover of %1)"_s.arg(count),
                  Bench::number(1e6 * seconds / double(count), 1) + u" us"_s, u"-"_s, u"-"_s,
                  u"-"_s, true);
    return true;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOption({u"port"_s, u"nginx port answering 204"_s, u"port"_s});
    parser.addOption(
        {u"events-single"_s, u"events per measurement, batching off"_s, u"n"_s, u"20000"_s});
    parser.addOption(
        {u"events-batched"_s, u"events per measurement, batching on"_s, u"n"_s, u"100000"_s});
    parser.addOption({u"claims"_s, u"deliveries of the takeover (0: none)"_s, u"n"_s, u"50000"_s});
    parser.addOption(
        {u"repeat"_s, u"measurements of each kind (the best is taken)"_s, u"n"_s, u"2"_s});
    parser.addOption({u"daemon"_s, u"the eventdeskd to run (default: this build's)"_s, u"path"_s,
                      QStringLiteral(EVENTDESK_DAEMON_PATH)});
    parser.process(app);
    const int port = parser.value(u"port"_s).toInt();
    const qint64 singleEvents = parser.value(u"events-single"_s).toLongLong();
    const qint64 batchedEvents = parser.value(u"events-batched"_s).toLongLong();
    const qint64 claims = parser.value(u"claims"_s).toLongLong();
    const int repeat = std::max(1, parser.value(u"repeat"_s).toInt());
    if (port <= 0 || singleEvents < 1 || batchedEvents < 1) {
        std::fprintf(
            stderr,
            "--port is required; --events-single and --events-batched must be at least 1\n");
        return 2;
    }
    const QUrl receiver(u"http://127.0.0.1:%1/"_s.arg(port));
    Bench::PostgresCluster cluster;
    if (!cluster.isRunning()) {
        Bench::info(u"benchmark 8 skipped: no PostgreSQL server could be started (%1)"_s.arg(
            cluster.errorText()));
        Bench::result(u"8 events/s end to end, PostgreSQL"_s, u"skipped: no PostgreSQL server"_s,
                      u"-"_s, u"-"_s, u"-"_s, false);
        return 1;
    }
    double loadAverage[3] = {};
    if (getloadavg(loadAverage, 3) > 0)
        Bench::info(u"load average at the start: %1"_s.arg(Bench::number(loadAverage[0], 2)));

    const QList<Setup> setups {
        {Backend::Sqlite, 1, false}, {Backend::Postgres, 1, false}, {Backend::Postgres, 2, false},
        {Backend::Sqlite, 1, true},  {Backend::Postgres, 1, true},  {Backend::Postgres, 2, true},
    };
    QList<Measurement> best(setups.size());
    QString error;
    int run = 0;
    // Interleaved so that noise from other processes hits every setup alike; the best of each.
    for (int round = 0; round < repeat && error.isEmpty(); ++round) {
        for (qsizetype i = 0; i < setups.size() && error.isEmpty(); ++i) {
            const Setup &setup = setups.at(i);
            const Measurement measured
                = measure(cluster, parser.value(u"daemon"_s), setup, receiver,
                          setup.batching ? batchedEvents : singleEvents, ++run, &error);
            if (!error.isEmpty()) {
                error = setup.name() + u": "_s + error;
                break;
            }
            if (measured.eventsPerSecond > best[i].eventsPerSecond)
                best[i] = measured;
        }
    }
    if (!error.isEmpty()) {
        Bench::result(u"8 events/s end to end"_s, u"error: "_s + error, u"-"_s, u"-"_s, u"-"_s,
                      false);
        return 1;
    }
    for (qsizetype i = 0; i < setups.size(); i += 3) {
        const bool batching = setups.at(i).batching;
        const QString mode = batching ? u"batching on"_s : u"batching off"_s;
        const Measurement &sqlite = best.at(i);
        const Measurement &one = best.at(i + 1);
        const Measurement &two = best.at(i + 2);
        Bench::result(u"8 events/s end to end, %1, SQLite 1 instance"_s.arg(mode),
                      Bench::number(sqlite.eventsPerSecond), u"-"_s, u"-"_s, u"-"_s, true);
        Bench::result(u"8 events/s end to end, %1, PostgreSQL 1 instance"_s.arg(mode),
                      Bench::number(one.eventsPerSecond),
                      Bench::number(sqlite.eventsPerSecond) + u" (SQLite)"_s,
                      Bench::number(one.eventsPerSecond / sqlite.eventsPerSecond, 2) + u'x',
                      u">= 0.5x"_s, one.eventsPerSecond >= 0.5 * sqlite.eventsPerSecond);
        Bench::result(u"8 events/s end to end, %1, PostgreSQL 2 instances"_s.arg(mode),
                      Bench::number(two.eventsPerSecond),
                      Bench::number(one.eventsPerSecond) + u" (PostgreSQL 1 instance); "_s
                          + Bench::number(two.eventsPerSecond / sqlite.eventsPerSecond, 2)
                          + u"x SQLite"_s,
                      Bench::number(two.eventsPerSecond / one.eventsPerSecond, 2) + u'x',
                      u">= 1.8x when cores allow (%1 here)"_s.arg(QThread::idealThreadCount()),
                      two.eventsPerSecond >= 1.8 * one.eventsPerSecond);
        // What the cores could do if the chain were CPU-bound only: cores / CPU per event.
        for (const Measurement *measurement : {&sqlite, &one, &two}) {
            const double cpu = totalInstanceCpu(*measurement) + measurement->serverCpuUs;
            Bench::info(
                u"%1 (best): %2 events/s; eventdeskd + server CPU %3 us per event (each core: %4 events/s)"_s
                    .arg(setups.at(i
                                   + (measurement == &sqlite    ? 0
                                          : measurement == &one ? 1
                                                                : 2))
                             .name(),
                         Bench::number(measurement->eventsPerSecond), Bench::number(cpu, 1),
                         Bench::number(1e6 / cpu)));
        }
    }
    if (claims > 0 && !measureClaims(cluster, claims)) {
        Bench::result(u"8 claim cost per delivery"_s, u"error (see above)"_s, u"-"_s, u"-"_s,
                      u"-"_s, false);
        return 1;
    }
    return 0;
}
