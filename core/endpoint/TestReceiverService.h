// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../http/HttpServer.h"
#include "../model/TestReceiver.h"

#include <QElapsedTimer>
#include <QHash>
#include <QList>
#include <QMetaType>
#include <QObject>
#include <QString>

#include <functional>
#include <random>

namespace EventDesk {

// One request a built-in test receiver received, and what it answered (the GUI's request list).
struct ReceivedRequest
{
    enum class Kind {
        Notification, // a delivery (POST)
        ValidationHandshake, // Event Grid schema SubscriptionValidationEvent (POST)
        AbuseProtectionHandshake, // CloudEvents OPTIONS with WebHook-Request-Origin
        Other // any other method
    };

    QString receiver; // the receiver's name as the workspace spells it
    quint64 sequence = 0; // 1, 2, ... per receiver, never reused while EventDesk runs
    qint64 receivedMs = 0; // engine time (ms since the epoch)
    Kind kind = Kind::Notification;
    QByteArray method;
    QByteArray target;
    HttpHeaders headers;
    QByteArray body;
    int responseStatus = 0; // 0: the connection was closed without an answer
    HttpHeaders responseHeaders;
    QByteArray responseBody;
    int delayMs = 0; // how long the answer (or the close) was held back
    // The sender's HTTP client resent a request this receiver had just dropped (closed again
    // without consuming a script step, so the sender sees one SocketError attempt).
    bool retransmission = false;

    // What the record holds in memory (bodies, headers, target), counted against the receivers'
    // byte budget.
    qsizetype sizeInBytes() const;
};

// Serves the workspace's test receivers (docs/eventdeskd.md "Built-in test receivers"): plays each
// one's response script and records every request in a bounded ring buffer per receiver: at most
// recordCapacity requests and recordBytes bytes (the oldest go first), so neither a long run nor
// a client sending the largest bodies the server takes can exhaust memory. Lives on the engine
// thread, next to the endpoint.
class TestReceiverService final : public QObject
{
    Q_OBJECT

public:
    static constexpr int DefaultRecordCapacity = 1000;
    static constexpr qsizetype DefaultRecordBytes = 64 * 1024 * 1024;

    // now: engine time for the records (so they line up with the delivery log).
    explicit TestReceiverService(std::function<qint64()> now,
                                 int recordCapacity = DefaultRecordCapacity,
                                 qsizetype recordBytes = DefaultRecordBytes,
                                 QObject *parent = nullptr);
    ~TestReceiverService() override;

    // Answers one request to /receivers/<receiver.name> (now or after the receiver's delay).
    void handle(const TestReceiver &receiver, const HttpRequest &request, const HttpReply &reply);

    // The records of one receiver, oldest first (at most recordCapacity()).
    QList<ReceivedRequest> records(const QString &receiverName) const;
    // Records with a sequence number greater than afterSequence (for polling without duplicates).
    QList<ReceivedRequest> recordsSince(const QString &receiverName, quint64 afterSequence) const;
    void clearRecords(const QString &receiverName);
    int recordCapacity() const { return m_capacity; }
    qsizetype recordBytes() const { return m_byteCapacity; }
    // Bytes the records of one receiver hold now (sizeInBytes of each).
    qsizetype recordedBytes(const QString &receiverName) const;

    // Drops the oldest records until at most capacity records of at most byteCapacity bytes are
    // left; the newest is kept whatever its size. Returns the bytes left. (The GUI's copy of the
    // records is held to the same budget.)
    template<typename Record, typename Size>
    static qsizetype trim(QList<Record> &records, qsizetype bytes, int capacity,
                          qsizetype byteCapacity, Size sizeOf)
    {
        qsizetype drop = 0;
        while (records.size() - drop > 1
               && (records.size() - drop > capacity || bytes > byteCapacity)) {
            bytes -= sizeOf(records.at(drop));
            ++drop;
        }
        if (drop > 0)
            records.remove(0, drop);
        return bytes;
    }
    // Requests received in total (including those that left the ring buffer).
    quint64 receivedCount(const QString &receiverName) const;

    static QString kindName(ReceivedRequest::Kind kind);

Q_SIGNALS:
    void requestRecorded(const QString &receiverName, const EventDesk::ReceivedRequest &record);

private:
    struct State
    {
        TestReceiver definition; // the script the counters below belong to
        qsizetype position = 0; // next step of a sequence
        std::mt19937_64 random;
        // The notification last dropped without an answer, to recognise its retransmission.
        QByteArray droppedFingerprint;
        QElapsedTimer droppedAt;
        int droppedRetransmissions = 0;
        QList<ReceivedRequest> records;
        qsizetype recordedBytes = 0;
        quint64 nextSequence = 1;
    };

    State &stateFor(const TestReceiver &receiver);
    void finish(const QString &key, ReceivedRequest record, const HttpReply &reply, bool close);

    std::function<qint64()> m_now;
    int m_capacity;
    qsizetype m_byteCapacity;
    QHash<QString, State> m_states; // key: receiver name, lower case
};

} // namespace EventDesk

Q_DECLARE_METATYPE(EventDesk::ReceivedRequest)
