// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "Dispatcher.h"

#include "../Logging.h"
#include "../rules/BatchBuilder.h"
#include "../rules/FilterEvaluator.h"
#include "../rules/OutcomeClassifier.h"
#include "../rules/SchemaConverter.h"
#include "Clock.h"
#include "CommitBuffer.h"
#include "DeliveryLane.h"
#include "DeliveryRequests.h"
#include "EngineSignals.h"
#include "OutcomeHandler.h"

#include <QDateTime>
#include <QThread>

#include <cmath>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

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

} // namespace

Dispatcher::Dispatcher(EngineState &state, EngineSignals &signals, CommitBuffer &commits,
                       DeliveryScheduler &scheduler, OutcomeHandler &outcomes,
                       QNetworkAccessManager *network)
    : m_state(state)
    , m_signals(signals)
    , m_commits(commits)
    , m_scheduler(scheduler)
    , m_outcomes(outcomes)
    , m_network(network)
{
    setLanes(0);
}

Dispatcher::~Dispatcher() = default;

qint64 Dispatcher::realDurationMs(qint64 engineMs) const
{
    const double scale = m_state.clock->scale();
    return scale > 1.0 ? qint64(std::llround(double(engineMs) / scale)) : engineMs;
}

void Dispatcher::setLanes(int count)
{
    Q_ASSERT(!m_state.running);
    const auto finished = [this](quint64 requestId, int httpStatus,
                                 QNetworkReply::NetworkError error, const QByteArray &errorDetail) {
        onLaneFinished(requestId, httpStatus, error, errorDetail);
    };
    m_lanes.clear();
    for (int i = 0; i < count; ++i)
        m_lanes.push_back(std::make_unique<DeliveryLane>(i, finished));
    if (m_lanes.empty())
        m_lanes.push_back(std::make_unique<DeliveryLane>(m_network, finished));
    m_laneInFlight.assign(m_lanes.size(), 0);
}

int Dispatcher::recommendedLanes()
{
    return std::clamp(QThread::idealThreadCount(), 1, 4);
}

void Dispatcher::cancelAll()
{
    m_requests.clear();
    // Lanes drop what they were handed and abort what they posted, without reporting back.
    m_state.lock.discardOutbox();
    for (const auto &lane : m_lanes)
        lane->cancelAll();
    std::fill(m_laneInFlight.begin(), m_laneInFlight.end(), 0);
}

void Dispatcher::stopLanes()
{
    // No lock held: a lane may be waiting for it to report a reply, which it then finds cancelled.
    m_lanes.clear();
}

void Dispatcher::serviceDue(Subscription &subscription, qint64 now)
{
    // A shared store: nothing goes out while this instance's lease is not known to hold (another
    // instance may be taking its deliveries over); the scheduler's tick renews it first.
    if (now > m_state.leaseHeldUntilMs)
        return;
    ProbationTracker &probation = subscription.probation;
    probation.update(now);
    switch (probation.dueAction()) {
    case ProbationTracker::DueAction::Send: {
        int capacity = probation.state() == ProbationTracker::State::HalfOpen
            ? 1
            : std::max(0,
                       m_state.workspace.settings.maxConcurrentRequestsPerSubscription
                           - subscription.inFlightRequests);
        // CloudEvents abuse protection: the endpoint granted this many requests per minute.
        const qint64 interval = allowedRateIntervalMs(subscription.validation.record.allowedRate);
        if (interval > 0)
            capacity = now >= subscription.nextRequestAllowedMs ? std::min(capacity, 1) : 0;
        if (sendBatches(subscription, now, capacity) > 0 && interval > 0)
            subscription.nextRequestAllowedMs = now + interval;
        break;
    }
    case ProbationTracker::DueAction::DeadLetterWithoutAttempt:
        endDueWithoutAttempt(subscription, now);
        break;
    case ProbationTracker::DueAction::Defer:
        // SPEC P3/P5: transient probation defers due deliveries; the backlog stays untouched
        // and the subscription sleeps in the heap until the probation ends.
        break;
    }
}

void Dispatcher::endDueWithoutAttempt(Subscription &subscription, qint64 now)
{
    // SPEC P3: lastDeliveryOutcome Probation, the reason names the probation's cause.
    const DeadLetterReason reason = OutcomeHandler::probationReason(subscription.probation.cause());
    while (Delivery *delivery = m_scheduler.takeDue(subscription, now)) {
        delivery->lastOutcome = DeliveryOutcome::Probation;
        delivery->lastHttpStatus = 0;
        m_outcomes.endUndelivered(subscription, *delivery, reason, now);
    }
}

int Dispatcher::sendBatches(Subscription &subscription, qint64 now, int maxRequests)
{
    const BatchPolicy &batchPolicy = subscription.config.batchPolicy;
    // SPEC B: batches for webhooks and functions; one event per message for the others.
    const bool batching = batchPolicy.enabled
        && Destinations::supportsBatching(subscription.config.destination.type);
    const int perRequest = batching ? batchPolicy.maxEventsPerBatch : 1;
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
                Delivery *delivery = m_scheduler.takeDue(subscription, now);
                if (!delivery)
                    break;
                delivery->state = DeliveryState::InFlight; // claimed; not in the heap any more
                chunk.push_back(delivery);
            }
            if (chunk.empty())
                break;
            ready.insert(ready.end(), chunk.cbegin(), chunk.cend());
            if (auto events = m_state.ensureEventsLoaded(chunk); !events) {
                m_signals.raiseStoreError(events.error());
                loaded = false;
                break;
            }
            for (Delivery *delivery : chunk) {
                bodies.append(m_state.deliveredBody(subscription, *delivery));
                sizes.append(bodies.constLast().size());
            }
            take = batching
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
                m_state.pushPending(subscription, *delivery);
            }
            break;
        }
        // What does not fit this batch goes back, still due (a later batch takes it).
        for (size_t i = size_t(take); i < ready.size(); ++i)
            m_state.pushPending(subscription, *ready[i]);
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

size_t Dispatcher::chooseLane() const
{
    // A lane refills its own slot when it can (no hop between threads); otherwise the lane with
    // the fewest requests open takes it.
    size_t lane = 0;
    for (size_t i = 1; i < m_lanes.size(); ++i) {
        if (m_laneInFlight[i] < m_laneInFlight[lane])
            lane = i;
    }
    for (size_t i = 0; i < m_lanes.size(); ++i) {
        if (m_lanes[i]->isCurrentThread() && m_laneInFlight[i] <= m_laneInFlight[lane])
            lane = i;
    }
    return lane;
}

void Dispatcher::sendRequest(Subscription &subscription, const std::vector<Delivery *> &batch,
                             const QList<QByteArray> &bodies, qint64 now, bool probe)
{
    const EventSubscription &config = subscription.config;
    const Delivery &first = *batch.front();
    // Wall-clock time for what Azure checks against its own clock (x-ms-date, signature
    // expiries), whatever the engine's (possibly scaled) clock says.
    DeliveryRequests::Result built = m_requestBuilder.build(
        subscription, bodies, first.attempts, *first.event, QDateTime::currentDateTimeUtc());

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
    const quint64 requestId = pending->id;

    if (auto *refused = std::get_if<DeliveryRequests::Refused>(&built)) {
        // Never sent: it ends as a failed attempt with the outcome it would have had, from the
        // event loop (this may run inside the handling of another request's answer).
        qCInfo(lcDelivery).noquote() << "not sent to" << config.name << "(topic"
                                     << subscription.topic + u"):" << refused->reason;
        pending->refusedOutcome = refused->outcome;
        pending->lane = -1;
        m_requests.emplace(requestId, std::move(pending));
        QMetaObject::invokeMethod(
            &m_signals,
            [this, requestId] {
                const StateLock lock(m_state.lock);
                finishRequest(requestId, 0, QNetworkReply::NoError, {});
            },
            Qt::QueuedConnection);
        return;
    }
    auto &request = std::get<DeliveryRequests::Built>(built);
    const size_t lane = chooseLane();
    ++m_laneInFlight[lane];
    pending->lane = int(lane);
    m_requests.emplace(requestId, std::move(pending));
    // Posted on the lane when the state lock is released.
    m_state.lock.post(EngineLock::Outgoing {m_lanes[lane].get(), requestId,
                                            m_lanes[lane]->cancelGeneration(), request.request,
                                            request.body});
    // SPEC D6: the 30 s response deadline is kept in the deadline heap, not in a timer per request.
    m_scheduler.addDeadline(now + m_state.options.responseTimeoutMs, requestId,
                            DeliveryScheduler::Deadline::ResponseTimeout);
    qCDebug(lcDelivery) << "sent" << batch.size() << "event(s) to" << config.name << "attempt"
                        << first.attempts + 1;
}

void Dispatcher::onLaneFinished(quint64 requestId, int httpStatus,
                                QNetworkReply::NetworkError error, const QByteArray &errorDetail)
{
    // On the lane's thread: the reply is taken care of there, and the lane's freed slot refilled
    // from there, without a trip through the engine thread.
    const StateLock lock(m_state.lock);
    finishRequest(requestId, httpStatus, error, errorDetail);
}

void Dispatcher::logAttempt(const AttemptLogEntry &entry)
{
    m_commits.attempt(entry); // its commit follows, and with it the signal
    m_signals.raiseAttemptLogged(entry);
}

void Dispatcher::finishRequest(quint64 requestId, int httpStatus, QNetworkReply::NetworkError error,
                               const QByteArray &errorDetail)
{
    auto requestIt = m_requests.find(requestId);
    if (requestIt == m_requests.end())
        return;
    std::unique_ptr<Request> request = std::move(requestIt->second);
    m_requests.erase(requestIt);
    if (request->lane >= 0)
        --m_laneInFlight[size_t(request->lane)];
    if (!m_state.running)
        return;

    const qint64 now = m_state.clock->nowMs();
    Subscription &subscription = m_state.subscription(request->subscriptionIndex);
    const bool success = !request->refusedOutcome && OutcomeClassifier::isSuccessStatus(httpStatus);
    const DeliveryOutcome outcome = request->refusedOutcome ? *request->refusedOutcome
        : success
        ? DeliveryOutcome::Delivered
        : OutcomeClassifier::classify(subscription.config.destination.type, httpStatus, error,
                                      errorDetail);

    AttemptLogEntry log;
    log.timeMs = request->sentMs;
    log.topic = subscription.topic;
    log.subscription = subscription.config.name;
    log.eventIds = request->eventIds;
    log.attempt = request->attempt;
    log.httpStatus = httpStatus;
    log.durationMs = realDurationMs(now - request->sentMs);

    if (request->aborted) {
        // SPEC D6: abandoned at the 3 min limit; the deliveries were already rescheduled.
        log.outcome = DeliveryOutcome::Aborted;
        logAttempt(log);
        m_commits.schedule();
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
                auto it = m_state.deliveries.find(id);
                if (it == m_state.deliveries.end())
                    continue;
                Delivery &delivery = it->second;
                if (delivery.state != DeliveryState::Pending
                    || delivery.attempts != request->attempt)
                    continue;
                ++delivery.generation; // its heap entry is now stale
                --subscription.counters.backlog;
                m_outcomes.succeeded(subscription, delivery);
            }
            subscription.probation.recordSuccess();
            m_outcomes.recordProbation(subscription);
        }
        logAttempt(log);
        m_scheduler.reschedule(subscription, now);
        m_scheduler.rearmAlarm();
        m_commits.schedule();
        return;
    }

    --subscription.inFlightRequests;
    const ProbationTracker::State probationBefore = subscription.probation.state();
    for (qint64 id : std::as_const(request->deliveryIds)) {
        auto it = m_state.deliveries.find(id);
        // Gone or not in flight any more: another instance took it over (DeliveryClaims::forget),
        // and perhaps this one claimed it back since; the answer changes nothing.
        if (it == m_state.deliveries.end() || it->second.state != DeliveryState::InFlight)
            continue;
        Delivery &delivery = it->second;
        --subscription.counters.inFlight;
        delivery.lastAttemptMs = request->sentMs;
        if (success)
            m_outcomes.succeeded(subscription, delivery);
        else
            m_outcomes.failed(subscription, delivery, outcome, httpStatus, now);
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
        m_outcomes.recordProbation(subscription);

    log.outcome = outcome;
    if (!success && !request->deliveryIds.isEmpty()) {
        auto it = m_state.deliveries.find(request->deliveryIds.front());
        if (it != m_state.deliveries.end() && it->second.state == DeliveryState::Pending)
            log.nextDueMs = it->second.dueMs;
    }
    logAttempt(log);

    // SPEC D2: the slot this reply freed is used right away, not on the next alarm.
    m_scheduler.serviceNow(subscription, now);
    m_scheduler.rearmAlarm();
    m_commits.schedule();
}

void Dispatcher::deadlineDue(quint64 requestId, DeliveryScheduler::Deadline deadline, qint64 now)
{
    if (deadline == DeliveryScheduler::Deadline::ResponseTimeout)
        onTimedOut(requestId, now);
    else
        onAbortDue(requestId);
}

void Dispatcher::onTimedOut(quint64 requestId, qint64 now)
{
    auto it = m_requests.find(requestId);
    if (it == m_requests.end())
        return;
    Request &request = *it->second.get();
    if (request.timedOut)
        return;
    request.timedOut = true;
    Subscription &subscription = m_state.subscription(request.subscriptionIndex);
    --subscription.inFlightRequests;
    // SPEC D6: no answer within 30 s is a failed attempt (TimedOut); the request stays open for
    // a late success until the 3 min limit.
    for (qint64 id : std::as_const(request.deliveryIds)) {
        auto deliveryIt = m_state.deliveries.find(id);
        if (deliveryIt == m_state.deliveries.end()
            || deliveryIt->second.state != DeliveryState::InFlight)
            continue;
        Delivery &delivery = deliveryIt->second;
        --subscription.counters.inFlight;
        delivery.lastAttemptMs = request.sentMs;
        m_outcomes.failed(subscription, delivery, DeliveryOutcome::TimedOut, 0, now);
    }
    subscription.probation.recordFailure(DeliveryOutcome::TimedOut, now);
    m_outcomes.recordProbation(subscription);

    AttemptLogEntry log;
    log.timeMs = request.sentMs;
    log.topic = subscription.topic;
    log.subscription = subscription.config.name;
    log.eventIds = request.eventIds;
    log.attempt = request.attempt;
    log.outcome = DeliveryOutcome::TimedOut;
    log.durationMs = realDurationMs(now - request.sentMs);
    if (!request.deliveryIds.isEmpty()) {
        auto first = m_state.deliveries.find(request.deliveryIds.front());
        if (first != m_state.deliveries.end() && first->second.state == DeliveryState::Pending)
            log.nextDueMs = first->second.dueMs;
    }
    logAttempt(log);

    m_scheduler.addDeadline(request.sentMs + m_state.options.abortAfterMs, requestId,
                            DeliveryScheduler::Deadline::AbortDue);
    m_scheduler.reschedule(subscription, now);
    m_commits.schedule();
}

void Dispatcher::onAbortDue(quint64 requestId)
{
    auto it = m_requests.find(requestId);
    if (it == m_requests.end())
        return;
    Request &request = *it->second.get();
    request.aborted = true;
    m_lanes[size_t(request.lane)]->abort(requestId); // the lane reports it; logged as Aborted
}

} // namespace EventDesk
