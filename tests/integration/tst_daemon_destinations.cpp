// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// Issue 18, end to end through eventdeskd and its delivery lanes (EventDesk's own HTTP client):
// a scripted receiver answers like the local Functions host's Event Grid webhook, another like
// the Service Bus REST API (checking the shared access signature with the namespace's key, and
// answering a full entity with 403 QuotaExceeded as the API documents). No Service Bus or
// Functions emulator runs here without containers: these stand-ins answer with the documented
// status codes and bodies.

#include "DaemonProcess.h"
#include "DeadLetterFiles.h"
#include "ScriptedReceiver.h"

#include <QDateTime>
#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMessageAuthenticationCode>
#include <QTemporaryDir>
#include <QTest>
#include <QUrlQuery>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using namespace EventDesk::Testing;

namespace {

constexpr int WaitMs = 60'000;
const QString Providers = u"/subscriptions/0/resourceGroups/rg/providers/"_s;
const QByteArray NamespaceKey = "bmFtZXNwYWNlLWtleS1mb3ItdGVzdHM=";

QJsonObject subscriptionTo(const QString &name, const QString &endpointType,
                           const QJsonObject &destinationProperties)
{
    WorkspaceJson::SubscriptionOptions options;
    options.name = name;
    options.endpointUrl = QUrl(u"http://unused.test/"_s);
    options.validation = true; // asked of webhooks only: these must deliver without a handshake
    QJsonObject subscription = WorkspaceJson::subscription(options);
    QJsonObject properties = subscription.value("properties"_L1).toObject();
    properties.insert(u"destination"_s, QJsonObject {{u"endpointType"_s, endpointType},
                                                     {u"properties"_s, destinationProperties}});
    subscription.insert(u"properties"_s, properties);
    return subscription;
}

QString queryValue(const ReceivedRequest &request, const QString &name)
{
    return QUrlQuery(QUrl(QString::fromUtf8(request.path)).query()).queryItemValue(name);
}

// Whether the Authorization header is a valid Service Bus signature for the entity at url,
// signed with the namespace's key and not expired.
bool validSignature(const ReceivedRequest &request, const QString &entityUrl)
{
    const QByteArray authorization = request.header("authorization");
    if (!authorization.startsWith("SharedAccessSignature "))
        return false;
    const QUrlQuery token(QString::fromLatin1(authorization.mid(22)));
    const QByteArray resource = token.queryItemValue(u"sr"_s, QUrl::FullyDecoded).toUtf8();
    const QByteArray expiry = token.queryItemValue(u"se"_s).toLatin1();
    const QByteArray signedText
        = QUrl::toPercentEncoding(QString::fromUtf8(resource)) + '\n' + expiry;
    const QByteArray signature
        = QMessageAuthenticationCode::hash(signedText, NamespaceKey, QCryptographicHash::Sha256)
              .toBase64();
    return resource == entityUrl.toUtf8() && token.queryItemValue(u"skn"_s) == u"send"_s
        && token.queryItemValue(u"sig"_s, QUrl::FullyDecoded).toLatin1() == signature
        && expiry.toLongLong() > QDateTime::currentSecsSinceEpoch();
}

} // namespace

class TestDaemonDestinations final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void functionsHostGetsTheEventsOfItsTriggers();
    void serviceBusGetsSignedMessagesAndAFullEntityDeadLetters();

private:
    void startDaemon(const QJsonObject &workspace);
    QList<QJsonObject> deadLetters() const
    {
        return deadLetterRecordsBelow(
            QDir(m_workspace->path()).filePath(u"deadletters/deadletters"_s));
    }

    std::unique_ptr<QTemporaryDir> m_workspace;
    std::unique_ptr<ScriptedReceiver> m_receiver;
    std::unique_ptr<DaemonProcess> m_daemon;
};

void TestDaemonDestinations::init()
{
    m_workspace = std::make_unique<QTemporaryDir>();
    QVERIFY(m_workspace->isValid());
    m_receiver = std::make_unique<ScriptedReceiver>();
    QVERIFY(m_receiver->listen());
}

void TestDaemonDestinations::cleanup()
{
    if (m_daemon && m_daemon->isRunning())
        QVERIFY(m_daemon->terminate());
    m_daemon.reset();
    m_receiver.reset();
}

void TestDaemonDestinations::startDaemon(const QJsonObject &workspace)
{
    QVERIFY(WorkspaceJson::write(m_workspace->path(), workspace));
    m_daemon = std::make_unique<DaemonProcess>(m_workspace->path());
    m_daemon->setTimeScale(60);
    m_daemon->setEnvironmentVariable(
        u"EVENTDESK_NAMESPACE_KEY_SHOP"_s,
        u"Endpoint=%1;SharedAccessKeyName=send;SharedAccessKey=%2"_s.arg(
            m_receiver->url(u"/"_s).toString(), QString::fromLatin1(NamespaceKey)));
    m_daemon->setEnvironmentVariable(u"QT_LOGGING_RULES"_s, u"eventdesk.*.debug=false"_s);
    QVERIFY2(m_daemon->start(), qPrintable(m_daemon->standardError()));
}

void TestDaemonDestinations::functionsHostGetsTheEventsOfItsTriggers()
{
    // Like the Functions host: its Event Grid webhook takes events for the Event Grid trigger
    // functions it runs, and answers 404 for any other function name.
    m_receiver->setResponder([](const ReceivedRequest &request) {
        const bool trigger = request.path.startsWith("/runtime/webhooks/EventGrid?")
            && queryValue(request, u"functionName"_s) == u"OnOrder"_s;
        return ReceiverAction::respond(trigger ? 200 : 404);
    });
    const QString host = m_receiver->url(u"/"_s).toString();
    startDaemon(WorkspaceJson::workspace(
        {WorkspaceJson::topic(
            u"orders"_s,
            {subscriptionTo(u"to-trigger"_s, u"AzureFunction"_s,
                            {{u"resourceId"_s, QString(Providers + u"Microsoft.Web/sites/app/functions/OnOrder"_s)},
                             {u"maxEventsPerBatch"_s, 10},
                             {u"serviceUrl"_s, host}}),
             subscriptionTo(u"to-timer"_s, u"AzureFunction"_s,
                            {{u"resourceId"_s, QString(Providers + u"Microsoft.Web/sites/app/functions/Nightly"_s)},
                             {u"serviceUrl"_s, host}})})},
        0));

    QCOMPARE(m_daemon->publish(u"orders"_s, eventBatch({u"f-1"_s, u"f-2"_s})).status, 200);

    QTRY_COMPARE_WITH_TIMEOUT(m_receiver->acceptedEventIds(),
                              (QSet<QString> {u"f-1"_s, u"f-2"_s}), WaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(deadLetters().size(), 2, WaitMs);
    for (const QJsonObject &record : deadLetters()) {
        QCOMPARE(record[u"deadLetterReason"_s].toString(),
                 u"UndeliverableDueToHttpInvalidAzureFunctionDestination"_s);
        QCOMPARE(record[u"lastDeliveryOutcome"_s].toString(), u"InvalidAzureFunctionDestination"_s);
        QCOMPARE(record[u"lastHttpStatusCode"_s].toInt(), 404);
    }
    // No validation handshake for functions: every request was a notification.
    QVERIFY(m_receiver->validationRequests().isEmpty());
    for (const ReceivedRequest &request : m_receiver->requests())
        QCOMPARE(request.header("aeg-event-type"), "Notification"_ba);
}

void TestDaemonDestinations::serviceBusGetsSignedMessagesAndAFullEntityDeadLetters()
{
    const QString queueUrl = m_receiver->url(u"/orders"_s).toString();
    // Like Service Bus's Send Message: 201 for a signed message to the queue, 401 for a bad
    // signature, 403 QuotaExceeded for the full topic.
    m_receiver->setResponder([queueUrl](const ReceivedRequest &request) {
        if (request.path == "/orders/messages")
            return ReceiverAction::respond(validSignature(request, queueUrl) ? 201 : 401);
        if (request.path == "/audit/messages") {
            return ReceiverAction::respondWith(
                403, "<Error><Code>403</Code><Detail>QuotaExceeded: the maximum entity size has "
                     "been reached.</Detail></Error>");
        }
        return ReceiverAction::respond(404);
    });
    startDaemon(WorkspaceJson::workspace(
        {WorkspaceJson::topic(
            u"orders"_s,
            {subscriptionTo(u"to-queue"_s, u"ServiceBusQueue"_s,
                            {{u"resourceId"_s, QString(Providers + u"Microsoft.ServiceBus/namespaces/shop/queues/orders"_s)}}),
             subscriptionTo(u"to-full-topic"_s, u"ServiceBusTopic"_s,
                            {{u"resourceId"_s, QString(Providers + u"Microsoft.ServiceBus/namespaces/shop/topics/audit"_s)}})})},
        0));

    QCOMPARE(m_daemon->publish(u"orders"_s, eventBatch({u"m-1"_s, u"m-2"_s})).status, 200);

    QTRY_COMPARE_WITH_TIMEOUT(deadLetters().size(), 2, WaitMs);
    for (const QJsonObject &record : deadLetters()) {
        QCOMPARE(record[u"deadLetterReason"_s].toString(), u"UndeliverableDueToHttpFull"_s);
        QCOMPARE(record[u"lastDeliveryOutcome"_s].toString(), u"Full"_s);
    }
    QStringList delivered;
    for (const ReceivedRequest &request : m_receiver->requests()) {
        if (request.path != "/orders/messages")
            continue;
        QCOMPARE(request.answeredStatus, 201); // the signature was valid
        // One event per message, its id as the message id.
        const QJsonObject event = QJsonDocument::fromJson(request.body).object();
        delivered.append(event.value("id"_L1).toString());
        QCOMPARE(QJsonDocument::fromJson(request.header("brokerproperties"))
                     .object()
                     .value("MessageId"_L1)
                     .toString(),
                 event.value("id"_L1).toString());
    }
    delivered.sort();
    QCOMPARE(delivered, (QStringList {u"m-1"_s, u"m-2"_s}));
}

QTEST_GUILESS_MAIN(TestDaemonDestinations)
#include "tst_daemon_destinations.moc"
