// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "ReceivedRequestModel.h"

#include "common/Format.h"
#include "rules/OutcomeClassifier.h"
#include "secrets/SecretMasking.h"
#include "secrets/SecretStore.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QUrl>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {

QByteArray headerValue(const HttpHeaders &headers, QByteArrayView name)
{
    for (const auto &header : headers) {
        if (QByteArrayView(header.first).compare(name, Qt::CaseInsensitive) == 0)
            return header.second;
    }
    return {};
}

} // namespace

ReceivedRequestModel::ReceivedRequestModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

QString ReceivedRequestModel::kindText(ReceivedRequest::Kind kind)
{
    switch (kind) {
    case ReceivedRequest::Kind::Notification:
        return tr("Notification");
    case ReceivedRequest::Kind::ValidationHandshake:
        return tr("Validation handshake");
    case ReceivedRequest::Kind::AbuseProtectionHandshake:
        return tr("Abuse protection");
    case ReceivedRequest::Kind::Other:
        return tr("Other");
    }
    return tr("Other");
}

QString ReceivedRequestModel::responseText(const ReceivedRequest &record)
{
    return record.responseStatus == 0 ? tr("closed") : QString::number(record.responseStatus);
}

int ReceivedRequestModel::eventCount(const QByteArray &body)
{
    if (body.trimmed().isEmpty())
        return 0;
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(body, &error);
    if (error.error == QJsonParseError::NoError && document.isArray())
        return int(document.array().size());
    return 1;
}

bool ReceivedRequestModel::isSecretHeader(QByteArrayView name) const
{
    if (SecretMasking::isCredentialHeader(name))
        return true;
    const QString text = QString::fromLatin1(name.data(), name.size()).trimmed();
    return std::any_of(
        m_secretHeaderNames.cbegin(), m_secretHeaderNames.cend(),
        [&text](const QString &secret) { return secret.compare(text, Qt::CaseInsensitive) == 0; });
}

QString ReceivedRequestModel::headersText(const HttpHeaders &headers, SecretDisplay display) const
{
    QString text;
    for (const auto &header : headers) {
        const QString value = display == SecretDisplay::Masked && isSecretHeader(header.first)
            ? SecretStore::masked(QString::fromUtf8(header.second))
            : QString::fromUtf8(header.second);
        text += QString::fromLatin1(header.first) + ": "_L1 + value + u'\n';
    }
    return text;
}

QString ReceivedRequestModel::targetText(const QByteArray &target, SecretDisplay display)
{
    const QString text = QString::fromUtf8(target);
    if (display == SecretDisplay::Revealed || !target.contains('?'))
        return text;
    return SecretMasking::maskedUrl(QUrl(text));
}

ReceivedRequestModel::Row ReceivedRequestModel::makeRow(const ReceivedRequest &record)
{
    Row row;
    row.record = record;
    row.eventType = QString::fromUtf8(headerValue(record.headers, "aeg-event-type"));
    row.deliveryCount = QString::fromUtf8(headerValue(record.headers, "aeg-delivery-count"));
    row.events = record.kind == ReceivedRequest::Kind::AbuseProtectionHandshake ? 0 : eventCount(record.body);
    return row;
}

const QList<ReceivedRequestModel::Row> &ReceivedRequestModel::shownRows() const
{
    static const QList<Row> none;
    const auto found = m_receivers.constFind(m_current);
    return found == m_receivers.cend() ? none : found->rows;
}

void ReceivedRequestModel::setCurrentReceiver(const QString &receiverName)
{
    const QString key = receiverName.toLower();
    if (key == m_current)
        return;
    beginResetModel();
    m_current = key;
    endResetModel();
}

void ReceivedRequestModel::addRecords(const QList<ReceivedRequest> &records)
{
    QHash<QString, QList<Row>> byReceiver;
    QStringList order;
    for (const ReceivedRequest &record : records) {
        const QString key = record.receiver.toLower();
        auto found = byReceiver.find(key);
        if (found == byReceiver.end()) {
            found = byReceiver.insert(key, {});
            order << key;
        }
        found->append(makeRow(record));
    }
    for (const QString &key : std::as_const(order))
        merge(key, byReceiver.take(key));
    if (!order.isEmpty())
        Q_EMIT recordsAdded(order);
}

void ReceivedRequestModel::merge(const QString &key, QList<Row> incoming)
{
    const bool shown = key == m_current;
    std::stable_sort(incoming.begin(), incoming.end(), [](const Row &left, const Row &right) {
        return left.record.sequence < right.record.sequence;
    });
    Receiver &receiver = m_receivers[key];
    const auto bySequence = [](const Row &row, quint64 sequence) { return row.record.sequence < sequence; };

    // Newer than everything held (the usual case): one block appended at the end.
    QList<Row> appended;
    for (Row &row : incoming) {
        const quint64 sequence = row.record.sequence;
        if (sequence > receiver.lastSequence
            && (appended.isEmpty() || sequence > appended.constLast().record.sequence)) {
            appended.append(std::move(row));
            continue;
        }
        // Older (a fetch answered after the live signal): insert it where it belongs, once.
        if (!appended.isEmpty() && sequence <= appended.constLast().record.sequence) {
            const auto at = std::lower_bound(appended.begin(), appended.end(), sequence, bySequence);
            if (at == appended.end() || at->record.sequence != sequence)
                appended.insert(at, std::move(row));
            continue;
        }
        const auto at = std::lower_bound(receiver.rows.begin(), receiver.rows.end(), sequence, bySequence);
        if (at != receiver.rows.end() && at->record.sequence == sequence)
            continue;
        if (receiver.rows.size() >= Capacity && at == receiver.rows.begin())
            continue; // older than anything the ring still holds
        const int position = int(at - receiver.rows.begin());
        if (shown)
            beginInsertRows({}, position, position);
        receiver.bytes += row.record.sizeInBytes();
        receiver.rows.insert(position, std::move(row));
        if (shown)
            endInsertRows();
    }
    if (!appended.isEmpty()) {
        const int first = int(receiver.rows.size());
        if (shown)
            beginInsertRows({}, first, first + int(appended.size()) - 1);
        for (const Row &row : std::as_const(appended))
            receiver.bytes += row.record.sizeInBytes();
        receiver.rows.append(std::move(appended));
        receiver.lastSequence = receiver.rows.constLast().record.sequence;
        if (shown)
            endInsertRows();
    }
    int excess = std::max(0, int(receiver.rows.size()) - Capacity);
    qsizetype bytes = receiver.bytes;
    for (int row = 0; row < excess; ++row)
        bytes -= receiver.rows.at(row).record.sizeInBytes();
    while (bytes > CapacityBytes && excess + 1 < receiver.rows.size())
        bytes -= receiver.rows.at(excess++).record.sizeInBytes();
    receiver.bytes = bytes;
    if (excess > 0) {
        if (shown)
            beginRemoveRows({}, 0, excess - 1);
        receiver.rows.remove(0, excess);
        if (shown)
            endRemoveRows();
    }
}

void ReceivedRequestModel::clear()
{
    beginResetModel();
    m_receivers.clear();
    endResetModel();
}

void ReceivedRequestModel::retainReceivers(const QStringList &names)
{
    QStringList keys;
    for (const QString &name : names)
        keys << name.toLower();
    const bool currentGoes = !m_current.isEmpty() && !keys.contains(m_current);
    if (currentGoes)
        beginResetModel();
    for (auto it = m_receivers.begin(); it != m_receivers.end();) {
        if (keys.contains(it.key()))
            ++it;
        else
            it = m_receivers.erase(it);
    }
    if (currentGoes)
        endResetModel();
}

quint64 ReceivedRequestModel::lastSequence(const QString &receiverName) const
{
    return m_receivers.value(receiverName.toLower()).lastSequence;
}

int ReceivedRequestModel::recordCount(const QString &receiverName) const
{
    return int(m_receivers.value(receiverName.toLower()).rows.size());
}

const ReceivedRequest &ReceivedRequestModel::record(int row) const
{
    return shownRows().at(row).record;
}

int ReceivedRequestModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(shownRows().size());
}

int ReceivedRequestModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ReceivedRequestModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &row = shownRows().at(index.row());
    const ReceivedRequest &record = row.record;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case TimeColumn:
            return formatClock(record.receivedMs);
        case KindColumn:
            return kindText(record.kind);
        case MethodColumn:
            return QString::fromLatin1(record.method);
        case EventTypeColumn:
            return row.eventType;
        case DeliveryCountColumn:
            return row.deliveryCount;
        case EventsColumn:
            return row.events > 0 ? QVariant(row.events) : QVariant(QString());
        case ResponseColumn:
            if (record.retransmission)
                return tr("%1 (resent)").arg(responseText(record));
            return responseText(record);
        }
        break;
    case Qt::ToolTipRole:
        switch (index.column()) {
        case TimeColumn:
            return tr("Received %1 (request #%2)").arg(formatTime(record.receivedMs)).arg(record.sequence);
        case DeliveryCountColumn:
            return tr("aeg-delivery-count: the attempt's number, starting at 0");
        case ResponseColumn: {
            QString text = record.responseStatus == 0
                ? tr("The connection was closed without an answer")
                : tr("Answered with HTTP %1").arg(record.responseStatus);
            if (record.delayMs > 0)
                text += u'\n' + tr("Held back for %1").arg(formatLatency(record.delayMs));
            if (record.retransmission)
                text += u'\n' + tr("A retransmission of the request dropped just before");
            return text;
        }
        }
        break;
    case Qt::ForegroundRole:
        if (index.column() == ResponseColumn) {
            const DeliveryOutcome outcome = OutcomeClassifier::classify(
                record.responseStatus,
                record.responseStatus == 0 ? QNetworkReply::RemoteHostClosedError : QNetworkReply::NoError);
            return outcomeColor(outcome);
        }
        break;
    case Qt::TextAlignmentRole:
        switch (index.column()) {
        case DeliveryCountColumn:
        case EventsColumn:
        case ResponseColumn:
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        }
        break;
    }
    return {};
}

QVariant ReceivedRequestModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case EventTypeColumn:
            return tr("The aeg-event-type header");
        case DeliveryCountColumn:
            return tr("The aeg-delivery-count header");
        case EventsColumn:
            return tr("Events in the body");
        case ResponseColumn:
            return tr("The status the receiver answered with");
        }
        return {};
    }
    if (role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case TimeColumn:
        return tr("Time");
    case KindColumn:
        return tr("Kind");
    case MethodColumn:
        return tr("Method");
    case EventTypeColumn:
        return tr("Event type");
    case DeliveryCountColumn:
        return tr("Delivery count");
    case EventsColumn:
        return tr("Events");
    case ResponseColumn:
        return tr("Response");
    }
    return {};
}

} // namespace EventDesk::Ui
