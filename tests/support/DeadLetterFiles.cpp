// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "DeadLetterFiles.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace EventDesk::Testing {

QList<QJsonObject> deadLetterRecordsBelow(const QString &folder)
{
    QList<QJsonObject> records;
    QDirIterator files(folder, {u"*.json"_s}, QDir::Files, QDirIterator::Subdirectories);
    while (files.hasNext()) {
        QFile file(files.next());
        if (!file.open(QIODevice::ReadOnly))
            continue;
        const QJsonArray blob = QJsonDocument::fromJson(file.readAll()).array();
        for (const QJsonValue &record : blob)
            records.append(record.toObject());
    }
    return records;
}

} // namespace EventDesk::Testing
