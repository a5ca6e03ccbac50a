// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "StoreHealth.h"

#include "../Logging.h"
#include "Clock.h"

namespace EventDesk {

void StoreHealth::writeFailed(const QString &error)
{
    ++m_health.writeFailures;
    m_health.lastError = error;
    if (!m_health.writable)
        return;
    m_health.writable = false;
    m_health.unwritableSinceMs = m_clock->nowMs();
    qCWarning(lcStore).noquote() << "the store cannot be written:" << error
                                 << "- publishes are refused with 503 and delivery state changes"
                                    " are kept in memory until a write succeeds";
}

void StoreHealth::writeSucceeded()
{
    if (m_health.writable)
        return;
    qCInfo(lcStore).noquote() << "the store can be written again; it failed"
                              << (m_clock->nowMs() - m_health.unwritableSinceMs) << "ms"
                              << "of engine time";
    m_health.writable = true;
    m_health.unwritableSinceMs = 0;
}

} // namespace EventDesk
