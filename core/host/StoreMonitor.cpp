// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "StoreMonitor.h"

#include "../store/SharedConfiguration.h"
#include "../store/StoreLocation.h"
#include "../workspace/ProvisioningFile.h"
#include "../workspace/SharedWorkspace.h"
#include "../workspace/WorkspaceFolder.h"
#include "StoreOpener.h"

#include <QDir>
#include <QFileInfo>
#include <QSet>
#include <QTimer>

#include <algorithm>
#include <tuple>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

// Attempts read per query; a poll that reads this many reads on at once, so a monitor that fell
// behind a busy owner catches up without holding thousands of rows at a time.
constexpr int MaxAttemptsPerRead = 5000;

} // namespace

StoreMonitor::StoreMonitor(QObject *parent)
    : QObject(parent)
{
}

StoreMonitor::~StoreMonitor()
{
    stop();
}

QString StoreMonitor::key(const QString &topic, const QString &subscription)
{
    // Names are case-insensitive, as in the workspace.
    return topic.toLower() + u'\n' + subscription.toLower();
}

StoreMonitor::FileStamp StoreMonitor::stampOf(const QString &path)
{
    const QFileInfo info(path);
    if (!info.exists())
        return {};
    return {info.lastModified(), info.size()};
}

Expected<Workspace> StoreMonitor::start(const QString &directory, int intervalMs)
{
    stop();
    m_directory = QDir(directory).absolutePath();
    m_intervalMs = std::max(1, intervalMs);
    m_workspaceStamp = stampOf(WorkspaceFolder::workspaceFile(m_directory));
    auto workspace = WorkspaceFolder::read(m_directory);
    if (!workspace)
        return workspace;
    m_workspace = workspace.value();
    m_owner = WorkspaceLock::currentOwner(m_directory);
    startPolling();
    return workspace;
}

Expected<void> StoreMonitor::startShared(const QString &url, int intervalMs)
{
    stop();
    if (!isPostgresLocation(url) || !storeLocationProblem(url).isEmpty()) {
        return Error(u"A shared workspace is a PostgreSQL store: %1 (got '%2')"_s.arg(
            storeLocationForms(), redactedStoreLocation(url)));
    }
    m_directory.clear();
    m_sharedUrl = url;
    m_intervalMs = std::max(1, intervalMs);
    m_workspace = Workspace();
    startPolling();
    return {};
}

void StoreMonitor::startPolling()
{
    // The counters start here, before the views read any history (the delivery log's), so that
    // no attempt falls between the two. A store that cannot be read yet is retried by poll().
    std::ignore = openStore();
    m_timer = std::make_unique<QTimer>();
    m_timer->setSingleShot(true);
    connect(m_timer.get(), &QTimer::timeout, this, &StoreMonitor::poll);
    m_timer->start(0);
}

void StoreMonitor::stop()
{
    m_timer.reset();
    m_store.reset();
    m_configurationStore.reset();
    m_configurationRevision = -1;
    m_sharedUrl.clear();
    m_baselineRead = false;
    m_watermarks = {};
    m_figures.clear();
    m_provisioning.clear();
    m_provisioningStamp = {};
    m_lastError.clear();
    m_owner.reset();
    m_instances.clear();
}

void StoreMonitor::poll()
{
    if (!isShared()) {
        rereadWorkspace();
        rereadProvisioning();
    }
    bool more = false;
    Expected<void> read = openStore();
    if (read)
        read = readAttempts(&more);
    if (read)
        read = readDeadLettersAndDrops();
    if (read)
        read = readGauges();
    if (read && isShared())
        read = readInstances();
    if (read && isShared())
        read = readConfiguration();
    if (read) {
        m_lastError.clear();
        Q_EMIT snapshotReady(buildSnapshot());
    } else {
        // Opened again at the next poll: the owner may have created or migrated the store since.
        m_store.reset();
        m_configurationStore.reset();
        if (read.error() != m_lastError) {
            m_lastError = read.error();
            Q_EMIT readError(m_lastError);
        }
    }
    if (!isShared())
        checkOwner();
    if (m_timer)
        m_timer->start(more ? 0 : m_intervalMs);
}

Expected<void> StoreMonitor::openStore()
{
    if (!m_store) {
        auto opened = openDeliveryStoreReader(isShared() ? m_sharedUrl
                                                         : WorkspaceFolder::storeFile(m_directory));
        if (!opened)
            return Error(opened.error());
        m_store = std::move(opened.value());
    }
    if (m_baselineRead)
        return {};
    // The counters start now: what the owner logged before is history (the delivery log reads
    // it), not a rate.
    auto marks = m_store->watermarks();
    if (!marks)
        return Error(marks.error());
    m_watermarks.attempt = marks->attempt;
    m_watermarks.deadLetter = marks->deadLetter;
    m_watermarks.dropped = marks->dropped;
    m_baselineRead = true;
    return {};
}

SubscriptionSnapshot &StoreMonitor::figuresOf(const QString &topic, const QString &subscription)
{
    SubscriptionSnapshot &figures = m_figures[key(topic, subscription)];
    if (figures.topic.isEmpty()) {
        figures.topic = topic;
        figures.subscription = subscription;
    }
    return figures;
}

Expected<void> StoreMonitor::readAttempts(bool *more)
{
    auto read = m_store->attemptsAfter(m_watermarks.attempt, MaxAttemptsPerRead);
    if (!read)
        return Error(read.error());
    const QList<AttemptLogEntry> entries = std::move(read.value());
    *more = entries.size() == MaxAttemptsPerRead;
    if (entries.isEmpty())
        return {};
    m_watermarks.attempt = entries.constLast().id;
    // The engine's counters, rebuilt from its log: per event for outcomes, per request for
    // latency (requests that got an answer). An aborted request was counted when it timed out.
    for (const AttemptLogEntry &entry : std::as_const(entries)) {
        if (entry.outcome == DeliveryOutcome::Aborted)
            continue;
        SubscriptionSnapshot &figures = figuresOf(entry.topic, entry.subscription);
        const auto events = quint64(std::max<qsizetype>(1, entry.eventIds.size()));
        ++figures.requests;
        if (entry.outcome == DeliveryOutcome::Delivered)
            figures.delivered += events;
        else
            figures.failedByOutcome[entry.outcome] += events;
        if (entry.httpStatus > 0) {
            figures.latencySumMs += double(entry.durationMs);
            ++figures.latencyCount;
            const auto &bounds = SubscriptionSnapshot::LatencyBucketBoundsMs;
            const auto bucket
                = std::lower_bound(bounds.begin(), bounds.end(), double(entry.durationMs));
            ++figures.latencyBuckets[size_t(bucket - bounds.begin())];
        }
    }
    Q_EMIT attemptsLogged(entries);
    return {};
}

Expected<void> StoreMonitor::readDeadLettersAndDrops()
{
    auto deadLetters = m_store->deadLettersAfter(m_watermarks.deadLetter);
    if (!deadLetters)
        return Error(deadLetters.error());
    for (const FateCount &fate : std::as_const(deadLetters.value())) {
        SubscriptionSnapshot &figures = figuresOf(fate.topic, fate.subscription);
        figures.deadLetteredByReason[fate.reason] += quint64(fate.count);
        m_watermarks.deadLetter = std::max(m_watermarks.deadLetter, fate.newestId);
    }
    auto drops = m_store->dropsAfter(m_watermarks.dropped);
    if (!drops)
        return Error(drops.error());
    for (const FateCount &fate : std::as_const(drops.value())) {
        SubscriptionSnapshot &figures = figuresOf(fate.topic, fate.subscription);
        figures.droppedByReason[fate.reason] += quint64(fate.count);
        m_watermarks.dropped = std::max(m_watermarks.dropped, fate.newestId);
    }
    return {};
}

Expected<void> StoreMonitor::readGauges()
{
    // Both read before anything changes: a failed poll leaves the last figures as they were.
    auto gauges = m_store->deliveryGauges();
    if (!gauges)
        return Error(gauges.error());
    auto probation = m_store->probation();
    if (!probation)
        return Error(probation.error());
    for (SubscriptionSnapshot &figures : m_figures) {
        figures.backlog = 0;
        figures.inFlight = 0;
        figures.deadLetterPending = 0;
        figures.nextDueMs = 0;
        figures.probationState = ProbationTracker::State::Healthy;
        figures.probationCause = DeliveryOutcome::Delivered;
        figures.probationUntilMs = 0;
        figures.consecutiveFailures = 0;
    }
    for (const DeliveryGauge &gauge : std::as_const(gauges.value())) {
        SubscriptionSnapshot &figures = figuresOf(gauge.topic, gauge.subscription);
        switch (gauge.state) {
        case DeliveryState::Pending: {
            figures.backlog += gauge.count;
            const qint64 due = gauge.earliestDueMs;
            if (due > 0 && (figures.nextDueMs == 0 || due < figures.nextDueMs))
                figures.nextDueMs = due;
            break;
        }
        case DeliveryState::InFlight:
            figures.inFlight += gauge.count;
            break;
        case DeliveryState::DeadLetterPending:
            figures.deadLetterPending += gauge.count;
            break;
        case DeliveryState::Delivered:
        case DeliveryState::DeadLettered:
        case DeliveryState::Dropped:
            break;
        }
    }
    for (const ProbationRecord &record : std::as_const(probation.value())) {
        SubscriptionSnapshot &figures = figuresOf(record.topic, record.subscription);
        figures.probationState = ProbationTracker::State(record.state);
        figures.probationCause = record.cause;
        figures.probationUntilMs = record.untilMs;
        figures.consecutiveFailures = record.consecutiveFailures;
    }
    return {};
}

Expected<void> StoreMonitor::readInstances()
{
    auto instances = m_store->instances();
    if (!instances)
        return Error(instances.error());
    m_instances = instances.value();
    Q_EMIT instancesRead(m_instances);
    return {};
}

Expected<void> StoreMonitor::readConfiguration()
{
    if (!m_configurationStore) {
        auto opened = openDeliveryStore(m_sharedUrl, QString());
        if (!opened)
            return Error(opened.error());
        m_configurationStore = std::move(opened.value());
    }
    SharedConfiguration *configuration = m_configurationStore->sharedConfiguration();
    if (!configuration)
        return {};
    auto revision = configuration->configurationRevision();
    if (!revision)
        return Error(revision.error());
    if (revision.value() == m_configurationRevision)
        return {};
    auto snapshot = configuration->loadConfiguration();
    if (!snapshot)
        return Error(snapshot.error());
    m_configurationRevision = snapshot->revision;
    m_workspace.topics = snapshot->topics;
    Q_EMIT configurationRead(m_workspace, m_configurationRevision);
    Q_EMIT workspaceChanged(m_workspace);
    return {};
}

Expected<SharedConfiguration *> StoreMonitor::configuration()
{
    if (!isShared())
        return Error(u"Only a shared workspace keeps its configuration in the store."_s);
    if (!m_configurationStore || m_configurationRevision < 0)
        return Error(u"The shared workspace's configuration has not been read yet; try again in "
                     "a moment."_s);
    if (SharedConfiguration *configuration = m_configurationStore->sharedConfiguration())
        return configuration;
    return Error(u"The store %1 keeps no configuration."_s.arg(redactedStoreLocation(m_sharedUrl)));
}

Expected<qint64> StoreMonitor::saveConfiguration(const QList<Topic> &after)
{
    auto configuration = this->configuration();
    if (!configuration)
        return Error(configuration.error());
    auto saved = configuration.value()->saveConfiguration(m_workspace.topics, after,
                                                          m_configurationRevision);
    // Read at once: the edit's own revision, or what the other writer changed. A read that fails
    // now is done by the next poll; it changes nothing about the edit's outcome.
    std::ignore = readConfiguration();
    return saved;
}

Expected<SharedConfigurationSnapshot> StoreMonitor::importConfiguration(const QString &path)
{
    auto configuration = this->configuration();
    if (!configuration)
        return Error(configuration.error());
    auto imported = SharedWorkspace::importFile(*configuration.value(), path);
    std::ignore = readConfiguration();
    return imported;
}

Expected<SharedConfigurationSnapshot> StoreMonitor::exportConfiguration(const QString &path)
{
    auto configuration = this->configuration();
    if (!configuration)
        return Error(configuration.error());
    // The settings and test receivers are each instance's own: the file gets the defaults.
    return SharedWorkspace::exportFile(*configuration.value(), Workspace(), path);
}

void StoreMonitor::rereadWorkspace()
{
    const FileStamp stamp = stampOf(WorkspaceFolder::workspaceFile(m_directory));
    if (stamp == m_workspaceStamp)
        return;
    m_workspaceStamp = stamp;
    // The owner writes it atomically; a file that does not parse is kept out until it does.
    auto workspace = WorkspaceFolder::read(m_directory);
    if (!workspace)
        return;
    m_workspace = workspace.value();
    Q_EMIT workspaceChanged(m_workspace);
}

void StoreMonitor::rereadProvisioning()
{
    const QString path = ProvisioningFile::defaultPath(m_directory);
    const FileStamp stamp = stampOf(path);
    if (stamp == m_provisioningStamp)
        return;
    m_provisioningStamp = stamp;
    ProvisioningFile file(path, ProvisioningFile::Access::ReadOnly); // the owner's file
    auto records = file.load();
    if (!records)
        return;
    m_provisioning.clear();
    for (const ProvisioningRecord &record : std::as_const(records.value()))
        m_provisioning.insert(key(record.topic, record.subscription), record);
}

void StoreMonitor::checkOwner()
{
    const std::optional<WorkspaceOwner> previous
        = std::exchange(m_owner, WorkspaceLock::currentOwner(m_directory));
    if (previous && !m_owner)
        Q_EMIT ownerLeft();
    else if (m_owner
             && (!previous || previous->pid != m_owner->pid
                 || previous->hostName != m_owner->hostName))
        Q_EMIT ownerFound(*m_owner);
}

EngineSnapshot StoreMonitor::buildSnapshot() const
{
    EngineSnapshot snapshot;
    // For display only (probation and validation countdowns): the owner's engine time is the
    // wall clock unless it runs with a time scale, which the store does not record.
    snapshot.nowMs = QDateTime::currentMSecsSinceEpoch();
    // No TopicSnapshot: how many events the owner accepted is not in the store.
    for (const Topic &topic : m_workspace.topics) {
        for (const EventSubscription &subscription : topic.eventSubscriptions) {
            const QString subscriptionKey = key(topic.name, subscription.name);
            SubscriptionSnapshot state = m_figures.value(subscriptionKey);
            state.topic = topic.name;
            state.subscription = subscription.name;
            state.enabled = subscription.enabled;
            state.validationEnabled = subscription.needsEndpointValidation();
            const auto provisioning = m_provisioning.constFind(subscriptionKey);
            if (state.validationEnabled && provisioning != m_provisioning.cend()) {
                state.provisioningState = provisioning->state;
                state.provisioningMessage = provisioning->message;
                state.validationExpiresMs = provisioning->expiresMs;
                state.allowedRate = provisioning->allowedRate;
            }
            snapshot.subscriptions.append(state);
        }
    }
    if (isShared()) {
        // A shared store's rows name the subscriptions the instances deliver to; those the
        // configuration read here does not (yet) hold are shown as the store has them.
        QSet<QString> shown;
        for (const SubscriptionSnapshot &state : std::as_const(snapshot.subscriptions))
            shown.insert(key(state.topic, state.subscription));
        QList<SubscriptionSnapshot> others;
        for (const SubscriptionSnapshot &figures : m_figures) {
            if (!shown.contains(key(figures.topic, figures.subscription)))
                others.append(figures);
        }
        std::sort(others.begin(), others.end(),
                  [](const SubscriptionSnapshot &a, const SubscriptionSnapshot &b) {
                      return std::tie(a.topic, a.subscription) < std::tie(b.topic, b.subscription);
                  });
        snapshot.subscriptions += others;
    }
    return snapshot;
}

} // namespace EventDesk
