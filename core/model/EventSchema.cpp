// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "EventSchema.h"

using namespace Qt::StringLiterals;

namespace EventDesk {

QString eventSchemaName(EventSchema schema)
{
    switch (schema) {
    case EventSchema::EventGrid:
        return u"EventGridSchema"_s;
    case EventSchema::CloudEvents10:
        return u"CloudEventSchemaV1_0"_s;
    case EventSchema::Custom:
        return u"CustomInputSchema"_s;
    }
    return QString();
}

std::optional<EventSchema> eventSchemaFromName(const QString &name)
{
    // Resource Manager compares enum values case-insensitively; so do we.
    for (const EventSchema schema :
         {EventSchema::EventGrid, EventSchema::CloudEvents10, EventSchema::Custom}) {
        if (name.compare(eventSchemaName(schema), Qt::CaseInsensitive) == 0)
            return schema;
    }
    return std::nullopt;
}

} // namespace EventDesk
