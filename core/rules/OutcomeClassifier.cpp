#include "OutcomeClassifier.h"

namespace EventDesk {

bool OutcomeClassifier::isSuccessStatus(int httpStatus)
{
    // SPEC D5: exactly 200..204; 205, 206 and every 3xx are failed attempts.
    return httpStatus >= 200 && httpStatus <= 204;
}

DeliveryOutcome OutcomeClassifier::classify(int httpStatus,
                                            QNetworkReply::NetworkError networkError)
{
    // An HTTP response, whatever QNetworkReply reports as its error, is decided by its status.
    if (httpStatus > 0) {
        if (isSuccessStatus(httpStatus))
            return DeliveryOutcome::Delivered;
        switch (httpStatus) {
        case 400:
            return DeliveryOutcome::BadRequest;
        case 401:
            return DeliveryOutcome::Unauthorized;
        case 403:
            return DeliveryOutcome::Forbidden;
        case 404:
            return DeliveryOutcome::NotFound;
        case 408:
            return DeliveryOutcome::TimedOut;
        case 413:
            return DeliveryOutcome::PayloadTooLarge;
        case 429:
        case 503:
            return DeliveryOutcome::Busy;
        default:
            // SPEC §7 decision: any other non-success status (3xx, 500, ...) is GenericError.
            return DeliveryOutcome::GenericError;
        }
    }

    switch (networkError) {
    case QNetworkReply::HostNotFoundError:
        return DeliveryOutcome::ResolutionError;
    case QNetworkReply::TimeoutError:
        return DeliveryOutcome::TimedOut;
    case QNetworkReply::OperationCanceledError:
        return DeliveryOutcome::Canceled;
    default:
        // Connection refused/reset/closed, TLS, proxy and protocol failures: the endpoint could
        // not be talked to (SPEC §7 SocketError).
        return DeliveryOutcome::SocketError;
    }
}

bool OutcomeClassifier::isNoRetry(DeliveryOutcome outcome)
{
    // SPEC R2: webhook no-retry errors are 400, 401, 403 and 413; 404 is retried.
    switch (outcome) {
    case DeliveryOutcome::BadRequest:
    case DeliveryOutcome::Unauthorized:
    case DeliveryOutcome::Forbidden:
    case DeliveryOutcome::PayloadTooLarge:
        return true;
    default:
        return false;
    }
}

DeadLetterReason OutcomeClassifier::noRetryReason(DeliveryOutcome outcome)
{
    // SPEC L7: UndeliverableDueToHttp<Reason>. Disabled, Full and
    // InvalidAzureFunctionDestination are not webhook outcomes (isNoRetry is false for them), but
    // they name the reason when a no-retry-class probation dead-letters deliveries (SPEC P3).
    switch (outcome) {
    case DeliveryOutcome::BadRequest:
        return DeadLetterReason::UndeliverableDueToHttpBadRequest;
    case DeliveryOutcome::Unauthorized:
        return DeadLetterReason::UndeliverableDueToHttpUnauthorized;
    case DeliveryOutcome::Forbidden:
        return DeadLetterReason::UndeliverableDueToHttpForbidden;
    case DeliveryOutcome::PayloadTooLarge:
        return DeadLetterReason::UndeliverableDueToHttpPayloadTooLarge;
    case DeliveryOutcome::Disabled:
        return DeadLetterReason::UndeliverableDueToHttpDisabled;
    case DeliveryOutcome::Full:
        return DeadLetterReason::UndeliverableDueToHttpFull;
    case DeliveryOutcome::InvalidAzureFunctionDestination:
        return DeadLetterReason::UndeliverableDueToHttpInvalidAzureFunctionDestination;
    default:
        return DeadLetterReason::None;
    }
}

} // namespace EventDesk
