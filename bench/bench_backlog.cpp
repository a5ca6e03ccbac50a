// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// Benchmark 3: 1,000,000 deliveries waiting for their retry while the receiver is down.
//   resident memory of the running engine, CPU while nothing is due, and the time an engine
//   restart takes until it is ready (EngineHost::started) with that backlog.
#include "BenchFill.h"

#include <QCommandLineParser>
#include <QTemporaryDir>
#include <QThread>

using namespace Qt::StringLiterals;

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOption({u"deliveries"_s, u"pending deliveries"_s, u"n"_s, u"1000000"_s});
    parser.addOption({u"idle-seconds"_s, u"CPU measurement window"_s, u"s"_s, u"10"_s});
    parser.addOption({u"fill"_s, u"(internal) fill the workspace's store and exit"_s, u"dir"_s});
    parser.process(app);
    const qint64 count = parser.value(u"deliveries"_s).toLongLong();
    if (parser.isSet(u"fill"_s))
        return Bench::fillPending(parser.value(u"fill"_s), count, 3'600'000) ? 0 : 1;

    QTemporaryDir directory;
    const QString workspace = directory.filePath(u"workspace"_s);
    // Port 9 (discard) on loopback: nothing listens, every attempt would be refused.
    Bench::writeWorkspace(workspace, {{u"sub0"_s, u"http://127.0.0.1:9/"_s}});
    QElapsedTimer fillTimer;
    fillTimer.start();
    if (!Bench::fillInChild({u"--deliveries"_s, QString::number(count), u"--fill"_s, workspace})) {
        Bench::result(u"3 backlog of 1M pending"_s, u"error: fill failed"_s, u"-"_s, u"-"_s, u"-"_s, false);
        return 1;
    }
    Bench::info(u"filled %1 pending deliveries in %2 s"_s.arg(count).arg(Bench::number(fillTimer.elapsed() / 1000.0, 1)));

    EventDesk::EngineHost::Config config;
    config.workspaceDirectory = workspace;
    config.listen.port = 0;
    const double rssBefore = Bench::residentMb();
    double firstStart = 0;
    double restart = 0;
    double restartCpu = 0; // CPU seconds of the restart: less sensitive to a shared machine
    double rss = 0;
    double cpuPercent = 0;
    qint64 backlog = 0;
    {
        EventDesk::EngineHost host;
        QElapsedTimer timer;
        timer.start();
        if (const QString error = Bench::startHost(host, config); !error.isEmpty()) {
            Bench::result(u"3 backlog of 1M pending"_s, u"error: "_s + error, u"-"_s, u"-"_s, u"-"_s, false);
            return 1;
        }
        firstStart = timer.elapsed() / 1000.0;
        QObject::connect(&host, &EventDesk::EngineHost::snapshotReady, &host,
                         [&](const EventDesk::EngineSnapshot &snapshot) {
                             backlog = 0;
                             for (const auto &subscription : snapshot.subscriptions)
                                 backlog += subscription.backlog;
                         });
        // Settle (allocator, first snapshots), then measure CPU over the idle window.
        Bench::runEventLoop(1000);
        rss = Bench::residentMb();
        const double idleSeconds = parser.value(u"idle-seconds"_s).toDouble();
        const double cpuBefore = Bench::cpuSeconds();
        QElapsedTimer idle;
        idle.start();
        Bench::runEventLoop(int(idleSeconds * 1000));
        cpuPercent = 100.0 * (Bench::cpuSeconds() - cpuBefore) / (idle.elapsed() / 1000.0);
        rss = std::max(rss, Bench::residentMb());
        host.stop();
    }
    {
        EventDesk::EngineHost host;
        QElapsedTimer timer;
        timer.start();
        const double cpuBefore = Bench::cpuSeconds();
        if (const QString error = Bench::startHost(host, config); !error.isEmpty()) {
            Bench::result(u"3 restart with 1M backlog"_s, u"error: "_s + error, u"-"_s, u"-"_s, u"-"_s, false);
            return 1;
        }
        restart = timer.elapsed() / 1000.0;
        restartCpu = Bench::cpuSeconds() - cpuBefore;
        host.stop();
    }
    Bench::info(u"first start %1 s; snapshot backlog %2; RSS before start %3 MB, peak %4 MB"_s
                    .arg(Bench::number(firstStart, 2)).arg(backlog).arg(Bench::number(rssBefore))
                    .arg(Bench::number(Bench::residentMb("VmHWM:"))));
    const bool complete = backlog == count;
    Bench::result(u"3 resident memory, 1M pending"_s, Bench::number(rss) + u" MB"_s
                      + (complete ? QString() : u" (backlog seen: %1)"_s.arg(backlog)),
                  u"-"_s, u"-"_s, u"<= 300 MB"_s, complete && rss <= 300);
    Bench::result(u"3 CPU while nothing is due"_s, Bench::number(cpuPercent, 2) + u" %"_s, u"-"_s, u"-"_s,
                  u"< 1 %"_s, cpuPercent < 1.0);
    Bench::result(u"3 restart until ready, 1M pending"_s,
                  Bench::number(restart, 2) + u" s (CPU "_s + Bench::number(restartCpu, 2) + u" s)"_s, u"-"_s,
                  u"-"_s, u"<= 2 s"_s, restart <= 2.0);
    return 0;
}
