// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <atomic>

namespace EventDesk {

// Engine time (STYLE.md "Time is injected"): milliseconds since the Unix epoch, and ONE alarm.
// The engine never reads the wall clock or starts its own timers for scheduling; it asks its
// Clock for "now" and for a single wake-up at the earliest time anything is due.
class Clock : public QObject
{
    Q_OBJECT

public:
    using QObject::QObject;

    virtual qint64 nowMs() const = 0;

    // alarm() is emitted once when engine time reaches atMs (as soon as possible if it already
    // has). A new call replaces the previous alarm.
    virtual void setAlarm(qint64 atMs) = 0;
    virtual void cancelAlarm() = 0;

    // Engine milliseconds that pass per real millisecond (1 except for ScaledClock).
    virtual double scale() const { return 1.0; }

Q_SIGNALS:
    void alarm();
};

// Real time.
class SystemClock final : public Clock
{
    Q_OBJECT

public:
    explicit SystemClock(QObject *parent = nullptr);

    qint64 nowMs() const override;
    void setAlarm(qint64 atMs) override;
    void cancelAlarm() override;

protected:
    virtual qint64 realNowMs() const;

private:
    void arm();

    QTimer m_timer;
    qint64 m_alarmAtMs = -1;
};

// eventdeskd --time-scale N: engine time starts at the real time and runs N times faster, so
// every engine duration (retry waits, TTL, probation, dead-letter delay) passes N times faster.
//
// A real millisecond is N engine ones (a second at 1000x), and a timer, a busy core or the
// scheduler of the operating system makes an alarm late by about that much now and then. Engine
// time therefore does not run on while an alarm is late: when the alarm rings, the lateness (up to
// MaxAbsorbedRealMs of real time) is taken out of engine time, so the engine acts at the engine time
// it was woken for and the schedule that follows keeps its times. Engine time never goes back:
// a time already handed out (to another thread, say) is the earliest it can return to.
class ScaledClock final : public Clock
{
    Q_OBJECT

public:
    // A longer stall (a suspended process) is not absorbed beyond this: engine time moves on.
    static constexpr qint64 MaxAbsorbedRealMs = 100;

    explicit ScaledClock(double scale, QObject *parent = nullptr);

    qint64 nowMs() const override;
    void setAlarm(qint64 atMs) override;
    void cancelAlarm() override;
    double scale() const override { return m_scale; }

private:
    qint64 runningMs() const; // the scaled real time less what was absorbed
    void arm();
    void ring();

    double m_scale;
    qint64 m_originMs;
    QElapsedTimer m_elapsed;
    QTimer m_timer;
    qint64 m_alarmAtMs = -1;
    std::atomic<qint64> m_absorbedMs {0};
    mutable std::atomic<qint64> m_handedOutMs {0};
};

// Tests: time moves only when told to. advance() stops at every alarm on the way, so callbacks
// happen at exactly the times they were scheduled for.
class ManualClock final : public Clock
{
    Q_OBJECT

public:
    explicit ManualClock(qint64 startMs = 1'600'000'000'000, QObject *parent = nullptr);

    qint64 nowMs() const override { return m_nowMs; }
    void setAlarm(qint64 atMs) override;
    void cancelAlarm() override;

    void advanceMs(qint64 ms);
    void advanceTo(qint64 atMs);
    qint64 alarmAtMs() const { return m_alarmAtMs; } // -1: none

private:
    qint64 m_nowMs;
    qint64 m_alarmAtMs = -1;
};

} // namespace EventDesk
