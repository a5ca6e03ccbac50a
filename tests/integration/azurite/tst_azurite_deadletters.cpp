// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// SPEC L4-L7 against a real Azurite blob service: eventdeskd writes dead letters as block blobs
// (Shared Key authorization over QNetworkAccessManager); the test reads them back with the
// official @azure/storage-blob client.

#include "AzuriteProcess.h"
#include "DaemonProcess.h"
#include "deadletters/AzureBlobDeadLetterSink.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QProcess>
#include <QRegularExpression>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using namespace EventDesk::Testing;

namespace {

const QString Account = AzuriteAccount;
const QString AccountKey = AzuriteAccountKey;
const QString Container = u"deadletters"_s;

quint16 freeLoopbackPort()
{
    QTcpServer server;
    if (!server.listen(QHostAddress::LocalHost, 0))
        return 0;
    return server.serverPort();
}

// The blob service of Azurite.
class Azurite final
{
public:
    Azurite(const QString &location, quint16 port)
        : m_process(AzuriteProcess::Service::Blob, QString::fromUtf8(EVENTDESK_AZURITE_PATH),
                    location, port)
    {
    }
    bool start() { return m_process.start(); }
    void stop() { m_process.stop(); }
    QString output() const { return m_process.output(); }
    QString endpoint() const { return m_process.endpoint(); }
    QString connectionString() const { return m_process.connectionString(); }

private:
    AzuriteProcess m_process;
};

using BlobToolResult = NodeToolResult;

BlobToolResult blobTool(const QStringList &arguments)
{
    return runNodeTool(QString::fromUtf8(EVENTDESK_BLOBTOOL_PATH), arguments);
}

// name -> content of every blob in the container (empty on an error, which is printed).
QJsonArray dumpBlobs(const Azurite &azurite)
{
    const BlobToolResult result = blobTool({u"dump"_s, azurite.connectionString(), Container});
    if (!result.ok) {
        qWarning("blobtool dump failed: %s", qPrintable(result.error));
        return {};
    }
    return QJsonDocument::fromJson(result.output).array();
}

int deadLetteredEvents(const QJsonArray &blobs)
{
    int count = 0;
    for (const QJsonValue &blob : blobs)
        count += int(QJsonDocument::fromJson(blob.toObject().value("content"_L1).toString().toUtf8())
                         .array()
                         .size());
    return count;
}

// A workspace whose subscription cannot deliver (closed port, one attempt) and dead-letters
// at once to the Azurite container.
QJsonObject workspaceFor(const Azurite &azurite, const QString &container = Container)
{
    WorkspaceJson::SubscriptionOptions options;
    options.name = u"sub-one"_s;
    options.endpointUrl = QUrl(u"http://127.0.0.1:%1/hook"_s.arg(closedLoopbackPort()));
    options.maxDeliveryAttempts = 1;
    QJsonObject subscription = WorkspaceJson::subscription(options);
    QJsonObject properties = subscription.value("properties"_L1).toObject();
    properties.insert(
        u"deadLetterDestination"_s,
        QJsonObject{{u"endpointType"_s, u"StorageBlob"_s},
                    {u"properties"_s,
                     QJsonObject{{u"resourceId"_s,
                                  QString(u"/subscriptions/0/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/"_s
                                          + Account)},
                                 {u"blobContainerName"_s, container},
                                 {u"blobEndpoint"_s, azurite.endpoint()}}}});
    subscription.insert(u"properties"_s, properties);
    return WorkspaceJson::workspace({WorkspaceJson::topic(u"orders"_s, {subscription})}, 0);
}

int countOccurrences(const QString &text, const QString &needle)
{
    return int(text.count(needle));
}

} // namespace

class TestAzuriteDeadLetters final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void deadLettersLandAsBlobs_data();
    void deadLettersLandAsBlobs();
    void unavailableEndpointIsRetriedAndResumes();
    void missingContainerIsRetried();
    void wrongKeyIsReported();

private:
    bool startAzurite(Azurite &azurite);
    void startDaemon(DaemonProcess &daemon, const QString &accountKey);
};

void TestAzuriteDeadLetters::initTestCase()
{
    QVERIFY2(QFile::exists(QString::fromUtf8(EVENTDESK_AZURITE_PATH)),
             "azurite is not installed: run scripts/install-deps.sh (npm ci in tests/)");
}

bool TestAzuriteDeadLetters::startAzurite(Azurite &azurite)
{
    if (!azurite.start()) {
        qWarning("azurite did not start: %s", qPrintable(azurite.output()));
        return false;
    }
    return true;
}

void TestAzuriteDeadLetters::startDaemon(DaemonProcess &daemon, const QString &accountKey)
{
    daemon.setTimeScale(100); // L4 retry every 60 s of engine time: 0.6 s here
    daemon.setEnvironmentVariable(u"EVENTDESK_STORAGE_KEY_DEVSTOREACCOUNT1"_s, accountKey);
    daemon.setEnvironmentVariable(u"QT_LOGGING_RULES"_s, u"eventdesk.*.debug=false"_s);
    QVERIFY2(daemon.start(), qPrintable(daemon.standardError()));
}

void TestAzuriteDeadLetters::deadLettersLandAsBlobs_data()
{
    // docs/eventdeskd.md "Secrets": the storage account's key, or its connection string.
    QTest::addColumn<bool>("connectionString");
    QTest::newRow("account key") << false;
    QTest::newRow("connection string") << true;
}

void TestAzuriteDeadLetters::deadLettersLandAsBlobs()
{
    QFETCH(bool, connectionString);
    QTemporaryDir azuriteData;
    QTemporaryDir workspaceDir;
    QVERIFY(azuriteData.isValid() && workspaceDir.isValid());
    Azurite azurite(azuriteData.path(), freeLoopbackPort());
    QVERIFY(startAzurite(azurite));
    const BlobToolResult created = blobTool({u"create"_s, azurite.connectionString(), Container});
    QVERIFY2(created.ok, qPrintable(created.error));

    QVERIFY(WorkspaceJson::write(workspaceDir.path(), workspaceFor(azurite)));
    DaemonProcess daemon(workspaceDir.path());
    startDaemon(daemon, connectionString ? azurite.connectionString() : QString(AccountKey));
    const QDateTime before = QDateTime::currentDateTimeUtc();
    const HttpResult published = daemon.publish(u"orders"_s, eventBatch({u"e1"_s, u"e2"_s}));
    QCOMPARE(published.status, 200);

    QJsonArray blobs;
    QTRY_VERIFY_WITH_TIMEOUT((blobs = dumpBlobs(azurite), deadLetteredEvents(blobs) == 2), 60'000);
    const QDateTime after = QDateTime::currentDateTimeUtc();

    // SPEC L6: <SUBSCRIPTION>/<yyyy>/<M>/<d>/<H>/<uuid>.json, UTC, not zero-padded.
    static const QRegularExpression namePattern(
        u"^SUB-ONE/(\\d{4})/([1-9]\\d?)/([1-9]\\d?)/(0|[1-9]\\d?)/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\.json$"_s);
    QStringList ids;
    for (const QJsonValue &value : std::as_const(blobs)) {
        const QJsonObject blob = value.toObject();
        const QString name = blob.value("name"_L1).toString();
        const QRegularExpressionMatch match = namePattern.match(name);
        QVERIFY2(match.hasMatch(), qPrintable(name));
        bool hourMatches = false;
        for (const QDateTime &time : {before, after}) {
            hourMatches = hourMatches
                || (match.captured(1).toInt() == time.date().year()
                    && match.captured(2).toInt() == time.date().month()
                    && match.captured(3).toInt() == time.date().day()
                    && match.captured(4).toInt() == time.time().hour());
        }
        QVERIFY2(hourMatches, qPrintable(name));
        QCOMPARE(blob.value("blobType"_L1).toString(), u"BlockBlob"_s);
        QCOMPARE(blob.value("contentType"_L1).toString(), u"application/json"_s);

        // SPEC L7: the event as delivered plus the dead-letter fields.
        const QJsonArray records
            = QJsonDocument::fromJson(blob.value("content"_L1).toString().toUtf8()).array();
        QVERIFY(!records.isEmpty());
        static const QRegularExpression timePattern(
            u"^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{7}Z$"_s);
        for (const QJsonValue &recordValue : records) {
            const QJsonObject record = recordValue.toObject();
            ids.append(record.value("id"_L1).toString());
            QCOMPARE(record.value("eventType"_L1).toString(), u"EventDesk.Test"_s);
            QCOMPARE(record.value("deadLetterReason"_L1).toString(), u"MaxDeliveryAttemptsExceeded"_s);
            QCOMPARE(record.value("deliveryAttempts"_L1).toInt(), 1);
            QVERIFY(!record.value("lastDeliveryOutcome"_L1).toString().isEmpty());
            QVERIFY(timePattern.match(record.value("publishTime"_L1).toString()).hasMatch());
            QVERIFY(timePattern.match(record.value("lastDeliveryAttemptTime"_L1).toString()).hasMatch());
        }
        // The store's index points at the blob, and the app opens it through the REST API.
        const QString blobPath = Container + u'/' + name;
        QTRY_COMPARE_WITH_TIMEOUT(
            storeScalar(workspaceDir.path(),
                        u"SELECT COUNT(*) FROM dead_letters WHERE blob_path = '%1'"_s.arg(blobPath)),
            qint64(records.size()), 30'000);
        QNetworkAccessManager network;
        AzureBlobDeadLetterSink reader(&network, [](const QString &) -> Expected<QString> {
            return AccountKey;
        });
        DeadLetterDestination destination;
        destination.kind = DeadLetterDestination::Kind::AzureBlob;
        destination.accountName = Account;
        destination.blobContainerName = Container;
        destination.blobEndpoint = QUrl(azurite.endpoint());
        std::optional<Expected<QByteArray>> opened;
        reader.readBlob(destination, blobPath, [&opened](const Expected<QByteArray> &body) { opened = body; });
        QTRY_VERIFY_WITH_TIMEOUT(opened.has_value(), 30'000);
        QVERIFY2(opened->hasValue(), qPrintable(opened->error()));
        QCOMPARE(QString::fromUtf8(opened->value()), blob.value("content"_L1).toString());
    }
    ids.sort();
    QCOMPARE(ids, QStringList({u"e1"_s, u"e2"_s}));
    QVERIFY(daemon.terminate());
}

void TestAzuriteDeadLetters::unavailableEndpointIsRetriedAndResumes()
{
    QTemporaryDir azuriteData;
    QTemporaryDir workspaceDir;
    Azurite azurite(azuriteData.path(), freeLoopbackPort());
    QVERIFY(startAzurite(azurite));
    QVERIFY2(blobTool({u"create"_s, azurite.connectionString(), Container}).ok, "create container");
    QVERIFY(WorkspaceJson::write(workspaceDir.path(), workspaceFor(azurite)));
    DaemonProcess daemon(workspaceDir.path());
    startDaemon(daemon, AccountKey);

    azurite.stop(); // SPEC L4: an unreachable destination is unavailable; the write is retried
    QCOMPARE(daemon.publish(u"orders"_s, eventBatch({u"while-down"_s})).status, 200);
    const QString unreachable = u"is unreachable"_s;
    QTRY_VERIFY_WITH_TIMEOUT(countOccurrences(daemon.standardError(), unreachable) >= 3, 60'000);
    QVERIFY2(daemon.standardError().contains(azurite.endpoint()), qPrintable(daemon.standardError()));
    QCOMPARE(storeScalar(workspaceDir.path(), u"SELECT COUNT(*) FROM dead_letters"_s), qint64(0));
    QCOMPARE(storeScalar(workspaceDir.path(), u"SELECT COUNT(*) FROM dropped"_s), qint64(0));

    QVERIFY(startAzurite(azurite)); // same port and data folder
    QJsonArray blobs;
    QTRY_VERIFY_WITH_TIMEOUT((blobs = dumpBlobs(azurite), deadLetteredEvents(blobs) == 1), 60'000);
    QVERIFY(blobs.first().toObject().value("content"_L1).toString().contains(u"while-down"_s));
    QTRY_COMPARE_WITH_TIMEOUT(storeScalar(workspaceDir.path(), u"SELECT COUNT(*) FROM dead_letters"_s),
                              qint64(1), 30'000);
    QVERIFY(daemon.terminate());
}

void TestAzuriteDeadLetters::missingContainerIsRetried()
{
    QTemporaryDir azuriteData;
    QTemporaryDir workspaceDir;
    Azurite azurite(azuriteData.path(), freeLoopbackPort());
    QVERIFY(startAzurite(azurite));
    QVERIFY(WorkspaceJson::write(workspaceDir.path(), workspaceFor(azurite)));
    DaemonProcess daemon(workspaceDir.path());
    startDaemon(daemon, AccountKey);
    QCOMPARE(daemon.publish(u"orders"_s, eventBatch({u"no-container"_s})).status, 200);
    const QString message = u"container 'deadletters' does not exist in storage account 'devstoreaccount1'"_s;
    QTRY_VERIFY_WITH_TIMEOUT(countOccurrences(daemon.standardError(), message) >= 2, 60'000);

    QVERIFY2(blobTool({u"create"_s, azurite.connectionString(), Container}).ok, "create container");
    QJsonArray blobs;
    QTRY_VERIFY_WITH_TIMEOUT((blobs = dumpBlobs(azurite), deadLetteredEvents(blobs) == 1), 60'000);
    QVERIFY(daemon.terminate());
}

void TestAzuriteDeadLetters::wrongKeyIsReported()
{
    QTemporaryDir azuriteData;
    QTemporaryDir workspaceDir;
    Azurite azurite(azuriteData.path(), freeLoopbackPort());
    QVERIFY(startAzurite(azurite));
    QVERIFY2(blobTool({u"create"_s, azurite.connectionString(), Container}).ok, "create container");
    QVERIFY(WorkspaceJson::write(workspaceDir.path(), workspaceFor(azurite)));
    DaemonProcess daemon(workspaceDir.path());
    const QString wrongKey = QString::fromLatin1(QByteArray(64, 'w').toBase64());
    startDaemon(daemon, wrongKey);
    QCOMPARE(daemon.publish(u"orders"_s, eventBatch({u"wrong-key"_s})).status, 200);
    const QString message = u"wrong account key for storage account 'devstoreaccount1'"_s;
    QTRY_VERIFY2_WITH_TIMEOUT(countOccurrences(daemon.standardError(), message) >= 2,
                              qPrintable(daemon.standardError()), 60'000);
    QVERIFY(!daemon.standardError().contains(wrongKey)); // the key itself is never logged
    QCOMPARE(deadLetteredEvents(dumpBlobs(azurite)), 0);
    QCOMPARE(storeScalar(workspaceDir.path(), u"SELECT COUNT(*) FROM dead_letters"_s), qint64(0));
    QVERIFY(daemon.terminate());
}

QTEST_GUILESS_MAIN(TestAzuriteDeadLetters)
#include "tst_azurite_deadletters.moc"
