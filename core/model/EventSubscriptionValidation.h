// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

// Private to core/model: the validation of one event subscription, shared by the ARM parser
// (eventSubscriptionFromArm) and validateEventSubscription (the GUI editor).

#include "EventSchema.h"
#include "EventSubscription.h"
#include "WorkspaceJsonReader.h"

#include <QString>

namespace EventDesk::WorkspaceJson {

// Where the ARM fields of one subscription live. Resource Manager nests them under
// "properties" (and the destination's under "destination.properties"); `az ... -o json`
// prints them flattened. Errors name the place the user has to edit.
struct ArmLayout
{
    QString name;
    QString properties;
    QString destinationProperties;
    QString deadLetterProperties;
};

// The paths of the canonical ARM shape under jsonPath.
ArmLayout canonicalLayout(const QString &jsonPath);

// Every SPEC range, H1 header rules, filter limits, the S4 schema combination and the dead-letter
// destination; the first problem goes to sink, named by its path in layout.
void validateSubscription(JsonReader &sink, const EventSubscription &subscription,
                          EventSchema topicInputSchema, const ArmLayout &layout);

} // namespace EventDesk::WorkspaceJson
