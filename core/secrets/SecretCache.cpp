// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "SecretCache.h"

#include "../Logging.h"
#include "../azure/AzureBlobAddress.h"
#include "SecretStore.h"

#include <QMutexLocker>
#include <QRandomGenerator>
#include <QSet>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

QString unguessableKey()
{
    QByteArray bytes(32, Qt::Uninitialized);
    QRandomGenerator::system()->fillRange(reinterpret_cast<quint32 *>(bytes.data()),
                                          bytes.size() / qsizetype(sizeof(quint32)));
    return QString::fromLatin1(bytes.toBase64());
}

} // namespace

struct SecretCache::LoadRun
{
    quint64 generation = 0;
    QList<SecretRequirement> requirements;
    QHash<QString, QString> topicKeyRefs;
    QHash<QString, QString> values;
    QHash<QString, QString> workspaceValues;
    QList<SecretProblem> problems;
    QSet<QString> answeredNotStored; // keys a source said it does not hold
    LoadCallback done;
    QList<QMetaObject::Connection> waits;
    bool started = false;
};

SecretCache::SecretCache(QList<SecretStore *> sources, QObject *parent)
    : QObject(parent)
{
    for (SecretStore *source : sources)
        m_sources.append(source);
}

SecretCache::~SecretCache() = default;

QList<SecretRequirement> SecretCache::requirements(const Workspace &workspace)
{
    QList<SecretRequirement> result;
    QStringList seen;
    const auto add = [&](SecretRequirement requirement) {
        if (seen.contains(requirement.key))
            return;
        seen.append(requirement.key);
        result.append(std::move(requirement));
    };
    for (const Topic &topic : workspace.topics) {
        SecretRequirement topicKey;
        topicKey.kind = SecretRequirement::Kind::TopicAccessKey;
        topicKey.required = !topic.accessKeySecretRef.isEmpty();
        topicKey.key = topicKey.required ? topic.accessKeySecretRef
                                         : SecretKeys::topicAccessKey(topic.name);
        topicKey.purpose = u"access key of topic '%1'"_s.arg(topic.name);
        add(topicKey);
        for (const EventSubscription &subscription : topic.eventSubscriptions) {
            for (const SecretRequirement &requirement : requirements(topic.name, subscription))
                add(requirement);
        }
    }
    return result;
}

QList<SecretRequirement> SecretCache::requirements(const QString &topic,
                                                   const EventSubscription &subscription)
{
    QList<SecretRequirement> result;
    for (const DeliveryHeader &header : subscription.deliveryHeaders) {
        if (header.kind != DeliveryHeader::Kind::Static || !header.secret)
            continue;
        SecretRequirement requirement;
        requirement.kind = SecretRequirement::Kind::DeliveryHeader;
        requirement.key = SecretKeys::deliveryHeader(topic, subscription.name, header.name);
        requirement.purpose = u"secret header '%1' of subscription '%2' (topic '%3')"_s.arg(
            header.name, subscription.name, topic);
        result.append(requirement);
    }
    // The destination's own credential: a storage queue's account key, a Service Bus or Event
    // Hubs namespace's key.
    if (const std::optional<DestinationResource> resource
        = Destinations::resource(subscription.destination)) {
        SecretRequirement requirement;
        if (subscription.destination.type == DestinationType::StorageQueue) {
            requirement.kind = SecretRequirement::Kind::StorageAccountKey;
            requirement.key = SecretKeys::storageAccountKey(resource->account);
            requirement.purpose = u"account key of storage account '%1' (queue of '%2')"_s.arg(
                resource->account, subscription.name);
            result.append(requirement);
        } else if (!resource->serviceNamespace.isEmpty()) {
            requirement.kind = SecretRequirement::Kind::NamespaceKey;
            requirement.key = SecretKeys::namespaceKey(resource->serviceNamespace);
            requirement.purpose
                = u"connection string of namespace '%1' (destination of '%2')"_s.arg(
                    resource->serviceNamespace, subscription.name);
            result.append(requirement);
        }
    }
    const DeadLetterDestination &destination = subscription.deadLetterDestination;
    if (destination.kind != DeadLetterDestination::Kind::AzureBlob)
        return result;
    const QString account = AzureBlobAddress::accountName(destination);
    if (account.isEmpty())
        return result;
    SecretRequirement requirement;
    requirement.kind = SecretRequirement::Kind::StorageAccountKey;
    requirement.key = SecretKeys::storageAccountKey(account);
    requirement.purpose = u"account key of storage account '%1' (dead letters of '%2')"_s.arg(
        account, subscription.name);
    result.append(requirement);
    return result;
}

void SecretCache::load(const Workspace &workspace, LoadCallback done)
{
    auto run = std::make_shared<LoadRun>();
    run->generation = ++m_loadGeneration;
    run->requirements = requirements(workspace);
    run->workspaceValues = m_workspaceValues;
    run->done = std::move(done);
    for (const Topic &topic : workspace.topics) {
        if (!topic.accessKeySecretRef.isEmpty())
            run->topicKeyRefs.insert(topic.name.toLower(), topic.accessKeySecretRef);
    }
    {
        // Until the answer, a declared topic key stays closed (isTopicKeyPending() says why).
        QMutexLocker locker(&m_mutex);
        m_loaded = false;
        m_topicKeyRefs = run->topicKeyRefs;
        for (auto it = run->topicKeyRefs.cbegin(); it != run->topicKeyRefs.cend(); ++it) {
            if (m_values.value(it.value()).isEmpty() && !m_failClosedKeys.contains(it.key()))
                m_failClosedKeys.insert(it.key(), unguessableKey());
        }
    }
    const bool anyRequired
        = std::any_of(run->requirements.cbegin(), run->requirements.cend(),
                      [](const SecretRequirement &requirement) { return requirement.required; });
    // A keychain that is still being probed (the first try and the retry shortly after start-up)
    // is waited for, so that its answer decides and not the probe's timing - but only when the
    // workspace references a secret it may hold (optional keys are never asked of it).
    for (const QPointer<SecretStore> &source : std::as_const(m_sources)) {
        if (!source || source->availability() != SecretStore::Availability::Checking)
            continue;
        if (!anyRequired && source->mayPrompt())
            continue;
        run->waits.append(connect(source.data(), &SecretStore::availabilityChanged, this,
                                  [this, run](SecretStore::Availability, const QString &) {
                                      startLoading(run);
                                  }));
    }
    startLoading(run);
}

void SecretCache::startLoading(const std::shared_ptr<LoadRun> &run)
{
    if (run->started || run->generation != m_loadGeneration)
        return;
    const bool anyRequired
        = std::any_of(run->requirements.cbegin(), run->requirements.cend(),
                      [](const SecretRequirement &requirement) { return requirement.required; });
    for (const QPointer<SecretStore> &source : std::as_const(m_sources)) {
        if (source && source->availability() == SecretStore::Availability::Checking
            && (anyRequired || !source->mayPrompt()))
            return;
    }
    run->started = true;
    for (const QMetaObject::Connection &connection : std::as_const(run->waits))
        disconnect(connection);
    run->waits.clear();
    if (run->requirements.isEmpty()) {
        finishLoad(run);
        return;
    }
    lookUp(run, 0, 0, {});
}

void SecretCache::lookUp(const std::shared_ptr<LoadRun> &run, qsizetype requirementIndex,
                         qsizetype sourceIndex, QStringList reasons)
{
    if (run->generation != m_loadGeneration)
        return; // a newer load replaced this one
    if (requirementIndex >= run->requirements.size()) {
        finishLoad(run);
        return;
    }
    const SecretRequirement &requirement = run->requirements.at(requirementIndex);
    if (sourceIndex >= m_sources.size()) {
        const QString inWorkspace = run->workspaceValues.value(requirement.key);
        if (!inWorkspace.isEmpty()) {
            // No store holds it, workspace.json does (InlineSecrets says why it is still there).
            run->values.insert(requirement.key, inWorkspace);
        } else if (requirement.required) {
            SecretProblem problem;
            problem.key = requirement.key;
            problem.purpose = requirement.purpose;
            problem.environmentVariable = SecretKeys::environmentVariable(requirement.key);
            problem.reason = reasons.isEmpty() ? u"no secret store is configured"_s
                                               : reasons.join(u"; "_s);
            problem.storeUnavailable
                = !reasons.isEmpty() && !run->answeredNotStored.contains(requirement.key);
            run->problems.append(problem);
        }
        lookUp(run, requirementIndex + 1, 0, {});
        return;
    }
    SecretStore *source = m_sources.at(sourceIndex).data();
    if (!source || (!requirement.required && source->mayPrompt())) {
        // An optional topic key is never asked of the keychain (no prompt for a secret the
        // workspace does not reference).
        lookUp(run, requirementIndex, sourceIndex + 1, reasons);
        return;
    }
    if (source->availability() == SecretStore::Availability::Unavailable) {
        reasons.append(u"%1 unavailable: %2"_s.arg(source->description(),
                                                   source->unavailabilityReason()));
        lookUp(run, requirementIndex, sourceIndex + 1, reasons);
        return;
    }
    const QString description = source->description();
    QPointer<SecretCache> self(this);
    source->read(requirement.key, [self, run, requirementIndex, sourceIndex, reasons,
                                   description](const Expected<std::optional<QString>> &value) mutable {
        if (!self)
            return;
        // Continue from the event loop: a store may answer synchronously, and a long chain of
        // synchronous answers must not grow the stack.
        QMetaObject::invokeMethod(self, [self, run, requirementIndex, sourceIndex, reasons,
                                         description, value]() mutable {
            if (!self)
                return;
            if (value && value.value().has_value() && !value.value()->isEmpty()) {
                run->values.insert(run->requirements.at(requirementIndex).key, *value.value());
                self->lookUp(run, requirementIndex + 1, 0, {});
                return;
            }
            if (value)
                run->answeredNotStored.insert(run->requirements.at(requirementIndex).key);
            reasons.append(value ? u"not stored in %1"_s.arg(description)
                                 : u"%1: %2"_s.arg(description, value.error()));
            self->lookUp(run, requirementIndex, sourceIndex + 1, reasons);
        }, Qt::QueuedConnection);
    });
}

void SecretCache::finishLoad(const std::shared_ptr<LoadRun> &run)
{
    {
        QMutexLocker locker(&m_mutex);
        m_values = run->values;
        m_topicKeyRefs = run->topicKeyRefs;
        m_problems = run->problems;
        m_failClosedKeys.clear();
        for (auto it = run->topicKeyRefs.cbegin(); it != run->topicKeyRefs.cend(); ++it) {
            if (m_values.value(it.value()).isEmpty())
                m_failClosedKeys.insert(it.key(), unguessableKey());
        }
        m_loaded = true;
    }
    for (const SecretProblem &problem : std::as_const(run->problems)) {
        qCWarning(lcSecrets).noquote()
            << u"secret unavailable: %1 (%2): %3. Set %4, or store it with EventDesk."_s.arg(
                   problem.purpose, problem.key, problem.reason, problem.environmentVariable);
    }
    if (run->done)
        run->done(run->problems);
    Q_EMIT loaded(run->problems);
}

bool SecretCache::isLoaded() const
{
    QMutexLocker locker(&m_mutex);
    return m_loaded;
}

bool SecretCache::isPendingLocked(const QString &key) const
{
    if (!m_values.value(key).isEmpty())
        return false;
    if (!m_loaded)
        return true;
    return std::any_of(m_problems.cbegin(), m_problems.cend(),
                       [&key](const SecretProblem &problem) {
                           return problem.key == key && problem.storeUnavailable;
                       });
}

bool SecretCache::isTopicKeyPending(const QString &topic) const
{
    QMutexLocker locker(&m_mutex);
    const QString declared = m_topicKeyRefs.value(topic.toLower());
    return !declared.isEmpty() && isPendingLocked(declared);
}

bool SecretCache::isAwaited(const QString &topic, const EventSubscription &subscription) const
{
    const QList<SecretRequirement> needed = requirements(topic, subscription);
    QMutexLocker locker(&m_mutex);
    return std::any_of(
        needed.cbegin(), needed.cend(),
        [this](const SecretRequirement &requirement) { return isPendingLocked(requirement.key); });
}

QString SecretCache::value(const QString &key) const
{
    QMutexLocker locker(&m_mutex);
    return m_values.value(key);
}

QString SecretCache::deliveryHeaderValue(const QString &topic, const QString &subscription,
                                         const QString &header) const
{
    return value(SecretKeys::deliveryHeader(topic, subscription, header));
}

QString SecretCache::topicAccessKey(const QString &topic) const
{
    QMutexLocker locker(&m_mutex);
    const QString lowerTopic = topic.toLower();
    const QString declared = m_topicKeyRefs.value(lowerTopic);
    if (!declared.isEmpty()) {
        const QString key = m_values.value(declared);
        return key.isEmpty() ? m_failClosedKeys.value(lowerTopic) : key;
    }
    // Undeclared topics: the key under the default name, if any source holds one. The endpoint
    // matches topics case-insensitively, so the workspace's spelling is looked up too.
    for (auto it = m_values.cbegin(); it != m_values.cend(); ++it) {
        if (it.key().compare(SecretKeys::topicAccessKey(topic), Qt::CaseInsensitive) == 0)
            return it.value();
    }
    return {};
}

Expected<QString> SecretCache::storageAccountKey(const QString &account) const
{
    const QString key = SecretKeys::storageAccountKey(account);
    QMutexLocker locker(&m_mutex);
    const QString found = m_values.value(key);
    if (!found.isEmpty())
        return found;
    for (const SecretProblem &problem : std::as_const(m_problems)) {
        if (problem.key == key) {
            return Error(u"the account key of storage account '%1' is unavailable (%2); set %3 or "
                         u"store the key with EventDesk"_s.arg(account, problem.reason,
                                                                problem.environmentVariable));
        }
    }
    return Error(u"no account key for storage account '%1': store it with EventDesk or set %2"_s.arg(
        account, SecretKeys::environmentVariable(key)));
}

QList<SecretProblem> SecretCache::problems() const
{
    QMutexLocker locker(&m_mutex);
    return m_problems;
}

void SecretCache::setWorkspaceValues(QHash<QString, QString> values)
{
    m_workspaceValues = std::move(values);
}

void SecretCache::setValue(const QString &key, const QString &value)
{
    {
        QMutexLocker locker(&m_mutex);
        m_values.insert(key, value);
        m_problems.removeIf([&key](const SecretProblem &problem) { return problem.key == key; });
    }
    Q_EMIT valuesChanged();
}

void SecretCache::removeValue(const QString &key)
{
    {
        QMutexLocker locker(&m_mutex);
        m_values.remove(key);
        // A topic that still declares this key stays closed (see topicAccessKey()).
        for (auto it = m_topicKeyRefs.cbegin(); it != m_topicKeyRefs.cend(); ++it) {
            if (it.value() == key && !m_failClosedKeys.contains(it.key()))
                m_failClosedKeys.insert(it.key(), unguessableKey());
        }
    }
    Q_EMIT valuesChanged();
}

} // namespace EventDesk
