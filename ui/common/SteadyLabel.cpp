// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "SteadyLabel.h"

#include <QEvent>

namespace EventDesk::Ui {

SteadyLabel::SteadyLabel(const QString &text, QWidget *parent)
    : QLabel(text, parent)
{
    fitText();
}

void SteadyLabel::setSteadyText(const QString &text)
{
    if (text == this->text())
        return;
    setText(text);
    // Grows when the text needs more room; shrinks only when it needs less than half (a long
    // message replaced by a short one), never at every digit of a counter.
    const QSize needed = textSize();
    if (needed.width() > minimumWidth() || 2 * needed.width() < minimumWidth()
        || needed.height() != minimumHeight())
        fitText();
}

void SteadyLabel::changeEvent(QEvent *event)
{
    QLabel::changeEvent(event);
    // A new font or style: measure again.
    if (event->type() == QEvent::FontChange || event->type() == QEvent::StyleChange)
        fitText();
}

QSize SteadyLabel::textSize() const
{
    // What the text needs (QLabel's own sizeHint() is never less than the minimum size, which
    // is the size this label fixed earlier).
    const QRect text = fontMetrics().boundingRect(QRect(0, 0, QWIDGETSIZE_MAX, QWIDGETSIZE_MAX),
                                                  int(alignment()) | Qt::TextExpandTabs,
                                                  this->text());
    const QMargins margins = contentsMargins();
    const int frame = 2 * margin();
    return {text.width() + margins.left() + margins.right() + frame,
            text.height() + margins.top() + margins.bottom() + frame};
}

void SteadyLabel::fitText()
{
    // Room for a few more characters than now, so that a counter does not grow at every digit.
    const QSize needed = textSize();
    const int slack = fontMetrics().horizontalAdvance(QStringLiteral("000"));
    setFixedSize(needed.width() + slack, needed.height());
}

} // namespace EventDesk::Ui
