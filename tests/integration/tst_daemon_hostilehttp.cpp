// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// eventdeskd against hostile HTTP clients on loopback (docs/security.md "Hostile HTTP"): a flood of
// slow connections that send half a request head and then nothing, while publishers keep
// publishing. The publishers keep getting 200s, the header timeout closes every slow connection,
// and the daemon's resident memory stays bounded. Also: the connection cap answers 503 in Event
// Grid's error shape, and the options are checked at start. Linux only: it reads /proc and raises
// RLIMIT_NOFILE.

#include "DaemonProcess.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#ifdef Q_OS_LINUX
#include <arpa/inet.h>
#include <cerrno>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#endif

using namespace Qt::StringLiterals;
using namespace EventDesk::Testing;

namespace {

constexpr int SlowConnections = 5000;
constexpr int SlowConnectionBatch = 500; // within the daemon's listen backlog of 1024
constexpr int HeaderTimeoutSeconds = 5;
// The bound asserted on the daemon's peak resident memory: generous (the measured figure, printed
// below, is far lower), but far below what 5,000 connections that each held a buffer of their own
// growing request would take.
constexpr qint64 PeakResidentBoundKb = 300 * 1024;
constexpr int SlowConnectionsClosedWithinMs = 90'000;

const QByteArray HalfHead
    = "POST /topics/orders/api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Ty";

#ifdef Q_OS_LINUX
// A figure of /proc/<pid>/status in kB ("VmRSS", "VmHWM"); -1 if it cannot be read.
qint64 statusKb(qint64 pid, const char *field)
{
    QFile status(u"/proc/%1/status"_s.arg(pid));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    const QRegularExpression pattern(u"^%1:\\s+(\\d+) kB$"_s.arg(QLatin1StringView(field)),
                                     QRegularExpression::MultilineOption);
    const auto match = pattern.match(QString::fromLatin1(status.readAll()));
    return match.hasMatch() ? match.captured(1).toLongLong() : -1;
}

qsizetype openDescriptors(qint64 pid)
{
    return QDir(u"/proc/%1/fd"_s.arg(pid))
        .entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::System)
        .size();
}

// "Max open files" of /proc/<pid>/limits: the soft and the hard limit.
std::pair<QString, QString> openFileLimits(qint64 pid)
{
    QFile limits(u"/proc/%1/limits"_s.arg(pid));
    if (!limits.open(QIODevice::ReadOnly))
        return {};
    static const QRegularExpression pattern(u"^Max open files\\s+(\\S+)\\s+(\\S+)"_s,
                                            QRegularExpression::MultilineOption);
    const auto match = pattern.match(QString::fromLatin1(limits.readAll()));
    return {match.captured(1), match.captured(2)};
}

// A slow client on a plain non-blocking socket: thousands of them cost the test little.
struct SlowConnection
{
    int descriptor = -1;
    QByteArray received;
    bool closed = false;
};
#endif

} // namespace

class DaemonHostileHttpTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanup();

    void slowConnectionFlood_publishersServed_slowConnectionsClosed();
    void connectionCap_refusedWith503InEventGridShape();
    void options_invalidValuesRefusedAtStart_data();
    void options_invalidValuesRefusedAtStart();

private:
    bool startDaemon(const QStringList &arguments);

    std::unique_ptr<QTemporaryDir> m_workspace;
    std::unique_ptr<DaemonProcess> m_daemon;
    quint64 m_hardOpenFileLimit = 0;
};

void DaemonHostileHttpTest::initTestCase()
{
#ifndef Q_OS_LINUX
    QSKIP("reads /proc and raises RLIMIT_NOFILE: Linux only");
#else
    QVERIFY2(QFileInfo(DaemonProcess::executablePath()).isExecutable(),
             qPrintable(DaemonProcess::executablePath()));
    rlimit limit = {};
    QCOMPARE(::getrlimit(RLIMIT_NOFILE, &limit), 0);
    m_hardOpenFileLimit
        = limit.rlim_max == RLIM_INFINITY ? std::numeric_limits<quint64>::max() : limit.rlim_max;
    if (m_hardOpenFileLimit < quint64(SlowConnections) + 1000)
        QSKIP(qPrintable(
            u"the hard open-file limit (%1) is below the %2 connections this test opens"_s
                .arg(m_hardOpenFileLimit)
                .arg(SlowConnections)));
#endif
}

void DaemonHostileHttpTest::cleanup()
{
    if (m_daemon && m_daemon->isRunning())
        QVERIFY2(m_daemon->terminate(), qPrintable(m_daemon->standardError().right(4000)));
    m_daemon.reset();
    m_workspace.reset();
}

bool DaemonHostileHttpTest::startDaemon(const QStringList &arguments)
{
    m_workspace = std::make_unique<QTemporaryDir>();
    if (!m_workspace->isValid()
        || !WorkspaceJson::write(m_workspace->path(),
                                 WorkspaceJson::workspace({WorkspaceJson::topic(u"orders"_s, {})})))
        return false;
    m_daemon = std::make_unique<DaemonProcess>(m_workspace->path());
    m_daemon->setExtraArguments(arguments);
    if (!m_daemon->start()) {
        qWarning().noquote() << m_daemon->standardError();
        return false;
    }
    return true;
}

void DaemonHostileHttpTest::slowConnectionFlood_publishersServed_slowConnectionsClosed()
{
#ifdef Q_OS_LINUX
    rlimit limit = {};
    QCOMPARE(::getrlimit(RLIMIT_NOFILE, &limit), 0);
    const rlimit original = limit;
    // The daemon starts with the common soft limit of 1024, which would not hold the flood; it must
    // raise its own to the hard limit. This process raises its own after the daemon has started.
    limit.rlim_cur = std::min<rlim_t>(1024, limit.rlim_max);
    QCOMPARE(::setrlimit(RLIMIT_NOFILE, &limit), 0);
    const bool started = startDaemon({u"--header-timeout"_s, QString::number(HeaderTimeoutSeconds),
                                      u"--body-timeout"_s, QString::number(HeaderTimeoutSeconds)});
    limit.rlim_cur = limit.rlim_max;
    QCOMPARE(::setrlimit(RLIMIT_NOFILE, &limit), 0);
    QVERIFY(started);
    const qint64 pid = m_daemon->processId();
    const auto [softLimit, hardLimit] = openFileLimits(pid);
    QVERIFY2(softLimit == hardLimit,
             qPrintable(u"eventdeskd's open-file limit: soft %1, hard %2 (started with soft %3)"_s
                            .arg(softLimit, hardLimit)
                            .arg(quint64(std::min<rlim_t>(1024, original.rlim_max)))));

    QCOMPARE(m_daemon->publish(u"orders"_s, eventBatch({u"before-flood"_s})).status, 200);
    const qint64 residentBeforeKb = statusKb(pid, "VmRSS");
    QVERIFY(residentBeforeKb > 0);

    sockaddr_in address = {};
    address.sin_family = AF_INET;
    address.sin_port = htons(m_daemon->port());
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    std::vector<SlowConnection> slow;
    slow.reserve(SlowConnections);
    const auto closeAll = qScopeGuard([&slow] {
        for (const SlowConnection &connection : slow) {
            if (connection.descriptor >= 0)
                ::close(connection.descriptor);
        }
    });
    QList<int> publishStatuses;
    int publishes = 0;
    const auto publish = [&] {
        const HttpResult result
            = m_daemon->publish(u"orders"_s, eventBatch({u"during-flood-%1"_s.arg(++publishes)}));
        publishStatuses.append(result.status);
        if (result.status != 200)
            qWarning() << "publish" << publishes << "answered" << result.status
                       << result.networkError << result.body;
    };

    // Open the slow connections in batches, a publish after each batch.
    qsizetype peakDescriptors = 0;
    for (int batchStart = 0; batchStart < SlowConnections; batchStart += SlowConnectionBatch) {
        std::vector<pollfd> connecting;
        for (int i = batchStart; i < std::min(SlowConnections, batchStart + SlowConnectionBatch);
             ++i) {
            const int descriptor = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
            QVERIFY2(descriptor >= 0, strerror(errno));
            slow.push_back({descriptor, {}, false});
            const int connected = ::connect(
                descriptor, reinterpret_cast<const sockaddr *>(&address), sizeof address);
            QVERIFY2(connected == 0 || errno == EINPROGRESS, strerror(errno));
            connecting.push_back({descriptor, POLLOUT, 0});
        }
        // Wait until every socket of the batch is connected, then send each its half head.
        for (pollfd &entry : connecting) {
            QVERIFY2(::poll(&entry, 1, 30'000) == 1,
                     "a slow connection did not connect within 30 s");
            int error = 0;
            socklen_t length = sizeof error;
            ::getsockopt(entry.fd, SOL_SOCKET, SO_ERROR, &error, &length);
            QVERIFY2(error == 0, strerror(error));
            QCOMPARE(::send(entry.fd, HalfHead.constData(), size_t(HalfHead.size()), MSG_NOSIGNAL),
                     ssize_t(HalfHead.size()));
        }
        peakDescriptors = std::max(peakDescriptors, openDescriptors(pid));
        publish();
    }
    peakDescriptors = std::max(peakDescriptors, openDescriptors(pid));
    const qint64 residentFloodKb = statusKb(pid, "VmRSS");
    for (int i = 0; i < 10; ++i)
        publish();

    // Every slow connection must be answered 408 and closed by the daemon, not by this test.
    QElapsedTimer waiting;
    waiting.start();
    int closed = 0;
    std::vector<pollfd> watched;
    std::vector<SlowConnection *> watchedConnections;
    while (closed < SlowConnections && waiting.elapsed() < SlowConnectionsClosedWithinMs) {
        watched.clear();
        watchedConnections.clear();
        for (SlowConnection &connection : slow) {
            if (!connection.closed) {
                watched.push_back({connection.descriptor, POLLIN, 0});
                watchedConnections.push_back(&connection);
            }
        }
        if (::poll(watched.data(), nfds_t(watched.size()), 500) <= 0)
            continue;
        for (size_t i = 0; i < watched.size(); ++i) {
            const pollfd &entry = watched[i];
            if (entry.revents == 0)
                continue;
            SlowConnection *connection = watchedConnections[i];
            char buffer[4096];
            const ssize_t read = ::recv(entry.fd, buffer, sizeof buffer, 0);
            if (read > 0) {
                connection->received.append(buffer, read);
            } else if (read == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
                connection->closed = true;
                ++closed;
            }
        }
    }
    const qint64 residentAfterKb = statusKb(pid, "VmRSS");
    const qint64 residentPeakKb = statusKb(pid, "VmHWM");
    const auto answered408
        = std::count_if(slow.cbegin(), slow.cend(), [](const SlowConnection &connection) {
              return connection.received.startsWith("HTTP/1.1 408 ");
          });
    const auto accepted = publishStatuses.count(200);
    qInfo().noquote()
        << u"eventdeskd under %1 slow connections (header timeout %2 s): resident memory %3 MB "
           u"before, "
           "%4 MB with all connections open, %5 MB after they were closed, peak %6 MB; "
           "at most %7 descriptors open; %8 slow connections closed by the daemon within %9 s, %10 "
           "of "
           "them with a 408; publishers: %11 of %12 answered 200"_s.arg(SlowConnections)
               .arg(HeaderTimeoutSeconds)
               .arg(residentBeforeKb / 1024.0, 0, 'f', 1)
               .arg(residentFloodKb / 1024.0, 0, 'f', 1)
               .arg(residentAfterKb / 1024.0, 0, 'f', 1)
               .arg(residentPeakKb / 1024.0, 0, 'f', 1)
               .arg(peakDescriptors)
               .arg(closed)
               .arg(waiting.elapsed() / 1000.0, 0, 'f', 1)
               .arg(answered408)
               .arg(accepted)
               .arg(publishStatuses.size());

    QCOMPARE(accepted, publishStatuses.size());
    QCOMPARE(closed, SlowConnections);
    QCOMPARE(answered408, qsizetype(SlowConnections));
    QVERIFY2(residentPeakKb < PeakResidentBoundKb,
             qPrintable(u"peak resident memory %1 kB, bound %2 kB"_s.arg(residentPeakKb)
                            .arg(PeakResidentBoundKb)));
    // Still serving, with the flood's descriptors given back.
    QCOMPARE(m_daemon->publish(u"orders"_s, eventBatch({u"after-flood"_s})).status, 200);
    QVERIFY2(openDescriptors(pid) < 200, qPrintable(QString::number(openDescriptors(pid))));
#endif
}

// Beyond --max-connections a client gets 503, Event Grid's error shape and "Connection: close"; the
// connections within the cap keep working, and a closed one makes room.
void DaemonHostileHttpTest::connectionCap_refusedWith503InEventGridShape()
{
#ifdef Q_OS_LINUX
    QVERIFY(startDaemon({u"--max-connections"_s, u"2"_s, u"--header-timeout"_s, u"600"_s}));
    QTcpSocket held[2];
    for (QTcpSocket &socket : held) {
        socket.connectToHost(QHostAddress::LocalHost, m_daemon->port());
        QVERIFY(socket.waitForConnected(30'000));
        socket.write(HalfHead);
        QVERIFY(socket.waitForBytesWritten(30'000));
    }
    // The daemon takes connections in the order they came: the third is beyond the cap.
    QTcpSocket refused;
    refused.connectToHost(QHostAddress::LocalHost, m_daemon->port());
    QVERIFY(refused.waitForConnected(30'000));
    const QByteArray body = eventBatch({u"refused"_s});
    refused.write("POST /topics/orders/api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                  "application/json\r\n"
                  "Content-Length: "
                  + QByteArray::number(body.size()) + "\r\n\r\n" + body);
    QByteArray answer;
    while (refused.waitForReadyRead(30'000)) // until the daemon closes the connection
        answer += refused.readAll();
    answer += refused.readAll();
    QVERIFY2(answer.startsWith("HTTP/1.1 503 Service Unavailable\r\n"), answer.constData());
    QVERIFY2(answer.contains("\r\nConnection: close\r\n"), answer.constData());
    HttpResult result;
    result.body = answer.mid(answer.indexOf("\r\n\r\n") + 4);
    QCOMPARE(result.errorCode(), u"ServiceUnavailable"_s);
    QVERIFY2(result.errorMessage().contains("2"_L1), qPrintable(result.errorMessage()));
    QCOMPARE(storeScalar(m_workspace->path(),
                         u"SELECT COUNT(*) FROM events WHERE event_id = 'refused'"_s),
             0);

    // Freeing a connection lets a publisher in.
    held[0].abort();
    int status = 0;
    for (int attempt = 0; attempt < 100 && status != 200; ++attempt) {
        if (attempt > 0)
            QTest::qWait(100);
        status = m_daemon->publish(u"orders"_s, eventBatch({u"admitted-%1"_s.arg(attempt)})).status;
    }
    QCOMPARE(status, 200);
#endif
}

void DaemonHostileHttpTest::options_invalidValuesRefusedAtStart_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("message");

    QTest::newRow("header timeout not a number")
        << QStringList {u"--header-timeout"_s, u"soon"_s}
        << u"--header-timeout: must be a number of seconds"_s;
    QTest::newRow("body timeout too short")
        << QStringList {u"--body-timeout"_s, u"0.01"_s}
        << u"--body-timeout: must be a number of seconds from 0.05 to 3600"_s;
    QTest::newRow("idle timeout too long")
        << QStringList {u"--idle-timeout"_s, u"7200"_s}
        << u"--idle-timeout: must be a number of seconds from 0.05 to 3600"_s;
    QTest::newRow("no connections") << QStringList {u"--max-connections"_s, u"0"_s}
                                    << u"--max-connections: must be an integer from 1 to 1000000"_s;
}

void DaemonHostileHttpTest::options_invalidValuesRefusedAtStart()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, message);

    m_workspace = std::make_unique<QTemporaryDir>();
    QVERIFY(m_workspace->isValid());
    m_daemon = std::make_unique<DaemonProcess>(m_workspace->path());
    m_daemon->setExtraArguments(arguments);
    QVERIFY2(m_daemon->runExpectingExit(), qPrintable(m_daemon->standardOutput()));
    QCOMPARE(m_daemon->exitCode(), 2);
    QVERIFY2(m_daemon->standardError().contains(message), qPrintable(m_daemon->standardError()));
}

QTEST_GUILESS_MAIN(DaemonHostileHttpTest)
#include "tst_daemon_hostilehttp.moc"
