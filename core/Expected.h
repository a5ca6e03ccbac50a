// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>

#include <optional>
#include <utility>

namespace EventDesk {

// A failure a user can act on: the message names the field (or JSON path) and the valid range.
class Error final
{
public:
    explicit Error(QString message) : m_message(std::move(message)) {}
    const QString &message() const { return m_message; }

private:
    QString m_message;
};

// A value or an Error. Store and parser operations return this instead of a silent bool.
template <typename T>
class [[nodiscard]] Expected final
{
public:
    Expected(T value) : m_value(std::move(value)) {}
    Expected(Error error) : m_error(std::move(error)) {}

    bool hasValue() const { return m_value.has_value(); }
    explicit operator bool() const { return hasValue(); }

    const T &value() const & { return *m_value; }
    T &value() & { return *m_value; }
    T &&value() && { return std::move(*m_value); }
    const T *operator->() const { return &*m_value; }
    T *operator->() { return &*m_value; }

    QString error() const { return m_error ? m_error->message() : QString(); }

private:
    std::optional<T> m_value;
    std::optional<Error> m_error;
};

template <>
class [[nodiscard]] Expected<void> final
{
public:
    Expected() = default;
    Expected(Error error) : m_error(std::move(error)) {}

    bool hasValue() const { return !m_error.has_value(); }
    explicit operator bool() const { return hasValue(); }
    QString error() const { return m_error ? m_error->message() : QString(); }

private:
    std::optional<Error> m_error;
};

} // namespace EventDesk
