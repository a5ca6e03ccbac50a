// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "MonitorBanner.h"

#include "WorkspaceInUseDialog.h"

#include <QApplication>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QStyle>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

MonitorBanner::MonitorBanner(QWidget *parent)
    : QFrame(parent)
    , m_icon(new QLabel(this))
    , m_label(new QLabel(this))
    , m_takeOverButton(new QPushButton(tr("Take Over"), this))
{
    setObjectName(u"monitorBanner"_s);
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    m_label->setWordWrap(true);
    m_label->setTextFormat(Qt::RichText);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_takeOverButton->setToolTip(
        tr("Open the workspace with this window's own engine: it delivers the pending events"));
    m_takeOverButton->setVisible(false);
    connect(m_takeOverButton, &QPushButton::clicked, this, &MonitorBanner::takeOverRequested);

    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(10, 6, 10, 6);
    layout->addWidget(m_icon, 0, Qt::AlignTop);
    layout->addWidget(m_label, 1);
    layout->addWidget(m_takeOverButton, 0, Qt::AlignVCenter);
    applyPalette();
}

MonitorBanner::~MonitorBanner() = default;

void MonitorBanner::showOwner(const std::optional<WorkspaceOwner> &owner,
                              const WorkspaceOwner &lastOwner)
{
    const QString title = tr("<b>Read-only monitor</b>");
    if (owner) {
        m_label->setText(tr("%1 — this workspace is owned by <b>%2</b>, which delivers its events. "
                            "This window shows what that engine writes; editing, sending test "
                            "events and resubmitting are off.")
                             .arg(title, WorkspaceInUseDialog::ownerText(*owner).toHtmlEscaped()));
    } else {
        m_label->setText(
            tr("%1 — %2 has stopped: no engine runs this workspace now. Take it over "
               "to deliver its pending events from this window.")
                .arg(title, WorkspaceInUseDialog::ownerText(lastOwner).toHtmlEscaped()));
    }
    m_takeOverButton->setVisible(!owner);
}

void MonitorBanner::changeEvent(QEvent *event)
{
    QFrame::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange) {
        // Setting our own palette sends a PaletteChange too; only the application's matters.
        if (!m_applyingPalette)
            applyPalette();
    }
}

void MonitorBanner::applyPalette()
{
    m_applyingPalette = true;
    // An amber note, pale on a light palette and deep on a dark one, with a text colour of its
    // own so that it stays readable on either.
    const bool dark = QApplication::palette().color(QPalette::Window).lightness() < 128;
    QPalette palette = this->palette();
    palette.setColor(QPalette::Window, dark ? QColor(0x5c, 0x45, 0x00) : QColor(0xff, 0xf1, 0xc2));
    palette.setColor(QPalette::WindowText,
                     dark ? QColor(0xff, 0xf3, 0xd6) : QColor(0x3d, 0x2e, 0x00));
    setPalette(palette);
    const int size = style()->pixelMetric(QStyle::PM_SmallIconSize, nullptr, this);
    m_icon->setPixmap(
        style()->standardIcon(QStyle::SP_MessageBoxInformation, nullptr, this).pixmap(size, size));
    m_applyingPalette = false;
}

} // namespace EventDesk::Ui
