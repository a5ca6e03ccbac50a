// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "DeliveryStoreReaders.h"

#include "SqliteStoreReader.h"
#include "StoreLocation.h"

#if EVENTDESK_WITH_POSTGRESQL
#include "PostgresStoreReader.h"
#endif

using namespace Qt::StringLiterals;

namespace EventDesk {

bool isPostgresLocation(const QString &location)
{
    return location.startsWith(u"postgresql://"_s, Qt::CaseInsensitive)
        || location.startsWith(u"postgres://"_s, Qt::CaseInsensitive);
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
