// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "DeadLetterSection.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {

// The resource id the editor writes for an Azure Blob destination when the user gave only the
// account name: it names the account, which is all the engine reads from it.
QString derivedResourceId(const QString &accountName)
{
    return u"/providers/Microsoft.Storage/storageAccounts/"_s + accountName;
}

} // namespace

DeadLetterSection::DeadLetterSection(EditorFields &fields)
    : EditorSection(tr("Dead-letter destination"), fields)
{
    m_form = new QFormLayout(this);
    m_form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);

    m_kindCombo = new QComboBox(this);
    m_kindCombo->setObjectName(u"deadLetterCombo"_s);
    m_kindCombo->addItem(tr("None (drop undeliverable events)"),
                         int(DeadLetterDestination::Kind::None));
    m_kindCombo->addItem(tr("Local folder container"),
                         int(DeadLetterDestination::Kind::LocalFolder));
    m_kindCombo->addItem(tr("Azure Blob container"), int(DeadLetterDestination::Kind::AzureBlob));
    m_kindCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_kindCombo->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    m_kindCombo->setToolTip(
        tr("Where events go when delivery gives up (SPEC L1): without a destination they are "
           "dropped"));
    m_form->addRow(tr("Dead-letter &to:"), m_kindCombo);

    m_accountEdit = new QLineEdit(this);
    m_accountEdit->setObjectName(u"deadLetterAccountEdit"_s);
    m_accountEdit->setPlaceholderText(u"devstoreaccount1"_s);
    m_accountEdit->setToolTip(tr("3 to 24 characters of a–z and 0–9"));
    m_form->addRow(tr("Storage &account name:"),
                   fields.withErrorLabel(SubscriptionField::DeadLetterAccount, m_accountEdit));
    fields.errorLabel(SubscriptionField::DeadLetterAccount)
        ->setObjectName(u"deadLetterAccountError"_s);

    m_endpointEdit = new QLineEdit(this);
    m_endpointEdit->setObjectName(u"deadLetterEndpointEdit"_s);
    m_endpointEdit->setPlaceholderText(
        tr("https://<account>.blob.core.windows.net (empty: the account's default)"));
    m_endpointEdit->setToolTip(
        tr("For the Azurite emulator: http://127.0.0.1:10000/devstoreaccount1"));
    m_form->addRow(tr("Blob &endpoint:"),
                   fields.withErrorLabel(SubscriptionField::DeadLetterEndpoint, m_endpointEdit));
    fields.errorLabel(SubscriptionField::DeadLetterEndpoint)
        ->setObjectName(u"deadLetterEndpointError"_s);

    m_containerEdit = new QLineEdit(this);
    m_containerEdit->setObjectName(u"deadLetterContainerEdit"_s);
    m_containerEdit->setPlaceholderText(u"deadletters"_s);
    m_containerEdit->setToolTip(
        tr("3 to 63 characters of a–z, 0–9 and '-' (Azure container naming)"));
    m_form->addRow(tr("&Container:"),
                   fields.withErrorLabel(SubscriptionField::DeadLetterContainer, m_containerEdit));
    fields.errorLabel(SubscriptionField::DeadLetterContainer)
        ->setObjectName(u"deadLetterContainerError"_s);

    m_resourceIdEdit = new QLineEdit(this);
    m_resourceIdEdit->setObjectName(u"deadLetterResourceIdEdit"_s);
    m_resourceIdEdit->setPlaceholderText(tr("Optional: .../storageAccounts/<account>"));
    m_resourceIdEdit->setToolTip(
        tr("The storage account's Azure resource id, as in an exported ARM template"));
    m_form->addRow(
        tr("Resource &ID:"),
        fields.withErrorLabel(SubscriptionField::DeadLetterResourceId, m_resourceIdEdit));
    fields.errorLabel(SubscriptionField::DeadLetterResourceId)
        ->setObjectName(u"deadLetterResourceIdError"_s);

    m_hint = new QLabel(this);
    m_hint->setWordWrap(true);
    m_hint->setForegroundRole(QPalette::PlaceholderText);
    m_form->addRow(QString(), m_hint);

    connect(m_kindCombo, &QComboBox::currentIndexChanged, this, [this] {
        updateRows();
        Q_EMIT edited();
    });
    for (QLineEdit *edit : {m_accountEdit, m_endpointEdit, m_containerEdit, m_resourceIdEdit})
        connect(edit, &QLineEdit::textChanged, this, &DeadLetterSection::edited);
}

DeadLetterSection::~DeadLetterSection() = default;

void DeadLetterSection::updateRows()
{
    const auto kind = DeadLetterDestination::Kind(m_kindCombo->currentData().toInt());
    const bool azure = kind == DeadLetterDestination::Kind::AzureBlob;
    const bool any = kind != DeadLetterDestination::Kind::None;
    m_form->setRowVisible(m_accountEdit->parentWidget(), azure);
    m_form->setRowVisible(m_endpointEdit->parentWidget(), azure);
    m_form->setRowVisible(m_resourceIdEdit->parentWidget(), azure);
    m_form->setRowVisible(m_containerEdit->parentWidget(), any);
    switch (kind) {
    case DeadLetterDestination::Kind::None:
        m_hint->setText(
            tr("Events that cannot be delivered are dropped; the delivery log and the metrics "
               "still record why."));
        break;
    case DeadLetterDestination::Kind::LocalFolder:
        m_hint->setText(tr("Dead letters are written to the workspace's dead-letter folder as "
                           "<container>/<SUBSCRIPTION>/<yyyy>/<M>/<d>/<H>/<uuid>.json."));
        break;
    case DeadLetterDestination::Kind::AzureBlob:
        m_hint->setText(
            tr("Works with a real storage account and with the Azurite emulator. Blobs are named "
               "<SUBSCRIPTION>/<yyyy>/<M>/<d>/<H>/<uuid>.json inside the container."));
        break;
    }
}

void DeadLetterSection::load(const EventSubscription &subscription)
{
    const DeadLetterDestination &deadLetter = subscription.deadLetterDestination;
    m_kindCombo->setCurrentIndex(std::max(0, m_kindCombo->findData(int(deadLetter.kind))));
    m_containerEdit->setText(deadLetter.blobContainerName);
    m_accountEdit->setText(deadLetter.accountName);
    m_endpointEdit->setText(deadLetter.blobEndpoint.toString());
    const bool derived = deadLetter.kind != DeadLetterDestination::Kind::AzureBlob
        || deadLetter.resourceId == derivedResourceId(deadLetter.accountName);
    m_resourceIdEdit->setText(derived ? QString() : deadLetter.resourceId);
    updateRows();
}

void DeadLetterSection::store(EventSubscription &subscription) const
{
    DeadLetterDestination &deadLetter = subscription.deadLetterDestination;
    deadLetter = DeadLetterDestination();
    deadLetter.kind = DeadLetterDestination::Kind(m_kindCombo->currentData().toInt());
    switch (deadLetter.kind) {
    case DeadLetterDestination::Kind::None:
        break;
    case DeadLetterDestination::Kind::LocalFolder:
        deadLetter.resourceId = u"local"_s;
        deadLetter.blobContainerName = m_containerEdit->text().trimmed();
        break;
    case DeadLetterDestination::Kind::AzureBlob: {
        deadLetter.blobContainerName = m_containerEdit->text().trimmed();
        deadLetter.accountName = m_accountEdit->text().trimmed();
        const QString endpoint = m_endpointEdit->text().trimmed();
        if (!endpoint.isEmpty())
            deadLetter.blobEndpoint = QUrl(endpoint, QUrl::StrictMode);
        const QString resourceId = m_resourceIdEdit->text().trimmed();
        deadLetter.resourceId = !resourceId.isEmpty() ? resourceId
            : deadLetter.accountName.isEmpty()        ? QString()
                                                      : derivedResourceId(deadLetter.accountName);
        break;
    }
    }
}

bool DeadLetterSection::hasDestination() const
{
    return m_kindCombo->currentData().toInt() != int(DeadLetterDestination::Kind::None);
}

bool DeadLetterSection::isResourceIdTyped() const
{
    return !m_resourceIdEdit->text().trimmed().isEmpty();
}

} // namespace EventDesk::Ui
