// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "EngineWorker.h"

#include "../Logging.h"
#include "../engine/Clock.h"
#include "../engine/Engine.h"
#include "../io/AzureBlobDeadLetterSink.h"
#include "../io/DeadLetterSink.h"
#include "../io/ProvisioningFile.h"
#include "../io/SecretCache.h"
#include "../io/TopicEndpoint.h"
#include "../io/WorkspaceFolder.h"
#include "../store/DeliveryStores.h"

#include <QDir>
#include <QFile>
#include <QHostAddress>
#include <QNetworkAccessManager>
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

EngineWorker::StartResult EngineWorker::open(const Settings &settings)
{
    StartResult result;
    const QString directory = QDir(settings.workspaceDirectory).absolutePath();
    // One owner per workspace: before the store hands the engine its unfinished deliveries.
    m_lock = std::make_unique<WorkspaceLock>(directory);
    if (auto taken = m_lock->acquire(); !taken) {
        result.error = taken.error();
        result.owner = m_lock->owner();
        return result;
    }
    const QString &listenHost = settings.listenHost;
    const QString urlHost = listenHost.contains(u':') ? u'[' + listenHost + u']' : listenHost;
    QHostAddress address;
    if (listenHost.compare(u"localhost"_s, Qt::CaseInsensitive) == 0)
        address = QHostAddress::LocalHost;
    else
        address.setAddress(listenHost);
    quint16 listenPort = settings.listenPort;
    if (listenPort == 0)
        listenPort = TopicEndpoint::findFreePort(address);
    auto workspace
        = WorkspaceFolder::openOrCreate(directory, u"http://%1:%2"_s.arg(urlHost).arg(listenPort));
    if (!workspace) {
        result.error = workspace.error();
        return result;
    }
    auto store = openDeliveryStore(settings.storeLocation, WorkspaceFolder::storeFile(directory));
    if (!store) {
        result.error = store.error();
        return result;
    }
    m_store = std::move(store).value();
    if (settings.timeScale == 1.0)
        m_clock = std::make_unique<SystemClock>();
    else
        m_clock = std::make_unique<ScaledClock>(settings.timeScale);
    EngineOptions options;
    options.jitter = settings.jitter;
    // Same rule as eventdeskd: D6 scales with engine time but never below 5 s of real time.
    options.responseTimeoutMs = std::max<qint64>(30'000, qint64(5'000 * settings.timeScale));
    options.abortAfterMs = 6 * options.responseTimeoutMs;
    m_network = std::make_unique<QNetworkAccessManager>();
    m_folderSink
        = std::make_unique<FolderDeadLetterSink>(WorkspaceFolder::deadLetterRoot(directory));
    const std::shared_ptr<SecretCache> secrets = settings.secrets;
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
    m_endpoint->setKeyWait([secrets](const QString &topic) {
        if (!secrets || !secrets->isTopicKeyPending(topic))
            return QString();
        return u"The access key of topic '%1' has not come from the system keychain yet "
               u"(unlock the keyring or answer its prompt). Try again shortly."_s.arg(topic);
    });
    auto port = m_endpoint->listen(address, listenPort);
    if (!port && settings.busyPort == Settings::BusyPort::NextFree) {
        const QString refused = port.error();
        QList<quint16> candidates;
        for (int next = listenPort + 1; next <= std::min(65535, listenPort + NextPortsTried);
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
    if (!port) {
        result.error = port.error();
        return result;
    }
    const quint16 receiverPort = settings.receiverPort ? settings.receiverPort : listenPort;
    if (port.value() != receiverPort) {
        m_engine->setReceiverAlias(
            ReceiverAlias {QUrl(u"http://%1:%2"_s.arg(urlHost).arg(receiverPort)),
                           QUrl(u"http://%1:%2"_s.arg(urlHost).arg(port.value()))});
    }
    if (auto started = m_engine->start(workspace.value()); !started) {
        result.error = started.error();
        return result;
    }
    m_directory = directory;
    result.listenUrl = u"http://%1:%2"_s.arg(urlHost).arg(port.value());
    result.workspace = workspace.value();

    connect(m_engine.get(), &Engine::attemptLogged, this,
            [this](const AttemptLogEntry &entry) { m_attempts.append(entry); });
    connect(m_engine.get(), &Engine::storeError, this, &EngineWorker::storeError);
    m_snapshotTimer = std::make_unique<QTimer>();
    m_snapshotTimer->setInterval(settings.snapshotIntervalMs);
    connect(m_snapshotTimer.get(), &QTimer::timeout, this, &EngineWorker::emitSnapshot);
    m_snapshotTimer->start();
    connect(&m_endpoint->receivers(), &TestReceiverService::requestRecorded, this,
            [this](const QString &, const ReceivedRequest &record) { recordReceived(record); });
    return result;
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
