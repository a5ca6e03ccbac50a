// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// Secrets never reach the disk or the logs in plain text (docs/eventdeskd.md "Secrets"). Known
// values - a topic key used as such and through SAS tokens, a secret delivery header, a storage
// account's connection string (a blob dead-letter destination and a Storage queue), a Service Bus
// namespace's connection string - are given to eventdeskd through its environment, with every
// log category at debug level. Deliveries succeed, fail, dead-letter, and fail against hosts that
// refuse connections, whose error paths log. Then the workspace folder - workspace.json, the
// SQLite files with the write-ahead log a kill -9 leaves, the provisioning file, the dead-letter
// blobs - and the daemon's output are scanned for each value in every form it could take.

#include "DaemonProcess.h"
#include "DeadLetterFiles.h"
#include "ScriptedReceiver.h"
#include "SecretScan.h"
#include "endpoint/SharedAccessSignature.h"

#include <QDateTime>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using namespace EventDesk::Testing;

namespace {

constexpr int WaitMs = 60'000;
const QString Providers = u"/subscriptions/0/resourceGroups/rg/providers/"_s;

QString randomBase64Key(int bytes)
{
    QByteArray key(bytes, Qt::Uninitialized);
    QRandomGenerator::global()->fillRange(reinterpret_cast<quint32 *>(key.data()), bytes / 4);
    return QString::fromLatin1(key.toBase64());
}

QJsonObject withDestination(QJsonObject subscription, const QString &type, const QJsonObject &properties)
{
    QJsonObject subscriptionProperties = subscription.value("properties"_L1).toObject();
    subscriptionProperties.insert(u"destination"_s,
                                  QJsonObject {{u"endpointType"_s, type}, {u"properties"_s, properties}});
    subscription.insert(u"properties"_s, subscriptionProperties);
    return subscription;
}

QJsonObject withBlobDeadLetters(QJsonObject subscription, const QString &account, const QString &endpoint)
{
    QJsonObject properties = subscription.value("properties"_L1).toObject();
    properties.insert(u"deadLetterDestination"_s,
                      QJsonObject {{u"endpointType"_s, u"StorageBlob"_s},
                                   {u"properties"_s,
                                    QJsonObject {{u"resourceId"_s, QString(Providers + u"Microsoft.Storage/storageAccounts/"_s + account)},
                                                 {u"blobContainerName"_s, u"dead"_s},
                                                 {u"blobEndpoint"_s, endpoint}}}});
    subscription.insert(u"properties"_s, properties);
    return subscription;
}

} // namespace

class TestDaemonSecrets final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void secretsAreNeitherStoredNorLogged();
};

void TestDaemonSecrets::initTestCase()
{
    QVERIFY2(QFileInfo(DaemonProcess::executablePath()).isExecutable(),
             qPrintable(DaemonProcess::executablePath()));
}

void TestDaemonSecrets::secretsAreNeitherStoredNorLogged()
{
    const QString topicKey = randomBase64Key(32);
    const QString headerValue = u"hdr-"_s + QUuid::createUuid().toString(QUuid::WithoutBraces);
    const QString storageKey = randomBase64Key(64);
    const QString namespaceKey = randomBase64Key(32);
    const QString account = u"sentinelacct"_s;
    const quint16 refused = closedLoopbackPort();
    QVERIFY(refused != 0);
    const QString refusingHost = u"http://127.0.0.1:%1"_s.arg(refused);

    // The webhook refuses the first delivery (dead-lettered to the workspace's folder) and takes
    // the rest; /refuse refuses everything (dead-lettered to a blob service that is not there).
    ScriptedReceiver receiver;
    int hooked = 0;
    receiver.setResponder([&hooked](const ReceivedRequest &request) {
        if (request.path.startsWith("/refuse"))
            return ReceiverAction::respond(400);
        return ReceiverAction::respond(hooked++ == 0 ? 400 : 200);
    });
    QVERIFY(receiver.listen());

    WorkspaceJson::SubscriptionOptions hook;
    hook.name = u"hooked"_s;
    hook.endpointUrl = receiver.url();
    hook.maxDeliveryAttempts = 1;
    hook.deliveryAttributeMappings = QJsonArray {
        QJsonObject {{u"name"_s, u"X-Api-Key"_s}, {u"type"_s, u"Static"_s},
                     {u"properties"_s, QJsonObject {{u"isSecret"_s, true}}}},
        QJsonObject {{u"name"_s, u"X-Plain"_s}, {u"type"_s, u"Static"_s},
                     {u"properties"_s, QJsonObject {{u"isSecret"_s, false}, {u"value"_s, u"visible-value"_s}}}}};
    WorkspaceJson::SubscriptionOptions blob;
    blob.name = u"blob-dl"_s;
    blob.endpointUrl = receiver.url(u"/refuse"_s);
    blob.maxDeliveryAttempts = 1;
    WorkspaceJson::SubscriptionOptions other;
    other.endpointUrl = QUrl(u"http://unused.test/"_s);
    other.name = u"to-queue"_s;
    const QJsonObject toQueue = withDestination(
        WorkspaceJson::subscription(other), u"StorageQueue"_s,
        {{u"resourceId"_s, QString(Providers + u"Microsoft.Storage/storageAccounts/"_s + account)},
         {u"queueName"_s, u"orders"_s},
         {u"serviceUrl"_s, refusingHost}});
    other.name = u"to-bus"_s;
    const QJsonObject toBus = withDestination(
        WorkspaceJson::subscription(other), u"ServiceBusQueue"_s,
        {{u"resourceId"_s, QString(Providers + u"Microsoft.ServiceBus/namespaces/shop/queues/orders"_s)}});

    QJsonObject topic = WorkspaceJson::topic(
        u"orders"_s, {WorkspaceJson::subscription(hook),
                      withBlobDeadLetters(WorkspaceJson::subscription(blob), account, refusingHost + u'/' + account),
                      toQueue, toBus});
    topic.insert(u"accessKey"_s, QJsonObject {{u"secretRef"_s, u"topic/orders/key"_s}});
    QTemporaryDir workspace;
    QVERIFY(workspace.isValid());
    QVERIFY(WorkspaceJson::write(workspace.path(), WorkspaceJson::workspace({topic}, 0)));

    DaemonProcess daemon(workspace.path());
    daemon.setTimeScale(100);
    daemon.setEnvironmentVariable(u"QT_LOGGING_RULES"_s, u"eventdesk.*=true"_s); // log everything
    daemon.setEnvironmentVariable(u"EVENTDESK_TOPIC_KEY_ORDERS"_s, topicKey);
    daemon.setEnvironmentVariable(u"EVENTDESK_HEADER_ORDERS_HOOKED_X_API_KEY"_s, headerValue);
    daemon.setEnvironmentVariable(
        u"EVENTDESK_STORAGE_KEY_SENTINELACCT"_s,
        u"DefaultEndpointsProtocol=http;AccountName=%1;AccountKey=%2;BlobEndpoint=%3/%1;QueueEndpoint=%3/%1"_s
            .arg(account, storageKey, refusingHost));
    daemon.setEnvironmentVariable(
        u"EVENTDESK_NAMESPACE_KEY_SHOP"_s,
        u"Endpoint=%1/;SharedAccessKeyName=send;SharedAccessKey=%2"_s.arg(refusingHost, namespaceKey));
    QVERIFY2(daemon.start(), qPrintable(daemon.standardError()));

    // The key itself, a SAS token made with it, and refusals of both.
    QCOMPARE(daemon.publish(u"orders"_s, eventBatch({u"no-key"_s})).status, 401);
    QCOMPARE(daemon.publish(u"orders"_s, eventBatch({u"bad-key"_s}), {{"aeg-sas-key", "wrong"}}).status, 401);
    QCOMPARE(daemon.publish(u"orders"_s, eventBatch({u"with-key-1"_s, u"with-key-2"_s}),
                            {{"aeg-sas-key", topicKey.toUtf8()}}).status,
             200);
    const QString resource = daemon.topicUrl(u"orders"_s).toString();
    const QDateTime expiry = QDateTime::currentDateTimeUtc().addSecs(3600);
    const QByteArray token = SharedAccessSignature::generate(resource, expiry, topicKey);
    QCOMPARE(daemon.publish(u"orders"_s, eventBatch({u"with-token"_s}), {{"aeg-sas-token", token}}).status, 200);
    const QByteArray forged = SharedAccessSignature::generate(resource, expiry, randomBase64Key(32));
    QCOMPARE(daemon.publish(u"orders"_s, eventBatch({u"forged"_s}), {{"aeg-sas-token", forged}}).status, 401);

    // Every path ran: the header went out, a dead letter was written to the folder, the blob
    // service, the queue and the namespace were tried more than once and refused.
    QTRY_VERIFY_WITH_TIMEOUT(hooked >= 3, WaitMs);
    for (const ReceivedRequest &request : receiver.requests()) {
        if (request.path.startsWith("/hook"))
            QCOMPARE(request.header("X-Api-Key"), headerValue.toUtf8());
    }
    const QString deadLetters = QDir(workspace.path()).filePath(u"deadletters"_s);
    QTRY_COMPARE_WITH_TIMEOUT(deadLetterRecordsBelow(deadLetters).size(), qsizetype(1), WaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(daemon.standardError().count(u"dead-letter write for \"blob-dl\""_s) >= 2, WaitMs);
    // The connection string was taken: the write got as far as the network. Waited for: the
    // line that says so can come after the ones counted above, and the log is read as it grows.
    QTRY_VERIFY2_WITH_TIMEOUT(
        daemon.standardError().contains(u"of storage account 'sentinelacct' is unreachable"_s),
        qPrintable(daemon.standardError().right(4000)), WaitMs);
    const QString failedAttempts = u"SELECT COUNT(*) FROM attempt_log WHERE subscription = '%1' AND outcome <> 0"_s;
    QTRY_VERIFY_WITH_TIMEOUT(storeScalar(workspace.path(), failedAttempts.arg(u"to-queue"_s)) >= 2, WaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(storeScalar(workspace.path(), failedAttempts.arg(u"to-bus"_s)) >= 2, WaitMs);

    const QList<std::pair<const char *, QString>> secrets {
        {"topic key", topicKey}, {"header value", headerValue},
        {"storage account key", storageKey}, {"namespace key", namespaceKey}};
    const auto checkNothingLeaked = [&](const char *when) {
        for (const auto &[what, secret] : secrets) {
            const QStringList files = filesContaining(workspace.path(), secret);
            QVERIFY2(files.isEmpty(), qPrintable(u"%1 %2 in: %3"_s.arg(QLatin1StringView(what),
                                                                        QLatin1StringView(when), files.join(u", "_s))));
            QVERIFY2(!containsSecret(daemon.standardError().toUtf8(), secret),
                     qPrintable(u"%1 in the log %2"_s.arg(QLatin1StringView(what), QLatin1StringView(when))));
            QVERIFY2(!containsSecret(daemon.standardOutput().toUtf8(), secret),
                     qPrintable(u"%1 on stdout %2"_s.arg(QLatin1StringView(what), QLatin1StringView(when))));
        }
    };

    // Killed: the write-ahead log and shared-memory files stay as they are.
    daemon.kill();
    const QStringList files = allFiles(workspace.path());
    QVERIFY2(files.contains(u"eventdesk.db-wal"_s), qPrintable(files.join(u", "_s)));
    checkNothingLeaked("after kill -9");
    // The scan finds what is there: the plain header's value is in workspace.json.
    QCOMPARE(filesContaining(workspace.path(), u"visible-value"_s),
             QStringList {workspace.filePath(u"workspace.json"_s)});

    // Started again and stopped cleanly: the store is checkpointed, the provisioning file written.
    QVERIFY2(daemon.start(), qPrintable(daemon.standardError()));
    QVERIFY2(daemon.terminate(), qPrintable(daemon.standardError().right(4000)));
    checkNothingLeaked("after a clean stop");
}

QTEST_GUILESS_MAIN(TestDaemonSecrets)
#include "tst_daemon_secrets.moc"
