// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "StoreReader.h"

#include <QPointer>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

// Lives on the reader thread; owns the connection, which is used only on that thread.
class StoreReaderWorker final : public QObject
{
public:
    Expected<SqliteReadConnection *> connection(const QString &path)
    {
        // A failed open is tried again by the next job: the engine may have created the file since.
        if (!m_connection.isOpen() || path != m_connection.filePath()) {
            if (auto opened = m_connection.open(path); !opened)
                return Error(opened.error());
        }
        return &m_connection;
    }

private:
    // The engine owns the file; this connection can never write to it.
    SqliteReadConnection m_connection;
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
            Continuation continuation = job(worker->connection(path));
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

QString attemptIdentity(const AttemptLogEntry &entry)
{
    return QString::number(entry.timeMs) + u'|' + entry.topic + u'|' + entry.subscription + u'|'
        + QString::number(entry.attempt) + u'|' + entry.eventIds.join(u',');
}

} // namespace EventDesk::Ui
