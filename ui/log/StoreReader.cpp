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
    Expected<DeliveryStoreReader *> connection(const QString &location)
    {
        if (location.isEmpty()) {
            m_reader.reset();
            return Error(u"There is no store to read: no workspace is open."_s);
        }
        // A failed open is tried again by the next job: the engine may have created the store
        // since. A reader that is open reopens its own connection when it was lost.
        if (!m_reader || location != m_location) {
            m_reader.reset();
            m_location = location;
            auto opened = openDeliveryStoreReader(location);
            if (!opened)
                return Error(opened.error());
            m_reader = std::move(opened.value());
        }
        return m_reader.get();
    }

private:
    // The engines own the store; this reader can never write to it.
    std::unique_ptr<DeliveryStoreReader> m_reader;
    QString m_location;
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

void StoreReader::setStoreLocation(const QString &location)
{
    m_storeLocation = location;
}

void StoreReader::run(QObject *context, Job job)
{
    StoreReaderWorker *worker = m_worker;
    const QString path = m_storeLocation;
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
