// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "Topic.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>

namespace EventDesk {

// One accepted event, normalised for storage and delivery.
struct PublishedEvent
{
    QString id;
    QString eventType; // Event Grid eventType, CloudEvents type, or mapped (custom)
    QString subject; // may be empty
    QString dataVersion; // Event Grid dataVersion, CloudEvents extension "dataversion", or mapped
    QString eventTime; // as published (ISO 8601); for custom schema the mapped value or publish time

    // The event in the topic's input schema, as it will be delivered when the subscription's
    // delivery schema equals the input schema: the published bytes without the whitespace
    // between tokens (key order, escapes and number spelling as published). Event Grid: "topic"
    // and "metadataVersion":"1" filled in (SPEC S1).
    QByteArray body;

    // The object advanced filters are evaluated on: Event Grid and CloudEvents events as
    // published (Event Grid with topic and metadataVersion filled in); a custom event in its
    // Event Grid envelope (id, topic, subject, eventType, dataVersion, eventTime, data = original
    // object). Empty when parsed with FilterViews::Skip.
    QJsonObject filterView;
};

// SPEC §10 and S1–S3: a publish request is accepted whole or rejected whole.
struct PublishParseResult
{
    QList<PublishedEvent> events;
    int httpStatus = 200; // 400 or 413 on rejection
    QString errorCode; // Event Grid error code: "BadRequest", "PayloadTooLarge"
    QString errorMessage; // names the event index and the field, or the limit

    bool isAccepted() const { return httpStatus == 200; }
};

class EventParser final
{
public:
    static constexpr qsizetype MaxRequestBytes = 1048576; // SPEC §10
    static constexpr qsizetype MaxEventBytes = 1048576;

    // contentType: the request's Content-Type header (may carry parameters). For CloudEvents
    // topics, "application/cloudevents+json" is one event, "application/cloudevents-batch+json"
    // an array; plain "application/json" is accepted as either shape.
    // publishTimeIso: used as eventTime for custom events without a mapped time.
    // Only advanced filters read PublishedEvent::filterView, and building it costs a copy of
    // each event: the engine skips it when no subscription of the topic has advanced filters.
    enum class FilterViews { Build, Skip };

    // How the events of an array are read when no filter view is built (SPEC S1, S2): by
    // EventScanner, with QJsonDocument for whatever the scanner leaves to it, or by QJsonDocument
    // alone. Both give every request the same answer; the second exists for the test that shows
    // it (tst_eventscanner).
    enum class EventReading { Scanner, JsonDocumentOnly };

    static PublishParseResult parse(const Topic &topic, const QByteArray &body,
                                    const QByteArray &contentType, const QString &publishTimeIso,
                                    FilterViews filterViews = FilterViews::Build,
                                    EventReading reading = EventReading::Scanner);
};

} // namespace EventDesk
