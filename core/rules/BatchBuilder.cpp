// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "BatchBuilder.h"

#include <algorithm>

namespace EventDesk {

qsizetype BatchBuilder::arrayBytes(qsizetype eventBytesSum, qsizetype eventCount)
{
    // "[" + events joined by "," + "]"
    return 2 + eventBytesSum + std::max<qsizetype>(eventCount - 1, 0);
}

qsizetype BatchBuilder::nextBatchSize(const BatchPolicy &policy, const QList<qsizetype> &sizes)
{
    if (sizes.isEmpty())
        return 0;
    // SPEC B1: one event per request unless batching is on.
    if (!policy.enabled)
        return 1;

    const qsizetype maxEvents = std::max(policy.maxEventsPerBatch, 1);
    const qsizetype preferredBytes
        = qsizetype(std::max(policy.preferredBatchSizeInKilobytes, 1)) * 1024;

    // SPEC B4: the first event always goes, so one larger than the preferred size is sent alone
    // rather than dropped; every later one must keep the array within the preferred size.
    qsizetype count = 1;
    qsizetype sum = sizes.first();
    // SPEC B5: only what is ready now; B3: never more than maxEventsPerBatch.
    while (count < sizes.size() && count < maxEvents) {
        const qsizetype next = sizes.at(count);
        if (arrayBytes(sum + next, count + 1) > preferredBytes)
            break;
        sum += next;
        ++count;
    }
    return count;
}

} // namespace EventDesk
