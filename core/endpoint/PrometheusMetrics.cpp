// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "PrometheusMetrics.h"

#include <QList>
#include <QPair>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace EventDesk::PrometheusMetrics {

namespace {

using Labels = QList<QPair<QByteArray, QString>>;

QByteArray number(double value)
{
    if (value == double(qint64(value)))
        return QByteArray::number(qint64(value));
    return QByteArray::number(value, 'g', 17);
}

class Writer
{
public:
    void family(QByteArrayView name, QByteArrayView type, QByteArrayView help)
    {
        m_text += "# HELP " + name + ' ' + help + '\n';
        m_text += "# TYPE " + name + ' ' + type + '\n';
    }

    void sample(QByteArrayView name, const Labels &labels, double value)
    {
        m_text += name;
        if (!labels.isEmpty()) {
            m_text += '{';
            for (qsizetype i = 0; i < labels.size(); ++i) {
                if (i > 0)
                    m_text += ',';
                m_text += labels.at(i).first + "=\"" + escapeLabelValue(labels.at(i).second) + '"';
            }
            m_text += '}';
        }
        m_text += ' ' + number(value) + '\n';
    }

    QByteArray text() const { return m_text; }

private:
    QByteArray m_text;
};

Labels subscriptionLabels(const SubscriptionSnapshot &subscription)
{
    return {{"topic", subscription.topic}, {"subscription", subscription.subscription}};
}

// Hash entries in a stable order (by name), so that two scrapes list series alike.
template <typename Key>
QList<QPair<QString, quint64>> sortedByName(const QHash<Key, quint64> &values, QString (*name)(Key))
{
    QList<QPair<QString, quint64>> result;
    for (auto it = values.cbegin(); it != values.cend(); ++it)
        result.append({name(it.key()), it.value()});
    std::sort(result.begin(), result.end());
    return result;
}

} // namespace

QByteArray escapeLabelValue(const QString &value)
{
    QByteArray escaped = value.toUtf8();
    escaped.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n");
    return escaped;
}

QByteArray format(const EngineSnapshot &snapshot)
{
    Writer out;
    out.family("eventdesk_store_writable", "gauge",
               "1 while the workspace's store takes writes; 0 after a write failed (a full disk, an "
               "I/O error) until one succeeds: publishes are refused with 503 meanwhile.");
    out.sample("eventdesk_store_writable", {}, snapshot.store.writable ? 1 : 0);
    out.family("eventdesk_store_write_failures_total", "counter",
               "Writes to the store that failed: refused publishes and group commits tried again.");
    out.sample("eventdesk_store_write_failures_total", {}, double(snapshot.store.writeFailures));
    out.family("eventdesk_parked_deliveries", "gauge",
               "A shared store: deliveries taken over for subscriptions this instance's "
               "configuration does not have yet (sent once it does, dropped after a grace).");
    out.sample("eventdesk_parked_deliveries", {}, double(snapshot.parkedDeliveries));
    const EndpointSnapshot &endpoint = snapshot.endpoint;
    out.family("eventdesk_http_connections", "gauge", "Connections the topic endpoint serves now.");
    out.sample("eventdesk_http_connections", {}, endpoint.openConnections);
    out.family(
        "eventdesk_http_accept_failing", "gauge",
        "1 while the endpoint cannot accept connections (out of file descriptors, typically): "
        "new connections wait while idle ones are closed to make room.");
    out.sample("eventdesk_http_accept_failing", {}, endpoint.acceptFailing ? 1 : 0);
    out.family("eventdesk_http_accept_failures_total", "counter",
               "Failed accepts of a connection.");
    out.sample("eventdesk_http_accept_failures_total", {}, double(endpoint.acceptFailures));
    out.family("eventdesk_http_connections_shed_total", "counter",
               "Idle connections closed to free a file descriptor after an accept failed.");
    out.sample("eventdesk_http_connections_shed_total", {}, double(endpoint.shedConnections));
    out.family("eventdesk_http_connections_refused_total", "counter",
               "Connections answered 503 over the connection cap.");
    out.sample("eventdesk_http_connections_refused_total", {}, double(endpoint.refusedConnections));
    out.family("eventdesk_http_requests_refused_total", "counter",
               "Requests refused before their handler: a Host that does not name the endpoint, a "
               "web page's Origin, a publish that is not JSON.");
    out.sample("eventdesk_http_requests_refused_total", {{"reason", u"content-type"_s}},
               double(endpoint.refusedContentType));
    out.sample("eventdesk_http_requests_refused_total", {{"reason", u"host"_s}},
               double(endpoint.refusedHost));
    out.sample("eventdesk_http_requests_refused_total", {{"reason", u"origin"_s}},
               double(endpoint.refusedOrigin));
    out.family("eventgrid_publish_success_total", "counter",
               "Events accepted by the topic endpoint (Event Grid PublishSuccessCount).");
    for (const TopicSnapshot &topic : snapshot.topics)
        out.sample("eventgrid_publish_success_total", {{"topic", topic.topic}}, double(topic.published));
    out.family("eventgrid_publish_fail_total", "counter",
               "Publish requests rejected whole (Event Grid PublishFailCount).");
    for (const TopicSnapshot &topic : snapshot.topics)
        out.sample("eventgrid_publish_fail_total", {{"topic", topic.topic}}, double(topic.rejectedRequests));
    out.family("eventgrid_unmatched_events_total", "counter",
               "Published events no subscription matched (Event Grid UnmatchedEventCount).");
    for (const TopicSnapshot &topic : snapshot.topics)
        out.sample("eventgrid_unmatched_events_total", {{"topic", topic.topic}}, double(topic.unmatched));

    out.family("eventgrid_matched_events_total", "counter",
               "Events matched by a subscription's filter (Event Grid MatchedEventCount).");
    for (const SubscriptionSnapshot &subscription : snapshot.subscriptions)
        out.sample("eventgrid_matched_events_total", subscriptionLabels(subscription), double(subscription.matched));
    out.family("eventgrid_delivery_success_total", "counter",
               "Events delivered (Event Grid DeliverySuccessCount).");
    for (const SubscriptionSnapshot &subscription : snapshot.subscriptions)
        out.sample("eventgrid_delivery_success_total", subscriptionLabels(subscription),
                   double(subscription.delivered));
    out.family("eventgrid_delivery_attempt_fail_total", "counter",
               "Failed delivery attempts per event, by lastDeliveryOutcome (Event Grid DeliveryAttemptFailCount).");
    for (const SubscriptionSnapshot &subscription : snapshot.subscriptions) {
        for (const auto &[outcome, count] : sortedByName(subscription.failedByOutcome, &deliveryOutcomeName)) {
            Labels labels = subscriptionLabels(subscription);
            labels.append({"outcome", outcome});
            out.sample("eventgrid_delivery_attempt_fail_total", labels, double(count));
        }
    }
    out.family("eventgrid_dead_lettered_total", "counter",
               "Events written to the dead-letter destination, by reason (Event Grid DeadLetteredCount).");
    for (const SubscriptionSnapshot &subscription : snapshot.subscriptions) {
        for (const auto &[reason, count] : sortedByName(subscription.deadLetteredByReason, &deadLetterReasonName)) {
            Labels labels = subscriptionLabels(subscription);
            labels.append({"reason", reason});
            out.sample("eventgrid_dead_lettered_total", labels, double(count));
        }
    }
    out.family("eventgrid_dropped_total", "counter",
               "Events dropped, by reason (Event Grid DroppedEventCount).");
    for (const SubscriptionSnapshot &subscription : snapshot.subscriptions) {
        for (const auto &[reason, count] : sortedByName(subscription.droppedByReason, &deadLetterReasonName)) {
            Labels labels = subscriptionLabels(subscription);
            labels.append({"reason", reason});
            out.sample("eventgrid_dropped_total", labels, double(count));
        }
    }

    out.family("eventgrid_pending_deliveries", "gauge",
               "Deliveries waiting for their due time, for probation or for endpoint validation.");
    for (const SubscriptionSnapshot &subscription : snapshot.subscriptions)
        out.sample("eventgrid_pending_deliveries", subscriptionLabels(subscription), double(subscription.backlog));
    out.family("eventgrid_in_flight_deliveries", "gauge", "Deliveries in requests awaiting a response.");
    for (const SubscriptionSnapshot &subscription : snapshot.subscriptions)
        out.sample("eventgrid_in_flight_deliveries", subscriptionLabels(subscription), double(subscription.inFlight));
    out.family("eventgrid_dead_letter_pending_deliveries", "gauge",
               "Deliveries waiting for the dead-letter write (SPEC L3).");
    for (const SubscriptionSnapshot &subscription : snapshot.subscriptions)
        out.sample("eventgrid_dead_letter_pending_deliveries", subscriptionLabels(subscription),
                   double(subscription.deadLetterPending));
    out.family("eventgrid_dead_letter_destination_unavailable", "gauge",
               "1 while the last dead-letter write failed; its deliveries wait for the next try (SPEC L4).");
    for (const SubscriptionSnapshot &subscription : snapshot.subscriptions)
        out.sample("eventgrid_dead_letter_destination_unavailable", subscriptionLabels(subscription),
                   subscription.deadLetterWriteError.isEmpty() ? 0 : 1);
    out.family("eventgrid_in_probation", "gauge",
               "1 while the subscription is in probation or probing (SPEC P6), with the outcome that caused it.");
    for (const SubscriptionSnapshot &subscription : snapshot.subscriptions) {
        const bool inProbation = subscription.probationState != ProbationTracker::State::Healthy;
        Labels labels = subscriptionLabels(subscription);
        labels.append({"cause", inProbation ? deliveryOutcomeName(subscription.probationCause) : u"None"_s});
        out.sample("eventgrid_in_probation", labels, inProbation ? 1 : 0);
    }
    out.family("eventgrid_consecutive_failures", "gauge",
               "Consecutive failed attempts counted towards probation (SPEC P2).");
    for (const SubscriptionSnapshot &subscription : snapshot.subscriptions)
        out.sample("eventgrid_consecutive_failures", subscriptionLabels(subscription),
                   double(subscription.consecutiveFailures));
    out.family("eventgrid_provisioning_state", "gauge",
               "1 for the subscription's provisioning state (endpoint validation).");
    for (const SubscriptionSnapshot &subscription : snapshot.subscriptions) {
        Labels labels = subscriptionLabels(subscription);
        labels.append({"state", provisioningStateName(subscription.provisioningState)});
        out.sample("eventgrid_provisioning_state", labels, 1);
    }
    out.family(
        "eventgrid_held_deliveries", "gauge",
        "Pending deliveries held until the endpoint is validated or the keychain has answered "
        "(accepted, not attempted).");
    for (const SubscriptionSnapshot &subscription : snapshot.subscriptions)
        out.sample("eventgrid_held_deliveries", subscriptionLabels(subscription), double(subscription.held));
    out.family("eventgrid_waiting_for_keychain", "gauge",
               "1 while a secret the subscription needs has not come from the keychain yet (its "
               "deliveries are held).");
    for (const SubscriptionSnapshot &subscription : snapshot.subscriptions)
        out.sample("eventgrid_waiting_for_keychain", subscriptionLabels(subscription),
                   subscription.awaitingSecrets ? 1 : 0);
    out.family("eventgrid_endpoint_unreachable", "gauge",
               "1 while the validation handshake cannot reach the endpoint (it is asked again with a "
               "backoff), with the last failure.");
    for (const SubscriptionSnapshot &subscription : snapshot.subscriptions) {
        const bool unreachable = !subscription.endpointUnreachable.isEmpty();
        Labels labels = subscriptionLabels(subscription);
        labels.append({"reason", unreachable ? subscription.endpointUnreachable : u"None"_s});
        out.sample("eventgrid_endpoint_unreachable", labels, unreachable ? 1 : 0);
    }

    out.family("eventgrid_destination_processing_duration_ms", "histogram",
               "Time from sending a delivery request to its response, in ms (Event Grid DestinationProcessingDurationInMs).");
    for (const SubscriptionSnapshot &subscription : snapshot.subscriptions) {
        quint64 cumulative = 0;
        const auto &bounds = SubscriptionSnapshot::LatencyBucketBoundsMs;
        for (size_t i = 0; i <= bounds.size(); ++i) {
            cumulative += subscription.latencyBuckets[i];
            Labels labels = subscriptionLabels(subscription);
            labels.append({"le", i < bounds.size() ? QString::fromLatin1(number(bounds[i])) : u"+Inf"_s});
            out.sample("eventgrid_destination_processing_duration_ms_bucket", labels, double(cumulative));
        }
        out.sample("eventgrid_destination_processing_duration_ms_sum", subscriptionLabels(subscription),
                   subscription.latencySumMs);
        out.sample("eventgrid_destination_processing_duration_ms_count", subscriptionLabels(subscription),
                   double(subscription.latencyCount));
    }
    return out.text();
}

} // namespace EventDesk::PrometheusMetrics
