// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "EngineHost.h"

#include "../Logging.h"
#include "../engine/Engine.h"
#include "../store/sqlite/SqliteDeliveryStore.h"
#include "../workspace/WorkspaceFolder.h"
#include "StoreMonitor.h"
#include "ThreadPriority.h"

#include <QDir>
#include <QPointer>

#include <memory>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

QString notRunning()
{
    return u"The engine is not running."_s;
}

} // namespace

EngineHost::EngineHost(QObject *parent)
    : QObject(parent)
{
    qRegisterMetaType<EngineSnapshot>();
    qRegisterMetaType<AttemptLogEntry>();
    qRegisterMetaType<Workspace>();
    qRegisterMetaType<WorkspaceOwner>();
    m_thread.setObjectName(u"EventDesk engine"_s);
}

EngineHost::~EngineHost()
{
    stop();
}

QString EngineHost::storeLocation() const
{
    if (!m_config.storeLocation.isEmpty())
        return m_config.storeLocation;
    return WorkspaceFolder::storeFile(QDir(m_config.workspaceDirectory).absolutePath());
}

void EngineHost::start(Config config, const std::function<void(const Workspace &workspace)> &opened)
{
    stop();
    m_owner.reset();
    auto workspace = EngineWorker::openWorkspaceFolder(config);
    m_config = config;
    if (!workspace) {
        Q_EMIT started(false, workspace.error(), QString());
        return;
    }
    if (opened)
        opened(workspace.value());
    m_starting = true;
    m_thread.start();
    m_worker = new EngineWorker;
    m_worker->moveToThread(&m_thread);
    // Queued: emitted on the engine thread, received here.
    connect(m_worker, &EngineWorker::snapshotReady, this, &EngineHost::snapshotReady);
    connect(m_worker, &EngineWorker::attemptsLogged, this, &EngineHost::attemptsLogged);
    connect(m_worker, &EngineWorker::receiverRequestsRecorded, this,
            &EngineHost::receiverRequestsRecorded);
    connect(m_worker, &EngineWorker::storeError, this, &EngineHost::storeError);
    QPointer<EngineHost> self(this);
    EngineWorker *worker = m_worker;
    // The window may restart the engine before the first start has answered (another secret
    // store chosen at once): the answer of a start that stop() has ended since is not this one's.
    const quint64 generation = ++m_startGeneration;
    QMetaObject::invokeMethod(
        worker,
        [worker, config, self, generation] {
            // Before the engine starts its lanes and pools: they inherit the engine thread's.
            if (config.backgroundPriority && !lowerCurrentThreadPriority())
                qCWarning(lcDelivery, "could not lower the engine threads' priority");
            auto result = std::make_shared<EngineWorker::StartResult>(worker->start(config));
            QMetaObject::invokeMethod(
                self,
                [self, result, generation] {
                    if (!self || generation != self->m_startGeneration)
                        return;
                    self->m_starting = false;
                    self->m_running = result->error.isEmpty();
                    self->m_listenUrl = result->listenUrl;
                    self->m_busyPort = result->busyPort;
                    self->m_owner = result->owner;
                    if (self->m_running)
                        self->m_workspace = result->workspace;
                    Q_EMIT self->started(self->m_running, result->error, result->listenUrl);
                },
                Qt::QueuedConnection);
        },
        Qt::QueuedConnection);
}

void EngineHost::monitor(const Config &config)
{
    stop();
    m_config = config;
    m_thread.start();
    m_monitor = new StoreMonitor;
    m_monitor->moveToThread(&m_thread);
    // Queued: emitted on the engine thread, received here.
    connect(m_monitor, &StoreMonitor::snapshotReady, this, &EngineHost::snapshotReady);
    connect(m_monitor, &StoreMonitor::attemptsLogged, this, &EngineHost::attemptsLogged);
    connect(m_monitor, &StoreMonitor::readError, this, &EngineHost::storeError);
    connect(m_monitor, &StoreMonitor::workspaceChanged, this, [this](const Workspace &workspace) {
        m_workspace = workspace;
        Q_EMIT workspaceChanged();
    });
    connect(m_monitor, &StoreMonitor::ownerLeft, this, [this] {
        m_owner.reset();
        Q_EMIT ownerChanged();
    });
    connect(m_monitor, &StoreMonitor::ownerFound, this, [this](const WorkspaceOwner &owner) {
        m_owner = owner;
        Q_EMIT ownerChanged();
    });
    connect(m_monitor, &StoreMonitor::instancesRead, this,
            [this](const QList<InstanceStatus> &instances) {
                m_instances = instances;
                Q_EMIT instancesChanged(instances);
            });
    struct Result
    {
        Expected<Workspace> workspace = Error(QString());
        std::optional<WorkspaceOwner> owner;
    };
    QPointer<EngineHost> self(this);
    StoreMonitor *monitor = m_monitor;
    QMetaObject::invokeMethod(
        monitor,
        [monitor, config, self] {
            auto result = std::make_shared<Result>();
            if (isPostgresLocation(config.storeLocation)) {
                // A shared workspace: the store is the workspace; no folder, no lock.
                if (auto started
                    = monitor->startShared(config.storeLocation, config.monitorIntervalMs);
                    started)
                    result->workspace = monitor->workspace();
                else
                    result->workspace = Error(started.error());
            } else {
                result->workspace
                    = monitor->start(config.workspaceDirectory, config.monitorIntervalMs);
            }
            result->owner = monitor->owner();
            QMetaObject::invokeMethod(
                self,
                [self, result] {
                    if (!self)
                        return;
                    self->m_monitoring = result->workspace.hasValue();
                    self->m_owner = result->owner;
                    if (self->m_monitoring)
                        self->m_workspace = result->workspace.value();
                    Q_EMIT self->monitorStarted(self->m_monitoring, result->workspace.error());
                },
                Qt::QueuedConnection);
        },
        Qt::QueuedConnection);
}

template<typename Result>
void EngineHost::callSharedMonitor(std::function<Result(StoreMonitor &monitor)> work,
                                   std::function<void(const Result &)> done)
{
    StoreMonitor *monitor = m_monitor;
    if (!monitor || !isMonitoringSharedStore()) {
        done(Error(u"No shared workspace is open."_s));
        return;
    }
    QPointer<EngineHost> self(this);
    QMetaObject::invokeMethod(
        monitor,
        [monitor, self, work = std::move(work), done = std::move(done)] {
            const Result result = work(*monitor);
            // Queued after the monitor's workspaceChanged(), so that the window has the
            // configuration as the store now holds it when done runs.
            QMetaObject::invokeMethod(
                self,
                [self, done, result] {
                    if (self)
                        done(result);
                },
                Qt::QueuedConnection);
        },
        Qt::QueuedConnection);
}

void EngineHost::saveSharedConfiguration(const QList<Topic> &topics,
                                         std::function<void(const Expected<qint64> &)> done)
{
    callSharedMonitor<Expected<qint64>>(
        [topics](StoreMonitor &monitor) { return monitor.saveConfiguration(topics); },
        std::move(done));
}

void EngineHost::importSharedConfiguration(
    const QString &path, std::function<void(const Expected<SharedConfigurationSnapshot> &)> done)
{
    callSharedMonitor<Expected<SharedConfigurationSnapshot>>(
        [path](StoreMonitor &monitor) { return monitor.importConfiguration(path); },
        std::move(done));
}

void EngineHost::exportSharedConfiguration(
    const QString &path, std::function<void(const Expected<SharedConfigurationSnapshot> &)> done)
{
    callSharedMonitor<Expected<SharedConfigurationSnapshot>>(
        [path](StoreMonitor &monitor) { return monitor.exportConfiguration(path); },
        std::move(done));
}

void EngineHost::stop()
{
    ++m_startGeneration;
    if (!m_worker && !m_monitor)
        return;
    EngineWorker *worker = std::exchange(m_worker, nullptr);
    StoreMonitor *monitor = std::exchange(m_monitor, nullptr);
    QObject *onThread = worker ? static_cast<QObject *>(worker) : monitor;
    QMetaObject::invokeMethod(
        onThread,
        [worker, monitor] {
            if (worker)
                worker->shutdown();
            delete worker;
            delete monitor;
        },
        Qt::BlockingQueuedConnection);
    m_thread.quit();
    m_thread.wait();
    m_running = false;
    m_starting = false;
    m_monitoring = false;
    m_instances.clear();
}

template<typename Result>
void EngineHost::call(
    std::function<void(EngineWorker &worker, std::function<void(const Result &)> reply)> work,
    std::function<void(const Result &)> done, const Result &stopped)
{
    EngineWorker *worker = m_worker;
    if (!worker || !m_running) {
        done(stopped);
        return;
    }
    QPointer<EngineHost> self(this);
    QMetaObject::invokeMethod(
        worker,
        [worker, self, work = std::move(work), done = std::move(done)] {
            work(*worker, [self, done](const Result &result) {
                QMetaObject::invokeMethod(
                    self, [done, result] { done(result); }, Qt::QueuedConnection);
            });
        },
        Qt::QueuedConnection);
}

void EngineHost::publish(const QString &topic, const QByteArray &body,
                         const QByteArray &contentType,
                         std::function<void(const PublishResult &)> done)
{
    PublishResult stopped;
    stopped.httpStatus = 503;
    stopped.errorCode = u"ServiceUnavailable"_s;
    stopped.errorMessage = notRunning();
    call<PublishResult>(
        [topic, body, contentType](EngineWorker &worker, auto reply) {
            worker.engine().publishAsync(topic, body, contentType, std::move(reply));
        },
        std::move(done), stopped);
}

void EngineHost::applyWorkspace(const Workspace &workspace,
                                std::function<void(const Expected<void> &)> done)
{
    QPointer<EngineHost> self(this);
    // The new configuration is the GUI's once the engine has taken it.
    auto adopted = [self, workspace, done = std::move(done)](const Expected<void> &result) {
        if (self && result.hasValue()) {
            self->m_workspace = workspace;
            Q_EMIT self->workspaceChanged();
        }
        done(result);
    };
    call<Expected<void>>(
        [workspace](EngineWorker &worker, auto reply) {
            if (auto saved = WorkspaceFolder::save(worker.directory(), workspace); !saved)
                reply(saved);
            else if (auto prepared
                     = WorkspaceFolder::prepareDeadLetterContainers(worker.directory(), workspace);
                     !prepared)
                reply(prepared);
            else
                reply(worker.engine().applyWorkspace(workspace));
        },
        std::move(adopted), Error(notRunning()));
}

void EngineHost::resubmitDeadLetters(const QList<qint64> &ids,
                                     std::function<void(const ResubmitResult &)> done)
{
    call<ResubmitResult>([ids](EngineWorker &worker,
                               auto reply) { reply(worker.engine().resubmitDeadLetters(ids)); },
                         std::move(done), ResubmitResult {0, {notRunning()}});
}

void EngineHost::resubmitDeadLetters(const DeadLetterQuery &query,
                                     std::function<void(const ResubmitResult &)> done)
{
    call<ResubmitResult>([query](EngineWorker &worker,
                                 auto reply) { reply(worker.engine().resubmitDeadLetters(query)); },
                         std::move(done), ResubmitResult {0, {notRunning()}});
}

void EngineHost::resubmitThroughTopic(const QList<qint64> &ids, ResubmitRun mode,
                                      std::function<void(const TopicResubmitResult &)> done)
{
    TopicResubmitResult stopped;
    stopped.errors.append(notRunning());
    call<TopicResubmitResult>(
        [ids, mode](EngineWorker &worker, auto reply) {
            reply(worker.engine().resubmitThroughTopic(ids, mode));
        },
        std::move(done), stopped);
}

void EngineHost::removeDeadLetters(const QList<qint64> &ids,
                                   std::function<void(const Expected<void> &)> done)
{
    call<Expected<void>>(
        [ids](EngineWorker &worker, auto reply) { reply(worker.store().removeDeadLetters(ids)); },
        std::move(done), Error(notRunning()));
}

void EngineHost::readDeadLetterBlob(const DeadLetterDestination &destination,
                                    const QString &blobPath,
                                    std::function<void(const Expected<QByteArray> &)> done)
{
    call<Expected<QByteArray>>(
        [destination, blobPath](EngineWorker &worker, auto reply) {
            worker.readDeadLetterBlob(destination, blobPath, std::move(reply));
        },
        std::move(done), Error(notRunning()));
}

void EngineHost::receiverRecords(const QString &receiver, quint64 afterSequence,
                                 std::function<void(const QList<ReceivedRequest> &)> done)
{
    call<QList<ReceivedRequest>>(
        [receiver, afterSequence](EngineWorker &worker, auto reply) {
            reply(worker.receiverRecords(receiver, afterSequence));
        },
        std::move(done), {});
}

void EngineHost::revalidateSubscription(const QString &topic, const QString &subscription,
                                        std::function<void(const Expected<void> &)> done)
{
    call<Expected<void>>(
        [topic, subscription](EngineWorker &worker, auto reply) {
            reply(worker.engine().revalidate(topic, subscription));
        },
        std::move(done), Error(notRunning()));
}

} // namespace EventDesk
