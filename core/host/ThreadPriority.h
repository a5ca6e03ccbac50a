// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

namespace EventDesk {

// How much lower than its creator's a background thread's priority is: a nice value's step on
// Linux (of 0 to 19; 5 gives the other threads three times its share of a core when both want
// one), QThread::LowPriority elsewhere.
inline constexpr int BackgroundNiceIncrement = 5;

// Lowers the calling thread's scheduling priority, and with it that of every thread it starts
// from now on (Linux: a thread inherits its creator's nice value; elsewhere QThread's
// InheritPriority). The app runs its engine so: when the engine's threads want every core, the
// window's thread still gets one at once, and a frame is not late by the scheduler's slices.
// Returns false when the system refused (the thread then runs as before).
bool lowerCurrentThreadPriority();

// The calling thread's nice value (Linux), 0 elsewhere: for tests.
int currentThreadNice();

} // namespace EventDesk
