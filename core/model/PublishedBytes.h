// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

// Private to core/model: the published bytes of each event of a publish request.
//
// Events are stored and delivered as the bytes they were published in, minus the whitespace
// between tokens, instead of being serialised again from the parsed tree: serialising was the
// largest single cost of a publish (ARCHITECTURE: QJsonDocument writes ~73k 1 KB events/s per
// core), and the published bytes also keep what a round trip through QJsonValue loses (integers
// beyond 2^53, the publisher's key order). The scanner checks only an array's skeleton itself
// (splitArray); the values it copies are validated by QJsonDocument afterwards, each on its own or
// as the whole document, so it reports no other errors. It never reads past the end.

#include <QByteArray>
#include <QList>

#include <optional>

namespace EventDesk::PublishedBytes {

// The compact bytes of each element when body is a top-level array whose skeleton - brackets,
// commas, nothing after the closing bracket - is well formed; nullopt otherwise. The elements
// themselves are not validated here: each is parsed on its own afterwards. Each element is held
// in a buffer of its own size plus spare bytes (room for what the parser splices in).
std::optional<QList<QByteArray>> splitArray(const QByteArray &body, qsizetype spare);

// The compact bytes of each element of a top-level array, or of a top-level object alone; empty
// when the array's skeleton is not well formed.
QList<QByteArray> publishedValues(const QByteArray &body, qsizetype spare);

} // namespace EventDesk::PublishedBytes
