// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../Expected.h"

#include <QHash>
#include <QObject>
#include <QString>

#include <functional>
#include <optional>

namespace EventDesk {

// Where secrets live (SPEC H2, docs/eventdeskd.md "Secrets"): topic access keys, values of delivery
// headers marked secret and storage account keys. workspace.json, the store, logs and exports hold
// only the key of a secret (SecretKeys), never its value.
//
// Operations are asynchronous because the system keychain answers over D-Bus / platform APIs;
// a callback is called exactly once, possibly before the call returns. Errors are values whose
// message tells the user what to do.
class SecretStore : public QObject
{
    Q_OBJECT

public:
    enum class Availability {
        Checking, // the backend is being probed (the keychain retries once after start-up)
        Available,
        Unavailable, // unavailabilityReason() says why and what to do
    };
    Q_ENUM(Availability)

    // nullopt: no secret is stored under that key (not an error).
    using ReadCallback = std::function<void(const Expected<std::optional<QString>> &value)>;
    using DoneCallback = std::function<void(const Expected<void> &result)>;

    explicit SecretStore(QObject *parent = nullptr);
    ~SecretStore() override;

    virtual void read(const QString &key, ReadCallback done) = 0;
    virtual void write(const QString &key, const QString &value, DoneCallback done) = 0;
    virtual void remove(const QString &key, DoneCallback done) = 0;

    // Short user-facing name: "system keychain", "memory (this run only)", ...
    virtual QString description() const = 0;
    // Non-empty for the opt-in alternatives to the keychain: the warning the GUI shows next to
    // the secrets and eventdeskd logs at start-up.
    virtual QString warning() const { return {}; }
    // False for read-only sources (environment variables).
    virtual bool isWritable() const { return true; }
    // True when asking may put a dialog in front of the user (the system keychain: "unlock your
    // keyring", "choose a password for the new keyring"), so it is asked only for secrets a
    // workspace references (SecretCache).
    virtual bool mayPrompt() const { return false; }

    Availability availability() const { return m_availability; }
    QString unavailabilityReason() const { return m_unavailabilityReason; }

    // What the GUI shows instead of a secret value (the reveal button shows the value itself).
    static QString masked(const QString &value);

Q_SIGNALS:
    void availabilityChanged(EventDesk::SecretStore::Availability availability,
                             const QString &reason);

protected:
    void setAvailability(Availability availability, const QString &reason = QString());

private:
    Availability m_availability = Availability::Available;
    QString m_unavailabilityReason;
};

// The names of secrets in every backend (the keychain's service is "EventDesk").
namespace SecretKeys {
QString topicAccessKey(const QString &topic); // "topic/<topic>/key"
QString deliveryHeader(const QString &topic, const QString &subscription,
                       const QString &header); // "header/<topic>/<subscription>/<header>"
// The account key of a storage account, or its whole connection string.
QString storageAccountKey(const QString &account); // "storage/<account>/key"
// A Service Bus or Event Hubs namespace's connection string with a shared access key
// ("Endpoint=sb://...;SharedAccessKeyName=...;SharedAccessKey=...").
QString namespaceKey(const QString &serviceNamespace); // "namespace/<namespace>/key"

// eventdeskd's environment variables for the same secrets: the names upper-cased, every character
// other than an ASCII letter or digit replaced by '_':
//   EVENTDESK_TOPIC_KEY_<TOPIC>, EVENTDESK_HEADER_<TOPIC>_<SUBSCRIPTION>_<HEADER>,
//   EVENTDESK_STORAGE_KEY_<ACCOUNT>, EVENTDESK_NAMESPACE_KEY_<NAMESPACE>. Empty for a key that is
//   none of these.
QString environmentVariable(const QString &key);
QString normalizedForEnvironment(const QString &name);
} // namespace SecretKeys

// Secrets for this run only (the GUI's opt-in when no keychain works) and the unit tests' fake.
class MemorySecretStore final : public SecretStore
{
    Q_OBJECT

public:
    enum class Usage { TestFake, ThisRunOnly };
    explicit MemorySecretStore(Usage usage = Usage::TestFake, QObject *parent = nullptr);

    void read(const QString &key, ReadCallback done) override;
    void write(const QString &key, const QString &value, DoneCallback done) override;
    void remove(const QString &key, DoneCallback done) override;
    QString description() const override;
    QString warning() const override;

    // Tests: simulate a locked keychain.
    void simulateUnavailable(const QString &reason);
    void simulateAvailable();
    int readCount() const { return m_reads; }

private:
    Usage m_usage;
    QHash<QString, QString> m_values;
    int m_reads = 0;
};

// Secrets in a JSON file readable only by the user (0600), the explicit opt-in when no keychain
// is available. Plain text on disk: warning() says so and the GUI shows it. A file whose mode is
// wider than 0600 is refused (Unavailable, and every read and write fails with the reason) until
// its mode is fixed: other users may have read it, and it must not look safe.
class FileSecretStore final : public SecretStore
{
    Q_OBJECT

public:
    explicit FileSecretStore(QString filePath, QObject *parent = nullptr);

    // <user config dir>/EventDesk/secrets.json
    static QString defaultFilePath();

    void read(const QString &key, ReadCallback done) override;
    void write(const QString &key, const QString &value, DoneCallback done) override;
    void remove(const QString &key, DoneCallback done) override;
    QString description() const override;
    QString warning() const override;

    QString filePath() const { return m_filePath; }

    // Refuses (with a message naming the file, its mode and the required 0600) a file that users
    // other than its owner may read or write. A file that does not exist yet passes. Unix only.
    static Expected<void> checkPermissions(const QString &filePath);

private:
    Expected<QHash<QString, QString>> load();
    Expected<void> save(const QHash<QString, QString> &values) const;

    QString m_filePath;
};

// eventdeskd on servers and CI: secrets from environment variables (SecretKeys::
// environmentVariable), or from systemd's credentials of the same names. Read-only.
class EnvironmentSecretStore final : public SecretStore
{
    Q_OBJECT

public:
    // lookup: processValue unless a test hands in another.
    using Lookup = std::function<QString(const QString &variable)>;
    explicit EnvironmentSecretStore(Lookup lookup = {}, QObject *parent = nullptr);

    // The process's value of variable: the environment variable, else the file of that name in
    // $CREDENTIALS_DIRECTORY (a systemd unit's LoadCredential=, which keeps the secret out of the
    // environment other processes of the user may read), without one trailing line break. Empty
    // when neither has it.
    static QString processValue(const QString &variable);

    void read(const QString &key, ReadCallback done) override;
    void write(const QString &key, const QString &value, DoneCallback done) override;
    void remove(const QString &key, DoneCallback done) override;
    QString description() const override;
    bool isWritable() const override { return false; }

private:
    Lookup m_lookup;
};

} // namespace EventDesk
