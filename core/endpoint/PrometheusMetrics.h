// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../engine/EngineSnapshot.h"

#include <QByteArray>

namespace EventDesk {

// GET /metrics: the engine's counters in the Prometheus text exposition format 0.0.4, named after
// Event Grid's metrics (docs/eventdeskd.md "Metrics" lists them).
namespace PrometheusMetrics {

inline constexpr QByteArrayView ContentType = "text/plain; version=0.0.4; charset=utf-8";

QByteArray format(const EngineSnapshot &snapshot);

// A label value with \, " and newline escaped as the format requires.
QByteArray escapeLabelValue(const QString &value);

} // namespace PrometheusMetrics

} // namespace EventDesk
