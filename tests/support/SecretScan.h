// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

namespace EventDesk::Testing {

// The forms a secret could take in a file or a log: its UTF-8 and UTF-16 text, its Base64, its
// percent-encoding, and - for a Base64 key, which is signed with in decoded form - the bytes it
// decodes to.
QList<QByteArray> secretForms(const QString &secret);

// Every file under directory (recursively, hidden ones too) whose bytes hold any form of secret;
// a file that cannot be read is listed with " (unreadable)".
QStringList filesContaining(const QString &directory, const QString &secret);

// Whether text holds any form of secret.
bool containsSecret(const QByteArray &text, const QString &secret);

// Every file under directory, relative to it, sorted.
QStringList allFiles(const QString &directory);

} // namespace EventDesk::Testing
