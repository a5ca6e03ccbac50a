// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "BatchingSection.h"

#include "LimitSpinBox.h"

#include "common/Format.h"

#include <QFormLayout>
#include <QLabel>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

BatchingSection::BatchingSection(EditorFields &fields)
    : EditorSection(tr("&Batching (several events per request)"), fields)
{
    setObjectName(u"batchingGroup"_s);
    setCheckable(true);
    setChecked(false);
    setToolTip(tr("Off: one event per request (SPEC B1). On: a request carries up to the max "
                  "events, within the preferred size; an event larger than that is sent alone."));
    auto *layout = new QVBoxLayout(this);
    m_settings = new QWidget(this);
    auto *form = new QFormLayout(m_settings);
    form->setContentsMargins(0, 0, 0, 0);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    layout->addWidget(m_settings);
    m_note = new QLabel(this);
    m_note->setObjectName(u"batchingNote"_s);
    m_note->setWordWrap(true);
    m_note->hide();
    layout->addWidget(m_note);

    m_maxEventsSpin = new LimitSpinBox(1, BatchPolicy::MaxEventsLimit, this);
    m_maxEventsSpin->setObjectName(u"maxEventsSpin"_s);
    form->addRow(
        tr("Max &events per batch:"),
        fields.withErrorLabel(SubscriptionField::MaxEvents, m_maxEventsSpin,
                              hintLabel(tr("1–%1").arg(BatchPolicy::MaxEventsLimit), this)));
    fields.errorLabel(SubscriptionField::MaxEvents)->setObjectName(u"maxEventsError"_s);

    m_preferredSizeSpin = new LimitSpinBox(1, BatchPolicy::MaxPreferredKilobytes, this);
    m_preferredSizeSpin->setObjectName(u"preferredSizeSpin"_s);
    m_preferredSizeSpin->setSuffix(tr(" KB"));
    form->addRow(tr("&Preferred batch size:"),
                 fields.withErrorLabel(
                     SubscriptionField::PreferredSize, m_preferredSizeSpin,
                     hintLabel(tr("1–%1 KB").arg(BatchPolicy::MaxPreferredKilobytes), this)));
    fields.errorLabel(SubscriptionField::PreferredSize)->setObjectName(u"preferredSizeError"_s);

    connect(this, &QGroupBox::toggled, this, &BatchingSection::edited);
    connect(m_maxEventsSpin, &QSpinBox::valueChanged, this, &BatchingSection::edited);
    connect(m_preferredSizeSpin, &QSpinBox::valueChanged, this, &BatchingSection::edited);
}

BatchingSection::~BatchingSection() = default;

void BatchingSection::load(const EventSubscription &subscription)
{
    m_checkedWhileSupported = subscription.batchPolicy.enabled;
    if (m_supported)
        setChecked(subscription.batchPolicy.enabled);
    m_maxEventsSpin->setValue(subscription.batchPolicy.maxEventsPerBatch);
    m_preferredSizeSpin->setValue(subscription.batchPolicy.preferredBatchSizeInKilobytes);
}

void BatchingSection::store(EventSubscription &subscription) const
{
    subscription.batchPolicy.enabled = m_supported && isChecked();
    subscription.batchPolicy.maxEventsPerBatch = m_maxEventsSpin->value();
    subscription.batchPolicy.preferredBatchSizeInKilobytes = m_preferredSizeSpin->value();
}

void BatchingSection::setDestinationType(DestinationType type)
{
    const bool supported = Destinations::supportsBatching(type);
    if (!supported) {
        m_note->setText(
            tr("%1 destinations take one event per message: Azure batches for webhooks and "
               "functions only (SPEC B). These settings are kept while you try other types, and "
               "not saved with this one.")
                .arg(destinationTypeDisplayName(type)));
    }
    if (supported == m_supported)
        return;
    m_supported = supported;
    // A group box that cannot be checked shows its title alone: the note says why.
    if (supported) {
        setCheckable(true);
        setChecked(m_checkedWhileSupported);
    } else {
        m_checkedWhileSupported = isChecked();
        setCheckable(false);
    }
    m_settings->setVisible(supported);
    m_note->setVisible(!supported);
}

} // namespace EventDesk::Ui
