// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// Built-in test receivers (docs/eventdeskd.md "Built-in test receivers"): the workspace model of
// their scripts, the scripts played over real loopback HTTP, the bounded request record, and the
// HTTP/1.1 server they run on (which must be able to answer late and to close without answering).

#include "endpoint/TestReceiverService.h"
#include "http/HttpServer.h"
#include "model/TestReceiver.h"
#include "model/Workspace.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QSignalSpy>
#include <QTcpSocket>
#include <QTest>

#include <memory>

using namespace Qt::StringLiterals;
using namespace EventDesk;

namespace {

struct Answer
{
    int status = 0; // 0: no HTTP answer
    QNetworkReply::NetworkError error = QNetworkReply::NoError;
    QByteArray body;
    QByteArray header(const char *name) const { return headers.value(QByteArray(name).toLower()); }
    QHash<QByteArray, QByteArray> headers;
};

TestReceiver receiverFrom(const char *json)
{
    auto parsed = TestReceiver::fromJson(QJsonDocument::fromJson(json).object(), u"receivers[0]"_s);
    if (!parsed)
        qFatal("test receiver invalid: %s", qPrintable(parsed.error()));
    return parsed.value();
}

} // namespace

class TestReceiverTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void model_parses_data();
    void model_parses();
    void model_rejectsWithJsonPath_data();
    void model_rejectsWithJsonPath();
    void model_roundTripsThroughWorkspaceJson();

    void fixedStatus_answersEveryNotificationAndRecordsIt();
    void sequence_repeatsOrSticks_data();
    void sequence_repeatsOrSticks();
    void failureRate_isSeededAndDeterministic();
    void closeConnection_givesNoAnswer();
    void closeStepInSequence_givesNoAnswerThenStatus();
    void delay_holdsTheAnswerBack();
    void eventGridHandshake_answerRefuseIgnore_data();
    void eventGridHandshake_answerRefuseIgnore();
    void cloudEventsHandshake_answerRefuseIgnore_data();
    void cloudEventsHandshake_answerRefuseIgnore();
    void records_areABoundedRingBuffer();
    void records_areBoundedInBytes();
    void editedScript_startsOver();

    void httpServer_pipelinedRequestsAnsweredInOrder();
    void httpServer_chunkedBodyAndExpectContinue();
    void httpServer_oversizedBodyIs413AndClosed();
    void httpServer_malformedRequestIs400();
    void httpServer_chunkBeyondTheLimitIs413();
    void httpServer_whitespaceAroundHeaderNameIs400_data();
    void httpServer_whitespaceAroundHeaderNameIs400();

private:
    Answer send(const QByteArray &method, const QByteArray &body = {},
                const QList<QPair<QByteArray, QByteArray>> &headers = {});
    QByteArray rawExchange(const QByteArray &request, int expectedResponses);

    std::unique_ptr<HttpServer> m_server;
    std::unique_ptr<TestReceiverService> m_service;
    TestReceiver m_receiver;
    qint64 m_now = 1'700'000'000'000;
    std::unique_ptr<QNetworkAccessManager> m_network;
};

void TestReceiverTest::init()
{
    m_service = std::make_unique<TestReceiverService>([this] { return m_now; });
    m_server = std::make_unique<HttpServer>();
    m_server->setHandler([this](const HttpRequest &request, const HttpReply &reply) {
        m_service->handle(m_receiver, request, reply);
    });
    auto port = m_server->listen(QHostAddress::LocalHost, 0);
    QVERIFY2(port.hasValue(), qPrintable(port.error()));
    m_network = std::make_unique<QNetworkAccessManager>();
    m_receiver = TestReceiver();
    m_receiver.name = u"demo"_s;
}

void TestReceiverTest::cleanup()
{
    m_network.reset();
    m_server.reset();
    m_service.reset();
}

Answer TestReceiverTest::send(const QByteArray &method, const QByteArray &body,
                              const QList<QPair<QByteArray, QByteArray>> &headers)
{
    QNetworkRequest request(QUrl(u"http://127.0.0.1:%1/receivers/demo"_s.arg(m_server->port())));
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    for (const auto &[name, value] : headers)
        request.setRawHeader(name, value);
    std::unique_ptr<QNetworkReply> reply(m_network->sendCustomRequest(request, method, body));
    QSignalSpy finished(reply.get(), &QNetworkReply::finished);
    if (!reply->isFinished() && !finished.wait(20'000))
        qWarning("no answer within 20 s");
    Answer answer;
    answer.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    answer.error = reply->error();
    answer.body = reply->readAll();
    for (const auto &[name, value] : reply->rawHeaderPairs())
        answer.headers.insert(name.toLower(), value);
    return answer;
}

void TestReceiverTest::model_parses_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QList<int>>("statuses"); // first notifications' expected statuses (0: close)

    QTest::newRow("simplest form") << QByteArray(R"({"name":"demo","status":200})") << QList<int>{200, 200};
    QTest::newRow("fixed script") << QByteArray(R"({"name":"d","script":{"mode":"fixed","status":404}})")
                                  << QList<int>{404, 404};
    QTest::newRow("sequence repeat") << QByteArray(R"({"name":"d","script":{"mode":"sequence","statuses":[503,200]}})")
                                     << QList<int>{503, 200, 503};
    QTest::newRow("sequence stick") << QByteArray(R"({"name":"d","script":{"mode":"sequence","statuses":[503,200],"after":"stick"}})")
                                    << QList<int>{503, 200, 200};
    QTest::newRow("close step") << QByteArray(R"({"name":"d","script":{"mode":"sequence","statuses":["close",201]}})")
                                << QList<int>{0, 201, 0};
    QTest::newRow("status close") << QByteArray(R"({"name":"d","status":"close"})") << QList<int>{0};
}

void TestReceiverTest::model_parses()
{
    QFETCH(QByteArray, json);
    QFETCH(QList<int>, statuses);
    auto parsed = TestReceiver::fromJson(QJsonDocument::fromJson(json).object(), u"receivers[0]"_s);
    QVERIFY2(parsed.hasValue(), qPrintable(parsed.error()));
    const TestReceiver &receiver = parsed.value();
    for (int i = 0; i < statuses.size(); ++i) {
        int expected = receiver.mode == TestReceiver::Mode::Fixed ? receiver.status : 0;
        if (receiver.mode == TestReceiver::Mode::Sequence) {
            const int size = int(receiver.statuses.size());
            const int index = i < size ? i
                                       : (receiver.after == TestReceiver::After::Repeat ? i % size : size - 1);
            expected = receiver.statuses.at(index);
        }
        QCOMPARE(expected, statuses.at(i));
    }
}

void TestReceiverTest::model_rejectsWithJsonPath_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("error");
    const QString w = u"workspace.json: receivers[0]"_s;
    QTest::newRow("not an object") << QByteArray(R"({"topics":[],"receivers":[3]})")
                                   << w + u": must be an object (got 3)"_s;
    QTest::newRow("name missing") << QByteArray(R"({"topics":[],"receivers":[{"status":200}]})")
                                  << w + u".name: must be 1 to 64 characters of A-Z, a-z, 0-9, '-' and '_' (got nothing)"_s;
    QTest::newRow("name with slash") << QByteArray(R"({"topics":[],"receivers":[{"name":"a/b"}]})")
                                     << w + u".name: must be 1 to 64 characters of A-Z, a-z, 0-9, '-' and '_' (got \"a/b\")"_s;
    QTest::newRow("status out of range") << QByteArray(R"({"topics":[],"receivers":[{"name":"a","status":700}]})")
                                         << w + u".status: must be an HTTP status from 100 to 599 or \"close\" (got 700)"_s;
    QTest::newRow("both forms") << QByteArray(R"({"topics":[],"receivers":[{"name":"a","status":200,"script":{}}]})")
                                << w + u": give either \"status\" or \"script\", not both"_s;
    QTest::newRow("unknown mode") << QByteArray(R"({"topics":[],"receivers":[{"name":"a","script":{"mode":"random"}}]})")
                                  << w + u".script.mode: must be \"fixed\" or \"sequence\" (got \"random\")"_s;
    QTest::newRow("empty sequence") << QByteArray(R"({"topics":[],"receivers":[{"name":"a","script":{"mode":"sequence","statuses":[]}}]})")
                                    << w + u".script.statuses: must be an array of 1 to 1000 statuses (got 0 entries)"_s;
    QTest::newRow("bad step") << QByteArray(R"({"topics":[],"receivers":[{"name":"a","script":{"mode":"sequence","statuses":[200,"x"]}}]})")
                              << w + u".script.statuses[1]: must be an HTTP status from 100 to 599 or \"close\" (got \"x\")"_s;
    QTest::newRow("bad after") << QByteArray(R"({"topics":[],"receivers":[{"name":"a","script":{"mode":"sequence","statuses":[200],"after":"loop"}}]})")
                               << w + u".script.after: must be \"repeat\" or \"stick\" (got \"loop\")"_s;
    QTest::newRow("failure rate") << QByteArray(R"({"topics":[],"receivers":[{"name":"a","failureRate":1.5}]})")
                                  << w + u".failureRate: must be a number from 0 to 1 (got 1.5)"_s;
    QTest::newRow("delay") << QByteArray(R"({"topics":[],"receivers":[{"name":"a","delayMs":-1}]})")
                           << w + u".delayMs: must be an integer from 0 to 600000 (got -1)"_s;
    QTest::newRow("validation") << QByteArray(R"({"topics":[],"receivers":[{"name":"a","validation":"yes"}]})")
                                << w + u".validation: must be \"answer\", \"refuse\", \"ignore\" or \"unavailable\" (got \"yes\")"_s;
    QTest::newRow("allowed rate") << QByteArray(R"({"topics":[],"receivers":[{"name":"a","allowedRate":0}]})")
                                  << w + u".allowedRate: must be an integer from 1 to 1000000 (got 0)"_s;
    QTest::newRow("close flag") << QByteArray(R"({"topics":[],"receivers":[{"name":"a","closeConnection":1}]})")
                                << w + u".closeConnection: must be true or false (got 1)"_s;
    QTest::newRow("unknown field") << QByteArray(R"({"topics":[],"receivers":[{"name":"a","responses":"503"}]})")
                                   << w + u": unknown field \"responses\" (known: name, status, script, failureRate, seed, failureStatus, delayMs, closeConnection, validation, allowedRate)"_s;
    QTest::newRow("duplicate") << QByteArray(R"({"topics":[],"receivers":[{"name":"a"},{"name":"A"}]})")
                               << u"workspace.json: receivers[1].name: duplicate receiver name \"A\" (receiver names are unique, compared case-insensitively; see receivers[0])"_s;
}

void TestReceiverTest::model_rejectsWithJsonPath()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, error);
    auto parsed = Workspace::fromJson(json, u"workspace.json"_s);
    QVERIFY(!parsed.hasValue());
    QCOMPARE(parsed.error(), error);
}

void TestReceiverTest::model_roundTripsThroughWorkspaceJson()
{
    const QByteArray json = R"({"topics":[],"receivers":[
        {"name":"demo","status":200},
        {"name":"flaky","script":{"mode":"sequence","statuses":[503,"close",200],"after":"stick"},
         "failureRate":0.3,"seed":42,"failureStatus":"close","delayMs":250,"closeConnection":true,
         "validation":"ignore"}]})";
    auto parsed = Workspace::fromJson(json, u"workspace.json"_s);
    QVERIFY2(parsed.hasValue(), qPrintable(parsed.error()));
    QCOMPARE(parsed->receivers.size(), 2);
    const TestReceiver &flaky = parsed->receivers.at(1);
    QCOMPARE(flaky.statuses, (QList<int>{503, TestReceiver::CloseConnection, 200}));
    QCOMPARE(flaky.after, TestReceiver::After::Stick);
    QCOMPARE(flaky.seed, quint64(42));
    QCOMPARE(flaky.failureStatus, TestReceiver::CloseConnection);
    QCOMPARE(flaky.validation, TestReceiver::Validation::Ignore);
    // The simplest form stays the simplest form.
    QCOMPARE(parsed->toJson().value(u"receivers"_s).toArray().at(0).toObject(),
             (QJsonObject{{u"name"_s, u"demo"_s}, {u"status"_s, 200}}));
    auto again = Workspace::fromJson(QJsonDocument(parsed->toJson()).toJson(), u"workspace.json"_s);
    QVERIFY2(again.hasValue(), qPrintable(again.error()));
    QCOMPARE(again->receivers, parsed->receivers);
    QCOMPARE(again->findReceiver(u"FLAKY"_s)->delayMs, 250);
}

void TestReceiverTest::fixedStatus_answersEveryNotificationAndRecordsIt()
{
    m_receiver.status = 503;
    QSignalSpy recorded(m_service.get(), &TestReceiverService::requestRecorded);
    for (int i = 0; i < 3; ++i) {
        const Answer answer = send("POST", QByteArray("[{\"n\":") + QByteArray::number(i) + "}]",
                                   {{"aeg-event-type", "Notification"}});
        QCOMPARE(answer.status, 503);
    }
    QCOMPARE(recorded.size(), 3);
    const QList<ReceivedRequest> records = m_service->records(u"DEMO"_s);
    QCOMPARE(records.size(), 3);
    QCOMPARE(records.at(2).body, QByteArray("[{\"n\":2}]"));
    QCOMPARE(records.at(2).method, QByteArray("POST"));
    QCOMPARE(records.at(2).target, QByteArray("/receivers/demo"));
    QCOMPARE(records.at(2).responseStatus, 503);
    QCOMPARE(records.at(2).receivedMs, m_now);
    QCOMPARE(records.at(2).kind, ReceivedRequest::Kind::Notification);
    bool sawHeader = false;
    for (const auto &[name, value] : records.at(2).headers)
        sawHeader |= name.compare("aeg-event-type", Qt::CaseInsensitive) == 0 && value == "Notification";
    QVERIFY(sawHeader);
    QCOMPARE(records.at(0).sequence + 2, records.at(2).sequence);
}

void TestReceiverTest::sequence_repeatsOrSticks_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QList<int>>("expected");
    QTest::newRow("503,503,200 repeat")
        << QByteArray(R"({"name":"demo","script":{"mode":"sequence","statuses":[503,503,200],"after":"repeat"}})")
        << QList<int>{503, 503, 200, 503, 503, 200, 503};
    QTest::newRow("503,503,200 stick")
        << QByteArray(R"({"name":"demo","script":{"mode":"sequence","statuses":[503,503,200],"after":"stick"}})")
        << QList<int>{503, 503, 200, 200, 200, 200};
}

void TestReceiverTest::sequence_repeatsOrSticks()
{
    QFETCH(QByteArray, json);
    QFETCH(QList<int>, expected);
    m_receiver = receiverFrom(json.constData());
    QList<int> got;
    for (qsizetype i = 0; i < expected.size(); ++i)
        got.append(send("POST", "[]").status);
    QCOMPARE(got, expected);
}

void TestReceiverTest::failureRate_isSeededAndDeterministic()
{
    m_receiver = receiverFrom(R"({"name":"demo","status":200,"failureRate":0.5,"seed":42,"failureStatus":429})");
    QList<int> first;
    for (int i = 0; i < 40; ++i)
        first.append(send("POST", "[]").status);
    QVERIFY(first.contains(200));
    QVERIFY(first.contains(429));
    QCOMPARE(first.count(200) + first.count(429), 40);

    // Same script, fresh service: the same answers in the same places.
    m_service = std::make_unique<TestReceiverService>([this] { return m_now; });
    QList<int> second;
    for (int i = 0; i < 40; ++i)
        second.append(send("POST", "[]").status);
    QCOMPARE(second, first);

    // Another seed gives another pattern.
    m_receiver.seed = 7;
    QList<int> third;
    for (int i = 0; i < 40; ++i)
        third.append(send("POST", "[]").status);
    QVERIFY(third != first);

    m_receiver.failureRate = 1.0;
    QCOMPARE(send("POST", "[]").status, 429);
    m_receiver.failureRate = 0.0;
    QCOMPARE(send("POST", "[]").status, 200);
}

void TestReceiverTest::closeConnection_givesNoAnswer()
{
    m_receiver.closeConnection = true;
    const Answer answer = send("POST", "[]");
    QCOMPARE(answer.status, 0); // SPEC §7 SocketError for the sender: closed without a response
    QCOMPARE(answer.error, QNetworkReply::RemoteHostClosedError);
    QCOMPARE(m_service->records(u"demo"_s).constLast().responseStatus, 0);
}

void TestReceiverTest::closeStepInSequence_givesNoAnswerThenStatus()
{
    m_receiver = receiverFrom(R"({"name":"demo","script":{"mode":"sequence","statuses":["close",202],"after":"stick"}})");
    // The HTTP client resends a request dropped before any answer; the receiver drops those
    // resends too (recorded as retransmissions) so the sender sees one failed attempt.
    QCOMPARE(send("POST", "[]", {{"aeg-delivery-count", "0"}}).status, 0);
    const QList<ReceivedRequest> dropped = m_service->records(u"demo"_s);
    QVERIFY(!dropped.constFirst().retransmission);
    for (const ReceivedRequest &record : dropped)
        QCOMPARE(record.responseStatus, 0);
    // The next attempt (a new aeg-delivery-count) plays the next step.
    QCOMPARE(send("POST", "[]", {{"aeg-delivery-count", "1"}}).status, 202);
    QCOMPARE(send("POST", "[]", {{"aeg-delivery-count", "2"}}).status, 202);
}

void TestReceiverTest::delay_holdsTheAnswerBack()
{
    m_receiver.delayMs = 400;
    QElapsedTimer elapsed;
    elapsed.start();
    const Answer answer = send("POST", "[]");
    QCOMPARE(answer.status, 200);
    QVERIFY2(elapsed.elapsed() >= 390, qPrintable(QString::number(elapsed.elapsed())));
    QCOMPARE(m_service->records(u"demo"_s).constLast().delayMs, 400);
}

void TestReceiverTest::eventGridHandshake_answerRefuseIgnore_data()
{
    QTest::addColumn<TestReceiver::Validation>("validation");
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("body");
    QTest::newRow("answer") << TestReceiver::Validation::Answer << 200
                            << QByteArray(R"({"validationResponse":"CODE-1"})");
    QTest::newRow("refuse") << TestReceiver::Validation::Refuse << 403 << QByteArray();
    QTest::newRow("ignore") << TestReceiver::Validation::Ignore << 200 << QByteArray();
    QTest::newRow("unavailable") << TestReceiver::Validation::Unavailable << 503 << QByteArray();
}

void TestReceiverTest::eventGridHandshake_answerRefuseIgnore()
{
    QFETCH(TestReceiver::Validation, validation);
    QFETCH(int, status);
    QFETCH(QByteArray, body);
    m_receiver.status = 500; // the script is not consulted for handshakes
    m_receiver.validation = validation;
    const QByteArray handshake = R"([{"id":"1","eventType":"Microsoft.EventGrid.SubscriptionValidationEvent",
        "data":{"validationCode":"CODE-1","validationUrl":"http://x/validate"}}])";
    const Answer answer = send("POST", handshake, {{"aeg-event-type", "SubscriptionValidation"}});
    QCOMPARE(answer.status, status);
    QCOMPARE(answer.body, body);
    QCOMPARE(m_service->records(u"demo"_s).constLast().kind, ReceivedRequest::Kind::ValidationHandshake);
    // A notification afterwards still follows the script.
    QCOMPARE(send("POST", "[]").status, 500);
}

void TestReceiverTest::cloudEventsHandshake_answerRefuseIgnore_data()
{
    QTest::addColumn<TestReceiver::Validation>("validation");
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("allowedOrigin");
    QTest::newRow("answer") << TestReceiver::Validation::Answer << 200 << QByteArray("eventgrid.azure.net");
    QTest::newRow("refuse") << TestReceiver::Validation::Refuse << 403 << QByteArray();
    QTest::newRow("ignore") << TestReceiver::Validation::Ignore << 405 << QByteArray();
    QTest::newRow("unavailable") << TestReceiver::Validation::Unavailable << 503 << QByteArray();
}

void TestReceiverTest::cloudEventsHandshake_answerRefuseIgnore()
{
    QFETCH(TestReceiver::Validation, validation);
    QFETCH(int, status);
    QFETCH(QByteArray, allowedOrigin);
    m_receiver.validation = validation;
    const Answer answer = send("OPTIONS", {}, {{"WebHook-Request-Origin", "eventgrid.azure.net"}});
    QCOMPARE(answer.status, status);
    QCOMPARE(answer.header("WebHook-Allowed-Origin"), allowedOrigin);
    if (!allowedOrigin.isEmpty()) {
        QCOMPARE(answer.header("WebHook-Allowed-Rate"), QByteArray("*"));
        m_receiver.allowedRate = 120; // a granted rate: requests per minute
        QCOMPARE(send("OPTIONS", {}, {{"WebHook-Request-Origin", "eventgrid.azure.net"}}).header("WebHook-Allowed-Rate"),
                 QByteArray("120"));
    }
    QCOMPARE(m_service->records(u"demo"_s).constLast().kind, ReceivedRequest::Kind::AbuseProtectionHandshake);
}

void TestReceiverTest::records_areABoundedRingBuffer()
{
    m_service = std::make_unique<TestReceiverService>([this] { return m_now; }, 5);
    for (int i = 1; i <= 12; ++i)
        QCOMPARE(send("POST", QByteArray::number(i)).status, 200);
    const QList<ReceivedRequest> records = m_service->records(u"demo"_s);
    QCOMPARE(records.size(), 5);
    QCOMPARE(records.constFirst().body, QByteArray("8"));
    QCOMPARE(records.constLast().body, QByteArray("12"));
    QCOMPARE(records.constLast().sequence, quint64(12));
    QCOMPARE(m_service->receivedCount(u"demo"_s), quint64(12));
    const QList<ReceivedRequest> since = m_service->recordsSince(u"demo"_s, 10);
    QCOMPARE(since.size(), 2);
    QCOMPARE(since.at(0).sequence, quint64(11));
    m_service->clearRecords(u"demo"_s);
    QVERIFY(m_service->records(u"demo"_s).isEmpty());
    QCOMPARE(m_service->receivedCount(u"demo"_s), quint64(12));
}

// docs/eventdeskd.md "Built-in test receivers": besides the count, the records' bytes are bounded,
// so large bodies cannot grow the process beyond the budget; the newest request is always kept.
void TestReceiverTest::records_areBoundedInBytes()
{
    constexpr qsizetype Budget = 1024 * 1024;
    m_service = std::make_unique<TestReceiverService>([this] { return m_now; }, 1000, Budget);
    const QByteArray body(300 * 1024, 'b');
    for (int i = 1; i <= 20; ++i)
        QCOMPARE(send("POST", QByteArray::number(i) + body).status, 200);
    const QList<ReceivedRequest> records = m_service->records(u"demo"_s);
    QCOMPARE(records.size(), 3); // 3 x 300 KiB fit in 1 MiB with their headers, 4 do not
    QVERIFY(records.constLast().body.startsWith("20"));
    QVERIFY(records.constFirst().body.startsWith("18"));
    QVERIFY(m_service->recordedBytes(u"demo"_s) <= Budget);
    qsizetype sum = 0;
    for (const ReceivedRequest &record : records)
        sum += record.sizeInBytes();
    QCOMPARE(m_service->recordedBytes(u"demo"_s), sum);
    QCOMPARE(m_service->receivedCount(u"demo"_s), quint64(20));

    // One request larger than the budget is kept alone.
    QCOMPARE(send("POST", QByteArray(2 * Budget, 'c')).status, 200);
    QCOMPARE(m_service->records(u"demo"_s).size(), 1);
    QCOMPARE(m_service->records(u"demo"_s).constFirst().body.size(), 2 * Budget);
    // The defaults, as docs/eventdeskd.md states them.
    QCOMPARE(TestReceiverService::DefaultRecordCapacity, 1000);
    QCOMPARE(TestReceiverService::DefaultRecordBytes, qsizetype(64 * 1024 * 1024));
}

void TestReceiverTest::editedScript_startsOver()
{
    m_receiver = receiverFrom(R"({"name":"demo","script":{"mode":"sequence","statuses":[503,200],"after":"stick"}})");
    QCOMPARE(send("POST", "[]").status, 503);
    QCOMPARE(send("POST", "[]").status, 200);
    m_receiver = receiverFrom(R"({"name":"demo","script":{"mode":"sequence","statuses":[500,200],"after":"stick"}})");
    QCOMPARE(send("POST", "[]").status, 500);
}

QByteArray TestReceiverTest::rawExchange(const QByteArray &request, int expectedResponses)
{
    QTcpSocket socket;
    socket.connectToHost(QHostAddress::LocalHost, m_server->port());
    socket.write(request);
    // The server runs on this thread: keep its event loop turning while waiting for the answers.
    QByteArray received;
    QElapsedTimer elapsed;
    elapsed.start();
    while (received.count("HTTP/1.1 ") - received.count("HTTP/1.1 100 ") < expectedResponses
           && elapsed.elapsed() < 10'000) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        received += socket.readAll();
        if (socket.state() == QAbstractSocket::UnconnectedState)
            break;
    }
    return received;
}

void TestReceiverTest::httpServer_pipelinedRequestsAnsweredInOrder()
{
    m_receiver = receiverFrom(R"({"name":"demo","script":{"mode":"sequence","statuses":[201,202,204]}})");
    const QByteArray request = "POST /receivers/demo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n[]";
    const QByteArray received = rawExchange(request + request + request, 3);
    const qsizetype first = received.indexOf("HTTP/1.1 201");
    const qsizetype second = received.indexOf("HTTP/1.1 202");
    const qsizetype third = received.indexOf("HTTP/1.1 204");
    QVERIFY2(first >= 0 && first < second && second < third, received.constData());
    QCOMPARE(m_service->receivedCount(u"demo"_s), quint64(3));
}

void TestReceiverTest::httpServer_chunkedBodyAndExpectContinue()
{
    const QByteArray request = "POST /receivers/demo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                               "Expect: 100-continue\r\n\r\n"
                               "4\r\n[{\"a\r\n5;ext=1\r\n\":1}]\r\n0\r\n\r\n";
    const QByteArray received = rawExchange(request, 1);
    QVERIFY2(received.startsWith("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK"), received.constData());
    QCOMPARE(m_service->records(u"demo"_s).constLast().body, QByteArray("[{\"a\":1}]"));
}

void TestReceiverTest::httpServer_oversizedBodyIs413AndClosed()
{
    m_server->setMaxBodyBytes(1000);
    const QByteArray received
        = rawExchange("POST /receivers/demo HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n", 1);
    QVERIFY2(received.startsWith("HTTP/1.1 413 Payload Too Large"), received.constData());
    QVERIFY(received.contains("Connection: close"));
    QCOMPARE(m_service->receivedCount(u"demo"_s), quint64(0));
}

void TestReceiverTest::httpServer_malformedRequestIs400()
{
    const QByteArray received = rawExchange("NONSENSE\r\n\r\n", 1);
    QVERIFY2(received.startsWith("HTTP/1.1 400 Bad Request"), received.constData());
    QCOMPARE(m_service->receivedCount(u"demo"_s), quint64(0));
}

void TestReceiverTest::httpServer_chunkBeyondTheLimitIs413()
{
    // Found by fuzz_http_request: after a first chunk, a chunk size near 2^63 overflowed the sum
    // of the body's size and the chunk's (undefined behaviour), and the limit was not applied.
    m_server->setMaxBodyBytes(1000);
    const QByteArray received = rawExchange("POST /receivers/demo HTTP/1.1\r\nHost: x\r\n"
                                            "Transfer-Encoding: chunked\r\n\r\n"
                                            "1\r\n[\r\n7fffffffffffffff\r\n",
                                            1);
    QVERIFY2(received.startsWith("HTTP/1.1 413 Payload Too Large"), received.constData());
    QCOMPARE(m_service->receivedCount(u"demo"_s), quint64(0));
}

void TestReceiverTest::httpServer_whitespaceAroundHeaderNameIs400_data()
{
    QTest::addColumn<QByteArray>("headerLine");
    // Found by fuzz_http_request: a CR before the name was trimmed away, leaving an empty name
    // (or, before another name, a header a proxy in front would not read as that one).
    QTest::newRow("CR alone before the colon") << QByteArray("\r: x");
    QTest::newRow("CR before a name") << QByteArray("\rContent-Length: 2");
    QTest::newRow("space before the colon") << QByteArray("Content-Length : 2");
    QTest::newRow("tab before the colon") << QByteArray("Content-Length\t: 2");
    QTest::newRow("space before the name") << QByteArray(" Content-Length: 2");
}

void TestReceiverTest::httpServer_whitespaceAroundHeaderNameIs400()
{
    QFETCH(QByteArray, headerLine);
    const QByteArray received = rawExchange(
        "POST /receivers/demo HTTP/1.1\r\nHost: x\r\n" + headerLine + "\r\n\r\n[]", 1);
    QVERIFY2(received.startsWith("HTTP/1.1 400 Bad Request"), received.constData());
    QCOMPARE(m_service->receivedCount(u"demo"_s), quint64(0));
}

QTEST_GUILESS_MAIN(TestReceiverTest)
#include "tst_testreceiver.moc"
