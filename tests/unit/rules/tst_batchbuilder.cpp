// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "rules/BatchBuilder.h"

#include <QTest>

using namespace EventDesk;

namespace {
BatchPolicy batching(int maxEventsPerBatch, int preferredBatchSizeInKilobytes)
{
    BatchPolicy policy;
    policy.enabled = true;
    policy.maxEventsPerBatch = maxEventsPerBatch;
    policy.preferredBatchSizeInKilobytes = preferredBatchSizeInKilobytes;
    return policy;
}
} // namespace

class TestBatchBuilder final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void d4_arrayBytes_data();
    void d4_arrayBytes();
    void b1_batchingOffSendsOneEvent();
    void b3b4b5_nextBatchSize_data();
    void b3b4b5_nextBatchSize();
    void b4_drainingKeepsEveryEvent();
};

void TestBatchBuilder::d4_arrayBytes_data()
{
    QTest::addColumn<qsizetype>("sum");
    QTest::addColumn<qsizetype>("count");
    QTest::addColumn<qsizetype>("bytes");

    QTest::newRow("empty array") << qsizetype(0) << qsizetype(0) << qsizetype(2);
    QTest::newRow("one event") << qsizetype(10) << qsizetype(1) << qsizetype(12);
    QTest::newRow("two events") << qsizetype(20) << qsizetype(2) << qsizetype(23);
    QTest::newRow("three events") << qsizetype(30) << qsizetype(3) << qsizetype(34);
}

void TestBatchBuilder::d4_arrayBytes()
{
    QFETCH(qsizetype, sum);
    QFETCH(qsizetype, count);
    QFETCH(qsizetype, bytes);
    QCOMPARE(BatchBuilder::arrayBytes(sum, count), bytes);
}

void TestBatchBuilder::b1_batchingOffSendsOneEvent()
{
    BatchPolicy off; // SPEC B1: off by default
    QVERIFY(!off.enabled);
    QCOMPARE(BatchBuilder::nextBatchSize(off, {10, 10, 10}), qsizetype(1));
    off.maxEventsPerBatch = 100;
    QCOMPARE(BatchBuilder::nextBatchSize(off, {10, 10, 10}), qsizetype(1));
    QCOMPARE(BatchBuilder::nextBatchSize(off, {}), qsizetype(0));
}

void TestBatchBuilder::b3b4b5_nextBatchSize_data()
{
    QTest::addColumn<int>("maxEvents");
    QTest::addColumn<int>("preferredKilobytes");
    QTest::addColumn<QList<qsizetype>>("sizes");
    QTest::addColumn<qsizetype>("expected");

    QTest::newRow("nothing ready") << 10 << 64 << QList<qsizetype> {} << qsizetype(0);
    QTest::newRow("B3: max events caps")
        << 3 << 64 << QList<qsizetype> {100, 100, 100, 100, 100} << qsizetype(3);
    QTest::newRow("B3: max 1") << 1 << 64 << QList<qsizetype> {100, 100} << qsizetype(1);
    QTest::newRow("B5: fewer ready than max, no waiting")
        << 100 << 64 << QList<qsizetype> {10, 10} << qsizetype(2);
    QTest::newRow("B5: one ready") << 100 << 64 << QList<qsizetype> {10} << qsizetype(1);
    QTest::newRow("B4: size limit before max events")
        << 5000 << 1 << QList<qsizetype> {500, 500, 500} << qsizetype(2);
    QTest::newRow("B4: exactly 1024 bytes fits")
        << 5000 << 1 << QList<qsizetype> {511, 510} << qsizetype(2);
    QTest::newRow("B4: 1025 bytes does not")
        << 5000 << 1 << QList<qsizetype> {511, 511} << qsizetype(1);
    QTest::newRow("B4: larger than preferred goes alone")
        << 5000 << 1 << QList<qsizetype> {2000, 10, 10} << qsizetype(1);
    QTest::newRow("B4: large one ends the batch before it")
        << 5000 << 1 << QList<qsizetype> {10, 2000, 10} << qsizetype(1);
    QTest::newRow("B4: small ones before a large one")
        << 5000 << 1 << QList<qsizetype> {10, 10, 2000} << qsizetype(2);
    QTest::newRow("B4: one event filling the limit")
        << 5000 << 1 << QList<qsizetype> {1022, 1} << qsizetype(1);
    QTest::newRow("B4: 64 KB default")
        << 5000 << 64 << QList<qsizetype>(100, 1000) << qsizetype(65);
}

void TestBatchBuilder::b3b4b5_nextBatchSize()
{
    QFETCH(int, maxEvents);
    QFETCH(int, preferredKilobytes);
    QFETCH(QList<qsizetype>, sizes);
    QFETCH(qsizetype, expected);
    QCOMPARE(BatchBuilder::nextBatchSize(batching(maxEvents, preferredKilobytes), sizes), expected);
}

void TestBatchBuilder::b4_drainingKeepsEveryEvent()
{
    // Repeatedly taking the next batch sends every event exactly once, within the limits, with
    // oversized events alone (never dropped for their size).
    const BatchPolicy policy = batching(4, 2);
    const qsizetype limit = 2 * 1024;
    QList<qsizetype> pending = {100, 3000, 700, 700, 700, 5000, 10, 10, 10, 10, 10, 2046, 1};
    const qsizetype total = pending.size();
    qsizetype sent = 0;
    int batches = 0;
    while (!pending.isEmpty()) {
        const qsizetype count = BatchBuilder::nextBatchSize(policy, pending);
        QVERIFY(count >= 1);
        QVERIFY(count <= policy.maxEventsPerBatch);
        qsizetype sum = 0;
        for (qsizetype index = 0; index < count; ++index)
            sum += pending.at(index);
        if (count > 1)
            QVERIFY(BatchBuilder::arrayBytes(sum, count) <= limit);
        if (BatchBuilder::arrayBytes(pending.first(), 1) > limit)
            QCOMPARE(count, qsizetype(1));
        pending.remove(0, count);
        sent += count;
        ++batches;
    }
    QCOMPARE(sent, total);
    // [100] [3000] [700 700] [700] [5000] [10 10 10 10] [10] [2046] [1]
    QCOMPARE(batches, 9);
}

QTEST_GUILESS_MAIN(TestBatchBuilder)
#include "tst_batchbuilder.moc"
