// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "DeadLetterModel.h"
#include "engine/EngineTypes.h"

#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <memory>

class QProgressDialog;
class QWidget;

namespace EventDesk {
class EngineHost;
}

namespace EventDesk::Ui {

class StoreReader;

// What the dead-letter browser does with dead letters besides showing them: resubmit (to the
// subscription, or through the topic after a dry run), delete and export many at once, copy records
// to the clipboard, open a blob's folder. Resubmits and deletes go through the EngineHost (the
// browser never writes the store); exports and copies read the records through the browser's
// StoreReader. Bulk operations run in chunks of Chunk ids behind a progress dialog whose Cancel
// acts between chunks. Asking for confirmation is the caller's part.
class DeadLetterOperations final : public QObject
{
    Q_OBJECT

public:
    // DryRunThroughTopic changes nothing: it counts where ResubmitThroughTopic would send the
    // same dead letters (dryRunFinished()).
    enum class Kind { Resubmit, Delete, Export, DryRunThroughTopic, ResubmitThroughTopic };
    enum class Scope { Selected, AllMatching };

    // The progress moves and Cancel acts between chunks of this many dead letters.
    static constexpr int Chunk = 500;

    struct Request
    {
        Kind kind = Kind::Resubmit;
        Scope scope = Scope::Selected;
        QList<qint64> ids; // Scope::Selected, newest first
        DeadLetterQuery filter; // Scope::AllMatching
        qint64 total = 0; // how many, for the progress
        QString directory; // Kind::Export
    };

    // dialogParent: the window of the progress dialog and of the message boxes.
    DeadLetterOperations(EngineHost *host, StoreReader *reader, QWidget *dialogParent);
    ~DeadLetterOperations() override;

    bool isBusy() const { return m_operation != nullptr; }
    // The progress dialog of the operation under way (none when idle).
    QProgressDialog *progressDialog() const;
    // Does nothing while another operation runs.
    void start(Request request);

    // "billing 412, shipping 0, audit 412": the new deliveries per subscription (topic/subscription
    // when the dead letters come from more than one topic).
    static QString routeSummary(const TopicResubmitResult &result);

    // Puts the records of these dead letters on the clipboard as pretty-printed JSON.
    void copyRecords(const QList<qint64> &ids);
    // Opens the folder of a blob in the local dead-letter container, or shows a blob of an Azure
    // Storage container (read back through the engine) in a viewer.
    void openBlob(const QString &topic, const QString &subscription, const QString &blobPath);

Q_SIGNALS:
    void started();
    // A chunk is done: examined of total dead letters (total as the request estimated it).
    void progressed(qint64 examined, qint64 total);
    // A chunk of a Selected resubmit or delete left the index.
    void removedFromIndex(const QList<qint64> &ids);
    // The operation ended, completed or canceled, after processing `processed`; message says so
    // for the status line (problems are also shown in a message box).
    void finished(DeadLetterOperations::Kind kind, DeadLetterOperations::Scope scope, int processed,
                  const QStringList &errors, const QString &message);
    // A dry run ended (before finished()): what resubmitting request's dead letters through
    // their topics would do, over those it got to before a Cancel (canceled).
    void dryRunFinished(const DeadLetterOperations::Request &request,
                        const EventDesk::TopicResubmitResult &result, bool canceled);
    // What copyRecords() or openBlob() did, or why not; empty: nothing to report any more.
    void statusMessage(const QString &text);

private:
    struct Operation;

    void nextChunk();
    void processChunk(const QList<qint64> &ids);
    void exportChunk(const QList<qint64> &ids);
    void chunkDone(int processed, const QStringList &errors);
    void topicChunkDone(const TopicResubmitResult &result);
    void finish();

    QPointer<EngineHost> m_host;
    StoreReader *m_reader = nullptr;
    QWidget *m_dialogParent = nullptr;
    std::unique_ptr<Operation> m_operation;
};

} // namespace EventDesk::Ui
