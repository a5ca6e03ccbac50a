// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "ProcessSetup.h"

#include "Logging.h"
#include "http/HttpMessage.h"

#include <QCoreApplication>

#include <algorithm>

#ifdef Q_OS_UNIX
#include <QSocketNotifier>
#include <climits>
#include <csignal>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#endif
#ifdef Q_OS_WIN
#include <windows.h>
#endif

namespace EventDesk::ProcessSetup {

namespace {

#ifdef Q_OS_UNIX
int s_signalPipe[2] = {-1, -1};
constexpr char TerminationByte = 'T';
constexpr char ReloadByte = 'H';

void onSignal(int signal)
{
    const char byte = signal == SIGHUP ? ReloadByte : TerminationByte;
    // Only async-signal-safe work here: wake the event loop through the pipe.
    [[maybe_unused]] const auto written = ::write(s_signalPipe[0], &byte, 1);
}
#elif defined(Q_OS_WIN)
BOOL WINAPI onConsoleControl(DWORD)
{
    QMetaObject::invokeMethod(QCoreApplication::instance(), &QCoreApplication::quit,
                              Qt::QueuedConnection);
    return TRUE;
}
#endif

// The soft limit on open files after raising it to the hard one; 0 when none is known.
quint64 raiseOpenFileLimit()
{
#ifdef Q_OS_UNIX
    rlimit limit = {};
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0)
        return 0;
    rlim_t wanted = limit.rlim_max;
#ifdef Q_OS_MACOS
    wanted = std::min<rlim_t>(wanted, OPEN_MAX); // macOS refuses more than OPEN_MAX
#endif
    if (limit.rlim_cur < wanted) {
        const rlim_t before = limit.rlim_cur;
        limit.rlim_cur = wanted;
        if (::setrlimit(RLIMIT_NOFILE, &limit) == 0)
            qCInfo(lcDaemon) << "raised the open-file limit from" << quint64(before) << "to"
                             << quint64(wanted);
        else
            ::getrlimit(RLIMIT_NOFILE, &limit);
    }
    return limit.rlim_cur == RLIM_INFINITY ? 0 : quint64(limit.rlim_cur);
#else
    return 0;
#endif
}

} // namespace

void ignoreHangupWhileStarting()
{
#ifdef Q_OS_UNIX
    struct sigaction action = {};
    action.sa_handler = SIG_IGN;
    sigemptyset(&action.sa_mask);
    sigaction(SIGHUP, &action, nullptr);
#endif
}

void handleSignals(QCoreApplication &app, std::function<void()> reload)
{
#ifdef Q_OS_UNIX
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, s_signalPipe) != 0)
        return;
    auto *notifier = new QSocketNotifier(s_signalPipe[1], QSocketNotifier::Read, &app);
    QObject::connect(notifier, &QSocketNotifier::activated, &app,
                     [&app, notifier, reload = std::move(reload)] {
                         char byte = 0;
                         if (::read(s_signalPipe[1], &byte, 1) != 1)
                             return;
                         if (byte == ReloadByte) {
                             qCInfo(lcDaemon) << "SIGHUP received, reloading workspace.json";
                             if (reload)
                                 reload();
                             return;
                         }
                         notifier->setEnabled(false);
                         qCInfo(lcDaemon) << "termination signal received, shutting down";
                         app.quit();
                     });
    struct sigaction action = {};
    action.sa_handler = onSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    sigaction(SIGHUP, &action, nullptr);
#elif defined(Q_OS_WIN)
    Q_UNUSED(app);
    Q_UNUSED(reload);
    SetConsoleCtrlHandler(onConsoleControl, TRUE);
#else
    Q_UNUSED(app);
    Q_UNUSED(reload);
#endif
}

void fitConnectionsToOpenFiles(HttpConnectionLimits &limits, bool capGiven)
{
    const quint64 openFiles = raiseOpenFileLimit();
    if (openFiles == 0)
        return;
    // Descriptors beyond the connections: the store, outgoing deliveries, the signal pipe.
    const quint64 available = openFiles - std::min<quint64>(256, openFiles / 4);
    if (!capGiven)
        limits.maxConnections = int(std::min<quint64>(quint64(limits.maxConnections), available));
    else if (quint64(limits.maxConnections) > available)
        qCWarning(lcDaemon) << "--max-connections" << limits.maxConnections << "is more than the"
                            << "open-file limit" << openFiles << "leaves for connections; new"
                            << "connections may fail before the cap is reached";
}

} // namespace EventDesk::ProcessSetup
