// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../engine/Provisioning.h"

#include <QByteArray>
#include <QString>

namespace EventDesk {

// Keeps the subscriptions' provisioning state (endpoint validation) in the workspace folder as
// provisioning.json, written atomically and readable only by its owner (0600). Lost or deleted,
// it only means endpoints are validated again at the next start.
//
// An endpoint URL may carry the webhook's key ("?code=" of an Azure Function), so the file never
// holds the URL the engine validated: a record's fingerprint is written as the URL with its query
// values and password masked (for people reading the file), the delivery schema, and a keyed hash
// (HMAC-SHA256) of the whole fingerprint, which is what is compared. A change of the key alone
// changes the hash, so the endpoint is validated again. The hash key is random per file and kept
// in it ("fingerprintKey"): it keeps equal URLs of different workspaces from matching and rules
// out precomputed tables; a guessable secret could still be found by trying guesses against a
// copy of the file, which is why the file is 0600 too.
class ProvisioningFile final : public ProvisioningStore
{
public:
    // ReadOnly: load() never rewrites the file (a read-only monitor of another engine's
    // workspace). ReadWrite: load() rewrites a file written before fingerprints were hashed, or
    // one readable by others, at once.
    enum class Access { ReadWrite, ReadOnly };

    explicit ProvisioningFile(QString path, Access access = Access::ReadWrite);

    static QString defaultPath(const QString &workspaceDirectory);

    Expected<QList<ProvisioningRecord>> load() override;
    Expected<void> save(const QList<ProvisioningRecord> &records) override;
    QString storedFingerprint(const QString &fingerprint) const override;

    // What load() reads and save() writes, without the file: the records of a provisioning.json
    // (path names the file in an error message) and its bytes. fromJson() sets *needsRewrite when
    // the document holds what save() no longer writes (a fingerprint with the endpoint's URL).
    Expected<QList<ProvisioningRecord>> fromJson(const QByteArray &json, const QString &path,
                                                 bool *needsRewrite = nullptr);
    QByteArray toJson(const QList<ProvisioningRecord> &records) const;

    const QString &path() const { return m_path; }

    // The fingerprint as written: "<masked URL>|<schema>|hmac-sha256:<hex>" for an engine's
    // "<URL>|<schema>"; an empty one, or one already in that form, unchanged.
    static QString storedFingerprint(const QString &fingerprint, const QByteArray &key);

private:
    QString m_path;
    Access m_access;
    QByteArray m_fingerprintKey;
};

} // namespace EventDesk
