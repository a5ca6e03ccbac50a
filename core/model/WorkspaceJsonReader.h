// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

// Private to core/model: the reader that workspace.json's parser (topics, event subscriptions,
// settings) and the event subscription validator report through.

#include "../Expected.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QLatin1StringView>
#include <QString>

#include <optional>

namespace EventDesk::WorkspaceJson {

enum class Presence { Optional, Required };

// Reads typed fields out of JSON objects and keeps the first error only: a user fixes one
// problem at a time, and every later read after a failure is harmless (it returns a default).
class JsonReader final
{
public:
    bool failed() const { return m_error.has_value(); }
    Error error() const { return m_error.value_or(Error(QString())); }

    void fail(const QString &path, const QString &message);

    // Resource Manager exports write null for every unset optional property, so null counts as
    // absent.
    static bool isPresent(const QJsonObject &object, QLatin1StringView key);

    QJsonObject object(const QJsonObject &parent, QLatin1StringView key, const QString &parentPath,
                       Presence presence);
    QJsonArray array(const QJsonObject &parent, QLatin1StringView key, const QString &parentPath,
                     Presence presence);
    QString string(const QJsonObject &parent, QLatin1StringView key, const QString &parentPath,
                   Presence presence, const QString &defaultValue = QString());
    bool boolean(const QJsonObject &parent, QLatin1StringView key, const QString &parentPath,
                 bool defaultValue);
    // Wrong type (2.5, "3", true) and out of range get the same message: it states the range.
    int integer(const QJsonObject &parent, QLatin1StringView key, const QString &parentPath,
                int minimum, int maximum, int defaultValue);

    QJsonObject objectAt(const QJsonValue &value, const QString &path);
    QString stringAt(const QJsonValue &value, const QString &path);
    std::optional<double> numberAt(const QJsonValue &value, const QString &path);

    static QString integerRangeMessage(int minimum, int maximum, const QString &got);

private:
    QJsonValue present(const QJsonObject &parent, QLatin1StringView key, const QString &parentPath,
                       Presence presence, QLatin1StringView typeName);

    std::optional<Error> m_error;
};

} // namespace EventDesk::WorkspaceJson
