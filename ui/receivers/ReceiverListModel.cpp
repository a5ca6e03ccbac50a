// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "ReceiverListModel.h"

#include "common/Format.h"


using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {

QString statusText(int status)
{
    return status == TestReceiver::CloseConnection ? ReceiverListModel::tr("close")
                                                   : QString::number(status);
}

// "850 ms", "1.5 s", "45 s", "2 min".
QString delayText(int ms)
{
    return ms % 1000 == 0 ? formatDuration(ms) : formatLatency(ms);
}

// Long sequences are cut so the summary stays on one line; the tooltip has the whole script.
constexpr int MaxStepsShown = 12;

} // namespace

QString describeReceiverScript(const TestReceiver &receiver)
{
    QStringList parts;
    if (receiver.closeConnection) {
        parts << ReceiverListModel::tr("closes connection");
    } else if (receiver.mode == TestReceiver::Mode::Fixed) {
        parts << (receiver.status == TestReceiver::CloseConnection
                      ? ReceiverListModel::tr("closes connection")
                      : ReceiverListModel::tr("fixed %1").arg(receiver.status));
    } else {
        QStringList steps;
        for (qsizetype i = 0; i < receiver.statuses.size() && i < MaxStepsShown; ++i)
            steps << statusText(receiver.statuses.at(i));
        QString sequence = steps.join(", "_L1);
        if (receiver.statuses.size() > MaxStepsShown)
            sequence += ReceiverListModel::tr(", … (%n steps)", nullptr, int(receiver.statuses.size()));
        if (receiver.after == TestReceiver::After::Repeat)
            parts << ReceiverListModel::tr("%1 then repeat").arg(sequence);
        else if (!receiver.statuses.isEmpty())
            parts << ReceiverListModel::tr("%1 then stay at %2")
                         .arg(sequence, statusText(receiver.statuses.constLast()));
        else
            parts << sequence;
    }
    if (receiver.failureRate > 0.0 && !receiver.closeConnection) {
        parts << ReceiverListModel::tr("%1 % fail (seed %2) with %3")
                     .arg(QString::number(receiver.failureRate * 100.0, 'g', 3))
                     .arg(receiver.seed)
                     .arg(receiver.failureStatus == TestReceiver::CloseConnection
                              ? ReceiverListModel::tr("connection close")
                              : QString::number(receiver.failureStatus));
    }
    if (receiver.delayMs > 0)
        parts << ReceiverListModel::tr("delay %1").arg(delayText(receiver.delayMs));
    switch (receiver.validation) {
    case TestReceiver::Validation::Answer:
        break;
    case TestReceiver::Validation::Refuse:
        parts << ReceiverListModel::tr("refuses validation");
        break;
    case TestReceiver::Validation::Ignore:
        parts << ReceiverListModel::tr("ignores validation");
        break;
    case TestReceiver::Validation::Unavailable:
        parts << ReceiverListModel::tr("answers validation 503");
        break;
    }
    return parts.join("; "_L1);
}

ReceiverListModel::ReceiverListModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void ReceiverListModel::setReceivers(const QList<TestReceiver> &receivers, const QString &listenUrl)
{
    beginResetModel();
    m_receivers = receivers;
    m_listenUrl = listenUrl;
    QHash<QString, quint64> kept;
    for (const TestReceiver &receiver : receivers) {
        const QString key = receiver.name.toLower();
        if (m_counts.contains(key))
            kept.insert(key, m_counts.value(key));
    }
    m_counts = kept;
    endResetModel();
}

void ReceiverListModel::setReceivedCount(const QString &receiverName, quint64 receivedTotal)
{
    const QString key = receiverName.toLower();
    if (m_counts.value(key) == receivedTotal && m_counts.contains(key))
        return;
    m_counts.insert(key, receivedTotal);
    const int row = rowOf(receiverName);
    if (row >= 0) {
        const QModelIndex changed = index(row, RequestsColumn);
        Q_EMIT dataChanged(changed, changed);
    }
}

void ReceiverListModel::clearCounts()
{
    if (m_counts.isEmpty())
        return;
    m_counts.clear();
    if (!m_receivers.isEmpty())
        Q_EMIT dataChanged(index(0, RequestsColumn), index(int(m_receivers.size()) - 1, RequestsColumn));
}

QString ReceiverListModel::receiverUrl(int row) const
{
    return m_listenUrl + "/receivers/"_L1 + m_receivers.at(row).name;
}

int ReceiverListModel::rowOf(const QString &receiverName) const
{
    for (qsizetype row = 0; row < m_receivers.size(); ++row) {
        if (m_receivers.at(row).name.compare(receiverName, Qt::CaseInsensitive) == 0)
            return int(row);
    }
    return -1;
}

int ReceiverListModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_receivers.size());
}

int ReceiverListModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ReceiverListModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const TestReceiver &receiver = m_receivers.at(index.row());
    const quint64 count = m_counts.value(receiver.name.toLower());
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn:
            return receiver.name;
        case UrlColumn:
            return receiverUrl(index.row());
        case ScriptColumn:
            return describeReceiverScript(receiver);
        case RequestsColumn:
            return QString::number(count);
        }
        break;
    case Qt::ToolTipRole:
        switch (index.column()) {
        case NameColumn:
        case UrlColumn:
            return tr("Point an event subscription's endpoint URL at %1").arg(receiverUrl(index.row()));
        case ScriptColumn: {
            QStringList lines;
            if (receiver.mode == TestReceiver::Mode::Sequence) {
                QStringList steps;
                for (int status : receiver.statuses)
                    steps << statusText(status);
                lines << tr("Sequence: %1").arg(steps.join(", "_L1));
                lines << (receiver.after == TestReceiver::After::Repeat
                              ? tr("At the end: start again")
                              : tr("At the end: keep answering with the last status"));
            } else {
                lines << tr("Status: %1").arg(statusText(receiver.status));
            }
            if (receiver.failureRate > 0.0)
                lines << tr("Failure rate: %1 % with %2 (seed %3)")
                             .arg(QString::number(receiver.failureRate * 100.0, 'g', 3),
                                  statusText(receiver.failureStatus))
                             .arg(receiver.seed);
            if (receiver.delayMs > 0)
                lines << tr("Delay before answering: %1").arg(delayText(receiver.delayMs));
            if (receiver.closeConnection)
                lines << tr("Every notification: the connection is closed without an answer");
            lines << tr("Validation handshakes: %1").arg(TestReceiver::validationName(receiver.validation));
            return lines.join(u'\n');
        }
        case RequestsColumn:
            return tr("Requests received since EventDesk started");
        }
        break;
    case Qt::TextAlignmentRole:
        if (index.column() == RequestsColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case ReceiverNameRole:
        return receiver.name;
    }
    return {};
}

QVariant ReceiverListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case NameColumn:
        return tr("Receiver");
    case UrlColumn:
        return tr("URL");
    case ScriptColumn:
        return tr("Script");
    case RequestsColumn:
        return tr("Requests");
    }
    return {};
}

} // namespace EventDesk::Ui
