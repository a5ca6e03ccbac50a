// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "SubscriptionEditor.h"

#include "BatchingSection.h"
#include "DeadLetterSection.h"
#include "DestinationSection.h"
#include "FilterSection.h"
#include "GeneralSection.h"
#include "HeadersSection.h"
#include "RetrySection.h"

#include "common/Format.h"
#include "model/Workspace.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QStyle>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

SubscriptionEditor::SubscriptionEditor(QWidget *parent)
    : QWidget(parent)
{
    m_titleLabel = new QLabel(this);
    m_titleLabel->setObjectName(u"titleLabel"_s);
    QFont titleFont = m_titleLabel->font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.2);
    titleFont.setBold(true);
    m_titleLabel->setFont(titleFont);
    m_titleLabel->setTextFormat(Qt::PlainText);

    auto *content = new QWidget;
    auto *contentLayout = new QVBoxLayout(content);
    m_general = new GeneralSection(m_fields);
    m_destination = new DestinationSection(m_fields);
    m_filters = new FilterSection(m_fields);
    m_retry = new RetrySection(m_fields);
    m_batching = new BatchingSection(m_fields);
    m_headers = new HeadersSection(m_fields);
    m_deadLetter = new DeadLetterSection(m_fields);
    m_sections
        = {m_general, m_destination, m_filters, m_retry, m_batching, m_headers, m_deadLetter};
    for (EditorSection *section : std::as_const(m_sections)) {
        contentLayout->addWidget(section);
        connect(section, &EditorSection::edited, this, &SubscriptionEditor::onEdited);
    }
    contentLayout->addStretch(1);
    connect(m_destination, &DestinationSection::typeChanged, this,
            &SubscriptionEditor::applyDestinationType);

    m_scroll = new QScrollArea(this);
    m_scroll->setObjectName(u"editorScrollArea"_s);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setWidget(content);

    m_saveErrorLabel = new QLabel(this);
    m_saveErrorLabel->setObjectName(u"saveErrorLabel"_s);
    m_saveErrorLabel->setWordWrap(true);
    m_saveErrorLabel->setTextFormat(Qt::PlainText);
    m_saveErrorLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_saveErrorLabel->hide();

    m_summaryIcon = new QLabel(this);
    const int iconSize = style()->pixelMetric(QStyle::PM_SmallIconSize, nullptr, this);
    m_summaryIcon->setFixedSize(iconSize, iconSize);
    m_summaryLabel = new QLabel(this);
    m_summaryLabel->setObjectName(u"summaryLabel"_s);
    m_summaryLabel->setWordWrap(true);
    m_summaryLabel->setTextFormat(Qt::RichText);
    m_summaryLabel->setTextInteractionFlags(Qt::LinksAccessibleByMouse
                                            | Qt::LinksAccessibleByKeyboard);
    connect(m_summaryLabel, &QLabel::linkActivated, this, [this] {
        if (!m_errors.isEmpty())
            focusField(m_errors.constFirst().field, m_errors.constFirst().row);
    });

    m_revertButton = new QPushButton(tr("&Revert"), this);
    m_revertButton->setObjectName(u"revertButton"_s);
    m_revertButton->setToolTip(tr("Undo every change since the subscription was loaded or saved"));
    m_revertButton->setIcon(style()->standardIcon(QStyle::SP_DialogResetButton));
    m_saveButton = new QPushButton(tr("&Save"), this);
    m_saveButton->setObjectName(u"saveButton"_s);
    m_saveButton->setIcon(style()->standardIcon(QStyle::SP_DialogSaveButton));
    m_saveButton->setDefault(true);
    connect(m_saveButton, &QPushButton::clicked, this, &SubscriptionEditor::onSaveClicked);
    connect(m_revertButton, &QPushButton::clicked, this, &SubscriptionEditor::onRevertClicked);

    auto *bar = new QHBoxLayout;
    bar->addWidget(m_summaryIcon, 0, Qt::AlignTop);
    bar->addWidget(m_summaryLabel, 1);
    bar->addWidget(m_revertButton);
    bar->addWidget(m_saveButton);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_titleLabel);
    layout->addWidget(m_scroll, 1);
    layout->addWidget(m_saveErrorLabel);
    layout->addLayout(bar);

    applyErrorPalette();
    setSubscription(Topic(), EventSubscription(), true);
}

SubscriptionEditor::~SubscriptionEditor()
{
    // ~QWidget closes an open cell editor, which commits into the models; by then this object is
    // no longer a SubscriptionEditor, so nothing may call back into it.
    const QList<QObject *> children = findChildren<QObject *>();
    for (QObject *object : children)
        disconnect(object, nullptr, this, nullptr);
}

RetryTimelineView *SubscriptionEditor::retryTimelineView() const
{
    return m_retry->timeline();
}

void SubscriptionEditor::setCredentialAccess(CredentialAccess *access)
{
    m_destination->setCredentialAccess(access);
}

void SubscriptionEditor::applyDestinationType(DestinationType type)
{
    // What the type lacks (batching, delivery properties) is not stored, and each section says why.
    m_batching->setDestinationType(type);
    m_headers->setDestinationType(type);
}

void SubscriptionEditor::setSubscription(const Topic &topic, const EventSubscription &subscription,
                                         bool isNew)
{
    m_topicInputSchema = topic.inputSchema;
    m_topicName = topic.name;
    m_original = subscription;
    m_isNew = isNew;
    populate(subscription);
    m_titleLabel->setText(
        isNew
            ? (m_topicName.isEmpty() ? tr("New event subscription")
                                     : tr("New event subscription in topic “%1”").arg(m_topicName))
            : (m_topicName.isEmpty() ? tr("Event subscription “%1”").arg(subscription.name)
                                     : tr("Event subscription “%1” in topic “%2”")
                                           .arg(subscription.name, m_topicName)));
    m_scroll->ensureVisible(0, 0);
}

void SubscriptionEditor::populate(const EventSubscription &subscription)
{
    m_loading = true;
    m_general->setTopicInputSchema(m_topicInputSchema);
    m_general->setNameEditable(m_isNew);
    for (EditorSection *section : std::as_const(m_sections))
        section->load(subscription);
    // After every section has its values: the headers' note counts them.
    applyDestinationType(subscription.destination.type);
    m_loading = false;

    m_saveErrorLabel->hide();
    m_originalKey = stateKey();
    const bool wasModified = m_modified;
    m_modified = m_isNew;
    revalidate();
    if (wasModified != m_modified)
        Q_EMIT modifiedChanged(m_modified);
}

EventSubscription SubscriptionEditor::subscription() const
{
    EventSubscription subscription = m_original;
    for (const EditorSection *section : m_sections)
        section->store(subscription);
    return subscription;
}

QByteArray SubscriptionEditor::stateKey() const
{
    const EventSubscription current = subscription();
    QByteArray key = QJsonDocument(eventSubscriptionToArm(current)).toJson(QJsonDocument::Compact);
    // What the ARM shape leaves out: secret values (H2) and the text exactly as typed.
    for (const DeliveryHeader &header : current.deliveryHeaders)
        key += '\n' + header.value.toUtf8();
    key += m_filters->valuesAsTyped();
    key += '\n' + m_destination->textAsTyped().toUtf8();
    return key;
}

void SubscriptionEditor::onEdited()
{
    if (m_loading)
        return;
    m_saveErrorLabel->hide();
    const bool modified = m_isNew || stateKey() != m_originalKey;
    revalidate();
    if (modified != m_modified) {
        m_modified = modified;
        updateSaveState();
        Q_EMIT modifiedChanged(modified);
    }
}

void SubscriptionEditor::revalidate()
{
    const bool wasValid = m_errors.isEmpty();
    const EventSubscription current = subscription();
    m_errors = SubscriptionValidator::collectErrors(
        current, m_topicInputSchema, m_filters->parseErrors(), m_deadLetter->isResourceIdTyped(),
        m_destination->queueTtlProblem());

    QMap<SubscriptionField, QStringList> messages;
    QHash<int, QString> headerRows;
    QHash<int, QString> filterRows;
    for (const FieldError &error : std::as_const(m_errors)) {
        messages[error.field].append(error.message);
        if (error.field == SubscriptionField::Headers && error.row >= 0)
            headerRows.insert(error.row, error.message);
        if (error.field == SubscriptionField::AdvancedFilters && error.row >= 0)
            filterRows.insert(error.row, error.message);
    }
    m_fields.showMessages(messages);
    m_headers->setRowErrors(headerRows);
    m_filters->setRowErrors(filterRows);

    m_filters->updateCounts();
    m_headers->updateCounts();
    m_retry->updateTimeline(m_deadLetter->hasDestination(), current.destination.type);
    updateSaveState();
    if (wasValid != m_errors.isEmpty())
        Q_EMIT validityChanged(m_errors.isEmpty());
}

QString SubscriptionEditor::validationMessage() const
{
    return m_errors.isEmpty() ? QString() : m_errors.constFirst().message;
}

void SubscriptionEditor::updateSaveState()
{
    const bool valid = m_errors.isEmpty();
    m_saveButton->setEnabled(valid && m_modified);
    m_revertButton->setEnabled(m_modified && !(m_isNew && stateKey() == m_originalKey));
    m_saveButton->setToolTip(valid ? tr("Save the subscription to the workspace")
                                   : tr("Fix the problems shown first"));

    const int iconSize = m_summaryIcon->width();
    if (!valid) {
        m_summaryIcon->setPixmap(style()
                                     ->standardIcon(QStyle::SP_MessageBoxWarning, nullptr, this)
                                     .pixmap(iconSize, iconSize, QIcon::Normal));
        const QString first = m_errors.constFirst().message.toHtmlEscaped();
        const QString text = m_errors.size() == 1
            ? first
            : tr("%1 problems. First: %2").arg(m_errors.size()).arg(first);
        m_summaryLabel->setText(text + u" <a href=\"#show\">"_s + tr("Show") + u"</a>"_s);
    } else {
        m_summaryIcon->setPixmap(style()
                                     ->standardIcon(QStyle::SP_DialogApplyButton, nullptr, this)
                                     .pixmap(iconSize, iconSize, QIcon::Normal));
        const QString text = m_isNew ? tr("New subscription, not saved yet.")
            : m_modified             ? tr("Unsaved changes.")
                                     : tr("No unsaved changes.");
        m_summaryLabel->setText(text.toHtmlEscaped());
    }
}

void SubscriptionEditor::focusField(SubscriptionField field, int row)
{
    QWidget *widget = m_fields.input(field);
    if (!widget)
        return;
    m_scroll->ensureWidgetVisible(widget);
    widget->setFocus(Qt::OtherFocusReason);
    if (row >= 0) {
        if (field == SubscriptionField::Headers)
            m_headers->setCurrentRow(row);
        else if (field == SubscriptionField::AdvancedFilters)
            m_filters->setCurrentRow(row);
    }
}

void SubscriptionEditor::onSaveClicked()
{
    revalidate();
    if (!m_errors.isEmpty()) {
        focusField(m_errors.constFirst().field, m_errors.constFirst().row);
        return;
    }
    Q_EMIT saveRequested(subscription());
}

void SubscriptionEditor::onRevertClicked()
{
    populate(m_original);
    Q_EMIT revertRequested();
}

void SubscriptionEditor::markSaved()
{
    m_original = subscription();
    m_isNew = false;
    m_general->setNameEditable(false);
    m_titleLabel->setText(
        m_topicName.isEmpty()
            ? tr("Event subscription “%1”").arg(m_original.name)
            : tr("Event subscription “%1” in topic “%2”").arg(m_original.name, m_topicName));
    m_saveErrorLabel->hide();
    m_originalKey = stateKey();
    const bool wasModified = m_modified;
    m_modified = false;
    updateSaveState();
    if (wasModified)
        Q_EMIT modifiedChanged(false);
}

void SubscriptionEditor::showSaveError(const QString &message)
{
    m_saveErrorLabel->setText(tr("Not saved: %1").arg(message));
    m_saveErrorLabel->show();
    // A message that names a field ("properties.retryPolicy...: ...") leads to that field.
    const FieldError error = SubscriptionValidator::describeCoreError(
        message, m_deadLetter->isResourceIdTyped(), m_destination->type());
    if (error.field != SubscriptionField::General)
        focusField(error.field, error.row);
}

SubscriptionEditor::DiscardChoice SubscriptionEditor::askToSave(QWidget *parent,
                                                                const QString &name)
{
    QMessageBox box(parent);
    box.setIcon(QMessageBox::Warning);
    box.setWindowTitle(tr("Unsaved changes"));
    box.setText(name.isEmpty() ? tr("The new event subscription has not been saved.")
                               : tr("Event subscription “%1” has unsaved changes.").arg(name));
    box.setInformativeText(tr("Save them before you leave the editor?"));
    box.setStandardButtons(QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
    box.setDefaultButton(QMessageBox::Save);
    box.setEscapeButton(QMessageBox::Cancel);
    switch (box.exec()) {
    case QMessageBox::Save:
        return DiscardChoice::Save;
    case QMessageBox::Discard:
        return DiscardChoice::Discard;
    default:
        return DiscardChoice::Cancel;
    }
}

void SubscriptionEditor::applyErrorPalette()
{
    const QColor color = errorTextColor(palette());
    const auto paint = [&color](QLabel *label) {
        QPalette pal = label->palette();
        pal.setColor(QPalette::WindowText, color);
        label->setPalette(pal);
    };
    const QList<QLabel *> errorLabels = m_fields.errorLabels();
    for (QLabel *label : errorLabels)
        paint(label);
    paint(m_saveErrorLabel);
    QLabel *hostWarning = m_destination->hostWarning();
    QPalette warning = hostWarning->palette();
    warning.setColor(QPalette::WindowText, outcomeColor(DeliveryOutcome::Busy)); // amber: a warning
    hostWarning->setPalette(warning);
}

void SubscriptionEditor::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && m_saveErrorLabel)
        applyErrorPalette();
}

} // namespace EventDesk::Ui
