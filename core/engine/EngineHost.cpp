#include "EngineHost.h"

#include "../Logging.h"
#include "../io/DeadLetterSink.h"
#include "../io/TopicEndpoint.h"
#include "../io/WorkspaceFolder.h"
#include "../store/SqliteDeliveryStore.h"
#include "Clock.h"

#include <QDir>
#include <QHostAddress>
#include <QNetworkAccessManager>
#include <QPointer>
#include <QTimer>

#include <memory>

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
        auto workspace = WorkspaceFolder::openOrCreate(
            directory, u"http://%1:%2"_s.arg(urlHost).arg(config.listenPort ? config.listenPort : 5170));
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
        sink = std::make_unique<FolderDeadLetterSink>(WorkspaceFolder::deadLetterRoot(directory));
        engine = std::make_unique<Engine>(clock.get(), network.get(), store.get(), sink.get(), options);
        if (auto started = engine->start(workspace.value()); !started) {
            result.error = started.error();
            shutdown();
            return result;
        }
        endpoint = std::make_unique<TopicEndpoint>(engine.get(), [](const QString &) { return QString(); });
        QHostAddress address;
        if (config.listenHost.compare(u"localhost"_s, Qt::CaseInsensitive) == 0)
            address = QHostAddress::LocalHost;
        else
            address.setAddress(config.listenHost);
        auto port = endpoint->listen(address, config.listenPort);
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
        sink.reset();
        network.reset();
        clock.reset();
        if (store)
            store->close();
        store.reset();
    }

    std::unique_ptr<SqliteDeliveryStore> store;
    std::unique_ptr<Clock> clock;
    std::unique_ptr<QNetworkAccessManager> network;
    std::unique_ptr<FolderDeadLetterSink> sink;
    std::unique_ptr<Engine> engine;
    std::unique_ptr<TopicEndpoint> endpoint;
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
        const PublishResult result = worker->engine->publish(topic, body, contentType);
        QMetaObject::invokeMethod(self, [done, result] { done(result); }, Qt::QueuedConnection);
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

} // namespace EventDesk
