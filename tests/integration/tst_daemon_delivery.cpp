// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// eventdeskd end to end: a real webhook receiver (ScriptedReceiver) scripted to provoke each
// delivery outcome, and the daemon run on a temporary workspace with a time scale so that the
// retry schedule (SPEC R3/R4) passes in fractions of a second. Also a webhook that starts after
// the daemon, one that never does, and one that failed validation before a restart.

#include "DaemonProcess.h"
#include "DeadLetterFiles.h"
#include "ScriptedReceiver.h"

#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace Qt::StringLiterals;
using namespace EventDesk::Testing;

namespace {

// DeliveryOutcome as stored in attempt_log.outcome.
constexpr int OutcomeDelivered = 0;
constexpr int OutcomeTimedOut = 6;
constexpr int OutcomeBusy = 7;
constexpr int OutcomeSocketError = 8;
constexpr int OutcomeResolutionError = 9;

constexpr int DeliveryTimeoutMs = 30'000;
constexpr int WaitMs = 60'000; // the late-webhook scenario: all delivered within 60 s of wall time

QString attemptCountSql(int outcome)
{
    return u"SELECT COUNT(*) FROM attempt_log WHERE outcome = %1"_s.arg(outcome);
}

// Every *.json file below `root`, relative to it.
QStringList jsonFilesBelow(const QString &root)
{
    QStringList files;
    QDirIterator iterator(root, {u"*.json"_s}, QDir::Files, QDirIterator::Subdirectories);
    while (iterator.hasNext())
        files.append(QDir(root).relativeFilePath(iterator.next()));
    return files;
}

} // namespace

class DaemonDeliveryTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void scriptedReceiver_handlesSplitChunkedAndKeepAliveRequests();
    void d4d7_successIsDeliveredOnceWithHeadersAndArrayBody();
    void r3r4_busyIsRetriedUntilSuccess();
    void r9_workedExampleKeepsEngineTimesAtAnyScale_data();
    void r9_workedExampleKeepsEngineTimesAtAnyScale();
    void r2l6l7_badRequestIsDeadLetteredWithoutRetry();
    void d6_noAnswerTimesOutAndIsRetried();
    void socketError_closedConnectionIsRetried();
    void socketError_refusedConnectionIsRetriedUntilReceiverIsUp();
    void resolutionError_unresolvableHostIsRetried();
    void b3_batchesNeverExceedMaxEventsPerBatch();
    void d1_restartMidScheduleStillDelivers();

    // A webhook that starts after EventDesk — the usual order on a developer's machine: the
    // handshake meets "connection refused", the subscription waits (Creating) and asks again with
    // a backoff, the events accepted meanwhile are held and delivered once the webhook is up.
    void webhookUpFiveSecondsLater_everyHeldEventDelivered_data();
    void webhookUpFiveSecondsLater_everyHeldEventDelivered();
    void webhookNeverUp_heldEventsDeadLetteredAtTimeToLive();
    void failedValidation_validatedAgainAfterRestart();

private:
    // Writes a workspace with topic "orders" and one subscription, then starts the daemon.
    bool startDaemon(const WorkspaceJson::SubscriptionOptions &subscription, double timeScale);
    qint64 storeValue(const QString &sql) const { return storeScalar(m_workspace->path(), sql); }
    QString daemonLog() const { return m_daemon ? m_daemon->standardError().right(4000) : QString(); }
    QString metrics();
    // The value of the first /metrics sample whose line starts with `prefix`, or -1.
    double metric(const QString &prefix);

    std::unique_ptr<QTemporaryDir> m_workspace;
    std::unique_ptr<ScriptedReceiver> m_receiver;
    std::unique_ptr<DaemonProcess> m_daemon;
};

void DaemonDeliveryTest::initTestCase()
{
    QVERIFY2(QFileInfo(DaemonProcess::executablePath()).isExecutable(),
             qPrintable(DaemonProcess::executablePath()));
}

void DaemonDeliveryTest::init()
{
    m_workspace = std::make_unique<QTemporaryDir>();
    QVERIFY(m_workspace->isValid());
    m_receiver = std::make_unique<ScriptedReceiver>();
}

void DaemonDeliveryTest::cleanup()
{
    // PRODUCT "eventdeskd": SIGTERM shuts down cleanly, even with a request in flight (D6 leaves one).
    const bool stoppedCleanly = !m_daemon || !m_daemon->isRunning() || m_daemon->terminate();
    if ((QTest::currentTestFailed() || !stoppedCleanly) && m_daemon)
        qWarning("daemon log:\n%s", qPrintable(daemonLog()));
    m_daemon.reset();
    m_receiver.reset();
    m_workspace.reset();
    QVERIFY2(stoppedCleanly, "eventdeskd did not exit with code 0 after SIGTERM");
}

bool DaemonDeliveryTest::startDaemon(const WorkspaceJson::SubscriptionOptions &subscription, double timeScale)
{
    const QJsonObject workspace = WorkspaceJson::workspace(
        {WorkspaceJson::topic(u"orders"_s, {WorkspaceJson::subscription(subscription)})});
    if (!WorkspaceJson::write(m_workspace->path(), workspace))
        return false;
    m_daemon = std::make_unique<DaemonProcess>(m_workspace->path());
    m_daemon->setTimeScale(timeScale);
    if (!m_daemon->start()) {
        qWarning("eventdeskd did not start:\n%s", qPrintable(m_daemon->standardError()));
        return false;
    }
    return true;
}

// The test receiver itself: a request whose head and body arrive in pieces, a chunked body on
// the same keep-alive connection, and a second connection at the same time.
void DaemonDeliveryTest::scriptedReceiver_handlesSplitChunkedAndKeepAliveRequests()
{
    QVERIFY(m_receiver->listen());
    m_receiver->setScript({ReceiverAction::respond(503)});
    m_receiver->setDefaultAction(ReceiverAction::respond(202));

    QTcpSocket first;
    QTcpSocket second;
    first.connectToHost(QHostAddress::LocalHost, m_receiver->port());
    second.connectToHost(QHostAddress::LocalHost, m_receiver->port());
    QVERIFY(first.waitForConnected(5'000));
    QVERIFY(second.waitForConnected(5'000));

    const QList<QByteArray> pieces{"POST /hook HT"_ba, "TP/1.1\r\nHost: x\r\nContent-Le"_ba,
                                   "ngth: 7\r\naeg-delivery-count: 3\r\n\r"_ba, "\n[1,"_ba, "2,3]"_ba};
    for (const QByteArray &piece : pieces) {
        QCOMPARE(m_receiver->requestCount(), 0); // incomplete until the last byte
        first.write(piece);
        first.flush();
        QTRY_COMPARE(first.bytesToWrite(), qint64(0));
    }
    QTRY_COMPARE(m_receiver->requestCount(), 1);
    // A whole response head (Content-Length: 0, so nothing follows it).
    QTRY_VERIFY(first.peek(4096).contains("\r\n\r\n"));
    QVERIFY(first.readAll().startsWith("HTTP/1.1 503 "));

    second.write("POST /other HTTP/1.1\r\nContent-Length: 2\r\n\r\n[]"_ba);
    QTRY_COMPARE(m_receiver->requestCount(), 2);
    QTRY_VERIFY(second.peek(4096).contains("\r\n\r\n"));
    QVERIFY(second.readAll().startsWith("HTTP/1.1 202 "));

    first.write("POST /chunked HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n[\"a\"\r\n1\r\n]\r\n0\r\n\r\n"_ba);
    QTRY_COMPARE(m_receiver->requestCount(), 3);
    QTRY_VERIFY(first.peek(4096).contains("\r\n\r\n"));
    QVERIFY(first.readAll().startsWith("HTTP/1.1 202 "));
    QCOMPARE(first.state(), QAbstractSocket::ConnectedState); // kept alive

    const QList<ReceivedRequest> requests = m_receiver->requests();
    QCOMPARE(requests.at(0).body, "[1,2,3]"_ba);
    QCOMPARE(requests.at(0).header("AEG-Delivery-Count"), "3"_ba);
    QCOMPARE(requests.at(0).answeredStatus, 503);
    QCOMPARE(requests.at(1).path, "/other"_ba);
    QCOMPARE(requests.at(2).path, "/chunked"_ba);
    QCOMPARE(requests.at(2).body, "[\"a\"]"_ba);
    QCOMPARE(m_receiver->openConnectionCount(), 2);
}

// SPEC D4, D7, D5, S1: a 200 ends the delivery after one request that carries the aeg-* headers
// and a JSON array body with the engine-filled topic and metadataVersion.
void DaemonDeliveryTest::d4d7_successIsDeliveredOnceWithHeadersAndArrayBody()
{
    QVERIFY(m_receiver->listen());
    WorkspaceJson::SubscriptionOptions subscription;
    subscription.endpointUrl = m_receiver->url(u"/hook"_s);
    subscription.validation = true; // D7: the handshake comes first, then the Notification
    QVERIFY(startDaemon(subscription, 100));

    QJsonObject event = eventGridEvent(u"evt-d4"_s, QJsonObject{{u"orderId"_s, 42}});
    event.insert(u"dataVersion"_s, u"2.5"_s);
    const HttpResult published =
        m_daemon->publish(u"orders"_s, QJsonDocument(QJsonArray{event}).toJson(QJsonDocument::Compact));
    QCOMPARE(published.status, 200);

    QTRY_COMPARE_WITH_TIMEOUT(m_receiver->acceptedEventIds().size(), 1, DeliveryTimeoutMs);
    // The delivery is over once the engine logged the success; only then is "exactly once" final.
    QTRY_COMPARE_WITH_TIMEOUT(storeValue(attemptCountSql(OutcomeDelivered)), 1, DeliveryTimeoutMs);
    QCOMPARE(m_receiver->requestCount(), 1);

    QCOMPARE(m_receiver->validationRequests().size(), 1);
    const ReceivedRequest validation = m_receiver->validationRequests().constFirst();
    QCOMPARE(validation.header("aeg-event-type"), "SubscriptionValidation"_ba);
    QVERIFY(validation.receivedAtMs <= m_receiver->request(0).receivedAtMs);

    const ReceivedRequest request = m_receiver->request(0);
    QCOMPARE(request.method, "POST"_ba);
    QCOMPARE(request.path, "/hook"_ba);
    QVERIFY2(request.header("content-type").startsWith("application/json"), request.header("content-type").constData());
    QCOMPARE(request.header("aeg-event-type"), "Notification"_ba);
    QCOMPARE(request.header("aeg-subscription-name"), "SUB-ONE"_ba);
    QCOMPARE(request.header("aeg-delivery-count"), "0"_ba);
    QCOMPARE(request.header("aeg-data-version"), "2.5"_ba);
    QCOMPARE(request.header("aeg-metadata-version"), "1"_ba);

    const QJsonDocument body = QJsonDocument::fromJson(request.body);
    QVERIFY2(body.isArray(), request.body.constData()); // D4: an array even for one event
    QCOMPARE(body.array().size(), 1);
    const QJsonObject delivered = body.array().at(0).toObject();
    QCOMPARE(delivered.value("id"_L1).toString(), u"evt-d4"_s);
    QCOMPARE(delivered.value("eventType"_L1).toString(), u"EventDesk.Test"_s);
    QCOMPARE(delivered.value("subject"_L1).toString(), u"/tests/evt-d4"_s);
    QCOMPARE(delivered.value("dataVersion"_L1).toString(), u"2.5"_s);
    QCOMPARE(delivered.value("data"_L1).toObject(), (QJsonObject{{u"orderId"_s, 42}}));
    QCOMPARE(delivered.value("metadataVersion"_L1).toString(), u"1"_s); // S1: filled in
    QVERIFY(!delivered.value("topic"_L1).toString().isEmpty()); // S1: filled in
}

// SPEC R3, R4, D7: 503, 503, 200 -> three requests with aeg-delivery-count 0, 1, 2, each retry
// at least 30 s of engine time (R4's 503 minimum) after the failure before it.
void DaemonDeliveryTest::r3r4_busyIsRetriedUntilSuccess()
{
    constexpr double Scale = 100;
    QVERIFY(m_receiver->listen());
    m_receiver->setScript({ReceiverAction::respond(503), ReceiverAction::respond(503)});
    m_receiver->setDefaultAction(ReceiverAction::respond(200));
    WorkspaceJson::SubscriptionOptions subscription;
    subscription.endpointUrl = m_receiver->url();
    QVERIFY(startDaemon(subscription, Scale));

    QCOMPARE(m_daemon->publish(u"orders"_s, eventBatch({u"evt-busy"_s})).status, 200);
    QTRY_VERIFY_WITH_TIMEOUT(m_receiver->acceptedEventIds().contains(u"evt-busy"_s), DeliveryTimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(storeValue(attemptCountSql(OutcomeDelivered)), 1, DeliveryTimeoutMs);

    QCOMPARE(m_receiver->requestCount(), 3);
    const QList<ReceivedRequest> requests = m_receiver->requests();
    QCOMPARE(requests.at(0).answeredStatus, 503);
    QCOMPARE(requests.at(1).answeredStatus, 503);
    QCOMPARE(requests.at(2).answeredStatus, 200);
    for (int index = 0; index < 3; ++index) {
        QCOMPARE(requests.at(index).header("aeg-delivery-count"), QByteArray::number(index));
        QCOMPARE(requests.at(index).eventIds(), QStringList{u"evt-busy"_s});
    }
    // R4: 503 -> at least 30 s; R3: the second wait is the 30 s entry. 30 s / 100 = 300 ms real,
    // less a little for the time between the answer and the receiver's timestamp.
    const qint64 minimumGapMs = qint64(30'000 / Scale) - 20;
    const qint64 firstGap = requests.at(1).receivedAtMs - requests.at(0).receivedAtMs;
    const qint64 secondGap = requests.at(2).receivedAtMs - requests.at(1).receivedAtMs;
    QVERIFY2(firstGap >= minimumGapMs, qPrintable(u"first retry after %1 ms"_s.arg(firstGap)));
    QVERIFY2(secondGap >= minimumGapMs, qPrintable(u"second retry after %1 ms"_s.arg(secondGap)));
}

void DaemonDeliveryTest::r9_workedExampleKeepsEngineTimesAtAnyScale_data()
{
    QTest::addColumn<double>("timeScale");
    QTest::newRow("time scale 600") << 600.0;
    QTest::newRow("time scale 1000") << 1000.0;
}

// SPEC R9 through eventdeskd: TTL 30 min, an endpoint that always answers 500, jitter off. The
// attempts go out at 0, 10, 40, 100, 400 and 1000 engine seconds and the event is dead-lettered
// when the seventh would be due (2800 s), each within 2 engine seconds, however fast engine time
// runs: a retry is due a wait after its failed attempt, and nothing on the way from the answer to
// the scheduler moves it (at 1000x, 2 engine seconds are 2 ms of real time).
void DaemonDeliveryTest::r9_workedExampleKeepsEngineTimesAtAnyScale()
{
    QFETCH(double, timeScale);
    QVERIFY(m_receiver->listen());
    m_receiver->setDefaultAction(ReceiverAction::respond(500));
    WorkspaceJson::SubscriptionOptions subscription;
    subscription.endpointUrl = m_receiver->url();
    subscription.maxDeliveryAttempts = 10;
    subscription.eventTimeToLiveInMinutes = 30;
    QVERIFY(startDaemon(subscription, timeScale));
    QCOMPARE(m_daemon->publish(u"orders"_s, eventBatch({u"evt-r9"_s})).status, 200);

    const QString container = QDir(m_workspace->path()).filePath(u"deadletters/deadletters"_s);
    QTRY_COMPARE_WITH_TIMEOUT(jsonFilesBelow(container).size(), 1, DeliveryTimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(storeValue(u"SELECT COUNT(*) FROM dead_letters"_s), 1, DeliveryTimeoutMs);

    const QList<qint64> expectedSeconds {0, 10, 40, 100, 400, 1000};
    QCOMPARE(storeValue(u"SELECT COUNT(*) FROM attempt_log"_s), expectedSeconds.size());
    QCOMPARE(m_receiver->requestCount(), expectedSeconds.size());
    const qint64 firstMs = storeValue(u"SELECT MIN(time_ms) FROM attempt_log"_s);
    QStringList seen;
    for (qsizetype index = 0; index < expectedSeconds.size(); ++index) {
        const qint64 atMs = storeValue(
            u"SELECT time_ms FROM attempt_log ORDER BY time_ms LIMIT 1 OFFSET %1"_s.arg(index));
        seen.append(QString::number(double(atMs - firstMs) / 1000.0, 'f', 1));
    }
    const qint64 deadLetteredMs = storeValue(u"SELECT dead_lettered_ms FROM dead_letters"_s);
    seen.append(QString::number(double(deadLetteredMs - firstMs) / 1000.0, 'f', 1));
    const QString timeline = seen.join(u", "_s);
    qInfo("time scale %g: attempts and dead letter at %s engine seconds", timeScale,
          qPrintable(timeline));

    constexpr qint64 ToleranceMs = 2'000;
    for (qsizetype index = 0; index < expectedSeconds.size(); ++index) {
        const qint64 atMs = qint64(seen.at(index).toDouble() * 1000.0);
        QVERIFY2(std::abs(atMs - expectedSeconds.at(index) * 1000) <= ToleranceMs,
                 qPrintable(u"attempt %1 at %2 s (expected %3 s): %4"_s.arg(index + 1)
                                .arg(seen.at(index)).arg(expectedSeconds.at(index)).arg(timeline)));
    }
    QVERIFY2(std::abs(deadLetteredMs - firstMs - 2'800'000) <= ToleranceMs,
             qPrintable(u"dead-lettered at %1 s (expected 2800 s): %2"_s.arg(seen.constLast(), timeline)));
    const QList<QJsonObject> records = deadLetterRecordsBelow(container);
    QCOMPARE(records.size(), 1);
    QCOMPARE(records.at(0).value("deadLetterReason"_L1).toString(), u"TimeToLiveExceeded"_s);
    QCOMPARE(records.at(0).value("deliveryAttempts"_L1).toInt(), 6);
    QCOMPARE(records.at(0).value("lastHttpStatusCode"_L1).toInt(), 500);
}

// SPEC R2, L2, L6, L7: a 400 is not retried; the event is dead-lettered at once (dead-letter
// delay 0) into deadletters/<container>/SUB-ONE/<yyyy>/<M>/<d>/<H>/<uuid>.json with the L7 fields.
void DaemonDeliveryTest::r2l6l7_badRequestIsDeadLetteredWithoutRetry()
{
    QVERIFY(m_receiver->listen());
    m_receiver->setDefaultAction(ReceiverAction::respond(400));
    WorkspaceJson::SubscriptionOptions subscription;
    subscription.endpointUrl = m_receiver->url();
    subscription.deadLetterContainer = u"deadletters"_s;
    QVERIFY(startDaemon(subscription, 100));

    const QDateTime before = QDateTime::currentDateTimeUtc();
    QCOMPARE(m_daemon->publish(u"orders"_s, eventBatch({u"evt-bad"_s})).status, 200);

    const QString container = QDir(m_workspace->path()).filePath(u"deadletters/deadletters"_s);
    QTRY_COMPARE_WITH_TIMEOUT(jsonFilesBelow(container).size(), 1, DeliveryTimeoutMs);
    const QDateTime after = QDateTime::currentDateTimeUtc();
    QCOMPARE(m_receiver->requestCount(), 1); // R2: no retry
    QCOMPARE(m_receiver->request(0).header("aeg-delivery-count"), "0"_ba);

    // L6: UTC date and hour of the write, not zero-padded; a UUID as the file name.
    const QString blob = jsonFilesBelow(container).constFirst();
    static const QRegularExpression shape(
        u"^SUB-ONE/(\\d{4})/([1-9]|1[0-2])/([1-9]|[12]\\d|3[01])/(\\d|1\\d|2[0-3])/"
        "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\\.json$"_s);
    const QRegularExpressionMatch match = shape.match(blob);
    QVERIFY2(match.hasMatch(), qPrintable(blob));
    const auto hourPath = [](const QDateTime &time) {
        return u"%1/%2/%3/%4"_s.arg(time.date().year()).arg(time.date().month()).arg(time.date().day())
            .arg(time.time().hour());
    };
    const QString blobHour = u"%1/%2/%3/%4"_s.arg(match.captured(1), match.captured(2), match.captured(3),
                                                 match.captured(4));
    QVERIFY2(blobHour == hourPath(before) || blobHour == hourPath(after), qPrintable(blob));

    QFile file(QDir(container).filePath(blob));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonDocument document = QJsonDocument::fromJson(file.readAll());
    QVERIFY(document.isArray());
    QCOMPARE(document.array().size(), 1);
    const QJsonObject record = document.array().at(0).toObject();
    QCOMPARE(record.value("id"_L1).toString(), u"evt-bad"_s);
    QCOMPARE(record.value("deadLetterReason"_L1).toString(), u"UndeliverableDueToHttpBadRequest"_s);
    QCOMPARE(record.value("deliveryAttempts"_L1).toInt(), 1);
    QCOMPARE(record.value("lastDeliveryOutcome"_L1).toString(), u"BadRequest"_s);
    QCOMPARE(record.value("lastHttpStatusCode"_L1).toInt(), 400);
    // L7: ISO 8601 UTC with 7 fractional digits.
    static const QRegularExpression time(u"^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{7}Z$"_s);
    QVERIFY2(time.match(record.value("publishTime"_L1).toString()).hasMatch(),
             qPrintable(record.value("publishTime"_L1).toString()));
    QVERIFY2(time.match(record.value("lastDeliveryAttemptTime"_L1).toString()).hasMatch(),
             qPrintable(record.value("lastDeliveryAttemptTime"_L1).toString()));
}

// SPEC D6, §7 TimedOut: a request that gets no answer counts as TimedOut after the response
// timeout (at this scale 5 s of real time) and the delivery is retried.
void DaemonDeliveryTest::d6_noAnswerTimesOutAndIsRetried()
{
    constexpr double Scale = 100; // timeout max(30 s, 5 s * 100) engine = 5 s real; 10 s wait = 0.1 s
    QVERIFY(m_receiver->listen());
    m_receiver->setScript({ReceiverAction::hang()});
    m_receiver->setDefaultAction(ReceiverAction::respond(200));
    WorkspaceJson::SubscriptionOptions subscription;
    subscription.endpointUrl = m_receiver->url();
    QVERIFY(startDaemon(subscription, Scale));

    QCOMPARE(m_daemon->publish(u"orders"_s, eventBatch({u"evt-slow"_s})).status, 200);
    QTRY_VERIFY_WITH_TIMEOUT(m_receiver->acceptedEventIds().contains(u"evt-slow"_s), 60'000);

    const QList<ReceivedRequest> requests = m_receiver->requests();
    QVERIFY(requests.size() >= 2);
    QCOMPARE(requests.at(0).answeredStatus, 0); // never answered
    QCOMPARE(requests.at(1).header("aeg-delivery-count"), "1"_ba);
    const qint64 gap = requests.at(1).receivedAtMs - requests.at(0).receivedAtMs;
    QVERIFY2(gap >= 4'500, qPrintable(u"retried %1 ms after the unanswered request"_s.arg(gap)));
    QTRY_COMPARE_WITH_TIMEOUT(storeValue(attemptCountSql(OutcomeTimedOut)), 1, DeliveryTimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(storeValue(attemptCountSql(OutcomeDelivered)), 1, DeliveryTimeoutMs);
}

// SPEC §7 SocketError, R1: the receiver closes the connection without answering; the attempt
// fails with SocketError and the delivery is retried until it succeeds.
void DaemonDeliveryTest::socketError_closedConnectionIsRetried()
{
    QVERIFY(m_receiver->listen());
    // Three closes: Qt's HTTP client may resend a request once or twice on its own when a
    // keep-alive connection closes before any answer; the engine must still see a failure.
    m_receiver->setScript({ReceiverAction::close(), ReceiverAction::close(), ReceiverAction::close()});
    m_receiver->setDefaultAction(ReceiverAction::respond(200));
    WorkspaceJson::SubscriptionOptions subscription;
    subscription.endpointUrl = m_receiver->url();
    QVERIFY(startDaemon(subscription, 100));

    QCOMPARE(m_daemon->publish(u"orders"_s, eventBatch({u"evt-closed"_s})).status, 200);
    QTRY_VERIFY_WITH_TIMEOUT(m_receiver->acceptedEventIds().contains(u"evt-closed"_s), DeliveryTimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(storeValue(attemptCountSql(OutcomeDelivered)), 1, DeliveryTimeoutMs);

    QVERIFY(storeValue(attemptCountSql(OutcomeSocketError)) >= 1);
    const QList<ReceivedRequest> requests = m_receiver->requests();
    QCOMPARE(requests.at(0).answeredStatus, 0);
    QCOMPARE(requests.constLast().answeredStatus, 200);
    QVERIFY2(requests.constLast().header("aeg-delivery-count").toInt() >= 1,
             requests.constLast().header("aeg-delivery-count").constData());
}

// SPEC §7 SocketError, R1, D1: the endpoint refuses connections (nothing listens on its port);
// the attempts are logged as SocketError and retried, and once a receiver listens on that port
// the event is delivered.
void DaemonDeliveryTest::socketError_refusedConnectionIsRetriedUntilReceiverIsUp()
{
    const quint16 port = closedLoopbackPort();
    QVERIFY(port != 0);
    WorkspaceJson::SubscriptionOptions subscription;
    subscription.endpointUrl = QUrl(u"http://127.0.0.1:%1/hook"_s.arg(port));
    QVERIFY(startDaemon(subscription, 1000));

    QCOMPARE(m_daemon->publish(u"orders"_s, eventBatch({u"evt-refused"_s})).status, 200);
    QTRY_VERIFY_WITH_TIMEOUT(storeValue(attemptCountSql(OutcomeSocketError)) >= 2, DeliveryTimeoutMs);
    QCOMPARE(storeValue(attemptCountSql(OutcomeDelivered)), 0);

    QVERIFY(m_receiver->listen(port));
    QTRY_VERIFY_WITH_TIMEOUT(m_receiver->acceptedEventIds().contains(u"evt-refused"_s), 60'000);
    const ReceivedRequest delivered = m_receiver->requests().constLast();
    QVERIFY2(delivered.header("aeg-delivery-count").toInt() >= 2, delivered.header("aeg-delivery-count").constData());
}

// SPEC §7 ResolutionError, R1: a host name that does not resolve is a retried failure.
void DaemonDeliveryTest::resolutionError_unresolvableHostIsRetried()
{
    WorkspaceJson::SubscriptionOptions subscription;
    subscription.endpointUrl = QUrl(u"http://unresolvable.invalid/hook"_s);
    QVERIFY(startDaemon(subscription, 1000));

    QCOMPARE(m_daemon->publish(u"orders"_s, eventBatch({u"evt-nowhere"_s})).status, 200);
    QTRY_VERIFY_WITH_TIMEOUT(storeValue(attemptCountSql(OutcomeResolutionError)) >= 2, DeliveryTimeoutMs);
    QCOMPARE(storeValue(u"SELECT COUNT(*) FROM attempt_log WHERE outcome <> %1"_s.arg(OutcomeResolutionError)), 0);
}

// SPEC B3, B5, B6: 25 events published together with maxEventsPerBatch 10 arrive in a few
// requests, none holding more than 10 events, each event once.
void DaemonDeliveryTest::b3_batchesNeverExceedMaxEventsPerBatch()
{
    QVERIFY(m_receiver->listen());
    WorkspaceJson::SubscriptionOptions subscription;
    subscription.endpointUrl = m_receiver->url();
    subscription.maxEventsPerBatch = 10;
    subscription.preferredBatchSizeInKilobytes = 64;
    QVERIFY(startDaemon(subscription, 100));

    QStringList ids;
    for (int index = 0; index < 25; ++index)
        ids.append(u"evt-batch-%1"_s.arg(index));
    QCOMPARE(m_daemon->publish(u"orders"_s, eventBatch(ids)).status, 200);

    QTRY_COMPARE_WITH_TIMEOUT(m_receiver->acceptedEventIds().size(), 25, DeliveryTimeoutMs);
    QCOMPARE(m_receiver->acceptedEventIds(), QSet<QString>(ids.cbegin(), ids.cend()));
    qsizetype total = 0;
    const QList<ReceivedRequest> requests = m_receiver->requests();
    for (const ReceivedRequest &request : requests) {
        const qsizetype events = request.jsonArray().size();
        QVERIFY2(events >= 1 && events <= 10, qPrintable(u"a batch of %1 events"_s.arg(events)));
        total += events;
    }
    QCOMPARE(total, 25);
    // B5: all 25 were ready at once, so the batches are (nearly) full: 3 requests, a few more at most.
    QVERIFY2(requests.size() <= 5, qPrintable(u"%1 requests for 25 events"_s.arg(requests.size())));
}

// SPEC D1: the delivery state survives a restart. The receiver fails with 503, the daemon is
// stopped (SIGTERM) after the first attempt and started again on the same workspace once the
// receiver accepts: the event is delivered, and the attempt before the restart still counts.
void DaemonDeliveryTest::d1_restartMidScheduleStillDelivers()
{
    QVERIFY(m_receiver->listen());
    m_receiver->setDefaultAction(ReceiverAction::respond(503));
    WorkspaceJson::SubscriptionOptions subscription;
    subscription.endpointUrl = m_receiver->url();
    QVERIFY(startDaemon(subscription, 10)); // the 30 s wait after a 503 is 3 s of real time

    QCOMPARE(m_daemon->publish(u"orders"_s, eventBatch({u"evt-restart"_s})).status, 200);
    QTRY_COMPARE_WITH_TIMEOUT(m_receiver->requestCount(), 1, DeliveryTimeoutMs);
    // The 503 must have been taken in and committed before the stop: a request still open when
    // the daemon stops is Canceled and sent again without counting as an attempt (SPEC §7).
    QTRY_COMPARE_WITH_TIMEOUT(storeValue(attemptCountSql(OutcomeBusy)), 1, DeliveryTimeoutMs);
    QVERIFY2(m_daemon->terminate(), qPrintable(daemonLog()));
    const qsizetype attemptsBeforeRestart = m_receiver->requestCount();
    QCOMPARE(m_receiver->acceptedEventIds().size(), 0);

    m_receiver->setDefaultAction(ReceiverAction::respond(200));
    QVERIFY2(m_daemon->start(), qPrintable(daemonLog()));
    QTRY_VERIFY_WITH_TIMEOUT(m_receiver->acceptedEventIds().contains(u"evt-restart"_s), 60'000);

    const ReceivedRequest delivered = m_receiver->requests().constLast();
    QCOMPARE(delivered.eventIds(), QStringList{u"evt-restart"_s});
    QVERIFY2(delivered.header("aeg-delivery-count").toInt() >= 1,
             qPrintable(u"aeg-delivery-count %1 after %2 attempt(s) before the restart"_s.arg(
                 QString::fromLatin1(delivered.header("aeg-delivery-count"))).arg(attemptsBeforeRestart)));
}

QString DaemonDeliveryTest::metrics()
{
    QUrl url = m_daemon->baseUrl();
    url.setPath(u"/metrics"_s);
    return QString::fromUtf8(m_daemon->get(url).body);
}

double DaemonDeliveryTest::metric(const QString &prefix)
{
    const QStringList lines = metrics().split(u'\n');
    for (const QString &line : lines) {
        if (line.startsWith(prefix))
            return line.section(u' ', -1).toDouble();
    }
    return -1;
}

void DaemonDeliveryTest::webhookUpFiveSecondsLater_everyHeldEventDelivered_data()
{
    QTest::addColumn<double>("timeScale");
    QTest::newRow("time scale 60") << 60.0;
    QTest::newRow("time scale 1") << 1.0;
}

// The scenario of the report: endpoint down at start, 3 events published (200 each), the webhook
// up 5 s later; every accepted event is delivered, within 60 s of wall time.
void DaemonDeliveryTest::webhookUpFiveSecondsLater_everyHeldEventDelivered()
{
    QFETCH(double, timeScale);
    const quint16 port = closedLoopbackPort();
    QVERIFY(port != 0);
    WorkspaceJson::SubscriptionOptions subscription;
    subscription.endpointUrl = QUrl(u"http://127.0.0.1:%1/hook"_s.arg(port));
    subscription.validation = true;
    QElapsedTimer sinceStart;
    sinceStart.start();
    QVERIFY(startDaemon(subscription, timeScale));
    for (const QString &id : {u"late-1"_s, u"late-2"_s, u"late-3"_s})
        QCOMPARE(m_daemon->publish(u"orders"_s, eventBatch({id})).status, 200);

    // Visible while it waits: held events and the unreachable endpoint, in /metrics and the log.
    const QString labels = u"{topic=\"orders\",subscription=\"sub-one\""_s;
    QTRY_COMPARE_WITH_TIMEOUT(metric(u"eventgrid_held_deliveries"_s + labels), 3.0, WaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(
        metric(u"eventgrid_endpoint_unreachable"_s + labels + u",reason=\"connection refused\"}"_s), 1.0, WaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(m_daemon->standardError().contains(u"endpoint unreachable: connection refused"_s),
                             WaitMs);
    QCOMPARE(metric(u"eventgrid_provisioning_state"_s + labels + u",state=\"Creating\"}"_s), 1.0);

    // The webhook comes up 5 s after the engine.
    const qint64 upAfterMs = 5'000 - sinceStart.elapsed();
    if (upAfterMs > 0)
        QTest::qWait(int(upAfterMs)); // the scenario itself: the webhook starts 5 s later
    QVERIFY(m_receiver->listen(port));
    QElapsedTimer sinceUp;
    sinceUp.start();
    QSignalSpy received(m_receiver.get(), &ScriptedReceiver::requestReceived);
    QVERIFY(received.wait(WaitMs));
    const qint64 firstDeliveryMs = sinceUp.elapsed();
    QTRY_COMPARE_WITH_TIMEOUT(m_receiver->acceptedEventIds().size(), 3, WaitMs);
    qInfo("time scale %g: first delivery %lld ms after the webhook came up, all 3 after %lld ms", timeScale,
          firstDeliveryMs, sinceUp.elapsed());

    QCOMPARE(m_receiver->validationRequests().size(), 1);
    QCOMPARE(m_receiver->receivedEventIds(), (QSet<QString>{u"late-1"_s, u"late-2"_s, u"late-3"_s}));
    QTRY_COMPARE_WITH_TIMEOUT(metric(u"eventgrid_provisioning_state"_s + labels + u",state=\"Succeeded\"}"_s), 1.0,
                              WaitMs);
    QCOMPARE(metric(u"eventgrid_held_deliveries"_s + labels), 0.0);
}

// A webhook that never comes up: the held events leave at their time to live, dead-lettered with
// TimeToLiveExceeded and lastDeliveryOutcome EndpointValidationPending, none left pending.
void DaemonDeliveryTest::webhookNeverUp_heldEventsDeadLetteredAtTimeToLive()
{
    WorkspaceJson::SubscriptionOptions subscription;
    subscription.endpointUrl = QUrl(u"http://127.0.0.1:%1/hook"_s.arg(closedLoopbackPort()));
    subscription.validation = true;
    subscription.eventTimeToLiveInMinutes = 1; // 1 s of wall time at time scale 60
    QVERIFY(startDaemon(subscription, 60));
    QCOMPARE(m_daemon->publish(u"orders"_s, eventBatch({u"never-1"_s, u"never-2"_s})).status, 200);

    QTRY_COMPARE_WITH_TIMEOUT(deadLetterRecordsBelow(QDir(m_workspace->path()).filePath(u"deadletters/deadletters"_s)).size(), 2, WaitMs);
    for (const QJsonObject &record : deadLetterRecordsBelow(QDir(m_workspace->path()).filePath(u"deadletters/deadletters"_s))) {
        QCOMPARE(record[u"deadLetterReason"_s].toString(), u"TimeToLiveExceeded"_s);
        QCOMPARE(record[u"lastDeliveryOutcome"_s].toString(), u"EndpointValidationPending"_s);
        QCOMPARE(record[u"deliveryAttempts"_s].toInt(), 0);
    }
    // The records are written before the deliveries' end is group-committed (a few ms later).
    QTRY_COMPARE_WITH_TIMEOUT(
        storeValue(u"SELECT COUNT(*) FROM deliveries WHERE state IN (0, 1, 2)"_s), 0, WaitMs);
    QCOMPARE(metric(u"eventgrid_dead_lettered_total{topic=\"orders\",subscription=\"sub-one\","
                    "reason=\"TimeToLiveExceeded\"}"_s),
             2.0);
}

// An endpoint that refused validation (200 without the code, the validation URL not visited in
// 5 min): Failed, and what it held is dead-lettered with EndpointValidationFailed. Fixed while
// EventDesk was stopped, it is validated again at the next start and delivers.
void DaemonDeliveryTest::failedValidation_validatedAgainAfterRestart()
{
    QVERIFY(m_receiver->listen());
    m_receiver->setAnswersValidation(false); // the handshake meets the script: 200, no code
    WorkspaceJson::SubscriptionOptions subscription;
    subscription.endpointUrl = m_receiver->url();
    subscription.validation = true;
    QVERIFY(startDaemon(subscription, 60));
    QCOMPARE(m_daemon->publish(u"orders"_s, eventBatch({u"refused-1"_s})).status, 200);
    const QString labels = u"{topic=\"orders\",subscription=\"sub-one\""_s;
    QTRY_COMPARE_WITH_TIMEOUT(metric(u"eventgrid_provisioning_state"_s + labels + u",state=\"Failed\"}"_s), 1.0,
                              WaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(deadLetterRecordsBelow(QDir(m_workspace->path()).filePath(u"deadletters/deadletters"_s)).size(), 1, WaitMs);
    const QJsonObject record = deadLetterRecordsBelow(QDir(m_workspace->path()).filePath(u"deadletters/deadletters"_s)).constFirst();
    QCOMPARE(record[u"deadLetterReason"_s].toString(), u"EndpointValidationFailed"_s);
    QCOMPARE(record[u"lastDeliveryOutcome"_s].toString(), u"EndpointValidationFailed"_s);
    QVERIFY(m_daemon->terminate());

    m_receiver->setAnswersValidation(true); // the webhook was fixed meanwhile
    m_daemon = std::make_unique<DaemonProcess>(m_workspace->path());
    m_daemon->setTimeScale(60);
    QVERIFY(m_daemon->start());
    QTRY_COMPARE_WITH_TIMEOUT(metric(u"eventgrid_provisioning_state"_s + labels + u",state=\"Succeeded\"}"_s), 1.0,
                              WaitMs);
    QCOMPARE(m_daemon->publish(u"orders"_s, eventBatch({u"after-restart"_s})).status, 200);
    QTRY_VERIFY_WITH_TIMEOUT(m_receiver->acceptedEventIds().contains(u"after-restart"_s), WaitMs);
}

QTEST_GUILESS_MAIN(DaemonDeliveryTest)
#include "tst_daemon_delivery.moc"
