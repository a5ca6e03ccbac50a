// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// provisioning.json (ProvisioningFile): the endpoint validation state kept across restarts. What
// save() writes, load() reads back unchanged; a file that does not hold what save() writes is
// refused with a message naming the field, never read into a wrong value. An endpoint URL's key
// ("?code=") never reaches the file, which is readable only by its owner (0600).

#include "SecretScan.h"

#include "workspace/ProvisioningFile.h"

#include <QFile>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

#ifdef Q_OS_UNIX
#include <sys/stat.h>
#endif

using namespace Qt::StringLiterals;
using namespace EventDesk;

class ProvisioningFileTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void savedRecords_loadUnchanged();
    void missingFile_noRecords();
    void expiresMs_beyondWholeMilliseconds_refused_data();
    void expiresMs_beyondWholeMilliseconds_refused();
    void expiresMs_negative_readAsNone();
    void endpointKey_neverWritten_urlMaskedAndFileOwnerOnly();
    void storedFingerprint_changesWithTheKeyAlone();
    void olderFile_withKeyInUrl_rewrittenAtLoad();
    void readOnlyAccess_neverRewrites();
};

namespace {

const QString FunctionKey = u"Zk3v9QpL-fUnCtIoN-kEy_0123456789abcdef=="_s;
const QString FunctionUrl
    = u"https://orders-fn.example/api/hook?code="_s + FunctionKey + u"&clientId=default"_s;

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// The mode bits of a file (Unix), e.g. 0600.
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

} // namespace

void ProvisioningFileTest::savedRecords_loadUnchanged()
{
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    ProvisioningFile file(ProvisioningFile::defaultPath(directory.path()));
    const QList<ProvisioningRecord> records = {
        {u"orders"_s, u"orders-hook"_s, u"https://h.invalid/api|EventGridSchema"_s,
         ProvisioningState::AwaitingManualActionValidation, u"512d38b6"_s, 1'714'557'600'000,
         u"visit the validation URL"_s, u"*"_s},
        {u"orders"_s, u"other"_s, QString(), ProvisioningState::Succeeded, QString(), 0, QString(),
         QString()},
    };
    QVERIFY(file.save(records).hasValue());
    const Expected<QList<ProvisioningRecord>> loaded = file.load();
    QVERIFY2(loaded.hasValue(), qPrintable(loaded.error()));
    // Fingerprints come back in the form they are kept in, which the engine compares with.
    QList<ProvisioningRecord> expected = records;
    for (ProvisioningRecord &record : expected)
        record.fingerprint = file.storedFingerprint(record.fingerprint);
    QCOMPARE(loaded.value(), expected);
    QVERIFY2(loaded->front().fingerprint.startsWith(
                 u"https://h.invalid/api|EventGridSchema|hmac-sha256:"_s),
             qPrintable(loaded->front().fingerprint));

    // Read by another instance (the next start), the file's own hash key is used.
    ProvisioningFile again(file.path());
    QCOMPARE(again.load().value(), expected);
    QCOMPARE(again.storedFingerprint(records.front().fingerprint), expected.front().fingerprint);
}

void ProvisioningFileTest::missingFile_noRecords()
{
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    ProvisioningFile file(ProvisioningFile::defaultPath(directory.path()));
    const Expected<QList<ProvisioningRecord>> loaded = file.load();
    QVERIFY(loaded.hasValue());
    QVERIFY(loaded->isEmpty());
}

void ProvisioningFileTest::expiresMs_beyondWholeMilliseconds_refused_data()
{
    QTest::addColumn<QByteArray>("expiresMs");
    // Found by fuzz_workspace: 1e300 was converted to a qint64, which is undefined behaviour.
    QTest::newRow("far beyond qint64") << QByteArray("1e300");
    QTest::newRow("far below qint64") << QByteArray("-1e300");
    QTest::newRow("just beyond 2^53") << QByteArray("9007199254740994");
    QTest::newRow("a string") << QByteArray("\"1714557600000\"");
    QTest::newRow("an object") << QByteArray("{}");
}

void ProvisioningFileTest::expiresMs_beyondWholeMilliseconds_refused()
{
    QFETCH(QByteArray, expiresMs);
    const QByteArray json = R"({"subscriptions":[{"topic":"t","subscription":"s",)"
                            R"("provisioningState":"AwaitingManualActionValidation","expiresMs":)"
        + expiresMs + "}]}";
    ProvisioningFile file(u"provisioning.json"_s);
    const Expected<QList<ProvisioningRecord>> loaded = file.fromJson(json, u"provisioning.json"_s);
    QVERIFY(!loaded.hasValue());
    QVERIFY2(loaded.error().startsWith(u"provisioning.json: subscriptions[0].expiresMs: "_s),
             qPrintable(loaded.error()));
}

void ProvisioningFileTest::expiresMs_negative_readAsNone()
{
    // save() writes no expiry for 0 or less; reading a negative one as 0 keeps load and save
    // consistent (found by fuzz_workspace's read-save-read check).
    ProvisioningFile file(u"provisioning.json"_s);
    const Expected<QList<ProvisioningRecord>> loaded
        = file.fromJson(R"({"subscriptions":[{"provisioningState":"Failed","expiresMs":-5}]})",
                        u"provisioning.json"_s);
    QVERIFY2(loaded.hasValue(), qPrintable(loaded.error()));
    QCOMPARE(loaded->size(), 1);
    QCOMPARE(loaded->front().expiresMs, 0);
    const Expected<QList<ProvisioningRecord>> reloaded
        = file.fromJson(file.toJson(loaded.value()), u"provisioning.json"_s);
    QVERIFY(reloaded.hasValue());
    QCOMPARE(reloaded.value(), loaded.value());
}

void ProvisioningFileTest::endpointKey_neverWritten_urlMaskedAndFileOwnerOnly()
{
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    const QString path = ProvisioningFile::defaultPath(directory.path());
#ifdef Q_OS_UNIX
    // 0600 whatever the umask: with none at all, a file would otherwise be created 0666.
    const mode_t previousMask = ::umask(0);
    const auto restoreMask = qScopeGuard([previousMask] { ::umask(previousMask); });
#endif
    ProvisioningFile file(path);
    // Qt's transport errors quote the URL; an unreachable endpoint's message keeps them.
    const ProvisioningRecord record {u"orders"_s,
                                     u"function"_s,
                                     FunctionUrl + u"|EventGridSchema"_s,
                                     ProvisioningState::Failed,
                                     QString(),
                                     0,
                                     u"Error transferring "_s + FunctionUrl
                                         + u" - server replied: Forbidden"_s,
                                     QString()};
    QVERIFY(file.save({record}).hasValue());

    const QByteArray written = readAll(path);
    QVERIFY2(!Testing::containsSecret(written, FunctionKey), written.constData());
    QVERIFY2(written.contains("https://orders-fn.example/api/"
                              "hook?code=***&clientId=***|EventGridSchema|hmac-sha256:"),
             written.constData());
    QVERIFY2(written.contains(
                 "Error transferring https://orders-fn.example/api/hook?code=***&clientId=*** - "
                 "server replied: Forbidden"),
             written.constData());
#ifdef Q_OS_UNIX
    QCOMPARE(modeOf(path), 0600u);
    // A file made readable by others is narrowed again by the next save.
    QVERIFY(QFile::setPermissions(path,
                                  QFileDevice::ReadOwner | QFileDevice::WriteOwner
                                      | QFileDevice::ReadGroup | QFileDevice::ReadOther));
    QCOMPARE(modeOf(path), 0644u);
    QVERIFY(file.save({record}).hasValue());
    QCOMPARE(modeOf(path), 0600u);
#endif

    const Expected<QList<ProvisioningRecord>> loaded = ProvisioningFile(path).load();
    QVERIFY2(loaded.hasValue(), qPrintable(loaded.error()));
    QCOMPARE(loaded->size(), 1);
    QCOMPARE(loaded->front().fingerprint, file.storedFingerprint(record.fingerprint));
    QVERIFY(!loaded->front().message.contains(FunctionKey));
}

void ProvisioningFileTest::storedFingerprint_changesWithTheKeyAlone()
{
    const QByteArray key(32, 'k');
    const QString first
        = ProvisioningFile::storedFingerprint(FunctionUrl + u"|EventGridSchema"_s, key);
    QVERIFY(!first.contains(FunctionKey));
    // Stable: the same endpoint is recognised after a restart.
    QCOMPARE(ProvisioningFile::storedFingerprint(FunctionUrl + u"|EventGridSchema"_s, key), first);
    // Already stored: unchanged (a record read back is not hashed twice).
    QCOMPARE(ProvisioningFile::storedFingerprint(first, key), first);
    QCOMPARE(ProvisioningFile::storedFingerprint(QString(), key), QString());

    // Only the function key differs: the masked URLs are equal, the fingerprints are not.
    QString otherUrl = FunctionUrl;
    otherUrl.replace(FunctionKey, u"AnotherKey-0123456789"_s);
    const QString second
        = ProvisioningFile::storedFingerprint(otherUrl + u"|EventGridSchema"_s, key);
    QCOMPARE(second.section(u'|', 0, 1), first.section(u'|', 0, 1));
    QVERIFY(second != first);
    // Another schema, another file's key: other fingerprints.
    QVERIFY(ProvisioningFile::storedFingerprint(FunctionUrl + u"|CloudEventSchemaV1_0"_s, key)
            != first);
    QVERIFY(ProvisioningFile::storedFingerprint(FunctionUrl + u"|EventGridSchema"_s,
                                                QByteArray(32, 'x'))
            != first);
}

void ProvisioningFileTest::olderFile_withKeyInUrl_rewrittenAtLoad()
{
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    const QString path = ProvisioningFile::defaultPath(directory.path());
    // As an earlier EventDesk wrote it: the endpoint's URL as it is, no hash key, mode 0644.
    const QByteArray older = R"({"subscriptions":[{"topic":"orders","subscription":"function",)"
                             R"("validated":")"
        + FunctionUrl.toUtf8()
        + R"(|EventGridSchema","provisioningState":"Succeeded","message":"validated"}]})";
    {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(older);
    }
    QVERIFY(QFile::setPermissions(path,
                                  QFileDevice::ReadOwner | QFileDevice::WriteOwner
                                      | QFileDevice::ReadGroup | QFileDevice::ReadOther));

    ProvisioningFile file(path);
    const Expected<QList<ProvisioningRecord>> loaded = file.load();
    QVERIFY2(loaded.hasValue(), qPrintable(loaded.error()));
    QCOMPARE(loaded->size(), 1);
    // Still recognised: the engine's fingerprint of the same endpoint matches, no new handshake.
    QCOMPARE(loaded->front().fingerprint,
             file.storedFingerprint(FunctionUrl + u"|EventGridSchema"_s));
    QCOMPARE(loaded->front().state, ProvisioningState::Succeeded);
    const QByteArray rewritten = readAll(path);
    QVERIFY2(!Testing::containsSecret(rewritten, FunctionKey), rewritten.constData());
    QVERIFY(rewritten.contains("fingerprintKey"));
#ifdef Q_OS_UNIX
    QCOMPARE(modeOf(path), 0600u);
#endif
    // The next start reads the same key back and recognises the endpoint too.
    ProvisioningFile next(path);
    QCOMPARE(next.load().value(), loaded.value());
    QCOMPARE(next.storedFingerprint(FunctionUrl + u"|EventGridSchema"_s),
             loaded->front().fingerprint);
}

void ProvisioningFileTest::readOnlyAccess_neverRewrites()
{
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    const QString path = ProvisioningFile::defaultPath(directory.path());
    const QByteArray older = R"({"subscriptions":[{"topic":"orders","subscription":"function",)"
                             R"("validated":")"
        + FunctionUrl.toUtf8() + R"(|EventGridSchema","provisioningState":"Succeeded"}]})";
    {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(older);
    }
    // A read-only monitor reads another engine's file: it reads, it does not write.
    ProvisioningFile monitor(path, ProvisioningFile::Access::ReadOnly);
    const Expected<QList<ProvisioningRecord>> loaded = monitor.load();
    QVERIFY2(loaded.hasValue(), qPrintable(loaded.error()));
    QCOMPARE(loaded->size(), 1);
    QVERIFY(!loaded->front().fingerprint.contains(FunctionKey));
    QCOMPARE(readAll(path), older);
}

QTEST_GUILESS_MAIN(ProvisioningFileTest)
#include "tst_provisioningfile.moc"
