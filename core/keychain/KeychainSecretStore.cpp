// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "KeychainSecretStore.h"

#include "Logging.h"

#include <QPointer>
#include <QTimer>

#include <qt6keychain/keychain.h>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

constexpr auto ProbeKey = "availability-probe";

QString keychainErrorText(int error, const QString &errorString)
{
    return errorString.isEmpty() ? u"QtKeychain error %1"_s.arg(error) : errorString;
}

} // namespace

KeychainSecretStore::KeychainSecretStore(QString service, QObject *parent)
    : SecretStore(parent)
    , m_service(std::move(service))
{
}

std::optional<QString> KeychainSecretStore::unavailabilityFor(int keychainError,
                                                              const QString &errorString)
{
    const QString detail = keychainErrorText(keychainError, errorString);
    const QString advice
        = u"Start and unlock your keyring (GNOME Keyring, KWallet or another Secret Service "
          u"provider), or choose to keep secrets for this run only or in a file readable only "
          u"by you"_s;
    // libsecret reports a keyring that does not exist or is locked and cannot be prompted for
    // as "Object does not exist at path /org/freedesktop/secrets/collection/login".
    if (errorString.contains("does not exist"_L1, Qt::CaseInsensitive)) {
        return u"the system keychain has no usable (unlocked) default keyring: %1. %2."_s.arg(
            detail, advice);
    }
    switch (keychainError) {
    case QKeychain::NoBackendAvailable:
        return u"no system keychain is available: %1. %2."_s.arg(detail, advice);
    case QKeychain::AccessDenied:
    case QKeychain::AccessDeniedByUser:
        return u"access to the system keychain was denied (is the keyring locked?): %1. %2."_s.arg(
            detail, advice);
    case QKeychain::OtherError:
    case QKeychain::NotImplemented:
        return u"the system keychain does not work: %1. %2."_s.arg(detail, advice);
    default:
        return std::nullopt;
    }
}

void KeychainSecretStore::noteResult(int keychainError, const QString &errorString)
{
    if (const std::optional<QString> reason = unavailabilityFor(keychainError, errorString))
        setAvailability(Availability::Unavailable, *reason);
    else
        setAvailability(Availability::Available);
}

void KeychainSecretStore::checkAvailability(int retryDelayMs)
{
    ++m_probeGeneration;
    setAvailability(Availability::Checking);
    probe(1, retryDelayMs);
}

void KeychainSecretStore::probe(int attempt, int retryDelayMs)
{
    const quint64 generation = m_probeGeneration;
    QPointer<KeychainSecretStore> self(this);
    const auto finish = [self, generation, attempt, retryDelayMs](int error, const QString &text) {
        if (!self || generation != self->m_probeGeneration)
            return;
        const std::optional<QString> reason = unavailabilityFor(error, text);
        if (!reason) {
            qCInfo(lcSecrets) << "system keychain available";
            self->setAvailability(Availability::Available);
            return;
        }
        // A prompt the user cancelled is an answer: asking again would only bring it back.
        if (attempt == 1 && error != QKeychain::AccessDeniedByUser) {
            // A keyring daemon started with the session may not be up yet: try once more.
            qCInfo(lcSecrets).noquote()
                << u"system keychain not usable yet (%1), retrying in %2 ms"_s.arg(text).arg(
                       retryDelayMs);
            QTimer::singleShot(retryDelayMs, self, [self, retryDelayMs] {
                self->probe(2, retryDelayMs);
            });
            return;
        }
        qCWarning(lcSecrets).noquote() << *reason;
        self->setAvailability(Availability::Unavailable, *reason);
    };
    // Writing (and deleting) an entry is the only reliable probe: reading a missing entry
    // succeeds with EntryNotFound even where nothing can be stored.
    auto *writeJob = new QKeychain::WritePasswordJob(m_service, this);
    writeJob->setAutoDelete(true);
    writeJob->setInsecureFallback(false);
    writeJob->setKey(QString::fromLatin1(ProbeKey));
    writeJob->setTextData(u"probe"_s);
    connect(writeJob, &QKeychain::Job::finished, this, [this, finish](QKeychain::Job *job) {
        if (job->error() != QKeychain::NoError) {
            finish(job->error(), job->errorString());
            return;
        }
        auto *deleteJob = new QKeychain::DeletePasswordJob(m_service, this);
        deleteJob->setAutoDelete(true);
        deleteJob->setKey(QString::fromLatin1(ProbeKey));
        connect(deleteJob, &QKeychain::Job::finished, this, [finish](QKeychain::Job *deleted) {
            const int error = deleted->error() == QKeychain::EntryNotFound ? int(QKeychain::NoError)
                                                                            : int(deleted->error());
            finish(error, deleted->errorString());
        });
        deleteJob->start();
    });
    writeJob->start();
}

void KeychainSecretStore::read(const QString &key, ReadCallback done)
{
    auto *job = new QKeychain::ReadPasswordJob(m_service, this);
    job->setAutoDelete(true);
    job->setInsecureFallback(false);
    job->setKey(key);
    connect(job, &QKeychain::Job::finished, this, [this, done](QKeychain::Job *finished) {
        auto *readJob = static_cast<QKeychain::ReadPasswordJob *>(finished);
        switch (readJob->error()) {
        case QKeychain::NoError:
            setAvailability(Availability::Available);
            done(std::optional<QString>(readJob->textData()));
            return;
        case QKeychain::EntryNotFound:
            setAvailability(Availability::Available);
            done(std::optional<QString>());
            return;
        default:
            noteResult(readJob->error(), readJob->errorString());
            done(Error(u"cannot read from the system keychain: %1"_s.arg(
                unavailabilityFor(readJob->error(), readJob->errorString())
                    .value_or(keychainErrorText(readJob->error(), readJob->errorString())))));
        }
    });
    job->start();
}

void KeychainSecretStore::write(const QString &key, const QString &value, DoneCallback done)
{
    auto *job = new QKeychain::WritePasswordJob(m_service, this);
    job->setAutoDelete(true);
    job->setInsecureFallback(false);
    job->setKey(key);
    job->setTextData(value);
    connect(job, &QKeychain::Job::finished, this, [this, done](QKeychain::Job *finished) {
        if (finished->error() == QKeychain::NoError) {
            setAvailability(Availability::Available);
            done({});
            return;
        }
        noteResult(finished->error(), finished->errorString());
        done(Error(u"cannot store the secret in the system keychain: %1"_s.arg(
            unavailabilityFor(finished->error(), finished->errorString())
                .value_or(keychainErrorText(finished->error(), finished->errorString())))));
    });
    job->start();
}

void KeychainSecretStore::remove(const QString &key, DoneCallback done)
{
    auto *job = new QKeychain::DeletePasswordJob(m_service, this);
    job->setAutoDelete(true);
    job->setInsecureFallback(false);
    job->setKey(key);
    connect(job, &QKeychain::Job::finished, this, [this, done](QKeychain::Job *finished) {
        if (finished->error() == QKeychain::NoError
            || finished->error() == QKeychain::EntryNotFound) {
            setAvailability(Availability::Available);
            done({});
            return;
        }
        noteResult(finished->error(), finished->errorString());
        done(Error(u"cannot delete the secret from the system keychain: %1"_s.arg(
            unavailabilityFor(finished->error(), finished->errorString())
                .value_or(keychainErrorText(finished->error(), finished->errorString())))));
    });
    job->start();
}

QString KeychainSecretStore::description() const
{
    return u"system keychain"_s;
}

} // namespace EventDesk
