// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// eventdeskd as a service manager runs it (docs/eventdeskd.md "Running as a service", "Logs"):
// the readiness protocol of a Type=notify unit on a notify socket this test binds (a path and an
// abstract name), SIGHUP reading workspace.json again (and keeping the running configuration when
// the file is not valid), secrets from systemd's credentials folder, the JSON log lines of a
// delivery, a retry, a failed attempt and a dead letter, the log levels, the options' errors, and
// a run under the kernel's refusal of writable-and-executable memory (MemoryDenyWriteExecute=).

#include "DaemonProcess.h"
#include "DeadLetterFiles.h"
#include "ScriptedReceiver.h"
#include "rules/DeliveryOutcome.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <optional>

#include <csignal>
#include <cstddef>
#include <cstring>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#ifndef PR_SET_MDWE // Linux 6.3; older C library headers lack it
#define PR_SET_MDWE 65
#define PR_MDWE_REFUSE_EXEC_GAIN 1
#endif

using namespace Qt::StringLiterals;
using namespace EventDesk;
using namespace EventDesk::Testing;

namespace {

constexpr int WaitMs = 60'000;

// The service manager's side of sd_notify: a datagram socket the daemon is told about in
// NOTIFY_SOCKET. received() takes what has arrived since, without blocking.
class NotifySocket
{
public:
    enum class Kind { Path, Abstract };

    NotifySocket(Kind kind, const QString &directory)
    {
        m_socket = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        sockaddr_un address = {};
        address.sun_family = AF_UNIX;
        socklen_t length = 0;
        if (kind == Kind::Path) {
            const QByteArray path = QFile::encodeName(QDir(directory).filePath(u"notify"_s));
            std::memcpy(address.sun_path, path.constData(), size_t(path.size()));
            length = socklen_t(offsetof(sockaddr_un, sun_path) + size_t(path.size()) + 1);
            m_name = QString::fromLocal8Bit(path);
        } else {
            const QByteArray name = "eventdesk-test-" + QByteArray::number(::getpid()) + '-'
                + QByteArray::number(quintptr(this));
            std::memcpy(address.sun_path + 1, name.constData(), size_t(name.size()));
            length = socklen_t(offsetof(sockaddr_un, sun_path) + 1 + size_t(name.size()));
            m_name = u'@' + QString::fromLatin1(name);
        }
        m_bound = m_socket >= 0
            && ::bind(m_socket, reinterpret_cast<const sockaddr *>(&address), length) == 0;
    }
    ~NotifySocket()
    {
        if (m_socket >= 0)
            ::close(m_socket);
    }
    NotifySocket(const NotifySocket &) = delete;
    NotifySocket &operator=(const NotifySocket &) = delete;

    bool isBound() const { return m_bound; }
    QString name() const { return m_name; }

    // Every datagram so far, each a message such as "READY=1\nSTATUS=...".
    const QList<QByteArray> &received()
    {
        char buffer[4096];
        for (;;) {
            const ssize_t size = ::recv(m_socket, buffer, sizeof buffer, MSG_DONTWAIT);
            if (size < 0)
                break;
            m_received.append(QByteArray(buffer, size));
        }
        return m_received;
    }
    // The messages holding line (e.g. "READY=1"), in order.
    QList<QByteArray> withLine(const QByteArray &line)
    {
        QList<QByteArray> matching;
        for (const QByteArray &message : received()) {
            if (message.split('\n').contains(line))
                matching.append(message);
        }
        return matching;
    }

private:
    int m_socket = -1;
    bool m_bound = false;
    QString m_name;
    QList<QByteArray> m_received;
};

// The value of "KEY=value" in a notify message.
QByteArray notifyValue(const QByteArray &message, const QByteArray &key)
{
    for (const QByteArray &line : message.split('\n')) {
        if (line.startsWith(QByteArray(key + '=')))
            return line.mid(key.size() + 1);
    }
    return {};
}

QJsonObject topicWith(const QString &name, const QList<QJsonObject> &subscriptions)
{
    return WorkspaceJson::topic(name, subscriptions);
}

QJsonObject subscriptionTo(const QString &name, const QUrl &url, int maxDeliveryAttempts = 30)
{
    WorkspaceJson::SubscriptionOptions options;
    options.name = name;
    options.endpointUrl = url;
    options.maxDeliveryAttempts = maxDeliveryAttempts;
    return WorkspaceJson::subscription(options);
}

// stderr of a --log-format json run, every line parsed; a line that is not a JSON object fails
// the calling test (through the returned error).
struct JsonLog
{
    QList<QJsonObject> lines;
    QString error;
};

JsonLog parseJsonLog(const QString &standardError)
{
    JsonLog log;
    const QStringList lines = standardError.split(u'\n', Qt::SkipEmptyParts);
    for (qsizetype i = 0; i < lines.size(); ++i) {
        QJsonParseError parseError;
        const QJsonDocument document = QJsonDocument::fromJson(lines.at(i).toUtf8(), &parseError);
        if (parseError.error != QJsonParseError::NoError || !document.isObject()) {
            log.error = u"line %1 is not a JSON object (%2): %3"_s.arg(i + 1).arg(
                parseError.errorString(), lines.at(i));
            return log;
        }
        log.lines.append(document.object());
    }
    return log;
}

std::optional<QJsonObject> findLine(const QList<QJsonObject> &lines, const QString &result,
                                    const QString &subscription)
{
    for (const QJsonObject &line : lines) {
        if (line.value("result"_L1).toString() == result
            && line.value("subscription"_L1).toString() == subscription)
            return line;
    }
    return std::nullopt;
}

} // namespace

class TestDaemonService final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void notify_readyOnceListening_data();
    void notify_readyOnceListening();
    void notify_unreachableSocketIsLoggedOnce();
    void reload_sighupAppliesWorkspaceJson();
    void reload_invalidWorkspaceKeepsRunningConfiguration();
    void credentials_topicKeyFromCredentialsDirectory();
    void logs_jsonLinesOfDeliveryRetryAndDeadLetter();
    void logs_levelAndTextFormat();
    void options_badValuesNameOptionAndValidValues_data();
    void options_badValuesNameOptionAndValidValues();
    void mdwe_runsWithoutWritableExecutableMemory();
};

void TestDaemonService::notify_readyOnceListening_data()
{
    QTest::addColumn<NotifySocket::Kind>("kind");
    QTest::newRow("path") << NotifySocket::Kind::Path;
    QTest::newRow("abstract") << NotifySocket::Kind::Abstract;
}

void TestDaemonService::notify_readyOnceListening()
{
    QFETCH(NotifySocket::Kind, kind);
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    NotifySocket notify(kind, directory.path());
    QVERIFY2(notify.isBound(), qPrintable(notify.name()));
    const QString workspace = directory.filePath(u"workspace"_s);

    DaemonProcess daemon(workspace);
    daemon.setEnvironmentVariable(u"NOTIFY_SOCKET"_s, notify.name());
    daemon.setExtraArguments({u"--secret-store"_s, u"none"_s});
    QVERIFY2(daemon.start(), qPrintable(daemon.standardError()));

    // READY=1 arrives once, naming the address that listens: a publish there is accepted.
    QTRY_COMPARE_WITH_TIMEOUT(notify.withLine("READY=1").size(), 1, WaitMs);
    const QByteArray ready = notify.withLine("READY=1").constFirst();
    QCOMPARE(notifyValue(ready, "STATUS"),
             "listening on " + daemon.baseUrl().toString(QUrl::StripTrailingSlash).toUtf8());
    QCOMPARE(notify.received().size(), 1); // nothing before it
    const HttpResult published = daemon.publish(u"demo"_s, eventBatch({u"ready-1"_s}));
    QCOMPARE(published.status, 200);

    // STOPPING=1 when SIGTERM starts the shutdown; then a clean exit.
    QVERIFY2(daemon.terminate(), qPrintable(daemon.standardError()));
    QCOMPARE(notify.withLine("STOPPING=1").size(), 1);
    QCOMPARE(notify.received().constLast(), notify.withLine("STOPPING=1").constFirst());
    QVERIFY(!daemon.standardError().contains(u"cannot notify"_s));
}

void TestDaemonService::notify_unreachableSocketIsLoggedOnce()
{
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    DaemonProcess daemon(directory.filePath(u"workspace"_s));
    daemon.setEnvironmentVariable(u"NOTIFY_SOCKET"_s, directory.filePath(u"nobody-listens"_s));
    daemon.setExtraArguments({u"--secret-store"_s, u"none"_s});
    QVERIFY2(daemon.start(), qPrintable(daemon.standardError()));
    ::kill(pid_t(daemon.processId()), SIGHUP); // READY=1 and RELOADING=1 fail too
    QTRY_VERIFY_WITH_TIMEOUT(daemon.standardError().contains(u"reloaded workspace.json"_s), WaitMs);
    QVERIFY2(daemon.terminate(), qPrintable(daemon.standardError()));
    QCOMPARE(daemon.standardError().count(u"cannot notify the service manager"_s), 1);
    QVERIFY(daemon.standardError().contains(directory.filePath(u"nobody-listens"_s)));
}

void TestDaemonService::reload_sighupAppliesWorkspaceJson()
{
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    NotifySocket notify(NotifySocket::Kind::Path, directory.path());
    QVERIFY(notify.isBound());
    ScriptedReceiver receiver;
    QVERIFY(receiver.listen());
    const QString workspace = directory.filePath(u"workspace"_s);
    QVERIFY(WorkspaceJson::write(
        workspace,
        WorkspaceJson::workspace({topicWith(
            u"orders"_s, {subscriptionTo(u"billing"_s, receiver.url(u"/billing"_s))})})));

    DaemonProcess daemon(workspace);
    daemon.setEnvironmentVariable(u"NOTIFY_SOCKET"_s, notify.name());
    daemon.setExtraArguments({u"--secret-store"_s, u"none"_s});
    QVERIFY2(daemon.start(), qPrintable(daemon.standardError()));
    QTRY_COMPARE_WITH_TIMEOUT(notify.withLine("READY=1").size(), 1, WaitMs);
    QCOMPARE(daemon.publish(u"invoices"_s, eventBatch({u"before"_s})).status, 404);

    // A second topic, and the first one's subscription sent elsewhere.
    QVERIFY(WorkspaceJson::write(
        workspace,
        WorkspaceJson::workspace(
            {topicWith(u"orders"_s, {subscriptionTo(u"billing"_s, receiver.url(u"/billing-v2"_s))}),
             topicWith(u"invoices"_s,
                       {subscriptionTo(u"archive"_s, receiver.url(u"/archive"_s))})})));
    QCOMPARE(::kill(pid_t(daemon.processId()), SIGHUP), 0);
    // RELOADING=1 with the monotonic time, then READY=1 again once the new configuration runs.
    QTRY_COMPARE_WITH_TIMEOUT(notify.withLine("READY=1").size(), 2, WaitMs);
    QCOMPARE(notify.received().size(), 3);
    const QByteArray reloading = notify.received().at(1);
    QVERIFY2(reloading.split('\n').contains("RELOADING=1"), reloading.constData());
    bool monotonicOk = false;
    QVERIFY(notifyValue(reloading, "MONOTONIC_USEC").toULongLong(&monotonicOk) > 0 && monotonicOk);
    QVERIFY2(daemon.standardError().contains(
                 u"reloaded workspace.json: 2 topic(s), 2 event subscription(s)"_s),
             qPrintable(daemon.standardError()));

    QCOMPARE(daemon.publish(u"invoices"_s, eventBatch({u"invoice-1"_s})).status, 200);
    QCOMPARE(daemon.publish(u"orders"_s, eventBatch({u"order-1"_s})).status, 200);
    QTRY_COMPARE_WITH_TIMEOUT(receiver.acceptedEventIds().size(), 2, WaitMs);
    QStringList paths;
    for (const ReceivedRequest &request : receiver.requests())
        paths.append(QString::fromUtf8(request.path));
    paths.sort();
    QCOMPARE(paths, QStringList({u"/archive"_s, u"/billing-v2"_s}));
    QVERIFY2(daemon.terminate(), qPrintable(daemon.standardError()));
}

void TestDaemonService::reload_invalidWorkspaceKeepsRunningConfiguration()
{
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    NotifySocket notify(NotifySocket::Kind::Abstract, directory.path());
    QVERIFY(notify.isBound());
    ScriptedReceiver receiver;
    QVERIFY(receiver.listen());
    const QString workspace = directory.filePath(u"workspace"_s);
    QVERIFY(WorkspaceJson::write(
        workspace,
        WorkspaceJson::workspace({topicWith(
            u"orders"_s, {subscriptionTo(u"billing"_s, receiver.url(u"/billing"_s))})})));
    DaemonProcess daemon(workspace);
    daemon.setEnvironmentVariable(u"NOTIFY_SOCKET"_s, notify.name());
    daemon.setExtraArguments({u"--secret-store"_s, u"none"_s});
    QVERIFY2(daemon.start(), qPrintable(daemon.standardError()));

    const QList<QPair<QByteArray, QString>> broken {
        {"{\"topics\": [", u"workspace.json"_s}, // not JSON
        {QJsonDocument(WorkspaceJson::workspace({topicWith(
                           u"orders"_s, {subscriptionTo(u"billing"_s, receiver.url(), 31)})}))
             .toJson(),
         u"maxDeliveryAttempts"_s}, // out of range: the message names the field
    };
    int reloads = 0;
    for (const auto &[contents, named] : broken) {
        QVERIFY(WorkspaceJson::writeRaw(workspace, contents));
        QCOMPARE(::kill(pid_t(daemon.processId()), SIGHUP), 0);
        ++reloads;
        QTRY_COMPARE_WITH_TIMEOUT(daemon.standardError().count(u"workspace.json not reloaded"_s),
                                  reloads, WaitMs);
        QTRY_COMPARE_WITH_TIMEOUT(notify.withLine("READY=1").size(), 1 + reloads, WaitMs);
        QVERIFY2(daemon.standardError().contains(named), qPrintable(daemon.standardError()));
        QVERIFY(daemon.isRunning());
    }
    // The configuration it started with still runs.
    QCOMPARE(daemon.publish(u"orders"_s, eventBatch({u"still-1"_s})).status, 200);
    QTRY_VERIFY_WITH_TIMEOUT(receiver.acceptedEventIds().contains(u"still-1"_s), WaitMs);
    QCOMPARE(QString::fromUtf8(receiver.requests().constLast().path), u"/billing"_s);
    QVERIFY2(daemon.terminate(), qPrintable(daemon.standardError()));
}

void TestDaemonService::credentials_topicKeyFromCredentialsDirectory()
{
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    const QString credentials = directory.filePath(u"credentials"_s);
    QVERIFY(QDir().mkpath(credentials));
    QFile key(QDir(credentials).filePath(u"EVENTDESK_TOPIC_KEY_SECURE_ORDERS"_s));
    QVERIFY(key.open(QIODevice::WriteOnly));
    // As `echo` writes it: the line break is not part of the key (a publish with the key alone
    // is accepted below).
    key.write("credential-key\n");
    key.close();
    ScriptedReceiver receiver;
    QVERIFY(receiver.listen());
    const QString workspace = directory.filePath(u"workspace"_s);
    QVERIFY(WorkspaceJson::write(
        workspace,
        WorkspaceJson::workspace(
            {topicWith(u"secure-orders"_s, {subscriptionTo(u"billing"_s, receiver.url())})})));

    for (const QString &environmentKey : {QString(), u"environment-key"_s}) {
        DaemonProcess daemon(workspace);
        daemon.setEnvironmentVariable(u"CREDENTIALS_DIRECTORY"_s, credentials);
        if (!environmentKey.isEmpty()) // the environment wins over the credential
            daemon.setEnvironmentVariable(u"EVENTDESK_TOPIC_KEY_SECURE_ORDERS"_s, environmentKey);
        daemon.setExtraArguments({u"--secret-store"_s, u"none"_s});
        QVERIFY2(daemon.start(), qPrintable(daemon.standardError()));
        const QString expected = environmentKey.isEmpty() ? u"credential-key"_s : environmentKey;
        const QString other = environmentKey.isEmpty() ? u"environment-key"_s : u"credential-key"_s;
        QCOMPARE(daemon.publish(u"secure-orders"_s, eventBatch({u"no-key"_s})).status, 401);
        QCOMPARE(daemon
                     .publish(u"secure-orders"_s, eventBatch({u"other-key"_s}),
                              {{"aeg-sas-key", other.toUtf8()}})
                     .status,
                 401);
        QCOMPARE(daemon
                     .publish(u"secure-orders"_s, eventBatch({u"with-key-" + expected}),
                              {{"aeg-sas-key", expected.toUtf8()}})
                     .status,
                 200);
        QVERIFY2(daemon.terminate(), qPrintable(daemon.standardError()));
        QVERIFY(!daemon.standardError().contains(expected));
    }
}

void TestDaemonService::logs_jsonLinesOfDeliveryRetryAndDeadLetter()
{
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    ScriptedReceiver receiver;
    QVERIFY(receiver.listen());
    // /healthy answers 200; /flaky 503 once, then 200; /refusing 400 (dead-lettered at once).
    int flakyRequests = 0;
    receiver.setResponder([&flakyRequests](const ReceivedRequest &request) {
        if (request.path == "/flaky")
            return ++flakyRequests == 1 ? ReceiverAction::respond(503)
                                        : ReceiverAction::respond(200);
        if (request.path == "/refusing")
            return ReceiverAction::respond(400);
        return ReceiverAction::respond(200);
    });
    const QString workspace = directory.filePath(u"workspace"_s);
    QVERIFY(WorkspaceJson::write(
        workspace,
        WorkspaceJson::workspace(
            {topicWith(u"orders"_s,
                       {subscriptionTo(u"healthy"_s, receiver.url(u"/healthy"_s)),
                        subscriptionTo(u"flaky"_s, receiver.url(u"/flaky"_s)),
                        subscriptionTo(u"refusing"_s, receiver.url(u"/refusing"_s))})},
            0)));

    DaemonProcess daemon(workspace);
    daemon.setTimeScale(100); // the retry after a 503 comes in a fraction of a second
    daemon.setEnvironmentVariable(u"QT_LOGGING_RULES"_s, QString()); // --log-level decides
    daemon.setExtraArguments({u"--secret-store"_s, u"none"_s, u"--log-format"_s, u"json"_s,
                              u"--log-level"_s, u"debug"_s});
    QVERIFY2(daemon.start(), qPrintable(daemon.standardError()));
    QCOMPARE(daemon.publish(u"orders"_s, eventBatch({u"event-1"_s})).status, 200);
    QTRY_COMPARE_WITH_TIMEOUT(receiver.acceptedEventIds().size(), 1, WaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(flakyRequests, 2, WaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(
        deadLetterRecordsBelow(QDir(workspace).filePath(u"deadletters"_s)).size(), 1, WaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(daemon.standardError().contains(u"\"deadLettered\""_s), WaitMs);
    QVERIFY2(daemon.terminate(), qPrintable(daemon.standardError()));

    // Every line, the engine's own messages included, is one JSON object with the four members.
    const JsonLog log = parseJsonLog(daemon.standardError());
    QVERIFY2(log.error.isEmpty(), qPrintable(log.error));
    QVERIFY(log.lines.size() > 5);
    for (const QJsonObject &line : log.lines) {
        const QString text = QString::fromUtf8(QJsonDocument(line).toJson(QJsonDocument::Compact));
        const QDateTime time
            = QDateTime::fromString(line.value("time"_L1).toString(), Qt::ISODateWithMs);
        QVERIFY2(time.isValid() && time.timeSpec() == Qt::UTC, qPrintable(text));
        QVERIFY2(QStringList({u"debug"_s, u"info"_s, u"warning"_s, u"error"_s})
                     .contains(line.value("level"_L1).toString()),
                 qPrintable(text));
        QVERIFY2(line.value("category"_L1).toString().startsWith(u"eventdesk."_s)
                     || line.value("category"_L1).toString().startsWith(u"qt."_s)
                     || line.value("category"_L1).toString() == u"default"_s,
                 qPrintable(text));
        QVERIFY2(!line.value("message"_L1).toString().isEmpty(), qPrintable(text));
    }

    const auto delivered = findLine(log.lines, u"delivered"_s, u"healthy"_s);
    QVERIFY2(delivered, "no delivered line for subscription healthy");
    QCOMPARE(delivered->value("level"_L1).toString(), u"debug"_s);
    QCOMPARE(delivered->value("category"_L1).toString(), u"eventdesk.delivery"_s);
    QCOMPARE(delivered->value("topic"_L1).toString(), u"orders"_s);
    QCOMPARE(delivered->value("eventId"_L1).toString(), u"event-1"_s);
    QCOMPARE(delivered->value("attempt"_L1).toInt(), 1);
    QCOMPARE(delivered->value("outcome"_L1).toString(), u"Delivered"_s);
    QCOMPARE(delivered->value("httpStatus"_L1).toInt(), 200);
    QVERIFY(delivered->value("durationMs"_L1).isDouble());

    const auto retry = findLine(log.lines, u"retryScheduled"_s, u"flaky"_s);
    QVERIFY2(retry, "no retryScheduled line for subscription flaky");
    QCOMPARE(retry->value("level"_L1).toString(), u"info"_s);
    QCOMPARE(retry->value("eventId"_L1).toString(), u"event-1"_s);
    QCOMPARE(retry->value("attempt"_L1).toInt(), 1);
    QCOMPARE(retry->value("outcome"_L1).toString(), u"Busy"_s);
    QCOMPARE(retry->value("httpStatus"_L1).toInt(), 503);
    QVERIFY(QDateTime::fromString(retry->value("nextAttemptTime"_L1).toString(), Qt::ISODateWithMs)
                .isValid());
    QVERIFY2(retry->value("message"_L1).toString().contains(u"next attempt in"_s),
             qPrintable(retry->value("message"_L1).toString()));
    const auto secondAttempt = findLine(log.lines, u"delivered"_s, u"flaky"_s);
    QVERIFY2(secondAttempt, "no delivered line for subscription flaky");
    QCOMPARE(secondAttempt->value("attempt"_L1).toInt(), 2);

    const auto failed = findLine(log.lines, u"failed"_s, u"refusing"_s);
    QVERIFY2(failed, "no failed line for subscription refusing");
    QCOMPARE(failed->value("level"_L1).toString(), u"warning"_s);
    QCOMPARE(failed->value("outcome"_L1).toString(), u"BadRequest"_s);
    QCOMPARE(failed->value("httpStatus"_L1).toInt(), 400);
    QVERIFY(!failed->contains("nextAttemptTime"_L1));

    const auto deadLetter = findLine(log.lines, u"deadLettered"_s, u"refusing"_s);
    QVERIFY2(deadLetter, "no deadLettered line for subscription refusing");
    QCOMPARE(deadLetter->value("level"_L1).toString(), u"warning"_s);
    QCOMPARE(deadLetter->value("eventId"_L1).toString(), u"event-1"_s);
    QCOMPARE(deadLetter->value("reason"_L1).toString(),
             deadLetterReasonName(DeadLetterReason::UndeliverableDueToHttpBadRequest));
    QCOMPARE(deadLetter->value("outcome"_L1).toString(), u"BadRequest"_s);
    QCOMPARE(deadLetter->value("httpStatus"_L1).toInt(), 400);
    QCOMPARE(deadLetter->value("deliveryAttempts"_L1).toInt(), 1);
    QVERIFY(deadLetter->value("blob"_L1).toString().startsWith(u"deadletters/"_s));
}

void TestDaemonService::logs_levelAndTextFormat()
{
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    ScriptedReceiver receiver;
    QVERIFY(receiver.listen());
    receiver.setDefaultAction(ReceiverAction::respond(400));
    const QString workspace = directory.filePath(u"workspace"_s);
    QVERIFY(WorkspaceJson::write(
        workspace,
        WorkspaceJson::workspace(
            {topicWith(u"orders"_s, {subscriptionTo(u"billing"_s, receiver.url())})}, 0)));
    for (const QString &level : {u"info"_s, u"warning"_s}) {
        DaemonProcess daemon(workspace);
        daemon.setEnvironmentVariable(u"QT_LOGGING_RULES"_s, QString());
        daemon.setExtraArguments({u"--secret-store"_s, u"none"_s, u"--log-level"_s, level});
        QVERIFY2(daemon.start(), qPrintable(daemon.standardError()));
        const QString id = u"text-"_s + level;
        QCOMPARE(daemon.publish(u"orders"_s, eventBatch({id})).status, 200);
        QTRY_VERIFY_WITH_TIMEOUT(daemon.standardError().contains(u"dead-lettered"_s), WaitMs);
        QVERIFY2(daemon.terminate(), qPrintable(daemon.standardError()));
        const QString output = daemon.standardError();
        // The text format: "category: message", a line each; no JSON.
        QVERIFY2(output.contains(u"eventdesk.delivery: event %1 of orders / billing dead-lettered: "
                                 "UndeliverableDueToHttpBadRequest after 1 attempt(s)"_s.arg(id)),
                 qPrintable(output));
        QVERIFY(!output.contains(u"{\"time\""_s));
        // Info messages (the endpoint's start-up lines) only at level info; no debug at either.
        QCOMPARE(output.contains(u"eventdesk.endpoint: at most"_s), level == u"info"_s);
        QVERIFY2(!output.contains(u"delivered event"_s), qPrintable(output));
    }
}

void TestDaemonService::options_badValuesNameOptionAndValidValues_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("message");
    QTest::newRow("log-format") << QStringList {u"--log-format"_s, u"xml"_s}
                                << u"eventdeskd: --log-format: must be text or json (got 'xml')"_s;
    QTest::newRow("log-format empty")
        << QStringList {u"--log-format="_s}
        << u"eventdeskd: --log-format: must be text or json (got '')"_s;
    QTest::newRow("log-level") << QStringList {u"--log-level"_s, u"verbose"_s}
                               << u"eventdeskd: --log-level: must be debug, info, warning or error "
                                  "(got 'verbose')"_s;
    QTest::newRow("log-level case") << QStringList {u"--log-level"_s, u"INFO"_s}
                                    << u"eventdeskd: --log-level: must be debug, info, warning or "
                                       "error (got 'INFO')"_s;
    QTest::newRow("print-manpage") << QStringList {u"--print-manpage"_s, u"2026-02-30"_s}
                                   << u"eventdeskd: --print-manpage: must be a date YYYY-MM-DD "
                                      "(got '2026-02-30')"_s;
}

void TestDaemonService::options_badValuesNameOptionAndValidValues()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, message);
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    QProcess process;
    process.start(DaemonProcess::executablePath(),
                  QStringList {u"--workspace"_s, directory.filePath(u"workspace"_s)} + arguments);
    QVERIFY(process.waitForFinished(WaitMs));
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QCOMPARE(process.exitCode(), 2);
    QCOMPARE(QString::fromUtf8(process.readAllStandardError()).trimmed(), message);
    QVERIFY(process.readAllStandardOutput().isEmpty());
    QVERIFY(!QFileInfo::exists(directory.filePath(u"workspace"_s))); // refused before anything
}

void TestDaemonService::mdwe_runsWithoutWritableExecutableMemory()
{
    // The kernel's refusal of writable-and-executable memory (Linux 6.3), which the unit's
    // MemoryDenyWriteExecute= asks of systemd, set on the daemon before it starts, with the
    // unit's environment.
    const auto refuseExecGain = [] {
        if (::prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0L, 0L, 0L) != 0)
            ::_exit(77);
    };
    QProcess probe;
    probe.setChildProcessModifier(refuseExecGain);
    probe.start(u"/bin/true"_s, {});
    QVERIFY(probe.waitForFinished(WaitMs));
    if (probe.exitCode() == 77)
        QSKIP("this kernel cannot refuse writable-and-executable memory (PR_SET_MDWE, Linux 6.3)");
    QCOMPARE(probe.exitCode(), 0);

    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    ScriptedReceiver receiver;
    QVERIFY(receiver.listen());
    const QString workspace = directory.filePath(u"workspace"_s);
    QVERIFY(WorkspaceJson::write(
        workspace,
        WorkspaceJson::workspace(
            {topicWith(u"orders"_s, {subscriptionTo(u"billing"_s, receiver.url())})})));
    DaemonProcess daemon(workspace);
    daemon.setChildProcessModifier(refuseExecGain);
    daemon.setEnvironmentVariable(u"QT_ENABLE_REGEXP_JIT"_s, u"0"_s);
    daemon.setExtraArguments({u"--secret-store"_s, u"none"_s, u"--log-format"_s, u"json"_s});
    QVERIFY2(daemon.start(), qPrintable(daemon.standardError()));
    QCOMPARE(daemon.publish(u"orders"_s, eventBatch({u"mdwe-1"_s})).status, 200);
    QTRY_VERIFY_WITH_TIMEOUT(receiver.acceptedEventIds().contains(u"mdwe-1"_s), WaitMs);
    ::kill(pid_t(daemon.processId()), SIGHUP); // the reload reads and validates JSON again
    QTRY_VERIFY_WITH_TIMEOUT(daemon.standardError().contains(u"reloaded workspace.json"_s), WaitMs);
    QCOMPARE(daemon.get(daemon.baseUrl().resolved(QUrl(u"/metrics"_s))).status, 200);
    QVERIFY2(daemon.terminate(), qPrintable(daemon.standardError()));
}

QTEST_GUILESS_MAIN(TestDaemonService)
#include "tst_daemon_service.moc"
