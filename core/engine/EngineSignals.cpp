// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "EngineSignals.h"

#include <QThread>

namespace EventDesk {

EngineSignals::EngineSignals(EngineLock &lock, QObject *parent)
    : QObject(parent)
    , m_lock(lock)
{
}

bool EngineSignals::onEngineThread() const
{
    return QThread::currentThread() == thread();
}

void EngineSignals::wake()
{
    if (m_wakePosted)
        return;
    m_wakePosted = true;
    QMetaObject::invokeMethod(
        this,
        [this] {
            const StateLock lock(m_lock);
            m_wakePosted = false;
            if (m_wakeHandler)
                m_wakeHandler();
            emitDeferred();
        },
        Qt::QueuedConnection);
}

template<typename Emit> void EngineSignals::raise(Emit emitSignal)
{
    if (onEngineThread())
        emitSignal();
    else
        m_deferred.emplace_back(std::move(emitSignal));
}

void EngineSignals::emitDeferred()
{
    const std::vector<std::function<void()>> deferred = std::exchange(m_deferred, {});
    for (const auto &emitSignal : deferred)
        emitSignal();
}

void EngineSignals::raiseAttemptLogged(const AttemptLogEntry &entry)
{
    raise([this, entry] { Q_EMIT attemptLogged(entry); });
}

void EngineSignals::raiseDeadLettered(const DeadLetterEntry &entry)
{
    raise([this, entry] { Q_EMIT deadLettered(entry); });
}

void EngineSignals::raiseDropped(const DroppedEntry &entry)
{
    raise([this, entry] { Q_EMIT dropped(entry); });
}

void EngineSignals::raiseProbationChanged(const QString &topic, const QString &subscription)
{
    raise([this, topic, subscription] { Q_EMIT probationChanged(topic, subscription); });
}

void EngineSignals::raiseProvisioningChanged(const QString &topic, const QString &subscription)
{
    raise([this, topic, subscription] { Q_EMIT provisioningChanged(topic, subscription); });
}

void EngineSignals::raiseStoreError(const QString &message)
{
    raise([this, message] { Q_EMIT storeError(message); });
    if (!onEngineThread())
        wake(); // no commit need follow a failed read
}

} // namespace EventDesk
