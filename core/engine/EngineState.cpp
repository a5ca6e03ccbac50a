// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "EngineState.h"

#include "../Logging.h"
#include "../rules/RetryPlanner.h"
#include "../rules/SchemaConverter.h"

using namespace Qt::StringLiterals;

namespace EventDesk {

QUrl ReceiverAlias::mapped(const QUrl &url) const
{
    if (usual.isEmpty() || actual.isEmpty())
        return url;
    if (url.scheme().compare(usual.scheme(), Qt::CaseInsensitive) != 0
        || url.host().compare(usual.host(), Qt::CaseInsensitive) != 0
        || url.port(80) != usual.port(80) || !url.path().startsWith(u"/receivers/"_s))
        return url;
    QUrl result = url;
    result.setHost(actual.host());
    result.setPort(actual.port(80));
    return result;
}

Expected<qint64> IdBlocks::take(IdKind kind, qint64 count)
{
    const std::lock_guard lock(m_mutex);
    Block &block = m_blocks[kind == IdKind::EventSeq ? 0 : 1];
    if (block.end - block.next < count) {
        // What is left of the old block is given up: ids may have gaps, never repeats.
        const qint64 size = std::max(BlockSize, count);
        auto first = m_leases->reserveIds(kind, size);
        if (!first)
            return Error(first.error());
        block.next = first.value();
        block.end = first.value() + size;
    }
    const qint64 first = block.next;
    block.next += count;
    return first;
}

std::shared_ptr<const StoredEvent> EventCache::adopt(StoredEvent event)
{
    const qint64 seq = event.seq;
    std::shared_ptr<const StoredEvent> shared(new StoredEvent(std::move(event)),
                                              [this](const StoredEvent *stored) {
                                                  m_bySeq.remove(stored->seq);
                                                  delete stored;
                                              });
    m_bySeq.insert(seq, shared);
    return shared;
}

std::shared_ptr<const StoredEvent> EventCache::find(qint64 seq) const
{
    const auto it = m_bySeq.constFind(seq);
    return it == m_bySeq.cend() ? nullptr : it->lock();
}

DeliveryRecord Delivery::record(const Subscription &subscription) const
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

QString subscriptionKey(const QString &topic, const QString &subscription)
{
    return topic.toLower() + u'/' + subscription.toLower();
}

Subscription *EngineState::findSubscription(const QString &topic, const QString &name)
{
    const QString key = subscriptionKey(topic, name);
    for (const auto &subscription : subscriptions) {
        if (!subscription->removed
            && subscriptionKey(subscription->topic, subscription->config.name) == key)
            return subscription.get();
    }
    return nullptr;
}

const Subscription *EngineState::findSubscription(const QString &topic, const QString &name) const
{
    return const_cast<EngineState *>(this)->findSubscription(topic, name);
}

Delivery *EngineState::liveDelivery(const HeapEntry &entry, DeliveryState state)
{
    const auto it = deliveries.find(qint64(entry.key));
    if (it == deliveries.end() || it->second.state != state
        || it->second.generation != entry.generation)
        return nullptr;
    return &it->second;
}

Expected<void> EngineState::ensureEventsLoaded(const std::vector<Delivery *> &batch)
{
    QList<qint64> missing;
    for (Delivery *delivery : batch) {
        if (delivery->event)
            continue;
        if (auto cached = events.find(delivery->eventSeq))
            delivery->event = std::move(cached);
        else if (!missing.contains(delivery->eventSeq))
            missing.append(delivery->eventSeq);
    }
    if (missing.isEmpty())
        return {};
    auto loaded = store->loadEvents(missing);
    if (!loaded) {
        qCWarning(lcStore) << "cannot load events:" << loaded.error();
        return Error(loaded.error());
    }
    // adopt() keeps only a weak reference: hold the loaded events until the deliveries do.
    std::vector<std::shared_ptr<const StoredEvent>> keepAlive;
    keepAlive.reserve(size_t(loaded->size()));
    for (StoredEvent &event : loaded.value())
        keepAlive.push_back(events.adopt(std::move(event)));
    for (Delivery *delivery : batch) {
        if (!delivery->event)
            delivery->event = events.find(delivery->eventSeq);
    }
    for (Delivery *delivery : batch) {
        if (!delivery->event) {
            qCCritical(lcStore) << "event" << delivery->eventSeq << "of delivery" << delivery->id
                                << "is missing from the store";
            return Error(
                u"event %1 of delivery %2 is missing from the store"_s.arg(delivery->eventSeq)
                    .arg(delivery->id));
        }
    }
    return {};
}

QByteArray EngineState::deliveredBody(const Subscription &subscription,
                                      const Delivery &delivery) const
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

HeapEntry heldEntry(const Subscription &subscription, const Delivery &delivery)
{
    return HeapEntry {
        RetryPlanner::expiresAtMs(subscription.config.retryPolicy, delivery.publishMs),
        quint64(delivery.id), delivery.generation};
}

void EngineState::pushPending(Subscription &subscription, Delivery &delivery)
{
    delivery.state = DeliveryState::Pending;
    ++delivery.generation;
    heapPush(subscription.pending,
             HeapEntry {delivery.dueMs, quint64(delivery.id), delivery.generation});
    ++subscription.counters.backlog;
    if (subscription.heldTracked)
        heapPush(subscription.heldExpiry, heldEntry(subscription, delivery));
}

} // namespace EventDesk
