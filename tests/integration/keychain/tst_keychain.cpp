// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// SPEC H2 and the keychain rules against a real Secret Service (GNOME Keyring in a
// private D-Bus session, see run-with-keyring.sh): write, read and delete through EventDesk's
// QtKeychain code path; eventdeskd takes secret header values and topic keys from the keychain
// and no file of the workspace ever holds them; a missing keyring is reported, not papered over.

#include "DaemonProcess.h"
#include "ScriptedReceiver.h"
#include "SecretScan.h"
#include "keychain/KeychainSecretStore.h"
#include "secrets/SecretStore.h"

#include <QDirIterator>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using namespace EventDesk::Testing;

namespace {

Expected<std::optional<QString>> readSecret(SecretStore &store, const QString &key)
{
    std::optional<Expected<std::optional<QString>>> result;
    store.read(key, [&result](const Expected<std::optional<QString>> &value) { result = value; });
    if (!QTest::qWaitFor([&result] { return result.has_value(); }, 30'000))
        return Error(u"the keychain did not answer"_s);
    return *result;
}

Expected<void> writeSecret(SecretStore &store, const QString &key, const QString &value)
{
    std::optional<Expected<void>> result;
    store.write(key, value, [&result](const Expected<void> &done) { result = done; });
    if (!QTest::qWaitFor([&result] { return result.has_value(); }, 30'000))
        return Error(u"the keychain did not answer"_s);
    return *result;
}

Expected<void> removeSecret(SecretStore &store, const QString &key)
{
    std::optional<Expected<void>> result;
    store.remove(key, [&result](const Expected<void> &done) { result = done; });
    if (!QTest::qWaitFor([&result] { return result.has_value(); }, 30'000))
        return Error(u"the keychain did not answer"_s);
    return *result;
}

} // namespace

class TestKeychain final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void keychainIsAvailable();
    void writeReadDelete();
    void secretsNeverReachWorkspaceFiles();
    void missingKeyringIsReported();
};

void TestKeychain::initTestCase()
{
    QVERIFY2(!qEnvironmentVariableIsEmpty("DBUS_SESSION_BUS_ADDRESS"),
             "run through run-with-keyring.sh (a D-Bus session with gnome-keyring-daemon)");
}

void TestKeychain::keychainIsAvailable()
{
    KeychainSecretStore store;
    QSignalSpy changed(&store, &SecretStore::availabilityChanged);
    store.checkAvailability();
    QCOMPARE(store.availability(), SecretStore::Availability::Checking);
    QTRY_VERIFY_WITH_TIMEOUT(store.availability() != SecretStore::Availability::Checking, 60'000);
    QVERIFY2(store.availability() == SecretStore::Availability::Available,
             qPrintable(store.unavailabilityReason()));
    QVERIFY(changed.size() >= 2); // Checking, then Available
}

void TestKeychain::writeReadDelete()
{
    KeychainSecretStore store;
    const QString key = u"header/orders/billing/X-Api-Key"_s;
    const QString value = u"kc-"_s + QUuid::createUuid().toString(QUuid::WithoutBraces);
    const auto written = writeSecret(store, key, value);
    QVERIFY2(written.hasValue(), qPrintable(written.error()));
    const auto read = readSecret(store, key);
    QVERIFY2(read.hasValue(), qPrintable(read.error()));
    QCOMPARE(read.value().value_or(QString()), value);

    // Another instance (another process's view) sees the same entry under service "EventDesk".
    KeychainSecretStore other;
    QCOMPARE(readSecret(other, key).value().value_or(QString()), value);

    const auto removed = removeSecret(store, key);
    QVERIFY2(removed.hasValue(), qPrintable(removed.error()));
    const auto gone = readSecret(store, key);
    QVERIFY2(gone.hasValue(), qPrintable(gone.error()));
    QVERIFY(!gone.value().has_value());
    QVERIFY(removeSecret(store, key).hasValue()); // removing a missing entry is not an error
}

void TestKeychain::secretsNeverReachWorkspaceFiles()
{
    const QString headerValue = u"hdr-"_s + QUuid::createUuid().toString(QUuid::WithoutBraces);
    const QString topicKey = u"key-"_s + QUuid::createUuid().toString(QUuid::WithoutBraces);
    KeychainSecretStore store;
    QVERIFY(writeSecret(store, u"header/orders/sub-one/X-Api-Key"_s, headerValue).hasValue());
    QVERIFY(writeSecret(store, u"topic/orders/key"_s, topicKey).hasValue());

    ScriptedReceiver receiver;
    QVERIFY(receiver.listen());
    // First delivery is refused (400: dead-lettered to the local container), the next accepted.
    receiver.setScript({ReceiverAction::respond(400)});
    receiver.setDefaultAction(ReceiverAction::respond(200));

    QTemporaryDir workspaceDir;
    QVERIFY(workspaceDir.isValid());
    WorkspaceJson::SubscriptionOptions options;
    options.endpointUrl = receiver.url();
    options.deliveryAttributeMappings = QJsonArray{
        QJsonObject{{u"name"_s, u"X-Api-Key"_s}, {u"type"_s, u"Static"_s},
                    {u"properties"_s, QJsonObject{{u"isSecret"_s, true}}}},
        QJsonObject{{u"name"_s, u"X-Plain"_s}, {u"type"_s, u"Static"_s},
                    {u"properties"_s, QJsonObject{{u"isSecret"_s, false}, {u"value"_s, u"visible"_s}}}}};
    QJsonObject topic = WorkspaceJson::topic(u"orders"_s, {WorkspaceJson::subscription(options)});
    topic.insert(u"accessKey"_s, QJsonObject{{u"secretRef"_s, u"topic/orders/key"_s}});
    QVERIFY(WorkspaceJson::write(workspaceDir.path(), WorkspaceJson::workspace({topic}, 0)));

    DaemonProcess daemon(workspaceDir.path());
    daemon.setTimeScale(100);
    daemon.setEnvironmentVariable(u"QT_LOGGING_RULES"_s, u"eventdesk.*=true"_s); // log everything
    QVERIFY2(daemon.start(), qPrintable(daemon.standardError()));

    // The topic key comes from the keychain: without it, or with a wrong one, publishing fails.
    QCOMPARE(daemon.publish(u"orders"_s, eventBatch({u"no-key"_s})).status, 401);
    QCOMPARE(daemon.publish(u"orders"_s, eventBatch({u"bad-key"_s}), {{"aeg-sas-key", "wrong"}}).status, 401);
    QCOMPARE(daemon.publish(u"orders"_s, eventBatch({u"first"_s}), {{"aeg-sas-key", topicKey.toUtf8()}}).status, 200);
    QCOMPARE(daemon.publish(u"orders"_s, eventBatch({u"second"_s}), {{"aeg-sas-key", topicKey.toUtf8()}}).status, 200);

    QTRY_VERIFY_WITH_TIMEOUT(receiver.requestCount() >= 2, 60'000);
    for (qsizetype i = 0; i < receiver.requestCount(); ++i) {
        QCOMPARE(receiver.request(i).header("X-Api-Key"), headerValue.toUtf8());
        QCOMPARE(receiver.request(i).header("X-Plain"), QByteArray("visible"));
    }
    QTRY_COMPARE_WITH_TIMEOUT(storeScalar(workspaceDir.path(), u"SELECT COUNT(*) FROM dead_letters"_s),
                              qint64(1), 60'000);
    QVERIFY(daemon.terminate());

    const QStringList files = allFiles(workspaceDir.path());
    QVERIFY2(files.contains(u"workspace.json"_s), qPrintable(files.join(u", "_s)));
    QVERIFY2(files.contains(u"eventdesk.db"_s), qPrintable(files.join(u", "_s)));
    QVERIFY2(std::any_of(files.cbegin(), files.cend(),
                         [](const QString &file) { return file.startsWith(u"deadletters/deadletters/"_s); }),
             qPrintable(files.join(u", "_s)));
    QCOMPARE(filesContaining(workspaceDir.path(), headerValue), QStringList());
    QCOMPARE(filesContaining(workspaceDir.path(), topicKey), QStringList());
    // Nor in the logs.
    QVERIFY(!daemon.standardError().contains(headerValue));
    QVERIFY(!daemon.standardOutput().contains(headerValue));
    QVERIFY(!daemon.standardError().contains(topicKey));
    // The check itself works: the non-secret header's value is in workspace.json.
    QCOMPARE(filesContaining(workspaceDir.path(), u"visible"_s), QStringList({workspaceDir.filePath(u"workspace.json"_s)}));

    QVERIFY(removeSecret(store, u"header/orders/sub-one/X-Api-Key"_s).hasValue());
    QVERIFY(removeSecret(store, u"topic/orders/key"_s).hasValue());
}

void TestKeychain::missingKeyringIsReported()
{
    // A session bus that does not exist: no Secret Service at all.
    QTemporaryDir workspaceDir;
    WorkspaceJson::SubscriptionOptions options;
    options.endpointUrl = QUrl(u"http://127.0.0.1:%1/hook"_s.arg(closedLoopbackPort()));
    options.deliveryAttributeMappings = QJsonArray{
        QJsonObject{{u"name"_s, u"X-Api-Key"_s}, {u"type"_s, u"Static"_s},
                    {u"properties"_s, QJsonObject{{u"isSecret"_s, true}}}}};
    QVERIFY(WorkspaceJson::write(workspaceDir.path(),
                                 WorkspaceJson::workspace({WorkspaceJson::topic(u"orders"_s, {WorkspaceJson::subscription(options)})}, 0)));
    DaemonProcess daemon(workspaceDir.path());
    daemon.setEnvironmentVariable(u"DBUS_SESSION_BUS_ADDRESS"_s,
                                  u"unix:path="_s + workspaceDir.filePath(u"no-such-bus"_s));
    daemon.setEnvironmentVariable(u"QT_LOGGING_RULES"_s, u"eventdesk.*.debug=false"_s);
    QVERIFY2(daemon.start(), qPrintable(daemon.standardError()));
    const QString log = daemon.standardError();
    QVERIFY2(log.contains(u"retrying in"_s), qPrintable(log)); // tried once more after start-up
    QVERIFY2(log.contains(u"secret unavailable: secret header 'X-Api-Key' of subscription 'sub-one'"_s),
             qPrintable(log));
    QVERIFY2(log.contains(u"EVENTDESK_HEADER_ORDERS_SUB_ONE_X_API_KEY"_s), qPrintable(log));
    QVERIFY2(log.contains(u"system keychain"_s), qPrintable(log));
    QVERIFY(daemon.terminate());

    // The environment variable is the way out where no keychain exists.
    DaemonProcess withEnvironment(workspaceDir.path());
    withEnvironment.setEnvironmentVariable(u"DBUS_SESSION_BUS_ADDRESS"_s,
                                           u"unix:path="_s + workspaceDir.filePath(u"no-such-bus"_s));
    withEnvironment.setEnvironmentVariable(u"EVENTDESK_HEADER_ORDERS_SUB_ONE_X_API_KEY"_s, u"from-env"_s);
    QVERIFY2(withEnvironment.start(), qPrintable(withEnvironment.standardError()));
    QVERIFY2(!withEnvironment.standardError().contains(u"secret unavailable"_s),
             qPrintable(withEnvironment.standardError()));
    QVERIFY(withEnvironment.terminate());
}

QTEST_GUILESS_MAIN(TestKeychain)
#include "tst_keychain.moc"
