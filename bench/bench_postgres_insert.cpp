// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// The insert path of a publish at the store, and the client library it goes through (issue 21):
// the same rows - N events of 1 KB, one delivery each, in one transaction - written
//   - by SqliteDeliveryStore::insertPublished (the baseline: what one eventdeskd does today),
//   - by PostgresDeliveryStore::insertPublished (libpq, binary parameters, one pipeline),
//   - by QtSql's QPSQL driver: prepared QSqlQuery, one INSERT per row, one transaction (skipped
//     with a line saying so when the driver is not installed: Debian package libqt6sql6-psql),
//   - by libpq's COPY ... FROM STDIN (BINARY) for both tables, in one transaction: what COPY
//     would give instead of the store's multi-row INSERT ... SELECT FROM unnest(...).
// Same throwaway server (scripts/start-postgres.sh), a fresh database each time; the kinds
// alternate round by round. Printed: ms per transaction, µs per row (an event and its delivery),
// and the CPU of this process and of the server per row.
#include "BenchCommon.h"
#include "BenchPostgres.h"
#include "store/postgres/PostgresDeliveryStore.h"
#include "store/sqlite/SqliteDeliveryStore.h"

#include <QCommandLineParser>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QtEndian>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace {

struct Rows
{
    QList<EventDesk::StoredEvent> events;
    QList<EventDesk::DeliveryRecord> deliveries;
};

Rows makeRows(qint64 count, int eventSize)
{
    Rows rows;
    rows.events.reserve(count);
    rows.deliveries.reserve(count);
    for (qint64 seq = 1; seq <= count; ++seq) {
        EventDesk::StoredEvent event;
        event.seq = seq;
        event.topic = u"bench"_s;
        event.id = QString::number(seq);
        event.eventType = u"Bench.Event"_s;
        event.subject = u"/bench/%1"_s.arg(seq % 100);
        event.dataVersion = u"1.0"_s;
        event.eventTime = u"2026-01-01T00:00:00Z"_s;
        event.publishMs = 1'700'000'000'000;
        event.body = Bench::eventJson(seq, eventSize);
        rows.events.append(event);
        EventDesk::DeliveryRecord delivery;
        delivery.id = seq;
        delivery.eventSeq = seq;
        delivery.topic = u"bench"_s;
        delivery.subscription = u"sub0"_s;
        delivery.dueMs = 1'700'000'000'000;
        delivery.publishMs = 1'700'000'000'000;
        rows.deliveries.append(delivery);
    }
    return rows;
}

struct Figure
{
    double ms = 0; // wall time of the transaction
    double clientUs = 0; // CPU of this process per row
    double serverUs = 0; // CPU of the server per row
};

// Times write() (one transaction of every row); the server's CPU when cluster is given.
template<typename Write>
Figure timed(qint64 rows, Bench::PostgresCluster *cluster, Write write, QString *error)
{
    const double serverBefore = cluster ? cluster->serverCpuSeconds() : 0;
    const double clientBefore = Bench::cpuSeconds();
    QElapsedTimer timer;
    timer.start();
    *error = write();
    Figure figure;
    figure.ms = double(timer.nsecsElapsed()) / 1e6;
    figure.clientUs = 1e6 * (Bench::cpuSeconds() - clientBefore) / double(rows);
    if (cluster)
        figure.serverUs = 1e6 * (cluster->serverCpuSeconds() - serverBefore) / double(rows);
    return figure;
}

QString viaSqliteStore(const Rows &rows, const QString &file)
{
    EventDesk::SqliteDeliveryStore store;
    if (auto opened = store.open(file); !opened)
        return opened.error();
    if (auto stored = store.insertPublished(rows.events, rows.deliveries); !stored)
        return stored.error();
    return {};
}

QString viaPostgresStore(EventDesk::PostgresDeliveryStore &store, const Rows &rows)
{
    if (auto stored = store.insertPublished(rows.events, rows.deliveries); !stored)
        return stored.error();
    return {};
}

QString viaQpsql(QSqlDatabase &database, const Rows &rows)
{
    if (!database.transaction())
        return database.lastError().text();
    QSqlQuery insertEvent(database);
    QSqlQuery insertDelivery(database);
    insertEvent.prepare(
        u"INSERT INTO events (seq, topic, event_id, event_type, subject, data_version,"
        " event_time, publish_ms, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"_s);
    insertDelivery.prepare(
        u"INSERT INTO deliveries (id, event_seq, topic, subscription, state, attempts,"
        " due_ms, publish_ms, last_outcome, last_http_status, last_attempt_ms, reason,"
        " dl_unavailable_since_ms, owner) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"_s);
    for (qsizetype i = 0; i < rows.events.size(); ++i) {
        const EventDesk::StoredEvent &event = rows.events.at(i);
        insertEvent.bindValue(0, event.seq);
        insertEvent.bindValue(1, event.topic);
        insertEvent.bindValue(2, event.id);
        insertEvent.bindValue(3, event.eventType);
        insertEvent.bindValue(4, event.subject);
        insertEvent.bindValue(5, event.dataVersion);
        insertEvent.bindValue(6, event.eventTime);
        insertEvent.bindValue(7, event.publishMs);
        insertEvent.bindValue(8, event.body);
        if (!insertEvent.exec())
            return insertEvent.lastError().text();
        const EventDesk::DeliveryRecord &delivery = rows.deliveries.at(i);
        insertDelivery.bindValue(0, delivery.id);
        insertDelivery.bindValue(1, delivery.eventSeq);
        insertDelivery.bindValue(2, delivery.topic);
        insertDelivery.bindValue(3, delivery.subscription);
        insertDelivery.bindValue(4, static_cast<int>(delivery.state));
        insertDelivery.bindValue(5, delivery.attempts);
        insertDelivery.bindValue(6, delivery.dueMs);
        insertDelivery.bindValue(7, delivery.publishMs);
        insertDelivery.bindValue(8, static_cast<int>(delivery.lastOutcome));
        insertDelivery.bindValue(9, delivery.lastHttpStatus);
        insertDelivery.bindValue(10, delivery.lastAttemptMs);
        insertDelivery.bindValue(11, static_cast<int>(delivery.reason));
        insertDelivery.bindValue(12, delivery.deadLetterUnavailableSinceMs);
        insertDelivery.bindValue(13, QVariant(QMetaType::fromType<qint64>()));
        if (!insertDelivery.exec())
            return insertDelivery.lastError().text();
    }
    if (!database.commit())
        return database.lastError().text();
    return {};
}

// PostgreSQL's binary COPY format: a header, then per row the field count and each field as its
// length and bytes (-1: NULL), then -1.
class CopyBuffer
{
public:
    CopyBuffer() { m_bytes.append("PGCOPY\n\377\r\n\0\0\0\0\0\0\0\0\0", 19); }
    void row(qint16 fields) { appendBig(fields); }
    void field(qint64 value)
    {
        appendBig(qint32(8));
        appendBig(value);
    }
    void field(const QByteArray &bytes)
    {
        appendBig(qint32(bytes.size()));
        m_bytes.append(bytes);
    }
    void field(const QString &text) { field(text.toUtf8()); }
    void null() { appendBig(qint32(-1)); }
    QByteArray finish()
    {
        appendBig(qint16(-1));
        return m_bytes;
    }

private:
    template<typename T> void appendBig(T value)
    {
        const T big = qToBigEndian(value);
        m_bytes.append(reinterpret_cast<const char *>(&big), sizeof big);
    }
    QByteArray m_bytes;
};

QString copyInto(PGconn *connection, const char *sql, const QByteArray &data)
{
    PGresult *started = PQexec(connection, sql);
    const bool ready = PQresultStatus(started) == PGRES_COPY_IN;
    PQclear(started);
    if (!ready || PQputCopyData(connection, data.constData(), int(data.size())) != 1
        || PQputCopyEnd(connection, nullptr) != 1)
        return QString::fromUtf8(PQerrorMessage(connection));
    PGresult *finished = PQgetResult(connection);
    const bool ok = PQresultStatus(finished) == PGRES_COMMAND_OK;
    PQclear(finished);
    while (PGresult *rest = PQgetResult(connection))
        PQclear(rest);
    return ok ? QString() : QString::fromUtf8(PQerrorMessage(connection));
}

QString viaCopy(PGconn *connection, const Rows &rows)
{
    CopyBuffer events;
    CopyBuffer deliveries;
    for (qsizetype i = 0; i < rows.events.size(); ++i) {
        const EventDesk::StoredEvent &event = rows.events.at(i);
        events.row(9);
        events.field(event.seq);
        events.field(event.topic);
        events.field(event.id);
        events.field(event.eventType);
        events.field(event.subject);
        events.field(event.dataVersion);
        events.field(event.eventTime);
        events.field(event.publishMs);
        events.field(event.body);
        const EventDesk::DeliveryRecord &delivery = rows.deliveries.at(i);
        deliveries.row(14);
        deliveries.field(delivery.id);
        deliveries.field(delivery.eventSeq);
        deliveries.field(delivery.topic);
        deliveries.field(delivery.subscription);
        for (const qint64 value :
             {qint64(delivery.state), qint64(delivery.attempts), delivery.dueMs, delivery.publishMs,
              qint64(delivery.lastOutcome), qint64(delivery.lastHttpStatus), delivery.lastAttemptMs,
              qint64(delivery.reason), delivery.deadLetterUnavailableSinceMs})
            deliveries.field(value);
        deliveries.null();
    }
    PQclear(PQexec(connection, "BEGIN"));
    QString failed
        = copyInto(connection, "COPY events FROM STDIN (FORMAT binary)", events.finish());
    if (failed.isEmpty())
        failed = copyInto(connection, "COPY deliveries FROM STDIN (FORMAT binary)",
                          deliveries.finish());
    PGresult *committed = PQexec(connection, failed.isEmpty() ? "COMMIT" : "ROLLBACK");
    if (failed.isEmpty() && PQresultStatus(committed) != PGRES_COMMAND_OK)
        failed = QString::fromUtf8(PQerrorMessage(connection));
    PQclear(committed);
    return failed;
}

struct Series
{
    QString name;
    QList<Figure> figures;

    QString summary(qint64 rows) const
    {
        QList<double> ms;
        for (const Figure &figure : figures)
            ms.append(figure.ms);
        std::sort(ms.begin(), ms.end());
        const Figure &last = figures.last();
        return u"%1: %2 ms median (%3-%4) for %5 rows, %6 us per row; CPU per row: client %7 us, server %8 us (last run)"_s
            .arg(name, Bench::number(ms.at(ms.size() / 2), 1), Bench::number(ms.first(), 1),
                 Bench::number(ms.last(), 1))
            .arg(rows)
            .arg(Bench::number(1000.0 * ms.at(ms.size() / 2) / double(rows), 2),
                 Bench::number(last.clientUs, 2), Bench::number(last.serverUs, 2));
    }
    double medianMs() const
    {
        QList<double> ms;
        for (const Figure &figure : figures)
            ms.append(figure.ms);
        std::sort(ms.begin(), ms.end());
        return ms.at(ms.size() / 2);
    }
};

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOption(
        {u"rows"_s, u"events (each with one delivery) per transaction"_s, u"n"_s, u"12345"_s});
    parser.addOption({u"event-size"_s, u"bytes of each event's JSON"_s, u"bytes"_s, u"1024"_s});
    parser.addOption({u"repeat"_s, u"transactions of each kind"_s, u"n"_s, u"5"_s});
    parser.process(app);
    const qint64 count = parser.value(u"rows"_s).toLongLong();
    const int repeat = std::max(1, parser.value(u"repeat"_s).toInt());
    if (count < 1) {
        std::fprintf(stderr, "--rows must be at least 1\n");
        return 2;
    }
    Bench::PostgresCluster cluster;
    if (!cluster.isRunning()) {
        Bench::info(u"insert path skipped: no PostgreSQL server could be started (%1)"_s.arg(
            cluster.errorText()));
        return 1;
    }
    const bool qpsql = QSqlDatabase::isDriverAvailable(u"QPSQL"_s);
    if (!qpsql)
        Bench::info(
            u"QPSQL: skipped, Qt's PostgreSQL driver is not installed (Debian: libqt6sql6-psql)"_s);
    const int eventSize = parser.value(u"event-size"_s).toInt();
    const Rows rows = makeRows(count, eventSize);
    Series sqlite {u"SQLite store (insertPublished)"_s, {}};
    Series store {u"PostgreSQL store (insertPublished, libpq)"_s, {}};
    Series qt {u"QtSql QPSQL (prepared QSqlQuery per row)"_s, {}};
    Series copy {u"libpq COPY BINARY (both tables)"_s, {}};
    QString error;
    for (int round = 0; round < repeat && error.isEmpty(); ++round) {
        QTemporaryDir folder;
        sqlite.figures.append(timed(
            count, nullptr, [&] { return viaSqliteStore(rows, folder.filePath(u"store.db"_s)); },
            &error));
        if (!error.isEmpty())
            break;

        const QString storeUrl = cluster.createDatabase(u"store_%1"_s.arg(round));
        EventDesk::PostgresDeliveryStore postgres;
        if (storeUrl.isEmpty() || !postgres.open(storeUrl)) {
            error = u"cannot open the store: %1"_s.arg(cluster.errorText());
            break;
        }
        store.figures.append(timed(
            count, &cluster, [&] { return viaPostgresStore(postgres, rows); }, &error));
        if (!error.isEmpty())
            break;
        postgres.close();

        // The same schema for the other two: the store creates it, the rows go elsewhere.
        const auto schemaOnly = [&](const QString &name) {
            const QString url = cluster.createDatabase(name);
            EventDesk::PostgresDeliveryStore creator;
            return !url.isEmpty() && creator.open(url) ? url : QString();
        };
        if (qpsql) {
            const QString url = schemaOnly(u"qpsql_%1"_s.arg(round));
            const QString connectionName = u"bench_%1"_s.arg(round);
            {
                QSqlDatabase database = QSqlDatabase::addDatabase(u"QPSQL"_s, connectionName);
                const QUrl parsed(url);
                database.setHostName(parsed.host());
                database.setPort(parsed.port());
                database.setUserName(parsed.userName());
                database.setDatabaseName(parsed.path().mid(1));
                if (url.isEmpty() || !database.open()) {
                    error = u"QPSQL cannot connect: %1"_s.arg(database.lastError().text());
                    break;
                }
                qt.figures.append(timed(
                    count, &cluster, [&] { return viaQpsql(database, rows); }, &error));
                database.close();
            }
            QSqlDatabase::removeDatabase(connectionName);
            if (!error.isEmpty())
                break;
        }
        const QString url = schemaOnly(u"copy_%1"_s.arg(round));
        PGconn *connection = PQconnectdb(url.toUtf8().constData());
        if (url.isEmpty() || PQstatus(connection) != CONNECTION_OK) {
            error = u"cannot connect for COPY: %1"_s.arg(
                QString::fromUtf8(PQerrorMessage(connection)));
            PQfinish(connection);
            break;
        }
        copy.figures.append(timed(
            count, &cluster, [&] { return viaCopy(connection, rows); }, &error));
        PQfinish(connection);
    }
    if (!error.isEmpty()) {
        Bench::result(u"insert path: %1 events + deliveries in one transaction"_s.arg(count),
                      u"error: "_s + error, u"-"_s, u"-"_s, u"-"_s, false);
        return 1;
    }
    for (const Series *series : {&sqlite, &store, &qt, &copy}) {
        if (!series->figures.isEmpty())
            Bench::info(series->summary(count));
    }
    const QString what
        = u"insert path: %1 events of %2 B + deliveries in one transaction"_s.arg(count).arg(
            eventSize);
    Bench::result(what + u", PostgreSQL store"_s, Bench::number(store.medianMs(), 1) + u" ms"_s,
                  Bench::number(sqlite.medianMs(), 1) + u" ms (SQLite store)"_s,
                  Bench::number(store.medianMs() / sqlite.medianMs(), 2) + u'x', u"-"_s, true);
    if (qpsql) {
        Bench::result(what + u", QtSql QPSQL"_s, Bench::number(qt.medianMs(), 1) + u" ms"_s,
                      Bench::number(store.medianMs(), 1) + u" ms (PostgreSQL store, libpq)"_s,
                      Bench::number(qt.medianMs() / store.medianMs(), 2) + u'x', u"-"_s, true);
    }
    Bench::result(what + u", libpq COPY"_s, Bench::number(copy.medianMs(), 1) + u" ms"_s,
                  Bench::number(store.medianMs(), 1) + u" ms (PostgreSQL store, libpq)"_s,
                  Bench::number(copy.medianMs() / store.medianMs(), 2) + u'x', u"-"_s, true);
    return 0;
}
