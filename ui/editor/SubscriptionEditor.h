#pragma once

#include "model/EventSubscription.h"
#include "model/Topic.h"

#include <QList>
#include <QMap>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QFormLayout;
class QGroupBox;
class QHostInfo;
class QLabel;
class QLineEdit;
class QPushButton;
class QScrollArea;
class QTableView;
class QTimer;

namespace EventDesk::Ui {

class AdvancedFilterModel;
class DeliveryHeaderModel;
class LimitSpinBox;
class RetryTimelineView;

// Edits one event subscription: every setting of SPEC with its valid range shown and enforced
// inline, plus the retry timeline preview. Validation is the core's own
// (validateEventSubscription), run on every change; Save stays disabled while anything is invalid.
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

    RetryTimelineView *retryTimelineView() const { return m_timeline; }

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
    // The places a validation message can point at.
    enum class Field {
        Name,
        Endpoint,
        DeliverySchema,
        MaxAttempts,
        TimeToLive,
        MaxEvents,
        PreferredSize,
        Headers,
        AdvancedFilters,
        DeadLetterResourceId,
        DeadLetterContainer,
        DeadLetterAccount,
        DeadLetterEndpoint,
        General,
    };
    struct FieldError
    {
        Field field = Field::General;
        int row = -1; // headers / advanced filters
        QString message;
    };

    QWidget *buildGeneralSection();
    QWidget *buildFilterSection();
    QWidget *buildRetrySection();
    QWidget *buildBatchingSection();
    QWidget *buildHeadersSection();
    QWidget *buildDeadLetterSection();
    QWidget *fieldWithError(Field field, QWidget *input, QWidget *trailing = nullptr);

    void populate(const EventSubscription &subscription);
    void onEdited();
    void revalidate();
    QList<FieldError> collectErrors(const EventSubscription &subscription) const;
    FieldError describeCoreError(const QString &coreMessage) const;
    QByteArray stateKey() const;
    void updateSaveState();
    void updateDeadLetterRows();
    void updateTtlHours();
    void updateCounts();
    void updateTimeline();
    void focusField(Field field, int row);
    void onSaveClicked();
    void onRevertClicked();
    void rebuildSchemaChoices();
    void applyErrorPalette();
    // A host name that does not resolve is worth knowing before saving (deliveries would end
    // ResolutionError), but not an error: the host may come up later. Looked up off the GUI thread.
    void scheduleHostLookup();
    void lookUpHost();
    void onHostLookedUp(const QHostInfo &info);

    EventSchema m_topicInputSchema = EventSchema::EventGrid;
    QString m_topicName;
    EventSubscription m_original;
    QByteArray m_originalKey;
    bool m_isNew = true;
    bool m_loading = false;
    bool m_modified = false;
    QList<FieldError> m_errors;

    QScrollArea *m_scroll = nullptr;
    QLabel *m_titleLabel = nullptr;

    QLineEdit *m_nameEdit = nullptr;
    QLineEdit *m_endpointEdit = nullptr;
    QComboBox *m_schemaCombo = nullptr;
    QCheckBox *m_enabledCheck = nullptr;

    QLineEdit *m_eventTypesEdit = nullptr;
    QLineEdit *m_subjectBeginsEdit = nullptr;
    QLineEdit *m_subjectEndsEdit = nullptr;
    QCheckBox *m_caseSensitiveCheck = nullptr;
    AdvancedFilterModel *m_filterModel = nullptr;
    QTableView *m_filterView = nullptr;
    QPushButton *m_addFilterButton = nullptr;
    QPushButton *m_removeFilterButton = nullptr;
    QLabel *m_filterCountLabel = nullptr;

    LimitSpinBox *m_maxAttemptsSpin = nullptr;
    LimitSpinBox *m_ttlSpin = nullptr;
    QLabel *m_ttlHoursLabel = nullptr;
    RetryTimelineView *m_timeline = nullptr;

    QGroupBox *m_batchingGroup = nullptr;
    LimitSpinBox *m_maxEventsSpin = nullptr;
    LimitSpinBox *m_preferredSizeSpin = nullptr;

    DeliveryHeaderModel *m_headerModel = nullptr;
    QTableView *m_headerView = nullptr;
    QPushButton *m_addHeaderButton = nullptr;
    QPushButton *m_removeHeaderButton = nullptr;
    QCheckBox *m_revealSecretsCheck = nullptr;
    QLabel *m_headerCountLabel = nullptr;

    QComboBox *m_deadLetterCombo = nullptr;
    QFormLayout *m_deadLetterForm = nullptr;
    QLineEdit *m_deadLetterContainerEdit = nullptr;
    QLineEdit *m_deadLetterAccountEdit = nullptr;
    QLineEdit *m_deadLetterEndpointEdit = nullptr;
    QLineEdit *m_deadLetterResourceIdEdit = nullptr;
    QLabel *m_deadLetterHint = nullptr;

    QLabel *m_summaryIcon = nullptr;
    QLabel *m_summaryLabel = nullptr;
    QLabel *m_saveErrorLabel = nullptr;
    QPushButton *m_revertButton = nullptr;
    QPushButton *m_saveButton = nullptr;

    QMap<Field, QLabel *> m_errorLabels;
    QMap<Field, QWidget *> m_fieldWidgets;

    QLabel *m_hostWarning = nullptr;
    QTimer *m_hostLookupTimer = nullptr;
    int m_hostLookupId = -1;
};

} // namespace EventDesk::Ui
