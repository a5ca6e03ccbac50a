// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// Issue 18: the StorageQueue destination against a real Azurite queue service. eventdeskd puts one
// message per event (its JSON in Base64, Shared Key with the key from its environment); the test
// reads the messages back with the official @azure/storage-queue client. The outcome mapping of
// queues end to end: a missing queue is NotFound and retried until it exists, a wrong key is
// Unauthorized and dead-lettered at once, an event over the 64 KiB message limit is
// PayloadTooLarge without an attempt on the wire, an unreachable service is retried.

#include "AzuriteProcess.h"
#include "DaemonProcess.h"
#include "DeadLetterFiles.h"

#include "rules/DeliveryOutcome.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using namespace EventDesk::Testing;

namespace {

constexpr int WaitMs = 60'000;
const QString Queue = u"orders"_s;
const QString KeyVariable = u"EVENTDESK_STORAGE_KEY_DEVSTOREACCOUNT1"_s;

quint16 freeLoopbackPort()
{
    QTcpServer server;
    if (!server.listen(QHostAddress::LocalHost, 0))
        return 0;
    return server.serverPort();
}

NodeToolResult queueTool(const QStringList &arguments)
{
    return runNodeTool(QString::fromUtf8(EVENTDESK_QUEUETOOL_PATH), arguments);
}

// The queue's messages (peeked, so they stay); empty on an error, which is printed.
QJsonArray dumpMessages(const AzuriteProcess &azurite)
{
    const NodeToolResult result = queueTool({u"dump"_s, azurite.connectionString(), Queue});
    if (!result.ok) {
        qWarning("queuetool dump failed: %s", qPrintable(result.error));
        return {};
    }
    return QJsonDocument::fromJson(result.output).array();
}

QStringList messageEventIds(const QJsonArray &messages)
{
    QStringList ids;
    for (const QJsonValue &message : messages) {
        ids.append(QJsonDocument::fromJson(message[u"decoded"_s].toString().toUtf8())
                       .object()
                       .value("id"_L1)
                       .toString());
    }
    ids.sort();
    return ids;
}

// One topic with one StorageQueue subscription to the Azurite queue, dead-lettering to the
// workspace's own folder.
QJsonObject workspaceFor(const AzuriteProcess &azurite, qint64 messageTimeToLive = 0)
{
    QJsonObject destinationProperties {
        {u"resourceId"_s,
         QString(u"/subscriptions/0/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/"_s
                 + AzuriteAccount)},
        {u"queueName"_s, Queue},
        {u"serviceUrl"_s, azurite.endpoint()}};
    if (messageTimeToLive != 0)
        destinationProperties.insert(u"queueMessageTimeToLiveInSeconds"_s, double(messageTimeToLive));
    WorkspaceJson::SubscriptionOptions options;
    options.name = u"to-queue"_s;
    options.endpointUrl = QUrl(u"http://unused.test/"_s);
    QJsonObject subscription = WorkspaceJson::subscription(options);
    QJsonObject properties = subscription.value("properties"_L1).toObject();
    properties.insert(u"destination"_s, QJsonObject {{u"endpointType"_s, u"StorageQueue"_s},
                                                     {u"properties"_s, destinationProperties}});
    subscription.insert(u"properties"_s, properties);
    return WorkspaceJson::workspace({WorkspaceJson::topic(u"orders"_s, {subscription})}, 0);
}

} // namespace

class TestAzuriteQueue final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void eventsArriveAsQueueMessages();
    void missingQueueIsRetriedUntilItExists();
    void wrongKeyIsDeadLetteredAtOnce();
    void eventOverTheMessageLimitIsDeadLetteredUnsent();
    void unreachableServiceIsRetried();

private:
    void startDaemon(const QString &accountSecret, qint64 messageTimeToLive = 0);
    qint64 attemptsWith(DeliveryOutcome outcome) const;
    QList<QJsonObject> deadLetters() const;

    std::unique_ptr<QTemporaryDir> m_azuriteData;
    std::unique_ptr<QTemporaryDir> m_workspace;
    std::unique_ptr<AzuriteProcess> m_azurite;
    std::unique_ptr<DaemonProcess> m_daemon;
};

void TestAzuriteQueue::initTestCase()
{
    QVERIFY2(QFile::exists(QString::fromUtf8(EVENTDESK_AZURITE_QUEUE_PATH)),
             "azurite is not installed: run scripts/install-deps.sh (npm ci in tests/)");
}

void TestAzuriteQueue::init()
{
    m_azuriteData = std::make_unique<QTemporaryDir>();
    m_workspace = std::make_unique<QTemporaryDir>();
    QVERIFY(m_azuriteData->isValid() && m_workspace->isValid());
    m_azurite = std::make_unique<AzuriteProcess>(AzuriteProcess::Service::Queue,
                                                 QString::fromUtf8(EVENTDESK_AZURITE_QUEUE_PATH),
                                                 m_azuriteData->path(), freeLoopbackPort());
    QVERIFY2(m_azurite->start(), qPrintable(m_azurite->output()));
}

void TestAzuriteQueue::cleanup()
{
    if (m_daemon && m_daemon->isRunning())
        QVERIFY(m_daemon->terminate());
    m_daemon.reset();
    m_azurite.reset();
}

void TestAzuriteQueue::startDaemon(const QString &accountSecret, qint64 messageTimeToLive)
{
    QVERIFY(WorkspaceJson::write(m_workspace->path(), workspaceFor(*m_azurite, messageTimeToLive)));
    m_daemon = std::make_unique<DaemonProcess>(m_workspace->path());
    m_daemon->setTimeScale(100); // R4's 5 min wait after a 404: 3 s here
    m_daemon->setEnvironmentVariable(KeyVariable, accountSecret);
    m_daemon->setEnvironmentVariable(u"QT_LOGGING_RULES"_s, u"eventdesk.*.debug=false"_s);
    QVERIFY2(m_daemon->start(), qPrintable(m_daemon->standardError()));
}

qint64 TestAzuriteQueue::attemptsWith(DeliveryOutcome outcome) const
{
    return storeScalar(m_workspace->path(),
                       u"SELECT COUNT(*) FROM attempt_log WHERE outcome = %1"_s.arg(int(outcome)));
}

QList<QJsonObject> TestAzuriteQueue::deadLetters() const
{
    return deadLetterRecordsBelow(QDir(m_workspace->path()).filePath(u"deadletters/deadletters"_s));
}

void TestAzuriteQueue::eventsArriveAsQueueMessages()
{
    QVERIFY(queueTool({u"create"_s, m_azurite->connectionString(), Queue}).ok);
    // The secret may be the whole connection string, as the portal shows it.
    startDaemon(m_azurite->connectionString(), 3600);

    QCOMPARE(m_daemon->publish(u"orders"_s, eventBatch({u"q-1"_s, u"q-2"_s, u"q-3"_s})).status, 200);

    QJsonArray messages;
    QTRY_COMPARE_WITH_TIMEOUT((messages = dumpMessages(*m_azurite)).size(), 3, WaitMs);
    QCOMPARE(messageEventIds(messages), (QStringList {u"q-1"_s, u"q-2"_s, u"q-3"_s}));
    for (const QJsonValue &message : std::as_const(messages)) {
        const QJsonObject event
            = QJsonDocument::fromJson(message[u"decoded"_s].toString().toUtf8()).object();
        // SPEC S1: delivered in the Event Grid schema with the engine's fields.
        QCOMPARE(event.value("topic"_L1).toString(),
                 u"/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/eventdesk/providers/Microsoft.EventGrid/topics/orders"_s);
        QCOMPARE(event.value("metadataVersion"_L1).toString(), u"1"_s);
        QCOMPARE(message[u"timeToLiveSeconds"_s].toInt(), 3600);
    }
    QTRY_COMPARE_WITH_TIMEOUT(attemptsWith(DeliveryOutcome::Delivered), 3, WaitMs);
}

void TestAzuriteQueue::missingQueueIsRetriedUntilItExists()
{
    startDaemon(AzuriteAccountKey);
    QCOMPARE(m_daemon->publish(u"orders"_s, eventBatch({u"early"_s})).status, 200);

    // QueueNotFound: NotFound, retried (R2 decision), after at least 5 min of engine time (R4).
    QTRY_VERIFY_WITH_TIMEOUT(attemptsWith(DeliveryOutcome::NotFound) >= 1, WaitMs);
    QVERIFY(queueTool({u"create"_s, m_azurite->connectionString(), Queue}).ok);
    QTRY_COMPARE_WITH_TIMEOUT(messageEventIds(dumpMessages(*m_azurite)), QStringList {u"early"_s},
                              WaitMs);
    QVERIFY(deadLetters().isEmpty());
}

void TestAzuriteQueue::wrongKeyIsDeadLetteredAtOnce()
{
    QVERIFY(queueTool({u"create"_s, m_azurite->connectionString(), Queue}).ok);
    // A valid Base64 key that is not the account's: Azurite answers 403 AuthenticationFailed.
    startDaemon(QString::fromLatin1(QByteArray(64, 'k').toBase64()));
    QCOMPARE(m_daemon->publish(u"orders"_s, eventBatch({u"refused"_s})).status, 200);

    QTRY_COMPARE_WITH_TIMEOUT(deadLetters().size(), 1, WaitMs);
    const QJsonObject record = deadLetters().constFirst();
    QCOMPARE(record[u"deadLetterReason"_s].toString(), u"UndeliverableDueToHttpUnauthorized"_s);
    QCOMPARE(record[u"lastDeliveryOutcome"_s].toString(), u"Unauthorized"_s);
    QCOMPARE(record[u"lastHttpStatusCode"_s].toInt(), 403);
    QCOMPARE(record[u"deliveryAttempts"_s].toInt(), 1);
    QVERIFY(dumpMessages(*m_azurite).isEmpty());
}

void TestAzuriteQueue::eventOverTheMessageLimitIsDeadLetteredUnsent()
{
    QVERIFY(queueTool({u"create"_s, m_azurite->connectionString(), Queue}).ok);
    startDaemon(AzuriteAccountKey);
    // 50,000 bytes of data are over 64 KiB once in Base64; the small event still goes.
    QJsonArray events {eventGridEvent(u"large"_s, QJsonObject {{u"text"_s, QString(50'000, u'x')}}),
                       eventGridEvent(u"small"_s)};
    QCOMPARE(m_daemon->publish(u"orders"_s, QJsonDocument(events).toJson()).status, 200);

    QTRY_COMPARE_WITH_TIMEOUT(deadLetters().size(), 1, WaitMs);
    const QJsonObject record = deadLetters().constFirst();
    QCOMPARE(record[u"deadLetterReason"_s].toString(), u"UndeliverableDueToHttpPayloadTooLarge"_s);
    QCOMPARE(record[u"lastDeliveryOutcome"_s].toString(), u"PayloadTooLarge"_s);
    QTRY_COMPARE_WITH_TIMEOUT(messageEventIds(dumpMessages(*m_azurite)), QStringList {u"small"_s},
                              WaitMs);
}

void TestAzuriteQueue::unreachableServiceIsRetried()
{
    QVERIFY(queueTool({u"create"_s, m_azurite->connectionString(), Queue}).ok);
    m_azurite->stop();
    startDaemon(AzuriteAccountKey);
    QCOMPARE(m_daemon->publish(u"orders"_s, eventBatch({u"patient"_s})).status, 200);

    QTRY_VERIFY_WITH_TIMEOUT(attemptsWith(DeliveryOutcome::SocketError) >= 1, WaitMs);
    QVERIFY2(m_azurite->start(), qPrintable(m_azurite->output()));
    QTRY_COMPARE_WITH_TIMEOUT(messageEventIds(dumpMessages(*m_azurite)), QStringList {u"patient"_s},
                              WaitMs);
    QVERIFY(deadLetters().isEmpty());
}

QTEST_GUILESS_MAIN(TestAzuriteQueue)
#include "tst_azurite_queue.moc"
