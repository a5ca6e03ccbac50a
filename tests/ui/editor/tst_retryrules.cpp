// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// The retry timeline preview per destination type: which answers of the type's service are not
// retried, and the probation each causes, as the engine's rules decide them.

#include "RetryTimelineView.h"
#include "WidgetInput.h"

#include "common/Format.h"

#include <QComboBox>
#include <QLabel>
#include <QTest>
#include <QTreeWidget>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using namespace EventDesk::Ui;
using EventDesk::Testing::child;

namespace {

QStringList ruleRows(RetryTimelineView *view)
{
    auto *rules = child<QTreeWidget>(view, u"rulesList"_s);
    QStringList rows;
    for (int row = 0; row < rules->topLevelItemCount(); ++row) {
        const QTreeWidgetItem *item = rules->topLevelItem(row);
        rows << item->text(0) + u" | "_s + item->text(1) + u" | "_s + item->text(2) + u" | "_s
                + item->text(3);
    }
    return rows;
}

QStringList notRetriedAnswers(RetryTimelineView *view)
{
    QStringList answers;
    auto *rules = child<QTreeWidget>(view, u"rulesList"_s);
    for (int row = 0; row < rules->topLevelItemCount(); ++row) {
        const QTreeWidgetItem *item = rules->topLevelItem(row);
        if (item->text(2).startsWith(u"No"_s))
            answers << item->text(0) + u" → "_s + item->text(1);
    }
    return answers;
}

} // namespace

class TestRetryRules : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void retryRulesPerType_data();
    void retryRulesPerType();
    void outcomesColouredByFamily();
};

void TestRetryRules::retryRulesPerType_data()
{
    QTest::addColumn<DestinationType>("type");
    QTest::addColumn<QStringList>("notRetried");
    QTest::addColumn<QString>("probationRow");

    QTest::newRow("webhook") << DestinationType::WebHook
                             << QStringList {u"400 → BadRequest"_s, u"401 → Unauthorized"_s,
                                             u"403 → Forbidden"_s, u"413 → PayloadTooLarge"_s}
                             << u"404 | NotFound | Yes, ≥ 5 min apart | 5 min, due events wait"_s;
    QTest::newRow("function")
        << DestinationType::AzureFunction
        << QStringList {u"404 → InvalidAzureFunctionDestination"_s, u"400 → BadRequest"_s,
                        u"401 → Unauthorized"_s, u"403 → Forbidden"_s, u"413 → PayloadTooLarge"_s}
        << u"404 | InvalidAzureFunctionDestination | No: dead-lettered at once | 10 min, due events dead-lettered"_s;
    QTest::newRow("storage queue")
        << DestinationType::StorageQueue
        << QStringList {u"400 → BadRequest"_s, u"403 AuthenticationFailed → Unauthorized"_s,
                        u"413 RequestBodyTooLarge → PayloadTooLarge"_s,
                        u"403 AccountIsDisabled → Disabled"_s}
        << u"413 RequestBodyTooLarge | PayloadTooLarge | No: dead-lettered at once | None"_s;
    QTest::newRow("service bus queue")
        << DestinationType::ServiceBusQueue
        << QStringList {u"400 → BadRequest"_s, u"401 → Unauthorized"_s,
                        u"403 QuotaExceeded → Full"_s, u"403 MessagingEntityDisabled → Disabled"_s,
                        u"413 → PayloadTooLarge"_s}
        << u"400 SessionId missing | SessionQueueNotSupported | Yes, ≥ 10 s apart | 10 s, due events wait"_s;
    QTest::newRow("event hub")
        << DestinationType::EventHub
        << QStringList {u"400 → BadRequest"_s, u"401 → Unauthorized"_s,
                        u"403 QuotaExceeded → Full"_s, u"403 MessagingEntityDisabled → Disabled"_s,
                        u"413 → PayloadTooLarge"_s}
        << u"Connection refused | SocketError | Yes, ≥ 10 s apart | 30 s, due events wait"_s;
}

// The preview lists, for the subscription's destination type, which answers are not retried and
// the probation each causes; the timeline of a no-retry answer ends after one attempt.
void TestRetryRules::retryRulesPerType()
{
    QFETCH(DestinationType, type);
    QFETCH(QStringList, notRetried);
    QFETCH(QString, probationRow);
    RetryTimelineView timelineView;
    RetryTimelineView *view = &timelineView;
    view->setPolicy(RetryPolicy(), false);
    view->setDestinationType(type);
    QCOMPARE(view->destinationType(), type);
    QCOMPARE(notRetriedAnswers(view), notRetried);
    const QStringList rows = ruleRows(view);
    QVERIFY2(rows.contains(probationRow), qPrintable(rows.join(u'\n')));
    QVERIFY(
        child<QLabel>(view, u"rulesTitle"_s)->text().contains(destinationTypeDisplayName(type)));
    // The events of EventHub never carry a session: only Service Bus knows that answer.
    QCOMPARE(rows.join(u'\n').contains(u"SessionQueueNotSupported"_s),
             type == DestinationType::ServiceBusQueue);

    // Choosing a rule previews it: a no-retry answer is one attempt and a dead letter.
    auto *rules = child<QTreeWidget>(view, u"rulesList"_s);
    const QString first = notRetried.front().section(u" → "_s, 0, 0);
    for (int row = 0; row < rules->topLevelItemCount(); ++row) {
        if (rules->topLevelItem(row)->text(0) == first)
            rules->setCurrentItem(rules->topLevelItem(row));
    }
    QVERIFY2(child<QComboBox>(view, u"failureMode"_s)->currentText().contains(u"no retry"_s),
             qPrintable(child<QComboBox>(view, u"failureMode"_s)->currentText()));
    QCOMPARE(view->timeline().attempts.size(), 1);
    QCOMPARE(view->timeline().fate, RetryDecision::Action::Drop); // no dead-letter destination
    QVERIFY(deadLetterReasonName(view->timeline().reason).startsWith(u"UndeliverableDueToHttp"_s));
}

// The table colours an outcome by what happens to it, the destinations' own outcomes too: not
// retried red like BadRequest, retried amber like Busy.
void TestRetryRules::outcomesColouredByFamily()
{
    const auto colours = [](DestinationType type) {
        RetryTimelineView view;
        view.setDestinationType(type);
        auto *rules = child<QTreeWidget>(&view, u"rulesList"_s);
        QHash<QString, QColor> byOutcome;
        for (int row = 0; row < rules->topLevelItemCount(); ++row) {
            const QTreeWidgetItem *item = rules->topLevelItem(row);
            byOutcome.insert(item->text(1), item->foreground(1).color());
        }
        return byOutcome;
    };
    const QHash<QString, QColor> function = colours(DestinationType::AzureFunction);
    const QHash<QString, QColor> bus = colours(DestinationType::ServiceBusQueue);
    const QColor notRetried = function.value(u"BadRequest"_s);
    QCOMPARE(function.value(u"InvalidAzureFunctionDestination"_s), notRetried);
    QCOMPARE(bus.value(u"Full"_s), notRetried);
    QCOMPARE(bus.value(u"Disabled"_s), notRetried);
    QCOMPARE(bus.value(u"SessionQueueNotSupported"_s), bus.value(u"Busy"_s));
    QVERIFY(bus.value(u"Busy"_s) != notRetried);
}

QTEST_MAIN(TestRetryRules)
#include "tst_retryrules.moc"
