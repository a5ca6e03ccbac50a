// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "io/WorkspaceLock.h"

#include <QFrame>

#include <optional>

class QLabel;
class QPushButton;

namespace EventDesk::Ui {

// The strip above the views while the window is a read-only monitor: whose workspace this is,
// that nothing can be changed here, and, once the owner has stopped, a Take Over button.
class MonitorBanner final : public QFrame
{
    Q_OBJECT

public:
    explicit MonitorBanner(QWidget *parent = nullptr);
    ~MonitorBanner() override;

    // owner: the engine that holds the workspace now; none when it has stopped (lastOwner is
    // then the one that held it).
    void showOwner(const std::optional<EventDesk::WorkspaceOwner> &owner,
                   const EventDesk::WorkspaceOwner &lastOwner);

    QLabel *label() const { return m_label; }
    QPushButton *takeOverButton() const { return m_takeOverButton; }

Q_SIGNALS:
    void takeOverRequested();

protected:
    void changeEvent(QEvent *event) override;

private:
    void applyPalette();

    QLabel *m_icon = nullptr;
    QLabel *m_label = nullptr;
    QPushButton *m_takeOverButton = nullptr;
    bool m_applyingPalette = false;
};

} // namespace EventDesk::Ui
