// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// How a workspace opens on the engine thread (core/host/EngineWorker) when what it needs is not
// there: a secret store that never answers (a keychain whose password prompt nobody answers) and
// a listen port another process holds. Real loopback sockets and the real clock: the engine's
// own test receivers record what is delivered.

#include "endpoint/TopicEndpoint.h"
#include "engine/Engine.h"
#include "host/EngineWorker.h"
#include "secrets/SecretCache.h"
#include "secrets/SecretStore.h"
#include "workspace/WorkspaceFolder.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace Qt::StringLiterals;
using namespace EventDesk;

namespace {

constexpr int Timeout = 15'000;

// The keychain while its "unlock" or "choose a password for the new keyring" dialog is open: it
// takes every read and answers none until the test says so.
class SilentKeychain final : public SecretStore
{
public:
    void read(const QString &key, ReadCallback done) override
    {
        m_waiting.append({key, std::move(done)});
        if (m_answers)
            answer(*m_answers);
    }
    void write(const QString &, const QString &, DoneCallback) override { }
    void remove(const QString &, DoneCallback) override { }
    QString description() const override { return u"system keychain"_s; }
    bool mayPrompt() const override { return true; }

    qsizetype readCount() const { return m_reads + m_waiting.size(); }
    // Answers every read from values from now on (a key not in it: not stored).
    void answer(const QHash<QString, QString> &values)
    {
        m_answers = values;
        const auto waiting = std::exchange(m_waiting, {});
        m_reads += waiting.size();
        for (const auto &[key, done] : waiting) {
            done(values.contains(key) ? std::optional<QString>(values.value(key))
                                      : std::optional<QString>());
        }
    }
    void setChecking() { setAvailability(Availability::Checking); }

private:
    QList<std::pair<QString, ReadCallback>> m_waiting;
    std::optional<QHash<QString, QString>> m_answers;
    qsizetype m_reads = 0;
};

quint16 freePort()
{
    return TopicEndpoint::findFreePort(QHostAddress::LocalHost);
}

QJsonObject subscriptionJson(const QString &name, const QString &endpoint,
                             const QJsonArray &headers = {})
{
    QJsonObject destination {{u"endpointUrl"_s, endpoint}};
    if (!headers.isEmpty())
        destination.insert(u"deliveryAttributeMappings"_s, headers);
    return QJsonObject {{u"name"_s, name},
                        {u"properties"_s,
                         QJsonObject {{u"destination"_s,
                                       QJsonObject {{u"endpointType"_s, u"WebHook"_s},
                                                    {u"properties"_s, destination}}},
                                      {u"x-eventdesk"_s, QJsonObject {{u"validation"_s, false}}}}}};
}

// Topic "orders": "plain" needs no secret, "signed" a secret header; topic "keyed" declares an
// access key. Both deliver to the engine's own receivers on port.
void writeWorkspace(const QString &directory, quint16 port)
{
    const QString base = u"http://127.0.0.1:%1/receivers/"_s.arg(port);
    const QJsonArray secretHeader {
        QJsonObject {{u"name"_s, u"X-Api-Key"_s},
                     {u"type"_s, u"Static"_s},
                     {u"properties"_s, QJsonObject {{u"isSecret"_s, true}}}}};
    const QJsonObject orders {
        {u"name"_s, u"orders"_s},
        {u"inputSchema"_s, u"EventGridSchema"_s},
        {u"eventSubscriptions"_s,
         QJsonArray {subscriptionJson(u"plain"_s, base + u"plain"_s),
                     subscriptionJson(u"signed"_s, base + u"signed"_s, secretHeader)}}};
    const QJsonObject keyed {{u"name"_s, u"keyed"_s},
                             {u"inputSchema"_s, u"EventGridSchema"_s},
                             {u"accessKey"_s, QJsonObject {{u"secretRef"_s, u"topic/keyed/key"_s}}},
                             {u"eventSubscriptions"_s, QJsonArray()}};
    const QJsonObject root {
        {u"topics"_s, QJsonArray {orders, keyed}},
        {u"receivers"_s,
         QJsonArray {QJsonObject {{u"name"_s, u"plain"_s}, {u"status"_s, 200}},
                     QJsonObject {{u"name"_s, u"signed"_s}, {u"status"_s, 200}}}}};
    QFile file(directory + u"/workspace.json"_s);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QJsonDocument(root).toJson());
}

QByteArray oneEvent(const QString &id)
{
    return QJsonDocument(QJsonArray {QJsonObject {{u"id"_s, id},
                                                  {u"subject"_s, u"/orders/1"_s},
                                                  {u"eventType"_s, u"Order.Created"_s},
                                                  {u"eventTime"_s, u"2026-01-01T00:00:00Z"_s},
                                                  {u"dataVersion"_s, u"1.0"_s},
                                                  {u"data"_s, QJsonObject {{u"amount"_s, 5}}}}})
        .toJson(QJsonDocument::Compact);
}

struct HttpAnswer
{
    int status = 0;
    QByteArray retryAfter;
    QByteArray body;
};

HttpAnswer httpRequest(const QByteArray &method, const QUrl &url, const QByteArray &body = {})
{
    QNetworkAccessManager network;
    QNetworkRequest request(url);
    request.setHeader(QNetworkRequest::ContentTypeHeader, u"application/json"_s);
    QNetworkReply *reply = network.sendCustomRequest(request, method, body);
    QSignalSpy finished(reply, &QNetworkReply::finished);
    if (!finished.wait(Timeout))
        qWarning("no answer from %s", qPrintable(url.toString()));
    HttpAnswer answer {reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(),
                       reply->rawHeader("Retry-After"), reply->readAll()};
    reply->deleteLater();
    return answer;
}

SubscriptionSnapshot stateOf(EngineWorker &worker, const QString &name)
{
    const EngineSnapshot snapshot = worker.engine().snapshot();
    for (const SubscriptionSnapshot &subscription : snapshot.subscriptions) {
        if (subscription.subscription == name)
            return subscription;
    }
    return {};
}

QByteArray headerOf(const ReceivedRequest &request, const QByteArray &name)
{
    for (const auto &[key, value] : request.headers) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return {};
}

} // namespace

class tst_EngineStart : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void keychainThatNeverAnswersBlocksOnlyWhatNeedsIt();
    void workspaceWithoutSecretsNeverAsksTheKeychain();
    void notStoredIsAnAnswerUnavailableIsNot();
    void busyPortOpensOnTheNextFreeOne();
    void busyPortFailsWhenAskedTo();
};

void tst_EngineStart::keychainThatNeverAnswersBlocksOnlyWhatNeedsIt()
{
    QTemporaryDir directory;
    const quint16 port = freePort();
    writeWorkspace(directory.path(), port);
    auto workspace = WorkspaceFolder::read(directory.path());
    QVERIFY2(workspace, qPrintable(workspace.error()));

    SilentKeychain keychain;
    auto secrets = std::make_shared<SecretCache>(QList<SecretStore *> {&keychain});
    secrets->load(workspace.value());
    QVERIFY(!secrets->isLoaded());

    EngineWorker worker;
    EngineWorker::Settings settings;
    settings.workspaceDirectory = directory.path();
    settings.listen.port = port;
    settings.jitter = false;
    settings.secrets = secrets;
    const EngineWorker::StartResult started = worker.start(settings);
    QVERIFY2(started.error.isEmpty(), qPrintable(started.error));
    QCOMPARE(started.listenUrl, u"http://127.0.0.1:%1"_s.arg(port));
    QVERIFY(keychain.readCount() > 0); // the keychain was asked, and has not answered

    QCOMPARE(worker.engine().publish(u"orders"_s, oneEvent(u"1"_s), "application/json").httpStatus,
             200);
    QTRY_COMPARE_WITH_TIMEOUT(worker.receiverRecords(u"plain"_s, 0).size(), 1, Timeout);
    QVERIFY(worker.receiverRecords(u"signed"_s, 0).isEmpty());
    const SubscriptionSnapshot waiting = stateOf(worker, u"signed"_s);
    QVERIFY(waiting.awaitingSecrets);
    QCOMPARE(waiting.held, 1);
    QCOMPARE(waiting.requests, quint64(0));
    QVERIFY(!stateOf(worker, u"plain"_s).awaitingSecrets);

    const QString base = started.listenUrl;
    const HttpAnswer metrics = httpRequest("GET", QUrl(base + u"/metrics"_s));
    QCOMPARE(metrics.status, 200);
    QVERIFY2(metrics.body.contains(
                 R"(eventgrid_waiting_for_keychain{topic="orders",subscription="signed"} 1)"),
             metrics.body.constData());
    QVERIFY(metrics.body.contains(
        R"(eventgrid_waiting_for_keychain{topic="orders",subscription="plain"} 0)"));

    // A declared topic key that has not come: 503 with Retry-After (publishers send again),
    // neither accepted without a key nor refused as a wrong key.
    const HttpAnswer keyed
        = httpRequest("POST", QUrl(base + u"/topics/keyed/api/events"_s), oneEvent(u"2"_s));
    QCOMPARE(keyed.status, 503);
    QCOMPARE(keyed.retryAfter, QByteArray("5"));
    QVERIFY2(keyed.body.contains("keychain"), keyed.body.constData());

    // The keychain answers: what waited goes out at once, with its secret.
    keychain.answer({{u"header/orders/signed/X-Api-Key"_s, u"s3cret"_s},
                     {u"topic/keyed/key"_s, u"topic-key"_s}});
    QTRY_VERIFY_WITH_TIMEOUT(secrets->isLoaded(), Timeout);
    QTRY_COMPARE_WITH_TIMEOUT(worker.receiverRecords(u"signed"_s, 0).size(), 1, Timeout);
    QCOMPARE(headerOf(worker.receiverRecords(u"signed"_s, 0).first(), "X-Api-Key"),
             QByteArray("s3cret"));
    QCOMPARE(headerOf(worker.receiverRecords(u"signed"_s, 0).first(), "aeg-delivery-count"),
             QByteArray("0"));
    QVERIFY(!stateOf(worker, u"signed"_s).awaitingSecrets);
    QCOMPARE(
        httpRequest("POST", QUrl(base + u"/topics/keyed/api/events"_s), oneEvent(u"3"_s)).status,
        401);
    worker.shutdown();
}

void tst_EngineStart::workspaceWithoutSecretsNeverAsksTheKeychain()
{
    // The first run's demo workspace references no secret: the keychain is not asked at all,
    // not even while it is being probed, and nothing waits.
    QTemporaryDir directory;
    auto workspace = WorkspaceFolder::openOrCreate(directory.path(), u"http://127.0.0.1:5170"_s);
    QVERIFY2(workspace, qPrintable(workspace.error()));
    SilentKeychain keychain;
    keychain.setChecking();
    SecretCache secrets({&keychain});
    QSignalSpy loaded(&secrets, &SecretCache::loaded);
    secrets.load(workspace.value());
    QVERIFY(loaded.count() == 1 || loaded.wait(Timeout));
    QVERIFY(secrets.isLoaded());
    QCOMPARE(keychain.readCount(), 0);
    for (const Topic &topic : workspace->topics) {
        for (const EventSubscription &subscription : topic.eventSubscriptions)
            QVERIFY(!secrets.isAwaited(topic.name, subscription));
    }
}

void tst_EngineStart::notStoredIsAnAnswerUnavailableIsNot()
{
    QTemporaryDir directory;
    writeWorkspace(directory.path(), 5170);
    auto workspace = WorkspaceFolder::read(directory.path());
    QVERIFY2(workspace, qPrintable(workspace.error()));
    const Topic &orders = *workspace->findTopic(u"orders"_s);
    const EventSubscription &plain = orders.eventSubscriptions.at(0);
    const EventSubscription &signedSubscription = orders.eventSubscriptions.at(1);

    // The keychain answered "not stored": the subscription goes on without its secret.
    SilentKeychain answering;
    SecretCache answered({&answering});
    answered.load(workspace.value());
    QVERIFY(answered.isAwaited(u"orders"_s, signedSubscription));
    QVERIFY(!answered.isAwaited(u"orders"_s, plain));
    QVERIFY(answered.isTopicKeyPending(u"keyed"_s));
    answering.answer({});
    QTRY_VERIFY_WITH_TIMEOUT(answered.isLoaded(), Timeout);
    QVERIFY(!answered.isAwaited(u"orders"_s, signedSubscription));
    QVERIFY(!answered.isTopicKeyPending(u"keyed"_s)); // declared and not stored: 401, as before

    // The keychain could not be used (its prompt was cancelled): what needs it keeps waiting.
    MemorySecretStore cancelled;
    cancelled.simulateUnavailable(u"access to the system keychain was denied"_s);
    SecretCache unavailable({&cancelled});
    QSignalSpy loaded(&unavailable, &SecretCache::loaded);
    unavailable.load(workspace.value());
    QVERIFY(loaded.count() == 1 || loaded.wait(Timeout));
    QVERIFY(unavailable.isLoaded());
    QVERIFY(unavailable.problems().first().storeUnavailable);
    QVERIFY(unavailable.isAwaited(u"orders"_s, signedSubscription));
    QVERIFY(unavailable.isTopicKeyPending(u"keyed"_s));
    // Until the secret comes another way (stored from the app into another store).
    QSignalSpy changed(&unavailable, &SecretCache::valuesChanged);
    unavailable.setValue(u"header/orders/signed/X-Api-Key"_s, u"s3cret"_s);
    QCOMPARE(changed.count(), 1);
    QVERIFY(!unavailable.isAwaited(u"orders"_s, signedSubscription));
}

void tst_EngineStart::busyPortOpensOnTheNextFreeOne()
{
    QTcpServer other; // another EventDesk, an emulator
    QVERIFY(other.listen(QHostAddress::LocalHost, 0));
    const quint16 busy = other.serverPort();
    QTemporaryDir directory; // a first run: the demo workspace is created naming the busy port

    EngineWorker worker;
    EngineWorker::Settings settings;
    settings.workspaceDirectory = directory.path();
    settings.listen.port = busy;
    settings.busyPort = EngineWorker::Settings::BusyPort::NextFree;
    const EngineWorker::StartResult started = worker.start(settings);
    QVERIFY2(started.error.isEmpty(), qPrintable(started.error));
    QVERIFY2(started.busyPort.contains(u"cannot listen on 127.0.0.1:%1"_s.arg(busy)),
             qPrintable(started.busyPort));
    const QUrl listening(started.listenUrl);
    QVERIFY(listening.port() > 0);
    QVERIFY(listening.port() != busy);
    QCOMPARE(listening.host(), u"127.0.0.1"_s);
    QCOMPARE(
        worker.engine().workspace().topics.first().eventSubscriptions.first().endpointUrl.port(),
        int(busy));

    // The demo subscription names its receiver at the busy port: it is delivered to this
    // engine's receiver, not to the other process.
    const HttpAnswer published = httpRequest(
        "POST", QUrl(started.listenUrl + u"/topics/demo/api/events"_s), oneEvent(u"1"_s));
    QCOMPARE(published.status, 200);
    QTRY_COMPARE_WITH_TIMEOUT(worker.receiverRecords(u"demo"_s, 0).size() >= 1, true, Timeout);
    QTRY_COMPARE_WITH_TIMEOUT(
        [&worker] {
            int notifications = 0;
            for (const ReceivedRequest &request : worker.receiverRecords(u"demo"_s, 0))
                notifications += request.kind == ReceivedRequest::Kind::Notification;
            return notifications;
        }(),
        1, Timeout);
    QVERIFY(!other.hasPendingConnections());
    worker.shutdown();
}

void tst_EngineStart::busyPortFailsWhenAskedTo()
{
    QTcpServer other;
    QVERIFY(other.listen(QHostAddress::LocalHost, 0));
    QTemporaryDir directory;
    EngineWorker worker;
    EngineWorker::Settings settings;
    settings.workspaceDirectory = directory.path();
    settings.listen.port = other.serverPort();
    const EngineWorker::StartResult started = worker.start(settings);
    QVERIFY2(started.error.contains(u"cannot listen on 127.0.0.1:%1"_s.arg(other.serverPort())),
             qPrintable(started.error));
    QVERIFY(started.busyPort.isEmpty());
    // Nothing stays open: the workspace can be opened again at once.
    EngineWorker second;
    settings.listen.port = 0;
    const EngineWorker::StartResult again = second.start(settings);
    QVERIFY2(again.error.isEmpty(), qPrintable(again.error));
    second.shutdown();
}

QTEST_GUILESS_MAIN(tst_EngineStart)
#include "tst_enginestart.moc"
