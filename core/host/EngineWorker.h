// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../Expected.h"
#include "../endpoint/TestReceiverService.h"
#include "../engine/EngineSnapshot.h"
#include "../engine/EngineTypes.h"
#include "../http/HttpMessage.h"
#include "../model/Workspace.h"
#include "../store/DeliveryStore.h"
#include "../workspace/WorkspaceLock.h"
#include "HeadlessSecrets.h"
#include "ListenAddress.h"

#include <QList>
#include <QObject>
#include <QString>

#include <functional>
#include <memory>
#include <optional>

class QNetworkAccessManager;
class QTimer;

namespace EventDesk {

class AzureBlobDeadLetterSink;
class Clock;
class DeadLetterRouter;
class Engine;
class FolderDeadLetterSink;
class ProvisioningFile;
class SecretCache;
class SharedConfigurationWatcher;
class DeliveryStore;
class TopicEndpoint;

// The one place that wires a workspace's engine: workspace lock, store, clock, access manager,
// dead-letter sinks, secrets, engine, topic endpoint and, on a shared store, the configuration
// watcher. Both programs run a workspace through it: the desktop app on an engine thread of its
// own (EngineHost carries its signals to the GUI thread), eventdeskd on its main thread. Created
// on the thread it runs on, so its timers and sockets belong to that thread's event loop.
class EngineWorker final : public QObject
{
    Q_OBJECT

public:
    struct Settings
    {
        QString workspaceDirectory;
        ListenAddress listen; // port 0: any free port
        // When listen.port cannot be bound (another EventDesk or an emulator has it): Fail ends
        // start() with the error (eventdeskd's way: whoever runs a server chose its address);
        // NextFree (the desktop app's) opens the workspace anyway on the first free port of the
        // NextPortsTried above it, else on any free port, and sends webhooks addressed to the
        // workspace's own receivers at the usual port there (ReceiverAlias).
        // StartResult::busyPort says so.
        enum class BusyPort { Fail, NextFree };
        BusyPort busyPort = BusyPort::Fail;
        // The port the workspace's webhooks name its own test receivers by (0: listen.port). When
        // the endpoint listens on another one, they are sent there (ReceiverAlias).
        quint16 receiverPort = 0;
        // The topic endpoint's timeouts and connection cap.
        HttpConnectionLimits connectionLimits;
        // Where the engine keeps its deliveries (core/host/StoreOpener.h): empty for the
        // workspace's own SQLite store, or a postgresql:// URL.
        QString storeLocation;
        double timeScale = 1.0;
        bool jitter = true;
        quint64 jitterSeed = 0; // 0: a random seed
        // On a shared store: when the others take over this instance's deliveries (real time).
        qint64 instanceLeaseMs = DefaultInstanceLeaseMs;
        // How often snapshotReady() and attemptsLogged() report to the views; 0: never (nothing
        // watches a headless engine, and its deliveries then cost nothing for views).
        int snapshotIntervalMs = 250;
        // EngineHost::start(): run the engine's threads below the priority of the thread that
        // starts it (lowerCurrentThreadPriority()), as the app does for its window's sake.
        bool backgroundPriority = false;
        // EngineHost::monitor(): how often the read-only monitor reads the owner's store.
        int monitorIntervalMs = 1000;
        // Secret header values, topic keys and storage account keys (docs/eventdeskd.md "Secrets").
        // It may be loading (SecretCache::load) while the engine starts: until it has answered, the
        // subscriptions that need a secret wait (Engine::setSecretsPending) and publishes to a
        // topic whose key is declared get 503; everything else runs at once. Reload it after
        // applyWorkspace(). Null: headlessSecrets says where they come from.
        std::shared_ptr<SecretCache> secrets;
        // Without secrets: load them before the engine starts from the environment and this store
        // (HeadlessSecrets, eventdeskd --secret-store); nullopt: no secrets at all.
        std::optional<HeadlessSecrets::Store> headlessSecrets;
        QString secretsFile; // HeadlessSecrets::Store::File: the file (empty: the default one)
    };
    static constexpr int NextPortsTried = 10;
    struct StartResult
    {
        // What failed: the workspace is another engine's (owner names it), the endpoint's port
        // could not be had, or anything else (error says what).
        enum class Failure { None, WorkspaceInUse, ListenPort, Other };
        Failure failure = Failure::None;
        QString error;
        QString listenUrl;
        // BusyPort::NextFree took another port than settings.listen.port: why ("cannot listen on
        // 127.0.0.1:5170: The bound address is already in use"). Empty otherwise.
        QString busyPort;
        Workspace workspace;
        // The workspace is owned by another engine (error says so): that engine.
        std::optional<WorkspaceOwner> owner;
    };

    EngineWorker();
    ~EngineWorker() override;

    // Takes the workspace's lock first (WorkspaceLock), then opens the store and starts the engine.
    // On any error, nothing stays open and the lock is given back.
    StartResult start(const Settings &settings);
    // Stops the engine, commits and closes the store, then releases the workspace.
    void shutdown();
    // Reads workspace.json again and runs what it says from now on (eventdeskd's SIGHUP): its
    // topics, subscriptions, receivers and settings, their secrets loaded first (secrets given
    // by Settings::headlessSecrets only). On a shared store the topics stay the store's. A file
    // that cannot be read or is not valid is an error and changes nothing. Says what runs now.
    Expected<QString> reloadWorkspace();

    // The workspace folder, once started.
    const QString &directory() const { return m_directory; }
    // Creates the workspace folder with the demo content when it has none yet (for the URL its
    // demo subscription names, settings.listen.port 0 becomes a free port first), and reads its
    // workspace.json. start() does the same; the app calls it first to load the secrets the
    // workspace needs while the engine starts.
    static Expected<Workspace> openWorkspaceFolder(Settings &settings);
    Engine &engine() { return *m_engine; }
    DeliveryStore &store() { return *m_store; }
    // Reads a dead letter's blob from its destination (the local container or Azure Storage).
    void readDeadLetterBlob(const DeadLetterDestination &destination, const QString &blobPath,
                            std::function<void(const Expected<QByteArray> &)> done);
    QList<ReceivedRequest> receiverRecords(const QString &receiver, quint64 afterSequence) const;

Q_SIGNALS:
    // A few times per second: the engine's snapshot and the attempts logged since the last one.
    void snapshotReady(const EventDesk::EngineSnapshot &snapshot);
    void attemptsLogged(const QList<EventDesk::AttemptLogEntry> &entries);
    // Requests the test receivers recorded (batched, at most ten times a second).
    void receiverRequestsRecorded(const QList<EventDesk::ReceivedRequest> &records);
    void storeError(const QString &message);

private:
    StartResult open(Settings settings);
    // Secrets of the configuration that replaced the workspace's (a shared store's), loaded in
    // the background; the subscriptions that need one wait (Engine::setSecretsPending).
    void reloadSecrets(const Workspace &workspace, std::function<void()> done = {});
    void followSharedConfiguration(qint64 appliedRevision, const QString &storeLocation);
    void emitSnapshot();
    void recordReceived(const ReceivedRequest &record);

    std::unique_ptr<WorkspaceLock> m_lock; // held from start() to the end of shutdown()
    std::unique_ptr<DeliveryStore> m_store;
    std::unique_ptr<HeadlessSecrets> m_headlessSecrets;
    std::shared_ptr<SecretCache> m_secrets;
    std::unique_ptr<Clock> m_clock;
    std::unique_ptr<QNetworkAccessManager> m_network;
    std::unique_ptr<FolderDeadLetterSink> m_folderSink;
    std::unique_ptr<AzureBlobDeadLetterSink> m_azureBlobSink;
    std::unique_ptr<DeadLetterRouter> m_sink;
    std::unique_ptr<ProvisioningFile> m_provisioning; // outlives the engine that writes to it
    std::unique_ptr<Engine> m_engine;
    std::unique_ptr<TopicEndpoint> m_endpoint;
    std::unique_ptr<SharedConfigurationWatcher> m_configurationWatcher;
    std::unique_ptr<QTimer> m_snapshotTimer;
    Workspace m_workspace; // the configuration the engine runs
    QList<AttemptLogEntry> m_attempts;
    QList<ReceivedRequest> m_receivedRequests;
    qsizetype m_receivedBytes = 0;
    bool m_receivedFlushQueued = false;
    QString m_directory;
};

} // namespace EventDesk
