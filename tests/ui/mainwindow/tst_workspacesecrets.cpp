// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// Opening a workspace whose workspace.json holds secret header values (written there by hand):
// WorkspaceSecrets::open moves them to the secret store and out of the file before the engine
// starts; when the store cannot take them, the file stays as it is, the values serve this run and
// a warning says so.

#include "SecretScan.h"

#include "mainwindow/WorkspaceSecrets.h"
#include "model/Workspace.h"
#include "secrets/SecretCache.h"
#include "secrets/SecretStore.h"

#include <QDir>
#include <QFile>
#include <QLabel>
#include <QMessageBox>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace EventDesk;

namespace {

const QString HeaderValue = u"sk_live_T3BlbldpdGhvdXRLZXljaGFpbg"_s;

// (URLs escape "/" as "\/": moc takes "//" in a raw string for a comment.)
const QByteArray HandEdited = R"({
  "topics": [{
    "name": "orders",
    "eventSubscriptions": [{
      "name": "billing",
      "properties": {
        "destination": {"endpointType": "WebHook", "properties": {
          "endpointUrl": "https:\/\/example.test\/hook",
          "deliveryAttributeMappings": [
            {"name": "X-Api-Key", "type": "Static", "properties": {"isSecret": true, "value": "sk_live_T3BlbldpdGhvdXRLZXljaGFpbg"}}
          ]}}
      }
    }]
  }],
  "receivers": []
})";

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

class tst_WorkspaceSecrets final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void open_storeUnavailable_warnsAndKeepsFile_thenMovesWhenAvailable();
};

void tst_WorkspaceSecrets::open_storeUnavailable_warnsAndKeepsFile_thenMovesWhenAvailable()
{
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    const QString file = QDir(directory.path()).filePath(u"workspace.json"_s);
    {
        QFile out(file);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(HandEdited);
    }
    const Expected<Workspace> workspace = Workspace::fromJson(HandEdited, file);
    QVERIFY2(workspace, qPrintable(workspace.error()));

    Ui::WorkspaceSecrets secrets;
    auto *store = new MemorySecretStore(MemorySecretStore::Usage::ThisRunOnly);
    secrets.useStore(std::unique_ptr<SecretStore>(store));
    store->simulateUnavailable(u"the login keyring is locked"_s);
    QWidget window;
    window.resize(900, 600);
    window.show();

    // The store is unavailable: a warning, the file untouched, the value used for this run.
    bool opened = false;
    secrets.open(directory.path(), workspace.value(), &window, [&opened] { opened = true; });
    QTRY_VERIFY(opened);
    auto *warning = window.findChild<QMessageBox *>(u"inlineSecretsNotMoved"_s);
    QVERIFY(warning);
    QTRY_VERIFY(warning->isVisible());
    QVERIFY2(warning->text().contains(
                 u"secret header 'X-Api-Key' of subscription 'billing' (topic 'orders')"_s)
                 && warning->text().contains(u"the login keyring is locked"_s)
                 && warning->text().contains(u"left as it is"_s),
             qPrintable(warning->text()));
    QVERIFY(!warning->text().contains(HeaderValue));
    QDir().mkpath(u"/tmp/eventdesk-shots"_s);
    QVERIFY(warning->grab().save(u"/tmp/eventdesk-shots/inline-secrets-not-moved.png"_s));
    QCOMPARE(readAll(file), HandEdited);
    QCOMPARE(secrets.cache()->deliveryHeaderValue(u"orders"_s, u"billing"_s, u"X-Api-Key"_s),
             HeaderValue);
    warning->close();
    QTRY_VERIFY(!window.findChild<QMessageBox *>(u"inlineSecretsNotMoved"_s));

    // Available again (the user chose a store): opening moves it, and no warning follows.
    store->simulateAvailable();
    opened = false;
    secrets.open(directory.path(), workspace.value(), &window, [&opened] { opened = true; });
    QTRY_VERIFY(opened);
    QVERIFY(!window.findChild<QMessageBox *>(u"inlineSecretsNotMoved"_s));
    const QByteArray rewritten = readAll(file);
    QVERIFY2(!Testing::containsSecret(rewritten, HeaderValue), rewritten.constData());
    QVERIFY(rewritten.contains("X-Api-Key"));
    std::optional<QString> stored;
    store->read(
        u"header/orders/billing/X-Api-Key"_s,
        [&stored](const Expected<std::optional<QString>> &value) { stored = value.value(); });
    QCOMPARE(stored.value_or(QString()), HeaderValue);
    QCOMPARE(secrets.cache()->deliveryHeaderValue(u"orders"_s, u"billing"_s, u"X-Api-Key"_s),
             HeaderValue);
}

QTEST_MAIN(tst_WorkspaceSecrets)
#include "tst_workspacesecrets.moc"
