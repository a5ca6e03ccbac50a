// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "EngineSnapshot.h"

#include <QString>

namespace EventDesk {

class Clock;

// Whether the engine can write to its store (a full disk, an I/O error): every write the engine
// makes - a publish (SPEC D1), a group commit of delivery state changes - reports here. A failed
// write is never acted on as if it had been made: a publish is refused, and buffered state
// changes stay buffered and are tried again (CommitBuffer). The state is shown in the GUI's
// status area, the log and /metrics. Guarded by the engine's state lock.
class StoreHealth final
{
public:
    explicit StoreHealth(Clock *clock) : m_clock(clock) {}

    void writeFailed(const QString &error);
    void writeSucceeded();

    bool isWritable() const { return m_health.writable; }
    const StoreHealthSnapshot &snapshot() const { return m_health; }

private:
    Clock *m_clock;
    StoreHealthSnapshot m_health;
};

} // namespace EventDesk
