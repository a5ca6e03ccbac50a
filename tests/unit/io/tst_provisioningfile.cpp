// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// provisioning.json (ProvisioningFile): the endpoint validation state kept across restarts. What
// save() writes, load() reads back unchanged; a file that does not hold what save() writes is
// refused with a message naming the field, never read into a wrong value.

#include "io/ProvisioningFile.h"

#include <QTemporaryDir>
#include <QTest>

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
};

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
    QCOMPARE(loaded.value(), records);
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
    const Expected<QList<ProvisioningRecord>> loaded
        = ProvisioningFile::fromJson(json, u"provisioning.json"_s);
    QVERIFY(!loaded.hasValue());
    QVERIFY2(loaded.error().startsWith(u"provisioning.json: subscriptions[0].expiresMs: "_s),
             qPrintable(loaded.error()));
}

void ProvisioningFileTest::expiresMs_negative_readAsNone()
{
    // save() writes no expiry for 0 or less; reading a negative one as 0 keeps load and save
    // consistent (found by fuzz_workspace's read-save-read check).
    const Expected<QList<ProvisioningRecord>> loaded = ProvisioningFile::fromJson(
        R"({"subscriptions":[{"provisioningState":"Failed","expiresMs":-5}]})",
        u"provisioning.json"_s);
    QVERIFY2(loaded.hasValue(), qPrintable(loaded.error()));
    QCOMPARE(loaded->size(), 1);
    QCOMPARE(loaded->front().expiresMs, 0);
    const Expected<QList<ProvisioningRecord>> reloaded
        = ProvisioningFile::fromJson(ProvisioningFile::toJson(loaded.value()), u"provisioning.json"_s);
    QVERIFY(reloaded.hasValue());
    QCOMPARE(reloaded.value(), loaded.value());
}

QTEST_GUILESS_MAIN(ProvisioningFileTest)
#include "tst_provisioningfile.moc"
