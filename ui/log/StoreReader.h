// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "host/StoreOpener.h"
#include "store/DeliveryStore.h"

#include <QObject>
#include <QString>
#include <QThread>

#include <atomic>
#include <functional>

namespace EventDesk::Ui {

class StoreReaderWorker;

// A read-only connection to the workspace's store (DeliveryStoreReader: the SQLite file, or a
// PostgreSQL store that several engines share), on a thread of its own (ARCHITECTURE.md "Threads":
// the GUI may read the store itself; WAL lets it read while the engine writes). Jobs run one after
// another on the reader thread; each returns a continuation that is run on the thread of the
// context object, and dropped when the context is gone.
class StoreReader final : public QObject
{
    Q_OBJECT

public:
    using Continuation = std::function<void()>;
    // The reader, open on the store, or why it could not be opened (the message names the store).
    // It stays open from job to job until the store location changes.
    using Job = std::function<Continuation(const Expected<DeliveryStoreReader *> &store)>;

    explicit StoreReader(QObject *parent = nullptr);
    ~StoreReader() override;

    // Following jobs read this store: a workspace's SQLite file, or a PostgreSQL URL (an empty
    // location: jobs get an error).
    void setStoreLocation(const QString &location);
    QString storeLocation() const { return m_storeLocation; }

    void run(QObject *context, Job job);

    // Set while the reader is being destroyed; long jobs that loop check it between steps.
    bool isStopping() const { return m_stopping.load(); }

private:
    QThread m_thread;
    StoreReaderWorker *m_worker = nullptr;
    QString m_storeLocation;
    std::atomic<bool> m_stopping {false};
};

// A key that tells one attempt from another without its store id (live entries have none).
QString attemptIdentity(const AttemptLogEntry &entry);

} // namespace EventDesk::Ui
