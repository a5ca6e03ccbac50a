// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "ThreadPriority.h"

#include <QThread>

#ifdef Q_OS_LINUX
#include <algorithm>
#include <cerrno>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace EventDesk {

#ifdef Q_OS_LINUX

namespace {

id_t currentThreadId()
{
    return id_t(syscall(SYS_gettid));
}

} // namespace

int currentThreadNice()
{
    errno = 0;
    const int nice = getpriority(PRIO_PROCESS, currentThreadId());
    return errno == 0 ? nice : 0;
}

bool lowerCurrentThreadPriority()
{
    // Qt's thread priorities do not apply to Linux's normal scheduling policy (its priority range
    // is 0 to 0); a thread's own nice value does.
    const int nice = std::min(currentThreadNice() + BackgroundNiceIncrement, 19);
    return setpriority(PRIO_PROCESS, currentThreadId(), nice) == 0;
}

#else

int currentThreadNice()
{
    return 0;
}

bool lowerCurrentThreadPriority()
{
    QThread *thread = QThread::currentThread();
    if (thread->priority() == QThread::LowPriority || thread->priority() == QThread::LowestPriority)
        return true;
    thread->setPriority(QThread::LowPriority);
    return true;
}

#endif

} // namespace EventDesk
