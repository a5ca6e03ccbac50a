// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "FolderDeadLetterSink.h"

#include "../Logging.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSaveFile>

using namespace Qt::StringLiterals;

namespace EventDesk {

FolderDeadLetterSink::FolderDeadLetterSink(QString rootDirectory)
    : m_root(std::move(rootDirectory))
{
}

QString FolderDeadLetterSink::containerPath(const QString &containerName) const
{
    return QDir(m_root).filePath(containerName);
}

bool FolderDeadLetterSink::isValidContainerName(const QString &name)
{
    static const QRegularExpression pattern(u"^[a-z0-9](?!.*--)[a-z0-9-]{1,61}[a-z0-9]$"_s);
    return pattern.match(name).hasMatch();
}

Expected<void> FolderDeadLetterSink::createContainer(const QString &rootDirectory,
                                                     const QString &containerName)
{
    if (!isValidContainerName(containerName))
        return Error(
            u"blobContainerName '%1': must be 3-63 lower-case letters, digits or hyphens"_s.arg(
                containerName));
    const QString path = QDir(rootDirectory).filePath(containerName);
    if (!QDir().mkpath(path))
        return Error(u"cannot create the dead-letter container folder %1"_s.arg(path));
    return {};
}

void FolderDeadLetterSink::write(const DeadLetterDestination &destination, const QString &blobName,
                                 const QByteArray &body, Callback done)
{
    const QString container = destination.blobContainerName;
    const QString containerDir = containerPath(container);
    // SPEC L4: a container that does not exist is an unavailable destination, not created here.
    if (container.isEmpty() || !QFileInfo(containerDir).isDir()) {
        done(Error(
            u"dead-letter container '%1' does not exist (%2)"_s.arg(container, containerDir)));
        return;
    }
    const QString filePath = QDir(containerDir).filePath(blobName);
    if (!QDir().mkpath(QFileInfo(filePath).absolutePath())) {
        done(Error(u"cannot create folder for %1"_s.arg(filePath)));
        return;
    }
    QSaveFile file(filePath);
    if (!file.open(QIODevice::WriteOnly)) {
        done(Error(u"cannot write %1: %2"_s.arg(filePath, file.errorString())));
        return;
    }
    if (file.write(body) != body.size() || !file.commit()) {
        done(Error(u"cannot write %1: %2"_s.arg(filePath, file.errorString())));
        return;
    }
    qCDebug(lcDeadLetter) << "wrote" << filePath;
    done(QString(container + u'/' + blobName));
}

} // namespace EventDesk
