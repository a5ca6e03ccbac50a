// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "EndpointValidation.h"

#include "../Logging.h"
#include "../rules/DeadLetterFormatter.h"
#include "../secrets/SecretMasking.h"
#include "Clock.h"
#include "DeliveryScheduler.h"
#include "EngineSignals.h"
#include "OutcomeHandler.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QUrlQuery>
#include <QUuid>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

// Set on a handshake reply cut off at MaxAnswerBytes.
constexpr const char *OversizedAnswer = "eventdesk.oversizedAnswer";

// Event Grid: a validation URL is valid for 5 minutes.
constexpr qint64 ManualValidationWindowMs = 5 * 60 * 1000;

// An endpoint that cannot be reached yet (not started, restarting, overloaded) is asked again
// after 5 s, 10 s, 30 s, 1 min, then every 5 min (engine time), for as long as the subscription
// exists: a webhook started after EventDesk is the usual order, not an error.
qint64 validationRetryDelayMs(int unansweredHandshakes)
{
    static constexpr qint64 Delays[] = {5'000, 10'000, 30'000, 60'000};
    if (unansweredHandshakes >= 1 && unansweredHandshakes <= int(std::size(Delays)))
        return Delays[unansweredHandshakes - 1];
    return 5 * 60'000;
}

QString formatDelay(qint64 ms)
{
    if (ms < 60'000)
        return u"%1 s"_s.arg((ms + 999) / 1000);
    return u"%1 min"_s.arg((ms + 59'999) / 60'000);
}

// Transport failures and 408/429/5xx answers mean "not reachable yet"; anything else the
// endpoint answered is its verdict on the handshake.
bool isUnreachableAnswer(int httpStatus)
{
    return httpStatus == 0 || httpStatus == 408 || httpStatus == 429 || httpStatus >= 500;
}

// "connection refused" rather than Qt's "Connection refused by host ...": the short form reads
// well inside "endpoint unreachable: ...; next validation attempt in 10 s".
QString transportFailure(const QNetworkReply *reply)
{
    switch (reply->error()) {
    case QNetworkReply::ConnectionRefusedError:
        return u"connection refused"_s;
    case QNetworkReply::RemoteHostClosedError:
        return u"connection closed without an answer"_s;
    case QNetworkReply::HostNotFoundError:
        return u"host name does not resolve"_s;
    case QNetworkReply::TimeoutError:
    case QNetworkReply::OperationCanceledError:
        return u"no answer"_s;
    case QNetworkReply::SslHandshakeFailedError:
        return u"TLS handshake failed"_s;
    default:
        // Qt's text may quote the URL, and with it a key in its query.
        return SecretMasking::redactUrlSecrets(reply->errorString(), reply->url());
    }
}

// What a validation is about: a changed endpoint or delivery schema is validated again.
QString provisioningFingerprint(const EventSubscription &config)
{
    return config.endpointUrl.toString(QUrl::FullyEncoded) + u'|'
        + eventSchemaName(config.deliverySchema);
}

} // namespace

EndpointValidation::EndpointValidation(EngineState &state, EngineSignals &signals,
                                       DeliveryScheduler &scheduler, OutcomeHandler &outcomes,
                                       QNetworkAccessManager *network)
    : m_state(state)
    , m_signals(signals)
    , m_scheduler(scheduler)
    , m_outcomes(outcomes)
    , m_network(network)
{
}

Expected<void> EndpointValidation::loadRestored()
{
    m_restored.clear();
    if (!m_store)
        return {};
    auto records = m_store->load();
    if (!records)
        return Error(records.error());
    for (const ProvisioningRecord &record : std::as_const(records.value()))
        m_restored.insert(subscriptionKey(record.topic, record.subscription), record);
    return {};
}

void EndpointValidation::update(Subscription &subscription)
{
    ProvisioningRecord &record = subscription.validation.record;
    const ProvisioningRecord before = record;
    record.topic = subscription.topic;
    record.subscription = subscription.config.name;
    if (!subscription.config.needsEndpointValidation()) {
        abort(subscription);
        record = ProvisioningRecord {
            subscription.topic,
            subscription.config.name,
            QString(),
            ProvisioningState::Succeeded,
            QString(),
            0,
            subscription.config.destination.isWebHook()
                ? u"endpoint validation is switched off (x-eventdesk.validation: false)"_s
                : u"%1 destinations are not asked to validate (as in Azure)"_s.arg(
                    destinationTypeName(subscription.config.destination.type)),
            QString()};
    } else {
        const QString fingerprint = provisioningFingerprint(subscription.config);
        if (record.fingerprint == fingerprint)
            return; // same endpoint and schema: the validation under way or done still holds
        const ProvisioningRecord restored
            = m_restored.take(subscriptionKey(subscription.topic, subscription.config.name));
        abort(subscription);
        resetUnreachable(subscription);
        // The store keeps the fingerprint in a form without the URL's secrets (a keyed hash of
        // it), which changes with them: a new key in "?code=" validates again.
        const QString stored = m_store ? m_store->storedFingerprint(fingerprint) : fingerprint;
        if (!restored.fingerprint.isEmpty() && restored.fingerprint == stored
            && restored.state == ProvisioningState::Succeeded) {
            // Validated before the restart: not validated again. Any other state (failed,
            // awaiting the URL) is validated again at every start: the endpoint may be up now.
            record = restored;
            record.fingerprint = fingerprint;
            record.topic = subscription.topic;
            record.subscription = subscription.config.name;
        } else {
            record = ProvisioningRecord {subscription.topic,
                                         subscription.config.name,
                                         fingerprint,
                                         ProvisioningState::Creating,
                                         QString(),
                                         0,
                                         u"sending the validation handshake"_s,
                                         QString()};
        }
    }
    if (record != before)
        m_signals.raiseProvisioningChanged(subscription.topic, subscription.config.name);
}

void EndpointValidation::holdBacklog(Subscription &subscription)
{
    subscription.heldTracked = false;
    syncHeld(subscription);
}

qint64 EndpointValidation::attentionMs(Subscription &subscription, qint64 now)
{
    const ValidationState &validation = subscription.validation;
    qint64 next = -1;
    switch (validation.record.state) {
    case ProvisioningState::Creating:
        next = validation.reply ? validation.sentMs + m_state.options.responseTimeoutMs
                                : std::max(now, validation.nextAttemptMs);
        break;
    case ProvisioningState::AwaitingManualActionValidation:
        next = validation.record.expiresMs;
        break;
    case ProvisioningState::Succeeded:
    case ProvisioningState::Failed:
        break;
    }
    const auto consider = [&next](qint64 at) {
        if (next < 0 || at < next)
            next = at;
    };
    if (subscription.config.enabled && subscription.isHeld()) {
        if (validation.record.state == ProvisioningState::Failed) {
            if (!subscription.pending.empty())
                consider(now);
        } else {
            std::vector<HeapEntry> &held = subscription.heldExpiry;
            while (!held.empty() && !m_state.liveDelivery(held.front(), DeliveryState::Pending))
                heapPop(held);
            if (!held.empty())
                consider(held.front().atMs);
        }
    }
    return next;
}

void EndpointValidation::service(Subscription &subscription, qint64 now)
{
    ValidationState &validation = subscription.validation;
    ProvisioningRecord &record = validation.record;
    if (record.state == ProvisioningState::AwaitingManualActionValidation
        && now >= record.expiresMs) {
        setState(subscription, ProvisioningState::Failed,
                 u"the validation URL was not visited within 5 minutes"_s, now);
        return;
    }
    if (record.state != ProvisioningState::Creating)
        return;
    if (!validation.reply) {
        if (now >= validation.nextAttemptMs)
            send(subscription, now);
        return;
    }
    if (now < validation.sentMs + m_state.options.responseTimeoutMs)
        return;
    // No answer to the handshake within the response timeout (SPEC D6's 30 s): not reachable yet.
    abort(subscription);
    waitForEndpoint(subscription,
                    u"no answer within %1 s"_s.arg(m_state.options.responseTimeoutMs / 1000), now);
}

void EndpointValidation::resetUnreachable(Subscription &subscription)
{
    subscription.validation.unansweredHandshakes = 0;
    subscription.validation.nextAttemptMs = 0;
    subscription.validation.unreachableBecause.clear();
}

void EndpointValidation::waitForEndpoint(Subscription &subscription, const QString &failure,
                                         qint64 now)
{
    ValidationState &validation = subscription.validation;
    ++validation.unansweredHandshakes;
    const qint64 delay = validationRetryDelayMs(validation.unansweredHandshakes);
    validation.nextAttemptMs = now + delay;
    validation.unreachableBecause = failure;
    setState(subscription, ProvisioningState::Creating,
             u"endpoint unreachable: %1; next validation attempt in %2"_s.arg(failure,
                                                                              formatDelay(delay)),
             now);
}

QString EndpointValidation::validationUrl(const Subscription &subscription) const
{
    const QString &code = subscription.validation.record.validationCode;
    if (m_baseUrl.isEmpty() || code.isEmpty())
        return {};
    QUrl url = m_baseUrl;
    url.setPath(u"/validate/%1/%2"_s.arg(subscription.topic, subscription.config.name),
                QUrl::DecodedMode);
    QUrlQuery query;
    query.addQueryItem(u"code"_s, code);
    url.setQuery(query);
    return url.toString(QUrl::FullyEncoded);
}

void EndpointValidation::send(Subscription &subscription, qint64 now)
{
    const EventSubscription &config = subscription.config;
    ProvisioningRecord &record = subscription.validation.record;
    QNetworkRequest request(m_state.receiverAlias.mapped(config.endpointUrl));
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute,
                         QNetworkRequest::ManualRedirectPolicy);
    request.setRawHeader("aeg-subscription-name", config.name.toUpper().toUtf8());
    QNetworkReply *reply = nullptr;
    if (config.deliverySchema == EventSchema::CloudEvents10) {
        // CloudEvents abuse protection: OPTIONS with the origin the deliveries will come from.
        request.setRawHeader("WebHook-Request-Origin", EventGridOrigin.toByteArray());
        reply = m_network->sendCustomRequest(request, "OPTIONS");
    } else {
        // Event Grid schema handshake: SubscriptionValidationEvent with a code to echo back.
        record.validationCode = QUuid::createUuid().toString(QUuid::WithoutBraces).toUpper();
        QJsonObject data {{u"validationCode"_s, record.validationCode}};
        if (const QString url = validationUrl(subscription); !url.isEmpty())
            data.insert(u"validationUrl"_s, url);
        const QJsonObject event {
            {u"id"_s, QUuid::createUuid().toString(QUuid::WithoutBraces)},
            {u"topic"_s, subscription.topicPath},
            {u"subject"_s, QString()},
            {u"data"_s, data},
            {u"eventType"_s, u"Microsoft.EventGrid.SubscriptionValidationEvent"_s},
            {u"eventTime"_s, DeadLetterFormatter::formatTime(now)},
            {u"metadataVersion"_s, u"1"_s},
            {u"dataVersion"_s, u"2"_s}};
        request.setHeader(QNetworkRequest::ContentTypeHeader,
                          QByteArrayLiteral("application/json"));
        request.setRawHeader("aeg-event-type", "SubscriptionValidation");
        request.setRawHeader("aeg-delivery-count", "0");
        request.setRawHeader("aeg-data-version", "2");
        request.setRawHeader("aeg-metadata-version", "1");
        reply = m_network->post(request,
                                QJsonDocument(QJsonArray {event}).toJson(QJsonDocument::Compact));
    }
    subscription.validation.reply = reply;
    subscription.validation.sentMs = now;
    m_subscriptionByReply.insert(reply, subscription.index);
    // QNetworkReply buffers a whole body by default: hold it to MaxAnswerBytes.
    reply->setReadBufferSize(MaxAnswerBytes);
    QObject::connect(reply, &QNetworkReply::readyRead, &m_signals, [reply] {
        if (reply->bytesAvailable() >= MaxAnswerBytes && reply->isRunning()) {
            reply->setProperty(OversizedAnswer, true);
            reply->abort(); // finished() follows, with the status and headers already read
        }
    });
    QObject::connect(reply, &QNetworkReply::finished, &m_signals,
                     [this, reply] { onFinished(reply); });
    qCInfo(lcDelivery) << "validating the endpoint of" << subscription.displayName();
}

void EndpointValidation::abort(Subscription &subscription)
{
    QNetworkReply *reply = subscription.validation.reply;
    subscription.validation.reply = nullptr;
    if (!reply)
        return;
    m_subscriptionByReply.remove(reply);
    QObject::disconnect(reply, nullptr, &m_signals, nullptr);
    reply->abort();
    reply->deleteLater();
}

void EndpointValidation::abortAll()
{
    const QList<QNetworkReply *> handshakes = m_subscriptionByReply.keys();
    m_subscriptionByReply.clear();
    for (QNetworkReply *reply : handshakes)
        reply->abort();
}

void EndpointValidation::onFinished(QNetworkReply *reply)
{
    const StateLock lock(m_state.lock);
    reply->deleteLater();
    const auto found = m_subscriptionByReply.find(reply);
    if (found == m_subscriptionByReply.end())
        return;
    const int index = found.value();
    m_subscriptionByReply.erase(found);
    if (!m_state.running)
        return;
    Subscription &subscription = m_state.subscription(index);
    if (subscription.removed || subscription.validation.reply != reply)
        return;
    subscription.validation.reply = nullptr;
    const qint64 now = m_state.clock->nowMs();
    const QVariant statusAttribute = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute);
    const int httpStatus = statusAttribute.isValid() ? statusAttribute.toInt() : 0;
    const bool oversized = reply->property(OversizedAnswer).toBool();
    if (isUnreachableAnswer(httpStatus)) {
        waitForEndpoint(subscription,
                        httpStatus > 0 ? u"HTTP %1"_s.arg(httpStatus) : transportFailure(reply),
                        now);
        m_scheduler.reschedule(subscription, now);
        m_scheduler.rearmAlarm();
        return;
    }
    const QString failure = u"the endpoint answered HTTP %1"_s.arg(httpStatus);
    const QString origin = QString::fromLatin1(EventGridOrigin.toByteArray());

    if (subscription.config.deliverySchema == EventSchema::CloudEvents10) {
        const QByteArray allowedOrigin = reply->rawHeader("WebHook-Allowed-Origin").trimmed();
        const QByteArray allowedRate = reply->rawHeader("WebHook-Allowed-Rate").trimmed();
        const bool allowed = allowedOrigin == "*"
            || allowedOrigin.compare(EventGridOrigin, Qt::CaseInsensitive) == 0;
        if (httpStatus == 200 && allowed) {
            subscription.validation.record.allowedRate = QString::fromLatin1(allowedRate);
            setState(subscription, ProvisioningState::Succeeded,
                     u"the endpoint allowed origin %1%2"_s.arg(
                         origin,
                         allowedRate.isEmpty()
                             ? QString()
                             : u" at rate %1"_s.arg(QString::fromLatin1(allowedRate))),
                     now);
        } else {
            const QString reason = httpStatus == 200
                ? u"the endpoint answered the abuse-protection request without "
                  u"WebHook-Allowed-Origin: %1 (or *)"_s.arg(origin)
                : failure;
            setState(subscription, ProvisioningState::Failed, reason, now);
        }
    } else {
        const QJsonObject answer
            = oversized ? QJsonObject() : QJsonDocument::fromJson(reply->readAll()).object();
        QString echoed;
        for (auto it = answer.begin(); it != answer.end(); ++it) {
            if (it.key().compare(u"validationResponse"_s, Qt::CaseInsensitive) == 0)
                echoed = it.value().toString();
        }
        if (httpStatus == 200 && !echoed.isEmpty()
            && echoed == subscription.validation.record.validationCode) {
            setState(subscription, ProvisioningState::Succeeded,
                     u"the endpoint echoed the validation code"_s, now);
        } else {
            const QString reason = oversized
                ? u"the endpoint's answer exceeds %1 bytes"_s.arg(MaxAnswerBytes)
                : httpStatus == 200
                ? (echoed.isEmpty() ? u"the endpoint answered 200 without validationResponse"_s
                                    : u"the endpoint answered a wrong validationResponse"_s)
                : failure;
            setState(subscription, ProvisioningState::AwaitingManualActionValidation,
                     reason + u"; visit the validation URL within 5 minutes"_s, now);
        }
    }
    m_scheduler.reschedule(subscription, now);
    m_scheduler.rearmAlarm();
}

void EndpointValidation::setState(Subscription &subscription, ProvisioningState state,
                                  const QString &message, qint64 now)
{
    ProvisioningRecord &record = subscription.validation.record;
    record.state = state;
    // The message is logged, shown and kept in provisioning.json: never with the URL's key.
    record.message = SecretMasking::redactUrlSecrets(message, subscription.config.endpointUrl);
    if (state != ProvisioningState::Creating)
        resetUnreachable(subscription);
    subscription.nextRequestAllowedMs = 0; // a new verdict, perhaps a new WebHook-Allowed-Rate
    if (state == ProvisioningState::AwaitingManualActionValidation)
        record.expiresMs = now + ManualValidationWindowMs;
    else if (state == ProvisioningState::Succeeded)
        record.validationCode.clear(); // kept on failure, so a late visit is told it expired
    if (state != ProvisioningState::AwaitingManualActionValidation)
        record.expiresMs = 0;
    qCInfo(lcDelivery) << "subscription" << subscription.displayName() << "provisioning"
                       << provisioningStateName(state) << "-" << record.message;
    syncHeld(subscription);
    save();
    m_signals.raiseProvisioningChanged(subscription.topic, subscription.config.name);
}

void EndpointValidation::save()
{
    if (!m_store)
        return;
    QList<ProvisioningRecord> records;
    for (const auto &subscription : m_state.subscriptions) {
        // Handshakes under way are not kept: they are simply sent again after a restart.
        if (!subscription->removed && subscription->config.needsEndpointValidation()
            && subscription->provisioningState() != ProvisioningState::Creating)
            records.append(subscription->validation.record);
    }
    if (auto saved = m_store->save(records); !saved) {
        qCWarning(lcStore) << "cannot save the provisioning state:" << saved.error();
        m_signals.raiseStoreError(saved.error());
    }
}

ManualValidationResult EndpointValidation::completeManual(const QString &topic,
                                                          const QString &subscriptionName,
                                                          const QString &code)
{
    Subscription *subscription = m_state.findSubscription(topic, subscriptionName);
    if (!subscription)
        return {404,
                u"There is no event subscription %1/%2 in this workspace."_s.arg(topic,
                                                                                 subscriptionName)};
    ProvisioningRecord &record = subscription->validation.record;
    const qint64 now = m_state.clock->nowMs();
    const bool codeMatches = !code.isEmpty() && code == record.validationCode;
    switch (record.state) {
    case ProvisioningState::Succeeded:
        return {200,
                u"Event subscription %1/%2 is already validated."_s.arg(topic, subscriptionName)};
    case ProvisioningState::Creating:
        return {409,
                u"Event subscription %1/%2 is still sending its validation handshake."_s.arg(
                    topic, subscriptionName)};
    case ProvisioningState::Failed:
        if (codeMatches)
            return {
                410,
                u"This validation URL has expired: event subscription %1/%2 failed validation (%3)."_s
                    .arg(topic, subscriptionName, record.message)};
        return {
            409,
            u"Event subscription %1/%2 is not awaiting manual validation (it failed: %3)."_s.arg(
                topic, subscriptionName, record.message)};
    case ProvisioningState::AwaitingManualActionValidation:
        break;
    }
    if (now >= record.expiresMs) {
        setState(*subscription, ProvisioningState::Failed,
                 u"the validation URL was not visited within 5 minutes"_s, now);
        m_scheduler.reschedule(*subscription, now);
        return {410, u"This validation URL has expired (it is valid for 5 minutes)."_s};
    }
    if (!codeMatches)
        return {400, u"The validation code does not match the one sent to the endpoint."_s};
    setState(*subscription, ProvisioningState::Succeeded, u"validated through the validation URL"_s,
             now);
    m_scheduler.reschedule(*subscription, now);
    return {200, u"Webhook successfully validated as a result of user action."_s};
}

Expected<void> EndpointValidation::revalidate(const QString &topic, const QString &subscriptionName)
{
    Subscription *subscription = m_state.findSubscription(topic, subscriptionName);
    if (!subscription)
        return Error(u"There is no event subscription %1/%2 in this workspace."_s.arg(
            topic, subscriptionName));
    if (!subscription->config.needsEndpointValidation())
        return Error(
            u"Endpoint validation is switched off for %1/%2 (x-eventdesk.validation: false)."_s.arg(
                topic, subscriptionName));
    const qint64 now = m_state.clock->nowMs();
    abort(*subscription);
    resetUnreachable(*subscription);
    subscription->validation.record.validationCode.clear();
    subscription->validation.record.allowedRate.clear();
    setState(*subscription, ProvisioningState::Creating, u"sending the validation handshake"_s,
             now);
    m_scheduler.reschedule(*subscription, now);
    return {};
}

// ---- Held deliveries ------------------------------------------------------------------------

void EndpointValidation::syncHeld(Subscription &subscription)
{
    if (!subscription.isHeld()) {
        subscription.heldExpiry = {};
        subscription.heldTracked = false;
        return;
    }
    if (subscription.heldTracked)
        return;
    subscription.heldExpiry.clear();
    for (const HeapEntry &entry : subscription.pending) {
        if (const Delivery *delivery = m_state.liveDelivery(entry, DeliveryState::Pending))
            subscription.heldExpiry.push_back(heldEntry(subscription, *delivery));
    }
    heapify(subscription.heldExpiry);
    subscription.heldTracked = true;
}

void EndpointValidation::serviceHeld(Subscription &subscription, qint64 now)
{
    const auto takeHeld = [this, &subscription](std::vector<HeapEntry> &heap) -> Delivery * {
        const HeapEntry entry = heap.front();
        heapPop(heap);
        Delivery *delivery = m_state.liveDelivery(entry, DeliveryState::Pending);
        if (delivery) // else stale: the delivery moved on since
            --subscription.counters.backlog;
        return delivery;
    };
    if (subscription.provisioningState() == ProvisioningState::Failed) {
        // The endpoint refused validation: what waited for it, and what arrives while it stays
        // Failed, is dead-lettered (SPEC L1: or dropped) instead of waiting for ever. A restart,
        // an edit or "Validate Now" validates it again.
        int ended = 0;
        while (!subscription.pending.empty()) {
            if (Delivery *delivery = takeHeld(subscription.pending)) {
                delivery->lastOutcome = DeliveryOutcome::EndpointValidationFailed;
                m_outcomes.endUndelivered(subscription, *delivery,
                                          DeadLetterReason::EndpointValidationFailed, now);
                ++ended;
            }
        }
        subscription.heldExpiry.clear();
        if (ended > 0)
            qCInfo(lcDelivery)
                << "subscription" << subscription.displayName() << ":" << ended
                << "held deliveries end EndpointValidationFailed (validation Failed)";
        return;
    }
    // Creating / AwaitingManualActionValidation, or a secret awaited: SPEC R6's TTL still runs; a
    // held delivery whose TTL ran out leaves with TimeToLiveExceeded and lastDeliveryOutcome
    // EndpointValidationPending (or KeychainPending once the endpoint is validated).
    const DeliveryOutcome heldOutcome = subscription.isValidated()
        ? DeliveryOutcome::KeychainPending
        : DeliveryOutcome::EndpointValidationPending;
    int expired = 0;
    while (!subscription.heldExpiry.empty() && subscription.heldExpiry.front().atMs <= now) {
        if (Delivery *delivery = takeHeld(subscription.heldExpiry)) {
            delivery->lastOutcome = heldOutcome;
            m_outcomes.endUndelivered(subscription, *delivery, DeadLetterReason::TimeToLiveExceeded,
                                      now);
            ++expired;
        }
    }
    if (expired > 0)
        qCInfo(lcDelivery) << "subscription" << subscription.displayName() << ":" << expired
                           << "held deliveries end TimeToLiveExceeded while waiting for"
                           << (subscription.isValidated()
                                   ? u"the keychain"_s
                                   : provisioningStateName(subscription.provisioningState()));
}

} // namespace EventDesk
