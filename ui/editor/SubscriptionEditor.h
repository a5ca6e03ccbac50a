// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "EditorSection.h"
#include "model/EventSubscription.h"
#include "model/Topic.h"

#include <QList>
#include <QWidget>

class QLabel;
class QPushButton;
class QScrollArea;

namespace EventDesk::Ui {

class BatchingSection;
class CredentialAccess;
class DeadLetterSection;
class DestinationSection;
class FilterSection;
class GeneralSection;
class HeadersSection;
class RetrySection;
class RetryTimelineView;

// Edits one event subscription: every setting of SPEC with its valid range shown and enforced
// inline, plus the retry timeline preview. Each group of settings is an EditorSection; the editor
// holds what they share: the subscription being edited, whether it changed, its validation
// (SubscriptionValidator, the core's own rules run on every change) and Save / Revert. Save stays
// disabled while anything is invalid.
class SubscriptionEditor final : public QWidget
{
    Q_OBJECT

public:
    enum class DiscardChoice { Save, Discard, Cancel };
    Q_ENUM(DiscardChoice)

    explicit SubscriptionEditor(QWidget *parent = nullptr);
    ~SubscriptionEditor() override;

    // topic: the owning topic (its input schema decides the allowed delivery schemas, S4).
    // isNew: the name is editable (an existing subscription keeps its name).
    void setSubscription(const EventDesk::Topic &topic,
                         const EventDesk::EventSubscription &subscription, bool isNew);
    // The current edited values. Secret static header values are included as typed (empty when
    // left unchanged): the caller moves them to the keychain (SPEC H2).
    EventDesk::EventSubscription subscription() const;

    bool isValid() const { return m_errors.isEmpty(); }
    bool isModified() const { return m_modified; }
    bool isNew() const { return m_isNew; }

    // The first validation problem, as shown in the summary line (empty when valid).
    QString validationMessage() const;

    void markSaved(); // after the lead saved it successfully
    void showSaveError(const QString &message); // engine/workspace refused it

    RetryTimelineView *retryTimelineView() const;

    // Where the destination's credential (a queue's account key, a namespace's connection string)
    // is looked up and stored. nullptr: nowhere; the editor says so.
    void setCredentialAccess(CredentialAccess *access);

    // Asks whether to save the unsaved changes of subscription `name` before they would be lost.
    static DiscardChoice askToSave(QWidget *parent, const QString &name);

Q_SIGNALS:
    void saveRequested(const EventDesk::EventSubscription &subscription);
    void revertRequested();
    void modifiedChanged(bool modified);
    void validityChanged(bool valid);

protected:
    void changeEvent(QEvent *event) override;

private:
    void populate(const EventSubscription &subscription);
    void onEdited();
    void revalidate();
    QByteArray stateKey() const;
    void updateSaveState();
    void focusField(SubscriptionField field, int row);
    void onSaveClicked();
    void onRevertClicked();
    void applyErrorPalette();
    void applyDestinationType(DestinationType type);

    EventSchema m_topicInputSchema = EventSchema::EventGrid;
    QString m_topicName;
    EventSubscription m_original;
    QByteArray m_originalKey;
    bool m_isNew = true;
    bool m_loading = false;
    bool m_modified = false;
    QList<FieldError> m_errors;
    EditorFields m_fields;

    QScrollArea *m_scroll = nullptr;
    QLabel *m_titleLabel = nullptr;
    GeneralSection *m_general = nullptr;
    DestinationSection *m_destination = nullptr;
    FilterSection *m_filters = nullptr;
    RetrySection *m_retry = nullptr;
    BatchingSection *m_batching = nullptr;
    HeadersSection *m_headers = nullptr;
    DeadLetterSection *m_deadLetter = nullptr;
    QList<EditorSection *> m_sections;

    QLabel *m_summaryIcon = nullptr;
    QLabel *m_summaryLabel = nullptr;
    QLabel *m_saveErrorLabel = nullptr;
    QPushButton *m_revertButton = nullptr;
    QPushButton *m_saveButton = nullptr;
};

} // namespace EventDesk::Ui
