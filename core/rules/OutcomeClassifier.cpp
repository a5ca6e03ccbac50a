// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "OutcomeClassifier.h"

using namespace Qt::StringLiterals;

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

namespace {

bool mentions(QByteArrayView detail, QLatin1StringView word)
{
    return QLatin1StringView(detail.data(), detail.size()).contains(word, Qt::CaseInsensitive);
}

// Storage's queue service names every failure in x-ms-error-code ("QueueNotFound",
// "AuthenticationFailed", "RequestBodyTooLarge", "AccountIsDisabled", ...).
DeliveryOutcome classifyStorageQueue(int httpStatus, QByteArrayView detail)
{
    if (mentions(detail, "TooLarge"_L1) || httpStatus == 413)
        return DeliveryOutcome::PayloadTooLarge;
    if (mentions(detail, "Disabled"_L1))
        return DeliveryOutcome::Disabled;
    switch (httpStatus) {
    case 401:
    case 403:
        // A wrong or missing key is the usual 403 of Storage (AuthenticationFailed,
        // AuthorizationFailure): the destination refuses EventDesk's credentials.
        return DeliveryOutcome::Unauthorized;
    case 404:
        return DeliveryOutcome::NotFound; // QueueNotFound, or the account has no queue service
    default:
        return OutcomeClassifier::classify(httpStatus, QNetworkReply::NoError);
    }
}

// Service Bus and Event Hubs answer a send with 201, and document 400, 401, 403 ("quota exceeded
// or message too large"), 404 or 410 (no such entity), 413, 500 and 503; the body's detail tells
// the 403s apart.
DeliveryOutcome classifyMessaging(DestinationType type, int httpStatus, QByteArrayView detail)
{
    if (mentions(detail, "Disabled"_L1))
        return DeliveryOutcome::Disabled;
    if (mentions(detail, "QuotaExceeded"_L1) || mentions(detail, "quota"_L1))
        return DeliveryOutcome::Full;
    if (httpStatus == 413 || mentions(detail, "MessageSizeExceeded"_L1)
        || mentions(detail, "too large"_L1) || mentions(detail, "size exceeds"_L1))
        return DeliveryOutcome::PayloadTooLarge;
    if (type != DestinationType::EventHub && httpStatus == 400 && mentions(detail, "session"_L1))
        return DeliveryOutcome::SessionQueueNotSupported;
    switch (httpStatus) {
    case 404:
    case 410:
        return DeliveryOutcome::NotFound;
    default:
        return OutcomeClassifier::classify(httpStatus, QNetworkReply::NoError);
    }
}

} // namespace

DeliveryOutcome OutcomeClassifier::classify(DestinationType type, int httpStatus,
                                            QNetworkReply::NetworkError networkError,
                                            QByteArrayView errorDetail)
{
    if (httpStatus <= 0 || isSuccessStatus(httpStatus))
        return classify(httpStatus, networkError);
    switch (type) {
    case DestinationType::WebHook:
        return classify(httpStatus, networkError);
    case DestinationType::AzureFunction:
        // The Functions host's Event Grid webhook answers 404 for a function name that is not an
        // Event Grid trigger function running there.
        return httpStatus == 404 ? DeliveryOutcome::InvalidAzureFunctionDestination
                                 : classify(httpStatus, networkError);
    case DestinationType::StorageQueue:
        return classifyStorageQueue(httpStatus, errorDetail);
    case DestinationType::ServiceBusQueue:
    case DestinationType::ServiceBusTopic:
    case DestinationType::EventHub:
        return classifyMessaging(type, httpStatus, errorDetail);
    }
    return classify(httpStatus, networkError);
}

bool OutcomeClassifier::isNoRetry(DeliveryOutcome outcome)
{
    // SPEC R2: webhook no-retry errors are 400, 401, 403 and 413; 404 is retried. The no-retry
    // class of P3 (Disabled, Full, InvalidAzureFunctionDestination) is not retried either: only
    // destinations other than webhooks produce those.
    switch (outcome) {
    case DeliveryOutcome::BadRequest:
    case DeliveryOutcome::Unauthorized:
    case DeliveryOutcome::Forbidden:
    case DeliveryOutcome::PayloadTooLarge:
    case DeliveryOutcome::Disabled:
    case DeliveryOutcome::Full:
    case DeliveryOutcome::InvalidAzureFunctionDestination:
        return true;
    default:
        return false;
    }
}

DeadLetterReason OutcomeClassifier::noRetryReason(DeliveryOutcome outcome)
{
    // SPEC L7: UndeliverableDueToHttp<Reason>. Disabled, Full and InvalidAzureFunctionDestination
    // come from destinations other than webhooks (isNoRetry is true for them); they also name the
    // reason when a no-retry-class probation dead-letters deliveries (SPEC P3).
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
