// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../rules/DeliveryOutcome.h"
#include "EngineTypes.h"

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QNetworkRequest>
#include <QString>

#include <functional>
#include <variant>

namespace EventDesk {

struct StoredEvent;
struct Subscription;

// The HTTP request that carries a batch to a subscription's destination, by destination type:
//   WebHook          POST of the batch to the endpoint URL, Event Grid's headers (SPEC D7) and
//                    the custom delivery headers (§9)
//   AzureFunction    the same, to the Functions host's Event Grid webhook of the function (no
//                    validation handshake: the host trusts its own function keys)
//   StorageQueue     Put Message: one event per message, its JSON in Base64 in the message XML,
//                    Shared Key authorization with the storage account's key
//   ServiceBusQueue  Send Message: one event per message, the delivery properties as broker
//   ServiceBusTopic  properties (SessionId, MessageId, ...) or custom properties (headers),
//   EventHub         shared access signature authorization with the namespace's key
// A request that cannot be made is refused with the outcome it would have had (a message over a
// queue's size limit is PayloadTooLarge, a missing key Unauthorized), and never sent.
class DeliveryRequests final
{
public:
    // Credentials by SecretKeys name (a storage account's key, a namespace's connection string);
    // empty when unknown. Thread-safe: called on the delivery lanes' threads too.
    using CredentialResolver = std::function<QString(const QString &secretKey)>;

    struct Built
    {
        QNetworkRequest request;
        QByteArray body;
    };
    struct Refused
    {
        DeliveryOutcome outcome = DeliveryOutcome::GenericError;
        QString reason;
    };
    using Result = std::variant<Built, Refused>;

    // Azure Storage takes messages of at most 64 KiB (their Base64 text).
    static constexpr qsizetype MaxQueueMessageBytes = 64 * 1024;
    // How long a Service Bus or Event Hubs signature made for one request stays valid.
    static constexpr qint64 SignatureLifetimeSeconds = 15 * 60;

    void setSecretResolver(SecretResolver resolver) { m_secretResolver = std::move(resolver); }
    void setCredentialResolver(CredentialResolver resolver)
    {
        m_credentialResolver = std::move(resolver);
    }
    void setReceiverAlias(ReceiverAlias alias) { m_receiverAlias = std::move(alias); }

    // bodies: the events as the subscription delivers them (SchemaConverter); deliveryCount: the
    // failed attempts of the first delivery so far (aeg-delivery-count); utcNow: the wall clock,
    // for the dates and expiries Azure checks against its own clock.
    Result build(const Subscription &subscription, const QList<QByteArray> &bodies,
                 int deliveryCount, const StoredEvent &firstEvent, const QDateTime &utcNow) const;

private:
    // The custom delivery properties (SPEC §9) with their values for this batch, in order.
    QList<std::pair<QByteArray, QByteArray>> deliveryProperties(const Subscription &subscription,
                                                                const QByteArray &firstBody) const;
    Result webHook(const Subscription &subscription, const QUrl &url,
                   const QList<QByteArray> &bodies, int deliveryCount,
                   const StoredEvent &firstEvent) const;
    Result storageQueue(const Subscription &subscription, const QByteArray &body,
                        const QDateTime &utcNow) const;
    Result messaging(const Subscription &subscription, const QByteArray &body, int deliveryCount,
                     const StoredEvent &firstEvent, const QDateTime &utcNow) const;

    SecretResolver m_secretResolver;
    CredentialResolver m_credentialResolver;
    ReceiverAlias m_receiverAlias;
};

} // namespace EventDesk
