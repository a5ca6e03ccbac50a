// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "LoopbackPort.h"

#include <QFile>
#include <QHostAddress>
#include <QRandomGenerator>
#include <QTcpServer>

namespace EventDesk::Testing {

namespace {

// The lowest port the kernel hands out for outgoing connections and for listen(0) (Linux; the
// same default elsewhere would only make the fallback below rarer).
int lowestEphemeralPort()
{
    QFile range(QStringLiteral("/proc/sys/net/ipv4/ip_local_port_range"));
    if (range.open(QIODevice::ReadOnly)) {
        bool ok = false;
        const int low = range.readAll().simplified().split(' ').value(0).toInt(&ok);
        if (ok && low > 0)
            return low;
    }
    return 32768;
}

bool isFree(quint16 port)
{
    QTcpServer server;
    return server.listen(QHostAddress::LocalHost, port);
}

} // namespace

quint16 closedLoopbackPort()
{
    // A port below the ephemeral range: tests keep the port closed for a while and then listen on
    // it, and in between an outgoing connection of a test running beside this one could have taken
    // an ephemeral port as its local end. Ports from 10000 up are tried in a random order.
    constexpr int LowestPort = 10000;
    const int ephemeral = lowestEphemeralPort();
    for (int attempt = 0; ephemeral > LowestPort && attempt < 100; ++attempt) {
        const auto port
            = quint16(LowestPort + QRandomGenerator::global()->bounded(ephemeral - LowestPort));
        if (isFree(port))
            return port;
    }
    QTcpServer server;
    if (!server.listen(QHostAddress::LocalHost, 0))
        return 0;
    return server.serverPort();
}

} // namespace EventDesk::Testing
