// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

namespace EventDesk {

// How much lower than its creator's a background thread's priority is: nice values on Linux
// (of 0 to 19; 10 gives a thread of normal priority nine times the share of a core of the
// background thread when both want one; benchmark 5's longest stalls were 15-20 ms with 10
// against 19-35 ms with 5), QThread::LowPriority elsewhere.
inline constexpr int BackgroundNiceIncrement = 10;

// Lowers the calling thread's scheduling priority, and with it that of every thread it starts
// from now on (Linux: a thread inherits its creator's nice value; elsewhere QThread's
// InheritPriority). The app runs its engine so: when the engine's threads want every core, the
// window's thread still gets one at once, and a frame is not late by the scheduler's slices.
// Returns false when the system refused (the thread then runs as before).
bool lowerCurrentThreadPriority();

// The calling thread's nice value (Linux), 0 elsewhere: for tests.
int currentThreadNice();

} // namespace EventDesk
