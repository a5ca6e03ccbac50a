// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../model/DeliveryDestination.h"
#include "DeliveryOutcome.h"

#include <QByteArrayView>
#include <QNetworkReply>

namespace EventDesk {

// SPEC D5, §7, R2: HTTP status / network error -> outcome, and which outcomes are retried.
class OutcomeClassifier final
{
public:
    // D5: exactly 200, 201, 202, 203, 204.
    static bool isSuccessStatus(int httpStatus);

    // httpStatus 0 = no HTTP response was received; then networkError decides.
    static DeliveryOutcome classify(int httpStatus, QNetworkReply::NetworkError networkError);
    // The same for a destination type: Azure's services answer some failures with a status that
    // is ambiguous on its own (Service Bus: 403 for a full entity and for a message too large),
    // and name the cause in errorDetail (the x-ms-error-code header and the start of the body).
    // SPEC §7: Disabled, Full, SessionQueueNotSupported and InvalidAzureFunctionDestination come
    // from here only.
    static DeliveryOutcome classify(DestinationType type, int httpStatus,
                                    QNetworkReply::NetworkError networkError,
                                    QByteArrayView errorDetail);

    // R2: 400, 401, 403, 413 for webhooks (404 is retried); for the other destinations also the
    // outcomes that say the destination refuses to take events at all: Disabled, Full and
    // InvalidAzureFunctionDestination (the no-retry class of SPEC P3).
    static bool isNoRetry(DeliveryOutcome outcome);

    // R2 reasons: BadRequest -> UndeliverableDueToHttpBadRequest, etc. None for retried outcomes.
    static DeadLetterReason noRetryReason(DeliveryOutcome outcome);
};

} // namespace EventDesk
