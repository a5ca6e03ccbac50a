// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "FailureModes.h"

#include "common/Format.h"
#include "rules/OutcomeClassifier.h"
#include "rules/ProbationTracker.h"
#include "rules/RetryPlanner.h"

#include <QCoreApplication>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {

QString translate(const char *text)
{
    return QCoreApplication::translate("FailureModes", text);
}

FailureAnswer httpAnswer(DestinationType type, FailureMode mode, int status,
                         const QString &errorCode = {})
{
    FailureAnswer answer;
    answer.mode = mode;
    answer.httpStatus = status;
    answer.errorDetail = errorCode.toUtf8();
    answer.detailText = errorCode;
    answer.outcome
        = OutcomeClassifier::classify(type, status, QNetworkReply::NoError, answer.errorDetail);
    return answer;
}

FailureAnswer networkAnswer(DestinationType type, FailureMode mode,
                            QNetworkReply::NetworkError error, qint64 responseMs)
{
    FailureAnswer answer;
    answer.mode = mode;
    answer.networkError = error;
    answer.responseMs = responseMs;
    answer.outcome = OutcomeClassifier::classify(type, 0, error, {});
    return answer;
}

// What each service answers, as its documentation names it: the inputs of the rules. A queue's
// wrong key is Storage's 403 AuthenticationFailed, a full Service Bus entity a 403 that says
// QuotaExceeded, a function that is no Event Grid trigger the Functions host's 404.
QList<FailureAnswer> answersOf(DestinationType type)
{
    // SPEC D6: no answer within 30 s fails the attempt then.
    constexpr qint64 ResponseTimeoutMs = 30'000;
    QList<FailureAnswer> answers;
    const auto network = [&] {
        answers << networkAnswer(type, FailureMode::Timeout, QNetworkReply::TimeoutError,
                                 ResponseTimeoutMs)
                << networkAnswer(type, FailureMode::ConnectionRefused,
                                 QNetworkReply::ConnectionRefusedError, 0)
                << networkAnswer(type, FailureMode::HostNotFound, QNetworkReply::HostNotFoundError,
                                 0);
    };
    switch (type) {
    case DestinationType::WebHook:
    case DestinationType::AzureFunction:
        answers << httpAnswer(type, FailureMode::Always500, 500)
                << httpAnswer(type, FailureMode::Always503, 503)
                << httpAnswer(type, FailureMode::Always429, 429)
                << httpAnswer(type, FailureMode::Always408, 408)
                << httpAnswer(type, FailureMode::Always404, 404);
        network();
        answers << httpAnswer(type, FailureMode::Always400, 400)
                << httpAnswer(type, FailureMode::Always401, 401)
                << httpAnswer(type, FailureMode::Always403, 403)
                << httpAnswer(type, FailureMode::Always413, 413);
        break;
    case DestinationType::StorageQueue:
        answers << httpAnswer(type, FailureMode::Always500, 500, u"InternalError"_s)
                << httpAnswer(type, FailureMode::Always503, 503, u"ServerBusy"_s)
                << httpAnswer(type, FailureMode::Always404, 404, u"QueueNotFound"_s);
        network();
        answers << httpAnswer(type, FailureMode::Always400, 400)
                << httpAnswer(type, FailureMode::Always403, 403, u"AuthenticationFailed"_s)
                << httpAnswer(type, FailureMode::Always413, 413, u"RequestBodyTooLarge"_s)
                << httpAnswer(type, FailureMode::Disabled, 403, u"AccountIsDisabled"_s);
        break;
    case DestinationType::ServiceBusQueue:
    case DestinationType::ServiceBusTopic:
    case DestinationType::EventHub:
        answers << httpAnswer(type, FailureMode::Always500, 500)
                << httpAnswer(type, FailureMode::Always503, 503, u"ServerBusy"_s)
                << httpAnswer(type, FailureMode::Always404, 404)
                << httpAnswer(type, FailureMode::EntityGone, 410);
        if (type != DestinationType::EventHub)
            answers << httpAnswer(type, FailureMode::SessionRequired, 400, u"SessionId missing"_s);
        network();
        answers << httpAnswer(type, FailureMode::Always400, 400)
                << httpAnswer(type, FailureMode::Always401, 401)
                << httpAnswer(type, FailureMode::QuotaExceeded, 403, u"QuotaExceeded"_s)
                << httpAnswer(type, FailureMode::Disabled, 403, u"MessagingEntityDisabled"_s)
                << httpAnswer(type, FailureMode::Always413, 413);
        break;
    }
    return answers;
}

} // namespace

namespace FailureModes {

QList<FailureAnswer> of(DestinationType type)
{
    QList<FailureAnswer> answers = answersOf(type);
    // Whether an answer is retried is the classifier's word (a function's 404 is not retried, a
    // webhook's is), so the order follows it.
    std::stable_partition(answers.begin(), answers.end(), [](const FailureAnswer &answer) {
        return !OutcomeClassifier::isNoRetry(answer.outcome);
    });
    return answers;
}

FailureAnswer answer(DestinationType type, FailureMode mode)
{
    const QList<FailureAnswer> answers = of(type);
    for (const FailureAnswer &candidate : answers) {
        if (candidate.mode == mode)
            return candidate;
    }
    return answers.constFirst();
}

QString answerText(const FailureAnswer &answer)
{
    switch (answer.mode) {
    case FailureMode::Timeout:
        return translate("No answer in %1").arg(formatDuration(answer.responseMs));
    case FailureMode::ConnectionRefused:
        return translate("Connection refused");
    case FailureMode::HostNotFound:
        return translate("Host not found");
    default:
        break;
    }
    return answer.detailText.isEmpty() ? QString::number(answer.httpStatus)
                                       : u"%1 %2"_s.arg(answer.httpStatus).arg(answer.detailText);
}

QString text(const FailureAnswer &answer)
{
    const QString outcome = deliveryOutcomeName(answer.outcome)
        + (OutcomeClassifier::isNoRetry(answer.outcome) ? translate(", no retry") : QString());
    switch (answer.mode) {
    case FailureMode::Timeout:
        return translate("Timeout: no answer in %1 (%2)")
            .arg(formatDuration(answer.responseMs), outcome);
    case FailureMode::ConnectionRefused:
    case FailureMode::HostNotFound:
        return u"%1 (%2)"_s.arg(answerText(answer), outcome);
    default:
        return translate("Always %1 (%2)").arg(answerText(answer), outcome);
    }
}

Rule retryRule(const FailureAnswer &answer)
{
    if (OutcomeClassifier::isNoRetry(answer.outcome)) {
        const QString reason
            = deadLetterReasonName(OutcomeClassifier::noRetryReason(answer.outcome));
        return {translate("No: dead-lettered at once"),
                translate("SPEC R2: retrying cannot fix it. The event is dead-lettered at once "
                          "with deadLetterReason %1, or dropped without a dead-letter "
                          "destination.")
                    .arg(reason)};
    }
    const QString minimum = formatDuration(RetryPlanner::minimumWaitMs(answer.httpStatus));
    return {translate("Yes, ≥ %1 apart").arg(minimum),
            translate("SPEC R3, R4: retried on the schedule 10 s, 30 s, 1 min, 5 min, … with at "
                      "least %1 between attempts, until the attempts or the time to live run "
                      "out.")
                .arg(minimum)};
}

Rule probationRule(const FailureAnswer &answer)
{
    const qint64 durationMs = ProbationTracker::probationDurationMs(answer.outcome);
    if (!ProbationTracker::countsAsEndpointFailure(answer.outcome) || durationMs <= 0) {
        return {translate("None"),
                translate("SPEC P2: %1 says the event is at fault, not the destination; it does "
                          "not count towards probation.")
                    .arg(deliveryOutcomeName(answer.outcome))};
    }
    const QString duration = formatDuration(durationMs);
    if (ProbationTracker::isNoRetryClass(answer.outcome)) {
        return {translate("%1, due events dead-lettered").arg(duration),
                translate("SPEC P1, P3: after the probation threshold of consecutive failures, "
                          "nothing is sent for %1; events that come due meanwhile are "
                          "dead-lettered without an attempt (lastDeliveryOutcome Probation).")
                    .arg(duration)};
    }
    return {translate("%1, due events wait").arg(duration),
            translate("SPEC P1, P3: after the probation threshold of consecutive failures, "
                      "nothing is sent for %1; events that come due meanwhile wait for it to "
                      "end.")
                .arg(duration)};
}

} // namespace FailureModes

} // namespace EventDesk::Ui
