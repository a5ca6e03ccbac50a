// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "EngineState.h"

namespace EventDesk {

class CommitBuffer;
class DeadLetterSink;
class DeliveryScheduler;
class EngineSignals;
class OutcomeHandler;

// Dead letters, from the decision to the record (SPEC L2–L7): deliveries waiting in their
// subscription's deadLetterPending heap are written to its destination in blobs of up to
// EngineOptions::deadLetterMaxEventsPerBlob events; an unavailable destination is tried again
// and, after 4 h, the events are dropped (L4). Written dead letters are indexed in the store,
// where the GUI browses them and resubmits them to their subscription.
class DeadLettering
{
public:
    DeadLettering(EngineState &state, EngineSignals &signals, CommitBuffer &commits,
                  DeliveryScheduler &scheduler, OutcomeHandler &outcomes, DeadLetterSink *sink);

    // Writes what is due (engine thread: the sinks live there).
    void service(Subscription &subscription, qint64 now);
    // When the next write is due; -1 for none (or one under way).
    qint64 attentionMs(Subscription &subscription);

    // Resubmitted events keep their id and start with a fresh attempt count and a fresh time to
    // live; stored with their trace back to the dead letter (ResubmissionEntry) and the removal
    // from the index in one transaction.
    ResubmitResult resubmit(const QList<qint64> &deadLetterIds);
    ResubmitResult resubmit(const DeadLetterQuery &query);

private:
    // writeStartedMs: the engine time the write began, which names the blob's folder (L6) and
    // is the time the events count as dead-lettered, however long the write itself took.
    void written(int subscriptionIndex, const QList<qint64> &deliveryIds,
                 const QList<QByteArray> &records, const Expected<QString> &blobPath,
                 qint64 writeStartedMs);

    EngineState &m_state;
    EngineSignals &m_signals;
    CommitBuffer &m_commits;
    DeliveryScheduler &m_scheduler;
    OutcomeHandler &m_outcomes;
    DeadLetterSink *m_sink;
};

} // namespace EventDesk
