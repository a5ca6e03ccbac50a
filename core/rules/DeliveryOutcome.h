// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>

#include <optional>

namespace EventDesk {

// SPEC §7: lastDeliveryOutcome. Names are the Event Grid spellings (deliveryOutcomeName).
enum class DeliveryOutcome {
    Delivered, // success (not an Event Grid outcome name for failures; "Delivered")
    NotFound,
    Unauthorized,
    Forbidden,
    BadRequest,
    PayloadTooLarge,
    TimedOut,
    Busy,
    SocketError,
    ResolutionError,
    Probation,
    Canceled,
    Aborted,
    GenericError,
    Delivering,
    Disabled,
    Full,
    SessionQueueNotSupported,
    InvalidAzureFunctionDestination,
    // Decision (issue "a webhook that starts after EventDesk"): never attempted because the
    // subscription's endpoint was not validated yet (Creating, AwaitingManualActionValidation),
    // or because its validation ended Failed. Appended: the store keeps these as numbers.
    EndpointValidationPending,
    EndpointValidationFailed,
    // Decision (docs/eventdeskd.md "Secrets"): never attempted because a secret the subscription
    // needs was still being asked of the system keychain when its time to live ran out. Appended.
    KeychainPending,
};

QString deliveryOutcomeName(DeliveryOutcome outcome);
std::optional<DeliveryOutcome> deliveryOutcomeFromName(const QString &name);

// SPEC L7: why a delivery left the retry loop without being delivered.
enum class DeadLetterReason {
    None,
    MaxDeliveryAttemptsExceeded,
    TimeToLiveExceeded,
    UndeliverableDueToHttpBadRequest, // 400
    UndeliverableDueToHttpUnauthorized, // 401
    UndeliverableDueToHttpForbidden, // 403
    UndeliverableDueToHttpPayloadTooLarge, // 413
    UndeliverableDueToHttpDisabled, // probation caused by Disabled (non-webhook outcome)
    UndeliverableDueToHttpFull,
    UndeliverableDueToHttpInvalidAzureFunctionDestination,
    // Drop-only reasons (never written to a dead-letter record):
    DeadLetterDestinationUnavailable, // SPEC L4: 4 h without a successful write
    SubscriptionDeleted,
    // Decision: the endpoint's validation ended Failed while the delivery waited for it
    // (lastDeliveryOutcome EndpointValidationFailed). Appended: stored as a number.
    EndpointValidationFailed,
};

QString deadLetterReasonName(DeadLetterReason reason);
std::optional<DeadLetterReason> deadLetterReasonFromName(const QString &name);

// What finally happened to a delivery (SPEC §1 fates) or where it is now.
enum class DeliveryState {
    Pending = 0,
    InFlight = 1,
    DeadLetterPending = 2,
    Delivered = 3,
    DeadLettered = 4,
    Dropped = 5,
};

QString deliveryStateName(DeliveryState state);

} // namespace EventDesk
