// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "HeadersSection.h"

#include "DeliveryHeaderModel.h"
#include "EditorDelegates.h"

#include "common/Format.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

HeadersSection::HeadersSection(EditorFields &fields)
    : EditorSection(tr("Delivery headers"), fields)
{
    setObjectName(u"headersGroup"_s);
    auto *layout = new QVBoxLayout(this);

    m_headerModel = new DeliveryHeaderModel(this);
    m_headerView = makeEditorTable(m_headerModel, this);
    m_headerView->setObjectName(u"headersView"_s);
    m_headerView->setAccessibleName(tr("Delivery headers"));
    m_headerView->setItemDelegateForColumn(
        DeliveryHeaderModel::TypeColumn,
        new ComboBoxDelegate(
            {{tr("Static"), int(DeliveryHeader::Kind::Static), tr("A fixed value")},
             {tr("Dynamic"), int(DeliveryHeader::Kind::Dynamic),
              tr("The value of a field of the event")}},
            m_headerView));
    m_headerView->setItemDelegateForColumn(DeliveryHeaderModel::ValueColumn,
                                           new SecretTextDelegate(m_headerView));
    QHeaderView *header = m_headerView->horizontalHeader();
    header->setSectionResizeMode(DeliveryHeaderModel::NameColumn, QHeaderView::Interactive);
    header->setSectionResizeMode(DeliveryHeaderModel::TypeColumn, QHeaderView::ResizeToContents);
    header->setSectionResizeMode(DeliveryHeaderModel::ValueColumn, QHeaderView::Stretch);
    header->setSectionResizeMode(DeliveryHeaderModel::SecretColumn, QHeaderView::ResizeToContents);
    m_headerView->setColumnWidth(DeliveryHeaderModel::NameColumn, 180);

    m_addHeaderButton = new QPushButton(tr("Add &header"), this);
    m_addHeaderButton->setObjectName(u"addHeaderButton"_s);
    m_addHeaderButton->setIcon(QIcon::fromTheme(u"list-add"_s));
    m_removeHeaderButton = new QPushButton(tr("Remove header"), this);
    m_removeHeaderButton->setObjectName(u"removeHeaderButton"_s);
    m_removeHeaderButton->setIcon(QIcon::fromTheme(u"list-remove"_s));
    m_revealSecretsCheck = new QCheckBox(tr("Show secret &values"), this);
    m_revealSecretsCheck->setObjectName(u"revealSecretsCheck"_s);
    m_revealSecretsCheck->setToolTip(tr("Secret values are masked unless this is checked"));
    m_headerCountLabel = new QLabel(this);
    m_headerCountLabel->setObjectName(u"headerCountLabel"_s);
    auto *buttons = new QHBoxLayout;
    buttons->setContentsMargins(0, 0, 0, 0);
    buttons->addWidget(m_addHeaderButton);
    buttons->addWidget(m_removeHeaderButton);
    buttons->addSpacing(12);
    buttons->addWidget(m_revealSecretsCheck);
    buttons->addStretch(1);
    buttons->addWidget(m_headerCountLabel);

    auto *tableBox = new QWidget(this);
    auto *tableLayout = new QVBoxLayout(tableBox);
    tableLayout->setContentsMargins(0, 0, 0, 0);
    tableLayout->addWidget(m_headerView);
    tableLayout->addLayout(buttons);
    m_table = fields.withErrorLabel(SubscriptionField::Headers, tableBox);
    layout->addWidget(m_table);
    fields.setInput(SubscriptionField::Headers, m_headerView);
    m_note = new QLabel(this);
    m_note->setObjectName(u"headersNote"_s);
    m_note->setWordWrap(true);
    m_note->hide();
    layout->addWidget(m_note);
    fields.errorLabel(SubscriptionField::Headers)->setObjectName(u"headersError"_s);

    connect(m_addHeaderButton, &QPushButton::clicked, this, [this] {
        const int row = m_headerModel->addHeader();
        if (row < 0)
            return;
        const QModelIndex name = m_headerModel->index(row, DeliveryHeaderModel::NameColumn);
        m_headerView->setCurrentIndex(name);
        m_headerView->setFocus();
        m_headerView->edit(name);
    });
    connect(m_removeHeaderButton, &QPushButton::clicked, this,
            [this] { m_headerModel->removeHeader(m_headerView->currentIndex().row()); });
    connect(m_revealSecretsCheck, &QCheckBox::toggled, m_headerModel,
            &DeliveryHeaderModel::setSecretsRevealed);
    connect(m_headerModel, &DeliveryHeaderModel::headersChanged, this, &HeadersSection::edited);
    connect(m_headerView->selectionModel(), &QItemSelectionModel::currentChanged, this,
            &HeadersSection::updateCounts);
}

HeadersSection::~HeadersSection() = default;

void HeadersSection::load(const EventSubscription &subscription)
{
    m_headerModel->setHeaders(subscription.deliveryHeaders);
    m_revealSecretsCheck->setChecked(false);
}

void HeadersSection::store(EventSubscription &subscription) const
{
    if (!m_supported) {
        subscription.deliveryHeaders.clear();
        return;
    }
    subscription.deliveryHeaders = m_headerModel->headers();
    for (DeliveryHeader &header : subscription.deliveryHeaders)
        header.name = header.name.trimmed();
}

void HeadersSection::setDestinationType(DestinationType type)
{
    m_supported = Destinations::supportsDeliveryProperties(type);
    const bool messaging = type == DestinationType::ServiceBusQueue
        || type == DestinationType::ServiceBusTopic || type == DestinationType::EventHub;
    setTitle(messaging ? tr("Delivery properties") : tr("Delivery headers"));
    m_table->setVisible(m_supported);
    const int kept = m_headerModel->rowCount();
    if (!m_supported) {
        m_note->setText(
            kept == 0 ? tr("%1 messages carry the event alone: there are no delivery properties "
                           "to set (SPEC §9).")
                            .arg(destinationTypeDisplayName(type))
                      : tr("%1 messages carry the event alone: there are no delivery properties "
                           "to set (SPEC §9). The %n header(s) set here are kept while you try "
                           "other types, and not saved with this one.",
                           nullptr, kept)
                            .arg(destinationTypeDisplayName(type)));
    } else if (messaging) {
        m_note->setText(tr("Sent as properties of each message, next to Event Grid's aeg-* ones. "
                           "Broker property names (SessionId, PartitionKey, CorrelationId, …) set "
                           "those properties of the message instead."));
    } else {
        m_note->clear();
    }
    m_note->setVisible(!m_note->text().isEmpty());
}

void HeadersSection::setRowErrors(const QHash<int, QString> &errors)
{
    m_headerModel->setRowErrors(errors);
}

void HeadersSection::setCurrentRow(int row)
{
    m_headerView->setCurrentIndex(m_headerModel->index(row, 0));
}

void HeadersSection::updateCounts()
{
    const int headers = m_headerModel->rowCount();
    m_headerCountLabel->setText(
        tr("%1 of %2 headers").arg(headers).arg(DeliveryHeader::MaxHeaders));
    m_addHeaderButton->setEnabled(m_headerModel->canAddHeader());
    m_addHeaderButton->setToolTip(
        m_headerModel->canAddHeader()
            ? tr("Add a delivery header")
            : tr("At most %1 delivery headers (SPEC H1)").arg(DeliveryHeader::MaxHeaders));
    m_removeHeaderButton->setEnabled(m_headerView->currentIndex().isValid());
}

} // namespace EventDesk::Ui
