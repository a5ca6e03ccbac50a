// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "InstancesView.h"

#include "common/ColumnFitter.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

InstancesView::InstancesView(QWidget *parent)
    : QWidget(parent)
    , m_model(new InstancesModel(this))
    , m_summary(new QLabel(this))
    , m_table(new QTableView(this))
{
    m_summary->setObjectName(u"instancesSummary"_s);
    m_summary->setWordWrap(true);
    m_table->setObjectName(u"instancesTable"_s);
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    m_table->setShowGrid(false);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->setVisible(false);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setHighlightSections(false);
    m_table->setAccessibleName(tr("Instances of the shared store"));
    new ColumnFitter(m_table);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
    setInstances({});
}

void InstancesView::setInstances(const QList<InstanceStatus> &instances)
{
    m_model->setInstances(instances);
    m_summary->setText(summary());
}

QString InstancesView::summary() const
{
    const int total = m_model->rowCount();
    if (total == 0)
        return tr("No instance is registered on the store: no eventdeskd delivers from it now.");
    QStringList states;
    for (const InstanceHealth health :
         {InstanceHealth::Live, InstanceHealth::Late, InstanceHealth::Dead}) {
        if (const int count = m_model->count(health); count > 0)
            states << tr("%1 %2").arg(count).arg(instanceHealthName(health).toLower());
    }
    return tr("%n instance(s): %1. Live: heard of within three tenths of its lease; late: two or "
              "more heartbeats missed; dead: silent for longer than its lease (the others take "
              "over its deliveries).",
              nullptr, total)
        .arg(states.join(u", "_s));
}

} // namespace EventDesk::Ui
