// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "SendEventDialog.h"

#include "EventTemplates.h"
#include "JsonEditor.h"
#include "common/Format.h"
#include "host/EngineHost.h"

#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QShortcut>
#include <QSpinBox>
#include <QThread>
#include <QVBoxLayout>

#include <memory>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {

// Plans up to this many events on the GUI thread; bigger ones are serialised on a worker thread.
constexpr int SynchronousPlanLimit = 200;
constexpr qint64 MaxFileBytes = 64LL * 1024 * 1024;

void setTextColor(QLabel *label, const QColor &color)
{
    QPalette palette = label->palette();
    palette.setColor(QPalette::WindowText, color);
    label->setPalette(palette);
}

} // namespace

SendEventDialog::SendEventDialog(EventDesk::EngineHost *host, QWidget *parent)
    : QDialog(parent)
    , m_host(host)
{
    setWindowTitle(tr("Send Test Event"));
    setSizeGripEnabled(true);

    m_topicCombo = new QComboBox(this);
    m_topicCombo->setToolTip(tr("The topic to publish to, with the input schema it accepts"));
    m_topicCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_schemaCombo = new QComboBox(this);
    m_schemaCombo->setToolTip(tr("The shape of the event in the editor. Follows the topic's input schema; "
                                 "pick another one to see how the engine rejects it."));
    for (const EventSchema schema : {EventSchema::EventGrid, EventSchema::CloudEvents10, EventSchema::Custom})
        m_schemaCombo->addItem(schemaDisplayName(schema), int(schema));
    m_templateButton = new QPushButton(tr("&New Template"), this);
    m_templateButton->setToolTip(tr("Replace the editor's content with an example event for the schema, "
                                    "with a fresh id and the current time"));
    m_templateButton->setAutoDefault(false);

    auto *topicLabel = new QLabel(tr("&Topic:"), this);
    topicLabel->setBuddy(m_topicCombo);
    auto *schemaLabel = new QLabel(tr("Sc&hema:"), this);
    schemaLabel->setBuddy(m_schemaCombo);

    m_schemaHint = new QLabel(this);
    m_schemaHint->setWordWrap(true);
    m_schemaHint->setVisible(false);

    m_editor = new JsonEditor(this);
    m_editor->setToolTip(tr("The event JSON. Errors are underlined as you type; Ctrl+Shift+F formats it."));
    auto *editorLabel = new QLabel(tr("&Event JSON:"), this);
    editorLabel->setBuddy(m_editor);
    auto *formatButton = new QPushButton(tr("&Format"), this);
    formatButton->setAutoDefault(false);
    formatButton->setToolTip(m_editor->prettyPrintAction()->toolTip());
    connect(formatButton, &QPushButton::clicked, m_editor, &JsonEditor::prettyPrint);
    connect(m_editor->prettyPrintAction(), &QAction::changed, formatButton,
            [this, formatButton] { formatButton->setEnabled(m_editor->prettyPrintAction()->isEnabled()); });

    m_validationLabel = new QLabel(this);
    m_validationLabel->setWordWrap(true);
    m_validationLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_copiesSpin = new QSpinBox(this);
    m_copiesSpin->setRange(1, 10000);
    m_copiesSpin->setValue(1);
    m_copiesSpin->setAccelerated(true);
    m_copiesSpin->setToolTip(tr("How many copies to send (1–10000). Copies after the first get fresh ids; "
                                "they are batched into requests of at most 1 MB."));
    auto *copiesLabel = new QLabel(tr("&Copies:"), this);
    copiesLabel->setBuddy(m_copiesSpin);

    m_sendFileButton = new QPushButton(tr("Send &File…"), this);
    m_sendFileButton->setAutoDefault(false);
    m_sendFileButton->setToolTip(tr("Load a .json file into the editor and send it when it is valid"));
    m_sendButton = new QPushButton(tr("&Send"), this);
    m_sendButton->setAutoDefault(false);
    m_sendButton->setIcon(QIcon::fromTheme(u"mail-send"_s));
    m_sendButton->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
    m_sendButton->setToolTip(tr("Publish the event to the topic (Ctrl+Return)"));
    auto *enterShortcut = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_Enter), this);
    connect(enterShortcut, &QShortcut::activated, this, &SendEventDialog::send);

    m_progress = new QProgressBar(this);
    m_progress->setVisible(false);
    m_progress->setTextVisible(true);
    m_resultLabel = new QLabel(this);
    m_resultLabel->setWordWrap(true);
    m_resultLabel->setTextFormat(Qt::PlainText);
    m_resultLabel->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_resultLabel->setFrameShape(QFrame::StyledPanel);
    m_resultLabel->setMargin(6);
    m_resultLabel->setMinimumHeight(m_resultLabel->fontMetrics().height() * 2 + 14);
    m_resultLabel->setAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    m_resultLabel->setText(tr("Nothing sent yet."));
    m_resultLabel->setToolTip(tr("What the engine answered to the last send"));
    setTextColor(m_resultLabel, palette().color(QPalette::PlaceholderText));

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *top = new QGridLayout;
    top->addWidget(topicLabel, 0, 0);
    top->addWidget(m_topicCombo, 0, 1);
    top->addWidget(schemaLabel, 0, 2);
    top->addWidget(m_schemaCombo, 0, 3);
    top->addWidget(m_templateButton, 0, 4);
    top->setColumnStretch(1, 2);
    top->setColumnStretch(3, 1);
    top->addWidget(m_schemaHint, 1, 0, 1, 5);

    auto *editorHeader = new QHBoxLayout;
    editorHeader->addWidget(editorLabel);
    editorHeader->addStretch();
    editorHeader->addWidget(formatButton);

    auto *sendRow = new QHBoxLayout;
    sendRow->addWidget(copiesLabel);
    sendRow->addWidget(m_copiesSpin);
    sendRow->addStretch();
    sendRow->addWidget(m_sendFileButton);
    sendRow->addWidget(m_sendButton);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addLayout(editorHeader);
    layout->addWidget(m_editor, 1);
    layout->addWidget(m_validationLabel);
    layout->addLayout(sendRow);
    layout->addWidget(m_progress);
    layout->addWidget(m_resultLabel);
    layout->addWidget(buttons);

    connect(m_topicCombo, &QComboBox::currentIndexChanged, this, &SendEventDialog::topicChanged);
    connect(m_schemaCombo, &QComboBox::currentIndexChanged, this, &SendEventDialog::schemaChanged);
    connect(m_templateButton, &QPushButton::clicked, this, &SendEventDialog::newTemplate);
    connect(m_sendButton, &QPushButton::clicked, this, &SendEventDialog::send);
    connect(m_sendFileButton, &QPushButton::clicked, this, &SendEventDialog::sendFile);
    connect(m_editor, &JsonEditor::validityChanged, this, [this](bool valid, const QString &message) {
        m_validationLabel->setText(valid ? tr("Valid JSON") : message);
        setTextColor(m_validationLabel, outcomeColor(valid ? DeliveryOutcome::Delivered : DeliveryOutcome::BadRequest));
        m_validationLabel->setToolTip(valid ? QString() : tr("Fix the JSON to enable Send"));
        updateSendButton();
    });
    if (m_host)
        connect(m_host, &EngineHost::workspaceChanged, this, &SendEventDialog::reloadTopics);

    m_validationLabel->setText(m_editor->errorMessage());
    reloadTopics();
    if (m_editor->toPlainText().isEmpty())
        newTemplate();
    updateSendButton();
    resize(760, 620);
    m_editor->setFocus();
}

SendEventDialog::~SendEventDialog() = default;

void SendEventDialog::reloadTopics()
{
    const QString current = topic();
    const QSignalBlocker blocker(m_topicCombo);
    m_topicCombo->clear();
    if (m_host) {
        for (const Topic &topic : m_host->workspace().topics)
            m_topicCombo->addItem(tr("%1  (%2 schema)").arg(topic.name, schemaDisplayName(topic.inputSchema)),
                                  topic.name);
    }
    if (m_topicCombo->count() == 0)
        m_topicCombo->setPlaceholderText(tr("No topics in the workspace"));
    const int index = m_topicCombo->findData(current);
    m_topicCombo->setCurrentIndex(index >= 0 ? index : 0);
    topicChanged();
}

void SendEventDialog::setTopic(const QString &topicName)
{
    for (int i = 0; i < m_topicCombo->count(); ++i) {
        if (m_topicCombo->itemData(i).toString().compare(topicName, Qt::CaseInsensitive) == 0) {
            m_topicCombo->setCurrentIndex(i);
            return;
        }
    }
}

QString SendEventDialog::topic() const
{
    return m_topicCombo->currentData().toString();
}

EventSchema SendEventDialog::schema() const
{
    return EventSchema(m_schemaCombo->currentData().toInt());
}

void SendEventDialog::setSchema(EventSchema schema)
{
    m_schemaCombo->setCurrentIndex(m_schemaCombo->findData(int(schema)));
}

void SendEventDialog::setCopies(int copies)
{
    m_copiesSpin->setValue(copies);
}

void SendEventDialog::topicChanged()
{
    const Topic *topic = m_host ? m_host->workspace().findTopic(this->topic()) : nullptr;
    if (topic && schema() != topic->inputSchema)
        setSchema(topic->inputSchema); // schemaChanged() refreshes the rest
    else
        updateSchemaHint();
    updateSendButton();
}

void SendEventDialog::schemaChanged()
{
    // Keep the user's work; only a pristine template follows the schema.
    const QString text = m_editor->toPlainText();
    if (text.trimmed().isEmpty() || text == m_lastTemplate)
        newTemplate();
    updateSchemaHint();
}

void SendEventDialog::updateSchemaHint()
{
    const Topic *topic = m_host ? m_host->workspace().findTopic(this->topic()) : nullptr;
    const bool mismatch = topic && topic->inputSchema != schema();
    if (mismatch) {
        m_schemaHint->setText(tr("Topic “%1” accepts %2 events; the engine will reject other shapes.")
                                  .arg(topic->name, schemaDisplayName(topic->inputSchema)));
        setTextColor(m_schemaHint, outcomeColor(DeliveryOutcome::Busy));
    }
    m_schemaHint->setVisible(mismatch);
}

void SendEventDialog::newTemplate()
{
    const Topic *topic = m_host ? m_host->workspace().findTopic(this->topic()) : nullptr;
    m_lastTemplate = eventTemplate(schema(), topic ? topic->inputSchemaMapping : InputSchemaMapping());
    m_editor->replaceText(m_lastTemplate);
}

void SendEventDialog::updateSendButton()
{
    const bool ready = m_editor->isValid() && !m_sending && m_topicCombo->currentIndex() >= 0;
    m_sendButton->setEnabled(ready);
    m_sendFileButton->setEnabled(!m_sending && m_topicCombo->currentIndex() >= 0);
    m_copiesSpin->setEnabled(!m_sending);
    m_topicCombo->setEnabled(!m_sending);
    m_schemaCombo->setEnabled(!m_sending);
    m_templateButton->setEnabled(!m_sending);
}

QString SendEventDialog::resultText() const
{
    return m_resultLabel->text();
}

void SendEventDialog::showResult(bool success, const QString &text)
{
    m_resultLabel->setText(text);
    setTextColor(m_resultLabel, outcomeColor(success ? DeliveryOutcome::Delivered : DeliveryOutcome::BadRequest));
}

bool SendEventDialog::loadFile(const QString &path)
{
    QFile file(path);
    const QFileInfo info(path);
    m_lastDirectory = info.absolutePath();
    if (info.size() > MaxFileBytes) {
        showResult(false, tr("%1 is %2; files up to %3 can be loaded (a publish request is at most 1 MB).")
                              .arg(info.fileName(), QLocale().formattedDataSize(info.size()),
                                   QLocale().formattedDataSize(MaxFileBytes)));
        return false;
    }
    if (!file.open(QIODevice::ReadOnly)) {
        showResult(false, tr("Cannot read %1: %2").arg(QDir::toNativeSeparators(path), file.errorString()));
        return false;
    }
    m_editor->replaceText(QString::fromUtf8(file.readAll()));
    m_resultLabel->setText(tr("Loaded %1 (%2).").arg(info.fileName(), QLocale().formattedDataSize(info.size())));
    setTextColor(m_resultLabel, palette().color(QPalette::WindowText));
    return true;
}

void SendEventDialog::sendFile()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Send File"), m_lastDirectory,
                                                      tr("JSON files (*.json);;All files (*)"));
    if (path.isEmpty() || !loadFile(path))
        return;
    if (m_editor->isValid())
        send();
    else
        showResult(false, tr("Not sent: %1").arg(m_editor->errorMessage()));
}

void SendEventDialog::send()
{
    m_editor->validateNow();
    if (m_sending || !m_editor->isValid() || topic().isEmpty())
        return;
    m_sending = true;
    m_sendTopic = topic();
    updateSendButton();
    m_resultLabel->setText(tr("Preparing…"));
    setTextColor(m_resultLabel, palette().color(QPalette::WindowText));

    const Topic *topic = m_host ? m_host->workspace().findTopic(m_sendTopic) : nullptr;
    const InputSchemaMapping mapping = topic ? topic->inputSchemaMapping : InputSchemaMapping();
    const EventSchema schema = this->schema();
    const QByteArray json = m_editor->toPlainText().toUtf8();
    const int copies = m_copiesSpin->value();

    // Serialising thousands of copies takes long enough to stutter: do it off the GUI thread.
    if (copies <= SynchronousPlanLimit && json.size() < 256 * 1024) {
        const auto plan = planPublish(schema, mapping, json, copies);
        if (!plan) {
            m_sending = false;
            updateSendButton();
            showResult(false, plan.error());
            return;
        }
        startRequests(plan.value());
        return;
    }
    QPointer<SendEventDialog> self(this);
    QThread *worker = QThread::create([self, schema, mapping, json, copies] {
        auto plan = std::make_shared<Expected<PublishPlan>>(planPublish(schema, mapping, json, copies));
        QMetaObject::invokeMethod(qApp, [self, plan] {
            if (!self)
                return;
            if (!*plan) {
                self->m_sending = false;
                self->updateSendButton();
                self->showResult(false, plan->error());
                return;
            }
            self->startRequests(plan->value());
        }, Qt::QueuedConnection);
    });
    connect(worker, &QThread::finished, worker, &QObject::deleteLater);
    worker->start();
}

void SendEventDialog::startRequests(const PublishPlan &plan)
{
    m_bodies = plan.bodies;
    m_contentType = plan.contentType;
    m_nextBody = 0;
    m_acceptedEvents = 0;
    m_deliveries = 0;
    m_progress->setRange(0, int(m_bodies.size()));
    m_progress->setValue(0);
    m_progress->setFormat(tr("Request %v of %m"));
    m_progress->setVisible(m_bodies.size() > 1);
    m_resultLabel->setText(plan.eventCount == 1 ? tr("Sending 1 event…")
                                                : tr("Sending %1 events…").arg(plan.eventCount));
    sendNextRequest();
}

void SendEventDialog::sendNextRequest()
{
    if (!m_host) {
        PublishResult result;
        result.httpStatus = 503;
        result.errorCode = u"ServiceUnavailable"_s;
        result.errorMessage = tr("There is no engine to publish to.");
        requestFinished(result);
        return;
    }
    QPointer<SendEventDialog> self(this);
    m_host->publish(m_sendTopic, m_bodies.at(m_nextBody), m_contentType, [self](const PublishResult &result) {
        if (self)
            self->requestFinished(result);
    });
}

void SendEventDialog::requestFinished(const EventDesk::PublishResult &result)
{
    const bool ok = result.httpStatus >= 200 && result.httpStatus < 300;
    if (ok) {
        m_acceptedEvents += result.accepted;
        m_deliveries += result.deliveriesCreated;
        ++m_nextBody;
        m_progress->setValue(m_nextBody);
        if (m_nextBody < m_bodies.size()) {
            sendNextRequest();
            return;
        }
    }

    const QString events = m_acceptedEvents == 1 ? tr("1 event") : tr("%1 events").arg(m_acceptedEvents);
    const QString deliveries = m_deliveries == 0  ? tr("no subscription matched")
                               : m_deliveries == 1 ? tr("1 delivery")
                                                   : tr("%1 deliveries").arg(m_deliveries);
    QString text;
    if (ok) {
        text = tr("Accepted %1 (%2)").arg(events, deliveries);
        if (m_bodies.size() > 1)
            text += tr(" in %1 requests").arg(m_bodies.size());
    } else {
        text = tr("Rejected: %1 %2 — %3").arg(QString::number(result.httpStatus), result.errorCode, result.errorMessage);
        if (m_nextBody > 0)
            text += u'\n'
                    + tr("%1 of %2 requests were accepted before this one (%3, %4).")
                          .arg(m_nextBody)
                          .arg(m_bodies.size())
                          .arg(events, deliveries);
    }
    m_bodies.clear();
    m_sending = false;
    m_progress->setVisible(false);
    updateSendButton();
    showResult(ok, text);
    Q_EMIT sendFinished(ok);
}

} // namespace EventDesk::Ui
