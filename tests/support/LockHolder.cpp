// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "LockHolder.h"

#include <QFileInfo>

using namespace Qt::StringLiterals;

#ifndef EVENTDESK_LOCK_HOLDER_PATH
// Set by tests/CMakeLists.txt (eventdesk_use_lock_holder).
#error "EVENTDESK_LOCK_HOLDER_PATH must name the eventdesk_lock_holder executable"
#endif

namespace EventDesk::Testing {

namespace {

constexpr int TimeoutMs = 30'000;

} // namespace

LockHolder::~LockHolder()
{
    kill();
}

QString LockHolder::executablePath()
{
    return QStringLiteral(EVENTDESK_LOCK_HOLDER_PATH);
}

QString LockHolder::applicationName()
{
    return QFileInfo(executablePath()).fileName();
}

bool LockHolder::start(const QString &directory)
{
    m_process.setProgram(executablePath());
    m_process.setArguments({directory});
    m_process.start();
    if (!m_process.waitForStarted(TimeoutMs)) {
        m_error = m_process.errorString();
        return false;
    }
    QByteArray line;
    while (!line.endsWith('\n')) {
        if (!m_process.waitForReadyRead(TimeoutMs)) {
            m_error = u"no \"locked\" line: %1"_s.arg(
                QString::fromUtf8(m_process.readAllStandardError()));
            kill();
            return false;
        }
        line += m_process.readAllStandardOutput();
    }
    if (!line.startsWith("locked ")) {
        m_error = QString::fromUtf8(line);
        kill();
        return false;
    }
    m_pid = m_process.processId();
    return true;
}

bool LockHolder::release()
{
    if (m_process.state() == QProcess::NotRunning)
        return false;
    m_process.closeWriteChannel();
    return m_process.waitForFinished(TimeoutMs) && m_process.exitStatus() == QProcess::NormalExit
        && m_process.exitCode() == 0;
}

void LockHolder::kill()
{
    if (m_process.state() == QProcess::NotRunning)
        return;
    m_process.kill(); // SIGKILL on Unix
    m_process.waitForFinished(TimeoutMs); // reaped: its pid no longer runs
}

} // namespace EventDesk::Testing
