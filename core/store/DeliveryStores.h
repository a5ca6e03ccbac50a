// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "DeliveryStore.h"
#include "StoreLocation.h"

#include <QString>

#include <memory>

namespace EventDesk {

// Where an engine keeps its deliveries: the one place that turns a store location (see
// StoreLocation.h) into a store.

// Opens the store at location; sqliteFilePath is the workspace's store file, used when location
// is empty. The error names the store (a PostgreSQL URL without its password).
Expected<std::unique_ptr<DeliveryStore>> openDeliveryStore(const QString &location,
                                                           const QString &sqliteFilePath);

} // namespace EventDesk
