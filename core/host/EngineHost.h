// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../Expected.h"
#include "../endpoint/TestReceiverService.h"
#include "../engine/EngineSnapshot.h"
#include "../engine/EngineTypes.h"
#include "../model/Workspace.h"
#include "../store/DeliveryStore.h"
#include "../store/SharedConfiguration.h"
#include "../workspace/WorkspaceLock.h"
#include "EngineWorker.h"
#include "StoreOpener.h"

#include <QObject>
#include <QString>
#include <QThread>

#include <functional>
#include <optional>

namespace EventDesk {

class StoreMonitor;

// Runs a workspace's engine, store, topic endpoint and HTTP client (EngineWorker) on a thread of
// their own, so the GUI never waits on delivery work (ARCHITECTURE.md "Threads"). Calls go in
// queued; results come back through callbacks run on the caller's thread, and through signals
// carrying immutable snapshots a few times per second.
//
// Each call below is the one thing the GUI may ask of the engine thread, named and typed on
// purpose: its arguments and result are copied across the thread boundary, and the GUI never
// holds a reference to an object of the engine thread. All of them go through call(), so none
// repeats the crossing.
class EngineHost final : public QObject
{
    Q_OBJECT

public:
    using Config = EngineWorker::Settings;

    explicit EngineHost(QObject *parent = nullptr);
    ~EngineHost() override;

    // Opens the workspace folder (creating it with the demo content when missing,
    // EngineWorker::openWorkspaceFolder()) and hands its configuration to opened, here and now,
    // before the engine thread takes the workspace's lock, opens the store and the endpoint and
    // starts the engine: the app loads the secrets the workspace needs meanwhile. Emits started()
    // when done (ok or not; at once when the folder cannot be opened); when another engine owns
    // the workspace, owner() names it.
    void start(Config config, const std::function<void(const Workspace &workspace)> &opened = {});
    // Blocks until the engine thread has shut down cleanly (all state committed, the workspace
    // released), or the monitor has stopped.
    void stop();
    bool isRunning() const { return m_running; }
    // start() was called and started() has not been emitted yet (the workspace's lock may be
    // held by this host's engine already).
    bool isStarting() const { return m_starting; }

    // Opens a workspace that another engine owns as a read-only monitor (docs/user-guide.md "One
    // owner per workspace"): no engine runs here. A StoreMonitor on the engine thread reads the
    // owner's store and workspace.json every config.monitorIntervalMs and reports them through
    // snapshotReady(), attemptsLogged(), workspaceChanged() and storeError(), as an engine would.
    // Every call that needs an engine answers that none runs. Emits monitorStarted() when done.
    void monitor(const Config &config);
    bool isMonitoring() const { return m_monitoring; }
    // Monitoring a shared workspace: a PostgreSQL store (config().storeLocation) that eventdeskd
    // instances share and deliver from (StoreMonitor::startShared()).
    bool isMonitoringSharedStore() const
    {
        return m_monitoring && isPostgresLocation(m_config.storeLocation);
    }
    // Monitoring a shared workspace: the instances registered on the store, as the last poll
    // found them.
    const QList<InstanceStatus> &instances() const { return m_instances; }
    // The engine that owns the workspace: after start() was refused because of it, and while
    // monitoring (none once it has left: the workspace may be taken over).
    const std::optional<WorkspaceOwner> &owner() const { return m_owner; }

    const Config &config() const { return m_config; }
    // Where the views read the store (DeliveryStoreReader): the PostgreSQL URL of
    // config().storeLocation, or else the workspace's SQLite file.
    QString storeLocation() const;
    QString listenUrl() const { return m_listenUrl; }
    // The usual port was taken and the engine listens elsewhere (Config::busyPort): why.
    QString busyPort() const { return m_busyPort; }
    const Workspace &workspace() const { return m_workspace; }

    void publish(const QString &topic, const QByteArray &body, const QByteArray &contentType,
                 std::function<void(const PublishResult &)> done);
    // Monitoring a shared workspace: writes the topics (an edit of the ones workspace() holds) to
    // the store's configuration (StoreMonitor::saveConfiguration()); the instances pick it up at
    // their next poll. done gets the new revision, or why nothing was written (a conflict with
    // another writer names what it changed; workspace() then holds the configuration as it is).
    void saveSharedConfiguration(const QList<Topic> &topics,
                                 std::function<void(const Expected<qint64> &)> done);
    // Monitoring a shared workspace: StoreMonitor::importConfiguration() / exportConfiguration().
    void importSharedConfiguration(
        const QString &path,
        std::function<void(const Expected<SharedConfigurationSnapshot> &)> done);
    void exportSharedConfiguration(
        const QString &path,
        std::function<void(const Expected<SharedConfigurationSnapshot> &)> done);
    // Validates, saves workspace.json and applies the new configuration to the running engine.
    void applyWorkspace(const Workspace &workspace,
                        std::function<void(const Expected<void> &)> done);
    void resubmitDeadLetters(const QList<qint64> &ids,
                             std::function<void(const ResubmitResult &)> done);
    void resubmitDeadLetters(const DeadLetterQuery &query,
                             std::function<void(const ResubmitResult &)> done);
    // See Engine::resubmitThroughTopic.
    void resubmitThroughTopic(const QList<qint64> &ids, ResubmitRun mode,
                              std::function<void(const TopicResubmitResult &)> done);
    void removeDeadLetters(const QList<qint64> &ids,
                           std::function<void(const Expected<void> &)> done);
    // Test receivers: the requests a receiver recorded with a sequence number above afterSequence
    // (0: all it still holds, oldest first; at most 1000 per receiver).
    void receiverRecords(const QString &receiver, quint64 afterSequence,
                         std::function<void(const QList<ReceivedRequest> &)> done);
    // Endpoint validation: runs a subscription's handshake again (SubscriptionSnapshot shows
    // provisioningState, provisioningMessage and, while awaiting manual action, validationUrl).
    void revalidateSubscription(const QString &topic, const QString &subscription,
                                std::function<void(const Expected<void> &)> done);
    // The dead-letter browser: reads the blob a dead letter was written to (blobPath as in the
    // store's index) from its destination - a file of the local container or, signed with the
    // account key, a blob in Azure Storage / Azurite.
    void readDeadLetterBlob(const DeadLetterDestination &destination, const QString &blobPath,
                            std::function<void(const Expected<QByteArray> &)> done);

Q_SIGNALS:
    void started(bool ok, const QString &error, const QString &listenUrl);
    void snapshotReady(const EventDesk::EngineSnapshot &snapshot);
    void attemptsLogged(const QList<EventDesk::AttemptLogEntry> &entries);
    // Requests the test receivers recorded since the last emission (batched, ~10 per second).
    void receiverRequestsRecorded(const QList<EventDesk::ReceivedRequest> &records);
    void workspaceChanged();
    void storeError(const QString &message);
    void monitorStarted(bool ok, const QString &error);
    // While monitoring: owner() changed (the owner left, or another engine took the workspace).
    void ownerChanged();
    // Monitoring a shared workspace: the instances, read at every poll.
    void instancesChanged(const QList<EventDesk::InstanceStatus> &instances);

private:
    // Runs work on the engine thread; it hands its result to reply (on any thread, once), which
    // done then receives on this object's thread. When no engine runs, done gets stopped at once.
    template<typename Result>
    void
    call(std::function<void(EngineWorker &worker, std::function<void(const Result &)> reply)> work,
         std::function<void(const Result &)> done, const Result &stopped);

    // Runs work on the monitor's thread while a shared workspace is monitored; done gets its
    // result on this object's thread (after the signals the work raised), or an error at once
    // when no shared workspace is open.
    template<typename Result>
    void callSharedMonitor(std::function<Result(StoreMonitor &monitor)> work,
                           std::function<void(const Result &)> done);

    QThread m_thread;
    EngineWorker *m_worker = nullptr;
    StoreMonitor *m_monitor = nullptr;
    Config m_config;
    Workspace m_workspace;
    QString m_listenUrl;
    QString m_busyPort;
    bool m_running = false;
    bool m_starting = false;
    quint64 m_startGeneration = 0; // a start's answer counts only while it is the latest
    bool m_monitoring = false;
    std::optional<WorkspaceOwner> m_owner;
    QList<InstanceStatus> m_instances;
};

} // namespace EventDesk
