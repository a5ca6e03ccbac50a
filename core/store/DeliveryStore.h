// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../Expected.h"
#include "../rules/DeliveryOutcome.h"

#include <QByteArray>
#include <QList>
#include <QMetaType>
#include <QString>
#include <QtGlobal>

#include <functional>
#include <optional>

namespace EventDesk {

class SharedConfiguration; // SharedConfiguration.h

// An accepted event as persisted (SPEC D1). seq is assigned by the engine (see maxIds()).
struct StoredEvent
{
    qint64 seq = 0;
    QString topic;
    QString id;
    QString eventType;
    QString subject;
    QString dataVersion;
    QString eventTime;
    qint64 publishMs = 0;
    QByteArray body; // PublishedEvent::body
};

// One (event, subscription) pair and where it is in its life (SPEC §1).
struct DeliveryRecord
{
    qint64 id = 0; // assigned by the engine
    qint64 eventSeq = 0;
    QString topic;
    QString subscription;
    DeliveryState state = DeliveryState::Pending;
    int attempts = 0; // failed attempts so far (aeg-delivery-count of the next one)
    qint64 dueMs = 0; // Pending: next attempt; DeadLetterPending: next write try
    qint64 publishMs = 0;
    DeliveryOutcome lastOutcome = DeliveryOutcome::Delivering;
    int lastHttpStatus = 0;
    qint64 lastAttemptMs = 0;
    DeadLetterReason reason = DeadLetterReason::None; // DeadLetterPending
    qint64 deadLetterUnavailableSinceMs = 0; // L4: first failed write, 0 = none yet
};

// A delivery that reached its fate: the row is removed, and the event too when it has no
// deliveries left.
struct FinishedDelivery
{
    qint64 id = 0;
    qint64 eventSeq = 0;
    DeliveryState fate = DeliveryState::Delivered; // Delivered, DeadLettered or Dropped
};

// The dead-letter index (the blob is the record of truth; this row makes browsing and
// resubmitting fast).
struct DeadLetterEntry
{
    qint64 id = 0; // assigned by the store on insert
    QString topic;
    QString subscription;
    QString eventId;
    DeadLetterReason reason = DeadLetterReason::None;
    DeliveryOutcome lastOutcome = DeliveryOutcome::GenericError;
    int lastHttpStatus = 0;
    int attempts = 0;
    qint64 publishMs = 0;
    qint64 lastAttemptMs = 0;
    qint64 deadLetteredMs = 0; // time of the write
    QString blobPath; // "<container>/<SUB>/<y>/<M>/<d>/<H>/<uuid>.json"
    QByteArray record; // the L7 record bytes (searchable copy)
    // What a resubmit needs to publish the event again:
    QString eventType;
    QString subject;
    QString dataVersion;
    QString eventTime;
    QByteArray eventBody; // StoredEvent::body
};

// How a dead letter was resubmitted: to the subscription it died in, or through its topic, where
// every current subscription's filter decides again.
enum class ResubmitRoute { ToSubscription = 0, ThroughTopic = 1 };

// One delivery created by resubmitting a dead letter: the trace from the new delivery back to
// the dead letter (whose index row is gone), for the event inspector's timeline.
struct ResubmissionEntry
{
    qint64 id = 0; // assigned by the store on insert
    qint64 timeMs = 0; // when it was resubmitted
    qint64 deadLetterId = 0;
    QString eventId;
    QString topic;
    QString fromSubscription; // the subscription the event was dead-lettered in
    DeadLetterReason reason = DeadLetterReason::None; // why it was dead-lettered
    qint64 deadLetteredMs = 0;
    QString toSubscription; // the subscription of the new delivery
    qint64 deliveryId = 0;
    ResubmitRoute route = ResubmitRoute::ThroughTopic;
};

struct DroppedEntry
{
    QString topic;
    QString subscription;
    QString eventId;
    DeadLetterReason reason = DeadLetterReason::None;
    DeliveryOutcome lastOutcome = DeliveryOutcome::GenericError;
    int lastHttpStatus = 0;
    int attempts = 0;
    qint64 droppedMs = 0;
};

// The delivery log (bounded; see SqliteDeliveryStore::MaxAttemptLogRows).
struct AttemptLogEntry
{
    qint64 id = 0; // assigned by the store
    qint64 timeMs = 0; // when the attempt was sent
    QString topic;
    QString subscription;
    QStringList eventIds; // one per event in the request (batching)
    int attempt = 0; // 1-based attempt number of the first event
    int httpStatus = 0;
    DeliveryOutcome outcome = DeliveryOutcome::Delivered;
    qint64 durationMs = 0;
    qint64 nextDueMs = 0; // 0: no retry
    // A store shared by several engines (InstanceLeases): the instance that made the attempt; 0
    // when the store does not record it (SQLite, or a shared store nobody registered on).
    qint64 instance = 0;
};

// Persisted ProbationTracker state, so probation survives a restart.
struct ProbationRecord
{
    QString topic;
    QString subscription;
    int state = 0; // ProbationTracker::State
    DeliveryOutcome cause = DeliveryOutcome::Delivered;
    qint64 untilMs = 0;
    qint64 durationMs = 0;
    int consecutiveFailures = 0;
    // A shared store (InstanceLeases::probationOfOthers()): the order of the writes of the row
    // across instances (the last one wins) and the instance that wrote it. 0 elsewhere.
    qint64 revision = 0;
    qint64 instance = 0;
};

// Changes buffered by the engine and committed together in one transaction.
struct StoreBatch
{
    QList<DeliveryRecord> updates; // rows that exist: state, attempts, due, outcome, ...
    QList<FinishedDelivery> finished;
    QList<DeadLetterEntry> deadLetters;
    QList<DroppedEntry> drops;
    QList<AttemptLogEntry> attempts;
    QList<ProbationRecord> probation;

    bool isEmpty() const
    {
        return updates.isEmpty() && finished.isEmpty() && deadLetters.isEmpty() && drops.isEmpty()
            && attempts.isEmpty() && probation.isEmpty();
    }
};

struct DeadLetterQuery
{
    QString topic; // empty = any
    QString subscription; // empty = any
    DeadLetterReason reason = DeadLetterReason::None; // None = any
    QString text; // substring of the record, empty = any
    qint64 beforeId = 0; // keyset pagination: rows with id < beforeId (0 = from the newest)
    int limit = 200; // <= 0: no limit
    // The filters of the dead-letter browser beyond those above (appended, so that existing
    // designated initializers stay valid):
    std::optional<DeliveryOutcome> lastOutcome; // nullopt = any
    qint64 fromMs = 0; // dead_lettered_ms >= fromMs (0 = no lower bound)
    qint64 toMs = 0; // dead_lettered_ms <= toMs (0 = no upper bound)

    // Whether any filter is set; beforeId and limit only page through the matching rows.
    // Without a filter every dead letter matches (the dead-letter browser then counts once).
    bool hasFilter() const
    {
        return !topic.isEmpty() || !subscription.isEmpty() || reason != DeadLetterReason::None
            || !text.isEmpty() || lastOutcome.has_value() || fromMs != 0 || toMs != 0;
    }
    bool operator==(const DeadLetterQuery &other) const = default;
};

// The ids an engine hands out itself (InstanceLeases::reserveIds).
enum class IdKind { EventSeq = 0, DeliveryId = 1 };

// Who an engine on a shared store is (InstanceLeases::registerInstance).
struct InstanceInfo
{
    QString hostName;
    qint64 processId = 0;
    qint64 leaseMs = 0; // the heartbeat this instance promises: dead once its last one is older
};

// What a store that several engines share offers beyond DeliveryStore (PostgreSQL; issue 21). Each
// engine registers as an instance and renews its lease with a heartbeat; the store's own clock
// (the database server's) judges whether a lease ran out, so the engines' clocks never have to
// agree. A delivery belongs to the instance that stored it or claimed it: commit() changes only
// the rows this instance owns (fencing), and reports the others through takeLostDeliveries().
// Ids come from blocks reserved per instance, so instances never hand out the same one.
class InstanceLeases
{
public:
    enum class Lease { Held, Lost };

    virtual ~InstanceLeases() = default;

    // A new instance row (heartbeat now); inserts and attempts name it from then on. Registering
    // again (after Lease::Lost) gives a new id: a lost lease is never taken back.
    virtual Expected<qint64> registerInstance(const InstanceInfo &info) = 0;
    virtual qint64 instanceId() const = 0; // 0: not registered
    // The heartbeat: Held while the lease had not run out; Lost when it had (another instance may
    // have claimed this one's deliveries meanwhile), and it stays lost.
    virtual Expected<Lease> renewLease() = 0;
    // The first id of a block of count ids of that kind that no other instance will hand out.
    virtual Expected<qint64> reserveIds(IdKind kind, qint64 count) = 0;
    // Takes over unfinished deliveries that no live instance owns (their owner's lease ran out, or
    // it released them, or they never had one), up to limit of each of those two kinds, and visits
    // each as stored: its
    // attempts, due time and publish time unchanged. Two instances claiming at once never take the
    // same row. Returns how many were claimed.
    virtual Expected<qint64>
    claimDeliveries(int limit, const std::function<void(const DeliveryRecord &)> &visit) = 0;
    // Deliveries whose changes commit() did not write since the last call, because another
    // instance owns them now: the engine forgets them instead of retrying them.
    virtual QList<qint64> takeLostDeliveries() = 0;
    // Clean shutdown: this instance's deliveries are claimable at once, and its row goes.
    virtual Expected<void> releaseInstance() = 0;
    // SPEC P1-P4 per destination, shared: the probation rows another instance wrote last (with
    // their revision; a row's revision only grows). commit() writes this instance's.
    virtual Expected<QList<ProbationRecord>> probationOfOthers() = 0;
};

// The persistence the engine needs. The SQLite backend is one implementation; another database
// must be possible without touching the engine. Calls may come from more than one thread: the
// engine stores large publishes (insertPublished) on its parser threads while its own thread
// commits delivery changes, so an implementation serializes its calls.
class DeliveryStore
{
public:
    virtual ~DeliveryStore() = default;

    struct MaxIds
    {
        qint64 eventSeq = 0;
        qint64 deliveryId = 0;
    };
    virtual Expected<MaxIds> maxIds() = 0;

    // D1: events and their deliveries in ONE transaction; the publish is acknowledged after this
    // returns successfully. Nothing is stored when it fails.
    virtual Expected<void> insertPublished(const QList<StoredEvent> &events,
                                           const QList<DeliveryRecord> &deliveries)
        = 0;

    // Group commit of everything in batch, in one transaction.
    virtual Expected<void> commit(const StoreBatch &batch) = 0;

    // Start-up: every delivery that has not reached its fate (Pending, InFlight,
    // DeadLetterPending). InFlight ones are returned as they were stored; the engine retries them.
    virtual Expected<QList<DeliveryRecord>> loadUnfinishedDeliveries() = 0;
    // The same rows, streamed in id order: visit is called once per row, and the backend need not
    // hold them all at once (a backlog of a million deliveries would otherwise cost hundreds of MB
    // of records on top of the engine's own structures, only to be thrown away). The record passed
    // is valid only during the call.
    virtual Expected<void>
    forEachUnfinishedDelivery(const std::function<void(const DeliveryRecord &)> &visit)
    {
        auto rows = loadUnfinishedDeliveries();
        if (!rows)
            return Error(rows.error());
        for (const DeliveryRecord &record : std::as_const(rows.value()))
            visit(record);
        return {};
    }
    // About how many rows forEachUnfinishedDelivery() will visit, if the backend can tell
    // cheaply (0 otherwise): the engine sizes its delivery table once instead of growing it a
    // score of times during a start-up with a large backlog.
    virtual qint64 unfinishedDeliveryCountHint() { return 0; }
    virtual Expected<QList<StoredEvent>> loadEvents(const QList<qint64> &seqs) = 0;
    virtual Expected<QList<ProbationRecord>> loadProbation() = 0;

    // Dead-letter index (newest first).
    virtual Expected<QList<DeadLetterEntry>> deadLetters(const DeadLetterQuery &query) = 0;
    virtual Expected<QList<DeadLetterEntry>> deadLettersById(const QList<qint64> &ids) = 0;
    virtual Expected<qint64> countDeadLetters(const DeadLetterQuery &query) = 0;
    virtual Expected<void> removeDeadLetters(const QList<qint64> &ids) = 0;
    // Dead letters resubmitted, in ONE transaction: the events and their new deliveries stored as
    // insertPublished() stores them, a resubmissions row per new delivery, and the dead letters'
    // index rows removed. Nothing changes when it fails, so a dead letter has left the index
    // exactly when its event was resubmitted.
    virtual Expected<void> insertResubmitted(const QList<StoredEvent> &events,
                                             const QList<DeliveryRecord> &deliveries,
                                             const QList<ResubmissionEntry> &resubmissions,
                                             const QList<qint64> &deadLetterIds)
        = 0;

    virtual Expected<QList<DroppedEntry>> droppedDeliveries(int limit) = 0;
    virtual Expected<QList<AttemptLogEntry>> attemptLog(int limit) = 0; // newest first

    // The time scale the engine runs at (eventdeskd --time-scale; 1 for the wall clock), kept so
    // that a reader can tell how the engine times of the rows relate to the wall clock: the scale
    // of the last run, and the fastest any run had (EngineTimeScales, DeliveryStoreReader.h).
    virtual Expected<void> recordTimeScale(double scale) = 0;

    // A store several engines share (see InstanceLeases); nullptr for a store of one engine, which
    // then assigns ids from maxIds() and loads every unfinished delivery at start.
    virtual InstanceLeases *instanceLeases() { return nullptr; }
    // The topics and subscriptions, on a store several engines share (SharedConfiguration.h);
    // nullptr where each workspace.json holds its own.
    virtual SharedConfiguration *sharedConfiguration() { return nullptr; }

    // Lets go of the file or connection once the engine has committed everything (before the
    // workspace lock is released); later calls fail as "not open".
    virtual void close() { }
};

} // namespace EventDesk

Q_DECLARE_METATYPE(EventDesk::AttemptLogEntry)
