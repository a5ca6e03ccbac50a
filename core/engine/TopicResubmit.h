// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "EngineTypes.h"

#include <QList>

namespace EventDesk {

class Ingest;
struct EngineState;

// Resubmitting dead letters through their topic (docs/user-guide.md "Dead-letter browser"): each
// event is published to its topic again, so every current subscription's filter decides anew — one
// the event died in may not take it any more, one added since may. It goes the publish path's way:
// the topic's current input schema reads the event (Ingest::parse), the publish path's own
// matching picks the subscriptions (Ingest::matchingTargets), the rows are built and adopted as a
// publish's (Ingest::buildRows, Ingest::adopt). A dry run stops after the matching.
//
// Decisions: the event keeps its id, its data and its eventTime (a custom event without a mapped
// time keeps the one it was first given); its publish time is the resubmit's, so its time to live
// starts again (SPEC R6, R7), with fresh attempt counts. A dead letter that no subscription
// matches now stays in the index and is counted as unmatched. A dead letter whose topic is gone,
// whose event no longer fits the topic's input schema, or whose index row holds no copy of the
// event is refused with a message naming it; the rest go on. The index keeps a copy of every
// event whatever the destination, so a dead letter in an Azure Blob container is resubmitted
// without reading its blob. The events, their deliveries, a resubmissions row per delivery (the
// delivery log's trace back to the dead letter) and the removal of the dead letters' index rows
// are stored in one transaction (DeliveryStore::insertResubmitted), per topic. The events count
// as published to the topic in its metrics, as they went through it.
class TopicResubmit
{
public:
    TopicResubmit(EngineState &state, Ingest &ingest);

    // Under the state lock.
    TopicResubmitResult run(const QList<qint64> &deadLetterIds, ResubmitRun mode);

private:
    EngineState &m_state;
    Ingest &m_ingest;
};

} // namespace EventDesk
