// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../engine/Provisioning.h"

#include <QString>

namespace EventDesk {

// Keeps the subscriptions' provisioning state (endpoint validation) in the workspace folder as
// provisioning.json, written atomically. Lost or deleted, it only means endpoints are validated
// again at the next start.
class ProvisioningFile final : public ProvisioningStore
{
public:
    explicit ProvisioningFile(QString path);

    static QString defaultPath(const QString &workspaceDirectory);

    Expected<QList<ProvisioningRecord>> load() override;
    Expected<void> save(const QList<ProvisioningRecord> &records) override;

    // What load() reads and save() writes, without the file: the records of a provisioning.json
    // (path names the file in an error message) and its bytes.
    static Expected<QList<ProvisioningRecord>> fromJson(const QByteArray &json, const QString &path);
    static QByteArray toJson(const QList<ProvisioningRecord> &records);

    const QString &path() const { return m_path; }

private:
    QString m_path;
};

} // namespace EventDesk
