// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "SecretStore.h"

#include "../Logging.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QStandardPaths>

#ifdef Q_OS_UNIX
#include <sys/stat.h>
#endif

using namespace Qt::StringLiterals;

namespace EventDesk {

SecretStore::SecretStore(QObject *parent)
    : QObject(parent)
{
}

SecretStore::~SecretStore() = default;

QString SecretStore::masked(const QString &value)
{
    // A fixed width: the mask must not tell how long the secret is.
    return value.isEmpty() ? QString() : QString(8, QChar(0x2022));
}

void SecretStore::setAvailability(Availability availability, const QString &reason)
{
    const QString effectiveReason = availability == Availability::Unavailable ? reason : QString();
    if (availability == m_availability && effectiveReason == m_unavailabilityReason)
        return;
    m_availability = availability;
    m_unavailabilityReason = effectiveReason;
    Q_EMIT availabilityChanged(availability, effectiveReason);
}

namespace SecretKeys {

QString topicAccessKey(const QString &topic)
{
    return u"topic/"_s + topic + u"/key"_s;
}

QString deliveryHeader(const QString &topic, const QString &subscription, const QString &header)
{
    return u"header/"_s + topic + u'/' + subscription + u'/' + header;
}

QString storageAccountKey(const QString &account)
{
    return u"storage/"_s + account + u"/key"_s;
}

QString namespaceKey(const QString &serviceNamespace)
{
    return u"namespace/"_s + serviceNamespace + u"/key"_s;
}

QString normalizedForEnvironment(const QString &name)
{
    QString result;
    result.reserve(name.size());
    for (const QChar character : name.toUpper()) {
        const bool asciiAlnum = (character >= u'A' && character <= u'Z')
            || (character >= u'0' && character <= u'9');
        result.append(asciiAlnum ? character : u'_');
    }
    return result;
}

QString environmentVariable(const QString &key)
{
    const QStringList parts = key.split(u'/');
    if (parts.size() == 3 && parts.at(0) == "topic"_L1 && parts.at(2) == "key"_L1)
        return u"EVENTDESK_TOPIC_KEY_"_s + normalizedForEnvironment(parts.at(1));
    if (parts.size() == 4 && parts.at(0) == "header"_L1) {
        return u"EVENTDESK_HEADER_"_s + normalizedForEnvironment(parts.at(1)) + u'_'
            + normalizedForEnvironment(parts.at(2)) + u'_' + normalizedForEnvironment(parts.at(3));
    }
    if (parts.size() == 3 && parts.at(0) == "storage"_L1 && parts.at(2) == "key"_L1)
        return u"EVENTDESK_STORAGE_KEY_"_s + normalizedForEnvironment(parts.at(1));
    if (parts.size() == 3 && parts.at(0) == "namespace"_L1 && parts.at(2) == "key"_L1)
        return u"EVENTDESK_NAMESPACE_KEY_"_s + normalizedForEnvironment(parts.at(1));
    return {};
}

} // namespace SecretKeys

// --- MemorySecretStore ---

MemorySecretStore::MemorySecretStore(Usage usage, QObject *parent)
    : SecretStore(parent)
    , m_usage(usage)
{
}

void MemorySecretStore::read(const QString &key, ReadCallback done)
{
    ++m_reads;
    if (availability() == Availability::Unavailable) {
        done(Error(unavailabilityReason()));
        return;
    }
    const auto it = m_values.constFind(key);
    done(it == m_values.cend() ? std::optional<QString>() : std::optional<QString>(*it));
}

void MemorySecretStore::write(const QString &key, const QString &value, DoneCallback done)
{
    if (availability() == Availability::Unavailable) {
        done(Error(unavailabilityReason()));
        return;
    }
    m_values.insert(key, value);
    done({});
}

void MemorySecretStore::remove(const QString &key, DoneCallback done)
{
    if (availability() == Availability::Unavailable) {
        done(Error(unavailabilityReason()));
        return;
    }
    m_values.remove(key);
    done({});
}

QString MemorySecretStore::description() const
{
    return m_usage == Usage::ThisRunOnly ? u"memory (this run only)"_s : u"memory"_s;
}

QString MemorySecretStore::warning() const
{
    return m_usage == Usage::ThisRunOnly
        ? u"Secrets are kept in memory for this run only: they are lost when EventDesk exits and "
          u"must be entered again next time."_s
        : QString();
}

void MemorySecretStore::simulateUnavailable(const QString &reason)
{
    setAvailability(Availability::Unavailable, reason);
}

void MemorySecretStore::simulateAvailable()
{
    setAvailability(Availability::Available);
}

// --- FileSecretStore ---

FileSecretStore::FileSecretStore(QString filePath, QObject *parent)
    : SecretStore(parent)
    , m_filePath(std::move(filePath))
{
    if (auto checked = checkPermissions(m_filePath); !checked)
        setAvailability(Availability::Unavailable, checked.error());
}

Expected<void> FileSecretStore::checkPermissions(const QString &filePath)
{
#ifdef Q_OS_UNIX
    struct stat status = {};
    if (::stat(QFile::encodeName(filePath).constData(), &status) != 0)
        return {}; // not there yet: save() creates it 0600
    const unsigned mode = unsigned(status.st_mode) & 07777u;
    if ((mode & ~0600u) != 0) {
        return Error(u"the secrets file %1 has mode %2, wider than the required 0600 (readable "
                     u"and writable only by you): it is not used. Run: chmod 600 %1"_s.arg(
                         filePath, u"0%1"_s.arg(mode, 3, 8, QLatin1Char('0'))));
    }
#else
    // Windows: who may read a file is decided by its ACL, which the user profile's folder limits
    // to the user; there are no mode bits to check.
    Q_UNUSED(filePath)
#endif
    return {};
}

QString FileSecretStore::defaultFilePath()
{
    return QDir(QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation))
        .filePath(u"EventDesk/secrets.json"_s);
}

Expected<QHash<QString, QString>> FileSecretStore::load()
{
    QHash<QString, QString> values;
    // Checked at every use: the mode may have been changed (or fixed) since.
    if (auto checked = checkPermissions(m_filePath); !checked) {
        setAvailability(Availability::Unavailable, checked.error());
        return Error(checked.error());
    }
    setAvailability(Availability::Available);
    QFile file(m_filePath);
    if (!file.exists())
        return values;
    if (!file.open(QIODevice::ReadOnly))
        return Error(u"cannot read the secrets file %1: %2"_s.arg(m_filePath, file.errorString()));
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &parseError);
    if (parseError.error != QJsonParseError::NoError || !document.isObject()) {
        return Error(u"the secrets file %1 is not a JSON object (%2); fix or delete it"_s.arg(
            m_filePath, parseError.errorString()));
    }
    const QJsonObject object = document.object();
    for (auto it = object.constBegin(); it != object.constEnd(); ++it)
        values.insert(it.key(), it.value().toString());
    return values;
}

Expected<void> FileSecretStore::save(const QHash<QString, QString> &values) const
{
    const QString folder = QFileInfo(m_filePath).absolutePath();
    if (!QDir().mkpath(folder))
        return Error(u"cannot create the folder %1 for the secrets file"_s.arg(folder));
    QJsonObject object;
    for (auto it = values.constBegin(); it != values.constEnd(); ++it)
        object.insert(it.key(), it.value());
    QSaveFile file(m_filePath);
    if (!file.open(QIODevice::WriteOnly))
        return Error(u"cannot write the secrets file %1: %2"_s.arg(m_filePath, file.errorString()));
    // The temporary file gets 0600 before any secret is written to it; QSaveFile keeps these
    // permissions when it renames the file into place.
    if (!file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner)) {
        file.cancelWriting();
        return Error(u"cannot make the secrets file %1 readable only by you"_s.arg(m_filePath));
    }
    file.write(QJsonDocument(object).toJson(QJsonDocument::Indented));
    if (!file.commit())
        return Error(u"cannot write the secrets file %1: %2"_s.arg(m_filePath, file.errorString()));
    return {};
}

void FileSecretStore::read(const QString &key, ReadCallback done)
{
    auto values = load();
    if (!values) {
        done(Error(values.error()));
        return;
    }
    const auto it = values->constFind(key);
    done(it == values->cend() ? std::optional<QString>() : std::optional<QString>(*it));
}

void FileSecretStore::write(const QString &key, const QString &value, DoneCallback done)
{
    auto values = load();
    if (!values) {
        done(Error(values.error()));
        return;
    }
    values->insert(key, value);
    done(save(values.value()));
}

void FileSecretStore::remove(const QString &key, DoneCallback done)
{
    auto values = load();
    if (!values) {
        done(Error(values.error()));
        return;
    }
    if (values->remove(key) == 0) {
        done({});
        return;
    }
    done(save(values.value()));
}

QString FileSecretStore::description() const
{
    return u"file %1 (readable only by you)"_s.arg(m_filePath);
}

QString FileSecretStore::warning() const
{
    return u"Secrets are stored unencrypted in %1 (permissions 0600: readable only by your user "
           u"account). Anyone with access to your account or its backups can read them."_s
        .arg(m_filePath);
}

// --- EnvironmentSecretStore ---

EnvironmentSecretStore::EnvironmentSecretStore(Lookup lookup, QObject *parent)
    : SecretStore(parent)
    , m_lookup(std::move(lookup))
{
    if (!m_lookup)
        m_lookup = processValue;
}

QString EnvironmentSecretStore::processValue(const QString &variable)
{
    const QString value = qEnvironmentVariable(variable.toLatin1().constData());
    if (!value.isEmpty())
        return value;
    const QString directory = qEnvironmentVariable("CREDENTIALS_DIRECTORY");
    if (directory.isEmpty())
        return {};
    // Variable names hold A-Z, 0-9 and _ only: the name cannot leave the folder.
    QFile file(QDir(directory).filePath(variable));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    constexpr qint64 MaxCredentialBytes = 64 * 1024; // far above any key or connection string
    QByteArray bytes = file.read(MaxCredentialBytes + 1);
    if (bytes.size() > MaxCredentialBytes) {
        qCWarning(lcSecrets).noquote()
            << u"the credential %1 is larger than %2 bytes: not used"_s.arg(file.fileName())
                   .arg(MaxCredentialBytes);
        return {};
    }
    if (bytes.endsWith('\n'))
        bytes.chop(1);
    if (bytes.endsWith('\r'))
        bytes.chop(1);
    return QString::fromUtf8(bytes);
}

void EnvironmentSecretStore::read(const QString &key, ReadCallback done)
{
    const QString variable = SecretKeys::environmentVariable(key);
    const QString value = variable.isEmpty() ? QString() : m_lookup(variable);
    done(value.isEmpty() ? std::optional<QString>() : std::optional<QString>(value));
}

void EnvironmentSecretStore::write(const QString &key, const QString &, DoneCallback done)
{
    done(Error(u"environment variables are read-only: set %1 before starting eventdeskd"_s.arg(
        SecretKeys::environmentVariable(key))));
}

void EnvironmentSecretStore::remove(const QString &key, DoneCallback done)
{
    done(Error(u"environment variables are read-only: unset %1 before starting eventdeskd"_s.arg(
        SecretKeys::environmentVariable(key))));
}

QString EnvironmentSecretStore::description() const
{
    return qEnvironmentVariableIsEmpty("CREDENTIALS_DIRECTORY")
        ? u"environment variables"_s
        : u"environment variables and systemd credentials"_s;
}

} // namespace EventDesk
