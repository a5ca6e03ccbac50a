// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "StoreLocation.h"

#include <QUrl>
#include <QUrlQuery>

using namespace Qt::StringLiterals;

namespace EventDesk {

bool isPostgresLocation(const QString &location)
{
    return location.startsWith(u"postgresql://"_s, Qt::CaseInsensitive)
        || location.startsWith(u"postgres://"_s, Qt::CaseInsensitive);
}

QString storeLocationForms()
{
    return u"postgresql://USER@HOST:PORT/DATABASE (or postgres://...), or nothing for the "
           "workspace's own SQLite store"_s;
}

QString redactedStoreLocation(const QString &location)
{
    // Any URL, not only PostgreSQL's: a mistyped scheme must not print the password either.
    if (!location.contains(u"://"_s))
        return location;
    QUrl url(location, QUrl::TolerantMode);
    if (!url.isValid())
        return u"(a URL that could not be read)"_s;
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
    if (!isPostgresLocation(location))
        return u"must be %1"_s.arg(storeLocationForms());
    if (!hasPostgresStore()) {
        return u"this build of EventDesk has no PostgreSQL support (it was configured with "
               "-DEVENTDESK_WITH_POSTGRESQL=OFF)"_s;
    }
    return {};
}

} // namespace EventDesk
