// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../Expected.h"
#include "../model/Workspace.h"
#include "../store/DeliveryStore.h"
#include "EngineSnapshot.h"
#include "EngineTypes.h"
#include "Provisioning.h"

#include <QObject>
#include <QUrl>

#include <functional>
#include <memory>

class QNetworkAccessManager;

namespace EventDesk {

class Clock;
class DeadLetterSink;

// The delivery engine (SPEC §1–§9 for webhooks). It owns the state its units share
// (EngineState) and wires the units of the delivery pipeline:
//
//   publish → Ingest → store → DeliveryScheduler → Dispatcher → OutcomeHandler → DeadLettering
//                                     ↑                                 |
//                                     └────────── retry ────────────────┘
//   EndpointValidation holds a subscription's deliveries until its endpoint is validated;
//   CommitBuffer group-commits the state changes that follow a delivery.
//
// It lives on one thread (its webhook replies may be handled on delivery lanes, see
// setDeliveryLanes); all HTTP goes through the injected QNetworkAccessManager or the lanes' own
// WebhookClients; all time through the injected Clock; all persistence through the injected
// DeliveryStore. Every public function takes the state lock. docs/ARCHITECTURE.md draws the units
// and threads.
class Engine final : public QObject
{
    Q_OBJECT

public:
    Engine(Clock *clock, QNetworkAccessManager *network, DeliveryStore *store,
           DeadLetterSink *deadLetterSink, EngineOptions options = {}, QObject *parent = nullptr);
    ~Engine() override;

    // Webhook requests go through this many delivery lanes (each a thread with an HTTP client of
    // its own, DeliveryLane) instead of the constructor's manager: the per-request work then
    // runs on every core, and a lane handles its replies itself (under the engine's state lock)
    // without a trip through the engine thread. Call before start(). 0, the default, keeps every
    // request on the engine's thread and the constructor's manager (tests hand in a fake there).
    // Validation handshakes always use the constructor's manager.
    void setDeliveryLanes(int count);
    // One lane per core, at most four (bench/RESULTS.md, benchmark 1).
    static int recommendedDeliveryLanes();

    // Secret header values (H2) come from here; without a resolver secret headers are omitted.
    // Called on the delivery lanes' threads too: it must be thread-safe (SecretCache is).
    void setSecretResolver(SecretResolver resolver);
    // The credentials of destinations other than webhooks (a storage account's key, a Service
    // Bus or Event Hubs namespace's connection string), by SecretKeys name. Thread-safe, as the
    // secret resolver. Without one, those destinations refuse every delivery as Unauthorized.
    void setCredentialResolver(std::function<QString(const QString &secretKey)> resolver);
    // docs/eventdeskd.md "Secrets": whether a subscription needs a secret the secret store has not
    // answered yet (the keychain is locked or shows its password prompt). Such a subscription
    // waits: its deliveries are held - not attempted, not counted as attempts, costing nothing per
    // event (SPEC P5) - while their TTL runs (SPEC R6/R7: one whose TTL runs out ends
    // TimeToLiveExceeded, lastDeliveryOutcome KeychainPending). Every other subscription delivers
    // as usual. Asked at start(), applyWorkspace() and secretsAnswered(); none: nothing waits.
    using SecretsPending
        = std::function<bool(const QString &topic, const EventSubscription &subscription)>;
    void setSecretsPending(SecretsPending pending);
    // The secret store answered: each subscription is asked again, and one that no longer waits
    // delivers its held backlog at once (R7 still checks each delivery's TTL at that moment).
    void secretsAnswered();

    // Webhooks addressed to this workspace's test receivers at alias.usual go to alias.actual
    // (ReceiverAlias). Call before start().
    void setReceiverAlias(const ReceiverAlias &alias);

    // Loads the workspace and every unfinished delivery from the store (D1: at-least-once after a
    // restart; deliveries that were in flight are retried). Deliveries of subscriptions that no
    // longer exist are dropped with reason SubscriptionDeleted. On a store several engines share
    // (DeliveryStore::instanceLeases()), the engine registers as an instance and delivers only the
    // deliveries it stores or claims (DeliveryClaims).
    Expected<void> start(const Workspace &workspace);

    // Replaces topics/subscriptions at run time (the GUI editor). Pending deliveries of removed
    // subscriptions are dropped (SubscriptionDeleted); changed policies apply from the next
    // attempt.
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
    // again against the current one.
    PublishResult preparePublish(const QString &topicName, const QByteArray &body,
                                 const QByteArray &contentType, PublishTicket *ticket);
    static PublishParseResult parsePublish(const PublishTicket &ticket);
    PublishResult publishParsed(const PublishTicket &ticket, PublishParseResult parsed);

    bool hasTopic(const QString &topicName) const;

    // Dead letters (the GUI's browser): resubmitted events keep their id and start with a fresh
    // attempt count and a fresh time to live.
    ResubmitResult resubmitDeadLetters(const QList<qint64> &deadLetterIds);
    ResubmitResult resubmitDeadLetters(const DeadLetterQuery &query);
    // Resubmits dead letters through their topic, where every current subscription's filter
    // decides again, or (ResubmitRun::DryRun) only counts where they would go. TopicResubmit
    // says what the resubmitted event is and how errors are reported.
    TopicResubmitResult resubmitThroughTopic(const QList<qint64> &deadLetterIds, ResubmitRun mode);

    // Endpoint validation (Event Grid's handshake when a webhook subscription is created).
    // Provisioning records are loaded from / saved to this store (optional; set before start()).
    void setProvisioningStore(ProvisioningStore *store);
    // Base of the validation URLs sent in SubscriptionValidationEvent (the endpoint's address).
    void setValidationBaseUrl(const QUrl &baseUrl);
    QUrl validationBaseUrl() const;
    // GET /validate/<topic>/<subscription>?code=...: completes a manual validation when the code
    // matches and the URL has not expired (5 minutes of engine time).
    ManualValidationResult completeManualValidation(const QString &topic,
                                                    const QString &subscription,
                                                    const QString &code);
    // Runs the handshake again (e.g. after a failure, once the receiver is fixed).
    Expected<void> revalidate(const QString &topic, const QString &subscription);
    ProvisioningState provisioningState(const QString &topic, const QString &subscription) const;

    // SPEC D6 as configured (the metrics' histogram and the validation handshake use it too).
    qint64 responseTimeoutMs() const;

    // The instance this engine registered as on a shared store; 0 on a store of one engine.
    qint64 instanceId() const;

    EngineSnapshot snapshot() const;
    const Workspace &workspace() const;
    Clock *clock() const;

    // Commits buffered state changes now (tests; shutdown).
    Expected<void> flush();

Q_SIGNALS:
    void attemptLogged(const EventDesk::AttemptLogEntry &entry);
    // An event's delivery ended in its dead-letter destination (the blob is written; the index
    // row goes with the next commit), or was dropped (SPEC L1, L4): for logs, on the engine's
    // thread, once each.
    void deadLettered(const EventDesk::DeadLetterEntry &entry);
    void dropped(const EventDesk::DroppedEntry &entry);
    void probationChanged(const QString &topic, const QString &subscription);
    void provisioningChanged(const QString &topic, const QString &subscription);
    void storeError(const QString &message);

private:
    // The shared state and the units, in Engine.cpp: callers see only the engine's API.
    struct Units;
    std::unique_ptr<Units> m_units;
};

} // namespace EventDesk
