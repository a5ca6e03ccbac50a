// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "SqlConditions.h"

using namespace Qt::StringLiterals;

namespace EventDesk {

QByteArray parameterList(int count)
{
    QByteArray result;
    result.reserve(count * 2);
    for (int i = 0; i < count; ++i)
        result += i == 0 ? "?" : ",?";
    return result;
}

QString likeContainsPattern(const QString &text)
{
    QString escaped;
    escaped.reserve(text.size() + 2);
    escaped += u'%';
    for (const QChar character : text) {
        if (character == u'\\' || character == u'%' || character == u'_')
            escaped += u'\\';
        escaped += character;
    }
    escaped += u'%';
    return escaped;
}

void SqlConditions::add(QByteArrayView condition, Value value)
{
    m_conditions.append(condition.toByteArray());
    m_values.push_back(std::move(value));
}

QByteArray SqlConditions::whereClause() const
{
    if (m_conditions.isEmpty())
        return {};
    return " WHERE "_ba + m_conditions.join(" AND "_ba);
}

} // namespace EventDesk
