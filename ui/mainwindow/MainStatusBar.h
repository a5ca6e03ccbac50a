// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "common/SteadyLabel.h"
#include "engine/EngineSnapshot.h"
#include "store/StoreTotals.h"

#include <QList>
#include <QObject>

#include <optional>

class QLabel;
class QStatusBar;

namespace EventDesk {
class SecretStore;
struct SecretProblem;
} // namespace EventDesk

namespace EventDesk::Ui {

// The totals of all topics and subscriptions in one engine snapshot: what the engine (or a monitor)
// counted since it started.
struct SnapshotTotals
{
    quint64 published = 0;
    quint64 delivered = 0;
    quint64 failedAttempts = 0;
    quint64 deadLettered = 0;
    quint64 dropped = 0;
    int inProbation = 0; // subscriptions

    static SnapshotTotals of(const EventDesk::EngineSnapshot &snapshot);
};

// The main window's status bar: what the engine is doing, where the topic endpoint listens,
// whether secrets can be kept, and the totals of the workspace's store. Every item is short (a few
// words, the details in its tooltip) so that none cuts another: whole messages go to the
// window's banners (WindowNotices).
class MainStatusBar final : public QObject
{
    Q_OBJECT

public:
    explicit MainStatusBar(QStatusBar *bar);
    ~MainStatusBar() override;

    // "Starting engine…", "Engine running", ...
    void setEngineState(const QString &text);
    // A read-only monitor: the totals are those of the owner's engine, and no engine runs here.
    void setReadOnly(bool readOnly);
    // What the engine state says while read-only ("Read-only monitor" when empty): a shared
    // workspace says how many instances it monitors.
    void setReadOnlyState(const QString &text);
    // The listen URL of the topic endpoint (empty: the engine is not listening).
    void setListenUrl(const QString &url);
    // The number of subscriptions in probation, next to the engine state.
    void showTotals(const SnapshotTotals &totals);
    // The totals of the workspace's store (StoreTotals.h), every engine's that ran it; none: not
    // read yet, or no workspace.
    void showStoredTotals(const std::optional<EventDesk::StoreTotals> &totals);
    // A short warning when secrets cannot be kept, or required ones are missing; nothing
    // otherwise. The reason is in its tooltip and the secrets banner.
    void showSecrets(const EventDesk::SecretStore &store,
                     const QList<EventDesk::SecretProblem> &problems);

    // A short warning while the store, or a subscription's dead-letter destination, cannot be
    // written (a full disk, a read-only folder), with the details in its tooltip; nothing
    // otherwise. storeError shows a failure at once, before the next snapshot.
    void showHealth(const EventDesk::EngineSnapshot &snapshot);
    void showStoreError(const QString &message);

Q_SIGNALS:
    // The link of the secrets warning was clicked.
    void secretStorageRequested();

private:
    QLabel *m_listenLabel = nullptr;
    SteadyLabel *m_stateLabel = nullptr;
    SteadyLabel *m_totalsLabel = nullptr;
    QLabel *m_secretsLabel = nullptr;
    QLabel *m_healthLabel = nullptr;
    QString readOnlyState() const;

    bool m_readOnly = false;
    QString m_readOnlyState;
};

} // namespace EventDesk::Ui
