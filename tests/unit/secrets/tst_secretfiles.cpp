// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// Secrets out of plain files: the opt-in secrets file refused when others may read it, secret
// header values written into workspace.json moved into the secret store (never lost: the store
// first, then the file), and what of a URL or a header is masked.

#include "SecretScan.h"

#include "model/Workspace.h"
#include "secrets/InlineSecrets.h"
#include "secrets/SecretCache.h"
#include "secrets/SecretMasking.h"
#include "secrets/SecretStore.h"
#include "workspace/WorkspaceFolder.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#ifdef Q_OS_UNIX
#include <sys/stat.h>
#endif

using namespace Qt::StringLiterals;
using namespace EventDesk;

namespace {

const QString ApiKey = u"sk_live_Q2hlY2tUaGlzT3V0MTIzNDU2"_s;
const QString TokenValue = u"Bearer eyJhbGciOiJIUzI1NiJ9.c2VjcmV0"_s;

// A store whose availability and write failures the test drives (a keychain that is probed, or
// that refuses one write).
class ScriptedStore final : public SecretStore
{
public:
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
        ++writes;
        if (failWrite == writes) {
            done(Error(u"access denied by the keyring"_s));
            return;
        }
        values.insert(key, value);
        done({});
    }
    void remove(const QString &key, DoneCallback done) override
    {
        values.remove(key);
        done({});
    }
    QString description() const override { return u"scripted keychain"_s; }

    QHash<QString, QString> values;
    int writes = 0;
    int failWrite = 0; // the number of the write that fails (1 = the first); 0: none
};

// A workspace.json someone edited by hand: two secret header values in it, one ordinary header.
// (URLs escape "/" as "\/": moc takes "//" in a raw string for a comment.)
QByteArray handEditedWorkspace()
{
    return R"({
      "topics": [{
        "name": "orders",
        "eventSubscriptions": [{
          "name": "billing",
          "properties": {
            "destination": {"endpointType": "WebHook", "properties": {
              "endpointUrl": "https:\/\/example.test\/hook",
              "deliveryAttributeMappings": [
                {"name": "X-Api-Key", "type": "Static", "properties": {"isSecret": true, "value": "sk_live_Q2hlY2tUaGlzT3V0MTIzNDU2"}},
                {"name": "Authorization", "type": "Static", "properties": {"isSecret": true, "value": "Bearer eyJhbGciOiJIUzI1NiJ9.c2VjcmV0"}},
                {"name": "X-Tenant", "type": "Static", "properties": {"isSecret": false, "value": "contoso"}}
              ]}}
          }
        }]
      }],
      "receivers": [],
      "settings": {"probationThreshold": 7}
    })";
}

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

bool writeAll(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate)
        && file.write(bytes) == bytes.size();
}

// Runs InlineSecrets::move and waits for its answer (a store may answer later).
std::optional<Expected<void>> moveAndWait(const QString &path, const QList<InlineSecret> &secrets,
                                          SecretStore *store, int timeoutMs = 5000)
{
    std::optional<Expected<void>> result;
    InlineSecrets::move(path, secrets, store,
                        [&result](const Expected<void> &moved) { result = moved; });
    // Not QTRY_VERIFY: this helper returns a value; the callers check that an answer came (an
    // empty result), so whether the wait timed out is not needed here.
    static_cast<void>(QTest::qWaitFor([&result] { return result.has_value(); }, timeoutMs));
    return result;
}

} // namespace

class TestSecretFiles final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();

    void secretsFile_widerThan0600_refused_data();
    void secretsFile_widerThan0600_refused();
    void secretsFile_modeFixed_usedAgain();

    void inline_found_onlySecretValues();
    void inline_movedToStore_thenTakenOutOfFile();
    void inline_storeUnavailable_fileUnchanged();
    void inline_storeRefusesAWrite_fileUnchanged();
    void inline_readOnlyOrNoStore_fileUnchanged();
    void inline_storeBeingChecked_waitedFor();
    void inline_fileChangedMeanwhile_otherValueKept();
    void inline_notMoved_cacheUsesTheValueThisRun();
    void inline_notMoved_keptWhenAnotherChangeIsSaved();

    void maskedUrl_data();
    void maskedUrl();
    void redactUrlSecrets_inMessages();
    void credentialHeaders();

private:
    QTemporaryDir m_directory;
    QString m_workspaceFile;
};

void TestSecretFiles::init()
{
    QVERIFY(m_directory.isValid());
    m_workspaceFile = m_directory.filePath(u"workspace.json"_s);
    QVERIFY(writeAll(m_workspaceFile, handEditedWorkspace()));
}

void TestSecretFiles::secretsFile_widerThan0600_refused_data()
{
    QTest::addColumn<int>("mode");
    QTest::addColumn<bool>("refused");
    QTest::newRow("0600") << 0600 << false;
    QTest::newRow("0400") << 0400 << false;
    QTest::newRow("0644") << 0644 << true;
    QTest::newRow("0640") << 0640 << true;
    QTest::newRow("0606") << 0606 << true;
    QTest::newRow("0660") << 0660 << true;
    QTest::newRow("0700") << 0700 << true;
}

void TestSecretFiles::secretsFile_widerThan0600_refused()
{
#ifndef Q_OS_UNIX
    QSKIP("mode bits exist on Unix only");
#else
    QFETCH(int, mode);
    QFETCH(bool, refused);
    const QString path = m_directory.filePath(u"secrets.json"_s);
    const QByteArray contents = R"({"header/orders/billing/X-Api-Key": "from-the-file"})";
    QVERIFY(writeAll(path, contents));
    QVERIFY(QFile::setPermissions(path, QFileDevice::Permissions()));
    QCOMPARE(::chmod(QFile::encodeName(path).constData(), mode_t(mode)), 0);

    FileSecretStore store(path);
    if (!refused) {
        QCOMPARE(store.availability(), SecretStore::Availability::Available);
        if (mode & 0200) {
            std::optional<Expected<std::optional<QString>>> read;
            store.read(u"header/orders/billing/X-Api-Key"_s,
                       [&read](const auto &value) { read = value; });
            QVERIFY(read && read->hasValue());
            QCOMPARE(read->value().value_or(QString()), u"from-the-file"_s);
        }
        return;
    }
    // Refused at once, with the file, its mode and the required one named.
    const QString modeText = u"0%1"_s.arg(mode, 3, 8, QLatin1Char('0'));
    QCOMPARE(store.availability(), SecretStore::Availability::Unavailable);
    const QString reason = store.unavailabilityReason();
    QVERIFY2(reason.contains(path) && reason.contains(modeText) && reason.contains(u"0600"_s)
                 && reason.contains(u"chmod 600"_s),
             qPrintable(reason));
    // Every use fails with that reason; nothing is written to it.
    std::optional<Expected<std::optional<QString>>> read;
    store.read(u"header/orders/billing/X-Api-Key"_s, [&read](const auto &value) { read = value; });
    QVERIFY(read && !read->hasValue());
    QCOMPARE(read->error(), reason);
    std::optional<Expected<void>> written;
    store.write(u"topic/orders/key"_s, u"new"_s,
                [&written](const Expected<void> &done) { written = done; });
    QVERIFY(written && !written->hasValue());
    QCOMPARE(readAll(path), contents);
#endif
}

void TestSecretFiles::secretsFile_modeFixed_usedAgain()
{
#ifndef Q_OS_UNIX
    QSKIP("mode bits exist on Unix only");
#else
    const QString path = m_directory.filePath(u"secrets.json"_s);
    QVERIFY(writeAll(path, R"({"topic/orders/key": "k1"})"));
    QCOMPARE(::chmod(QFile::encodeName(path).constData(), 0644), 0);
    FileSecretStore store(path);
    QCOMPARE(store.availability(), SecretStore::Availability::Unavailable);
    // The user runs chmod 600: the next use checks again.
    QCOMPARE(::chmod(QFile::encodeName(path).constData(), 0600), 0);
    std::optional<Expected<std::optional<QString>>> read;
    store.read(u"topic/orders/key"_s, [&read](const auto &value) { read = value; });
    QVERIFY(read && read->hasValue());
    QCOMPARE(read->value().value_or(QString()), u"k1"_s);
    QCOMPARE(store.availability(), SecretStore::Availability::Available);
#endif
}

void TestSecretFiles::inline_found_onlySecretValues()
{
    const Expected<Workspace> workspace
        = Workspace::fromJson(handEditedWorkspace(), m_workspaceFile);
    QVERIFY2(workspace, qPrintable(workspace.error()));
    const QList<InlineSecret> secrets = InlineSecrets::find(workspace.value());
    QCOMPARE(secrets.size(), 2);
    QCOMPARE(secrets.at(0).key(), u"header/orders/billing/X-Api-Key"_s);
    QCOMPARE(secrets.at(0).value, ApiKey);
    QCOMPARE(secrets.at(1).key(), u"header/orders/billing/Authorization"_s);
    QCOMPARE(secrets.at(1).purpose(),
             u"secret header 'Authorization' of subscription 'billing' (topic 'orders')"_s);

    Workspace cleared = workspace.value();
    InlineSecrets::clearValues(cleared);
    QVERIFY(InlineSecrets::find(cleared).isEmpty());
    // The ordinary header keeps its value.
    QCOMPARE(cleared.topics.at(0).eventSubscriptions.at(0).deliveryHeaders.at(2).value,
             u"contoso"_s);
}

void TestSecretFiles::inline_movedToStore_thenTakenOutOfFile()
{
    const QList<InlineSecret> secrets
        = InlineSecrets::find(Workspace::fromJson(handEditedWorkspace(), m_workspaceFile).value());
    MemorySecretStore store;
    const auto moved = moveAndWait(m_workspaceFile, secrets, &store);
    QVERIFY(moved);
    QVERIFY2(moved->hasValue(), qPrintable(moved->error()));

    // In the store under the keys the engine looks up...
    std::optional<Expected<std::optional<QString>>> read;
    store.read(u"header/orders/billing/X-Api-Key"_s, [&read](const auto &value) { read = value; });
    QCOMPARE(read->value().value_or(QString()), ApiKey);
    store.read(u"header/orders/billing/Authorization"_s,
               [&read](const auto &value) { read = value; });
    QCOMPARE(read->value().value_or(QString()), TokenValue);

    // ...and out of the file, which still opens with everything else as it was.
    const QByteArray rewritten = readAll(m_workspaceFile);
    QVERIFY2(!Testing::containsSecret(rewritten, ApiKey), rewritten.constData());
    QVERIFY2(!Testing::containsSecret(rewritten, TokenValue), rewritten.constData());
    const Expected<Workspace> reread = Workspace::fromJson(rewritten, m_workspaceFile);
    QVERIFY2(reread, qPrintable(reread.error()));
    const EventSubscription &subscription = reread->topics.at(0).eventSubscriptions.at(0);
    QCOMPARE(subscription.deliveryHeaders.size(), 3);
    QVERIFY(subscription.deliveryHeaders.at(0).secret);
    QVERIFY(subscription.deliveryHeaders.at(1).secret);
    QCOMPARE(subscription.deliveryHeaders.at(2).value, u"contoso"_s);
    QCOMPARE(reread->settings.probationThreshold, 7);
    QVERIFY(InlineSecrets::find(reread.value()).isEmpty());
}

void TestSecretFiles::inline_storeUnavailable_fileUnchanged()
{
    const QList<InlineSecret> secrets
        = InlineSecrets::find(Workspace::fromJson(handEditedWorkspace(), m_workspaceFile).value());
    MemorySecretStore store;
    store.simulateUnavailable(u"the login keyring is locked"_s);
    const auto moved = moveAndWait(m_workspaceFile, secrets, &store);
    QVERIFY(moved && !moved->hasValue());
    const QString error = moved->error();
    QVERIFY2(
        error.contains(u"secret header 'X-Api-Key' of subscription 'billing' (topic 'orders')"_s)
            && error.contains(u"the login keyring is locked"_s)
            && error.contains(u"left as it is"_s)
            && error.contains(u"EVENTDESK_HEADER_ORDERS_BILLING_X_API_KEY"_s),
        qPrintable(error));
    QVERIFY(!error.contains(ApiKey)); // the message itself is logged and shown
    QCOMPARE(readAll(m_workspaceFile), handEditedWorkspace());
}

void TestSecretFiles::inline_storeRefusesAWrite_fileUnchanged()
{
    const QList<InlineSecret> secrets
        = InlineSecrets::find(Workspace::fromJson(handEditedWorkspace(), m_workspaceFile).value());
    ScriptedStore store;
    store.failWrite = 2; // the first value is stored, the second refused
    const auto moved = moveAndWait(m_workspaceFile, secrets, &store);
    QVERIFY(moved && !moved->hasValue());
    QVERIFY2(moved->error().contains(u"access denied by the keyring"_s),
             qPrintable(moved->error()));
    // Neither value is taken out of the file: it still holds everything.
    QCOMPARE(readAll(m_workspaceFile), handEditedWorkspace());
    QCOMPARE(store.writes, 2);
}

void TestSecretFiles::inline_readOnlyOrNoStore_fileUnchanged()
{
    const QList<InlineSecret> secrets
        = InlineSecrets::find(Workspace::fromJson(handEditedWorkspace(), m_workspaceFile).value());
    EnvironmentSecretStore environment([](const QString &) { return QString(); });
    const auto readOnly = moveAndWait(m_workspaceFile, secrets, &environment);
    QVERIFY(readOnly && !readOnly->hasValue());
    QVERIFY2(readOnly->error().contains(u"environment variables cannot be written"_s),
             qPrintable(readOnly->error()));
    const auto none = moveAndWait(m_workspaceFile, secrets, nullptr);
    QVERIFY(none && !none->hasValue());
    QVERIFY2(none->error().contains(u"no secret store is configured"_s), qPrintable(none->error()));
    QCOMPARE(readAll(m_workspaceFile), handEditedWorkspace());
}

void TestSecretFiles::inline_storeBeingChecked_waitedFor()
{
    const QList<InlineSecret> secrets
        = InlineSecrets::find(Workspace::fromJson(handEditedWorkspace(), m_workspaceFile).value());
    ScriptedStore store;
    store.become(SecretStore::Availability::Checking);
    std::optional<Expected<void>> result;
    InlineSecrets::move(m_workspaceFile, secrets, &store,
                        [&result](const Expected<void> &moved) { result = moved; });
    QVERIFY(!result); // waits for the probe's verdict
    QCOMPARE(store.writes, 0);
    store.become(SecretStore::Availability::Available);
    QVERIFY(result && result->hasValue());
    QCOMPARE(store.values.value(u"header/orders/billing/X-Api-Key"_s), ApiKey);
    QVERIFY(!readAll(m_workspaceFile).contains(ApiKey.toUtf8()));
}

void TestSecretFiles::inline_fileChangedMeanwhile_otherValueKept()
{
    const QList<InlineSecret> secrets
        = InlineSecrets::find(Workspace::fromJson(handEditedWorkspace(), m_workspaceFile).value());
    // Someone put another key into the file after it was read: that value is not the one stored,
    // so it stays; the other one, unchanged, is taken out.
    QByteArray edited = handEditedWorkspace();
    edited.replace(ApiKey.toUtf8(), "sk_live_EditedAfterwards0000");
    QVERIFY(writeAll(m_workspaceFile, edited));
    MemorySecretStore store;
    const auto moved = moveAndWait(m_workspaceFile, secrets, &store);
    QVERIFY2(moved && moved->hasValue(), moved ? qPrintable(moved->error()) : "no answer");
    const QByteArray rewritten = readAll(m_workspaceFile);
    QVERIFY(rewritten.contains("sk_live_EditedAfterwards0000"));
    QVERIFY(!Testing::containsSecret(rewritten, TokenValue));
}

void TestSecretFiles::inline_notMoved_cacheUsesTheValueThisRun()
{
    const Workspace workspace = Workspace::fromJson(handEditedWorkspace(), m_workspaceFile).value();
    MemorySecretStore store;
    store.simulateUnavailable(u"no keychain"_s);
    SecretCache cache({&store});
    cache.setWorkspaceValues(InlineSecrets::values(InlineSecrets::find(workspace)));
    QSignalSpy loaded(&cache, &SecretCache::loaded);
    cache.load(workspace);
    QTRY_COMPARE(loaded.size(), 1);
    // The header keeps being sent with the value the file holds; nothing is reported missing.
    QCOMPARE(cache.deliveryHeaderValue(u"orders"_s, u"billing"_s, u"X-Api-Key"_s), ApiKey);
    QCOMPARE(cache.deliveryHeaderValue(u"orders"_s, u"billing"_s, u"Authorization"_s), TokenValue);
    QVERIFY(cache.problems().isEmpty());

    // A store that holds the secret wins over the file.
    MemorySecretStore working;
    bool stored = false;
    working.write(u"header/orders/billing/X-Api-Key"_s, u"from-the-store"_s,
                  [&stored](const Expected<void> &result) { stored = result.hasValue(); });
    QVERIFY(stored);
    SecretCache preferred({&working});
    preferred.setWorkspaceValues(InlineSecrets::values(InlineSecrets::find(workspace)));
    QSignalSpy preferredLoaded(&preferred, &SecretCache::loaded);
    preferred.load(workspace);
    QTRY_COMPARE(preferredLoaded.size(), 1);
    QCOMPARE(preferred.deliveryHeaderValue(u"orders"_s, u"billing"_s, u"X-Api-Key"_s),
             u"from-the-store"_s);
}

void TestSecretFiles::inline_notMoved_keptWhenAnotherChangeIsSaved()
{
    // The desktop app saves the whole workspace after an edit; a value that could not be moved
    // (still held by the workspace it read) must not be lost by the save of another change.
    Workspace workspace = Workspace::fromJson(handEditedWorkspace(), m_workspaceFile).value();
    workspace.settings.probationThreshold = 9;
    QVERIFY(WorkspaceFolder::save(m_directory.path(), workspace).hasValue());
    const QByteArray saved = readAll(m_workspaceFile);
    QVERIFY(saved.contains(ApiKey.toUtf8()));
    QVERIFY(saved.contains(TokenValue.toUtf8()));
    const Expected<Workspace> reread = Workspace::fromJson(saved, m_workspaceFile);
    QVERIFY2(reread, qPrintable(reread.error()));
    QCOMPARE(reread->settings.probationThreshold, 9);
    QCOMPARE(InlineSecrets::find(reread.value()).size(), 2);

    // Moved (the workspace forgets the values): a save writes none, and an export never does.
    InlineSecrets::clearValues(workspace);
    QVERIFY(WorkspaceFolder::save(m_directory.path(), workspace).hasValue());
    QVERIFY(!Testing::containsSecret(readAll(m_workspaceFile), ApiKey));
    const Workspace withValues
        = Workspace::fromJson(handEditedWorkspace(), m_workspaceFile).value();
    const QByteArray exported
        = QJsonDocument(eventSubscriptionToArm(withValues.topics.at(0).eventSubscriptions.at(0)))
              .toJson();
    QVERIFY(!Testing::containsSecret(exported, ApiKey));
}

void TestSecretFiles::maskedUrl_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("masked");
    QTest::newRow("function key") << u"https://fn.example/api/hook?code=abc%2Bdef%3D%3D"_s
                                  << u"https://fn.example/api/hook?code=***"_s;
    QTest::newRow("every value") << u"https://h.example/p?sig=s1&se=2030&clientId=default"_s
                                 << u"https://h.example/p?sig=***&se=***&clientId=***"_s;
    QTest::newRow("password, fragment")
        << u"https://user:pa55@h.example/p#frag"_s << u"https://user:***@h.example/p"_s;
    QTest::newRow("nothing to hide")
        << u"http://127.0.0.1:5170/receivers/demo"_s << u"http://127.0.0.1:5170/receivers/demo"_s;
}

void TestSecretFiles::maskedUrl()
{
    QFETCH(QString, url);
    QFETCH(QString, masked);
    QCOMPARE(SecretMasking::maskedUrl(QUrl(url)), masked);
}

void TestSecretFiles::redactUrlSecrets_inMessages()
{
    const QUrl url(u"https://fn.example/api/hook?code=abc%2Bdef%3D%3D&x=1"_s);
    // Qt quotes URLs decoded or encoded; either way the key goes.
    const QString decoded = SecretMasking::redactUrlSecrets(
        u"Error transferring https://fn.example/api/hook?code=abc+def==&x=1 - server replied: Forbidden"_s,
        url);
    QVERIFY2(!decoded.contains(u"abc+def=="_s), qPrintable(decoded));
    const QString encoded = SecretMasking::redactUrlSecrets(
        u"Error transferring https://fn.example/api/hook?code=abc%2Bdef%3D%3D&x=1 - server replied: Forbidden"_s,
        url);
    QCOMPARE(
        encoded,
        u"Error transferring https://fn.example/api/hook?code=***&x=*** - server replied: Forbidden"_s);
    // A one-character value is not hunted for in free text.
    QCOMPARE(SecretMasking::redactUrlSecrets(u"HTTP 401"_s, url), u"HTTP 401"_s);
    QCOMPARE(SecretMasking::redactUrlSecrets(u"text"_s, QUrl(u"http://h.example/p"_s)), u"text"_s);
}

void TestSecretFiles::credentialHeaders()
{
    for (const char *name :
         {"Authorization", "authorization", "Proxy-Authorization", "Cookie", "Set-Cookie",
          "aeg-sas-key", "AEG-SAS-TOKEN", "x-functions-key", "Ocp-Apim-Subscription-Key"})
        QVERIFY2(SecretMasking::isCredentialHeader(name), name);
    for (const char *name : {"aeg-event-type", "Content-Type", "X-Tenant", "aeg-delivery-count"})
        QVERIFY2(!SecretMasking::isCredentialHeader(name), name);
}

QTEST_GUILESS_MAIN(TestSecretFiles)
#include "tst_secretfiles.moc"
