#include "BatchingSection.h"

#include "LimitSpinBox.h"

#include <QFormLayout>
#include <QLabel>

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
    auto *form = new QFormLayout(this);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);

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
    setChecked(subscription.batchPolicy.enabled);
    m_maxEventsSpin->setValue(subscription.batchPolicy.maxEventsPerBatch);
    m_preferredSizeSpin->setValue(subscription.batchPolicy.preferredBatchSizeInKilobytes);
}

void BatchingSection::store(EventSubscription &subscription) const
{
    subscription.batchPolicy.enabled = isChecked();
    subscription.batchPolicy.maxEventsPerBatch = m_maxEventsSpin->value();
    subscription.batchPolicy.preferredBatchSizeInKilobytes = m_preferredSizeSpin->value();
}

} // namespace EventDesk::Ui
