// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "SecretScan.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QUrl>

namespace EventDesk::Testing {

QList<QByteArray> secretForms(const QString &secret)
{
    const QByteArray utf8 = secret.toUtf8();
    QList<QByteArray> forms {utf8,
                             QByteArray(reinterpret_cast<const char *>(secret.utf16()),
                                        secret.size() * 2),
                             utf8.toBase64(), QUrl::toPercentEncoding(secret)};
    const auto decoded = QByteArray::fromBase64Encoding(utf8, QByteArray::AbortOnBase64DecodingErrors);
    if (decoded && decoded.decoded.size() >= 16) // short decodings would match by chance
        forms.append(decoded.decoded);
    forms.removeAll(QByteArray());
    return forms;
}

bool containsSecret(const QByteArray &text, const QString &secret)
{
    const QList<QByteArray> forms = secretForms(secret);
    return std::any_of(forms.cbegin(), forms.cend(),
                       [&text](const QByteArray &form) { return text.contains(form); });
}

QStringList filesContaining(const QString &directory, const QString &secret)
{
    QStringList found;
    QDirIterator it(directory, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly)) {
            found.append(path + QStringLiteral(" (unreadable)"));
            continue;
        }
        if (containsSecret(file.readAll(), secret))
            found.append(path);
    }
    return found;
}

QStringList allFiles(const QString &directory)
{
    QStringList files;
    QDirIterator it(directory, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext())
        files.append(QDir(directory).relativeFilePath(it.next()));
    files.sort();
    return files;
}

} // namespace EventDesk::Testing
