// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "StoreTotalsPoller.h"

#include "log/StoreReader.h"

namespace EventDesk::Ui {

StoreTotalsPoller::StoreTotalsPoller(QObject *parent)
    : QObject(parent)
    , m_reader(new StoreReader(this))
{
    m_timer.setInterval(IntervalMs);
    connect(&m_timer, &QTimer::timeout, this, &StoreTotalsPoller::poll);
}

StoreTotalsPoller::~StoreTotalsPoller() = default;

void StoreTotalsPoller::setStoreLocation(const QString &location)
{
    if (location == m_location && (m_timer.isActive() || location.isEmpty()))
        return;
    m_location = location;
    ++m_generation;
    m_reading = false;
    m_hasTotals = false;
    m_totals = StoreTotals();
    m_scales.reset();
    m_lastError.clear();
    m_reader->setStoreLocation(location);
    if (location.isEmpty()) {
        m_timer.stop();
        return;
    }
    m_timer.start();
    poll();
}

void StoreTotalsPoller::poll()
{
    if (m_location.isEmpty() || m_reading)
        return;
    m_reading = true;
    const quint64 generation = m_generation;
    m_reader->run(this, [this, generation](const Expected<DeliveryStoreReader *> &store) {
        Expected<StoreTotals> read = store ? store.value()->totals() : Expected<StoreTotals>(Error(store.error()));
        Expected<EngineTimeScales> scales
            = store ? store.value()->timeScales() : Expected<EngineTimeScales>(Error(store.error()));
        return [this, generation, read = std::move(read), scales = std::move(scales)] {
            if (generation != m_generation)
                return;
            m_reading = false;
            if (scales && scales.value() != m_scales) {
                m_scales = scales.value();
                Q_EMIT timeScalesChanged(*m_scales);
            }
            if (!read) {
                m_lastError = read.error();
                return;
            }
            m_lastError.clear();
            if (m_hasTotals && read.value() == m_totals)
                return;
            m_totals = read.value();
            m_hasTotals = true;
            Q_EMIT totalsChanged(m_totals);
        };
    });
}

} // namespace EventDesk::Ui
