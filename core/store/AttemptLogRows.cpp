// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "AttemptLogRows.h"

#include <algorithm>
#include <utility>
#include <vector>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

// The decimal number at text[*at] up to the next ':', which *at then follows; false when there is
// none.
bool readNumberField(QByteArrayView text, qsizetype *at, qint64 *number)
{
    const qsizetype colon = text.indexOf(':', *at);
    if (colon <= *at)
        return false;
    bool ok = false;
    *number = text.sliced(*at, colon - *at).toLongLong(&ok);
    *at = colon + 1;
    return ok && *number >= 0;
}

} // namespace

QStringList decodeEventIds(QByteArrayView encoded)
{
    std::vector<std::pair<qint64, QString>> events;
    qsizetype at = 0;
    while (at < encoded.size()) {
        qint64 position = 0;
        qint64 length = 0;
        if (!readNumberField(encoded, &at, &position) || !readNumberField(encoded, &at, &length)
            || length > encoded.size() - at) {
            break;
        }
        events.emplace_back(position, QString::fromUtf8(encoded.sliced(at, length)));
        at += length;
    }
    const auto byPosition = [](const auto &a, const auto &b) {
        return a.first < b.first;
    };
    if (!std::is_sorted(events.cbegin(), events.cend(), byPosition))
        std::stable_sort(events.begin(), events.end(), byPosition);
    QStringList ids;
    ids.reserve(qsizetype(events.size()));
    for (auto &event : events)
        ids.append(std::move(event.second));
    return ids;
}

QByteArray insertAttemptEventsSql()
{
    QByteArray sql = InsertAttemptEventSql;
    for (int row = 1; row < AttemptEventsPerInsert; ++row)
        sql += ", (?, ?, ?)";
    return sql;
}

QByteArray newestAttemptsSql()
{
    return "SELECT "_ba + AttemptLogColumns + " FROM attempt_log ORDER BY id DESC LIMIT ?"_ba;
}

QByteArray attemptsAfterSql()
{
    return "SELECT "_ba + AttemptLogColumns
        + " FROM attempt_log WHERE id > ? ORDER BY id LIMIT ?"_ba;
}

QByteArray attemptsOfEventSql()
{
    return "SELECT "_ba + AttemptLogColumns
        + " FROM attempt_log WHERE id IN"
          " (SELECT attempt_id FROM attempt_events WHERE event_id = ?) ORDER BY id"_ba;
}

} // namespace EventDesk
