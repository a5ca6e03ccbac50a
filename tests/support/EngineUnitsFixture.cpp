// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "EngineUnitsFixture.h"

#include "engine/DeadLettering.h"
#include "engine/Dispatcher.h"
#include "engine/EndpointValidation.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace EventDesk::Testing {

EngineUnitsFixture::EngineUnitsFixture(EngineOptions options)
    : state(&clock, &store, options)
    , signals(state.lock)
    , commits(&store, state.storeHealth, signals, options.storeFlushIntervalMs)
    , outcomes(state, commits, signals)
    , scheduler(state, signals, outcomes)
{
    if (!directory.isValid())
        qFatal("no temporary directory: %s", qPrintable(directory.errorString()));
    if (auto opened = sqlite.open(directory.filePath(u"eventdesk.db"_s)); !opened)
        qFatal("cannot open the test store: %s", qPrintable(opened.error()));
    wire({});
    signals.setWakeHandler([this] {
        commits.schedule();
        scheduler.rearmAlarm();
    });
    QObject::connect(&clock, &Clock::alarm, &signals, [this] {
        const StateLock lock(state.lock);
        scheduler.onAlarm();
    });
}

EngineUnitsFixture::~EngineUnitsFixture()
{
    const StateLock lock(state.lock);
    state.running = false;
    scheduler.stop();
    commits.stop();
}

EngineOptions EngineUnitsFixture::withoutJitter()
{
    EngineOptions options;
    options.jitter = false;
    return options;
}

EventSubscription EngineUnitsFixture::webhook(const QString &name, DeadLetter deadLetter)
{
    EventSubscription config;
    config.name = name;
    config.endpointUrl = QUrl(u"http://receiver.test/"_s + name);
    config.validationEnabled = false;
    if (deadLetter == DeadLetter::LocalContainer) {
        config.deadLetterDestination.kind = DeadLetterDestination::Kind::LocalFolder;
        config.deadLetterDestination.resourceId = u"local"_s;
        config.deadLetterDestination.blobContainerName = u"deadletters"_s;
    }
    return config;
}

DeliveryHeader EngineUnitsFixture::staticHeader(const QString &name, const QString &value,
                                               bool secret)
{
    DeliveryHeader header;
    header.name = name;
    header.kind = DeliveryHeader::Kind::Static;
    header.value = value;
    header.secret = secret;
    return header;
}

DeliveryHeader EngineUnitsFixture::dynamicHeader(const QString &name, const QString &sourceField)
{
    DeliveryHeader header;
    header.name = name;
    header.kind = DeliveryHeader::Kind::Dynamic;
    header.sourceField = sourceField;
    return header;
}

Subscription &EngineUnitsFixture::addSubscription(const EventSubscription &config,
                                                  const QString &topicName, EventSchema inputSchema)
{
    Topic *topic = nullptr;
    for (Topic &candidate : state.workspace.topics) {
        if (candidate.name.compare(topicName, Qt::CaseInsensitive) == 0)
            topic = &candidate;
    }
    if (!topic) {
        Topic created;
        created.name = topicName;
        created.inputSchema = inputSchema;
        state.workspace.topics.append(created);
        topic = &state.workspace.topics.last();
        state.topicCounters.insert(topicName.toLower(), TopicSnapshot {topicName, 0, 0, 0});
    }
    topic->eventSubscriptions.append(config);

    auto created = std::make_unique<Subscription>();
    Subscription &subscription = *created;
    subscription.index = int(state.subscriptions.size());
    subscription.topic = topic->name;
    subscription.topicPath = topic->resourcePath();
    subscription.inputSchema = topic->inputSchema;
    subscription.config = config;
    subscription.probation.setThreshold(state.workspace.settings.probationThreshold);
    subscription.counters.topic = topic->name;
    subscription.counters.subscription = config.name;
    subscription.counters.enabled = config.enabled;
    subscription.validation.record.topic = topic->name;
    subscription.validation.record.subscription = config.name;
    if (!config.needsEndpointValidation())
        subscription.validation.record.state = ProvisioningState::Succeeded;
    state.subscriptions.push_back(std::move(created));
    return subscription;
}

QByteArray EngineUnitsFixture::eventGridBatch(int count, const QString &idPrefix,
                                              const QString &eventType, const QString &padding)
{
    QJsonArray events;
    for (int i = 0; i < count; ++i) {
        events.append(
            QJsonObject {{u"id"_s, QString(idPrefix + QString::number(i))},
                         {u"subject"_s, u"/orders/%1"_s.arg(i)},
                         {u"eventType"_s, eventType},
                         {u"eventTime"_s, u"2024-05-01T10:00:00Z"_s},
                         {u"dataVersion"_s, u"2.0"_s},
                         {u"data"_s, QJsonObject {{u"amount"_s, i}, {u"text"_s, padding}}}});
    }
    return QJsonDocument(events).toJson(QJsonDocument::Compact);
}

StoredEvent EngineUnitsFixture::event(const Subscription &subscription, const QString &id,
                                      const QJsonObject &data) const
{
    StoredEvent event;
    event.topic = subscription.topic;
    event.id = id;
    event.eventType = u"Order.Created"_s;
    event.subject = u"/orders/"_s + id;
    event.dataVersion = u"2.0"_s;
    event.eventTime = u"2024-05-01T10:00:00Z"_s;
    const QJsonObject body {{u"id"_s, event.id},
                            {u"topic"_s, subscription.topicPath},
                            {u"subject"_s, event.subject},
                            {u"eventType"_s, event.eventType},
                            {u"eventTime"_s, event.eventTime},
                            {u"data"_s, data},
                            {u"dataVersion"_s, event.dataVersion},
                            {u"metadataVersion"_s, u"1"_s}};
    event.body = QJsonDocument(body).toJson(QJsonDocument::Compact);
    return event;
}

QList<Delivery *> EngineUnitsFixture::addDeliveries(Subscription &subscription,
                                                    const QList<StoredEvent> &events, qint64 dueMs,
                                                    qint64 publishMs, Placement placement,
                                                    Payload payload)
{
    QList<StoredEvent> stored = events;
    QList<DeliveryRecord> records;
    for (StoredEvent &event : stored) {
        event.seq = state.nextEventSeq++;
        event.publishMs = publishMs;
        DeliveryRecord record;
        record.id = state.nextDeliveryId++;
        record.eventSeq = event.seq;
        record.topic = subscription.topic;
        record.subscription = subscription.config.name;
        record.dueMs = dueMs;
        record.publishMs = publishMs;
        records.append(record);
    }
    if (auto inserted = sqlite.insertPublished(stored, records); !inserted)
        qFatal("cannot store the test deliveries: %s", qPrintable(inserted.error()));

    const StateLock lock(state.lock);
    QList<Delivery *> added;
    for (qsizetype i = 0; i < records.size(); ++i) {
        Delivery &delivery = state.deliveries[records.at(i).id];
        delivery.id = records.at(i).id;
        delivery.eventSeq = records.at(i).eventSeq;
        delivery.dueMs = dueMs;
        delivery.publishMs = publishMs;
        delivery.subscriptionIndex = subscription.index;
        if (payload == Payload::InMemory)
            delivery.event = state.events.adopt(stored.at(i));
        if (placement == Placement::Pending) {
            ++subscription.counters.matched;
            state.pushPending(subscription, delivery);
        } else {
            delivery.state = DeliveryState::InFlight;
            delivery.lastAttemptMs = clock.nowMs();
        }
        added.append(&delivery);
    }
    if (placement == Placement::Pending)
        scheduler.reschedule(subscription, clock.nowMs());
    return added;
}

QList<Delivery *> EngineUnitsFixture::addDeliveries(Subscription &subscription, int count,
                                                    const QString &idPrefix, Placement placement)
{
    QList<StoredEvent> events;
    for (int i = 0; i < count; ++i)
        events.append(event(subscription, idPrefix + QString::number(i)));
    return addDeliveries(subscription, events, clock.nowMs(), clock.nowMs(), placement);
}

Delivery &EngineUnitsFixture::addDelivery(Subscription &subscription, const QString &eventId,
                                          Placement placement)
{
    return *addDeliveries(subscription, {event(subscription, eventId)}, clock.nowMs(),
                          clock.nowMs(), placement)
                .constFirst();
}

Delivery *EngineUnitsFixture::delivery(qint64 id)
{
    const auto it = state.deliveries.find(id);
    return it == state.deliveries.end() ? nullptr : &it->second;
}

void EngineUnitsFixture::start()
{
    const StateLock lock(state.lock);
    state.running = true;
    for (const auto &subscription : state.subscriptions)
        scheduler.reschedule(*subscription, clock.nowMs());
}

void EngineUnitsFixture::wire(Units units)
{
    DeliveryScheduler::Hooks hooks;
    hooks.service = [this, units](Subscription &subscription, qint64 now) {
        if (subscription.removed)
            return;
        if (units.deadLettering)
            units.deadLettering->service(subscription, now);
        if (units.validation)
            units.validation->service(subscription, now);
        if (subscription.config.enabled) {
            if (subscription.isValidated()) {
                if (units.dispatcher)
                    units.dispatcher->serviceDue(subscription, now);
            } else if (units.validation) {
                units.validation->serviceHeld(subscription, now);
            }
        }
        scheduler.reschedule(subscription, now);
    };
    hooks.attention = [units](Subscription &subscription, qint64 now) -> qint64 {
        const qint64 write
            = units.deadLettering ? units.deadLettering->attentionMs(subscription) : -1;
        const qint64 handshake
            = units.validation ? units.validation->attentionMs(subscription, now) : -1;
        if (write < 0)
            return handshake;
        return handshake < 0 ? write : std::min(write, handshake);
    };
    hooks.deadlineDue
        = [units](quint64 requestId, DeliveryScheduler::Deadline deadline, qint64 now) {
              if (units.dispatcher)
                  units.dispatcher->deadlineDue(requestId, deadline, now);
          };
    hooks.isRequestOpen = [units](quint64 requestId) {
        return units.dispatcher && units.dispatcher->isOpen(requestId);
    };
    scheduler.setHooks(std::move(hooks));
}

void EngineUnitsFixture::settle()
{
    for (int i = 0; i < 6; ++i) {
        clock.advanceMs(0);
        QCoreApplication::processEvents();
    }
}

void EngineUnitsFixture::advance(qint64 ms)
{
    const qint64 target = clock.nowMs() + ms;
    settle();
    while (clock.alarmAtMs() >= 0 && clock.alarmAtMs() <= target) {
        clock.advanceTo(clock.alarmAtMs());
        settle();
    }
    clock.advanceTo(target);
    settle();
}

Expected<void> EngineUnitsFixture::flush()
{
    const StateLock lock(state.lock);
    return commits.flush();
}

std::optional<DeliveryRecord> EngineUnitsFixture::storedDelivery(qint64 id)
{
    auto rows = sqlite.loadUnfinishedDeliveries();
    if (!rows)
        return std::nullopt;
    for (const DeliveryRecord &record : std::as_const(rows.value())) {
        if (record.id == id)
            return record;
    }
    return std::nullopt;
}

qsizetype EngineUnitsFixture::storedUnfinishedDeliveries()
{
    auto rows = sqlite.loadUnfinishedDeliveries();
    return rows ? rows->size() : -1;
}

} // namespace EventDesk::Testing
