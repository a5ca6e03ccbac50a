// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../model/EventParser.h"
#include "../model/Topic.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

#include <functional>

namespace EventDesk {

// What the engine's callers hand in and get back; the engine's units share these too.

struct EngineOptions
{
    bool jitter = true; // SPEC R5
    quint64 jitterSeed = 0; // 0: random seed
    qint64 responseTimeoutMs = 30'000; // SPEC D6
    qint64 abortAfterMs = 180'000; // SPEC D6 late-success window
    qint64 deadLetterRetryMs = 60'000; // L4: wait between write tries to an unavailable destination
    qint64 deadLetterGiveUpMs = 4LL * 60 * 60 * 1000; // L4
    int deadLetterMaxEventsPerBlob = 500; // L3: events written together where possible
    int storeFlushIntervalMs = 5; // group commit of state changes after delivery
};

// Secret header values (SPEC H2) by topic, subscription and header name. Called on the delivery
// lanes' threads too: it must be thread-safe.
using SecretResolver = std::function<QString(const QString &topic, const QString &subscription,
                                             const QString &headerName)>;

// A subscription a publish request is matched against, as it was when the request arrived.
struct PublishTarget
{
    int subscriptionIndex = -1;
    QString topic; // as the subscription names it
    QString subscription;
    EventFilter filter;
};

// A publish request taken in by the engine and not yet parsed (Engine::preparePublish):
// everything the parse needs, so that it can run on another thread.
struct PublishTicket
{
    Topic topic;
    QList<PublishTarget> targets; // the topic's enabled subscriptions
    QByteArray body;
    QByteArray contentType;
    qint64 nowMs = 0; // the publish time
    QString publishTimeIso;
    EventParser::FilterViews filterViews = EventParser::FilterViews::Build;
    quint64 workspaceGeneration = 0;
};

struct PublishResult
{
    int httpStatus = 200;
    QString errorCode;
    QString errorMessage;
    int accepted = 0; // events stored
    int deliveriesCreated = 0;
    int retryAfterSeconds = 0; // > 0: answered with Retry-After (the request may be sent again)
};

// The answer to a visit of a subscription's validation URL.
struct ManualValidationResult
{
    int httpStatus
        = 200; // 200 validated; 400 wrong code; 404 unknown; 409 not awaiting; 410 expired
    QString message;
};

struct ResubmitResult
{
    int resubmitted = 0;
    QStringList errors; // one per dead letter that could not be resubmitted
};

} // namespace EventDesk
