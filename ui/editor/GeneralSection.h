#pragma once

#include "EditorSection.h"

class QCheckBox;
class QComboBox;
class QHostInfo;
class QLabel;
class QLineEdit;
class QTimer;

namespace EventDesk::Ui {

// Name, endpoint URL, delivery schema and whether the subscription delivers at all. A host name
// that does not resolve is worth knowing before saving (deliveries would end ResolutionError), but
// it is not an error: the host may come up later. It is looked up off the GUI thread once typing
// pauses, and a warning under the endpoint says so.
class GeneralSection final : public EditorSection
{
    Q_OBJECT

public:
    explicit GeneralSection(EditorFields &fields);
    ~GeneralSection() override;

    // SPEC S4: the delivery schemas this topic input schema allows; the others are shown disabled.
    void setTopicInputSchema(EventDesk::EventSchema schema);
    // An existing subscription keeps its name.
    void setNameEditable(bool editable);

    void load(const EventDesk::EventSubscription &subscription) override;
    void store(EventDesk::EventSubscription &subscription) const override;

    // The endpoint exactly as typed (a URL that does not parse is still a change).
    QString endpointText() const;
    QLabel *hostWarning() const { return m_hostWarning; }

private:
    void scheduleHostLookup();
    void lookUpHost();
    void onHostLookedUp(const QHostInfo &info);

    EventSchema m_topicInputSchema = EventSchema::EventGrid;
    QLineEdit *m_nameEdit = nullptr;
    QLineEdit *m_endpointEdit = nullptr;
    QComboBox *m_schemaCombo = nullptr;
    QCheckBox *m_enabledCheck = nullptr;
    QLabel *m_hostWarning = nullptr;
    QTimer *m_hostLookupTimer = nullptr;
    int m_hostLookupId = -1;
};

} // namespace EventDesk::Ui
