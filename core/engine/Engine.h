#pragma once

#include "../Expected.h"
#include "../model/EventParser.h"
#include "../model/Workspace.h"
#include "../store/DeliveryStore.h"
#include "EngineSnapshot.h"
#include "Provisioning.h"

#include <QHash>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QThreadPool>
#include <QTimer>
#include <QUrl>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <unordered_map>
#include <vector>

class QNetworkAccessManager;

namespace EventDesk {

class DeliveryLane;

class Clock;
class DeadLetterSink;

struct EngineOptions
{
    bool jitter = true; // SPEC R5
    quint64 jitterSeed = 0; // 0: random seed
    qint64 responseTimeoutMs = 30'000; // SPEC D6
    qint64 abortAfterMs = 180'000; // SPEC D6 late-success window
    qint64 deadLetterRetryMs = 60'000; // L4: wait between write tries to an unavailable destination
    qint64 deadLetterGiveUpMs = 4LL * 60 * 60 * 1000; // L4
    int deadLetterMaxEventsPerBlob = 500; // L3: events written together where possible
    int storeFlushIntervalMs = 5; // group commit of state changes after delivery
};

// A publish request taken in by the engine thread and not yet parsed (see
// Engine::preparePublish): everything the parse needs, so that it can run on another thread.
// A subscription a publish request is matched against, as it was when the request arrived.
struct PublishTarget
{
    int subscriptionIndex = -1;
    QString topic; // as the subscription names it
    QString subscription;
    EventFilter filter;
};

struct PublishTicket
{
    Topic topic;
    QList<PublishTarget> targets; // the topic's enabled subscriptions
    QByteArray body;
    QByteArray contentType;
    qint64 nowMs = 0; // the publish time
    QString publishTimeIso;
    EventParser::FilterViews filterViews = EventParser::FilterViews::Build;
    quint64 workspaceGeneration = 0;
};

struct PublishResult
{
    int httpStatus = 200;
    QString errorCode;
    QString errorMessage;
    int accepted = 0; // events stored
    int deliveriesCreated = 0;
};

// The answer to a visit of a subscription's validation URL.
struct ManualValidationResult
{
    int httpStatus = 200; // 200 validated; 400 wrong code; 404 unknown; 409 not awaiting; 410 expired
    QString message;
};

struct ResubmitResult
{
    int resubmitted = 0;
    QStringList errors; // one per dead letter that could not be resubmitted
};

// The delivery engine (SPEC §1–§9 for webhooks). Lives on one thread (its webhook replies may be
// handled on delivery lanes, see setDeliveryLanes); all HTTP goes through the injected
// QNetworkAccessManager or the lanes' own; all time through the injected Clock; all persistence
// through the injected DeliveryStore. Scheduling uses two heaps (subscriptions by next attention
// time; per subscription its deliveries by due time) and ONE clock alarm.
class Engine final : public QObject
{
    Q_OBJECT

public:
    Engine(Clock *clock, QNetworkAccessManager *network, DeliveryStore *store,
           DeadLetterSink *deadLetterSink, EngineOptions options = {}, QObject *parent = nullptr);
    ~Engine() override;

    // Webhook requests go through this many delivery lanes (each a thread with an access manager
    // of its own, DeliveryLane) instead of the constructor's manager: Qt's per-request work then
    // runs on every core, and a lane handles its replies itself (under the engine's state lock)
    // without a trip through the engine thread. Call before start(). 0, the default, keeps every
    // request on the engine's thread and the constructor's manager (tests hand in a fake there).
    // Validation handshakes always use the constructor's manager.
    void setDeliveryLanes(int count);
    // One lane per core, at most four (bench/RESULTS.md, benchmark 1).
    static int recommendedDeliveryLanes();

    // Secret header values (H2) come from here; without a resolver secret headers are omitted.
    // Called on the delivery lanes' threads too: it must be thread-safe (SecretCache is).
    void setSecretResolver(std::function<QString(const QString &topic, const QString &subscription,
                                                 const QString &headerName)>
                               resolver);

    // Loads the workspace and every unfinished delivery from the store (D1: at-least-once after a
    // restart; deliveries that were in flight are retried). Deliveries of subscriptions that no
    // longer exist are dropped with reason SubscriptionDeleted.
    Expected<void> start(const Workspace &workspace);

    // Replaces topics/subscriptions at run time (the GUI editor). Pending deliveries of removed
    // subscriptions are dropped (SubscriptionDeleted); changed policies apply from the next attempt.
    Expected<void> applyWorkspace(const Workspace &workspace);

    // Stops sending, aborts requests in flight (their deliveries stay pending in the store and
    // are retried after a restart, outcome Canceled) and commits everything buffered.
    void shutdown();

    // Publish API (SPEC §10, D2): validates the whole request, stores events and deliveries in one
    // transaction, and only then reports success. Deliveries start immediately.
    PublishResult publish(const QString &topicName, const QByteArray &body,
                          const QByteArray &contentType);

    // Publishes like publish(), but a large request is parsed on a worker thread while the
    // engine thread goes on storing and delivering; done is called on the engine's thread, after
    // the commit (D1) or with the rejection. Small requests are published before this returns.
    void publishAsync(const QString &topicName, const QByteArray &body,
                      const QByteArray &contentType,
                      std::function<void(const PublishResult &result)> done);

    // The steps of publish(): preparePublish (engine thread) answers 404/503 or fills the
    // ticket; parsePublish is a pure function that may run on any thread; publishParsed (engine
    // thread) stores and schedules. A ticket whose workspace has changed meanwhile is parsed
    // again against the current one. (publishAsync stores large requests on the parser thread
    // instead, and only schedules on the engine thread.)
    PublishResult preparePublish(const QString &topicName, const QByteArray &body,
                                 const QByteArray &contentType, PublishTicket *ticket);
    static PublishParseResult parsePublish(const PublishTicket &ticket);
    PublishResult publishParsed(const PublishTicket &ticket, PublishParseResult parsed);

    bool hasTopic(const QString &topicName) const;

    // Dead letters (the GUI's browser): resubmitted events keep their id and start with a fresh
    // attempt count and a fresh time to live.
    ResubmitResult resubmitDeadLetters(const QList<qint64> &deadLetterIds);
    ResubmitResult resubmitDeadLetters(const DeadLetterQuery &query);

    // Endpoint validation (Event Grid's handshake when a webhook subscription is created).
    // Provisioning records are loaded from / saved to this store (optional; set before start()).
    void setProvisioningStore(ProvisioningStore *store) { m_provisioningStore = store; }
    // Base of the validation URLs sent in SubscriptionValidationEvent (the endpoint's address).
    void setValidationBaseUrl(const QUrl &baseUrl) { m_validationBaseUrl = baseUrl; }
    QUrl validationBaseUrl() const { return m_validationBaseUrl; }
    // GET /validate/<topic>/<subscription>?code=...: completes a manual validation when the code
    // matches and the URL has not expired (5 minutes of engine time).
    ManualValidationResult completeManualValidation(const QString &topic, const QString &subscription,
                                                    const QString &code);
    // Runs the handshake again (e.g. after a failure, once the receiver is fixed).
    Expected<void> revalidate(const QString &topic, const QString &subscription);
    ProvisioningState provisioningState(const QString &topic, const QString &subscription) const;

    // SPEC D6 as configured (the metrics' histogram and the validation handshake use it too).
    qint64 responseTimeoutMs() const { return m_options.responseTimeoutMs; }

    EngineSnapshot snapshot() const;
    const Workspace &workspace() const { return m_workspace; }
    Clock *clock() const { return m_clock; }

    // Commits buffered state changes now (tests; shutdown).
    Expected<void> flush();

Q_SIGNALS:
    void attemptLogged(const EventDesk::AttemptLogEntry &entry);
    void probationChanged(const QString &topic, const QString &subscription);
    void provisioningChanged(const QString &topic, const QString &subscription);
    void storeError(const QString &message);

private:
    struct Delivery;
    struct Subscription;
    struct Request;
    struct EventCache;
    class StateLock;
    struct OutgoingRequest
    {
        int lane;
        quint64 requestId;
        quint64 cancelGeneration;
        QNetworkRequest request;
        QByteArray body;
    };

    // The rows of an accepted publish request: its events, and a delivery for every target
    // whose filter an event matches (recordTarget: index into the ticket's targets).
    struct PublishRows
    {
        QList<StoredEvent> events;
        QList<DeliveryRecord> records;
        QList<int> recordTarget;
        quint64 unmatched = 0;
    };
    // Thread-safe: reads only the ticket and reserves ids.
    PublishRows buildPublishRows(const PublishTicket &ticket, const PublishParseResult &parsed);
    // Engine thread, after the rows were committed: counters, deliveries, scheduling.
    PublishResult adoptPublished(const PublishTicket &ticket, PublishRows rows);
    PublishResult storeFailed(const PublishTicket &ticket, const QString &error);

    void onAlarm();
    void service(Subscription &subscription, qint64 now);
    void serviceProbationDue(Subscription &subscription, qint64 now);
    // Pops the next pending delivery due at now; those whose TTL ran out meanwhile (R7) are
    // dead-lettered or dropped on the way. nullptr when nothing more is due.
    Delivery *takeDueDelivery(Subscription &subscription, qint64 now);
    void endUndelivered(Subscription &subscription, Delivery &delivery, DeadLetterReason reason,
                        qint64 now);
    void serviceDeadLetters(Subscription &subscription, qint64 now);
    int sendBatches(Subscription &subscription, qint64 now, int maxRequests);
    void sendRequest(Subscription &subscription, const std::vector<Delivery *> &batch,
                     const QList<QByteArray> &bodies, qint64 now, bool probe);
    void onLaneFinished(quint64 requestId, int httpStatus, QNetworkReply::NetworkError error);
    void finishRequest(quint64 requestId, int httpStatus, QNetworkReply::NetworkError error);
    // Engine thread or a lane's: the work that only the engine thread may do (timers, the clock,
    // signals to the engine thread's receivers) is deferred from lanes to wakeEngineThread().
    bool onEngineThread() const;
    void wakeEngineThread();
    // Emits at once on the engine thread; raised on a lane, with the next commit or wake-up, in
    // the order raised (the engine thread's receivers expect its signals there).
    template <typename Emit>
    void emitOnEngineThread(Emit emitSignal);
    void emitDeferredSignals();
    void logAttempt(const AttemptLogEntry &entry);
    void reportStoreError(const QString &message);
    void onRequestTimedOut(quint64 requestId, qint64 now);
    void onRequestAbortDue(quint64 requestId);
    void applyFailure(Subscription &subscription, Delivery &delivery, DeliveryOutcome outcome,
                      int httpStatus, qint64 now);
    void applySuccess(Subscription &subscription, Delivery &delivery, qint64 now);
    void toDeadLetterPending(Subscription &subscription, Delivery &delivery, DeadLetterReason reason,
                             qint64 now);
    void drop(Subscription *subscription, Delivery &delivery, DeadLetterReason reason, qint64 now);
    void finish(Subscription &subscription, Delivery &delivery, DeliveryState fate);
    void pushPending(Subscription &subscription, Delivery &delivery);
    void recordProbation(Subscription &subscription);
    void reschedule(Subscription &subscription, qint64 now);
    void rearmAlarm();
    void scheduleFlush();
    bool ensureEventsLoaded(const std::vector<Delivery *> &deliveries);
    QByteArray deliveredBody(const Subscription &subscription, const Delivery &delivery) const;
    double nextJitter();
    Subscription *findSubscription(const QString &topic, const QString &name);
    void rebuildSubscriptions(const Workspace &workspace, qint64 now);
    void updateProvisioning(Subscription &subscription, qint64 now);
    void serviceProvisioning(Subscription &subscription, qint64 now);
    void sendValidation(Subscription &subscription, qint64 now);
    void waitForEndpoint(Subscription &subscription, const QString &failure, qint64 now);
    // Deliveries held while the endpoint is not validated: their TTL and the Failed fate.
    void syncHeld(Subscription &subscription);
    void serviceHeld(Subscription &subscription, qint64 now);
    void resetUnreachable(Subscription &subscription);
    void onValidationFinished(QNetworkReply *reply);
    void abortValidation(Subscription &subscription);
    void setProvisioning(Subscription &subscription, ProvisioningState state, const QString &message,
                         qint64 now);
    void saveProvisioning();
    qint64 provisioningAttentionMs(const Subscription &subscription, qint64 now) const;
    QString validationUrl(const Subscription &subscription) const;
    const Subscription *findSubscription(const QString &topic, const QString &name) const;

    Clock *m_clock;
    QNetworkAccessManager *m_network;
    DeliveryStore *m_store;
    DeadLetterSink *m_deadLetterSink;
    EngineOptions m_options;
    std::function<QString(const QString &, const QString &, const QString &)> m_secretResolver;
    ProvisioningStore *m_provisioningStore = nullptr;
    QUrl m_validationBaseUrl;
    QHash<QString, ProvisioningRecord> m_restoredProvisioning; // key: topic/subscription, lower case
    QHash<QNetworkReply *, int> m_validationByReply; // handshake reply -> subscription index

    Workspace m_workspace;
    std::vector<std::unique_ptr<Subscription>> m_subscriptions;
    QHash<QString, TopicSnapshot> m_topicCounters; // key: topic name (lower case)
    std::unique_ptr<EventCache> m_events; // declared before the deliveries that reference it
    std::unordered_map<qint64, Delivery> m_deliveries; // by value: one allocation per delivery

    struct HeapEntry
    {
        qint64 atMs;
        quint64 key; // subscription index, or request id for deadlines
        quint64 generation;
        bool operator>(const HeapEntry &other) const { return atMs > other.atMs; }
    };
    static HeapEntry heldEntry(const Subscription &subscription, const Delivery &delivery);
    std::vector<HeapEntry> m_subscriptionHeap; // min-heap by atMs
    std::vector<HeapEntry> m_deadlineHeap; // request deadlines (D6)
    std::unordered_map<quint64, std::unique_ptr<Request>> m_requests;
    quint64 m_nextRequestId = 1;
    // Taken by the parser threads too (large publishes are stored there): ranges are reserved
    // with fetch_add, so ids are unique but may have gaps (a publish that failed to store).
    std::atomic<qint64> m_nextEventSeq = 1;
    std::atomic<qint64> m_nextDeliveryId = 1;
    qint64 m_alarmAtMs = -1;
    // start() and applyWorkspace() count it up; the parser threads read it.
    std::atomic<quint64> m_workspaceGeneration = 0;
    bool m_inAlarm = false;
    bool m_running = false;

    StoreBatch m_pendingWrites;
    std::vector<std::pair<DroppedEntry, qint64>> m_pendingDrops; // entry, event seq
    QTimer m_flushTimer; // group commit (not a scheduling decision: fires a few ms after a change)
    bool m_flushArmed = false; // m_flushTimer is running (readable from lanes, under the lock)

    // Delivery lanes (setDeliveryLanes). Everything above is shared with them: every entry into
    // the engine takes m_stateLock (a StateLock), on the engine thread and on the lanes alike.
    // Requests are handed to the lanes when the outermost lock is released (m_outbox), so that
    // Qt's work for them runs outside the lock.
    std::vector<std::unique_ptr<DeliveryLane>> m_lanes;
    std::vector<int> m_laneInFlight; // requests posted on each lane and not finished
    mutable std::recursive_mutex m_stateMutex;
    mutable int m_lockDepth = 0;
    mutable std::vector<OutgoingRequest> m_outbox;
    bool m_wakePosted = false;
    std::vector<std::function<void()>> m_deferredSignals; // see emitOnEngineThread()
    std::mt19937_64 m_random;
    // Parses large publish requests (publishAsync). Declared last, so destroyed first: it waits
    // for running parses, whose results are then dropped with this object's posted events.
    QThreadPool m_parsers;
};

} // namespace EventDesk
