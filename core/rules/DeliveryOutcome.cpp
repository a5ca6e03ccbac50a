// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "DeliveryOutcome.h"

using namespace Qt::StringLiterals;

namespace EventDesk {

QString deliveryOutcomeName(DeliveryOutcome outcome)
{
    // SPEC §7: the names are the Event Grid spellings, identical to the enumerators.
    switch (outcome) {
    case DeliveryOutcome::Delivered:
        return u"Delivered"_s;
    case DeliveryOutcome::NotFound:
        return u"NotFound"_s;
    case DeliveryOutcome::Unauthorized:
        return u"Unauthorized"_s;
    case DeliveryOutcome::Forbidden:
        return u"Forbidden"_s;
    case DeliveryOutcome::BadRequest:
        return u"BadRequest"_s;
    case DeliveryOutcome::PayloadTooLarge:
        return u"PayloadTooLarge"_s;
    case DeliveryOutcome::TimedOut:
        return u"TimedOut"_s;
    case DeliveryOutcome::Busy:
        return u"Busy"_s;
    case DeliveryOutcome::SocketError:
        return u"SocketError"_s;
    case DeliveryOutcome::ResolutionError:
        return u"ResolutionError"_s;
    case DeliveryOutcome::Probation:
        return u"Probation"_s;
    case DeliveryOutcome::Canceled:
        return u"Canceled"_s;
    case DeliveryOutcome::Aborted:
        return u"Aborted"_s;
    case DeliveryOutcome::GenericError:
        return u"GenericError"_s;
    case DeliveryOutcome::Delivering:
        return u"Delivering"_s;
    case DeliveryOutcome::Disabled:
        return u"Disabled"_s;
    case DeliveryOutcome::Full:
        return u"Full"_s;
    case DeliveryOutcome::SessionQueueNotSupported:
        return u"SessionQueueNotSupported"_s;
    case DeliveryOutcome::InvalidAzureFunctionDestination:
        return u"InvalidAzureFunctionDestination"_s;
    case DeliveryOutcome::EndpointValidationPending:
        return u"EndpointValidationPending"_s;
    case DeliveryOutcome::EndpointValidationFailed:
        return u"EndpointValidationFailed"_s;
    case DeliveryOutcome::KeychainPending:
        return u"KeychainPending"_s;
    }
    return QString();
}

std::optional<DeliveryOutcome> deliveryOutcomeFromName(const QString &name)
{
    const int last = static_cast<int>(DeliveryOutcome::KeychainPending);
    for (int value = 0; value <= last; ++value) {
        const auto outcome = static_cast<DeliveryOutcome>(value);
        if (deliveryOutcomeName(outcome) == name)
            return outcome;
    }
    return std::nullopt;
}

QString deadLetterReasonName(DeadLetterReason reason)
{
    // SPEC L7: reason names as written into dead-letter records.
    switch (reason) {
    case DeadLetterReason::None:
        return u"None"_s;
    case DeadLetterReason::MaxDeliveryAttemptsExceeded:
        return u"MaxDeliveryAttemptsExceeded"_s;
    case DeadLetterReason::TimeToLiveExceeded:
        return u"TimeToLiveExceeded"_s;
    case DeadLetterReason::UndeliverableDueToHttpBadRequest:
        return u"UndeliverableDueToHttpBadRequest"_s;
    case DeadLetterReason::UndeliverableDueToHttpUnauthorized:
        return u"UndeliverableDueToHttpUnauthorized"_s;
    case DeadLetterReason::UndeliverableDueToHttpForbidden:
        return u"UndeliverableDueToHttpForbidden"_s;
    case DeadLetterReason::UndeliverableDueToHttpPayloadTooLarge:
        return u"UndeliverableDueToHttpPayloadTooLarge"_s;
    case DeadLetterReason::UndeliverableDueToHttpDisabled:
        return u"UndeliverableDueToHttpDisabled"_s;
    case DeadLetterReason::UndeliverableDueToHttpFull:
        return u"UndeliverableDueToHttpFull"_s;
    case DeadLetterReason::UndeliverableDueToHttpInvalidAzureFunctionDestination:
        return u"UndeliverableDueToHttpInvalidAzureFunctionDestination"_s;
    case DeadLetterReason::DeadLetterDestinationUnavailable:
        return u"DeadLetterDestinationUnavailable"_s;
    case DeadLetterReason::SubscriptionDeleted:
        return u"SubscriptionDeleted"_s;
    case DeadLetterReason::EndpointValidationFailed:
        return u"EndpointValidationFailed"_s;
    }
    return QString();
}

std::optional<DeadLetterReason> deadLetterReasonFromName(const QString &name)
{
    const int last = static_cast<int>(DeadLetterReason::EndpointValidationFailed);
    for (int value = 0; value <= last; ++value) {
        const auto reason = static_cast<DeadLetterReason>(value);
        if (deadLetterReasonName(reason) == name)
            return reason;
    }
    return std::nullopt;
}

QString deliveryStateName(DeliveryState state)
{
    switch (state) {
    case DeliveryState::Pending:
        return u"Pending"_s;
    case DeliveryState::InFlight:
        return u"InFlight"_s;
    case DeliveryState::DeadLetterPending:
        return u"DeadLetterPending"_s;
    case DeliveryState::Delivered:
        return u"Delivered"_s;
    case DeliveryState::DeadLettered:
        return u"DeadLettered"_s;
    case DeliveryState::Dropped:
        return u"Dropped"_s;
    }
    return QString();
}

} // namespace EventDesk
