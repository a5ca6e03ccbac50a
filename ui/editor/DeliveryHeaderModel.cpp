// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "DeliveryHeaderModel.h"

#include "EditorDelegates.h"

#include <QApplication>
#include <QIcon>
#include <QPalette>
#include <QStyle>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {
const QString MaskedValue = u"\u25cf\u25cf\u25cf\u25cf\u25cf\u25cf\u25cf\u25cf"_s;
} // namespace

DeliveryHeaderModel::DeliveryHeaderModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void DeliveryHeaderModel::setHeaders(const QList<DeliveryHeader> &headers)
{
    beginResetModel();
    m_headers = headers;
    m_rowErrors.clear();
    endResetModel();
    Q_EMIT headersChanged();
}

int DeliveryHeaderModel::addHeader()
{
    if (!canAddHeader())
        return -1;
    const int row = int(m_headers.size());
    beginInsertRows(QModelIndex(), row, row);
    m_headers.append(DeliveryHeader());
    endInsertRows();
    Q_EMIT headersChanged();
    return row;
}

void DeliveryHeaderModel::removeHeader(int row)
{
    if (row < 0 || row >= m_headers.size())
        return;
    beginRemoveRows(QModelIndex(), row, row);
    m_headers.removeAt(row);
    endRemoveRows();
    Q_EMIT headersChanged();
}

void DeliveryHeaderModel::setSecretsRevealed(bool revealed)
{
    if (m_secretsRevealed == revealed)
        return;
    m_secretsRevealed = revealed;
    if (!m_headers.isEmpty())
        Q_EMIT dataChanged(index(0, ValueColumn), index(rowCount() - 1, ValueColumn));
}

void DeliveryHeaderModel::setRowErrors(const QHash<int, QString> &errors)
{
    if (errors == m_rowErrors)
        return;
    m_rowErrors = errors;
    if (!m_headers.isEmpty())
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1),
                           {Qt::DecorationRole, Qt::ToolTipRole});
}

int DeliveryHeaderModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_headers.size());
}

int DeliveryHeaderModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DeliveryHeaderModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::ParentIsInvalid))
        return QVariant();
    const DeliveryHeader &header = m_headers.at(index.row());
    const bool isStatic = header.kind == DeliveryHeader::Kind::Static;
    const QString error = m_rowErrors.value(index.row());

    if (role == Qt::ToolTipRole && !error.isEmpty())
        return error;
    if (role == Qt::DecorationRole && index.column() == NameColumn && !error.isEmpty())
        return QApplication::style()->standardIcon(QStyle::SP_MessageBoxWarning);

    switch (index.column()) {
    case NameColumn:
        if (role == Qt::DisplayRole || role == Qt::EditRole)
            return header.name;
        if (role == Qt::ToolTipRole)
            return tr("HTTP header name; must not start with \"aeg-\" and must be unique");
        break;
    case TypeColumn:
        if (role == Qt::DisplayRole)
            return isStatic ? tr("Static") : tr("Dynamic");
        if (role == Qt::EditRole)
            return int(header.kind);
        if (role == Qt::ToolTipRole)
            return isStatic ? tr("A fixed value") : tr("The value of a field of the event");
        break;
    case ValueColumn: {
        const bool masked = isStatic && header.secret && !m_secretsRevealed;
        if (role == Qt::DisplayRole) {
            if (!isStatic)
                return header.sourceField;
            if (masked)
                return header.value.isEmpty() ? tr("(kept in the keychain)") : MaskedValue;
            return header.value;
        }
        if (role == Qt::EditRole)
            return isStatic ? header.value : header.sourceField;
        if (role == MaskedEditRole)
            return masked;
        if (role == Qt::ForegroundRole && masked && header.value.isEmpty())
            return QApplication::palette().brush(QPalette::PlaceholderText);
        if (role == Qt::ToolTipRole) {
            if (!isStatic)
                return tr("The event field that supplies the value, e.g. data.key1 or subject. "
                          "Missing or non-scalar values omit the header.");
            if (header.secret)
                return tr("Secret: kept in the operating system's keychain, never in the "
                          "workspace file or logs. Leave empty to keep the stored value.");
            return tr("At most %1 bytes, no line breaks").arg(DeliveryHeader::MaxValueBytes);
        }
        break;
    }
    case SecretColumn:
        if (role == Qt::CheckStateRole && isStatic)
            return header.secret ? Qt::Checked : Qt::Unchecked;
        if (role == Qt::ToolTipRole)
            return isStatic ? tr("Keep the value in the keychain and mask it")
                            : tr("Only a static header can be secret");
        break;
    default:
        break;
    }
    return QVariant();
}

bool DeliveryHeaderModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::ParentIsInvalid))
        return false;
    DeliveryHeader &header = m_headers[index.row()];
    const bool isStatic = header.kind == DeliveryHeader::Kind::Static;
    QModelIndex first = index;
    QModelIndex last = index;
    switch (index.column()) {
    case NameColumn:
        if (role != Qt::EditRole || header.name == value.toString())
            return false;
        header.name = value.toString();
        break;
    case TypeColumn: {
        if (role != Qt::EditRole)
            return false;
        const auto kind = DeliveryHeader::Kind(value.toInt());
        if (kind != DeliveryHeader::Kind::Static && kind != DeliveryHeader::Kind::Dynamic)
            return false;
        if (kind == header.kind)
            return false;
        header.kind = kind;
        if (kind == DeliveryHeader::Kind::Dynamic)
            header.secret = false; // H2: only a static value can be secret
        last = this->index(index.row(), SecretColumn);
        break;
    }
    case ValueColumn:
        if (role != Qt::EditRole)
            return false;
        if (isStatic)
            header.value = value.toString();
        else
            header.sourceField = value.toString().trimmed();
        break;
    case SecretColumn: {
        if (role != Qt::CheckStateRole || !isStatic)
            return false;
        const bool secret = value.toInt() == Qt::Checked;
        if (secret == header.secret)
            return false;
        header.secret = secret;
        first = this->index(index.row(), ValueColumn);
        break;
    }
    default:
        return false;
    }
    Q_EMIT dataChanged(first, last);
    Q_EMIT headersChanged();
    return true;
}

Qt::ItemFlags DeliveryHeaderModel::flags(const QModelIndex &index) const
{
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::ParentIsInvalid))
        return Qt::NoItemFlags;
    const bool isStatic = m_headers.at(index.row()).kind == DeliveryHeader::Kind::Static;
    if (index.column() == SecretColumn) {
        return isStatic ? (Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsUserCheckable)
                        : Qt::ItemIsSelectable;
    }
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsEditable;
}

QVariant DeliveryHeaderModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case NameColumn:
        return tr("Name");
    case TypeColumn:
        return tr("Type");
    case ValueColumn:
        return tr("Value or source field");
    case SecretColumn:
        return tr("Secret");
    default:
        return QVariant();
    }
}

} // namespace EventDesk::Ui
