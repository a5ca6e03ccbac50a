// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "model/TestReceiver.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QList>
#include <QString>

namespace EventDesk::Ui {

// One line of a receiver's response script, as the receivers list shows it:
// "fixed 200", "503, 503, 200 then repeat", "30 % fail (seed 42) with 503", "delay 45 s",
// "closes connection", "refuses validation" - joined by "; ".
QString describeReceiverScript(const TestReceiver &receiver);

// The workspace's test receivers: name, URL, script summary and how many requests each received.
class ReceiverListModel final : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { NameColumn, ScriptColumn, RequestsColumn, UrlColumn, ColumnCount };
    enum Role { ReceiverNameRole = Qt::UserRole + 1 };

    explicit ReceiverListModel(QObject *parent = nullptr);

    // Replaces the receivers; listenUrl ("http://127.0.0.1:5170") prefixes their URLs. Counts of
    // receivers that are still defined are kept.
    void setReceivers(const QList<TestReceiver> &receivers, const QString &listenUrl);
    // receivedTotal: requests received in total (the engine numbers them 1, 2, ...).
    void setReceivedCount(const QString &receiverName, quint64 receivedTotal);
    void clearCounts();

    QString receiverUrl(int row) const;
    const TestReceiver &receiver(int row) const { return m_receivers.at(row); }
    int rowOf(const QString &receiverName) const; // -1 if unknown; case-insensitive

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QList<TestReceiver> m_receivers;
    QString m_listenUrl;
    QHash<QString, quint64> m_counts; // key: name in lower case
};

} // namespace EventDesk::Ui
