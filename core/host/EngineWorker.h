// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../Expected.h"
#include "../engine/EngineSnapshot.h"
#include "../io/TestReceiverService.h"
#include "../io/WorkspaceLock.h"
#include "../model/Workspace.h"
#include "../store/DeliveryStore.h"

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
class DeliveryStore;
class TopicEndpoint;

// Everything of an open workspace that lives on the engine thread: store, clock, access manager,
// dead-letter sinks, engine and topic endpoint. Created on that thread (EngineHost), so its
// timers and sockets belong to that thread's event loop. It reports through its signals only;
// EngineHost carries them to the GUI thread.
class EngineWorker final : public QObject
{
    Q_OBJECT

public:
    struct Settings
    {
        QString workspaceDirectory;
        QString listenHost = QStringLiteral("127.0.0.1");
        quint16 listenPort = 5170; // 0: any free port
        // When listenPort cannot be bound (another EventDesk or an emulator has it): Fail ends
        // start() with the error (eventdeskd's way); NextFree opens the workspace anyway on the
        // first free port of the NextPortsTried above it, else on any free port, and sends
        // webhooks addressed to the workspace's own receivers at the usual port there
        // (ReceiverAlias). StartResult::busyPort says so.
        enum class BusyPort { Fail, NextFree };
        BusyPort busyPort = BusyPort::Fail;
        // The port the workspace's webhooks name its own test receivers by (0: listenPort). When
        // the endpoint listens on another one, they are sent there (ReceiverAlias).
        quint16 receiverPort = 0;
        // Where the engine keeps its deliveries (DeliveryStores.h): empty for the workspace's own
        // SQLite store, or a postgresql:// URL.
        QString storeLocation;
        double timeScale = 1.0;
        bool jitter = true;
        int snapshotIntervalMs = 250;
        // EngineHost::monitor(): how often the read-only monitor reads the owner's store.
        int monitorIntervalMs = 1000;
        // Secret header values, topic keys and storage account keys (docs/eventdeskd.md "Secrets").
        // It may be loading (SecretCache::load) while the engine starts: until it has answered, the
        // subscriptions that need a secret wait (Engine::setSecretsPending) and publishes to a
        // topic whose key is declared get 503; everything else runs at once. Reload it after
        // applyWorkspace(). Null: no secrets.
        std::shared_ptr<SecretCache> secrets;
    };
    static constexpr int NextPortsTried = 10;
    struct StartResult
    {
        QString error;
        QString listenUrl;
        // BusyPort::NextFree took another port than settings.listenPort: why ("cannot listen on
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

    // The workspace folder, once started.
    const QString &directory() const { return m_directory; }
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
    StartResult open(const Settings &settings);
    void emitSnapshot();
    void recordReceived(const ReceivedRequest &record);

    std::unique_ptr<WorkspaceLock> m_lock; // held from start() to the end of shutdown()
    std::unique_ptr<DeliveryStore> m_store;
    std::unique_ptr<Clock> m_clock;
    std::unique_ptr<QNetworkAccessManager> m_network;
    std::unique_ptr<FolderDeadLetterSink> m_folderSink;
    std::unique_ptr<AzureBlobDeadLetterSink> m_azureBlobSink;
    std::unique_ptr<DeadLetterRouter> m_sink;
    std::unique_ptr<ProvisioningFile> m_provisioning; // outlives the engine that writes to it
    std::unique_ptr<Engine> m_engine;
    std::unique_ptr<TopicEndpoint> m_endpoint;
    std::unique_ptr<QTimer> m_snapshotTimer;
    QList<AttemptLogEntry> m_attempts;
    QList<ReceivedRequest> m_receivedRequests;
    qsizetype m_receivedBytes = 0;
    bool m_receivedFlushQueued = false;
    QString m_directory;
};

} // namespace EventDesk
