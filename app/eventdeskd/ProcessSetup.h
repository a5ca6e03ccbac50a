// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <functional>

class QCoreApplication;

namespace EventDesk {

struct HttpConnectionLimits;

// What the operating system gives eventdeskd's process, each platform in its own way: the
// requests to stop and the number of open files.
namespace ProcessSetup {

// Until handleSignals(), SIGHUP is ignored: the workspace.json being read at start is the newest,
// and the default action would end the process while it opens its store.
void ignoreHangupWhileStarting();

// SIGINT / SIGTERM (a console's Ctrl+C / close on Windows) end app's event loop, so that
// everything is committed and the workspace released before the process ends. SIGHUP (Unix) calls
// reload on the event loop's thread, as often as it comes.
void handleSignals(QCoreApplication &app, std::function<void()> reload);

// Every connection of the endpoint holds a file descriptor, and the usual soft limit (1024 on
// Linux, 256 on macOS) is far below what the connection cap allows. Raises the soft limit to the
// hard one (what the administrator granted) and lowers limits.maxConnections to what it leaves for
// connections beside the store, the outgoing deliveries and the signal pipe; a cap the operator
// gave (capGiven) is kept, with a warning when it does not fit.
void fitConnectionsToOpenFiles(HttpConnectionLimits &limits, bool capGiven);

} // namespace ProcessSetup

} // namespace EventDesk
