// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "secrets/SecretStore.h"

#include <optional>

namespace EventDesk {

// SecretStore on the operating system's keychain through QtKeychain (Secret Service / GNOME
// Keyring or KWallet on Linux, Keychain on macOS, Credential Manager on Windows). Service name
// "EventDesk", keys as in SecretKeys.
//
// QtKeychain 0.13 on Linux has no availability check and no working insecure fallback with
// libsecret, so checkAvailability() probes by writing and deleting an entry. A missing or locked
// keyring (NoBackendAvailable, OtherError, AccessDenied, "object does not exist") is tried once
// more shortly after start-up (not after the user cancelled the keychain's prompt); if it still
// fails the store is Unavailable with a reason the user can act on. It never falls back to another
// store by itself. The desktop app probes only once a workspace references a secret.
class KeychainSecretStore final : public SecretStore
{
    Q_OBJECT

public:
    static constexpr int DefaultRetryDelayMs = 2000;

    explicit KeychainSecretStore(QString service = QStringLiteral("EventDesk"),
                                 QObject *parent = nullptr);

    // Availability becomes Checking now, then Available or (after one retry) Unavailable.
    void checkAvailability(int retryDelayMs = DefaultRetryDelayMs);

    void read(const QString &key, ReadCallback done) override;
    void write(const QString &key, const QString &value, DoneCallback done) override;
    void remove(const QString &key, DoneCallback done) override;
    QString description() const override;
    bool mayPrompt() const override { return true; }

    // The user-facing reason when a QtKeychain error means "no usable keychain", else nullopt.
    static std::optional<QString> unavailabilityFor(int keychainError, const QString &errorString);

private:
    void probe(int attempt, int retryDelayMs);
    void noteResult(int keychainError, const QString &errorString);

    QString m_service;
    quint64 m_probeGeneration = 0;
};

} // namespace EventDesk
