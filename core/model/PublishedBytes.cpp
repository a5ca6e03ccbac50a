// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "PublishedBytes.h"

#include <cstring>

namespace EventDesk::PublishedBytes {

namespace {

bool isJsonSpace(char character)
{
    return character == ' ' || character == '\n' || character == '\r' || character == '\t';
}

// A byte that can be part of a number or of true, false and null.
bool isLiteralByte(char character)
{
    return (character >= '0' && character <= '9') || (character >= 'a' && character <= 'z')
        || (character >= 'A' && character <= 'Z') || character == '-' || character == '+'
        || character == '.';
}

qsizetype skipSpace(const char *data, qsizetype size, qsizetype at)
{
    while (at < size && isJsonSpace(data[at]))
        ++at;
    return at;
}

// Index just after the string whose opening quote is at data[at]. Event payloads are mostly
// string contents, so the closing quote is found with memchr; a quote preceded by an odd number
// of backslashes is escaped and the search goes on.
qsizetype skipString(const char *data, qsizetype size, qsizetype at)
{
    for (++at; at < size;) {
        const auto *quote = static_cast<const char *>(std::memchr(data + at, '"', size_t(size - at)));
        if (!quote)
            return size;
        const qsizetype position = quote - data;
        qsizetype backslashes = 0;
        while (position - 1 - backslashes >= at && data[position - 1 - backslashes] == '\\')
            ++backslashes;
        if (backslashes % 2 == 0)
            return position + 1;
        at = position + 1;
    }
    return size;
}

// Appends the value that starts at data[at] to out without insignificant whitespace; returns
// the index just after it.
qsizetype appendCompactValue(const char *data, qsizetype size, qsizetype at, QByteArray *out)
{
    const qsizetype start = at;
    if (data[at] == '"') {
        at = skipString(data, size, at);
        out->append(data + start, at - start);
        return at;
    }
    if (data[at] != '{' && data[at] != '[') {
        while (at < size && !isJsonSpace(data[at]) && data[at] != ',' && data[at] != ']'
               && data[at] != '}')
            ++at;
        out->append(data + start, at - start);
        return at;
    }
    int depth = 0;
    qsizetype run = at; // start of the bytes not yet copied
    do {
        const char character = data[at];
        if (character == '"') {
            at = skipString(data, size, at);
        } else if (isJsonSpace(character)) {
            const qsizetype next = skipSpace(data, size, at);
            // Whitespace inside a literal (`1 2`, `tr ue`, `- 1`) separates two tokens, which
            // JSON does not allow there: it is kept, so that parsing the value refuses it
            // instead of reading `12` or `true`.
            if (next < size && isLiteralByte(data[at - 1]) && isLiteralByte(data[next])) {
                at = next;
                continue;
            }
            out->append(data + run, at - run);
            at = next;
            run = at;
        } else {
            if (character == '{' || character == '[')
                ++depth;
            else if (character == '}' || character == ']')
                --depth;
            ++at;
        }
    } while (depth > 0 && at < size);
    out->append(data + run, at - run);
    return at;
}

// A copy of the scanned bytes in a buffer of their own size plus spare (room for what is spliced
// in later): an event is held in memory until it is delivered, and the scan's buffer would keep
// several KB per 1 KB event.
QByteArray fitted(const QByteArray &scanned, qsizetype spare)
{
    QByteArray value;
    value.reserve(scanned.size() + spare);
    value.append(scanned.constData(), scanned.size());
    return value;
}

} // namespace

std::optional<QList<QByteArray>> splitArray(const QByteArray &body, qsizetype spare)
{
    const char *data = body.constData();
    const qsizetype size = body.size();
    qsizetype at = skipSpace(data, size, body.startsWith("\xEF\xBB\xBF") ? 3 : 0);
    if (at >= size || data[at] != '[')
        return std::nullopt;
    at = skipSpace(data, size, at + 1);
    QList<QByteArray> elements;
    if (at < size && data[at] == ']')
        return skipSpace(data, size, at + 1) == size ? std::optional(elements) : std::nullopt;
    QByteArray scanned;
    while (at < size) {
        const qsizetype start = at;
        scanned.resize(0);
        at = appendCompactValue(data, size, at, &scanned);
        if (at == start)
            return std::nullopt;
        elements.append(fitted(scanned, spare));
        at = skipSpace(data, size, at);
        if (at >= size)
            return std::nullopt;
        if (data[at] == ']')
            return skipSpace(data, size, at + 1) == size ? std::optional(elements) : std::nullopt;
        if (data[at] != ',')
            return std::nullopt;
        at = skipSpace(data, size, at + 1);
    }
    return std::nullopt;
}

QList<QByteArray> publishedValues(const QByteArray &body, qsizetype spare)
{
    QList<QByteArray> values;
    const char *data = body.constData();
    const qsizetype size = body.size();
    qsizetype at = body.startsWith("\xEF\xBB\xBF") ? 3 : 0;
    at = skipSpace(data, size, at);
    if (at >= size)
        return values;
    if (data[at] == '{') {
        QByteArray value;
        value.reserve(size - at + spare);
        appendCompactValue(data, size, at, &value);
        values.append(std::move(value));
        return values;
    }
    // Valid JSON always has a well-formed array skeleton; an empty list makes the caller
    // serialise the events from the parsed tree instead.
    return splitArray(body, spare).value_or(QList<QByteArray>());
}

} // namespace EventDesk::PublishedBytes
