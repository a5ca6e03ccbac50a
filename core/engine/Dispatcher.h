// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "DeliveryRequests.h"
#include "DeliveryScheduler.h"
#include "EngineState.h"

#include <QNetworkReply>

#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

class QNetworkAccessManager;

namespace EventDesk {

class CommitBuffer;
class DeliveryLane;
class EngineSignals;
class OutcomeHandler;

// Sends what is due: takes due deliveries up to the batch limits (SPEC B), has DeliveryRequests
// build one request per batch for the destination (D7, H1–H3), posts it on a delivery lane, and
// takes its answer back (D5, D6: success, failure, the 30 s response deadline and the late-success
// window) to the OutcomeHandler and the ProbationTracker. Probation decides whether a due
// subscription sends, dead-letters without an attempt or waits (P3–P5).
class Dispatcher
{
public:
    Dispatcher(EngineState &state, EngineSignals &signals, CommitBuffer &commits,
               DeliveryScheduler &scheduler, OutcomeHandler &outcomes,
               QNetworkAccessManager *network);
    ~Dispatcher();

    // See Engine::setDeliveryLanes. Before the engine starts.
    void setLanes(int count);
    static int recommendedLanes();
    void setSecretResolver(SecretResolver resolver)
    {
        m_requestBuilder.setSecretResolver(std::move(resolver));
    }
    void setCredentialResolver(DeliveryRequests::CredentialResolver resolver)
    {
        m_requestBuilder.setCredentialResolver(std::move(resolver));
    }
    void setReceiverAlias(const ReceiverAlias &alias) { m_requestBuilder.setReceiverAlias(alias); }

    // The subscription's due deliveries, as its probation and WebHook-Allowed-Rate allow (a
    // validated, enabled subscription). Under the state lock: the requests built are posted on
    // their lanes when the outermost StateLock is released (EngineLock's outbox).
    void serviceDue(Subscription &subscription, qint64 now);
    void deadlineDue(quint64 requestId, DeliveryScheduler::Deadline deadline, qint64 now);
    bool isOpen(quint64 requestId) const { return m_requests.contains(requestId); }
    // SPEC §7 Canceled: requests cut short by shutdown; their deliveries stay pending in the
    // store and are retried after a restart. The lanes report nothing more.
    void cancelAll();
    // Stops the lanes' threads (before anything they report to goes away).
    void stopLanes();

private:
    // A request's duration as the endpoint took it, in real milliseconds: the engine's clock may
    // run faster (--time-scale), and a latency is not an engine duration.
    qint64 realDurationMs(qint64 engineMs) const;
    struct Request
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
        int lane = 0; // the DeliveryLane it was posted on; -1: never sent
        // Set when the request could not be made (DeliveryRequests::Refused): its outcome.
        std::optional<DeliveryOutcome> refusedOutcome;
    };

    int sendBatches(Subscription &subscription, qint64 now, int maxRequests);
    void sendRequest(Subscription &subscription, const std::vector<Delivery *> &batch,
                     const QList<QByteArray> &bodies, qint64 now, bool probe);
    // SPEC P3: a probation caused by a no-retry class of outcome dead-letters due deliveries
    // without an attempt.
    void endDueWithoutAttempt(Subscription &subscription, qint64 now);
    void onLaneFinished(quint64 requestId, int httpStatus, QNetworkReply::NetworkError error,
                        const QByteArray &errorDetail);
    void finishRequest(quint64 requestId, int httpStatus, QNetworkReply::NetworkError error,
                       const QByteArray &errorDetail);
    void onTimedOut(quint64 requestId, qint64 now);
    void onAbortDue(quint64 requestId);
    void logAttempt(const AttemptLogEntry &entry);
    size_t chooseLane() const;

    EngineState &m_state;
    EngineSignals &m_signals;
    CommitBuffer &m_commits;
    DeliveryScheduler &m_scheduler;
    OutcomeHandler &m_outcomes;
    QNetworkAccessManager *m_network;
    DeliveryRequests m_requestBuilder;
    std::unordered_map<quint64, std::unique_ptr<Request>> m_requests;
    quint64 m_nextRequestId = 1;
    std::vector<std::unique_ptr<DeliveryLane>> m_lanes;
    std::vector<int> m_laneInFlight; // requests posted on each lane and not finished
};

} // namespace EventDesk
