// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../model/EventSchema.h"

#include <QByteArray>
#include <QList>
#include <QString>

namespace EventDesk {

// SPEC D4, S3, S4: what goes on the wire for a subscription.
class SchemaConverter final
{
public:
    // S4: supported (input, delivery) combinations: EventGrid->EventGrid, EventGrid->CloudEvents,
    // CloudEvents->CloudEvents, Custom->Custom, Custom->EventGrid.
    static bool isSupported(EventSchema input, EventSchema delivery);

    // One event converted from the topic's normalised body (PublishedEvent::body) to the
    // delivery schema. topicPath fills Event Grid "topic" / CloudEvents "source" where needed;
    // the envelope fields are the ones the parser extracted (used for Custom -> EventGrid).
    struct Envelope
    {
        QString id;
        QString eventType;
        QString subject;
        QString dataVersion;
        QString eventTime;
        QString topicPath;
    };
    static QByteArray convert(const QByteArray &body, EventSchema input, EventSchema delivery,
                              const Envelope &envelope);

    // D4: request body for a batch of converted events. EventGrid/Custom: always a JSON array.
    // CloudEvents: one object when batching is off (single event), an array when batching is on.
    static QByteArray requestBody(const QList<QByteArray> &events, EventSchema delivery,
                                  bool batchingEnabled);

    // D4 content types.
    static QByteArray contentType(EventSchema delivery, bool batchingEnabled);
};

} // namespace EventDesk
