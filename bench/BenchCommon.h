// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

// Helpers shared by the benchmark programs (bench/README in bench/RESULTS.md). Every program
// prints its figures as lines "RESULT|what|measured|baseline|ratio|target|met" that bench/run.sh
// collects into one table, and free-form "INFO|..." lines.

#include "host/EngineHost.h"
#include "engine/EngineSnapshot.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QString>
#include <QTextStream>
#include <QTimer>

#include <sys/resource.h>

#include <cstdio>
#include <functional>

namespace Bench {

// Resident memory of this process in MB (VmRSS), or its peak (VmHWM).
inline double residentMb(const char *field = "VmRSS:")
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray key(field);
    const QList<QByteArray> lines = status.readAll().split('\n');
    for (const QByteArray &line : lines) {
        if (line.startsWith(key))
            return line.mid(key.size()).trimmed().split(' ').value(0).toDouble() / 1024.0;
    }
    return -1;
}

// CPU time (user + system) this process used so far, in seconds.
inline double cpuSeconds()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

// Runs the event loop until done() is true or timeoutMs passed; returns done(). done() is polled
// by a timer every pollMs (the loop sleeps in between: a busy loop here would steal a core from
// the engine being measured).
inline bool spinUntil(const std::function<bool()> &done, int timeoutMs, int pollMs = 2)
{
    if (done())
        return true;
    QDeadlineTimer deadline(timeoutMs);
    QEventLoop loop;
    QTimer tick;
    tick.setInterval(pollMs);
    QObject::connect(&tick, &QTimer::timeout, &loop, [&] {
        if (done() || deadline.hasExpired())
            loop.quit();
    });
    tick.start();
    loop.exec();
    return done();
}

// Runs the event loop for ms milliseconds without any polling.
inline void runEventLoop(int ms)
{
    QEventLoop loop;
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
}

// The longest gap between two ticks of a 1 ms timer, minus the 1 ms interval.
class LagProbe
{
public:
    LagProbe()
    {
        m_timer.setTimerType(Qt::PreciseTimer);
        m_timer.setInterval(1);
        QObject::connect(&m_timer, &QTimer::timeout, &m_timer, [this] {
            const qint64 now = m_clock.nsecsElapsed();
            if (m_last >= 0)
                m_maxGapNs = std::max(m_maxGapNs, now - m_last);
            m_last = now;
        });
    }
    void start()
    {
        m_maxGapNs = 0;
        m_last = -1;
        m_clock.start();
        m_timer.start();
    }
    double stopMs()
    {
        m_timer.stop();
        return std::max(0.0, double(m_maxGapNs) / 1e6 - 1.0);
    }

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_last = -1;
    qint64 m_maxGapNs = 0;
};

inline QString number(double value, int decimals = 0)
{
    return QString::number(value, 'f', decimals);
}

// One row of the results table.
inline void result(const QString &what, const QString &measured, const QString &baseline,
                   const QString &ratio, const QString &target, bool met)
{
    const QString line = QStringLiteral("RESULT|") + what + u'|' + measured + u'|' + baseline + u'|'
        + ratio + u'|' + target + u'|' + (met ? QStringLiteral("yes") : QStringLiteral("NO"));
    std::printf("%s\n", qPrintable(line));
    std::fflush(stdout);
}

inline void info(const QString &text)
{
    std::printf("INFO|%s\n", qPrintable(text));
    std::fflush(stdout);
}

// A JSON event of the Event Grid schema, about `size` bytes long.
inline QByteArray eventJson(qint64 index, int size)
{
    QByteArray head = "{\"id\":\"" + QByteArray::number(index)
        + "\",\"subject\":\"/bench/" + QByteArray::number(index % 100)
        + "\",\"eventType\":\"Bench.Event\",\"eventTime\":\"2026-01-01T00:00:00Z\","
          "\"dataVersion\":\"1.0\",\"data\":{\"pad\":\"";
    const QByteArray tail = "\"}}";
    const qsizetype pad = std::max<qsizetype>(0, size - head.size() - tail.size());
    head.append(pad, 'x');
    head.append(tail);
    return head;
}

// JSON arrays of events, each request at most maxBytes long (the publish API's 1 MB limit).
inline QList<QByteArray> publishBodies(qint64 events, int eventSize, qsizetype maxBytes,
                                       qint64 firstIndex = 0)
{
    QList<QByteArray> bodies;
    QByteArray current = "[";
    for (qint64 i = 0; i < events; ++i) {
        const QByteArray event = eventJson(firstIndex + i, eventSize);
        if (current.size() > 1 && current.size() + event.size() + 2 > maxBytes) {
            current.append(']');
            bodies.append(current);
            current = "[";
        }
        if (current.size() > 1)
            current.append(',');
        current.append(event);
    }
    if (current.size() > 1) {
        current.append(']');
        bodies.append(current);
    }
    return bodies;
}

struct SubscriptionSpec
{
    QString name;
    QString endpointUrl;
    bool batching = false;
    int maxEventsPerBatch = 1;
    int preferredKilobytes = 64;
};

// Writes workspace.json of a workspace with topic "bench" and the given subscriptions (no
// endpoint validation: nginx does not answer the handshake).
inline bool writeWorkspace(const QString &directory, const QList<SubscriptionSpec> &subscriptions,
                           int maxConcurrent = 8)
{
    QDir().mkpath(directory);
    QByteArray json = "{\"topics\":[{\"name\":\"bench\",\"inputSchema\":\"EventGridSchema\","
                      "\"eventSubscriptions\":[";
    for (qsizetype i = 0; i < subscriptions.size(); ++i) {
        const SubscriptionSpec &spec = subscriptions.at(i);
        if (i > 0)
            json += ',';
        json += "{\"name\":\"" + spec.name.toUtf8()
            + "\",\"properties\":{\"destination\":{\"endpointType\":\"WebHook\",\"properties\":{"
              "\"endpointUrl\":\""
            + spec.endpointUrl.toUtf8() + '"';
        if (spec.batching) {
            json += ",\"maxEventsPerBatch\":" + QByteArray::number(spec.maxEventsPerBatch)
                + ",\"preferredBatchSizeInKilobytes\":" + QByteArray::number(spec.preferredKilobytes);
        }
        json += "}},\"eventDeliverySchema\":\"EventGridSchema\","
                "\"retryPolicy\":{\"maxDeliveryAttempts\":30,\"eventTimeToLiveInMinutes\":1440},"
                "\"x-eventdesk\":{\"validation\":false}}}";
    }
    json += "]}],\"receivers\":[],\"settings\":{\"maxConcurrentRequestsPerSubscription\":"
        + QByteArray::number(maxConcurrent) + "}}";
    QFile file(QDir(directory).filePath(QStringLiteral("workspace.json")));
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return false;
    return file.write(json) == json.size();
}

// Starts host on config and waits for started(); returns the error ("" = ok).
inline QString startHost(EventDesk::EngineHost &host, const EventDesk::EngineHost::Config &config,
                         int timeoutMs = 120000)
{
    bool done = false;
    QString error;
    const auto connection = QObject::connect(&host, &EventDesk::EngineHost::started, &host,
                                             [&](bool ok, const QString &message, const QString &) {
                                                 done = true;
                                                 if (!ok)
                                                     error = message.isEmpty() ? QStringLiteral("failed") : message;
                                             });
    host.start(config);
    if (!spinUntil([&] { return done; }, timeoutMs))
        error = QStringLiteral("engine did not start in time");
    QObject::disconnect(connection);
    return error;
}

inline quint64 deliveredTotal(const EventDesk::EngineSnapshot &snapshot)
{
    quint64 total = 0;
    for (const auto &subscription : snapshot.subscriptions)
        total += subscription.delivered;
    return total;
}

} // namespace Bench
