// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../Expected.h"
#include "../model/Workspace.h"

#include <QHash>
#include <QList>
#include <QMutex>
#include <QObject>
#include <QPointer>
#include <QString>

#include <functional>
#include <memory>

namespace EventDesk {

class SecretStore;

// One secret a workspace needs, and what it is for ("access key of topic 'orders'").
struct SecretRequirement
{
    enum class Kind { TopicAccessKey, DeliveryHeader, StorageAccountKey, NamespaceKey };
    Kind kind = Kind::TopicAccessKey;
    QString key; // SecretKeys::...
    QString purpose;
    bool required = true; // false: a topic key looked up only for compatibility (see below)
};

// A required secret that could not be loaded, with the reason and what to do.
struct SecretProblem
{
    QString key;
    QString purpose;
    QString reason;
    QString environmentVariable; // eventdeskd's alternative
    // No source said the secret is not stored: each one that holds secrets failed or was
    // unavailable (a keychain whose prompt was cancelled). What needs it keeps waiting.
    bool storeUnavailable = false;
};

// The engine needs secrets synchronously at send time (Engine::setSecretResolver, the topic
// endpoint's KeyProvider, the Azure sink's key provider) while secret stores answer
// asynchronously. The cache loads every secret a workspace needs when the workspace is opened or
// changed, and answers lookups from memory. Lookups are thread-safe (the engine may run on a
// thread of its own); load() must be called on the cache's thread.
class SecretCache final : public QObject
{
    Q_OBJECT

public:
    // sources in order of precedence: the first that holds a secret wins (eventdeskd: the
    // environment, then the keychain or the chosen alternative).
    explicit SecretCache(QList<SecretStore *> sources, QObject *parent = nullptr);
    ~SecretCache() override;

    // Topic keys: a topic that declares "accessKey": {"secretRef": ...} requires its key. Every
    // other topic's key is looked up as optional, so that EVENTDESK_TOPIC_KEY_<TOPIC> (and a key
    // stored in the keychain without a declaration) keeps protecting the topic.
    static QList<SecretRequirement> requirements(const Workspace &workspace);
    // What one subscription needs: its secret delivery headers, its destination's key (storage
    // queue, Service Bus, Event Hubs) and its Azure Blob dead-letter destination's account key.
    static QList<SecretRequirement> requirements(const QString &topic,
                                                 const EventSubscription &subscription);

    // Loads every secret of the workspace (replacing what was cached). Waits for sources that
    // are still being probed. done receives the required secrets that are unavailable.
    // A source that mayPrompt() (the keychain) is asked only for the secrets the workspace
    // references, never for optional topic keys: a workspace that references no secret never
    // touches it. isLoaded() is false from here until done is called.
    using LoadCallback = std::function<void(const QList<SecretProblem> &problems)>;
    void load(const Workspace &workspace, LoadCallback done = {});
    bool isLoaded() const;
    // The topic declares an access key whose value has not come yet: loading, or every store
    // that could hold it unavailable (the topic endpoint answers 503 rather than 401 for a key
    // that is only late).
    bool isTopicKeyPending(const QString &topic) const;
    // The subscription needs a secret that has not come yet, in the same sense (Engine::
    // setSecretsPending): loading, or its store unavailable. A secret that is simply not stored
    // is an answer: the subscription goes on without it.
    bool isAwaited(const QString &topic, const EventSubscription &subscription) const;

    // Thread-safe lookups.
    QString value(const QString &key) const; // empty when unknown
    QString deliveryHeaderValue(const QString &topic, const QString &subscription,
                                const QString &header) const;
    // The topic endpoint's KeyProvider. Fails closed: a topic whose declared key is unavailable
    // gets an unguessable key for this run, so publishing is refused (401) instead of accepted
    // without authentication.
    QString topicAccessKey(const QString &topic) const;
    Expected<QString> storageAccountKey(const QString &account) const;
    QList<SecretProblem> problems() const;

    // Secret header values still in workspace.json because they could not be moved to a store
    // (InlineSecrets): a later load() takes one when no source holds that secret, so the header
    // keeps being sent. Empty: none.
    void setWorkspaceValues(QHash<QString, QString> values);

    // Keeps the cache in step after the GUI wrote or removed a secret in its store.
    void setValue(const QString &key, const QString &value);
    void removeValue(const QString &key);

Q_SIGNALS:
    void loaded(const QList<EventDesk::SecretProblem> &problems);
    // setValue() or removeValue() changed what the cache holds.
    void valuesChanged();

private:
    struct LoadRun;
    void startLoading(const std::shared_ptr<LoadRun> &run);
    void lookUp(const std::shared_ptr<LoadRun> &run, qsizetype requirementIndex,
                qsizetype sourceIndex, QStringList reasons);
    void finishLoad(const std::shared_ptr<LoadRun> &run);
    // Under m_mutex: the secret under key has not come yet (see isAwaited()).
    bool isPendingLocked(const QString &key) const;

    QList<QPointer<SecretStore>> m_sources;
    mutable QMutex m_mutex;
    QHash<QString, QString> m_values; // key -> value
    QHash<QString, QString> m_workspaceValues; // key -> value still in workspace.json
    QHash<QString, QString> m_topicKeyRefs; // lower-case topic name -> declared secret key
    QHash<QString, QString> m_failClosedKeys; // lower-case topic name -> unguessable key
    QList<SecretProblem> m_problems;
    bool m_loaded = false;
    quint64 m_loadGeneration = 0;
};

} // namespace EventDesk
