// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "rules/DeliveryOutcome.h"
#include "rules/OutcomeClassifier.h"
#include "rules/RetryPlanner.h"

#include <QNetworkReply>
#include <QTest>

using namespace EventDesk;
using namespace Qt::StringLiterals;

namespace {
constexpr qint64 SecondMs = 1000;
constexpr qint64 MinuteMs = 60 * SecondMs;
} // namespace

// SPEC D5, §7, R2, R4: status / network error -> outcome -> retry or not -> minimum wait.
class TestOutcomes final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void d5_isSuccessStatus_data();
    void d5_isSuccessStatus();
    // SPEC §7: answer -> outcome.
    void classifyHttpStatus_data();
    void classifyHttpStatus();
    void classifyNetworkError_data();
    void classifyNetworkError();
    void classifyDestinationAnswer_data();
    void classifyDestinationAnswer();
    void r2_noRetryReason_data();
    void r2_noRetryReason();
    // SPEC §7: the outcomes' names.
    void outcomeNames_data();
    void outcomeNames();
    void outcomeFromUnknownName();
    void l7_deadLetterReasonNames_data();
    void l7_deadLetterReasonNames();
    void deliveryStateNames_data();
    void deliveryStateNames();
};

void TestOutcomes::d5_isSuccessStatus_data()
{
    QTest::addColumn<int>("status");
    QTest::addColumn<bool>("success");
    QTest::newRow("199") << 199 << false;
    QTest::newRow("200") << 200 << true;
    QTest::newRow("201") << 201 << true;
    QTest::newRow("202") << 202 << true;
    QTest::newRow("203") << 203 << true;
    QTest::newRow("204") << 204 << true;
    QTest::newRow("205") << 205 << false;
    QTest::newRow("206") << 206 << false;
    QTest::newRow("301") << 301 << false;
    QTest::newRow("0") << 0 << false;
}

void TestOutcomes::d5_isSuccessStatus()
{
    QFETCH(int, status);
    QFETCH(bool, success);
    QCOMPARE(OutcomeClassifier::isSuccessStatus(status), success);
}

void TestOutcomes::classifyHttpStatus_data()
{
    // The full chain of §7's table: status -> outcome -> no-retry (R2) -> minimum wait (R4).
    QTest::addColumn<int>("status");
    QTest::addColumn<DeliveryOutcome>("outcome");
    QTest::addColumn<bool>("noRetry");
    QTest::addColumn<qint64>("minimumWaitMs");

    const qint64 tenSeconds = 10 * SecondMs;
    for (int status = 200; status <= 204; ++status) {
        QTest::addRow("%d delivered", status)
            << status << DeliveryOutcome::Delivered << false << tenSeconds;
    }
    QTest::newRow("205 is a failure (D5)")
        << 205 << DeliveryOutcome::GenericError << false << tenSeconds;
    QTest::newRow("301 (D5: 3xx fails)")
        << 301 << DeliveryOutcome::GenericError << false << tenSeconds;
    QTest::newRow("302") << 302 << DeliveryOutcome::GenericError << false << tenSeconds;
    QTest::newRow("304") << 304 << DeliveryOutcome::GenericError << false << tenSeconds;
    QTest::newRow("400") << 400 << DeliveryOutcome::BadRequest << true << tenSeconds;
    QTest::newRow("401") << 401 << DeliveryOutcome::Unauthorized << true << tenSeconds;
    QTest::newRow("403") << 403 << DeliveryOutcome::Forbidden << true << tenSeconds;
    QTest::newRow("404 retried (R2 decision)")
        << 404 << DeliveryOutcome::NotFound << false << 5 * MinuteMs;
    QTest::newRow("408") << 408 << DeliveryOutcome::TimedOut << false << 2 * MinuteMs;
    QTest::newRow("413") << 413 << DeliveryOutcome::PayloadTooLarge << true << tenSeconds;
    QTest::newRow("429") << 429 << DeliveryOutcome::Busy << false << tenSeconds;
    QTest::newRow("500") << 500 << DeliveryOutcome::GenericError << false << tenSeconds;
    QTest::newRow("502") << 502 << DeliveryOutcome::GenericError << false << tenSeconds;
    QTest::newRow("503") << 503 << DeliveryOutcome::Busy << false << 30 * SecondMs;
    QTest::newRow("504") << 504 << DeliveryOutcome::GenericError << false << tenSeconds;
    QTest::newRow("418") << 418 << DeliveryOutcome::GenericError << false << tenSeconds;
}

void TestOutcomes::classifyHttpStatus()
{
    QFETCH(int, status);
    QFETCH(DeliveryOutcome, outcome);
    QFETCH(bool, noRetry);
    QFETCH(qint64, minimumWaitMs);

    // The status decides, whatever error QNetworkReply reports alongside it.
    QCOMPARE(OutcomeClassifier::classify(status, QNetworkReply::NoError), outcome);
    QCOMPARE(OutcomeClassifier::classify(status, QNetworkReply::ContentNotFoundError), outcome);
    QCOMPARE(OutcomeClassifier::classify(status, QNetworkReply::InternalServerError), outcome);
    QCOMPARE(OutcomeClassifier::isNoRetry(outcome), noRetry);
    QCOMPARE(RetryPlanner::minimumWaitMs(status), minimumWaitMs);
}

void TestOutcomes::classifyNetworkError_data()
{
    QTest::addColumn<QNetworkReply::NetworkError>("error");
    QTest::addColumn<DeliveryOutcome>("outcome");

    QTest::newRow("host not found")
        << QNetworkReply::HostNotFoundError << DeliveryOutcome::ResolutionError;
    QTest::newRow("timeout") << QNetworkReply::TimeoutError << DeliveryOutcome::TimedOut;
    QTest::newRow("canceled") << QNetworkReply::OperationCanceledError << DeliveryOutcome::Canceled;
    QTest::newRow("refused") << QNetworkReply::ConnectionRefusedError
                             << DeliveryOutcome::SocketError;
    QTest::newRow("closed") << QNetworkReply::RemoteHostClosedError << DeliveryOutcome::SocketError;
    QTest::newRow("tls") << QNetworkReply::SslHandshakeFailedError << DeliveryOutcome::SocketError;
    QTest::newRow("temporary") << QNetworkReply::TemporaryNetworkFailureError
                               << DeliveryOutcome::SocketError;
    QTest::newRow("session") << QNetworkReply::NetworkSessionFailedError
                             << DeliveryOutcome::SocketError;
    QTest::newRow("unknown network")
        << QNetworkReply::UnknownNetworkError << DeliveryOutcome::SocketError;
    QTest::newRow("proxy refused")
        << QNetworkReply::ProxyConnectionRefusedError << DeliveryOutcome::SocketError;
    QTest::newRow("proxy closed") << QNetworkReply::ProxyConnectionClosedError
                                  << DeliveryOutcome::SocketError;
    QTest::newRow("proxy not found")
        << QNetworkReply::ProxyNotFoundError << DeliveryOutcome::SocketError;
    QTest::newRow("protocol") << QNetworkReply::ProtocolFailure << DeliveryOutcome::SocketError;
    QTest::newRow("no error, no status") << QNetworkReply::NoError << DeliveryOutcome::SocketError;
}

void TestOutcomes::classifyNetworkError()
{
    QFETCH(QNetworkReply::NetworkError, error);
    QFETCH(DeliveryOutcome, outcome);
    QCOMPARE(OutcomeClassifier::classify(0, error), outcome);
    QVERIFY(!OutcomeClassifier::isNoRetry(outcome));
}

void TestOutcomes::classifyDestinationAnswer_data()
{
    // Issue 18: the answers of Azure destinations, as their REST APIs document them (status, the
    // x-ms-error-code header and the start of the body), to outcomes, and whether they are retried.
    QTest::addColumn<DestinationType>("type");
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("detail");
    QTest::addColumn<DeliveryOutcome>("outcome");
    QTest::addColumn<bool>("noRetry");

    const auto queue = DestinationType::StorageQueue;
    QTest::newRow("queue 201") << queue << 201 << QByteArray() << DeliveryOutcome::Delivered << false;
    QTest::newRow("queue missing")
        << queue << 404 << "QueueNotFound\n<?xml ...><Code>QueueNotFound</Code>"_ba
        << DeliveryOutcome::NotFound << false;
    QTest::newRow("queue wrong key")
        << queue << 403 << "AuthenticationFailed\n"_ba << DeliveryOutcome::Unauthorized << true;
    QTest::newRow("queue no permission")
        << queue << 403 << "AuthorizationFailure\n"_ba << DeliveryOutcome::Unauthorized << true;
    QTest::newRow("queue message too large")
        << queue << 400 << "RequestBodyTooLarge\n"_ba << DeliveryOutcome::PayloadTooLarge << true;
    QTest::newRow("queue 413") << queue << 413 << QByteArray() << DeliveryOutcome::PayloadTooLarge
                               << true;
    QTest::newRow("queue account disabled")
        << queue << 403 << "AccountIsDisabled\n"_ba << DeliveryOutcome::Disabled << true;
    QTest::newRow("queue busy") << queue << 503 << "ServerBusy\n"_ba << DeliveryOutcome::Busy
                                << false;
    QTest::newRow("queue internal") << queue << 500 << "InternalError\n"_ba
                                    << DeliveryOutcome::GenericError << false;
    QTest::newRow("queue bad request") << queue << 400 << "InvalidXmlDocument\n"_ba
                                       << DeliveryOutcome::BadRequest << true;

    const auto bus = DestinationType::ServiceBusQueue;
    QTest::newRow("bus 201") << bus << 201 << QByteArray() << DeliveryOutcome::Delivered << false;
    QTest::newRow("bus quota")
        << bus << 403
        << "<Error><Code>403</Code><Detail>QuotaExceeded: the maximum entity size has been reached</Detail></Error>"_ba
        << DeliveryOutcome::Full << true;
    QTest::newRow("bus message too large")
        << bus << 403
        << "<Error><Code>403</Code><Detail>The message size exceeds the limit. MessageSizeExceeded</Detail></Error>"_ba
        << DeliveryOutcome::PayloadTooLarge << true;
    QTest::newRow("bus 413") << bus << 413 << QByteArray() << DeliveryOutcome::PayloadTooLarge
                             << true;
    QTest::newRow("bus disabled")
        << bus << 403
        << "<Error><Code>403</Code><Detail>Messaging entity 'shop:queue:orders' is currently disabled.</Detail></Error>"_ba
        << DeliveryOutcome::Disabled << true;
    QTest::newRow("bus session")
        << bus << 400
        << "<Error><Code>400</Code><Detail>The SessionId was not set on a message, and it cannot be sent to the entity. Entities that have session support enabled can only receive messages that have the SessionId set.</Detail></Error>"_ba
        << DeliveryOutcome::SessionQueueNotSupported << false;
    QTest::newRow("bus gone") << bus << 410 << QByteArray() << DeliveryOutcome::NotFound << false;
    QTest::newRow("bus 404") << bus << 404 << QByteArray() << DeliveryOutcome::NotFound << false;
    QTest::newRow("bus unauthorized")
        << bus << 401 << "<Error><Code>401</Code><Detail>InvalidSignature</Detail></Error>"_ba
        << DeliveryOutcome::Unauthorized << true;
    QTest::newRow("bus other 403") << bus << 403 << "<Error><Code>403</Code></Error>"_ba
                                   << DeliveryOutcome::Forbidden << true;
    QTest::newRow("bus busy") << bus << 503 << QByteArray() << DeliveryOutcome::Busy << false;
    QTest::newRow("bus internal") << bus << 500 << QByteArray() << DeliveryOutcome::GenericError
                                  << false;
    QTest::newRow("topic quota") << DestinationType::ServiceBusTopic << 403 << "QuotaExceeded"_ba
                                 << DeliveryOutcome::Full << true;

    const auto hub = DestinationType::EventHub;
    QTest::newRow("hub 201") << hub << 201 << QByteArray() << DeliveryOutcome::Delivered << false;
    QTest::newRow("hub quota") << hub << 403 << "QuotaExceeded"_ba << DeliveryOutcome::Full << true;
    QTest::newRow("hub disabled") << hub << 403 << "entity is disabled"_ba
                                  << DeliveryOutcome::Disabled << true;
    QTest::newRow("hub 400 session is a bad request")
        << hub << 400 << "session"_ba << DeliveryOutcome::BadRequest << true;

    const auto function = DestinationType::AzureFunction;
    QTest::newRow("function 200") << function << 200 << QByteArray() << DeliveryOutcome::Delivered
                                  << false;
    QTest::newRow("function not an Event Grid trigger")
        << function << 404 << QByteArray() << DeliveryOutcome::InvalidAzureFunctionDestination
        << true;
    QTest::newRow("function 500") << function << 500 << QByteArray()
                                  << DeliveryOutcome::GenericError << false;

    const auto webhook = DestinationType::WebHook;
    QTest::newRow("webhook 404 stays NotFound")
        << webhook << 404 << "QueueNotFound"_ba << DeliveryOutcome::NotFound << false;
    QTest::newRow("webhook 403 stays Forbidden")
        << webhook << 403 << "QuotaExceeded"_ba << DeliveryOutcome::Forbidden << true;
}

void TestOutcomes::classifyDestinationAnswer()
{
    QFETCH(DestinationType, type);
    QFETCH(int, status);
    QFETCH(QByteArray, detail);
    QFETCH(DeliveryOutcome, outcome);
    QFETCH(bool, noRetry);
    QCOMPARE(OutcomeClassifier::classify(type, status, QNetworkReply::NoError, detail), outcome);
    QCOMPARE(OutcomeClassifier::isNoRetry(outcome), noRetry);
    // Without an answer the transport decides, for every type alike.
    QCOMPARE(OutcomeClassifier::classify(type, 0, QNetworkReply::ConnectionRefusedError, detail),
             DeliveryOutcome::SocketError);
}

void TestOutcomes::r2_noRetryReason_data()
{
    QTest::addColumn<DeliveryOutcome>("outcome");
    QTest::addColumn<DeadLetterReason>("reason");

    QTest::newRow("BadRequest") << DeliveryOutcome::BadRequest
                                << DeadLetterReason::UndeliverableDueToHttpBadRequest;
    QTest::newRow("Unauthorized") << DeliveryOutcome::Unauthorized
                                  << DeadLetterReason::UndeliverableDueToHttpUnauthorized;
    QTest::newRow("Forbidden") << DeliveryOutcome::Forbidden
                               << DeadLetterReason::UndeliverableDueToHttpForbidden;
    QTest::newRow("PayloadTooLarge") << DeliveryOutcome::PayloadTooLarge
                                     << DeadLetterReason::UndeliverableDueToHttpPayloadTooLarge;
    // SPEC P3: no-retry-class probation causes name their own reason.
    QTest::newRow("Disabled") << DeliveryOutcome::Disabled
                              << DeadLetterReason::UndeliverableDueToHttpDisabled;
    QTest::newRow("Full") << DeliveryOutcome::Full << DeadLetterReason::UndeliverableDueToHttpFull;
    QTest::newRow("InvalidAzureFunctionDestination")
        << DeliveryOutcome::InvalidAzureFunctionDestination
        << DeadLetterReason::UndeliverableDueToHttpInvalidAzureFunctionDestination;
    QTest::newRow("NotFound retried") << DeliveryOutcome::NotFound << DeadLetterReason::None;
    QTest::newRow("Busy retried") << DeliveryOutcome::Busy << DeadLetterReason::None;
    QTest::newRow("GenericError retried")
        << DeliveryOutcome::GenericError << DeadLetterReason::None;
    QTest::newRow("TimedOut retried") << DeliveryOutcome::TimedOut << DeadLetterReason::None;
}

void TestOutcomes::r2_noRetryReason()
{
    QFETCH(DeliveryOutcome, outcome);
    QFETCH(DeadLetterReason, reason);
    QCOMPARE(OutcomeClassifier::noRetryReason(outcome), reason);
}

void TestOutcomes::outcomeNames_data()
{
    QTest::addColumn<DeliveryOutcome>("outcome");
    QTest::addColumn<QString>("name");

    QTest::newRow("Delivered") << DeliveryOutcome::Delivered << u"Delivered"_s;
    QTest::newRow("NotFound") << DeliveryOutcome::NotFound << u"NotFound"_s;
    QTest::newRow("Unauthorized") << DeliveryOutcome::Unauthorized << u"Unauthorized"_s;
    QTest::newRow("Forbidden") << DeliveryOutcome::Forbidden << u"Forbidden"_s;
    QTest::newRow("BadRequest") << DeliveryOutcome::BadRequest << u"BadRequest"_s;
    QTest::newRow("PayloadTooLarge") << DeliveryOutcome::PayloadTooLarge << u"PayloadTooLarge"_s;
    QTest::newRow("TimedOut") << DeliveryOutcome::TimedOut << u"TimedOut"_s;
    QTest::newRow("Busy") << DeliveryOutcome::Busy << u"Busy"_s;
    QTest::newRow("SocketError") << DeliveryOutcome::SocketError << u"SocketError"_s;
    QTest::newRow("ResolutionError") << DeliveryOutcome::ResolutionError << u"ResolutionError"_s;
    QTest::newRow("Probation") << DeliveryOutcome::Probation << u"Probation"_s;
    QTest::newRow("Canceled") << DeliveryOutcome::Canceled << u"Canceled"_s;
    QTest::newRow("Aborted") << DeliveryOutcome::Aborted << u"Aborted"_s;
    QTest::newRow("GenericError") << DeliveryOutcome::GenericError << u"GenericError"_s;
    QTest::newRow("Delivering") << DeliveryOutcome::Delivering << u"Delivering"_s;
    QTest::newRow("Disabled") << DeliveryOutcome::Disabled << u"Disabled"_s;
    QTest::newRow("Full") << DeliveryOutcome::Full << u"Full"_s;
    QTest::newRow("SessionQueueNotSupported")
        << DeliveryOutcome::SessionQueueNotSupported << u"SessionQueueNotSupported"_s;
    QTest::newRow("InvalidAzureFunctionDestination")
        << DeliveryOutcome::InvalidAzureFunctionDestination << u"InvalidAzureFunctionDestination"_s;
    QTest::newRow("EndpointValidationPending")
        << DeliveryOutcome::EndpointValidationPending << u"EndpointValidationPending"_s;
    QTest::newRow("EndpointValidationFailed")
        << DeliveryOutcome::EndpointValidationFailed << u"EndpointValidationFailed"_s;
}

void TestOutcomes::outcomeNames()
{
    QFETCH(DeliveryOutcome, outcome);
    QFETCH(QString, name);
    QCOMPARE(deliveryOutcomeName(outcome), name);
    QCOMPARE(deliveryOutcomeFromName(name), std::optional<DeliveryOutcome>(outcome));
}

void TestOutcomes::outcomeFromUnknownName()
{
    QCOMPARE(deliveryOutcomeFromName(u"NoSuchOutcome"_s), std::nullopt);
    QCOMPARE(deliveryOutcomeFromName(QString()), std::nullopt);
    // The names are exact spellings.
    QCOMPARE(deliveryOutcomeFromName(u"notfound"_s), std::nullopt);
    QCOMPARE(deadLetterReasonFromName(u"timetoliveexceeded"_s), std::nullopt);
}

void TestOutcomes::l7_deadLetterReasonNames_data()
{
    QTest::addColumn<DeadLetterReason>("reason");
    QTest::addColumn<QString>("name");

    QTest::newRow("None") << DeadLetterReason::None << u"None"_s;
    QTest::newRow("MaxDeliveryAttemptsExceeded")
        << DeadLetterReason::MaxDeliveryAttemptsExceeded << u"MaxDeliveryAttemptsExceeded"_s;
    QTest::newRow("TimeToLiveExceeded")
        << DeadLetterReason::TimeToLiveExceeded << u"TimeToLiveExceeded"_s;
    QTest::newRow("BadRequest") << DeadLetterReason::UndeliverableDueToHttpBadRequest
                                << u"UndeliverableDueToHttpBadRequest"_s;
    QTest::newRow("Unauthorized") << DeadLetterReason::UndeliverableDueToHttpUnauthorized
                                  << u"UndeliverableDueToHttpUnauthorized"_s;
    QTest::newRow("Forbidden") << DeadLetterReason::UndeliverableDueToHttpForbidden
                               << u"UndeliverableDueToHttpForbidden"_s;
    QTest::newRow("PayloadTooLarge") << DeadLetterReason::UndeliverableDueToHttpPayloadTooLarge
                                     << u"UndeliverableDueToHttpPayloadTooLarge"_s;
    QTest::newRow("Disabled") << DeadLetterReason::UndeliverableDueToHttpDisabled
                              << u"UndeliverableDueToHttpDisabled"_s;
    QTest::newRow("Full") << DeadLetterReason::UndeliverableDueToHttpFull
                          << u"UndeliverableDueToHttpFull"_s;
    QTest::newRow("InvalidAzureFunctionDestination")
        << DeadLetterReason::UndeliverableDueToHttpInvalidAzureFunctionDestination
        << u"UndeliverableDueToHttpInvalidAzureFunctionDestination"_s;
    QTest::newRow("DeadLetterDestinationUnavailable")
        << DeadLetterReason::DeadLetterDestinationUnavailable
        << u"DeadLetterDestinationUnavailable"_s;
    QTest::newRow("SubscriptionDeleted")
        << DeadLetterReason::SubscriptionDeleted << u"SubscriptionDeleted"_s;
    QTest::newRow("EndpointValidationFailed")
        << DeadLetterReason::EndpointValidationFailed << u"EndpointValidationFailed"_s;
}

void TestOutcomes::l7_deadLetterReasonNames()
{
    QFETCH(DeadLetterReason, reason);
    QFETCH(QString, name);
    QCOMPARE(deadLetterReasonName(reason), name);
    QCOMPARE(deadLetterReasonFromName(name), std::optional<DeadLetterReason>(reason));
}

void TestOutcomes::deliveryStateNames_data()
{
    QTest::addColumn<DeliveryState>("state");
    QTest::addColumn<QString>("name");

    QTest::newRow("Pending") << DeliveryState::Pending << u"Pending"_s;
    QTest::newRow("InFlight") << DeliveryState::InFlight << u"InFlight"_s;
    QTest::newRow("DeadLetterPending")
        << DeliveryState::DeadLetterPending << u"DeadLetterPending"_s;
    QTest::newRow("Delivered") << DeliveryState::Delivered << u"Delivered"_s;
    QTest::newRow("DeadLettered") << DeliveryState::DeadLettered << u"DeadLettered"_s;
    QTest::newRow("Dropped") << DeliveryState::Dropped << u"Dropped"_s;
}

void TestOutcomes::deliveryStateNames()
{
    QFETCH(DeliveryState, state);
    QFETCH(QString, name);
    QCOMPARE(deliveryStateName(state), name);
}

QTEST_GUILESS_MAIN(TestOutcomes)
#include "tst_outcomes.moc"
