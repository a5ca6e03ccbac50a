// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// Bad input never crashes eventdeskd and never stores anything (SPEC §10, PRODUCT "Quality
// bars"): malformed publishes get a 4xx naming the problem, and a workspace with invalid settings
// is refused at start with a message naming the file, the JSON path and the valid range.

#include "DaemonProcess.h"
#include "ScriptedReceiver.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace Qt::StringLiterals;
using namespace EventDesk::Testing;

namespace {

constexpr int DeliveryTimeoutMs = 30'000;
constexpr qsizetype PublishLimitBytes = 1'048'576; // SPEC §10: 1 MB

const QString SecureTopic = u"secure-orders"_s;
const QString TopicKey = u"k3y-for-secure-orders"_s;

QByteArray compact(const QJsonArray &events)
{
    return QJsonDocument(events).toJson(QJsonDocument::Compact);
}

QByteArray readFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QString limitMessage()
{
    return u"1 MB or 1048576 bytes"_s;
}

bool namesTheLimit(const QString &message)
{
    return message.contains("1 MB"_L1) || message.contains("1048576"_L1) || message.contains("1,048,576"_L1);
}

} // namespace

class DaemonBadInputTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void s1_10_rejectedPublishStoresNothing_data();
    void s1_10_rejectedPublishStoresNothing();
    void publish_unknownTopicIsNotFound();
    void publish_topicKeyIsRequired_data();
    void publish_topicKeyIsRequired();
    void d1_onlyAcceptedEventsWereDelivered();

    void r6b2_outOfRangePolicyIsRefusedAtStart_data();
    void r6b2_outOfRangePolicyIsRefusedAtStart();
    void workspace_malformedJsonIsRefusedAndLeftUnchanged();
    void h1_lineBreakInStaticHeaderIsRefusedAtStart();
    void listen_busyPortFailsFast();

private:
    // SPEC §10: a rejected request stores nothing and the daemon keeps answering. A sentinel
    // event published after it must be accepted and delivered.
    void verifyDaemonStillAccepts();

    std::unique_ptr<QTemporaryDir> m_workspace;
    std::unique_ptr<ScriptedReceiver> m_receiver;
    std::unique_ptr<DaemonProcess> m_daemon;
    QSet<QString> m_acceptedIds;
    int m_sentinels = 0;
};

void DaemonBadInputTest::initTestCase()
{
    QVERIFY2(QFileInfo(DaemonProcess::executablePath()).isExecutable(),
             qPrintable(DaemonProcess::executablePath()));
    m_workspace = std::make_unique<QTemporaryDir>();
    QVERIFY(m_workspace->isValid());
    m_receiver = std::make_unique<ScriptedReceiver>();
    QVERIFY(m_receiver->listen());

    WorkspaceJson::SubscriptionOptions orders;
    orders.endpointUrl = m_receiver->url(u"/orders"_s);
    WorkspaceJson::SubscriptionOptions secure;
    secure.name = u"sub-secure"_s;
    secure.endpointUrl = m_receiver->url(u"/secure"_s);
    QVERIFY(WorkspaceJson::write(
        m_workspace->path(),
        WorkspaceJson::workspace({WorkspaceJson::topic(u"orders"_s, {WorkspaceJson::subscription(orders)}),
                                  WorkspaceJson::topic(SecureTopic, {WorkspaceJson::subscription(secure)})})));

    m_daemon = std::make_unique<DaemonProcess>(m_workspace->path());
    // docs/eventdeskd.md "Secrets": EVENTDESK_TOPIC_KEY_<TOPIC upper-cased, other characters as
    // '_'>.
    m_daemon->setEnvironmentVariable(u"EVENTDESK_TOPIC_KEY_SECURE_ORDERS"_s, TopicKey);
    QVERIFY2(m_daemon->start(), qPrintable(m_daemon->standardError()));
}

void DaemonBadInputTest::cleanupTestCase()
{
    if (m_daemon && m_daemon->isRunning())
        QVERIFY2(m_daemon->terminate(), qPrintable(m_daemon->standardError().right(4000)));
    m_daemon.reset();
    m_receiver.reset();
}

void DaemonBadInputTest::verifyDaemonStillAccepts()
{
    const QString sentinel = u"accepted-sentinel-%1"_s.arg(++m_sentinels);
    const HttpResult result = m_daemon->publish(u"orders"_s, eventBatch({sentinel}));
    QVERIFY2(result.status == 200, qPrintable(u"HTTP %1 %2 %3"_s.arg(result.status).arg(
                                        QString::fromUtf8(result.body), result.networkError)));
    m_acceptedIds.insert(sentinel);
    QTRY_VERIFY_WITH_TIMEOUT(m_receiver->acceptedEventIds().contains(sentinel), DeliveryTimeoutMs);
    // Every event of a rejected request has an id starting with "rejected-".
    const QSet<QString> received = m_receiver->receivedEventIds();
    for (const QString &id : received)
        QVERIFY2(!id.startsWith("rejected-"_L1), qPrintable(id));
    QCOMPARE(storeScalar(m_workspace->path(), u"SELECT COUNT(*) FROM events WHERE event_id LIKE 'rejected-%'"_s), 0);
}

// SPEC S1, §10: 400 for malformed JSON and invalid events, naming the first offending event index
// and field; 413 for a request or an event over 1 MB, naming the limit. A request is accepted or
// rejected whole: valid events next to an invalid one are not stored either.
void DaemonBadInputTest::s1_10_rejectedPublishStoresNothing_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<int>("expectedStatus");
    QTest::addColumn<QStringList>("messageMentions");

    const QJsonObject valid = eventGridEvent(u"rejected-valid-neighbour"_s);

    QTest::newRow("malformed JSON") << "[{\"id\":\"rejected-1\",\"subject\":"_ba << 400
                                    << QStringList{u"JSON"_s};
    QTest::newRow("not JSON at all") << "rejected-not-json"_ba << 400 << QStringList{u"JSON"_s};
    QTest::newRow("object instead of array")
        << QJsonDocument(eventGridEvent(u"rejected-object"_s)).toJson(QJsonDocument::Compact) << 400
        << QStringList{u"array"_s};

    QJsonObject numericType = eventGridEvent(u"rejected-number-type"_s);
    numericType.insert(u"eventType"_s, 42);
    QTest::newRow("eventType is a number") << compact({valid, numericType}) << 400
                                           << QStringList{u"[1]"_s, u"eventType"_s};

    QJsonObject noSubject = eventGridEvent(u"rejected-no-subject"_s);
    noSubject.remove(u"subject"_s);
    QTest::newRow("subject missing") << compact({noSubject, valid}) << 400
                                     << QStringList{u"[0]"_s, u"subject"_s};

    QJsonObject noId = eventGridEvent(u"rejected-no-id"_s);
    noId.remove(u"id"_s);
    QTest::newRow("id missing") << compact({valid, valid, noId}) << 400 << QStringList{u"[2]"_s, u"id"_s};

    QJsonObject noTime = eventGridEvent(u"rejected-no-time"_s);
    noTime.remove(u"eventTime"_s);
    QTest::newRow("eventTime missing") << compact({noTime}) << 400 << QStringList{u"[0]"_s, u"eventTime"_s};

    QJsonObject noVersion = eventGridEvent(u"rejected-no-data-version"_s);
    noVersion.remove(u"dataVersion"_s);
    QTest::newRow("dataVersion missing") << compact({noVersion}) << 400
                                         << QStringList{u"[0]"_s, u"dataVersion"_s};

    QTest::newRow("event is not an object") << "[\"rejected-string\"]"_ba << 400 << QStringList{u"[0]"_s};

    // Many small valid events, more than 1 MB together.
    QJsonArray many;
    const QString filler(900, u'x');
    qsizetype manyBytes = 2; // the brackets
    while (manyBytes <= PublishLimitBytes) {
        const QJsonObject event = eventGridEvent(u"rejected-many-%1"_s.arg(many.size()), QJsonObject{{u"filler"_s, filler}});
        manyBytes += QJsonDocument(event).toJson(QJsonDocument::Compact).size() + 1;
        many.append(event);
    }
    QTest::newRow("request over 1 MB") << compact(many) << 413 << QStringList();

    // One event over 1 MB (the request is, necessarily, too).
    const QJsonObject huge = eventGridEvent(u"rejected-huge"_s,
                                            QJsonObject{{u"blob"_s, QString(PublishLimitBytes + 10, u'y')}});
    QTest::newRow("one event over 1 MB") << compact({huge}) << 413 << QStringList();
}

void DaemonBadInputTest::s1_10_rejectedPublishStoresNothing()
{
    QFETCH(QByteArray, body);
    QFETCH(int, expectedStatus);
    QFETCH(QStringList, messageMentions);

    const HttpResult result = m_daemon->publish(u"orders"_s, body);
    QCOMPARE(result.status, expectedStatus);
    QVERIFY2(!result.errorCode().isEmpty(), result.body.constData());
    const QString message = result.errorMessage();
    for (const QString &mention : std::as_const(messageMentions))
        QVERIFY2(message.contains(mention), qPrintable(u"\"%1\" does not mention %2"_s.arg(message, mention)));
    if (expectedStatus == 413)
        QVERIFY2(namesTheLimit(message), qPrintable(u"\"%1\" does not name the limit (%2)"_s.arg(message, limitMessage())));

    verifyDaemonStillAccepts();
}

// PRODUCT "Topic endpoint": an unknown topic is 404 with Event Grid's error shape.
void DaemonBadInputTest::publish_unknownTopicIsNotFound()
{
    const HttpResult result = m_daemon->publish(u"no-such-topic"_s, eventBatch({u"rejected-unknown-topic"_s}));
    QCOMPARE(result.status, 404);
    QVERIFY2(!result.errorCode().isEmpty(), result.body.constData());
    QVERIFY2(result.errorMessage().contains("no-such-topic"_L1), qPrintable(result.errorMessage()));
    verifyDaemonStillAccepts();
}

// PRODUCT "Topic endpoint": with a topic key, aeg-sas-key (header or query parameter) is
// required; missing or wrong -> 401 and nothing stored, right -> 200.
void DaemonBadInputTest::publish_topicKeyIsRequired_data()
{
    QTest::addColumn<QByteArray>("headerKey"); // empty: no header
    QTest::addColumn<QString>("queryKey"); // empty: no query parameter
    QTest::addColumn<int>("expectedStatus");

    QTest::newRow("no key") << QByteArray() << QString() << 401;
    QTest::newRow("wrong key in header") << "not-the-key"_ba << QString() << 401;
    QTest::newRow("wrong key in query") << QByteArray() << u"not-the-key"_s << 401;
    QTest::newRow("key with a wrong suffix") << (TopicKey + u"x"_s).toUtf8() << QString() << 401;
    QTest::newRow("right key in header") << TopicKey.toUtf8() << QString() << 200;
    QTest::newRow("right key in query") << QByteArray() << TopicKey << 200;
}

void DaemonBadInputTest::publish_topicKeyIsRequired()
{
    QFETCH(QByteArray, headerKey);
    QFETCH(QString, queryKey);
    QFETCH(int, expectedStatus);

    const QString id = (expectedStatus == 200 ? u"accepted-key-"_s : u"rejected-key-"_s)
        + QString::fromLatin1(QTest::currentDataTag()).replace(u' ', u'-');
    QList<QPair<QByteArray, QByteArray>> headers;
    if (!headerKey.isEmpty())
        headers.append({"aeg-sas-key"_ba, headerKey});
    QString query;
    if (!queryKey.isEmpty())
        query = u"api-version=2018-01-01&aeg-sas-key="_s + QString::fromLatin1(QUrl::toPercentEncoding(queryKey));

    const HttpResult result = m_daemon->publish(SecureTopic, eventBatch({id}), headers, query);
    QCOMPARE(result.status, expectedStatus);
    if (expectedStatus == 200) {
        m_acceptedIds.insert(id);
        QTRY_VERIFY_WITH_TIMEOUT(m_receiver->acceptedEventIds().contains(id), DeliveryTimeoutMs);
    } else {
        QCOMPARE(result.errorCode(), u"Unauthorized"_s);
        QVERIFY2(!result.errorMessage().contains(TopicKey), "the error message must not echo the key");
    }
    verifyDaemonStillAccepts();
}

// SPEC D1, §10: after all of the above, the receiver got exactly the accepted events.
void DaemonBadInputTest::d1_onlyAcceptedEventsWereDelivered()
{
    QVERIFY(!m_acceptedIds.isEmpty());
    QTRY_COMPARE_WITH_TIMEOUT(m_receiver->acceptedEventIds(), m_acceptedIds, DeliveryTimeoutMs);
    QCOMPARE(m_receiver->receivedEventIds(), m_acceptedIds);
    QVERIFY(m_daemon->isRunning());
}

// SPEC R6, B2, PRODUCT "Quality bars": an out-of-range policy in workspace.json stops the daemon
// at start with a message naming the file, the JSON path and the valid range; the file is kept.
void DaemonBadInputTest::r6b2_outOfRangePolicyIsRefusedAtStart_data()
{
    QTest::addColumn<QString>("field"); // maxDeliveryAttempts, eventTimeToLiveInMinutes, ...
    QTest::addColumn<int>("value");
    QTest::addColumn<QString>("jsonPath");
    QTest::addColumn<int>("minimum");
    QTest::addColumn<int>("maximum");

    const QString subscriptionPath = u"topics[0].eventSubscriptions[0].properties."_s;
    QTest::newRow("maxDeliveryAttempts 31") << u"maxDeliveryAttempts"_s << 31
                                            << subscriptionPath + u"retryPolicy.maxDeliveryAttempts"_s << 1 << 30;
    QTest::newRow("maxDeliveryAttempts 0") << u"maxDeliveryAttempts"_s << 0
                                           << subscriptionPath + u"retryPolicy.maxDeliveryAttempts"_s << 1 << 30;
    QTest::newRow("eventTimeToLiveInMinutes 1441")
        << u"eventTimeToLiveInMinutes"_s << 1441 << subscriptionPath + u"retryPolicy.eventTimeToLiveInMinutes"_s
        << 1 << 1440;
    QTest::newRow("maxEventsPerBatch 5001")
        << u"maxEventsPerBatch"_s << 5001
        << subscriptionPath + u"destination.properties.maxEventsPerBatch"_s << 1 << 5000;
    QTest::newRow("preferredBatchSizeInKilobytes 1025")
        << u"preferredBatchSizeInKilobytes"_s << 1025
        << subscriptionPath + u"destination.properties.preferredBatchSizeInKilobytes"_s << 1 << 1024;
}

void DaemonBadInputTest::r6b2_outOfRangePolicyIsRefusedAtStart()
{
    QFETCH(QString, field);
    QFETCH(int, value);
    QFETCH(QString, jsonPath);
    QFETCH(int, minimum);
    QFETCH(int, maximum);

    QTemporaryDir workspace;
    QVERIFY(workspace.isValid());
    WorkspaceJson::SubscriptionOptions subscription;
    subscription.endpointUrl = QUrl(u"http://127.0.0.1:9/hook"_s);
    if (field == "maxDeliveryAttempts"_L1)
        subscription.maxDeliveryAttempts = value;
    else if (field == "eventTimeToLiveInMinutes"_L1)
        subscription.eventTimeToLiveInMinutes = value;
    else if (field == "maxEventsPerBatch"_L1)
        subscription.maxEventsPerBatch = value;
    else
        subscription.preferredBatchSizeInKilobytes = value;
    const QJsonObject subscriptionJson = WorkspaceJson::subscription(subscription);
    QVERIFY(WorkspaceJson::write(workspace.path(), WorkspaceJson::workspace(
                                                       {WorkspaceJson::topic(u"orders"_s, {subscriptionJson})})));
    const QString workspaceFile = QDir(workspace.path()).filePath(u"workspace.json"_s);
    const QByteArray before = readFile(workspaceFile);

    DaemonProcess daemon(workspace.path());
    QVERIFY2(daemon.runExpectingExit(), qPrintable(daemon.standardOutput()));
    QCOMPARE(daemon.exitStatus(), QProcess::NormalExit);
    QVERIFY(daemon.exitCode() != 0);
    const QString error = daemon.standardError();
    QVERIFY2(error.contains("workspace.json"_L1), qPrintable(error));
    QVERIFY2(error.contains(jsonPath), qPrintable(u"no %1 in: %2"_s.arg(jsonPath, error)));
    const QRegularExpression range(u"\\b%1\\b.*\\b%2\\b"_s.arg(minimum).arg(maximum));
    QVERIFY2(range.match(error).hasMatch(), qPrintable(u"no range %1..%2 in: %3"_s.arg(minimum).arg(maximum).arg(error)));
    QVERIFY2(error.contains(QString::number(value)), qPrintable(error));
    QCOMPARE(readFile(workspaceFile), before);
}

// PRODUCT "Quality bars": a corrupt workspace file gives a clear error, not an empty workspace,
// and is not overwritten.
void DaemonBadInputTest::workspace_malformedJsonIsRefusedAndLeftUnchanged()
{
    QTemporaryDir workspace;
    QVERIFY(workspace.isValid());
    const QByteArray corrupt = "{\"topics\":[{\"name\":\"orders\",\"eventSubscriptions\":[}\n"_ba;
    QVERIFY(WorkspaceJson::writeRaw(workspace.path(), corrupt));

    DaemonProcess daemon(workspace.path());
    QVERIFY2(daemon.runExpectingExit(), qPrintable(daemon.standardOutput()));
    QCOMPARE(daemon.exitStatus(), QProcess::NormalExit);
    QVERIFY(daemon.exitCode() != 0);
    QVERIFY2(daemon.standardError().contains("workspace.json"_L1), qPrintable(daemon.standardError()));
    QCOMPARE(readFile(QDir(workspace.path()).filePath(u"workspace.json"_s)), corrupt);
    QVERIFY(!QFileInfo::exists(QDir(workspace.path()).filePath(u"eventdesk.db"_s)));
}

// SPEC H1: a static delivery header value with CR/LF is refused when the subscription is loaded,
// with a message that names the header.
void DaemonBadInputTest::h1_lineBreakInStaticHeaderIsRefusedAtStart()
{
    QTemporaryDir workspace;
    QVERIFY(workspace.isValid());
    WorkspaceJson::SubscriptionOptions subscription;
    subscription.endpointUrl = QUrl(u"http://127.0.0.1:9/hook"_s);
    subscription.deliveryAttributeMappings = QJsonArray{
        QJsonObject{{u"name"_s, u"X-Good-Header"_s},
                    {u"type"_s, u"Static"_s},
                    {u"properties"_s, QJsonObject{{u"value"_s, u"fine"_s}, {u"isSecret"_s, false}}}},
        QJsonObject{{u"name"_s, u"X-Injected-Header"_s},
                    {u"type"_s, u"Static"_s},
                    {u"properties"_s, QJsonObject{{u"value"_s, u"a\r\nSet-Cookie: stolen=1"_s}, {u"isSecret"_s, false}}}}};
    QVERIFY(WorkspaceJson::write(workspace.path(), WorkspaceJson::workspace({WorkspaceJson::topic(
                                                       u"orders"_s, {WorkspaceJson::subscription(subscription)})})));

    DaemonProcess daemon(workspace.path());
    QVERIFY2(daemon.runExpectingExit(), qPrintable(daemon.standardOutput()));
    QVERIFY(daemon.exitCode() != 0);
    const QString error = daemon.standardError();
    QVERIFY2(error.contains("workspace.json"_L1), qPrintable(error));
    QVERIFY2(error.contains("deliveryAttributeMappings[1]"_L1), qPrintable(error));
    QVERIFY2(error.contains("X-Injected-Header"_L1), qPrintable(u"the header is not named in: "_s + error));
}

// A server does not move to another port by itself (the desktop app does): a taken --listen port
// ends eventdeskd at once with exit status 2 and a message naming the address and what to do.
void DaemonBadInputTest::listen_busyPortFailsFast()
{
    QTcpServer other;
    QVERIFY(other.listen(QHostAddress::LocalHost, 0));
    QTemporaryDir workspace;
    QVERIFY(workspace.isValid());
    DaemonProcess daemon(workspace.path());
    daemon.setExtraArguments({u"--listen"_s, u"127.0.0.1:%1"_s.arg(other.serverPort())});
    QVERIFY2(daemon.runExpectingExit(), qPrintable(daemon.standardOutput()));
    QCOMPARE(daemon.exitStatus(), QProcess::NormalExit);
    QCOMPARE(daemon.exitCode(), 2);
    const QString error = daemon.standardError();
    QVERIFY2(error.contains(u"cannot listen on 127.0.0.1:%1"_s.arg(other.serverPort())),
             qPrintable(error));
    QVERIFY2(error.contains(u"--listen HOST:PORT"_s), qPrintable(error));
    QVERIFY(!daemon.standardOutput().contains(u"listening on"_s));
    QVERIFY(!other.hasPendingConnections());
}

QTEST_GUILESS_MAIN(DaemonBadInputTest)
#include "tst_daemon_badinput.moc"
