// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QByteArray>
#include <QSet>
#include <QString>
#include <QTemporaryDir>

namespace EventDesk::Testing {

// A throwaway PostgreSQL cluster of one test executable (scripts/start-postgres.sh,
// EVENTDESK_START_POSTGRES_SCRIPT): initdb and started on a free loopback port by the constructor,
// stopped and removed by the destructor, also when a test failed. Nothing is shared with any other
// test: every executable that needs PostgreSQL has a server of its own.
class PostgresServer final
{
public:
    PostgresServer();
    ~PostgresServer();
    Q_DISABLE_COPY_MOVE(PostgresServer)

    // False when the server could not be started; errorText() then says why.
    bool isRunning() const { return m_running; }
    const QString &errorText() const { return m_errorText; }
    quint16 port() const { return m_port; }
    // postgresql://eventdesk@127.0.0.1:PORT/eventdesk, a database that exists from the start.
    QString url() const { return databaseUrl(QStringLiteral("eventdesk")); }
    QString databaseUrl(const QString &database) const;

    // A new, empty database; returns its URL (empty on failure, with errorText() set).
    QString createDatabase(const QString &name);
    // The URL of the database name, created empty the first time a test asks for it (empty on
    // failure, with errorText() set): tests that open one store several times by name.
    QString database(const QString &name);
    // Runs sql (statements without parameters) on the database of url; false with errorText()
    // set on an error. answer: the first column of the first row, if any.
    bool execute(const QString &url, const QByteArray &sql, QString *answer = nullptr);

    // Stops the server and keeps its data (clients lose their connections) / starts it again on
    // the same port.
    bool halt();
    bool resume();

private:
    bool runScript(const QStringList &arguments, QString *output = nullptr);

    QTemporaryDir m_parent;
    QString m_folder; // the cluster's folder, inside m_parent (the script removes it)
    quint16 m_port = 0;
    bool m_running = false;
    QString m_errorText;
    QSet<QString> m_created;
};

} // namespace EventDesk::Testing
