#include "EngineHost.h"

#include "../Logging.h"
#include "../io/AzureBlobDeadLetterSink.h"
#include "../io/DeadLetterSink.h"
#include "../io/ProvisioningFile.h"
#include "../io/SecretCache.h"
#include "../io/TopicEndpoint.h"
#include "../io/WorkspaceFolder.h"
#include "../store/SqliteDeliveryStore.h"
#include "Clock.h"

#include <QDir>
#include <QFile>
#include <QHostAddress>
#include <QNetworkAccessManager>
#include <QPointer>
#include <QTimer>

#include <memory>
#include <vector>

using namespace Qt::StringLiterals;

namespace EventDesk {

// Everything that lives on the engine thread. Created there, so its timers and sockets belong to
// that thread's event loop.
class EngineWorker final : public QObject
{
public:
    struct StartResult
    {
        QString error;
        QString listenUrl;
        Workspace workspace;
    };

    StartResult start(const EngineHost::Config &config, EngineHost *host)
    {
        StartResult result;
        const QString directory = QDir(config.workspaceDirectory).absolutePath();
        const QString host_ = config.listenHost;
        const QString urlHost = host_.contains(u':') ? u'[' + host_ + u']' : host_;
        QHostAddress address;
        if (config.listenHost.compare(u"localhost"_s, Qt::CaseInsensitive) == 0)
            address = QHostAddress::LocalHost;
        else
            address.setAddress(config.listenHost);
        quint16 listenPort = config.listenPort;
        if (listenPort == 0)
            listenPort = TopicEndpoint::findFreePort(address);
        auto workspace = WorkspaceFolder::openOrCreate(directory, u"http://%1:%2"_s.arg(urlHost).arg(listenPort));
        if (!workspace) {
            result.error = workspace.error();
            return result;
        }
        store = std::make_unique<SqliteDeliveryStore>();
        if (auto opened = store->open(WorkspaceFolder::storeFile(directory)); !opened) {
            result.error = opened.error();
            store.reset();
            return result;
        }
        if (config.timeScale == 1.0)
            clock = std::make_unique<SystemClock>();
        else
            clock = std::make_unique<ScaledClock>(config.timeScale);
        EngineOptions options;
        options.jitter = config.jitter;
        // Same rule as eventdeskd: D6 scales with engine time but never below 5 s of real time.
        options.responseTimeoutMs = std::max<qint64>(30'000, qint64(5'000 * config.timeScale));
        options.abortAfterMs = 6 * options.responseTimeoutMs;
        network = std::make_unique<QNetworkAccessManager>();
        folderSink = std::make_unique<FolderDeadLetterSink>(WorkspaceFolder::deadLetterRoot(directory));
        const std::shared_ptr<SecretCache> secrets = config.secrets;
        azureBlobSink = std::make_unique<AzureBlobDeadLetterSink>(
            network.get(), [secrets](const QString &account) -> Expected<QString> {
                if (!secrets)
                    return Error(u"no secret store: the key of storage account '%1' is unknown"_s.arg(account));
                return secrets->storageAccountKey(account);
            });
        sink = std::make_unique<DeadLetterRouter>(folderSink.get(), azureBlobSink.get());
        engine = std::make_unique<Engine>(clock.get(), network.get(), store.get(), sink.get(), options);
        engine->setDeliveryLanes(Engine::recommendedDeliveryLanes());
        provisioning = std::make_unique<ProvisioningFile>(ProvisioningFile::defaultPath(directory));
        engine->setProvisioningStore(provisioning.get());
        if (secrets) {
            engine->setSecretResolver([secrets](const QString &topic, const QString &subscription,
                                                const QString &header) {
                return secrets->deliveryHeaderValue(topic, subscription, header);
            });
        }
        if (auto started = engine->start(workspace.value()); !started) {
            result.error = started.error();
            shutdown();
            return result;
        }
        endpoint = std::make_unique<TopicEndpoint>(engine.get(), [secrets](const QString &topic) {
            return secrets ? secrets->topicAccessKey(topic) : QString();
        });
        auto port = endpoint->listen(address, listenPort);
        if (!port) {
            result.error = port.error();
            shutdown();
            return result;
        }
        directoryPath = directory;
        result.listenUrl = u"http://%1:%2"_s.arg(urlHost).arg(port.value());
        result.workspace = workspace.value();

        QPointer<EngineHost> target(host);
        QObject::connect(engine.get(), &Engine::attemptLogged, this,
                         [this](const AttemptLogEntry &entry) { attempts.append(entry); });
        QObject::connect(engine.get(), &Engine::storeError, this, [target](const QString &message) {
            QMetaObject::invokeMethod(target, [target, message] {
                if (target)
                    Q_EMIT target->storeError(message);
            }, Qt::QueuedConnection);
        });
        snapshotTimer = std::make_unique<QTimer>();
        snapshotTimer->setInterval(config.snapshotIntervalMs);
        QObject::connect(snapshotTimer.get(), &QTimer::timeout, this, [this, target] {
            if (!engine || !target)
                return;
            const EngineSnapshot snapshot = engine->snapshot();
            QList<AttemptLogEntry> batch;
            batch.swap(attempts);
            QMetaObject::invokeMethod(target, [target, snapshot, batch] {
                if (!target)
                    return;
                Q_EMIT target->snapshotReady(snapshot);
                if (!batch.isEmpty())
                    Q_EMIT target->attemptsLogged(batch);
            }, Qt::QueuedConnection);
        });
        snapshotTimer->start();
        // Test receivers' requests reach the GUI in batches, at most ten times a second.
        QObject::connect(&endpoint->receivers(), &TestReceiverService::requestRecorded, this,
                         [this, target](const QString &, const ReceivedRequest &record) {
                             receivedRequests.append(record);
                             if (receivedRequests.size() > TestReceiverService::DefaultRecordCapacity)
                                 receivedRequests.removeFirst();
                             if (receivedFlushQueued)
                                 return;
                             receivedFlushQueued = true;
                             QTimer::singleShot(100, this, [this, target] {
                                 receivedFlushQueued = false;
                                 QList<ReceivedRequest> batch;
                                 batch.swap(receivedRequests);
                                 QMetaObject::invokeMethod(target, [target, batch] {
                                     if (target)
                                         Q_EMIT target->receiverRequestsRecorded(batch);
                                 }, Qt::QueuedConnection);
                             });
                         });
        return result;
    }

    void shutdown()
    {
        if (snapshotTimer)
            snapshotTimer->stop();
        snapshotTimer.reset();
        endpoint.reset();
        if (engine)
            engine->shutdown();
        engine.reset();
        provisioning.reset();
        sink.reset();
        azureBlobSink.reset();
        folderSink.reset();
        network.reset();
        clock.reset();
        if (store)
            store->close();
        store.reset();
    }

    std::unique_ptr<SqliteDeliveryStore> store;
    std::unique_ptr<Clock> clock;
    std::unique_ptr<QNetworkAccessManager> network;
    std::unique_ptr<FolderDeadLetterSink> folderSink;
    std::unique_ptr<AzureBlobDeadLetterSink> azureBlobSink;
    std::unique_ptr<DeadLetterRouter> sink;
    std::unique_ptr<ProvisioningFile> provisioning; // outlives the engine that writes to it
    std::unique_ptr<Engine> engine;
    std::unique_ptr<TopicEndpoint> endpoint;
    QList<ReceivedRequest> receivedRequests;
    bool receivedFlushQueued = false;
    std::unique_ptr<QTimer> snapshotTimer;
    QList<AttemptLogEntry> attempts;
    QString directoryPath;
};

EngineHost::EngineHost(QObject *parent)
    : QObject(parent)
{
    qRegisterMetaType<EngineSnapshot>();
    qRegisterMetaType<AttemptLogEntry>();
    m_thread.setObjectName(u"EventDesk engine"_s);
}

EngineHost::~EngineHost()
{
    stop();
}

QString EngineHost::storePath() const
{
    return WorkspaceFolder::storeFile(QDir(m_config.workspaceDirectory).absolutePath());
}

void EngineHost::start(const Config &config)
{
    stop();
    m_config = config;
    m_thread.start();
    m_worker = new EngineWorker;
    m_worker->moveToThread(&m_thread);
    QPointer<EngineHost> self(this);
    EngineWorker *worker = m_worker;
    QMetaObject::invokeMethod(worker, [worker, config, self] {
        auto result = std::make_shared<EngineWorker::StartResult>(worker->start(config, self.data()));
        QMetaObject::invokeMethod(self, [self, result] {
            if (!self)
                return;
            self->m_running = result->error.isEmpty();
            self->m_listenUrl = result->listenUrl;
            if (self->m_running)
                self->m_workspace = result->workspace;
            Q_EMIT self->started(self->m_running, result->error, result->listenUrl);
        }, Qt::QueuedConnection);
    }, Qt::QueuedConnection);
}

void EngineHost::stop()
{
    if (!m_worker)
        return;
    EngineWorker *worker = m_worker;
    m_worker = nullptr;
    QMetaObject::invokeMethod(worker, [worker] {
        worker->shutdown();
        delete worker;
    }, Qt::BlockingQueuedConnection);
    m_thread.quit();
    m_thread.wait();
    m_running = false;
}

void EngineHost::publish(const QString &topic, const QByteArray &body, const QByteArray &contentType,
                         std::function<void(const PublishResult &)> done)
{
    EngineWorker *worker = m_worker;
    QPointer<EngineHost> self(this);
    if (!worker || !m_running) {
        PublishResult result;
        result.httpStatus = 503;
        result.errorCode = u"ServiceUnavailable"_s;
        result.errorMessage = u"The engine is not running."_s;
        done(result);
        return;
    }
    QMetaObject::invokeMethod(worker, [worker, self, topic, body, contentType, done] {
        worker->engine->publishAsync(topic, body, contentType, [self, done](const PublishResult &result) {
            QMetaObject::invokeMethod(self, [done, result] { done(result); }, Qt::QueuedConnection);
        });
    }, Qt::QueuedConnection);
}

void EngineHost::applyWorkspace(const Workspace &workspace,
                                std::function<void(const Expected<void> &)> done)
{
    EngineWorker *worker = m_worker;
    QPointer<EngineHost> self(this);
    if (!worker || !m_running) {
        done(Error(u"The engine is not running."_s));
        return;
    }
    QMetaObject::invokeMethod(worker, [worker, self, workspace, done] {
        Expected<void> result;
        if (auto saved = WorkspaceFolder::save(worker->directoryPath, workspace); !saved)
            result = saved;
        else if (auto prepared = WorkspaceFolder::prepareDeadLetterContainers(worker->directoryPath, workspace); !prepared)
            result = prepared;
        else
            result = worker->engine->applyWorkspace(workspace);
        QMetaObject::invokeMethod(self, [self, done, result, workspace] {
            if (self && result.hasValue()) {
                self->m_workspace = workspace;
                Q_EMIT self->workspaceChanged();
            }
            done(result);
        }, Qt::QueuedConnection);
    }, Qt::QueuedConnection);
}

void EngineHost::resubmitDeadLetters(const QList<qint64> &ids,
                                     std::function<void(const ResubmitResult &)> done)
{
    EngineWorker *worker = m_worker;
    QPointer<EngineHost> self(this);
    if (!worker || !m_running) {
        done(ResubmitResult{0, {u"The engine is not running."_s}});
        return;
    }
    QMetaObject::invokeMethod(worker, [worker, self, ids, done] {
        const ResubmitResult result = worker->engine->resubmitDeadLetters(ids);
        QMetaObject::invokeMethod(self, [done, result] { done(result); }, Qt::QueuedConnection);
    }, Qt::QueuedConnection);
}

void EngineHost::resubmitDeadLetters(const DeadLetterQuery &query,
                                     std::function<void(const ResubmitResult &)> done)
{
    EngineWorker *worker = m_worker;
    QPointer<EngineHost> self(this);
    if (!worker || !m_running) {
        done(ResubmitResult{0, {u"The engine is not running."_s}});
        return;
    }
    QMetaObject::invokeMethod(worker, [worker, self, query, done] {
        const ResubmitResult result = worker->engine->resubmitDeadLetters(query);
        QMetaObject::invokeMethod(self, [done, result] { done(result); }, Qt::QueuedConnection);
    }, Qt::QueuedConnection);
}

void EngineHost::removeDeadLetters(const QList<qint64> &ids,
                                   std::function<void(const Expected<void> &)> done)
{
    EngineWorker *worker = m_worker;
    QPointer<EngineHost> self(this);
    if (!worker || !m_running) {
        done(Error(u"The engine is not running."_s));
        return;
    }
    QMetaObject::invokeMethod(worker, [worker, self, ids, done] {
        const Expected<void> result = worker->store->removeDeadLetters(ids);
        QMetaObject::invokeMethod(self, [done, result] { done(result); }, Qt::QueuedConnection);
    }, Qt::QueuedConnection);
}

void EngineHost::readDeadLetterBlob(const DeadLetterDestination &destination,
                                    const QString &blobPath,
                                    std::function<void(const Expected<QByteArray> &)> done)
{
    EngineWorker *worker = m_worker;
    QPointer<EngineHost> self(this);
    if (!worker || !m_running) {
        done(Error(u"The engine is not running."_s));
        return;
    }
    QMetaObject::invokeMethod(worker, [worker, self, destination, blobPath, done] {
        const auto reply = [self, done](const Expected<QByteArray> &body) {
            QMetaObject::invokeMethod(self, [done, body] { done(body); }, Qt::QueuedConnection);
        };
        if (destination.kind == DeadLetterDestination::Kind::AzureBlob) {
            worker->azureBlobSink->readBlob(destination, blobPath, reply);
            return;
        }
        const QString path = DeadLetterRouter::blobLocation(destination, blobPath,
                                                            worker->folderSink->rootDirectory())
                                 .toLocalFile();
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly)) {
            reply(Error(u"cannot read the dead-letter blob %1: %2"_s.arg(path, file.errorString())));
            return;
        }
        reply(file.readAll());
    }, Qt::QueuedConnection);
}

void EngineHost::receiverRecords(const QString &receiver, quint64 afterSequence,
                                 std::function<void(const QList<ReceivedRequest> &)> done)
{
    EngineWorker *worker = m_worker;
    QPointer<EngineHost> self(this);
    if (!worker || !m_running) {
        done({});
        return;
    }
    QMetaObject::invokeMethod(worker, [worker, self, receiver, afterSequence, done] {
        const QList<ReceivedRequest> records
            = worker->endpoint ? worker->endpoint->receivers().recordsSince(receiver, afterSequence)
                               : QList<ReceivedRequest>();
        QMetaObject::invokeMethod(self, [done, records] { done(records); }, Qt::QueuedConnection);
    }, Qt::QueuedConnection);
}

void EngineHost::revalidateSubscription(const QString &topic, const QString &subscription,
                                        std::function<void(const Expected<void> &)> done)
{
    EngineWorker *worker = m_worker;
    QPointer<EngineHost> self(this);
    if (!worker || !m_running) {
        done(Error(u"The engine is not running."_s));
        return;
    }
    QMetaObject::invokeMethod(worker, [worker, self, topic, subscription, done] {
        const Expected<void> result = worker->engine->revalidate(topic, subscription);
        QMetaObject::invokeMethod(self, [done, result] { done(result); }, Qt::QueuedConnection);
    }, Qt::QueuedConnection);
}

} // namespace EventDesk
