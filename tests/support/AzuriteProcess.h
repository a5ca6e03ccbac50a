// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QByteArray>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace EventDesk::Testing {

// Azurite's well-known development account (public, documented for the emulator).
inline constexpr auto AzuriteAccount = QLatin1StringView("devstoreaccount1");
inline constexpr auto AzuriteAccountKey = QLatin1StringView(
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==");

// One Azurite service (blob or queue) as a child process on a fixed loopback port and data
// folder; stop() and start() again bring the same service (same port, same data) back.
class AzuriteProcess final
{
public:
    enum class Service { Blob, Queue };

    // program: the azurite-blob or azurite-queue script of tests/node_modules/.bin.
    AzuriteProcess(Service service, QString program, QString location, quint16 port);
    ~AzuriteProcess();

    // Waits until the service listens; false (see output()) when it did not start.
    bool start();
    void stop();

    QString output() const { return QString::fromUtf8(m_output); }
    // http://127.0.0.1:<port>/devstoreaccount1
    QString endpoint() const;
    // A connection string with the development key and this service's endpoint.
    QString connectionString() const;

private:
    Service m_service;
    QString m_program;
    QString m_location;
    quint16 m_port;
    QProcess m_process;
    QByteArray m_output;
};

// The result of a Node.js helper script (the tests' official-SDK tools).
struct NodeToolResult
{
    bool ok = false;
    QByteArray output;
    QString error;
};
// Runs `node script arguments...` and waits for it (up to a minute).
NodeToolResult runNodeTool(const QString &script, const QStringList &arguments);

} // namespace EventDesk::Testing
