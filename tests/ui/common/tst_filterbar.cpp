// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// The filter bar shared by the delivery log and the dead-letter browser, driven with the keyboard
// and the mouse as a user would; every check reads the query the bar emits.

#include "common/FilterBar.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDateTimeEdit>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <QToolButton>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;
using namespace EventDesk;
using namespace EventDesk::Ui;

namespace {

// Every field, as the dead-letter browser has them plus the delivery log's "only failures".
FilterBar::Fields allFields()
{
    FilterBar::Fields fields;
    fields.text = FilterBar::TextField{u"Search…"_s, u"Rows that contain this text"_s};
    fields.subscription = u"Rows of one subscription"_s;
    fields.reason = FilterBar::ReasonField{
        {DeadLetterReason::MaxDeliveryAttemptsExceeded, DeadLetterReason::TimeToLiveExceeded},
        u"Why"_s};
    fields.outcome = FilterBar::OutcomeField{
        u"All outcomes"_s, {DeliveryOutcome::Busy, DeliveryOutcome::TimedOut}, u"Outcome"_s};
    fields.onlyFailures = u"Hide deliveries"_s;
    fields.timeRange = FilterBar::TimeRangeField{u"From"_s, u"To"_s};
    fields.typingDelay = 100ms;
    return fields;
}

FilterQuery lastQuery(const QSignalSpy &spy)
{
    return spy.last().at(0).value<FilterQuery>();
}

// The bar inside a view, with another widget to hold the focus, shown and active.
struct Window
{
    explicit Window(const FilterBar::Fields &fields)
    {
        bar = new FilterBar(fields, &view);
        other = new QPushButton(u"Elsewhere"_s, &view);
        auto *layout = new QVBoxLayout(&view);
        layout->addWidget(bar);
        layout->addWidget(other);
        if (bar->findAction())
            view.addAction(bar->findAction());
        view.show();
        view.activateWindow();
    }

    QWidget view;
    FilterBar *bar = nullptr;
    QPushButton *other = nullptr;
};

} // namespace

class TestFilterBar : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void typingIsAppliedOnceTheInputPauses();
    void returnAppliesAndEscapeClears();
    void clearingAppliesAtOnce();
    void choicesApplyAtOnce();
    void timeRangeIncludesTheWholeLastMinute();
    void subscriptionsKeepTheChoice();
    void findShortcutFocusesTheText();
    void onlyTheFieldsAViewOffers();
};

void TestFilterBar::typingIsAppliedOnceTheInputPauses()
{
    Window window(allFields());
    QVERIFY(QTest::qWaitForWindowActive(&window.view));
    QSignalSpy changed(window.bar, &FilterBar::queryChanged);
    QLineEdit *text = window.bar->textField();
    text->setFocus();
    QTest::keyClicks(text, u"  order-42 "_s);
    // Nothing while typing, one query when the typing pauses.
    QCOMPARE(changed.size(), 0);
    QTRY_COMPARE(changed.size(), 1);
    QCOMPARE(lastQuery(changed).text, u"order-42"_s);
    QCOMPARE(window.bar->query(), lastQuery(changed));
    // Trailing spaces change nothing that matters: no second query.
    QTest::keyClick(text, Qt::Key_Space);
    QTest::keyClick(text, Qt::Key_Return);
    QCOMPARE(changed.size(), 1);
}

void TestFilterBar::returnAppliesAndEscapeClears()
{
    Window window(allFields());
    QVERIFY(QTest::qWaitForWindowActive(&window.view));
    QSignalSpy changed(window.bar, &FilterBar::queryChanged);
    QLineEdit *text = window.bar->textField();
    text->setFocus();
    QTest::keyClicks(text, u"customer-7"_s);
    QTest::keyClick(text, Qt::Key_Return);
    QCOMPARE(changed.size(), 1);
    QCOMPARE(lastQuery(changed).text, u"customer-7"_s);

    QTest::keyClick(text, Qt::Key_Escape);
    QCOMPARE(text->text(), QString());
    QCOMPARE(changed.size(), 2);
    QCOMPARE(lastQuery(changed).text, QString());

    // Escape in an empty field is left to the rest of the window.
    QKeyEvent escape(QEvent::KeyPress, Qt::Key_Escape, Qt::NoModifier);
    QCoreApplication::sendEvent(text, &escape);
    QVERIFY(!escape.isAccepted());
    QCOMPARE(changed.size(), 2);
}

void TestFilterBar::clearingAppliesAtOnce()
{
    Window window(allFields());
    QVERIFY(QTest::qWaitForWindowActive(&window.view));
    QSignalSpy changed(window.bar, &FilterBar::queryChanged);
    QLineEdit *text = window.bar->textField();
    text->setFocus();
    QTest::keyClicks(text, u"evt-1"_s);
    QTRY_COMPARE(changed.size(), 1);
    QTest::keyClick(text, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClick(text, Qt::Key_Backspace);
    QCOMPARE(changed.size(), 2);
    QCOMPARE(lastQuery(changed).text, QString());

    // The clear button does the same.
    QTest::keyClicks(text, u"evt-2"_s);
    QTest::keyClick(text, Qt::Key_Enter);
    QCOMPARE(changed.size(), 3);
    auto *clearButton = text->findChild<QToolButton *>();
    QVERIFY(clearButton);
    QTest::mouseClick(clearButton, Qt::LeftButton);
    QCOMPARE(changed.size(), 4);
    QCOMPARE(lastQuery(changed).text, QString());
}

void TestFilterBar::choicesApplyAtOnce()
{
    Window window(allFields());
    QVERIFY(QTest::qWaitForWindowActive(&window.view));
    window.bar->setSubscriptions({{u"orders"_s, u"billing"_s}, {u"orders"_s, u"audit"_s}});
    QSignalSpy changed(window.bar, &FilterBar::queryChanged);

    // Typed text that has not been applied yet goes with the next choice.
    window.bar->textField()->setFocus();
    QTest::keyClicks(window.bar->textField(), u"evt"_s);
    QCOMPARE(changed.size(), 0);

    QComboBox *subscriptions = window.bar->subscriptionCombo();
    subscriptions->setFocus();
    QTest::keyClick(subscriptions, Qt::Key_Down);
    QCOMPARE(changed.size(), 1);
    FilterQuery query = lastQuery(changed);
    QCOMPARE(query.topic, u"orders"_s);
    QCOMPARE(query.subscription, u"billing"_s);
    QCOMPARE(query.text, u"evt"_s);

    QComboBox *reasons = window.bar->reasonCombo();
    reasons->setFocus();
    QTest::keyClick(reasons, Qt::Key_Down);
    QTest::keyClick(reasons, Qt::Key_Down);
    QCOMPARE(changed.size(), 3);
    QCOMPARE(lastQuery(changed).reason, DeadLetterReason::TimeToLiveExceeded);

    QComboBox *outcomes = window.bar->outcomeCombo();
    outcomes->setFocus();
    QTest::keyClick(outcomes, Qt::Key_Down);
    QCOMPARE(changed.size(), 4);
    QCOMPARE(lastQuery(changed).outcome, DeliveryOutcome::Busy);

    QCheckBox *failures = window.bar->onlyFailuresCheck();
    QTest::mouseClick(failures, Qt::LeftButton, {}, QPoint(8, failures->height() / 2));
    QCOMPARE(changed.size(), 5);
    QVERIFY(lastQuery(changed).onlyFailures);

    // Back to "all": every member matches everything again.
    QTest::keyClick(outcomes, Qt::Key_Home);
    QTest::keyClick(reasons, Qt::Key_Home);
    QTest::keyClick(subscriptions, Qt::Key_Home);
    failures->setFocus();
    QTest::keyClick(failures, Qt::Key_Space);
    window.bar->textField()->clear();
    QCOMPARE(changed.size(), 10);
    QCOMPARE(lastQuery(changed), FilterQuery());
}

void TestFilterBar::timeRangeIncludesTheWholeLastMinute()
{
    Window window(allFields());
    QVERIFY(QTest::qWaitForWindowActive(&window.view));
    QSignalSpy changed(window.bar, &FilterBar::queryChanged);
    QDateTimeEdit *from = window.bar->fromEdit();
    QDateTimeEdit *to = window.bar->toEdit();
    // A bound applies only while its box is checked.
    QVERIFY(!from->isEnabled() && !to->isEnabled());
    const QDateTime start(QDate(2026, 11, 22), QTime(9, 15));
    from->setDateTime(start);
    to->setDateTime(start.addSecs(3600));
    QCOMPARE(window.bar->query().fromMs, std::nullopt);

    QTest::mouseClick(window.bar->fromCheck(), Qt::LeftButton, {},
                      QPoint(8, window.bar->fromCheck()->height() / 2));
    QVERIFY(from->isEnabled());
    QCOMPARE(changed.size(), 1);
    QCOMPARE(lastQuery(changed).fromMs, start.toMSecsSinceEpoch());
    QCOMPARE(lastQuery(changed).toMs, std::nullopt);

    window.bar->toCheck()->setFocus();
    QTest::keyClick(window.bar->toCheck(), Qt::Key_Space);
    QCOMPARE(changed.size(), 2);
    QCOMPARE(lastQuery(changed).toMs, start.addSecs(3600).toMSecsSinceEpoch() + 59999);

    // Stepping a time waits for the input to pause, like typing.
    from->setFocus();
    from->setCurrentSection(QDateTimeEdit::HourSection);
    QTest::keyClick(from, Qt::Key_Up);
    QTest::keyClick(from, Qt::Key_Up);
    QCOMPARE(changed.size(), 2);
    QTRY_COMPARE(changed.size(), 3);
    QCOMPARE(lastQuery(changed).fromMs, start.addSecs(2 * 3600).toMSecsSinceEpoch());
}

void TestFilterBar::subscriptionsKeepTheChoice()
{
    Window window(allFields());
    FilterBar *bar = window.bar;
    QSignalSpy changed(bar, &FilterBar::queryChanged);
    bar->setSubscriptions({{u"orders"_s, u"billing"_s}, {u"orders"_s, u"audit"_s}});
    QCOMPARE(bar->subscriptionCombo()->count(), 3);
    QCOMPARE(bar->subscriptionCombo()->itemText(0), u"All subscriptions"_s);
    QCOMPARE(bar->subscriptionCombo()->itemText(2), u"orders / audit"_s);

    bar->setSubscription(u"orders"_s, u"audit"_s);
    QCOMPARE(changed.size(), 1);
    QCOMPARE(lastQuery(changed).subscription, u"audit"_s);

    // The chosen subscription left the workspace: still chosen, still offered, nothing emitted.
    bar->setSubscriptions({{u"orders"_s, u"billing"_s}});
    QCOMPARE(changed.size(), 1);
    QCOMPARE(bar->subscriptionCombo()->currentText(), u"orders / audit"_s);
    QCOMPARE(bar->query().subscription, u"audit"_s);

    // One that is not offered yet is added.
    bar->setSubscription(u"payments"_s, u"ledger"_s);
    QCOMPARE(changed.size(), 2);
    QCOMPARE(lastQuery(changed).topic, u"payments"_s);
    QCOMPARE(bar->subscriptionCombo()->currentText(), u"payments / ledger"_s);

    bar->setSubscription(QString(), QString());
    QCOMPARE(changed.size(), 3);
    QCOMPARE(lastQuery(changed).subscription, QString());
}

void TestFilterBar::findShortcutFocusesTheText()
{
    Window window(allFields());
    QVERIFY(QTest::qWaitForWindowActive(&window.view));
    QLineEdit *text = window.bar->textField();
    text->setText(u"earlier search"_s);
    window.other->setFocus();
    QTRY_VERIFY(window.other->hasFocus());
    QTest::keySequence(window.other, QKeySequence::Find);
    QVERIFY(text->hasFocus());
    QCOMPARE(text->selectedText(), u"earlier search"_s);
    QVERIFY(text->toolTip().endsWith(u"(Ctrl+F)"_s));
}

void TestFilterBar::onlyTheFieldsAViewOffers()
{
    // The delivery log's fields: text, subscription, outcome, only failures.
    FilterBar::Fields fields;
    fields.text = FilterBar::TextField{u"Filter by event id…"_s, u"Event id"_s};
    fields.subscription = u"One subscription"_s;
    fields.outcome
        = FilterBar::OutcomeField{u"All outcomes"_s, {DeliveryOutcome::Delivered}, u""_s};
    fields.onlyFailures = u"Hide successful deliveries"_s;
    Window window(fields);
    QCOMPARE(window.bar->findChildren<QComboBox *>().size(), 2);
    QCOMPARE(window.bar->findChildren<QCheckBox *>().size(), 1);
    QVERIFY(window.bar->findChildren<QDateTimeEdit *>().isEmpty());
    QCOMPARE(window.bar->reasonCombo(), nullptr);
    QCOMPARE(window.bar->query(), FilterQuery());
    // The summary ends the only line, right of the fields.
    window.bar->setSummary(u"200 attempts"_s, u"The newest 100,000"_s);
    QCOMPARE(window.bar->findChild<QLabel *>(u"countLabel"_s)->text(), u"200 attempts"_s);
    QVERIFY(window.bar->summaryLabel()->geometry().left()
            > window.bar->onlyFailuresCheck()->geometry().right());
    const int summaryMiddle = window.bar->summaryLabel()->geometry().center().y();
    QVERIFY(summaryMiddle > window.bar->textField()->geometry().top());
    QVERIFY(summaryMiddle < window.bar->textField()->geometry().bottom());
}

QTEST_MAIN(TestFilterBar)
#include "tst_filterbar.moc"
