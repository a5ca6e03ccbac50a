// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "PostgresServer.h"

#include "LoopbackPort.h"

#include <QFile>
#include <QProcess>

#include <libpq-fe.h>

using namespace Qt::StringLiterals;

namespace EventDesk::Testing {

namespace {

// initdb, the server's start and createdb take one to a few seconds; a loaded machine more.
constexpr int ScriptTimeoutMs = 180'000;
// A port found free can be taken by someone else before the server binds it.
constexpr int StartTries = 3;

} // namespace

PostgresServer::PostgresServer()
{
    if (!m_parent.isValid()) {
        m_errorText = u"no temporary folder: %1"_s.arg(m_parent.errorString());
        return;
    }
    // As root the server runs as the postgres user, which must be able to reach its folder.
    QFile::setPermissions(m_parent.path(),
                          QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ExeGroup
                              | QFile::ExeOther);
    m_folder = m_parent.filePath(u"cluster"_s);
    for (int attempt = 0; attempt < StartTries && !m_running; ++attempt) {
        m_port = closedLoopbackPort();
        QString output;
        m_running = m_port != 0
            && runScript({u"start"_s, m_folder, QString::number(m_port)}, &output)
            && output.trimmed() == url();
        if (!m_running && m_errorText.isEmpty())
            m_errorText = u"the script printed '%1', not the URL %2"_s.arg(output.trimmed(), url());
    }
}

PostgresServer::~PostgresServer()
{
    if (!m_folder.isEmpty())
        runScript({u"stop"_s, m_folder});
}

QString PostgresServer::databaseUrl(const QString &database) const
{
    return u"postgresql://eventdesk@127.0.0.1:%1/%2"_s.arg(m_port).arg(database);
}

bool PostgresServer::runScript(const QStringList &arguments, QString *output)
{
    QProcess script;
    script.start(QStringLiteral(EVENTDESK_START_POSTGRES_SCRIPT), arguments);
    if (!script.waitForFinished(ScriptTimeoutMs)) {
        script.kill();
        script.waitForFinished();
        m_errorText = u"start-postgres.sh %1 did not finish in time"_s.arg(arguments.join(u' '));
        return false;
    }
    if (output)
        *output = QString::fromUtf8(script.readAllStandardOutput());
    if (script.exitStatus() != QProcess::NormalExit || script.exitCode() != 0) {
        m_errorText = u"start-postgres.sh %1 failed: %2"_s.arg(
            arguments.join(u' '), QString::fromUtf8(script.readAllStandardError()));
        return false;
    }
    return true;
}

bool PostgresServer::execute(const QString &url, const QByteArray &sql, QString *answer)
{
    PGconn *connection = PQconnectdb(url.toUtf8().constData());
    if (PQstatus(connection) != CONNECTION_OK) {
        m_errorText = QString::fromUtf8(PQerrorMessage(connection));
        PQfinish(connection);
        return false;
    }
    PGresult *result = PQexec(connection, sql.constData());
    const ExecStatusType status = PQresultStatus(result);
    const bool ok = status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
    if (!ok)
        m_errorText = QString::fromUtf8(PQresultErrorMessage(result));
    if (ok && answer)
        *answer = PQntuples(result) > 0 ? QString::fromUtf8(PQgetvalue(result, 0, 0)) : QString();
    PQclear(result);
    PQfinish(connection);
    return ok;
}

QString PostgresServer::createDatabase(const QString &name)
{
    if (!execute(url(), "CREATE DATABASE " + name.toUtf8()))
        return {};
    return databaseUrl(name);
}

QString PostgresServer::database(const QString &name)
{
    if (!m_created.contains(name)) {
        if (createDatabase(name).isEmpty())
            return {};
        m_created.insert(name);
    }
    return databaseUrl(name);
}

bool PostgresServer::halt()
{
    m_running = !runScript({u"halt"_s, m_folder});
    return !m_running;
}

bool PostgresServer::resume()
{
    QString output;
    m_running = runScript({u"start"_s, m_folder, QString::number(m_port)}, &output);
    return m_running;
}

} // namespace EventDesk::Testing
