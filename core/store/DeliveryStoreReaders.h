// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "DeliveryStoreReader.h"

#include <QString>

#include <memory>

namespace EventDesk {

// Where the readers beside the engines read a store (DeliveryStoreReader.h): the one place that
// turns a location into a reader, as DeliveryStores.h does for the engines' stores.

// Whether location names a PostgreSQL store (postgresql://... or postgres://...) rather than a
// SQLite file.
bool isPostgresLocation(const QString &location);

// A reader of the store at location: a PostgreSQL URL (StoreLocation.h), or else the path of a
// workspace's SQLite file. It is opened at once; the error names the store. A PostgreSQL store
// that no engine has created (or migrated to this build's schema) yet is an error, never created
// here.
Expected<std::unique_ptr<DeliveryStoreReader>> openDeliveryStoreReader(const QString &location);

} // namespace EventDesk
