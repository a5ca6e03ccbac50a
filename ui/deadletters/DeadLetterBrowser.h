// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "DeadLetterModel.h"
#include "DeadLetterOperations.h"
#include "store/DeliveryStoreReader.h"

#include <QDialog> // complete for the signal topicResubmitDialogOpened(QDialog *)
#include <QList>
#include <QPointer>
#include <QString>
#include <QWidget>

#include <atomic>
#include <functional>
#include <memory>

class QAction;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QTableView;
class QTimer;
class QToolBar;

namespace EventDesk {
class EngineHost;
}

namespace EventDesk::Ui {

class DeadLetterDetailPane;
class FilterBar;
class StoreReader;

// docs/user-guide.md "Dead-letter browser": every dead letter of the workspace, read lazily from
// the store (a million rows open at once), filtered by subscription, reason, last outcome, time and
// payload text; the record pretty-printed with the dead-letter fields highlighted; copy, resubmit
// (one, selected, all matching), delete, export to JSON files, open the blob's folder. The
// filters are a FilterBar, the record a DeadLetterDetailPane, and what the actions do
// DeadLetterOperations (long operations run in chunks with progress and Cancel).
class DeadLetterBrowser final : public QWidget
{
    Q_OBJECT

public:
    using Scope = DeadLetterOperations::Scope;

    explicit DeadLetterBrowser(EventDesk::EngineHost *host, QWidget *parent = nullptr);
    ~DeadLetterBrowser() override;

    // Reads the first page and the counts again (F5).
    void reload();
    // A read-only monitor's browser (docs/user-guide.md "One owner per workspace"): resubmitting
    // and deleting are the owner's engine's business and are not offered; browsing, copying and
    // exporting are.
    void setReadOnly(bool readOnly);
    bool isReadOnly() const { return m_readOnly; }
    void setFilterSubscription(const QString &topic, const QString &subscription);
    // The time scales of the engines that wrote the store (DeliveryStoreReader::timeScales()): the
    // time range says when its times are an engine's that ran faster than the wall clock.
    void setEngineTimeScales(const EventDesk::EngineTimeScales &scales);
    // The engine times of the oldest and newest dead letter, as the last count read them.
    EventDesk::TimeRange deadLetterTimes() const { return m_times; }

    // The actions behind the toolbar. Resubmitting and deleting ask for confirmation with the
    // number of dead letters first.
    void resubmit(Scope scope);
    // Resubmit through the topic: a dry run first (progress, Cancel), whose answer a
    // TopicResubmitDialog shows; accepting it resubmits the same dead letters.
    void resubmitThroughTopic(Scope scope);
    void remove(Scope scope);
    // Asks for a folder, then exportTo().
    void exportDeadLetters(Scope scope);
    // Writes one pretty-printed JSON file per dead letter into directory.
    void exportTo(const QString &directory, Scope scope);
    void copySelection();
    void openBlobFolder();

    DeadLetterModel *model() const { return m_model; }
    QTableView *tableView() const { return m_table; }
    QPlainTextEdit *detailView() const;
    FilterBar *filterBar() const { return m_filterBar; }
    QLabel *countLabel() const;
    QLabel *statusLabel() const { return m_statusLabel; }
    QLineEdit *searchField() const;
    QComboBox *subscriptionCombo() const;
    QComboBox *reasonCombo() const;
    QComboBox *outcomeCombo() const;
    qint64 detailId() const;
    bool isBusy() const { return m_operations->isBusy(); }
    DeadLetterOperations *operations() const { return m_operations; }

Q_SIGNALS:
    // The counts for the current filter are known (matching == total without a filter).
    void countsChanged(qint64 total, qint64 matching);
    // The detail pane shows dead letter id.
    void detailShown(qint64 id);
    // The dry run of a resubmit through the topic is answered by this dialog (open, modal).
    void topicResubmitDialogOpened(QDialog *dialog);
    // A resubmit / delete / export finished (or was canceled) after processing `processed`.
    void operationFinished(int processed, const QStringList &errors);

private:
    // A time range that hides every dead letter says so, with a link that shows them all.
    void showWhatTheTimeRangeHides();
    void createActions();
    void rebuildSubscriptionChoices();
    void applyFilter();
    DeadLetterQuery filterFromControls() const;
    void requestCounts();
    void showCounts();
    void updateActions();
    void showDetail();
    QList<qint64> selectedIds() const;
    void withMatchingCount(std::function<void(qint64 matching)> then);
    // For the actions on all matching dead letters: then runs only when some match; otherwise the
    // status line says why nothing was done (none match, or they could not be counted).
    void withSomeMatching(std::function<void(qint64 matching)> then);
    // resubmit(), remove() and resubmitThroughTopic(): starts kind on the selected dead letters,
    // or on all that match the filter, once confirm() agrees. Nothing selected or none matching
    // starts nothing.
    void startConfirmed(DeadLetterOperations::Kind kind, Scope scope);
    // Asks whether to resubmit or delete count dead letters (one selected is resubmitted without
    // a question); the dry run through the topic asks nothing.
    bool confirm(DeadLetterOperations::Kind kind, Scope scope, qint64 count);
    void showContextMenu(const QPoint &position);
    void setStatus(const QString &text);

    void dryRunDone(const DeadLetterOperations::Request &request, const TopicResubmitResult &result,
                    bool canceled);
    void operationDone(DeadLetterOperations::Kind kind, Scope scope, int processed,
                       const QStringList &errors, const QString &message);

    QPointer<EngineHost> m_host;
    StoreReader *m_reader = nullptr; // pages, detail, ids of bulk operations, export
    StoreReader *m_countReader = nullptr; // counts (can take a while with a text filter)
    DeadLetterModel *m_model = nullptr;

    QToolBar *m_toolBar = nullptr;
    FilterBar *m_filterBar = nullptr;
    QLabel *m_statusLabel = nullptr;
    QTableView *m_table = nullptr;
    DeadLetterDetailPane *m_detail = nullptr;
    DeadLetterOperations *m_operations = nullptr;
    QTimer *m_countingHint = nullptr;

    QAction *m_copyAction = nullptr;
    QAction *m_resubmitSelectedAction = nullptr;
    QAction *m_resubmitAllAction = nullptr;
    QAction *m_resubmitTopicSelectedAction = nullptr;
    QAction *m_resubmitTopicAllAction = nullptr;
    QAction *m_deleteSelectedAction = nullptr;
    QAction *m_deleteAllAction = nullptr;
    QAction *m_exportSelectedAction = nullptr;
    QAction *m_exportAllAction = nullptr;
    QAction *m_openFolderAction = nullptr;
    QAction *m_reloadAction = nullptr;

    bool m_readOnly = false;
    quint64 m_countGeneration = 0;
    std::shared_ptr<std::atomic<quint64>> m_latestCountRequest;
    bool m_countsKnown = false;
    qint64 m_total = 0;
    qint64 m_matching = 0;
    QString m_countError;
    EventDesk::TimeRange m_times;
    QList<std::function<void(qint64)>> m_waitingForCount;
};

} // namespace EventDesk::Ui
