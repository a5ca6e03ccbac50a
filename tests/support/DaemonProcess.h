// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "LoopbackPort.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QNetworkAccessManager>
#include <QObject>
#include <QPair>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <functional>

namespace EventDesk::Testing {

// The answer to one HTTP request sent by DaemonProcess.
struct HttpResult
{
    int status = 0; // 0: no HTTP answer at all (see networkError)
    QByteArray body;
    QString networkError;
    QList<QPair<QByteArray, QByteArray>> headers; // as answered

    QByteArray header(const QByteArray &name) const; // the first of that name, any case

    QJsonObject json() const; // body as a JSON object (empty if it is not one)
    QString errorCode() const; // error.code of Event Grid's error shape
    QString errorMessage() const; // error.message of Event Grid's error shape
};

// Runs eventdeskd (EVENTDESK_DAEMON_PATH) on a workspace folder for integration tests.
class DaemonProcess final : public QObject
{
    Q_OBJECT

public:
    explicit DaemonProcess(const QString &workspaceDir, QObject *parent = nullptr);
    ~DaemonProcess() override; // kills a daemon that is still running

    static QString executablePath();

    void setTimeScale(double scale) { m_timeScale = scale; }
    void setJitter(bool enabled) { m_jitter = enabled; }
    void setEnvironmentVariable(const QString &name, const QString &value);
    void setExtraArguments(const QStringList &arguments) { m_extraArguments = arguments; }
    // Runs in the daemon's process between fork and exec (Unix): e.g. a restriction the
    // process then lives under, as a service manager would set it.
    void setChildProcessModifier(const std::function<void()> &modifier)
    {
        m_process.setChildProcessModifier(modifier);
    }

    // Starts the daemon and waits for its "EventDesk listening on http://..." line. Returns
    // false if it exited or did not get ready in time; standardError() then says why.
    bool start(int timeoutMs = 60'000);
    // Starts the daemon and waits for it to exit (for workspaces it must refuse). Returns false
    // if it printed the listening line or did not exit in time.
    bool runExpectingExit(int timeoutMs = 60'000);

    bool isRunning() const;
    qint64 processId() const { return m_process.processId(); } // 0 when not running
    quint16 port() const { return m_port; }
    QUrl baseUrl() const;
    QUrl topicUrl(const QString &topic) const; // POST /topics/<topic>/api/events

    // POST to the topic endpoint; waits for the answer (a local event loop keeps other objects
    // of the test, such as a ScriptedReceiver, working meanwhile).
    HttpResult publish(const QString &topic, const QByteArray &body,
                       const QList<QPair<QByteArray, QByteArray>> &headers = {},
                       const QString &query = {});
    HttpResult post(const QUrl &url, const QByteArray &body,
                    const QList<QPair<QByteArray, QByteArray>> &headers = {});
    HttpResult get(const QUrl &url);

    // SIGTERM, then wait for a clean exit. True if it exited normally with code 0 in time.
    bool terminate(int timeoutMs = 60'000);
    // SIGKILL (QProcess::kill) and wait until it is gone.
    void kill();

    int exitCode() const { return m_process.exitCode(); }
    QProcess::ExitStatus exitStatus() const { return m_process.exitStatus(); }
    QString standardError() const { return QString::fromUtf8(m_stderr); }
    QString standardOutput() const { return QString::fromUtf8(m_stdout); }
    QStringList arguments() const;

private:
    bool waitForExit(int timeoutMs);
    HttpResult send(QNetworkReply *reply);
    void launch();

    QString m_workspaceDir;
    double m_timeScale = 1.0;
    bool m_jitter = false;
    QStringList m_extraArguments;
    QProcessEnvironment m_environment;
    QProcess m_process;
    QByteArray m_stdout;
    QByteArray m_stderr;
    quint16 m_port = 0;
    QNetworkAccessManager m_network;
};

// Writing workspace.json for a test.
namespace WorkspaceJson {

struct SubscriptionOptions
{
    QString name = QStringLiteral("sub-one");
    QUrl endpointUrl;
    int maxEventsPerBatch = 0; // 0: batching off
    int preferredBatchSizeInKilobytes = 0;
    int maxDeliveryAttempts = 30;
    int eventTimeToLiveInMinutes = 1440;
    QString deadLetterContainer = QStringLiteral("deadletters"); // empty: no dead-letter destination
    QJsonArray deliveryAttributeMappings;
    bool validation = false; // properties.x-eventdesk.validation (the endpoint handshake)
};

QJsonObject subscription(const SubscriptionOptions &options);
QJsonObject topic(const QString &name, const QList<QJsonObject> &subscriptions);
QJsonObject workspace(const QList<QJsonObject> &topics, int deadLetterDelaySeconds = 0,
                      int probationThreshold = 10);
// Writes DIR/workspace.json; returns false on an I/O error.
bool write(const QString &workspaceDir, const QJsonObject &workspace);
bool writeRaw(const QString &workspaceDir, const QByteArray &contents);

} // namespace WorkspaceJson

// An Event Grid schema event with the required fields (SPEC S1).
QJsonObject eventGridEvent(const QString &id, const QJsonValue &data = QJsonObject(),
                           const QString &eventType = QStringLiteral("EventDesk.Test"));
QByteArray eventBatch(const QStringList &ids);

// Reads one integer from the workspace's store (DIR/eventdesk.db) through a read-only SQLite
// connection, e.g. "SELECT COUNT(*) FROM attempt_log WHERE outcome = 8". Returns -1 on an error
// (no store yet, or a query error), which is printed with qWarning.
qint64 storeScalar(const QString &workspaceDir, const QString &sql);


} // namespace EventDesk::Testing
