// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../Expected.h"
#include "DeadLetterRows.h"
#include "DeliveryStore.h"
#include "StoreTotals.h"

#include <QList>
#include <QString>
#include <QtGlobal>

#include <memory>

namespace EventDesk {

// Everything the store holds about one event id: the event inspector's history.
struct EventHistory
{
    QString eventId;
    QList<AttemptLogEntry> attempts; // oldest first
    QList<DeadLetterEntry> deadLetters; // record included, event body not
    QList<DroppedEntry> drops;
    QList<DeliveryRecord> unfinished; // deliveries that have not reached their fate
    QList<StoredEvent> events; // while the event still has unfinished deliveries
    QList<ResubmissionEntry> resubmissions; // deliveries created by resubmitting a dead letter
};

// The newest row ids of the tables a monitor counts from (0: empty).
struct StoreWatermarks
{
    qint64 attempt = 0;
    qint64 deadLetter = 0;
    qint64 dropped = 0;
};

// Dead letters or drops of one subscription and reason written after a watermark.
struct FateCount
{
    QString topic;
    QString subscription;
    DeadLetterReason reason = DeadLetterReason::None;
    qint64 count = 0;
    qint64 newestId = 0;
};

// The time scales the engines that wrote the store ran at (DeliveryStore::recordTimeScale()); 0:
// never recorded (a store of an earlier version until its engine starts again).
struct EngineTimeScales
{
    double last = 0; // the engine that started last
    double fastest = 0; // the fastest of every run

    bool operator==(const EngineTimeScales &other) const = default;
};

// The engine times of the oldest and the newest dead letter (0, 0: none).
struct TimeRange
{
    qint64 oldestMs = 0;
    qint64 newestMs = 0;

    bool isEmpty() const { return oldestMs == 0 && newestMs == 0; }
    bool operator==(const TimeRange &other) const = default;
};

// Unfinished deliveries of one subscription in one state.
struct DeliveryGauge
{
    QString topic;
    QString subscription;
    DeliveryState state = DeliveryState::Pending;
    qint64 count = 0;
    qint64 earliestDueMs = 0; // the smallest due_ms of those rows
};

// One engine registered on a shared store (InstanceLeases), as the store's server sees it now.
struct InstanceStatus
{
    qint64 id = 0;
    QString hostName;
    qint64 processId = 0;
    qint64 leaseMs = 0;
    qint64 startedMs = 0; // the server's clock, milliseconds since the epoch
    // How long ago its last heartbeat was, by the server's clock (the one that judges leases, so
    // the clock of the machine that reads it plays no part).
    qint64 heartbeatAgeMs = 0;
    qint64 ownedDeliveries = 0; // unfinished deliveries it holds

    bool operator==(const InstanceStatus &other) const = default;
};

// The read side of a delivery store, for readers beside the engines that write it: the desktop
// app's delivery log, event inspector and dead-letter browser (their reader thread), and the
// read-only monitor (StoreMonitor). One implementation per backend, each with a connection of its
// own that can never write (SqliteReadOnlyDatabase for the SQLite file; for PostgreSQL a session
// whose transactions are read-only and which registers no instance), so that the views hold no SQL
// of their own and read either store the same way.
//
// One thread at a time uses a reader. A call that fails leaves the reader usable: the next one
// opens the connection again if it was lost. Errors name the store (a PostgreSQL URL without its
// password).
class DeliveryStoreReader
{
public:
    virtual ~DeliveryStoreReader() = default;

    // The store as it may be shown: the SQLite file, or the URL without its password.
    virtual QString displayName() const = 0;
    // Whether several engines may share the store (instances(), AttemptLogEntry::instance).
    virtual bool isShared() const = 0;

    // The delivery log: the newest attempts, newest first; the attempts after afterId, oldest
    // first (limit <= 0: no limit).
    virtual Expected<QList<AttemptLogEntry>> newestAttempts(int limit) = 0;
    virtual Expected<QList<AttemptLogEntry>> attemptsAfter(qint64 afterId, int limit) = 0;

    virtual Expected<EventHistory> eventHistory(const QString &eventId) = 0;

    // The dead-letter index (newest first, keyset pages as DeadLetterQuery says): rows, their ids
    // only, how many match (every page), and rows by id with all their fields.
    virtual Expected<QList<DeadLetterEntry>> deadLetters(const DeadLetterQuery &query,
                                                         DeadLetterFields fields)
        = 0;
    virtual Expected<QList<qint64>> deadLetterIds(const DeadLetterQuery &query) = 0;
    virtual Expected<qint64> countDeadLetters(const DeadLetterQuery &query) = 0;
    virtual Expected<QList<DeadLetterEntry>> deadLettersById(const QList<qint64> &ids) = 0;

    // What a monitor polls.
    virtual Expected<StoreWatermarks> watermarks() = 0;
    virtual Expected<QList<FateCount>> deadLettersAfter(qint64 afterId) = 0;
    virtual Expected<QList<FateCount>> dropsAfter(qint64 afterId) = 0;
    virtual Expected<QList<DeliveryGauge>> deliveryGauges() = 0;
    virtual Expected<QList<ProbationRecord>> probation() = 0;
    // The store's running totals (StoreTotals.h): what every engine that wrote it counted.
    virtual Expected<StoreTotals> totals() = 0;
    virtual Expected<EngineTimeScales> timeScales() = 0;
    virtual Expected<TimeRange> deadLetterTimes() = 0;
    // The instances registered on a shared store, by id; none on a store of one engine.
    virtual Expected<QList<InstanceStatus>> instances() = 0;
};

} // namespace EventDesk
