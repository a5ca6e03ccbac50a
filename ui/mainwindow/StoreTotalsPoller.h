// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "store/DeliveryStoreReader.h"
#include "store/StoreTotals.h"

#include <QObject>
#include <QString>
#include <QTimer>

#include <optional>

namespace EventDesk::Ui {

class StoreReader;

// Reads the running totals of the open workspace's store (StoreTotals.h) once a second, on a
// reader thread of its own, so that the tree, the status bar and the dashboard show what the
// workspace holds (what every engine that ran it counted), not only what happened since the app
// opened it. The GUI thread never waits for the store: a read that is still under way when the
// next one is due is not doubled, and one that fails keeps the last totals (the next one tries
// again).
class StoreTotalsPoller final : public QObject
{
    Q_OBJECT

public:
    static constexpr int IntervalMs = 1000;

    explicit StoreTotalsPoller(QObject *parent = nullptr);
    ~StoreTotalsPoller() override;

    // Reads the store at location from now on (at once, then every IntervalMs); an empty location
    // stops, and forgets the totals.
    void setStoreLocation(const QString &location);
    QString storeLocation() const { return m_location; }
    // Reads now (unless a read is under way), for a view that knows the store just changed.
    void poll();

    bool hasTotals() const { return m_hasTotals; }
    const EventDesk::StoreTotals &totals() const { return m_totals; }
    // Why the last read failed (empty: it succeeded).
    QString lastError() const { return m_lastError; }

Q_SIGNALS:
    // The first totals of a store, and every change after.
    void totalsChanged(const EventDesk::StoreTotals &totals);
    // The time scales the store recorded (DeliveryStoreReader::timeScales()), first and changed.
    void timeScalesChanged(const EventDesk::EngineTimeScales &scales);

private:
    StoreReader *m_reader = nullptr;
    QTimer m_timer;
    QString m_location;
    quint64 m_generation = 0; // a read started for another location is dropped
    bool m_reading = false;
    bool m_hasTotals = false;
    EventDesk::StoreTotals m_totals;
    std::optional<EventDesk::EngineTimeScales> m_scales;
    QString m_lastError;
};

} // namespace EventDesk::Ui
