// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "FakeNetwork.h"

#include <QMetaObject>
#include <QTimer>

#include <algorithm>

FakeReply::FakeReply(const QNetworkRequest &request, QNetworkAccessManager::Operation operation,
                     QObject *parent)
    : QNetworkReply(parent)
{
    setRequest(request);
    setUrl(request.url());
    setOperation(operation);
    open(QIODevice::ReadOnly);
}

void FakeReply::finishWithStatus(int httpStatus)
{
    finishWith(httpStatus, {}, {});
}

void FakeReply::finishWith(int httpStatus, const QByteArray &body, const Headers &headers)
{
    setAttribute(QNetworkRequest::HttpStatusCodeAttribute, httpStatus);
    for (const auto &[name, value] : headers)
        setRawHeader(name, value);
    m_body = body;
    m_readOffset = 0;
    if (httpStatus >= 400)
        setError(httpStatus >= 500 ? QNetworkReply::InternalServerError
                                   : QNetworkReply::ContentAccessDenied,
                 QStringLiteral("HTTP %1").arg(httpStatus));
    QMetaObject::invokeMethod(this, &FakeReply::complete, Qt::QueuedConnection);
}

void FakeReply::finishWithError(QNetworkReply::NetworkError error)
{
    setError(error, QStringLiteral("network error %1").arg(int(error)));
    QMetaObject::invokeMethod(this, &FakeReply::complete, Qt::QueuedConnection);
}

qint64 FakeReply::bytesAvailable() const
{
    return m_body.size() - m_readOffset + QNetworkReply::bytesAvailable();
}

qint64 FakeReply::readData(char *data, qint64 maxSize)
{
    const qint64 count = std::min(maxSize, m_body.size() - m_readOffset);
    if (count <= 0)
        return -1;
    std::copy_n(m_body.constData() + m_readOffset, count, data);
    m_readOffset += count;
    return count;
}

void FakeReply::abort()
{
    if (m_finished)
        return;
    setError(QNetworkReply::OperationCanceledError, QStringLiteral("aborted"));
    complete(); // like QNetworkReply, abort() finishes synchronously
}

void FakeReply::complete()
{
    if (m_finished)
        return;
    m_finished = true;
    setFinished(true);
    Q_EMIT finished();
}

FakeAccessManager::FakeAccessManager(QObject *parent)
    : QNetworkAccessManager(parent)
{
    respondAlways(200);
}

void FakeAccessManager::setResponder(Responder responder)
{
    m_responder = [responder = std::move(responder)](const Sent &sent) {
        return Answer {responder(sent), {}, {}};
    };
}

void FakeAccessManager::respondAlways(int status)
{
    m_responder = [status](const Sent &) {
        return Answer {status, {}, {}};
    };
}

QNetworkReply *FakeAccessManager::createRequest(Operation operation, const QNetworkRequest &request,
                                                QIODevice *outgoingData)
{
    auto *reply = new FakeReply(request, operation, this);
    Sent record;
    record.request = request;
    record.body = outgoingData ? outgoingData->readAll() : QByteArray();
    record.reply = reply;
    sent.append(record);
    const Answer answer = m_responder ? m_responder(record) : Answer {200, {}, {}};
    if (answer.status > 0)
        reply->finishWith(answer.status, answer.body, answer.headers);
    else if (answer.status < 0)
        reply->finishWithError(QNetworkReply::NetworkError(-answer.status));
    return reply;
}
