// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>

namespace EventDesk {

// The locations of a store (openDeliveryStore() and openDeliveryStoreReader(),
// core/host/StoreOpener.h):
//   ""                                     the workspace's SQLite file (the default)
//   postgresql://user@host:port/database   a PostgreSQL database (also postgres://...)

// Whether location names a PostgreSQL store (postgresql://... or postgres://...) rather than a
// SQLite file.
bool isPostgresLocation(const QString &location);
// The accepted forms, for the error of a location that is none of them.
QString storeLocationForms();
// Whether this build has the PostgreSQL store (CMake option EVENTDESK_WITH_POSTGRESQL).
bool hasPostgresStore();
// Checks a location without opening it: why it cannot be used (not one of the forms, or a
// PostgreSQL URL in a build without PostgreSQL), or an empty string.
QString storeLocationProblem(const QString &location);

// The location as it may be shown: a password (after the user, or a password= parameter)
// replaced by "***". Errors and logs name a store only this way.
QString redactedStoreLocation(const QString &location);

} // namespace EventDesk
