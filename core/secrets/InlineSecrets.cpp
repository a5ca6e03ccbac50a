// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "InlineSecrets.h"

#include "SecretStore.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPointer>
#include <QSaveFile>

#include <memory>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

bool sameName(const QString &value, const QString &name)
{
    return value.trimmed().compare(name, Qt::CaseInsensitive) == 0;
}

bool sameName(const QJsonValue &value, const QString &name)
{
    return sameName(value.toString(), name);
}

// Calls visit(topic, subscription, header) for every delivery header in root and writes back the
// headers it changed (it returns true for those). Returns how many it changed.
using HeaderVisitor
    = std::function<bool(const QString &topic, const QString &subscription, QJsonObject &header)>;

int visitHeaders(QJsonObject &root, const HeaderVisitor &visit)
{
    int changed = 0;
    QJsonArray topics = root.value("topics"_L1).toArray();
    for (qsizetype topicIndex = 0; topicIndex < topics.size(); ++topicIndex) {
        QJsonObject topic = topics.at(topicIndex).toObject();
        const QString topicName = topic.value("name"_L1).toString().trimmed();
        QJsonArray subscriptions = topic.value("eventSubscriptions"_L1).toArray();
        bool topicChanged = false;
        for (qsizetype index = 0; index < subscriptions.size(); ++index) {
            QJsonObject subscription = subscriptions.at(index).toObject();
            const QString subscriptionName = subscription.value("name"_L1).toString().trimmed();
            QJsonObject properties = subscription.value("properties"_L1).toObject();
            QJsonObject destination = properties.value("destination"_L1).toObject();
            QJsonObject destinationProperties = destination.value("properties"_L1).toObject();
            QJsonArray headers
                = destinationProperties.value("deliveryAttributeMappings"_L1).toArray();
            bool subscriptionChanged = false;
            for (qsizetype headerIndex = 0; headerIndex < headers.size(); ++headerIndex) {
                QJsonObject header = headers.at(headerIndex).toObject();
                if (!visit(topicName, subscriptionName, header))
                    continue;
                headers.replace(headerIndex, header);
                subscriptionChanged = true;
                ++changed;
            }
            if (!subscriptionChanged)
                continue;
            destinationProperties.insert("deliveryAttributeMappings"_L1, headers);
            destination.insert("properties"_L1, destinationProperties);
            properties.insert("destination"_L1, destination);
            subscription.insert("properties"_L1, properties);
            subscriptions.replace(index, subscription);
            topicChanged = true;
        }
        if (!topicChanged)
            continue;
        topic.insert("eventSubscriptions"_L1, subscriptions);
        topics.replace(topicIndex, topic);
    }
    if (changed > 0)
        root.insert("topics"_L1, topics);
    return changed;
}

// The secret of secrets that names this header, if any.
const InlineSecret *secretFor(const QList<InlineSecret> &secrets, const QString &topic,
                              const QString &subscription, const QJsonObject &header)
{
    const QJsonObject properties = header.value("properties"_L1).toObject();
    if (!properties.value("isSecret"_L1).toBool())
        return nullptr;
    for (const InlineSecret &secret : secrets) {
        if (sameName(topic, secret.topic) && sameName(subscription, secret.subscription)
            && sameName(header.value("name"_L1), secret.header))
            return &secret;
    }
    return nullptr;
}

void writeNext(const QString &workspaceFile, const QList<InlineSecret> &secrets, qsizetype index,
               QPointer<SecretStore> store, const InlineSecrets::Done &done)
{
    if (index >= secrets.size()) {
        // Every value is in the store: only now may the file lose them.
        const Expected<int> removed = InlineSecrets::removeFromFile(workspaceFile, secrets);
        if (!removed) {
            done(Error(InlineSecrets::notMovedMessage(
                secrets,
                u"they are stored in %1, but %2"_s.arg(
                    store ? store->description() : u"the secret store"_s, removed.error()))));
            return;
        }
        done({});
        return;
    }
    if (!store) {
        done(Error(InlineSecrets::notMovedMessage(secrets, u"the secret store was closed"_s)));
        return;
    }
    const InlineSecret &secret = secrets.at(index);
    const QString description = store->description();
    store->write(
        secret.key(), secret.value,
        [workspaceFile, secrets, index, store, done, description](const Expected<void> &written) {
            if (!written) {
                done(Error(InlineSecrets::notMovedMessage(
                    secrets, u"%1 refused it: %2"_s.arg(description, written.error()))));
                return;
            }
            writeNext(workspaceFile, secrets, index + 1, store, done);
        });
}

} // namespace

QString InlineSecret::key() const
{
    return SecretKeys::deliveryHeader(topic, subscription, header);
}

QString InlineSecret::purpose() const
{
    return u"secret header '%1' of subscription '%2' (topic '%3')"_s.arg(header, subscription,
                                                                         topic);
}

QList<InlineSecret> InlineSecrets::find(const Workspace &workspace)
{
    QList<InlineSecret> found;
    for (const Topic &topic : workspace.topics) {
        for (const EventSubscription &subscription : topic.eventSubscriptions) {
            for (const DeliveryHeader &header : subscription.deliveryHeaders) {
                if (header.kind == DeliveryHeader::Kind::Static && header.secret
                    && !header.value.isEmpty())
                    found.append({topic.name, subscription.name, header.name, header.value});
            }
        }
    }
    return found;
}

QHash<QString, QString> InlineSecrets::values(const QList<InlineSecret> &secrets)
{
    QHash<QString, QString> result;
    for (const InlineSecret &secret : secrets)
        result.insert(secret.key(), secret.value);
    return result;
}

void InlineSecrets::clearValues(Workspace &workspace)
{
    for (Topic &topic : workspace.topics) {
        for (EventSubscription &subscription : topic.eventSubscriptions) {
            for (DeliveryHeader &header : subscription.deliveryHeaders) {
                if (header.kind == DeliveryHeader::Kind::Static && header.secret)
                    header.value.clear();
            }
        }
    }
}

Expected<int> InlineSecrets::removeFromFile(const QString &workspaceFile,
                                            const QList<InlineSecret> &secrets)
{
    QFile input(workspaceFile);
    if (!input.open(QIODevice::ReadOnly))
        return Error(u"cannot read %1: %2"_s.arg(workspaceFile, input.errorString()));
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(input.readAll(), &parseError);
    input.close();
    if (parseError.error != QJsonParseError::NoError || !document.isObject())
        return Error(
            u"%1 no longer holds a workspace (%2)"_s.arg(workspaceFile, parseError.errorString()));
    QJsonObject root = document.object();
    const int removed = visitHeaders(
        root, [&secrets](const QString &topic, const QString &subscription, QJsonObject &header) {
            const InlineSecret *secret = secretFor(secrets, topic, subscription, header);
            QJsonObject properties = header.value("properties"_L1).toObject();
            if (!secret || properties.value("value"_L1).toString() != secret->value)
                return false;
            properties.remove("value"_L1);
            header.insert("properties"_L1, properties);
            return true;
        });
    if (removed == 0)
        return 0;
    // QSaveFile keeps the file's permissions and replaces it in one rename: a crash leaves either
    // the old file (the values also in the store) or the new one, never half of one.
    QSaveFile output(workspaceFile);
    const QByteArray json = QJsonDocument(root).toJson(QJsonDocument::Indented);
    if (!output.open(QIODevice::WriteOnly) || output.write(json) != json.size() || !output.commit())
        return Error(u"cannot write %1: %2"_s.arg(workspaceFile, output.errorString()));
    return removed;
}

int InlineSecrets::keepValues(QJsonObject &workspaceJson, const QList<InlineSecret> &secrets)
{
    if (secrets.isEmpty())
        return 0;
    return visitHeaders(
        workspaceJson,
        [&secrets](const QString &topic, const QString &subscription, QJsonObject &header) {
            const InlineSecret *secret = secretFor(secrets, topic, subscription, header);
            QJsonObject properties = header.value("properties"_L1).toObject();
            if (!secret || properties.contains("value"_L1))
                return false;
            properties.insert("value"_L1, secret->value);
            header.insert("properties"_L1, properties);
            return true;
        });
}

void InlineSecrets::move(const QString &workspaceFile, const QList<InlineSecret> &secrets,
                         SecretStore *store, Done done)
{
    if (secrets.isEmpty()) {
        done({});
        return;
    }
    if (!store) {
        done(Error(notMovedMessage(secrets, u"no secret store is configured"_s)));
        return;
    }
    if (!store->isWritable()) {
        done(Error(notMovedMessage(secrets, u"%1 cannot be written"_s.arg(store->description()))));
        return;
    }
    if (store->availability() == SecretStore::Availability::Checking) {
        // The keychain's probe (and its retry) decides, not the moment the workspace opened.
        auto connection = std::make_shared<QMetaObject::Connection>();
        QPointer<SecretStore> guard(store);
        *connection
            = QObject::connect(store, &SecretStore::availabilityChanged, store,
                               [workspaceFile, secrets, guard, done, connection](
                                   SecretStore::Availability availability, const QString &) {
                                   if (availability == SecretStore::Availability::Checking)
                                       return;
                                   QObject::disconnect(*connection);
                                   move(workspaceFile, secrets, guard.data(), done);
                               });
        return;
    }
    if (store->availability() == SecretStore::Availability::Unavailable) {
        done(Error(notMovedMessage(
            secrets,
            u"%1 is unavailable: %2"_s.arg(store->description(), store->unavailabilityReason()))));
        return;
    }
    writeNext(workspaceFile, secrets, 0, QPointer<SecretStore>(store), done);
}

QString InlineSecrets::notMovedMessage(const QList<InlineSecret> &secrets, const QString &reason)
{
    QStringList purposes;
    QStringList variables;
    for (const InlineSecret &secret : secrets) {
        purposes << secret.purpose();
        variables << SecretKeys::environmentVariable(secret.key());
    }
    return u"workspace.json holds the value of %1 in plain text, and it could not be moved to a "
           u"secret store: %2. workspace.json was left as it is, and the value is used for this "
           u"run. Make the secret store available and open the workspace again to move it, or "
           u"take the value out of workspace.json and store it with EventDesk (eventdeskd: set %3)."_s
               .arg(purposes.join(u", "_s), reason, variables.join(u", "_s));
}

} // namespace EventDesk
