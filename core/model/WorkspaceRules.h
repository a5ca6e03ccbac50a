// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

// Private to core/model: the SPEC rules that reading, validating and writing workspace.json share.

#include "EventSubscription.h"
#include "WorkspaceJsonReader.h"

#include <QString>
#include <QUrl>

namespace EventDesk::WorkspaceJson {

// SPEC §1
constexpr int MinTopicNameLength = 3;
constexpr int MaxTopicNameLength = 50;
constexpr int MinSubscriptionNameLength = 3;
constexpr int MaxSubscriptionNameLength = 64;

bool isNameCharacter(QChar character);
// SPEC §1: topic and subscription names are [A-Za-z0-9-] with a length range.
void checkName(JsonReader &sink, const QString &name, const QString &path, int minimum,
               int maximum);

bool isValidHttpUrl(const QUrl &url);

// A Storage queue destination's queueMessageTimeToLiveInSeconds: -1 or 1..Max (0 is refused when
// written; in the model it means "the queue's default").
QString queueMessageTtlMessage(const QString &got);

// SPEC L5, docs/user-guide.md "Workspace": "local", or an ARM id whose storage account is named
// "local", is the workspace's own dead-letter folder.
DeadLetterDestination::Kind deadLetterKindFor(const QString &resourceId);

// The accepted schema names, for error messages.
QString allSchemaNames();

// What an advanced filter's operator compares with: one number, a list of numbers, [min, max]
// ranges or strings.
bool isSingleNumberOperator(FilterOperator op);
bool isNumberListOperator(FilterOperator op);
bool isRangeOperator(FilterOperator op);
bool isStringOperator(FilterOperator op);

} // namespace EventDesk::WorkspaceJson
