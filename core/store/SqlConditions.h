// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QString>
#include <QtGlobal>

#include <variant>
#include <vector>

namespace EventDesk {

// "?,?,...,?": count parameters for an IN list.
QByteArray parameterList(int count);

// LIKE pattern (with ESCAPE '\') that matches text literally anywhere: '%', '_' and '\' in the
// text are no wildcards.
QString likeContainsPattern(const QString &text);

// The conditions of a WHERE clause, joined with AND, and the values of their placeholders in the
// order they appear.
class SqlConditions final
{
public:
    using Value = std::variant<qint64, QString>;

    // condition holds exactly one '?', for value.
    void add(QByteArrayView condition, Value value);

    bool isEmpty() const { return m_conditions.isEmpty(); }
    // " WHERE a AND b ...", or empty when there is no condition.
    QByteArray whereClause() const;
    // Binds the values to parameters 1, 2, ...; returns how many it bound, so that the caller
    // knows the position of its own parameters after them (a LIMIT, say).
    template<typename Statement> int bind(Statement &statement) const
    {
        int position = 0;
        for (const Value &value : m_values)
            std::visit([&](const auto &bound) { statement.bind(++position, bound); }, value);
        return position;
    }
    // The values in the order of their placeholders, for a backend that binds them itself.
    const std::vector<Value> &values() const { return m_values; }

private:
    QList<QByteArray> m_conditions;
    std::vector<Value> m_values;
};

} // namespace EventDesk
