// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// eventdesk_lock_holder DIR: takes the owner's lock of the workspace DIR as an engine would
// (WorkspaceLock), prints "locked PID" and holds it until its standard input closes. Tests use it
// as "another engine" they can kill -9 without a whole eventdeskd; when the test itself dies, its
// end of the pipe closes and the lock is released.

#include "workspace/WorkspaceLock.h"

#include <QCoreApplication>

#include <cstdio>

using namespace EventDesk;

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    const QStringList arguments = QCoreApplication::arguments();
    if (arguments.size() != 2) {
        std::fprintf(stderr, "usage: eventdesk_lock_holder DIR\n");
        return 2;
    }
    WorkspaceLock lock(arguments.at(1));
    if (auto taken = lock.acquire(); !taken) {
        std::fprintf(stderr, "eventdesk_lock_holder: %s\n", qPrintable(taken.error()));
        return lock.owner() ? 3 : 2;
    }
    std::printf("locked %lld\n", QCoreApplication::applicationPid());
    std::fflush(stdout);
    while (std::fgetc(stdin) != EOF) { }
    lock.release();
    return 0;
}
