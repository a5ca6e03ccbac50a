// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "host/StoreOpener.h"
#include "store/DeliveryStore.h"

#include <QList>
#include <QSet>
#include <QString>
#include <QWidget>

class QLabel;
class QTableView;
class QTimer;

namespace EventDesk::Ui {

class DeliveryLogFilterModel;
class FilterBar;
struct FilterQuery;
class DeliveryLogModel;
class StoreReader;

// docs/user-guide.md "Delivery log": every attempt (time, subscription, attempt number, status
// code, outcome, duration, next due), filterable. History comes from the store's attempt_log (read
// on a thread of its own); live rows come from EngineHost::attemptsLogged.
class DeliveryLogView final : public QWidget
{
    Q_OBJECT

public:
    // How much history setStoreLocation() loads (the newest rows of attempt_log).
    static constexpr int HistoryRows = 20000;

    explicit DeliveryLogView(QWidget *parent = nullptr);
    ~DeliveryLogView() override;

    // Loads the newest history of this store without blocking; rows appended meanwhile stay.
    // A PostgreSQL store shows the instance column (which instance made each attempt).
    void setStoreLocation(const QString &location);
    // A shared store's instances (EngineHost::instancesChanged): their host names in the
    // instance column.
    void setInstances(const QList<EventDesk::InstanceStatus> &instances);
    bool showsInstances() const;
    // Live rows (EngineHost::attemptsLogged), oldest first. Rows read from the store (a read-only
    // monitor's: they carry their store id) that the history already holds are left out.
    void appendAttempts(const QList<EventDesk::AttemptLogEntry> &entries);

    // Narrows the log to one subscription (empty: all), e.g. from the workspace tree.
    void setFilterSubscription(const QString &topic, const QString &subscription);

    bool isLoadingHistory() const { return m_loadingHistory; }
    DeliveryLogModel *logModel() const { return m_model; }
    DeliveryLogFilterModel *filterModel() const { return m_filter; }
    QTableView *tableView() const { return m_table; }
    FilterBar *filterBar() const { return m_filterBar; }

Q_SIGNALS:
    void inspectEventRequested(const QString &eventId);
    // setStoreLocation()'s history is in the view (rows: how many were read), or could not be read.
    void historyLoaded(int rows, const QString &error);

private:
    struct ScrollAnchor;
    ScrollAnchor captureScroll() const;
    void restoreScroll(const ScrollAnchor &anchor);
    void applyQuery(const FilterQuery &query);
    void updateCountLabel();
    void showContextMenu(const QPoint &position);
    void inspectRow(const QModelIndex &proxyIndex);
    void historyArrived(quint64 generation, QList<AttemptLogEntry> entries, const QString &error);

    DeliveryLogModel *m_model = nullptr;
    DeliveryLogFilterModel *m_filter = nullptr;
    StoreReader *m_reader = nullptr;
    QTableView *m_table = nullptr;
    FilterBar *m_filterBar = nullptr;
    QLabel *m_statusLabel = nullptr;
    QTimer *m_countTimer = nullptr;

    quint64 m_historyGeneration = 0;
    bool m_loadingHistory = false;
    // Live rows that arrived while the history was being read; the store may already hold them.
    QSet<QString> m_liveWhileLoading;
    // The newest store id of a row in the view (0: none came from the store).
    qint64 m_newestStoredId = 0;
};

} // namespace EventDesk::Ui
