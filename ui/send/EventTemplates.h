// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "Expected.h"
#include "model/Topic.h"

#include <QByteArray>
#include <QList>
#include <QString>

namespace EventDesk::Ui {

// A ready-to-send example event for a schema, pretty-printed with a fresh id (QUuid) and the
// current time. Event Grid: an array with one event; CloudEvents 1.0: one event; custom: an
// object whose fields follow the topic's input mapping (so the engine finds id, time, type...).
QString eventTemplate(EventSchema schema, const InputSchemaMapping &mapping = {});

// The requests that publish the editor's JSON `copies` times. Copies after the first get fresh
// ids. Events go out as one batch array per request when the schema allows it (Event Grid array,
// CloudEvents application/cloudevents-batch+json, custom array), split so every request stays
// within maxRequestBytes (SPEC §10). A single CloudEvents or custom event is sent as an object.
struct PublishPlan
{
    QList<QByteArray> bodies;
    QByteArray contentType;
    int eventCount = 0;
};

Expected<PublishPlan> planPublish(EventSchema schema, const InputSchemaMapping &mapping,
                                  const QByteArray &json, int copies,
                                  qsizetype maxRequestBytes = 1048576);

// The display name of a schema in the picker ("Event Grid", "CloudEvents 1.0", "Custom").
QString schemaDisplayName(EventSchema schema);

} // namespace EventDesk::Ui
