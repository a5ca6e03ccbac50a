// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "ProvisioningFile.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

// The largest magnitude up to which every whole number is a double (JSON's numbers).
constexpr double MaxExactMilliseconds = 9'007'199'254'740'992.0; // 2^53

std::optional<ProvisioningState> stateFromName(const QString &name)
{
    for (ProvisioningState state : {ProvisioningState::Creating, ProvisioningState::AwaitingManualActionValidation,
                                    ProvisioningState::Succeeded, ProvisioningState::Failed}) {
        if (provisioningStateName(state) == name)
            return state;
    }
    return std::nullopt;
}

} // namespace

ProvisioningFile::ProvisioningFile(QString path)
    : m_path(std::move(path))
{
}

QString ProvisioningFile::defaultPath(const QString &workspaceDirectory)
{
    return QDir(workspaceDirectory).filePath(u"provisioning.json"_s);
}

Expected<QList<ProvisioningRecord>> ProvisioningFile::load()
{
    QFile file(m_path);
    if (!file.exists())
        return QList<ProvisioningRecord>();
    if (!file.open(QIODevice::ReadOnly))
        return Error(u"cannot read %1: %2"_s.arg(m_path, file.errorString()));
    return fromJson(file.readAll(), m_path);
}

Expected<QList<ProvisioningRecord>> ProvisioningFile::fromJson(const QByteArray &json,
                                                               const QString &path)
{
    QList<ProvisioningRecord> records;
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError || !document.isObject())
        return Error(u"%1: not a provisioning file (%2); delete it to validate every endpoint again"_s.arg(
            path, parseError.error != QJsonParseError::NoError ? parseError.errorString()
                                                               : u"no JSON object"_s));
    const QJsonArray array = document.object().value(u"subscriptions"_s).toArray();
    for (qsizetype i = 0; i < array.size(); ++i) {
        const QJsonObject object = array.at(i).toObject();
        const auto state = stateFromName(object.value(u"provisioningState"_s).toString());
        if (!state)
            return Error(u"%1: subscriptions[%2].provisioningState: unknown state %3"_s.arg(
                path).arg(i).arg(object.value(u"provisioningState"_s).toString()));
        ProvisioningRecord record;
        record.topic = object.value(u"topic"_s).toString();
        record.subscription = object.value(u"subscription"_s).toString();
        record.fingerprint = object.value(u"validated"_s).toString();
        record.state = *state;
        record.validationCode = object.value(u"validationCode"_s).toString();
        const QJsonValue expires = object.value(u"expiresMs"_s);
        if (!expires.isUndefined() && !expires.isNull()) {
            // save() writes a whole number of milliseconds; anything a qint64 cannot hold (1e300)
            // is no time, and converting it would be undefined behaviour.
            const double milliseconds = expires.toDouble();
            if (!expires.isDouble() || !(std::abs(milliseconds) <= MaxExactMilliseconds))
                return Error(u"%1: subscriptions[%2].expiresMs: must be a number of milliseconds up to 2^53 "
                             u"(got %3); delete it to validate every endpoint again"_s.arg(path)
                                 .arg(i)
                                 .arg(expires.isDouble() ? QString::number(milliseconds)
                                                         : u"no number"_s));
            // save() writes no expiry for 0 or less: read those as "none" alike, so that a record
            // reads back as it was loaded.
            record.expiresMs = std::max<qint64>(0, qint64(milliseconds));
        }
        record.message = object.value(u"message"_s).toString();
        record.allowedRate = object.value(u"allowedRate"_s).toString();
        records.append(record);
    }
    return records;
}

Expected<void> ProvisioningFile::save(const QList<ProvisioningRecord> &records)
{
    QSaveFile file(m_path);
    if (!file.open(QIODevice::WriteOnly) || file.write(toJson(records)) < 0 || !file.commit())
        return Error(u"cannot write %1: %2"_s.arg(m_path, file.errorString()));
    return {};
}

QByteArray ProvisioningFile::toJson(const QList<ProvisioningRecord> &records)
{
    QJsonArray array;
    for (const ProvisioningRecord &record : records) {
        QJsonObject object{{u"topic"_s, record.topic},
                           {u"subscription"_s, record.subscription},
                           {u"validated"_s, record.fingerprint},
                           {u"provisioningState"_s, provisioningStateName(record.state)},
                           {u"message"_s, record.message}};
        if (!record.validationCode.isEmpty())
            object.insert(u"validationCode"_s, record.validationCode);
        if (record.expiresMs > 0)
            object.insert(u"expiresMs"_s, double(record.expiresMs));
        if (!record.allowedRate.isEmpty())
            object.insert(u"allowedRate"_s, record.allowedRate);
        array.append(object);
    }
    return QJsonDocument(QJsonObject{{u"subscriptions"_s, array}}).toJson(QJsonDocument::Indented);
}

} // namespace EventDesk
