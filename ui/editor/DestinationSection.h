// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "EditorSection.h"

#include <QMap>

class QCheckBox;
class QComboBox;
class QFormLayout;
class QHostInfo;
class QLabel;
class QLineEdit;
class QPushButton;
class QTimer;

namespace EventDesk::Ui {

class CredentialAccess;
struct DestinationCredential;

// Where the events go: a webhook URL, or one of the Azure resources Event Grid delivers to (a
// function, a storage queue, a Service Bus queue or topic, an event hub), with exactly the fields
// of the chosen type. Switching the type keeps what was typed for the others until the editor
// saves; only the chosen type's values are stored.
//
// A resource is named by its Resource Manager id, which is what workspace.json keeps (ARM shape).
// The name fields above it (app and function, account, namespace and entity) build that id and
// show the parts of one typed or pasted, so that neither has to be written by hand.
//
// Queues, Service Bus and Event Hubs need a secret; the section shows whether one is stored and
// has CredentialAccess ask for it. A webhook's host that does not resolve is worth knowing before
// saving (deliveries would end ResolutionError), but is not an error: it is looked up off the GUI
// thread once typing pauses, and a warning under the URL says so.
class DestinationSection final : public EditorSection
{
    Q_OBJECT

public:
    explicit DestinationSection(EditorFields &fields);
    ~DestinationSection() override;

    void load(const EventDesk::EventSubscription &subscription) override;
    void store(EventDesk::EventSubscription &subscription) const override;

    EventDesk::DestinationType type() const { return m_type; }
    // Where the credential of a queue, Service Bus or Event Hubs destination is looked up and
    // stored; nullptr: nowhere (the section says so).
    void setCredentialAccess(CredentialAccess *access);

    // The fields exactly as typed: a URL or a number that does not parse is still a change.
    QString textAsTyped() const;
    // Why the message time to live as typed is no value the model can hold ("-", "0"); empty
    // when it is one (the model checks its range).
    QString queueTtlProblem() const;
    QLabel *hostWarning() const { return m_hostWarning; }

Q_SIGNALS:
    void typeChanged(EventDesk::DestinationType type);

private:
    // What was typed for one type of Azure resource.
    struct Draft
    {
        QString resourceId;
        QString queueName;
        QString queueTtl;
        QString serviceUrl;
    };

    QLabel *addRow(const QString &label, QWidget *field, QWidget *buddy);
    void onTypeSelected();
    void showRowsOfType();
    void applyDraft(const Draft &draft);
    Draft currentDraft() const;
    DeliveryDestination currentDestination() const;
    void onNamePartsEdited();
    void onResourceIdEdited();
    void showNameParts();
    void updateDerivedTexts();
    void updateQueueTtlHint();

    enum class CredentialLookup { IfChanged, Again };
    void updateCredential(CredentialLookup lookup = CredentialLookup::IfChanged);
    void lookUpCredential();
    void showCredentialState(const DestinationCredential &credential, bool stored);
    void showCredentialProblem(const QString &problem);
    void editCredential();

    void scheduleHostLookup();
    void lookUpHost();
    void onHostLookedUp(const QHostInfo &info);

    DestinationType m_type = DestinationType::WebHook;
    QMap<DestinationType, Draft> m_drafts;
    CredentialAccess *m_access = nullptr;
    int m_credentialLookup = 0; // counts lookups: answers to an older one are dropped
    QString m_credentialKey; // what the status shows

    QFormLayout *m_form = nullptr;
    QComboBox *m_typeCombo = nullptr;
    QWidget *m_endpointField = nullptr;
    QLineEdit *m_endpointEdit = nullptr;
    QLabel *m_hostWarning = nullptr;
    QCheckBox *m_validationCheck = nullptr;
    QLabel *m_resourceNameLabel = nullptr;
    QLineEdit *m_resourceNameEdit = nullptr;
    QLabel *m_entityNameLabel = nullptr;
    QLineEdit *m_entityNameEdit = nullptr;
    QLineEdit *m_resourceIdEdit = nullptr;
    QLineEdit *m_queueNameEdit = nullptr;
    QLineEdit *m_queueTtlEdit = nullptr;
    QLabel *m_queueTtlHint = nullptr;
    QLabel *m_serviceUrlLabel = nullptr;
    QLineEdit *m_serviceUrlEdit = nullptr;
    QLabel *m_credentialLabel = nullptr;
    QWidget *m_credentialRow = nullptr;
    QLabel *m_credentialStatus = nullptr;
    QPushButton *m_credentialButton = nullptr;
    QLabel *m_targetLabel = nullptr;
    QTimer *m_credentialTimer = nullptr;
    QTimer *m_hostLookupTimer = nullptr;
    int m_hostLookupId = -1;
};

} // namespace EventDesk::Ui
