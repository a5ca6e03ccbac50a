// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "ServiceManager.h"

#include "Logging.h"

#include <QString>

#include <utility>

#ifdef Q_OS_LINUX
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <ctime>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#endif

using namespace Qt::StringLiterals;

namespace EventDesk::ServiceManager {

namespace {

bool s_failureLogged = false;

void logFailure(const QString &problem)
{
    if (std::exchange(s_failureLogged, true))
        return;
    qCWarning(lcDaemon).noquote() << u"cannot notify the service manager: %1"_s.arg(problem);
}

} // namespace

void notify(const QByteArray &state)
{
#ifdef Q_OS_LINUX
    const QByteArray socketName = qgetenv("NOTIFY_SOCKET");
    if (socketName.isEmpty())
        return;
    sockaddr_un address = {};
    address.sun_family = AF_UNIX;
    if (socketName.size() >= qsizetype(sizeof(address.sun_path))) {
        logFailure(
            u"NOTIFY_SOCKET is longer than a socket address (%1 bytes)"_s.arg(socketName.size()));
        return;
    }
    if (socketName.startsWith('@')) {
        // An abstract socket: its name starts with a NUL byte instead of the '@', and its length
        // is the address's, with no terminating NUL.
        std::memcpy(address.sun_path + 1, socketName.constData() + 1,
                    size_t(socketName.size() - 1));
    } else if (socketName.startsWith('/')) {
        std::memcpy(address.sun_path, socketName.constData(), size_t(socketName.size()));
    } else {
        logFailure(u"NOTIFY_SOCKET '%1' is neither a path nor an abstract socket name"_s.arg(
            QString::fromLocal8Bit(socketName)));
        return;
    }
    const auto addressLength = socklen_t(offsetof(sockaddr_un, sun_path) + size_t(socketName.size())
                                         + (socketName.startsWith('@') ? 0 : 1));
    const int socket = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (socket < 0) {
        logFailure(QString::fromLocal8Bit(std::strerror(errno)));
        return;
    }
    const ssize_t sent = ::sendto(socket, state.constData(), size_t(state.size()), MSG_NOSIGNAL,
                                  reinterpret_cast<const sockaddr *>(&address), addressLength);
    if (sent < 0)
        logFailure(u"%1: %2"_s.arg(QString::fromLocal8Bit(socketName),
                                   QString::fromLocal8Bit(std::strerror(errno))));
    ::close(socket);
#else
    Q_UNUSED(state);
#endif
}

void notifyReady(const QString &listenUrl)
{
    notify("READY=1\nSTATUS=listening on " + listenUrl.toUtf8());
}

void notifyReloading()
{
#ifdef Q_OS_LINUX
    // sd_notify(3): RELOADING=1 goes with the CLOCK_MONOTONIC time in microseconds.
    timespec now = {};
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    const quint64 microseconds = quint64(now.tv_sec) * 1'000'000 + quint64(now.tv_nsec) / 1000;
    notify("RELOADING=1\nSTATUS=reloading workspace.json\nMONOTONIC_USEC="
           + QByteArray::number(microseconds));
#endif
}

void notifyStopping()
{
    notify("STOPPING=1\nSTATUS=stopping");
}

} // namespace EventDesk::ServiceManager
