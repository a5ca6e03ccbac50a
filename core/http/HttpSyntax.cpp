// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "HttpSyntax.h"

#include <algorithm>

#include <QList>

#include <limits>

using namespace Qt::StringLiterals;

namespace EventDesk::HttpSyntax {

namespace {

bool isWhitespace(char c)
{
    return c == ' ' || c == '\t';
}

int hexDigitValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

// RFC 9110 §5.6.4: quoted-string, starting at text[position] == '"'. Returns the position after
// the closing quote, or -1. CR and LF are never part of one, so a quoted string cannot hide a line
// end from this parser while another one sees it.
qsizetype skipQuotedString(QByteArrayView text, qsizetype position)
{
    const auto isText = [](uchar c) {
        return c == '\t' || c == ' ' || (c >= 0x21 && c != 0x7F);
    };
    for (++position; position < text.size(); ++position) {
        const uchar c = uchar(text.at(position));
        if (c == '"')
            return position + 1;
        if (c == '\\') {
            if (++position >= text.size() || !isText(uchar(text.at(position))))
                return -1;
            continue;
        }
        if (!isText(c))
            return -1;
    }
    return -1;
}

qsizetype skipToken(QByteArrayView text, qsizetype position)
{
    while (position < text.size() && isTokenCharacter(text.at(position)))
        ++position;
    return position;
}

qsizetype skipWhitespace(QByteArrayView text, qsizetype position)
{
    while (position < text.size() && isWhitespace(text.at(position)))
        ++position;
    return position;
}

} // namespace

bool isTokenCharacter(char c)
{
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
        return true;
    return QByteArrayView("!#$%&'*+-.^_`|~").contains(c);
}

bool isToken(QByteArrayView text)
{
    return !text.isEmpty() && skipToken(text, 0) == text.size();
}

QByteArrayView trimmedWhitespace(QByteArrayView text)
{
    qsizetype begin = 0;
    qsizetype end = text.size();
    while (begin < end && isWhitespace(text.at(begin)))
        ++begin;
    while (end > begin && isWhitespace(text.at(end - 1)))
        --end;
    return text.sliced(begin, end - begin);
}

bool isFieldValue(QByteArrayView value)
{
    for (const char c : value) {
        const uchar byte = uchar(c);
        if ((byte < 0x20 && byte != '\t') || byte == 0x7F)
            return false;
    }
    return true;
}

qint64 parseContentLength(QByteArrayView value)
{
    if (value.isEmpty())
        return -1;
    qint64 length = 0;
    for (const char c : value) {
        if (c < '0' || c > '9')
            return -1;
        if (length > (std::numeric_limits<qint64>::max() - (c - '0')) / 10)
            return -1;
        length = length * 10 + (c - '0');
    }
    return length;
}

Expected<ChunkSizeLine> parseChunkSizeLine(QByteArrayView line)
{
    ChunkSizeLine result;
    qsizetype position = 0;
    while (position < line.size()) {
        const int digit = hexDigitValue(line.at(position));
        if (digit < 0)
            break;
        if (result.size > (std::numeric_limits<qint64>::max() >> 4))
            return Error(u"a chunk size is out of range"_s);
        result.size = result.size * 16 + digit;
        ++position;
    }
    if (position == 0)
        return Error(u"a chunk size is not a hexadecimal number"_s);
    result.extensionBytes = line.size() - position;
    while (position < line.size()) {
        position = skipWhitespace(line, position);
        if (position >= line.size() || line.at(position) != ';')
            return Error(u"a chunk size is followed by something other than a chunk extension"_s);
        position = skipWhitespace(line, position + 1);
        const qsizetype nameEnd = skipToken(line, position);
        if (nameEnd == position)
            return Error(u"a chunk extension has no name"_s);
        position = nameEnd;
        const qsizetype beforeEquals = skipWhitespace(line, position);
        if (beforeEquals < line.size() && line.at(beforeEquals) == '=') {
            position = skipWhitespace(line, beforeEquals + 1);
            if (position < line.size() && line.at(position) == '"') {
                position = skipQuotedString(line, position);
                if (position < 0)
                    return Error(u"a chunk extension has a malformed quoted value"_s);
            } else {
                const qsizetype valueEnd = skipToken(line, position);
                if (valueEnd == position)
                    return Error(u"a chunk extension has an empty or malformed value"_s);
                position = valueEnd;
            }
        }
    }
    return result;
}

QList<QByteArrayView> listElements(QByteArrayView value)
{
    QList<QByteArrayView> elements;
    for (qsizetype begin = 0; begin <= value.size();) {
        qsizetype end = value.indexOf(',', begin);
        if (end < 0)
            end = value.size();
        const QByteArrayView element = trimmedWhitespace(value.sliced(begin, end - begin));
        if (!element.isEmpty())
            elements.append(element);
        begin = end + 1;
    }
    return elements;
}

bool listsToken(QByteArrayView value, QByteArrayView token)
{
    const QList<QByteArrayView> elements = listElements(value);
    return std::any_of(elements.cbegin(), elements.cend(), [token](QByteArrayView element) {
        return element.compare(token, Qt::CaseInsensitive) == 0;
    });
}

TransferEncoding classifyTransferEncoding(QByteArrayView value)
{
    const QList<QByteArrayView> codings = listElements(value);
    const auto isChunked = [](QByteArrayView coding) {
        return coding.compare("chunked", Qt::CaseInsensitive) == 0;
    };
    // RFC 9112 §6.3: unless chunked is the final coding, the length cannot be determined; and
    // §7.1: chunked is never applied twice.
    if (codings.isEmpty() || !isChunked(codings.constLast()))
        return TransferEncoding::Invalid;
    for (qsizetype i = 0; i + 1 < codings.size(); ++i) {
        const QByteArrayView coding = codings.at(i);
        const qsizetype parameters = coding.indexOf(';');
        if (isChunked(coding)
            || !isToken(trimmedWhitespace(parameters < 0 ? coding : coding.first(parameters))))
            return TransferEncoding::Invalid;
    }
    return codings.size() == 1 ? TransferEncoding::Chunked
                               : TransferEncoding::ChunkedAfterOtherCoding;
}

} // namespace EventDesk::HttpSyntax
