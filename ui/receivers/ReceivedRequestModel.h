// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "endpoint/TestReceiverService.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

namespace EventDesk::Ui {

// The requests the test receivers recorded, oldest first, shown for one receiver at a time. It
// mirrors the engine's ring buffer: at most Capacity records and CapacityBytes bytes per
// receiver, the oldest dropped.
class ReceivedRequestModel final : public QAbstractTableModel
{
    Q_OBJECT

public:
    static constexpr int Capacity = TestReceiverService::DefaultRecordCapacity;
    static constexpr qsizetype CapacityBytes = TestReceiverService::DefaultRecordBytes;

    enum Column {
        TimeColumn,
        KindColumn,
        MethodColumn,
        EventTypeColumn,
        DeliveryCountColumn,
        EventsColumn,
        ResponseColumn,
        ColumnCount
    };

    explicit ReceivedRequestModel(QObject *parent = nullptr);

    // Which receiver's requests the rows show (case-insensitive; empty: none).
    void setCurrentReceiver(const QString &receiverName);
    QString currentReceiver() const { return m_current; }

    // Merges records of any receivers, skipping those already held (by sequence number), so a
    // fetch and the live signal may overlap.
    void addRecords(const QList<ReceivedRequest> &records);
    void clear();
    // Forgets the receivers not in names (case-insensitive).
    void retainReceivers(const QStringList &names);

    // Highest sequence number seen for a receiver (= requests it received in total); 0 if none.
    quint64 lastSequence(const QString &receiverName) const;
    int recordCount(const QString &receiverName) const;
    const ReceivedRequest &record(int row) const;

    static QString kindText(ReceivedRequest::Kind kind);
    // "503", or "closed" when the connection was closed without an answer.
    static QString responseText(const ReceivedRequest &record);
    // Events in a notification body: the size of a JSON array, else 1 (0 for an empty body).
    static int eventCount(const QByteArray &body);

    // Which header values are credentials, shown masked unless revealed: the well-known ones
    // (SecretMasking::isCredentialHeader: Authorization, Cookie, aeg-sas-key, ...) and the names
    // of the workspace's secret delivery headers (SPEC H2), set with setSecretHeaderNames().
    enum class SecretDisplay { Masked, Revealed };
    void setSecretHeaderNames(const QStringList &names) { m_secretHeaderNames = names; }
    const QStringList &secretHeaderNames() const { return m_secretHeaderNames; }
    bool isSecretHeader(QByteArrayView name) const;
    // "Name: value" lines; a secret header's value masked (a fixed-width mask that does not tell
    // its length) unless display is Revealed.
    QString headersText(const HttpHeaders &headers, SecretDisplay display) const;
    // A request target with its query values masked unless revealed (a function's "?code=").
    static QString targetText(const QByteArray &target, SecretDisplay display);

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

Q_SIGNALS:
    // Records were added for receivers (names in lower case), shown or not.
    void recordsAdded(const QStringList &receiverKeys);

private:
    struct Row
    {
        ReceivedRequest record;
        QString eventType; // aeg-event-type
        QString deliveryCount; // aeg-delivery-count
        int events = 0;
    };
    struct Receiver
    {
        QList<Row> rows; // ascending sequence numbers
        qsizetype bytes = 0; // ReceivedRequest::sizeInBytes of the rows
        quint64 lastSequence = 0;
    };

    void merge(const QString &key, QList<Row> incoming);
    static Row makeRow(const ReceivedRequest &record);
    const QList<Row> &shownRows() const;

    QHash<QString, Receiver> m_receivers; // key: receiver name in lower case
    QString m_current; // lower case
    QStringList m_secretHeaderNames;
};

} // namespace EventDesk::Ui
