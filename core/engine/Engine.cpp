#include "Engine.h"

#include "../Logging.h"
#include "../io/DeadLetterSink.h"
#include "../rules/BatchBuilder.h"
#include "../rules/DeadLetterFormatter.h"
#include "../rules/FilterEvaluator.h"
#include "../rules/OutcomeClassifier.h"
#include "../rules/ProbationTracker.h"
#include "../rules/RetryPlanner.h"
#include "../rules/SchemaConverter.h"
#include "Clock.h"
#include "DeliveryLane.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QSet>
#include <QThread>
#include <QUrlQuery>
#include <QUuid>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

// Event Grid: a validation URL is valid for 5 minutes.
constexpr qint64 ManualValidationWindowMs = 5 * 60 * 1000;

// An endpoint that cannot be reached yet (not started, restarting, overloaded) is asked again
// after 5 s, 10 s, 30 s, 1 min, then every 5 min (engine time), for as long as the subscription
// exists: a webhook started after EventDesk is the usual order, not an error.
qint64 validationRetryDelayMs(int unansweredHandshakes)
{
    static constexpr qint64 Delays[] = {5'000, 10'000, 30'000, 60'000};
    if (unansweredHandshakes >= 1 && unansweredHandshakes <= int(std::size(Delays)))
        return Delays[unansweredHandshakes - 1];
    return 5 * 60'000;
}

// The wait between two requests that WebHook-Allowed-Rate (requests per minute, or "*") asks for;
// 0 when it sets no limit.
qint64 allowedRateIntervalMs(const QString &allowedRate)
{
    if (allowedRate.isEmpty() || allowedRate == u'*')
        return 0;
    bool ok = false;
    const qint64 perMinute = allowedRate.toLongLong(&ok);
    if (!ok || perMinute <= 0)
        return 0; // not a rate the CloudEvents webhook spec defines: no limit rather than a stall
    return (60'000 + perMinute - 1) / perMinute;
}

QString formatDelay(qint64 ms)
{
    if (ms < 60'000)
        return u"%1 s"_s.arg((ms + 999) / 1000);
    return u"%1 min"_s.arg((ms + 59'999) / 60'000);
}

// Transport failures and 408/429/5xx answers mean "not reachable yet"; anything else the
// endpoint answered is its verdict on the handshake.
bool isUnreachableAnswer(int httpStatus)
{
    return httpStatus == 0 || httpStatus == 408 || httpStatus == 429 || httpStatus >= 500;
}

// "connection refused" rather than Qt's "Connection refused by host ...": the short form reads
// well inside "endpoint unreachable: ...; next validation attempt in 10 s".
QString transportFailure(const QNetworkReply *reply)
{
    switch (reply->error()) {
    case QNetworkReply::ConnectionRefusedError:
        return u"connection refused"_s;
    case QNetworkReply::RemoteHostClosedError:
        return u"connection closed without an answer"_s;
    case QNetworkReply::HostNotFoundError:
        return u"host name does not resolve"_s;
    case QNetworkReply::TimeoutError:
    case QNetworkReply::OperationCanceledError:
        return u"no answer"_s;
    case QNetworkReply::SslHandshakeFailedError:
        return u"TLS handshake failed"_s;
    default:
        return reply->errorString();
    }
}

// CloudEvents abuse protection: the origin Event Grid announces in WebHook-Request-Origin.
constexpr QByteArrayView EventGridOrigin = "eventgrid.azure.net";

// What a validation is about: a changed endpoint or delivery schema is validated again.
QString provisioningFingerprint(const EventSubscription &config)
{
    return config.endpointUrl.toString(QUrl::FullyEncoded) + u'|' + eventSchemaName(config.deliverySchema);
}

QString subscriptionKey(const QString &topic, const QString &subscription)
{
    return topic.toLower() + u'/' + subscription.toLower();
}

template <typename Entry>
void heapPush(std::vector<Entry> &heap, Entry entry)
{
    heap.push_back(entry);
    std::push_heap(heap.begin(), heap.end(), std::greater<>());
}

template <typename Entry>
void heapPop(std::vector<Entry> &heap)
{
    std::pop_heap(heap.begin(), heap.end(), std::greater<>());
    heap.pop_back();
}

// SPEC P3: dead letters caused by a no-retry-class probation name its cause.
DeadLetterReason probationReason(DeliveryOutcome cause)
{
    switch (cause) {
    case DeliveryOutcome::Unauthorized:
        return DeadLetterReason::UndeliverableDueToHttpUnauthorized;
    case DeliveryOutcome::Forbidden:
        return DeadLetterReason::UndeliverableDueToHttpForbidden;
    case DeliveryOutcome::Disabled:
        return DeadLetterReason::UndeliverableDueToHttpDisabled;
    case DeliveryOutcome::Full:
        return DeadLetterReason::UndeliverableDueToHttpFull;
    case DeliveryOutcome::InvalidAzureFunctionDestination:
        return DeadLetterReason::UndeliverableDueToHttpInvalidAzureFunctionDestination;
    default:
        return DeadLetterReason::UndeliverableDueToHttpForbidden;
    }
}

QByteArray scalarHeaderValue(const QJsonValue &value)
{
    // SPEC H3: only string, number and boolean values are used.
    switch (value.type()) {
    case QJsonValue::String:
        return value.toString().toUtf8();
    case QJsonValue::Bool:
        return value.toBool() ? QByteArrayLiteral("true") : QByteArrayLiteral("false");
    case QJsonValue::Double: {
        const double number = value.toDouble();
        if (std::floor(number) == number && std::abs(number) < 1e15)
            return QByteArray::number(qint64(number));
        return QByteArray::number(number, 'g', 17);
    }
    default:
        return {};
    }
}

bool hasLineBreak(const QByteArray &value)
{
    return value.contains('\r') || value.contains('\n');
}

} // namespace

struct Engine::EventCache
{
    // Events shared by the deliveries that currently need them; an entry disappears with the last
    // delivery holding it, so a large retry backlog does not keep payloads in memory.
    QHash<qint64, std::weak_ptr<const StoredEvent>> bySeq;

    std::shared_ptr<const StoredEvent> adopt(StoredEvent event)
    {
        const qint64 seq = event.seq;
        std::shared_ptr<const StoredEvent> shared(new StoredEvent(std::move(event)),
                                                  [this](const StoredEvent *stored) {
                                                      bySeq.remove(stored->seq);
                                                      delete stored;
                                                  });
        bySeq.insert(seq, shared);
        return shared;
    }

    std::shared_ptr<const StoredEvent> find(qint64 seq) const
    {
        const auto it = bySeq.constFind(seq);
        return it == bySeq.cend() ? nullptr : it->lock();
    }
};

struct Engine::Delivery
{
    qint64 id = 0;
    qint64 eventSeq = 0;
    qint64 dueMs = 0;
    qint64 publishMs = 0;
    qint64 lastAttemptMs = 0;
    qint64 deadLetterUnavailableSinceMs = 0;
    int attempts = 0;
    int lastHttpStatus = 0;
    int subscriptionIndex = 0;
    quint64 generation = 0; // heap entries with an older generation are stale
    DeliveryOutcome lastOutcome = DeliveryOutcome::Delivering;
    DeliveryState state = DeliveryState::Pending;
    DeadLetterReason reason = DeadLetterReason::None;
    std::shared_ptr<const StoredEvent> event; // loaded lazily when a request or a record needs it

    DeliveryRecord record(const Subscription &subscription) const;
};

struct Engine::Subscription
{
    int index = 0;
    QString topic;
    QString topicPath;
    EventSchema inputSchema = EventSchema::EventGrid;
    EventSubscription config;
    ProbationTracker probation;
    std::vector<HeapEntry> pending; // key: delivery id
    std::vector<HeapEntry> deadLetterPending; // key: delivery id
    int inFlightRequests = 0;
    bool deadLetterWriteInProgress = false;
    bool removed = false;
    quint64 heapGeneration = 0;
    qint64 scheduledAtMs = -1;
    SubscriptionSnapshot counters;

    // Endpoint validation: deliveries are sent only once the state is Succeeded.
    ProvisioningRecord provisioning;
    QPointer<QNetworkReply> validationReply; // the handshake in flight
    qint64 validationSentMs = 0;
    // Deliveries held while the endpoint is not validated, by the time their TTL runs out
    // (publish time + eventTimeToLiveInMinutes): kept only while the subscription is not
    // Succeeded, so that a held delivery is never stranded (issue: late webhook).
    std::vector<HeapEntry> heldExpiry; // key: delivery id
    bool heldTracked = false;
    int unansweredHandshakes = 0; // in a row: the endpoint was unreachable
    qint64 nextValidationMs = 0; // Creating, endpoint unreachable: when to ask again
    QString unreachableBecause; // the last transport failure or status, for the GUI
    qint64 nextRequestAllowedMs = 0; // WebHook-Allowed-Rate: no request before this (engine time)
};

DeliveryRecord Engine::Delivery::record(const Subscription &subscription) const
{
    DeliveryRecord result;
    result.id = id;
    result.eventSeq = eventSeq;
    result.topic = subscription.topic;
    result.subscription = subscription.config.name;
    // In-flight deliveries are persisted as pending: after a crash they are simply retried.
    result.state = state == DeliveryState::InFlight ? DeliveryState::Pending : state;
    result.attempts = attempts;
    result.dueMs = dueMs;
    result.publishMs = publishMs;
    result.lastOutcome = lastOutcome;
    result.lastHttpStatus = lastHttpStatus;
    result.lastAttemptMs = lastAttemptMs;
    result.reason = reason;
    result.deadLetterUnavailableSinceMs = deadLetterUnavailableSinceMs;
    return result;
}

struct Engine::Request
{
    quint64 id = 0;
    int subscriptionIndex = 0;
    QList<qint64> deliveryIds;
    QStringList eventIds;
    qint64 sentMs = 0;
    int attempt = 0; // attempt number of the first delivery (1-based)
    bool probe = false;
    bool timedOut = false; // D6: counted as failed at 30 s, still waiting for a late success
    bool aborted = false; // D6: abandoned at 3 min
    int lane = 0; // the DeliveryLane it was posted on
};

// Taken by every entry into the engine, on the engine thread and on the delivery lanes. When the
// outermost lock is released, the requests built meanwhile are handed to their lanes: Qt's work
// for a request then runs outside the lock, and a lane posts its own requests without a hop.
class Engine::StateLock
{
public:
    explicit StateLock(const Engine &engine)
        : m_engine(engine)
    {
        m_engine.m_stateMutex.lock();
        ++m_engine.m_lockDepth;
    }
    ~StateLock()
    {
        std::vector<OutgoingRequest> outgoing;
        if (--m_engine.m_lockDepth == 0)
            outgoing.swap(m_engine.m_outbox);
        m_engine.m_stateMutex.unlock();
        for (OutgoingRequest &request : outgoing) {
            m_engine.m_lanes[size_t(request.lane)]->post(request.requestId, request.request,
                                                         request.body, request.cancelGeneration);
        }
    }
    StateLock(const StateLock &) = delete;
    StateLock &operator=(const StateLock &) = delete;

private:
    const Engine &m_engine;
};

Engine::Engine(Clock *clock, QNetworkAccessManager *network, DeliveryStore *store,
               DeadLetterSink *deadLetterSink, EngineOptions options, QObject *parent)
    : QObject(parent)
    , m_clock(clock)
    , m_network(network)
    , m_store(store)
    , m_deadLetterSink(deadLetterSink)
    , m_options(options)
    , m_events(std::make_unique<EventCache>())
    , m_random(options.jitterSeed ? options.jitterSeed : std::random_device()())
{
    // One parser per core but the one the engine thread needs (at least one, at most four).
    m_parsers.setMaxThreadCount(std::clamp(QThread::idealThreadCount() - 1, 1, 4));
    connect(m_clock, &Clock::alarm, this, &Engine::onAlarm);
    m_flushTimer.setSingleShot(true);
    connect(&m_flushTimer, &QTimer::timeout, this, [this] { (void)flush(); });
    setDeliveryLanes(0);
}

Engine::~Engine()
{
    if (m_running)
        shutdown();
    // Lanes stop before anything they report to goes away (no lock held: a lane may be waiting
    // for it to report a reply, which it then finds cancelled).
    m_lanes.clear();
    // Deliveries hold events whose deleter touches the cache: release them first.
    m_deliveries.clear();
}

void Engine::setDeliveryLanes(int count)
{
    Q_ASSERT(!m_running);
    const auto finished = [this](quint64 requestId, int httpStatus, QNetworkReply::NetworkError error) {
        onLaneFinished(requestId, httpStatus, error);
    };
    m_lanes.clear();
    for (int i = 0; i < count; ++i)
        m_lanes.push_back(std::make_unique<DeliveryLane>(i, finished));
    if (m_lanes.empty())
        m_lanes.push_back(std::make_unique<DeliveryLane>(m_network, finished));
    m_laneInFlight.assign(m_lanes.size(), 0);
}

int Engine::recommendedDeliveryLanes()
{
    return std::clamp(QThread::idealThreadCount(), 1, 4);
}

bool Engine::onEngineThread() const
{
    return QThread::currentThread() == thread();
}

void Engine::setSecretResolver(
    std::function<QString(const QString &, const QString &, const QString &)> resolver)
{
    m_secretResolver = std::move(resolver);
}

Expected<void> Engine::start(const Workspace &workspace)
{
    const StateLock lock(*this);
    const qint64 now = m_clock->nowMs();
    auto ids = m_store->maxIds();
    if (!ids)
        return Error(ids.error());
    m_nextEventSeq = ids->eventSeq + 1;
    m_nextDeliveryId = ids->deliveryId + 1;

    m_workspace = workspace;
    ++m_workspaceGeneration;
    m_restoredProvisioning.clear();
    if (m_provisioningStore) {
        auto records = m_provisioningStore->load();
        if (!records)
            return Error(records.error());
        for (const ProvisioningRecord &record : std::as_const(records.value()))
            m_restoredProvisioning.insert(subscriptionKey(record.topic, record.subscription), record);
    }
    rebuildSubscriptions(workspace, now);
    m_restoredProvisioning.clear();
    saveProvisioning();

    auto probation = m_store->loadProbation();
    if (!probation)
        return Error(probation.error());
    for (const ProbationRecord &record : std::as_const(probation.value())) {
        if (Subscription *subscription = findSubscription(record.topic, record.subscription)) {
            subscription->probation.restore(ProbationTracker::State(record.state), record.cause,
                                            record.untilMs, record.durationMs,
                                            record.consecutiveFailures);
        }
    }

    // Streamed: a backlog of a million deliveries is never held twice (records and engine).
    qsizetype restored = 0;
    Subscription *lastSubscription = nullptr; // rows of one subscription tend to follow each other
    QString lastTopic;
    QString lastName;
    auto loaded = m_store->forEachUnfinishedDelivery([&](const DeliveryRecord &record) {
        Delivery &ref = m_deliveries.try_emplace(record.id).first->second;
        ref.id = record.id;
        ref.eventSeq = record.eventSeq;
        ref.dueMs = record.dueMs;
        ref.publishMs = record.publishMs;
        ref.lastAttemptMs = record.lastAttemptMs;
        ref.deadLetterUnavailableSinceMs = record.deadLetterUnavailableSinceMs;
        ref.attempts = record.attempts;
        ref.lastHttpStatus = record.lastHttpStatus;
        ref.lastOutcome = record.lastOutcome;
        ref.reason = record.reason;
        ref.state = record.state == DeliveryState::DeadLetterPending
                              ? DeliveryState::DeadLetterPending
                              : DeliveryState::Pending;
        if (record.topic != lastTopic || record.subscription != lastName) {
            lastSubscription = findSubscription(record.topic, record.subscription);
            lastTopic = record.topic;
            lastName = record.subscription;
        }
        Subscription *subscription = lastSubscription;
        if (!subscription) {
            drop(nullptr, ref, DeadLetterReason::SubscriptionDeleted, now);
            return;
        }
        ref.subscriptionIndex = subscription->index;
        // Appended in store order; each heap is built once below (linear instead of n log n).
        if (ref.state == DeliveryState::DeadLetterPending) {
            subscription->deadLetterPending.push_back(HeapEntry{ref.dueMs, quint64(ref.id), ref.generation});
            ++subscription->counters.deadLetterPending;
        } else {
            ++ref.generation;
            subscription->pending.push_back(HeapEntry{ref.dueMs, quint64(ref.id), ref.generation});
            ++subscription->counters.backlog;
        }
        ++restored;
    });
    for (const auto &subscription : m_subscriptions) {
        std::make_heap(subscription->pending.begin(), subscription->pending.end(), std::greater<>());
        std::make_heap(subscription->deadLetterPending.begin(), subscription->deadLetterPending.end(),
                       std::greater<>());
        subscription->heldTracked = false; // the restored backlog is held too until validated
        syncHeld(*subscription);
    }
    if (!loaded)
        return Error(loaded.error());
    qCInfo(lcScheduler) << "restored" << restored << "unfinished deliveries";

    m_running = true;
    for (const auto &subscription : m_subscriptions)
        reschedule(*subscription, now);
    return {};
}

void Engine::rebuildSubscriptions(const Workspace &workspace, qint64 now)
{
    QHash<QString, Subscription *> existing;
    for (const auto &subscription : m_subscriptions) {
        if (!subscription->removed)
            existing.insert(subscriptionKey(subscription->topic, subscription->config.name),
                            subscription.get());
    }
    QSet<Subscription *> kept;
    for (const Topic &topic : workspace.topics) {
        if (!m_topicCounters.contains(topic.name.toLower()))
            m_topicCounters.insert(topic.name.toLower(), TopicSnapshot{topic.name, 0, 0, 0});
        for (const EventSubscription &config : topic.eventSubscriptions) {
            Subscription *subscription = existing.value(subscriptionKey(topic.name, config.name));
            if (!subscription) {
                auto created = std::make_unique<Subscription>();
                created->index = int(m_subscriptions.size());
                subscription = created.get();
                m_subscriptions.push_back(std::move(created));
            }
            subscription->topic = topic.name;
            subscription->topicPath = topic.resourcePath();
            subscription->inputSchema = topic.inputSchema;
            subscription->config = config;
            subscription->probation.setThreshold(workspace.settings.probationThreshold);
            subscription->counters.topic = topic.name;
            subscription->counters.subscription = config.name;
            subscription->counters.enabled = config.enabled;
            updateProvisioning(*subscription, now);
            subscription->heldTracked = false; // the TTL may have changed: held again from scratch
            syncHeld(*subscription);
            kept.insert(subscription);
        }
    }
    for (const auto &subscription : m_subscriptions) {
        if (subscription->removed || kept.contains(subscription.get()))
            continue;
        // The subscription was deleted: its backlog cannot be delivered any more.
        abortValidation(*subscription);
        subscription->removed = true;
        QList<Delivery *> orphans;
        for (auto &[id, delivery] : m_deliveries) {
            if (delivery.subscriptionIndex == subscription->index
                && delivery.state != DeliveryState::InFlight)
                orphans.append(&delivery);
        }
        for (Delivery *delivery : std::as_const(orphans))
            drop(subscription.get(), *delivery, DeadLetterReason::SubscriptionDeleted, now);
        subscription->pending.clear();
        subscription->deadLetterPending.clear();
    }
}

Expected<void> Engine::applyWorkspace(const Workspace &workspace)
{
    const StateLock lock(*this);
    const qint64 now = m_clock->nowMs();
    m_workspace = workspace;
    ++m_workspaceGeneration;
    rebuildSubscriptions(workspace, now);
    saveProvisioning();
    for (const auto &subscription : m_subscriptions)
        reschedule(*subscription, now);
    scheduleFlush();
    return {};
}

void Engine::shutdown()
{
    const StateLock lock(*this);
    if (!m_running)
        return;
    m_running = false;
    // Publishes being stored on parser threads finish first; their deliveries stay pending in
    // the store (the engine no longer adopts them) and are sent after a restart.
    m_parsers.waitForDone();
    m_clock->cancelAlarm();
    m_alarmAtMs = -1;
    // SPEC §7 Canceled: requests cut short by shutdown; their deliveries stay pending in the
    // store and are retried after a restart.
    m_requests.clear();
    // Lanes drop what they were handed and abort what they posted, without reporting back.
    m_outbox.clear();
    for (const auto &lane : m_lanes)
        lane->cancelAll();
    std::fill(m_laneInFlight.begin(), m_laneInFlight.end(), 0);
    // A handshake cut short is simply sent again at the next start (the state stays Creating,
    // which is never restored).
    const QList<QNetworkReply *> handshakes = m_validationByReply.keys();
    m_validationByReply.clear();
    for (QNetworkReply *reply : handshakes)
        reply->abort();
    m_flushTimer.stop();
    m_flushArmed = false;
    if (auto result = flush(); !result)
        qCWarning(lcStore) << "final commit failed:" << result.error();
}

bool Engine::hasTopic(const QString &topicName) const
{
    const StateLock lock(*this);
    return m_workspace.findTopic(topicName) != nullptr;
}

const Engine::Subscription *Engine::findSubscription(const QString &topic, const QString &name) const
{
    return const_cast<Engine *>(this)->findSubscription(topic, name);
}

Engine::Subscription *Engine::findSubscription(const QString &topic, const QString &name)
{
    const QString key = subscriptionKey(topic, name);
    for (const auto &subscription : m_subscriptions) {
        if (!subscription->removed && subscriptionKey(subscription->topic, subscription->config.name) == key)
            return subscription.get();
    }
    return nullptr;
}

PublishResult Engine::preparePublish(const QString &topicName, const QByteArray &body,
                                     const QByteArray &contentType, PublishTicket *ticket)
{
    const StateLock lock(*this);
    PublishResult result;
    const Topic *topic = m_workspace.findTopic(topicName);
    if (!topic) {
        result.httpStatus = 404;
        result.errorCode = u"NotFound"_s;
        result.errorMessage = u"Topic '%1' does not exist in this workspace."_s.arg(topicName);
        return result;
    }
    if (!m_running) {
        result.httpStatus = 503;
        result.errorCode = u"ServiceUnavailable"_s;
        result.errorMessage = u"The engine is shutting down."_s;
        return result;
    }
    ticket->topic = *topic;
    ticket->body = body;
    ticket->contentType = contentType;
    ticket->nowMs = m_clock->nowMs();
    ticket->publishTimeIso = DeadLetterFormatter::formatTime(ticket->nowMs);
    ticket->workspaceGeneration = m_workspaceGeneration;
    // Filter views cost a copy of every event; only advanced filters read them.
    ticket->filterViews = EventParser::FilterViews::Skip;
    for (const auto &subscription : m_subscriptions) {
        if (subscription->removed || subscription->topic.compare(topic->name, Qt::CaseInsensitive) != 0)
            continue;
        if (!subscription->config.filter.advancedFilters.isEmpty())
            ticket->filterViews = EventParser::FilterViews::Build;
        if (subscription->config.enabled) {
            ticket->targets.append(PublishTarget{subscription->index, subscription->topic,
                                                 subscription->config.name,
                                                 subscription->config.filter});
        }
    }
    return result;
}

PublishParseResult Engine::parsePublish(const PublishTicket &ticket)
{
    return EventParser::parse(ticket.topic, ticket.body, ticket.contentType, ticket.publishTimeIso,
                              ticket.filterViews);
}

PublishResult Engine::publish(const QString &topicName, const QByteArray &body,
                              const QByteArray &contentType)
{
    const StateLock lock(*this);
    PublishTicket ticket;
    const PublishResult prepared = preparePublish(topicName, body, contentType, &ticket);
    if (prepared.httpStatus != 200)
        return prepared;
    return publishParsed(ticket, parsePublish(ticket));
}

void Engine::publishAsync(const QString &topicName, const QByteArray &body,
                          const QByteArray &contentType,
                          std::function<void(const PublishResult &result)> done)
{
    // Below this size a request costs less to parse than a trip to another thread and back.
    constexpr qsizetype ParseElsewhereBytes = 32 * 1024;
    PublishTicket ticket;
    const PublishResult prepared = preparePublish(topicName, body, contentType, &ticket);
    if (prepared.httpStatus != 200) {
        done(prepared);
        return;
    }
    if (body.size() < ParseElsewhereBytes) {
        done(publishParsed(ticket, parsePublish(ticket)));
        return;
    }
    // The request is parsed and, when accepted, stored on the parser thread: the engine thread
    // goes on delivering meanwhile and only schedules the committed deliveries.
    m_parsers.start([this, ticket = std::move(ticket), done = std::move(done)]() mutable {
        PublishParseResult parsed = parsePublish(ticket);
        if (!parsed.isAccepted() || ticket.workspaceGeneration != m_workspaceGeneration.load()) {
            // Rejections are counted, and a changed workspace handled, on the engine thread.
            QMetaObject::invokeMethod(
                this,
                [this, ticket = std::move(ticket), done = std::move(done),
                 parsed = std::move(parsed)]() mutable {
                    done(publishParsed(ticket, std::move(parsed)));
                },
                Qt::QueuedConnection);
            return;
        }
        PublishRows rows = buildPublishRows(ticket, parsed);
        parsed = PublishParseResult(); // the events live on in rows
        // SPEC D1: acknowledged (by done) only after this commit.
        auto stored = m_store->insertPublished(rows.events, rows.records);
        QMetaObject::invokeMethod(
            this,
            [this, ticket = std::move(ticket), done = std::move(done), rows = std::move(rows),
             stored = std::move(stored)]() mutable {
                PublishResult result;
                {
                    const StateLock lock(*this);
                    result = stored ? adoptPublished(ticket, std::move(rows))
                                    : storeFailed(ticket, stored.error());
                }
                done(result);
            },
            Qt::QueuedConnection);
    });
}

PublishResult Engine::publishParsed(const PublishTicket &ticket, PublishParseResult parsed)
{
    const StateLock lock(*this);
    // The workspace changed while the request was parsed elsewhere: the topic may be gone or
    // take another schema now, so the request is taken again from the start.
    if (ticket.workspaceGeneration != m_workspaceGeneration)
        return publish(ticket.topic.name, ticket.body, ticket.contentType);
    PublishResult result;
    const Topic *topic = m_workspace.findTopic(ticket.topic.name);
    if (!topic || !m_running) {
        result.httpStatus = 503;
        result.errorCode = u"ServiceUnavailable"_s;
        result.errorMessage = u"The engine is shutting down."_s;
        return result;
    }
    if (!parsed.isAccepted()) {
        ++m_topicCounters[topic->name.toLower()].rejectedRequests;
        result.httpStatus = parsed.httpStatus;
        result.errorCode = parsed.errorCode;
        result.errorMessage = parsed.errorMessage;
        return result;
    }

    PublishRows rows = buildPublishRows(ticket, parsed);
    // SPEC D1: acknowledge only after the events and their deliveries are committed.
    if (auto stored = m_store->insertPublished(rows.events, rows.records); !stored)
        return storeFailed(ticket, stored.error());
    return adoptPublished(ticket, std::move(rows));
}

Engine::PublishRows Engine::buildPublishRows(const PublishTicket &ticket, const PublishParseResult &parsed)
{
    PublishRows rows;
    rows.events.reserve(parsed.events.size());
    const qint64 now = ticket.nowMs;
    const qint64 firstSeq = m_nextEventSeq.fetch_add(parsed.events.size());
    qint64 seq = firstSeq;
    for (const PublishedEvent &published : std::as_const(parsed.events)) {
        StoredEvent event;
        event.seq = seq++;
        event.topic = ticket.topic.name;
        event.id = published.id;
        event.eventType = published.eventType;
        event.subject = published.subject;
        event.dataVersion = published.dataVersion;
        event.eventTime = published.eventTime;
        event.publishMs = now;
        event.body = published.body;
        bool matched = false;
        for (int i = 0; i < ticket.targets.size(); ++i) {
            const PublishTarget &target = ticket.targets.at(i);
            if (!FilterEvaluator::matches(target.filter, published.eventType, published.subject,
                                          published.filterView))
                continue;
            matched = true;
            DeliveryRecord record;
            record.eventSeq = event.seq;
            record.topic = target.topic;
            record.subscription = target.subscription;
            record.state = DeliveryState::Pending;
            record.dueMs = now; // SPEC D2: delivered right away
            record.publishMs = now;
            rows.records.append(record);
            rows.recordTarget.append(i);
        }
        if (!matched)
            ++rows.unmatched;
        rows.events.append(std::move(event));
    }
    qint64 deliveryId = m_nextDeliveryId.fetch_add(rows.records.size());
    for (DeliveryRecord &record : rows.records)
        record.id = deliveryId++;
    return rows;
}

PublishResult Engine::storeFailed(const PublishTicket &ticket, const QString &error)
{
    qCWarning(lcStore) << "publish to" << ticket.topic.name << "not stored:" << error;
    ++m_topicCounters[ticket.topic.name.toLower()].rejectedRequests;
    PublishResult result;
    result.httpStatus = 500;
    result.errorCode = u"InternalServerError"_s;
    result.errorMessage = u"The events could not be stored: %1"_s.arg(error);
    return result;
}

PublishResult Engine::adoptPublished(const PublishTicket &ticket, PublishRows rows)
{
    const qint64 now = ticket.nowMs;
    TopicSnapshot &topicCounters = m_topicCounters[ticket.topic.name.toLower()];
    topicCounters.published += quint64(rows.events.size());
    topicCounters.unmatched += rows.unmatched;
    PublishResult result;
    result.accepted = int(rows.events.size());
    result.deliveriesCreated = int(rows.records.size());

    QHash<qint64, std::shared_ptr<const StoredEvent>> shared;
    for (StoredEvent &event : rows.events) {
        const qint64 eventSeq = event.seq;
        shared.insert(eventSeq, m_events->adopt(std::move(event)));
    }
    QSet<Subscription *> touched;
    for (qsizetype i = 0; i < rows.records.size(); ++i) {
        const DeliveryRecord &record = rows.records.at(i);
        const PublishTarget &target = ticket.targets.at(rows.recordTarget.at(i));
        Subscription &subscription = *m_subscriptions.at(size_t(target.subscriptionIndex));
        Delivery &ref = m_deliveries.try_emplace(record.id).first->second;
        ref.id = record.id;
        ref.eventSeq = record.eventSeq;
        ref.dueMs = now;
        ref.publishMs = now;
        ref.subscriptionIndex = subscription.index;
        ref.event = shared.value(record.eventSeq);
        if (subscription.removed || !m_running) {
            // Stored on a parser thread while the subscription was deleted (or the engine
            // stopped): handled like the rest of that subscription's backlog.
            if (subscription.removed) {
                ++subscription.counters.backlog; // the backlog it is dropped from
                drop(&subscription, ref, DeadLetterReason::SubscriptionDeleted, now);
            } else {
                m_deliveries.erase(record.id); // pending in the store: sent after a restart
            }
            continue;
        }
        ++subscription.counters.matched;
        pushPending(subscription, ref);
        touched.insert(&subscription);
    }
    for (Subscription *subscription : std::as_const(touched))
        reschedule(*subscription, now);
    return result;
}

void Engine::pushPending(Subscription &subscription, Delivery &delivery)
{
    delivery.state = DeliveryState::Pending;
    ++delivery.generation;
    heapPush(subscription.pending, HeapEntry{delivery.dueMs, quint64(delivery.id), delivery.generation});
    ++subscription.counters.backlog;
    if (subscription.heldTracked)
        heapPush(subscription.heldExpiry, heldEntry(subscription, delivery));
}

Engine::HeapEntry Engine::heldEntry(const Subscription &subscription, const Delivery &delivery)
{
    const qint64 ttlMs = qint64(subscription.config.retryPolicy.eventTimeToLiveInMinutes) * 60'000;
    return HeapEntry{delivery.publishMs + ttlMs, quint64(delivery.id), delivery.generation};
}

void Engine::syncHeld(Subscription &subscription)
{
    if (subscription.provisioning.state == ProvisioningState::Succeeded) {
        subscription.heldExpiry = {};
        subscription.heldTracked = false;
        return;
    }
    if (subscription.heldTracked)
        return;
    // Entering a held state: every pending delivery is held from now on (one pass).
    subscription.heldExpiry.clear();
    for (const HeapEntry &entry : subscription.pending) {
        const auto it = m_deliveries.find(qint64(entry.key));
        if (it != m_deliveries.end() && it->second.state == DeliveryState::Pending
            && it->second.generation == entry.generation)
            subscription.heldExpiry.push_back(heldEntry(subscription, it->second));
    }
    std::make_heap(subscription.heldExpiry.begin(), subscription.heldExpiry.end(), std::greater<>());
    subscription.heldTracked = true;
}

void Engine::serviceHeld(Subscription &subscription, qint64 now)
{
    const auto takeHeld = [this, &subscription](std::vector<HeapEntry> &heap) -> Delivery * {
        const HeapEntry entry = heap.front();
        heapPop(heap);
        const auto it = m_deliveries.find(qint64(entry.key));
        if (it == m_deliveries.end() || it->second.state != DeliveryState::Pending
            || it->second.generation != entry.generation)
            return nullptr; // stale: the delivery moved on since
        --subscription.counters.backlog;
        return &it->second;
    };
    if (subscription.provisioning.state == ProvisioningState::Failed) {
        // The endpoint refused validation: what waited for it, and what arrives while it stays
        // Failed, is dead-lettered (SPEC L1: or dropped) instead of waiting for ever. A restart,
        // an edit or "Validate now" validates it again.
        int ended = 0;
        while (!subscription.pending.empty()) {
            if (Delivery *delivery = takeHeld(subscription.pending)) {
                delivery->lastOutcome = DeliveryOutcome::EndpointValidationFailed;
                endUndelivered(subscription, *delivery, DeadLetterReason::EndpointValidationFailed, now);
                ++ended;
            }
        }
        subscription.heldExpiry.clear();
        if (ended > 0)
            qCInfo(lcDelivery) << "subscription" << subscription.topic << "/" << subscription.config.name << ":"
                               << ended << "held deliveries end EndpointValidationFailed (validation Failed)";
        return;
    }
    // Creating / AwaitingManualActionValidation: SPEC R6's TTL still runs; a held delivery whose
    // TTL ran out leaves with TimeToLiveExceeded and lastDeliveryOutcome EndpointValidationPending.
    int expired = 0;
    while (!subscription.heldExpiry.empty() && subscription.heldExpiry.front().atMs <= now) {
        if (Delivery *delivery = takeHeld(subscription.heldExpiry)) {
            delivery->lastOutcome = DeliveryOutcome::EndpointValidationPending;
            endUndelivered(subscription, *delivery, DeadLetterReason::TimeToLiveExceeded, now);
            ++expired;
        }
    }
    if (expired > 0)
        qCInfo(lcDelivery) << "subscription" << subscription.topic << "/" << subscription.config.name << ":"
                           << expired << "held deliveries end TimeToLiveExceeded while the endpoint is"
                           << provisioningStateName(subscription.provisioning.state);
}

double Engine::nextJitter()
{
    if (!m_options.jitter)
        return 0.0;
    // SPEC R5: uniform 0 .. +10 % of the wait.
    std::uniform_real_distribution<double> distribution(0.0, 0.1);
    return distribution(m_random);
}

void Engine::onAlarm()
{
    const StateLock lock(*this);
    if (!m_running)
        return;
    m_alarmAtMs = -1;
    m_inAlarm = true;
    const qint64 now = m_clock->nowMs();

    // D6 deadlines first: a timed-out request frees its slot for the subscriptions serviced next.
    while (!m_deadlineHeap.empty() && m_deadlineHeap.front().atMs <= now) {
        const HeapEntry entry = m_deadlineHeap.front();
        heapPop(m_deadlineHeap);
        if (entry.generation == 0)
            onRequestTimedOut(entry.key, now);
        else
            onRequestAbortDue(entry.key);
    }

    // Each subscription is serviced at most once per alarm; work it re-schedules for "now" runs
    // on the next alarm, so a bug can never spin here.
    std::vector<HeapEntry> deferred;
    while (!m_subscriptionHeap.empty() && m_subscriptionHeap.front().atMs <= now) {
        const HeapEntry entry = m_subscriptionHeap.front();
        heapPop(m_subscriptionHeap);
        Subscription &subscription = *m_subscriptions.at(entry.key);
        if (entry.generation != subscription.heapGeneration)
            continue;
        subscription.scheduledAtMs = -1;
        service(subscription, now);
    }
    m_inAlarm = false;
    rearmAlarm();
}

void Engine::service(Subscription &subscription, qint64 now)
{
    if (subscription.removed)
        return;
    // Dead-letter writes and handshakes use the engine thread's objects: on a lane they wait for
    // the alarm, which reschedule() below sets for them.
    if (onEngineThread()) {
        serviceDeadLetters(subscription, now);
        serviceProvisioning(subscription, now);
    }

    // Deliveries wait (not attempted, not lost) until the endpoint is validated.
    if (subscription.config.enabled && subscription.provisioning.state == ProvisioningState::Succeeded) {
        ProbationTracker &probation = subscription.probation;
        probation.update(now);
        switch (probation.dueAction()) {
        case ProbationTracker::DueAction::Send: {
            int capacity = probation.state() == ProbationTracker::State::HalfOpen
                               ? 1
                               : std::max(0, m_workspace.settings.maxConcurrentRequestsPerSubscription
                                                 - subscription.inFlightRequests);
            // CloudEvents abuse protection: the endpoint granted this many requests per minute.
            const qint64 interval = allowedRateIntervalMs(subscription.provisioning.allowedRate);
            if (interval > 0)
                capacity = now >= subscription.nextRequestAllowedMs ? std::min(capacity, 1) : 0;
            if (sendBatches(subscription, now, capacity) > 0 && interval > 0)
                subscription.nextRequestAllowedMs = now + interval;
            break;
        }
        case ProbationTracker::DueAction::DeadLetterWithoutAttempt:
            serviceProbationDue(subscription, now);
            break;
        case ProbationTracker::DueAction::Defer:
            // SPEC P3/P5: transient probation defers due deliveries; the backlog stays untouched
            // and the subscription sleeps in the heap until the probation ends.
            break;
        }
    } else if (subscription.config.enabled) {
        serviceHeld(subscription, now);
    }
    reschedule(subscription, now);
}

Engine::Delivery *Engine::takeDueDelivery(Subscription &subscription, qint64 now)
{
    while (!subscription.pending.empty() && subscription.pending.front().atMs <= now) {
        const HeapEntry entry = subscription.pending.front();
        heapPop(subscription.pending);
        auto it = m_deliveries.find(qint64(entry.key));
        if (it == m_deliveries.end())
            continue;
        Delivery &delivery = it->second;
        if (delivery.state != DeliveryState::Pending || delivery.generation != entry.generation)
            continue;
        --subscription.counters.backlog;
        // SPEC R7: the TTL is checked only now, when the next attempt comes due.
        if (RetryPlanner::isExpired(subscription.config.retryPolicy, delivery.publishMs, now)) {
            // Never sent because the subscription was in probation (P3): that is its outcome,
            // not the "Delivering" it was created with.
            if (delivery.attempts == 0
                && subscription.probation.state() != ProbationTracker::State::Healthy) {
                delivery.lastOutcome = DeliveryOutcome::Probation;
            }
            endUndelivered(subscription, delivery, DeadLetterReason::TimeToLiveExceeded, now);
            continue;
        }
        return &delivery;
    }
    return nullptr;
}

void Engine::endUndelivered(Subscription &subscription, Delivery &delivery, DeadLetterReason reason,
                            qint64 now)
{
    // SPEC L1: dead-lettered when the subscription has a destination, dropped otherwise.
    if (RetryPlanner::fateAction(subscription.config.hasDeadLetterDestination())
        == RetryDecision::Action::DeadLetter)
        toDeadLetterPending(subscription, delivery, reason, now);
    else
        drop(&subscription, delivery, reason, now);
}

void Engine::serviceProbationDue(Subscription &subscription, qint64 now)
{
    // SPEC P3: a probation caused by a no-retry class of outcome dead-letters due deliveries
    // without an attempt, with lastDeliveryOutcome Probation.
    const DeadLetterReason reason = probationReason(subscription.probation.cause());
    while (Delivery *delivery = takeDueDelivery(subscription, now)) {
        delivery->lastOutcome = DeliveryOutcome::Probation;
        delivery->lastHttpStatus = 0;
        endUndelivered(subscription, *delivery, reason, now);
    }
}

int Engine::sendBatches(Subscription &subscription, qint64 now, int maxRequests)
{
    const BatchPolicy &batchPolicy = subscription.config.batchPolicy;
    const int perRequest = batchPolicy.enabled ? batchPolicy.maxEventsPerBatch : 1;
    // Due deliveries are taken a chunk at a time until the batch is full, so that what goes back
    // to the heap is at most one chunk: a 1 MB batch of 1 KB events holds ~1000 of up to 5000,
    // and taking 5000 to send 1000 made every delivery go through the heap several times.
    constexpr int ChunkSize = 256;
    int sent = 0;
    std::vector<Delivery *> ready;
    std::vector<Delivery *> chunk;
    QList<QByteArray> bodies;
    QList<qsizetype> sizes;
    while (sent < maxRequests) {
        ready.clear();
        bodies.clear();
        sizes.clear();
        qsizetype take = 0;
        bool loaded = true;
        // SPEC B5: what is due now, never waiting to fill a batch.
        while (int(ready.size()) < perRequest) {
            const int wanted = std::min(perRequest - int(ready.size()), ChunkSize);
            chunk.clear();
            while (int(chunk.size()) < wanted) {
                Delivery *delivery = takeDueDelivery(subscription, now);
                if (!delivery)
                    break;
                delivery->state = DeliveryState::InFlight; // claimed; not in the heap any more
                chunk.push_back(delivery);
            }
            if (chunk.empty())
                break;
            ready.insert(ready.end(), chunk.cbegin(), chunk.cend());
            if (!ensureEventsLoaded(chunk)) {
                loaded = false;
                break;
            }
            for (Delivery *delivery : chunk) {
                bodies.append(deliveredBody(subscription, *delivery));
                sizes.append(bodies.constLast().size());
            }
            take = batchPolicy.enabled
                ? std::max<qsizetype>(1, BatchBuilder::nextBatchSize(batchPolicy, sizes))
                : 1;
            if (take < qsizetype(ready.size()) || int(chunk.size()) < wanted)
                break; // the batch is full, or nothing more is due
        }
        if (ready.empty())
            break;
        if (!loaded) {
            // The store could not be read: put everything back and try again shortly.
            for (Delivery *delivery : ready) {
                delivery->dueMs = now + 1000;
                pushPending(subscription, *delivery);
            }
            break;
        }
        // What does not fit this batch goes back, still due (a later batch takes it).
        for (size_t i = size_t(take); i < ready.size(); ++i)
            pushPending(subscription, *ready[i]);
        ready.resize(size_t(take));
        bodies.resize(take);

        const bool probe = subscription.probation.state() == ProbationTracker::State::HalfOpen;
        sendRequest(subscription, ready, bodies, now, probe);
        ++sent;
        if (probe)
            break; // SPEC P4: exactly one delivery request is tried first
    }
    return sent;
}

bool Engine::ensureEventsLoaded(const std::vector<Delivery *> &deliveries)
{
    QList<qint64> missing;
    for (Delivery *delivery : deliveries) {
        if (delivery->event)
            continue;
        if (auto cached = m_events->find(delivery->eventSeq))
            delivery->event = std::move(cached);
        else if (!missing.contains(delivery->eventSeq))
            missing.append(delivery->eventSeq);
    }
    if (missing.isEmpty())
        return true;
    auto loaded = m_store->loadEvents(missing);
    if (!loaded) {
        qCWarning(lcStore) << "cannot load events:" << loaded.error();
        reportStoreError(loaded.error());
        return false;
    }
    // adopt() keeps only a weak reference: hold the loaded events until the deliveries do.
    std::vector<std::shared_ptr<const StoredEvent>> keepAlive;
    keepAlive.reserve(size_t(loaded->size()));
    for (StoredEvent &event : loaded.value())
        keepAlive.push_back(m_events->adopt(std::move(event)));
    for (Delivery *delivery : deliveries) {
        if (!delivery->event)
            delivery->event = m_events->find(delivery->eventSeq);
    }
    for (Delivery *delivery : deliveries) {
        if (!delivery->event) {
            qCCritical(lcStore) << "event" << delivery->eventSeq << "of delivery" << delivery->id
                                << "is missing from the store";
            return false;
        }
    }
    return true;
}

QByteArray Engine::deliveredBody(const Subscription &subscription, const Delivery &delivery) const
{
    const StoredEvent &event = *delivery.event;
    if (subscription.inputSchema == subscription.config.deliverySchema)
        return event.body;
    SchemaConverter::Envelope envelope;
    envelope.id = event.id;
    envelope.eventType = event.eventType;
    envelope.subject = event.subject;
    envelope.dataVersion = event.dataVersion;
    envelope.eventTime = event.eventTime;
    envelope.topicPath = subscription.topicPath;
    return SchemaConverter::convert(event.body, subscription.inputSchema,
                                    subscription.config.deliverySchema, envelope);
}

void Engine::sendRequest(Subscription &subscription, const std::vector<Delivery *> &batch,
                         const QList<QByteArray> &bodies, qint64 now, bool probe)
{
    const EventSubscription &config = subscription.config;
    const bool batching = config.batchPolicy.enabled;
    const Delivery &first = *batch.front();
    const StoredEvent &firstEvent = *first.event;

    QNetworkRequest request(config.endpointUrl);
    // SPEC D5: a 3xx is a failed attempt, so redirects are never followed.
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute,
                         QNetworkRequest::ManualRedirectPolicy);
    request.setHeader(QNetworkRequest::ContentTypeHeader,
                      SchemaConverter::contentType(config.deliverySchema, batching));
    // SPEC D7
    request.setRawHeader("aeg-event-type", "Notification");
    request.setRawHeader("aeg-subscription-name", config.name.toUpper().toUtf8());
    request.setRawHeader("aeg-delivery-count", QByteArray::number(first.attempts));
    if (!firstEvent.dataVersion.isEmpty())
        request.setRawHeader("aeg-data-version", firstEvent.dataVersion.toUtf8());
    request.setRawHeader("aeg-metadata-version",
                         config.deliverySchema == EventSchema::CloudEvents10 ? "1.0" : "1");
    // CloudEvents abuse protection: deliveries carry the origin the endpoint allowed.
    if (config.deliverySchema == EventSchema::CloudEvents10)
        request.setRawHeader("WebHook-Request-Origin", EventGridOrigin.toByteArray());

    // SPEC §9 custom delivery headers.
    QJsonObject firstDelivered;
    bool parsedFirst = false;
    for (const DeliveryHeader &header : config.deliveryHeaders) {
        QByteArray value;
        if (header.kind == DeliveryHeader::Kind::Static) {
            if (header.secret) {
                if (!m_secretResolver)
                    continue;
                value = m_secretResolver(subscription.topic, config.name, header.name).toUtf8();
                if (value.isEmpty())
                    continue;
            } else {
                value = header.value.toUtf8();
            }
        } else {
            if (!parsedFirst) {
                firstDelivered = QJsonDocument::fromJson(bodies.front()).object();
                parsedFirst = true;
            }
            // SPEC H3: a missing or non-scalar value omits the header.
            value = scalarHeaderValue(FilterEvaluator::lookup(firstDelivered, header.sourceField));
            if (value.isEmpty())
                continue;
        }
        if (hasLineBreak(value))
            continue; // H1: never let an event's data split a header
        request.setRawHeader(header.name.toUtf8(), value);
    }

    const QByteArray body = SchemaConverter::requestBody(bodies, config.deliverySchema, batching);

    auto pending = std::make_unique<Request>();
    pending->id = m_nextRequestId++;
    pending->subscriptionIndex = subscription.index;
    pending->sentMs = now;
    pending->attempt = first.attempts + 1;
    pending->probe = probe;
    for (Delivery *delivery : batch) {
        pending->deliveryIds.append(delivery->id);
        pending->eventIds.append(delivery->event->id);
        delivery->state = DeliveryState::InFlight;
        delivery->lastOutcome = DeliveryOutcome::Delivering;
    }
    if (probe)
        subscription.probation.beginProbe();
    ++subscription.inFlightRequests;
    subscription.counters.inFlight += qint64(batch.size());
    ++subscription.counters.requests;

    // A lane refills its own slot when it can (no hop between threads); otherwise the lane with
    // the fewest requests open takes it. It is posted when the lock is released.
    size_t lane = 0;
    for (size_t i = 1; i < m_lanes.size(); ++i) {
        if (m_laneInFlight[i] < m_laneInFlight[lane])
            lane = i;
    }
    for (size_t i = 0; i < m_lanes.size(); ++i) {
        if (m_lanes[i]->isCurrentThread() && m_laneInFlight[i] <= m_laneInFlight[lane])
            lane = i;
    }
    ++m_laneInFlight[lane];
    pending->lane = int(lane);
    const quint64 requestId = pending->id;
    m_requests.emplace(requestId, std::move(pending));
    m_outbox.push_back(OutgoingRequest{int(lane), requestId, m_lanes[lane]->cancelGeneration(),
                                       request, body});
    // SPEC D6: the 30 s response deadline is kept in the deadline heap, not in a timer per request.
    heapPush(m_deadlineHeap, HeapEntry{now + m_options.responseTimeoutMs, requestId, 0});
    qCDebug(lcDelivery) << "sent" << batch.size() << "event(s) to" << config.name << "attempt"
                        << first.attempts + 1;
}

void Engine::onLaneFinished(quint64 requestId, int httpStatus, QNetworkReply::NetworkError error)
{
    // On the lane's thread: the reply is taken care of there, and the lane's freed slot refilled
    // from there, without a trip through the engine thread.
    const StateLock lock(*this);
    finishRequest(requestId, httpStatus, error);
}

void Engine::finishRequest(quint64 requestId, int httpStatus, QNetworkReply::NetworkError error)
{
    auto requestIt = m_requests.find(requestId);
    if (requestIt == m_requests.end())
        return;
    std::unique_ptr<Request> request = std::move(requestIt->second);
    m_requests.erase(requestIt);
    --m_laneInFlight[size_t(request->lane)];
    if (!m_running)
        return;

    const qint64 now = m_clock->nowMs();
    Subscription &subscription = *m_subscriptions.at(request->subscriptionIndex);
    const bool success = OutcomeClassifier::isSuccessStatus(httpStatus);
    DeliveryOutcome outcome = success ? DeliveryOutcome::Delivered
                                      : OutcomeClassifier::classify(httpStatus, error);

    AttemptLogEntry log;
    log.timeMs = request->sentMs;
    log.topic = subscription.topic;
    log.subscription = subscription.config.name;
    log.eventIds = request->eventIds;
    log.attempt = request->attempt;
    log.httpStatus = httpStatus;
    log.durationMs = now - request->sentMs;

    if (request->aborted) {
        // SPEC D6: abandoned at the 3 min limit; the deliveries were already rescheduled.
        log.outcome = DeliveryOutcome::Aborted;
        logAttempt(log);
        scheduleFlush();
        return;
    }
    if (httpStatus > 0) {
        subscription.counters.latencySumMs += double(log.durationMs);
        ++subscription.counters.latencyCount;
        const auto &bounds = SubscriptionSnapshot::LatencyBucketBoundsMs;
        const auto bucket = std::lower_bound(bounds.begin(), bounds.end(), double(log.durationMs));
        ++subscription.counters.latencyBuckets[size_t(bucket - bounds.begin())];
    }

    if (request->timedOut) {
        // SPEC D6: a success within 3 min cancels the retry scheduled at the timeout (best
        // effort: a delivery whose retry already went out may arrive twice).
        log.outcome = outcome;
        if (success) {
            for (qint64 id : std::as_const(request->deliveryIds)) {
                auto it = m_deliveries.find(id);
                if (it == m_deliveries.end())
                    continue;
                Delivery &delivery = it->second;
                if (delivery.state != DeliveryState::Pending || delivery.attempts != request->attempt)
                    continue;
                ++delivery.generation; // its heap entry is now stale
                --subscription.counters.backlog;
                applySuccess(subscription, delivery, now);
            }
            subscription.probation.recordSuccess();
            recordProbation(subscription);
        }
        logAttempt(log);
        reschedule(subscription, now);
        rearmAlarm();
        scheduleFlush();
        return;
    }

    --subscription.inFlightRequests;
    const ProbationTracker::State probationBefore = subscription.probation.state();
    for (qint64 id : std::as_const(request->deliveryIds)) {
        auto it = m_deliveries.find(id);
        if (it == m_deliveries.end())
            continue;
        Delivery &delivery = it->second;
        --subscription.counters.inFlight;
        delivery.lastAttemptMs = request->sentMs;
        if (success)
            applySuccess(subscription, delivery, now);
        else
            applyFailure(subscription, delivery, outcome, httpStatus, now);
    }
    if (success) {
        subscription.probation.recordSuccess();
    } else if (ProbationTracker::countsAsEndpointFailure(outcome)) {
        subscription.probation.recordFailure(outcome, now);
    } else if (request->probe) {
        // The probe said nothing about the endpoint's health (e.g. 400): try another.
        subscription.probation.probeAbandoned();
    }
    if (probationBefore != subscription.probation.state() || !success)
        recordProbation(subscription);

    log.outcome = outcome;
    if (!success && !request->deliveryIds.isEmpty()) {
        auto it = m_deliveries.find(request->deliveryIds.front());
        if (it != m_deliveries.end() && it->second.state == DeliveryState::Pending)
            log.nextDueMs = it->second.dueMs;
    }
    logAttempt(log);

    // SPEC D2: the slot this reply freed is used right away, not on the next alarm.
    service(subscription, now);
    rearmAlarm();
    scheduleFlush();
}

void Engine::onRequestTimedOut(quint64 requestId, qint64 now)
{
    auto it = m_requests.find(requestId);
    if (it == m_requests.end())
        return;
    Request &request = *it->second.get();
    if (request.timedOut)
        return;
    request.timedOut = true;
    Subscription &subscription = *m_subscriptions.at(request.subscriptionIndex);
    --subscription.inFlightRequests;
    // SPEC D6: no answer within 30 s is a failed attempt (TimedOut); the request stays open for
    // a late success until the 3 min limit.
    for (qint64 id : std::as_const(request.deliveryIds)) {
        auto deliveryIt = m_deliveries.find(id);
        if (deliveryIt == m_deliveries.end())
            continue;
        Delivery &delivery = deliveryIt->second;
        --subscription.counters.inFlight;
        delivery.lastAttemptMs = request.sentMs;
        applyFailure(subscription, delivery, DeliveryOutcome::TimedOut, 0, now);
    }
    subscription.probation.recordFailure(DeliveryOutcome::TimedOut, now);
    recordProbation(subscription);

    AttemptLogEntry log;
    log.timeMs = request.sentMs;
    log.topic = subscription.topic;
    log.subscription = subscription.config.name;
    log.eventIds = request.eventIds;
    log.attempt = request.attempt;
    log.outcome = DeliveryOutcome::TimedOut;
    log.durationMs = now - request.sentMs;
    if (!request.deliveryIds.isEmpty()) {
        auto first = m_deliveries.find(request.deliveryIds.front());
        if (first != m_deliveries.end() && first->second.state == DeliveryState::Pending)
            log.nextDueMs = first->second.dueMs;
    }
    logAttempt(log);

    heapPush(m_deadlineHeap, HeapEntry{request.sentMs + m_options.abortAfterMs, requestId, 1});
    reschedule(subscription, now);
    scheduleFlush();
}

void Engine::onRequestAbortDue(quint64 requestId)
{
    auto it = m_requests.find(requestId);
    if (it == m_requests.end())
        return;
    Request &request = *it->second.get();
    request.aborted = true;
    m_lanes[size_t(request.lane)]->abort(requestId); // the lane reports it; logged as Aborted
}

void Engine::applySuccess(Subscription &subscription, Delivery &delivery, qint64 now)
{
    Q_UNUSED(now);
    delivery.lastOutcome = DeliveryOutcome::Delivered;
    ++subscription.counters.delivered;
    finish(subscription, delivery, DeliveryState::Delivered);
}

void Engine::applyFailure(Subscription &subscription, Delivery &delivery, DeliveryOutcome outcome,
                          int httpStatus, qint64 now)
{
    ++delivery.attempts;
    delivery.lastOutcome = outcome;
    delivery.lastHttpStatus = httpStatus;
    ++subscription.counters.failedByOutcome[outcome];
    if (subscription.removed) {
        drop(&subscription, delivery, DeadLetterReason::SubscriptionDeleted, now);
        return;
    }
    // SPEC R1–R8: one decision per event, even when it failed inside a batch (B6).
    const RetryDecision decision = RetryPlanner::afterFailure(
        subscription.config.retryPolicy, outcome, httpStatus, delivery.attempts, now, nextJitter(),
        subscription.config.hasDeadLetterDestination());
    switch (decision.action) {
    case RetryDecision::Action::Retry:
        delivery.dueMs = decision.dueMs;
        // A retry is at least 10 s away: let the payload go and reload it when it comes due.
        delivery.event.reset();
        pushPending(subscription, delivery);
        m_pendingWrites.updates.append(delivery.record(subscription));
        break;
    case RetryDecision::Action::DeadLetter:
        toDeadLetterPending(subscription, delivery, decision.reason, now);
        break;
    case RetryDecision::Action::Drop:
        drop(&subscription, delivery, decision.reason, now);
        break;
    }
}

void Engine::toDeadLetterPending(Subscription &subscription, Delivery &delivery,
                                 DeadLetterReason reason, qint64 now)
{
    // SPEC L3: the write happens the dead-letter delay after the last attempt (or now, when the
    // decision is taken later than that, as for a TTL that expires at the next due time).
    const qint64 delayMs = qint64(m_workspace.settings.deadLetterDelaySeconds) * 1000;
    const qint64 base = delivery.lastAttemptMs > 0 ? delivery.lastAttemptMs : now;
    delivery.state = DeliveryState::DeadLetterPending;
    delivery.reason = reason;
    delivery.dueMs = std::max(now, base + delayMs);
    delivery.event.reset();
    ++delivery.generation;
    heapPush(subscription.deadLetterPending, HeapEntry{delivery.dueMs, quint64(delivery.id), delivery.generation});
    ++subscription.counters.deadLetterPending;
    m_pendingWrites.updates.append(delivery.record(subscription));
}

void Engine::drop(Subscription *subscription, Delivery &delivery, DeadLetterReason reason, qint64 now)
{
    // SPEC L1: recorded as Dropped, with the reason, in the delivery log and the counters.
    DroppedEntry entry;
    entry.topic = subscription ? subscription->topic : QString();
    entry.subscription = subscription ? subscription->config.name : QString();
    entry.reason = reason;
    entry.lastOutcome = delivery.lastOutcome;
    entry.lastHttpStatus = delivery.lastHttpStatus;
    entry.attempts = delivery.attempts;
    entry.droppedMs = now;
    if (delivery.event)
        entry.eventId = delivery.event->id;
    m_pendingDrops.push_back({entry, delivery.eventSeq});
    if (subscription) {
        ++subscription->counters.droppedByReason[reason];
        if (delivery.state == DeliveryState::DeadLetterPending)
            --subscription->counters.deadLetterPending;
        else if (delivery.state == DeliveryState::Pending && reason == DeadLetterReason::SubscriptionDeleted)
            --subscription->counters.backlog;
    }
    FinishedDelivery finished{delivery.id, delivery.eventSeq, DeliveryState::Dropped};
    m_pendingWrites.finished.append(finished);
    m_deliveries.erase(delivery.id);
    scheduleFlush();
}

void Engine::finish(Subscription &subscription, Delivery &delivery, DeliveryState fate)
{
    Q_UNUSED(subscription);
    m_pendingWrites.finished.append(FinishedDelivery{delivery.id, delivery.eventSeq, fate});
    m_deliveries.erase(delivery.id); // destroys delivery
    scheduleFlush();
}

void Engine::serviceDeadLetters(Subscription &subscription, qint64 now)
{
    if (subscription.deadLetterWriteInProgress)
        return;
    std::vector<Delivery *> batch;
    while (int(batch.size()) < m_options.deadLetterMaxEventsPerBlob
           && !subscription.deadLetterPending.empty()
           && subscription.deadLetterPending.front().atMs <= now) {
        const HeapEntry entry = subscription.deadLetterPending.front();
        heapPop(subscription.deadLetterPending);
        auto it = m_deliveries.find(qint64(entry.key));
        if (it == m_deliveries.end())
            continue;
        Delivery &delivery = it->second;
        if (delivery.state != DeliveryState::DeadLetterPending || delivery.generation != entry.generation)
            continue;
        batch.push_back(&delivery);
    }
    if (batch.empty())
        return;
    if (!ensureEventsLoaded(batch)) {
        for (Delivery *delivery : batch) {
            delivery->dueMs = now + m_options.deadLetterRetryMs;
            heapPush(subscription.deadLetterPending,
                     HeapEntry{delivery->dueMs, quint64(delivery->id), delivery->generation});
        }
        return;
    }

    // SPEC L7: the original event as delivered, plus the dead-letter fields.
    QList<QByteArray> records;
    records.reserve(qsizetype(batch.size()));
    QList<qint64> ids;
    for (Delivery *delivery : batch) {
        const StoredEvent &event = *delivery->event;
        DeadLetterInput input;
        input.deliveredBody = deliveredBody(subscription, *delivery);
        input.deliverySchema = subscription.config.deliverySchema;
        input.id = event.id;
        input.eventTime = event.eventTime;
        input.eventType = event.eventType;
        input.dataVersion = event.dataVersion;
        input.topic = subscription.topicPath;
        input.subject = event.subject;
        input.reason = delivery->reason;
        input.deliveryAttempts = delivery->attempts;
        input.lastDeliveryOutcome = delivery->lastOutcome;
        input.lastHttpStatusCode = delivery->lastHttpStatus;
        input.publishTimeMs = delivery->publishMs;
        input.lastDeliveryAttemptTimeMs = delivery->lastAttemptMs;
        records.append(DeadLetterFormatter::record(input));
        ids.append(delivery->id);
    }
    // SPEC L6: <SUBSCRIPTION>/<yyyy>/<M>/<d>/<H>/<uuid>.json, UTC time of the write.
    const QString blobName = DeadLetterFormatter::blobName(subscription.config.name, now,
                                                           QUuid::createUuid());
    const QByteArray body = DeadLetterFormatter::blobBody(records);
    subscription.deadLetterWriteInProgress = true;
    const int index = subscription.index;
    m_deadLetterSink->write(
        subscription.config.deadLetterDestination, blobName, body,
        [this, index, ids, records](const Expected<QString> &blobPath) {
            const StateLock lock(*this);
            Subscription &target = *m_subscriptions.at(index);
            target.deadLetterWriteInProgress = false;
            const qint64 at = m_clock->nowMs();
            for (qsizetype i = 0; i < ids.size(); ++i) {
                auto it = m_deliveries.find(ids.at(i));
                if (it == m_deliveries.end())
                    continue;
                Delivery &delivery = it->second;
                if (delivery.state != DeliveryState::DeadLetterPending)
                    continue;
                if (blobPath) {
                    const StoredEvent &event = *delivery.event;
                    DeadLetterEntry entry;
                    entry.topic = target.topic;
                    entry.subscription = target.config.name;
                    entry.eventId = event.id;
                    entry.reason = delivery.reason;
                    entry.lastOutcome = delivery.lastOutcome;
                    entry.lastHttpStatus = delivery.lastHttpStatus;
                    entry.attempts = delivery.attempts;
                    entry.publishMs = delivery.publishMs;
                    entry.lastAttemptMs = delivery.lastAttemptMs;
                    entry.deadLetteredMs = at;
                    entry.blobPath = blobPath.value();
                    entry.record = records.at(i);
                    entry.eventType = event.eventType;
                    entry.subject = event.subject;
                    entry.dataVersion = event.dataVersion;
                    entry.eventTime = event.eventTime;
                    entry.eventBody = event.body;
                    m_pendingWrites.deadLetters.append(entry);
                    ++target.counters.deadLetteredByReason[delivery.reason];
                    --target.counters.deadLetterPending;
                    finish(target, delivery, DeliveryState::DeadLettered);
                    continue;
                }
                // SPEC L4: retry the write; after 4 h of unavailability the event is dropped.
                if (delivery.deadLetterUnavailableSinceMs == 0)
                    delivery.deadLetterUnavailableSinceMs = at;
                if (at - delivery.deadLetterUnavailableSinceMs >= m_options.deadLetterGiveUpMs) {
                    drop(&target, delivery, DeadLetterReason::DeadLetterDestinationUnavailable, at);
                    continue;
                }
                delivery.dueMs = at + m_options.deadLetterRetryMs;
                delivery.event.reset();
                ++delivery.generation;
                heapPush(target.deadLetterPending,
                         HeapEntry{delivery.dueMs, quint64(delivery.id), delivery.generation});
                m_pendingWrites.updates.append(delivery.record(target));
            }
            if (!blobPath)
                qCWarning(lcDeadLetter) << "dead-letter write for" << target.config.name
                                        << "failed:" << blobPath.error();
            scheduleFlush();
            if (!m_inAlarm) {
                reschedule(target, at);
                rearmAlarm();
            }
        });
}

void Engine::recordProbation(Subscription &subscription)
{
    const ProbationTracker &probation = subscription.probation;
    ProbationRecord record;
    record.topic = subscription.topic;
    record.subscription = subscription.config.name;
    record.state = int(probation.state());
    record.cause = probation.cause();
    record.untilMs = probation.untilMs();
    record.durationMs = probation.currentDurationMs();
    record.consecutiveFailures = probation.consecutiveFailures();
    m_pendingWrites.probation.append(record);
    emitOnEngineThread([this, topic = subscription.topic, name = subscription.config.name] {
        Q_EMIT probationChanged(topic, name);
    });
}

void Engine::reschedule(Subscription &subscription, qint64 now)
{
    if (!m_running || subscription.removed)
        return;
    auto dropStaleTop = [this](std::vector<HeapEntry> &heap, DeliveryState state) {
        while (!heap.empty()) {
            const HeapEntry &top = heap.front();
            auto it = m_deliveries.find(qint64(top.key));
            if (it != m_deliveries.end() && it->second.state == state
                && it->second.generation == top.generation)
                return;
            heapPop(heap);
        }
    };
    dropStaleTop(subscription.pending, DeliveryState::Pending);
    dropStaleTop(subscription.deadLetterPending, DeliveryState::DeadLetterPending);

    qint64 next = -1;
    auto consider = [&next](qint64 at) {
        if (next < 0 || at < next)
            next = at;
    };
    if (!subscription.deadLetterWriteInProgress && !subscription.deadLetterPending.empty())
        consider(subscription.deadLetterPending.front().atMs);

    if (const qint64 attention = provisioningAttentionMs(subscription, now); attention >= 0)
        consider(attention);
    if (subscription.config.enabled && subscription.provisioning.state != ProvisioningState::Succeeded) {
        if (subscription.provisioning.state == ProvisioningState::Failed) {
            if (!subscription.pending.empty())
                consider(now);
        } else {
            dropStaleTop(subscription.heldExpiry, DeliveryState::Pending);
            if (!subscription.heldExpiry.empty())
                consider(subscription.heldExpiry.front().atMs);
        }
    }

    const ProbationTracker &probation = subscription.probation;
    if (subscription.config.enabled && !subscription.pending.empty()
        && subscription.provisioning.state == ProvisioningState::Succeeded) {
        // WebHook-Allowed-Rate: the next request waits for its slot, like any scheduled wait.
        const qint64 due = std::max(subscription.pending.front().atMs, subscription.nextRequestAllowedMs);
        switch (probation.state()) {
        case ProbationTracker::State::InProbation:
            if (ProbationTracker::isNoRetryClass(probation.cause()))
                consider(due);
            else
                consider(std::max(due, probation.untilMs())); // SPEC P5: one heap entry, no polling
            break;
        case ProbationTracker::State::HalfOpen:
            if (!probation.isProbeInFlight())
                consider(due);
            break;
        case ProbationTracker::State::Healthy:
            // With every slot taken the next reply wakes the subscription up.
            if (subscription.inFlightRequests < m_workspace.settings.maxConcurrentRequestsPerSubscription)
                consider(due);
            break;
        }
    }
    subscription.counters.nextDueMs = next < 0 ? 0 : next;
    if (next == subscription.scheduledAtMs)
        return;
    subscription.scheduledAtMs = next;
    ++subscription.heapGeneration;
    if (next >= 0)
        heapPush(m_subscriptionHeap, HeapEntry{next, quint64(subscription.index), subscription.heapGeneration});
    if (!m_inAlarm)
        rearmAlarm();
}

void Engine::rearmAlarm()
{
    if (!m_running)
        return;
    const bool here = onEngineThread();
    while (!m_subscriptionHeap.empty()) {
        const HeapEntry &top = m_subscriptionHeap.front();
        if (m_subscriptions.at(top.key)->heapGeneration == top.generation)
            break;
        heapPop(m_subscriptionHeap);
    }
    while (!m_deadlineHeap.empty() && !m_requests.contains(m_deadlineHeap.front().key))
        heapPop(m_deadlineHeap);

    qint64 next = -1;
    if (!m_subscriptionHeap.empty())
        next = m_subscriptionHeap.front().atMs;
    if (!m_deadlineHeap.empty() && (next < 0 || m_deadlineHeap.front().atMs < next))
        next = m_deadlineHeap.front().atMs;
    if (next == m_alarmAtMs)
        return;
    if (!here) {
        // The clock belongs to the engine thread. An alarm that rings too early only finds
        // nothing due and is set again; one that would ring too late is set from there now.
        if (next >= 0 && (m_alarmAtMs < 0 || next < m_alarmAtMs))
            wakeEngineThread();
        return;
    }
    m_alarmAtMs = next;
    if (next < 0)
        m_clock->cancelAlarm();
    else
        m_clock->setAlarm(next);
}

void Engine::scheduleFlush()
{
    if (m_flushArmed)
        return;
    if (!onEngineThread()) {
        wakeEngineThread();
        return;
    }
    m_flushTimer.start(m_options.storeFlushIntervalMs);
    m_flushArmed = true;
}

void Engine::wakeEngineThread()
{
    if (m_wakePosted)
        return;
    m_wakePosted = true;
    QMetaObject::invokeMethod(this, [this] {
        const StateLock lock(*this);
        m_wakePosted = false;
        scheduleFlush();
        rearmAlarm();
        emitDeferredSignals();
    }, Qt::QueuedConnection);
}

template <typename Emit>
void Engine::emitOnEngineThread(Emit emitSignal)
{
    if (onEngineThread())
        emitSignal();
    else
        m_deferredSignals.emplace_back(std::move(emitSignal));
}

void Engine::emitDeferredSignals()
{
    const std::vector<std::function<void()>> deferred = std::exchange(m_deferredSignals, {});
    for (const auto &emitSignal : deferred)
        emitSignal();
}

void Engine::logAttempt(const AttemptLogEntry &entry)
{
    m_pendingWrites.attempts.append(entry); // its commit follows, and with it the signal
    emitOnEngineThread([this, entry] { Q_EMIT attemptLogged(entry); });
}

void Engine::reportStoreError(const QString &message)
{
    emitOnEngineThread([this, message] { Q_EMIT storeError(message); });
    if (!onEngineThread())
        wakeEngineThread(); // no commit need follow a failed read
}

Expected<void> Engine::flush()
{
    const StateLock lock(*this);
    m_flushArmed = false;
    emitDeferredSignals();
    if (!m_pendingDrops.empty()) {
        // Drop records name the event id; deliveries restored after a restart do not hold it.
        QList<qint64> missing;
        for (const auto &[entry, seq] : m_pendingDrops) {
            if (entry.eventId.isEmpty() && !missing.contains(seq))
                missing.append(seq);
        }
        QHash<qint64, QString> idBySeq;
        if (!missing.isEmpty()) {
            if (auto loaded = m_store->loadEvents(missing)) {
                for (const StoredEvent &event : std::as_const(loaded.value()))
                    idBySeq.insert(event.seq, event.id);
            }
        }
        for (auto &[entry, seq] : m_pendingDrops) {
            if (entry.eventId.isEmpty())
                entry.eventId = idBySeq.value(seq);
            m_pendingWrites.drops.append(entry);
        }
        m_pendingDrops.clear();
    }
    if (m_pendingWrites.isEmpty())
        return {};
    auto result = m_store->commit(m_pendingWrites);
    if (!result) {
        // Keep everything buffered (nothing accepted is lost) and try again in a second.
        qCWarning(lcStore) << "commit failed, retrying:" << result.error();
        Q_EMIT storeError(result.error());
        m_flushTimer.start(1000);
        m_flushArmed = true;
        return result;
    }
    m_pendingWrites = StoreBatch();
    return {};
}

EngineSnapshot Engine::snapshot() const
{
    const StateLock lock(*this);
    EngineSnapshot snapshot;
    snapshot.nowMs = m_clock->nowMs();
    for (const Topic &topic : m_workspace.topics)
        snapshot.topics.append(m_topicCounters.value(topic.name.toLower(), TopicSnapshot{topic.name, 0, 0, 0}));
    for (const auto &subscription : m_subscriptions) {
        if (subscription->removed)
            continue;
        SubscriptionSnapshot counters = subscription->counters;
        const ProbationTracker &probation = subscription->probation;
        counters.probationState = probation.state();
        counters.probationCause = probation.cause();
        counters.probationUntilMs = probation.untilMs();
        counters.consecutiveFailures = probation.consecutiveFailures();
        const ProvisioningRecord &provisioning = subscription->provisioning;
        counters.validationEnabled = subscription->config.validationEnabled;
        counters.provisioningState = provisioning.state;
        counters.provisioningMessage = provisioning.message;
        counters.allowedRate = provisioning.allowedRate;
        if (provisioning.state == ProvisioningState::AwaitingManualActionValidation) {
            counters.validationUrl = validationUrl(*subscription);
            counters.validationExpiresMs = provisioning.expiresMs;
        }
        if (provisioning.state == ProvisioningState::Creating && !subscription->unreachableBecause.isEmpty()) {
            counters.endpointUnreachable = subscription->unreachableBecause;
            counters.nextValidationMs = subscription->validationReply ? 0 : subscription->nextValidationMs;
        }
        // Accepted but not attempted until the endpoint is validated.
        counters.held = provisioning.state == ProvisioningState::Succeeded ? 0 : counters.backlog;
        snapshot.subscriptions.append(counters);
    }
    return snapshot;
}

ResubmitResult Engine::resubmitDeadLetters(const QList<qint64> &deadLetterIds)
{
    const StateLock lock(*this);
    ResubmitResult result;
    auto entries = m_store->deadLettersById(deadLetterIds);
    if (!entries) {
        result.errors.append(entries.error());
        return result;
    }
    const qint64 now = m_clock->nowMs();
    QList<StoredEvent> events;
    QList<DeliveryRecord> records;
    QList<Subscription *> owners;
    QList<qint64> resubmittedIds;
    qint64 seq = 0;
    qint64 deliveryId = 0;
    for (const DeadLetterEntry &entry : std::as_const(entries.value())) {
        Subscription *subscription = findSubscription(entry.topic, entry.subscription);
        if (!subscription) {
            result.errors.append(u"dead letter %1 (event %2): subscription %3/%4 no longer exists"_s
                                     .arg(entry.id)
                                     .arg(entry.eventId, entry.topic, entry.subscription));
            continue;
        }
        StoredEvent event;
        event.seq = seq++;
        event.topic = subscription->topic;
        event.id = entry.eventId; // the event keeps its id
        event.eventType = entry.eventType;
        event.subject = entry.subject;
        event.dataVersion = entry.dataVersion;
        event.eventTime = entry.eventTime;
        event.publishMs = now; // a fresh time to live
        event.body = entry.eventBody;
        DeliveryRecord record;
        record.id = deliveryId++;
        record.eventSeq = event.seq;
        record.topic = subscription->topic;
        record.subscription = subscription->config.name;
        record.dueMs = now;
        record.publishMs = now;
        events.append(event);
        records.append(record);
        owners.append(subscription);
        resubmittedIds.append(entry.id);
    }
    if (events.isEmpty())
        return result;
    // Numbered from ranges reserved now (publishes on parser threads take ids too).
    const qint64 firstSeq = m_nextEventSeq.fetch_add(seq);
    const qint64 firstDeliveryId = m_nextDeliveryId.fetch_add(deliveryId);
    for (qsizetype i = 0; i < events.size(); ++i) {
        events[i].seq += firstSeq;
        records[i].eventSeq += firstSeq;
        records[i].id += firstDeliveryId;
    }
    // Stored first, removed from the index second: a crash in between duplicates, never loses.
    if (auto stored = m_store->insertPublished(events, records); !stored) {
        result.errors.append(stored.error());
        return result;
    }
    if (auto removed = m_store->removeDeadLetters(resubmittedIds); !removed)
        result.errors.append(removed.error());

    QSet<Subscription *> touched;
    for (qsizetype i = 0; i < events.size(); ++i) {
        Subscription &subscription = *owners.at(i);
        Delivery &ref = m_deliveries.try_emplace(records.at(i).id).first->second;
        ref.id = records.at(i).id;
        ref.eventSeq = events.at(i).seq;
        ref.dueMs = now;
        ref.publishMs = now;
        ref.subscriptionIndex = subscription.index;
        ref.event = m_events->adopt(events.at(i));
        ++subscription.counters.matched;
        pushPending(subscription, ref);
        touched.insert(&subscription);
    }
    for (Subscription *subscription : std::as_const(touched))
        reschedule(*subscription, now);
    result.resubmitted = int(events.size());
    return result;
}

ResubmitResult Engine::resubmitDeadLetters(const DeadLetterQuery &query)
{
    const StateLock lock(*this);
    ResubmitResult total;
    DeadLetterQuery page = query;
    page.limit = 1000;
    page.beforeId = 0;
    // Newest first, page by page: resubmitted rows leave the index, so restarting from the top
    // would see the ones that failed again; keyset on the last id seen instead.
    while (true) {
        auto entries = m_store->deadLetters(page);
        if (!entries) {
            total.errors.append(entries.error());
            break;
        }
        if (entries->isEmpty())
            break;
        QList<qint64> ids;
        for (const DeadLetterEntry &entry : std::as_const(entries.value()))
            ids.append(entry.id);
        const ResubmitResult part = resubmitDeadLetters(ids);
        total.resubmitted += part.resubmitted;
        total.errors += part.errors;
        page.beforeId = ids.last();
        if (entries->size() < page.limit)
            break;
    }
    return total;
}

// ---- Endpoint validation -------------------------------------------------------------------

void Engine::updateProvisioning(Subscription &subscription, qint64 now)
{
    Q_UNUSED(now);
    ProvisioningRecord &record = subscription.provisioning;
    const ProvisioningRecord before = record;
    record.topic = subscription.topic;
    record.subscription = subscription.config.name;
    if (!subscription.config.validationEnabled) {
        abortValidation(subscription);
        record = ProvisioningRecord{subscription.topic, subscription.config.name, QString(),
                                    ProvisioningState::Succeeded, QString(), 0,
                                    u"endpoint validation is switched off (x-eventdesk.validation: false)"_s,
                                    QString()};
    } else {
        const QString fingerprint = provisioningFingerprint(subscription.config);
        if (record.fingerprint == fingerprint)
            return; // same endpoint and schema: the validation under way or done still holds
        const ProvisioningRecord restored
            = m_restoredProvisioning.take(subscriptionKey(subscription.topic, subscription.config.name));
        abortValidation(subscription);
        resetUnreachable(subscription);
        if (restored.fingerprint == fingerprint && restored.state == ProvisioningState::Succeeded) {
            // Validated before the restart: not validated again. Any other state (failed,
            // awaiting the URL) is validated again at every start: the endpoint may be up now.
            record = restored;
            record.topic = subscription.topic;
            record.subscription = subscription.config.name;
        } else {
            record = ProvisioningRecord{subscription.topic, subscription.config.name, fingerprint,
                                        ProvisioningState::Creating, QString(), 0,
                                        u"sending the validation handshake"_s, QString()};
        }
    }
    if (record != before)
        Q_EMIT provisioningChanged(subscription.topic, subscription.config.name);
}

qint64 Engine::provisioningAttentionMs(const Subscription &subscription, qint64 now) const
{
    switch (subscription.provisioning.state) {
    case ProvisioningState::Creating:
        return subscription.validationReply ? subscription.validationSentMs + m_options.responseTimeoutMs
                                            : std::max(now, subscription.nextValidationMs);
    case ProvisioningState::AwaitingManualActionValidation:
        return subscription.provisioning.expiresMs;
    case ProvisioningState::Succeeded:
    case ProvisioningState::Failed:
        break;
    }
    return -1;
}

void Engine::serviceProvisioning(Subscription &subscription, qint64 now)
{
    ProvisioningRecord &record = subscription.provisioning;
    if (record.state == ProvisioningState::AwaitingManualActionValidation && now >= record.expiresMs) {
        setProvisioning(subscription, ProvisioningState::Failed,
                        u"the validation URL was not visited within 5 minutes"_s, now);
        return;
    }
    if (record.state != ProvisioningState::Creating)
        return;
    if (!subscription.validationReply) {
        if (now >= subscription.nextValidationMs)
            sendValidation(subscription, now);
        return;
    }
    if (now < subscription.validationSentMs + m_options.responseTimeoutMs)
        return;
    // No answer to the handshake within the response timeout (SPEC D6's 30 s): not reachable yet.
    abortValidation(subscription);
    waitForEndpoint(subscription, u"no answer within %1 s"_s.arg(m_options.responseTimeoutMs / 1000), now);
}

void Engine::resetUnreachable(Subscription &subscription)
{
    subscription.unansweredHandshakes = 0;
    subscription.nextValidationMs = 0;
    subscription.unreachableBecause.clear();
}

void Engine::waitForEndpoint(Subscription &subscription, const QString &failure, qint64 now)
{
    ++subscription.unansweredHandshakes;
    const qint64 delay = validationRetryDelayMs(subscription.unansweredHandshakes);
    subscription.nextValidationMs = now + delay;
    subscription.unreachableBecause = failure;
    setProvisioning(subscription, ProvisioningState::Creating,
                    u"endpoint unreachable: %1; next validation attempt in %2"_s.arg(failure, formatDelay(delay)),
                    now);
}

QString Engine::validationUrl(const Subscription &subscription) const
{
    if (m_validationBaseUrl.isEmpty() || subscription.provisioning.validationCode.isEmpty())
        return {};
    QUrl url = m_validationBaseUrl;
    url.setPath(u"/validate/%1/%2"_s.arg(subscription.topic, subscription.config.name), QUrl::DecodedMode);
    QUrlQuery query;
    query.addQueryItem(u"code"_s, subscription.provisioning.validationCode);
    url.setQuery(query);
    return url.toString(QUrl::FullyEncoded);
}

void Engine::sendValidation(Subscription &subscription, qint64 now)
{
    const EventSubscription &config = subscription.config;
    QNetworkRequest request(config.endpointUrl);
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    request.setRawHeader("aeg-subscription-name", config.name.toUpper().toUtf8());
    QNetworkReply *reply = nullptr;
    if (config.deliverySchema == EventSchema::CloudEvents10) {
        // CloudEvents abuse protection: OPTIONS with the origin the deliveries will come from.
        request.setRawHeader("WebHook-Request-Origin", EventGridOrigin.toByteArray());
        reply = m_network->sendCustomRequest(request, "OPTIONS");
    } else {
        // Event Grid schema handshake: SubscriptionValidationEvent with a code to echo back.
        subscription.provisioning.validationCode = QUuid::createUuid().toString(QUuid::WithoutBraces).toUpper();
        QJsonObject data{{u"validationCode"_s, subscription.provisioning.validationCode}};
        if (const QString url = validationUrl(subscription); !url.isEmpty())
            data.insert(u"validationUrl"_s, url);
        const QJsonObject event{{u"id"_s, QUuid::createUuid().toString(QUuid::WithoutBraces)},
                                {u"topic"_s, subscription.topicPath},
                                {u"subject"_s, QString()},
                                {u"data"_s, data},
                                {u"eventType"_s, u"Microsoft.EventGrid.SubscriptionValidationEvent"_s},
                                {u"eventTime"_s, DeadLetterFormatter::formatTime(now)},
                                {u"metadataVersion"_s, u"1"_s},
                                {u"dataVersion"_s, u"2"_s}};
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        request.setRawHeader("aeg-event-type", "SubscriptionValidation");
        request.setRawHeader("aeg-delivery-count", "0");
        request.setRawHeader("aeg-data-version", "2");
        request.setRawHeader("aeg-metadata-version", "1");
        reply = m_network->post(request, QJsonDocument(QJsonArray{event}).toJson(QJsonDocument::Compact));
    }
    subscription.validationReply = reply;
    subscription.validationSentMs = now;
    m_validationByReply.insert(reply, subscription.index);
    connect(reply, &QNetworkReply::finished, this, [this, reply] { onValidationFinished(reply); });
    qCInfo(lcDelivery) << "validating the endpoint of" << subscription.topic << "/" << config.name;
}

void Engine::abortValidation(Subscription &subscription)
{
    QNetworkReply *reply = subscription.validationReply;
    subscription.validationReply = nullptr;
    if (!reply)
        return;
    m_validationByReply.remove(reply);
    disconnect(reply, nullptr, this, nullptr);
    reply->abort();
    reply->deleteLater();
}

void Engine::onValidationFinished(QNetworkReply *reply)
{
    const StateLock lock(*this);
    reply->deleteLater();
    const auto found = m_validationByReply.find(reply);
    if (found == m_validationByReply.end())
        return;
    const int index = found.value();
    m_validationByReply.erase(found);
    if (!m_running)
        return;
    Subscription &subscription = *m_subscriptions.at(size_t(index));
    if (subscription.removed || subscription.validationReply != reply)
        return;
    subscription.validationReply = nullptr;
    const qint64 now = m_clock->nowMs();
    const QVariant statusAttribute = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute);
    const int httpStatus = statusAttribute.isValid() ? statusAttribute.toInt() : 0;
    if (isUnreachableAnswer(httpStatus)) {
        waitForEndpoint(subscription, httpStatus > 0 ? u"HTTP %1"_s.arg(httpStatus) : transportFailure(reply), now);
        reschedule(subscription, now);
        rearmAlarm();
        return;
    }
    const QString failure = u"the endpoint answered HTTP %1"_s.arg(httpStatus);

    if (subscription.config.deliverySchema == EventSchema::CloudEvents10) {
        const QByteArray allowedOrigin = reply->rawHeader("WebHook-Allowed-Origin").trimmed();
        const QByteArray allowedRate = reply->rawHeader("WebHook-Allowed-Rate").trimmed();
        const bool allowed = allowedOrigin == "*" || allowedOrigin.compare(EventGridOrigin, Qt::CaseInsensitive) == 0;
        if (httpStatus == 200 && allowed) {
            subscription.provisioning.allowedRate = QString::fromLatin1(allowedRate);
            setProvisioning(subscription, ProvisioningState::Succeeded,
                            u"the endpoint allowed origin %1%2"_s.arg(
                                QString::fromLatin1(EventGridOrigin.toByteArray()),
                                allowedRate.isEmpty() ? QString()
                                                      : u" at rate %1"_s.arg(QString::fromLatin1(allowedRate))),
                            now);
        } else {
            const QString reason = httpStatus == 200
                                       ? u"the endpoint answered the abuse-protection request without "
                                         u"WebHook-Allowed-Origin: %1 (or *)"_s.arg(
                                             QString::fromLatin1(EventGridOrigin.toByteArray()))
                                       : failure;
            setProvisioning(subscription, ProvisioningState::Failed, reason, now);
        }
    } else {
        const QJsonObject answer = QJsonDocument::fromJson(reply->readAll()).object();
        QString echoed;
        for (auto it = answer.begin(); it != answer.end(); ++it) {
            if (it.key().compare(u"validationResponse"_s, Qt::CaseInsensitive) == 0)
                echoed = it.value().toString();
        }
        if (httpStatus == 200 && !echoed.isEmpty() && echoed == subscription.provisioning.validationCode) {
            setProvisioning(subscription, ProvisioningState::Succeeded,
                            u"the endpoint echoed the validation code"_s, now);
        } else {
            const QString reason = httpStatus == 200
                                       ? (echoed.isEmpty() ? u"the endpoint answered 200 without validationResponse"_s
                                                           : u"the endpoint answered a wrong validationResponse"_s)
                                       : failure;
            setProvisioning(subscription, ProvisioningState::AwaitingManualActionValidation,
                            reason + u"; visit the validation URL within 5 minutes"_s, now);
        }
    }
    reschedule(subscription, now);
    rearmAlarm();
}

void Engine::setProvisioning(Subscription &subscription, ProvisioningState state, const QString &message,
                             qint64 now)
{
    ProvisioningRecord &record = subscription.provisioning;
    record.state = state;
    record.message = message;
    if (state != ProvisioningState::Creating)
        resetUnreachable(subscription);
    subscription.nextRequestAllowedMs = 0; // a new verdict, perhaps a new WebHook-Allowed-Rate
    if (state == ProvisioningState::AwaitingManualActionValidation)
        record.expiresMs = now + ManualValidationWindowMs;
    else if (state == ProvisioningState::Succeeded)
        record.validationCode.clear(); // kept on failure, so a late visit is told it expired
    if (state != ProvisioningState::AwaitingManualActionValidation)
        record.expiresMs = 0;
    qCInfo(lcDelivery) << "subscription" << subscription.topic << "/" << subscription.config.name
                       << "provisioning" << provisioningStateName(state) << "-" << message;
    syncHeld(subscription);
    saveProvisioning();
    Q_EMIT provisioningChanged(subscription.topic, subscription.config.name);
}

void Engine::saveProvisioning()
{
    if (!m_provisioningStore)
        return;
    QList<ProvisioningRecord> records;
    for (const auto &subscription : m_subscriptions) {
        // Handshakes under way are not kept: they are simply sent again after a restart.
        if (!subscription->removed && subscription->config.validationEnabled
            && subscription->provisioning.state != ProvisioningState::Creating)
            records.append(subscription->provisioning);
    }
    if (auto saved = m_provisioningStore->save(records); !saved) {
        qCWarning(lcStore) << "cannot save the provisioning state:" << saved.error();
        Q_EMIT storeError(saved.error());
    }
}

ManualValidationResult Engine::completeManualValidation(const QString &topic, const QString &subscriptionName,
                                                        const QString &code)
{
    const StateLock lock(*this);
    Subscription *subscription = findSubscription(topic, subscriptionName);
    if (!subscription)
        return {404, u"There is no event subscription %1/%2 in this workspace."_s.arg(topic, subscriptionName)};
    ProvisioningRecord &record = subscription->provisioning;
    const qint64 now = m_clock->nowMs();
    const bool codeMatches = !code.isEmpty() && code == record.validationCode;
    switch (record.state) {
    case ProvisioningState::Succeeded:
        return {200, u"Event subscription %1/%2 is already validated."_s.arg(topic, subscriptionName)};
    case ProvisioningState::Creating:
        return {409, u"Event subscription %1/%2 is still sending its validation handshake."_s.arg(topic, subscriptionName)};
    case ProvisioningState::Failed:
        if (codeMatches)
            return {410, u"This validation URL has expired: event subscription %1/%2 failed validation (%3)."_s.arg(
                             topic, subscriptionName, record.message)};
        return {409, u"Event subscription %1/%2 is not awaiting manual validation (it failed: %3)."_s.arg(
                         topic, subscriptionName, record.message)};
    case ProvisioningState::AwaitingManualActionValidation:
        break;
    }
    if (now >= record.expiresMs) {
        setProvisioning(*subscription, ProvisioningState::Failed,
                        u"the validation URL was not visited within 5 minutes"_s, now);
        reschedule(*subscription, now);
        return {410, u"This validation URL has expired (it is valid for 5 minutes)."_s};
    }
    if (!codeMatches)
        return {400, u"The validation code does not match the one sent to the endpoint."_s};
    setProvisioning(*subscription, ProvisioningState::Succeeded,
                    u"validated through the validation URL"_s, now);
    reschedule(*subscription, now);
    return {200, u"Webhook successfully validated as a result of user action."_s};
}

Expected<void> Engine::revalidate(const QString &topic, const QString &subscriptionName)
{
    const StateLock lock(*this);
    Subscription *subscription = findSubscription(topic, subscriptionName);
    if (!subscription)
        return Error(u"There is no event subscription %1/%2 in this workspace."_s.arg(topic, subscriptionName));
    if (!subscription->config.validationEnabled)
        return Error(u"Endpoint validation is switched off for %1/%2 (x-eventdesk.validation: false)."_s.arg(
            topic, subscriptionName));
    const qint64 now = m_clock->nowMs();
    abortValidation(*subscription);
    resetUnreachable(*subscription); // "Validate now": at once, not at the next backoff step
    subscription->provisioning.validationCode.clear();
    subscription->provisioning.allowedRate.clear();
    setProvisioning(*subscription, ProvisioningState::Creating, u"sending the validation handshake"_s, now);
    reschedule(*subscription, now);
    return {};
}

ProvisioningState Engine::provisioningState(const QString &topic, const QString &subscription) const
{
    const StateLock lock(*this);
    const Subscription *found = findSubscription(topic, subscription);
    return found ? found->provisioning.state : ProvisioningState::Failed;
}

} // namespace EventDesk
