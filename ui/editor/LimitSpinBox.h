// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QSpinBox>

namespace EventDesk::Ui {

// A spin box whose arrows, wheel and Page keys stay within the valid range, while typing accepts
// any non-negative integer: an out-of-range value stays visible so that the editor can name the
// limit next to it ("must be an integer from 1 to 30 (got 31)") instead of silently eating the
// keystroke or clamping the value.
class LimitSpinBox final : public QSpinBox
{
    Q_OBJECT

public:
    LimitSpinBox(int minimum, int maximum, QWidget *parent = nullptr);

    int validMinimum() const { return m_validMinimum; }
    int validMaximum() const { return m_validMaximum; }
    bool isInValidRange() const;

    void stepBy(int steps) override;

protected:
    StepEnabled stepEnabled() const override;

private:
    int m_validMinimum;
    int m_validMaximum;
};

} // namespace EventDesk::Ui
