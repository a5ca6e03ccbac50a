// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// Secrets stay out of plain files, with eventdeskd as it runs (docs/security.md "Secrets stay off
// the disk"): a webhook URL's key ("?code=") never reaches provisioning.json, which is 0600 and
// still recognises the endpoint after a restart, while a new key validates it again; a secret
// header value written into workspace.json is moved into the secret store (here the opt-in secrets
// file) and out of workspace.json, or - with nowhere to move it - left where it is with an error
// logged; a secrets file others may read stops start-up. Loopback only: the webhook is a
// ScriptedReceiver.

#include "DaemonProcess.h"
#include "ScriptedReceiver.h"
#include "SecretScan.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

#ifdef Q_OS_UNIX
#include <sys/stat.h>
#endif

using namespace Qt::StringLiterals;
using namespace EventDesk::Testing;

namespace {

constexpr int WaitMs = 60'000;
const QString HeaderValue = u"hdr-Secret-7f3a9c21e4b84d5f"_s;

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

unsigned modeOf(const QString &path)
{
#ifdef Q_OS_UNIX
    struct stat status = {};
    if (::stat(QFile::encodeName(path).constData(), &status) != 0)
        return 0;
    return unsigned(status.st_mode) & 07777u;
#else
    Q_UNUSED(path)
    return 0;
#endif
}

// The provisioningState provisioning.json holds for the subscription (empty: none yet).
QString provisionedState(const QString &workspaceDir, const QString &subscription)
{
    const QJsonDocument document
        = QJsonDocument::fromJson(readAll(QDir(workspaceDir).filePath(u"provisioning.json"_s)));
    for (const QJsonValue &record : document[u"subscriptions"_s].toArray()) {
        if (record[u"subscription"_s].toString() == subscription)
            return record[u"provisioningState"_s].toString();
    }
    return {};
}

QJsonObject workspaceWith(const QUrl &endpoint, bool validation, const QJsonArray &headers = {})
{
    WorkspaceJson::SubscriptionOptions options;
    options.name = u"function"_s;
    options.endpointUrl = endpoint;
    options.validation = validation;
    options.deliveryAttributeMappings = headers;
    return WorkspaceJson::workspace(
        {WorkspaceJson::topic(u"orders"_s, {WorkspaceJson::subscription(options)})});
}

QJsonArray secretHeaderWithValue()
{
    return {QJsonObject {
        {u"name"_s, u"X-Api-Key"_s},
        {u"type"_s, u"Static"_s},
        {u"properties"_s, QJsonObject {{u"isSecret"_s, true}, {u"value"_s, HeaderValue}}}}};
}

} // namespace

class DaemonSecretFilesTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void provisioningFile_noEndpointKey_ownerOnly_newKeyValidatesAgain();
    void inlineHeaderSecret_movedToSecretsFile();
    void inlineHeaderSecret_nowhereToMove_keptAndLogged();
    void secretsFile_readableByOthers_refusedAtStart();
};

void DaemonSecretFilesTest::provisioningFile_noEndpointKey_ownerOnly_newKeyValidatesAgain()
{
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    ScriptedReceiver receiver;
    QVERIFY(receiver.listen());
    const QString firstKey = u"FnKey-aZ09_firstKeyOf40chars-0123456789=="_s;
    QUrl endpoint = receiver.url(u"/api/orders"_s);
    endpoint.setQuery(u"code="_s + QString::fromLatin1(QUrl::toPercentEncoding(firstKey)));
    QVERIFY(WorkspaceJson::write(directory.path(), workspaceWith(endpoint, true)));
    const QString provisioning = QDir(directory.path()).filePath(u"provisioning.json"_s);

    DaemonProcess daemon(directory.path());
    daemon.setEnvironmentVariable(u"QT_LOGGING_RULES"_s, u"eventdesk.*=true"_s); // log everything
    daemon.setExtraArguments({u"--secret-store"_s, u"none"_s});
    QVERIFY2(daemon.start(), qPrintable(daemon.standardError()));
    QTRY_COMPARE_WITH_TIMEOUT(provisionedState(directory.path(), u"function"_s), u"Succeeded"_s,
                              WaitMs);
    QCOMPARE(receiver.validationRequests().size(), 1);
    QVERIFY(receiver.validationRequests().constFirst().path.contains("code="));
    QVERIFY(daemon.terminate());

    const QByteArray written = readAll(provisioning);
    QVERIFY2(!containsSecret(written, firstKey), written.constData());
    QVERIFY2(written.contains("/api/orders?code=***|EventGridSchema|hmac-sha256:"),
             written.constData());
#ifdef Q_OS_UNIX
    QCOMPARE(modeOf(provisioning), 0600u);
#endif
    // Nor does the key reach the log, at debug level, nor any file but workspace.json, its source.
    QVERIFY2(!containsSecret(daemon.standardError().toUtf8(), firstKey),
             qPrintable(daemon.standardError()));
    QCOMPARE(filesContaining(directory.path(), firstKey),
             QStringList {QDir(directory.path()).filePath(u"workspace.json"_s)});

    // Same URL: recognised, no second handshake.
    QVERIFY2(daemon.start(), qPrintable(daemon.standardError()));
    QCOMPARE(daemon.publish(u"orders"_s, eventBatch({u"e1"_s})).status, 200);
    QTRY_COMPARE_WITH_TIMEOUT(receiver.requests().size(), 1, WaitMs);
    QCOMPARE(receiver.validationRequests().size(), 1);
    QVERIFY(daemon.terminate());

    // A new key, the masked URL unchanged: validated again.
    const QString secondKey = u"FnKey-aZ09_secondKeyOf40chars-987654321=="_s;
    endpoint.setQuery(u"code="_s + QString::fromLatin1(QUrl::toPercentEncoding(secondKey)));
    QVERIFY(WorkspaceJson::write(directory.path(), workspaceWith(endpoint, true)));
    QVERIFY2(daemon.start(), qPrintable(daemon.standardError()));
    QTRY_COMPARE_WITH_TIMEOUT(receiver.validationRequests().size(), 2, WaitMs);
    QVERIFY(receiver.validationRequests().at(1).path.contains(QUrl::toPercentEncoding(secondKey)));
    QTRY_COMPARE_WITH_TIMEOUT(provisionedState(directory.path(), u"function"_s), u"Succeeded"_s,
                              WaitMs);
    QVERIFY(daemon.terminate());
    const QByteArray rewritten = readAll(provisioning);
    QVERIFY(!containsSecret(rewritten, secondKey));
    QVERIFY(rewritten != written);
}

void DaemonSecretFilesTest::inlineHeaderSecret_movedToSecretsFile()
{
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    ScriptedReceiver receiver;
    QVERIFY(receiver.listen());
    QVERIFY(WorkspaceJson::write(directory.path(),
                                 workspaceWith(receiver.url(), false, secretHeaderWithValue())));
    const QString workspaceFile = QDir(directory.path()).filePath(u"workspace.json"_s);
    QVERIFY(readAll(workspaceFile).contains(HeaderValue.toUtf8()));
    const QString secretsFile = directory.filePath(u"config/secrets.json"_s);

    DaemonProcess daemon(directory.path());
    daemon.setExtraArguments({u"--secret-store"_s, u"file"_s, u"--secrets-file"_s, secretsFile});
    QVERIFY2(daemon.start(), qPrintable(daemon.standardError()));
    QVERIFY2(
        daemon.standardError().contains(u"moved 1 secret header value(s) from workspace.json"_s),
        qPrintable(daemon.standardError()));

    // Moved: in the secrets file (0600), no longer in workspace.json, and still sent.
    const QJsonDocument stored = QJsonDocument::fromJson(readAll(secretsFile));
    QCOMPARE(stored[u"header/orders/function/X-Api-Key"_s].toString(), HeaderValue);
#ifdef Q_OS_UNIX
    QCOMPARE(modeOf(secretsFile), 0600u);
#endif
    const QByteArray workspace = readAll(workspaceFile);
    QVERIFY2(!containsSecret(workspace, HeaderValue), workspace.constData());
    QVERIFY(workspace.contains("\"isSecret\": true"));
    QCOMPARE(daemon.publish(u"orders"_s, eventBatch({u"e1"_s})).status, 200);
    QTRY_COMPARE_WITH_TIMEOUT(receiver.requests().size(), 1, WaitMs);
    QCOMPARE(receiver.requests().constFirst().header("X-Api-Key"), HeaderValue.toUtf8());
    QVERIFY(daemon.terminate());
    QVERIFY(!containsSecret(daemon.standardError().toUtf8(), HeaderValue));

    // The next start finds nothing to move and reads the value from the store.
    QVERIFY2(daemon.start(), qPrintable(daemon.standardError()));
    QVERIFY(!daemon.standardError().contains(u"moved"_s));
    QCOMPARE(daemon.publish(u"orders"_s, eventBatch({u"e2"_s})).status, 200);
    QTRY_COMPARE_WITH_TIMEOUT(receiver.requests().size(), 2, WaitMs);
    QCOMPARE(receiver.requests().at(1).header("X-Api-Key"), HeaderValue.toUtf8());
    QVERIFY(daemon.terminate());
}

void DaemonSecretFilesTest::inlineHeaderSecret_nowhereToMove_keptAndLogged()
{
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    ScriptedReceiver receiver;
    QVERIFY(receiver.listen());
    QVERIFY(WorkspaceJson::write(directory.path(),
                                 workspaceWith(receiver.url(), false, secretHeaderWithValue())));
    const QString workspaceFile = QDir(directory.path()).filePath(u"workspace.json"_s);
    const QByteArray before = readAll(workspaceFile);

    // Environment variables only: nowhere to move the value to.
    DaemonProcess daemon(directory.path());
    daemon.setExtraArguments({u"--secret-store"_s, u"none"_s});
    QVERIFY2(daemon.start(), qPrintable(daemon.standardError()));
    const QString log = daemon.standardError();
    QVERIFY2(log.contains(u"workspace.json holds the value of secret header 'X-Api-Key' of "
                          u"subscription 'function' (topic 'orders') in plain text"_s)
                 && log.contains(u"environment variables cannot be written"_s)
                 && log.contains(u"EVENTDESK_HEADER_ORDERS_FUNCTION_X_API_KEY"_s),
             qPrintable(log));
    QVERIFY(!containsSecret(log.toUtf8(), HeaderValue));
    // The file is as it was, and the value is used meanwhile: nothing lost, nothing stops.
    QCOMPARE(readAll(workspaceFile), before);
    QCOMPARE(daemon.publish(u"orders"_s, eventBatch({u"e1"_s})).status, 200);
    QTRY_COMPARE_WITH_TIMEOUT(receiver.requests().size(), 1, WaitMs);
    QCOMPARE(receiver.requests().constFirst().header("X-Api-Key"), HeaderValue.toUtf8());
    QVERIFY(daemon.terminate());
}

void DaemonSecretFilesTest::secretsFile_readableByOthers_refusedAtStart()
{
#ifndef Q_OS_UNIX
    QSKIP("mode bits exist on Unix only");
#else
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    ScriptedReceiver receiver;
    QVERIFY(receiver.listen());
    const QJsonArray header
        = {QJsonObject {{u"name"_s, u"X-Api-Key"_s},
                        {u"type"_s, u"Static"_s},
                        {u"properties"_s, QJsonObject {{u"isSecret"_s, true}}}}};
    QVERIFY(WorkspaceJson::write(directory.path(), workspaceWith(receiver.url(), false, header)));
    const QString secretsFile = directory.filePath(u"secrets.json"_s);
    {
        QFile file(secretsFile);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"header/orders/function/X-Api-Key": "v"})");
    }
    QCOMPARE(::chmod(QFile::encodeName(secretsFile).constData(), 0644), 0);

    DaemonProcess daemon(directory.path());
    daemon.setExtraArguments({u"--secret-store"_s, u"file"_s, u"--secrets-file"_s, secretsFile});
    QVERIFY2(daemon.runExpectingExit(), qPrintable(daemon.standardError()));
    QCOMPARE(daemon.exitCode(), 2);
    const QString error = daemon.standardError();
    QVERIFY2(error.contains(secretsFile) && error.contains(u"0644"_s) && error.contains(u"0600"_s),
             qPrintable(error));
    QCOMPARE(modeOf(secretsFile), 0644u); // refused, not "fixed" behind the user's back
#endif
}

QTEST_GUILESS_MAIN(DaemonSecretFilesTest)
#include "tst_daemon_secretfiles.moc"
