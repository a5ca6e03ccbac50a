// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../store/DeliveryStore.h"
#include "EngineLock.h"

#include <QObject>
#include <QString>

#include <functional>
#include <vector>

namespace EventDesk {

// The engine thread as the units see it: whether they run on it, its signals, and a way to get
// work done there. The units run on the engine thread and on the delivery lanes; timers, the
// clock and the signals' receivers belong to the engine thread. A signal raised on a lane is
// emitted with the next commit or wake-up, in the order raised. Engine re-emits these signals as
// its own.
class EngineSignals final : public QObject
{
    Q_OBJECT

public:
    explicit EngineSignals(EngineLock &lock, QObject *parent = nullptr);

    bool onEngineThread() const;
    EngineLock &lock() const { return m_lock; }

    // Called on the engine thread, under the lock, after wake(): the work deferred from a lane.
    void setWakeHandler(std::function<void()> handler) { m_wakeHandler = std::move(handler); }
    // Posts one call of the wake handler to the engine thread (at most one is pending).
    void wake();
    // Emits the signals raised on lanes since the last call (engine thread).
    void emitDeferred();

    void raiseAttemptLogged(const AttemptLogEntry &entry);
    void raiseDeadLettered(const DeadLetterEntry &entry);
    void raiseDropped(const DroppedEntry &entry);
    void raiseProbationChanged(const QString &topic, const QString &subscription);
    void raiseProvisioningChanged(const QString &topic, const QString &subscription);
    void raiseStoreError(const QString &message);

Q_SIGNALS:
    void attemptLogged(const EventDesk::AttemptLogEntry &entry);
    void deadLettered(const EventDesk::DeadLetterEntry &entry);
    void dropped(const EventDesk::DroppedEntry &entry);
    void probationChanged(const QString &topic, const QString &subscription);
    void provisioningChanged(const QString &topic, const QString &subscription);
    void storeError(const QString &message);

private:
    template<typename Emit> void raise(Emit emitSignal);

    EngineLock &m_lock;
    std::function<void()> m_wakeHandler;
    bool m_wakePosted = false;
    std::vector<std::function<void()>> m_deferred;
};

} // namespace EventDesk
