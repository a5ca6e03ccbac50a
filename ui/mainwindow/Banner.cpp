// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "Banner.h"

#include <QApplication>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QToolButton>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

Banner::Banner(Kind kind, const QString &objectName, QWidget *parent)
    : QFrame(parent)
    , m_kind(kind)
    , m_icon(new QLabel(this))
    , m_label(new QLabel(this))
    , m_buttons(new QHBoxLayout)
    , m_closeButton(new QToolButton(this))
{
    setObjectName(objectName);
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    setVisible(false);
    m_label->setWordWrap(true);
    m_label->setTextFormat(Qt::RichText);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::LinksAccessibleByMouse);
    m_closeButton->setObjectName(u"dismiss"_s);
    m_closeButton->setAutoRaise(true);
    m_closeButton->setIcon(style()->standardIcon(QStyle::SP_TitleBarCloseButton, nullptr, this));
    m_closeButton->setToolTip(tr("Dismiss"));
    m_closeButton->setAccessibleName(tr("Dismiss"));
    m_closeButton->setVisible(false);
    connect(m_closeButton, &QToolButton::clicked, this, [this] {
        m_dismissed = true;
        setVisible(false);
        Q_EMIT dismissed();
    });

    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(10, 6, 6, 6);
    layout->addWidget(m_icon, 0, Qt::AlignTop);
    layout->addWidget(m_label, 1);
    m_buttons->setSpacing(6);
    layout->addLayout(m_buttons);
    layout->addWidget(m_closeButton, 0, Qt::AlignTop);
    applyPalette();
}

Banner::~Banner() = default;

void Banner::showMessage(const QString &richText)
{
    if (richText == m_message)
        return;
    m_message = richText;
    m_dismissed = false;
    m_label->setText(richText);
    setVisible(!richText.isEmpty());
}

void Banner::setDismissable(bool dismissable)
{
    m_closeButton->setVisible(dismissable);
}

QPushButton *Banner::addButton(const QString &text, const QString &objectName)
{
    auto *button = new QPushButton(text, this);
    button->setObjectName(objectName);
    m_buttons->addWidget(button, 0, Qt::AlignVCenter);
    return button;
}

QPushButton *Banner::button(const QString &objectName) const
{
    return findChild<QPushButton *>(objectName, Qt::FindDirectChildrenOnly);
}

void Banner::changeEvent(QEvent *event)
{
    QFrame::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange) {
        // Setting our own palette sends a PaletteChange too; only the application's matters.
        if (!m_applyingPalette)
            applyPalette();
    }
}

void Banner::applyPalette()
{
    m_applyingPalette = true;
    // A note in a colour of its own, pale on a light palette and deep on a dark one, with a text
    // colour that stays readable on either: amber for information, a warmer orange for warnings.
    const bool dark = QApplication::palette().color(QPalette::Window).lightness() < 128;
    const bool warning = m_kind == Kind::Warning;
    QPalette palette = this->palette();
    if (warning) {
        palette.setColor(QPalette::Window,
                         dark ? QColor(0x6b, 0x2f, 0x00) : QColor(0xff, 0xe2, 0xc4));
        palette.setColor(QPalette::WindowText,
                         dark ? QColor(0xff, 0xeb, 0xd9) : QColor(0x47, 0x1f, 0x00));
    } else {
        palette.setColor(QPalette::Window,
                         dark ? QColor(0x5c, 0x45, 0x00) : QColor(0xff, 0xf1, 0xc2));
        palette.setColor(QPalette::WindowText,
                         dark ? QColor(0xff, 0xf3, 0xd6) : QColor(0x3d, 0x2e, 0x00));
    }
    setPalette(palette);
    const int size = style()->pixelMetric(QStyle::PM_SmallIconSize, nullptr, this);
    const QStyle::StandardPixmap icon
        = warning ? QStyle::SP_MessageBoxWarning : QStyle::SP_MessageBoxInformation;
    m_icon->setPixmap(style()->standardIcon(icon, nullptr, this).pixmap(size, size));
    m_applyingPalette = false;
}

} // namespace EventDesk::Ui
