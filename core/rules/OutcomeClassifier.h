#pragma once

#include "DeliveryOutcome.h"

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

    // R2: 400, 401, 403, 413 for webhooks (404 is retried).
    static bool isNoRetry(DeliveryOutcome outcome);

    // R2 reasons: BadRequest -> UndeliverableDueToHttpBadRequest, etc. None for retried outcomes.
    static DeadLetterReason noRetryReason(DeliveryOutcome outcome);
};

} // namespace EventDesk
