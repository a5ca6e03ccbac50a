// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "rules/RetryPlanner.h"

#include <QTest>

using namespace EventDesk;

namespace {
constexpr qint64 SecondMs = 1000;
constexpr qint64 MinuteMs = 60 * SecondMs;
constexpr qint64 HourMs = 60 * MinuteMs;
constexpr qint64 SomePublishMs = 1597339094026; // 2020-08-13T17:18:14.026Z

RetryPolicy policy(int maxDeliveryAttempts, int ttlMinutes)
{
    RetryPolicy result;
    result.maxDeliveryAttempts = maxDeliveryAttempts;
    result.eventTimeToLiveInMinutes = ttlMinutes;
    return result;
}

QList<qint64> attemptTimes(const RetryPlanner::Timeline &timeline)
{
    QList<qint64> times;
    for (const RetryPlanner::TimelineEntry &entry : timeline.attempts)
        times.append(entry.atMs);
    return times;
}
} // namespace

class TestRetryPlanner final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void r3_scheduleEntry_data();
    void r3_scheduleEntry();
    void r4_retryWaitUsesMinimum_data();
    void r4_retryWaitUsesMinimum();
    void r5_jitterBounds_data();
    void r5_jitterBounds();
    void r5_jitterExactValues();
    void r1_retriedFailureSchedulesNextAttempt();
    void r3_waitCountsFromTheFailedAttempt_data();
    void r3_waitCountsFromTheFailedAttempt();
    void r2_noRetryErrors_data();
    void r2_noRetryErrors();
    void r8_attemptLimit_data();
    void r8_attemptLimit();
    void r7_ttlBoundary_data();
    void r7_ttlBoundary();
    void r7_expiresAt_data();
    void r7_expiresAt();
    void r7_ttlNotCheckedAfterFailure();
    void r9_workedExample();
    void r9_workedExampleWithoutDestinationDrops();
    void r7_simulateExpiresExactlyAtBoundary();
    void r8_simulateAttemptLimit();
    void r2_simulateNoRetry();
    void d6_simulateCountsResponseTime();
};

void TestRetryPlanner::r3_scheduleEntry_data()
{
    QTest::addColumn<int>("failedAttempts");
    QTest::addColumn<qint64>("waitMs");

    QTest::newRow("1: 10 s") << 1 << 10 * SecondMs;
    QTest::newRow("2: 30 s") << 2 << 30 * SecondMs;
    QTest::newRow("3: 1 min") << 3 << 1 * MinuteMs;
    QTest::newRow("4: 5 min") << 4 << 5 * MinuteMs;
    QTest::newRow("5: 10 min") << 5 << 10 * MinuteMs;
    QTest::newRow("6: 30 min") << 6 << 30 * MinuteMs;
    QTest::newRow("7: 1 h") << 7 << 1 * HourMs;
    QTest::newRow("8: 3 h") << 8 << 3 * HourMs;
    QTest::newRow("9: 6 h") << 9 << 6 * HourMs;
    QTest::newRow("10: 12 h") << 10 << 12 * HourMs;
    QTest::newRow("11: 12 h") << 11 << 12 * HourMs;
    QTest::newRow("29: 12 h") << 29 << 12 * HourMs;
}

void TestRetryPlanner::r3_scheduleEntry()
{
    QFETCH(int, failedAttempts);
    QFETCH(qint64, waitMs);
    QCOMPARE(RetryPlanner::scheduleEntryMs(failedAttempts), waitMs);
    // A plain retried error (500) has the 10 s minimum, which never exceeds the schedule.
    QCOMPARE(RetryPlanner::retryWaitMs(failedAttempts, 500, 0.0), waitMs);
}

void TestRetryPlanner::r4_retryWaitUsesMinimum_data()
{
    QTest::addColumn<int>("failedAttempts");
    QTest::addColumn<int>("httpStatus");
    QTest::addColumn<qint64>("waitMs");

    QTest::newRow("404 after 1: 5 min") << 1 << 404 << 5 * MinuteMs;
    QTest::newRow("404 after 3: 5 min") << 3 << 404 << 5 * MinuteMs;
    QTest::newRow("404 after 4: 5 min") << 4 << 404 << 5 * MinuteMs;
    QTest::newRow("404 after 5: schedule 10 min") << 5 << 404 << 10 * MinuteMs;
    QTest::newRow("408 after 1: 2 min") << 1 << 408 << 2 * MinuteMs;
    QTest::newRow("408 after 3: 2 min") << 3 << 408 << 2 * MinuteMs;
    QTest::newRow("408 after 4: schedule 5 min") << 4 << 408 << 5 * MinuteMs;
    QTest::newRow("503 after 1: 30 s") << 1 << 503 << 30 * SecondMs;
    QTest::newRow("503 after 2: 30 s") << 2 << 503 << 30 * SecondMs;
    QTest::newRow("503 after 3: schedule 1 min") << 3 << 503 << 1 * MinuteMs;
    QTest::newRow("429 after 1: 10 s") << 1 << 429 << 10 * SecondMs;
    QTest::newRow("500 after 1: 10 s") << 1 << 500 << 10 * SecondMs;
    QTest::newRow("no response after 1: 10 s") << 1 << 0 << 10 * SecondMs;
}

void TestRetryPlanner::r4_retryWaitUsesMinimum()
{
    QFETCH(int, failedAttempts);
    QFETCH(int, httpStatus);
    QFETCH(qint64, waitMs);
    QCOMPARE(RetryPlanner::retryWaitMs(failedAttempts, httpStatus, 0.0), waitMs);
    QVERIFY(waitMs >= RetryPlanner::minimumWaitMs(httpStatus));
}

void TestRetryPlanner::r5_jitterBounds_data()
{
    QTest::addColumn<int>("failedAttempts");
    QTest::addColumn<int>("httpStatus");
    QTest::addColumn<double>("jitterFraction");

    const QList<double> fractions = {0.0, 0.001, 0.05, 0.0999, 0.1, 0.5, -0.2};
    const QList<std::pair<int, int>> cases
        = {{1, 500}, {1, 404}, {2, 503}, {1, 408}, {6, 500}, {12, 429}};
    for (const auto &[failedAttempts, httpStatus] : cases) {
        for (double fraction : fractions) {
            QTest::addRow("after %d, status %d, jitter %g", failedAttempts, httpStatus, fraction)
                << failedAttempts << httpStatus << fraction;
        }
    }
}

void TestRetryPlanner::r5_jitterBounds()
{
    QFETCH(int, failedAttempts);
    QFETCH(int, httpStatus);
    QFETCH(double, jitterFraction);

    const qint64 base = RetryPlanner::retryWaitMs(failedAttempts, httpStatus, 0.0);
    const qint64 jittered = RetryPlanner::retryWaitMs(failedAttempts, httpStatus, jitterFraction);
    // SPEC R5: uniform 0 .. +10 %, never negative, so the R4 minimum still holds.
    QVERIFY2(jittered >= base, qPrintable(QString::number(jittered)));
    QVERIFY2(jittered * 10 <= base * 11, qPrintable(QString::number(jittered)));
    QVERIFY(jittered >= RetryPlanner::minimumWaitMs(httpStatus));
}

void TestRetryPlanner::r5_jitterExactValues()
{
    QCOMPARE(RetryPlanner::retryWaitMs(1, 500, 0.1), 11 * SecondMs);
    QCOMPARE(RetryPlanner::retryWaitMs(2, 500, 0.05), 31500);
    QCOMPARE(RetryPlanner::retryWaitMs(1, 404, 0.1), 330 * SecondMs);
    // Out of range fractions are held to 0 .. 0.1.
    QCOMPARE(RetryPlanner::retryWaitMs(1, 500, 1.0), 11 * SecondMs);
    QCOMPARE(RetryPlanner::retryWaitMs(1, 500, -1.0), 10 * SecondMs);
}

void TestRetryPlanner::r1_retriedFailureSchedulesNextAttempt()
{
    const RetryDecision decision = RetryPlanner::afterFailure(
        policy(30, 1440), DeliveryOutcome::Busy, 503, 1, SomePublishMs, SomePublishMs, 0.1, true);
    QCOMPARE(decision.action, RetryDecision::Action::Retry);
    QCOMPARE(decision.dueMs, SomePublishMs + 33 * SecondMs);
    QCOMPARE(decision.reason, DeadLetterReason::None);
}

void TestRetryPlanner::r3_waitCountsFromTheFailedAttempt_data()
{
    QTest::addColumn<DeliveryOutcome>("outcome");
    QTest::addColumn<int>("httpStatus");
    QTest::addColumn<qint64>("answeredAfterMs"); // from the attempt being sent
    QTest::addColumn<qint64>("dueAfterMs"); // from the attempt being sent

    // The answer's own time does not move the next attempt: 10 s after the attempt.
    QTest::newRow("500 answered at once") << DeliveryOutcome::GenericError << 500 << qint64(0)
                                          << 10 * SecondMs;
    QTest::newRow("500 answered after 3 s") << DeliveryOutcome::GenericError << 500 << 3 * SecondMs
                                            << 10 * SecondMs;
    QTest::newRow("503 answered after 12 s") << DeliveryOutcome::Busy << 503 << 12 * SecondMs
                                             << 30 * SecondMs;
    // An answer slower than the wait: the retry is due at once, never before the answer.
    QTest::newRow("500 answered after 25 s") << DeliveryOutcome::GenericError << 500
                                             << 25 * SecondMs << 25 * SecondMs;
    QTest::newRow("408 answered after 2 s") << DeliveryOutcome::TimedOut << 408 << 2 * SecondMs
                                            << 2 * MinuteMs;
    // No answer (D6): the wait counts from the moment the attempt timed out.
    QTest::newRow("timed out after 30 s") << DeliveryOutcome::TimedOut << 0 << 30 * SecondMs
                                          << 40 * SecondMs;
}

void TestRetryPlanner::r3_waitCountsFromTheFailedAttempt()
{
    QFETCH(DeliveryOutcome, outcome);
    QFETCH(int, httpStatus);
    QFETCH(qint64, answeredAfterMs);
    QFETCH(qint64, dueAfterMs);

    const qint64 sentMs = SomePublishMs + MinuteMs;
    const RetryDecision decision
        = RetryPlanner::afterFailure(policy(30, 1440), outcome, httpStatus, 1, sentMs,
                                     sentMs + answeredAfterMs, 0.0, true);
    QCOMPARE(decision.action, RetryDecision::Action::Retry);
    QCOMPARE(decision.dueMs - sentMs, dueAfterMs);
}

void TestRetryPlanner::r2_noRetryErrors_data()
{
    QTest::addColumn<DeliveryOutcome>("outcome");
    QTest::addColumn<int>("httpStatus");
    QTest::addColumn<bool>("hasDestination");
    QTest::addColumn<RetryDecision::Action>("action");
    QTest::addColumn<DeadLetterReason>("reason");

    QTest::newRow("400 dead-letters")
        << DeliveryOutcome::BadRequest << 400 << true << RetryDecision::Action::DeadLetter
        << DeadLetterReason::UndeliverableDueToHttpBadRequest;
    QTest::newRow("400 drops without destination (L1)")
        << DeliveryOutcome::BadRequest << 400 << false << RetryDecision::Action::Drop
        << DeadLetterReason::UndeliverableDueToHttpBadRequest;
    QTest::newRow("401") << DeliveryOutcome::Unauthorized << 401 << true
                         << RetryDecision::Action::DeadLetter
                         << DeadLetterReason::UndeliverableDueToHttpUnauthorized;
    QTest::newRow("403") << DeliveryOutcome::Forbidden << 403 << true
                         << RetryDecision::Action::DeadLetter
                         << DeadLetterReason::UndeliverableDueToHttpForbidden;
    QTest::newRow("413 drops without destination")
        << DeliveryOutcome::PayloadTooLarge << 413 << false << RetryDecision::Action::Drop
        << DeadLetterReason::UndeliverableDueToHttpPayloadTooLarge;
    QTest::newRow("404 is retried") << DeliveryOutcome::NotFound << 404 << true
                                    << RetryDecision::Action::Retry << DeadLetterReason::None;
    QTest::newRow("500 is retried") << DeliveryOutcome::GenericError << 500 << false
                                    << RetryDecision::Action::Retry << DeadLetterReason::None;
}

void TestRetryPlanner::r2_noRetryErrors()
{
    QFETCH(DeliveryOutcome, outcome);
    QFETCH(int, httpStatus);
    QFETCH(bool, hasDestination);
    QFETCH(RetryDecision::Action, action);
    QFETCH(DeadLetterReason, reason);

    // First attempt, plenty of attempts and TTL left: only R2 can end the delivery here.
    const RetryDecision decision = RetryPlanner::afterFailure(
        policy(30, 1440), outcome, httpStatus, 1, SomePublishMs, SomePublishMs, 0.0, hasDestination);
    QCOMPARE(decision.action, action);
    QCOMPARE(decision.reason, reason);
    if (action == RetryDecision::Action::Retry)
        QCOMPARE(decision.dueMs, SomePublishMs + RetryPlanner::retryWaitMs(1, httpStatus, 0.0));
}

void TestRetryPlanner::r8_attemptLimit_data()
{
    QTest::addColumn<int>("maxDeliveryAttempts");
    QTest::addColumn<int>("failedAttempts");
    QTest::addColumn<DeliveryOutcome>("outcome");
    QTest::addColumn<bool>("hasDestination");
    QTest::addColumn<RetryDecision::Action>("action");
    QTest::addColumn<DeadLetterReason>("reason");

    QTest::newRow("2 of 3: retry") << 3 << 2 << DeliveryOutcome::GenericError << true
                                   << RetryDecision::Action::Retry << DeadLetterReason::None;
    QTest::newRow("3 of 3: dead-letter")
        << 3 << 3 << DeliveryOutcome::GenericError << true << RetryDecision::Action::DeadLetter
        << DeadLetterReason::MaxDeliveryAttemptsExceeded;
    QTest::newRow("3 of 3 without destination: drop")
        << 3 << 3 << DeliveryOutcome::Busy << false << RetryDecision::Action::Drop
        << DeadLetterReason::MaxDeliveryAttemptsExceeded;
    QTest::newRow("1 of 1: dead-letter")
        << 1 << 1 << DeliveryOutcome::TimedOut << true << RetryDecision::Action::DeadLetter
        << DeadLetterReason::MaxDeliveryAttemptsExceeded;
    QTest::newRow("29 of 30: retry") << 30 << 29 << DeliveryOutcome::SocketError << true
                                     << RetryDecision::Action::Retry << DeadLetterReason::None;
    QTest::newRow("30 of 30: dead-letter")
        << 30 << 30 << DeliveryOutcome::SocketError << true << RetryDecision::Action::DeadLetter
        << DeadLetterReason::MaxDeliveryAttemptsExceeded;
    QTest::newRow("no-retry on the last attempt names the R2 reason")
        << 3 << 3 << DeliveryOutcome::Forbidden << true << RetryDecision::Action::DeadLetter
        << DeadLetterReason::UndeliverableDueToHttpForbidden;
}

void TestRetryPlanner::r8_attemptLimit()
{
    QFETCH(int, maxDeliveryAttempts);
    QFETCH(int, failedAttempts);
    QFETCH(DeliveryOutcome, outcome);
    QFETCH(bool, hasDestination);
    QFETCH(RetryDecision::Action, action);
    QFETCH(DeadLetterReason, reason);

    const RetryDecision decision
        = RetryPlanner::afterFailure(policy(maxDeliveryAttempts, 1440), outcome, 0, failedAttempts,
                                     SomePublishMs, SomePublishMs, 0.0, hasDestination);
    QCOMPARE(decision.action, action);
    QCOMPARE(decision.reason, reason);
}

void TestRetryPlanner::r7_ttlBoundary_data()
{
    QTest::addColumn<int>("ttlMinutes");
    QTest::addColumn<qint64>("elapsedMs");
    QTest::addColumn<bool>("expired");

    QTest::newRow("30 min, 1 ms before") << 30 << 30 * MinuteMs - 1 << false;
    QTest::newRow("30 min, exactly") << 30 << 30 * MinuteMs << true;
    QTest::newRow("30 min, 1 ms after") << 30 << 30 * MinuteMs + 1 << true;
    QTest::newRow("1 min, at publish") << 1 << qint64(0) << false;
    QTest::newRow("1 min, exactly") << 1 << 1 * MinuteMs << true;
    QTest::newRow("1440 min, 1 ms before") << 1440 << 24 * HourMs - 1 << false;
    QTest::newRow("1440 min, exactly") << 1440 << 24 * HourMs << true;
}

void TestRetryPlanner::r7_ttlBoundary()
{
    QFETCH(int, ttlMinutes);
    QFETCH(qint64, elapsedMs);
    QFETCH(bool, expired);
    QCOMPARE(
        RetryPlanner::isExpired(policy(30, ttlMinutes), SomePublishMs, SomePublishMs + elapsedMs),
        expired);
}

void TestRetryPlanner::r7_expiresAt_data()
{
    QTest::addColumn<int>("ttlMinutes");
    QTest::addColumn<qint64>("publishMs");
    QTest::addColumn<qint64>("expiresAtMs");

    QTest::newRow("30 min") << 30 << SomePublishMs << SomePublishMs + 30 * MinuteMs;
    QTest::newRow("1 min, published at 0") << 1 << qint64(0) << 1 * MinuteMs;
    QTest::newRow("1440 min") << 1440 << SomePublishMs << SomePublishMs + 24 * HourMs;
}

void TestRetryPlanner::r7_expiresAt()
{
    // SPEC R7: the TTL ends at publish time + eventTimeToLiveInMinutes, and that is the first
    // moment isExpired() answers true (the engine's held deliveries rely on both agreeing).
    QFETCH(int, ttlMinutes);
    QFETCH(qint64, publishMs);
    QFETCH(qint64, expiresAtMs);
    const RetryPolicy ttl = policy(30, ttlMinutes);
    QCOMPARE(RetryPlanner::expiresAtMs(ttl, publishMs), expiresAtMs);
    QVERIFY(!RetryPlanner::isExpired(ttl, publishMs, expiresAtMs - 1));
    QVERIFY(RetryPlanner::isExpired(ttl, publishMs, expiresAtMs));
}

void TestRetryPlanner::r7_ttlNotCheckedAfterFailure()
{
    // SPEC R7: the TTL ran out long ago, but it is only checked when the next attempt comes due.
    const qint64 nowMs = SomePublishMs + 2 * HourMs;
    const RetryDecision decision = RetryPlanner::afterFailure(
        policy(30, 30), DeliveryOutcome::GenericError, 500, 3, nowMs, nowMs, 0.0, true);
    QCOMPARE(decision.action, RetryDecision::Action::Retry);
    QCOMPARE(decision.dueMs, nowMs + MinuteMs);
}

void TestRetryPlanner::r9_workedExample()
{
    // SPEC R9: TTL 30 min, max 10 attempts, always failing with 500, jitter off.
    const RetryPlanner::Timeline timeline = RetryPlanner::simulateAlwaysFailing(
        policy(10, 30), DeliveryOutcome::GenericError, 500, 0, 0, true);

    const QList<qint64> expected
        = {0, 10 * SecondMs, 40 * SecondMs, 100 * SecondMs, 400 * SecondMs, 1000 * SecondMs};
    QCOMPARE(attemptTimes(timeline), expected);
    QCOMPARE(timeline.attempts.size(), 6); // deliveryAttempts: 6
    for (int index = 0; index < timeline.attempts.size(); ++index)
        QCOMPARE(timeline.attempts.at(index).attempt, index + 1);
    QCOMPARE(timeline.fate, RetryDecision::Action::DeadLetter);
    QCOMPARE(timeline.reason, DeadLetterReason::TimeToLiveExceeded);
    QCOMPARE(timeline.fateAtMs, 46 * MinuteMs + 40 * SecondMs);

    // The same relative to a real publish time.
    const RetryPlanner::Timeline shifted = RetryPlanner::simulateAlwaysFailing(
        policy(10, 30), DeliveryOutcome::GenericError, 500, SomePublishMs, 0, true);
    QCOMPARE(shifted.attempts.size(), 6);
    QCOMPARE(shifted.attempts.last().atMs, SomePublishMs + 1000 * SecondMs);
    QCOMPARE(shifted.fateAtMs, SomePublishMs + 2800 * SecondMs);
}

void TestRetryPlanner::r9_workedExampleWithoutDestinationDrops()
{
    // SPEC L1: the same fate without a dead-letter destination is a drop.
    const RetryPlanner::Timeline timeline = RetryPlanner::simulateAlwaysFailing(
        policy(10, 30), DeliveryOutcome::GenericError, 500, 0, 0, false);
    QCOMPARE(timeline.attempts.size(), 6);
    QCOMPARE(timeline.fate, RetryDecision::Action::Drop);
    QCOMPARE(timeline.reason, DeadLetterReason::TimeToLiveExceeded);
}

void TestRetryPlanner::r7_simulateExpiresExactlyAtBoundary()
{
    // 404 (R4: at least 5 min), TTL 30 min: attempts at 0, 5, 10, 15, 20 min; the sixth comes
    // due at 20 + 10 = 30 min, exactly when the TTL ends, so it is not sent (R7: now >= ttl).
    const RetryPlanner::Timeline timeline = RetryPlanner::simulateAlwaysFailing(
        policy(30, 30), DeliveryOutcome::NotFound, 404, 0, 0, true);
    const QList<qint64> expected = {0, 5 * MinuteMs, 10 * MinuteMs, 15 * MinuteMs, 20 * MinuteMs};
    QCOMPARE(attemptTimes(timeline), expected);
    QCOMPARE(timeline.reason, DeadLetterReason::TimeToLiveExceeded);
    QCOMPARE(timeline.fateAtMs, 30 * MinuteMs);
}

void TestRetryPlanner::r8_simulateAttemptLimit()
{
    const RetryPlanner::Timeline timeline = RetryPlanner::simulateAlwaysFailing(
        policy(3, 1440), DeliveryOutcome::GenericError, 500, 0, 0, true);
    const QList<qint64> expected = {0, 10 * SecondMs, 40 * SecondMs};
    QCOMPARE(attemptTimes(timeline), expected);
    QCOMPARE(timeline.fate, RetryDecision::Action::DeadLetter);
    QCOMPARE(timeline.reason, DeadLetterReason::MaxDeliveryAttemptsExceeded);
    // R8: decided when the last attempt fails, not at a later due time.
    QCOMPARE(timeline.fateAtMs, 40 * SecondMs);
}

void TestRetryPlanner::r2_simulateNoRetry()
{
    const RetryPlanner::Timeline timeline = RetryPlanner::simulateAlwaysFailing(
        policy(30, 1440), DeliveryOutcome::Unauthorized, 401, SomePublishMs, 250, false);
    QCOMPARE(timeline.attempts.size(), 1);
    QCOMPARE(timeline.attempts.first().atMs, SomePublishMs);
    QCOMPARE(timeline.fate, RetryDecision::Action::Drop);
    QCOMPARE(timeline.reason, DeadLetterReason::UndeliverableDueToHttpUnauthorized);
    QCOMPARE(timeline.fateAtMs, SomePublishMs + 250);
}

void TestRetryPlanner::d6_simulateCountsResponseTime()
{
    // SPEC D6/R3: an endpoint that never answers fails each attempt after 30 s; the retry wait
    // is counted from the failed attempt.
    const RetryPlanner::Timeline timeline = RetryPlanner::simulateAlwaysFailing(
        policy(3, 1440), DeliveryOutcome::TimedOut, 0, 0, 30 * SecondMs, true);
    const QList<qint64> expected = {0, 40 * SecondMs, 100 * SecondMs};
    QCOMPARE(attemptTimes(timeline), expected);
    QCOMPARE(timeline.reason, DeadLetterReason::MaxDeliveryAttemptsExceeded);
    QCOMPARE(timeline.fateAtMs, 130 * SecondMs);
}

QTEST_GUILESS_MAIN(TestRetryPlanner)
#include "tst_retryplanner.moc"
