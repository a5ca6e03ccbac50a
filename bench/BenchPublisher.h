// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

// The publishing client of the end-to-end benchmarks (2 and 8): a lean HTTP/1.1 connection to a
// topic endpoint.

#include <QByteArray>
#include <QObject>
#include <QTcpSocket>
#include <QUrl>

#include <functional>

namespace Bench {

using NextBody = std::function<QByteArray()>; // a null array: nothing more to publish
using Answered = std::function<void(int status, const QByteArray &body)>;

// One publishing HTTP/1.1 connection that writes each request - head and body - to its socket in
// one piece and reads the short answer itself, so that the client costs little next to the
// engine. (With QNetworkAccessManager as the client, a 1 MB upload took 8-14 ms here - timed
// from the answer to the previous request until the next body was complete at the endpoint -
// longer than parsing or storing that request: the client, not the engine, limited the run.)
class PlainPublisher final : public QObject
{
public:
    PlainPublisher(const QUrl &endpoint, NextBody nextBody, Answered answered)
        : m_target(endpoint.path(QUrl::FullyEncoded).toLatin1() + '?'
                   + endpoint.query(QUrl::FullyEncoded).toLatin1())
        , m_host(endpoint.host().toLatin1() + ':' + QByteArray::number(endpoint.port()))
        , m_nextBody(std::move(nextBody))
        , m_answered(std::move(answered))
    {
        connect(&m_socket, &QTcpSocket::connected, this, &PlainPublisher::sendNext);
        connect(&m_socket, &QTcpSocket::readyRead, this, &PlainPublisher::onReadyRead);
        connect(&m_socket, &QTcpSocket::errorOccurred, this, [this] {
            if (m_busy)
                m_answered(0, m_socket.errorString().toUtf8());
            m_busy = false;
        });
        m_socket.connectToHost(endpoint.host(), quint16(endpoint.port()));
    }

private:
    void sendNext()
    {
        const QByteArray body = m_nextBody();
        if (body.isNull())
            return;
        QByteArray request = "POST " + m_target + " HTTP/1.1\r\nHost: " + m_host
            + "\r\nContent-Type: application/json\r\nContent-Length: "
            + QByteArray::number(body.size()) + "\r\n\r\n";
        request += body;
        m_busy = true;
        m_socket.write(request);
    }

    void onReadyRead()
    {
        m_buffer += m_socket.readAll();
        const qsizetype headEnd = m_buffer.indexOf("\r\n\r\n");
        if (headEnd < 0)
            return;
        const QByteArray head = m_buffer.left(headEnd).toLower();
        qsizetype length = 0;
        if (const qsizetype at = head.indexOf("\r\ncontent-length:"); at >= 0) {
            const qsizetype from = at + 17;
            const qsizetype to = head.indexOf('\r', from);
            length = head.mid(from, to < 0 ? -1 : to - from).trimmed().toLongLong();
        }
        if (m_buffer.size() < headEnd + 4 + length)
            return;
        const int status = m_buffer.mid(9, 3).toInt(); // "HTTP/1.1 200 OK"
        const QByteArray answer = m_buffer.mid(headEnd + 4, length);
        m_buffer.remove(0, headEnd + 4 + length);
        m_busy = false;
        m_answered(status, answer);
        sendNext();
    }

    const QByteArray m_target;
    const QByteArray m_host;
    NextBody m_nextBody;
    Answered m_answered;
    QTcpSocket m_socket;
    QByteArray m_buffer;
    bool m_busy = false;
};

} // namespace Bench
