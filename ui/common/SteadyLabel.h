// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QLabel>

namespace EventDesk::Ui {

// A label whose text changes several times a second (a running total, a state). Every change of
// a QLabel's text asks the window for a new layout, and in a window with charts a layout pass
// costs milliseconds of the GUI thread. A SteadyLabel keeps a fixed size, changed only when its
// text no longer fits or needs less than half of it: Qt passes no size change of a fixed-size
// widget on to its parents, so a new text repaints the label and nothing else. For plain text.
class SteadyLabel final : public QLabel
{
    Q_OBJECT

public:
    explicit SteadyLabel(const QString &text = QString(), QWidget *parent = nullptr);

    // Sets the text; resizes the label (one layout pass) only as said above.
    void setSteadyText(const QString &text);

protected:
    void changeEvent(QEvent *event) override;

private:
    QSize textSize() const;
    void fitText();
};

} // namespace EventDesk::Ui
