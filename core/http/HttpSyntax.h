// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../Expected.h"

#include <QByteArrayView>
#include <QList>
#include <QtGlobal>

// The pieces of HTTP/1.1 message syntax (RFC 9110, RFC 9112) that decide how a message is framed,
// read the same way by both sides of core/http. HttpServer reads requests strictly: where a lenient
// reading could frame a request differently from a proxy in front of EventDesk (request smuggling),
// the request is refused instead. WebhookClient reads responses with the same rules; a response
// they refuse is a failed attempt.
namespace EventDesk::HttpSyntax {

// RFC 9110 §5.6.2: tchar, and a token of at least one of them (field names, coding names).
bool isTokenCharacter(char c);
bool isToken(QByteArrayView text);

// RFC 9110 §5.6.3: OWS is spaces and horizontal tabs only (not the other characters
// QByteArray::trimmed() removes, which a proxy would keep as part of the value).
QByteArrayView trimmedWhitespace(QByteArrayView text);

// RFC 9110 §5.6.1: the elements of a comma-separated list (Connection, Transfer-Encoding), each
// without its surrounding OWS; empty elements do not count.
QList<QByteArrayView> listElements(QByteArrayView value);
// Whether the list holds token, compared without regard to case ("close" in Connection).
bool listsToken(QByteArrayView value, QByteArrayView token);

// RFC 9110 §5.5: a field value holds no control character other than HTAB. CR, LF and NUL must
// be refused; the others are refused too, since parsers disagree about them.
bool isFieldValue(QByteArrayView value);

// RFC 9110 §8.6: Content-Length = 1*DIGIT. No sign, no inner space, no hex, no list; -1 for
// anything else, or for a number too large for qint64.
qint64 parseContentLength(QByteArrayView value);

// One chunk-size line (RFC 9112 §7.1), without its CRLF:
//   chunk-size [ chunk-ext ]           chunk-size = 1*HEXDIG
//   chunk-ext  = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )
// Extensions are checked but not used. The error names the problem (for the 400).
struct ChunkSizeLine
{
    qint64 size = 0;
    qsizetype extensionBytes = 0; // bytes after the size, counted against a per-request budget
};
Expected<ChunkSizeLine> parseChunkSizeLine(QByteArrayView line);

// What a request's Transfer-Encoding list (all its header lines, joined with ",") asks for.
enum class TransferEncoding {
    Chunked, // "chunked" alone: the body is read chunked
    ChunkedAfterOtherCoding, // "gzip, chunked": framed, but a coding EventDesk cannot undo (501)
    Invalid, // chunked missing, not last, or twice: the length cannot be determined (400)
};
TransferEncoding classifyTransferEncoding(QByteArrayView value);

} // namespace EventDesk::HttpSyntax
