// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../Expected.h"

#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>

namespace EventDesk {

// A built-in test receiver (docs/eventdeskd.md "Built-in test receivers"): a webhook endpoint
// served by EventDesk at http://HOST:PORT/receivers/<name> whose answers follow a script. Stored in
// workspace.json under "receivers":
//   {"name":"demo","status":200}                                  the simplest form: a fixed status
//   {"name":"flaky",
//    "script":{"mode":"sequence","statuses":[503,503,200],"after":"repeat"|"stick"},
//    "failureRate":0.3,"seed":42,"failureStatus":503,
//    "delayMs":0,"closeConnection":false,"validation":"answer"|"refuse"|"ignore"|"unavailable",
//    "allowedRate":60}
// A status of 0 in a sequence (or as failureStatus) closes the connection without answering
// (SPEC §7 SocketError); the JSON spelling of that step is the string "close".
struct TestReceiver
{
    enum class Mode { Fixed, Sequence };
    // What happens once a sequence has been played to its end.
    enum class After { Repeat, Stick };
    // How the receiver answers the validation handshakes (Event Grid schema
    // SubscriptionValidationEvent and the CloudEvents OPTIONS abuse-protection request).
    // Unavailable answers them 503, like an endpoint that is still starting: EventDesk keeps
    // asking with a backoff instead of failing the subscription.
    enum class Validation { Answer, Refuse, Ignore, Unavailable };

    static constexpr int CloseConnection = 0; // a "status" that closes without answering
    static constexpr int MaxDelayMs = 600'000;
    static constexpr int MaxSequenceLength = 1000;
    static constexpr int MaxAllowedRate = 1'000'000;

    QString name; // 1..64 chars of [A-Za-z0-9_-], unique case-insensitively
    Mode mode = Mode::Fixed;
    int status = 200; // Fixed: 100..599 or CloseConnection
    QList<int> statuses; // Sequence: 1..MaxSequenceLength entries
    After after = After::Repeat;
    double failureRate = 0.0; // 0..1: share of notifications answered with failureStatus
    quint64 seed = 0; // seeds the failure draws (0: seed 0, still deterministic)
    int failureStatus = 503;
    int delayMs = 0; // real-time wait before answering (provokes TimedOut)
    bool closeConnection = false; // every notification: close without answering (SocketError)
    Validation validation = Validation::Answer;
    int allowedRate = 0; // CloudEvents handshake: WebHook-Allowed-Rate, requests per minute (0: "*")

    bool operator==(const TestReceiver &other) const = default;

    // jsonPath ("receivers[2]") prefixes every error message.
    static Expected<TestReceiver> fromJson(const QJsonValue &value, const QString &jsonPath);
    QJsonObject toJson() const;

    static QString validationName(Validation validation);
};

// Parses the workspace's "receivers" array: every entry, plus unique names.
Expected<QList<TestReceiver>> testReceiversFromJson(const QJsonValue &value, const QString &jsonPath);

} // namespace EventDesk
