// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// SecretStore backends (memory, file, environment), the secret cache behind the engine's
// synchronous lookups, and Shared Key signing of the Azure Blob dead-letter destination.

#include "FakeNetwork.h"
#include "azure/AzureBlobAddress.h"
#include "azure/AzureCredentials.h"
#include "deadletters/AzureBlobDeadLetterSink.h"
#include "deadletters/DeadLetterRouter.h"
#include "deadletters/FolderDeadLetterSink.h"
#include "model/Workspace.h"
#include "secrets/SecretCache.h"
#include "secrets/SecretStore.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTimeZone>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace EventDesk;

namespace {

// A store whose availability the test drives, like a keychain being probed.
class ProbedStore final : public SecretStore
{
public:
    ProbedStore() { setAvailability(Availability::Checking); }
    void become(Availability availability, const QString &reason = {})
    {
        setAvailability(availability, reason);
    }
    void read(const QString &key, ReadCallback done) override
    {
        done(values.contains(key) ? std::optional<QString>(values.value(key))
                                  : std::optional<QString>());
    }
    void write(const QString &key, const QString &value, DoneCallback done) override
    {
        values.insert(key, value);
        done({});
    }
    void remove(const QString &key, DoneCallback done) override
    {
        values.remove(key);
        done({});
    }
    QString description() const override { return u"probed store"_s; }
    QHash<QString, QString> values;
};

Expected<std::optional<QString>> readNow(SecretStore &store, const QString &key)
{
    std::optional<Expected<std::optional<QString>>> result;
    store.read(key, [&result](const Expected<std::optional<QString>> &value) { result = value; });
    if (!result)
        return Error(u"read did not answer synchronously"_s);
    return *result;
}

Expected<void> writeNow(SecretStore &store, const QString &key, const QString &value)
{
    std::optional<Expected<void>> result;
    store.write(key, value, [&result](const Expected<void> &done) { result = done; });
    return result ? *result : Expected<void>(Error(u"no answer"_s));
}

Expected<void> removeNow(SecretStore &store, const QString &key)
{
    std::optional<Expected<void>> result;
    store.remove(key, [&result](const Expected<void> &done) { result = done; });
    return result ? *result : Expected<void>(Error(u"no answer"_s));
}

Workspace workspaceWithSecrets()
{
    // (URLs escape "/" as "\/": moc takes "//" in a raw string for a comment.)
    const QByteArray json = R"({
      "topics": [{
        "name": "orders",
        "accessKey": {"secretRef": "topic/orders/key"},
        "eventSubscriptions": [{
          "name": "billing",
          "properties": {
            "destination": {"endpointType": "WebHook", "properties": {
              "endpointUrl": "https:\/\/example.test\/hook",
              "deliveryAttributeMappings": [
                {"name": "X-Api-Key", "type": "Static", "properties": {"isSecret": true}},
                {"name": "X-Tenant", "type": "Static", "properties": {"isSecret": false, "value": "contoso"}}
              ]}},
            "deadLetterDestination": {"endpointType": "StorageBlob", "properties": {
              "resourceId": "/subscriptions/s/resourceGroups/g/providers/Microsoft.Storage/storageAccounts/deadstore",
              "blobContainerName": "deadletters"}}
          }
        }]
      }, {
        "name": "open-topic",
        "eventSubscriptions": []
      }],
      "receivers": []
    })";
    auto workspace = Workspace::fromJson(json, u"workspace.json"_s);
    if (!workspace)
        qFatal("test workspace: %s", qPrintable(workspace.error()));
    return workspace.value();
}

QList<SecretProblem> loadAndWait(SecretCache &cache, const Workspace &workspace)
{
    QList<SecretProblem> problems;
    bool done = false;
    cache.load(workspace, [&](const QList<SecretProblem> &result) {
        problems = result;
        done = true;
    });
    if (!QTest::qWaitFor([&done] { return done; }, 10'000))
        qWarning("SecretCache::load did not finish");
    return problems;
}

} // namespace

class TestSecrets final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void keyNames();
    void environmentVariableNames_data();
    void environmentVariableNames();
    void memoryStore();
    void memoryStoreUnavailable();
    void fileStoreIsOwnerOnly();
    void fileStoreRejectsCorruptFile();
    void environmentStore();
    void maskedValue();
    void requirementsOfWorkspace();
    void requirementsOfDestinations();
    void workspaceKeepsOnlyTheReference();
    void workspaceRefusesPlainAccessKey();
    void cacheLoadsAndResolves();
    void cacheSourcePrecedence();
    void cacheReportsUnavailableSecrets();
    void cacheWaitsForProbe();
    void topicKeyFailsClosed();
    void sharedKeyStringToSign();
    void sharedKeyQueryParameters();
    void sharedKeyRejectsBadKey();
    void storageAccountSecrets_data();
    void storageAccountSecrets();
    void namespaceConnectionStrings_data();
    void namespaceConnectionStrings();
    void azureSinkSignsPutBlob();
    void azureSinkUnreachable();
    void azureSinkWithoutKey();
    void routerDispatchesByKind();
    void blobLocation();
};

void TestSecrets::keyNames()
{
    QCOMPARE(SecretKeys::topicAccessKey(u"orders"_s), u"topic/orders/key"_s);
    QCOMPARE(SecretKeys::deliveryHeader(u"orders"_s, u"billing"_s, u"X-Api-Key"_s),
             u"header/orders/billing/X-Api-Key"_s);
    QCOMPARE(SecretKeys::storageAccountKey(u"deadstore"_s), u"storage/deadstore/key"_s);
}

void TestSecrets::environmentVariableNames_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("variable");
    QTest::newRow("topic") << u"topic/my-orders/key"_s << u"EVENTDESK_TOPIC_KEY_MY_ORDERS"_s;
    QTest::newRow("header") << u"header/orders/billing-v2/X-Api-Key"_s
                            << u"EVENTDESK_HEADER_ORDERS_BILLING_V2_X_API_KEY"_s;
    QTest::newRow("storage") << u"storage/devstoreaccount1/key"_s
                             << u"EVENTDESK_STORAGE_KEY_DEVSTOREACCOUNT1"_s;
    QTest::newRow("namespace") << u"namespace/shop-prod/key"_s
                               << u"EVENTDESK_NAMESPACE_KEY_SHOP_PROD"_s;
    QTest::newRow("non-ascii") << u"topic/caf\u00e9/key"_s << u"EVENTDESK_TOPIC_KEY_CAF_"_s;
    QTest::newRow("unknown") << u"something/else"_s << QString();
}

void TestSecrets::environmentVariableNames()
{
    QFETCH(QString, key);
    QFETCH(QString, variable);
    QCOMPARE(SecretKeys::environmentVariable(key), variable);
}

void TestSecrets::memoryStore()
{
    MemorySecretStore store;
    QCOMPARE(store.availability(), SecretStore::Availability::Available);
    QVERIFY(store.warning().isEmpty());
    auto missing = readNow(store, u"topic/orders/key"_s);
    QVERIFY(missing.hasValue());
    QVERIFY(!missing.value().has_value());
    QVERIFY(writeNow(store, u"topic/orders/key"_s, u"s3cret"_s).hasValue());
    auto found = readNow(store, u"topic/orders/key"_s);
    QVERIFY(found.hasValue());
    QCOMPARE(found.value().value_or(QString()), u"s3cret"_s);
    QVERIFY(removeNow(store, u"topic/orders/key"_s).hasValue());
    QVERIFY(!readNow(store, u"topic/orders/key"_s).value().has_value());

    MemorySecretStore thisRun(MemorySecretStore::Usage::ThisRunOnly);
    QVERIFY(thisRun.warning().contains(u"this run only"_s));
}

void TestSecrets::memoryStoreUnavailable()
{
    MemorySecretStore store;
    QSignalSpy changed(&store, &SecretStore::availabilityChanged);
    store.simulateUnavailable(u"the keyring is locked"_s);
    QCOMPARE(changed.size(), 1);
    QCOMPARE(store.availability(), SecretStore::Availability::Unavailable);
    QCOMPARE(store.unavailabilityReason(), u"the keyring is locked"_s);
    auto read = readNow(store, u"topic/orders/key"_s);
    QVERIFY(!read.hasValue());
    QCOMPARE(read.error(), u"the keyring is locked"_s);
    QVERIFY(!writeNow(store, u"k"_s, u"v"_s).hasValue());
    store.simulateAvailable();
    QCOMPARE(changed.size(), 2);
    QVERIFY(store.unavailabilityReason().isEmpty());
}

void TestSecrets::fileStoreIsOwnerOnly()
{
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    const QString path = directory.filePath(u"config/EventDesk/secrets.json"_s);
    {
        FileSecretStore store(path);
        QVERIFY(store.warning().contains(path));
        QVERIFY(store.warning().contains(u"0600"_s));
        QVERIFY(!readNow(store, u"a"_s).value().has_value()); // no file yet: nothing stored
        QVERIFY(writeNow(store, u"header/orders/billing/X-Api-Key"_s, u"value-1"_s).hasValue());
        QVERIFY(writeNow(store, u"storage/deadstore/key"_s, u"value-2"_s).hasValue());
    }
    const QFileInfo info(path);
    QVERIFY(info.exists());
    QCOMPARE(info.permissions() & ~(QFileDevice::ReadUser | QFileDevice::WriteUser),
             QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    // A new instance (the next run) reads what the first one wrote.
    FileSecretStore again(path);
    QCOMPARE(readNow(again, u"header/orders/billing/X-Api-Key"_s).value().value_or(QString()),
             u"value-1"_s);
    QVERIFY(removeNow(again, u"header/orders/billing/X-Api-Key"_s).hasValue());
    QVERIFY(!readNow(again, u"header/orders/billing/X-Api-Key"_s).value().has_value());
    QCOMPARE(readNow(again, u"storage/deadstore/key"_s).value().value_or(QString()), u"value-2"_s);
    QCOMPARE(QFileInfo(path).permissions() & ~(QFileDevice::ReadUser | QFileDevice::WriteUser),
             QFileDevice::ReadOwner | QFileDevice::WriteOwner);
}

void TestSecrets::fileStoreRejectsCorruptFile()
{
    QTemporaryDir directory;
    const QString path = directory.filePath(u"secrets.json"_s);
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("[not an object");
    file.close();
    FileSecretStore store(path);
    auto read = readNow(store, u"a"_s);
    QVERIFY(!read.hasValue());
    QVERIFY(read.error().contains(path));
    QVERIFY(!writeNow(store, u"a"_s, u"b"_s).hasValue()); // never overwrites a file it cannot read
}

void TestSecrets::environmentStore()
{
    const QHash<QString, QString> environment {
        {u"EVENTDESK_TOPIC_KEY_MY_ORDERS"_s, u"topic-key"_s},
        {u"EVENTDESK_HEADER_ORDERS_BILLING_X_API_KEY"_s, u"header-value"_s},
        {u"EVENTDESK_STORAGE_KEY_DEADSTORE"_s, u"account-key"_s},
    };
    EnvironmentSecretStore store([&environment](const QString &name) { return environment.value(name); });
    QVERIFY(!store.isWritable());
    QCOMPARE(readNow(store, u"topic/my-orders/key"_s).value().value_or(QString()), u"topic-key"_s);
    QCOMPARE(readNow(store, u"header/orders/billing/X-Api-Key"_s).value().value_or(QString()),
             u"header-value"_s);
    QCOMPARE(readNow(store, u"storage/deadstore/key"_s).value().value_or(QString()), u"account-key"_s);
    QVERIFY(!readNow(store, u"topic/other/key"_s).value().has_value());
    auto write = writeNow(store, u"topic/my-orders/key"_s, u"x"_s);
    QVERIFY(!write.hasValue());
    QVERIFY(write.error().contains(u"EVENTDESK_TOPIC_KEY_MY_ORDERS"_s));
}

void TestSecrets::maskedValue()
{
    QCOMPARE(SecretStore::masked(u"abc"_s), SecretStore::masked(u"a much longer secret"_s));
    QVERIFY(!SecretStore::masked(u"abc"_s).contains(u"abc"_s));
    QVERIFY(SecretStore::masked(QString()).isEmpty());
}

void TestSecrets::requirementsOfWorkspace()
{
    const QList<SecretRequirement> requirements = SecretCache::requirements(workspaceWithSecrets());
    QStringList required;
    QStringList optional;
    for (const SecretRequirement &requirement : requirements)
        (requirement.required ? required : optional).append(requirement.key);
    QCOMPARE(required, QStringList({u"topic/orders/key"_s, u"header/orders/billing/X-Api-Key"_s,
                                    u"storage/deadstore/key"_s}));
    QCOMPARE(optional, QStringList({u"topic/open-topic/key"_s}));
}

void TestSecrets::requirementsOfDestinations()
{
    // Issue 18: a storage queue needs its account's key, Service Bus and Event Hubs their
    // namespace's connection string (once per namespace), a function nothing.
    const QByteArray json = R"({"topics": [{"name": "orders", "eventSubscriptions": [
      {"name": "to-queue", "properties": {"destination": {"endpointType": "StorageQueue",
        "properties": {"resourceId": "/subscriptions/s/resourceGroups/g/providers/Microsoft.Storage/storageAccounts/queuestore",
                       "queueName": "orders"}}}},
      {"name": "to-bus", "properties": {"destination": {"endpointType": "ServiceBusTopic",
        "properties": {"resourceId": "/subscriptions/s/resourceGroups/g/providers/Microsoft.ServiceBus/namespaces/shop/topics/orders"}}}},
      {"name": "to-hub", "properties": {"destination": {"endpointType": "EventHub",
        "properties": {"resourceId": "/subscriptions/s/resourceGroups/g/providers/Microsoft.EventHub/namespaces/shop/eventhubs/orders"}}}},
      {"name": "to-function", "properties": {"destination": {"endpointType": "AzureFunction",
        "properties": {"resourceId": "/subscriptions/s/resourceGroups/g/providers/Microsoft.Web/sites/app/functions/OnOrder"}}}}
    ]}]})";
    const auto workspace = Workspace::fromJson(json, u"workspace.json"_s);
    QVERIFY2(workspace, qPrintable(workspace.error()));
    QStringList required;
    for (const SecretRequirement &requirement : SecretCache::requirements(workspace.value())) {
        if (requirement.required)
            required.append(requirement.key);
    }
    QCOMPARE(required, QStringList({u"storage/queuestore/key"_s, u"namespace/shop/key"_s}));
}

void TestSecrets::workspaceKeepsOnlyTheReference()
{
    const Workspace workspace = workspaceWithSecrets();
    QCOMPARE(workspace.topics.first().accessKeySecretRef, u"topic/orders/key"_s);
    QVERIFY(workspace.topics.at(1).accessKeySecretRef.isEmpty());
    const QJsonObject json = workspace.toJson();
    const QJsonObject topic = json.value("topics"_L1).toArray().first().toObject();
    QCOMPARE(topic.value("accessKey"_L1).toObject(),
             QJsonObject({{"secretRef"_L1, u"topic/orders/key"_s}}));
    QVERIFY(!json.value("topics"_L1).toArray().at(1).toObject().contains("accessKey"_L1));
    auto back = Workspace::fromJson(QJsonDocument(json).toJson(), u"workspace.json"_s);
    QVERIFY2(back.hasValue(), qPrintable(back.error()));
    QCOMPARE(back->topics.first().accessKeySecretRef, u"topic/orders/key"_s);
}

void TestSecrets::workspaceRefusesPlainAccessKey()
{
    const QByteArray json = R"({"topics": [{"name": "orders", "accessKey": "plain-text-key"}]})";
    auto workspace = Workspace::fromJson(json, u"workspace.json"_s);
    QVERIFY(!workspace.hasValue());
    QVERIFY2(workspace.error().contains(u"topics[0].accessKey"_s), qPrintable(workspace.error()));
    QVERIFY(workspace.error().contains(u"secretRef"_s));
    QVERIFY(!workspace.error().contains(u"plain-text-key"_s)); // the message must not echo it
}

void TestSecrets::cacheLoadsAndResolves()
{
    MemorySecretStore store;
    QVERIFY(writeNow(store, u"topic/orders/key"_s, u"topic-secret"_s).hasValue());
    QVERIFY(writeNow(store, u"header/orders/billing/X-Api-Key"_s, u"header-secret"_s).hasValue());
    QVERIFY(writeNow(store, u"storage/deadstore/key"_s, u"account-secret"_s).hasValue());
    SecretCache cache({&store});
    QVERIFY(!cache.isLoaded());
    QSignalSpy loaded(&cache, &SecretCache::loaded);
    const QList<SecretProblem> problems = loadAndWait(cache, workspaceWithSecrets());
    QVERIFY(problems.isEmpty());
    QCOMPARE(loaded.size(), 1);
    QVERIFY(cache.isLoaded());
    QCOMPARE(cache.deliveryHeaderValue(u"orders"_s, u"billing"_s, u"X-Api-Key"_s), u"header-secret"_s);
    QCOMPARE(cache.topicAccessKey(u"orders"_s), u"topic-secret"_s);
    QCOMPARE(cache.topicAccessKey(u"ORDERS"_s), u"topic-secret"_s); // topics match case-insensitively
    QVERIFY(cache.topicAccessKey(u"open-topic"_s).isEmpty());
    QCOMPARE(cache.storageAccountKey(u"deadstore"_s).value(), u"account-secret"_s);
    // Lookups are answered from memory: no store access at send time.
    const int reads = store.readCount();
    for (int i = 0; i < 10; ++i)
        QCOMPARE(cache.deliveryHeaderValue(u"orders"_s, u"billing"_s, u"X-Api-Key"_s), u"header-secret"_s);
    QCOMPARE(store.readCount(), reads);
    // The GUI keeps the cache in step after writing a secret.
    cache.setValue(u"header/orders/billing/X-Api-Key"_s, u"changed"_s);
    QCOMPARE(cache.deliveryHeaderValue(u"orders"_s, u"billing"_s, u"X-Api-Key"_s), u"changed"_s);
}

void TestSecrets::cacheSourcePrecedence()
{
    EnvironmentSecretStore environment([](const QString &name) {
        return name == "EVENTDESK_HEADER_ORDERS_BILLING_X_API_KEY"_L1 ? u"from-environment"_s : QString();
    });
    MemorySecretStore keychain;
    QVERIFY(writeNow(keychain, u"header/orders/billing/X-Api-Key"_s, u"from-keychain"_s).hasValue());
    QVERIFY(writeNow(keychain, u"topic/orders/key"_s, u"topic-from-keychain"_s).hasValue());
    QVERIFY(writeNow(keychain, u"storage/deadstore/key"_s, u"k"_s).hasValue());
    SecretCache cache({&environment, &keychain});
    QVERIFY(loadAndWait(cache, workspaceWithSecrets()).isEmpty());
    QCOMPARE(cache.deliveryHeaderValue(u"orders"_s, u"billing"_s, u"X-Api-Key"_s), u"from-environment"_s);
    QCOMPARE(cache.topicAccessKey(u"orders"_s), u"topic-from-keychain"_s);
}

void TestSecrets::cacheReportsUnavailableSecrets()
{
    MemorySecretStore keychain;
    keychain.simulateUnavailable(u"no Secret Service keyring is running"_s);
    EnvironmentSecretStore environment([](const QString &name) {
        return name == "EVENTDESK_STORAGE_KEY_DEADSTORE"_L1 ? u"account"_s : QString();
    });
    SecretCache cache({&environment, &keychain});
    const QList<SecretProblem> problems = loadAndWait(cache, workspaceWithSecrets());
    QStringList keys;
    for (const SecretProblem &problem : problems) {
        keys.append(problem.key);
        QVERIFY2(problem.reason.contains(u"no Secret Service keyring is running"_s),
                 qPrintable(problem.reason));
        QVERIFY(!problem.purpose.isEmpty());
    }
    // Only required secrets are reported; the storage key came from the environment.
    QCOMPARE(keys, QStringList({u"topic/orders/key"_s, u"header/orders/billing/X-Api-Key"_s}));
    QCOMPARE(problems.at(1).environmentVariable, u"EVENTDESK_HEADER_ORDERS_BILLING_X_API_KEY"_s);
    QCOMPARE(cache.problems().size(), 2);
    QVERIFY(cache.deliveryHeaderValue(u"orders"_s, u"billing"_s, u"X-Api-Key"_s).isEmpty());

    // Storage keys that are unavailable say why, for the dead-letter error the engine logs.
    MemorySecretStore empty;
    SecretCache withoutKeys({&empty});
    loadAndWait(withoutKeys, workspaceWithSecrets());
    const auto key = withoutKeys.storageAccountKey(u"deadstore"_s);
    QVERIFY(!key.hasValue());
    QVERIFY2(key.error().contains(u"EVENTDESK_STORAGE_KEY_DEADSTORE"_s), qPrintable(key.error()));
    QVERIFY(key.error().contains(u"'deadstore'"_s));
}

void TestSecrets::cacheWaitsForProbe()
{
    ProbedStore keychain;
    keychain.values.insert(u"header/orders/billing/X-Api-Key"_s, u"late"_s);
    SecretCache cache({&keychain});
    bool done = false;
    cache.load(workspaceWithSecrets(), [&done](const QList<SecretProblem> &) { done = true; });
    QTest::qWait(50); // nothing may happen while the keychain is being probed
    QVERIFY(!done);
    QVERIFY(!cache.isLoaded());
    keychain.become(SecretStore::Availability::Available);
    QTRY_VERIFY_WITH_TIMEOUT(done, 10'000);
    QCOMPARE(cache.deliveryHeaderValue(u"orders"_s, u"billing"_s, u"X-Api-Key"_s), u"late"_s);

    // A probe that ends Unavailable reports every required secret with the probe's reason.
    ProbedStore locked;
    SecretCache lockedCache({&locked});
    QList<SecretProblem> problems;
    bool lockedDone = false;
    lockedCache.load(workspaceWithSecrets(), [&](const QList<SecretProblem> &result) {
        problems = result;
        lockedDone = true;
    });
    locked.become(SecretStore::Availability::Unavailable, u"keyring locked"_s);
    QTRY_VERIFY_WITH_TIMEOUT(lockedDone, 10'000);
    QCOMPARE(problems.size(), 3);
    QVERIFY(problems.first().reason.contains(u"keyring locked"_s));
}

void TestSecrets::topicKeyFailsClosed()
{
    MemorySecretStore store; // holds no key for "orders", which declares one
    SecretCache cache({&store});
    loadAndWait(cache, workspaceWithSecrets());
    const QString key = cache.topicAccessKey(u"orders"_s);
    QVERIFY(key.size() >= 32); // an unguessable key: publishing is refused, not open
    QCOMPARE(cache.topicAccessKey(u"orders"_s), key);
    QVERIFY(cache.topicAccessKey(u"open-topic"_s).isEmpty());
    cache.setValue(u"topic/orders/key"_s, u"now-set"_s);
    QCOMPARE(cache.topicAccessKey(u"orders"_s), u"now-set"_s);
    cache.removeValue(u"topic/orders/key"_s);
    QVERIFY(cache.topicAccessKey(u"orders"_s).size() >= 32);
    QVERIFY(cache.topicAccessKey(u"orders"_s) != u"now-set"_s);
}

namespace {
const QString AzuriteKey
    = u"Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="_s;
}

void TestSecrets::sharedKeyStringToSign()
{
    // The string to sign of "Authorize with Shared Key" (Blob service, version 2015-02-21 and
    // later), written out by hand; the signature was computed independently with Python's
    // hmac/hashlib: base64(hmac_sha256(base64decode(key), string_to_sign)).
    QNetworkRequest request(QUrl(
        u"http://127.0.0.1:10000/devstoreaccount1/deadletters/SUB-ONE/2026/1/2/3/0b4e8f2a-0000-4000-8000-000000000001.json"_s));
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArray("application/json"));
    request.setRawHeader("x-ms-version", "2021-08-06");
    request.setRawHeader("x-ms-blob-type", "BlockBlob");
    request.setRawHeader("X-MS-Date", "Fri, 02 Jan 2026 03:04:05 GMT");
    const QByteArray expected = "PUT\n"
                                "\n" // Content-Encoding
                                "\n" // Content-Language
                                "27\n" // Content-Length
                                "\n" // Content-MD5
                                "application/json\n"
                                "\n\n\n\n\n\n" // Date, If-*, Range
                                "x-ms-blob-type:BlockBlob\n"
                                "x-ms-date:Fri, 02 Jan 2026 03:04:05 GMT\n"
                                "x-ms-version:2021-08-06\n"
                                "/devstoreaccount1/devstoreaccount1/deadletters/SUB-ONE/2026/1/2/3/"
                                "0b4e8f2a-0000-4000-8000-000000000001.json";
    const QByteArray stringToSign
        = SharedKey::stringToSign("PUT", request, 27, u"devstoreaccount1"_s);
    QCOMPARE(stringToSign, expected);
    const auto authorization = SharedKey::authorization(u"devstoreaccount1"_s, AzuriteKey, stringToSign);
    QVERIFY(authorization.hasValue());
    QCOMPARE(authorization.value(),
             QByteArray("SharedKey devstoreaccount1:ak9UrmyCFtqa3BTVl/u1eHZkzhjI7/WIUxQxeByhfGI="));
    QCOMPARE(SharedKey::httpDate(QDateTime(QDate(2026, 1, 2), QTime(3, 4, 5), QTimeZone::utc())),
             QByteArray("Fri, 02 Jan 2026 03:04:05 GMT"));
}

void TestSecrets::sharedKeyQueryParameters()
{
    // A zero Content-Length is an empty line; query parameters are lower-cased and sorted.
    QNetworkRequest request(
        QUrl(u"https://myaccount.blob.core.windows.net/mycontainer?restype=container&comp=list"_s));
    request.setRawHeader("x-ms-date", "Fri, 02 Jan 2026 03:04:05 GMT");
    request.setRawHeader("x-ms-version", "2021-08-06");
    const QByteArray expected = "GET\n\n\n\n\n\n\n\n\n\n\n\n"
                                "x-ms-date:Fri, 02 Jan 2026 03:04:05 GMT\n"
                                "x-ms-version:2021-08-06\n"
                                "/myaccount/mycontainer\ncomp:list\nrestype:container";
    const QByteArray stringToSign = SharedKey::stringToSign("GET", request, 0, u"myaccount"_s);
    QCOMPARE(stringToSign, expected);
    QCOMPARE(SharedKey::authorization(u"myaccount"_s, AzuriteKey, stringToSign).value(),
             QByteArray("SharedKey myaccount:Xot2lDOwe3NkT0lN4VyFIkxj/jYznkedYnB0BAAuaSw="));
}

void TestSecrets::sharedKeyRejectsBadKey()
{
    const auto authorization = SharedKey::authorization(u"acct"_s, u"not base64 !!"_s, "x");
    QVERIFY(!authorization.hasValue());
    QVERIFY(authorization.error().contains(u"not valid Base64"_s));
}

namespace {
DeadLetterDestination azuriteDestination()
{
    DeadLetterDestination destination;
    destination.kind = DeadLetterDestination::Kind::AzureBlob;
    destination.resourceId = u"/subscriptions/s/resourceGroups/g/providers/Microsoft.Storage/storageAccounts/devstoreaccount1"_s;
    destination.blobContainerName = u"deadletters"_s;
    destination.blobEndpoint = QUrl(u"http://127.0.0.1:10000/devstoreaccount1"_s);
    return destination;
}
} // namespace

void TestSecrets::storageAccountSecrets_data()
{
    QTest::addColumn<QString>("secret");
    QTest::addColumn<QString>("account");
    QTest::addColumn<QString>("key");
    QTest::addColumn<QUrl>("queueEndpoint");
    QTest::addColumn<QString>("error");

    QTest::newRow("key alone") << AzuriteKey << u"devstoreaccount1"_s << AzuriteKey << QUrl()
                               << QString();
    QTest::newRow("connection string with suffix")
        << u"DefaultEndpointsProtocol=https;AccountName=Contoso;AccountKey=a2V5;EndpointSuffix=core.windows.net"_s
        << u"contoso"_s << u"a2V5"_s << QUrl(u"https://contoso.queue.core.windows.net"_s)
        << QString();
    QTest::newRow("explicit queue endpoint")
        << u"AccountName=devstoreaccount1;AccountKey=a2V5;QueueEndpoint=http://127.0.0.1:10001/devstoreaccount1;"_s
        << u"devstoreaccount1"_s << u"a2V5"_s
        << QUrl(u"http://127.0.0.1:10001/devstoreaccount1"_s) << QString();
    QTest::newRow("development storage")
        << u"UseDevelopmentStorage=true"_s << u"devstoreaccount1"_s << AzuriteKey
        << QUrl(u"http://127.0.0.1:10001/devstoreaccount1"_s) << QString();
    QTest::newRow("shared access signature only")
        << u"QueueEndpoint=https://contoso.queue.core.windows.net;SharedAccessSignature=sv=x"_s
        << u"contoso"_s << QString() << QUrl()
        << u"the connection string of storage account 'contoso' has no AccountKey (a connection string with a key is needed, not a SAS)"_s;
    QTest::newRow("another account")
        << u"AccountName=other;AccountKey=a2V5"_s << u"contoso"_s << QString() << QUrl()
        << u"the connection string stored for storage account 'contoso' is that of account 'other'"_s;
}

void TestSecrets::storageAccountSecrets()
{
    QFETCH(QString, secret);
    QFETCH(QString, account);
    QFETCH(QString, key);
    QFETCH(QUrl, queueEndpoint);
    QFETCH(QString, error);
    const auto parsed = AzureCredentials::storageAccount(secret, account);
    if (!error.isEmpty()) {
        QVERIFY(!parsed);
        QCOMPARE(parsed.error(), error);
        return;
    }
    QVERIFY2(parsed, qPrintable(parsed.error()));
    QCOMPARE(parsed->accountKey, key);
    QCOMPARE(parsed->queueEndpoint, queueEndpoint);
}

void TestSecrets::namespaceConnectionStrings_data()
{
    QTest::addColumn<QString>("connectionString");
    QTest::addColumn<QUrl>("endpoint");
    QTest::addColumn<QString>("keyName");
    QTest::addColumn<QString>("error");

    QTest::newRow("portal")
        << u"Endpoint=sb://shop.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=a2V5PQ=="_s
        << QUrl(u"https://shop.servicebus.windows.net/"_s) << u"RootManageSharedAccessKey"_s
        << QString();
    QTest::newRow("with entity path")
        << u"Endpoint=sb://shop.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=k;EntityPath=orders"_s
        << QUrl(u"https://shop.servicebus.windows.net/"_s) << u"send"_s << QString();
    QTest::newRow("local stand-in")
        << u"Endpoint=http://127.0.0.1:8080;SharedAccessKeyName=send;SharedAccessKey=k"_s
        << QUrl(u"http://127.0.0.1:8080/"_s) << u"send"_s << QString();
    QTest::newRow("no key")
        << u"Endpoint=sb://shop.servicebus.windows.net/;SharedAccessKeyName=send"_s << QUrl()
        << QString()
        << u"the connection string of namespace 'shop' needs SharedAccessKeyName and SharedAccessKey (copy a shared access policy's connection string from the namespace)"_s;
}

void TestSecrets::namespaceConnectionStrings()
{
    QFETCH(QString, connectionString);
    QFETCH(QUrl, endpoint);
    QFETCH(QString, keyName);
    QFETCH(QString, error);
    const auto parsed = AzureCredentials::namespaceKey(connectionString, u"shop"_s);
    if (!error.isEmpty()) {
        QVERIFY(!parsed);
        QCOMPARE(parsed.error(), error);
        return;
    }
    QVERIFY2(parsed, qPrintable(parsed.error()));
    QCOMPARE(parsed->endpoint, endpoint);
    QCOMPARE(parsed->keyName, keyName);
    QVERIFY(!parsed->key.isEmpty());
}

void TestSecrets::azureSinkSignsPutBlob()
{
    FakeAccessManager network;
    network.respondAlways(201);
    QString keyAskedFor;
    AzureBlobDeadLetterSink sink(&network, [&keyAskedFor](const QString &account) -> Expected<QString> {
        keyAskedFor = account;
        return AzuriteKey;
    });
    std::optional<Expected<QString>> result;
    const QByteArray body = R"([{"id":"1"}])";
    sink.write(azuriteDestination(), u"SUB-ONE/2026/1/2/3/abc.json"_s, body,
               [&result](const Expected<QString> &path) { result = path; });
    QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), 10'000);
    QVERIFY2(result->hasValue(), qPrintable(result->error()));
    QCOMPARE(result->value(), u"deadletters/SUB-ONE/2026/1/2/3/abc.json"_s);
    QCOMPARE(keyAskedFor, u"devstoreaccount1"_s); // from resourceId when accountName is empty
    QCOMPARE(network.sent.size(), 1);
    const auto &sent = network.sent.first();
    QCOMPARE(sent.request.url(),
             QUrl(u"http://127.0.0.1:10000/devstoreaccount1/deadletters/SUB-ONE/2026/1/2/3/abc.json"_s));
    QCOMPARE(sent.body, body);
    QCOMPARE(sent.header("x-ms-blob-type"), QByteArray("BlockBlob"));
    QCOMPARE(sent.header("x-ms-version"), QByteArray("2021-08-06"));
    QCOMPARE(sent.request.header(QNetworkRequest::ContentTypeHeader).toByteArray(),
             QByteArray("application/json"));
    const QDateTime date = QLocale::c().toDateTime(QString::fromLatin1(sent.header("x-ms-date")),
                                                   u"ddd, dd MMM yyyy HH:mm:ss 'GMT'"_s);
    QVERIFY(date.isValid());
    // The Authorization header verifies against the string to sign of the request as sent.
    const QByteArray expected = SharedKey::authorization(
        u"devstoreaccount1"_s, AzuriteKey,
        SharedKey::stringToSign("PUT", sent.request, body.size(), u"devstoreaccount1"_s)).value();
    QCOMPARE(sent.header("Authorization"), expected);
}

void TestSecrets::azureSinkUnreachable()
{
    FakeAccessManager network;
    network.respondAlways(-int(QNetworkReply::ConnectionRefusedError));
    AzureBlobDeadLetterSink sink(&network, [](const QString &) -> Expected<QString> { return AzuriteKey; });
    std::optional<Expected<QString>> result;
    sink.write(azuriteDestination(), u"SUB/2026/1/2/3/a.json"_s, "[]",
               [&result](const Expected<QString> &path) { result = path; });
    QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), 10'000);
    QVERIFY(!result->hasValue());
    QVERIFY2(result->error().contains(u"unreachable"_s), qPrintable(result->error()));
    QVERIFY(result->error().contains(u"http://127.0.0.1:10000/devstoreaccount1"_s));

    // Any other status is an unavailable destination too, named with its status.
    FakeAccessManager failing;
    failing.respondAlways(500);
    AzureBlobDeadLetterSink second(&failing, [](const QString &) -> Expected<QString> { return AzuriteKey; });
    std::optional<Expected<QString>> secondResult;
    second.write(azuriteDestination(), u"SUB/2026/1/2/3/a.json"_s, "[]",
                 [&secondResult](const Expected<QString> &path) { secondResult = path; });
    QTRY_VERIFY_WITH_TIMEOUT(secondResult.has_value(), 10'000);
    QVERIFY(!secondResult->hasValue());
    QVERIFY2(secondResult->error().contains(u"HTTP 500"_s), qPrintable(secondResult->error()));
}

void TestSecrets::azureSinkWithoutKey()
{
    FakeAccessManager network;
    network.respondAlways(201);
    AzureBlobDeadLetterSink sink(&network, [](const QString &account) -> Expected<QString> {
        return Error(u"no account key for storage account '%1'"_s.arg(account));
    });
    std::optional<Expected<QString>> result;
    sink.write(azuriteDestination(), u"SUB/2026/1/2/3/a.json"_s, "[]",
               [&result](const Expected<QString> &path) { result = path; });
    QVERIFY(result.has_value());
    QVERIFY(!result->hasValue());
    QCOMPARE(result->error(), u"no account key for storage account 'devstoreaccount1'"_s);
    QVERIFY(network.sent.isEmpty());

    // A hanging request is aborted, without a callback, when the sink goes away.
    FakeAccessManager hanging;
    hanging.setResponder([](const FakeAccessManager::Sent &) { return 0; });
    bool called = false;
    {
        AzureBlobDeadLetterSink shortLived(&hanging, [](const QString &) -> Expected<QString> { return AzuriteKey; });
        shortLived.write(azuriteDestination(), u"SUB/2026/1/2/3/a.json"_s, "[]",
                         [&called](const Expected<QString> &) { called = true; });
        QCOMPARE(hanging.sent.size(), 1);
    }
    QCoreApplication::processEvents();
    QVERIFY(!called);
}

namespace {
class RecordingSink final : public DeadLetterSink
{
public:
    void write(const DeadLetterDestination &, const QString &blobName, const QByteArray &,
               Callback done) override
    {
        names.append(blobName);
        done(blobName);
    }
    QStringList names;
};
} // namespace

void TestSecrets::routerDispatchesByKind()
{
    RecordingSink local;
    RecordingSink azure;
    DeadLetterRouter router(&local, &azure);
    DeadLetterDestination folder;
    folder.kind = DeadLetterDestination::Kind::LocalFolder;
    bool ok = false;
    router.write(folder, u"a"_s, "[]", [&ok](const Expected<QString> &path) { ok = path.hasValue(); });
    QVERIFY(ok);
    router.write(azuriteDestination(), u"b"_s, "[]", [](const Expected<QString> &) {});
    QCOMPARE(local.names, QStringList({u"a"_s}));
    QCOMPARE(azure.names, QStringList({u"b"_s}));
    DeadLetterDestination none;
    std::optional<Expected<QString>> result;
    router.write(none, u"c"_s, "[]", [&result](const Expected<QString> &path) { result = path; });
    QVERIFY(result && !result->hasValue());
}

void TestSecrets::blobLocation()
{
    DeadLetterDestination folder;
    folder.kind = DeadLetterDestination::Kind::LocalFolder;
    folder.blobContainerName = u"deadletters"_s;
    QCOMPARE(DeadLetterRouter::blobLocation(folder, u"deadletters/SUB/2026/1/2/3/x.json"_s, u"/ws/deadletters"_s),
             QUrl::fromLocalFile(u"/ws/deadletters/deadletters/SUB/2026/1/2/3/x.json"_s));
    QCOMPARE(DeadLetterRouter::blobLocation(azuriteDestination(), u"deadletters/SUB/2026/1/2/3/x.json"_s, QString()),
             QUrl(u"http://127.0.0.1:10000/devstoreaccount1/deadletters/SUB/2026/1/2/3/x.json"_s));
    DeadLetterDestination real = azuriteDestination();
    real.blobEndpoint = QUrl();
    real.accountName = u"deadstore"_s;
    QCOMPARE(AzureBlobAddress::blobUrl(real, u"c/SUB/x.json"_s),
             QUrl(u"https://deadstore.blob.core.windows.net/c/SUB/x.json"_s));
}

QTEST_GUILESS_MAIN(TestSecrets)
#include "tst_secrets.moc"
