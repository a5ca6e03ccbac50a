// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "WorkspaceChanges.h"

#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QInputDialog>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QSaveFile>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {

bool isValidTopicName(const QString &name)
{
    static const QRegularExpression pattern(u"^[A-Za-z0-9-]{3,50}$"_s);
    return pattern.match(name).hasMatch();
}

} // namespace

Topic *findTopic(Workspace &workspace, const QString &name)
{
    for (Topic &topic : workspace.topics) {
        if (topic.name.compare(name, Qt::CaseInsensitive) == 0)
            return &topic;
    }
    return nullptr;
}

qsizetype findSubscription(const Topic &topic, const QString &name)
{
    for (qsizetype i = 0; i < topic.eventSubscriptions.size(); ++i) {
        if (topic.eventSubscriptions.at(i).name.compare(name, Qt::CaseInsensitive) == 0)
            return i;
    }
    return -1;
}

WorkspaceChanges::WorkspaceChanges(QWidget *parent)
    : m_parent(parent)
{
}

std::optional<WorkspaceChange> WorkspaceChanges::newTopic(const Workspace &workspace) const
{
    QDialog dialog(m_parent);
    dialog.setWindowTitle(tr("New Topic"));
    auto *name = new QLineEdit;
    name->setPlaceholderText(tr("3–50 letters, digits or hyphens"));
    auto *schema = new QComboBox;
    schema->addItem(tr("Event Grid schema"), int(EventSchema::EventGrid));
    schema->addItem(tr("CloudEvents 1.0"), int(EventSchema::CloudEvents10));
    auto *error = new QLabel;
    error->setStyleSheet(u"color: #d03636"_s);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    auto *form = new QFormLayout(&dialog);
    form->addRow(tr("&Name:"), name);
    form->addRow(tr("&Input schema:"), schema);
    form->addRow(error);
    form->addRow(buttons);
    auto validate = [&] {
        QString message;
        if (!isValidTopicName(name->text()))
            message = tr("The name must be 3 to 50 characters: letters, digits or hyphens.");
        else if (workspace.findTopic(name->text()))
            message = tr("A topic named %1 already exists.").arg(name->text());
        error->setText(message);
        buttons->button(QDialogButtonBox::Ok)->setEnabled(message.isEmpty());
    };
    QObject::connect(name, &QLineEdit::textChanged, &dialog, validate);
    QObject::connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    validate();
    error->clear();
    if (dialog.exec() != QDialog::Accepted)
        return std::nullopt;
    Workspace changed = workspace;
    Topic topic;
    topic.name = name->text();
    topic.inputSchema = EventSchema(schema->currentData().toInt());
    changed.topics.append(topic);
    return WorkspaceChange{changed, tr("Created topic %1").arg(topic.name)};
}

std::optional<WorkspaceChange> WorkspaceChanges::rename(const Workspace &workspace,
                                                        const QString &topicName,
                                                        const QString &subscriptionName) const
{
    Workspace changed = workspace;
    Topic *topic = findTopic(changed, topicName);
    if (!topic)
        return std::nullopt;
    const bool isSubscription = !subscriptionName.isEmpty();
    const QString current = isSubscription ? subscriptionName : topic->name;
    bool ok = false;
    const QString name = QInputDialog::getText(
        m_parent, isSubscription ? tr("Rename Subscription") : tr("Rename Topic"),
        isSubscription ? tr("New name (3–64 letters, digits or hyphens).\nDeliveries still waiting "
                            "under the old name are dropped.")
                       : tr("New name (3–50 letters, digits or hyphens).\nDeliveries still waiting "
                            "for its subscriptions are dropped."),
        QLineEdit::Normal, current, &ok);
    if (!ok || name == current)
        return std::nullopt;
    if (isSubscription) {
        const qsizetype index = findSubscription(*topic, subscriptionName);
        if (findSubscription(*topic, name) >= 0
            && name.compare(current, Qt::CaseInsensitive) != 0) {
            QMessageBox::warning(
                m_parent, tr("Name in use"),
                tr("Topic %1 already has a subscription named %2.").arg(topic->name, name));
            return std::nullopt;
        }
        EventSubscription renamed = topic->eventSubscriptions.at(index);
        renamed.name = name;
        if (auto valid = validateEventSubscription(renamed, topic->inputSchema); !valid) {
            QMessageBox::warning(m_parent, tr("Invalid name"), valid.error());
            return std::nullopt;
        }
        topic->eventSubscriptions[index] = renamed;
    } else {
        if (!isValidTopicName(name)) {
            QMessageBox::warning(
                m_parent, tr("Invalid name"),
                tr("The name must be 3 to 50 characters: letters, digits or hyphens."));
            return std::nullopt;
        }
        if (workspace.findTopic(name) && name.compare(current, Qt::CaseInsensitive) != 0) {
            QMessageBox::warning(m_parent, tr("Name in use"),
                                 tr("A topic named %1 already exists.").arg(name));
            return std::nullopt;
        }
        topic->name = name;
    }
    return WorkspaceChange{changed, tr("Renamed %1 to %2").arg(current, name)};
}

std::optional<WorkspaceChange>
WorkspaceChanges::toggleEnabled(const Workspace &workspace, const QString &topicName,
                                const QString &subscriptionName) const
{
    Workspace changed = workspace;
    Topic *topic = findTopic(changed, topicName);
    if (!topic)
        return std::nullopt;
    const qsizetype index = findSubscription(*topic, subscriptionName);
    if (index < 0)
        return std::nullopt;
    EventSubscription &subscription = topic->eventSubscriptions[index];
    subscription.enabled = !subscription.enabled;
    return WorkspaceChange{changed,
                           subscription.enabled
                               ? tr("Enabled %1").arg(subscription.name)
                               : tr("Disabled %1: its backlog waits").arg(subscription.name)};
}

std::optional<WorkspaceChange> WorkspaceChanges::remove(const Workspace &workspace,
                                                        const QString &topicName,
                                                        const QString &subscriptionName,
                                                        const EngineSnapshot &lastSnapshot) const
{
    Workspace changed = workspace;
    Topic *topic = findTopic(changed, topicName);
    if (!topic)
        return std::nullopt;
    qint64 waiting = 0;
    qint64 deadLetterWrites = 0;
    for (const SubscriptionSnapshot &state : std::as_const(lastSnapshot.subscriptions)) {
        if (state.topic.compare(topicName, Qt::CaseInsensitive) != 0)
            continue;
        if (!subscriptionName.isEmpty()
            && state.subscription.compare(subscriptionName, Qt::CaseInsensitive) != 0)
            continue;
        waiting += state.backlog + state.inFlight;
        deadLetterWrites += state.deadLetterPending;
    }
    const QString what = subscriptionName.isEmpty()
        ? tr("topic %1 and its %n subscription(s)", nullptr, int(topic->eventSubscriptions.size()))
              .arg(topicName)
        : tr("subscription %1").arg(subscriptionName);
    QString detail = tr("Dead letters already written stay in the dead-letter browser.");
    if (waiting || deadLetterWrites) {
        detail = tr("%1 deliveries are still waiting and %2 dead-letter writes are pending. "
                    "Deleting drops them: "
                    "they are recorded as Dropped with reason SubscriptionDeleted and are not "
                    "delivered. ")
                     .arg(waiting)
                     .arg(deadLetterWrites)
            + detail;
    }
    QMessageBox box(QMessageBox::Warning, tr("Delete"), tr("Delete %1?").arg(what),
                    QMessageBox::Cancel, m_parent);
    box.setInformativeText(detail);
    QPushButton *deleteButton = box.addButton(tr("&Delete"), QMessageBox::DestructiveRole);
    box.setDefaultButton(QMessageBox::Cancel);
    box.exec();
    if (box.clickedButton() != deleteButton)
        return std::nullopt;
    if (subscriptionName.isEmpty()) {
        changed.topics.removeIf([&](const Topic &candidate) {
            return candidate.name.compare(topicName, Qt::CaseInsensitive) == 0;
        });
    } else {
        topic->eventSubscriptions.removeAt(findSubscription(*topic, subscriptionName));
    }
    return WorkspaceChange{changed, tr("Deleted %1").arg(what)};
}

std::optional<WorkspaceChange> WorkspaceChanges::importSubscriptions(const Workspace &workspace,
                                                                     const QString &topicName) const
{
    Workspace changed = workspace;
    Topic *topic = findTopic(changed, topicName);
    if (!topic)
        return std::nullopt;
    const QString path = QFileDialog::getOpenFileName(
        m_parent, tr("Import Event Subscriptions into %1").arg(topicName), QDir::homePath(),
        tr("JSON files (*.json);;All files (*)"));
    if (path.isEmpty())
        return std::nullopt;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        QMessageBox::warning(m_parent, tr("Import failed"),
                             tr("Cannot read %1: %2").arg(path, file.errorString()));
        return std::nullopt;
    }
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        QMessageBox::warning(m_parent, tr("Import failed"),
                             tr("%1 is not valid JSON at offset %2: %3")
                                 .arg(path)
                                 .arg(parseError.offset)
                                 .arg(parseError.errorString()));
        return std::nullopt;
    }
    // One subscription, an array of them, or a Resource Manager list ({"value":[...]}).
    QJsonArray items;
    if (document.isArray())
        items = document.array();
    else if (document.object().value(u"value"_s).isArray())
        items = document.object().value(u"value"_s).toArray();
    else
        items.append(document.object());
    QStringList imported;
    for (qsizetype i = 0; i < items.size(); ++i) {
        auto subscription = eventSubscriptionFromArm(
            items.at(i).toObject(), u"%1[%2]"_s.arg(QFileInfo(path).fileName()).arg(i),
            topic->inputSchema);
        if (!subscription) {
            QMessageBox::warning(m_parent, tr("Import failed"), subscription.error());
            return std::nullopt;
        }
        if (findSubscription(*topic, subscription->name) >= 0) {
            QMessageBox::warning(m_parent, tr("Import failed"),
                                 tr("Topic %1 already has a subscription named %2.")
                                     .arg(topic->name, subscription->name));
            return std::nullopt;
        }
        imported.append(subscription->name);
        topic->eventSubscriptions.append(subscription.value());
    }
    return WorkspaceChange{changed,
                           tr("Imported %n subscription(s): %1", nullptr, int(imported.size()))
                               .arg(imported.join(u", "_s))};
}

QString WorkspaceChanges::exportSubscriptions(const Workspace &workspace, const QString &topicName,
                                              const QString &subscriptionName) const
{
    const Topic *topic = workspace.findTopic(topicName);
    if (!topic)
        return QString();
    QJsonArray items;
    for (const EventSubscription &subscription : topic->eventSubscriptions) {
        if (subscriptionName.isEmpty()
            || subscription.name.compare(subscriptionName, Qt::CaseInsensitive) == 0)
            items.append(eventSubscriptionToArm(subscription));
    }
    const QString suggested
        = QDir(QDir::homePath())
              .filePath((subscriptionName.isEmpty() ? topic->name : subscriptionName)
                        + u"-subscriptions.json"_s);
    const QString path = QFileDialog::getSaveFileName(m_parent, tr("Export Event Subscriptions"),
                                                      suggested, tr("JSON files (*.json)"));
    if (path.isEmpty())
        return QString();
    QSaveFile file(path);
    const QByteArray json = QJsonDocument(items).toJson(QJsonDocument::Indented);
    if (!file.open(QIODevice::WriteOnly) || file.write(json) != json.size() || !file.commit()) {
        QMessageBox::warning(m_parent, tr("Export failed"),
                             tr("Cannot write %1: %2").arg(path, file.errorString()));
        return QString();
    }
    return tr("Exported %n subscription(s) to %1", nullptr, int(items.size())).arg(path);
}

} // namespace EventDesk::Ui
