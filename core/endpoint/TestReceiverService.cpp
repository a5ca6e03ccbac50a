// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "TestReceiverService.h"

#include "../Logging.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTimer>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

// A resend of a dropped request arrives at once; a real retry of the engine comes 10 s later
// at the earliest (SPEC R3) and carries a higher aeg-delivery-count anyway.
constexpr qint64 RetransmissionWindowMs = 2000;
constexpr int MaxRetransmissions = 3;

} // namespace

qsizetype ReceivedRequest::sizeInBytes() const
{
    qsizetype bytes = method.size() + target.size() + body.size() + responseBody.size();
    for (const auto &[name, value] : headers)
        bytes += name.size() + value.size();
    for (const auto &[name, value] : responseHeaders)
        bytes += name.size() + value.size();
    return bytes;
}

TestReceiverService::TestReceiverService(std::function<qint64()> now, int recordCapacity,
                                         qsizetype recordBytes, QObject *parent)
    : QObject(parent)
    , m_now(std::move(now))
    , m_capacity(std::max(1, recordCapacity))
    , m_byteCapacity(std::max<qsizetype>(1, recordBytes))
{
    qRegisterMetaType<ReceivedRequest>();
}

TestReceiverService::~TestReceiverService() = default;

QString TestReceiverService::kindName(ReceivedRequest::Kind kind)
{
    switch (kind) {
    case ReceivedRequest::Kind::Notification:
        return u"Notification"_s;
    case ReceivedRequest::Kind::ValidationHandshake:
        return u"SubscriptionValidation"_s;
    case ReceivedRequest::Kind::AbuseProtectionHandshake:
        return u"AbuseProtection"_s;
    case ReceivedRequest::Kind::Other:
        return u"Other"_s;
    }
    return u"Other"_s;
}

TestReceiverService::State &TestReceiverService::stateFor(const TestReceiver &receiver)
{
    State &state = m_states[receiver.name.toLower()];
    if (state.definition != receiver) {
        // A new or edited script starts from its beginning, with its seed.
        state.definition = receiver;
        state.position = 0;
        state.random.seed(receiver.seed);
    }
    return state;
}

void TestReceiverService::handle(const TestReceiver &receiver, const HttpRequest &request,
                                 const HttpReply &reply)
{
    State &state = stateFor(receiver);
    ReceivedRequest record;
    record.receiver = receiver.name;
    record.receivedMs = m_now ? m_now() : 0;
    record.method = request.method;
    record.target = request.target;
    record.headers = request.headers;
    record.body = request.body;

    bool close = false;
    const QByteArray eventType = request.header("aeg-event-type");
    if (request.method == "OPTIONS" && request.hasHeader("WebHook-Request-Origin")) {
        // CloudEvents abuse protection (HTTP 1.1 Web Hooks for Event Delivery, §4.2).
        record.kind = ReceivedRequest::Kind::AbuseProtectionHandshake;
        switch (receiver.validation) {
        case TestReceiver::Validation::Answer:
            record.responseStatus = 200;
            record.responseHeaders = {{"WebHook-Allowed-Origin", request.header("WebHook-Request-Origin")},
                                      {"WebHook-Allowed-Rate", receiver.allowedRate > 0
                                                                   ? QByteArray::number(receiver.allowedRate)
                                                                   : QByteArrayLiteral("*")},
                                      {"Allow", "POST, OPTIONS"}};
            break;
        case TestReceiver::Validation::Refuse:
            record.responseStatus = 403;
            break;
        case TestReceiver::Validation::Ignore:
            record.responseStatus = 405;
            record.responseHeaders = {{"Allow", "POST"}};
            break;
        case TestReceiver::Validation::Unavailable:
            record.responseStatus = 503;
            break;
        }
    } else if (request.method == "POST" && eventType.compare("SubscriptionValidation", Qt::CaseInsensitive) == 0) {
        // Event Grid schema handshake: answer {"validationResponse": data.validationCode}.
        record.kind = ReceivedRequest::Kind::ValidationHandshake;
        switch (receiver.validation) {
        case TestReceiver::Validation::Answer: {
            const QJsonValue event = QJsonDocument::fromJson(request.body).array().at(0);
            const QString code = event[u"data"_s][u"validationCode"_s].toString();
            if (code.isEmpty()) {
                record.responseStatus = 400;
            } else {
                record.responseStatus = 200;
                record.responseBody = QJsonDocument(QJsonObject{{u"validationResponse"_s, code}})
                                          .toJson(QJsonDocument::Compact);
                record.responseHeaders = {{"Content-Type", "application/json"}};
            }
            break;
        }
        case TestReceiver::Validation::Refuse:
            record.responseStatus = 403;
            break;
        case TestReceiver::Validation::Ignore:
            // Like a receiver that does not implement the handshake: 200 without the code, so
            // the subscription waits for manual validation.
            record.responseStatus = 200;
            break;
        case TestReceiver::Validation::Unavailable:
            record.responseStatus = 503;
            break;
        }
    } else if (request.method == "POST") {
        record.kind = ReceivedRequest::Kind::Notification;
        // HTTP clients (Qt's among them) resend a request on their own, up to a few times, when a
        // connection closes before any answer. Those resends are the same attempt: drop them too,
        // without playing a script step, so that a "close" step is one SocketError attempt.
        const QByteArray fingerprint = request.target + '\n' + request.header("aeg-subscription-name") + '\n'
                                       + request.header("aeg-delivery-count") + '\n' + request.body;
        if (!state.droppedFingerprint.isEmpty() && fingerprint == state.droppedFingerprint
            && state.droppedAt.isValid() && state.droppedAt.elapsed() < RetransmissionWindowMs
            && state.droppedRetransmissions < MaxRetransmissions) {
            ++state.droppedRetransmissions;
            state.droppedAt.start();
            record.retransmission = true;
            record.responseStatus = 0;
            finish(receiver.name.toLower(), std::move(record), reply, true);
            return;
        }
        state.droppedFingerprint.clear();
        int status = receiver.status;
        if (receiver.mode == TestReceiver::Mode::Sequence) {
            const qsizetype size = receiver.statuses.size();
            qsizetype index = state.position;
            if (index >= size)
                index = receiver.after == TestReceiver::After::Repeat ? index % size : size - 1;
            status = receiver.statuses.at(index);
            ++state.position;
            if (receiver.after == TestReceiver::After::Repeat)
                state.position %= size;
        }
        if (receiver.failureRate > 0.0) {
            // One draw per notification, from the seeded generator: the same seed gives the same
            // failures in the same places.
            std::uniform_real_distribution<double> distribution(0.0, 1.0);
            if (distribution(state.random) < receiver.failureRate)
                status = receiver.failureStatus;
        }
        if (receiver.closeConnection)
            status = TestReceiver::CloseConnection;
        close = status == TestReceiver::CloseConnection;
        record.responseStatus = close ? 0 : status;
        record.delayMs = receiver.delayMs;
        if (close) {
            state.droppedFingerprint = fingerprint;
            state.droppedAt.start();
            state.droppedRetransmissions = 0;
        }
    } else {
        record.kind = ReceivedRequest::Kind::Other;
        record.responseStatus = 405;
        record.responseHeaders = {{"Allow", "POST, OPTIONS"}};
    }
    finish(receiver.name.toLower(), std::move(record), reply, close);
}

void TestReceiverService::finish(const QString &key, ReceivedRequest record, const HttpReply &reply,
                                 bool close)
{
    State &state = m_states[key];
    record.sequence = state.nextSequence++;
    state.records.append(record);
    // The ring buffer forgets the oldest requests, by count and by bytes.
    state.recordedBytes
        = trim(state.records, state.recordedBytes + record.sizeInBytes(), m_capacity,
               m_byteCapacity, [](const ReceivedRequest &kept) { return kept.sizeInBytes(); });

    HttpResponse response;
    response.status = record.responseStatus;
    for (const auto &header : std::as_const(record.responseHeaders)) {
        if (header.first.compare("Content-Type", Qt::CaseInsensitive) == 0)
            response.contentType = header.second;
        else
            response.headers.append(header);
    }
    response.body = record.responseBody;
    auto answer = [reply, response, close] {
        if (close)
            reply.closeWithoutAnswer();
        else
            reply.respond(response);
    };
    qCDebug(lcEndpoint) << "test receiver" << key << kindName(record.kind) << "->"
                        << (close ? u"close"_s : QString::number(record.responseStatus));
    const QString name = state.definition.name;
    const int delayMs = record.delayMs;
    Q_EMIT requestRecorded(name, record);
    if (delayMs > 0)
        QTimer::singleShot(delayMs, this, answer);
    else
        answer();
}

QList<ReceivedRequest> TestReceiverService::records(const QString &receiverName) const
{
    return m_states.value(receiverName.toLower()).records;
}

QList<ReceivedRequest> TestReceiverService::recordsSince(const QString &receiverName,
                                                         quint64 afterSequence) const
{
    QList<ReceivedRequest> result;
    const auto it = m_states.constFind(receiverName.toLower());
    if (it == m_states.cend())
        return result;
    for (const ReceivedRequest &record : it->records) {
        if (record.sequence > afterSequence)
            result.append(record);
    }
    return result;
}

void TestReceiverService::clearRecords(const QString &receiverName)
{
    const auto it = m_states.find(receiverName.toLower());
    if (it != m_states.end()) {
        it->records.clear();
        it->recordedBytes = 0;
    }
}

qsizetype TestReceiverService::recordedBytes(const QString &receiverName) const
{
    const auto it = m_states.constFind(receiverName.toLower());
    return it == m_states.cend() ? 0 : it->recordedBytes;
}

quint64 TestReceiverService::receivedCount(const QString &receiverName) const
{
    const auto it = m_states.constFind(receiverName.toLower());
    return it == m_states.cend() ? 0 : it->nextSequence - 1;
}

} // namespace EventDesk
