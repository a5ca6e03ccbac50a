// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "Engine.h"

#include "../Logging.h"
#include "Clock.h"
#include "CommitBuffer.h"
#include "DeadLettering.h"
#include "DeliveryClaims.h"
#include "DeliveryScheduler.h"
#include "Dispatcher.h"
#include "EndpointValidation.h"
#include "EngineSignals.h"
#include "EngineState.h"
#include "Ingest.h"
#include "OutcomeHandler.h"
#include "TopicResubmit.h"

#include <QSet>

namespace EventDesk {

struct Engine::Units
{
    Units(Engine *engine, Clock *clock, QNetworkAccessManager *network, DeliveryStore *store,
          DeadLetterSink *deadLetterSink, EngineOptions options)
        : state(clock, store, options)
        , signals(state.lock, engine)
        , commits(store, state.storeHealth, signals, options.storeFlushIntervalMs)
        , outcomes(state, commits, signals)
        , scheduler(state, signals, outcomes)
        , dispatcher(state, signals, commits, scheduler, outcomes, network)
        , deadLettering(state, signals, commits, scheduler, outcomes, deadLetterSink)
        , validation(state, signals, scheduler, outcomes, network)
        , claims(state, signals, scheduler, outcomes, validation)
        , ingest(state, signals, scheduler, outcomes)
        , topicResubmit(state, ingest)
    {
    }

    // A subscription's turn (DeliveryScheduler::Hooks::service): dead-letter writes and the
    // handshake (engine thread), then its due deliveries, or its held ones while not validated.
    void service(Subscription &subscription, qint64 now);
    // When else than for a due delivery the subscription needs attention.
    qint64 attentionMs(Subscription &subscription, qint64 now);
    void rebuildSubscriptions(const Workspace &workspace, qint64 now);
    bool awaitsSecrets(const Subscription &subscription) const
    {
        return secretsPending && secretsPending(subscription.topic, subscription.config);
    }

    SecretsPending secretsPending;

    // Declared in the order they are built: each unit takes the ones before it.
    EngineState state;
    EngineSignals signals;
    CommitBuffer commits;
    OutcomeHandler outcomes;
    DeliveryScheduler scheduler;
    Dispatcher dispatcher;
    DeadLettering deadLettering;
    EndpointValidation validation;
    DeliveryClaims claims;
    Ingest ingest; // after the units it uses, so destroyed before them: it waits for its parsers
    TopicResubmit topicResubmit; // holds no state of its own
};

Engine::Engine(Clock *clock, QNetworkAccessManager *network, DeliveryStore *store,
               DeadLetterSink *deadLetterSink, EngineOptions options, QObject *parent)
    : QObject(parent)
    , m_units(std::make_unique<Units>(this, clock, network, store, deadLetterSink, options))
{
    Units &units = *m_units;
    units.scheduler.setHooks(DeliveryScheduler::Hooks {
        [&units](Subscription &subscription, qint64 now) { units.service(subscription, now); },
        [&units](Subscription &subscription, qint64 now) {
            return units.attentionMs(subscription, now);
        },
        [&units](quint64 requestId, DeliveryScheduler::Deadline deadline, qint64 now) {
            units.dispatcher.deadlineDue(requestId, deadline, now);
        },
        [&units](quint64 requestId) { return units.dispatcher.isOpen(requestId); },
        [&units](qint64 now) { units.claims.heartbeat(now); },
    });
    units.commits.setLostDeliveries(
        [&units](const QList<qint64> &deliveryIds) { units.claims.forget(deliveryIds); });
    // Work deferred from a delivery lane to the engine thread (timers and the clock live there).
    units.signals.setWakeHandler([&units] {
        units.commits.schedule();
        units.scheduler.rearmAlarm();
    });
    connect(clock, &Clock::alarm, this, [&units] {
        const StateLock lock(units.state.lock);
        units.scheduler.onAlarm();
    });
    connect(&units.signals, &EngineSignals::attemptLogged, this, &Engine::attemptLogged);
    connect(&units.signals, &EngineSignals::deadLettered, this, &Engine::deadLettered);
    connect(&units.signals, &EngineSignals::dropped, this, &Engine::dropped);
    connect(&units.signals, &EngineSignals::probationChanged, this, &Engine::probationChanged);
    connect(&units.signals, &EngineSignals::provisioningChanged, this,
            &Engine::provisioningChanged);
    connect(&units.signals, &EngineSignals::storeError, this, &Engine::storeError);
}

Engine::~Engine()
{
    if (m_units->state.running)
        shutdown();
    m_units->dispatcher.stopLanes();
}

void Engine::setDeliveryLanes(int count)
{
    m_units->dispatcher.setLanes(count);
}

int Engine::recommendedDeliveryLanes()
{
    return Dispatcher::recommendedLanes();
}

void Engine::setSecretResolver(SecretResolver resolver)
{
    m_units->dispatcher.setSecretResolver(std::move(resolver));
}

void Engine::setCredentialResolver(std::function<QString(const QString &secretKey)> resolver)
{
    m_units->dispatcher.setCredentialResolver(std::move(resolver));
}

void Engine::setSecretsPending(SecretsPending pending)
{
    const StateLock lock(m_units->state.lock);
    m_units->secretsPending = std::move(pending);
}

void Engine::setReceiverAlias(const ReceiverAlias &alias)
{
    const StateLock lock(m_units->state.lock);
    m_units->state.receiverAlias = alias;
    m_units->dispatcher.setReceiverAlias(alias);
}

void Engine::secretsAnswered()
{
    const StateLock lock(m_units->state.lock);
    const qint64 now = m_units->state.clock->nowMs();
    for (const auto &subscription : m_units->state.subscriptions) {
        if (subscription->removed)
            continue;
        const bool awaiting = m_units->awaitsSecrets(*subscription);
        if (awaiting == subscription->awaitingSecrets)
            continue;
        subscription->awaitingSecrets = awaiting;
        m_units->validation.holdBacklog(*subscription);
        m_units->scheduler.reschedule(*subscription, now);
    }
}

Expected<void> Engine::start(const Workspace &workspace)
{
    const StateLock lock(m_units->state.lock);
    const qint64 now = m_units->state.clock->nowMs();
    m_units->state.workspace = workspace;
    ++m_units->state.workspaceGeneration;
    if (auto restored = m_units->validation.loadRestored(); !restored)
        return restored;
    m_units->rebuildSubscriptions(workspace, now);
    m_units->validation.forgetRestored();
    m_units->validation.save();

    auto probation = m_units->state.store->loadProbation();
    if (!probation)
        return Error(probation.error());
    for (const ProbationRecord &record : std::as_const(probation.value())) {
        if (Subscription *subscription
            = m_units->state.findSubscription(record.topic, record.subscription)) {
            subscription->probation.restore(ProbationTracker::State(record.state), record.cause,
                                            record.untilMs, record.durationMs,
                                            record.consecutiveFailures);
        }
    }
    // Every unfinished delivery, or on a shared store those this instance claims.
    if (auto restored = m_units->claims.start(now); !restored)
        return restored;

    m_units->state.running = true;
    for (const auto &subscription : m_units->state.subscriptions)
        m_units->scheduler.reschedule(*subscription, now);
    m_units->scheduler.rearmAlarm(); // the ticks, when nothing else is due
    return {};
}

void Engine::Units::rebuildSubscriptions(const Workspace &workspace, qint64 now)
{
    QHash<QString, Subscription *> existing;
    for (const auto &subscription : state.subscriptions) {
        if (!subscription->removed)
            existing.insert(subscriptionKey(subscription->topic, subscription->config.name),
                            subscription.get());
    }
    QSet<Subscription *> kept;
    for (const Topic &topic : workspace.topics) {
        if (!state.topicCounters.contains(topic.name.toLower()))
            state.topicCounters.insert(topic.name.toLower(), TopicSnapshot {topic.name, 0, 0, 0});
        for (const EventSubscription &config : topic.eventSubscriptions) {
            Subscription *subscription = existing.value(subscriptionKey(topic.name, config.name));
            if (!subscription) {
                auto created = std::make_unique<Subscription>();
                created->index = int(state.subscriptions.size());
                subscription = created.get();
                state.subscriptions.push_back(std::move(created));
            }
            subscription->topic = topic.name;
            subscription->topicPath = topic.resourcePath();
            subscription->inputSchema = topic.inputSchema;
            subscription->config = config;
            subscription->probation.setThreshold(workspace.settings.probationThreshold);
            subscription->counters.topic = topic.name;
            subscription->counters.subscription = config.name;
            subscription->counters.enabled = config.enabled;
            subscription->awaitingSecrets = awaitsSecrets(*subscription);
            validation.update(*subscription);
            validation.holdBacklog(*subscription); // the TTL may have changed
            kept.insert(subscription);
        }
    }
    for (const auto &subscription : state.subscriptions) {
        if (subscription->removed || kept.contains(subscription.get()))
            continue;
        // The subscription was deleted: its backlog cannot be delivered any more.
        validation.abort(*subscription);
        subscription->removed = true;
        QList<Delivery *> orphans;
        for (auto &[id, delivery] : state.deliveries) {
            if (delivery.subscriptionIndex == subscription->index
                && delivery.state != DeliveryState::InFlight)
                orphans.append(&delivery);
        }
        for (Delivery *delivery : std::as_const(orphans))
            outcomes.drop(subscription.get(), *delivery, DeadLetterReason::SubscriptionDeleted,
                          now);
        subscription->pending.clear();
        subscription->deadLetterPending.clear();
    }
}

Expected<void> Engine::applyWorkspace(const Workspace &workspace)
{
    const StateLock lock(m_units->state.lock);
    const qint64 now = m_units->state.clock->nowMs();
    m_units->state.workspace = workspace;
    ++m_units->state.workspaceGeneration;
    m_units->rebuildSubscriptions(workspace, now);
    m_units->claims.workspaceApplied(now); // a shared store: parked deliveries of new subscriptions
    m_units->validation.save();
    for (const auto &subscription : m_units->state.subscriptions)
        m_units->scheduler.reschedule(*subscription, now);
    m_units->commits.schedule();
    return {};
}

void Engine::shutdown()
{
    const StateLock lock(m_units->state.lock);
    if (!m_units->state.running)
        return;
    m_units->state.running = false;
    m_units->ingest.waitForParsers();
    m_units->scheduler.stop();
    m_units->dispatcher.cancelAll();
    // A handshake cut short is simply sent again at the next start (the state stays Creating,
    // which is never restored).
    m_units->validation.abortAll();
    m_units->commits.stop();
    if (auto result = m_units->commits.flush(); !result)
        qCWarning(lcStore) << "final commit failed:" << result.error();
    else
        m_units->claims.release(); // a shared store: the others take what is left at once
}

qint64 Engine::instanceId() const
{
    const StateLock lock(m_units->state.lock);
    return m_units->claims.instanceId();
}

void Engine::Units::service(Subscription &subscription, qint64 now)
{
    if (subscription.removed)
        return;
    // Dead-letter writes and handshakes use the engine thread's objects: on a lane they wait for
    // the alarm, which reschedule() below sets for them.
    if (signals.onEngineThread()) {
        deadLettering.service(subscription, now);
        validation.service(subscription, now);
    }
    if (subscription.config.enabled) {
        if (!subscription.isHeld())
            dispatcher.serviceDue(subscription, now);
        else
            validation.serviceHeld(subscription, now); // deliveries wait, not attempted, not lost
    }
    scheduler.reschedule(subscription, now);
}

qint64 Engine::Units::attentionMs(Subscription &subscription, qint64 now)
{
    const qint64 write = deadLettering.attentionMs(subscription);
    const qint64 handshake = validation.attentionMs(subscription, now);
    if (write < 0)
        return handshake;
    return handshake < 0 ? write : std::min(write, handshake);
}

PublishParseResult Engine::parsePublish(const PublishTicket &ticket)
{
    return Ingest::parse(ticket);
}

void Engine::setProvisioningStore(ProvisioningStore *store)
{
    m_units->validation.setStore(store);
}

void Engine::setValidationBaseUrl(const QUrl &baseUrl)
{
    m_units->validation.setBaseUrl(baseUrl);
}

QUrl Engine::validationBaseUrl() const
{
    return m_units->validation.baseUrl();
}

qint64 Engine::responseTimeoutMs() const
{
    return m_units->state.options.responseTimeoutMs;
}

const Workspace &Engine::workspace() const
{
    return m_units->state.workspace;
}

Clock *Engine::clock() const
{
    return m_units->state.clock;
}

bool Engine::hasTopic(const QString &topicName) const
{
    const StateLock lock(m_units->state.lock);
    return m_units->state.workspace.findTopic(topicName) != nullptr;
}

PublishResult Engine::publish(const QString &topicName, const QByteArray &body,
                              const QByteArray &contentType)
{
    return m_units->ingest.publish(topicName, body, contentType);
}

void Engine::publishAsync(const QString &topicName, const QByteArray &body,
                          const QByteArray &contentType,
                          std::function<void(const PublishResult &result)> done)
{
    m_units->ingest.publishAsync(topicName, body, contentType, std::move(done));
}

PublishResult Engine::preparePublish(const QString &topicName, const QByteArray &body,
                                     const QByteArray &contentType, PublishTicket *ticket)
{
    return m_units->ingest.prepare(topicName, body, contentType, ticket);
}

PublishResult Engine::publishParsed(const PublishTicket &ticket, PublishParseResult parsed)
{
    return m_units->ingest.publishParsed(ticket, std::move(parsed));
}

ResubmitResult Engine::resubmitDeadLetters(const QList<qint64> &deadLetterIds)
{
    const StateLock lock(m_units->state.lock);
    return m_units->deadLettering.resubmit(deadLetterIds);
}

ResubmitResult Engine::resubmitDeadLetters(const DeadLetterQuery &query)
{
    const StateLock lock(m_units->state.lock);
    return m_units->deadLettering.resubmit(query);
}

TopicResubmitResult Engine::resubmitThroughTopic(const QList<qint64> &deadLetterIds,
                                                 ResubmitRun mode)
{
    const StateLock lock(m_units->state.lock);
    return m_units->topicResubmit.run(deadLetterIds, mode);
}

ManualValidationResult Engine::completeManualValidation(const QString &topic,
                                                        const QString &subscription,
                                                        const QString &code)
{
    const StateLock lock(m_units->state.lock);
    return m_units->validation.completeManual(topic, subscription, code);
}

Expected<void> Engine::revalidate(const QString &topic, const QString &subscription)
{
    const StateLock lock(m_units->state.lock);
    return m_units->validation.revalidate(topic, subscription);
}

ProvisioningState Engine::provisioningState(const QString &topic, const QString &subscription) const
{
    const StateLock lock(m_units->state.lock);
    const Subscription *found = m_units->state.findSubscription(topic, subscription);
    return found ? found->provisioningState() : ProvisioningState::Failed;
}

Expected<void> Engine::flush()
{
    const StateLock lock(m_units->state.lock);
    return m_units->commits.flush();
}

EngineSnapshot Engine::snapshot() const
{
    const StateLock lock(m_units->state.lock);
    EngineSnapshot snapshot;
    snapshot.nowMs = m_units->state.clock->nowMs();
    snapshot.store = m_units->state.storeHealth.snapshot();
    snapshot.parkedDeliveries = m_units->claims.parkedCount();
    for (const Topic &topic : m_units->state.workspace.topics)
        snapshot.topics.append(m_units->state.topicCounters.value(
            topic.name.toLower(), TopicSnapshot {topic.name, 0, 0, 0}));
    for (const auto &subscription : m_units->state.subscriptions) {
        if (subscription->removed)
            continue;
        SubscriptionSnapshot counters = subscription->counters;
        const ProbationTracker &probation = subscription->probation;
        counters.probationState = probation.state();
        counters.probationCause = probation.cause();
        counters.probationUntilMs = probation.untilMs();
        counters.consecutiveFailures = probation.consecutiveFailures();
        const ValidationState &validation = subscription->validation;
        counters.validationEnabled = subscription->config.needsEndpointValidation();
        counters.provisioningState = validation.record.state;
        counters.provisioningMessage = validation.record.message;
        counters.allowedRate = validation.record.allowedRate;
        if (validation.record.state == ProvisioningState::AwaitingManualActionValidation) {
            counters.validationUrl = m_units->validation.validationUrl(*subscription);
            counters.validationExpiresMs = validation.record.expiresMs;
        }
        if (validation.record.state == ProvisioningState::Creating
            && !validation.unreachableBecause.isEmpty()) {
            counters.endpointUnreachable = validation.unreachableBecause;
            counters.nextValidationMs = validation.reply ? 0 : validation.nextAttemptMs;
        }
        // Accepted but not attempted until the endpoint is validated or the secrets have come.
        counters.held = subscription->isHeld() ? counters.backlog : 0;
        counters.awaitingSecrets = subscription->awaitingSecrets;
        snapshot.subscriptions.append(counters);
    }
    return snapshot;
}

} // namespace EventDesk
