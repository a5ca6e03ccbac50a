// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "DeliveryLog.h"

#include "Logging.h"
#include "UtcTime.h"
#include "engine/Clock.h"
#include "engine/Engine.h"

#include <QJsonArray>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

QString isoTime(qint64 ms)
{
    return utcDateTime(ms).toString(Qt::ISODateWithMs);
}

// "10 s", "2.5 min", "4 h": a wait as people read it.
QString duration(qint64 ms)
{
    if (ms < 1000)
        return u"%1 ms"_s.arg(std::max<qint64>(ms, 0));
    if (ms < 60'000)
        return u"%1 s"_s.arg(double(ms) / 1000, 0, 'g', 3);
    if (ms < 3'600'000)
        return u"%1 min"_s.arg(double(ms) / 60'000, 0, 'g', 3);
    return u"%1 h"_s.arg(double(ms) / 3'600'000, 0, 'g', 3);
}

// "HTTP 503, " or nothing when no answer came.
QString status(int httpStatus)
{
    return httpStatus > 0 ? u"HTTP %1, "_s.arg(httpStatus) : QString();
}

} // namespace

DeliveryLog::DeliveryLog(Engine *engine, QObject *parent)
    : QObject(parent)
    , m_engine(engine)
{
    connect(engine, &Engine::attemptLogged, this, &DeliveryLog::attempted);
    connect(engine, &Engine::deadLettered, this, &DeliveryLog::deadLettered);
    connect(engine, &Engine::dropped, this, &DeliveryLog::dropped);
}

void DeliveryLog::attempted(const AttemptLogEntry &entry)
{
    const bool delivered = entry.outcome == DeliveryOutcome::Delivered;
    const bool abandoned = entry.outcome == DeliveryOutcome::Aborted;
    const bool retried = !delivered && !abandoned && entry.nextDueMs > 0;
    const QtMsgType type = delivered || abandoned ? QtDebugMsg : retried ? QtInfoMsg : QtWarningMsg;
    if (!lcDelivery().isEnabled(type))
        return;

    QJsonObject fields;
    fields.insert("result"_L1,
                  delivered       ? u"delivered"_s
                      : abandoned ? u"abandoned"_s
                      : retried   ? u"retryScheduled"_s
                                  : u"failed"_s);
    fields.insert("topic"_L1, entry.topic);
    fields.insert("subscription"_L1, entry.subscription);
    QString events;
    if (entry.eventIds.size() == 1) {
        fields.insert("eventId"_L1, entry.eventIds.constFirst());
        events = u"event %1"_s.arg(entry.eventIds.constFirst());
    } else {
        fields.insert("eventIds"_L1, QJsonArray::fromStringList(entry.eventIds));
        events = u"%1 events"_s.arg(entry.eventIds.size());
    }
    fields.insert("attempt"_L1, entry.attempt);
    fields.insert("outcome"_L1, deliveryOutcomeName(entry.outcome));
    if (entry.httpStatus > 0)
        fields.insert("httpStatus"_L1, entry.httpStatus);
    fields.insert("durationMs"_L1, entry.durationMs);

    const QString where = u"%1 / %2"_s.arg(entry.topic, entry.subscription);
    const QString answer = status(entry.httpStatus) + duration(entry.durationMs);
    QString message;
    if (delivered) {
        message = u"delivered %1 to %2 (attempt %3, %4)"_s.arg(events, where)
                      .arg(entry.attempt)
                      .arg(answer);
    } else if (abandoned) {
        message
            = u"attempt %1 of %2 to %3 abandoned without an answer after %4"_s.arg(entry.attempt)
                  .arg(events, where, duration(entry.durationMs));
    } else {
        message = u"attempt %1 of %2 to %3 failed: %4 (%5)"_s.arg(entry.attempt)
                      .arg(events, where, deliveryOutcomeName(entry.outcome), answer);
        if (retried) {
            fields.insert("nextAttemptTime"_L1, isoTime(entry.nextDueMs));
            message += u"; next attempt in %1"_s.arg(
                duration(entry.nextDueMs - m_engine->clock()->nowMs()));
        } else {
            message += u"; no further attempt"_s;
        }
    }
    Logging::write(type, lcDelivery(), message, fields);
}

void DeliveryLog::deadLettered(const DeadLetterEntry &entry)
{
    if (!lcDelivery().isWarningEnabled())
        return;
    QJsonObject fields;
    fields.insert("result"_L1, u"deadLettered"_s);
    fields.insert("topic"_L1, entry.topic);
    fields.insert("subscription"_L1, entry.subscription);
    fields.insert("eventId"_L1, entry.eventId);
    fields.insert("reason"_L1, deadLetterReasonName(entry.reason));
    fields.insert("outcome"_L1, deliveryOutcomeName(entry.lastOutcome));
    if (entry.lastHttpStatus > 0)
        fields.insert("httpStatus"_L1, entry.lastHttpStatus);
    fields.insert("deliveryAttempts"_L1, entry.attempts);
    fields.insert("blob"_L1, entry.blobPath);
    Logging::write(
        QtWarningMsg, lcDelivery(),
        u"event %1 of %2 / %3 dead-lettered: %4 after %5 attempt(s), last outcome %6 "
        "(%7); blob %8"_s
            .arg(entry.eventId, entry.topic, entry.subscription, deadLetterReasonName(entry.reason))
            .arg(entry.attempts)
            .arg(deliveryOutcomeName(entry.lastOutcome),
                 entry.lastHttpStatus > 0 ? u"HTTP %1"_s.arg(entry.lastHttpStatus) : u"no answer"_s,
                 entry.blobPath),
        fields);
}

void DeliveryLog::dropped(const DroppedEntry &entry)
{
    if (!lcDelivery().isWarningEnabled())
        return;
    QJsonObject fields;
    fields.insert("result"_L1, u"dropped"_s);
    fields.insert("topic"_L1, entry.topic);
    fields.insert("subscription"_L1, entry.subscription);
    fields.insert("eventId"_L1, entry.eventId);
    fields.insert("reason"_L1, deadLetterReasonName(entry.reason));
    fields.insert("outcome"_L1, deliveryOutcomeName(entry.lastOutcome));
    if (entry.lastHttpStatus > 0)
        fields.insert("httpStatus"_L1, entry.lastHttpStatus);
    fields.insert("deliveryAttempts"_L1, entry.attempts);
    Logging::write(
        QtWarningMsg, lcDelivery(),
        u"event %1 of %2 / %3 dropped: %4 after %5 attempt(s), last outcome %6"_s
            .arg(entry.eventId, entry.topic, entry.subscription, deadLetterReasonName(entry.reason))
            .arg(entry.attempts)
            .arg(deliveryOutcomeName(entry.lastOutcome)),
        fields);
}

} // namespace EventDesk
