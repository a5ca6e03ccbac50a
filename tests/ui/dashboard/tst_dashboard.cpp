#include "dashboard/DashboardView.h"
#include "dashboard/ProbationTimeline.h"

#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QHelpEvent>
#include <QLabel>
#include <QLocale>
#include <QRandomGenerator>
#include <QTest>
#include <QToolTip>

#include <cmath>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using namespace EventDesk::Ui;

namespace {

SubscriptionSnapshot subscription(const QString &topic, const QString &name)
{
    SubscriptionSnapshot result;
    result.topic = topic;
    result.subscription = name;
    return result;
}

void saveShot(QWidget *widget, const QString &name)
{
    // Let pending layout requests (labels that grew, chart legends) settle before grabbing.
    QCoreApplication::sendPostedEvents();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    QDir().mkpath(u"/tmp/eventdesk-shots"_s);
    QVERIFY(widget->grab().save(u"/tmp/eventdesk-shots/"_s + name));
}

} // namespace

class TestDashboard final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void ratesFromCounterDifferences();
    void firstSnapshotIsOnlyABaseline();
    void counterResetIsNotANegativeRate();
    void pointCountStaysBounded();
    void selectionFiltersToOneSubscription();
    void selectionComboIsKeyboardDriven();
    void vanishedSubscriptionsAreForgotten();
    void probationPeriodRecorded();
    void probationCauseChangeStartsNewPeriod();
    void probationTimelineWindowAndTooltip();
    void screenshots();
};

void TestDashboard::ratesFromCounterDifferences()
{
    DashboardView view;
    EngineSnapshot snapshot;
    snapshot.nowMs = 1'000'000;
    SubscriptionSnapshot orders = subscription(u"orders"_s, u"api"_s);
    snapshot.subscriptions = {orders};
    view.addSnapshot(snapshot, 0);

    orders.delivered = 100;
    orders.failedByOutcome = {{DeliveryOutcome::Busy, 5}};
    orders.latencySumMs = 1000;
    orders.latencyCount = 20;
    orders.backlog = 42;
    orders.inFlight = 8;
    snapshot.nowMs += 250;
    snapshot.subscriptions = {orders};
    view.addSnapshot(snapshot, 250);

    orders.delivered = 250; // +150 in 250 ms: 600/s
    orders.failedByOutcome = {{DeliveryOutcome::Busy, 10}, {DeliveryOutcome::TimedOut, 1}};
    orders.deadLetteredByReason = {{DeadLetterReason::MaxDeliveryAttemptsExceeded, 2}};
    orders.droppedByReason = {{DeadLetterReason::TimeToLiveExceeded, 1}};
    orders.latencySumMs = 1000 + 30 * 50; // 30 responses averaging 50 ms
    orders.latencyCount = 50;
    orders.backlog = 17;
    snapshot.nowMs += 250;
    snapshot.subscriptions = {orders};
    view.addSnapshot(snapshot, 500);
    view.refresh();

    const QList<QPointF> delivered = view.chartPoints(u"Delivered"_s);
    QCOMPARE(delivered.size(), 2);
    QCOMPARE(delivered.last(), QPointF(0, 600));
    QCOMPARE(delivered.first(), QPointF(-0.25, 400));
    QCOMPARE(view.chartPoints(u"Busy"_s).last().y(), 20.0);
    QCOMPARE(view.chartPoints(u"TimedOut"_s).last().y(), 4.0);
    QCOMPARE(view.chartPoints(u"Failed (all outcomes)"_s).last().y(), 24.0);
    QCOMPARE(view.chartPoints(u"Dead-lettered"_s).last().y(), 8.0);
    QCOMPARE(view.chartPoints(u"Dropped"_s).last().y(), 4.0);
    QCOMPARE(view.chartPoints(u"Backlog"_s).last().y(), 17.0);
    QCOMPARE(view.chartPoints(u"In flight"_s).last().y(), 8.0);
    QCOMPARE(view.chartPoints(u"Average latency"_s).last().y(), 50.0);
    QCOMPARE(view.headline(u"Delivered"_s), QLocale().toString(250));
    QCOMPARE(view.headline(u"Failed"_s), QLocale().toString(11));
    QCOMPARE(view.headline(u"Backlog"_s), QLocale().toString(17));
    QCOMPARE(view.headline(u"Average latency"_s), u"50 ms"_s);
}

void TestDashboard::firstSnapshotIsOnlyABaseline()
{
    DashboardView view;
    EngineSnapshot snapshot;
    SubscriptionSnapshot orders = subscription(u"orders"_s, u"api"_s);
    orders.delivered = 1'000'000; // history from before the dashboard opened is not a rate
    snapshot.subscriptions = {orders};
    view.addSnapshot(snapshot, 0);
    view.refresh();
    QCOMPARE(view.pointCount(), 0);
    QVERIFY(view.chartPoints(u"Delivered"_s).isEmpty());
    QCOMPARE(view.headline(u"Delivered"_s), QLocale().toString(1'000'000));
}

void TestDashboard::counterResetIsNotANegativeRate()
{
    DashboardView view;
    EngineSnapshot snapshot;
    SubscriptionSnapshot orders = subscription(u"orders"_s, u"api"_s);
    orders.delivered = 500;
    snapshot.subscriptions = {orders};
    view.addSnapshot(snapshot, 0);
    orders.delivered = 10; // engine restarted
    snapshot.subscriptions = {orders};
    view.addSnapshot(snapshot, 1000);
    view.refresh();
    QCOMPARE(view.chartPoints(u"Delivered"_s).last().y(), 10.0);
}

void TestDashboard::pointCountStaysBounded()
{
    DashboardView view;
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    EngineSnapshot snapshot;
    SubscriptionSnapshot a = subscription(u"orders"_s, u"a"_s);
    SubscriptionSnapshot b = subscription(u"orders"_s, u"b"_s);
    for (int i = 0; i < 5000; ++i) {
        a.delivered += 25;
        b.failedByOutcome[DeliveryOutcome::Busy] += 1;
        snapshot.nowMs = 1'000'000 + i * 250LL;
        snapshot.subscriptions = {a, b};
        view.addSnapshot(snapshot, i * 250LL);
        if (i % 500 == 0)
            view.refresh();
    }
    view.refresh();
    QCOMPARE(view.pointCount(), DashboardHistory::DefaultCapacity);
    QCOMPARE(view.chartPoints(u"Delivered"_s).size(), DashboardHistory::DefaultCapacity);
    QCOMPARE(view.chartPoints(u"Busy"_s).size(), DashboardHistory::DefaultCapacity);
    QCOMPARE(view.chartPoints(u"Delivered"_s).last().y(), 100.0);
    QCOMPARE(view.chartPoints(u"Busy"_s).last().y(), 4.0);
    view.setSelection(u"orders"_s, u"a"_s);
    QCOMPARE(view.pointCount(), DashboardHistory::DefaultCapacity);
    // The oldest point is 599 intervals of 250 ms before the newest.
    QCOMPARE(view.chartPoints(u"Delivered"_s).first().x(), -149.75);
}

void TestDashboard::selectionFiltersToOneSubscription()
{
    DashboardView view;
    EngineSnapshot snapshot;
    SubscriptionSnapshot a = subscription(u"orders"_s, u"a"_s);
    SubscriptionSnapshot b = subscription(u"orders"_s, u"b"_s);
    SubscriptionSnapshot c = subscription(u"billing"_s, u"c"_s);
    for (int i = 0; i < 3; ++i) {
        snapshot.subscriptions = {a, b, c};
        view.addSnapshot(snapshot, i * 1000LL);
        a.delivered += 10;
        b.delivered += 20;
        c.delivered += 40;
        b.backlog = 7;
        c.probationState = ProbationTracker::State::InProbation;
        c.backlog = 4;
        c.held = 4; // c's endpoint is not validated yet
    }
    view.refresh();
    QCOMPARE(view.chartPoints(u"Delivered"_s).last().y(), 70.0);
    QCOMPARE(view.headline(u"In probation"_s), u"1 of 3"_s);
    QCOMPARE(view.headline(u"Held"_s), QLocale().toString(4));

    view.setSelection(u"orders"_s, u"b"_s);
    QCOMPARE(view.chartPoints(u"Delivered"_s).last().y(), 20.0);
    QCOMPARE(view.chartPoints(u"Backlog"_s).last().y(), 7.0);
    QCOMPARE(view.headline(u"Delivered"_s), QLocale().toString(40));
    QCOMPARE(view.headline(u"In probation"_s), u"No"_s);
    QCOMPARE(view.headline(u"Held"_s), QLocale().toString(0));
    QCOMPARE(view.probationTimeline()->rows().size(), 3);

    view.setSelection(u"orders"_s, QString());
    QCOMPARE(view.chartPoints(u"Delivered"_s).last().y(), 30.0);

    view.setSelection(u"billing"_s, u"c"_s);
    QCOMPARE(view.headline(u"In probation"_s), u"Yes"_s);

    view.setSelection(QString(), QString());
    QCOMPARE(view.chartPoints(u"Delivered"_s).last().y(), 70.0);
}

void TestDashboard::selectionComboIsKeyboardDriven()
{
    DashboardView view;
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    EngineSnapshot snapshot;
    SubscriptionSnapshot a = subscription(u"orders"_s, u"a"_s);
    for (int i = 0; i < 2; ++i) {
        snapshot.subscriptions = {a};
        view.addSnapshot(snapshot, i * 500LL);
        a.delivered += 5;
    }
    auto *combo = view.findChild<QComboBox *>();
    QVERIFY(combo);
    QCOMPARE(combo->count(), 3); // all, topic orders, orders / a
    combo->setFocus();
    QTest::keyClick(combo, Qt::Key_Down);
    QCOMPARE(view.selectedTopic(), u"orders"_s);
    QVERIFY(view.selectedSubscription().isEmpty());
    QTest::keyClick(combo, Qt::Key_Down);
    QCOMPARE(view.selectedSubscription(), u"a"_s);
    QCOMPARE(view.chartPoints(u"Delivered"_s).last().y(), 10.0);

    // A selection made before the subscription's first snapshot is kept.
    view.setSelection(u"later"_s, u"x"_s);
    QCOMPARE(combo->currentText(), u"later / x"_s);
    QCOMPARE(view.pointCount(), 0);
}

void TestDashboard::vanishedSubscriptionsAreForgotten()
{
    DashboardView view;
    EngineSnapshot snapshot;
    snapshot.subscriptions = {subscription(u"orders"_s, u"a"_s), subscription(u"orders"_s, u"b"_s)};
    view.addSnapshot(snapshot, 0);
    view.addSnapshot(snapshot, 250);
    QCOMPARE(view.history().samples(u"orders/b"_s).size(), 1);
    snapshot.subscriptions = {subscription(u"orders"_s, u"a"_s)};
    view.addSnapshot(snapshot, 500);
    QVERIFY(view.history().samples(u"orders/b"_s).isEmpty());
    QCOMPARE(view.history().samples(u"orders/a"_s).size(), 2);
    QCOMPARE(view.probationTimeline()->rows().size(), 1);
}

void TestDashboard::probationPeriodRecorded()
{
    ProbationTimeline timeline;
    const qint64 base = QDateTime::currentMSecsSinceEpoch();
    EngineSnapshot snapshot;
    SubscriptionSnapshot hook = subscription(u"orders"_s, u"hook"_s);
    const auto feed = [&](qint64 offsetMs, ProbationTracker::State state, qint64 untilOffsetMs = 0) {
        snapshot.nowMs = base + offsetMs;
        hook.probationState = state;
        if (state != ProbationTracker::State::Healthy) {
            hook.probationCause = DeliveryOutcome::Busy;
            hook.probationUntilMs = base + untilOffsetMs;
        }
        snapshot.subscriptions = {hook};
        timeline.addSnapshot(snapshot);
    };
    feed(0, ProbationTracker::State::Healthy);
    feed(5'000, ProbationTracker::State::Healthy);
    QVERIFY(timeline.periods(u"orders"_s, u"hook"_s).isEmpty());
    feed(10'000, ProbationTracker::State::InProbation, 20'000);
    QCOMPARE(timeline.periods(u"orders"_s, u"hook"_s).size(), 1);
    QVERIFY(timeline.periods(u"orders"_s, u"hook"_s).first().isOngoing());
    feed(20'000, ProbationTracker::State::HalfOpen, 20'000);
    feed(20'500, ProbationTracker::State::InProbation, 40'500); // probe failed: twice as long
    feed(40'500, ProbationTracker::State::HalfOpen, 40'500);
    feed(41'000, ProbationTracker::State::Healthy);
    feed(45'000, ProbationTracker::State::Healthy);

    const QList<ProbationTimeline::Period> periods = timeline.periods(u"orders"_s, u"hook"_s);
    QCOMPARE(periods.size(), 1);
    QCOMPARE(periods.first().cause, DeliveryOutcome::Busy);
    QCOMPARE(periods.first().startMs, base + 10'000);
    QCOMPARE(periods.first().endMs, base + 41'000);
    QCOMPARE(periods.first().entries, 2);
    QCOMPARE(periods.first().untilMs, base + 40'500);
    QCOMPARE(timeline.rows().first().state, ProbationTracker::State::Healthy);
}

void TestDashboard::probationCauseChangeStartsNewPeriod()
{
    ProbationTimeline timeline;
    EngineSnapshot snapshot;
    SubscriptionSnapshot hook = subscription(u"orders"_s, u"hook"_s);
    snapshot.nowMs = 1'000;
    snapshot.subscriptions = {hook};
    timeline.addSnapshot(snapshot);
    hook.probationState = ProbationTracker::State::InProbation;
    hook.probationCause = DeliveryOutcome::TimedOut;
    snapshot.nowMs = 2'000;
    snapshot.subscriptions = {hook};
    timeline.addSnapshot(snapshot);
    hook.probationCause = DeliveryOutcome::NotFound;
    snapshot.nowMs = 12'000;
    snapshot.subscriptions = {hook};
    timeline.addSnapshot(snapshot);
    const QList<ProbationTimeline::Period> periods = timeline.periods(u"orders"_s, u"hook"_s);
    QCOMPARE(periods.size(), 2);
    QCOMPARE(periods.at(0).cause, DeliveryOutcome::TimedOut);
    QCOMPARE(periods.at(0).endMs, 12'000);
    QCOMPARE(periods.at(1).cause, DeliveryOutcome::NotFound);
    QVERIFY(periods.at(1).isOngoing());
}

void TestDashboard::probationTimelineWindowAndTooltip()
{
    ProbationTimeline timeline;
    timeline.resize(700, 160);
    timeline.show();
    QVERIFY(QTest::qWaitForWindowExposed(&timeline));
    const qint64 base = QDateTime::currentMSecsSinceEpoch();
    EngineSnapshot snapshot;
    SubscriptionSnapshot hook = subscription(u"orders"_s, u"hook"_s);
    snapshot.nowMs = base - 120'000;
    snapshot.subscriptions = {hook};
    timeline.addSnapshot(snapshot);
    hook.probationState = ProbationTracker::State::InProbation;
    hook.probationCause = DeliveryOutcome::Busy;
    snapshot.nowMs = base - 100'000;
    snapshot.subscriptions = {hook};
    timeline.addSnapshot(snapshot);
    hook.probationState = ProbationTracker::State::Healthy;
    snapshot.nowMs = base;
    snapshot.subscriptions = {hook};
    timeline.addSnapshot(snapshot);

    auto *combo = timeline.findChild<QComboBox *>();
    QVERIFY(combo);
    QCOMPARE(timeline.windowMs(), 5LL * 60 * 1000);
    combo->setFocus();
    QTest::keyClick(combo, Qt::Key_Down);
    QCOMPARE(timeline.window(), ProbationTimeline::Window::OneHour);
    QCOMPARE(timeline.windowMs(), 60LL * 60 * 1000);
    timeline.setWindow(ProbationTimeline::Window::FiveMinutes);
    QCOMPARE(combo->currentIndex(), 0);

    // Hovering the bar (100..120 s ago in a 5 min window that ends at the plot's right edge) shows
    // its cause in a tooltip.
    QWidget *canvas = nullptr;
    for (QWidget *child : timeline.findChildren<QWidget *>())
        if (child != combo && child->parentWidget() == &timeline && !qobject_cast<QLabel *>(child)
            && !qobject_cast<QComboBox *>(child))
            canvas = child;
    QVERIFY(canvas);
    // Find the bar by scanning the row for the tooltip rather than assuming the name column width.
    const int y = canvas->fontMetrics().height() / 2 + 8;
    QString tip;
    for (int x = canvas->width() - 1; x > 0 && !tip.contains(u"Busy"_s); x -= 2) {
        QHelpEvent help(QEvent::ToolTip, QPoint(x, y), canvas->mapToGlobal(QPoint(x, y)));
        QApplication::sendEvent(canvas, &help);
        tip = QToolTip::text();
    }
    QVERIFY2(tip.contains(u"Cause: Busy"_s), qPrintable(tip));
    QVERIFY(tip.contains(u"orders / hook"_s));
    QVERIFY(tip.contains(u"End: "_s));
}

void TestDashboard::screenshots()
{
    // About two minutes at 4 snapshots per second for three subscriptions: a steady API, a billing
    // webhook that goes Busy and spends time in probation, and a slow audit log that times out now
    // and then and dead-letters a few events.
    DashboardView view;
    view.resize(1200, 860);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QRandomGenerator random(42);
    const qint64 base = QDateTime::currentMSecsSinceEpoch() - 125'000;
    SubscriptionSnapshot api = subscription(u"orders"_s, u"orders-api"_s);
    SubscriptionSnapshot billing = subscription(u"orders"_s, u"billing-hook"_s);
    SubscriptionSnapshot audit = subscription(u"audit"_s, u"audit-log"_s);
    for (int i = 0; i <= 500; ++i) {
        const double t = i * 0.25;
        const auto noise = [&random](double amplitude) { return (random.generateDouble() - 0.5) * 2 * amplitude; };
        // orders-api: ~180 events/s with a burst around 80 s, ~35 ms.
        const int apiCount = int(std::max(0.0, 45 + 10 * std::sin(t / 9) + (t > 75 && t < 90 ? 40 : 0) + noise(6)));
        api.matched += apiCount;
        api.delivered += apiCount;
        api.requests += apiCount;
        api.latencySumMs += apiCount * (35 + noise(8));
        api.latencyCount += apiCount;
        api.backlog = std::max(0, int(4 + noise(4) + (t > 75 && t < 90 ? 60 : 0)));
        api.inFlight = int(6 + noise(2));

        // billing-hook: answers 503 from 30 s; probation 34..52 s, the probe fails, probation again
        // for twice as long (52.5..88.5 s), the next probe succeeds and the backlog drains.
        const int billingIncoming = int(std::max(0.0, 20 + noise(4)));
        billing.matched += billingIncoming;
        const bool halfOpen = (t >= 52 && t < 52.5) || (t >= 88.5 && t < 89);
        const bool inProbation = (t >= 34 && t < 52) || (t >= 52.5 && t < 88.5);
        if (inProbation || halfOpen) {
            billing.backlog += billingIncoming;
            billing.inFlight = halfOpen ? 1 : 0;
            billing.probationState = halfOpen ? ProbationTracker::State::HalfOpen : ProbationTracker::State::InProbation;
            billing.probationCause = DeliveryOutcome::Busy;
            billing.probationUntilMs = base + qint64((t < 52.5 ? 52 : 88.5) * 1000);
            if (t >= 52 && t < 52.25)
                billing.failedByOutcome[DeliveryOutcome::Busy] += 1;
        } else if (t >= 30 && t < 34) {
            billing.failedByOutcome[DeliveryOutcome::Busy] += billingIncoming;
            billing.requests += billingIncoming;
            billing.backlog += billingIncoming;
            billing.latencySumMs += billingIncoming * (5 + noise(2));
            billing.latencyCount += billingIncoming;
            billing.inFlight = 3;
            billing.probationState = ProbationTracker::State::Healthy;
        } else {
            const int drained = int(std::min<qint64>(billing.backlog, 60));
            billing.backlog -= drained;
            const int sent = billingIncoming + drained;
            billing.delivered += sent;
            billing.requests += sent;
            billing.latencySumMs += sent * (120 + noise(30));
            billing.latencyCount += sent;
            billing.inFlight = int(4 + noise(2));
            billing.probationState = ProbationTracker::State::Healthy;
        }

        // audit-log: ~8 events/s, slow (~900 ms), a TimedOut now and then, dead-letters after 100 s.
        const int auditCount = int(std::max(0.0, 2 + noise(1.5)));
        audit.matched += auditCount;
        audit.delivered += auditCount;
        audit.latencySumMs += auditCount * (900 + noise(250));
        audit.latencyCount += auditCount;
        if (random.bounded(8) == 0)
            audit.failedByOutcome[DeliveryOutcome::TimedOut] += 1;
        if (t > 100 && random.bounded(5) == 0)
            audit.deadLetteredByReason[DeadLetterReason::MaxDeliveryAttemptsExceeded] += 1;
        if (t > 60 && random.bounded(40) == 0)
            audit.failedByOutcome[DeliveryOutcome::NotFound] += 1;
        audit.backlog = int(3 + noise(3));
        audit.inFlight = 2;

        EngineSnapshot snapshot;
        snapshot.nowMs = base + qint64(t * 1000);
        snapshot.subscriptions = {api, billing, audit};
        view.addSnapshot(snapshot, qint64(t * 1000));
    }
    view.refresh();
    QVERIFY(view.pointCount() > 400);
    const QList<ProbationTimeline::Period> periods = view.probationTimeline()->periods(u"orders"_s, u"billing-hook"_s);
    QCOMPARE(periods.size(), 1);
    QCOMPARE(periods.first().entries, 2);
    saveShot(&view, u"dashboard-all.png"_s);
    view.setSelection(u"orders"_s, u"billing-hook"_s);
    // No latency while nothing was answered in probation: fewer latency points than samples.
    QVERIFY(view.chartPoints(u"Average latency"_s).size() < view.pointCount());
    QVERIFY(view.chartPoints(u"Average latency"_s).size() > view.pointCount() / 2);
    saveShot(&view, u"dashboard-billing.png"_s);
    view.probationTimeline()->resize(900, 160);
    saveShot(view.probationTimeline(), u"dashboard-probation-timeline.png"_s);
}

QTEST_MAIN(TestDashboard)

#include "tst_dashboard.moc"
