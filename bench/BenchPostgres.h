// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

// A throwaway PostgreSQL cluster for the benchmarks of the PostgreSQL store (8 and the insert
// figures): scripts/start-postgres.sh (EVENTDESK_START_POSTGRES_SCRIPT) starts it on a free
// loopback port in a temporary folder, as tests/support/PostgresServer does for the tests, and
// stops and removes it at the end. Also the CPU time of the server's processes (/proc), so that a
// benchmark can say what the server spent per event.

#include "BenchCommon.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTcpServer>
#include <QTemporaryDir>

#include <libpq-fe.h>
#include <unistd.h>

namespace Bench {

// CPU time (user + system) of process pid so far, in seconds; -1 when it is gone.
inline double processCpuSeconds(qint64 pid)
{
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray line = stat.readAll();
    // The command name (field 2) may hold spaces: the fields after it start behind its ')'.
    const QList<QByteArray> fields = line.mid(line.lastIndexOf(')') + 2).split(' ');
    if (fields.size() < 13)
        return -1;
    // Fields 14 and 15 of proc(5), utime and stime, are 11 and 12 here.
    const double ticks = fields.at(11).toDouble() + fields.at(12).toDouble();
    return ticks / double(sysconf(_SC_CLK_TCK));
}

class PostgresCluster final
{
public:
    PostgresCluster()
    {
        if (!m_parent.isValid()) {
            m_error = QStringLiteral("no temporary folder");
            return;
        }
        // As root the server runs as the postgres user, which must be able to reach its folder.
        QFile::setPermissions(m_parent.path(),
                              QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner
                                  | QFile::ExeGroup | QFile::ExeOther);
        m_folder = m_parent.filePath(QStringLiteral("cluster"));
        QTcpServer probe; // a free port, released at once for the server to take
        if (!probe.listen(QHostAddress::LocalHost)) {
            m_error = QStringLiteral("no free loopback port");
            return;
        }
        m_port = probe.serverPort();
        probe.close();
        QString output;
        if (!runScript({QStringLiteral("start"), m_folder, QString::number(m_port)}, &output))
            return;
        m_running = output.trimmed() == url(QStringLiteral("eventdesk"));
        if (!m_running)
            m_error = QStringLiteral("start-postgres.sh printed '%1'").arg(output.trimmed());
    }
    ~PostgresCluster()
    {
        if (!m_folder.isEmpty())
            runScript({QStringLiteral("stop"), m_folder}, nullptr);
    }
    Q_DISABLE_COPY_MOVE(PostgresCluster)

    bool isRunning() const { return m_running; }
    const QString &errorText() const { return m_error; }
    QString url(const QString &database) const
    {
        return QStringLiteral("postgresql://eventdesk@127.0.0.1:%1/%2").arg(m_port).arg(database);
    }

    // A new, empty database; its URL, or empty (errorText() says why).
    QString createDatabase(const QString &name)
    {
        if (!execute(url(QStringLiteral("eventdesk")), "CREATE DATABASE " + name.toUtf8()))
            return {};
        return url(name);
    }

    bool execute(const QString &databaseUrl, const QByteArray &sql, QString *answer = nullptr)
    {
        PGconn *connection = PQconnectdb(databaseUrl.toUtf8().constData());
        bool ok = PQstatus(connection) == CONNECTION_OK;
        if (ok) {
            PGresult *result = PQexec(connection, sql.constData());
            const ExecStatusType status = PQresultStatus(result);
            ok = status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
            if (ok && answer)
                *answer = PQntuples(result) > 0 ? QString::fromUtf8(PQgetvalue(result, 0, 0))
                                                : QString();
            if (!ok)
                m_error = QString::fromUtf8(PQresultErrorMessage(result));
            PQclear(result);
        } else {
            m_error = QString::fromUtf8(PQerrorMessage(connection));
        }
        PQfinish(connection);
        return ok;
    }

    // CPU seconds of the server: the postmaster and every process it started that still runs
    // (the backends of the clients connected now, the background writers).
    double serverCpuSeconds() const
    {
        QFile pidFile(m_folder + QStringLiteral("/data/postmaster.pid"));
        if (!pidFile.open(QIODevice::ReadOnly))
            return -1;
        const qint64 postmaster = pidFile.readLine().trimmed().toLongLong();
        double total = processCpuSeconds(postmaster);
        const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs);
        for (const QString &entry : entries) {
            bool isPid = false;
            const qint64 pid = entry.toLongLong(&isPid);
            if (!isPid || pid == postmaster)
                continue;
            QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
            if (!stat.open(QIODevice::ReadOnly))
                continue;
            const QByteArray line = stat.readAll();
            const QList<QByteArray> fields = line.mid(line.lastIndexOf(')') + 2).split(' ');
            if (fields.size() > 1 && fields.at(1).toLongLong() == postmaster)
                total += std::max(0.0, processCpuSeconds(pid));
        }
        return total;
    }

private:
    bool runScript(const QStringList &arguments, QString *output)
    {
        QProcess script;
        script.start(QStringLiteral(EVENTDESK_START_POSTGRES_SCRIPT), arguments);
        if (!script.waitForFinished(180000)) {
            script.kill();
            script.waitForFinished();
            m_error = QStringLiteral("start-postgres.sh did not finish in time");
            return false;
        }
        if (output)
            *output = QString::fromUtf8(script.readAllStandardOutput());
        if (script.exitStatus() != QProcess::NormalExit || script.exitCode() != 0) {
            m_error = QStringLiteral("start-postgres.sh %1 failed: %2")
                          .arg(arguments.value(0),
                               QString::fromUtf8(script.readAllStandardError()).trimmed());
            return false;
        }
        return true;
    }

    QTemporaryDir m_parent;
    QString m_folder;
    quint16 m_port = 0;
    bool m_running = false;
    QString m_error;
};

} // namespace Bench
