// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>

namespace EventDesk::Testing {

// Every dead-letter record below a local container folder: the objects of every blob (*.json,
// each a JSON array, SPEC L6), in no particular order.
QList<QJsonObject> deadLetterRecordsBelow(const QString &folder);

} // namespace EventDesk::Testing
