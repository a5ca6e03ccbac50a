// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../engine/DeadLetterSink.h"

#include <QByteArray>
#include <QString>

#include <functional>

namespace EventDesk {

// The workspace's local container folder: <root>/<blobContainerName>/<blobName>. Like a blob
// container, the container folder must exist (EventDesk creates it when a workspace is loaded);
// a missing folder counts as an unavailable destination (L4) and the write is retried.
class FolderDeadLetterSink final : public DeadLetterSink
{
public:
    explicit FolderDeadLetterSink(QString rootDirectory);

    void write(const DeadLetterDestination &destination, const QString &blobName,
               const QByteArray &body, Callback done) override;

    QString rootDirectory() const { return m_root; }
    QString containerPath(const QString &containerName) const;

    // Creates the container folders of every local dead-letter destination in the workspace.
    static Expected<void> createContainer(const QString &rootDirectory,
                                          const QString &containerName);

    // Blob container names (Azure rules): 3-63 chars, lower-case letters, digits and single
    // hyphens, starting and ending with a letter or digit.
    static bool isValidContainerName(const QString &name);

private:
    QString m_root;
};

} // namespace EventDesk
