// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "DeliveryLane.h"

#include "../http/WebhookClient.h"

#include <QNetworkAccessManager>
#include <QThread>

using namespace Qt::StringLiterals;

namespace EventDesk {

DeliveryLane::DeliveryLane(int index, FinishedHandler handler)
    : m_handler(std::move(handler))
    , m_thread(std::make_unique<QThread>())
{
    m_thread->setObjectName(u"EventDesk lane %1"_s.arg(index));
    m_thread->start();
    moveToThread(m_thread.get());
    // The client belongs to the lane's thread: its sockets live where it lives.
    QMetaObject::invokeMethod(this, [this] {
        m_client = new WebhookClient(
            [this](quint64 requestId, int httpStatus, QNetworkReply::NetworkError error,
                   const QByteArray &errorDetail) {
                if (m_handler)
                    m_handler(requestId, httpStatus, error, errorDetail);
            },
            this);
    }, Qt::BlockingQueuedConnection);
}

DeliveryLane::DeliveryLane(QNetworkAccessManager *network, FinishedHandler handler)
    : m_handler(std::move(handler))
    , m_network(network)
{
}

DeliveryLane::~DeliveryLane()
{
    if (!m_thread) {
        m_handler = nullptr;
        cancelAllHere();
        return;
    }
    // Runs on the owner's thread: the lane's own objects are torn down on the lane's thread.
    QMetaObject::invokeMethod(this, [this] {
        m_handler = nullptr;
        cancelAllHere();
        delete m_client;
        m_client = nullptr;
    }, Qt::BlockingQueuedConnection);
    m_thread->quit();
    m_thread->wait();
}

bool DeliveryLane::isCurrentThread() const
{
    return QThread::currentThread() == (m_thread ? m_thread.get() : thread());
}

void DeliveryLane::post(quint64 requestId, const QNetworkRequest &request, const QByteArray &body,
                        quint64 cancelGeneration)
{
    if (isCurrentThread()) {
        if (cancelGeneration == m_requestedCancelGeneration.load())
            postHere(requestId, request, body);
        return;
    }
    QMetaObject::invokeMethod(this, [this, requestId, request, body, cancelGeneration] {
        if (cancelGeneration == m_requestedCancelGeneration.load())
            postHere(requestId, request, body);
    }, Qt::QueuedConnection);
}

void DeliveryLane::abort(quint64 requestId)
{
    if (isCurrentThread())
        abortHere(requestId);
    else
        QMetaObject::invokeMethod(this, [this, requestId] { abortHere(requestId); }, Qt::QueuedConnection);
}

void DeliveryLane::cancelAll()
{
    ++m_requestedCancelGeneration;
    if (isCurrentThread())
        cancelAllHere();
    else
        QMetaObject::invokeMethod(this, [this] { cancelAllHere(); }, Qt::QueuedConnection);
}

void DeliveryLane::postHere(quint64 requestId, const QNetworkRequest &request, const QByteArray &body)
{
    if (m_client) {
        m_client->post(requestId, request, body);
        return;
    }
    if (!m_network)
        return;
    QNetworkReply *reply = m_network->post(request, body);
    m_requestByReply.insert(reply, requestId);
    m_replyByRequest.insert(requestId, reply);
    connect(reply, &QNetworkReply::finished, this, [this, reply] { onFinished(reply); });
}

void DeliveryLane::abortHere(quint64 requestId)
{
    if (m_client) {
        m_client->abort(requestId); // reported from the event loop
        return;
    }
    if (QNetworkReply *reply = m_replyByRequest.value(requestId))
        reply->abort(); // finished() follows and reports it
}

void DeliveryLane::cancelAllHere()
{
    if (m_client)
        m_client->cancelAll();
    const QList<QNetworkReply *> replies = m_requestByReply.keys();
    m_requestByReply.clear();
    m_replyByRequest.clear();
    for (QNetworkReply *reply : replies) {
        disconnect(reply, nullptr, this, nullptr);
        reply->abort();
        reply->deleteLater();
    }
}

void DeliveryLane::onFinished(QNetworkReply *reply)
{
    reply->deleteLater();
    const auto found = m_requestByReply.find(reply);
    if (found == m_requestByReply.end())
        return;
    const quint64 requestId = found.value();
    m_requestByReply.erase(found);
    m_replyByRequest.remove(requestId);
    const QVariant status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute);
    const int httpStatus = status.isValid() ? status.toInt() : 0;
    // As WebhookConnection::errorDetail(): the error code header and the start of the body.
    QByteArray errorDetail;
    if (httpStatus >= 300) {
        if (const QByteArray code = reply->rawHeader("x-ms-error-code"); !code.isEmpty())
            errorDetail = code + '\n';
        errorDetail += reply->read(WebhookConnection::MaxErrorDetailBytes - errorDetail.size());
    }
    if (m_handler)
        m_handler(requestId, httpStatus, reply->error(), errorDetail);
}

} // namespace EventDesk
