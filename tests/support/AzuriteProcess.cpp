// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "AzuriteProcess.h"

#include <QTest>

using namespace Qt::StringLiterals;

namespace EventDesk::Testing {

AzuriteProcess::AzuriteProcess(Service service, QString program, QString location, quint16 port)
    : m_service(service)
    , m_program(std::move(program))
    , m_location(std::move(location))
    , m_port(port)
{
}

AzuriteProcess::~AzuriteProcess()
{
    stop();
}

bool AzuriteProcess::start()
{
    m_output.clear();
    m_process.setProcessChannelMode(QProcess::MergedChannels);
    QObject::connect(&m_process, &QProcess::readyRead, &m_process,
                     [this] { m_output.append(m_process.readAll()); });
    const QString prefix = m_service == Service::Blob ? u"--blob"_s : u"--queue"_s;
    m_process.start(m_program, {prefix + u"Host"_s, u"127.0.0.1"_s, prefix + u"Port"_s,
                                QString::number(m_port), u"--location"_s, m_location,
                                u"--skipApiVersionCheck"_s, u"--disableTelemetry"_s});
    if (!m_process.waitForStarted(30'000))
        return false;
    return QTest::qWaitFor(
               [this] {
                   return m_output.contains("successfully listens")
                       || m_process.state() == QProcess::NotRunning;
               },
               60'000)
        && m_process.state() == QProcess::Running;
}

void AzuriteProcess::stop()
{
    if (m_process.state() == QProcess::NotRunning)
        return;
    m_process.terminate();
    if (!m_process.waitForFinished(20'000)) {
        m_process.kill();
        m_process.waitForFinished(10'000);
    }
    QObject::disconnect(&m_process, &QProcess::readyRead, nullptr, nullptr);
}

QString AzuriteProcess::endpoint() const
{
    return u"http://127.0.0.1:%1/%2"_s.arg(m_port).arg(AzuriteAccount);
}

QString AzuriteProcess::connectionString() const
{
    return u"DefaultEndpointsProtocol=http;AccountName=%1;AccountKey=%2;%3=%4;"_s.arg(
        AzuriteAccount, AzuriteAccountKey,
        m_service == Service::Blob ? u"BlobEndpoint"_s : u"QueueEndpoint"_s, endpoint());
}

NodeToolResult runNodeTool(const QString &script, const QStringList &arguments)
{
    QProcess node;
    node.start(u"node"_s, QStringList {script} + arguments);
    NodeToolResult result;
    if (!node.waitForFinished(60'000)) {
        result.error = u"node did not finish: "_s + node.errorString();
        node.kill();
        return result;
    }
    result.output = node.readAllStandardOutput();
    result.error = QString::fromUtf8(node.readAllStandardError());
    result.ok = node.exitStatus() == QProcess::NormalExit && node.exitCode() == 0;
    return result;
}

} // namespace EventDesk::Testing
