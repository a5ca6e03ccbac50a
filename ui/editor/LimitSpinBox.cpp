// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "LimitSpinBox.h"

#include <algorithm>

namespace EventDesk::Ui {

namespace {
// Enough digits for every limit in SPEC (5000 is the largest) plus one typo.
constexpr int TypingMaximum = 99'999;
} // namespace

LimitSpinBox::LimitSpinBox(int minimum, int maximum, QWidget *parent)
    : QSpinBox(parent)
    , m_validMinimum(minimum)
    , m_validMaximum(maximum)
{
    setRange(std::min(0, minimum), std::max(TypingMaximum, maximum));
    setAccelerated(true);
    setKeyboardTracking(true);
    setToolTip(tr("From %1 to %2").arg(minimum).arg(maximum));
}

bool LimitSpinBox::isInValidRange() const
{
    return value() >= m_validMinimum && value() <= m_validMaximum;
}

void LimitSpinBox::stepBy(int steps)
{
    const qint64 next = qint64(value()) + qint64(steps) * singleStep();
    setValue(int(std::clamp<qint64>(next, m_validMinimum, m_validMaximum)));
    selectAll();
}

QAbstractSpinBox::StepEnabled LimitSpinBox::stepEnabled() const
{
    if (isReadOnly())
        return StepNone;
    StepEnabled enabled = StepNone;
    // From an out-of-range value either direction leads back into the range (stepBy clamps).
    const bool outside = !isInValidRange();
    if (value() > m_validMinimum || outside)
        enabled |= StepDownEnabled;
    if (value() < m_validMaximum || outside)
        enabled |= StepUpEnabled;
    return enabled;
}

} // namespace EventDesk::Ui
