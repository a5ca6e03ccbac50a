// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "model/EventSubscription.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QList>

namespace EventDesk::Ui {

// The delivery headers table of the subscription editor (SPEC §9): name, Static/Dynamic, the value
// or the event field that supplies it, and whether a static value is secret. Secret values are
// shown masked unless revealed.
class DeliveryHeaderModel final : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { NameColumn, TypeColumn, ValueColumn, SecretColumn, ColumnCount };

    explicit DeliveryHeaderModel(QObject *parent = nullptr);

    void setHeaders(const QList<DeliveryHeader> &headers);
    const QList<DeliveryHeader> &headers() const { return m_headers; }

    // Appends an empty Static header; returns its row, or -1 when the table is full (H1: 10).
    int addHeader();
    void removeHeader(int row);
    bool canAddHeader() const { return m_headers.size() < DeliveryHeader::MaxHeaders; }

    void setSecretsRevealed(bool revealed);
    bool secretsRevealed() const { return m_secretsRevealed; }

    // Validation messages shown on a row (decoration and tooltip); row -> message.
    void setRowErrors(const QHash<int, QString> &errors);

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

Q_SIGNALS:
    void headersChanged();

private:
    QList<DeliveryHeader> m_headers;
    QHash<int, QString> m_rowErrors;
    bool m_secretsRevealed = false;
};

} // namespace EventDesk::Ui
