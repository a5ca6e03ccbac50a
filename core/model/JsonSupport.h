// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

// Private to core/model: wording shared by the workspace and publish parsers, so that every
// error names a JSON path and what was found there in the same way.

#include <QJsonValue>
#include <QString>

namespace EventDesk::JsonSupport {

// "a.b" + "c" -> "a.b.c"; "" + "c" -> "c".
QString joinPath(const QString &base, QLatin1StringView field);
// "a.b" + 3 -> "a.b[3]".
QString indexPath(const QString &base, qsizetype index);

// What a value is, for "(got ...)": numbers and short strings verbatim, containers by kind.
QString describeValue(const QJsonValue &value);
QString formatNumber(double number);

// Prefixes a message with its JSON path ("path: message"), or returns it alone for an empty path.
QString atPath(const QString &path, const QString &message);

} // namespace EventDesk::JsonSupport
