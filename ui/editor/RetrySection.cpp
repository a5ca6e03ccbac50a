// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "RetrySection.h"

#include "LimitSpinBox.h"
#include "RetryTimelineView.h"

#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

RetrySection::RetrySection(EditorFields &fields)
    : EditorSection(tr("Retry policy"), fields)
{
    auto *layout = new QVBoxLayout(this);
    auto *form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    layout->addLayout(form);

    m_maxAttemptsSpin = new LimitSpinBox(RetryPolicy::MinAttempts, RetryPolicy::MaxAttempts, this);
    m_maxAttemptsSpin->setObjectName(u"maxAttemptsSpin"_s);
    m_maxAttemptsSpin->setToolTip(tr("Attempts before the event is dead-lettered or dropped "
                                     "(SPEC R6, R8): from %1 to %2")
                                      .arg(RetryPolicy::MinAttempts)
                                      .arg(RetryPolicy::MaxAttempts));
    form->addRow(
        tr("Max delivery &attempts:"),
        fields.withErrorLabel(
            SubscriptionField::MaxAttempts, m_maxAttemptsSpin,
            hintLabel(tr("%1–%2").arg(RetryPolicy::MinAttempts).arg(RetryPolicy::MaxAttempts),
                      this)));
    fields.errorLabel(SubscriptionField::MaxAttempts)->setObjectName(u"maxAttemptsError"_s);

    m_ttlSpin = new LimitSpinBox(RetryPolicy::MinTtlMinutes, RetryPolicy::MaxTtlMinutes, this);
    m_ttlSpin->setObjectName(u"ttlSpin"_s);
    m_ttlSpin->setSuffix(tr(" min"));
    m_ttlSpin->setToolTip(tr("Event time to live, counted from the publish time (SPEC R6, R7): "
                             "from %1 to %2 minutes")
                              .arg(RetryPolicy::MinTtlMinutes)
                              .arg(RetryPolicy::MaxTtlMinutes));
    auto *ttlTrailing = new QWidget(this);
    auto *ttlTrailingLayout = new QHBoxLayout(ttlTrailing);
    ttlTrailingLayout->setContentsMargins(0, 0, 0, 0);
    m_ttlHoursLabel = new QLabel(ttlTrailing);
    m_ttlHoursLabel->setObjectName(u"ttlHoursLabel"_s);
    ttlTrailingLayout->addWidget(m_ttlHoursLabel);
    ttlTrailingLayout->addSpacing(8);
    ttlTrailingLayout->addWidget(
        hintLabel(tr("%1–%2 min").arg(RetryPolicy::MinTtlMinutes).arg(RetryPolicy::MaxTtlMinutes),
                  ttlTrailing));
    form->addRow(tr("Event &time to live:"),
                 fields.withErrorLabel(SubscriptionField::TimeToLive, m_ttlSpin, ttlTrailing));
    fields.errorLabel(SubscriptionField::TimeToLive)->setObjectName(u"ttlError"_s);

    auto *previewTitle = new QLabel(tr("Retry timeline preview"), this);
    QFont bold = previewTitle->font();
    bold.setBold(true);
    previewTitle->setFont(bold);
    layout->addSpacing(6);
    layout->addWidget(previewTitle);
    m_timeline = new RetryTimelineView(this);
    m_timeline->setObjectName(u"retryTimelineView"_s);
    m_timeline->setMinimumHeight(360);
    layout->addWidget(m_timeline, 1);

    connect(m_maxAttemptsSpin, &QSpinBox::valueChanged, this, &RetrySection::edited);
    connect(m_ttlSpin, &QSpinBox::valueChanged, this, &RetrySection::updateTtlHours);
    connect(m_ttlSpin, &QSpinBox::valueChanged, this, &RetrySection::edited);
}

RetrySection::~RetrySection() = default;

void RetrySection::load(const EventSubscription &subscription)
{
    m_maxAttemptsSpin->setValue(subscription.retryPolicy.maxDeliveryAttempts);
    m_ttlSpin->setValue(subscription.retryPolicy.eventTimeToLiveInMinutes);
    updateTtlHours();
}

void RetrySection::store(EventSubscription &subscription) const
{
    subscription.retryPolicy.maxDeliveryAttempts = m_maxAttemptsSpin->value();
    subscription.retryPolicy.eventTimeToLiveInMinutes = m_ttlSpin->value();
}

void RetrySection::updateTtlHours()
{
    const int minutes = m_ttlSpin->value();
    QString hours;
    if (minutes % 60 == 0) {
        hours = QLocale().toString(minutes / 60);
    } else {
        hours = QLocale().toString(minutes / 60.0, 'f', 2);
        const QChar point = QLocale().decimalPoint().front();
        while (hours.endsWith(u'0'))
            hours.chop(1);
        if (hours.endsWith(point))
            hours.chop(1);
    }
    m_ttlHoursLabel->setText(tr("= %1 h").arg(hours));
}

void RetrySection::updateTimeline(bool hasDeadLetterDestination, DestinationType destinationType)
{
    m_timeline->setDestinationType(destinationType);
    RetryPolicy policy;
    policy.maxDeliveryAttempts = m_maxAttemptsSpin->value();
    policy.eventTimeToLiveInMinutes = m_ttlSpin->value();
    if (policy.maxDeliveryAttempts != m_timeline->policy().maxDeliveryAttempts
        || policy.eventTimeToLiveInMinutes != m_timeline->policy().eventTimeToLiveInMinutes
        || hasDeadLetterDestination != m_timeline->hasDeadLetterDestination()) {
        m_timeline->setPolicy(policy, hasDeadLetterDestination);
    }
}

} // namespace EventDesk::Ui
