// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "EventScanner.h"

#include <bit>
#include <cstring>

namespace EventDesk {

namespace {

// QJsonDocument's answers that the subset in EventScanner.h rests on (Qt 6.4, measured with
// small programs rather than assumed; tst_eventscanner checks them against it):
// - it accepts raw control characters (U+0000-U+001F) and DEL inside strings;
// - it refuses overlong UTF-8, encoded surrogates, code points above U+10FFFF, stray continuation
//   bytes and truncated sequences, and accepts noncharacters such as U+FFFE;
// - it drops U+FEFF at the start of a string; a key "\xEF\xBB\xBFid" is listed as "id" by
//   QJsonObject::keys() but not found by value("id");
// - it accepts any character after a backslash (\a reads as a), and \u escapes of lone surrogates;
// - it accepts 1. and .5 as numbers and refuses leading zeros (01), and numbers that overflow or
//   underflow a double (1e400, 1e-400);
// - a repeated key keeps its last value.
// The scanner takes the first two as measured and declines the others (escapes beyond JSON's,
// numbers outside its bounds, keys and fields that start with U+FEFF, a wanted member named
// twice): QJsonDocument decides those.

constexpr int MaxNumberLength = 32;
constexpr int MaxExponentDigits = 2;

constexpr quint64 EveryByte = 0x0101010101010101;
constexpr quint64 HighBits = 0x8080808080808080;

constexpr quint64 hasZeroByte(quint64 word)
{
    return (word - EveryByte) & ~word & HighBits;
}

// The top bit of each of the eight bytes that is a quote, a backslash or not ASCII: the bytes a
// string scan must stop at. Event payloads are mostly string contents, so strings are skipped a
// word at a time. Only the lowest set bit is exact (a borrow can mark the byte above a match).
constexpr quint64 stringStops(quint64 word)
{
    return hasZeroByte(word ^ (EveryByte * '"')) | hasZeroByte(word ^ (EveryByte * '\\'))
        | (word & HighBits);
}

bool isDigit(char character)
{
    return character >= '0' && character <= '9';
}

bool isHexDigit(char character)
{
    return isDigit(character) || (character >= 'a' && character <= 'f')
        || (character >= 'A' && character <= 'F');
}

// The end of the escape sequence that starts with the backslash at `at`, or nullptr when it is
// not one the scanner accepts.
const char *escapeEnd(const char *at, const char *end)
{
    if (end - at < 2)
        return nullptr;
    switch (at[1]) {
    case '"':
    case '\\':
    case '/':
    case 'b':
    case 'f':
    case 'n':
    case 'r':
    case 't':
        return at + 2;
    case 'u':
        if (end - at < 6)
            return nullptr;
        for (int index = 2; index < 6; ++index) {
            if (!isHexDigit(at[index]))
                return nullptr;
        }
        return at + 6;
    default:
        return nullptr;
    }
}

// The end of the UTF-8 sequence of two to four bytes that starts at `at`, or nullptr when it is not
// well formed (Unicode table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF).
const char *utf8SequenceEnd(const char *at, const char *end)
{
    const auto byteAt = [at](qsizetype offset) {
        return uchar(at[offset]);
    };
    const uchar lead = byteAt(0);
    qsizetype length = 0;
    uchar secondLow = 0x80;
    uchar secondHigh = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        if (lead == 0xE0)
            secondLow = 0xA0;
        else if (lead == 0xED)
            secondHigh = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        if (lead == 0xF0)
            secondLow = 0x90;
        else if (lead == 0xF4)
            secondHigh = 0x8F;
    } else {
        return nullptr;
    }
    if (end - at < length || byteAt(1) < secondLow || byteAt(1) > secondHigh)
        return nullptr;
    for (qsizetype offset = 2; offset < length; ++offset) {
        if (byteAt(offset) < 0x80 || byteAt(offset) > 0xBF)
            return nullptr;
    }
    return at + length;
}

class Reader
{
public:
    explicit Reader(QByteArrayView json)
        : m_at(json.data())
        , m_end(json.data() + json.size())
    {
    }

    bool topLevelObject(std::span<const QLatin1StringView> names, std::span<ScannedMember> members);

private:
    void skipSpace();
    bool value(int depth, ScannedMember *member);
    bool object(int depth);
    bool array(int depth);
    bool string(ScannedMember *member);
    bool number();
    bool literal(QByteArrayView word);
    ScannedMember *memberNamed(QByteArrayView key, std::span<const QLatin1StringView> names,
                               std::span<ScannedMember> members) const;

    const char *m_at;
    const char *const m_end;
};

void Reader::skipSpace()
{
    while (m_at < m_end && (*m_at == ' ' || *m_at == '\n' || *m_at == '\r' || *m_at == '\t'))
        ++m_at;
}

ScannedMember *Reader::memberNamed(QByteArrayView key, std::span<const QLatin1StringView> names,
                                   std::span<ScannedMember> members) const
{
    for (size_t index = 0; index < names.size(); ++index) {
        if (names[index].size() == key.size()
            && std::memcmp(names[index].data(), key.data(), size_t(key.size())) == 0) {
            return &members[index];
        }
    }
    return nullptr;
}

bool Reader::topLevelObject(std::span<const QLatin1StringView> names,
                            std::span<ScannedMember> members)
{
    for (ScannedMember &member : members)
        member = ScannedMember();
    skipSpace();
    if (m_at == m_end || *m_at != '{')
        return false;
    ++m_at;
    skipSpace();
    if (m_at < m_end && *m_at == '}') {
        ++m_at;
    } else {
        for (;;) {
            if (m_at == m_end || *m_at != '"')
                return false;
            ScannedMember key;
            if (!string(&key) || key.kind != ScannedMember::Kind::PlainString)
                return false;
            skipSpace();
            if (m_at == m_end || *m_at != ':')
                return false;
            ++m_at;
            skipSpace();
            ScannedMember *member = memberNamed(key.text, names, members);
            // A repeated member: QJsonDocument keeps the last value, the parser reads it there.
            if (member && member->kind != ScannedMember::Kind::Absent)
                return false;
            if (!value(1, member))
                return false;
            skipSpace();
            if (m_at == m_end)
                return false;
            if (*m_at == '}') {
                ++m_at;
                break;
            }
            if (*m_at != ',')
                return false;
            ++m_at;
            skipSpace();
        }
    }
    skipSpace();
    return m_at == m_end;
}

// depth: that of the container holding the value (the top-level object is 1).
bool Reader::value(int depth, ScannedMember *member)
{
    if (m_at == m_end)
        return false;
    ScannedMember::Kind kind = ScannedMember::Kind::OtherValue;
    bool valid = false;
    switch (*m_at) {
    case '"':
        return string(member);
    case '{':
        valid = object(depth + 1);
        break;
    case '[':
        valid = array(depth + 1);
        break;
    case 't':
        valid = literal("true");
        break;
    case 'f':
        valid = literal("false");
        break;
    case 'n':
        valid = literal("null");
        kind = ScannedMember::Kind::Null;
        break;
    default:
        valid = number();
        break;
    }
    if (member)
        member->kind = kind;
    return valid;
}

// A nested object; its keys are validated as strings and not looked at.
bool Reader::object(int depth)
{
    if (depth > EventScanner::MaxDepth)
        return false;
    ++m_at;
    skipSpace();
    if (m_at < m_end && *m_at == '}') {
        ++m_at;
        return true;
    }
    for (;;) {
        if (m_at == m_end || *m_at != '"' || !string(nullptr))
            return false;
        skipSpace();
        if (m_at == m_end || *m_at != ':')
            return false;
        ++m_at;
        skipSpace();
        if (!value(depth, nullptr))
            return false;
        skipSpace();
        if (m_at == m_end)
            return false;
        if (*m_at == '}') {
            ++m_at;
            return true;
        }
        if (*m_at != ',')
            return false;
        ++m_at;
        skipSpace();
    }
}

bool Reader::array(int depth)
{
    if (depth > EventScanner::MaxDepth)
        return false;
    ++m_at;
    skipSpace();
    if (m_at < m_end && *m_at == ']') {
        ++m_at;
        return true;
    }
    for (;;) {
        if (!value(depth, nullptr))
            return false;
        skipSpace();
        if (m_at == m_end)
            return false;
        if (*m_at == ']') {
            ++m_at;
            return true;
        }
        if (*m_at != ',')
            return false;
        ++m_at;
        skipSpace();
    }
}

// m_at is at the opening quote; on success it is just past the closing one.
bool Reader::string(ScannedMember *member)
{
    const char *const start = m_at + 1;
    const char *at = start;
    bool plain = !(m_end - start >= 3 && std::memcmp(start, "\xEF\xBB\xBF", 3) == 0);
    for (;;) {
        quint64 word;
        while (m_end - at >= qsizetype(sizeof word)) {
            std::memcpy(&word, at, sizeof word);
            if (const quint64 stops = stringStops(word)) {
                // The first byte in memory is the lowest only on a little-endian machine;
                // elsewhere the bytes before the stop are stepped over one by one below.
                if constexpr (std::endian::native == std::endian::little)
                    at += std::countr_zero(stops) / 8;
                break;
            }
            at += sizeof word;
        }
        if (at == m_end)
            return false;
        const char character = *at;
        if (character == '"') {
            if (member) {
                member->kind
                    = plain ? ScannedMember::Kind::PlainString : ScannedMember::Kind::OtherValue;
                member->text = QByteArrayView(start, at - start);
            }
            m_at = at + 1;
            return true;
        }
        if (character == '\\') {
            plain = false;
            at = escapeEnd(at, m_end);
        } else if (uchar(character) >= 0x80) {
            at = utf8SequenceEnd(at, m_end);
        } else {
            ++at;
        }
        if (!at)
            return false;
    }
}

// -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]{1,2})?, at most MaxNumberLength characters: within
// those bounds every number is a finite, normal double, so QJsonDocument takes it.
bool Reader::number()
{
    const char *const start = m_at;
    const auto digits = [this] {
        const char *const first = m_at;
        while (m_at < m_end && isDigit(*m_at))
            ++m_at;
        return m_at - first;
    };
    if (*m_at == '-')
        ++m_at;
    if (m_at == m_end || !isDigit(*m_at))
        return false;
    if (*m_at == '0')
        ++m_at;
    else
        digits();
    if (m_at < m_end && *m_at == '.') {
        ++m_at;
        if (digits() == 0)
            return false;
    }
    if (m_at < m_end && (*m_at == 'e' || *m_at == 'E')) {
        ++m_at;
        if (m_at < m_end && (*m_at == '+' || *m_at == '-'))
            ++m_at;
        const qsizetype exponentDigits = digits();
        if (exponentDigits == 0 || exponentDigits > MaxExponentDigits)
            return false;
    }
    return m_at - start <= MaxNumberLength;
}

bool Reader::literal(QByteArrayView word)
{
    if (m_end - m_at < word.size() || std::memcmp(m_at, word.data(), size_t(word.size())) != 0)
        return false;
    m_at += word.size();
    return true;
}

} // namespace

bool EventScanner::scanObject(QByteArrayView json, std::span<const QLatin1StringView> names,
                              std::span<ScannedMember> members)
{
    Q_ASSERT(names.size() == members.size());
    return Reader(json).topLevelObject(names, members);
}

} // namespace EventDesk
