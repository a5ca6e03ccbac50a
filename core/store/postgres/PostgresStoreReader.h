// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../DeliveryStoreReader.h"

#include <memory>

namespace EventDesk {

struct PostgresStoreState; // PostgresStoreState.h

// DeliveryStoreReader of a PostgreSQL store (PostgresDeliveryStore), for the desktop app beside
// the engines that share it: a connection of its own whose session is read-only (every
// transaction it runs is READ ONLY, so no statement of it can write, whatever its SQL) and which
// registers no instance. It creates no schema and migrates none: a database that holds no store of
// this build's schema version is an error, which the next call checks again (an engine may have
// created or migrated it since). The reads the store has itself (the dead-letter index, the
// delivery log, the instances) are the store's own code (PostgresStoreState).
class PostgresStoreReader final : public DeliveryStoreReader
{
public:
    explicit PostgresStoreReader(const QString &url);
    ~PostgresStoreReader() override;

    // Connects and checks the schema (also done by every call that finds the connection lost).
    Expected<void> open();

    QString displayName() const override;
    bool isShared() const override { return true; }
    Expected<QList<AttemptLogEntry>> newestAttempts(int limit) override;
    Expected<QList<AttemptLogEntry>> attemptsAfter(qint64 afterId, int limit) override;
    Expected<EventHistory> eventHistory(const QString &eventId) override;
    Expected<QList<DeadLetterEntry>> deadLetters(const DeadLetterQuery &query,
                                                 DeadLetterFields fields) override;
    Expected<QList<qint64>> deadLetterIds(const DeadLetterQuery &query) override;
    Expected<qint64> countDeadLetters(const DeadLetterQuery &query) override;
    Expected<QList<DeadLetterEntry>> deadLettersById(const QList<qint64> &ids) override;
    Expected<StoreWatermarks> watermarks() override;
    Expected<QList<FateCount>> deadLettersAfter(qint64 afterId) override;
    Expected<QList<FateCount>> dropsAfter(qint64 afterId) override;
    Expected<QList<DeliveryGauge>> deliveryGauges() override;
    Expected<QList<ProbationRecord>> probation() override;
    Expected<StoreTotals> totals() override;
    Expected<EngineTimeScales> timeScales() override;
    Expected<TimeRange> deadLetterTimes() override;
    Expected<QList<InstanceStatus>> instances() override;

private:
    QString m_url;
    bool m_sessionReady
        = false; // the session of the current connection is read-only, schema checked
    std::unique_ptr<PostgresStoreState> d;
};

} // namespace EventDesk
