// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "JsonSupport.h"

#include <QLocale>

#include <cmath>

using namespace Qt::StringLiterals;

namespace EventDesk::JsonSupport {

QString joinPath(const QString &base, QLatin1StringView field)
{
    if (base.isEmpty())
        return QString(field);
    return base + u'.' + field;
}

QString indexPath(const QString &base, qsizetype index)
{
    return base + u'[' + QString::number(index) + u']';
}

QString formatNumber(double number)
{
    // Integers print without exponent or fraction so that "(got 31)" reads naturally.
    if (std::isfinite(number) && std::trunc(number) == number && std::fabs(number) < 1e15)
        return QString::number(qint64(number));
    return QString::number(number, 'g', QLocale::FloatingPointShortest);
}

QString describeValue(const QJsonValue &value)
{
    // Long strings are cut so that a message stays one readable line.
    constexpr qsizetype maxQuotedLength = 60;
    switch (value.type()) {
    case QJsonValue::Null:
        return u"null"_s;
    case QJsonValue::Bool:
        return value.toBool() ? u"true"_s : u"false"_s;
    case QJsonValue::Double:
        return formatNumber(value.toDouble());
    case QJsonValue::String: {
        QString text = value.toString();
        if (text.size() > maxQuotedLength)
            text = text.left(maxQuotedLength - 3) + u"..."_s;
        return u'"' + text + u'"';
    }
    case QJsonValue::Array:
        return u"an array"_s;
    case QJsonValue::Object:
        return u"an object"_s;
    case QJsonValue::Undefined:
        break;
    }
    return u"nothing"_s;
}

QString atPath(const QString &path, const QString &message)
{
    if (path.isEmpty())
        return message;
    return path + u": "_s + message;
}

} // namespace EventDesk::JsonSupport
