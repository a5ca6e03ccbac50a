// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "StoreMonitor.h"

#include "../io/ProvisioningFile.h"
#include "../io/WorkspaceFolder.h"
#include "../store/AttemptLogRows.h"
#include "../store/SqliteStatement.h"

#include <QDir>
#include <QFileInfo>
#include <QTimer>

#include <algorithm>
#include <tuple>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

// Attempts read per query; a poll that reads this many reads on at once, so a monitor that fell
// behind a busy owner catches up without holding thousands of rows at a time.
constexpr int MaxAttemptsPerRead = 5000;

constexpr char WatermarksSql[] = "SELECT (SELECT coalesce(max(id), 0) FROM attempt_log),"
                                 " (SELECT coalesce(max(id), 0) FROM dead_letters),"
                                 " (SELECT coalesce(max(id), 0) FROM dropped)";
constexpr char NewDeadLettersSql[]
    = "SELECT topic, subscription, reason, count(*), max(id) FROM dead_letters WHERE id > ?"
      " GROUP BY topic, subscription, reason";
constexpr char NewDropsSql[]
    = "SELECT topic, subscription, reason, count(*), max(id) FROM dropped WHERE id > ?"
      " GROUP BY topic, subscription, reason";
constexpr char DeliveryGaugesSql[]
    = "SELECT topic, subscription, state, count(*), min(due_ms) FROM deliveries"
      " GROUP BY topic, subscription, state";
constexpr char ProbationSql[]
    = "SELECT topic, subscription, state, cause, until_ms, failures FROM probation";

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
    // The counters start here, before the views read any history (the delivery log's), so that
    // no attempt falls between the two. A store that cannot be read yet is retried by poll().
    std::ignore = openStore();
    m_timer = std::make_unique<QTimer>();
    m_timer->setSingleShot(true);
    connect(m_timer.get(), &QTimer::timeout, this, &StoreMonitor::poll);
    m_timer->start(0);
    return workspace;
}

void StoreMonitor::stop()
{
    m_timer.reset();
    m_store.close();
    m_baselineRead = false;
    m_watermarks = {};
    m_figures.clear();
    m_provisioning.clear();
    m_provisioningStamp = {};
    m_lastError.clear();
    m_owner.reset();
}

void StoreMonitor::poll()
{
    rereadWorkspace();
    rereadProvisioning();
    bool more = false;
    Expected<void> read = openStore();
    if (read)
        read = readAttempts(&more);
    if (read)
        read = readDeadLettersAndDrops();
    if (read)
        read = readGauges();
    if (read) {
        m_lastError.clear();
        Q_EMIT snapshotReady(buildSnapshot());
    } else {
        // Opened again at the next poll: the owner may have created or migrated the store since.
        m_store.close();
        if (read.error() != m_lastError) {
            m_lastError = read.error();
            Q_EMIT readError(m_lastError);
        }
    }
    checkOwner();
    if (m_timer)
        m_timer->start(more ? 0 : m_intervalMs);
}

Expected<void> StoreMonitor::openStore()
{
    if (!m_store.isOpen()) {
        if (auto opened = m_store.open(WorkspaceFolder::storeFile(m_directory)); !opened)
            return opened;
    }
    if (m_baselineRead)
        return {};
    // The counters start now: what the owner logged before is history (the delivery log reads
    // it), not a rate.
    auto read = m_store.select(WatermarksSql, [this](const SqliteStatement &row) {
        m_watermarks.attempt = row.columnInt64(0);
        m_watermarks.deadLetter = row.columnInt64(1);
        m_watermarks.dropped = row.columnInt64(2);
    });
    if (!read)
        return read;
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
    QList<AttemptLogEntry> entries;
    auto read = m_store.select(
        attemptsAfterSql(),
        [&entries](const SqliteStatement &row) { entries.append(readAttemptLogEntry(row)); },
        m_watermarks.attempt, MaxAttemptsPerRead);
    if (!read)
        return read;
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
    qint64 newestDeadLetter = m_watermarks.deadLetter;
    auto read = m_store.select(
        NewDeadLettersSql,
        [this, &newestDeadLetter](const SqliteStatement &row) {
            SubscriptionSnapshot &figures = figuresOf(row.columnText(0), row.columnText(1));
            figures.deadLetteredByReason[DeadLetterReason(row.columnInt(2))]
                += quint64(row.columnInt64(3));
            newestDeadLetter = std::max(newestDeadLetter, row.columnInt64(4));
        },
        m_watermarks.deadLetter);
    if (!read)
        return read;
    m_watermarks.deadLetter = newestDeadLetter;

    qint64 newestDrop = m_watermarks.dropped;
    read = m_store.select(
        NewDropsSql,
        [this, &newestDrop](const SqliteStatement &row) {
            SubscriptionSnapshot &figures = figuresOf(row.columnText(0), row.columnText(1));
            figures.droppedByReason[DeadLetterReason(row.columnInt(2))]
                += quint64(row.columnInt64(3));
            newestDrop = std::max(newestDrop, row.columnInt64(4));
        },
        m_watermarks.dropped);
    if (!read)
        return read;
    m_watermarks.dropped = newestDrop;
    return {};
}

Expected<void> StoreMonitor::readGauges()
{
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
    auto read = m_store.select(DeliveryGaugesSql, [this](const SqliteStatement &row) {
        SubscriptionSnapshot &figures = figuresOf(row.columnText(0), row.columnText(1));
        const qint64 count = row.columnInt64(3);
        switch (DeliveryState(row.columnInt(2))) {
        case DeliveryState::Pending: {
            figures.backlog += count;
            const qint64 due = row.columnInt64(4);
            if (due > 0 && (figures.nextDueMs == 0 || due < figures.nextDueMs))
                figures.nextDueMs = due;
            break;
        }
        case DeliveryState::InFlight:
            figures.inFlight += count;
            break;
        case DeliveryState::DeadLetterPending:
            figures.deadLetterPending += count;
            break;
        case DeliveryState::Delivered:
        case DeliveryState::DeadLettered:
        case DeliveryState::Dropped:
            break;
        }
    });
    if (!read)
        return read;
    return m_store.select(ProbationSql, [this](const SqliteStatement &row) {
        SubscriptionSnapshot &figures = figuresOf(row.columnText(0), row.columnText(1));
        figures.probationState = ProbationTracker::State(row.columnInt(2));
        figures.probationCause = DeliveryOutcome(row.columnInt(3));
        figures.probationUntilMs = row.columnInt64(4);
        figures.consecutiveFailures = row.columnInt(5);
    });
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
    return snapshot;
}

} // namespace EventDesk
