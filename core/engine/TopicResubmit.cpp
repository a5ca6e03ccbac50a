// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "TopicResubmit.h"

#include "../Logging.h"
#include "../model/EventSchema.h"
#include "../rules/DeadLetterFormatter.h"
#include "Clock.h"
#include "EngineState.h"
#include "Ingest.h"

#include <QHash>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

QString nameOf(const DeadLetterEntry &entry)
{
    return u"dead letter %1 (event %2 of %3/%4)"_s.arg(entry.id).arg(entry.eventId, entry.topic,
                                                                     entry.subscription);
}

// The dead letters of one topic, in the order they were asked for.
struct TopicGroup
{
    QString topic;
    QList<const DeadLetterEntry *> entries;
};

} // namespace

void TopicResubmitResult::add(const TopicResubmitResult &other)
{
    resubmitted += other.resubmitted;
    deliveriesCreated += other.deliveriesCreated;
    unmatched += other.unmatched;
    errors += other.errors;
    for (const ResubmitRouteCount &route : other.routes) {
        auto same = std::find_if(routes.begin(), routes.end(), [&route](const auto &known) {
            return known.topic.compare(route.topic, Qt::CaseInsensitive) == 0
                && known.subscription.compare(route.subscription, Qt::CaseInsensitive) == 0;
        });
        if (same == routes.end())
            routes.append(route);
        else
            same->deliveries += route.deliveries;
    }
}

TopicResubmit::TopicResubmit(EngineState &state, Ingest &ingest)
    : m_state(state)
    , m_ingest(ingest)
{
}

TopicResubmitResult TopicResubmit::run(const QList<qint64> &deadLetterIds, ResubmitRun mode)
{
    TopicResubmitResult result;
    const auto entries = m_state.store->deadLettersById(deadLetterIds);
    if (!entries) {
        result.errors.append(entries.error());
        return result;
    }
    QList<TopicGroup> groups;
    QHash<QString, qsizetype> groupOfTopic;
    for (const DeadLetterEntry &entry : entries.value()) {
        const QString key = entry.topic.toLower();
        auto found = groupOfTopic.constFind(key);
        if (found == groupOfTopic.cend()) {
            found = groupOfTopic.insert(key, groups.size());
            groups.append(TopicGroup {entry.topic, {}});
        }
        groups[found.value()].entries.append(&entry);
    }

    for (const TopicGroup &group : std::as_const(groups)) {
        // The topic as it is now, with its enabled subscriptions and their current filters.
        PublishTicket ticket;
        const PublishResult prepared
            = m_ingest.prepare(group.topic, QByteArray(), "application/json"_ba, &ticket);
        if (prepared.httpStatus != 200) {
            for (const DeadLetterEntry *entry : group.entries)
                result.errors.append(u"%1: %2"_s.arg(nameOf(*entry), prepared.errorMessage));
            continue;
        }
        QList<qint64> counts(ticket.targets.size(), 0);
        PublishParseResult matched;
        QList<const DeadLetterEntry *> matchedEntries;
        qint64 deliveries = 0;
        for (const DeadLetterEntry *entry : group.entries) {
            if (entry->eventBody.isEmpty()) {
                result.errors.append(
                    u"%1: the index holds no copy of the event; its record is in blob %2"_s.arg(
                        nameOf(*entry), entry->blobPath));
                continue;
            }
            // A request of one event, read by the topic's current input schema. The publish time
            // given is the first one: a custom event without a mapped eventTime keeps its time.
            ticket.body = '[' + entry->eventBody + ']';
            ticket.publishTimeIso = DeadLetterFormatter::formatTime(entry->publishMs);
            PublishParseResult parsed = Ingest::parse(ticket);
            if (!parsed.isAccepted() || parsed.events.size() != 1) {
                result.errors.append(
                    u"%1: the event no longer fits the input schema of topic %2 (%3): %4"_s.arg(
                        nameOf(*entry), ticket.topic.name,
                        eventSchemaName(ticket.topic.inputSchema), parsed.errorMessage));
                continue;
            }
            PublishedEvent &event = parsed.events.first();
            if (event.id != entry->eventId) {
                result.errors.append(
                    u"%1: the input schema of topic %2 now reads the event's id as '%3'"_s.arg(
                        nameOf(*entry), ticket.topic.name, event.id));
                continue;
            }
            const auto targets = Ingest::matchingTargets(ticket, event);
            if (targets.isEmpty()) {
                ++result.unmatched; // stays in the index
                continue;
            }
            for (const int target : targets)
                ++counts[target];
            deliveries += targets.size();
            matched.events.append(std::move(event));
            matchedEntries.append(entry);
        }
        ticket.body.clear();

        if (mode == ResubmitRun::Resubmit && !matched.events.isEmpty()) {
            Ingest::Rows rows = m_ingest.buildRows(ticket, matched);
            const qint64 firstSeq = rows.idError.isEmpty() ? rows.events.constFirst().seq : 0;
            QList<ResubmissionEntry> resubmissions;
            resubmissions.reserve(rows.records.size());
            for (const DeliveryRecord &record : std::as_const(rows.records)) {
                const DeadLetterEntry &entry = *matchedEntries.at(record.eventSeq - firstSeq);
                ResubmissionEntry resubmission;
                resubmission.timeMs = ticket.nowMs;
                resubmission.deadLetterId = entry.id;
                resubmission.eventId = entry.eventId;
                resubmission.topic = ticket.topic.name;
                resubmission.fromSubscription = entry.subscription;
                resubmission.reason = entry.reason;
                resubmission.deadLetteredMs = entry.deadLetteredMs;
                resubmission.toSubscription = record.subscription;
                resubmission.deliveryId = record.id;
                resubmission.route = ResubmitRoute::ThroughTopic;
                resubmissions.append(resubmission);
            }
            QList<qint64> resubmittedIds;
            resubmittedIds.reserve(matchedEntries.size());
            for (const DeadLetterEntry *entry : std::as_const(matchedEntries))
                resubmittedIds.append(entry->id);
            if (auto stored = rows.idError.isEmpty() ? m_state.store->insertResubmitted(
                                  rows.events, rows.records, resubmissions, resubmittedIds)
                                                     : Expected<void>(Error(rows.idError));
                !stored) {
                qCWarning(lcDeadLetter) << "resubmit through topic" << ticket.topic.name
                                        << "not stored:" << stored.error();
                for (const DeadLetterEntry *entry : std::as_const(matchedEntries))
                    result.errors.append(u"%1: not resubmitted, the store failed: %2"_s.arg(
                        nameOf(*entry), stored.error()));
                continue;
            }
            m_ingest.adopt(ticket, std::move(rows));
        }
        result.resubmitted += matchedEntries.size();
        result.deliveriesCreated += deliveries;
        for (qsizetype i = 0; i < ticket.targets.size(); ++i) {
            result.routes.append(ResubmitRouteCount {
                ticket.targets.at(i).topic, ticket.targets.at(i).subscription, counts.at(i)});
        }
    }
    return result;
}

} // namespace EventDesk
