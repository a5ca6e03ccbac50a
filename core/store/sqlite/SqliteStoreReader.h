// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../DeliveryStoreReader.h"
#include "SqliteReadOnlyDatabase.h"

namespace EventDesk {

// DeliveryStoreReader of a workspace's SQLite file, over a SqliteReadOnlyDatabase (WAL lets it read
// while the engine writes). The connection is opened again by the next call after a failed one:
// the engine may have created or migrated the file since.
class SqliteStoreReader final : public DeliveryStoreReader
{
public:
    explicit SqliteStoreReader(const QString &filePath);

    // Opens the connection (also done by every call that finds it closed).
    Expected<void> open();

    QString displayName() const override { return m_filePath; }
    bool isShared() const override { return false; }
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
    Expected<QList<InstanceStatus>> instances() override { return QList<InstanceStatus>(); }

private:
    // Runs sql with values bound in order, reading each row with read; a failure closes the
    // connection, so that the next call opens it again.
    template<typename... Values>
    Expected<void> select(const QByteArray &sql,
                          const std::function<void(const SqliteStatement &row)> &read,
                          const Values &...values);
    // The rows of sql as a list, each read by readRow.
    template<typename Row, typename... Values>
    Expected<QList<Row>> selectList(const QByteArray &sql, Row (*readRow)(const SqliteStatement &),
                                    const Values &...values);
    Expected<void> selectConditions(const QByteArray &sql, const SqlConditions &conditions,
                                    int limit,
                                    const std::function<void(const SqliteStatement &row)> &read);

    QString m_filePath;
    SqliteReadOnlyDatabase m_connection;
};

} // namespace EventDesk
