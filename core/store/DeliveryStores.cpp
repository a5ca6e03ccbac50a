// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "DeliveryStores.h"

#include "SqliteDeliveryStore.h"

#if EVENTDESK_WITH_POSTGRESQL
#include "PostgresDeliveryStore.h"
#endif

using namespace Qt::StringLiterals;

namespace EventDesk {

Expected<std::unique_ptr<DeliveryStore>> openDeliveryStore(const QString &location,
                                                           const QString &sqliteFilePath)
{
    if (const QString problem = storeLocationProblem(location); !problem.isEmpty())
        return Error(u"The store location %1"_s.arg(problem));
    if (location.isEmpty()) {
        auto store = std::make_unique<SqliteDeliveryStore>();
        if (auto opened = store->open(sqliteFilePath); !opened)
            return Error(opened.error());
        return std::unique_ptr<DeliveryStore>(std::move(store));
    }
#if EVENTDESK_WITH_POSTGRESQL
    auto store = std::make_unique<PostgresDeliveryStore>();
    if (auto opened = store->open(location); !opened)
        return Error(opened.error());
    return std::unique_ptr<DeliveryStore>(std::move(store));
#else
    return Error(u"The store location %1"_s.arg(storeLocationProblem(location)));
#endif
}

} // namespace EventDesk
