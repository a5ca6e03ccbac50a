// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>

#include <optional>

namespace EventDesk {

// SPEC §1/§8: the three schemas a topic accepts and a subscription delivers.
enum class EventSchema {
    EventGrid, // "EventGridSchema"
    CloudEvents10, // "CloudEventSchemaV1_0"
    Custom, // "CustomInputSchema" (input) / "CustomInputSchema" (delivery as published)
};

QString eventSchemaName(EventSchema schema);
std::optional<EventSchema> eventSchemaFromName(const QString &name);

} // namespace EventDesk
