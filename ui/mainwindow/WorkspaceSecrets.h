// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "Expected.h"
#include "editor/DestinationCredentials.h"
#include "model/EventSubscription.h"

#include <QList>
#include <QObject>
#include <QString>

#include <functional>
#include <memory>

class QWidget;

namespace EventDesk {
class KeychainSecretStore;
class SecretCache;
class SecretStore;
struct SecretProblem;
struct Workspace;
} // namespace EventDesk

namespace EventDesk::Ui {

// SPEC H2 on the desktop: where the workspace's secrets (secret header values, topic access keys,
// storage account keys, namespace connection strings) are kept, the system keychain or an
// alternative the user opted into, and the cache the engine reads them from. Secrets never reach
// workspace.json, the store or logs. The subscription editor reaches the destination credentials
// through it (CredentialAccess).
class WorkspaceSecrets final : public QObject, public CredentialAccess
{
    Q_OBJECT

public:
    using DoneCallback = std::function<void(const Expected<void> &)>;
    // The subscription with its secret values taken out, or why they could not be stored.
    using SubscriptionCallback = std::function<void(const Expected<EventSubscription> &)>;

    WorkspaceSecrets();
    ~WorkspaceSecrets() override;

    // Finds out whether the system keychain works (statusChanged() follows). It may show the
    // keychain's prompt: load() calls it only for a workspace that references a secret.
    void checkKeychain();
    // The alternative the user chose, else the keychain.
    SecretStore *activeStore() const;
    // What the engine reads secrets from; a new one after useStore().
    std::shared_ptr<SecretCache> cache() const { return m_cache; }
    // The required secrets the last load() could not find.
    const QList<SecretProblem> &problems() const { return m_problems; }

    // Loads every secret workspace needs into the cache, then calls done. The system keychain is
    // asked (and first probed) only when the workspace references a secret.
    void load(const Workspace &workspace, std::function<void()> done = {});
    // Opening the workspace in directory: first moves secret header values written into its
    // workspace.json to the active store and out of the file (InlineSecrets), then load(). When
    // they cannot be moved, the file stays as it is, the values serve this run, and a warning
    // (object name "inlineSecretsNotMoved", parented to dialogParent) says why and what to do.
    void open(const QString &directory, const Workspace &workspace, QWidget *dialogParent,
              std::function<void()> done);
    // Keeps secrets in store from now on (nullptr: the system keychain again).
    void useStore(std::unique_ptr<SecretStore> store);

    // Asks where to keep secrets: the system keychain, this run only, or a private file.
    void chooseStorage(QWidget *parent);
    // A password field with a reveal toggle; false when cancelled. problemOf, when given, says
    // what is wrong with the value typed (shown under it, OK disabled) or nothing, and makes a
    // value required.
    using ProblemOf = std::function<QString(const QString &value)>;
    bool askForSecret(QWidget *parent, const QString &title, const QString &label, QString &value,
                      const ProblemOf &problemOf = {}) const;

    // Moves the values of the secret static headers of subscription (of topic) to the store; an
    // empty value keeps the stored one.
    void storeHeaderSecrets(const QString &topic, EventSubscription subscription,
                            SubscriptionCallback done);
    // Stores a topic's access key (an empty key removes it).
    void storeTopicAccessKey(const QString &topic, const QString &key, DoneCallback done);
    void storeStorageAccountKey(const QString &account, const QString &key, DoneCallback done);

    // CredentialAccess: the cache first (the workspace's secrets are loaded), then the store.
    void findStored(const QString &key, FoundCallback done) override;
    void askToStore(QWidget *parent, const DestinationCredential &credential,
                    StoredCallback done) override;
    QString storeDescription() const override;

Q_SIGNALS:
    // The store's availability or the problems changed: what the status bar says.
    void statusChanged();
    // useStore(): the engine must start again on the new cache.
    void storeChanged();

private:
    // Writes value under key in the active store, and into the cache once it is there.
    void storeSecret(const QString &key, const QString &value, DoneCallback done);

    std::unique_ptr<KeychainSecretStore> m_keychain;
    std::unique_ptr<SecretStore> m_alternative; // opt-in: this run only, or a 0600 file
    std::shared_ptr<SecretCache> m_cache;
    QList<SecretProblem> m_problems;
    bool m_keychainChecked = false;
};

} // namespace EventDesk::Ui
