// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

// Private to core/model: the publish parser's reader for one event object (SPEC S1, S2) that
// validates its JSON text in one pass and picks out the top-level members the parser needs,
// without building a QJsonObject.
//
// It accepts a subset of what QJsonDocument accepts, and reads the members it reports as
// QJsonDocument would. Whatever lies outside that subset - or is unusual, such as a wanted member
// named twice - makes it answer "not read", and the parser reads the event with QJsonDocument as
// before, which also words any rejection. So the scanner never decides a refusal or a message.

#include <QByteArrayView>
#include <QLatin1StringView>

#include <span>

namespace EventDesk {

// One top-level member the parser asked for, as the scanner found it.
struct ScannedMember
{
    enum class Kind : quint8 {
        Absent,
        Null,
        // A string without escapes that does not start with U+FEFF (QJsonDocument drops a leading
        // byte order mark from a string; a key so spelt then lists as the rest of it, yet
        // QJsonObject::value does not find it under that name).
        PlainString,
        // Any other value: a number, true or false, an object, an array, any other string.
        OtherValue,
    };
    Kind kind = Kind::Absent;
    QByteArrayView text; // PlainString: the UTF-8 bytes between the quotes
};

class EventScanner final
{
public:
    // Nesting deeper than this is left to QJsonDocument (whose own limit is far deeper).
    static constexpr int MaxDepth = 64;

    // Reads json, which must be one JSON object (whitespace around it allowed), and fills
    // members[i] for the top-level member called names[i] (names must be distinct and hold no
    // character that JSON escapes). Returns false when json is not an object in the subset below,
    // or a wanted member appears twice, or a top-level key has an escape or starts with U+FEFF;
    // members are then unspecified.
    //
    // The subset: RFC 8259 JSON with whitespace " \t\n\r"; strings of well-formed UTF-8 (any
    // control character is allowed raw, as QJsonDocument allows it) whose escapes are \" \\ \/
    // \b \f \n \r \t and \u with four hex digits; numbers of at most 32 characters with an
    // exponent of at most two digits (so that none overflows or underflows a double); nesting up
    // to MaxDepth.
    static bool scanObject(QByteArrayView json, std::span<const QLatin1StringView> names,
                           std::span<ScannedMember> members);
};

} // namespace EventDesk
