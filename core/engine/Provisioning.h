// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../Expected.h"

#include <QByteArrayView>
#include <QList>
#include <QString>

namespace EventDesk {

// The provisioning state of an event subscription, as Event Grid reports it while it validates a
// webhook endpoint (properties.provisioningState).
enum class ProvisioningState {
    Creating, // the validation handshake is under way
    AwaitingManualActionValidation, // the endpoint did not echo the code: visit the validation URL
    Succeeded, // validated (or validation switched off): deliveries flow
    Failed, // validation failed: deliveries wait until the subscription is validated again
};

QString provisioningStateName(ProvisioningState state);

// CloudEvents abuse protection: the origin Event Grid announces in WebHook-Request-Origin.
inline constexpr QByteArrayView EventGridOrigin = "eventgrid.azure.net";

// What is kept of a subscription's validation across restarts, so that a validated endpoint is
// not validated again at every start. The fingerprint names what was validated (endpoint URL and
// delivery schema): a change of either validates again, as Event Grid does on an update.
struct ProvisioningRecord
{
    QString topic;
    QString subscription;
    QString fingerprint;
    ProvisioningState state = ProvisioningState::Creating;
    QString validationCode; // AwaitingManualActionValidation: the code the URL must carry
    qint64 expiresMs = 0; // AwaitingManualActionValidation: engine time the URL stops working
    QString message; // why it failed / what is awaited
    QString allowedRate; // CloudEvents: WebHook-Allowed-Rate of the endpoint ("*" or a number)

    bool operator==(const ProvisioningRecord &other) const = default;
};

// Persistence of provisioning records (one small document per workspace).
class ProvisioningStore
{
public:
    virtual ~ProvisioningStore() = default;
    virtual Expected<QList<ProvisioningRecord>> load() = 0;
    virtual Expected<void> save(const QList<ProvisioningRecord> &records) = 0;
    // The form in which a fingerprint is kept, which load() hands back: a restored record is
    // compared with storedFingerprint() of the subscription's own. A store that writes the
    // endpoint's URL as it is (none should: it may carry a key) returns it unchanged.
    virtual QString storedFingerprint(const QString &fingerprint) const { return fingerprint; }
};

} // namespace EventDesk
