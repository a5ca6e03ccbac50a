// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QByteArray>
#include <QString>

namespace EventDesk::ServiceManager {

// systemd's readiness protocol (sd_notify(3)) for a unit of Type=notify: state, e.g.
// "READY=1\nSTATUS=...", goes in one datagram to the AF_UNIX socket $NOTIFY_SOCKET names (a path,
// or an abstract name written with a leading '@'). The protocol is one sendto(); it needs no
// library. Without $NOTIFY_SOCKET (not started by systemd) nothing is sent; a socket that cannot be
// reached is logged once and otherwise ignored: the service runs on either way.
void notify(const QByteArray &state);

// "READY=1" once the endpoint listens, with a STATUS= line naming the address.
void notifyReady(const QString &listenUrl);
// "RELOADING=1" with the monotonic time systemd wants beside it, when SIGHUP arrives.
void notifyReloading();
// "STOPPING=1" when the engine starts to stop.
void notifyStopping();

} // namespace EventDesk::ServiceManager
