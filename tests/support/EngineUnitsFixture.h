// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "FaultyDeliveryStore.h"

#include "engine/Clock.h"
#include "engine/CommitBuffer.h"
#include "engine/DeliveryScheduler.h"
#include "engine/EngineSignals.h"
#include "engine/EngineState.h"
#include "engine/OutcomeHandler.h"
#include "store/sqlite/SqliteDeliveryStore.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QTemporaryDir>

#include <optional>

namespace EventDesk {
class DeadLettering;
class Dispatcher;
class EndpointValidation;
} // namespace EventDesk

namespace EventDesk::Testing {

inline constexpr qint64 T0 = 1'700'000'000'000; // engine time at the start of every test
inline constexpr qint64 Second = 1000;
inline constexpr qint64 Minute = 60 * Second;

// The state the engine's units share and the units every other unit builds on (CommitBuffer,
// OutcomeHandler, DeliveryScheduler), put together as Engine::Units does, over the real SQLite
// store in a temporary directory (behind a FaultyDeliveryStore) and a manual clock. A unit test
// builds the unit it tests on top of it, adds subscriptions and deliveries directly to the state,
// and drives engine time with advance().
class EngineUnitsFixture
{
public:
    explicit EngineUnitsFixture(EngineOptions options = withoutJitter());
    ~EngineUnitsFixture();

    static EngineOptions withoutJitter();

    enum class DeadLetter { LocalContainer, None };
    // A webhook subscription at http://receiver.test/<name> whose validation is switched off (it
    // delivers at once), dead-lettering to the local container "deadletters" or nowhere.
    static EventSubscription webhook(const QString &name,
                                     DeadLetter deadLetter = DeadLetter::LocalContainer);

    // Adds the subscription to the workspace's topic (created with inputSchema when new) and to
    // the state, as Engine::Units::rebuildSubscriptions does. A subscription whose validation is
    // switched off is Succeeded; any other stays Creating until an EndpointValidation takes it.
    Subscription &addSubscription(const EventSubscription &config,
                                  const QString &topic = QStringLiteral("orders"),
                                  EventSchema inputSchema = EventSchema::EventGrid);

    // Custom delivery headers (SPEC §9): a static value (H2, secret or not) and a value taken
    // from the event (H3).
    static DeliveryHeader staticHeader(const QString &name, const QString &value,
                                       bool secret = false);
    static DeliveryHeader dynamicHeader(const QString &name, const QString &sourceField);

    // A publish request body: Event Grid events "<idPrefix>0", "<idPrefix>1", ... of eventType,
    // the i-th with data {"amount": i, "text": padding}.
    static QByteArray eventGridBatch(int count, const QString &idPrefix = QStringLiteral("e"),
                                     const QString &eventType = QStringLiteral("Order.Created"),
                                     const QString &padding = {});

    // An Event Grid event of the subscription's topic, type Order.Created, data version 2.0.
    StoredEvent event(const Subscription &subscription, const QString &id,
                      const QJsonObject &data = {}) const;

    // Where a new delivery starts: in the subscription's pending heap (as Ingest leaves it), or
    // taken from it and sent (InFlight, last attempt now), as the Dispatcher leaves it.
    enum class Placement { Pending, InFlight };
    // Whether the delivery holds its event, or the event is only in the store (as after a
    // restart or a retry).
    enum class Payload { InMemory, InStoreOnly };

    // Stores the events with one delivery each for the subscription (one transaction, SPEC D1)
    // and adopts the deliveries into the state: due at dueMs, published at publishMs.
    QList<Delivery *> addDeliveries(Subscription &subscription, const QList<StoredEvent> &events,
                                    qint64 dueMs, qint64 publishMs,
                                    Placement placement = Placement::Pending,
                                    Payload payload = Payload::InMemory);
    // count events "<idPrefix>0", "<idPrefix>1", ... published and due now.
    QList<Delivery *> addDeliveries(Subscription &subscription, int count,
                                    const QString &idPrefix = QStringLiteral("e"),
                                    Placement placement = Placement::Pending);
    Delivery &addDelivery(Subscription &subscription, const QString &eventId,
                          Placement placement = Placement::Pending);

    // The delivery with this id, or null when it has left the state (delivered, dropped, ...).
    Delivery *delivery(qint64 id);

    // Sets the engine running and keys every subscription in the scheduler (Engine::start).
    void start();

    // The scheduler's hooks as Engine::Units wires them, with only the units given (the others
    // are left out: no dead-letter writes without a DeadLettering, and so on). Until this is
    // called a subscription's turn only reschedules it.
    struct Units
    {
        Dispatcher *dispatcher = nullptr;
        DeadLettering *deadLettering = nullptr;
        EndpointValidation *validation = nullptr;
    };
    void wire(Units units);

    // Runs everything due now, including the queued completion of fake replies and writes.
    void settle();
    // Moves engine time forward alarm by alarm, settling at each step.
    void advance(qint64 ms);
    void advanceTo(qint64 atMs) { advance(atMs - clock.nowMs()); }

    // Commits what the units buffered (CommitBuffer::flush under the lock).
    Expected<void> flush();
    // The store's row of an unfinished delivery.
    std::optional<DeliveryRecord> storedDelivery(qint64 id);
    qsizetype storedUnfinishedDeliveries();

    QTemporaryDir directory;
    ManualClock clock {T0};
    SqliteDeliveryStore sqlite;
    FaultyDeliveryStore store {&sqlite};
    EngineState state;
    EngineSignals signals;
    CommitBuffer commits;
    OutcomeHandler outcomes;
    DeliveryScheduler scheduler;
};

} // namespace EventDesk::Testing
