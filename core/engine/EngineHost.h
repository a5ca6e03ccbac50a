#pragma once

#include "../Expected.h"
#include "../model/Workspace.h"
#include "../store/DeliveryStore.h"
#include "Engine.h"
#include "EngineSnapshot.h"

#include <QObject>
#include <QString>
#include <QThread>

#include <functional>

namespace EventDesk {

class EngineWorker;

// Runs the engine, its store, its topic endpoint and its HTTP client on a thread of their own, so
// the GUI never waits on delivery work (ARCHITECTURE.md "Threads"). Calls go in queued; results
// come back through callbacks run on the caller's thread, and through signals carrying immutable
// snapshots a few times per second.
class EngineHost final : public QObject
{
    Q_OBJECT

public:
    struct Config
    {
        QString workspaceDirectory;
        QString listenHost = QStringLiteral("127.0.0.1");
        quint16 listenPort = 5170; // 0: any free port
        double timeScale = 1.0;
        bool jitter = true;
        int snapshotIntervalMs = 250;
    };

    explicit EngineHost(QObject *parent = nullptr);
    ~EngineHost() override;

    // Opens the workspace (creating it with the demo content when missing), the store and the
    // endpoint. Emits started() when done (ok or not).
    void start(const Config &config);
    // Blocks until the engine thread has shut down cleanly (all state committed).
    void stop();
    bool isRunning() const { return m_running; }

    const Config &config() const { return m_config; }
    QString storePath() const;
    QString listenUrl() const { return m_listenUrl; }
    const Workspace &workspace() const { return m_workspace; }

    void publish(const QString &topic, const QByteArray &body, const QByteArray &contentType,
                 std::function<void(const PublishResult &)> done);
    // Validates, saves workspace.json and applies the new configuration to the running engine.
    void applyWorkspace(const Workspace &workspace, std::function<void(const Expected<void> &)> done);
    void resubmitDeadLetters(const QList<qint64> &ids, std::function<void(const ResubmitResult &)> done);
    void resubmitDeadLetters(const DeadLetterQuery &query,
                             std::function<void(const ResubmitResult &)> done);
    void removeDeadLetters(const QList<qint64> &ids, std::function<void(const Expected<void> &)> done);

Q_SIGNALS:
    void started(bool ok, const QString &error, const QString &listenUrl);
    void snapshotReady(const EventDesk::EngineSnapshot &snapshot);
    void attemptsLogged(const QList<EventDesk::AttemptLogEntry> &entries);
    void workspaceChanged();
    void storeError(const QString &message);

private:
    QThread m_thread;
    EngineWorker *m_worker = nullptr;
    Config m_config;
    Workspace m_workspace;
    QString m_listenUrl;
    bool m_running = false;
};

} // namespace EventDesk

