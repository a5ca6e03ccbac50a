// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../model/Filter.h"

#include <QJsonObject>
#include <QJsonValue>
#include <QString>

namespace EventDesk {

// Subscription filters (issue "Delivery core": includedEventTypes, subject prefix/suffix,
// case sensitivity, advanced filters). Values within one advanced filter are OR'd, filters are
// AND'd, string comparisons are case-insensitive.
class FilterEvaluator final
{
public:
    // eventType and subject are the event's (for CloudEvents: type and subject); filterView is
    // PublishedEvent::filterView, where advanced-filter keys are looked up ("data.a.b" walks
    // nested objects).
    static bool matches(const EventFilter &filter, const QString &eventType,
                        const QString &subject, const QJsonObject &filterView);

    static bool matchesAdvanced(const AdvancedFilter &filter, const QJsonObject &filterView);

    // Dotted-path lookup; undefined QJsonValue when any step is missing.
    static QJsonValue lookup(const QJsonObject &object, const QString &dottedKey);
};

} // namespace EventDesk
