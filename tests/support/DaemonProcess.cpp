// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "DaemonProcess.h"

#include "store/sqlite/SqliteReadOnlyDatabase.h"

#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QRegularExpression>
#include <QSaveFile>
#include <QTimer>

#include <utility>

using namespace Qt::StringLiterals;

#ifndef EVENTDESK_DAEMON_PATH
#error "EVENTDESK_DAEMON_PATH must name the eventdeskd executable (set by tests/integration/CMakeLists.txt)"
#endif

namespace EventDesk::Testing {

// ---- HttpResult --------------------------------------------------------------------------------

QJsonObject HttpResult::json() const
{
    return QJsonDocument::fromJson(body).object();
}

QString HttpResult::errorCode() const
{
    return json().value("error"_L1).toObject().value("code"_L1).toString();
}

QString HttpResult::errorMessage() const
{
    return json().value("error"_L1).toObject().value("message"_L1).toString();
}

QByteArray HttpResult::header(const QByteArray &name) const
{
    for (const auto &[headerName, value] : headers) {
        if (headerName.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return {};
}

// ---- DaemonProcess -----------------------------------------------------------------------------

DaemonProcess::DaemonProcess(const QString &workspaceDir, QObject *parent)
    : QObject(parent)
    , m_workspaceDir(workspaceDir)
    , m_environment(QProcessEnvironment::systemEnvironment())
{
    // Loopback only: a proxy from the environment must not sit between the test and the daemon.
    m_network.setProxy(QNetworkProxy::NoProxy);
    for (const char *variable : {"http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"})
        m_environment.remove(QString::fromLatin1(variable));
    m_process.setProgram(executablePath());
    connect(&m_process, &QProcess::readyReadStandardOutput, this, [this] {
        m_stdout.append(m_process.readAllStandardOutput());
        if (m_port != 0)
            return;
        static const QRegularExpression listening(u"^EventDesk listening on http://[^\\s]+:(\\d+)\\s*$"_s,
                                                  QRegularExpression::MultilineOption);
        const QRegularExpressionMatch match = listening.match(QString::fromUtf8(m_stdout));
        if (match.hasMatch())
            m_port = quint16(match.captured(1).toUInt());
    });
    connect(&m_process, &QProcess::readyReadStandardError, this,
            [this] { m_stderr.append(m_process.readAllStandardError()); });
}

DaemonProcess::~DaemonProcess()
{
    if (isRunning())
        kill();
}

QString DaemonProcess::executablePath()
{
    return QStringLiteral(EVENTDESK_DAEMON_PATH);
}

void DaemonProcess::setEnvironmentVariable(const QString &name, const QString &value)
{
    m_environment.insert(name, value);
}

QStringList DaemonProcess::arguments() const
{
    QStringList arguments{u"--workspace"_s, m_workspaceDir, u"--listen"_s, u"127.0.0.1:0"_s,
                          u"--time-scale"_s, QString::number(m_timeScale)};
    if (!m_jitter)
        arguments.append(u"--no-jitter"_s);
    arguments.append(m_extraArguments);
    return arguments;
}

void DaemonProcess::launch()
{
    m_stdout.clear();
    m_stderr.clear();
    m_port = 0;
    m_process.setProcessEnvironment(m_environment);
    m_process.setArguments(arguments());
    m_process.start(QIODevice::ReadOnly);
}

bool DaemonProcess::start(int timeoutMs)
{
    if (isRunning())
        return false;
    launch();
    if (!m_process.waitForStarted(timeoutMs)) {
        m_stderr.append("DaemonProcess: cannot start " + executablePath().toUtf8() + ": "
                        + m_process.errorString().toUtf8());
        return false;
    }
    QEventLoop loop;
    QTimer timeout;
    timeout.setSingleShot(true);
    connect(&timeout, &QTimer::timeout, &loop, &QEventLoop::quit);
    connect(&m_process, &QProcess::readyReadStandardOutput, &loop, [this, &loop] {
        if (m_port != 0)
            loop.quit();
    });
    connect(&m_process, &QProcess::finished, &loop, &QEventLoop::quit);
    timeout.start(timeoutMs);
    if (m_port == 0 && isRunning())
        loop.exec();
    if (m_port == 0) {
        m_stderr.append(m_process.readAllStandardError());
        if (isRunning()) {
            m_stderr.append("\nDaemonProcess: no listening line within " + QByteArray::number(timeoutMs) + " ms");
            kill();
        }
        return false;
    }
    return true;
}

bool DaemonProcess::runExpectingExit(int timeoutMs)
{
    if (isRunning())
        return false;
    launch();
    if (!m_process.waitForStarted(timeoutMs))
        return false;
    if (!waitForExit(timeoutMs)) {
        kill();
        return false;
    }
    m_stdout.append(m_process.readAllStandardOutput());
    m_stderr.append(m_process.readAllStandardError());
    return m_port == 0;
}

bool DaemonProcess::isRunning() const
{
    return m_process.state() != QProcess::NotRunning;
}

QUrl DaemonProcess::baseUrl() const
{
    QUrl url;
    url.setScheme(u"http"_s);
    url.setHost(u"127.0.0.1"_s);
    url.setPort(m_port);
    return url;
}

QUrl DaemonProcess::topicUrl(const QString &topic) const
{
    QUrl url = baseUrl();
    url.setPath(u"/topics/"_s + topic + u"/api/events"_s);
    return url;
}

HttpResult DaemonProcess::publish(const QString &topic, const QByteArray &body,
                                  const QList<QPair<QByteArray, QByteArray>> &headers,
                                  const QString &query)
{
    QUrl url = topicUrl(topic);
    if (!query.isEmpty())
        url.setQuery(query);
    return post(url, body, headers);
}

HttpResult DaemonProcess::post(const QUrl &url, const QByteArray &body,
                               const QList<QPair<QByteArray, QByteArray>> &headers)
{
    QNetworkRequest request(url);
    request.setHeader(QNetworkRequest::ContentTypeHeader, u"application/json"_s);
    for (const auto &[name, value] : headers)
        request.setRawHeader(name, value);
    request.setTransferTimeout(120'000);
    return send(m_network.post(request, body));
}

HttpResult DaemonProcess::get(const QUrl &url)
{
    QNetworkRequest request(url);
    request.setTransferTimeout(120'000);
    return send(m_network.get(request));
}

HttpResult DaemonProcess::send(QNetworkReply *reply)
{
    if (!reply->isFinished()) {
        QEventLoop loop;
        connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
        loop.exec();
    }
    HttpResult result;
    result.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    result.body = reply->readAll();
    result.headers = reply->rawHeaderPairs();
    if (reply->error() != QNetworkReply::NoError && result.status == 0)
        result.networkError = reply->errorString();
    reply->deleteLater();
    return result;
}

bool DaemonProcess::waitForExit(int timeoutMs)
{
    if (!isRunning())
        return true;
    QEventLoop loop;
    QTimer timeout;
    timeout.setSingleShot(true);
    connect(&timeout, &QTimer::timeout, &loop, &QEventLoop::quit);
    connect(&m_process, &QProcess::finished, &loop, &QEventLoop::quit);
    timeout.start(timeoutMs);
    loop.exec();
    return !isRunning();
}

bool DaemonProcess::terminate(int timeoutMs)
{
    if (!isRunning())
        return false;
    m_process.terminate(); // SIGTERM on Unix
    if (!waitForExit(timeoutMs)) {
        m_stderr.append("\nDaemonProcess: no exit within " + QByteArray::number(timeoutMs)
                        + " ms of SIGTERM; killed");
        kill();
        return false;
    }
    m_stderr.append(m_process.readAllStandardError());
    return m_process.exitStatus() == QProcess::NormalExit && m_process.exitCode() == 0;
}

void DaemonProcess::kill()
{
    if (!isRunning())
        return;
    m_process.kill(); // SIGKILL on Unix
    waitForExit(30'000);
}

// ---- WorkspaceJson -----------------------------------------------------------------------------

namespace WorkspaceJson {

QJsonObject subscription(const SubscriptionOptions &options)
{
    QJsonObject destinationProperties{{u"endpointUrl"_s, options.endpointUrl.toString()}};
    if (options.maxEventsPerBatch > 0)
        destinationProperties.insert(u"maxEventsPerBatch"_s, options.maxEventsPerBatch);
    if (options.preferredBatchSizeInKilobytes > 0)
        destinationProperties.insert(u"preferredBatchSizeInKilobytes"_s, options.preferredBatchSizeInKilobytes);
    if (!options.deliveryAttributeMappings.isEmpty())
        destinationProperties.insert(u"deliveryAttributeMappings"_s, options.deliveryAttributeMappings);
    QJsonObject properties{
        {u"destination"_s, QJsonObject{{u"endpointType"_s, u"WebHook"_s}, {u"properties"_s, destinationProperties}}},
        {u"eventDeliverySchema"_s, u"EventGridSchema"_s},
        {u"retryPolicy"_s, QJsonObject{{u"maxDeliveryAttempts"_s, options.maxDeliveryAttempts},
                                       {u"eventTimeToLiveInMinutes"_s, options.eventTimeToLiveInMinutes}}},
        // Off unless a test asks for the handshake (ScriptedReceiver can answer it; an endpoint
        // that is down on purpose could not).
        {u"x-eventdesk"_s, QJsonObject{{u"validation"_s, options.validation}}},
    };
    if (!options.deadLetterContainer.isEmpty()) {
        properties.insert(u"deadLetterDestination"_s,
                          QJsonObject{{u"endpointType"_s, u"StorageBlob"_s},
                                      {u"properties"_s, QJsonObject{{u"resourceId"_s, u"local"_s},
                                                                    {u"blobContainerName"_s, options.deadLetterContainer}}}});
    }
    return QJsonObject{{u"name"_s, options.name}, {u"properties"_s, properties}};
}

QJsonObject topic(const QString &name, const QList<QJsonObject> &subscriptions)
{
    QJsonArray array;
    for (const QJsonObject &subscription : subscriptions)
        array.append(subscription);
    return QJsonObject{{u"name"_s, name}, {u"inputSchema"_s, u"EventGridSchema"_s}, {u"eventSubscriptions"_s, array}};
}

QJsonObject workspace(const QList<QJsonObject> &topics, int deadLetterDelaySeconds, int probationThreshold)
{
    QJsonArray array;
    for (const QJsonObject &topic : topics)
        array.append(topic);
    return QJsonObject{{u"topics"_s, array},
                       {u"receivers"_s, QJsonArray()},
                       {u"settings"_s, QJsonObject{{u"deadLetterDelaySeconds"_s, deadLetterDelaySeconds},
                                                   {u"probationThreshold"_s, probationThreshold}}}};
}

bool write(const QString &workspaceDir, const QJsonObject &workspace)
{
    return writeRaw(workspaceDir, QJsonDocument(workspace).toJson(QJsonDocument::Indented));
}

bool writeRaw(const QString &workspaceDir, const QByteArray &contents)
{
    if (!QDir().mkpath(workspaceDir))
        return false;
    QSaveFile file(QDir(workspaceDir).filePath(u"workspace.json"_s));
    return file.open(QIODevice::WriteOnly) && file.write(contents) == contents.size() && file.commit();
}

} // namespace WorkspaceJson

QJsonObject eventGridEvent(const QString &id, const QJsonValue &data, const QString &eventType)
{
    return QJsonObject{{u"id"_s, id},
                       {u"subject"_s, QString(u"/tests/"_s + id)},
                       {u"eventType"_s, eventType},
                       {u"eventTime"_s, u"2024-05-01T12:00:00.0000000Z"_s},
                       {u"dataVersion"_s, u"1.0"_s},
                       {u"data"_s, data}};
}

QByteArray eventBatch(const QStringList &ids)
{
    QJsonArray events;
    for (const QString &id : ids)
        events.append(eventGridEvent(id, QJsonObject{{u"n"_s, id}}));
    return QJsonDocument(events).toJson(QJsonDocument::Compact);
}

qint64 storeScalar(const QString &workspaceDir, const QString &sql)
{
    const QString path = QDir(workspaceDir).filePath(u"eventdesk.db"_s);
    if (!QFileInfo::exists(path))
        return -1;
    // Through the store's own SQLite library, read-only, as the desktop app's views read it.
    SqliteReadOnlyDatabase store;
    if (auto opened = store.open(path); !opened) {
        qWarning("storeScalar: %s", qPrintable(opened.error()));
        return -1;
    }
    qint64 value = -1;
    bool found = false;
    const auto read = store.select(sql.toUtf8(), [&](const SqliteStatement &row) {
        if (!std::exchange(found, true))
            value = row.columnInt64(0);
    });
    if (!read) {
        qWarning("storeScalar: %s: %s", qPrintable(sql), qPrintable(read.error()));
        return -1;
    }
    return value;
}

} // namespace EventDesk::Testing
