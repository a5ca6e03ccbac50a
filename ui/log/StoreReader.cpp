#include "StoreReader.h"

#include <QAtomicInteger>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QPointer>
#include <QSqlError>
#include <QSqlQuery>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {
QAtomicInteger<quint64> s_connectionCounter;
}

// Lives on the reader thread; owns the connection, which must be used only on that thread.
class StoreReaderWorker final : public QObject
{
public:
    ~StoreReaderWorker() override { closeConnection(); }

    QSqlDatabase &connection(const QString &path)
    {
        if (path != m_path || !m_database.isValid()) {
            closeConnection();
            m_path = path;
            m_connectionName = u"eventdesk-ui-reader-%1"_s.arg(s_connectionCounter.fetchAndAddRelaxed(1));
            m_database = QSqlDatabase::addDatabase(u"QSQLITE"_s, m_connectionName);
            m_database.setDatabaseName(path);
            // The engine owns the file; this connection can never write to it.
            m_database.setConnectOptions(u"QSQLITE_OPEN_READONLY;QSQLITE_BUSY_TIMEOUT=5000"_s);
        }
        if (!m_database.isOpen() && !m_path.isEmpty() && QFileInfo::exists(m_path))
            m_database.open();
        return m_database;
    }

    void closeConnection()
    {
        if (m_connectionName.isEmpty())
            return;
        m_database.close();
        m_database = QSqlDatabase();
        QSqlDatabase::removeDatabase(m_connectionName);
        m_connectionName.clear();
    }

private:
    QString m_path;
    QString m_connectionName;
    QSqlDatabase m_database;
};

StoreReader::StoreReader(QObject *parent)
    : QObject(parent)
    , m_worker(new StoreReaderWorker)
{
    m_thread.setObjectName(u"eventdesk-ui-store-reader"_s);
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    m_thread.start(QThread::LowPriority);
}

StoreReader::~StoreReader()
{
    m_stopping = true;
    // The worker is deleted on its own thread (its connection belongs to that thread): finished
    // triggers deleteLater, which the thread's last event processing carries out.
    m_thread.quit();
    m_thread.wait();
}

void StoreReader::setStorePath(const QString &sqliteFile)
{
    m_storePath = sqliteFile;
}

void StoreReader::run(QObject *context, Job job)
{
    StoreReaderWorker *worker = m_worker;
    const QString path = m_storePath;
    QPointer<QObject> receiver(context);
    const std::atomic<bool> *stopping = &m_stopping;
    QMetaObject::invokeMethod(
        worker,
        [worker, path, receiver, stopping, job = std::move(job)] {
            if (stopping->load() || !receiver)
                return;
            QSqlDatabase &database = worker->connection(path);
            Continuation continuation = job(database);
            if (!continuation)
                return;
            QObject *target = receiver.data();
            if (!target)
                return;
            QMetaObject::invokeMethod(
                target,
                [receiver, continuation = std::move(continuation)] {
                    if (receiver)
                        continuation();
                },
                Qt::QueuedConnection);
        },
        Qt::QueuedConnection);
}

QString storeReadError(const QString &sqliteFile, const QString &reason)
{
    return QCoreApplication::translate("EventDesk::Ui::StoreReader",
                                       "Could not read the store %1: %2")
        .arg(QDir::toNativeSeparators(sqliteFile), reason);
}

QString attemptLogColumns()
{
    return u"id, time_ms, topic, subscription, event_ids, attempt, http_status, outcome,"
           " duration_ms, next_due_ms"_s;
}

AttemptLogEntry attemptLogEntryFromRow(const QSqlQuery &row)
{
    AttemptLogEntry entry;
    entry.id = row.value(0).toLongLong();
    entry.timeMs = row.value(1).toLongLong();
    entry.topic = row.value(2).toString();
    entry.subscription = row.value(3).toString();
    const QString eventIds = row.value(4).toString();
    if (!eventIds.isEmpty())
        entry.eventIds = eventIds.split(u',');
    entry.attempt = row.value(5).toInt();
    entry.httpStatus = row.value(6).toInt();
    entry.outcome = static_cast<DeliveryOutcome>(row.value(7).toInt());
    entry.durationMs = row.value(8).toLongLong();
    entry.nextDueMs = row.value(9).toLongLong();
    return entry;
}

QString attemptIdentity(const AttemptLogEntry &entry)
{
    return QString::number(entry.timeMs) + u'|' + entry.topic + u'|' + entry.subscription + u'|'
        + QString::number(entry.attempt) + u'|' + entry.eventIds.join(u',');
}

} // namespace EventDesk::Ui
