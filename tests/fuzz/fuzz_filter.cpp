// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// Fuzz target: subscription filters (core/rules/FilterEvaluator) as workspace.json declares them.
//
// Input: one JSON object, {"filter": <a subscription's properties.filter>, "event": <a filter
// view>}. The filter is read the way the workspace loader reads it: inside an event subscription
// (a webhook, everything else default) through eventSubscriptionFromArm, which also validates it.
// A valid filter is evaluated on the event (eventType and subject are the event's "eventType", or
// CloudEvents' "type", and "subject"). Properties checked besides ASan/UBSan:
//   - each negated operator is exactly "not" its positive counterpart on the same key and values,
//     and IsNullOrUndefined is "not" IsNotNull (FilterEvaluator's documented decision);
//   - a filter saved (eventSubscriptionToArm) loads again, saves to the same JSON, and matches the
//     event exactly as before: saving a workspace never changes what a subscription receives.

#include "FuzzSupport.h"

#include "model/Workspace.h"
#include "rules/FilterEvaluator.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <optional>

using namespace Qt::StringLiterals;
using namespace EventDesk;

namespace {

const QString s_path = u"topics[0].eventSubscriptions[0]"_s;

std::optional<FilterOperator> negation(FilterOperator op)
{
    switch (op) {
    case FilterOperator::NumberIn:
        return FilterOperator::NumberNotIn;
    case FilterOperator::NumberInRange:
        return FilterOperator::NumberNotInRange;
    case FilterOperator::StringIn:
        return FilterOperator::StringNotIn;
    case FilterOperator::StringContains:
        return FilterOperator::StringNotContains;
    case FilterOperator::StringBeginsWith:
        return FilterOperator::StringNotBeginsWith;
    case FilterOperator::StringEndsWith:
        return FilterOperator::StringNotEndsWith;
    case FilterOperator::IsNullOrUndefined:
        return FilterOperator::IsNotNull;
    case FilterOperator::IsNotNull:
        return FilterOperator::IsNullOrUndefined;
    case FilterOperator::NumberNotIn:
        return FilterOperator::NumberIn;
    case FilterOperator::NumberNotInRange:
        return FilterOperator::NumberInRange;
    case FilterOperator::StringNotIn:
        return FilterOperator::StringIn;
    case FilterOperator::StringNotContains:
        return FilterOperator::StringContains;
    case FilterOperator::StringNotBeginsWith:
        return FilterOperator::StringBeginsWith;
    case FilterOperator::StringNotEndsWith:
        return FilterOperator::StringEndsWith;
    default:
        return std::nullopt;
    }
}

QString compactJson(const QJsonObject &object)
{
    return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    Fuzz::initialize(argc, argv);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QJsonDocument document = QJsonDocument::fromJson(Fuzz::bytes(data, size));
    if (!document.isObject())
        return 0;
    const QJsonObject input = document.object();
    const QJsonObject subscriptionObject {
        {"name"_L1, u"fuzz-subscription"_s},
        {"properties"_L1,
         QJsonObject {
             {"destination"_L1,
              QJsonObject {{"endpointType"_L1, u"WebHook"_s},
                           {"properties"_L1,
                            QJsonObject {{"endpointUrl"_L1, u"https://receiver.invalid/api"_s}}}}},
             {"filter"_L1, input.value("filter"_L1)},
         }},
    };
    const Expected<EventSubscription> subscription
        = eventSubscriptionFromArm(subscriptionObject, s_path, EventSchema::EventGrid);
    if (!subscription) {
        Fuzz::require(!subscription.error().isEmpty(), "a refused filter says why");
        return 0;
    }

    const QJsonObject view = input.value("event"_L1).toObject();
    const QString eventType = view.contains("eventType"_L1)
        ? view.value("eventType"_L1).toString()
        : view.value("type"_L1).toString();
    const QString subject = view.value("subject"_L1).toString();
    const EventFilter &filter = subscription->filter;
    const bool matched = FilterEvaluator::matches(filter, eventType, subject, view);

    for (const AdvancedFilter &advanced : filter.advancedFilters) {
        const std::optional<FilterOperator> negated = negation(advanced.op);
        if (!negated)
            continue;
        AdvancedFilter opposite = advanced;
        opposite.op = *negated;
        Fuzz::require(FilterEvaluator::matchesAdvanced(advanced, view)
                          != FilterEvaluator::matchesAdvanced(opposite, view),
                      "a negated operator is the opposite of its positive counterpart",
                      filterOperatorName(advanced.op) + u" on "_s + advanced.key);
    }

    // Through the bytes of the file, as WorkspaceFolder writes and reads workspace.json.
    const QJsonObject saved = eventSubscriptionToArm(subscription.value());
    const QJsonDocument savedDocument
        = QJsonDocument::fromJson(QJsonDocument(saved).toJson(QJsonDocument::Indented));
    const Expected<EventSubscription> reloaded
        = eventSubscriptionFromArm(savedDocument.object(), s_path, EventSchema::EventGrid);
    Fuzz::require(reloaded.hasValue(), "a saved filter loads again",
                  reloaded.error() + u"\n"_s + compactJson(saved));
    Fuzz::require(eventSubscriptionToArm(reloaded.value()) == saved,
                  "a saved filter saves to the same JSON", compactJson(saved));
    Fuzz::require(FilterEvaluator::matches(reloaded->filter, eventType, subject, view) == matched,
                  "a saved filter matches as before", compactJson(saved));
    return 0;
}
