// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "DeadLetterModel.h"

#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <memory>

class QWidget;

namespace EventDesk {
class EngineHost;
}

namespace EventDesk::Ui {

class StoreReader;

// What the dead-letter browser does with dead letters besides showing them: resubmit, delete and
// export many at once, copy records to the clipboard, open a blob's folder. Resubmits and deletes
// go through the EngineHost (the browser never writes the store); exports and copies read the
// records through the browser's StoreReader. Bulk operations run in chunks of Chunk ids behind a
// progress dialog whose Cancel acts between chunks. Asking for confirmation is the caller's part.
class DeadLetterOperations final : public QObject
{
    Q_OBJECT

public:
    enum class Kind { Resubmit, Delete, Export };
    enum class Scope { Selected, AllMatching };

    // The progress moves and Cancel acts between chunks of this many dead letters.
    static constexpr int Chunk = 500;

    struct Request
    {
        Kind kind = Kind::Resubmit;
        Scope scope = Scope::Selected;
        QList<qint64> ids; // Scope::Selected, newest first
        DeadLetterFilter filter; // Scope::AllMatching
        qint64 total = 0; // how many, for the progress
        QString directory; // Kind::Export
    };

    // dialogParent: the window of the progress dialog and of the message boxes.
    DeadLetterOperations(EngineHost *host, StoreReader *reader, QWidget *dialogParent);
    ~DeadLetterOperations() override;

    bool isBusy() const { return m_operation != nullptr; }
    // Does nothing while another operation runs.
    void start(Request request);

    // Puts the records of these dead letters on the clipboard as pretty-printed JSON.
    void copyRecords(const QList<qint64> &ids);
    // Opens the folder of a blob in the local dead-letter container, or shows a blob of an Azure
    // Storage container (read back through the engine) in a viewer.
    void openBlob(const QString &topic, const QString &subscription, const QString &blobPath);

Q_SIGNALS:
    void started();
    // A chunk of a Selected resubmit or delete left the index.
    void removedFromIndex(const QList<qint64> &ids);
    // The operation ended, completed or canceled, after processing `processed`; message says so
    // for the status line (problems are also shown in a message box).
    void finished(DeadLetterOperations::Kind kind, DeadLetterOperations::Scope scope, int processed,
                  const QStringList &errors, const QString &message);
    // What copyRecords() or openBlob() did, or why not; empty: nothing to report any more.
    void statusMessage(const QString &text);

private:
    struct Operation;

    void nextChunk();
    void processChunk(const QList<qint64> &ids);
    void exportChunk(const QList<qint64> &ids);
    void chunkDone(int processed, const QStringList &errors);
    void finish();

    QPointer<EngineHost> m_host;
    StoreReader *m_reader = nullptr;
    QWidget *m_dialogParent = nullptr;
    std::unique_ptr<Operation> m_operation;
};

} // namespace EventDesk::Ui
