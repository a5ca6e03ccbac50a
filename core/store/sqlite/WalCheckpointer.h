// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QByteArray>

#include <condition_variable>
#include <mutex>
#include <thread>

// sqlite3.h stays out of the headers of core/store.
struct sqlite3;

namespace EventDesk {

// Copies the write-ahead log back into the database file on a thread of its own, over a
// connection of its own. SQLite's automatic checkpoint runs inside the commit that crosses the
// threshold, on the engine's thread: with 1 KB events arriving at tens of thousands per second it
// stalled the engine for ~60 ms every few hundred milliseconds (bench/RESULTS.md, benchmark 2).
// A PASSIVE checkpoint never blocks the writer; it copies what is committed and leaves the rest
// for the next round. The engine's connection asks for one after each commit that leaves the log
// at CheckpointPages or more (walCommitted()), and checkpoints itself only if this thread falls
// far behind.
class WalCheckpointer final
{
public:
    static constexpr int CheckpointPages = 4000; // 16 MB of 4 KB pages
    static constexpr int WriterCheckpointPages = 64000; // 256 MB: the writer steps in

    WalCheckpointer() = default;
    ~WalCheckpointer();
    WalCheckpointer(const WalCheckpointer &) = delete;
    WalCheckpointer &operator=(const WalCheckpointer &) = delete;

    // False when the second connection cannot be opened; the writer then checkpoints itself.
    bool start(const QByteArray &encodedPath);
    void stop();
    void request();

    // The WAL hook (sqlite3_wal_hook) of the writer's connection, with the checkpointer as its
    // argument.
    static int walCommitted(void *checkpointer, sqlite3 *database, const char *, int logPages);

private:
    void run();

    sqlite3 *m_database = nullptr;
    std::thread m_thread;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_wanted = false;
    bool m_stopping = false;
};

} // namespace EventDesk
