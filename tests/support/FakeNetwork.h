#pragma once

#include <QByteArray>
#include <QList>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
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

    void finishWithStatus(int httpStatus); // queued: finished() on the next event loop turn
    void finishWithError(QNetworkReply::NetworkError error);
    void abort() override;
    bool isHanging() const { return !m_finished; }

protected:
    qint64 readData(char *, qint64) override { return -1; }

private:
    void complete();
    bool m_finished = false;
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

    explicit FakeAccessManager(QObject *parent = nullptr);
    void setResponder(Responder responder) { m_responder = std::move(responder); }
    void respondAlways(int status);

    QList<Sent> sent;

protected:
    QNetworkReply *createRequest(Operation operation, const QNetworkRequest &request,
                                 QIODevice *outgoingData) override;

private:
    Responder m_responder;
};
