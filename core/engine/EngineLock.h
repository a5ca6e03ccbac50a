// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "DeliveryLane.h"

#include <QByteArray>
#include <QNetworkRequest>

#include <mutex>
#include <vector>

namespace EventDesk {

// The lock over the engine's state (EngineState), taken by every entry into the engine: on the
// engine thread and on the delivery lanes alike. It is recursive, since an entry may call
// another (publish → publishParsed).
//
// Requests built under the lock wait in its outbox: when the outermost StateLock is released they
// are handed to their lanes, so that Qt's work for a request runs outside the lock, and a lane
// posts its own requests without a hop between threads.
class EngineLock
{
public:
    struct Outgoing
    {
        DeliveryLane *lane;
        quint64 requestId;
        quint64 cancelGeneration;
        QNetworkRequest request;
        QByteArray body;
    };

    // Under the lock: posted when the outermost lock is released.
    void post(Outgoing outgoing) { m_outbox.push_back(std::move(outgoing)); }
    // Under the lock: what was not posted yet is dropped (shutdown).
    void discardOutbox() { m_outbox.clear(); }

private:
    friend class StateLock;
    std::recursive_mutex m_mutex;
    int m_depth = 0;
    std::vector<Outgoing> m_outbox;
};

class StateLock
{
public:
    explicit StateLock(EngineLock &lock)
        : m_lock(lock)
    {
        m_lock.m_mutex.lock();
        ++m_lock.m_depth;
    }
    ~StateLock()
    {
        std::vector<EngineLock::Outgoing> outgoing;
        if (--m_lock.m_depth == 0)
            outgoing.swap(m_lock.m_outbox);
        m_lock.m_mutex.unlock();
        for (EngineLock::Outgoing &request : outgoing)
            request.lane->post(request.requestId, request.request, request.body,
                               request.cancelGeneration);
    }
    StateLock(const StateLock &) = delete;
    StateLock &operator=(const StateLock &) = delete;

private:
    EngineLock &m_lock;
};

} // namespace EventDesk
