// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../model/EventSubscription.h"

#include <QList>
#include <QtGlobal>

namespace EventDesk {

// SPEC §4. Splits the deliveries that are ready now (in order) into batches.
class BatchBuilder final
{
public:
    // sizes[i]: serialized size in bytes of ready event i (as it will be delivered).
    // Returns the number of events (a prefix of sizes) that go into the next batch:
    //  - batching off (B1): 1;
    //  - never more than maxEventsPerBatch (B3);
    //  - the batch's serialized size ("[" + events joined by "," + "]") stays within
    //    preferredBatchSizeInKilobytes * 1024 (B4), except that an event larger than that is
    //    sent alone (never dropped for its size);
    //  - whatever is ready, possibly fewer than the maximum: never wait to fill (B5).
    // Returns 0 only when sizes is empty.
    static qsizetype nextBatchSize(const BatchPolicy &policy, const QList<qsizetype> &sizes);

    // Serialized size of a JSON array holding events of the given sizes.
    static qsizetype arrayBytes(qsizetype eventBytesSum, qsizetype eventCount);
};

} // namespace EventDesk
