// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../Expected.h"
#include "../model/EventSubscription.h"

#include <QByteArray>
#include <QString>

#include <functional>

namespace EventDesk {

// Where dead-lettered events are written (SPEC L5). Writes are asynchronous for remote
// destinations; done is called exactly once, possibly before write() returns.
class DeadLetterSink
{
public:
    virtual ~DeadLetterSink() = default;

    // On success the callback receives the blob path "<container>/<blobName>".
    using Callback = std::function<void(const Expected<QString> &blobPath)>;
    virtual void write(const DeadLetterDestination &destination, const QString &blobName,
                       const QByteArray &body, Callback done)
        = 0;
};

} // namespace EventDesk
