// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "ProvisioningFile.h"

#include "../Logging.h"
#include "../secrets/SecretMasking.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMessageAuthenticationCode>
#include <QRandomGenerator>
#include <QSaveFile>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

// The largest magnitude up to which every whole number is a double (JSON's numbers).
constexpr double MaxExactMilliseconds = 9'007'199'254'740'992.0; // 2^53

constexpr qsizetype FingerprintKeyBytes = 32;
constexpr QLatin1StringView DigestMarker("|hmac-sha256:");

// Only the owner may read or write the file: it names endpoints and holds the hash key.
constexpr QFileDevice::Permissions OwnerOnly = QFileDevice::ReadOwner | QFileDevice::WriteOwner;

QByteArray randomKey()
{
    QByteArray key(FingerprintKeyBytes, Qt::Uninitialized);
    QRandomGenerator::system()->fillRange(reinterpret_cast<quint32 *>(key.data()),
                                          key.size() / qsizetype(sizeof(quint32)));
    return key;
}

// The URL an engine's fingerprint ("<URL>|<schema>") names; empty for one already stored.
QUrl fingerprintUrl(const QString &fingerprint)
{
    if (fingerprint.contains(DigestMarker))
        return {};
    const qsizetype separator = fingerprint.lastIndexOf(u'|');
    if (separator <= 0)
        return {};
    const QUrl url(fingerprint.left(separator), QUrl::StrictMode);
    return url.isValid() ? url : QUrl();
}

bool widerThanOwnerOnly(const QString &path)
{
#ifdef Q_OS_UNIX
    return (QFile::permissions(path)
            & ~(OwnerOnly | QFileDevice::ReadUser | QFileDevice::WriteUser))
        != QFileDevice::Permissions();
#else
    Q_UNUSED(path)
    return false; // Windows: access is a matter of ACLs, not of mode bits
#endif
}

std::optional<ProvisioningState> stateFromName(const QString &name)
{
    for (ProvisioningState state :
         {ProvisioningState::Creating, ProvisioningState::AwaitingManualActionValidation,
          ProvisioningState::Succeeded, ProvisioningState::Failed}) {
        if (provisioningStateName(state) == name)
            return state;
    }
    return std::nullopt;
}

} // namespace

ProvisioningFile::ProvisioningFile(QString path, Access access)
    : m_path(std::move(path))
    , m_access(access)
    , m_fingerprintKey(randomKey())
{
}

QString ProvisioningFile::storedFingerprint(const QString &fingerprint, const QByteArray &key)
{
    const QUrl url = fingerprintUrl(fingerprint);
    if (url.isEmpty())
        return fingerprint;
    const QString schema = fingerprint.mid(fingerprint.lastIndexOf(u'|') + 1);
    const QByteArray digest
        = QMessageAuthenticationCode::hash(fingerprint.toUtf8(), key, QCryptographicHash::Sha256);
    return SecretMasking::maskedUrl(url) + u'|' + schema + DigestMarker
        + QString::fromLatin1(digest.toHex());
}

QString ProvisioningFile::storedFingerprint(const QString &fingerprint) const
{
    return storedFingerprint(fingerprint, m_fingerprintKey);
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
    bool needsRewrite = false;
    auto records = fromJson(file.readAll(), m_path, &needsRewrite);
    file.close();
    if (!records || m_access == Access::ReadOnly)
        return records;
    // A file an earlier EventDesk wrote may hold an endpoint's key in a URL, and be readable by
    // others: rewritten at once rather than at the next change of state.
    if (needsRewrite || widerThanOwnerOnly(m_path)) {
        if (auto saved = save(records.value()); !saved)
            return Error(saved.error());
        qCInfo(lcStore).noquote()
            << u"rewrote %1 without endpoint secrets, readable only by you"_s.arg(m_path);
    }
    return records;
}

Expected<QList<ProvisioningRecord>>
ProvisioningFile::fromJson(const QByteArray &json, const QString &path, bool *needsRewrite)
{
    QList<ProvisioningRecord> records;
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError || !document.isObject())
        return Error(
            u"%1: not a provisioning file (%2); delete it to validate every endpoint again"_s.arg(
                path,
                parseError.error != QJsonParseError::NoError ? parseError.errorString()
                                                             : u"no JSON object"_s));
    const QByteArray key = QByteArray::fromBase64(
        document.object().value(u"fingerprintKey"_s).toString().toLatin1());
    if (key.size() == FingerprintKeyBytes)
        m_fingerprintKey = key;
    else if (needsRewrite)
        *needsRewrite = true;
    const QJsonArray array = document.object().value(u"subscriptions"_s).toArray();
    for (qsizetype i = 0; i < array.size(); ++i) {
        const QJsonObject object = array.at(i).toObject();
        const auto state = stateFromName(object.value(u"provisioningState"_s).toString());
        if (!state)
            return Error(
                u"%1: subscriptions[%2].provisioningState: unknown state %3"_s.arg(path).arg(i).arg(
                    object.value(u"provisioningState"_s).toString()));
        ProvisioningRecord record;
        record.topic = object.value(u"topic"_s).toString();
        record.subscription = object.value(u"subscription"_s).toString();
        const QString fingerprint = object.value(u"validated"_s).toString();
        record.fingerprint = storedFingerprint(fingerprint);
        record.state = *state;
        record.validationCode = object.value(u"validationCode"_s).toString();
        const QJsonValue expires = object.value(u"expiresMs"_s);
        if (!expires.isUndefined() && !expires.isNull()) {
            // save() writes a whole number of milliseconds; anything a qint64 cannot hold (1e300)
            // is no time, and converting it would be undefined behaviour.
            const double milliseconds = expires.toDouble();
            if (!expires.isDouble() || !(std::abs(milliseconds) <= MaxExactMilliseconds))
                return Error(
                    u"%1: subscriptions[%2].expiresMs: must be a number of milliseconds up to 2^53 "
                    u"(got %3); delete it to validate every endpoint again"_s.arg(path)
                        .arg(i)
                        .arg(expires.isDouble() ? QString::number(milliseconds) : u"no number"_s));
            // save() writes no expiry for 0 or less: read those as "none" alike, so that a record
            // reads back as it was loaded.
            record.expiresMs = std::max<qint64>(0, qint64(milliseconds));
        }
        // A fingerprint an earlier EventDesk wrote holds the endpoint's URL, and its message may
        // quote it (a transport error).
        record.message = SecretMasking::redactUrlSecrets(object.value(u"message"_s).toString(),
                                                         fingerprintUrl(fingerprint));
        if (needsRewrite && record.fingerprint != fingerprint)
            *needsRewrite = true;
        record.allowedRate = object.value(u"allowedRate"_s).toString();
        records.append(record);
    }
    return records;
}

Expected<void> ProvisioningFile::save(const QList<ProvisioningRecord> &records)
{
    QSaveFile file(m_path);
    if (!file.open(QIODevice::WriteOnly))
        return Error(u"cannot write %1: %2"_s.arg(m_path, file.errorString()));
    // 0600 on the temporary file before anything is written to it, whatever the umask or the mode
    // of the file it replaces; the rename keeps it.
    if (!file.setPermissions(OwnerOnly)) {
        file.cancelWriting();
        return Error(u"cannot make %1 readable only by you: %2"_s.arg(m_path, file.errorString()));
    }
    if (file.write(toJson(records)) < 0 || !file.commit())
        return Error(u"cannot write %1: %2"_s.arg(m_path, file.errorString()));
    return {};
}

QByteArray ProvisioningFile::toJson(const QList<ProvisioningRecord> &records) const
{
    QJsonArray array;
    for (const ProvisioningRecord &record : records) {
        QJsonObject object {
            {u"topic"_s, record.topic},
            {u"subscription"_s, record.subscription},
            {u"validated"_s, storedFingerprint(record.fingerprint)},
            {u"provisioningState"_s, provisioningStateName(record.state)},
            {u"message"_s,
             SecretMasking::redactUrlSecrets(record.message, fingerprintUrl(record.fingerprint))}};
        if (!record.validationCode.isEmpty())
            object.insert(u"validationCode"_s, record.validationCode);
        if (record.expiresMs > 0)
            object.insert(u"expiresMs"_s, double(record.expiresMs));
        if (!record.allowedRate.isEmpty())
            object.insert(u"allowedRate"_s, record.allowedRate);
        array.append(object);
    }
    return QJsonDocument(
               QJsonObject {{u"fingerprintKey"_s, QString::fromLatin1(m_fingerprintKey.toBase64())},
                            {u"subscriptions"_s, array}})
        .toJson(QJsonDocument::Indented);
}

} // namespace EventDesk
