#pragma once

#include "store/DeliveryStore.h"

#include <QObject>
#include <QSqlDatabase>
#include <QString>
#include <QThread>

#include <atomic>
#include <functional>

class QSqlQuery;

namespace EventDesk::Ui {

class StoreReaderWorker;

// A read-only connection to the workspace's SQLite store, on a thread of its own
// (ARCHITECTURE.md "Threads": the GUI may read the store itself; WAL lets it read while the
// engine writes). Jobs run one after another on the reader thread; each returns a continuation
// that is run on the thread of the context object, and dropped when the context is gone.
class StoreReader final : public QObject
{
    Q_OBJECT

public:
    using Continuation = std::function<void()>;
    // database is open read-only, or not open (then database.lastError() says why).
    using Job = std::function<Continuation(QSqlDatabase &database)>;

    explicit StoreReader(QObject *parent = nullptr);
    ~StoreReader() override;

    // Following jobs read this file (an empty path: jobs get a closed connection).
    void setStorePath(const QString &sqliteFile);
    QString storePath() const { return m_storePath; }

    void run(QObject *context, Job job);

    // Set while the reader is being destroyed; long jobs that loop check it between steps.
    bool isStopping() const { return m_stopping.load(); }

private:
    QThread m_thread;
    StoreReaderWorker *m_worker = nullptr;
    QString m_storePath;
    std::atomic<bool> m_stopping{false};
};

// "Could not read the store <file>: <reason>" for a connection that failed to open or a query
// that failed.
QString storeReadError(const QString &sqliteFile, const QString &reason);

// The columns of attempt_log in the order attemptLogEntryFromRow() reads them.
QString attemptLogColumns();
AttemptLogEntry attemptLogEntryFromRow(const QSqlQuery &row);
// A key that tells one attempt from another without its store id (live entries have none).
QString attemptIdentity(const AttemptLogEntry &entry);

} // namespace EventDesk::Ui
