// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// GET /metrics (docs/eventdeskd.md "Metrics"): the Prometheus text format is checked by parsing it
// — every line must follow the exposition grammar, every family must be declared once before its
// samples, and the values must be the snapshot's.

#include "endpoint/PrometheusMetrics.h"
#include "engine/EngineSnapshot.h"

#include <QHash>
#include <QRegularExpression>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace EventDesk;

using LabelSet = QHash<QString, QString>;

namespace {

struct Sample
{
    QString name;
    QHash<QString, QString> labels;
    double value = 0;
};

struct Exposition
{
    QHash<QString, QString> types; // family -> counter / gauge / histogram
    QList<Sample> samples;
    QString error; // empty when the text parsed

    // The value of the one sample with this name whose labels include `labels`; NaN if none.
    double value(const QString &name, const QHash<QString, QString> &labels) const
    {
        double found = qQNaN();
        for (const Sample &sample : samples) {
            if (sample.name != name)
                continue;
            bool matches = true;
            for (auto it = labels.cbegin(); it != labels.cend(); ++it)
                matches &= sample.labels.value(it.key()) == it.value();
            if (matches)
                found = sample.value;
        }
        return found;
    }
};

// A strict parser of the text format 0.0.4 subset EventDesk writes.
Exposition parse(const QByteArray &text)
{
    Exposition result;
    static const QRegularExpression help(u"^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) .+$"_s);
    static const QRegularExpression type(u"^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram)$"_s);
    static const QRegularExpression sample(
        u"^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{((?:[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\\\\n]|\\\\[\\\\\"n])*\",?)*)\\})? (\\S+)$"_s);
    static const QRegularExpression label(u"([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\""_s);
    if (!text.endsWith('\n')) {
        result.error = u"the text does not end with a newline"_s;
        return result;
    }
    const QStringList lines = QString::fromUtf8(text).split(u'\n');
    for (qsizetype i = 0; i + 1 < lines.size(); ++i) {
        const QString &line = lines.at(i);
        if (help.match(line).hasMatch())
            continue;
        if (const auto match = type.match(line); match.hasMatch()) {
            if (result.types.contains(match.captured(1))) {
                result.error = u"line %1: family %2 declared twice"_s.arg(i + 1).arg(match.captured(1));
                return result;
            }
            result.types.insert(match.captured(1), match.captured(2));
            continue;
        }
        const auto match = sample.match(line);
        if (!match.hasMatch()) {
            result.error = u"line %1 is not a sample: %2"_s.arg(i + 1).arg(line);
            return result;
        }
        Sample parsed;
        parsed.name = match.captured(1);
        QString family = parsed.name;
        for (const QString &suffix : {u"_bucket"_s, u"_sum"_s, u"_count"_s}) {
            if (family.endsWith(suffix) && result.types.value(family.chopped(suffix.size())) == "histogram"_L1)
                family.chop(suffix.size());
        }
        if (!result.types.contains(family)) {
            result.error = u"line %1: sample of undeclared family %2"_s.arg(i + 1).arg(family);
            return result;
        }
        auto labels = label.globalMatch(match.captured(2));
        while (labels.hasNext()) {
            const auto labelMatch = labels.next();
            const QString escaped = labelMatch.captured(2);
            QString value;
            for (qsizetype c = 0; c < escaped.size(); ++c) {
                if (escaped.at(c) == u'\\' && c + 1 < escaped.size()) {
                    ++c;
                    value.append(escaped.at(c) == u'n' ? u'\n' : escaped.at(c));
                } else {
                    value.append(escaped.at(c));
                }
            }
            parsed.labels.insert(labelMatch.captured(1), value);
        }
        bool ok = false;
        parsed.value = match.captured(3) == "+Inf"_L1 ? qInf() : match.captured(3).toDouble(&ok);
        if (!ok && match.captured(3) != "+Inf"_L1) {
            result.error = u"line %1: value %2 is not a number"_s.arg(i + 1).arg(match.captured(3));
            return result;
        }
        result.samples.append(parsed);
    }
    return result;
}

EngineSnapshot sampleSnapshot()
{
    EngineSnapshot snapshot;
    snapshot.topics = {TopicSnapshot{u"orders"_s, 12, 2, 3}};
    snapshot.store.writable = false;
    snapshot.store.writeFailures = 4;
    snapshot.parkedDeliveries = 5;
    snapshot.store.lastError = u"database or disk is full"_s;
    snapshot.endpoint.listening = true;
    snapshot.endpoint.openConnections = 17;
    snapshot.endpoint.acceptFailing = true;
    snapshot.endpoint.lastAcceptError = u"Too many open files"_s;
    snapshot.endpoint.acceptFailures = 5;
    snapshot.endpoint.shedConnections = 6;
    snapshot.endpoint.refusedConnections = 7;
    snapshot.endpoint.refusedHost = 8;
    snapshot.endpoint.refusedOrigin = 9;
    snapshot.endpoint.refusedContentType = 11;
    SubscriptionSnapshot billing;
    billing.topic = u"orders"_s;
    billing.subscription = u"billing"_s;
    billing.matched = 10;
    billing.delivered = 7;
    billing.failedByOutcome = {{DeliveryOutcome::Busy, 4}, {DeliveryOutcome::TimedOut, 1}};
    billing.deadLetteredByReason = {{DeadLetterReason::MaxDeliveryAttemptsExceeded, 2}};
    billing.droppedByReason = {{DeadLetterReason::TimeToLiveExceeded, 1}};
    billing.backlog = 3;
    billing.inFlight = 1;
    billing.probationState = ProbationTracker::State::InProbation;
    billing.probationCause = DeliveryOutcome::Busy;
    billing.consecutiveFailures = 10;
    billing.provisioningState = ProvisioningState::Creating;
    billing.endpointUnreachable = u"connection refused"_s;
    billing.held = 3;
    billing.deadLetterWriteError = u"Read-only file system"_s;
    // Three answers: 3 ms, 40 ms and 70 s.
    billing.latencyBuckets[0] = 1; // <= 5
    billing.latencyBuckets[3] = 1; // <= 50
    billing.latencyBuckets[13] = 1; // <= 180000
    billing.latencySumMs = 70043;
    billing.latencyCount = 3;
    SubscriptionSnapshot odd; // label values that need escaping
    odd.topic = u"orders"_s;
    odd.subscription = u"we\"ird\\name"_s;
    snapshot.subscriptions = {billing, odd};
    return snapshot;
}

} // namespace

class MetricsTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void output_parsesAsPrometheusText();
    void counters_carryTheSnapshotValues_data();
    void counters_carryTheSnapshotValues();
    void p6_probationGaugeNamesItsCause();
    void histogram_isCumulativeWithInfEqualToCount();
    void labelValues_areEscaped();
};

void MetricsTest::output_parsesAsPrometheusText()
{
    const Exposition exposition = parse(PrometheusMetrics::format(sampleSnapshot()));
    QVERIFY2(exposition.error.isEmpty(), qPrintable(exposition.error));
    for (const QString &family : {u"eventgrid_publish_success_total"_s, u"eventgrid_publish_fail_total"_s,
                                 u"eventgrid_unmatched_events_total"_s, u"eventgrid_matched_events_total"_s,
                                 u"eventgrid_delivery_success_total"_s, u"eventgrid_delivery_attempt_fail_total"_s,
                                 u"eventgrid_dead_lettered_total"_s, u"eventgrid_dropped_total"_s,
                                 u"eventdesk_store_write_failures_total"_s}) {
        QCOMPARE(exposition.types.value(family), u"counter"_s);
    }
    for (const QString &family : {u"eventgrid_pending_deliveries"_s, u"eventgrid_in_flight_deliveries"_s,
                                 u"eventgrid_in_probation"_s, u"eventgrid_provisioning_state"_s,
                                 u"eventgrid_held_deliveries"_s, u"eventgrid_endpoint_unreachable"_s,
                                 u"eventgrid_dead_letter_destination_unavailable"_s,
                                 u"eventdesk_store_writable"_s, u"eventdesk_parked_deliveries"_s}) {
        QCOMPARE(exposition.types.value(family), u"gauge"_s);
    }
    QCOMPARE(exposition.types.value(u"eventgrid_destination_processing_duration_ms"_s), u"histogram"_s);
}

void MetricsTest::counters_carryTheSnapshotValues_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<LabelSet>("labels");
    QTest::addColumn<double>("value");
    const QHash<QString, QString> billing{{u"topic"_s, u"orders"_s}, {u"subscription"_s, u"billing"_s}};
    auto with = [billing](const QString &key, const QString &value) {
        QHash<QString, QString> labels = billing;
        labels.insert(key, value);
        return labels;
    };
    QTest::newRow("published") << u"eventgrid_publish_success_total"_s
                               << QHash<QString, QString>{{u"topic"_s, u"orders"_s}} << 12.0;
    QTest::newRow("publish failed") << u"eventgrid_publish_fail_total"_s
                                    << QHash<QString, QString>{{u"topic"_s, u"orders"_s}} << 3.0;
    QTest::newRow("unmatched") << u"eventgrid_unmatched_events_total"_s
                               << QHash<QString, QString>{{u"topic"_s, u"orders"_s}} << 2.0;
    QTest::newRow("matched") << u"eventgrid_matched_events_total"_s << billing << 10.0;
    QTest::newRow("delivered") << u"eventgrid_delivery_success_total"_s << billing << 7.0;
    QTest::newRow("failed Busy") << u"eventgrid_delivery_attempt_fail_total"_s << with(u"outcome"_s, u"Busy"_s) << 4.0;
    QTest::newRow("failed TimedOut") << u"eventgrid_delivery_attempt_fail_total"_s
                                     << with(u"outcome"_s, u"TimedOut"_s) << 1.0;
    QTest::newRow("dead-lettered") << u"eventgrid_dead_lettered_total"_s
                                   << with(u"reason"_s, u"MaxDeliveryAttemptsExceeded"_s) << 2.0;
    QTest::newRow("dropped") << u"eventgrid_dropped_total"_s << with(u"reason"_s, u"TimeToLiveExceeded"_s) << 1.0;
    QTest::newRow("pending") << u"eventgrid_pending_deliveries"_s << billing << 3.0;
    QTest::newRow("in flight") << u"eventgrid_in_flight_deliveries"_s << billing << 1.0;
    QTest::newRow("provisioning") << u"eventgrid_provisioning_state"_s << with(u"state"_s, u"Creating"_s) << 1.0;
    QTest::newRow("held") << u"eventgrid_held_deliveries"_s << billing << 3.0;
    QTest::newRow("unreachable") << u"eventgrid_endpoint_unreachable"_s
                                 << with(u"reason"_s, u"connection refused"_s) << 1.0;
    QTest::newRow("dead-letter destination unavailable")
        << u"eventgrid_dead_letter_destination_unavailable"_s << billing << 1.0;
    QTest::newRow("store not writable") << u"eventdesk_store_writable"_s << QHash<QString, QString>{} << 0.0;
    QTest::newRow("store write failures") << u"eventdesk_store_write_failures_total"_s
                                          << QHash<QString, QString>{} << 4.0;
    QTest::newRow("parked deliveries") << u"eventdesk_parked_deliveries"_s
                                       << QHash<QString, QString>{} << 5.0;
    // docs/security.md "The HTTP endpoint": the endpoint's own figures.
    const QHash<QString, QString> none;
    QTest::newRow("connections") << u"eventdesk_http_connections"_s << none << 17.0;
    QTest::newRow("accept failing") << u"eventdesk_http_accept_failing"_s << none << 1.0;
    QTest::newRow("accept failures") << u"eventdesk_http_accept_failures_total"_s << none << 5.0;
    QTest::newRow("shed") << u"eventdesk_http_connections_shed_total"_s << none << 6.0;
    QTest::newRow("over the cap") << u"eventdesk_http_connections_refused_total"_s << none << 7.0;
    QTest::newRow("refused host") << u"eventdesk_http_requests_refused_total"_s
                                  << QHash<QString, QString> {{u"reason"_s, u"host"_s}} << 8.0;
    QTest::newRow("refused origin") << u"eventdesk_http_requests_refused_total"_s
                                    << QHash<QString, QString> {{u"reason"_s, u"origin"_s}} << 9.0;
    QTest::newRow("refused content type")
        << u"eventdesk_http_requests_refused_total"_s
        << QHash<QString, QString> {{u"reason"_s, u"content-type"_s}} << 11.0;
}

void MetricsTest::counters_carryTheSnapshotValues()
{
    QFETCH(QString, name);
    QFETCH(LabelSet, labels);
    QFETCH(double, value);
    const Exposition exposition = parse(PrometheusMetrics::format(sampleSnapshot()));
    QVERIFY2(exposition.error.isEmpty(), qPrintable(exposition.error));
    QCOMPARE(exposition.value(name, labels), value);
}

void MetricsTest::p6_probationGaugeNamesItsCause()
{
    const Exposition exposition = parse(PrometheusMetrics::format(sampleSnapshot()));
    QCOMPARE(exposition.value(u"eventgrid_in_probation"_s,
                              {{u"subscription"_s, u"billing"_s}, {u"cause"_s, u"Busy"_s}}),
             1.0);
    QCOMPARE(exposition.value(u"eventgrid_in_probation"_s,
                              {{u"subscription"_s, u"we\"ird\\name"_s}, {u"cause"_s, u"None"_s}}),
             0.0);
}

void MetricsTest::histogram_isCumulativeWithInfEqualToCount()
{
    const Exposition exposition = parse(PrometheusMetrics::format(sampleSnapshot()));
    QVERIFY2(exposition.error.isEmpty(), qPrintable(exposition.error));
    const QString bucket = u"eventgrid_destination_processing_duration_ms_bucket"_s;
    auto at = [&](const QString &le) {
        return exposition.value(bucket, {{u"subscription"_s, u"billing"_s}, {u"le"_s, le}});
    };
    QCOMPARE(at(u"5"_s), 1.0);
    QCOMPARE(at(u"25"_s), 1.0);
    QCOMPARE(at(u"50"_s), 2.0);
    QCOMPARE(at(u"60000"_s), 2.0);
    QCOMPARE(at(u"180000"_s), 3.0);
    QCOMPARE(at(u"+Inf"_s), 3.0);
    double previous = 0;
    int buckets = 0;
    for (const auto &sample : exposition.samples) {
        if (sample.name != bucket || sample.labels.value(u"subscription"_s) != "billing"_L1)
            continue;
        QVERIFY(sample.value >= previous); // cumulative
        previous = sample.value;
        ++buckets;
    }
    QCOMPARE(buckets, int(SubscriptionSnapshot::LatencyBucketBoundsMs.size()) + 1);
    QCOMPARE(exposition.value(u"eventgrid_destination_processing_duration_ms_count"_s,
                              {{u"subscription"_s, u"billing"_s}}),
             3.0);
    QCOMPARE(exposition.value(u"eventgrid_destination_processing_duration_ms_sum"_s,
                              {{u"subscription"_s, u"billing"_s}}),
             70043.0);
}

void MetricsTest::labelValues_areEscaped()
{
    QCOMPARE(PrometheusMetrics::escapeLabelValue(u"a\"b\\c\nd"_s), QByteArray("a\\\"b\\\\c\\nd"));
    QVERIFY(PrometheusMetrics::format(sampleSnapshot()).contains("subscription=\"we\\\"ird\\\\name\""));
}

QTEST_GUILESS_MAIN(MetricsTest)
#include "tst_metrics.moc"
