// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "SqliteStoreSchema.h"

#include "../StoreRows.h"
#include "SqliteStatement.h"

using namespace Qt::StringLiterals;

namespace EventDesk {

QString storeVersionProblem(qint64 userVersion)
{
    if (userVersion > StoreSchemaVersion) {
        return u"it was written by a newer EventDesk (store version %1, this build reads version %2)"_s
            .arg(userVersion)
            .arg(StoreSchemaVersion);
    }
    if (userVersion < OldestMigratableSchemaVersion)
        return u"the store has no schema version (damaged file)"_s;
    return {};
}

QList<QByteArray> createStoreStatements()
{
    using namespace StoreSchema;
    return {
        CreateMeta,
        "INSERT INTO meta (key, value) VALUES ('max_event_seq', 0), ('max_delivery_id', 0)"_ba,
        CreateEvents,
        CreateDeliveries,
        CreateDeliveriesByEvent,
        CreateDeadLetters,
        CreateDeadLettersBySubscription,
        CreateDeadLettersByTopicSubscription,
        CreateDeadLettersByReason,
        CreateDeadLettersByOutcome,
        CreateDeadLettersByTime,
        CreateDeadLettersByEvent,
        CreateDropped,
        CreateDroppedByEvent,
        CreateAttemptLog,
        CreateAttemptEvents,
        CreateProbation,
        CreateResubmissions,
        CreateResubmissionsByEvent,
        CreateTotals,
        "PRAGMA application_id = "_ba + QByteArray::number(StoreApplicationId),
        "PRAGMA user_version = "_ba + QByteArray::number(StoreSchemaVersion),
    };
}

void RepeatedText::read(const SqliteStatement &row, int column, QString *text)
{
    const QByteArrayView utf8 = row.columnUtf8(column);
    if (utf8 != m_utf8 || m_text.isNull()) {
        m_utf8 = utf8.toByteArray();
        m_text = QString::fromUtf8(utf8);
    }
    *text = m_text;
}

void readDelivery(const SqliteStatement &row, DeliveryRecord &record, DeliveryReader *reader)
{
    record.id = row.columnInt64(0);
    record.eventSeq = row.columnInt64(1);
    if (reader) {
        reader->topic.read(row, 2, &record.topic);
        reader->subscription.read(row, 3, &record.subscription);
    } else {
        record.topic = row.columnText(2);
        record.subscription = row.columnText(3);
    }
    record.state = static_cast<DeliveryState>(row.columnInt(4));
    record.attempts = row.columnInt(5);
    record.dueMs = row.columnInt64(6);
    record.publishMs = row.columnInt64(7);
    record.lastOutcome = static_cast<DeliveryOutcome>(row.columnInt(8));
    record.lastHttpStatus = row.columnInt(9);
    record.lastAttemptMs = row.columnInt64(10);
    record.reason = static_cast<DeadLetterReason>(row.columnInt(11));
    record.deadLetterUnavailableSinceMs = row.columnInt64(12);
}

DeliveryRecord readDelivery(const SqliteStatement &row)
{
    DeliveryRecord record;
    readDelivery(row, record);
    return record;
}

StoredEvent readEvent(const SqliteStatement &row)
{
    return readEventRow(row);
}

DroppedEntry readDropped(const SqliteStatement &row)
{
    return readDroppedRow(row);
}

} // namespace EventDesk
