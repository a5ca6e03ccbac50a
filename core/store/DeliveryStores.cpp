// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "DeliveryStores.h"

#include "SqliteDeliveryStore.h"

#include <QUrl>
#include <QUrlQuery>

#if EVENTDESK_WITH_POSTGRESQL
#include "PostgresConnection.h"
#include "PostgresDeliveryStore.h"
#endif

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

bool looksLikePostgresUrl(const QString &location)
{
    return location.startsWith(u"postgresql://"_s, Qt::CaseInsensitive)
        || location.startsWith(u"postgres://"_s, Qt::CaseInsensitive);
}

} // namespace

QString storeLocationForms()
{
    return u"postgresql://USER@HOST:PORT/DATABASE (or postgres://...), or nothing for the "
           "workspace's own SQLite store"_s;
}

QString redactedStoreLocation(const QString &location)
{
    if (!looksLikePostgresUrl(location))
        return location;
    QUrl url(location, QUrl::TolerantMode);
    if (!url.isValid())
        return u"(a PostgreSQL URL that could not be read)"_s;
    if (!url.password().isEmpty())
        url.setPassword(u"***"_s);
    QUrlQuery query(url);
    if (query.hasQueryItem(u"password"_s)) {
        query.removeAllQueryItems(u"password"_s);
        query.addQueryItem(u"password"_s, u"***"_s);
        url.setQuery(query);
    }
    return url.toString();
}

bool hasPostgresStore()
{
    return EVENTDESK_WITH_POSTGRESQL != 0;
}

QString storeLocationProblem(const QString &location)
{
    if (location.isEmpty())
        return {};
    if (!looksLikePostgresUrl(location))
        return u"must be %1"_s.arg(storeLocationForms());
    if (!hasPostgresStore()) {
        return u"this build of EventDesk has no PostgreSQL support (it was configured with "
               "-DEVENTDESK_WITH_POSTGRESQL=OFF)"_s;
    }
    return {};
}

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
