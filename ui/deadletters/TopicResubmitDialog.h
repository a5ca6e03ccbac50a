// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "engine/EngineTypes.h"

#include <QDialog>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTreeWidget;

namespace EventDesk::Ui {

// The answer of a dry run of "resubmit through the topic", before anything changes: how many of
// the dead letters would go through their topic, which subscription would get how many
// deliveries (those that would get none included: their filter no longer matches), how many
// match no subscription and would stay, and what is wrong with the others, each named. Accepting
// it resubmits them; after a canceled dry run it only shows the partial counts.
class TopicResubmitDialog final : public QDialog
{
    Q_OBJECT

public:
    // examined: how many dead letters the dry run looked at (fewer than asked when canceled).
    TopicResubmitDialog(const TopicResubmitResult &dryRun, qint64 examined, bool canceled,
                        QWidget *parent = nullptr);

    // "412 events → billing 412, shipping 0, audit 412".
    QString summaryText() const;
    QTreeWidget *routeList() const { return m_routes; }
    QPushButton *resubmitButton() const { return m_resubmitButton; }
    QPlainTextEdit *problemList() const { return m_problems; }

private:
    QLabel *m_summary = nullptr;
    QTreeWidget *m_routes = nullptr;
    QPlainTextEdit *m_problems = nullptr;
    QPushButton *m_resubmitButton = nullptr;
};

} // namespace EventDesk::Ui
