// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// Benchmarks 1 and 6: deliveries per second with batching off and the durable store on.
//   baseline: wrk's rate for the same 1 KB POST to the same receiver with as many connections as
//             the engine has requests in flight (--wrk-rate, measured by bench/run.sh): what
//             loopback HTTP allows; target >= 0.5x. Second baseline (1b): a bare
//             QNetworkAccessManager loop posting the same body with the same number in flight
//   bench 1:  the engine (EngineHost: its own thread, SqliteDeliveryStore, SystemClock), one
//             subscription, events published through EngineHost::publish in 1 MB requests;
//             rate = deliveries / (first publish .. last delivery answered)
//   bench 6:  100 subscriptions on one topic, each to its own receiver port
#include "BenchCommon.h"

#include <QCommandLineParser>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QTemporaryDir>
#include <QUrl>

using namespace Qt::StringLiterals;

namespace {

constexpr int InFlight = 8; // workspace setting maxConcurrentRequestsPerSubscription (default)
constexpr int EventSize = 1024;

double bareLoopRate(const QUrl &url, int requests)
{
    QNetworkAccessManager network;
    const QByteArray body = '[' + Bench::eventJson(0, EventSize) + ']';
    int sent = 0;
    int finished = 0;
    int failed = 0;
    std::function<void()> sendOne = [&] {
        QNetworkRequest request(url);
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        QNetworkReply *reply = network.post(request, body);
        ++sent;
        QObject::connect(reply, &QNetworkReply::finished, &network, [&, reply] {
            reply->deleteLater();
            if (reply->error() != QNetworkReply::NoError)
                ++failed;
            ++finished;
            if (sent < requests)
                sendOne();
        });
    };
    QElapsedTimer timer;
    timer.start();
    const double cpuBefore = Bench::cpuSeconds();
    for (int i = 0; i < InFlight && sent < requests; ++i)
        sendOne();
    Bench::spinUntil([&] { return finished >= requests; }, 300000);
    const double seconds = double(timer.nsecsElapsed()) / 1e9;
    if (failed > 0)
        Bench::info(u"bare loop: %1 of %2 requests failed"_s.arg(failed).arg(requests));
    // CPU time of the whole process per request: less sensitive to other load than the rate.
    Bench::info(u"bare loop: %1 us of CPU per request"_s.arg(
        Bench::number(1e6 * (Bench::cpuSeconds() - cpuBefore) / std::max(1, finished))));
    return finished / seconds;
}

// Publishes `events` events to a fresh workspace with the given subscriptions and returns
// deliveries per second until every delivery was answered.
double engineRate(const QList<Bench::SubscriptionSpec> &subscriptions, qint64 events, QString *error)
{
    QTemporaryDir directory;
    const QString workspace = directory.filePath(u"workspace"_s);
    if (!Bench::writeWorkspace(workspace, subscriptions, InFlight)) {
        *error = u"cannot write the workspace"_s;
        return 0;
    }
    EventDesk::EngineHost host;
    EventDesk::EngineHost::Config config;
    config.workspaceDirectory = workspace;
    config.listen.port = 0;
    config.jitter = false;
    config.snapshotIntervalMs = 20;
    if (const QString failed = Bench::startHost(host, config); !failed.isEmpty()) {
        *error = failed;
        return 0;
    }
    const quint64 expected = quint64(events) * quint64(subscriptions.size());
    quint64 delivered = 0;
    quint64 failedAttempts = 0;
    QElapsedTimer timer;
    QList<QPair<qint64, quint64>> progress; // (ms since the first publish, delivered)
    QObject::connect(&host, &EventDesk::EngineHost::snapshotReady, &host,
                     [&](const EventDesk::EngineSnapshot &snapshot) {
                         delivered = Bench::deliveredTotal(snapshot);
                         if (timer.isValid())
                             progress.append({timer.elapsed(), delivered});
                         quint64 failures = 0;
                         for (const auto &subscription : snapshot.subscriptions) {
                             for (auto it = subscription.failedByOutcome.cbegin();
                                  it != subscription.failedByOutcome.cend(); ++it)
                                 failures += it.value();
                         }
                         failedAttempts = failures;
                     });
    const QList<QByteArray> bodies = Bench::publishBodies(events, EventSize, 1024 * 1024);
    int rejected = 0;
    timer.start();
    const double cpuBefore = Bench::cpuSeconds();
    for (const QByteArray &body : bodies) {
        host.publish(u"bench"_s, body, QByteArrayLiteral("application/json"),
                     [&](const EventDesk::PublishResult &result) {
                         if (result.httpStatus != 200)
                             ++rejected;
                     });
    }
    const bool complete = Bench::spinUntil([&] { return delivered >= expected || rejected > 0; }, 300000);
    const double seconds = double(timer.nsecsElapsed()) / 1e9;
    const double cpu = Bench::cpuSeconds() - cpuBefore;
    host.stop();
    Bench::info(u"engine, %1 subscription(s): %2 us of CPU per delivery (publish included)"_s.arg(subscriptions.size())
                    .arg(Bench::number(1e6 * cpu / std::max<quint64>(1, delivered))));
    if (rejected > 0 || !complete) {
        *error = u"%1 publish requests rejected, %2 of %3 delivered"_s.arg(rejected).arg(delivered).arg(expected);
        return 0;
    }
    if (failedAttempts > 0)
        Bench::info(u"engine: %1 failed attempts (retried)"_s.arg(failedAttempts));
    // Where the time went: until the first delivery, and the rate over the middle half.
    qint64 firstMs = -1, quarterMs = -1, threeQuartersMs = -1;
    quint64 quarterCount = 0, threeQuartersCount = 0;
    for (const auto &[ms, count] : std::as_const(progress)) {
        if (firstMs < 0 && count > 0)
            firstMs = ms;
        if (quarterMs < 0 && count >= expected / 4) {
            quarterMs = ms;
            quarterCount = count;
        }
        if (threeQuartersMs < 0 && count >= expected * 3 / 4) {
            threeQuartersMs = ms;
            threeQuartersCount = count;
        }
    }
    if (threeQuartersMs > quarterMs && quarterMs >= 0)
        Bench::info(u"engine: first delivery seen after %1 ms; %2 deliveries/s between a quarter and three quarters"_s
                        .arg(firstMs)
                        .arg(Bench::number(1000.0 * double(threeQuartersCount - quarterCount) / double(threeQuartersMs - quarterMs))));
    return double(delivered) / seconds;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOption({u"port"_s, u"nginx port answering 204"_s, u"port"_s});
    parser.addOption({u"multi-port-base"_s, u"first of 100 nginx ports (benchmark 6)"_s, u"port"_s});
    parser.addOption({u"requests"_s, u"deliveries per measurement"_s, u"n"_s, u"20000"_s});
    parser.addOption({u"wrk-rate"_s, u"wrk's requests/s against the same receiver (benchmark 1's baseline)"_s, u"rate"_s});
    parser.addOption({u"repeat"_s, u"measurements of each kind (the best is taken)"_s, u"n"_s, u"2"_s});
    parser.process(app);
    const int port = parser.value(u"port"_s).toInt();
    const int multiBase = parser.value(u"multi-port-base"_s).toInt();
    const int requests = parser.value(u"requests"_s).toInt();
    const int repeat = std::max(1, parser.value(u"repeat"_s).toInt());
    if (port <= 0) {
        std::fprintf(stderr, "--port is required\n");
        return 2;
    }
    const QUrl receiver(u"http://127.0.0.1:%1/"_s.arg(port));

    // Interleaved so that noise from other processes hits both sides alike; the best of each.
    double bare = 0;
    double single = 0;
    QString error;
    for (int round = 0; round < repeat; ++round) {
        const double bareRate = bareLoopRate(receiver, requests);
        Bench::info(u"round %1: bare QNAM loop %2 req/s"_s.arg(round + 1).arg(Bench::number(bareRate)));
        bare = std::max(bare, bareRate);
        const double engine = engineRate({{u"sub0"_s, receiver.toString()}}, requests, &error);
        if (!error.isEmpty())
            break;
        Bench::info(u"round %1: engine, 1 subscription %2 deliveries/s"_s.arg(round + 1).arg(Bench::number(engine)));
        single = std::max(single, engine);
    }
    if (!error.isEmpty()) {
        Bench::result(u"1 deliveries/s, batching off, 1 subscription"_s, u"error: "_s + error,
                      Bench::number(bare), u"-"_s, u">= 1.0x"_s, false);
        return 1;
    }
    // What loopback HTTP to this receiver allows: wrk with as many connections as the engine has
    // requests in flight, measured by bench/run.sh in the same run.
    const double wrk = parser.value(u"wrk-rate"_s).toDouble();
    if (wrk > 0) {
        Bench::result(u"1 deliveries/s, batching off, 1 subscription"_s, Bench::number(single),
                      Bench::number(wrk) + u" (wrk, "_s + QString::number(InFlight) + u" connections)"_s,
                      Bench::number(single / wrk, 2) + u'x', u">= 0.5x"_s, single >= 0.5 * wrk);
    } else {
        Bench::result(u"1 deliveries/s, batching off, 1 subscription"_s, Bench::number(single),
                      u"error: no --wrk-rate"_s, u"-"_s, u">= 0.5x"_s, false);
    }
    Bench::result(u"1b the same against a bare QNetworkAccessManager loop"_s, Bench::number(single),
                  Bench::number(bare) + u" (bare QNAM loop, "_s + QString::number(InFlight)
                      + u" in flight)"_s,
                  Bench::number(single / bare, 2) + u'x', u">= 1.0x"_s, single >= bare);

    if (multiBase > 0) {
        QList<Bench::SubscriptionSpec> subscriptions;
        for (int i = 0; i < 100; ++i)
            subscriptions.append({u"sub%1"_s.arg(i), u"http://127.0.0.1:%1/"_s.arg(multiBase + i)});
        double multi = 0;
        for (int round = 0; round < repeat; ++round) {
            const double rate = engineRate(subscriptions, std::max(1, requests / 100), &error);
            if (!error.isEmpty())
                break;
            Bench::info(u"round %1: engine, 100 subscriptions %2 deliveries/s"_s.arg(round + 1).arg(Bench::number(rate)));
            multi = std::max(multi, rate);
        }
        if (!error.isEmpty()) {
            Bench::result(u"6 deliveries/s, 100 subscriptions/ports"_s, u"error: "_s + error,
                          Bench::number(single), u"-"_s, u">= 0.8x"_s, false);
            return 1;
        }
        Bench::result(u"6 deliveries/s, 100 subscriptions/ports"_s, Bench::number(multi),
                      Bench::number(single) + u" (benchmark 1)"_s,
                      Bench::number(multi / single, 2) + u'x', u">= 0.8x"_s, multi >= 0.8 * single);
    }
    return 0;
}
