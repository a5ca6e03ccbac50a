// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "DeadLettering.h"

#include "../Logging.h"
#include "DeadLetterSink.h"
#include "../rules/DeadLetterFormatter.h"
#include "Clock.h"
#include "CommitBuffer.h"
#include "DeliveryScheduler.h"
#include "EngineSignals.h"
#include "OutcomeHandler.h"

#include <QSet>
#include <QUuid>

using namespace Qt::StringLiterals;

namespace EventDesk {

DeadLettering::DeadLettering(EngineState &state, EngineSignals &signals, CommitBuffer &commits,
                             DeliveryScheduler &scheduler, OutcomeHandler &outcomes,
                             DeadLetterSink *sink)
    : m_state(state)
    , m_signals(signals)
    , m_commits(commits)
    , m_scheduler(scheduler)
    , m_outcomes(outcomes)
    , m_sink(sink)
{
}

qint64 DeadLettering::attentionMs(Subscription &subscription)
{
    std::vector<HeapEntry> &heap = subscription.deadLetterPending;
    while (!heap.empty() && !m_state.liveDelivery(heap.front(), DeliveryState::DeadLetterPending))
        heapPop(heap);
    if (subscription.deadLetterWriteInProgress || heap.empty())
        return -1;
    return heap.front().atMs;
}

void DeadLettering::service(Subscription &subscription, qint64 now)
{
    if (subscription.deadLetterWriteInProgress)
        return;
    std::vector<Delivery *> batch;
    while (int(batch.size()) < m_state.options.deadLetterMaxEventsPerBlob
           && !subscription.deadLetterPending.empty()
           && subscription.deadLetterPending.front().atMs <= now) {
        const HeapEntry entry = subscription.deadLetterPending.front();
        heapPop(subscription.deadLetterPending);
        if (Delivery *delivery = m_state.liveDelivery(entry, DeliveryState::DeadLetterPending))
            batch.push_back(delivery);
    }
    if (batch.empty())
        return;
    if (auto events = m_state.ensureEventsLoaded(batch); !events) {
        m_signals.raiseStoreError(events.error());
        for (Delivery *delivery : batch) {
            delivery->dueMs = now + m_state.options.deadLetterRetryMs;
            heapPush(subscription.deadLetterPending,
                     HeapEntry {delivery->dueMs, quint64(delivery->id), delivery->generation});
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
        input.deliveredBody = m_state.deliveredBody(subscription, *delivery);
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
    const QString blobName
        = DeadLetterFormatter::blobName(subscription.config.name, now, QUuid::createUuid());
    const QByteArray body = DeadLetterFormatter::blobBody(records);
    subscription.deadLetterWriteInProgress = true;
    const int index = subscription.index;
    m_sink->write(subscription.config.deadLetterDestination, blobName, body,
                  [this, index, ids, records, now](const Expected<QString> &blobPath) {
                      const StateLock lock(m_state.lock);
                      written(index, ids, records, blobPath, now);
                  });
}

void DeadLettering::written(int subscriptionIndex, const QList<qint64> &deliveryIds,
                            const QList<QByteArray> &records, const Expected<QString> &blobPath,
                            qint64 writeStartedMs)
{
    Subscription &subscription = m_state.subscription(subscriptionIndex);
    subscription.deadLetterWriteInProgress = false;
    const qint64 at = m_state.clock->nowMs();
    for (qsizetype i = 0; i < deliveryIds.size(); ++i) {
        auto it = m_state.deliveries.find(deliveryIds.at(i));
        if (it == m_state.deliveries.end())
            continue;
        Delivery &delivery = it->second;
        if (delivery.state != DeliveryState::DeadLetterPending)
            continue;
        if (blobPath) {
            const StoredEvent &event = *delivery.event;
            DeadLetterEntry entry;
            entry.topic = subscription.topic;
            entry.subscription = subscription.config.name;
            entry.eventId = event.id;
            entry.reason = delivery.reason;
            entry.lastOutcome = delivery.lastOutcome;
            entry.lastHttpStatus = delivery.lastHttpStatus;
            entry.attempts = delivery.attempts;
            entry.publishMs = delivery.publishMs;
            entry.lastAttemptMs = delivery.lastAttemptMs;
            entry.deadLetteredMs = writeStartedMs;
            entry.blobPath = blobPath.value();
            entry.record = records.at(i);
            entry.eventType = event.eventType;
            entry.subject = event.subject;
            entry.dataVersion = event.dataVersion;
            entry.eventTime = event.eventTime;
            entry.eventBody = event.body;
            m_commits.deadLettered(std::move(entry));
            ++subscription.counters.deadLetteredByReason[delivery.reason];
            --subscription.counters.deadLetterPending;
            m_outcomes.finish(delivery, DeliveryState::DeadLettered);
            continue;
        }
        // SPEC L4: retry the write; after 4 h of unavailability the event is dropped.
        if (delivery.deadLetterUnavailableSinceMs == 0)
            delivery.deadLetterUnavailableSinceMs = at;
        if (at - delivery.deadLetterUnavailableSinceMs >= m_state.options.deadLetterGiveUpMs) {
            m_outcomes.drop(&subscription, delivery,
                            DeadLetterReason::DeadLetterDestinationUnavailable, at);
            continue;
        }
        delivery.dueMs = at + m_state.options.deadLetterRetryMs;
        delivery.event.reset();
        ++delivery.generation;
        heapPush(subscription.deadLetterPending,
                 HeapEntry {delivery.dueMs, quint64(delivery.id), delivery.generation});
        m_commits.update(delivery.record(subscription));
    }
    // Shown (GUI, /metrics) until a write to the destination succeeds again.
    subscription.counters.deadLetterWriteError = blobPath ? QString() : blobPath.error();
    if (!blobPath)
        qCWarning(lcDeadLetter) << "dead-letter write for" << subscription.config.name
                                << "failed:" << blobPath.error();
    m_commits.schedule();
    if (!m_scheduler.inAlarm()) {
        m_scheduler.reschedule(subscription, at);
        m_scheduler.rearmAlarm();
    }
}

ResubmitResult DeadLettering::resubmit(const QList<qint64> &deadLetterIds)
{
    ResubmitResult result;
    auto entries = m_state.store->deadLettersById(deadLetterIds);
    if (!entries) {
        result.errors.append(entries.error());
        return result;
    }
    const qint64 now = m_state.clock->nowMs();
    QList<StoredEvent> events;
    QList<DeliveryRecord> records;
    QList<Subscription *> owners;
    QList<qint64> resubmittedIds;
    QList<const DeadLetterEntry *> sources;
    qint64 seq = 0;
    qint64 deliveryId = 0;
    for (const DeadLetterEntry &entry : std::as_const(entries.value())) {
        Subscription *subscription = m_state.findSubscription(entry.topic, entry.subscription);
        if (!subscription) {
            result.errors.append(
                u"dead letter %1 (event %2): subscription %3/%4 no longer exists"_s.arg(entry.id)
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
        sources.append(&entry);
    }
    if (events.isEmpty())
        return result;
    // Numbered from ranges reserved now (publishes on parser threads take ids too).
    const Expected<qint64> reservedSeq = m_state.takeIds(IdKind::EventSeq, seq);
    const Expected<qint64> reservedDeliveryId = reservedSeq
        ? m_state.takeIds(IdKind::DeliveryId, deliveryId)
        : Expected<qint64>(Error(reservedSeq.error()));
    if (!reservedDeliveryId) {
        result.errors.append(reservedDeliveryId.error());
        return result;
    }
    const qint64 firstSeq = reservedSeq.value();
    const qint64 firstDeliveryId = reservedDeliveryId.value();
    for (qsizetype i = 0; i < events.size(); ++i) {
        events[i].seq += firstSeq;
        records[i].eventSeq += firstSeq;
        records[i].id += firstDeliveryId;
    }
    // One transaction: the events and deliveries, their trace back to the dead letters, and the
    // dead letters' removal from the index.
    QList<ResubmissionEntry> resubmissions;
    resubmissions.reserve(events.size());
    for (qsizetype i = 0; i < events.size(); ++i) {
        const DeadLetterEntry &entry = *sources.at(i);
        ResubmissionEntry resubmission;
        resubmission.timeMs = now;
        resubmission.deadLetterId = entry.id;
        resubmission.eventId = entry.eventId;
        resubmission.topic = records.at(i).topic;
        resubmission.fromSubscription = entry.subscription;
        resubmission.reason = entry.reason;
        resubmission.deadLetteredMs = entry.deadLetteredMs;
        resubmission.toSubscription = records.at(i).subscription;
        resubmission.deliveryId = records.at(i).id;
        resubmission.route = ResubmitRoute::ToSubscription;
        resubmissions.append(resubmission);
    }
    if (auto stored
        = m_state.store->insertResubmitted(events, records, resubmissions, resubmittedIds);
        !stored) {
        result.errors.append(stored.error());
        return result;
    }

    QSet<Subscription *> touched;
    for (qsizetype i = 0; i < events.size(); ++i) {
        Subscription &subscription = *owners.at(i);
        Delivery &ref = m_state.deliveries.try_emplace(records.at(i).id).first->second;
        ref.id = records.at(i).id;
        ref.eventSeq = events.at(i).seq;
        ref.dueMs = now;
        ref.publishMs = now;
        ref.subscriptionIndex = subscription.index;
        ref.event = m_state.events.adopt(events.at(i));
        ++subscription.counters.matched;
        m_state.pushPending(subscription, ref);
        touched.insert(&subscription);
    }
    for (Subscription *subscription : std::as_const(touched))
        m_scheduler.reschedule(*subscription, now);
    result.resubmitted = int(events.size());
    return result;
}

ResubmitResult DeadLettering::resubmit(const DeadLetterQuery &query)
{
    ResubmitResult total;
    DeadLetterQuery page = query;
    page.limit = 1000;
    page.beforeId = 0;
    // Newest first, page by page: resubmitted rows leave the index, so restarting from the top
    // would see the ones that failed again; keyset on the last id seen instead.
    while (true) {
        auto entries = m_state.store->deadLetters(page);
        if (!entries) {
            total.errors.append(entries.error());
            break;
        }
        if (entries->isEmpty())
            break;
        QList<qint64> ids;
        for (const DeadLetterEntry &entry : std::as_const(entries.value()))
            ids.append(entry.id);
        const ResubmitResult part = resubmit(ids);
        total.resubmitted += part.resubmitted;
        total.errors += part.errors;
        page.beforeId = ids.last();
        if (entries->size() < page.limit)
            break;
    }
    return total;
}

} // namespace EventDesk
