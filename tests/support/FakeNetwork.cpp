#include "FakeNetwork.h"

#include <QMetaObject>
#include <QTimer>

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
    setAttribute(QNetworkRequest::HttpStatusCodeAttribute, httpStatus);
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

void FakeAccessManager::respondAlways(int status)
{
    m_responder = [status](const Sent &) { return status; };
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
    const int answer = m_responder ? m_responder(record) : 200;
    if (answer > 0)
        reply->finishWithStatus(answer);
    else if (answer < 0)
        reply->finishWithError(QNetworkReply::NetworkError(-answer));
    return reply;
}
