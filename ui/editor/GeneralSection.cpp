// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "GeneralSection.h"

#include "model/Workspace.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QStandardItemModel>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {

QString schemaDisplayName(EventSchema schema)
{
    switch (schema) {
    case EventSchema::EventGrid:
        return GeneralSection::tr("Event Grid schema");
    case EventSchema::CloudEvents10:
        return GeneralSection::tr("CloudEvents 1.0");
    case EventSchema::Custom:
        return GeneralSection::tr("Custom input schema (as published)");
    }
    return QString();
}

} // namespace

GeneralSection::GeneralSection(EditorFields &fields)
    : EditorSection(tr("Subscription"), fields)
{
    auto *form = new QFormLayout(this);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);

    m_nameEdit = new QLineEdit(this);
    m_nameEdit->setObjectName(u"nameEdit"_s);
    m_nameEdit->setMaxLength(128);
    m_nameEdit->setMinimumWidth(m_nameEdit->fontMetrics().averageCharWidth() * 40);
    m_nameEdit->setPlaceholderText(tr("e.g. orders-to-billing"));
    m_nameEdit->setToolTip(tr("3 to 64 characters: A–Z, a–z, 0–9 and '-'"));
    form->addRow(tr("&Name:"),
                 fields.withErrorLabel(SubscriptionField::Name, m_nameEdit,
                                       hintLabel(tr("3–64: A–Z a–z 0–9 -"), this)));
    fields.errorLabel(SubscriptionField::Name)->setObjectName(u"nameError"_s);

    m_schemaCombo = new QComboBox(this);
    m_schemaCombo->setObjectName(u"deliverySchemaCombo"_s);
    m_schemaCombo->setModel(new QStandardItemModel(m_schemaCombo));
    m_schemaCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    form->addRow(
        tr("Delivery &schema:"),
        fields.withErrorLabel(SubscriptionField::DeliverySchema, m_schemaCombo, new QWidget(this)));

    m_enabledCheck
        = new QCheckBox(tr("&Deliver events (uncheck to pause this subscription)"), this);
    m_enabledCheck->setObjectName(u"enabledCheck"_s);
    form->addRow(QString(), m_enabledCheck);

    connect(m_nameEdit, &QLineEdit::textChanged, this, &GeneralSection::edited);
    connect(m_schemaCombo, &QComboBox::currentIndexChanged, this, &GeneralSection::edited);
    connect(m_enabledCheck, &QCheckBox::toggled, this, &GeneralSection::edited);
}

GeneralSection::~GeneralSection() = default;

void GeneralSection::setTopicInputSchema(EventSchema schema)
{
    m_topicInputSchema = schema;
    auto *model = static_cast<QStandardItemModel *>(m_schemaCombo->model());
    model->clear();
    // SPEC S4: which delivery schemas a topic supports is the core's rule; ask it with a probe
    // subscription that is valid in every other respect.
    EventSubscription probe;
    probe.name = u"schema-probe"_s;
    probe.endpointUrl = QUrl(u"http://localhost/"_s);
    for (const EventSchema candidate :
         {EventSchema::EventGrid, EventSchema::CloudEvents10, EventSchema::Custom}) {
        probe.deliverySchema = candidate;
        const bool supported = bool(validateEventSubscription(probe, m_topicInputSchema));
        auto *item = new QStandardItem(schemaDisplayName(candidate));
        item->setData(int(candidate), Qt::UserRole);
        item->setEnabled(supported);
        item->setToolTip(
            supported ? eventSchemaName(candidate)
                      : tr("%1 is not available for a topic whose input schema is %2")
                            .arg(eventSchemaName(candidate), eventSchemaName(m_topicInputSchema)));
        model->appendRow(item);
    }
}

void GeneralSection::setNameEditable(bool editable)
{
    m_nameEdit->setReadOnly(!editable);
    m_nameEdit->setToolTip(editable ? tr("3 to 64 characters: A–Z, a–z, 0–9 and '-'")
                                    : tr("The name of an existing subscription cannot change"));
}

void GeneralSection::load(const EventSubscription &subscription)
{
    m_nameEdit->setText(subscription.name);
    m_schemaCombo->setCurrentIndex(
        std::max(0, m_schemaCombo->findData(int(subscription.deliverySchema), Qt::UserRole)));
    m_enabledCheck->setChecked(subscription.enabled);
}

void GeneralSection::store(EventSubscription &subscription) const
{
    subscription.name = m_nameEdit->text();
    subscription.deliverySchema = EventSchema(m_schemaCombo->currentData(Qt::UserRole).toInt());
    subscription.enabled = m_enabledCheck->isChecked();
}

} // namespace EventDesk::Ui
