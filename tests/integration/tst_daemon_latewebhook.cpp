// eventdeskd and a webhook that starts after it — the usual order on a developer's machine: the
// validation handshake meets "connection refused", the subscription waits (Creating) and asks
// again with a backoff, the events accepted meanwhile are held and delivered once the webhook is
// up. Also what happens when it never comes up (TTL) and when validation failed before a restart.

#include "DaemonProcess.h"
#include "ScriptedReceiver.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace Qt::StringLiterals;
using namespace EventDesk::Testing;

namespace {

constexpr int WaitMs = 60'000;

// Every dead-letter record (the objects of every blob) below the workspace's local container.
QList<QJsonObject> deadLetterRecords(const QString &workspace)
{
    QList<QJsonObject> records;
    QDirIterator files(QDir(workspace).filePath(u"deadletters/deadletters"_s), {u"*.json"_s}, QDir::Files,
                       QDirIterator::Subdirectories);
    while (files.hasNext()) {
        QFile file(files.next());
        if (file.open(QIODevice::ReadOnly)) {
            for (const QJsonValue &record : QJsonDocument::fromJson(file.readAll()).array())
                records.append(record.toObject());
        }
    }
    return records;
}

} // namespace

class DaemonLateWebhookTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void webhookUpFiveSecondsLater_everyHeldEventDelivered_data();
    void webhookUpFiveSecondsLater_everyHeldEventDelivered();
    void webhookNeverUp_heldEventsDeadLetteredAtTimeToLive();
    void failedValidation_validatedAgainAfterRestart();

private:
    bool startDaemon(const WorkspaceJson::SubscriptionOptions &subscription, double timeScale);
    QString metrics();
    // The value of the first /metrics sample whose line starts with `prefix`, or -1.
    double metric(const QString &prefix);
    QString daemonLog() const { return m_daemon ? m_daemon->standardError().right(4000) : QString(); }

    std::unique_ptr<QTemporaryDir> m_workspace;
    std::unique_ptr<ScriptedReceiver> m_receiver;
    std::unique_ptr<DaemonProcess> m_daemon;
};

void DaemonLateWebhookTest::initTestCase()
{
    QVERIFY2(QFileInfo(DaemonProcess::executablePath()).isExecutable(),
             qPrintable(DaemonProcess::executablePath()));
}

void DaemonLateWebhookTest::init()
{
    m_workspace = std::make_unique<QTemporaryDir>();
    QVERIFY(m_workspace->isValid());
    m_receiver = std::make_unique<ScriptedReceiver>();
}

void DaemonLateWebhookTest::cleanup()
{
    const bool stoppedCleanly = !m_daemon || !m_daemon->isRunning() || m_daemon->terminate();
    if ((QTest::currentTestFailed() || !stoppedCleanly) && m_daemon)
        qWarning("daemon log:\n%s", qPrintable(daemonLog()));
    m_daemon.reset();
    m_receiver.reset();
    m_workspace.reset();
    QVERIFY2(stoppedCleanly, "eventdeskd did not exit with code 0 after SIGTERM");
}

bool DaemonLateWebhookTest::startDaemon(const WorkspaceJson::SubscriptionOptions &subscription, double timeScale)
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

QString DaemonLateWebhookTest::metrics()
{
    QUrl url = m_daemon->baseUrl();
    url.setPath(u"/metrics"_s);
    return QString::fromUtf8(m_daemon->get(url).body);
}

double DaemonLateWebhookTest::metric(const QString &prefix)
{
    const QStringList lines = metrics().split(u'\n');
    for (const QString &line : lines) {
        if (line.startsWith(prefix))
            return line.section(u' ', -1).toDouble();
    }
    return -1;
}

void DaemonLateWebhookTest::webhookUpFiveSecondsLater_everyHeldEventDelivered_data()
{
    QTest::addColumn<double>("timeScale");
    QTest::newRow("time scale 60") << 60.0;
    QTest::newRow("time scale 1") << 1.0;
}

// The scenario of the report: endpoint down at start, 3 events published (200 each), the webhook
// up 5 s later; every accepted event is delivered, within 60 s of wall time.
void DaemonLateWebhookTest::webhookUpFiveSecondsLater_everyHeldEventDelivered()
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
void DaemonLateWebhookTest::webhookNeverUp_heldEventsDeadLetteredAtTimeToLive()
{
    WorkspaceJson::SubscriptionOptions subscription;
    subscription.endpointUrl = QUrl(u"http://127.0.0.1:%1/hook"_s.arg(closedLoopbackPort()));
    subscription.validation = true;
    subscription.eventTimeToLiveInMinutes = 1; // 1 s of wall time at time scale 60
    QVERIFY(startDaemon(subscription, 60));
    QCOMPARE(m_daemon->publish(u"orders"_s, eventBatch({u"never-1"_s, u"never-2"_s})).status, 200);

    QTRY_COMPARE_WITH_TIMEOUT(deadLetterRecords(m_workspace->path()).size(), 2, WaitMs);
    for (const QJsonObject &record : deadLetterRecords(m_workspace->path())) {
        QCOMPARE(record[u"deadLetterReason"_s].toString(), u"TimeToLiveExceeded"_s);
        QCOMPARE(record[u"lastDeliveryOutcome"_s].toString(), u"EndpointValidationPending"_s);
        QCOMPARE(record[u"deliveryAttempts"_s].toInt(), 0);
    }
    QCOMPARE(storeScalar(m_workspace->path(), u"SELECT COUNT(*) FROM deliveries WHERE state IN (0, 1, 2)"_s), 0);
    QCOMPARE(metric(u"eventgrid_dead_lettered_total{topic=\"orders\",subscription=\"sub-one\","
                    "reason=\"TimeToLiveExceeded\"}"_s),
             2.0);
}

// An endpoint that refused validation (200 without the code, the validation URL not visited in
// 5 min): Failed, and what it held is dead-lettered with EndpointValidationFailed. Fixed while
// EventDesk was stopped, it is validated again at the next start and delivers.
void DaemonLateWebhookTest::failedValidation_validatedAgainAfterRestart()
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
    QTRY_COMPARE_WITH_TIMEOUT(deadLetterRecords(m_workspace->path()).size(), 1, WaitMs);
    const QJsonObject record = deadLetterRecords(m_workspace->path()).constFirst();
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

QTEST_GUILESS_MAIN(DaemonLateWebhookTest)
#include "tst_daemon_latewebhook.moc"
