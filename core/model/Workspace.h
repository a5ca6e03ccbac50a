// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../Expected.h"
#include "TestReceiver.h"
#include "Topic.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

namespace EventDesk {

struct WorkspaceSettings
{
    int deadLetterDelaySeconds = 300; // SPEC L3, 0..3600
    int probationThreshold = 10; // SPEC P2, 1..100
    int maxConcurrentRequestsPerSubscription = 8; // 1..64
    // docs/security.md "The HTTP endpoint": names the endpoint answers to besides 127.0.0.1,
    // localhost and [::1] (and, on a wildcard listen address, any IP address and the machine's
    // name). Lower case, without port; an IPv6 address in brackets.
    QStringList allowedHosts;
    // Web page origins that may call the endpoint (answered with CORS headers); every other
    // request with an Origin header is refused. Serialised as browsers send them:
    // "http://localhost:3000", lower case, without a default port.
    QStringList allowedOrigins;
};

// The parsed workspace.json (docs/user-guide.md "Workspace"). Parsing validates everything; an
// error names the file, the JSON path and the problem, e.g.
//   "workspace.json: topics[0].eventSubscriptions[1].properties.retryPolicy.maxDeliveryAttempts:
//    must be an integer from 1 to 30 (got 31)"
struct Workspace
{
    QList<Topic> topics;
    QList<TestReceiver> receivers; // built-in test receivers, served at /receivers/<name>
    WorkspaceSettings settings;

    static Expected<Workspace> fromJson(const QByteArray &json, const QString &fileName);
    QJsonObject toJson() const;

    const Topic *findTopic(const QString &name) const; // case-insensitive, like Event Grid
    const TestReceiver *findReceiver(const QString &name) const; // case-insensitive
};

// ARM-shaped (de)serialisation of one event subscription:
// {"name":..., "properties":{"destination":{"endpointType":"WebHook","properties":{...}}, ...}}
// jsonPath prefixes every error message ("topics[0].eventSubscriptions[2]").
Expected<EventSubscription> eventSubscriptionFromArm(const QJsonObject &object,
                                                     const QString &jsonPath,
                                                     EventSchema topicInputSchema);
QJsonObject eventSubscriptionToArm(const EventSubscription &subscription);

// One topic as workspace.json holds it (topics[i]), with its event subscriptions: for stores that
// keep each topic apart (SharedConfiguration) with the same serialisation and the same rules.
// jsonPath prefixes every error message.
Expected<Topic> topicFromJson(const QJsonObject &object, const QString &jsonPath);
QJsonObject topicToJson(const Topic &topic);

// Validates an in-memory subscription (the GUI editor and the parser share this): every SPEC
// range, H1 header rules, filter limits, S4 schema combination. Errors name the ARM field.
Expected<void> validateEventSubscription(const EventSubscription &subscription,
                                         EventSchema topicInputSchema,
                                         const QString &jsonPath = QString());

} // namespace EventDesk
