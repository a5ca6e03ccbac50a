// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// PostgresDeliveryStore as a store several engines share (InstanceLeases): instances and their
// heartbeats, id blocks, and the claim of deliveries no live instance owns. The fencing of
// changes is in the write path (PostgresStoreWrites.cpp), the tables in PostgresStoreSchema.cpp.
//
// Every lease is judged by the database server's clock (clock_timestamp()), never by an engine's:
// the engines' clocks need not agree, and an engine may run its own time faster (--time-scale).

#include "PostgresDeliveryStore.h"

#include "../StoreRows.h"
#include "PostgresStoreState.h"

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

// An instance is dead once its last heartbeat is older than the lease it registered with.
constexpr char LeaseRanOut[]
    = "heartbeat < clock_timestamp() - lease_ms * interval '1 millisecond'";

// Instance rows dead for this long that own nothing are removed when an instance registers; the
// others stay, so that whoever looks at the store sees which instances were there and when they
// were last heard of.
const QByteArray ForgetLongDeadSql
    = "DELETE FROM instances WHERE heartbeat < clock_timestamp() - interval '1 day'"
      " AND NOT EXISTS (SELECT 1 FROM deliveries WHERE owner = instances.id)"_ba;
const QByteArray RegisterSql
    = "INSERT INTO instances (host_name, process_id, started_at, heartbeat, lease_ms)"
      " VALUES ($1, $2, clock_timestamp(), clock_timestamp(), $3) RETURNING id"_ba;
// Renews only a lease that has not run out: once it has, another instance may have claimed the
// deliveries, and the row stays dead for good (so the claim below can trust what it saw).
const QByteArray RenewSql
    = "UPDATE instances SET heartbeat = clock_timestamp() WHERE id = $1 AND NOT ("_ba + LeaseRanOut
    + ") RETURNING id"_ba;
const QByteArray ReserveSql
    = "UPDATE meta SET value = value + $1 WHERE key = $2 RETURNING value - $1 + 1"_ba;
// The dead instances' rows are locked (NO KEY UPDATE, which a heartbeat's UPDATE also takes, so a
// renewal racing the claim either comes first, and the row is then not dead, or waits and then
// finds its lease run out); SKIP LOCKED on both levels: two instances claiming at once take
// different rows, never the same, and never wait for each other. Rows whose owner released them
// (or whose owner row was removed: ON DELETE SET NULL) have no owner. The two kinds are found
// apart, each through deliveries_by_owner: one condition with OR (or an ORDER BY id) made the
// planner walk the whole table at every heartbeat (44 ms for 200,000 rows owned by live
// instances, against 0.2 ms).
const QByteArray ClaimSql = "WITH dead AS (SELECT id FROM instances WHERE "_ba + LeaseRanOut
    + " FOR NO KEY UPDATE SKIP LOCKED),"
      " released AS (SELECT id FROM deliveries WHERE owner IS NULL LIMIT $2"
      " FOR UPDATE SKIP LOCKED),"
      " orphaned AS (SELECT id FROM deliveries WHERE owner = ANY (ARRAY(SELECT id FROM dead))"
      " LIMIT $2 FOR UPDATE SKIP LOCKED)"
      " UPDATE deliveries SET owner = $1"
      " WHERE id IN (SELECT id FROM released UNION ALL SELECT id FROM orphaned)"
      " RETURNING "_ba
    + PostgresDeliveryColumns;
const QByteArray ProbationOfOthersSql = "SELECT "_ba + ProbationColumns
    + ", revision, instance FROM probation WHERE instance IS DISTINCT FROM $1"
      " AND instance IS NOT NULL"_ba;
// Releasing: the row goes, and with it (ON DELETE SET NULL) the ownership of its deliveries.
const QByteArray ReleaseSql = "DELETE FROM instances WHERE id = $1"_ba;
// The instances as the server's clock sees them now (the clock that judges their leases), with
// the deliveries each owns (counted through deliveries_by_owner).
const QByteArray InstancesSql
    = "SELECT id, host_name, process_id, lease_ms,"
      " (extract(epoch FROM started_at) * 1000)::bigint,"
      " GREATEST((extract(epoch FROM clock_timestamp() - heartbeat) * 1000)::bigint, 0),"
      " (SELECT count(*) FROM deliveries WHERE owner = instances.id)"
      " FROM instances ORDER BY id"_ba;

} // namespace

Expected<qint64> PostgresDeliveryStore::registerInstance(const InstanceInfo &info)
{
    const std::lock_guard lock(d->mutex);
    if (!d->connection)
        return d->notOpen();
    PostgresTransaction transaction;
    transaction.add(ForgetLongDeadSql, u"forget instances dead for a day"_s);
    transaction.add(RegisterSql, u"register this instance"_s)
        .bindAll(info.hostName, info.processId, info.leaseMs);
    auto results = d->connection->transaction(transaction.commands, transaction.whats);
    if (!results)
        return Error(results.error());
    const PostgresResult &registered = results.value().back();
    if (registered.rowCount() != 1)
        return d->connection->error(u"register this instance"_s, u"no answer"_s);
    d->instanceId = registered.columnInt64(0);
    d->lostDeliveries.clear();
    return d->instanceId.load();
}

qint64 PostgresDeliveryStore::instanceId() const
{
    const std::lock_guard lock(d->mutex);
    return d->instanceId.load();
}

Expected<InstanceLeases::Lease> PostgresDeliveryStore::renewLease()
{
    const std::lock_guard lock(d->mutex);
    if (!d->connection)
        return d->notOpen();
    if (d->instanceId == 0)
        return Error(u"The delivery store has no instance registered to renew."_s);
    PostgresParameters parameters;
    parameters.bind(d->instanceId.load());
    auto renewed = d->connection->execute(RenewSql, parameters, u"renew this instance's lease"_s);
    if (!renewed)
        return Error(renewed.error());
    return renewed->rowCount() == 1 ? Lease::Held : Lease::Lost;
}

Expected<qint64> PostgresDeliveryStore::reserveIds(IdKind kind, qint64 count)
{
    const std::lock_guard lock(d->mutex);
    if (!d->connection)
        return d->notOpen();
    if (count < 1)
        return Error(u"An id block must hold at least one id (asked for %1)."_s.arg(count));
    PostgresParameters parameters;
    parameters.bindAll(count, kind == IdKind::EventSeq ? u"max_event_seq"_s : u"max_delivery_id"_s);
    auto reserved = d->connection->execute(ReserveSql, parameters, u"reserve ids"_s);
    if (!reserved)
        return Error(reserved.error());
    if (reserved->rowCount() != 1)
        return d->connection->error(u"reserve ids"_s,
                                    u"the store's meta table lacks its id rows"_s);
    return reserved->columnInt64(0);
}

Expected<qint64>
PostgresDeliveryStore::claimDeliveries(int limit,
                                       const std::function<void(const DeliveryRecord &)> &visit)
{
    const std::lock_guard lock(d->mutex);
    if (!d->connection)
        return d->notOpen();
    if (d->instanceId == 0)
        return Error(u"The delivery store has no instance registered to claim deliveries for."_s);
    PostgresParameters parameters;
    parameters.bindAll(d->instanceId.load(), qint64(std::max(1, limit)));
    auto claimed = d->connection->execute(ClaimSql, parameters, u"claim deliveries"_s);
    if (!claimed)
        return Error(claimed.error());
    DeliveryRecord record;
    const int count = claimed->rowCount();
    for (int row = 0; row < count; ++row) {
        claimed->setRow(row);
        readPostgresDelivery(claimed.value(), record);
        visit(record);
    }
    return qint64(count);
}

QList<qint64> PostgresDeliveryStore::takeLostDeliveries()
{
    const std::lock_guard lock(d->mutex);
    return std::exchange(d->lostDeliveries, {});
}

Expected<void> PostgresDeliveryStore::releaseInstance()
{
    const std::lock_guard lock(d->mutex);
    if (!d->connection)
        return d->notOpen();
    if (d->instanceId == 0)
        return {};
    PostgresParameters parameters;
    parameters.bind(d->instanceId.load());
    auto released = d->connection->execute(ReleaseSql, parameters, u"release this instance"_s);
    if (!released)
        return Error(released.error());
    d->instanceId = 0;
    return {};
}

Expected<QList<ProbationRecord>> PostgresDeliveryStore::probationOfOthers()
{
    const std::lock_guard lock(d->mutex);
    if (!d->connection)
        return d->notOpen();
    PostgresParameters parameters;
    d->bindInstance(parameters);
    return d->collect<ProbationRecord>(ProbationOfOthersSql, parameters,
                                       u"read the probation of other instances"_s,
                                       [](const PostgresResult &row) {
                                           ProbationRecord record = readProbationRow(row);
                                           record.revision = row.columnInt64(7);
                                           record.instance = row.columnInt64(8);
                                           return record;
                                       });
}

Expected<QList<InstanceStatus>> PostgresStoreState::selectInstances()
{
    return collect<InstanceStatus>(InstancesSql, {}, u"read the instances"_s,
                                   [](const PostgresResult &row) {
                                       InstanceStatus instance;
                                       instance.id = row.columnInt64(0);
                                       instance.hostName = row.columnText(1);
                                       instance.processId = row.columnInt64(2);
                                       instance.leaseMs = row.columnInt64(3);
                                       instance.startedMs = row.columnInt64(4);
                                       instance.heartbeatAgeMs = row.columnInt64(5);
                                       instance.ownedDeliveries = row.columnInt64(6);
                                       return instance;
                                   });
}

} // namespace EventDesk
