// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../model/EventParser.h"
#include "../model/Topic.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <functional>

namespace EventDesk {

// What the engine's callers hand in and get back; the engine's units share these too.

// The lease of an instance on a shared store (EngineOptions::instanceLeaseMs): 10 s by default,
// renewed every second; eventdeskd --instance-lease accepts MinInstanceLeaseMs to
// MaxInstanceLeaseMs. Shorter leases take over sooner after a crash but need the store to answer
// a heartbeat within a tenth of the lease; longer ones survive longer stalls (a paused process, a
// slow store) without losing their deliveries.
inline constexpr qint64 DefaultInstanceLeaseMs = 10'000;
inline constexpr qint64 MinInstanceLeaseMs = 1'000;
inline constexpr qint64 MaxInstanceLeaseMs = 600'000;
inline constexpr int HeartbeatsPerLease = 10;

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
    // A shared store (several engines, InstanceLeases): real milliseconds after its last heartbeat
    // at which this instance counts as dead and others take over its deliveries. Heartbeats go
    // out HeartbeatsPerLease times per lease. A store of one engine ignores it.
    qint64 instanceLeaseMs = DefaultInstanceLeaseMs;
};

// Secret header values (SPEC H2) by topic, subscription and header name. Called on the delivery
// lanes' threads too: it must be thread-safe.
using SecretResolver = std::function<QString(const QString &topic, const QString &subscription,
                                             const QString &headerName)>;

// docs/user-guide.md "Listen port": when the app's usual port is taken and the workspace opens on
// another one, webhook URLs that name this workspace's own test receivers at the usual address
// (usual/receivers/...) are sent to the address the endpoint really listens on. Empty: no alias.
struct ReceiverAlias
{
    QUrl usual; // "http://127.0.0.1:5170"
    QUrl actual; // "http://127.0.0.1:5171"

    QUrl mapped(const QUrl &url) const;
};

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

// Whether a resubmit through the topic changes anything, or only tells what it would do.
enum class ResubmitRun { DryRun, Resubmit };

// How many new deliveries a resubmit through the topic gives one subscription.
struct ResubmitRouteCount
{
    QString topic;
    QString subscription;
    qint64 deliveries = 0;

    friend bool operator==(const ResubmitRouteCount &, const ResubmitRouteCount &) = default;
};

// What a resubmit through the topic did, or (dry run) would do.
struct TopicResubmitResult
{
    qint64 resubmitted = 0; // dead letters whose event went through its topic again
    qint64 deliveriesCreated = 0;
    // Dead letters that no current subscription's filter matches: they stay in the index.
    qint64 unmatched = 0;
    // Every enabled subscription of the topics involved, 0 included, in workspace order.
    QList<ResubmitRouteCount> routes;
    QStringList errors; // one per dead letter that could not be resubmitted, naming it

    // Adds another chunk's result (the GUI runs a large selection in chunks). Defined with the
    // unit that produces it, TopicResubmit.
    void add(const TopicResubmitResult &other);
};

} // namespace EventDesk
