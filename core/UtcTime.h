// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QDateTime>
#include <QTimeZone>
#include <QtGlobal>

namespace EventDesk {

// A point in time as a UTC QDateTime. Qt 6.8 deprecates the Qt::TimeSpec overloads in favour of
// QTimeZone::UTC, which only exists from Qt 6.5 on (Debian 12 has 6.4).
inline QDateTime utcDateTime(qint64 msSinceEpoch)
{
#if QT_VERSION >= QT_VERSION_CHECK(6, 5, 0)
    return QDateTime::fromMSecsSinceEpoch(msSinceEpoch, QTimeZone::UTC);
#else
    return QDateTime::fromMSecsSinceEpoch(msSinceEpoch, Qt::UTC);
#endif
}

} // namespace EventDesk
