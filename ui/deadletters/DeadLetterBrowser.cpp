#include "DeadLetterBrowser.h"

#include "DeadLetterRecordHighlighter.h"
#include "common/FilterBar.h"
#include "common/Format.h"
#include "engine/EngineHost.h"
#include "io/DeadLetterSink.h"
#include "log/StoreReader.h"
#include "store/SqliteStoreSchema.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDateTimeEdit>
#include <QDesktopServices>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPointer>
#include <QProgressDialog>
#include <QSaveFile>
#include <QSplitter>
#include <QStyle>
#include <QTableView>
#include <QTimer>
#include <QToolBar>
#include <QUrl>
#include <QVBoxLayout>

#include <atomic>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {

// A text filter reads every record of the store: wait until the typing pauses.
constexpr std::chrono::milliseconds FilterDelay{300};
constexpr int CountingHintDelayMs = 250;
constexpr int MaxErrorsListed = 10;

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
    DeliveryOutcome::Busy,           DeliveryOutcome::TimedOut,
    DeliveryOutcome::NotFound,       DeliveryOutcome::GenericError,
    DeliveryOutcome::BadRequest,     DeliveryOutcome::Unauthorized,
    DeliveryOutcome::Forbidden,      DeliveryOutcome::PayloadTooLarge,
    DeliveryOutcome::SocketError,    DeliveryOutcome::ResolutionError,
    DeliveryOutcome::Aborted,        DeliveryOutcome::Probation,
    DeliveryOutcome::Canceled,       DeliveryOutcome::Disabled,
    DeliveryOutcome::Full,           DeliveryOutcome::EndpointValidationPending,
    DeliveryOutcome::EndpointValidationFailed,
};

FilterBar::Fields filterFields()
{
    FilterBar::Fields fields;
    fields.text = FilterBar::TextField{
        DeadLetterBrowser::tr("Search the payload…"),
        DeadLetterBrowser::tr("Show dead letters whose record contains this text")};
    fields.subscription = DeadLetterBrowser::tr("Dead letters of one subscription");
    fields.reason = FilterBar::ReasonField{
        QList<DeadLetterReason>(std::cbegin(deadLetterReasons), std::cend(deadLetterReasons)),
        DeadLetterBrowser::tr("Why the events were dead-lettered (deadLetterReason)")};
    fields.outcome = FilterBar::OutcomeField{
        DeadLetterBrowser::tr("All last outcomes"),
        QList<DeliveryOutcome>(std::cbegin(failureOutcomes), std::cend(failureOutcomes)),
        DeadLetterBrowser::tr("The outcome of the last delivery attempt (lastDeliveryOutcome)")};
    fields.timeRange = FilterBar::TimeRangeField{
        DeadLetterBrowser::tr("Only dead letters written at or after this time"),
        DeadLetterBrowser::tr("Only dead letters written at or before this time")};
    fields.typingDelay = FilterDelay;
    return fields;
}

// The IN list of one chunk of ids. Shorter chunks repeat their last id, which IN ignores, so
// that the reader's connection prepares one statement for every chunk.
QByteArray chunkPlaceholders()
{
    return parameterList(DeadLetterBrowser::OperationChunk);
}

void bindChunk(SqliteStatement &statement, const QList<qint64> &ids)
{
    Q_ASSERT(!ids.isEmpty() && ids.size() <= DeadLetterBrowser::OperationChunk);
    for (int i = 0; i < DeadLetterBrowser::OperationChunk; ++i)
        statement.bind(i + 1, ids.at(std::min<qsizetype>(i, ids.size() - 1)));
}

// How many dead letters meet the conditions (none: all of them); runs on the reader thread.
Expected<qint64> countDeadLetters(SqliteReadConnection &store, const SqlConditions &conditions)
{
    const auto statement
        = store.statement("SELECT count(*) FROM dead_letters"_ba + conditions.whereClause());
    if (!statement)
        return Error(statement.error());
    conditions.bind(*statement.value());
    qint64 count = 0;
    const auto read = store.readRows(*statement.value(), [&count](const SqliteStatement &row) {
        count = row.columnInt64(0);
    });
    if (!read)
        return Error(read.error());
    return count;
}

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

struct DeadLetterBrowser::Operation
{
    enum class Kind { Resubmit, Delete, Export };
    Kind kind = Kind::Resubmit;
    Scope scope = Scope::Selected;
    QList<qint64> ids; // Scope::Selected
    qsizetype nextIndex = 0;
    DeadLetterFilter filter; // Scope::AllMatching
    qint64 beforeId = 0;
    bool exhausted = false;
    QString directory; // Kind::Export
    qint64 total = 0;
    int processed = 0;
    QStringList errors;
    QList<qint64> chunk; // in progress
    bool canceled = false;
    QPointer<QProgressDialog> progress;
};

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
    , m_detailCaption(new QLabel(this))
    , m_detail(new QPlainTextEdit(this))
    , m_countingHint(new QTimer(this))
    , m_latestCountRequest(std::make_shared<std::atomic<quint64>>(0))
{
    m_statusLabel->setWordWrap(true);
    m_statusLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_statusLabel->setVisible(false);

    // List.
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setVerticalScrollMode(QAbstractItemView::ScrollPerPixel);
    m_table->setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
    m_table->setAlternatingRowColors(true);
    m_table->setShowGrid(false);
    m_table->setWordWrap(false);
    m_table->setContextMenuPolicy(Qt::CustomContextMenu);
    m_table->verticalHeader()->setVisible(false);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
    QHeaderView *header = m_table->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::Interactive);
    header->setStretchLastSection(true);
    header->setHighlightSections(false);
    const QFontMetrics metrics = fontMetrics();
    const auto width = [&metrics](const QString &sample) {
        return metrics.horizontalAdvance(sample) + 28;
    };
    m_table->setColumnWidth(DeadLetterModel::TimeColumn, width(u"8888-88-88 88:88:88"_s));
    m_table->setColumnWidth(DeadLetterModel::TopicColumn, width(u"orders-topic"_s));
    m_table->setColumnWidth(DeadLetterModel::SubscriptionColumn, width(u"subscription-one"_s));
    m_table->setColumnWidth(DeadLetterModel::EventIdColumn, width(u"9f3c2a1e-7b4d-4c1a-9e"_s));
    m_table->setColumnWidth(DeadLetterModel::EventTypeColumn, width(u"Contoso.Orders.Created"_s));
    m_table->setColumnWidth(DeadLetterModel::ReasonColumn, width(u"MaxDeliveryAttemptsExceeded"_s));
    m_table->setColumnWidth(DeadLetterModel::OutcomeColumn, width(u"PayloadTooLarge"_s) + 12);
    m_table->setColumnWidth(DeadLetterModel::StatusColumn, width(tr("Status")));
    m_table->setColumnWidth(DeadLetterModel::AttemptsColumn, width(tr("Attempts")));

    // Detail.
    m_detail->setReadOnly(true);
    m_detail->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_detail->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_detail->setPlaceholderText(tr("Select a dead letter to see its record."));
    m_highlighter = new DeadLetterRecordHighlighter(m_detail->document(), palette());
    m_detailCaption->setWordWrap(true);
    m_detailCaption->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_detailCaption->setText(tr("Record"));

    createActions();

    auto *detailPane = new QWidget(this);
    auto *detailLayout = new QVBoxLayout(detailPane);
    detailLayout->setContentsMargins(0, 0, 0, 0);
    detailLayout->addWidget(m_detailCaption);
    detailLayout->addWidget(m_detail, 1);

    auto *splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(m_table);
    splitter->addWidget(detailPane);
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
        m_detailId = 0;
        m_detail->clear();
        m_detailCaption->setText(tr("Record"));
        updateActions();
    });
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &DeadLetterBrowser::updateActions);
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, &DeadLetterBrowser::updateActions);
    connect(m_model, &DeadLetterModel::pageLoaded, this, [this](int, const QString &error) {
        if (!error.isEmpty())
            setStatus(error);
        // The first page selects its newest row, so the detail pane is never empty for nothing.
        if (!m_table->currentIndex().isValid() && m_model->rowCount() > 0)
            m_table->setCurrentIndex(m_model->index(0, 0));
    });

    if (m_host) {
        connect(m_host.data(), &EngineHost::workspaceChanged, this,
                &DeadLetterBrowser::rebuildSubscriptionChoices);
        connect(m_host.data(), &EngineHost::started, this, [this](bool ok) {
            rebuildSubscriptionChoices();
            if (ok)
                reload();
        });
    }
    rebuildSubscriptionChoices();
    updateActions();
    reload();
}

DeadLetterBrowser::~DeadLetterBrowser()
{
    if (m_operation && m_operation->progress)
        delete m_operation->progress.data();
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
        action->setToolTip(shortcut.isEmpty()
                               ? toolTip
                               : tr("%1 (%2)").arg(toolTip,
                                                   shortcut.toString(QKeySequence::NativeText)));
        addAction(action);
        return action;
    };
    m_reloadAction = make(tr("Reload"), QStyle::SP_BrowserReload, QKeySequence::Refresh,
                          tr("Read the dead letters and counts again"));
    m_copyAction = make(tr("Copy"), QStyle::SP_FileDialogDetailedView, QKeySequence::Copy,
                        tr("Copy the selected records as JSON"));
    m_resubmitSelectedAction = make(tr("Resubmit"), QStyle::SP_MediaPlay,
                                    QKeySequence(Qt::CTRL | Qt::Key_R),
                                    tr("Deliver the selected events to their subscriptions again"));
    m_resubmitAllAction = make(tr("Resubmit All Matching…"), QStyle::SP_MediaSeekForward,
                               QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R),
                               tr("Deliver every dead letter that matches the filter again"));
    m_deleteSelectedAction = make(tr("Delete"), QStyle::SP_TrashIcon, QKeySequence::Delete,
                                  tr("Remove the selected dead letters from the index"));
    m_deleteAllAction = make(tr("Delete All Matching…"), QStyle::SP_DialogDiscardButton,
                             QKeySequence(Qt::SHIFT | Qt::Key_Delete),
                             tr("Remove every dead letter that matches the filter from the index"));
    m_exportSelectedAction = make(tr("Export…"), QStyle::SP_DialogSaveButton,
                                  QKeySequence(Qt::CTRL | Qt::Key_E),
                                  tr("Write the selected records to a folder, one JSON file each"));
    m_exportAllAction = make(tr("Export All Matching…"), QStyle::SP_DriveHDIcon,
                             QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E),
                             tr("Write every matching record to a folder, one JSON file each"));
    m_openFolderAction = make(tr("Open Blob Folder"), QStyle::SP_DirOpenIcon,
                              QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O),
                              tr("Show the folder of the current dead letter's blob (a blob in Azure Storage opens in a viewer)"));
    addAction(m_filterBar->findAction());

    connect(m_reloadAction, &QAction::triggered, this, &DeadLetterBrowser::reload);
    connect(m_copyAction, &QAction::triggered, this, &DeadLetterBrowser::copySelection);
    connect(m_resubmitSelectedAction, &QAction::triggered, this, [this] { resubmit(Scope::Selected); });
    connect(m_resubmitAllAction, &QAction::triggered, this, [this] { resubmit(Scope::AllMatching); });
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

DeadLetterFilter DeadLetterBrowser::filterFromControls() const
{
    const FilterQuery query = m_filterBar->query();
    DeadLetterFilter filter;
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
    const DeadLetterFilter filter = filterFromControls();
    if (filter == m_model->filter())
        return;
    m_model->setFilter(filter);
    requestCounts();
}

void DeadLetterBrowser::reload()
{
    const QString path = m_host ? m_host->storePath() : QString();
    m_reader->setStorePath(path);
    m_countReader->setStorePath(path);
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
    if (m_countReader->storePath().isEmpty()) {
        m_countsKnown = true;
        m_total = m_matching = 0;
        showCounts();
        return;
    }
    // Counting with a text filter reads every record; a count that is already obsolete when its
    // turn comes is skipped.
    m_latestCountRequest->store(generation);
    const std::shared_ptr<std::atomic<quint64>> latest = m_latestCountRequest;
    const DeadLetterFilter filter = m_model->filter();
    m_countReader->run(this, [this, generation, latest, filter](
                                 const Expected<SqliteReadConnection *> &store)
                                 -> StoreReader::Continuation {
        if (latest->load() != generation)
            return {};
        qint64 total = 0;
        qint64 matching = 0;
        QString error;
        if (!store) {
            error = store.error();
        } else if (const auto all = countDeadLetters(*store.value(), SqlConditions()); !all) {
            error = all.error();
        } else {
            total = matching = all.value();
            if (!filter.isEmpty()) {
                const auto matched = countDeadLetters(*store.value(), filter.conditions(0));
                if (matched)
                    matching = matched.value();
                else
                    error = matched.error();
            }
        }
        return [this, generation, total, matching, error] {
            if (generation != m_countGeneration)
                return;
            m_countingHint->stop();
            m_countsKnown = true;
            m_total = total;
            m_matching = matching;
            m_countError = error;
            showCounts();
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
    m_filterBar->setSummary(m_model->filter().isEmpty()
                                ? total
                                : tr("%1, %2 match").arg(total, locale.toString(m_matching)));
}

void DeadLetterBrowser::setStatus(const QString &text)
{
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

void DeadLetterBrowser::updateActions()
{
    const bool busy = m_operation != nullptr;
    const bool hasSelection = m_table->selectionModel()->hasSelection();
    const bool hasRows = m_model->rowCount() > 0;
    for (QAction *action : {m_copyAction, m_resubmitSelectedAction, m_deleteSelectedAction,
                            m_exportSelectedAction})
        action->setEnabled(!busy && hasSelection);
    for (QAction *action : {m_resubmitAllAction, m_deleteAllAction, m_exportAllAction})
        action->setEnabled(!busy && hasRows);
    m_openFolderAction->setEnabled(m_table->currentIndex().isValid());
    m_reloadAction->setEnabled(!busy);
}

void DeadLetterBrowser::showDetail()
{
    const QModelIndex current = m_table->currentIndex();
    updateActions();
    const qint64 id = current.isValid() ? current.data(DeadLetterModel::IdRole).toLongLong() : 0;
    if (id == m_detailId)
        return;
    m_detailId = id;
    const quint64 generation = ++m_detailGeneration;
    if (id == 0) {
        m_detail->clear();
        m_detailCaption->setText(tr("Record"));
        return;
    }
    const DeadLetterEntry &entry = m_model->entry(current.row());
    m_detailCaption->setText(tr("<b>Event %1</b> · dead letter %2 · blob <i>%3</i>")
                                 .arg(entry.eventId.toHtmlEscaped())
                                 .arg(id)
                                 .arg(entry.blobPath.toHtmlEscaped()));
    m_reader->run(this, [this, id, generation](const Expected<SqliteReadConnection *> &store)
                            -> StoreReader::Continuation {
        QByteArray record;
        QString error;
        bool found = false;
        if (!store) {
            error = store.error();
        } else if (const auto read = store.value()->select(
                       "SELECT record FROM dead_letters WHERE id = ?"_ba,
                       [&](const SqliteStatement &row) {
                           found = true;
                           record = row.columnBlob(0);
                       },
                       id);
                   !read) {
            error = read.error();
        }
        QString text = found ? prettyJson(record) : QString();
        return [this, id, generation, text = std::move(text), error, found] {
            if (generation != m_detailGeneration)
                return;
            if (!error.isEmpty())
                m_detail->setPlainText(error);
            else if (!found)
                m_detail->setPlainText(tr("This dead letter is no longer in the store (resubmitted "
                                          "or deleted). Reload to refresh the list."));
            else
                m_detail->setPlainText(text);
            Q_EMIT detailShown(id);
        };
    });
}

void DeadLetterBrowser::withMatchingCount(std::function<void(qint64)> then)
{
    if (m_countsKnown) {
        then(m_countError.isEmpty() ? m_matching : -1);
        return;
    }
    m_waitingForCount.append(std::move(then));
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
    const QList<qint64> ids = selectedIds();
    if (ids.isEmpty())
        return;
    m_reader->run(this, [this, ids](const Expected<SqliteReadConnection *> &store)
                            -> StoreReader::Continuation {
        QByteArrayList records;
        QString error;
        if (!store) {
            error = store.error();
        } else {
            const auto statement = store.value()->statement(
                "SELECT record FROM dead_letters WHERE id IN ("_ba + chunkPlaceholders()
                + ") ORDER BY id DESC"_ba);
            if (!statement)
                error = statement.error();
            for (qsizetype start = 0; start < ids.size() && error.isEmpty(); start += OperationChunk) {
                bindChunk(*statement.value(), ids.mid(start, OperationChunk));
                const auto read = store.value()->readRows(
                    *statement.value(),
                    [&records](const SqliteStatement &row) { records.append(row.columnBlob(0)); });
                if (!read)
                    error = read.error();
            }
        }
        const QString text = records.size() == 1 ? prettyJson(records.constFirst())
                                                 : prettyJson('[' + records.join(',') + ']');
        const int count = int(records.size());
        return [this, text, count, error] {
            if (!error.isEmpty()) {
                setStatus(error);
                return;
            }
            QApplication::clipboard()->setText(text);
            setStatus(tr("Copied %n record(s) to the clipboard.", nullptr, count));
        };
    });
}

void DeadLetterBrowser::openBlobFolder()
{
    const QModelIndex current = m_table->currentIndex();
    if (!current.isValid() || !m_host)
        return;
    const QString blobPath = current.data(DeadLetterModel::BlobPathRole).toString();
    // A blob in an Azure Storage container (or Azurite) is read back through the engine, signed
    // with the account key, and shown as the record of truth.
    const QString topicName = current.siblingAtColumn(DeadLetterModel::TopicColumn).data().toString();
    const QString subscriptionName = current.siblingAtColumn(DeadLetterModel::SubscriptionColumn).data().toString();
    if (const Topic *topic = m_host->workspace().findTopic(topicName)) {
        for (const EventSubscription &subscription : topic->eventSubscriptions) {
            if (subscription.name.compare(subscriptionName, Qt::CaseInsensitive) != 0
                || subscription.deadLetterDestination.kind != DeadLetterDestination::Kind::AzureBlob)
                continue;
            const DeadLetterDestination destination = subscription.deadLetterDestination;
            QPointer<DeadLetterBrowser> self(this);
            setStatus(tr("Reading blob %1…").arg(blobPath));
            m_host->readDeadLetterBlob(destination, blobPath, [self, destination, blobPath](const Expected<QByteArray> &blob) {
                if (!self)
                    return;
                if (!blob) {
                    self->setStatus(tr("Could not read blob %1: %2").arg(blobPath, blob.error()));
                    return;
                }
                self->setStatus(QString());
                auto *viewer = new QPlainTextEdit;
                viewer->setAttribute(Qt::WA_DeleteOnClose);
                viewer->setWindowFlag(Qt::Window);
                viewer->setReadOnly(true);
                viewer->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
                viewer->setWindowTitle(tr("Blob %1").arg(DeadLetterRouter::blobLocation(destination, blobPath, QString()).toString()));
                viewer->setPlainText(prettyJson(blob.value()));
                viewer->resize(760, 560);
                viewer->show();
            });
            return;
        }
    }
    const QString root = QDir(m_host->config().workspaceDirectory).filePath(u"deadletters"_s);
    const QString folder = QFileInfo(QDir(root).filePath(blobPath)).absolutePath();
    if (blobPath.isEmpty() || !QFileInfo(folder).isDir()) {
        setStatus(tr("The folder %1 does not exist: the blob was written to a remote container, or "
                     "the folder was moved.")
                      .arg(QDir::toNativeSeparators(folder)));
        return;
    }
    if (!QDesktopServices::openUrl(QUrl::fromLocalFile(folder)))
        setStatus(tr("Could not open %1.").arg(QDir::toNativeSeparators(folder)));
}

void DeadLetterBrowser::resubmit(Scope scope)
{
    if (m_operation)
        return;
    auto operation = std::make_unique<Operation>();
    operation->kind = Operation::Kind::Resubmit;
    operation->scope = scope;
    if (scope == Scope::Selected) {
        operation->ids = selectedIds();
        operation->total = operation->ids.size();
        if (operation->ids.isEmpty())
            return;
        if (operation->ids.size() > 1
            && QMessageBox::question(
                   this, tr("Resubmit Dead Letters"),
                   tr("Resubmit %n dead letter(s) to their subscriptions?", nullptr,
                      int(operation->ids.size())))
                != QMessageBox::Yes)
            return;
        startOperation(std::move(operation));
        return;
    }
    operation->filter = m_model->filter();
    std::shared_ptr<Operation> pending(operation.release());
    withMatchingCount([this, pending](qint64 matching) {
        if (matching < 0) {
            setStatus(tr("The dead letters could not be counted: %1").arg(m_countError));
            return;
        }
        if (matching == 0) {
            setStatus(tr("No dead letter matches the filter."));
            return;
        }
        if (QMessageBox::question(this, tr("Resubmit All Matching"),
                                  tr("Resubmit all %1 dead letters that match the filter to their "
                                     "subscriptions?")
                                      .arg(QLocale().toString(matching)))
            != QMessageBox::Yes)
            return;
        auto operation = std::make_unique<Operation>(std::move(*pending));
        operation->total = matching;
        operation->filter = m_model->filter();
        startOperation(std::move(operation));
    });
}

void DeadLetterBrowser::remove(Scope scope)
{
    if (m_operation)
        return;
    auto operation = std::make_unique<Operation>();
    operation->kind = Operation::Kind::Delete;
    operation->scope = scope;
    if (scope == Scope::Selected) {
        operation->ids = selectedIds();
        operation->total = operation->ids.size();
        if (operation->ids.isEmpty())
            return;
        if (QMessageBox::question(this, tr("Delete Dead Letters"),
                                  tr("Delete %n dead letter(s)? They leave the index and can no "
                                     "longer be resubmitted from EventDesk; the blob files stay.",
                                     nullptr, int(operation->ids.size())))
            != QMessageBox::Yes)
            return;
        startOperation(std::move(operation));
        return;
    }
    std::shared_ptr<Operation> pending(operation.release());
    withMatchingCount([this, pending](qint64 matching) {
        if (matching <= 0) {
            setStatus(matching < 0 ? tr("The dead letters could not be counted: %1").arg(m_countError)
                                   : tr("No dead letter matches the filter."));
            return;
        }
        if (QMessageBox::question(this, tr("Delete All Matching"),
                                  tr("Delete all %1 dead letters that match the filter? They leave "
                                     "the index; the blob files stay.")
                                      .arg(QLocale().toString(matching)))
            != QMessageBox::Yes)
            return;
        auto operation = std::make_unique<Operation>(std::move(*pending));
        operation->total = matching;
        operation->filter = m_model->filter();
        startOperation(std::move(operation));
    });
}

void DeadLetterBrowser::exportDeadLetters(Scope scope)
{
    if (m_operation)
        return;
    const QString directory = QFileDialog::getExistingDirectory(
        this, scope == Scope::Selected ? tr("Export Selected Dead Letters")
                                       : tr("Export All Matching Dead Letters"));
    if (!directory.isEmpty())
        exportTo(directory, scope);
}

void DeadLetterBrowser::exportTo(const QString &directory, Scope scope)
{
    if (m_operation)
        return;
    auto operation = std::make_unique<Operation>();
    operation->kind = Operation::Kind::Export;
    operation->scope = scope;
    operation->directory = directory;
    if (scope == Scope::Selected) {
        operation->ids = selectedIds();
        operation->total = operation->ids.size();
        if (!operation->ids.isEmpty())
            startOperation(std::move(operation));
        return;
    }
    std::shared_ptr<Operation> pending(operation.release());
    withMatchingCount([this, pending](qint64 matching) {
        auto operation = std::make_unique<Operation>(std::move(*pending));
        operation->total = std::max<qint64>(matching, 0);
        operation->filter = m_model->filter();
        startOperation(std::move(operation));
    });
}

void DeadLetterBrowser::startOperation(std::unique_ptr<Operation> operation)
{
    if (m_operation)
        return;
    m_operation = std::move(operation);
    Operation &op = *m_operation;
    QString label;
    switch (op.kind) {
    case Operation::Kind::Resubmit:
        label = tr("Resubmitting dead letters…");
        break;
    case Operation::Kind::Delete:
        label = tr("Deleting dead letters…");
        break;
    case Operation::Kind::Export:
        label = tr("Exporting dead letters to %1…").arg(QDir::toNativeSeparators(op.directory));
        if (!QDir().mkpath(op.directory)) {
            op.errors << tr("Could not create the folder %1.").arg(QDir::toNativeSeparators(op.directory));
            finishOperation();
            return;
        }
        break;
    }
    auto *progress = new QProgressDialog(label, tr("Cancel"), 0, int(std::max<qint64>(op.total, 1)),
                                         this);
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
    updateActions();
    nextChunk();
}

void DeadLetterBrowser::nextChunk()
{
    Operation &op = *m_operation;
    if (op.canceled || op.exhausted) {
        finishOperation();
        return;
    }
    if (op.scope == Scope::Selected) {
        const QList<qint64> chunk = op.ids.mid(op.nextIndex, OperationChunk);
        op.nextIndex += chunk.size();
        op.exhausted = op.nextIndex >= op.ids.size();
        if (chunk.isEmpty())
            finishOperation();
        else
            processChunk(chunk);
        return;
    }
    // All matching: the next ids by keyset. Resubmitted and deleted rows leave the index, and rows
    // that failed stay behind the keyset, so each one is taken once.
    const DeadLetterFilter filter = op.filter;
    const qint64 beforeId = op.beforeId;
    m_reader->run(this, [this, filter, beforeId](const Expected<SqliteReadConnection *> &store)
                            -> StoreReader::Continuation {
        QList<qint64> ids;
        QString error;
        if (!store) {
            error = store.error();
        } else {
            const SqlConditions conditions = filter.conditions(beforeId);
            const auto statement = store.value()->statement(
                "SELECT id FROM dead_letters"_ba + conditions.whereClause()
                + " ORDER BY id DESC LIMIT ?"_ba);
            if (!statement) {
                error = statement.error();
            } else {
                statement.value()->bind(conditions.bind(*statement.value()) + 1, OperationChunk);
                const auto read = store.value()->readRows(
                    *statement.value(),
                    [&ids](const SqliteStatement &row) { ids.append(row.columnInt64(0)); });
                if (!read)
                    error = read.error();
            }
        }
        return [this, ids, error] {
            if (!m_operation)
                return;
            Operation &op = *m_operation;
            if (!error.isEmpty())
                op.errors << error;
            if (ids.isEmpty() || !error.isEmpty()) {
                finishOperation();
                return;
            }
            op.beforeId = ids.constLast();
            op.exhausted = ids.size() < OperationChunk;
            processChunk(ids);
        };
    });
}

void DeadLetterBrowser::processChunk(const QList<qint64> &ids)
{
    Operation &op = *m_operation;
    op.chunk = ids;
    QPointer<DeadLetterBrowser> self(this);
    switch (op.kind) {
    case Operation::Kind::Resubmit:
        if (!m_host) {
            chunkDone(0, {tr("The engine is not running.")});
            return;
        }
        m_host->resubmitDeadLetters(ids, [self](const ResubmitResult &result) {
            if (self)
                self->chunkDone(result.resubmitted, result.errors);
        });
        return;
    case Operation::Kind::Delete:
        if (!m_host) {
            chunkDone(0, {tr("The engine is not running.")});
            return;
        }
        m_host->removeDeadLetters(ids, [self, count = int(ids.size())](const Expected<void> &result) {
            if (!self)
                return;
            if (result)
                self->chunkDone(count, {});
            else
                self->chunkDone(0, {result.error()});
        });
        return;
    case Operation::Kind::Export:
        break;
    }
    const QString directory = op.directory;
    m_reader->run(this, [this, ids, directory](const Expected<SqliteReadConnection *> &store)
                            -> StoreReader::Continuation {
        int written = 0;
        QStringList errors;
        if (!store) {
            errors << store.error();
        } else {
            const QDir target(directory);
            const auto statement = store.value()->statement(
                "SELECT id, event_id, record FROM dead_letters WHERE id IN ("_ba
                + chunkPlaceholders() + ") ORDER BY id DESC"_ba);
            if (!statement) {
                errors << statement.error();
            } else {
                bindChunk(*statement.value(), ids);
                const auto writeFile = [&](const SqliteStatement &row) {
                    const qint64 id = row.columnInt64(0);
                    const QString path = target.filePath(exportFileName(id, row.columnText(1)));
                    QSaveFile file(path);
                    const QByteArray bytes = prettyJson(row.columnBlob(2)).toUtf8() + '\n';
                    if (file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size()
                        && file.commit()) {
                        ++written;
                    } else {
                        errors << tr("Could not write %1: %2")
                                      .arg(QDir::toNativeSeparators(path), file.errorString());
                    }
                };
                if (const auto read = store.value()->readRows(*statement.value(), writeFile); !read)
                    errors << read.error();
            }
        }
        return [this, written, errors] {
            if (m_operation)
                chunkDone(written, errors);
        };
    });
}

void DeadLetterBrowser::chunkDone(int processed, const QStringList &errors)
{
    if (!m_operation)
        return;
    Operation &op = *m_operation;
    op.processed += processed;
    op.errors += errors;
    // Rows that are gone leave the list at once (the list reloads at the end where that is
    // simpler than tracking each row).
    if (op.kind != Operation::Kind::Export && op.scope == Scope::Selected && errors.isEmpty())
        m_model->removeIds(op.chunk);
    if (op.progress) {
        if (op.processed > op.progress->maximum())
            op.progress->setMaximum(op.processed);
        op.progress->setValue(op.processed);
    }
    // setValue() of a modal progress dialog processes events; Cancel may have finished it.
    if (m_operation)
        nextChunk();
}

void DeadLetterBrowser::finishOperation()
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
    switch (op->kind) {
    case Operation::Kind::Resubmit:
        message = tr("Resubmitted %1 dead letters to their subscriptions.")
                      .arg(locale.toString(op->processed));
        break;
    case Operation::Kind::Delete:
        message = tr("Deleted %1 dead letters.").arg(locale.toString(op->processed));
        break;
    case Operation::Kind::Export:
        message = tr("Exported %1 dead letters to %2.")
                      .arg(locale.toString(op->processed), QDir::toNativeSeparators(op->directory));
        break;
    }
    if (op->canceled)
        message += u' ' + tr("Canceled before the end.");
    if (!op->errors.isEmpty()) {
        message += u' ' + tr("%n problem(s); the first: %1", nullptr, int(op->errors.size()))
                              .arg(op->errors.constFirst());
        auto *box = new QMessageBox(QMessageBox::Warning, tr("Dead Letters"), message,
                                    QMessageBox::Ok, this);
        QStringList listed = op->errors.mid(0, MaxErrorsListed);
        if (op->errors.size() > MaxErrorsListed)
            listed << tr("… and %n more", nullptr, int(op->errors.size() - MaxErrorsListed));
        box->setDetailedText(listed.join(u'\n'));
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    }
    setStatus(message);
    updateActions();
    if (op->kind != Operation::Kind::Export) {
        if (op->scope == Scope::AllMatching || !op->errors.isEmpty())
            m_model->reload();
        requestCounts();
    }
    Q_EMIT operationFinished(op->processed, op->errors);
}

} // namespace EventDesk::Ui
