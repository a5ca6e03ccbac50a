// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QByteArray>
#include <QString>

// Looking at a store's files from the outside, for the store tests.
namespace EventDesk::StoreFiles {

// How many file descriptors of this process refer to filePath; -1 where that cannot be told
// (anything but Linux). A store that failed to open, or was closed, must hold none.
int openDescriptors(const QString &filePath);

// SHA-256 of the file's bytes (empty when it cannot be read): "left unchanged" made checkable.
QByteArray fileDigest(const QString &filePath);

} // namespace EventDesk::StoreFiles
