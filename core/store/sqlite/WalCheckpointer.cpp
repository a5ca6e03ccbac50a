// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "WalCheckpointer.h"

#include "../../Logging.h"

#include <sqlite3.h>

namespace EventDesk {

WalCheckpointer::~WalCheckpointer()
{
    stop();
}

bool WalCheckpointer::start(const QByteArray &encodedPath)
{
    if (sqlite3_open_v2(encodedPath.constData(), &m_database,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr)
        != SQLITE_OK) {
        sqlite3_close(m_database);
        m_database = nullptr;
        return false;
    }
    sqlite3_busy_timeout(m_database, 1000);
    // A connection learns that the file is in WAL mode by reading it; until then a checkpoint on
    // it does nothing.
    if (sqlite3_exec(m_database, "PRAGMA journal_mode", nullptr, nullptr, nullptr) != SQLITE_OK) {
        sqlite3_close(m_database);
        m_database = nullptr;
        return false;
    }
    m_thread = std::thread([this] { run(); });
    return true;
}

void WalCheckpointer::stop()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_one();
    if (m_thread.joinable())
        m_thread.join();
    sqlite3_close(m_database);
    m_database = nullptr;
}

void WalCheckpointer::request()
{
    {
        std::lock_guard lock(m_mutex);
        m_wanted = true;
    }
    m_wake.notify_one();
}

void WalCheckpointer::run()
{
    std::unique_lock lock(m_mutex);
    for (;;) {
        m_wake.wait(lock, [this] { return m_wanted || m_stopping; });
        if (m_stopping)
            return;
        m_wanted = false;
        lock.unlock();
        int logFrames = 0;
        int copiedFrames = 0;
        const int result = sqlite3_wal_checkpoint_v2(m_database, nullptr, SQLITE_CHECKPOINT_PASSIVE,
                                                     &logFrames, &copiedFrames);
        // BUSY: another checkpoint is running; the next commit asks again.
        if (result != SQLITE_OK && result != SQLITE_BUSY) {
            qCWarning(lcStore) << "Background checkpoint of the delivery store failed:"
                               << sqlite3_errmsg(m_database);
        }
        lock.lock();
    }
}

int WalCheckpointer::walCommitted(void *checkpointer, sqlite3 *database, const char *, int logPages)
{
    if (logPages >= WriterCheckpointPages) {
        // The background checkpoint cannot keep up: the writer copies, so the log stays bounded.
        sqlite3_wal_checkpoint_v2(database, nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
    } else if (logPages >= CheckpointPages) {
        static_cast<WalCheckpointer *>(checkpointer)->request();
    }
    return SQLITE_OK;
}

} // namespace EventDesk
