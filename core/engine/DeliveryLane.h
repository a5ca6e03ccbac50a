// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QHash>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QObject>

#include <atomic>
#include <functional>
#include <memory>

class QNetworkAccessManager;
class QThread;

namespace EventDesk {

class WebhookClient;

// Where webhook requests are posted and their replies handled: a thread of its own with a
// WebhookClient of its own, or (without threads) the calling thread and a given manager.
//
// With several lanes the work of sending requests and reading their answers runs on every core
// instead of one engine thread (bench/RESULTS.md, benchmark 1). A lane's own client reads each
// response in a few system calls where QNetworkAccessManager reads its head byte by byte. The
// lane does no delivery logic: it posts what it is given and reports each reply's outcome
// through the handler, on the lane's thread.
class DeliveryLane final : public QObject
{
    Q_OBJECT

public:
    // requestId, HTTP status (0 without a response), Qt's network error, and what a failure's
    // answer said (WebhookConnection::errorDetail()).
    using FinishedHandler
        = std::function<void(quint64 requestId, int httpStatus, QNetworkReply::NetworkError error,
                             const QByteArray &errorDetail)>;

    // A lane with a thread and a WebhookClient of its own.
    DeliveryLane(int index, FinishedHandler handler);
    // A lane on the calling thread over the given manager (not owned; tests hand in a fake).
    DeliveryLane(QNetworkAccessManager *network, FinishedHandler handler);
    // Stops the thread, if any; requests still open are aborted without calling the handler.
    ~DeliveryLane() override;

    bool isCurrentThread() const;

    // Counted up by cancelAll(); a request handed over with an older count is not posted.
    quint64 cancelGeneration() const { return m_requestedCancelGeneration.load(); }
    // Posts on this lane: directly when called on its thread, queued otherwise.
    void post(quint64 requestId, const QNetworkRequest &request, const QByteArray &body,
              quint64 cancelGeneration);
    // Aborts a request (any thread); the handler then reports it with OperationCanceledError.
    void abort(quint64 requestId);
    // Any thread: requests not posted yet are discarded, those open are aborted; the handler is
    // not called for them any more.
    void cancelAll();

private:
    void postHere(quint64 requestId, const QNetworkRequest &request, const QByteArray &body);
    void abortHere(quint64 requestId);
    void cancelAllHere();
    void onFinished(QNetworkReply *reply);

    FinishedHandler m_handler; // lane thread only after construction
    std::unique_ptr<QThread> m_thread; // null for a lane on the calling thread
    WebhookClient *m_client = nullptr; // owned (created on the lane's thread) with m_thread
    QNetworkAccessManager *m_network = nullptr; // not owned; without a thread only
    QHash<QNetworkReply *, quint64> m_requestByReply;
    QHash<quint64, QNetworkReply *> m_replyByRequest;
    std::atomic<quint64> m_requestedCancelGeneration = 0;
};

} // namespace EventDesk
