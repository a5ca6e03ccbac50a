// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../store/DeliveryStore.h"
#include "../store/DeliveryStoreReader.h"
#include "../store/StoreLocation.h"

#include <QString>

#include <memory>

namespace EventDesk {

// The one place that turns a store location (StoreLocation.h) into a backend: the SQLite file of
// a workspace (core/store/sqlite) or a PostgreSQL database (core/store/postgres).

// Opens the store an engine keeps its deliveries in; sqliteFilePath is the workspace's store
// file, used when location is empty. The error names the store (a PostgreSQL URL without its
// password).
Expected<std::unique_ptr<DeliveryStore>> openDeliveryStore(const QString &location,
                                                           const QString &sqliteFilePath);

// A reader of the store at location, for the views and monitors beside the engines: a PostgreSQL
// URL, or else the path of a workspace's SQLite file. It is opened at once; the error names the
// store. A PostgreSQL store that no engine has created (or migrated to this build's schema) yet
// is an error, never created here.
Expected<std::unique_ptr<DeliveryStoreReader>> openDeliveryStoreReader(const QString &location);

} // namespace EventDesk
