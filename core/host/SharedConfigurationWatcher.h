// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../Expected.h"
#include "../store/SharedConfiguration.h"

#include <QObject>
#include <QString>
#include <QTimer>

#include <functional>

namespace EventDesk {

// Keeps an instance on the configuration of a store several engines share (issue 21): polls the
// configuration revision (one small read) and, when it moved, loads the configuration and hands it
// to apply. Lives on the engine's thread, whose event loop runs its timer; the interval is real
// time, whatever engine time does, as the instance's heartbeat is.
//
// A configuration that cannot be applied is logged once and skipped: the instance keeps its last
// good one until a later revision applies. One that cannot be loaded (an invalid row) is loaded
// again at each poll, and logged once while the problem lasts. A store that cannot be reached is
// logged once and polled again at the next interval; the log says when it answers again.
class SharedConfigurationWatcher final : public QObject
{
    Q_OBJECT

public:
    // How often the revision is read: a change made by one instance is picked up by the others
    // within a second (issue 21).
    static constexpr int DefaultIntervalMs = 500;

    // Applies a configuration (asynchronously if it must, e.g. after its secrets were loaded), then
    // calls done with the outcome. No poll starts before done was called.
    using Apply = std::function<void(const SharedConfigurationSnapshot &snapshot,
                                     std::function<void(const Expected<void> &result)> done)>;

    // appliedRevision: the revision the instance runs on already (SharedWorkspace::adopt()).
    // storeName: the store as the log names it (without password).
    SharedConfigurationWatcher(SharedConfiguration *configuration, qint64 appliedRevision,
                               const QString &storeName, Apply apply, QObject *parent = nullptr);

    void start(int intervalMs = DefaultIntervalMs);
    void stop();
    // One poll: the timer calls it; so may tests.
    void poll();

    qint64 appliedRevision() const { return m_appliedRevision; }

Q_SIGNALS:
    // A revision was applied (revision) or refused (error says why; the instance keeps
    // appliedRevision()).
    void applied(qint64 revision);
    void refused(qint64 revision, const QString &error);

private:
    void finish(qint64 revision, const QString &description, const Expected<void> &result);

    SharedConfiguration *m_configuration;
    QString m_storeName;
    Apply m_apply;
    QTimer m_timer;
    qint64 m_appliedRevision;
    qint64 m_refusedRevision = -1; // not tried again: it stays refused until the next change
    QString m_loadError; // the last load's problem, logged once
    bool m_applying = false;
    bool m_unreachable = false;
};

} // namespace EventDesk
