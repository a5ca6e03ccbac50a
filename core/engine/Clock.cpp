// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "Clock.h"

#include <QDateTime>

#include <algorithm>
#include <cmath>

namespace EventDesk {

namespace {
// QTimer takes an int interval; long waits are re-armed in steps.
constexpr qint64 MaxTimerStepMs = 24LL * 60 * 60 * 1000;
} // namespace

SystemClock::SystemClock(QObject *parent)
    : Clock(parent)
{
    m_timer.setSingleShot(true);
    m_timer.setTimerType(Qt::PreciseTimer);
    connect(&m_timer, &QTimer::timeout, this, [this] {
        if (m_alarmAtMs < 0)
            return;
        if (nowMs() < m_alarmAtMs) {
            arm();
            return;
        }
        m_alarmAtMs = -1;
        Q_EMIT alarm();
    });
}

qint64 SystemClock::realNowMs() const
{
    return QDateTime::currentMSecsSinceEpoch();
}

qint64 SystemClock::nowMs() const
{
    return realNowMs();
}

void SystemClock::setAlarm(qint64 atMs)
{
    m_alarmAtMs = atMs;
    arm();
}

void SystemClock::cancelAlarm()
{
    m_alarmAtMs = -1;
    m_timer.stop();
}

void SystemClock::arm()
{
    const qint64 wait = std::clamp<qint64>(m_alarmAtMs - nowMs(), 0, MaxTimerStepMs);
    m_timer.start(std::chrono::milliseconds(wait));
}

ScaledClock::ScaledClock(double scale, QObject *parent)
    : Clock(parent)
    , m_scale(scale > 0 ? scale : 1.0)
    , m_originMs(QDateTime::currentMSecsSinceEpoch())
{
    m_elapsed.start();
    m_timer.setSingleShot(true);
    m_timer.setTimerType(Qt::PreciseTimer);
    connect(&m_timer, &QTimer::timeout, this, &ScaledClock::ring);
}

qint64 ScaledClock::runningMs() const
{
    return m_originMs + qint64(std::floor(double(m_elapsed.nsecsElapsed()) / 1e6 * m_scale))
        - m_absorbedMs.load(std::memory_order_relaxed);
}

qint64 ScaledClock::nowMs() const
{
    // Monotonic across threads: never earlier than a time already handed out.
    const qint64 running = runningMs();
    qint64 handedOut = m_handedOutMs.load(std::memory_order_relaxed);
    while (running > handedOut
           && !m_handedOutMs.compare_exchange_weak(handedOut, running, std::memory_order_relaxed)) {
    }
    return std::max(running, handedOut);
}

void ScaledClock::ring()
{
    if (m_alarmAtMs < 0)
        return;
    const qint64 running = runningMs();
    if (running < m_alarmAtMs) {
        arm();
        return;
    }
    // Late by `running - m_alarmAtMs`: engine time goes on from the alarm's time, or from the
    // latest time handed out since, whichever is later.
    const qint64 resumeAtMs = std::max(m_alarmAtMs, m_handedOutMs.load(std::memory_order_relaxed));
    const qint64 late = std::min(running - resumeAtMs, qint64(double(MaxAbsorbedRealMs) * m_scale));
    if (late > 0)
        m_absorbedMs.fetch_add(late, std::memory_order_relaxed);
    m_alarmAtMs = -1;
    Q_EMIT alarm();
}

void ScaledClock::setAlarm(qint64 atMs)
{
    m_alarmAtMs = atMs;
    arm();
}

void ScaledClock::cancelAlarm()
{
    m_alarmAtMs = -1;
    m_timer.stop();
}

void ScaledClock::arm()
{
    // Whole real milliseconds, rounded up: the timer never rings before the alarm, and the
    // lateness it has is taken out of engine time when it rings.
    const double engineWait = double(std::max<qint64>(m_alarmAtMs - runningMs(), 0));
    const qint64 realWait = std::min<qint64>(qint64(std::ceil(engineWait / m_scale)), MaxTimerStepMs);
    m_timer.start(std::chrono::milliseconds(realWait));
}

ManualClock::ManualClock(qint64 startMs, QObject *parent)
    : Clock(parent)
    , m_nowMs(startMs)
{
}

void ManualClock::setAlarm(qint64 atMs)
{
    m_alarmAtMs = atMs;
}

void ManualClock::cancelAlarm()
{
    m_alarmAtMs = -1;
}

void ManualClock::advanceMs(qint64 ms)
{
    advanceTo(m_nowMs + ms);
}

void ManualClock::advanceTo(qint64 atMs)
{
    // Fire every alarm that falls within the step, at its own time; a handler may set a new one.
    while (m_alarmAtMs >= 0 && m_alarmAtMs <= atMs) {
        m_nowMs = std::max(m_nowMs, m_alarmAtMs);
        m_alarmAtMs = -1;
        Q_EMIT alarm();
    }
    m_nowMs = std::max(m_nowMs, atMs);
}

} // namespace EventDesk
