// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../Expected.h"

#include <QHostAddress>
#include <QString>

namespace EventDesk {

// Where a workspace's topic endpoint and test receivers listen: the HOST:PORT of --listen, read
// once (parse()) by both programs, and the one place that turns it into a socket address and into
// the http:// URLs that name the endpoint.
struct ListenAddress
{
    static constexpr quint16 DefaultPort = 5170;

    // An IP address (IPv6 without brackets) or "localhost".
    QString host = QStringLiteral("127.0.0.1");
    quint16 port = DefaultPort; // 0: any free port

    // "127.0.0.1:5170", "[::1]:0", "localhost:5170". The error says what is expected and what was
    // given, without the option's name (the caller adds it).
    static Expected<ListenAddress> parse(const QString &text);

    QHostAddress address() const;
    bool isLoopback() const { return address().isLoopback(); }
    // The host as a URL writes it: IPv6 in brackets.
    QString urlHost() const;
    // "http://127.0.0.1:5170" for port (the endpoint may listen on another port than this.port).
    QString url(quint16 onPort) const;
    QString url() const { return url(port); }
};

} // namespace EventDesk
