// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// DeadLettering with the local container folder (FolderDeadLetterSink) and with a scripted sink:
// due dead letters are written together as one blob of L7 records under an L6 name and indexed
// in the store; an unavailable destination is tried again and, after the give-up time, the event
// is dropped (L4); written dead letters are resubmitted with their event id and a fresh start.

#include "DeadLetterFiles.h"
#include "EngineUnitsFixture.h"

#include "UtcTime.h"
#include "deadletters/FolderDeadLetterSink.h"
#include "engine/DeadLettering.h"
#include "rules/DeadLetterFormatter.h"
#include "store/sqlite/SqliteReadOnlyDatabase.h"
#include "store/sqlite/SqliteStoreSchema.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QtTest>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using namespace EventDesk::Testing;

using Operation = FaultyDeliveryStore::Operation;

namespace {

// A destination that refuses every write, or holds each write open until the test completes it.
class ScriptedSink final : public DeadLetterSink
{
public:
    enum class Mode { Refuse, Hold };
    explicit ScriptedSink(Mode mode)
        : m_mode(mode)
    {
    }

    void write(const DeadLetterDestination &, const QString &blobName, const QByteArray &body,
               Callback done) override
    {
        writtenAt.append(clock ? clock->nowMs() : 0);
        blobNames.append(blobName);
        bodies.append(body);
        if (m_mode == Mode::Refuse)
            done(Error(u"the storage account is unreachable"_s));
        else
            held.append(std::move(done));
    }

    const Clock *clock = nullptr;
    QList<qint64> writtenAt;
    QStringList blobNames;
    QList<QByteArray> bodies;
    QList<Callback> held;

private:
    Mode m_mode;
};

// DeadLettering on the fixture's units, wired to the scheduler as the engine wires it, writing
// to the local container folder "deadletters" (created unless told otherwise) or to a given sink.
struct DeadLetterBench
{
    enum class Container { Created, Missing };

    explicit DeadLetterBench(DeadLetterSink *sink = nullptr,
                             Container container = Container::Created,
                             EngineOptions options = EngineUnitsFixture::withoutJitter())
        : f(options)
        , folder(f.directory.filePath(u"containers"_s))
        , deadLettering(f.state, f.signals, f.commits, f.scheduler, f.outcomes,
                        sink ? sink : &folder)
    {
        if (container == Container::Created)
            createContainer();
        f.wire({nullptr, &deadLettering, nullptr});
    }

    void createContainer()
    {
        if (!FolderDeadLetterSink::createContainer(folder.rootDirectory(), u"deadletters"_s))
            qFatal("cannot create the dead-letter container");
    }

    // count deliveries of the subscription that were just answered 400: SPEC R2 sends them to
    // the dead-letter destination, written the dead-letter delay after this attempt (L3).
    QList<Delivery *> answeredBadRequest(Subscription &subscription, int count,
                                         const QString &idPrefix = u"e"_s)
    {
        QList<Delivery *> deliveries = f.addDeliveries(subscription, count, idPrefix,
                                                       EngineUnitsFixture::Placement::InFlight);
        const StateLock lock(f.state.lock);
        for (Delivery *delivery : deliveries)
            f.outcomes.failed(subscription, *delivery, DeliveryOutcome::BadRequest, 400,
                              f.clock.nowMs());
        f.scheduler.reschedule(subscription, f.clock.nowMs());
        return deliveries;
    }

    QStringList blobFiles() const
    {
        QStringList files;
        QDirIterator it(folder.rootDirectory(), {u"*.json"_s}, QDir::Files,
                        QDirIterator::Subdirectories);
        while (it.hasNext())
            files.append(QDir(folder.rootDirectory()).relativeFilePath(it.next()));
        files.sort();
        return files;
    }

    QList<QJsonObject> records() const { return deadLetterRecordsBelow(folder.rootDirectory()); }

    EngineUnitsFixture f;
    FolderDeadLetterSink folder;
    DeadLettering deadLettering;
};

// A dead letter in the store's index, as a written one is kept there.
DeadLetterEntry indexEntry(const EngineUnitsFixture &f, const Subscription &subscription,
                           const QString &eventId)
{
    const StoredEvent event = f.event(subscription, eventId);
    DeadLetterEntry entry;
    entry.topic = subscription.topic;
    entry.subscription = subscription.config.name;
    entry.eventId = eventId;
    entry.reason = DeadLetterReason::MaxDeliveryAttemptsExceeded;
    entry.attempts = 30;
    entry.publishMs = T0 - 60 * Minute;
    entry.lastAttemptMs = T0 - Minute;
    entry.deadLetteredMs = T0;
    entry.blobPath = u"deadletters/"_s + subscription.config.name.toUpper() + u"/blob.json"_s;
    entry.record = event.body;
    entry.eventType = event.eventType;
    entry.subject = event.subject;
    entry.dataVersion = event.dataVersion;
    entry.eventTime = event.eventTime;
    entry.eventBody = event.body;
    return entry;
}

} // namespace

class tst_DeadLettering : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void l3l6l7_dueDeadLettersAreWrittenAsOneBlob();
    void l3_aBlobHoldsAtMostTheConfiguredNumberOfEvents();
    void l4_missingContainerIsTriedAgainUntilItExists();
    void l4_destinationUnavailableForTheGiveUpTimeDropsTheEvent();
    void attentionIsTheNextWriteOrNoneWhileOneIsUnderWay();
    void resubmit_keepsTheEventIdWithFreshAttemptsAndTimeToLive();
    void resubmit_ofAnUnknownSubscriptionKeepsTheDeadLetter();
    void resubmit_storeFailureKeepsTheDeadLetter();
    void resubmit_queryPagesThroughMoreThanOneThousand();
};

void tst_DeadLettering::l3l6l7_dueDeadLettersAreWrittenAsOneBlob()
{
    DeadLetterBench bench;
    bench.f.state.workspace.settings.deadLetterDelaySeconds = 300;
    Subscription &subscription = bench.f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s));
    bench.f.start();
    bench.answeredBadRequest(subscription, 3);
    QCOMPARE(bench.deadLettering.attentionMs(subscription), T0 + 5 * Minute);

    bench.f.advance(5 * Minute - 1);
    QVERIFY(bench.blobFiles().isEmpty());
    QCOMPARE(subscription.counters.deadLetterPending, 3);

    bench.f.advance(1);
    // SPEC L6: <container>/<SUBSCRIPTION>/<yyyy>/<M>/<d>/<H>/<uuid>.json, UTC hour of the write.
    const QDateTime writtenAt = utcDateTime(T0 + 5 * Minute);
    const QStringList files = bench.blobFiles();
    QCOMPARE(files.size(), 1); // written together (L3)
    const QRegularExpression expectedName(
        u"^deadletters/SUB-ONE/%1/%2/%3/%4/[0-9a-f-]{36}\\.json$"_s.arg(writtenAt.date().year())
            .arg(writtenAt.date().month())
            .arg(writtenAt.date().day())
            .arg(writtenAt.time().hour()));
    QVERIFY2(expectedName.match(files.at(0)).hasMatch(), qPrintable(files.at(0)));

    // SPEC L7: the event as delivered plus the dead-letter fields.
    const QList<QJsonObject> records = bench.records();
    QCOMPARE(records.size(), 3);
    QStringList ids;
    for (const QJsonObject &record : records) {
        ids.append(record[u"id"_s].toString());
        QCOMPARE(record[u"deadLetterReason"_s].toString(), u"UndeliverableDueToHttpBadRequest"_s);
        QCOMPARE(record[u"deliveryAttempts"_s].toInt(), 1);
        QCOMPARE(record[u"lastDeliveryOutcome"_s].toString(), u"BadRequest"_s);
        QCOMPARE(record[u"lastHttpStatusCode"_s].toInt(), 400);
        QCOMPARE(record[u"publishTime"_s].toString(), DeadLetterFormatter::formatTime(T0));
        QCOMPARE(record[u"lastDeliveryAttemptTime"_s].toString(),
                 DeadLetterFormatter::formatTime(T0));
        QCOMPARE(record[u"eventType"_s].toString(), u"Order.Created"_s);
        QCOMPARE(record[u"topic"_s].toString(), subscription.topicPath);
    }
    ids.sort();
    QCOMPARE(ids, (QStringList {u"e0"_s, u"e1"_s, u"e2"_s}));

    QCOMPARE(subscription.counters.deadLetterPending, 0);
    QCOMPARE(subscription.counters.deadLetteredByReason.value(
                 DeadLetterReason::UndeliverableDueToHttpBadRequest),
             quint64(3));
    QVERIFY(bench.f.state.deliveries.empty());
    QCOMPARE(bench.deadLettering.attentionMs(subscription), -1);

    // The index rows point at the blob and keep what a resubmit needs.
    QVERIFY(bench.f.flush().hasValue());
    QCOMPARE(bench.f.storedUnfinishedDeliveries(), 0);
    auto index = bench.f.sqlite.deadLetters(DeadLetterQuery {});
    QVERIFY(index.hasValue());
    QCOMPARE(index->size(), 3);
    for (const DeadLetterEntry &entry : index.value()) {
        QCOMPARE(entry.blobPath, files.at(0));
        QCOMPARE(entry.topic, u"orders"_s);
        QCOMPARE(entry.subscription, u"sub-one"_s);
        QCOMPARE(entry.reason, DeadLetterReason::UndeliverableDueToHttpBadRequest);
        QCOMPARE(entry.lastOutcome, DeliveryOutcome::BadRequest);
        QCOMPARE(entry.lastHttpStatus, 400);
        QCOMPARE(entry.attempts, 1);
        QCOMPARE(entry.publishMs, T0);
        QCOMPARE(entry.lastAttemptMs, T0);
        QCOMPARE(entry.deadLetteredMs, T0 + 5 * Minute);
        QCOMPARE(entry.eventBody, bench.f.event(subscription, entry.eventId).body);
        QCOMPARE(QJsonDocument::fromJson(entry.record)[u"id"_s].toString(), entry.eventId);
    }
}

void tst_DeadLettering::l3_aBlobHoldsAtMostTheConfiguredNumberOfEvents()
{
    EngineOptions options = EngineUnitsFixture::withoutJitter();
    options.deadLetterMaxEventsPerBlob = 2;
    DeadLetterBench bench(nullptr, DeadLetterBench::Container::Created, options);
    bench.f.state.workspace.settings.deadLetterDelaySeconds = 0;
    Subscription &subscription = bench.f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s));
    bench.f.start();
    bench.answeredBadRequest(subscription, 5);

    bench.f.settle();

    QList<qsizetype> blobSizes;
    for (const QString &file : bench.blobFiles()) {
        QFile blob(QDir(bench.folder.rootDirectory()).filePath(file));
        QVERIFY(blob.open(QIODevice::ReadOnly));
        blobSizes.append(QJsonDocument::fromJson(blob.readAll()).array().size());
    }
    std::sort(blobSizes.begin(), blobSizes.end());
    QCOMPARE(blobSizes, (QList<qsizetype> {1, 2, 2}));
    QCOMPARE(bench.records().size(), 5);
    QVERIFY(bench.f.state.deliveries.empty());
}

void tst_DeadLettering::l4_missingContainerIsTriedAgainUntilItExists()
{
    DeadLetterBench bench(nullptr, DeadLetterBench::Container::Missing);
    bench.f.state.workspace.settings.deadLetterDelaySeconds = 0;
    Subscription &subscription = bench.f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s));
    bench.f.start();
    Delivery &delivery = *bench.answeredBadRequest(subscription, 1).constFirst();
    const qint64 id = delivery.id;

    bench.f.settle();
    // SPEC L4: a container that does not exist is an unavailable destination: tried again.
    QVERIFY(bench.blobFiles().isEmpty());
    QCOMPARE(delivery.state, DeliveryState::DeadLetterPending);
    QCOMPARE(delivery.deadLetterUnavailableSinceMs, T0);
    QCOMPARE(delivery.dueMs, T0 + Minute); // EngineOptions::deadLetterRetryMs
    QCOMPARE(bench.deadLettering.attentionMs(subscription), T0 + Minute);
    QVERIFY(bench.f.flush().hasValue());
    const std::optional<DeliveryRecord> stored = bench.f.storedDelivery(id);
    QVERIFY(stored.has_value());
    QCOMPARE(stored->state, DeliveryState::DeadLetterPending);
    QCOMPARE(stored->deadLetterUnavailableSinceMs, T0);
    QCOMPARE(stored->dueMs, T0 + Minute);

    bench.f.advance(30 * Second);
    bench.createContainer();
    bench.f.advance(30 * Second - 1);
    QVERIFY(bench.blobFiles().isEmpty());
    bench.f.advance(1);
    QCOMPARE(bench.records().size(), 1);
    QVERIFY(!bench.f.delivery(id));
    QVERIFY(bench.f.flush().hasValue());
    QCOMPARE(bench.f.sqlite.deadLetters(DeadLetterQuery {})->at(0).deadLetteredMs, T0 + Minute);
}

void tst_DeadLettering::l4_destinationUnavailableForTheGiveUpTimeDropsTheEvent()
{
    ScriptedSink sink(ScriptedSink::Mode::Refuse);
    EngineOptions options = EngineUnitsFixture::withoutJitter();
    options.deadLetterRetryMs = 10 * Minute;
    options.deadLetterGiveUpMs = 2 * 60 * Minute;
    DeadLetterBench bench(&sink, DeadLetterBench::Container::Created, options);
    sink.clock = &bench.f.clock;
    bench.f.state.workspace.settings.deadLetterDelaySeconds = 0;
    Subscription &subscription = bench.f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s));
    bench.f.start();
    const qint64 id = bench.answeredBadRequest(subscription, 1).constFirst()->id;

    bench.f.advance(2 * 60 * Minute - 1);
    // Tried every deadLetterRetryMs...
    QCOMPARE(sink.writtenAt.size(), 12);
    QCOMPARE(sink.writtenAt.at(0), T0);
    QCOMPARE(sink.writtenAt.at(1), T0 + 10 * Minute);
    QCOMPARE(sink.writtenAt.last(), T0 + 110 * Minute);
    QVERIFY(bench.f.delivery(id));
    QCOMPARE(subscription.counters.deadLetterPending, 1);

    // ...until the destination has been unavailable for deadLetterGiveUpMs (L4: 4 h by default).
    bench.f.advance(1);
    QCOMPARE(sink.writtenAt.size(), 13);
    QVERIFY(!bench.f.delivery(id));
    QCOMPARE(subscription.counters.deadLetterPending, 0);
    QCOMPARE(subscription.counters.droppedByReason.value(
                 DeadLetterReason::DeadLetterDestinationUnavailable),
             quint64(1));
    QCOMPARE(bench.deadLettering.attentionMs(subscription), -1);
    QVERIFY(bench.f.flush().hasValue());
    auto dropped = bench.f.sqlite.droppedDeliveries(10);
    QCOMPARE(dropped->size(), 1);
    QCOMPARE(dropped->at(0).eventId, u"e0"_s);
    QCOMPARE(dropped->at(0).reason, DeadLetterReason::DeadLetterDestinationUnavailable);
    QCOMPARE(dropped->at(0).lastOutcome, DeliveryOutcome::BadRequest);
    QCOMPARE(bench.f.storedUnfinishedDeliveries(), 0);
}

void tst_DeadLettering::attentionIsTheNextWriteOrNoneWhileOneIsUnderWay()
{
    ScriptedSink sink(ScriptedSink::Mode::Hold);
    DeadLetterBench bench(&sink);
    sink.clock = &bench.f.clock;
    bench.f.state.workspace.settings.deadLetterDelaySeconds = 300;
    Subscription &subscription = bench.f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s));
    bench.f.start();
    QCOMPARE(bench.deadLettering.attentionMs(subscription), -1);

    Delivery &first = *bench.answeredBadRequest(subscription, 1, u"first"_s).constFirst();
    bench.f.advance(Minute);
    const qint64 secondId = bench.answeredBadRequest(subscription, 1, u"second"_s).constFirst()->id;
    bench.f.advance(Minute);
    const qint64 thirdId = bench.answeredBadRequest(subscription, 1, u"third"_s).constFirst()->id;
    QCOMPARE(bench.deadLettering.attentionMs(subscription), T0 + 5 * Minute);

    // The first leaves before its write (its subscription was deleted): its entry is stale.
    bench.f.outcomes.drop(&subscription, first, DeadLetterReason::SubscriptionDeleted,
                          bench.f.clock.nowMs());
    QCOMPARE(bench.deadLettering.attentionMs(subscription), T0 + 6 * Minute);

    bench.f.advanceTo(T0 + 6 * Minute);
    QCOMPARE(sink.writtenAt, QList<qint64> {T0 + 6 * Minute});
    // A write under way: nothing else is written until it is done, however much comes due.
    QCOMPARE(bench.deadLettering.attentionMs(subscription), -1);
    bench.f.advance(5 * Minute);
    QCOMPARE(sink.writtenAt.size(), 1);

    sink.held.takeFirst()(u"deadletters/SUB-ONE/held.json"_s);
    QVERIFY(!bench.f.delivery(secondId));
    QCOMPARE(bench.deadLettering.attentionMs(subscription), T0 + 7 * Minute);
    bench.f.settle(); // the third is overdue: written at once
    QCOMPARE(sink.writtenAt.size(), 2);
    QVERIFY(bench.f.delivery(thirdId));
}

void tst_DeadLettering::resubmit_keepsTheEventIdWithFreshAttemptsAndTimeToLive()
{
    DeadLetterBench bench;
    bench.f.state.workspace.settings.deadLetterDelaySeconds = 0;
    Subscription &subscription = bench.f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s));
    bench.f.start();
    bench.answeredBadRequest(subscription, 1);
    bench.f.settle();
    QVERIFY(bench.f.flush().hasValue());
    auto letters = bench.f.sqlite.deadLetters(DeadLetterQuery {});
    QCOMPARE(letters->size(), 1);
    const qint64 deadLetterId = letters->at(0).id;
    const QByteArray body = letters->at(0).eventBody;
    const quint64 matchedBefore = subscription.counters.matched;

    bench.f.advance(2 * 60 * Minute);
    const qint64 now = bench.f.clock.nowMs();
    ResubmitResult result;
    {
        const StateLock lock(bench.f.state.lock);
        result = bench.deadLettering.resubmit(QList<qint64> {deadLetterId});
    }

    QCOMPARE(result.resubmitted, 1);
    QVERIFY2(result.errors.isEmpty(), qPrintable(result.errors.join(u'\n')));
    QCOMPARE(bench.f.state.deliveries.size(), size_t(1));
    const Delivery &delivery = bench.f.state.deliveries.begin()->second;
    QVERIFY(delivery.event);
    QCOMPARE(delivery.event->id, u"e0"_s); // the event keeps its id
    QCOMPARE(delivery.event->body, body);
    QCOMPARE(delivery.state, DeliveryState::Pending);
    QCOMPARE(delivery.attempts, 0); // a fresh attempt count
    QCOMPARE(delivery.lastOutcome, DeliveryOutcome::Delivering);
    QCOMPARE(delivery.publishMs, now); // a fresh time to live
    QCOMPARE(delivery.dueMs, now);
    QCOMPARE(subscription.counters.backlog, 1);
    QCOMPARE(subscription.counters.matched, matchedBefore + 1);
    QCOMPARE(subscription.scheduledAtMs, now); // due at once
    QCOMPARE(bench.f.clock.alarmAtMs(), now);

    // Stored, and the index row removed, with a trace from the new delivery to the dead letter.
    QCOMPARE(bench.f.sqlite.countDeadLetters(DeadLetterQuery {}).value(), qint64(0));
    QCOMPARE(bench.f.store.calls(Operation::InsertResubmitted), 1);
    SqliteReadOnlyDatabase reader;
    QVERIFY(reader.open(bench.f.directory.filePath(u"eventdesk.db"_s)));
    QList<ResubmissionEntry> traces;
    QVERIFY(reader.select(
        resubmissionsOfEventSql(),
        [&traces](const SqliteStatement &row) { traces.append(readResubmission(row)); }, u"e0"_s));
    QCOMPARE(traces.size(), 1);
    QCOMPARE(traces.at(0).deadLetterId, deadLetterId);
    QCOMPARE(traces.at(0).deliveryId, delivery.id);
    QCOMPARE(traces.at(0).fromSubscription, u"sub-one"_s);
    QCOMPARE(traces.at(0).toSubscription, u"sub-one"_s);
    QCOMPARE(traces.at(0).route, ResubmitRoute::ToSubscription);
    QCOMPARE(traces.at(0).timeMs, now);
    const std::optional<DeliveryRecord> stored = bench.f.storedDelivery(delivery.id);
    QVERIFY(stored.has_value());
    QCOMPARE(stored->attempts, 0);
    QCOMPARE(stored->publishMs, now);
    const auto events = bench.f.sqlite.loadEvents({delivery.eventSeq});
    QCOMPARE(events->size(), 1);
    QCOMPARE(events->at(0).id, u"e0"_s);
    QCOMPARE(events->at(0).publishMs, now);
}

void tst_DeadLettering::resubmit_ofAnUnknownSubscriptionKeepsTheDeadLetter()
{
    DeadLetterBench bench;
    Subscription &subscription = bench.f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s));
    bench.f.start();
    StoreBatch batch;
    batch.deadLetters = {indexEntry(bench.f, subscription, u"e0"_s)};
    QVERIFY(bench.f.sqlite.commit(batch).hasValue());
    const qint64 deadLetterId = bench.f.sqlite.deadLetters(DeadLetterQuery {})->at(0).id;
    subscription.removed = true; // deleted since

    ResubmitResult result;
    {
        const StateLock lock(bench.f.state.lock);
        result = bench.deadLettering.resubmit(QList<qint64> {deadLetterId});
    }

    QCOMPARE(result.resubmitted, 0);
    QCOMPARE(result.errors.size(), 1);
    QVERIFY2(result.errors.at(0).contains(u"no longer exists"_s)
                 && result.errors.at(0).contains(u"e0"_s),
             qPrintable(result.errors.at(0)));
    QCOMPARE(bench.f.sqlite.countDeadLetters(DeadLetterQuery {}).value(), qint64(1));
    QVERIFY(bench.f.state.deliveries.empty());
}

void tst_DeadLettering::resubmit_storeFailureKeepsTheDeadLetter()
{
    DeadLetterBench bench;
    Subscription &subscription = bench.f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s));
    bench.f.start();
    StoreBatch batch;
    batch.deadLetters = {indexEntry(bench.f, subscription, u"e0"_s)};
    QVERIFY(bench.f.sqlite.commit(batch).hasValue());
    const qint64 deadLetterId = bench.f.sqlite.deadLetters(DeadLetterQuery {})->at(0).id;
    bench.f.store.failNext(Operation::InsertResubmitted, 1, u"database is locked"_s);

    ResubmitResult result;
    {
        const StateLock lock(bench.f.state.lock);
        result = bench.deadLettering.resubmit(QList<qint64> {deadLetterId});
    }

    // One transaction: nothing stored, so nothing removed.
    QCOMPARE(result.resubmitted, 0);
    QCOMPARE(result.errors, QStringList {u"database is locked"_s});
    QCOMPARE(bench.f.store.calls(Operation::InsertResubmitted), 1);
    QCOMPARE(bench.f.sqlite.countDeadLetters(DeadLetterQuery {}).value(), qint64(1));
    QVERIFY(bench.f.state.deliveries.empty());
    QCOMPARE(subscription.counters.backlog, 0);
}

void tst_DeadLettering::resubmit_queryPagesThroughMoreThanOneThousand()
{
    DeadLetterBench bench;
    Subscription &one = bench.f.addSubscription(EngineUnitsFixture::webhook(u"sub-one"_s));
    Subscription &two = bench.f.addSubscription(EngineUnitsFixture::webhook(u"sub-two"_s));
    Subscription &gone = bench.f.addSubscription(EngineUnitsFixture::webhook(u"sub-gone"_s));
    bench.f.start();
    // Interleaved, so that every page of 1000 mixes dead letters that can be resubmitted with
    // ones that cannot (their subscription is gone) and stay in the index.
    StoreBatch batch;
    for (int i = 0; i < 1205; ++i) {
        batch.deadLetters.append(indexEntry(bench.f, one, u"one-%1"_s.arg(i)));
        if (i < 1001)
            batch.deadLetters.append(indexEntry(bench.f, gone, u"gone-%1"_s.arg(i)));
        if (i < 7)
            batch.deadLetters.append(indexEntry(bench.f, two, u"two-%1"_s.arg(i)));
    }
    QVERIFY(bench.f.sqlite.commit(batch).hasValue());
    gone.removed = true;

    DeadLetterQuery onlyTwo;
    onlyTwo.subscription = u"sub-two"_s;
    ResubmitResult result;
    {
        const StateLock lock(bench.f.state.lock);
        result = bench.deadLettering.resubmit(onlyTwo);
    }
    QCOMPARE(result.resubmitted, 7);
    QVERIFY(result.errors.isEmpty());
    QCOMPARE(two.counters.backlog, 7);
    QCOMPARE(one.counters.backlog, 0);

    {
        const StateLock lock(bench.f.state.lock);
        result = bench.deadLettering.resubmit(DeadLetterQuery {});
    }
    QCOMPARE(result.resubmitted, 1205);
    QCOMPARE(result.errors.size(), 1001);
    QCOMPARE(one.counters.backlog, 1205);
    QCOMPARE(bench.f.state.deliveries.size(), size_t(1212));
    QCOMPARE(bench.f.sqlite.countDeadLetters(DeadLetterQuery {}).value(), qint64(1001));
    DeadLetterQuery onlyGone;
    onlyGone.subscription = u"sub-gone"_s;
    QCOMPARE(bench.f.sqlite.countDeadLetters(onlyGone).value(), qint64(1001));
    QCOMPARE(bench.f.storedUnfinishedDeliveries(), 1212);
}

QTEST_GUILESS_MAIN(tst_DeadLettering)
#include "tst_deadlettering.moc"
