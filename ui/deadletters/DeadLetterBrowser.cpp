// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "DeadLetterBrowser.h"

#include "DeadLetterDetailPane.h"
#include "TopicResubmitDialog.h"
#include "common/FilterBar.h"
#include "common/Format.h"
#include "common/RecordTable.h"
#include "host/EngineHost.h"
#include "log/StoreReader.h"

#include <QAction>
#include <QFileDialog>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QStyle>
#include <QTableView>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

#include <atomic>
#include <limits>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {

// A text filter reads every record of the store: wait until the typing pauses.
constexpr std::chrono::milliseconds FilterDelay {300};
constexpr int CountingHintDelayMs = 250;
// The first page's newest row is selected this long after the page arrives: one frame later, so
// that reading and drawing its record is not added to drawing a screen of new rows.
constexpr int FirstSelectionDelayMs = 20;

constexpr DeadLetterReason deadLetterReasons[] = {
    DeadLetterReason::MaxDeliveryAttemptsExceeded,
    DeadLetterReason::TimeToLiveExceeded,
    DeadLetterReason::UndeliverableDueToHttpBadRequest,
    DeadLetterReason::UndeliverableDueToHttpUnauthorized,
    DeadLetterReason::UndeliverableDueToHttpForbidden,
    DeadLetterReason::UndeliverableDueToHttpPayloadTooLarge,
    DeadLetterReason::UndeliverableDueToHttpDisabled,
    DeadLetterReason::UndeliverableDueToHttpFull,
    DeadLetterReason::UndeliverableDueToHttpInvalidAzureFunctionDestination,
    DeadLetterReason::EndpointValidationFailed,
};

constexpr DeliveryOutcome failureOutcomes[] = {
    DeliveryOutcome::Busy,
    DeliveryOutcome::TimedOut,
    DeliveryOutcome::NotFound,
    DeliveryOutcome::GenericError,
    DeliveryOutcome::BadRequest,
    DeliveryOutcome::Unauthorized,
    DeliveryOutcome::Forbidden,
    DeliveryOutcome::PayloadTooLarge,
    DeliveryOutcome::SocketError,
    DeliveryOutcome::ResolutionError,
    DeliveryOutcome::Aborted,
    DeliveryOutcome::Probation,
    DeliveryOutcome::Canceled,
    DeliveryOutcome::Disabled,
    DeliveryOutcome::Full,
    DeliveryOutcome::EndpointValidationPending,
    DeliveryOutcome::EndpointValidationFailed,
    DeliveryOutcome::KeychainPending,
};

FilterBar::Fields filterFields()
{
    FilterBar::Fields fields;
    fields.text = FilterBar::TextField {
        DeadLetterBrowser::tr("Search the payload…"),
        DeadLetterBrowser::tr("Show dead letters whose record contains this text")};
    fields.subscription = DeadLetterBrowser::tr("Dead letters of one subscription");
    fields.reason = FilterBar::ReasonField {
        QList<DeadLetterReason>(std::cbegin(deadLetterReasons), std::cend(deadLetterReasons)),
        DeadLetterBrowser::tr("Why the events were dead-lettered (deadLetterReason)")};
    fields.outcome = FilterBar::OutcomeField {
        DeadLetterBrowser::tr("All last outcomes"),
        QList<DeliveryOutcome>(std::cbegin(failureOutcomes), std::cend(failureOutcomes)),
        DeadLetterBrowser::tr("The outcome of the last delivery attempt (lastDeliveryOutcome)")};
    fields.timeRange = FilterBar::TimeRangeField {
        DeadLetterBrowser::tr("Only dead letters written at or after this time"),
        DeadLetterBrowser::tr("Only dead letters written at or before this time")};
    fields.typingDelay = FilterDelay;
    return fields;
}

// A question with Yes and No: true when the user answers Yes.
bool askYes(QWidget *parent, const QString &title, const QString &question)
{
    return QMessageBox::question(parent, title, question) == QMessageBox::Yes;
}

} // namespace

DeadLetterBrowser::DeadLetterBrowser(EngineHost *host, QWidget *parent)
    : QWidget(parent)
    , m_host(host)
    , m_reader(new StoreReader(this))
    , m_countReader(new StoreReader(this))
    , m_model(new DeadLetterModel(m_reader, this))
    , m_toolBar(new QToolBar(this))
    , m_filterBar(new FilterBar(filterFields(), this))
    , m_statusLabel(new QLabel(this))
    , m_table(new QTableView(this))
    , m_detail(new DeadLetterDetailPane(m_reader, this))
    , m_operations(new DeadLetterOperations(host, m_reader, this))
    , m_countingHint(new QTimer(this))
    , m_latestCountRequest(std::make_shared<std::atomic<quint64>>(0))
{
    m_statusLabel->setWordWrap(true);
    // Selectable, and its one link (Show all) can be clicked or reached with Tab.
    m_statusLabel->setTextInteractionFlags(Qt::TextBrowserInteraction);
    m_statusLabel->setTextFormat(Qt::PlainText);
    m_statusLabel->setVisible(false);
    connect(m_statusLabel, &QLabel::linkActivated, this, [this](const QString &link) {
        if (link == u"show-all"_s)
            m_filterBar->clearTimeRange();
    });

    // List.
    m_table->setModel(m_model);
    // The reason names are long: their columns fit them as pages arrive.
    setupRecordTable(m_table, fontMetrics());

    createActions();

    auto *splitter = new QSplitter(Qt::Horizontal, this);
    splitter->setObjectName(u"deadLetterSplitter"_s); // remembered per workspace by the window
    splitter->addWidget(m_table);
    splitter->addWidget(m_detail);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setChildrenCollapsible(false);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_toolBar);
    layout->addWidget(m_filterBar);
    layout->addWidget(m_statusLabel);
    layout->addWidget(splitter, 1);

    // Wiring.
    connect(m_filterBar, &FilterBar::queryChanged, this, &DeadLetterBrowser::applyFilter);

    m_countingHint->setSingleShot(true);
    m_countingHint->setInterval(CountingHintDelayMs);
    connect(m_countingHint, &QTimer::timeout, this, &DeadLetterBrowser::showCounts);

    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &DeadLetterBrowser::showDetail);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &DeadLetterBrowser::updateActions);
    connect(m_table, &QWidget::customContextMenuRequested, this,
            &DeadLetterBrowser::showContextMenu);
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
        m_detail->clear();
        updateActions();
    });
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &DeadLetterBrowser::updateActions);
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, &DeadLetterBrowser::updateActions);
    connect(m_model, &DeadLetterModel::pageLoaded, this, [this](int, const QString &error) {
        if (!error.isEmpty())
            setStatus(error);
        // The first page selects its newest row, so the detail pane is never empty for nothing.
        if (!m_table->currentIndex().isValid() && m_model->rowCount() > 0) {
            QTimer::singleShot(FirstSelectionDelayMs, this, [this] {
                if (!m_table->currentIndex().isValid() && m_model->rowCount() > 0)
                    m_table->setCurrentIndex(m_model->index(0, 0));
            });
        }
    });

    connect(m_detail, &DeadLetterDetailPane::shown, this, &DeadLetterBrowser::detailShown);
    connect(m_operations, &DeadLetterOperations::statusMessage, this,
            &DeadLetterBrowser::setStatus);
    connect(m_operations, &DeadLetterOperations::started, this, &DeadLetterBrowser::updateActions);
    connect(m_operations, &DeadLetterOperations::removedFromIndex, m_model,
            &DeadLetterModel::removeIds);
    connect(m_operations, &DeadLetterOperations::finished, this, &DeadLetterBrowser::operationDone);
    connect(m_operations, &DeadLetterOperations::dryRunFinished, this,
            &DeadLetterBrowser::dryRunDone);

    if (m_host) {
        connect(m_host.data(), &EngineHost::workspaceChanged, this,
                &DeadLetterBrowser::rebuildSubscriptionChoices);
        const auto opened = [this](bool ok) {
            rebuildSubscriptionChoices();
            if (ok)
                reload();
        };
        connect(m_host.data(), &EngineHost::started, this, opened);
        connect(m_host.data(), &EngineHost::monitorStarted, this, opened);
    }
    rebuildSubscriptionChoices();
    updateActions();
    reload();
}

DeadLetterBrowser::~DeadLetterBrowser() = default;

QPlainTextEdit *DeadLetterBrowser::detailView() const
{
    return m_detail->recordView();
}

qint64 DeadLetterBrowser::detailId() const
{
    return m_detail->deadLetterId();
}

QLabel *DeadLetterBrowser::countLabel() const
{
    return m_filterBar->summaryLabel();
}

QLineEdit *DeadLetterBrowser::searchField() const
{
    return m_filterBar->textField();
}

QComboBox *DeadLetterBrowser::subscriptionCombo() const
{
    return m_filterBar->subscriptionCombo();
}

QComboBox *DeadLetterBrowser::reasonCombo() const
{
    return m_filterBar->reasonCombo();
}

QComboBox *DeadLetterBrowser::outcomeCombo() const
{
    return m_filterBar->outcomeCombo();
}

void DeadLetterBrowser::createActions()
{
    const auto make = [this](const QString &text, QStyle::StandardPixmap icon,
                             const QKeySequence &shortcut, const QString &toolTip) {
        auto *action = new QAction(style()->standardIcon(icon), text, this);
        action->setShortcut(shortcut);
        action->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        action->setToolTip(
            shortcut.isEmpty()
                ? toolTip
                : tr("%1 (%2)").arg(toolTip, shortcut.toString(QKeySequence::NativeText)));
        addAction(action);
        return action;
    };
    m_reloadAction = make(tr("Reload"), QStyle::SP_BrowserReload, QKeySequence::Refresh,
                          tr("Read the dead letters and counts again"));
    m_copyAction = make(tr("Copy"), QStyle::SP_FileDialogDetailedView, QKeySequence::Copy,
                        tr("Copy the selected records as JSON"));
    m_resubmitSelectedAction
        = make(tr("Resubmit"), QStyle::SP_MediaPlay, QKeySequence(Qt::CTRL | Qt::Key_R),
               tr("Deliver the selected events to their subscriptions again"));
    m_resubmitAllAction = make(tr("Resubmit All Matching…"), QStyle::SP_MediaSeekForward,
                               QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R),
                               tr("Deliver every dead letter that matches the filter again"));
    // Ctrl+T is the window's Send Test Event: the topic's resubmits add Alt to Resubmit's keys.
    m_resubmitTopicSelectedAction
        = make(tr("Resubmit Through Topic…"), QStyle::SP_ArrowForward,
               QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_R),
               tr("Publish the selected events to their topics again, where every current "
                  "subscription's filter decides (a dry run shows where they would go first)"));
    m_resubmitTopicAllAction
        = make(tr("Resubmit All Matching Through Topic…"), QStyle::SP_MediaSkipForward,
               QKeySequence(Qt::CTRL | Qt::ALT | Qt::SHIFT | Qt::Key_R),
               tr("Publish every dead letter that matches the filter to its topic again (a dry run "
                  "shows where they would go first)"));
    m_deleteSelectedAction = make(tr("Delete"), QStyle::SP_TrashIcon, QKeySequence::Delete,
                                  tr("Remove the selected dead letters from the index"));
    m_deleteAllAction = make(tr("Delete All Matching…"), QStyle::SP_DialogDiscardButton,
                             QKeySequence(Qt::SHIFT | Qt::Key_Delete),
                             tr("Remove every dead letter that matches the filter from the index"));
    m_exportSelectedAction
        = make(tr("Export…"), QStyle::SP_DialogSaveButton, QKeySequence(Qt::CTRL | Qt::Key_E),
               tr("Write the selected records to a folder, one JSON file each"));
    m_exportAllAction = make(tr("Export All Matching…"), QStyle::SP_DriveHDIcon,
                             QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E),
                             tr("Write every matching record to a folder, one JSON file each"));
    m_openFolderAction = make(tr("Open Blob Folder"), QStyle::SP_DirOpenIcon,
                              QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O),
                              tr("Show the folder of the current dead letter's blob (a blob in "
                                 "Azure Storage opens in a viewer)"));
    addAction(m_filterBar->findAction());

    connect(m_reloadAction, &QAction::triggered, this, &DeadLetterBrowser::reload);
    connect(m_copyAction, &QAction::triggered, this, &DeadLetterBrowser::copySelection);
    connect(m_resubmitSelectedAction, &QAction::triggered, this,
            [this] { resubmit(Scope::Selected); });
    connect(m_resubmitAllAction, &QAction::triggered, this,
            [this] { resubmit(Scope::AllMatching); });
    connect(m_resubmitTopicSelectedAction, &QAction::triggered, this,
            [this] { resubmitThroughTopic(Scope::Selected); });
    connect(m_resubmitTopicAllAction, &QAction::triggered, this,
            [this] { resubmitThroughTopic(Scope::AllMatching); });
    connect(m_deleteSelectedAction, &QAction::triggered, this, [this] { remove(Scope::Selected); });
    connect(m_deleteAllAction, &QAction::triggered, this, [this] { remove(Scope::AllMatching); });
    connect(m_exportSelectedAction, &QAction::triggered, this,
            [this] { exportDeadLetters(Scope::Selected); });
    connect(m_exportAllAction, &QAction::triggered, this,
            [this] { exportDeadLetters(Scope::AllMatching); });
    connect(m_openFolderAction, &QAction::triggered, this, &DeadLetterBrowser::openBlobFolder);

    m_toolBar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_toolBar->setIconSize(QSize(16, 16));
    m_toolBar->addAction(m_resubmitSelectedAction);
    m_toolBar->addAction(m_resubmitAllAction);
    m_toolBar->addAction(m_resubmitTopicSelectedAction);
    m_toolBar->addSeparator();
    m_toolBar->addAction(m_deleteSelectedAction);
    m_toolBar->addSeparator();
    m_toolBar->addAction(m_exportSelectedAction);
    m_toolBar->addAction(m_copyAction);
    m_toolBar->addAction(m_openFolderAction);
    m_toolBar->addSeparator();
    m_toolBar->addAction(m_reloadAction);
}

void DeadLetterBrowser::rebuildSubscriptionChoices()
{
    QList<std::pair<QString, QString>> subscriptions;
    if (m_host) {
        for (const Topic &topic : m_host->workspace().topics) {
            for (const EventSubscription &subscription : topic.eventSubscriptions)
                subscriptions.append({topic.name, subscription.name});
        }
    }
    m_filterBar->setSubscriptions(subscriptions);
}

void DeadLetterBrowser::setFilterSubscription(const QString &topic, const QString &subscription)
{
    m_filterBar->setSubscription(topic, subscription);
    applyFilter();
}

DeadLetterQuery DeadLetterBrowser::filterFromControls() const
{
    const FilterQuery query = m_filterBar->query();
    DeadLetterQuery filter;
    filter.topic = query.topic;
    filter.subscription = query.subscription;
    filter.reason = query.reason.value_or(DeadLetterReason::None);
    filter.lastOutcome = query.outcome;
    filter.fromMs = query.fromMs.value_or(0);
    filter.toMs = query.toMs.value_or(0);
    filter.text = query.text;
    return filter;
}

void DeadLetterBrowser::applyFilter()
{
    const DeadLetterQuery filter = filterFromControls();
    if (filter == m_model->filter())
        return;
    m_model->setFilter(filter);
    requestCounts();
}

void DeadLetterBrowser::reload()
{
    const QString location = m_host ? m_host->storeLocation() : QString();
    m_reader->setStoreLocation(location);
    m_countReader->setStoreLocation(location);
    m_statusLabel->setVisible(false);
    m_model->setFilter(filterFromControls());
    requestCounts();
}

void DeadLetterBrowser::requestCounts()
{
    const quint64 generation = ++m_countGeneration;
    m_countsKnown = false;
    m_countError.clear();
    m_countingHint->start();
    if (m_countReader->storeLocation().isEmpty()) {
        m_countsKnown = true;
        m_total = m_matching = 0;
        showCounts();
        return;
    }
    // Counting with a text filter reads every record; a count that is already obsolete when its
    // turn comes is skipped.
    m_latestCountRequest->store(generation);
    const std::shared_ptr<std::atomic<quint64>> latest = m_latestCountRequest;
    const DeadLetterQuery filter = m_model->filter();
    m_countReader->run(
        this,
        [this, generation, latest,
         filter](const Expected<DeliveryStoreReader *> &store) -> StoreReader::Continuation {
            if (latest->load() != generation)
                return {};
            qint64 total = 0;
            qint64 matching = 0;
            TimeRange times;
            QString error;
            if (!store) {
                error = store.error();
            } else if (const auto all = store.value()->countDeadLetters(DeadLetterQuery()); !all) {
                error = all.error();
            } else {
                // Where the records lie in engine time: the time range's defaults, and what a
                // range that hides them all says.
                if (const auto range = store.value()->deadLetterTimes())
                    times = range.value();
                total = matching = all.value();
                if (filter.hasFilter()) {
                    const auto matched = store.value()->countDeadLetters(filter);
                    if (matched)
                        matching = matched.value();
                    else
                        error = matched.error();
                }
            }
            return [this, generation, total, matching, times, error] {
                if (generation != m_countGeneration)
                    return;
                m_countingHint->stop();
                m_countsKnown = true;
                m_total = total;
                m_matching = matching;
                m_countError = error;
                if (error.isEmpty()) {
                    m_times = times;
                    m_filterBar->setTimeRangeDefaults(times.oldestMs, times.newestMs);
                }
                showCounts();
                showWhatTheTimeRangeHides();
                const auto waiting = std::exchange(m_waitingForCount, {});
                for (const auto &then : waiting)
                    then(error.isEmpty() ? matching : -1);
                if (error.isEmpty())
                    Q_EMIT countsChanged(total, matching);
            };
        });
}

void DeadLetterBrowser::showCounts()
{
    const QLocale locale;
    if (!m_countsKnown) {
        m_filterBar->setSummary(tr("counting…"));
        return;
    }
    if (!m_countError.isEmpty()) {
        m_filterBar->setSummary(tr("count unavailable"), m_countError);
        return;
    }
    const QString total = tr("%1 dead letters").arg(locale.toString(m_total));
    m_filterBar->setSummary(!m_model->filter().hasFilter()
                                ? total
                                : tr("%1, %2 match").arg(total, locale.toString(m_matching)));
}

void DeadLetterBrowser::setEngineTimeScales(const EngineTimeScales &scales)
{
    const EngineTimeNote note = engineTimeNote(scales.last, scales.fastest);
    m_filterBar->setTimeNote(note.text, note.toolTip);
}

void DeadLetterBrowser::showWhatTheTimeRangeHides()
{
    const DeadLetterQuery filter = m_model->filter();
    const bool timeBound = filter.fromMs != 0 || filter.toMs != 0;
    if (!m_countsKnown || !m_countError.isEmpty() || !timeBound || m_matching > 0 || m_total == 0) {
        if (m_statusLabel->textFormat() == Qt::RichText)
            setStatus(QString());
        return;
    }
    // Every dead letter is outside the range: say where they are, and offer them all.
    const QString text
        = tr("No dead letter in this time range: the %n dead letter(s) of the workspace were written "
             "from %1 to %2 (engine time).", nullptr, int(std::min<qint64>(m_total, std::numeric_limits<int>::max())))
              .arg(formatTime(m_times.oldestMs), formatTime(m_times.newestMs));
    m_statusLabel->setTextFormat(Qt::RichText);
    m_statusLabel->setText(text.toHtmlEscaped() + u" <a href=\"show-all\">"_s + tr("Show all")
                           + u"</a>"_s);
    m_statusLabel->setVisible(true);
}

void DeadLetterBrowser::setStatus(const QString &text)
{
    m_statusLabel->setTextFormat(Qt::PlainText);
    m_statusLabel->setText(text);
    m_statusLabel->setVisible(!text.isEmpty());
}

QList<qint64> DeadLetterBrowser::selectedIds() const
{
    QList<qint64> ids;
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    ids.reserve(rows.size());
    for (const QModelIndex &index : rows)
        ids.append(index.data(DeadLetterModel::IdRole).toLongLong());
    std::sort(ids.begin(), ids.end(), std::greater<>());
    return ids;
}

void DeadLetterBrowser::setReadOnly(bool readOnly)
{
    m_readOnly = readOnly;
    updateActions();
}

void DeadLetterBrowser::updateActions()
{
    const bool busy = m_operations->isBusy();
    const bool hasSelection = m_table->selectionModel()->hasSelection();
    const bool hasRows = m_model->rowCount() > 0;
    for (QAction *action : {m_copyAction, m_exportSelectedAction})
        action->setEnabled(!busy && hasSelection);
    m_exportAllAction->setEnabled(!busy && hasRows);
    for (QAction *action :
         {m_resubmitSelectedAction, m_resubmitTopicSelectedAction, m_deleteSelectedAction})
        action->setEnabled(!m_readOnly && !busy && hasSelection);
    for (QAction *action : {m_resubmitAllAction, m_resubmitTopicAllAction, m_deleteAllAction})
        action->setEnabled(!m_readOnly && !busy && hasRows);
    m_openFolderAction->setEnabled(m_table->currentIndex().isValid());
    m_reloadAction->setEnabled(!busy);
}

void DeadLetterBrowser::showDetail()
{
    const QModelIndex current = m_table->currentIndex();
    updateActions();
    const qint64 id = current.isValid() ? current.data(DeadLetterModel::IdRole).toLongLong() : 0;
    if (id == m_detail->deadLetterId())
        return;
    if (id == 0)
        m_detail->clear();
    else
        m_detail->showDeadLetter(m_model->entry(current.row()));
}

void DeadLetterBrowser::withMatchingCount(std::function<void(qint64)> then)
{
    if (m_countsKnown) {
        then(m_countError.isEmpty() ? m_matching : -1);
        return;
    }
    m_waitingForCount.append(std::move(then));
}

void DeadLetterBrowser::withSomeMatching(std::function<void(qint64 matching)> then)
{
    withMatchingCount([this, then = std::move(then)](qint64 matching) {
        if (matching < 0)
            setStatus(tr("The dead letters could not be counted: %1").arg(m_countError));
        else if (matching == 0)
            setStatus(tr("No dead letter matches the filter."));
        else
            then(matching);
    });
}

void DeadLetterBrowser::showContextMenu(const QPoint &position)
{
    if (!m_table->indexAt(position).isValid())
        return;
    QMenu menu(this);
    menu.addAction(m_copyAction);
    menu.addSeparator();
    menu.addAction(m_resubmitSelectedAction);
    menu.addAction(m_resubmitAllAction);
    menu.addAction(m_resubmitTopicSelectedAction);
    menu.addAction(m_resubmitTopicAllAction);
    menu.addSeparator();
    menu.addAction(m_deleteSelectedAction);
    menu.addAction(m_deleteAllAction);
    menu.addSeparator();
    menu.addAction(m_exportSelectedAction);
    menu.addAction(m_exportAllAction);
    menu.addAction(m_openFolderAction);
    menu.exec(m_table->viewport()->mapToGlobal(position));
}

void DeadLetterBrowser::copySelection()
{
    m_operations->copyRecords(selectedIds());
}

void DeadLetterBrowser::openBlobFolder()
{
    const QModelIndex current = m_table->currentIndex();
    if (!current.isValid())
        return;
    m_operations->openBlob(
        current.siblingAtColumn(DeadLetterModel::TopicColumn).data().toString(),
        current.siblingAtColumn(DeadLetterModel::SubscriptionColumn).data().toString(),
        current.data(DeadLetterModel::BlobPathRole).toString());
}

void DeadLetterBrowser::startConfirmed(DeadLetterOperations::Kind kind, Scope scope)
{
    if (m_readOnly || m_operations->isBusy())
        return;
    DeadLetterOperations::Request request;
    request.kind = kind;
    request.scope = scope;
    if (scope == Scope::Selected) {
        request.ids = selectedIds();
        request.total = request.ids.size();
        if (!request.ids.isEmpty() && confirm(kind, scope, request.total))
            m_operations->start(std::move(request));
        return;
    }
    withSomeMatching([this, request](qint64 matching) mutable {
        if (!confirm(request.kind, request.scope, matching))
            return;
        request.total = matching;
        request.filter = m_model->filter();
        m_operations->start(std::move(request));
    });
}

bool DeadLetterBrowser::confirm(DeadLetterOperations::Kind kind, Scope scope, qint64 count)
{
    const bool all = scope == Scope::AllMatching;
    switch (kind) {
    case DeadLetterOperations::Kind::Resubmit:
        return (!all && count == 1)
            || askYes(this, all ? tr("Resubmit All Matching") : tr("Resubmit Dead Letters"),
                      all ? tr("Resubmit all %1 dead letters that match the filter to their "
                               "subscriptions?")
                                .arg(QLocale().toString(count))
                          : tr("Resubmit %n dead letter(s) to their subscriptions?", nullptr,
                               int(count)));
    case DeadLetterOperations::Kind::Delete:
        return askYes(this, all ? tr("Delete All Matching") : tr("Delete Dead Letters"),
                      all ? tr("Delete all %1 dead letters that match the filter? They leave "
                               "the index; the blob files stay.")
                                .arg(QLocale().toString(count))
                          : tr("Delete %n dead letter(s)? They leave the index and can no "
                               "longer be resubmitted from EventDesk; the blob files stay.",
                               nullptr, int(count)));
    default:
        // The dry run through the topic asks nothing: it changes nothing, and its answer is the
        // confirmation.
        return true;
    }
}

void DeadLetterBrowser::resubmit(Scope scope)
{
    startConfirmed(DeadLetterOperations::Kind::Resubmit, scope);
}

void DeadLetterBrowser::resubmitThroughTopic(Scope scope)
{
    startConfirmed(DeadLetterOperations::Kind::DryRunThroughTopic, scope);
}

void DeadLetterBrowser::dryRunDone(const DeadLetterOperations::Request &request,
                                   const TopicResubmitResult &result, bool canceled)
{
    const qint64 examined = result.resubmitted + result.unmatched + result.errors.size();
    auto *dialog = new TopicResubmitDialog(result, examined, canceled, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowModality(Qt::WindowModal);
    connect(dialog, &QDialog::accepted, this, [this, request] {
        DeadLetterOperations::Request resubmit = request;
        resubmit.kind = DeadLetterOperations::Kind::ResubmitThroughTopic;
        // After finished() of the dry run, which re-enables the actions.
        QTimer::singleShot(
            0, this, [this, resubmit]() mutable { m_operations->start(std::move(resubmit)); });
    });
    dialog->open();
    Q_EMIT topicResubmitDialogOpened(dialog);
}

void DeadLetterBrowser::remove(Scope scope)
{
    startConfirmed(DeadLetterOperations::Kind::Delete, scope);
}

void DeadLetterBrowser::exportDeadLetters(Scope scope)
{
    if (m_operations->isBusy())
        return;
    const QString directory = QFileDialog::getExistingDirectory(
        this,
        scope == Scope::Selected ? tr("Export Selected Dead Letters")
                                 : tr("Export All Matching Dead Letters"));
    if (!directory.isEmpty())
        exportTo(directory, scope);
}

void DeadLetterBrowser::exportTo(const QString &directory, Scope scope)
{
    if (m_operations->isBusy())
        return;
    DeadLetterOperations::Request request;
    request.kind = DeadLetterOperations::Kind::Export;
    request.scope = scope;
    request.directory = directory;
    if (scope == Scope::Selected) {
        request.ids = selectedIds();
        request.total = request.ids.size();
        if (!request.ids.isEmpty())
            m_operations->start(std::move(request));
        return;
    }
    withMatchingCount([this, request](qint64 matching) mutable {
        request.total = std::max<qint64>(matching, 0);
        request.filter = m_model->filter();
        m_operations->start(std::move(request));
    });
}

void DeadLetterBrowser::operationDone(DeadLetterOperations::Kind kind, Scope scope, int processed,
                                      const QStringList &errors, const QString &message)
{
    setStatus(message);
    updateActions();
    if (kind == DeadLetterOperations::Kind::Resubmit || kind == DeadLetterOperations::Kind::Delete
        || kind == DeadLetterOperations::Kind::ResubmitThroughTopic) {
        // Rows of a selection left the list chunk by chunk; anything else is simpler to read again.
        if (scope == Scope::AllMatching || !errors.isEmpty()
            || kind == DeadLetterOperations::Kind::ResubmitThroughTopic)
            m_model->reload();
        requestCounts();
    }
    Q_EMIT operationFinished(processed, errors);
}

} // namespace EventDesk::Ui
