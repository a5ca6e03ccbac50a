// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "DestinationSection.h"

#include "DestinationCredentials.h"

#include "common/Format.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHostAddress>
#include <QHostInfo>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QPushButton>
#include <QRegularExpressionValidator>
#include <QStyle>
#include <QTimer>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {

constexpr DestinationType AllTypes[] = {
    DestinationType::WebHook,         DestinationType::AzureFunction,
    DestinationType::StorageQueue,    DestinationType::ServiceBusQueue,
    DestinationType::ServiceBusTopic, DestinationType::EventHub,
};

bool isMessaging(DestinationType type)
{
    return type == DestinationType::ServiceBusQueue || type == DestinationType::ServiceBusTopic
        || type == DestinationType::EventHub;
}

bool needsCredential(DestinationType type)
{
    return type == DestinationType::StorageQueue || isMessaging(type);
}

// The part of a resource id before its provider ("/subscriptions/<id>/resourceGroups/<group>"):
// kept when the name fields rewrite the rest.
QString scopeOf(const QString &resourceId)
{
    const qsizetype at = resourceId.indexOf("/providers/"_L1, 0, Qt::CaseInsensitive);
    return at < 0 ? QString() : resourceId.left(at);
}

QString typeToolTip(DestinationType type)
{
    switch (type) {
    case DestinationType::WebHook:
        return DestinationSection::tr("An HTTP or HTTPS endpoint; it is asked to validate itself "
                                      "first, unless that is switched off.");
    case DestinationType::AzureFunction:
        return DestinationSection::tr("An Event Grid trigger function, reached through its "
                                      "Functions host (local by default). Batching allowed.");
    case DestinationType::StorageQueue:
        return DestinationSection::tr("One queue message per event, signed with the account's "
                                      "key. No batching, no delivery properties.");
    case DestinationType::ServiceBusQueue:
        return DestinationSection::tr("One message per event, signed with a namespace connection "
                                      "string; delivery properties become message properties.");
    case DestinationType::ServiceBusTopic:
        return DestinationSection::tr("One message per event to a topic, signed with a namespace "
                                      "connection string.");
    case DestinationType::EventHub:
        return DestinationSection::tr("One event per event, signed with a namespace connection "
                                      "string; delivery properties become event properties.");
    }
    return {};
}

} // namespace

DestinationSection::DestinationSection(EditorFields &fields)
    : EditorSection(tr("Destination"), fields)
{
    setObjectName(u"destinationGroup"_s);
    m_form = new QFormLayout(this);
    m_form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);

    m_typeCombo = new QComboBox(this);
    m_typeCombo->setObjectName(u"destinationTypeCombo"_s);
    for (const DestinationType type : AllTypes) {
        // The Azure portal's name, then the endpointType workspace.json and exports carry.
        m_typeCombo->addItem(
            u"%1 (%2)"_s.arg(destinationTypeDisplayName(type), destinationTypeName(type)),
            int(type));
        m_typeCombo->setItemData(m_typeCombo->count() - 1, typeToolTip(type), Qt::ToolTipRole);
    }
    m_typeCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_typeCombo->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    m_typeCombo->setToolTip(tr("Where the events go (properties.destination.endpointType)"));
    addRow(tr("Destination &type:"), m_typeCombo, m_typeCombo);

    // WebHook
    m_endpointEdit = new QLineEdit(this);
    m_endpointEdit->setObjectName(u"endpointEdit"_s);
    m_endpointEdit->setPlaceholderText(u"https://example.com/api/events"_s);
    m_endpointEdit->setToolTip(tr("The webhook the events are delivered to (http or https)"));
    m_endpointField = new QWidget(this);
    auto *endpointLayout = new QVBoxLayout(m_endpointField);
    endpointLayout->setContentsMargins(0, 0, 0, 0);
    endpointLayout->setSpacing(2);
    endpointLayout->addWidget(fields.withErrorLabel(SubscriptionField::Endpoint, m_endpointEdit));
    m_hostWarning = new QLabel(m_endpointField);
    m_hostWarning->setObjectName(u"endpointHostWarning"_s);
    m_hostWarning->setWordWrap(true);
    m_hostWarning->setTextFormat(Qt::PlainText);
    m_hostWarning->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_hostWarning->hide();
    endpointLayout->addWidget(m_hostWarning);
    addRow(tr("&Endpoint URL:"), m_endpointField, m_endpointEdit);
    fields.errorLabel(SubscriptionField::Endpoint)->setObjectName(u"endpointError"_s);

    m_validationCheck = new QCheckBox(tr("&Validate the endpoint before delivering to it"), this);
    m_validationCheck->setObjectName(u"validationCheck"_s);
    m_validationCheck->setToolTip(
        tr("Event Grid's validation handshake: the endpoint must answer a "
           "SubscriptionValidationEvent (or the CloudEvents OPTIONS request) before it gets "
           "events. Uncheck for receivers that do not implement it (x-eventdesk.validation). "
           "Only webhooks are asked."));
    m_form->addRow(QString(), m_validationCheck);

    // Azure resources: the name fields build the resource id, and show the parts of a typed one.
    m_resourceNameEdit = new QLineEdit(this);
    m_resourceNameEdit->setObjectName(u"resourceNameEdit"_s);
    m_resourceNameLabel = addRow(QString(), m_resourceNameEdit, m_resourceNameEdit);
    m_entityNameEdit = new QLineEdit(this);
    m_entityNameEdit->setObjectName(u"entityNameEdit"_s);
    m_entityNameLabel = addRow(QString(), m_entityNameEdit, m_entityNameEdit);

    m_resourceIdEdit = new QLineEdit(this);
    m_resourceIdEdit->setObjectName(u"resourceIdEdit"_s);
    m_resourceIdEdit->setToolTip(
        tr("The Azure resource id, as in an exported subscription (properties.destination."
           "properties.resourceId). EventDesk reads the names in it; the names above fill it in."));
    addRow(tr("Resource &ID:"),
           fields.withErrorLabel(SubscriptionField::DestinationResourceId, m_resourceIdEdit),
           m_resourceIdEdit);
    fields.errorLabel(SubscriptionField::DestinationResourceId)
        ->setObjectName(u"resourceIdError"_s);

    // StorageQueue
    m_queueNameEdit = new QLineEdit(this);
    m_queueNameEdit->setObjectName(u"queueNameEdit"_s);
    m_queueNameEdit->setPlaceholderText(tr("e.g. orders"));
    m_queueNameEdit->setToolTip(tr("3 to 63 characters of a–z, 0–9 and single '-'"));
    addRow(tr("&Queue name:"), fields.withErrorLabel(SubscriptionField::QueueName, m_queueNameEdit),
           m_queueNameEdit);
    fields.errorLabel(SubscriptionField::QueueName)->setObjectName(u"queueNameError"_s);

    m_queueTtlEdit = new QLineEdit(this);
    m_queueTtlEdit->setObjectName(u"queueTtlEdit"_s);
    // Any whole number may be typed: one out of range stays visible and the model names the range.
    m_queueTtlEdit->setValidator(
        new QRegularExpressionValidator(QRegularExpression(u"-?[0-9]{0,19}"_s), m_queueTtlEdit));
    m_queueTtlEdit->setPlaceholderText(tr("queue default"));
    m_queueTtlEdit->setMaximumWidth(m_queueTtlEdit->fontMetrics().averageCharWidth() * 18);
    m_queueTtlEdit->setToolTip(
        tr("How long a message stays in the queue, in seconds: from 1 to %1, -1 for never, "
           "empty for the queue's default (7 days)")
            .arg(DeliveryDestination::MaxQueueMessageTimeToLiveSeconds));
    m_queueTtlHint = hintLabel(QString(), this);
    m_queueTtlHint->setObjectName(u"queueTtlHint"_s);
    addRow(
        tr("Message time to &live:"),
        fields.withErrorLabel(SubscriptionField::QueueMessageTtl, m_queueTtlEdit, m_queueTtlHint),
        m_queueTtlEdit);
    fields.errorLabel(SubscriptionField::QueueMessageTtl)->setObjectName(u"queueTtlError"_s);

    m_serviceUrlEdit = new QLineEdit(this);
    m_serviceUrlEdit->setObjectName(u"serviceUrlEdit"_s);
    m_serviceUrlLabel
        = addRow(QString(), fields.withErrorLabel(SubscriptionField::ServiceUrl, m_serviceUrlEdit),
                 m_serviceUrlEdit);
    fields.errorLabel(SubscriptionField::ServiceUrl)->setObjectName(u"serviceUrlError"_s);

    // The credential: whether one is stored, and a button to set or replace it.
    m_credentialRow = new QWidget(this);
    auto *credentialLayout = new QHBoxLayout(m_credentialRow);
    credentialLayout->setContentsMargins(0, 0, 0, 0);
    m_credentialStatus = new QLabel(m_credentialRow);
    m_credentialStatus->setObjectName(u"credentialStatus"_s);
    m_credentialStatus->setWordWrap(true);
    m_credentialStatus->setTextFormat(Qt::PlainText);
    m_credentialButton = new QPushButton(m_credentialRow);
    m_credentialButton->setObjectName(u"credentialButton"_s);
    m_credentialButton->setIcon(QIcon::fromTheme(u"dialog-password"_s));
    credentialLayout->addWidget(m_credentialStatus, 1);
    credentialLayout->addWidget(m_credentialButton, 0, Qt::AlignTop);
    m_credentialLabel = addRow(QString(), m_credentialRow, m_credentialButton);

    m_targetLabel = new QLabel(this);
    m_targetLabel->setObjectName(u"destinationTarget"_s);
    m_targetLabel->setWordWrap(true);
    m_targetLabel->setTextFormat(Qt::PlainText);
    m_targetLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_targetLabel->setForegroundRole(QPalette::PlaceholderText);
    addRow(tr("Delivers to:"), m_targetLabel, nullptr);

    m_credentialTimer = new QTimer(this);
    m_credentialTimer->setSingleShot(true);
    m_credentialTimer->setInterval(300); // once typing pauses: keychains answer over D-Bus
    connect(m_credentialTimer, &QTimer::timeout, this, &DestinationSection::lookUpCredential);
    m_hostLookupTimer = new QTimer(this);
    m_hostLookupTimer->setSingleShot(true);
    m_hostLookupTimer->setInterval(400); // once typing pauses
    connect(m_hostLookupTimer, &QTimer::timeout, this, &DestinationSection::lookUpHost);

    connect(m_typeCombo, &QComboBox::currentIndexChanged, this,
            &DestinationSection::onTypeSelected);
    connect(m_endpointEdit, &QLineEdit::textChanged, this, &DestinationSection::scheduleHostLookup);
    connect(m_endpointEdit, &QLineEdit::textChanged, this, &DestinationSection::edited);
    connect(m_validationCheck, &QCheckBox::toggled, this, &DestinationSection::edited);
    connect(m_resourceNameEdit, &QLineEdit::textEdited, this,
            &DestinationSection::onNamePartsEdited);
    connect(m_entityNameEdit, &QLineEdit::textEdited, this, &DestinationSection::onNamePartsEdited);
    connect(m_resourceIdEdit, &QLineEdit::textEdited, this,
            &DestinationSection::onResourceIdEdited);
    connect(m_queueNameEdit, &QLineEdit::textChanged, this, [this] {
        updateDerivedTexts();
        Q_EMIT edited();
    });
    connect(m_queueTtlEdit, &QLineEdit::textChanged, this, [this] {
        updateQueueTtlHint();
        Q_EMIT edited();
    });
    connect(m_serviceUrlEdit, &QLineEdit::textChanged, this, [this] {
        updateDerivedTexts();
        Q_EMIT edited();
    });
    connect(m_credentialButton, &QPushButton::clicked, this, &DestinationSection::editCredential);

    showRowsOfType();
}

DestinationSection::~DestinationSection() = default;

QLabel *DestinationSection::addRow(const QString &label, QWidget *field, QWidget *buddy)
{
    auto *labelWidget = new QLabel(label, this);
    labelWidget->setBuddy(buddy);
    m_form->addRow(labelWidget, field);
    return labelWidget;
}

void DestinationSection::setCredentialAccess(CredentialAccess *access)
{
    m_access = access;
    updateCredential(CredentialLookup::Again);
}

void DestinationSection::load(const EventSubscription &subscription)
{
    m_drafts.clear();
    m_endpointEdit->setText(subscription.endpointUrl.toString());
    m_validationCheck->setChecked(subscription.validationEnabled);
    const DeliveryDestination &destination = subscription.destination;
    m_type = destination.type;
    {
        const QSignalBlocker blocker(m_typeCombo);
        m_typeCombo->setCurrentIndex(std::max(0, m_typeCombo->findData(int(m_type))));
    }
    Draft draft;
    if (!destination.isWebHook()) {
        draft.resourceId = destination.resourceId;
        draft.queueName = destination.queueName;
        if (destination.queueMessageTimeToLiveInSeconds != 0)
            draft.queueTtl = QString::number(destination.queueMessageTimeToLiveInSeconds);
        draft.serviceUrl = destination.serviceUrl.toString();
    }
    applyDraft(draft);
    showRowsOfType();
    Q_EMIT typeChanged(m_type);
}

void DestinationSection::store(EventSubscription &subscription) const
{
    subscription.destination = currentDestination();
    if (m_type == DestinationType::WebHook) {
        subscription.endpointUrl = QUrl(m_endpointEdit->text().trimmed(), QUrl::StrictMode);
        subscription.validationEnabled = m_validationCheck->isChecked();
    } else {
        // Only the chosen type is saved: the webhook's URL and handshake switch do not apply.
        subscription.endpointUrl = QUrl();
        subscription.validationEnabled = true;
    }
}

DeliveryDestination DestinationSection::currentDestination() const
{
    DeliveryDestination destination;
    destination.type = m_type;
    if (m_type == DestinationType::WebHook)
        return destination;
    destination.resourceId = m_resourceIdEdit->text().trimmed();
    if (m_type == DestinationType::StorageQueue) {
        destination.queueName = m_queueNameEdit->text().trimmed();
        bool ok = false;
        const qint64 seconds = m_queueTtlEdit->text().trimmed().toLongLong(&ok);
        // Text that is no number is reported by queueTtlProblem(); the model keeps the default.
        destination.queueMessageTimeToLiveInSeconds = ok ? seconds : 0;
    }
    const QString serviceUrl = m_serviceUrlEdit->text().trimmed();
    if (!serviceUrl.isEmpty())
        destination.serviceUrl = QUrl(serviceUrl, QUrl::StrictMode);
    return destination;
}

QString DestinationSection::textAsTyped() const
{
    if (m_type == DestinationType::WebHook)
        return m_endpointEdit->text();
    const Draft draft = currentDraft();
    return QStringList {draft.resourceId, draft.queueName, draft.queueTtl, draft.serviceUrl}.join(
        u'\n');
}

QString DestinationSection::queueTtlProblem() const
{
    if (m_type != DestinationType::StorageQueue)
        return {};
    const QString text = m_queueTtlEdit->text().trimmed();
    if (text.isEmpty())
        return {};
    bool ok = false;
    const qint64 seconds = text.toLongLong(&ok);
    if (!ok)
        return tr("must be -1 or a whole number of seconds (got \"%1\")").arg(text);
    // 0 would silently mean "the queue's default", which the empty field says; the file refuses it.
    if (seconds == 0)
        return tr("must not be 0: leave it empty for the queue's default (7 days)");
    return {}; // the model checks the range
}

void DestinationSection::onTypeSelected()
{
    const auto next = DestinationType(m_typeCombo->currentData().toInt());
    if (next == m_type)
        return;
    if (m_type != DestinationType::WebHook)
        m_drafts.insert(m_type, currentDraft());
    m_type = next;
    if (m_type != DestinationType::WebHook)
        applyDraft(m_drafts.value(m_type));
    showRowsOfType();
    Q_EMIT typeChanged(m_type);
    Q_EMIT edited();
}

DestinationSection::Draft DestinationSection::currentDraft() const
{
    return {m_resourceIdEdit->text(), m_queueNameEdit->text(), m_queueTtlEdit->text(),
            m_serviceUrlEdit->text()};
}

void DestinationSection::applyDraft(const Draft &draft)
{
    for (QLineEdit *edit : {m_resourceIdEdit, m_queueNameEdit, m_queueTtlEdit, m_serviceUrlEdit})
        edit->blockSignals(true);
    m_resourceIdEdit->setText(draft.resourceId);
    m_queueNameEdit->setText(draft.queueName);
    m_queueTtlEdit->setText(draft.queueTtl);
    m_serviceUrlEdit->setText(draft.serviceUrl);
    for (QLineEdit *edit : {m_resourceIdEdit, m_queueNameEdit, m_queueTtlEdit, m_serviceUrlEdit})
        edit->blockSignals(false);
    showNameParts();
    updateQueueTtlHint();
}

void DestinationSection::showRowsOfType()
{
    const bool webHook = m_type == DestinationType::WebHook;
    const bool function = m_type == DestinationType::AzureFunction;
    const bool queue = m_type == DestinationType::StorageQueue;
    const bool messaging = isMessaging(m_type);
    m_form->setRowVisible(m_endpointField, webHook);
    m_form->setRowVisible(m_validationCheck, webHook);
    m_form->setRowVisible(m_resourceNameEdit, !webHook);
    m_form->setRowVisible(m_entityNameEdit, function || messaging);
    m_form->setRowVisible(m_resourceIdEdit->parentWidget(), !webHook);
    m_form->setRowVisible(m_queueNameEdit->parentWidget(), queue);
    m_form->setRowVisible(m_queueTtlEdit->parentWidget(), queue);
    m_form->setRowVisible(m_serviceUrlEdit->parentWidget(), !webHook);
    m_form->setRowVisible(m_credentialRow, needsCredential(m_type));
    m_form->setRowVisible(m_targetLabel, !webHook);
    if (webHook) {
        m_credentialTimer->stop();
        return;
    }

    switch (m_type) {
    case DestinationType::AzureFunction:
        m_resourceNameLabel->setText(tr("Function &app:"));
        m_resourceNameEdit->setPlaceholderText(tr("e.g. orders-app"));
        m_resourceNameEdit->setToolTip(tr("The function app (Microsoft.Web/sites)"));
        m_entityNameLabel->setText(tr("&Function:"));
        m_entityNameEdit->setPlaceholderText(tr("e.g. OnOrderCreated"));
        m_entityNameEdit->setToolTip(tr("The Event Grid trigger function in that app"));
        m_serviceUrlLabel->setText(tr("Functions &host URL:"));
        m_serviceUrlEdit->setToolTip(
            tr("Where the function app runs: empty for a local Functions host (func start) at "
               "%1. Events go to its Event Grid webhook; functions are not asked to validate.")
                .arg(Destinations::defaultServiceUrl(m_type, {}).toString()));
        break;
    case DestinationType::StorageQueue:
        m_resourceNameLabel->setText(tr("Storage &account:"));
        m_resourceNameEdit->setPlaceholderText(tr("e.g. devstoreaccount1"));
        m_resourceNameEdit->setToolTip(tr("3 to 24 characters of a–z and 0–9"));
        m_serviceUrlLabel->setText(tr("Queue &endpoint URL:"));
        m_serviceUrlEdit->setToolTip(
            tr("Empty: the connection string's QueueEndpoint if the stored credential is one, "
               "else the account's public endpoint. For Azurite: "
               "http://127.0.0.1:10001/devstoreaccount1"));
        m_credentialLabel->setText(tr("Account &key:"));
        break;
    case DestinationType::ServiceBusQueue:
    case DestinationType::ServiceBusTopic:
    case DestinationType::EventHub:
        m_resourceNameLabel->setText(tr("&Namespace:"));
        m_resourceNameEdit->setPlaceholderText(tr("e.g. contoso-bus"));
        m_resourceNameEdit->setToolTip(m_type == DestinationType::EventHub
                                           ? tr("The Event Hubs namespace")
                                           : tr("The Service Bus namespace"));
        m_entityNameLabel->setText(m_type == DestinationType::ServiceBusQueue ? tr("&Queue:")
                                       : m_type == DestinationType::ServiceBusTopic
                                       ? tr("T&opic:")
                                       : tr("Event &hub:"));
        m_entityNameEdit->setPlaceholderText(tr("e.g. orders"));
        m_entityNameEdit->setToolTip(QString());
        m_serviceUrlLabel->setText(tr("Service &URL:"));
        m_serviceUrlEdit->setToolTip(
            tr("Empty: the connection string's Endpoint, else the namespace's public host. For "
               "a local stand-in: http://127.0.0.1:<port>/"));
        m_credentialLabel->setText(tr("Connection &string:"));
        break;
    case DestinationType::WebHook:
        break;
    }
    m_resourceIdEdit->setPlaceholderText(Destinations::resourceIdPattern(m_type));
    updateDerivedTexts();
    updateCredential(CredentialLookup::Again);
}

void DestinationSection::onNamePartsEdited()
{
    const DeliveryDestination destination = currentDestination();
    DestinationResource parts = Destinations::resourceParts(destination);
    const QString name = m_resourceNameEdit->text().trimmed();
    const QString entity = m_entityNameEdit->text().trimmed();
    switch (m_type) {
    case DestinationType::WebHook:
        return;
    case DestinationType::AzureFunction:
        parts.site = name;
        parts.function = entity;
        break;
    case DestinationType::StorageQueue:
        parts.account = name;
        break;
    case DestinationType::ServiceBusQueue:
    case DestinationType::ServiceBusTopic:
    case DestinationType::EventHub:
        parts.serviceNamespace = name;
        parts.entity = entity;
        break;
    }
    // Nothing named: nothing to build (the resource id stays empty and says it is required).
    const bool named
        = !name.isEmpty() || (!entity.isEmpty() && m_type != DestinationType::StorageQueue);
    const QString resourceId = named
        ? Destinations::resourceId(m_type, parts, scopeOf(destination.resourceId))
        : QString();
    {
        const QSignalBlocker blocker(m_resourceIdEdit);
        m_resourceIdEdit->setText(resourceId);
    }
    updateDerivedTexts();
    Q_EMIT edited();
}

void DestinationSection::onResourceIdEdited()
{
    showNameParts();
    updateDerivedTexts();
    Q_EMIT edited();
}

void DestinationSection::showNameParts()
{
    const DestinationResource parts = Destinations::resourceParts(currentDestination());
    QString name;
    QString entity;
    switch (m_type) {
    case DestinationType::WebHook:
        break;
    case DestinationType::AzureFunction:
        name = parts.site;
        entity = parts.function;
        break;
    case DestinationType::StorageQueue:
        name = parts.account;
        break;
    case DestinationType::ServiceBusQueue:
    case DestinationType::ServiceBusTopic:
    case DestinationType::EventHub:
        name = parts.serviceNamespace;
        entity = parts.entity;
        break;
    }
    // Only what differs: rewriting a field the user is typing in would move the cursor.
    if (m_resourceNameEdit->text().trimmed() != name)
        m_resourceNameEdit->setText(name);
    if (m_entityNameEdit->text().trimmed() != entity)
        m_entityNameEdit->setText(entity);
}

void DestinationSection::updateDerivedTexts()
{
    if (m_type == DestinationType::WebHook)
        return;
    const DeliveryDestination destination = currentDestination();
    const std::optional<DestinationResource> resource = Destinations::resource(destination);
    const QUrl defaultUrl
        = Destinations::defaultServiceUrl(m_type, Destinations::resourceParts(destination));
    // The public host of a resource that is not named yet would read "https://.queue...".
    m_serviceUrlEdit->setPlaceholderText(
        resource || m_type == DestinationType::AzureFunction
            ? tr("%1 (default)").arg(defaultUrl.toString())
            : m_type == DestinationType::StorageQueue
            ? tr("https://<account>.queue.core.windows.net (default)")
            : tr("https://<namespace>.servicebus.windows.net (default)"));

    if (!resource) {
        m_targetLabel->setText(
            tr("Name the %1 above.").arg(destinationTypeDisplayName(m_type).toLower()));
    } else {
        QString what = Destinations::describe(destination, QUrl());
        what[0] = what[0].toUpper(); // "storage queue 'orders' ..." starts the line
        const QUrl url = Destinations::serviceUrl(destination, *resource);
        if (!url.isValid() || url.host().isEmpty()) {
            m_targetLabel->setText(what); // the URL's problem is shown under its field
        } else if (destination.serviceUrl.isEmpty() && needsCredential(m_type)) {
            m_targetLabel->setText(
                tr("%1 at %2, unless the stored connection string names another endpoint")
                    .arg(what, url.toString()));
        } else {
            m_targetLabel->setText(tr("%1 at %2").arg(what, url.toString()));
        }
    }
    updateCredential();
}

void DestinationSection::updateQueueTtlHint()
{
    const QString text = m_queueTtlEdit->text().trimmed();
    bool ok = false;
    const qint64 seconds = text.toLongLong(&ok);
    if (text.isEmpty())
        m_queueTtlHint->setText(tr("seconds · empty: the queue's default (7 days) · -1: never"));
    else if (ok && seconds == -1)
        m_queueTtlHint->setText(tr("seconds · -1: messages never expire"));
    else if (ok && seconds > 0 && seconds <= DeliveryDestination::MaxQueueMessageTimeToLiveSeconds)
        m_queueTtlHint->setText(tr("seconds = %1").arg(formatDuration(seconds * 1000)));
    else
        m_queueTtlHint->setText(tr("seconds: 1–%1, or -1 for never")
                                    .arg(DeliveryDestination::MaxQueueMessageTimeToLiveSeconds));
}

// ---- The credential ----------------------------------------------------------------------------

void DestinationSection::updateCredential(CredentialLookup lookup)
{
    if (!needsCredential(m_type)) {
        m_credentialTimer->stop();
        return;
    }
    const DestinationCredential credential = DestinationCredential::of(currentDestination());
    // Typing a queue name or a URL changes nothing here; a keychain lookup per keystroke would.
    if (lookup == CredentialLookup::IfChanged && credential.key == m_credentialKey)
        return;
    m_credentialKey = credential.key;
    ++m_credentialLookup; // an answer for what the fields named before is of no use now
    m_credentialTimer->stop();
    const bool queue = m_type == DestinationType::StorageQueue;
    m_credentialButton->setText(queue ? tr("Set Key…") : tr("Set Connection String…"));
    m_credentialButton->setEnabled(false);
    if (credential.kind == DestinationCredential::Kind::None) {
        m_credentialStatus->setText(queue ? tr("Name the storage account first.")
                                          : tr("Name the namespace first."));
        m_credentialStatus->setToolTip(QString());
        return;
    }
    m_credentialStatus->setToolTip(
        tr("Kept under “%1”, never in workspace.json. eventdeskd also reads it from %2.")
            .arg(credential.key, credential.environmentVariable()));
    if (!m_access) {
        m_credentialStatus->setText(tr("The secret store is not available here."));
        return;
    }
    m_credentialStatus->setText(tr("Looking it up…"));
    m_credentialTimer->start();
}

void DestinationSection::lookUpCredential()
{
    const DestinationCredential credential = DestinationCredential::of(currentDestination());
    if (!m_access || credential.kind == DestinationCredential::Kind::None)
        return;
    const int lookup = m_credentialLookup;
    QPointer<DestinationSection> self(this);
    m_access->findStored(credential.key, [self, lookup, credential](const Expected<bool> &stored) {
        if (!self || lookup != self->m_credentialLookup)
            return;
        if (stored.hasValue())
            self->showCredentialState(credential, stored.value());
        else
            self->showCredentialProblem(stored.error());
    });
}

void DestinationSection::showCredentialState(const DestinationCredential &credential, bool stored)
{
    const bool queue = credential.kind == DestinationCredential::Kind::StorageAccountKey;
    if (stored) {
        m_credentialStatus->setText(
            queue ? tr("✓ A key of account “%1” is stored (kept in: %2).")
                        .arg(credential.owner, m_access->storeDescription())
                  : tr("✓ A connection string of namespace “%1” is stored (kept in: %2).")
                        .arg(credential.owner, m_access->storeDescription()));
        m_credentialButton->setText(queue ? tr("Replace Key…") : tr("Replace Connection String…"));
    } else {
        m_credentialStatus->setText(
            tr("⚠ Not stored yet: deliveries fail as Unauthorized, without being sent, until it "
               "is."));
    }
    m_credentialButton->setEnabled(true);
}

void DestinationSection::showCredentialProblem(const QString &problem)
{
    m_credentialStatus->setText(tr("⚠ Cannot tell whether it is stored: %1").arg(problem));
}

void DestinationSection::editCredential()
{
    const DestinationCredential credential = DestinationCredential::of(currentDestination());
    if (!m_access || credential.kind == DestinationCredential::Kind::None)
        return;
    QPointer<DestinationSection> self(this);
    m_access->askToStore(window(), credential, [self](bool) {
        if (self)
            self->updateCredential(CredentialLookup::Again);
    });
}

// ---- The webhook's host ------------------------------------------------------------------------

void DestinationSection::scheduleHostLookup()
{
    m_hostWarning->hide();
    if (m_hostLookupId >= 0) {
        QHostInfo::abortHostLookup(m_hostLookupId);
        m_hostLookupId = -1;
    }
    m_hostLookupTimer->start();
}

void DestinationSection::lookUpHost()
{
    const QUrl url(m_endpointEdit->text().trimmed(), QUrl::StrictMode);
    const QString host = url.host();
    // Only a well-formed http(s) URL with a name: the format errors are shown already, and an
    // address literal needs no lookup.
    if (!url.isValid() || (url.scheme() != "http"_L1 && url.scheme() != "https"_L1)
        || host.isEmpty() || !QHostAddress(host).isNull())
        return;
    m_hostLookupId = QHostInfo::lookupHost(host, this, &DestinationSection::onHostLookedUp);
}

void DestinationSection::onHostLookedUp(const QHostInfo &info)
{
    if (info.lookupId() != m_hostLookupId)
        return; // an answer for a host the field no longer names
    m_hostLookupId = -1;
    if (info.error() == QHostInfo::NoError && !info.addresses().isEmpty()) {
        m_hostWarning->hide();
        return;
    }
    m_hostWarning->setText(
        tr("The host “%1” does not resolve (%2). Deliveries and the validation "
           "handshake fail (ResolutionError) until it does; EventDesk keeps retrying.")
            .arg(info.hostName(), info.errorString()));
    m_hostWarning->show();
}

} // namespace EventDesk::Ui
