// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "TopicResubmitDialog.h"

#include "DeadLetterOperations.h"

#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {

// Enough to see what kind of problems there are; the summary counts all of them.
constexpr int MaxProblemsListed = 200;

} // namespace

TopicResubmitDialog::TopicResubmitDialog(const TopicResubmitResult &dryRun, qint64 examined,
                                         bool canceled, QWidget *parent)
    : QDialog(parent)
    , m_summary(new QLabel(this))
    , m_routes(new QTreeWidget(this))
    , m_problems(new QPlainTextEdit(this))
{
    setWindowTitle(tr("Resubmit Through Topic"));
    const QLocale locale;

    auto *intro = new QLabel(
        tr("Each event is published to its topic again, so every current subscription's filter "
           "decides anew. The events keep their ids and data; their time to live starts again."),
        this);
    intro->setWordWrap(true);

    QFont bold = m_summary->font();
    bold.setBold(true);
    m_summary->setFont(bold);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setText(
        tr("%1 events → %2")
            .arg(locale.toString(dryRun.resubmitted), DeadLetterOperations::routeSummary(dryRun)));

    m_routes->setColumnCount(3);
    m_routes->setHeaderLabels({tr("Topic"), tr("Subscription"), tr("New deliveries")});
    m_routes->setRootIsDecorated(false);
    m_routes->setSelectionMode(QAbstractItemView::NoSelection);
    m_routes->setFocusPolicy(Qt::NoFocus);
    m_routes->header()->setStretchLastSection(false);
    m_routes->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_routes->header()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_routes->header()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    for (const ResubmitRouteCount &route : dryRun.routes) {
        auto *item = new QTreeWidgetItem(
            m_routes, {route.topic, route.subscription, locale.toString(route.deliveries)});
        item->setTextAlignment(2, Qt::AlignRight | Qt::AlignVCenter);
        if (route.deliveries == 0) {
            item->setToolTip(1, tr("Its filter matches none of these events"));
            for (int column = 0; column < 3; ++column)
                item->setForeground(column, palette().brush(QPalette::PlaceholderText));
        }
    }
    // As tall as its rows (up to ten; more scroll): no empty list below a few subscriptions.
    const int rows = std::clamp(int(dryRun.routes.size()), 1, 10);
    m_routes->setFixedHeight(m_routes->header()->sizeHint().height()
                             + rows * std::max(m_routes->sizeHintForRow(0), fontMetrics().height())
                             + 2 * m_routes->frameWidth() + 4);

    QStringList facts;
    facts << tr("%1 dead letters looked at.").arg(locale.toString(examined));
    if (canceled)
        facts << tr("The dry run was canceled: the counts cover only these. Run it to the end to "
                    "resubmit.");
    if (dryRun.unmatched > 0) {
        facts << tr("%1 match no subscription now and would stay in the list.")
                     .arg(locale.toString(dryRun.unmatched));
    }
    if (!dryRun.errors.isEmpty()) {
        facts << tr("%1 cannot be resubmitted through their topic (below).")
                     .arg(locale.toString(dryRun.errors.size()));
    }
    auto *factsLabel = new QLabel(facts.join(u' '), this);
    factsLabel->setWordWrap(true);

    QStringList listed = dryRun.errors.mid(0, MaxProblemsListed);
    if (dryRun.errors.size() > MaxProblemsListed)
        listed << tr("… and %n more", nullptr, int(dryRun.errors.size() - MaxProblemsListed));
    m_problems->setReadOnly(true);
    m_problems->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_problems->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_problems->setPlainText(listed.join(u'\n'));
    m_problems->setVisible(!dryRun.errors.isEmpty());

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    m_resubmitButton = buttons->addButton(
        tr("Resubmit %1").arg(locale.toString(dryRun.resubmitted)), QDialogButtonBox::AcceptRole);
    // After a canceled dry run the counts do not say what a resubmit would do.
    const bool offered = !canceled && dryRun.resubmitted > 0;
    m_resubmitButton->setEnabled(offered);
    m_resubmitButton->setDefault(offered);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addWidget(m_summary);
    layout->addWidget(m_routes);
    layout->addWidget(factsLabel);
    layout->addWidget(m_problems, 1);
    // Room to spare goes to the problems, or below the text: never between its lines.
    if (dryRun.errors.isEmpty())
        layout->addStretch(1);
    layout->addWidget(buttons);
    resize(std::max(520, sizeHint().width()), sizeHint().height());
}

QString TopicResubmitDialog::summaryText() const
{
    return m_summary->text();
}

} // namespace EventDesk::Ui
