// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../model/Workspace.h"
#include "../rules/ProbationTracker.h"
#include "../store/DeliveryStore.h"
#include "EngineLock.h"
#include "EngineSnapshot.h"
#include "EngineTypes.h"
#include "Provisioning.h"
#include "StoreHealth.h"

#include <QHash>
#include <QNetworkReply>
#include <QObject>
#include <QPointer>
#include <QString>

#include <algorithm>
#include <atomic>
#include <limits>
#include <memory>
#include <mutex>
#include <random>
#include <unordered_map>
#include <vector>

namespace EventDesk {

class Clock;

// An entry of the engine's min-heaps: a delivery by due time, a subscription by the time it next
// needs attention, a request by its deadline. Entries are never removed from the middle of a
// heap: an entry whose generation no longer matches its target's is stale and skipped when it
// reaches the top.
struct HeapEntry
{
    qint64 atMs;
    quint64 key; // delivery id, subscription index or request id
    quint64 generation;
    bool operator>(const HeapEntry &other) const { return atMs > other.atMs; }
};

inline void heapPush(std::vector<HeapEntry> &heap, HeapEntry entry)
{
    heap.push_back(entry);
    std::push_heap(heap.begin(), heap.end(), std::greater<>());
}

inline void heapPop(std::vector<HeapEntry> &heap)
{
    std::pop_heap(heap.begin(), heap.end(), std::greater<>());
    heap.pop_back();
}

inline void heapify(std::vector<HeapEntry> &heap)
{
    std::make_heap(heap.begin(), heap.end(), std::greater<>());
}

// Events shared by the deliveries that currently need them; an entry disappears with the last
// delivery holding it, so a large retry backlog does not keep payloads in memory.
class EventCache
{
public:
    std::shared_ptr<const StoredEvent> adopt(StoredEvent event);
    std::shared_ptr<const StoredEvent> find(qint64 seq) const;

private:
    QHash<qint64, std::weak_ptr<const StoredEvent>> m_bySeq;
};

struct Subscription;

// One event on its way to one subscription (a row of the store's deliveries table).
struct Delivery
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

// The endpoint validation of a subscription (Provisioning): deliveries are sent only once its
// state is Succeeded.
struct ValidationState
{
    ProvisioningRecord record;
    QPointer<QNetworkReply> reply; // the handshake in flight
    qint64 sentMs = 0;
    int unansweredHandshakes = 0; // in a row: the endpoint was unreachable
    qint64 nextAttemptMs = 0; // Creating, endpoint unreachable: when to ask again
    QString unreachableBecause; // the last transport failure or status, for the GUI
};

// A subscription as the engine runs it: its configuration, its deliveries' heaps and counters.
struct Subscription
{
    int index = 0;
    QString topic;
    QString topicPath;
    EventSchema inputSchema = EventSchema::EventGrid;
    EventSubscription config;
    bool removed = false;
    SubscriptionSnapshot counters;

    // DeliveryScheduler
    std::vector<HeapEntry> pending; // key: delivery id, by due time
    quint64 heapGeneration = 0; // of the subscription's entry in the scheduler's heap
    qint64 scheduledAtMs = -1;

    // Dispatcher and OutcomeHandler
    ProbationTracker probation;
    int inFlightRequests = 0;
    qint64 nextRequestAllowedMs = 0; // WebHook-Allowed-Rate: no request before this (engine time)

    // DeadLettering
    std::vector<HeapEntry> deadLetterPending; // key: delivery id, by write time
    bool deadLetterWriteInProgress = false;

    // Provisioning
    ValidationState validation;
    // Deliveries held while the endpoint is not validated, by the time their TTL runs out
    // (RetryPlanner::expiresAtMs()): kept only while the subscription is not
    // Succeeded, so that a held delivery is never stranded.
    std::vector<HeapEntry> heldExpiry; // key: delivery id
    bool heldTracked = false;
    // Engine::setSecretsPending: a secret the subscription needs has not come from the secret
    // store yet (the keychain is locked or prompting). Its deliveries are held as above.
    bool awaitingSecrets = false;

    ProvisioningState provisioningState() const { return validation.record.state; }
    bool isValidated() const { return validation.record.state == ProvisioningState::Succeeded; }
    // Deliveries are held, not attempted: the endpoint is not validated or a secret is awaited.
    bool isHeld() const { return !isValidated() || awaitingSecrets; }
    QString displayName() const { return topic + u" / " + config.name; }
};

QString subscriptionKey(const QString &topic, const QString &subscription);

// A held delivery in its subscription's heldExpiry heap: by the time its TTL runs out.
HeapEntry heldEntry(const Subscription &subscription, const Delivery &delivery);

// Ids of a shared store (InstanceLeases): taken from blocks this instance reserved, a new block
// reserved when one runs out. Thread-safe (the parser threads number their publishes too).
class IdBlocks
{
public:
    // Ids reserved at a time: one round trip to the store per this many events or deliveries.
    static constexpr qint64 BlockSize = 1 << 20;

    void setSource(InstanceLeases *leases) { m_leases = leases; }
    bool isActive() const { return m_leases != nullptr; }
    // The first of count consecutive ids no other instance hands out.
    Expected<qint64> take(IdKind kind, qint64 count);

private:
    struct Block
    {
        qint64 next = 0;
        qint64 end = 0; // one past the last id of the block
    };
    InstanceLeases *m_leases = nullptr;
    std::mutex m_mutex;
    Block m_blocks[2]; // by IdKind
};

// Everything the engine's units share. The units (Ingest, DeliveryScheduler, Dispatcher,
// OutcomeHandler, DeadLettering, Provisioning) each get a reference to it; nothing reaches into
// another unit's privates. Guarded by `lock`: every entry into the engine holds a StateLock, on
// the engine thread and on the delivery lanes alike.
struct EngineState
{
    EngineState(Clock *clock, DeliveryStore *store, EngineOptions options)
        : clock(clock)
        , store(store)
        , options(options)
        , storeHealth(clock)
        , random(options.jitterSeed ? options.jitterSeed : std::random_device()())
    {
    }
    ~EngineState()
    {
        deliveries.clear(); // deliveries hold events whose deleter touches the cache
    }

    Clock *const clock;
    DeliveryStore *const store;
    const EngineOptions options;
    mutable EngineLock lock;
    StoreHealth storeHealth;

    Workspace workspace;
    // start() and applyWorkspace() count it up; the parser threads read it.
    std::atomic<quint64> workspaceGeneration = 0;
    bool running = false;

    std::vector<std::unique_ptr<Subscription>> subscriptions; // by index; removed ones stay
    QHash<QString, TopicSnapshot> topicCounters; // key: topic name (lower case)
    EventCache events; // declared before the deliveries that reference it
    std::unordered_map<qint64, Delivery> deliveries; // by value: one allocation per delivery

    // Taken by the parser threads too (large publishes are stored there): ranges are reserved
    // with fetch_add, so ids are unique but may have gaps (a publish that failed to store).
    std::atomic<qint64> nextEventSeq = 1;
    std::atomic<qint64> nextDeliveryId = 1;
    // A shared store: ids come from here instead (DeliveryClaims activates it at start).
    IdBlocks idBlocks;
    // The first of count consecutive ids of that kind: from the counters above (a store of one
    // engine, whose high-water marks started them), or from idBlocks.
    Expected<qint64> takeIds(IdKind kind, qint64 count)
    {
        if (!idBlocks.isActive())
            return (kind == IdKind::EventSeq ? nextEventSeq : nextDeliveryId).fetch_add(count);
        return idBlocks.take(kind, count);
    }
    // Engine time until which this instance's lease is known to hold (DeliveryClaims): no request
    // is sent after it until a heartbeat renews it. A store of one engine holds it for ever.
    qint64 leaseHeldUntilMs = std::numeric_limits<qint64>::max();

    std::mt19937_64 random; // SPEC R5 jitter
    ReceiverAlias receiverAlias; // set before start(); read on the lanes too

    Subscription &subscription(int index) { return *subscriptions.at(size_t(index)); }
    Subscription *findSubscription(const QString &topic, const QString &name);
    const Subscription *findSubscription(const QString &topic, const QString &name) const;

    // The delivery a heap entry names, when the entry is not stale (same state and generation).
    Delivery *liveDelivery(const HeapEntry &entry, DeliveryState state);

    // Loads the events of these deliveries that are not in memory (SPEC D1: the store has them).
    Expected<void> ensureEventsLoaded(const std::vector<Delivery *> &deliveries);
    // The event's bytes in the subscription's delivery schema.
    QByteArray deliveredBody(const Subscription &subscription, const Delivery &delivery) const;

    // Into the subscription's pending heap, due at delivery.dueMs (and held, while not validated).
    void pushPending(Subscription &subscription, Delivery &delivery);
};

} // namespace EventDesk
