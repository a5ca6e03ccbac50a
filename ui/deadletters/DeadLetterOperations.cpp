// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "DeadLetterOperations.h"

#include "common/Format.h"
#include "deadletters/DeadLetterRouter.h"
#include "host/EngineHost.h"
#include "log/StoreReader.h"

#include <QApplication>
#include <QClipboard>
#include <QDesktopServices>
#include <QDir>
#include <QFileInfo>
#include <QFontDatabase>
#include <QLocale>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressDialog>
#include <QSaveFile>
#include <QUrl>

#include <limits>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {

constexpr int MaxErrorsListed = 10;

// "<id>-<event id>.json", the event id reduced to characters every file system accepts.
QString exportFileName(qint64 id, const QString &eventId)
{
    QString safe;
    safe.reserve(std::min<qsizetype>(eventId.size(), 80));
    for (const QChar character : eventId) {
        if (safe.size() >= 80)
            break;
        const bool plain = (character >= u'a' && character <= u'z')
            || (character >= u'A' && character <= u'Z') || (character >= u'0' && character <= u'9')
            || character == u'-' || character == u'_' || character == u'.';
        safe += plain ? character : u'_';
    }
    return safe.isEmpty() ? u"%1.json"_s.arg(id) : u"%1-%2.json"_s.arg(id).arg(safe);
}

} // namespace

QString DeadLetterOperations::routeSummary(const TopicResubmitResult &result)
{
    const QLocale locale;
    QStringList parts;
    bool severalTopics = false;
    for (const ResubmitRouteCount &route : result.routes)
        severalTopics = severalTopics
            || route.topic.compare(result.routes.constFirst().topic, Qt::CaseInsensitive) != 0;
    for (const ResubmitRouteCount &route : result.routes) {
        const QString name
            = severalTopics ? route.topic + u'/' + route.subscription : route.subscription;
        parts << tr("%1 %2").arg(name, locale.toString(route.deliveries));
    }
    if (parts.isEmpty())
        return tr("no subscription");
    return parts.join(tr(", "));
}

struct DeadLetterOperations::Operation
{
    Request request;
    qsizetype nextIndex = 0; // Scope::Selected
    qint64 beforeId = 0; // Scope::AllMatching
    bool exhausted = false;
    int processed = 0;
    qint64 examined = 0; // dead letters of the chunks done: the progress
    QStringList errors;
    TopicResubmitResult topicResult; // the through-topic kinds
    QList<qint64> chunk; // in progress
    bool canceled = false;
    QPointer<QProgressDialog> progress;
};

DeadLetterOperations::DeadLetterOperations(EngineHost *host, StoreReader *reader,
                                           QWidget *dialogParent)
    : QObject(dialogParent)
    , m_host(host)
    , m_reader(reader)
    , m_dialogParent(dialogParent)
{
}

DeadLetterOperations::~DeadLetterOperations()
{
    if (m_operation && m_operation->progress)
        delete m_operation->progress.data();
}

QProgressDialog *DeadLetterOperations::progressDialog() const
{
    return m_operation ? m_operation->progress.data() : nullptr;
}

void DeadLetterOperations::start(Request request)
{
    if (m_operation)
        return;
    m_operation = std::make_unique<Operation>();
    m_operation->request = std::move(request);
    Operation &op = *m_operation;
    QString label;
    switch (op.request.kind) {
    case Kind::Resubmit:
        label = tr("Resubmitting dead letters…");
        break;
    case Kind::Delete:
        label = tr("Deleting dead letters…");
        break;
    case Kind::DryRunThroughTopic:
        label = tr("Dry run: which subscriptions would receive %1 dead letters…")
                    .arg(QLocale().toString(op.request.total));
        break;
    case Kind::ResubmitThroughTopic:
        label = tr("Resubmitting %1 dead letters through their topics…")
                    .arg(QLocale().toString(op.request.total));
        break;
    case Kind::Export:
        label = tr("Exporting dead letters to %1…")
                    .arg(QDir::toNativeSeparators(op.request.directory));
        if (!QDir().mkpath(op.request.directory)) {
            op.errors << tr("Could not create the folder %1.")
                             .arg(QDir::toNativeSeparators(op.request.directory));
            finish();
            return;
        }
        break;
    }
    auto *progress = new QProgressDialog(
        label, tr("Cancel"), 0, int(std::max<qint64>(op.request.total, 1)), m_dialogParent);
    progress->setWindowModality(Qt::WindowModal);
    progress->setMinimumDuration(300);
    progress->setAutoClose(false);
    progress->setAutoReset(false);
    progress->setValue(0);
    connect(progress, &QProgressDialog::canceled, this, [this] {
        if (!m_operation)
            return;
        m_operation->canceled = true;
        if (m_operation->progress)
            m_operation->progress->setLabelText(tr("Canceling after the current chunk…"));
    });
    op.progress = progress;
    Q_EMIT started();
    nextChunk();
}

void DeadLetterOperations::nextChunk()
{
    Operation &op = *m_operation;
    if (op.canceled || op.exhausted) {
        finish();
        return;
    }
    if (op.request.scope == Scope::Selected) {
        const QList<qint64> chunk = op.request.ids.mid(op.nextIndex, Chunk);
        op.nextIndex += chunk.size();
        op.exhausted = op.nextIndex >= op.request.ids.size();
        if (chunk.isEmpty())
            finish();
        else
            processChunk(chunk);
        return;
    }
    // All matching: the next ids by keyset. Resubmitted and deleted rows leave the index, and rows
    // that failed stay behind the keyset, so each one is taken once.
    DeadLetterQuery query = op.request.filter;
    query.beforeId = op.beforeId;
    query.limit = Chunk;
    m_reader->run(
        this,
        [this, query](const Expected<DeliveryStoreReader *> &store) -> StoreReader::Continuation {
            QList<qint64> ids;
            QString error;
            if (!store)
                error = store.error();
            else if (auto read = store.value()->deadLetterIds(query); !read)
                error = read.error();
            else
                ids = std::move(read.value());
            return [this, ids, error] {
                if (!m_operation)
                    return;
                Operation &op = *m_operation;
                if (!error.isEmpty())
                    op.errors << error;
                if (ids.isEmpty() || !error.isEmpty()) {
                    finish();
                    return;
                }
                op.beforeId = ids.constLast();
                op.exhausted = ids.size() < Chunk;
                processChunk(ids);
            };
        });
}

void DeadLetterOperations::processChunk(const QList<qint64> &ids)
{
    Operation &op = *m_operation;
    op.chunk = ids;
    QPointer<DeadLetterOperations> self(this);
    switch (op.request.kind) {
    case Kind::Resubmit:
        if (!m_host) {
            chunkDone(0, {tr("The engine is not running.")});
            return;
        }
        m_host->resubmitDeadLetters(ids, [self](const ResubmitResult &result) {
            if (self)
                self->chunkDone(result.resubmitted, result.errors);
        });
        return;
    case Kind::Delete:
        if (!m_host) {
            chunkDone(0, {tr("The engine is not running.")});
            return;
        }
        m_host->removeDeadLetters(ids,
                                  [self, count = int(ids.size())](const Expected<void> &result) {
                                      if (!self)
                                          return;
                                      if (result)
                                          self->chunkDone(count, {});
                                      else
                                          self->chunkDone(0, {result.error()});
                                  });
        return;
    case Kind::Export:
        exportChunk(ids);
        return;
    case Kind::DryRunThroughTopic:
    case Kind::ResubmitThroughTopic:
        if (!m_host) {
            chunkDone(0, {tr("The engine is not running.")});
            return;
        }
        m_host->resubmitThroughTopic(ids,
                                     op.request.kind == Kind::DryRunThroughTopic
                                         ? ResubmitRun::DryRun
                                         : ResubmitRun::Resubmit,
                                     [self](const TopicResubmitResult &result) {
                                         if (self)
                                             self->topicChunkDone(result);
                                     });
        return;
    }
}

void DeadLetterOperations::topicChunkDone(const TopicResubmitResult &result)
{
    if (!m_operation)
        return;
    m_operation->topicResult.add(result);
    // The errors are in topicResult; chunkDone() adds them to the operation's list too.
    chunkDone(int(result.resubmitted), result.errors);
}

void DeadLetterOperations::exportChunk(const QList<qint64> &ids)
{
    const QString directory = m_operation->request.directory;
    m_reader->run(
        this,
        [this, ids,
         directory](const Expected<DeliveryStoreReader *> &store) -> StoreReader::Continuation {
            int written = 0;
            QStringList errors;
            if (!store) {
                errors << store.error();
            } else if (auto rows = store.value()->deadLettersById(ids); !rows) {
                errors << rows.error();
            } else {
                const QDir target(directory);
                for (const DeadLetterEntry &row : std::as_const(rows.value())) {
                    const QString path = target.filePath(exportFileName(row.id, row.eventId));
                    QSaveFile file(path);
                    const QByteArray bytes = prettyJson(row.record).toUtf8() + '\n';
                    if (file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size()
                        && file.commit()) {
                        ++written;
                    } else {
                        errors << tr("Could not write %1: %2")
                                      .arg(QDir::toNativeSeparators(path), file.errorString());
                    }
                }
            }
            return [this, written, errors] {
                if (m_operation)
                    chunkDone(written, errors);
            };
        });
}

void DeadLetterOperations::chunkDone(int processed, const QStringList &errors)
{
    if (!m_operation)
        return;
    Operation &op = *m_operation;
    op.processed += processed;
    op.examined += op.chunk.size();
    op.errors += errors;
    // Rows that are gone leave the list at once (the list reloads at the end where that is
    // simpler than tracking each row: a resubmit through the topic leaves the dead letters that
    // no subscription matches in the index).
    if ((op.request.kind == Kind::Resubmit || op.request.kind == Kind::Delete)
        && op.request.scope == Scope::Selected && errors.isEmpty())
        Q_EMIT removedFromIndex(op.chunk);
    if (op.progress) {
        const int value = int(std::min<qint64>(op.examined, std::numeric_limits<int>::max()));
        if (value > op.progress->maximum())
            op.progress->setMaximum(value);
        op.progress->setValue(value);
    }
    // setValue() of a modal progress dialog processes events; Cancel may have finished it.
    if (m_operation)
        Q_EMIT progressed(m_operation->examined, m_operation->request.total);
    if (m_operation)
        nextChunk();
}

void DeadLetterOperations::finish()
{
    if (!m_operation)
        return;
    const std::unique_ptr<Operation> op = std::move(m_operation);
    if (op->progress) {
        op->progress->reset();
        op->progress->deleteLater();
    }
    const QLocale locale;
    QString message;
    switch (op->request.kind) {
    case Kind::Resubmit:
        message = tr("Resubmitted %1 dead letters to their subscriptions.")
                      .arg(locale.toString(op->processed));
        break;
    case Kind::Delete:
        message = tr("Deleted %1 dead letters.").arg(locale.toString(op->processed));
        break;
    case Kind::Export:
        message = tr("Exported %1 dead letters to %2.")
                      .arg(locale.toString(op->processed),
                           QDir::toNativeSeparators(op->request.directory));
        break;
    case Kind::DryRunThroughTopic:
        message
            = tr("Dry run: %1 of %2 dead letters would go through their topics.")
                  .arg(locale.toString(op->topicResult.resubmitted), locale.toString(op->examined));
        break;
    case Kind::ResubmitThroughTopic:
        message
            = tr("Resubmitted %1 dead letters through their topics: %2.")
                  .arg(locale.toString(op->topicResult.resubmitted), routeSummary(op->topicResult));
        if (op->topicResult.unmatched > 0) {
            message += u' '
                + tr("%1 match no subscription now and stay in the list.")
                      .arg(locale.toString(op->topicResult.unmatched));
        }
        break;
    }
    if (op->canceled)
        message += u' ' + tr("Canceled before the end.");
    if (op->request.kind == Kind::DryRunThroughTopic) {
        // Its problems are part of the dry run's answer, shown with the counts.
        Q_EMIT dryRunFinished(op->request, op->topicResult, op->canceled);
    } else if (!op->errors.isEmpty()) {
        message += u' '
            + tr("%n problem(s); the first: %1", nullptr, int(op->errors.size()))
                  .arg(op->errors.constFirst());
        auto *box = new QMessageBox(QMessageBox::Warning, tr("Dead Letters"), message,
                                    QMessageBox::Ok, m_dialogParent);
        QStringList listed = op->errors.mid(0, MaxErrorsListed);
        if (op->errors.size() > MaxErrorsListed)
            listed << tr("… and %n more", nullptr, int(op->errors.size() - MaxErrorsListed));
        box->setDetailedText(listed.join(u'\n'));
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    }
    Q_EMIT finished(op->request.kind, op->request.scope, op->processed, op->errors, message);
}

void DeadLetterOperations::copyRecords(const QList<qint64> &ids)
{
    if (ids.isEmpty())
        return;
    m_reader->run(
        this,
        [this, ids](const Expected<DeliveryStoreReader *> &store) -> StoreReader::Continuation {
            QByteArrayList records;
            QString error;
            if (!store) {
                error = store.error();
            } else if (auto rows = store.value()->deadLettersById(ids); !rows) {
                error = rows.error();
            } else {
                for (const DeadLetterEntry &row : std::as_const(rows.value()))
                    records.append(row.record);
            }
            const QString text = records.size() == 1 ? prettyJson(records.constFirst())
                                                     : prettyJson('[' + records.join(',') + ']');
            const int count = int(records.size());
            return [this, text, count, error] {
                if (!error.isEmpty()) {
                    Q_EMIT statusMessage(error);
                    return;
                }
                QApplication::clipboard()->setText(text);
                Q_EMIT statusMessage(tr("Copied %n record(s) to the clipboard.", nullptr, count));
            };
        });
}

void DeadLetterOperations::openBlob(const QString &topicName, const QString &subscriptionName,
                                    const QString &blobPath)
{
    if (!m_host)
        return;
    // A blob in an Azure Storage container (or Azurite) is read back through the engine, signed
    // with the account key, and shown as the record of truth.
    if (const Topic *topic = m_host->workspace().findTopic(topicName)) {
        for (const EventSubscription &subscription : topic->eventSubscriptions) {
            if (subscription.name.compare(subscriptionName, Qt::CaseInsensitive) != 0
                || subscription.deadLetterDestination.kind
                    != DeadLetterDestination::Kind::AzureBlob)
                continue;
            const DeadLetterDestination destination = subscription.deadLetterDestination;
            QPointer<DeadLetterOperations> self(this);
            Q_EMIT statusMessage(tr("Reading blob %1…").arg(blobPath));
            m_host->readDeadLetterBlob(
                destination, blobPath,
                [self, destination, blobPath](const Expected<QByteArray> &blob) {
                    if (!self)
                        return;
                    if (!blob) {
                        Q_EMIT self->statusMessage(
                            tr("Could not read blob %1: %2").arg(blobPath, blob.error()));
                        return;
                    }
                    Q_EMIT self->statusMessage(QString());
                    auto *viewer = new QPlainTextEdit;
                    viewer->setAttribute(Qt::WA_DeleteOnClose);
                    viewer->setWindowFlag(Qt::Window);
                    viewer->setReadOnly(true);
                    viewer->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
                    viewer->setWindowTitle(tr("Blob %1").arg(
                        DeadLetterRouter::blobLocation(destination, blobPath, QString())
                            .toString()));
                    viewer->setPlainText(prettyJson(blob.value()));
                    viewer->resize(760, 560);
                    viewer->show();
                });
            return;
        }
    }
    if (m_host->isMonitoringSharedStore()) {
        // Each instance of a shared store writes a local container's blobs into its own
        // workspace folder, on its own machine: the app has no folder to open.
        Q_EMIT statusMessage(
            tr("The blob %1 is in the deadletters folder of the instance that wrote it, on its "
               "machine; a shared workspace has no local folder.")
                .arg(blobPath));
        return;
    }
    const QString root = QDir(m_host->config().workspaceDirectory).filePath(u"deadletters"_s);
    const QString folder = QFileInfo(QDir(root).filePath(blobPath)).absolutePath();
    if (blobPath.isEmpty() || !QFileInfo(folder).isDir()) {
        Q_EMIT statusMessage(
            tr("The folder %1 does not exist: the blob was written to a remote container, or "
               "the folder was moved.")
                .arg(QDir::toNativeSeparators(folder)));
        return;
    }
    if (!QDesktopServices::openUrl(QUrl::fromLocalFile(folder)))
        Q_EMIT statusMessage(tr("Could not open %1.").arg(QDir::toNativeSeparators(folder)));
}

} // namespace EventDesk::Ui
