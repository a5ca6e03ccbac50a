// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtGlobal>

namespace EventDesk::Testing {

// A loopback TCP port that nothing listens on (bound and released at once): connecting to it is
// refused until a test listens there. Taken below the kernel's ephemeral range, so that no
// outgoing connection takes it meanwhile. 0 if no port could be bound.
quint16 closedLoopbackPort();

} // namespace EventDesk::Testing
