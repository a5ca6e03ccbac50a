// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "WorkspaceJsonReader.h"

#include "JsonSupport.h"

#include <cmath>

using namespace Qt::StringLiterals;

namespace EventDesk::WorkspaceJson {

using JsonSupport::atPath;
using JsonSupport::describeValue;
using JsonSupport::joinPath;

void JsonReader::fail(const QString &path, const QString &message)
{
    if (!m_error)
        m_error.emplace(atPath(path, message));
}

bool JsonReader::isPresent(const QJsonObject &object, QLatin1StringView key)
{
    const QJsonValue value = object.value(key);
    return !value.isUndefined() && !value.isNull();
}

QJsonObject JsonReader::object(const QJsonObject &parent, QLatin1StringView key,
                               const QString &parentPath, Presence presence)
{
    const QJsonValue value = present(parent, key, parentPath, presence, "object"_L1);
    if (value.isUndefined())
        return QJsonObject();
    return objectAt(value, joinPath(parentPath, key));
}

QJsonArray JsonReader::array(const QJsonObject &parent, QLatin1StringView key,
                             const QString &parentPath, Presence presence)
{
    const QJsonValue value = present(parent, key, parentPath, presence, "array"_L1);
    if (value.isUndefined())
        return QJsonArray();
    if (!value.isArray()) {
        fail(joinPath(parentPath, key), u"must be an array (got %1)"_s.arg(describeValue(value)));
        return QJsonArray();
    }
    return value.toArray();
}

QString JsonReader::string(const QJsonObject &parent, QLatin1StringView key,
                           const QString &parentPath, Presence presence,
                           const QString &defaultValue)
{
    const QJsonValue value = present(parent, key, parentPath, presence, "string"_L1);
    if (value.isUndefined())
        return defaultValue;
    return stringAt(value, joinPath(parentPath, key));
}

bool JsonReader::boolean(const QJsonObject &parent, QLatin1StringView key,
                         const QString &parentPath, bool defaultValue)
{
    const QJsonValue value = parent.value(key);
    if (value.isUndefined() || value.isNull())
        return defaultValue;
    if (!value.isBool()) {
        fail(joinPath(parentPath, key),
             u"must be true or false (got %1)"_s.arg(describeValue(value)));
        return defaultValue;
    }
    return value.toBool();
}

int JsonReader::integer(const QJsonObject &parent, QLatin1StringView key, const QString &parentPath,
                        int minimum, int maximum, int defaultValue)
{
    const QJsonValue value = parent.value(key);
    if (value.isUndefined() || value.isNull())
        return defaultValue;
    const double number = value.toDouble();
    if (!value.isDouble() || !std::isfinite(number) || std::trunc(number) != number
        || number < minimum || number > maximum) {
        fail(joinPath(parentPath, key),
             integerRangeMessage(minimum, maximum, describeValue(value)));
        return defaultValue;
    }
    return int(number);
}

QJsonObject JsonReader::objectAt(const QJsonValue &value, const QString &path)
{
    if (!value.isObject()) {
        fail(path, u"must be an object (got %1)"_s.arg(describeValue(value)));
        return QJsonObject();
    }
    return value.toObject();
}

QString JsonReader::stringAt(const QJsonValue &value, const QString &path)
{
    if (!value.isString()) {
        fail(path, u"must be a string (got %1)"_s.arg(describeValue(value)));
        return QString();
    }
    return value.toString();
}

std::optional<double> JsonReader::numberAt(const QJsonValue &value, const QString &path)
{
    if (!value.isDouble()) {
        fail(path, u"must be a number (got %1)"_s.arg(describeValue(value)));
        return std::nullopt;
    }
    return value.toDouble();
}

QString JsonReader::integerRangeMessage(int minimum, int maximum, const QString &got)
{
    return u"must be an integer from %1 to %2 (got %3)"_s.arg(minimum).arg(maximum).arg(got);
}

QJsonValue JsonReader::present(const QJsonObject &parent, QLatin1StringView key,
                               const QString &parentPath, Presence presence,
                               QLatin1StringView typeName)
{
    const QJsonValue value = parent.value(key);
    if (value.isUndefined() || value.isNull()) {
        if (presence == Presence::Required)
            fail(joinPath(parentPath, key), u"required %1 is missing"_s.arg(typeName));
        return QJsonValue(QJsonValue::Undefined);
    }
    return value;
}

} // namespace EventDesk::WorkspaceJson
