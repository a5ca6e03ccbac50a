// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "StoreOpener.h"

#include "../store/sqlite/SqliteDeliveryStore.h"
#include "../store/sqlite/SqliteStoreReader.h"

#if EVENTDESK_WITH_POSTGRESQL
#include "../store/postgres/PostgresDeliveryStore.h"
#include "../store/postgres/PostgresStoreReader.h"
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

Expected<std::unique_ptr<DeliveryStoreReader>> openDeliveryStoreReader(const QString &location)
{
    if (!isPostgresLocation(location)) {
        auto reader = std::make_unique<SqliteStoreReader>(location);
        if (auto opened = reader->open(); !opened)
            return Error(opened.error());
        return std::unique_ptr<DeliveryStoreReader>(std::move(reader));
    }
    if (const QString problem = storeLocationProblem(location); !problem.isEmpty())
        return Error(u"The store location %1"_s.arg(problem));
#if EVENTDESK_WITH_POSTGRESQL
    auto reader = std::make_unique<PostgresStoreReader>(location);
    if (auto opened = reader->open(); !opened)
        return Error(opened.error());
    return std::unique_ptr<DeliveryStoreReader>(std::move(reader));
#else
    return Error(u"The store location %1"_s.arg(storeLocationProblem(location)));
#endif
}

} // namespace EventDesk
