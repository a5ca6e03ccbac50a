// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "DeliveryLogView.h"

#include "DeliveryLogModel.h"
#include "StoreReader.h"
#include "common/FilterBar.h"
#include "common/RecordTable.h"
#include "store/DeliveryStore.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QScrollBar>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {

// QTableView keeps its scroll range stale until its delayed layout runs; restoring a position
// right after a change needs the range now.
class LogTableView final : public QTableView
{
public:
    using QTableView::QTableView;
    void syncGeometry() { updateGeometries(); }
};

// The event id filter runs over rows in memory: a short pause is enough.
constexpr std::chrono::milliseconds SearchDelay {200};

// The outcomes a webhook attempt can have (SPEC §7), success first, then by family.
constexpr DeliveryOutcome webhookOutcomes[] = {
    DeliveryOutcome::Delivered,       DeliveryOutcome::Busy,
    DeliveryOutcome::TimedOut,        DeliveryOutcome::NotFound,
    DeliveryOutcome::GenericError,    DeliveryOutcome::BadRequest,
    DeliveryOutcome::Unauthorized,    DeliveryOutcome::Forbidden,
    DeliveryOutcome::PayloadTooLarge, DeliveryOutcome::SocketError,
    DeliveryOutcome::ResolutionError, DeliveryOutcome::Aborted,
    DeliveryOutcome::Probation,       DeliveryOutcome::Canceled,
};

} // namespace

struct DeliveryLogView::ScrollAnchor
{
    enum class Mode { FollowNewest, StayAtTop, KeepRow };
    Mode mode = Mode::FollowNewest;
    qint64 sequence = -1; // KeepRow: the source row at the top of the viewport
    int viewportTop = 0; // and where it was drawn
};

DeliveryLogView::DeliveryLogView(QWidget *parent)
    : QWidget(parent)
    , m_model(new DeliveryLogModel(this))
    , m_filter(new DeliveryLogFilterModel(this))
    , m_reader(new StoreReader(this))
    , m_table(new LogTableView(this))
    , m_statusLabel(new QLabel(this))
    , m_countTimer(new QTimer(this))
{
    m_filter->setSourceModel(m_model);

    FilterBar::Fields fields;
    fields.text = FilterBar::TextField {
        tr("Filter by event id…"),
        tr("Show only attempts that carried an event whose id contains this text")};
    fields.subscription = tr("Show the attempts of one subscription");
    fields.outcome = FilterBar::OutcomeField {
        tr("All outcomes"),
        QList<DeliveryOutcome>(std::cbegin(webhookOutcomes), std::cend(webhookOutcomes)),
        tr("Show the attempts with one outcome")};
    fields.onlyFailures = tr("Hide successful deliveries");
    fields.typingDelay = SearchDelay;
    m_filterBar = new FilterBar(fields, this);
    addAction(m_filterBar->findAction());

    m_statusLabel->setVisible(false);
    m_statusLabel->setWordWrap(true);

    m_table->setModel(m_filter);
    setupRecordTable(m_table, fontMetrics());
    QHeaderView *header = m_table->horizontalHeader();
    header->setSortIndicator(DeliveryLogModel::TimeColumn, Qt::AscendingOrder);
    // Shown next to the subscription, where it is read with it (see setStoreLocation()).
    header->moveSection(header->visualIndex(DeliveryLogModel::InstanceColumn),
                        header->visualIndex(DeliveryLogModel::SubscriptionColumn) + 1);
    m_table->setColumnHidden(DeliveryLogModel::InstanceColumn, true);
    m_table->setSortingEnabled(true);
    m_table->setToolTip(tr("Double-click or press Enter to inspect the event's history"));

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_filterBar);
    layout->addWidget(m_statusLabel);
    layout->addWidget(m_table, 1);

    connect(m_filterBar, &FilterBar::queryChanged, this, &DeliveryLogView::applyQuery);
    connect(m_model, &DeliveryLogModel::subscriptionsChanged, this,
            [this] { m_filterBar->setSubscriptions(m_model->subscriptions()); });
    connect(m_table, &QTableView::activated, this, &DeliveryLogView::inspectRow);
    connect(m_table, &QWidget::customContextMenuRequested, this, &DeliveryLogView::showContextMenu);

    // The count is refreshed at most a few times per second, whatever the rate of attempts.
    m_countTimer->setSingleShot(true);
    m_countTimer->setInterval(150);
    connect(m_countTimer, &QTimer::timeout, this, &DeliveryLogView::updateCountLabel);
    const auto scheduleCount = [this] {
        if (!m_countTimer->isActive())
            m_countTimer->start();
    };
    connect(m_filter, &QAbstractItemModel::rowsInserted, this, scheduleCount);
    connect(m_filter, &QAbstractItemModel::rowsRemoved, this, scheduleCount);
    connect(m_filter, &QAbstractItemModel::modelReset, this, scheduleCount);
    updateCountLabel();
}

DeliveryLogView::~DeliveryLogView() = default;

void DeliveryLogView::setStoreLocation(const QString &location)
{
    const quint64 generation = ++m_historyGeneration;
    m_model->clear();
    m_liveWhileLoading.clear();
    m_newestStoredId = 0;
    m_reader->setStoreLocation(location);
    // Only a shared store records who made an attempt.
    m_table->setColumnHidden(DeliveryLogModel::InstanceColumn, !isPostgresLocation(location));
    m_loadingHistory = !location.isEmpty();
    m_statusLabel->setVisible(false);
    if (!m_loadingHistory)
        return;
    updateCountLabel();
    m_reader->run(this,
                  [this, generation](
                      const Expected<DeliveryStoreReader *> &store) -> StoreReader::Continuation {
                      QList<AttemptLogEntry> entries;
                      QString error;
                      if (!store) {
                          error = store.error();
                      } else if (auto read = store.value()->newestAttempts(HistoryRows); !read) {
                          error = read.error();
                      } else {
                          entries = std::move(read.value());
                          std::reverse(entries.begin(), entries.end());
                      }
                      return [this, generation, entries = std::move(entries), error]() mutable {
                          historyArrived(generation, std::move(entries), error);
                      };
                  });
}

void DeliveryLogView::setInstances(const QList<InstanceStatus> &instances)
{
    QHash<qint64, QString> names;
    for (const InstanceStatus &instance : instances)
        names.insert(instance.id, instance.hostName);
    m_model->setInstanceNames(names);
}

bool DeliveryLogView::showsInstances() const
{
    return !m_table->isColumnHidden(DeliveryLogModel::InstanceColumn);
}

void DeliveryLogView::historyArrived(quint64 generation, QList<AttemptLogEntry> entries,
                                     const QString &error)
{
    if (generation != m_historyGeneration)
        return;
    m_loadingHistory = false;
    if (!error.isEmpty()) {
        m_statusLabel->setText(error);
        m_statusLabel->setVisible(true);
    }
    if (!m_liveWhileLoading.isEmpty()) {
        entries.removeIf([this](const AttemptLogEntry &entry) {
            return m_liveWhileLoading.contains(attemptIdentity(entry));
        });
        m_liveWhileLoading.clear();
    }
    for (const AttemptLogEntry &entry : std::as_const(entries))
        m_newestStoredId = std::max(m_newestStoredId, entry.id);
    const ScrollAnchor anchor = captureScroll();
    m_model->prependHistory(entries);
    restoreScroll(anchor);
    updateCountLabel();
    Q_EMIT historyLoaded(int(entries.size()), error);
}

void DeliveryLogView::appendAttempts(const QList<AttemptLogEntry> &liveEntries)
{
    QList<AttemptLogEntry> entries = liveEntries;
    // A monitor reads new rows from the store while the history, read on another connection, may
    // already hold them.
    if (!m_loadingHistory && m_newestStoredId > 0) {
        entries.removeIf([this](const AttemptLogEntry &entry) {
            return entry.id > 0 && entry.id <= m_newestStoredId;
        });
    }
    if (entries.isEmpty())
        return;
    for (const AttemptLogEntry &entry : std::as_const(entries))
        m_newestStoredId = std::max(m_newestStoredId, entry.id);
    if (m_loadingHistory) {
        for (const AttemptLogEntry &entry : entries)
            m_liveWhileLoading.insert(attemptIdentity(entry));
    }
    const ScrollAnchor anchor = captureScroll();
    m_model->append(entries);
    restoreScroll(anchor);
}

DeliveryLogView::ScrollAnchor DeliveryLogView::captureScroll() const
{
    ScrollAnchor anchor;
    const QScrollBar *bar = m_table->verticalScrollBar();
    if (bar->value() >= bar->maximum()) {
        anchor.mode = ScrollAnchor::Mode::FollowNewest;
        return anchor;
    }
    if (bar->value() <= bar->minimum()) {
        anchor.mode = ScrollAnchor::Mode::StayAtTop;
        return anchor;
    }
    const QModelIndex top = m_table->indexAt(QPoint(1, 1));
    if (!top.isValid()) {
        anchor.mode = ScrollAnchor::Mode::StayAtTop;
        return anchor;
    }
    anchor.mode = ScrollAnchor::Mode::KeepRow;
    anchor.sequence = m_model->sequence(m_filter->mapToSource(top).row());
    anchor.viewportTop = m_table->rowViewportPosition(top.row());
    return anchor;
}

void DeliveryLogView::restoreScroll(const ScrollAnchor &anchor)
{
    QScrollBar *bar = m_table->verticalScrollBar();
    switch (anchor.mode) {
    case ScrollAnchor::Mode::FollowNewest:
        m_table->scrollToBottom();
        return;
    case ScrollAnchor::Mode::StayAtTop:
        bar->setValue(bar->minimum());
        return;
    case ScrollAnchor::Mode::KeepRow:
        break;
    }
    static_cast<LogTableView *>(m_table)->syncGeometry();
    const int sourceRow = m_model->rowOfSequence(anchor.sequence);
    if (sourceRow < 0) {
        // The row left the ring: the oldest row still there is the closest.
        bar->setValue(bar->minimum());
        return;
    }
    const QModelIndex proxyIndex = m_filter->mapFromSource(m_model->index(sourceRow, 0));
    if (!proxyIndex.isValid())
        return;
    const int shift = m_table->rowViewportPosition(proxyIndex.row()) - anchor.viewportTop;
    if (shift != 0)
        bar->setValue(bar->value() + shift);
}

void DeliveryLogView::setFilterSubscription(const QString &topic, const QString &subscription)
{
    m_filterBar->setSubscription(topic, subscription);
}

void DeliveryLogView::applyQuery(const FilterQuery &query)
{
    // Each setter filters again only when its own condition changed.
    m_filter->setSubscription(query.topic, query.subscription);
    m_filter->setOutcome(query.outcome);
    m_filter->setEventIdText(query.text);
    m_filter->setOnlyFailures(query.onlyFailures);
    updateCountLabel();
}

void DeliveryLogView::updateCountLabel()
{
    const QLocale locale;
    const int total = m_model->rowCount();
    const int shown = m_filter->rowCount();
    QString text = shown == total
        ? tr("%1 attempts").arg(locale.toString(total))
        : tr("%1 of %2 attempts").arg(locale.toString(shown), locale.toString(total));
    if (m_loadingHistory)
        text += tr(" (loading history…)");
    m_filterBar->setSummary(
        text, tr("The log keeps the newest %1 attempts").arg(locale.toString(m_model->capacity())));
}

void DeliveryLogView::inspectRow(const QModelIndex &proxyIndex)
{
    if (!proxyIndex.isValid())
        return;
    const QStringList ids = proxyIndex.siblingAtColumn(DeliveryLogModel::EventsColumn)
                                .data(DeliveryLogModel::EventIdsRole)
                                .toStringList();
    if (!ids.isEmpty())
        Q_EMIT inspectEventRequested(ids.constFirst());
}

void DeliveryLogView::showContextMenu(const QPoint &position)
{
    const QModelIndex index = m_table->indexAt(position);
    if (!index.isValid())
        return;
    const QStringList ids = index.data(DeliveryLogModel::EventIdsRole).toStringList();
    const int sourceRow = m_filter->mapToSource(index).row();
    const AttemptLogEntry attempt = m_model->entry(sourceRow);

    QMenu menu(this);
    constexpr int MaxListed = 10;
    for (qsizetype i = 0; i < ids.size() && i < MaxListed; ++i) {
        const QString id = ids.at(i);
        QAction *inspect = menu.addAction(tr("Inspect event %1").arg(id));
        connect(inspect, &QAction::triggered, this,
                [this, id] { Q_EMIT inspectEventRequested(id); });
        if (i == 0)
            menu.setDefaultAction(inspect);
    }
    menu.addSeparator();
    QAction *copyIds = menu.addAction(tr("Copy event ids"));
    connect(copyIds, &QAction::triggered, this,
            [ids] { QApplication::clipboard()->setText(ids.join(u'\n')); });
    QAction *onlyThis
        = menu.addAction(tr("Show only %1 / %2").arg(attempt.topic, attempt.subscription));
    connect(onlyThis, &QAction::triggered, this,
            [this, attempt] { setFilterSubscription(attempt.topic, attempt.subscription); });
    menu.exec(m_table->viewport()->mapToGlobal(position));
}

} // namespace EventDesk::Ui
