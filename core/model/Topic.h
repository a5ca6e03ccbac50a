// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "EventSchema.h"
#include "EventSubscription.h"

#include <QList>
#include <QString>

namespace EventDesk {

// SPEC S3: where a custom-schema event's Event Grid fields come from.
struct InputSchemaMapping
{
    QString idSourceField; // empty: a UUID is generated
    QString topicSourceField;
    QString eventTimeSourceField; // empty: publish time
    QString subjectSourceField;
    QString subjectDefaultValue;
    QString eventTypeSourceField;
    QString eventTypeDefaultValue;
    QString dataVersionSourceField;
    QString dataVersionDefaultValue;
};

struct Topic
{
    QString name; // 3..50 chars of [A-Za-z0-9-]
    EventSchema inputSchema = EventSchema::EventGrid;
    InputSchemaMapping inputSchemaMapping;
    QList<EventSubscription> eventSubscriptions;
    // docs/eventdeskd.md "Topic endpoint": the key of the topic's access key in the SecretStore,
    // from "accessKey": {"secretRef": "topic/<topic>/key"}. Empty: the topic declares no key. The
    // key's value is never in workspace.json.
    QString accessKeySecretRef;

    // The value of the "topic" field the engine fills in (SPEC S1).
    QString resourcePath() const;
};

} // namespace EventDesk
