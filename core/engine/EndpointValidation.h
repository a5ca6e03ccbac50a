// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "EngineState.h"

#include <QHash>
#include <QUrl>

class QNetworkAccessManager;

namespace EventDesk {

class DeliveryScheduler;
class EngineSignals;
class OutcomeHandler;

// Event Grid's endpoint validation of a webhook subscription (its provisioningState), and what
// becomes of its deliveries meanwhile. The handshake is a SubscriptionValidationEvent whose code
// the endpoint echoes (or whose validation URL a person visits within 5 minutes), or for
// CloudEvents the abuse-protection OPTIONS request. An endpoint that cannot be reached yet keeps
// the subscription Creating and is asked again after 5 s, 10 s, 30 s, 1 min, then every 5 min; only
// an explicit refusal fails it.
//
// Deliveries are held until the state is Succeeded: their TTL still runs (R6: they end
// TimeToLiveExceeded with lastDeliveryOutcome EndpointValidationPending), and a Failed
// subscription ends them EndpointValidationFailed. A validated state survives a restart; any other
// is validated again at the next start.
class EndpointValidation
{
public:
    EndpointValidation(EngineState &state, EngineSignals &signals, DeliveryScheduler &scheduler,
                       OutcomeHandler &outcomes, QNetworkAccessManager *network);

    // A handshake's answer is read up to this; one that sends more is cut off and taken as
    // answered without the validation code, so an endpoint cannot make the engine read without end.
    static constexpr qint64 MaxAnswerBytes = 64 * 1024;

    void setStore(ProvisioningStore *store) { m_store = store; }
    void setBaseUrl(const QUrl &baseUrl) { m_baseUrl = baseUrl; }
    QUrl baseUrl() const { return m_baseUrl; }

    // start(): the records kept by the last run, used by update() while subscriptions are built.
    Expected<void> loadRestored();
    void forgetRestored() { m_restored.clear(); }
    // The subscription was created or its configuration changed: validated again when its
    // endpoint or delivery schema changed.
    void update(Subscription &subscription);
    // Its backlog is held again from scratch (after a restore, or a TTL that may have changed).
    void holdBacklog(Subscription &subscription);
    // The subscription was deleted.
    void abort(Subscription &subscription);
    // Shutdown: handshakes under way are dropped (sent again at the next start).
    void abortAll();
    // Persists the records of every subscription (not those still Creating).
    void save();

    // Engine thread: the handshake's turn (send, time out, expire the validation URL).
    void service(Subscription &subscription, qint64 now);
    // A subscription that is not validated: its held deliveries' TTL, or the Failed fate.
    void serviceHeld(Subscription &subscription, qint64 now);
    // When the subscription next needs validation work or a held delivery expires; -1 for never.
    qint64 attentionMs(Subscription &subscription, qint64 now);

    // GET /validate/<topic>/<subscription>?code=...
    ManualValidationResult completeManual(const QString &topic, const QString &subscription,
                                          const QString &code);
    // "Validate Now": the handshake at once, not at the next backoff step.
    Expected<void> revalidate(const QString &topic, const QString &subscription);
    // The validation URL sent in the handshake (empty without a base URL or code).
    QString validationUrl(const Subscription &subscription) const;

private:
    void send(Subscription &subscription, qint64 now);
    void onFinished(QNetworkReply *reply);
    void waitForEndpoint(Subscription &subscription, const QString &failure, qint64 now);
    void setState(Subscription &subscription, ProvisioningState state, const QString &message,
                  qint64 now);
    static void resetUnreachable(Subscription &subscription);
    // Entering a held state: every pending delivery is held from now on; leaving it: none is.
    void syncHeld(Subscription &subscription);

    EngineState &m_state;
    EngineSignals &m_signals;
    DeliveryScheduler &m_scheduler;
    OutcomeHandler &m_outcomes;
    QNetworkAccessManager *m_network;
    ProvisioningStore *m_store = nullptr;
    QUrl m_baseUrl;
    QHash<QString, ProvisioningRecord> m_restored; // key: subscriptionKey()
    QHash<QNetworkReply *, int> m_subscriptionByReply; // handshake reply -> subscription index
};

} // namespace EventDesk
