// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "model/EventSchema.h"

#include <QByteArray>
#include <QDialog>
#include <QList>
#include <QPointer>
#include <QString>

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace EventDesk {
class EngineHost;
struct PublishResult;
}

namespace EventDesk::Ui {

class JsonEditor;
struct PublishPlan;

// "Send test event": pick a topic (its input schema preselects the schema), start from a template
// with fresh ids and times, edit the JSON with live validation, send it once or N times (batched
// into requests under 1 MB) or send a file. Publishing goes through EngineHost::publish and never
// blocks the GUI; the result line shows what the engine accepted or its exact error.
class SendEventDialog final : public QDialog
{
    Q_OBJECT

public:
    explicit SendEventDialog(EventDesk::EngineHost *host, QWidget *parent = nullptr);
    ~SendEventDialog() override;

    void setTopic(const QString &topicName); // preselect; topics come from host->workspace()

    QString topic() const;
    EventSchema schema() const;
    void setSchema(EventSchema schema);
    void setCopies(int copies);
    JsonEditor *editor() const { return m_editor; }

    // Loads a JSON file into the editor (validated as if typed). False, with the reason shown in
    // the result area, when it cannot be read.
    bool loadFile(const QString &path);
    bool isSending() const { return m_sending; }
    QString resultText() const;

public Q_SLOTS:
    void newTemplate();
    void send();
    void sendFile(); // asks for a file, loads it, and sends it when it is valid

Q_SIGNALS:
    // After every send attempt (success or not), when the result line is updated.
    void sendFinished(bool accepted);

private:
    void reloadTopics();
    void topicChanged();
    void schemaChanged();
    void updateSendButton();
    void updateSchemaHint();
    void startRequests(const PublishPlan &plan);
    void sendNextRequest();
    void requestFinished(const EventDesk::PublishResult &result);
    void showResult(bool success, const QString &text);

    EventDesk::EngineHost *m_host;
    QComboBox *m_topicCombo = nullptr;
    QComboBox *m_schemaCombo = nullptr;
    QLabel *m_schemaHint = nullptr;
    QPushButton *m_templateButton = nullptr;
    JsonEditor *m_editor = nullptr;
    QLabel *m_validationLabel = nullptr;
    QSpinBox *m_copiesSpin = nullptr;
    QPushButton *m_sendFileButton = nullptr;
    QPushButton *m_sendButton = nullptr;
    QProgressBar *m_progress = nullptr;
    QLabel *m_resultLabel = nullptr;

    QString m_lastTemplate;
    QString m_lastDirectory;
    bool m_sending = false;
    // The send in progress.
    QString m_sendTopic;
    QList<QByteArray> m_bodies;
    QByteArray m_contentType;
    int m_nextBody = 0;
    int m_acceptedEvents = 0;
    int m_deliveries = 0;
};

} // namespace EventDesk::Ui
