// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// Benchmark 2: events per second end to end with batching on (5000 events / 1024 KB): events are
// published over the topic endpoint (HTTP, 1 MB requests, two connections of a lean HTTP/1.1
// client in this process) and delivered to nginx. For reference, the same run with
// QNetworkAccessManager as the publishing client is printed as well.
//   baseline: raw SQLite (the C API, no Qt) inserting the same rows - one events row and one
//             deliveries row per event, same schema, WAL, synchronous=NORMAL - in transactions of
//             5000 events.
#include "BenchCommon.h"
#include "BenchPublisher.h"

#include <QCommandLineParser>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QTemporaryDir>
#include <QUrl>

#include <sqlite3.h>

using namespace Qt::StringLiterals;

namespace {

constexpr int EventSize = 1024;
constexpr int RowsPerTransaction = 5000;

bool exec(sqlite3 *db, const char *sql)
{
    return sqlite3_exec(db, sql, nullptr, nullptr, nullptr) == SQLITE_OK;
}

double rawSqliteRate(const QString &file, qint64 events, QString *error)
{
    sqlite3 *db = nullptr;
    if (sqlite3_open(QFile::encodeName(file).constData(), &db) != SQLITE_OK) {
        *error = u"cannot open %1"_s.arg(file);
        return 0;
    }
    exec(db, "PRAGMA journal_mode=WAL");
    exec(db, "PRAGMA synchronous=NORMAL");
    exec(db, "CREATE TABLE events (seq INTEGER PRIMARY KEY, topic TEXT, event_id TEXT, event_type TEXT,"
             " subject TEXT, data_version TEXT, event_time TEXT, publish_ms INTEGER, body BLOB)");
    exec(db, "CREATE TABLE deliveries (id INTEGER PRIMARY KEY, event_seq INTEGER, topic TEXT,"
             " subscription TEXT, state INTEGER, attempts INTEGER, due_ms INTEGER, publish_ms INTEGER,"
             " last_outcome INTEGER, last_http_status INTEGER, last_attempt_ms INTEGER, reason INTEGER,"
             " dl_unavailable_since_ms INTEGER)");
    exec(db, "CREATE INDEX deliveries_by_event ON deliveries (event_seq)");
    sqlite3_stmt *insertEvent = nullptr;
    sqlite3_stmt *insertDelivery = nullptr;
    sqlite3_prepare_v2(db, "INSERT INTO events VALUES (?,?,?,?,?,?,?,?,?)", -1, &insertEvent, nullptr);
    sqlite3_prepare_v2(db, "INSERT INTO deliveries VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", -1,
                       &insertDelivery, nullptr);
    // The rows are built before the clock starts: the baseline is SQLite's cost alone.
    QList<QByteArray> bodies;
    bodies.reserve(events);
    for (qint64 i = 0; i < events; ++i)
        bodies.append(Bench::eventJson(i, EventSize));
    QElapsedTimer timer;
    timer.start();
    bool ok = true;
    for (qint64 i = 0; i < events && ok; ++i) {
        if (i % RowsPerTransaction == 0)
            ok = exec(db, "BEGIN");
        const QByteArray id = QByteArray::number(i);
        sqlite3_bind_int64(insertEvent, 1, i + 1);
        sqlite3_bind_text(insertEvent, 2, "bench", 5, SQLITE_STATIC);
        sqlite3_bind_text(insertEvent, 3, id.constData(), int(id.size()), SQLITE_STATIC);
        sqlite3_bind_text(insertEvent, 4, "Bench.Event", 11, SQLITE_STATIC);
        sqlite3_bind_text(insertEvent, 5, "/bench/1", 8, SQLITE_STATIC);
        sqlite3_bind_text(insertEvent, 6, "1.0", 3, SQLITE_STATIC);
        sqlite3_bind_text(insertEvent, 7, "2026-01-01T00:00:00Z", 20, SQLITE_STATIC);
        sqlite3_bind_int64(insertEvent, 8, 1'700'000'000'000);
        sqlite3_bind_blob(insertEvent, 9, bodies.at(i).constData(), int(bodies.at(i).size()), SQLITE_STATIC);
        ok = ok && sqlite3_step(insertEvent) == SQLITE_DONE;
        sqlite3_reset(insertEvent);
        sqlite3_bind_int64(insertDelivery, 1, i + 1);
        sqlite3_bind_int64(insertDelivery, 2, i + 1);
        sqlite3_bind_text(insertDelivery, 3, "bench", 5, SQLITE_STATIC);
        sqlite3_bind_text(insertDelivery, 4, "sub0", 4, SQLITE_STATIC);
        for (int column = 5; column <= 13; ++column)
            sqlite3_bind_int64(insertDelivery, column, column == 7 || column == 8 ? 1'700'000'000'000 : 0);
        ok = ok && sqlite3_step(insertDelivery) == SQLITE_DONE;
        sqlite3_reset(insertDelivery);
        if (i % RowsPerTransaction == RowsPerTransaction - 1 || i == events - 1)
            ok = ok && exec(db, "COMMIT");
    }
    const double seconds = double(timer.nsecsElapsed()) / 1e9;
    sqlite3_finalize(insertEvent);
    sqlite3_finalize(insertDelivery);
    sqlite3_close(db);
    if (!ok) {
        *error = u"raw SQLite insert failed"_s;
        return 0;
    }
    return double(events) / seconds;
}


// The same with QNetworkAccessManager, for comparison.
class QnamPublisher final : public QObject
{
public:
    QnamPublisher(QNetworkAccessManager *network, const QUrl &endpoint, Bench::NextBody nextBody, Bench::Answered answered)
        : m_network(network), m_endpoint(endpoint), m_nextBody(std::move(nextBody)), m_answered(std::move(answered))
    {
        sendNext();
    }

private:
    void sendNext()
    {
        const QByteArray body = m_nextBody();
        if (body.isNull())
            return;
        QNetworkRequest request(m_endpoint);
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        QNetworkReply *reply = m_network->post(request, body);
        connect(reply, &QNetworkReply::finished, this, [this, reply] {
            reply->deleteLater();
            m_answered(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), reply->readAll());
            sendNext();
        });
    }

    QNetworkAccessManager *m_network;
    QUrl m_endpoint;
    Bench::NextBody m_nextBody;
    Bench::Answered m_answered;
};

enum class Client { Plain, Qnam };

double engineRate(const QUrl &receiver, qint64 events, Client client, QString *error)
{
    QTemporaryDir directory;
    const QString workspace = directory.filePath(u"workspace"_s);
    Bench::SubscriptionSpec spec{u"sub0"_s, receiver.toString(), true, 5000, 1024};
    if (!Bench::writeWorkspace(workspace, {spec})) {
        *error = u"cannot write the workspace"_s;
        return 0;
    }
    EventDesk::EngineHost host;
    EventDesk::EngineHost::Config config;
    config.workspaceDirectory = workspace;
    config.listen.port = 0;
    config.jitter = false;
    config.snapshotIntervalMs = 20;
    if (const QString failed = Bench::startHost(host, config); !failed.isEmpty()) {
        *error = failed;
        return 0;
    }
    quint64 delivered = 0;
    QObject::connect(&host, &EventDesk::EngineHost::snapshotReady, &host,
                     [&](const EventDesk::EngineSnapshot &snapshot) { delivered = Bench::deliveredTotal(snapshot); });
    const QList<QByteArray> bodies = Bench::publishBodies(events, EventSize, 1024 * 1024);
    const QUrl endpoint(host.listenUrl() + u"/topics/bench/api/events?api-version=2018-01-01"_s);
    QNetworkAccessManager network;
    qsizetype next = 0;
    int finished = 0;
    int rejected = 0;
    QElapsedTimer timer;
    double lastAnswerSeconds = 0;
    const Bench::NextBody nextBody = [&] { return next < bodies.size() ? bodies.at(next++) : QByteArray(); };
    const Bench::Answered answered = [&](int status, const QByteArray &answer) {
        if (status != 200 && rejected++ == 0)
            Bench::info(u"publish rejected (%1): %2"_s.arg(status).arg(QString::fromUtf8(answer.left(300))));
        if (++finished == bodies.size())
            lastAnswerSeconds = double(timer.nsecsElapsed()) / 1e9;
    };
    std::vector<std::unique_ptr<QObject>> publishers;
    timer.start();
    const double cpuBefore = Bench::cpuSeconds();
    for (int i = 0; i < 2; ++i) { // two publishers, as two HTTP clients would
        if (client == Client::Plain)
            publishers.push_back(std::make_unique<Bench::PlainPublisher>(endpoint, nextBody, answered));
        else
            publishers.push_back(std::make_unique<QnamPublisher>(&network, endpoint, nextBody, answered));
    }
    const bool complete = Bench::spinUntil(
        [&] { return rejected > 0 || quint64(delivered) >= quint64(events); }, 300000);
    const double seconds = double(timer.nsecsElapsed()) / 1e9;
    // The whole process: the publishing client, the engine and its parser and HTTP threads.
    Bench::info(u"engine: %1 us of CPU per event (publishing client included)"_s.arg(
        Bench::number(1e6 * (Bench::cpuSeconds() - cpuBefore) / double(events), 1)));
    Bench::spinUntil([&] { return finished >= bodies.size(); }, 10000);
    host.stop();
    if (!complete || rejected > 0) {
        *error = u"%1 publish requests rejected, %2 of %3 delivered"_s.arg(rejected).arg(delivered).arg(events);
        return 0;
    }
    Bench::info(u"engine: %1 events in %2 requests of <= 1 MB, %3 s; the last publish answered at %4 s"_s.arg(events)
                    .arg(bodies.size())
                    .arg(Bench::number(seconds, 2), Bench::number(lastAnswerSeconds, 2)));
    return double(events) / seconds;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOption({u"port"_s, u"nginx port answering 204"_s, u"port"_s});
    parser.addOption({u"events"_s, u"events per measurement"_s, u"n"_s, u"200000"_s});
    parser.addOption({u"repeat"_s, u"measurements of each kind (the best is taken)"_s, u"n"_s, u"2"_s});
    parser.process(app);
    const int port = parser.value(u"port"_s).toInt();
    const qint64 events = parser.value(u"events"_s).toLongLong();
    const int repeat = std::max(1, parser.value(u"repeat"_s).toInt());
    if (port <= 0) {
        std::fprintf(stderr, "--port is required\n");
        return 2;
    }
    const QUrl receiver(u"http://127.0.0.1:%1/"_s.arg(port));
    QString error;
    double raw = 0;
    double engine = 0;
    for (int round = 0; round < repeat && error.isEmpty(); ++round) {
        QTemporaryDir directory;
        const double rawRate = rawSqliteRate(directory.filePath(u"raw.db"_s), events, &error);
        if (!error.isEmpty())
            break;
        Bench::info(u"round %1: raw SQLite %2 events/s"_s.arg(round + 1).arg(Bench::number(rawRate)));
        raw = std::max(raw, rawRate);
        const double rate = engineRate(receiver, events, Client::Plain, &error);
        if (!error.isEmpty())
            break;
        Bench::info(u"round %1: engine end to end %2 events/s"_s.arg(round + 1).arg(Bench::number(rate)));
        engine = std::max(engine, rate);
    }
    if (error.isEmpty()) {
        // For reference: the same publishes sent through QNetworkAccessManager, whose uploads
        // then limit the run.
        const double rate = engineRate(receiver, events, Client::Qnam, &error);
        if (error.isEmpty())
            Bench::info(u"engine end to end with QNetworkAccessManager publishers: %1 events/s"_s.arg(Bench::number(rate)));
    }
    if (!error.isEmpty()) {
        Bench::result(u"2 events/s end to end, batching on"_s, u"error: "_s + error, Bench::number(raw),
                      u"-"_s, u">= 0.3x and >= 50000/s"_s, false);
        return 1;
    }
    Bench::result(u"2 events/s end to end, batching on"_s, Bench::number(engine),
                  Bench::number(raw) + u" (raw SQLite inserts, 5000-row transactions)"_s,
                  Bench::number(engine / raw, 2) + u'x', u">= 0.3x and >= 50000/s"_s,
                  engine >= 0.3 * raw && engine >= 50000);
    return 0;
}
