// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../Expected.h"

#include <QString>

namespace EventDesk {

// eventdeskd --import-workspace / --export-workspace: one action on the shared configuration of a
// PostgreSQL store, with no engine running. Each answers the line to print when it is done.
namespace SharedConfigurationTransfer {

// The topics and event subscriptions of the workspace.json file become the store's.
Expected<QString> importFile(const QString &storeLocation, const QString &file);
// The store's topics and event subscriptions, with the settings and test receivers of
// workspaceDirectory's workspace.json when it has one, written to file.
Expected<QString> exportFile(const QString &storeLocation, const QString &file,
                             const QString &workspaceDirectory);

} // namespace SharedConfigurationTransfer

} // namespace EventDesk
