#pragma once

#include "EngineState.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace EventDesk {

class Ingest;

// Whether a resubmit through the topic changes anything, or only tells what it would do.
enum class ResubmitRun { DryRun, Resubmit };

// How many new deliveries a resubmit through the topic gives one subscription.
struct ResubmitRouteCount
{
    QString topic;
    QString subscription;
    qint64 deliveries = 0;

    friend bool operator==(const ResubmitRouteCount &, const ResubmitRouteCount &) = default;
};

// What a resubmit through the topic did, or (dry run) would do.
struct TopicResubmitResult
{
    qint64 resubmitted = 0; // dead letters whose event went through its topic again
    qint64 deliveriesCreated = 0;
    // Dead letters that no current subscription's filter matches: they stay in the index.
    qint64 unmatched = 0;
    // Every enabled subscription of the topics involved, 0 included, in workspace order.
    QList<ResubmitRouteCount> routes;
    QStringList errors; // one per dead letter that could not be resubmitted, naming it

    // Adds another chunk's result (the GUI runs a large selection in chunks).
    void add(const TopicResubmitResult &other);
    qint64 deliveriesTo(const QString &topic, const QString &subscription) const;
};

// Resubmitting dead letters through their topic (PRODUCT.md, dead-letter browser): each event is
// published to its topic again, so every current subscription's filter decides anew — one the
// event died in may not take it any more, one added since may. It goes the publish path's way:
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
// are stored in one transaction (DeliveryStore::insertResubmitted), per topic.
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
