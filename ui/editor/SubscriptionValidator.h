// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "model/EventSubscription.h"

#include <QCoreApplication>
#include <QHash>
#include <QList>
#include <QString>

namespace EventDesk::Ui {

// The places of the subscription editor a validation message can point at.
enum class SubscriptionField {
    Name,
    Endpoint,
    DestinationResourceId,
    QueueName,
    QueueMessageTtl,
    ServiceUrl,
    DeliverySchema,
    MaxAttempts,
    TimeToLive,
    MaxEvents,
    PreferredSize,
    Headers,
    AdvancedFilters,
    DeadLetterResourceId,
    DeadLetterContainer,
    DeadLetterAccount,
    DeadLetterEndpoint,
    General,
};

struct FieldError
{
    SubscriptionField field = SubscriptionField::General;
    int row = -1; // headers / advanced filters
    QString message;
};

// The subscription editor's validation: the core's own rules (validateEventSubscription), its
// messages turned into messages that name the editor's fields, and every problem at once rather
// than the first one the core finds.
class SubscriptionValidator
{
    Q_DECLARE_TR_FUNCTIONS(SubscriptionValidator)

public:
    // Every problem of subscription, advanced filter values that do not parse (row -> message)
    // first. resourceIdTyped: the dead-letter resource id field is filled in (when it is not, a
    // missing resource id asks for the account name, the field the user sees first).
    // queueTtlProblem: why the queue message time to live as typed is no value (the model holds
    // none for it).
    static QList<FieldError> collectErrors(const EventSubscription &subscription,
                                           EventSchema topicInputSchema,
                                           const QHash<int, QString> &filterParseErrors,
                                           bool resourceIdTyped,
                                           const QString &queueTtlProblem = {});
    // The field a core message ("properties.retryPolicy.maxDeliveryAttempts: ...") is about, with
    // the message worded for it; destinationType names the destination fields as the editor
    // shows them for that type.
    static FieldError describeCoreError(const QString &coreMessage, bool resourceIdTyped,
                                        DestinationType destinationType = DestinationType::WebHook);
};

} // namespace EventDesk::Ui
