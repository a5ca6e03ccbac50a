// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "StoreFiles.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStringList>

using namespace Qt::StringLiterals;

namespace EventDesk::StoreFiles {

int openDescriptors(const QString &filePath)
{
#ifdef Q_OS_LINUX
    const QString target = QFileInfo(filePath).canonicalFilePath();
    const QDir descriptors(u"/proc/self/fd"_s);
    int count = 0;
    const QStringList entries
        = descriptors.entryList(QDir::AllEntries | QDir::System | QDir::NoDotAndDotDot);
    for (const QString &entry : entries) {
        if (QFileInfo(descriptors.filePath(entry)).symLinkTarget() == target)
            ++count;
    }
    return count;
#else
    Q_UNUSED(filePath);
    return -1;
#endif
}

QByteArray fileDigest(const QString &filePath)
{
    QFile file(filePath);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QCryptographicHash::hash(file.readAll(), QCryptographicHash::Sha256);
}

} // namespace EventDesk::StoreFiles
