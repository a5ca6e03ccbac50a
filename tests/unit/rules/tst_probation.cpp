// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "rules/ProbationTracker.h"

#include <QTest>

using namespace EventDesk;

namespace {
constexpr qint64 SecondMs = 1000;
constexpr qint64 MinuteMs = 60 * SecondMs;
constexpr qint64 HourMs = 60 * MinuteMs;
constexpr qint64 StartMs = 1597339094026;

// Records the same failure several times at one instant.
void failTimes(ProbationTracker &tracker, DeliveryOutcome outcome, int times, qint64 nowMs)
{
    for (int index = 0; index < times; ++index)
        tracker.recordFailure(outcome, nowMs);
}
} // namespace

class TestProbation final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void p1_durationTable_data();
    void p1_durationTable();
    void p2_defaultThreshold();
    void p2_configurableThreshold_data();
    void p2_configurableThreshold();
    void p2_successResetsCount();
    void p2_notCountedOutcomes_data();
    void p2_notCountedOutcomes();
    void p2_notCountedOutcomeDoesNotBreakTheRun();
    void p2_durationOfLastFailure();
    void p2_failureDuringProbationDoesNotExtend();
    void p2_successEndsProbation();
    void p3_dueAction_data();
    void p3_dueAction();
    void p3_probationLastsUntilItsEnd();
    void p4_halfOpenAllowsOneProbe();
    void p4_halfOpenSuccess();
    void p4_halfOpenFailureDoubles();
    void p4_doublingCappedAtFourHours();
    void p4_probeFailureNeverShorterThanItsOutcome();
    void p4_notCountedProbeOutcomeReleasesProbe();
    void p6_restore();
};

void TestProbation::p1_durationTable_data()
{
    QTest::addColumn<DeliveryOutcome>("outcome");
    QTest::addColumn<qint64>("durationMs");
    QTest::addColumn<bool>("counted");
    QTest::addColumn<bool>("noRetryClass");

    QTest::newRow("Busy") << DeliveryOutcome::Busy << 10 * SecondMs << true << false;
    QTest::newRow("NotFound") << DeliveryOutcome::NotFound << 5 * MinuteMs << true << false;
    QTest::newRow("SocketError") << DeliveryOutcome::SocketError << 30 * SecondMs << true << false;
    QTest::newRow("ResolutionError")
        << DeliveryOutcome::ResolutionError << 5 * MinuteMs << true << false;
    QTest::newRow("Disabled") << DeliveryOutcome::Disabled << 5 * MinuteMs << true << true;
    QTest::newRow("Full") << DeliveryOutcome::Full << 5 * MinuteMs << true << true;
    QTest::newRow("TimedOut") << DeliveryOutcome::TimedOut << 10 * SecondMs << true << false;
    QTest::newRow("Unauthorized") << DeliveryOutcome::Unauthorized << 5 * MinuteMs << true << true;
    QTest::newRow("Forbidden") << DeliveryOutcome::Forbidden << 5 * MinuteMs << true << true;
    QTest::newRow("InvalidAzureFunctionDestination")
        << DeliveryOutcome::InvalidAzureFunctionDestination << 10 * MinuteMs << true << true;
    QTest::newRow("GenericError as Busy (P2)")
        << DeliveryOutcome::GenericError << 10 * SecondMs << true << false;
    QTest::newRow("BadRequest") << DeliveryOutcome::BadRequest << qint64(0) << false << false;
    QTest::newRow("PayloadTooLarge")
        << DeliveryOutcome::PayloadTooLarge << qint64(0) << false << false;
    QTest::newRow("Canceled") << DeliveryOutcome::Canceled << qint64(0) << false << false;
    QTest::newRow("Aborted") << DeliveryOutcome::Aborted << qint64(0) << false << false;
    QTest::newRow("Delivered") << DeliveryOutcome::Delivered << qint64(0) << false << false;
    QTest::newRow("Delivering") << DeliveryOutcome::Delivering << qint64(0) << false << false;
    QTest::newRow("Probation") << DeliveryOutcome::Probation << qint64(0) << false << false;
}

void TestProbation::p1_durationTable()
{
    QFETCH(DeliveryOutcome, outcome);
    QFETCH(qint64, durationMs);
    QFETCH(bool, counted);
    QFETCH(bool, noRetryClass);

    QCOMPARE(ProbationTracker::probationDurationMs(outcome), durationMs);
    QCOMPARE(ProbationTracker::countsAsEndpointFailure(outcome), counted);
    QCOMPARE(ProbationTracker::isNoRetryClass(outcome), noRetryClass);

    // With threshold 1 a counted outcome starts probation for exactly its P1 duration.
    ProbationTracker tracker(1);
    QCOMPARE(tracker.recordFailure(outcome, StartMs), counted);
    if (counted) {
        QCOMPARE(tracker.state(), ProbationTracker::State::InProbation);
        QCOMPARE(tracker.untilMs(), StartMs + durationMs);
        QCOMPARE(tracker.currentDurationMs(), durationMs);
        QCOMPARE(tracker.cause(), outcome);
    } else {
        QCOMPARE(tracker.state(), ProbationTracker::State::Healthy);
    }
}

void TestProbation::p2_defaultThreshold()
{
    ProbationTracker tracker;
    QCOMPARE(tracker.threshold(), 10);
    for (int failure = 1; failure < 10; ++failure) {
        QVERIFY(!tracker.recordFailure(DeliveryOutcome::Busy, StartMs + failure));
        QCOMPARE(tracker.state(), ProbationTracker::State::Healthy);
        QCOMPARE(tracker.dueAction(), ProbationTracker::DueAction::Send);
    }
    QCOMPARE(tracker.consecutiveFailures(), 9);
    QVERIFY(tracker.recordFailure(DeliveryOutcome::Busy, StartMs + 10));
    QCOMPARE(tracker.state(), ProbationTracker::State::InProbation);
    QCOMPARE(tracker.consecutiveFailures(), 10);
}

void TestProbation::p2_configurableThreshold_data()
{
    QTest::addColumn<int>("requested");
    QTest::addColumn<int>("effective");

    QTest::newRow("1") << 1 << 1;
    QTest::newRow("3") << 3 << 3;
    QTest::newRow("100") << 100 << 100;
    QTest::newRow("0 held to 1") << 0 << 1;
    QTest::newRow("500 held to 100") << 500 << 100;
}

void TestProbation::p2_configurableThreshold()
{
    QFETCH(int, requested);
    QFETCH(int, effective);

    ProbationTracker tracker(requested);
    QCOMPARE(tracker.threshold(), effective);
    failTimes(tracker, DeliveryOutcome::SocketError, effective - 1, StartMs);
    QCOMPARE(tracker.state(), ProbationTracker::State::Healthy);
    QVERIFY(tracker.recordFailure(DeliveryOutcome::SocketError, StartMs));
    QCOMPARE(tracker.state(), ProbationTracker::State::InProbation);
}

void TestProbation::p2_successResetsCount()
{
    ProbationTracker tracker(3);
    failTimes(tracker, DeliveryOutcome::Busy, 2, StartMs);
    QCOMPARE(tracker.consecutiveFailures(), 2);
    tracker.recordSuccess();
    QCOMPARE(tracker.consecutiveFailures(), 0);
    failTimes(tracker, DeliveryOutcome::Busy, 2, StartMs);
    QCOMPARE(tracker.state(), ProbationTracker::State::Healthy);
    QVERIFY(tracker.recordFailure(DeliveryOutcome::Busy, StartMs));
    QCOMPARE(tracker.state(), ProbationTracker::State::InProbation);
}

void TestProbation::p2_notCountedOutcomes_data()
{
    QTest::addColumn<DeliveryOutcome>("outcome");
    QTest::newRow("BadRequest") << DeliveryOutcome::BadRequest;
    QTest::newRow("PayloadTooLarge") << DeliveryOutcome::PayloadTooLarge;
    QTest::newRow("Canceled") << DeliveryOutcome::Canceled;
    QTest::newRow("Aborted") << DeliveryOutcome::Aborted;
}

void TestProbation::p2_notCountedOutcomes()
{
    QFETCH(DeliveryOutcome, outcome);
    ProbationTracker tracker(1);
    for (int index = 0; index < 5; ++index)
        QVERIFY(!tracker.recordFailure(outcome, StartMs));
    QCOMPARE(tracker.consecutiveFailures(), 0);
    QCOMPARE(tracker.state(), ProbationTracker::State::Healthy);
}

void TestProbation::p2_notCountedOutcomeDoesNotBreakTheRun()
{
    // Decision: an event-is-bad outcome neither counts nor resets the run of endpoint failures.
    ProbationTracker tracker(3);
    tracker.recordFailure(DeliveryOutcome::Busy, StartMs);
    tracker.recordFailure(DeliveryOutcome::BadRequest, StartMs);
    tracker.recordFailure(DeliveryOutcome::Busy, StartMs);
    QCOMPARE(tracker.consecutiveFailures(), 2);
    QVERIFY(tracker.recordFailure(DeliveryOutcome::Busy, StartMs));
}

void TestProbation::p2_durationOfLastFailure()
{
    ProbationTracker tracker(3);
    tracker.recordFailure(DeliveryOutcome::Busy, StartMs);
    tracker.recordFailure(DeliveryOutcome::SocketError, StartMs + 1);
    QVERIFY(tracker.recordFailure(DeliveryOutcome::NotFound, StartMs + 2));
    QCOMPARE(tracker.cause(), DeliveryOutcome::NotFound);
    QCOMPARE(tracker.currentDurationMs(), 5 * MinuteMs);
    QCOMPARE(tracker.untilMs(), StartMs + 2 + 5 * MinuteMs);
}

void TestProbation::p2_failureDuringProbationDoesNotExtend()
{
    ProbationTracker tracker(1);
    QVERIFY(tracker.recordFailure(DeliveryOutcome::Busy, StartMs));
    // A request already in flight fails later, with a longer outcome.
    QVERIFY(!tracker.recordFailure(DeliveryOutcome::NotFound, StartMs + 5 * SecondMs));
    QCOMPARE(tracker.consecutiveFailures(), 2);
    QCOMPARE(tracker.state(), ProbationTracker::State::InProbation);
    QCOMPARE(tracker.cause(), DeliveryOutcome::Busy);
    QCOMPARE(tracker.untilMs(), StartMs + 10 * SecondMs);
    QCOMPARE(tracker.currentDurationMs(), 10 * SecondMs);
}

void TestProbation::p2_successEndsProbation()
{
    // A success anywhere (e.g. a late response to a request sent before probation) ends it.
    ProbationTracker tracker(1);
    tracker.recordFailure(DeliveryOutcome::Forbidden, StartMs);
    tracker.recordSuccess();
    QCOMPARE(tracker.state(), ProbationTracker::State::Healthy);
    QCOMPARE(tracker.consecutiveFailures(), 0);
    QCOMPARE(tracker.dueAction(), ProbationTracker::DueAction::Send);
}

void TestProbation::p3_dueAction_data()
{
    QTest::addColumn<DeliveryOutcome>("cause");
    QTest::addColumn<ProbationTracker::DueAction>("action");

    const auto defer = ProbationTracker::DueAction::Defer;
    const auto deadLetter = ProbationTracker::DueAction::DeadLetterWithoutAttempt;
    QTest::newRow("Busy") << DeliveryOutcome::Busy << defer;
    QTest::newRow("TimedOut") << DeliveryOutcome::TimedOut << defer;
    QTest::newRow("SocketError") << DeliveryOutcome::SocketError << defer;
    QTest::newRow("ResolutionError") << DeliveryOutcome::ResolutionError << defer;
    QTest::newRow("NotFound") << DeliveryOutcome::NotFound << defer;
    QTest::newRow("GenericError") << DeliveryOutcome::GenericError << defer;
    QTest::newRow("Unauthorized") << DeliveryOutcome::Unauthorized << deadLetter;
    QTest::newRow("Forbidden") << DeliveryOutcome::Forbidden << deadLetter;
    QTest::newRow("Disabled") << DeliveryOutcome::Disabled << deadLetter;
    QTest::newRow("Full") << DeliveryOutcome::Full << deadLetter;
    QTest::newRow("InvalidAzureFunctionDestination")
        << DeliveryOutcome::InvalidAzureFunctionDestination << deadLetter;
}

void TestProbation::p3_dueAction()
{
    QFETCH(DeliveryOutcome, cause);
    QFETCH(ProbationTracker::DueAction, action);

    ProbationTracker tracker(1);
    QCOMPARE(tracker.dueAction(), ProbationTracker::DueAction::Send);
    tracker.recordFailure(cause, StartMs);
    tracker.update(StartMs + 1);
    QCOMPARE(tracker.dueAction(), action);
}

void TestProbation::p3_probationLastsUntilItsEnd()
{
    ProbationTracker tracker(1);
    tracker.recordFailure(DeliveryOutcome::SocketError, StartMs);
    const qint64 untilMs = StartMs + 30 * SecondMs;
    tracker.update(untilMs - 1);
    QCOMPARE(tracker.state(), ProbationTracker::State::InProbation);
    QCOMPARE(tracker.dueAction(), ProbationTracker::DueAction::Defer);
    tracker.update(untilMs);
    QCOMPARE(tracker.state(), ProbationTracker::State::HalfOpen);
}

void TestProbation::p4_halfOpenAllowsOneProbe()
{
    ProbationTracker tracker(1);
    tracker.recordFailure(DeliveryOutcome::Unauthorized, StartMs);
    tracker.update(StartMs + 5 * MinuteMs);
    QCOMPARE(tracker.state(), ProbationTracker::State::HalfOpen);
    // Even for a no-retry-class cause the half-open trial is sent.
    QCOMPARE(tracker.dueAction(), ProbationTracker::DueAction::Send);
    tracker.beginProbe();
    QVERIFY(tracker.isProbeInFlight());
    QCOMPARE(tracker.dueAction(), ProbationTracker::DueAction::Defer);
    tracker.probeAbandoned();
    QVERIFY(!tracker.isProbeInFlight());
    QCOMPARE(tracker.dueAction(), ProbationTracker::DueAction::Send);
}

void TestProbation::p4_halfOpenSuccess()
{
    ProbationTracker tracker(2);
    failTimes(tracker, DeliveryOutcome::Busy, 2, StartMs);
    tracker.update(StartMs + 10 * SecondMs);
    tracker.beginProbe();
    tracker.recordSuccess();
    QCOMPARE(tracker.state(), ProbationTracker::State::Healthy);
    QCOMPARE(tracker.consecutiveFailures(), 0);
    QCOMPARE(tracker.currentDurationMs(), qint64(0));
    QVERIFY(!tracker.isProbeInFlight());
    QCOMPARE(tracker.dueAction(), ProbationTracker::DueAction::Send);
    // Back to the full threshold and the P1 duration, not a doubled one.
    QVERIFY(!tracker.recordFailure(DeliveryOutcome::Busy, StartMs + 20 * SecondMs));
    QVERIFY(tracker.recordFailure(DeliveryOutcome::Busy, StartMs + 20 * SecondMs));
    QCOMPARE(tracker.currentDurationMs(), 10 * SecondMs);
}

void TestProbation::p4_halfOpenFailureDoubles()
{
    ProbationTracker tracker(1);
    qint64 nowMs = StartMs;
    tracker.recordFailure(DeliveryOutcome::Busy, nowMs);
    QList<qint64> durations;
    for (int probe = 0; probe < 4; ++probe) {
        nowMs = tracker.untilMs();
        tracker.update(nowMs);
        QCOMPARE(tracker.state(), ProbationTracker::State::HalfOpen);
        tracker.beginProbe();
        QVERIFY(tracker.recordFailure(DeliveryOutcome::Busy, nowMs + 100));
        QCOMPARE(tracker.state(), ProbationTracker::State::InProbation);
        QVERIFY(!tracker.isProbeInFlight());
        QCOMPARE(tracker.untilMs(), nowMs + 100 + tracker.currentDurationMs());
        durations.append(tracker.currentDurationMs());
    }
    const QList<qint64> expected = {20 * SecondMs, 40 * SecondMs, 80 * SecondMs, 160 * SecondMs};
    QCOMPARE(durations, expected);
}

void TestProbation::p4_doublingCappedAtFourHours()
{
    ProbationTracker tracker(1);
    tracker.recordFailure(DeliveryOutcome::InvalidAzureFunctionDestination, StartMs);
    QList<qint64> durations;
    for (int probe = 0; probe < 7; ++probe) {
        const qint64 nowMs = tracker.untilMs();
        tracker.update(nowMs);
        tracker.beginProbe();
        tracker.recordFailure(DeliveryOutcome::InvalidAzureFunctionDestination, nowMs);
        durations.append(tracker.currentDurationMs());
    }
    const QList<qint64> expected = {20 * MinuteMs, 40 * MinuteMs, 80 * MinuteMs, 160 * MinuteMs,
                                    4 * HourMs,    4 * HourMs,    4 * HourMs};
    QCOMPARE(durations, expected);
    QCOMPARE(ProbationTracker::MaxProbationMs, 4 * HourMs);
}

void TestProbation::p4_probeFailureNeverShorterThanItsOutcome()
{
    // Decision: the doubled duration is at least the P1 duration of the outcome that failed the
    // probe, and that outcome becomes the cause (P3 then dead-letters instead of deferring).
    ProbationTracker tracker(1);
    tracker.recordFailure(DeliveryOutcome::Busy, StartMs);
    tracker.update(StartMs + 10 * SecondMs);
    tracker.beginProbe();
    QVERIFY(tracker.recordFailure(DeliveryOutcome::Unauthorized, StartMs + 11 * SecondMs));
    QCOMPARE(tracker.currentDurationMs(), 5 * MinuteMs);
    QCOMPARE(tracker.cause(), DeliveryOutcome::Unauthorized);
    QCOMPARE(tracker.dueAction(), ProbationTracker::DueAction::DeadLetterWithoutAttempt);
}

void TestProbation::p4_notCountedProbeOutcomeReleasesProbe()
{
    // A probe rejected as a bad event (400) says nothing about the endpoint: another may probe.
    ProbationTracker tracker(1);
    tracker.recordFailure(DeliveryOutcome::TimedOut, StartMs);
    tracker.update(StartMs + 10 * SecondMs);
    tracker.beginProbe();
    QVERIFY(!tracker.recordFailure(DeliveryOutcome::BadRequest, StartMs + 11 * SecondMs));
    QCOMPARE(tracker.state(), ProbationTracker::State::HalfOpen);
    QVERIFY(!tracker.isProbeInFlight());
    QCOMPARE(tracker.dueAction(), ProbationTracker::DueAction::Send);
}

void TestProbation::p6_restore()
{
    ProbationTracker tracker;
    tracker.restore(ProbationTracker::State::InProbation, DeliveryOutcome::Forbidden,
                    StartMs + MinuteMs, 10 * MinuteMs, 12);
    QCOMPARE(tracker.state(), ProbationTracker::State::InProbation);
    QCOMPARE(tracker.cause(), DeliveryOutcome::Forbidden);
    QCOMPARE(tracker.untilMs(), StartMs + MinuteMs);
    QCOMPARE(tracker.currentDurationMs(), 10 * MinuteMs);
    QCOMPARE(tracker.consecutiveFailures(), 12);
    QCOMPARE(tracker.dueAction(), ProbationTracker::DueAction::DeadLetterWithoutAttempt);

    // A probe in flight before the restart has no outcome: a new one may go.
    tracker.update(StartMs + MinuteMs);
    tracker.beginProbe();
    tracker.restore(ProbationTracker::State::HalfOpen, DeliveryOutcome::Forbidden,
                    StartMs + MinuteMs, 10 * MinuteMs, 12);
    QVERIFY(!tracker.isProbeInFlight());
    QCOMPARE(tracker.dueAction(), ProbationTracker::DueAction::Send);
    // The restored duration is what the next failed probe doubles.
    tracker.beginProbe();
    QVERIFY(tracker.recordFailure(DeliveryOutcome::Forbidden, StartMs + 2 * MinuteMs));
    QCOMPARE(tracker.currentDurationMs(), 20 * MinuteMs);
}

QTEST_GUILESS_MAIN(TestProbation)
#include "tst_probation.moc"
