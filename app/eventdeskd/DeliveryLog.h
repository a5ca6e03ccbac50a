// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QObject>

namespace EventDesk {

class Engine;
struct AttemptLogEntry;
struct DeadLetterEntry;
struct DroppedEntry;

// eventdeskd's log of what happens to deliveries, category eventdesk.delivery, one message per
// attempt, dead letter and drop, with the structured fields of Logging::write (topic,
// subscription, eventId, attempt, outcome, httpStatus, ...: docs/eventdeskd.md "Logs"). A
// successful attempt is a debug message: a busy server delivers thousands a second, which would
// cost more than the delivery and run into the journal's rate limit; a failed attempt that will be
// retried is info; an attempt that ends its delivery, a dead letter and a drop are warnings.
class DeliveryLog final : public QObject
{
    Q_OBJECT

public:
    explicit DeliveryLog(Engine *engine, QObject *parent = nullptr);

private:
    void attempted(const AttemptLogEntry &entry);
    void deadLettered(const DeadLetterEntry &entry);
    void dropped(const DroppedEntry &entry);

    Engine *m_engine;
};

} // namespace EventDesk
