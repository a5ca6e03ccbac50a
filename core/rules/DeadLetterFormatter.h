// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../model/EventSchema.h"
#include "DeliveryOutcome.h"

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QString>
#include <QUuid>

namespace EventDesk {

// One dead-lettered event with the fields SPEC L7 adds.
struct DeadLetterInput
{
    QByteArray deliveredBody; // the event as delivered (one JSON object, compact)
    EventSchema deliverySchema = EventSchema::EventGrid; // schema of deliveredBody
    // For custom delivery schema, the Event Grid envelope fields (L7 wraps the event):
    QString id;
    QString eventTime;
    QString eventType;
    QString dataVersion;
    QString topic;
    QString subject;

    DeadLetterReason reason = DeadLetterReason::None;
    int deliveryAttempts = 0;
    DeliveryOutcome lastDeliveryOutcome = DeliveryOutcome::GenericError;
    int lastHttpStatusCode = 0; // 0: no HTTP response on the last attempt (field omitted)
    qint64 publishTimeMs = 0;
    qint64 lastDeliveryAttemptTimeMs = 0; // 0: never attempted (field still written, = publish)
};

class DeadLetterFormatter final
{
public:
    // L7: ISO 8601 UTC with exactly 7 fractional digits: 2020-08-13T17:18:14.0265758Z
    static QString formatTime(qint64 msSinceEpoch);

    // L7: the record for one event (compact JSON object).
    static QByteArray record(const DeadLetterInput &input);

    // L6: "<SUBSCRIPTION-NAME-UPPER-CASE>/<yyyy>/<M>/<d>/<H>/<uuid>.json" (relative to the
    // container), UTC date and hour of writeTimeMs, not zero-padded.
    static QString blobName(const QString &subscriptionName, qint64 writeTimeMs, const QUuid &uuid);

    // L6: a blob holds a JSON array of records.
    static QByteArray blobBody(const QList<QByteArray> &records);
};

} // namespace EventDesk
