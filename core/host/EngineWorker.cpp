// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "EngineWorker.h"

#include "../Logging.h"
#include "../deadletters/AzureBlobDeadLetterSink.h"
#include "../deadletters/DeadLetterRouter.h"
#include "../deadletters/FolderDeadLetterSink.h"
#include "../endpoint/TopicEndpoint.h"
#include "../engine/Clock.h"
#include "../engine/Engine.h"
#include "../secrets/SecretCache.h"
#include "../store/StoreLocation.h"
#include "../workspace/ProvisioningFile.h"
#include "../workspace/SharedWorkspace.h"
#include "../workspace/WorkspaceFolder.h"
#include "SharedConfigurationWatcher.h"
#include "StoreOpener.h"

#include <QDir>
#include <QFile>
#include <QHostAddress>
#include <QNetworkAccessManager>
#include <QPointer>
#include <QTimer>

using namespace Qt::StringLiterals;

namespace EventDesk {

EngineWorker::EngineWorker() = default;

EngineWorker::~EngineWorker()
{
    shutdown();
}

EngineWorker::StartResult EngineWorker::start(const Settings &settings)
{
    StartResult result = open(settings);
    if (!result.error.isEmpty())
        shutdown();
    return result;
}

Expected<Workspace> EngineWorker::openWorkspaceFolder(Settings &settings)
{
    settings.workspaceDirectory = QDir(settings.workspaceDirectory).absolutePath();
    if (settings.listen.port == 0)
        settings.listen.port = TopicEndpoint::findFreePort(settings.listen.address());
    return WorkspaceFolder::openOrCreate(settings.workspaceDirectory, settings.listen.url());
}

EngineWorker::StartResult EngineWorker::open(Settings settings)
{
    StartResult result;
    const auto fail = [&result](StartResult::Failure failure, const QString &error) {
        result.failure = failure;
        result.error = error;
        return result;
    };
    const QString directory = QDir(settings.workspaceDirectory).absolutePath();
    // One owner per workspace: before the store hands the engine its unfinished deliveries.
    m_lock = std::make_unique<WorkspaceLock>(directory);
    if (auto taken = m_lock->acquire(); !taken) {
        result.owner = m_lock->owner();
        return fail(result.owner ? StartResult::Failure::WorkspaceInUse
                                 : StartResult::Failure::Other,
                    taken.error());
    }
    auto workspace = openWorkspaceFolder(settings);
    if (!workspace)
        return fail(StartResult::Failure::Other, workspace.error());
    m_workspace = std::move(workspace).value();
    const ListenAddress &listen = settings.listen;
    auto store = openDeliveryStore(settings.storeLocation, WorkspaceFolder::storeFile(directory));
    if (!store)
        return fail(StartResult::Failure::Other, store.error());
    m_store = std::move(store).value();

    m_secrets = settings.secrets;
    if (!m_secrets && settings.headlessSecrets) {
        auto secrets = HeadlessSecrets::open(directory, m_workspace, *settings.headlessSecrets,
                                             settings.secretsFile);
        if (!secrets)
            return fail(StartResult::Failure::Other, secrets.error());
        m_headlessSecrets = std::move(secrets).value();
        m_secrets = m_headlessSecrets->cache();
    }
    // A shared store: its topics and subscriptions, not workspace.json's (docs/shared-store.md
    // "Several instances on one store"); their secrets are loaded as those of the file were.
    SharedConfiguration *sharedConfiguration = m_store->sharedConfiguration();
    qint64 configurationRevision = 0;
    if (sharedConfiguration) {
        auto adopted = SharedWorkspace::adopt(*sharedConfiguration, m_workspace);
        if (!adopted)
            return fail(StartResult::Failure::Other,
                        u"cannot read the shared configuration: %1"_s.arg(adopted.error()));
        configurationRevision = adopted->revision;
        if (!adopted->imported) {
            if (auto prepared
                = WorkspaceFolder::prepareDeadLetterContainers(directory, m_workspace);
                !prepared)
                return fail(StartResult::Failure::Other, prepared.error());
            reloadSecrets(m_workspace);
        }
    }

    // Readers of the store (the app's views, a monitor) tell from it how the rows' engine times
    // relate to the wall clock. A store that cannot take it now fails its next write as well.
    if (auto recorded = m_store->recordTimeScale(settings.timeScale); !recorded)
        qCWarning(lcStore) << "the time scale was not recorded:" << recorded.error();
    m_clock = settings.timeScale == 1.0 ? std::unique_ptr<Clock>(std::make_unique<SystemClock>())
                                        : std::make_unique<ScaledClock>(settings.timeScale);
    EngineOptions options;
    options.jitter = settings.jitter;
    options.jitterSeed = settings.jitterSeed;
    // --time-scale: the D6 response timeout scales with engine time, but never below 5 s of real
    // time, so a healthy local receiver does not look TimedOut at high scales; the late-success
    // window keeps its 6x ratio to the timeout.
    options.responseTimeoutMs = std::max<qint64>(30'000, qint64(5'000 * settings.timeScale));
    options.abortAfterMs = 6 * options.responseTimeoutMs;
    options.instanceLeaseMs = settings.instanceLeaseMs;
    m_network = std::make_unique<QNetworkAccessManager>();
    // SPEC L5: the local container folder or an Azure Blob Storage container, per subscription.
    m_folderSink
        = std::make_unique<FolderDeadLetterSink>(WorkspaceFolder::deadLetterRoot(directory));
    const std::shared_ptr<SecretCache> secrets = m_secrets;
    m_azureBlobSink = std::make_unique<AzureBlobDeadLetterSink>(
        m_network.get(), [secrets](const QString &account) -> Expected<QString> {
            if (!secrets)
                return Error(
                    u"no secret store: the key of storage account '%1' is unknown"_s.arg(account));
            return secrets->storageAccountKey(account);
        });
    m_sink = std::make_unique<DeadLetterRouter>(m_folderSink.get(), m_azureBlobSink.get());
    m_engine = std::make_unique<Engine>(m_clock.get(), m_network.get(), m_store.get(), m_sink.get(),
                                        options);
    m_engine->setDeliveryLanes(Engine::recommendedDeliveryLanes());
    // Endpoint validation state, so a validated webhook is not validated again at each start.
    m_provisioning = std::make_unique<ProvisioningFile>(ProvisioningFile::defaultPath(directory));
    m_engine->setProvisioningStore(m_provisioning.get());
    if (secrets) {
        m_engine->setSecretResolver(
            [secrets](const QString &topic, const QString &subscription, const QString &header) {
                return secrets->deliveryHeaderValue(topic, subscription, header);
            });
        m_engine->setCredentialResolver(
            [secrets](const QString &secretKey) { return secrets->value(secretKey); });
        // The keychain may take its time (a locked keyring, its password prompt): only what
        // needs a secret waits for it. Connected before start() asks, so no answer is missed.
        m_engine->setSecretsPending(
            [secrets](const QString &topic, const EventSubscription &subscription) {
                return secrets->isAwaited(topic, subscription);
            });
        const auto answered = [this] {
            if (m_engine)
                m_engine->secretsAnswered();
        };
        connect(secrets.get(), &SecretCache::loaded, this, answered);
        connect(secrets.get(), &SecretCache::valuesChanged, this, answered);
    }
    // Listening comes before the engine starts: a port that cannot be had fails the start before
    // anything is delivered.
    m_endpoint = std::make_unique<TopicEndpoint>(m_engine.get(), [secrets](const QString &topic) {
        return secrets ? secrets->topicAccessKey(topic) : QString();
    });
    m_endpoint->setConnectionLimits(settings.connectionLimits);
    m_endpoint->setKeyWait([secrets](const QString &topic) {
        if (!secrets || !secrets->isTopicKeyPending(topic))
            return QString();
        return u"The access key of topic '%1' has not come from the system keychain yet "
               u"(unlock the keyring or answer its prompt). Try again shortly."_s.arg(topic);
    });
    const QHostAddress address = listen.address();
    auto port = m_endpoint->listen(address, listen.port);
    if (!port && settings.busyPort == Settings::BusyPort::NextFree) {
        const QString refused = port.error();
        QList<quint16> candidates;
        for (int next = listen.port + 1; next <= std::min(65535, listen.port + NextPortsTried);
             ++next)
            candidates.append(quint16(next));
        candidates.append(0); // any free port
        for (quint16 candidate : std::as_const(candidates)) {
            port = m_endpoint->listen(address, candidate);
            if (port)
                break;
        }
        if (port) {
            result.busyPort = refused;
            qCWarning(lcEndpoint).noquote()
                << refused << u"- listening on port"_s << port.value() << u"instead"_s;
        } else {
            port = Error(refused);
        }
    }
    if (!port)
        return fail(StartResult::Failure::ListenPort, port.error());
    const quint16 receiverPort = settings.receiverPort ? settings.receiverPort : listen.port;
    if (port.value() != receiverPort)
        m_engine->setReceiverAlias(
            ReceiverAlias {QUrl(listen.url(receiverPort)), QUrl(listen.url(port.value()))});
    if (auto started = m_engine->start(m_workspace); !started)
        return fail(StartResult::Failure::Other,
                    u"cannot start the engine: %1"_s.arg(started.error()));
    m_directory = directory;
    result.listenUrl = listen.url(port.value());
    result.workspace = m_workspace;

    if (!listen.isLoopback())
        qCWarning(lcEndpoint) << "listening on a non-loopback address: the topic endpoint is "
                                 "reachable from other machines";
    qCInfo(lcEndpoint) << "workspace" << directory << "time scale" << settings.timeScale;
    if (const qint64 instance = m_engine->instanceId(); instance > 0)
        qCInfo(lcEndpoint) << "instance" << instance << "of the shared store, lease"
                           << options.instanceLeaseMs << "ms";
    qCInfo(lcEndpoint).noquote() << "requests must name this endpoint in Host:"
                                 << m_endpoint->acceptedHosts();
    const HttpConnectionLimits &limits = settings.connectionLimits;
    qCInfo(lcEndpoint) << "at most" << limits.maxConnections << "connections; timeouts (ms): header"
                       << limits.headerTimeoutMs << "body" << limits.bodyTimeoutMs << "idle"
                       << limits.idleTimeoutMs;

    connect(m_engine.get(), &Engine::storeError, this, &EngineWorker::storeError);
    if (sharedConfiguration)
        followSharedConfiguration(configurationRevision, settings.storeLocation);
    if (settings.snapshotIntervalMs > 0) {
        connect(m_engine.get(), &Engine::attemptLogged, this,
                [this](const AttemptLogEntry &entry) { m_attempts.append(entry); });
        m_snapshotTimer = std::make_unique<QTimer>();
        m_snapshotTimer->setInterval(settings.snapshotIntervalMs);
        connect(m_snapshotTimer.get(), &QTimer::timeout, this, &EngineWorker::emitSnapshot);
        m_snapshotTimer->start();
        connect(&m_endpoint->receivers(), &TestReceiverService::requestRecorded, this,
                [this](const QString &, const ReceivedRequest &record) { recordReceived(record); });
    }
    return result;
}

void EngineWorker::reloadSecrets(const Workspace &workspace, std::function<void()> done)
{
    if (m_headlessSecrets) {
        // eventdeskd: before anything of the new configuration is delivered.
        m_headlessSecrets->reload(workspace);
        if (done)
            done();
        return;
    }
    if (!m_secrets) {
        if (done)
            done();
        return;
    }
    // The app's cache lives on the GUI thread; what needs a secret waits until it has answered.
    QPointer<EngineWorker> self(this);
    QMetaObject::invokeMethod(m_secrets.get(), [secrets = m_secrets, workspace, self, done] {
        secrets->load(workspace, [self, done](const QList<SecretProblem> &) {
            if (done)
                QMetaObject::invokeMethod(self, [self, done] {
                    if (self)
                        done();
                });
        });
    });
}

void EngineWorker::followSharedConfiguration(qint64 appliedRevision, const QString &storeLocation)
{
    m_configurationWatcher = std::make_unique<SharedConfigurationWatcher>(
        m_store->sharedConfiguration(), appliedRevision, redactedStoreLocation(storeLocation),
        [this](const SharedConfigurationSnapshot &snapshot,
               std::function<void(const Expected<void> &)> done) {
            const Workspace next = SharedWorkspace::withTopics(m_workspace, snapshot.topics);
            if (auto prepared = WorkspaceFolder::prepareDeadLetterContainers(m_directory, next);
                !prepared) {
                done(Error(prepared.error()));
                return;
            }
            // As at start: the new subscriptions' secrets are in the cache before they deliver.
            reloadSecrets(next, [this, next, done] {
                auto applied = m_engine->applyWorkspace(next);
                if (applied)
                    m_workspace = next;
                done(applied);
            });
        });
    m_configurationWatcher->start();
}

Expected<QString> EngineWorker::reloadWorkspace()
{
    if (!m_engine)
        return Error(u"the workspace is not open"_s);
    auto read = WorkspaceFolder::read(m_directory);
    if (!read)
        return Error(read.error());
    Workspace next = std::move(read).value();
    const bool shared = m_store->sharedConfiguration() != nullptr;
    if (shared)
        next = SharedWorkspace::withTopics(next, m_workspace.topics);
    if (auto prepared = WorkspaceFolder::prepareDeadLetterContainers(m_directory, next); !prepared)
        return Error(prepared.error());
    // As at start: the secrets of the new subscriptions are there before they deliver.
    if (m_headlessSecrets)
        m_headlessSecrets->reopen(m_directory, next);
    if (auto applied = m_engine->applyWorkspace(next); !applied)
        return Error(applied.error());
    m_workspace = next;
    qsizetype subscriptions = 0;
    for (const Topic &topic : std::as_const(m_workspace.topics))
        subscriptions += topic.eventSubscriptions.size();
    return u"%1 topic(s)%2, %3 event subscription(s), %4 test receiver(s)"_s
        .arg(m_workspace.topics.size())
        .arg(shared ? u" (the shared store's)"_s : QString())
        .arg(subscriptions)
        .arg(m_workspace.receivers.size());
}

void EngineWorker::emitSnapshot()
{
    if (!m_engine)
        return;
    EngineSnapshot snapshot = m_engine->snapshot();
    if (m_endpoint)
        snapshot.endpoint = m_endpoint->snapshot();
    Q_EMIT snapshotReady(snapshot);
    if (!m_attempts.isEmpty())
        Q_EMIT attemptsLogged(std::exchange(m_attempts, {}));
}

void EngineWorker::recordReceived(const ReceivedRequest &record)
{
    // Test receivers' requests reach the GUI in batches, at most ten times a second.
    // Held to the receivers' budget too: the batch may wait a tenth of a second.
    m_receivedRequests.append(record);
    m_receivedBytes = TestReceiverService::trim(
        m_receivedRequests, m_receivedBytes + record.sizeInBytes(),
        TestReceiverService::DefaultRecordCapacity, TestReceiverService::DefaultRecordBytes,
        [](const ReceivedRequest &kept) { return kept.sizeInBytes(); });
    if (m_receivedFlushQueued)
        return;
    m_receivedFlushQueued = true;
    QTimer::singleShot(100, this, [this] {
        m_receivedFlushQueued = false;
        m_receivedBytes = 0;
        Q_EMIT receiverRequestsRecorded(std::exchange(m_receivedRequests, {}));
    });
}

void EngineWorker::shutdown()
{
    if (m_configurationWatcher)
        m_configurationWatcher->stop();
    m_configurationWatcher.reset();
    if (m_snapshotTimer)
        m_snapshotTimer->stop();
    m_snapshotTimer.reset();
    m_endpoint.reset();
    if (m_engine)
        m_engine->shutdown();
    m_engine.reset();
    m_provisioning.reset();
    m_sink.reset();
    m_azureBlobSink.reset();
    m_folderSink.reset();
    m_network.reset();
    m_clock.reset();
    m_store.reset(); // closes it
    m_secrets.reset();
    m_headlessSecrets.reset();
    m_lock.reset();
}

void EngineWorker::readDeadLetterBlob(const DeadLetterDestination &destination,
                                      const QString &blobPath,
                                      std::function<void(const Expected<QByteArray> &)> done)
{
    if (destination.kind == DeadLetterDestination::Kind::AzureBlob) {
        m_azureBlobSink->readBlob(destination, blobPath, std::move(done));
        return;
    }
    const QString path
        = DeadLetterRouter::blobLocation(destination, blobPath, m_folderSink->rootDirectory())
              .toLocalFile();
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        done(Error(u"cannot read the dead-letter blob %1: %2"_s.arg(path, file.errorString())));
        return;
    }
    done(file.readAll());
}

QList<ReceivedRequest> EngineWorker::receiverRecords(const QString &receiver,
                                                     quint64 afterSequence) const
{
    return m_endpoint ? m_endpoint->receivers().recordsSince(receiver, afterSequence)
                      : QList<ReceivedRequest>();
}

} // namespace EventDesk
