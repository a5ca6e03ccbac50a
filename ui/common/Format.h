// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "model/DeliveryDestination.h"
#include "rules/DeliveryOutcome.h"

#include <QColor>
#include <QPalette>
#include <QString>

namespace EventDesk::Ui {

// "0 s", "10 s", "1 min 40 s", "46 min 40 s", "3 h 5 min", "2 d 4 h"
QString formatDuration(qint64 ms);
// Local date and time with seconds ("2026-11-22 21:20:05"); empty for 0.
QString formatTime(qint64 msSinceEpoch);
// Time of day only ("21:20:05").
QString formatClock(qint64 msSinceEpoch);
// A request's duration with the precision that matters: "850 ms", "1.52 s", "12.3 s", then as
// formatDuration ("1 min 40 s").
QString formatLatency(qint64 ms);

// What a view with engine times says of them, given the time scale of the engine that runs the
// workspace now and the fastest any run of it had (DeliveryStoreReader::timeScales(); 0: not
// known): "Engine time, ×600 the wall clock", "Engine time: some runs went ×600", or nothing when
// the engine's clock has always been the wall clock.
struct EngineTimeNote
{
    QString text;
    QString toolTip;
};
EngineTimeNote engineTimeNote(double lastScale, double fastestScale);

// "Web Hook", "Azure Function", "Storage Queue", "Service Bus Queue", "Service Bus Topic",
// "Event Hubs": the names the Azure portal gives the endpoint types.
QString destinationTypeDisplayName(DestinationType type);

// JSON indented by four spaces per level, members kept in their original order (QJsonDocument
// would sort object keys, scattering the fields a reader looks for). Text that is not JSON is
// returned as it is.
QString prettyJson(const QByteArray &json);

// One colour per outcome family, readable on light and dark palettes: success green, retried
// failures amber, no-retry failures (OutcomeClassifier::isNoRetry) red, network failures purple,
// probation/cancel grey.
QColor outcomeColor(DeliveryOutcome outcome);

// Text colour for inline validation messages: a red that stays readable on the palette's window
// colour (lighter on dark palettes, darker on light ones).
QColor errorTextColor(const QPalette &palette);

} // namespace EventDesk::Ui
