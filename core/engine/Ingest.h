// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "EngineState.h"
#include "EngineTypes.h"

#include <QThreadPool>
#include <QVarLengthArray>

#include <functional>

namespace EventDesk {

class DeliveryScheduler;
class EngineSignals;
class OutcomeHandler;

// The publish path (SPEC §10, D1, D2): a request is validated as a whole, its events matched
// against the topic's subscriptions' filters (F), stored with their deliveries in one
// transaction, and only then acknowledged; the deliveries are then adopted into their
// subscriptions' heaps, due at once. Large requests are parsed and stored on parser threads.
class Ingest
{
public:
    // A publish that could not be stored is answered 503 with this Retry-After.
    static constexpr int StoreRetryAfterSeconds = 10;

    Ingest(EngineState &state, EngineSignals &signals, DeliveryScheduler &scheduler,
           OutcomeHandler &outcomes);

    // See Engine::publish, publishAsync and preparePublish.
    PublishResult publish(const QString &topicName, const QByteArray &body,
                          const QByteArray &contentType);
    void publishAsync(const QString &topicName, const QByteArray &body,
                      const QByteArray &contentType,
                      std::function<void(const PublishResult &result)> done);
    PublishResult prepare(const QString &topicName, const QByteArray &body,
                          const QByteArray &contentType, PublishTicket *ticket);
    static PublishParseResult parse(const PublishTicket &ticket);
    PublishResult publishParsed(const PublishTicket &ticket, PublishParseResult parsed);

    // The rows of an accepted publish request: its events, and a delivery for every target
    // whose filter an event matches (recordTarget: index into the ticket's targets).
    struct Rows
    {
        QList<StoredEvent> events;
        QList<DeliveryRecord> records;
        QList<int> recordTarget;
        quint64 unmatched = 0;
        // Not empty: no ids could be reserved for the rows (a shared store that failed); nothing
        // is to be stored.
        QString idError;
    };
    // The ticket's targets (indexes) whose filters the event matches, in their order (SPEC §1: a
    // delivery per matching subscription). The one place an event meets the filters: a publish,
    // and a resubmit through the topic and its dry run (TopicResubmit), decide alike.
    static QVarLengthArray<int, 16> matchingTargets(const PublishTicket &ticket,
                                                    const PublishedEvent &event);
    // Thread-safe: reads only the ticket and reserves ids. The events' publish time is the
    // ticket's nowMs.
    Rows buildRows(const PublishTicket &ticket, const PublishParseResult &parsed);
    // Under the lock, after the rows were committed: counters, deliveries, scheduling.
    PublishResult adopt(const PublishTicket &ticket, Rows rows);

    // Shutdown: publishes being stored on parser threads finish first; their deliveries stay
    // pending in the store (the engine no longer adopts them) and are sent after a restart.
    void waitForParsers() { m_parsers.waitForDone(); }

private:
    PublishResult storeFailed(const PublishTicket &ticket, const QString &error);

    EngineState &m_state;
    EngineSignals &m_signals;
    DeliveryScheduler &m_scheduler;
    OutcomeHandler &m_outcomes;
    // Parses large publish requests. Its owner declares it last, so it is destroyed first: it
    // waits for running parses, whose results are then dropped with the posted events.
    QThreadPool m_parsers;
};

} // namespace EventDesk
