// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../Expected.h"
#include "../engine/EngineSnapshot.h"
#include "../model/Workspace.h"
#include "../store/DeliveryStore.h"
#include "../store/SharedConfiguration.h"
#include "../workspace/WorkspaceLock.h"
#include "StoreOpener.h"

#include <QDateTime>
#include <QHash>
#include <QList>
#include <QObject>
#include <QString>

#include <memory>
#include <optional>

class QTimer;

namespace EventDesk {

// A read-only monitor of a workspace that another engine owns (docs/user-guide.md "One owner per
// workspace"): it reads what the owner writes to the store, over a read-only connection, and
// reports it the way a running engine does, so the desktop app's views need no other source:
// snapshots of every subscription and the attempts logged since the last one.
//
// What the store holds is current: the backlog, the deliveries in flight, probation and, from
// provisioning.json, endpoint validation. Counters (delivered, failed by outcome, dead-lettered,
// dropped, latency) count what the owner logged since the monitor started, as a running engine's
// count what it did since it started. What the owner keeps only in memory is not there: events
// published per topic, deliveries matched, events held for validation.
//
// It writes nothing: not the store, not workspace.json (re-read when the owner changes it), not
// the lock. Each poll also asks whether the owner still holds the workspace.
//
// A shared workspace (startShared()) is the same idea for a PostgreSQL store that several
// eventdeskd instances share (docs/shared-store.md "Several instances on one store"): the instances
// deliver, the monitor reads the store (DeliveryStoreReader, read-only and unregistered) and, at
// each poll, the instances registered on it with their heartbeats (instancesRead()). There is no
// workspace folder and no lock: the topics and subscriptions are the store's configuration
// (SharedConfiguration), followed through its revision at every poll, and those the store holds
// rows for besides. The configuration is the one thing it writes, when the user edits it
// (saveConfiguration()).
class StoreMonitor final : public QObject
{
    Q_OBJECT

public:
    explicit StoreMonitor(QObject *parent = nullptr);
    ~StoreMonitor() override;

    // Reads workspace.json and starts polling every intervalMs (the first poll happens at once).
    // The store may not be readable yet (the owner creates or migrates it): polls retry.
    Expected<Workspace> start(const QString &directory, int intervalMs);
    // Monitors the PostgreSQL store at url (a shared workspace) every intervalMs. An error only
    // for a location that is no PostgreSQL URL; a store that cannot be read yet is retried by the
    // polls (readError() says why).
    Expected<void> startShared(const QString &url, int intervalMs);
    bool isShared() const { return !m_sharedUrl.isEmpty(); }
    // A shared workspace: writes an edit of the store's configuration (the topics as the last
    // read had them become after), as SharedConfiguration::saveConfiguration() does, against the
    // revision last read; then reads the configuration again at once, whether the edit was written
    // or refused (another writer changed what it changes: the error says what).
    Expected<qint64> saveConfiguration(const QList<Topic> &after);
    // A shared workspace: the topics of the workspace.json at path become the store's whole
    // configuration (SharedWorkspace::importFile: a file that is not valid changes nothing, the
    // error names it and the JSON path); the topics as the store holds them, written to path as a
    // workspace.json with default settings (SharedWorkspace::exportFile). Both answer the
    // configuration written.
    Expected<SharedConfigurationSnapshot> importConfiguration(const QString &path);
    Expected<SharedConfigurationSnapshot> exportConfiguration(const QString &path);
    // The configuration's revision as last read (0: never given one; -1: not read yet).
    qint64 configurationRevision() const { return m_configurationRevision; }
    void stop();
    // Reads what changed since the last poll and reports it. The timer calls it; so may tests.
    void poll();

    const Workspace &workspace() const { return m_workspace; }
    // The engine that holds the workspace, as the last poll (or start()) found it; none when it
    // has left.
    const std::optional<WorkspaceOwner> &owner() const { return m_owner; }
    // A shared workspace: the instances as the last poll found them.
    const QList<InstanceStatus> &instances() const { return m_instances; }

Q_SIGNALS:
    void snapshotReady(const EventDesk::EngineSnapshot &snapshot);
    // What the owner logged since the last poll, oldest first.
    void attemptsLogged(const QList<EventDesk::AttemptLogEntry> &entries);
    // The owner changed workspace.json (and the new one is valid).
    void workspaceChanged(const EventDesk::Workspace &workspace);
    // Nobody holds the workspace any more: the owner shut down, or crashed on this host. The
    // monitor goes on reading.
    void ownerLeft();
    // Another engine holds the workspace now (after ownerLeft(), or in place of the last owner).
    void ownerFound(const EventDesk::WorkspaceOwner &owner);
    // The store cannot be read (the message names it and the reason); the next poll tries again.
    void readError(const QString &message);
    // A shared workspace: the instances registered on the store, as each poll found them.
    void instancesRead(const QList<EventDesk::InstanceStatus> &instances);
    // A shared workspace: the store's configuration at a new revision (workspace holds its topics).
    void configurationRead(const EventDesk::Workspace &workspace, qint64 revision);

private:
    struct FileStamp
    {
        QDateTime modified;
        qint64 size = -1;
        bool operator==(const FileStamp &other) const = default;
    };
    struct Watermarks
    {
        qint64 attempt = 0;
        qint64 deadLetter = 0;
        qint64 dropped = 0;
    };

    Expected<void> openStore();
    Expected<void> readAttempts(bool *more);
    Expected<void> readDeadLettersAndDrops();
    Expected<void> readGauges();
    Expected<void> readInstances();
    Expected<void> readConfiguration();
    Expected<SharedConfiguration *> configuration();
    void startPolling();
    void rereadWorkspace();
    void rereadProvisioning();
    void checkOwner();
    EngineSnapshot buildSnapshot() const;
    SubscriptionSnapshot &figuresOf(const QString &topic, const QString &subscription);

    static QString key(const QString &topic, const QString &subscription);
    static FileStamp stampOf(const QString &path);

    QString m_directory;
    QString m_sharedUrl; // startShared(): the store's location; empty for a workspace folder
    int m_intervalMs = 1000;
    std::unique_ptr<QTimer> m_timer;
    std::unique_ptr<DeliveryStoreReader> m_store;
    // A shared workspace: the store's configuration, through a store of its own (the read side
    // has none), opened once the reader found the store at this build's schema, so that it
    // never creates nor migrates one. It registers no instance.
    std::unique_ptr<DeliveryStore> m_configurationStore;
    qint64 m_configurationRevision = -1;
    bool m_baselineRead = false;
    Watermarks m_watermarks;
    Workspace m_workspace;
    FileStamp m_workspaceStamp;
    FileStamp m_provisioningStamp;
    QHash<QString, ProvisioningRecord> m_provisioning; // by key()
    // Per subscription (by key()): the counters since the start, and the gauges of the last poll.
    QHash<QString, SubscriptionSnapshot> m_figures;
    QString m_lastError;
    std::optional<WorkspaceOwner> m_owner;
    QList<InstanceStatus> m_instances;
};

} // namespace EventDesk
