// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "model/DeliveryDestination.h"
#include "rules/DeliveryOutcome.h"

#include <QByteArray>
#include <QList>
#include <QNetworkReply>
#include <QString>

namespace EventDesk::Ui {

// How the destination fails on every attempt, in the retry timeline preview. The values are
// stable: the preview keeps the chosen mode when the destination type changes, if the new type
// has it.
enum class FailureMode {
    Always500,
    Always503,
    Always404,
    Timeout,
    Always400,
    Always401,
    Always403,
    Always413,
    Always408,
    Always429,
    ConnectionRefused,
    HostNotFound,
    EntityGone, // Service Bus, Event Hubs: 410
    Disabled, // Storage: AccountIsDisabled; Service Bus, Event Hubs: the entity is disabled
    QuotaExceeded, // Service Bus, Event Hubs: the entity is full
    SessionRequired, // Service Bus: a session-enabled entity refuses a message without SessionId
};

// One failure mode as a destination of one type shows it: its service's answer (status and error
// code), a network failure or no answer at all. What that means for delivery is the engine's:
// outcome comes from OutcomeClassifier, and everything else the preview says about it (retried or
// not, the minimum wait, the probation) is asked of the rules, never restated here.
struct FailureAnswer
{
    FailureMode mode = FailureMode::Always500;
    int httpStatus = 0; // 0: no HTTP answer
    QByteArray errorDetail; // the service's error code, as OutcomeClassifier reads it
    QString detailText; // how the preview names errorDetail ("QueueNotFound", ...)
    QNetworkReply::NetworkError networkError = QNetworkReply::NoError;
    qint64 responseMs = 0; // from sending to the failure (SPEC D6: 30 s for a timeout)
    DeliveryOutcome outcome = DeliveryOutcome::GenericError;
};

namespace FailureModes {

// The failure modes a destination of type can show, in the order the preview offers them: the
// retried ones first, then those that are not retried.
QList<FailureAnswer> of(DestinationType type);
// mode as type shows it; the first mode of type when type does not have it.
FailureAnswer answer(DestinationType type, FailureMode mode);

// The answer alone: "403 AuthenticationFailed", "No answer in 30 s", "Connection refused".
QString answerText(const FailureAnswer &answer);
// The answer as a failure mode, with what the classifier makes of it: "Always 400 (BadRequest, no
// retry)", "Always 404 QueueNotFound (NotFound)", "Connection refused (SocketError)".
QString text(const FailureAnswer &answer);

// A rule in a few words, and in full with the SPEC rule it is.
struct Rule
{
    QString brief;
    QString detail;
};
// Whether the engine retries answer (SPEC R2), and at least how far apart (R4).
Rule retryRule(const FailureAnswer &answer);
// How long a probation answer causes (SPEC P1), and what happens to events meanwhile (P3).
Rule probationRule(const FailureAnswer &answer);

} // namespace FailureModes

} // namespace EventDesk::Ui
