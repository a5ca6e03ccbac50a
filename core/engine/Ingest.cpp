// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "Ingest.h"

#include "../Logging.h"
#include "../rules/DeadLetterFormatter.h"
#include "../rules/FilterEvaluator.h"
#include "Clock.h"
#include "DeliveryScheduler.h"
#include "EngineSignals.h"
#include "OutcomeHandler.h"

#include <QSet>
#include <QThread>

using namespace Qt::StringLiterals;

namespace EventDesk {

Ingest::Ingest(EngineState &state, EngineSignals &signals, DeliveryScheduler &scheduler,
               OutcomeHandler &outcomes)
    : m_state(state)
    , m_signals(signals)
    , m_scheduler(scheduler)
    , m_outcomes(outcomes)
{
    // One parser per core but the one the engine thread needs (at least one, at most four).
    m_parsers.setMaxThreadCount(std::clamp(QThread::idealThreadCount() - 1, 1, 4));
}

PublishResult Ingest::prepare(const QString &topicName, const QByteArray &body,
                              const QByteArray &contentType, PublishTicket *ticket)
{
    const StateLock lock(m_state.lock);
    PublishResult result;
    const Topic *topic = m_state.workspace.findTopic(topicName);
    if (!topic) {
        result.httpStatus = 404;
        result.errorCode = u"NotFound"_s;
        result.errorMessage = u"Topic '%1' does not exist in this workspace."_s.arg(topicName);
        return result;
    }
    if (!m_state.running) {
        result.httpStatus = 503;
        result.errorCode = u"ServiceUnavailable"_s;
        result.errorMessage = u"The engine is shutting down."_s;
        return result;
    }
    ticket->topic = *topic;
    ticket->body = body;
    ticket->contentType = contentType;
    ticket->nowMs = m_state.clock->nowMs();
    ticket->publishTimeIso = DeadLetterFormatter::formatTime(ticket->nowMs);
    ticket->workspaceGeneration = m_state.workspaceGeneration;
    // Filter views cost a copy of every event; only advanced filters read them.
    ticket->filterViews = EventParser::FilterViews::Skip;
    for (const auto &subscription : m_state.subscriptions) {
        if (subscription->removed
            || subscription->topic.compare(topic->name, Qt::CaseInsensitive) != 0)
            continue;
        if (!subscription->config.filter.advancedFilters.isEmpty())
            ticket->filterViews = EventParser::FilterViews::Build;
        if (subscription->config.enabled) {
            ticket->targets.append(PublishTarget {subscription->index, subscription->topic,
                                                  subscription->config.name,
                                                  subscription->config.filter});
        }
    }
    return result;
}

PublishParseResult Ingest::parse(const PublishTicket &ticket)
{
    return EventParser::parse(ticket.topic, ticket.body, ticket.contentType, ticket.publishTimeIso,
                              ticket.filterViews);
}

PublishResult Ingest::publish(const QString &topicName, const QByteArray &body,
                              const QByteArray &contentType)
{
    const StateLock lock(m_state.lock);
    PublishTicket ticket;
    const PublishResult prepared = prepare(topicName, body, contentType, &ticket);
    if (prepared.httpStatus != 200)
        return prepared;
    return publishParsed(ticket, parse(ticket));
}

void Ingest::publishAsync(const QString &topicName, const QByteArray &body,
                          const QByteArray &contentType,
                          std::function<void(const PublishResult &result)> done)
{
    // Below this size a request costs less to parse than a trip to another thread and back.
    constexpr qsizetype ParseElsewhereBytes = 32 * 1024;
    PublishTicket ticket;
    const PublishResult prepared = prepare(topicName, body, contentType, &ticket);
    if (prepared.httpStatus != 200) {
        done(prepared);
        return;
    }
    if (body.size() < ParseElsewhereBytes) {
        done(publishParsed(ticket, parse(ticket)));
        return;
    }
    // The request is parsed and, when accepted, stored on the parser thread: the engine thread
    // goes on delivering meanwhile and only schedules the committed deliveries.
    m_parsers.start([this, ticket = std::move(ticket), done = std::move(done)]() mutable {
        PublishParseResult parsed = parse(ticket);
        if (!parsed.isAccepted()
            || ticket.workspaceGeneration != m_state.workspaceGeneration.load()) {
            // Rejections are counted, and a changed workspace handled, on the engine thread.
            QMetaObject::invokeMethod(
                &m_signals,
                [this, ticket = std::move(ticket), done = std::move(done),
                 parsed = std::move(parsed)]() mutable {
                    done(publishParsed(ticket, std::move(parsed)));
                },
                Qt::QueuedConnection);
            return;
        }
        Rows rows = buildRows(ticket, parsed);
        parsed = PublishParseResult(); // the events live on in rows
        // SPEC D1: acknowledged (by done) only after this commit.
        Expected<void> stored = rows.idError.isEmpty()
            ? m_state.store->insertPublished(rows.events, rows.records)
            : Expected<void>(Error(rows.idError));
        QMetaObject::invokeMethod(
            &m_signals,
            [this, ticket = std::move(ticket), done = std::move(done), rows = std::move(rows),
             stored = std::move(stored)]() mutable {
                PublishResult result;
                {
                    const StateLock lock(m_state.lock);
                    result = stored ? adopt(ticket, std::move(rows))
                                    : storeFailed(ticket, stored.error());
                }
                done(result);
            },
            Qt::QueuedConnection);
    });
}

PublishResult Ingest::publishParsed(const PublishTicket &ticket, PublishParseResult parsed)
{
    const StateLock lock(m_state.lock);
    // The workspace changed while the request was parsed elsewhere: the topic may be gone or
    // take another schema now, so the request is taken again from the start.
    if (ticket.workspaceGeneration != m_state.workspaceGeneration)
        return publish(ticket.topic.name, ticket.body, ticket.contentType);
    PublishResult result;
    const Topic *topic = m_state.workspace.findTopic(ticket.topic.name);
    if (!topic || !m_state.running) {
        result.httpStatus = 503;
        result.errorCode = u"ServiceUnavailable"_s;
        result.errorMessage = u"The engine is shutting down."_s;
        return result;
    }
    if (!parsed.isAccepted()) {
        ++m_state.topicCounters[topic->name.toLower()].rejectedRequests;
        result.httpStatus = parsed.httpStatus;
        result.errorCode = parsed.errorCode;
        result.errorMessage = parsed.errorMessage;
        return result;
    }

    Rows rows = buildRows(ticket, parsed);
    if (!rows.idError.isEmpty())
        return storeFailed(ticket, rows.idError);
    // SPEC D1: acknowledge only after the events and their deliveries are committed.
    if (auto stored = m_state.store->insertPublished(rows.events, rows.records); !stored)
        return storeFailed(ticket, stored.error());
    return adopt(ticket, std::move(rows));
}

QVarLengthArray<int, 16> Ingest::matchingTargets(const PublishTicket &ticket,
                                                 const PublishedEvent &event)
{
    QVarLengthArray<int, 16> matching;
    for (int i = 0; i < ticket.targets.size(); ++i) {
        if (FilterEvaluator::matches(ticket.targets.at(i).filter, event.eventType, event.subject,
                                     event.filterView))
            matching.append(i);
    }
    return matching;
}

Ingest::Rows Ingest::buildRows(const PublishTicket &ticket, const PublishParseResult &parsed)
{
    Rows rows;
    rows.events.reserve(parsed.events.size());
    const qint64 now = ticket.nowMs;
    const Expected<qint64> firstSeq = m_state.takeIds(IdKind::EventSeq, parsed.events.size());
    if (!firstSeq) {
        rows.idError = firstSeq.error();
        return rows;
    }
    qint64 seq = firstSeq.value();
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
        const QVarLengthArray<int, 16> targets = matchingTargets(ticket, published);
        for (const int i : targets) {
            const PublishTarget &target = ticket.targets.at(i);
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
        if (targets.isEmpty())
            ++rows.unmatched;
        rows.events.append(std::move(event));
    }
    const Expected<qint64> firstDeliveryId
        = m_state.takeIds(IdKind::DeliveryId, rows.records.size());
    if (!firstDeliveryId) {
        rows = Rows();
        rows.idError = firstDeliveryId.error();
        return rows;
    }
    qint64 deliveryId = firstDeliveryId.value();
    for (DeliveryRecord &record : rows.records)
        record.id = deliveryId++;
    return rows;
}

PublishResult Ingest::storeFailed(const PublishTicket &ticket, const QString &error)
{
    qCWarning(lcStore) << "publish to" << ticket.topic.name << "not stored:" << error;
    m_state.storeHealth.writeFailed(error);
    ++m_state.topicCounters[ticket.topic.name.toLower()].rejectedRequests;
    // SPEC D1: nothing of the request was accepted. 503 with Retry-After, because a full disk or
    // an I/O error passes: the Azure SDKs send the request again after the wait it names (they
    // retry 500 too, but at once and without a hint).
    PublishResult result;
    result.httpStatus = 503;
    result.errorCode = u"ServiceUnavailable"_s;
    result.errorMessage = u"The events could not be stored, so none of this request was accepted; "
                          "send it again later. %1"_s.arg(error);
    result.retryAfterSeconds = StoreRetryAfterSeconds;
    return result;
}

PublishResult Ingest::adopt(const PublishTicket &ticket, Rows rows)
{
    m_state.storeHealth.writeSucceeded();
    const qint64 now = ticket.nowMs;
    TopicSnapshot &topicCounters = m_state.topicCounters[ticket.topic.name.toLower()];
    topicCounters.published += quint64(rows.events.size());
    topicCounters.unmatched += rows.unmatched;
    PublishResult result;
    result.accepted = int(rows.events.size());
    result.deliveriesCreated = int(rows.records.size());

    QHash<qint64, std::shared_ptr<const StoredEvent>> shared;
    for (StoredEvent &event : rows.events) {
        const qint64 eventSeq = event.seq;
        shared.insert(eventSeq, m_state.events.adopt(std::move(event)));
    }
    QSet<Subscription *> touched;
    for (qsizetype i = 0; i < rows.records.size(); ++i) {
        const DeliveryRecord &record = rows.records.at(i);
        const PublishTarget &target = ticket.targets.at(rows.recordTarget.at(i));
        Subscription &subscription = m_state.subscription(target.subscriptionIndex);
        Delivery &ref = m_state.deliveries.try_emplace(record.id).first->second;
        ref.id = record.id;
        ref.eventSeq = record.eventSeq;
        ref.dueMs = now;
        ref.publishMs = now;
        ref.subscriptionIndex = subscription.index;
        ref.event = shared.value(record.eventSeq);
        if (subscription.removed || !m_state.running) {
            // Stored on a parser thread while the subscription was deleted (or the engine
            // stopped): handled like the rest of that subscription's backlog.
            if (subscription.removed) {
                ++subscription.counters.backlog; // the backlog it is dropped from
                m_outcomes.drop(&subscription, ref, DeadLetterReason::SubscriptionDeleted, now);
            } else {
                m_state.deliveries.erase(record.id); // pending in the store: sent after a restart
            }
            continue;
        }
        ++subscription.counters.matched;
        m_state.pushPending(subscription, ref);
        touched.insert(&subscription);
    }
    for (Subscription *subscription : std::as_const(touched))
        m_scheduler.reschedule(*subscription, now);
    return result;
}

} // namespace EventDesk
