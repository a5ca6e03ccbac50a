// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "PostgresServer.h"
#include "model/Topic.h"
#include "store/postgres/PostgresDeliveryStore.h"

#include <QDebug>
#include <QList>
#include <QString>
#include <QUrl>

#include <memory>

namespace EventDesk::Testing {

// What the tests of a shared PostgreSQL store (configuration, monitor, the app's shared workspace)
// start from.

// A store on server's database of that name (created empty on first use), or nullptr with the
// reason logged as a warning.
inline std::unique_ptr<PostgresDeliveryStore> openSharedStore(PostgresServer &server,
                                                              const QString &database)
{
    const QString url = server.database(database);
    if (url.isEmpty()) {
        qWarning() << server.errorText();
        return nullptr;
    }
    auto store = std::make_unique<PostgresDeliveryStore>();
    if (const auto opened = store->open(url); !opened) {
        qWarning() << opened.error();
        return nullptr;
    }
    return store;
}

// A webhook subscription to an address nothing listens on (port 9, discard): never delivered.
inline EventSubscription unreachableWebhook(const QString &name)
{
    EventSubscription subscription;
    subscription.name = name;
    subscription.endpointUrl = QUrl(QStringLiteral("http://127.0.0.1:9/") + name);
    return subscription;
}

// Rows of topic "orders" as a publish stores them: event seq has the id "order-<seq>" and an empty
// object as its body, and delivery id carries event id (seq = id) to a subscription, due at
// firstDueMs + id.
struct OrdersRows
{
    qint64 publishMs = 0;
    qint64 firstDueMs = 0;

    StoredEvent event(qint64 seq) const
    {
        StoredEvent event;
        event.seq = seq;
        event.topic = QStringLiteral("orders");
        event.id = QStringLiteral("order-%1").arg(seq);
        event.publishMs = publishMs;
        event.body = "{}";
        return event;
    }

    DeliveryRecord delivery(qint64 id, const QString &subscription) const
    {
        DeliveryRecord record;
        record.id = id;
        record.eventSeq = id;
        record.topic = QStringLiteral("orders");
        record.subscription = subscription;
        record.dueMs = firstDueMs + id;
        record.publishMs = publishMs;
        return record;
    }
};

// Topic "orders" with the subscriptions "billing" and "audit".
inline QList<Topic> ordersTopics()
{
    Topic orders;
    orders.name = QStringLiteral("orders");
    orders.eventSubscriptions = {unreachableWebhook(QStringLiteral("billing")),
                                 unreachableWebhook(QStringLiteral("audit"))};
    return {orders};
}

} // namespace EventDesk::Testing
