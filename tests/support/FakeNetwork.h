// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QByteArray>
#include <QList>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QPair>
#include <QPointer>
#include <QUrl>

#include <functional>

// An access manager whose replies are scripted by the test and finish asynchronously, like real
// ones (queued), so the engine's reply handling runs exactly as in production.
class FakeReply final : public QNetworkReply
{
    Q_OBJECT

public:
    FakeReply(const QNetworkRequest &request, QNetworkAccessManager::Operation operation,
              QObject *parent);

    using Headers = QList<QPair<QByteArray, QByteArray>>;

    void finishWithStatus(int httpStatus); // queued: finished() on the next event loop turn
    // An answer with a body and response headers (what an endpoint validation reads).
    void finishWith(int httpStatus, const QByteArray &body, const Headers &headers);
    void finishWithError(QNetworkReply::NetworkError error);
    void abort() override;
    bool isHanging() const { return !m_finished; }
    qint64 bytesAvailable() const override;

protected:
    qint64 readData(char *data, qint64 maxSize) override;

private:
    void complete();
    bool m_finished = false;
    QByteArray m_body;
    qint64 m_readOffset = 0;
};

class FakeAccessManager final : public QNetworkAccessManager
{
    Q_OBJECT

public:
    struct Sent
    {
        QNetworkRequest request;
        QByteArray body;
        QPointer<FakeReply> reply;
        QByteArray header(const char *name) const { return request.rawHeader(name); }
    };

    // What to answer: an HTTP status (> 0), a network error (as a negative QNetworkReply error
    // code), or 0 to leave the reply hanging until the test (or the engine) finishes it.
    using Responder = std::function<int(const Sent &)>;

    // The same, with a body and response headers for an HTTP status.
    struct Answer
    {
        int status = 0;
        QByteArray body;
        FakeReply::Headers headers;
    };
    using AnswerResponder = std::function<Answer(const Sent &)>;

    explicit FakeAccessManager(QObject *parent = nullptr);
    void setResponder(Responder responder);
    void setAnswerResponder(AnswerResponder responder) { m_responder = std::move(responder); }
    void respondAlways(int status);

    QList<Sent> sent;

protected:
    QNetworkReply *createRequest(Operation operation, const QNetworkRequest &request,
                                 QIODevice *outgoingData) override;

private:
    AnswerResponder m_responder;
};
