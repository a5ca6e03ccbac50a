// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "AdvancedFilterModel.h"
#include "DeliveryHeaderModel.h"
#include "EditorDelegates.h"
#include "LimitSpinBox.h"
#include "RetryTimelineView.h"
#include "SubscriptionEditor.h"
#include "WidgetInput.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <QTimer>
#include <QTreeWidget>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using namespace EventDesk::Ui;
using EventDesk::Testing::child;
using EventDesk::Testing::retype;

namespace {

const QString ShotDirectory = u"/tmp/eventdesk-shots"_s;

Topic makeTopic(EventSchema schema = EventSchema::EventGrid)
{
    Topic topic;
    topic.name = u"orders"_s;
    topic.inputSchema = schema;
    return topic;
}

EventSubscription minimalSubscription()
{
    EventSubscription subscription;
    subscription.name = u"billing"_s;
    subscription.endpointUrl = QUrl(u"https://billing.example.com/api/events"_s);
    return subscription;
}

EventSubscription realisticSubscription()
{
    EventSubscription subscription;
    subscription.name = u"orders-to-billing"_s;
    subscription.endpointUrl = QUrl(u"https://billing.contoso.example/api/eventgrid"_s);
    subscription.deliverySchema = EventSchema::CloudEvents10;
    subscription.filter.includedEventTypes
        = {u"Contoso.Orders.OrderPlaced"_s, u"Contoso.Orders.OrderCancelled"_s};
    subscription.filter.subjectBeginsWith = u"/orders/eu/"_s;
    subscription.filter.subjectEndsWith = u".json"_s;

    AdvancedFilter total;
    total.op = FilterOperator::NumberGreaterThanOrEquals;
    total.key = u"data.total"_s;
    total.numbers = {100};
    AdvancedFilter region;
    region.op = FilterOperator::StringIn;
    region.key = u"data.region"_s;
    region.strings = {u"eu-west"_s, u"eu-north"_s, u"Zürich, CH"_s};
    AdvancedFilter priority;
    priority.op = FilterOperator::NumberInRange;
    priority.key = u"data.priority"_s;
    priority.ranges = {{1, 5}, {7, 9}};
    AdvancedFilter isTest;
    isTest.op = FilterOperator::BoolEquals;
    isTest.key = u"data.isTest"_s;
    isTest.boolValue = false;
    AdvancedFilter customer;
    customer.op = FilterOperator::IsNotNull;
    customer.key = u"data.customerId"_s;
    subscription.filter.advancedFilters = {total, region, priority, isTest, customer};

    subscription.retryPolicy.maxDeliveryAttempts = 10;
    subscription.retryPolicy.eventTimeToLiveInMinutes = 30;
    subscription.batchPolicy.enabled = true;
    subscription.batchPolicy.maxEventsPerBatch = 100;
    subscription.batchPolicy.preferredBatchSizeInKilobytes = 256;

    DeliveryHeader tenant;
    tenant.name = u"X-Tenant-Id"_s;
    tenant.value = u"contoso-eu"_s;
    DeliveryHeader correlation;
    correlation.name = u"X-Correlation-Id"_s;
    correlation.kind = DeliveryHeader::Kind::Dynamic;
    correlation.sourceField = u"data.correlationId"_s;
    DeliveryHeader authorization;
    authorization.name = u"Authorization"_s;
    authorization.value = u"Bearer 3f9c2e7a"_s;
    authorization.secret = true;
    subscription.deliveryHeaders = {tenant, correlation, authorization};

    subscription.deadLetterDestination.kind = DeadLetterDestination::Kind::LocalFolder;
    subscription.deadLetterDestination.resourceId = u"local"_s;
    subscription.deadLetterDestination.blobContainerName = u"deadletters"_s;
    return subscription;
}

QStringList listRows(QTreeWidget *list)
{
    QStringList rows;
    for (int row = 0; row < list->topLevelItemCount(); ++row) {
        const QTreeWidgetItem *item = list->topLevelItem(row);
        rows.append(item->text(0) + u" — "_s + item->text(1));
    }
    return rows;
}

// True when the focused widget is a cell editor (line edit) inside `view`.
bool isCellEditor(QAbstractItemView *view)
{
    QWidget *focus = QApplication::focusWidget();
    return qobject_cast<QLineEdit *>(focus) && view->isAncestorOf(focus);
}

void saveShot(QWidget *widget, const QString &name)
{
    QDir().mkpath(ShotDirectory);
    const QString path = ShotDirectory + u"/editor-"_s + name + u".png"_s;
    QVERIFY2(widget->grab().save(path), qPrintable(path));
}

} // namespace

class TestSubscriptionEditor : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void retryPreviewR9();
    void retryPreviewNoRetry_data();
    void retryPreviewNoRetry();
    void retryPreviewDropsWithoutDeadLetter();
    void editorPreviewFollowsRetryPolicy();
    void maxAttemptsOutOfRangeBlocksSave();
    void ttlShownInHours();
    void nameRule();
    void existingNameIsReadOnly();
    void endpointHostThatDoesNotResolveIsFlagged();
    void batchingOffByDefault();
    void batchingRangeNamesLimit();
    void headerRulesRefused();
    void headerSecretMaskedUntilRevealed();
    void headersLimitedToTen();
    void advancedFilterValueLimit();
    void advancedFilterParsing();
    void deadLetterAzureFields();
    void deliverySchemaFollowsTopic();
    void unsavedChangesTracked();
    void saveErrorShown();
    void askToSaveReturnsChoice();
    void modelsPassTester();
    void screenshots();
};

void TestSubscriptionEditor::retryPreviewR9()
{
    RetryTimelineView view;
    RetryPolicy policy;
    policy.maxDeliveryAttempts = 10;
    policy.eventTimeToLiveInMinutes = 30;
    view.setPolicy(policy, true);
    auto *combo = child<QComboBox>(&view, u"failureMode"_s);
    // A webhook's answers: 500, 503, 429, 408, 404, no answer, refused, unresolved, then the
    // four that are not retried (R2): 400, 401, 403, 413.
    QCOMPARE(combo->count(), 12);
    combo->setCurrentIndex(combo->findText(u"Always 500 (GenericError)"_s));
    QCOMPARE(view.failureMode(), RetryTimelineView::FailureMode::Always500);

    // SPEC R9: 0 s, 10 s, 40 s, 1 min 40 s, 6 min 40 s, 16 min 40 s; dead letter at 46 min 40 s.
    const RetryPlanner::Timeline timeline = view.timeline();
    QCOMPARE(timeline.attempts.size(), 6);
    const QList<qint64> expected = {0, 10'000, 40'000, 100'000, 400'000, 1'000'000};
    for (int index = 0; index < expected.size(); ++index) {
        QCOMPARE(timeline.attempts.at(index).attempt, index + 1);
        QCOMPARE(timeline.attempts.at(index).atMs, expected.at(index));
    }
    QCOMPARE(timeline.fate, RetryDecision::Action::DeadLetter);
    QCOMPARE(timeline.reason, DeadLetterReason::TimeToLiveExceeded);
    QCOMPARE(timeline.fateAtMs, 2'800'000);

    auto *list = child<QTreeWidget>(&view, u"timelineList"_s);
    const QStringList rows = listRows(list);
    QCOMPARE(rows,
             QStringList({u"Attempt 1 — 0 s"_s, u"Attempt 2 — 10 s"_s, u"Attempt 3 — 40 s"_s,
                          u"Attempt 4 — 1 min 40 s"_s, u"Attempt 5 — 6 min 40 s"_s,
                          u"Attempt 6 — 16 min 40 s"_s,
                          u"Dead-lettered (TimeToLiveExceeded) — 46 min 40 s"_s}));
    QCOMPARE(list->topLevelItem(6)->text(2), u"+30 min"_s);
    const QString summary = child<QLabel>(&view, u"timelineSummary"_s)->text();
    QVERIFY2(summary.contains(u"6 attempts"_s) && summary.contains(u"46 min 40 s"_s),
             qPrintable(summary));
}

void TestSubscriptionEditor::retryPreviewNoRetry_data()
{
    QTest::addColumn<QString>("mode");
    QTest::addColumn<QString>("fateRow");
    QTest::newRow("400") << u"Always 400 (BadRequest, no retry)"_s
                         << u"Dead-lettered (UndeliverableDueToHttpBadRequest) — 0 s"_s;
    QTest::newRow("401") << u"Always 401 (Unauthorized, no retry)"_s
                         << u"Dead-lettered (UndeliverableDueToHttpUnauthorized) — 0 s"_s;
}

void TestSubscriptionEditor::retryPreviewNoRetry()
{
    QFETCH(QString, mode);
    QFETCH(QString, fateRow);
    RetryTimelineView view;
    view.setPolicy(RetryPolicy(), true);
    auto *combo = child<QComboBox>(&view, u"failureMode"_s);
    combo->setFocus();
    const int index = combo->findText(mode);
    QVERIFY(index > 0);
    // Reach the mode with the keyboard, as a user would.
    for (int step = combo->currentIndex(); step < index; ++step)
        QTest::keyClick(combo, Qt::Key_Down);
    QCOMPARE(combo->currentIndex(), index);

    QCOMPARE(view.timeline().attempts.size(), 1);
    QCOMPARE(view.timeline().attempts.front().atMs, 0);
    QCOMPARE(view.timeline().fate, RetryDecision::Action::DeadLetter);
    const QStringList rows = listRows(child<QTreeWidget>(&view, u"timelineList"_s));
    QCOMPARE(rows, QStringList({u"Attempt 1 — 0 s"_s, fateRow}));
}

void TestSubscriptionEditor::retryPreviewDropsWithoutDeadLetter()
{
    RetryTimelineView view;
    RetryPolicy policy;
    policy.maxDeliveryAttempts = 3;
    policy.eventTimeToLiveInMinutes = 1440;
    view.setPolicy(policy, false);
    view.setFailureMode(RetryTimelineView::FailureMode::Always503);
    // 503: at least 30 s between attempts (R4), so 0 s, 30 s, 1 min 0 s; then the limit (R8).
    const RetryPlanner::Timeline timeline = view.timeline();
    QCOMPARE(timeline.attempts.size(), 3);
    QCOMPARE(timeline.attempts.at(1).atMs, 30'000);
    QCOMPARE(timeline.attempts.at(2).atMs, 60'000);
    QCOMPARE(timeline.fate, RetryDecision::Action::Drop);
    QCOMPARE(timeline.reason, DeadLetterReason::MaxDeliveryAttemptsExceeded);
    const QStringList rows = listRows(child<QTreeWidget>(&view, u"timelineList"_s));
    QCOMPARE(rows.last(), u"Dropped (MaxDeliveryAttemptsExceeded) — 1 min"_s);

    // Timeouts fail 30 s after sending (D6): the schedule counts from then.
    view.setFailureMode(RetryTimelineView::FailureMode::Timeout);
    QCOMPARE(view.timeline().attempts.at(1).atMs, 40'000);

    // An out-of-range policy shows no schedule rather than a wrong one.
    policy.maxDeliveryAttempts = 31;
    view.setPolicy(policy, false);
    QVERIFY(view.timeline().attempts.isEmpty());
    QCOMPARE(child<QTreeWidget>(&view, u"timelineList"_s)->topLevelItemCount(), 0);
}

void TestSubscriptionEditor::editorPreviewFollowsRetryPolicy()
{
    SubscriptionEditor editor;
    editor.setSubscription(makeTopic(), minimalSubscription(), true);
    editor.show();
    QVERIFY(QTest::qWaitForWindowActive(&editor));
    retype(child<LimitSpinBox>(&editor, u"maxAttemptsSpin"_s), u"10"_s);
    retype(child<LimitSpinBox>(&editor, u"ttlSpin"_s), u"30"_s);
    auto *deadLetter = child<QComboBox>(&editor, u"deadLetterCombo"_s);
    deadLetter->setCurrentIndex(1); // local folder
    retype(child<QLineEdit>(&editor, u"deadLetterContainerEdit"_s), u"deadletters"_s);
    RetryTimelineView *view = editor.retryTimelineView();
    view->setFailureMode(RetryTimelineView::FailureMode::Always500);

    QCOMPARE(view->timeline().attempts.size(), 6);
    QCOMPARE(view->timeline().fateAtMs, 2'800'000);
    QCOMPARE(view->timeline().fate, RetryDecision::Action::DeadLetter);
    const QStringList rows = listRows(child<QTreeWidget>(view, u"timelineList"_s));
    QCOMPARE(rows.size(), 7);
    QCOMPARE(rows.last(), u"Dead-lettered (TimeToLiveExceeded) — 46 min 40 s"_s);

    // Without a dead-letter destination the same event is dropped (L1).
    deadLetter->setCurrentIndex(0);
    QCOMPARE(view->timeline().fate, RetryDecision::Action::Drop);
    QVERIFY(editor.isValid());
}

void TestSubscriptionEditor::maxAttemptsOutOfRangeBlocksSave()
{
    SubscriptionEditor editor;
    editor.setSubscription(makeTopic(), minimalSubscription(), true);
    editor.show();
    QVERIFY(QTest::qWaitForWindowActive(&editor));
    auto *save = child<QPushButton>(&editor, u"saveButton"_s);
    auto *error = child<QLabel>(&editor, u"maxAttemptsError"_s);
    QVERIFY(editor.isValid());
    QVERIFY(save->isEnabled());
    QVERIFY(!error->isVisible());

    QSignalSpy validity(&editor, &SubscriptionEditor::validityChanged);
    auto *spin = child<LimitSpinBox>(&editor, u"maxAttemptsSpin"_s);
    retype(spin, u"31"_s);
    QCOMPARE(spin->text(), u"31"_s); // the typed value stays visible
    QVERIFY(!editor.isValid());
    QVERIFY(!save->isEnabled());
    QTRY_VERIFY(error->isVisible());
    QVERIFY2(error->text().contains(u"Max delivery attempts"_s), qPrintable(error->text()));
    QVERIFY2(error->text().contains(u"from 1 to 30"_s), qPrintable(error->text()));
    QVERIFY(child<QLabel>(&editor, u"summaryLabel"_s)->text().contains(u"from 1 to 30"_s));
    QCOMPARE(validity.size(), 1);
    QCOMPARE(validity.front().front().toBool(), false);

    // Clicking Save while invalid does not emit.
    QSignalSpy saved(&editor, &SubscriptionEditor::saveRequested);
    QTest::mouseClick(save, Qt::LeftButton);
    QCOMPARE(saved.size(), 0);

    // Arrow keys stay inside the range.
    QTest::keyClick(spin, Qt::Key_Up);
    QCOMPARE(spin->value(), 30);
    QVERIFY(editor.isValid());

    retype(spin, u"12"_s);
    QVERIFY(editor.isValid());
    QVERIFY(!error->isVisible());
    QVERIFY(save->isEnabled());
    QCOMPARE(validity.size(), 2);
    QCOMPARE(validity.back().front().toBool(), true);

    retype(child<QLineEdit>(&editor, u"endpointEdit"_s), u"https://hooks.example.org/in"_s);
    QTest::mouseClick(save, Qt::LeftButton);
    QCOMPARE(saved.size(), 1);
    const auto result = saved.front().front().value<EventSubscription>();
    QCOMPARE(result.name, u"billing"_s);
    QCOMPARE(result.retryPolicy.maxDeliveryAttempts, 12);
    QCOMPARE(result.retryPolicy.eventTimeToLiveInMinutes, 1440);
    QCOMPARE(result.endpointUrl, QUrl(u"https://hooks.example.org/in"_s));
    QVERIFY(!result.batchPolicy.enabled);
}

void TestSubscriptionEditor::ttlShownInHours()
{
    SubscriptionEditor editor;
    editor.setSubscription(makeTopic(), minimalSubscription(), true);
    auto *hours = child<QLabel>(&editor, u"ttlHoursLabel"_s);
    QCOMPARE(hours->text(), u"= 24 h"_s);
    auto *ttl = child<LimitSpinBox>(&editor, u"ttlSpin"_s);
    retype(ttl, u"90"_s);
    QCOMPARE(ttl->value(), 90);
    QCOMPARE(hours->text(), u"= %1 h"_s.arg(QLocale().toString(1.5, 'f', 1)));
    retype(ttl, u"1441"_s);
    auto *error = child<QLabel>(&editor, u"ttlError"_s);
    QVERIFY2(error->text().contains(u"from 1 to 1440"_s), qPrintable(error->text()));
    QVERIFY(!editor.isValid());
    retype(ttl, u"0"_s);
    QVERIFY2(error->text().contains(u"from 1 to 1440 (got 0)"_s), qPrintable(error->text()));
}

void TestSubscriptionEditor::nameRule()
{
    SubscriptionEditor editor;
    editor.setSubscription(makeTopic(), minimalSubscription(), true);
    editor.show();
    QVERIFY(QTest::qWaitForWindowActive(&editor));
    auto *name = child<QLineEdit>(&editor, u"nameEdit"_s);
    auto *error = child<QLabel>(&editor, u"nameError"_s);
    auto *save = child<QPushButton>(&editor, u"saveButton"_s);
    QVERIFY(!name->isReadOnly());

    retype(name, u"ab"_s);
    QVERIFY(error->isVisible());
    QVERIFY2(error->text().contains(u"3 to 64 characters"_s), qPrintable(error->text()));
    QVERIFY(!save->isEnabled());

    retype(name, u"billing_v2"_s);
    QVERIFY2(error->text().contains(u"\"billing_v2\""_s), qPrintable(error->text()));
    QVERIFY(!save->isEnabled());

    retype(name, QString(65, u'a'));
    QVERIFY(error->isVisible());

    retype(name, u"billing-v2"_s);
    QVERIFY(!error->isVisible());
    QVERIFY(save->isEnabled());
    QCOMPARE(editor.subscription().name, u"billing-v2"_s);

    // Several problems at once: each field shows its own message.
    retype(name, u"x"_s);
    retype(child<QLineEdit>(&editor, u"endpointEdit"_s), u"ftp://nowhere"_s);
    QVERIFY(error->isVisible());
    auto *endpointError = child<QLabel>(&editor, u"endpointError"_s);
    QVERIFY(endpointError->isVisible());
    QVERIFY2(endpointError->text().contains(u"http or https"_s), qPrintable(endpointError->text()));
}

// A host that does not resolve (".invalid" never does, RFC 2606) is flagged before saving, as a
// warning that does not block the save: the host may come up later.
void TestSubscriptionEditor::endpointHostThatDoesNotResolveIsFlagged()
{
    SubscriptionEditor editor;
    editor.setSubscription(makeTopic(), minimalSubscription(), true);
    editor.show();
    QVERIFY(QTest::qWaitForWindowActive(&editor));
    auto *endpoint = child<QLineEdit>(&editor, u"endpointEdit"_s);
    auto *warning = child<QLabel>(&editor, u"endpointHostWarning"_s);
    auto *save = child<QPushButton>(&editor, u"saveButton"_s);

    retype(endpoint, u"http://nowhere.invalid/hook"_s);
    QTRY_VERIFY_WITH_TIMEOUT(warning->isVisible(), 20'000);
    QVERIFY2(warning->text().contains(u"“nowhere.invalid” does not resolve"_s), qPrintable(warning->text()));
    QVERIFY(save->isEnabled());
    editor.resize(1000, 500);
    saveShot(&editor, u"unresolvable-host"_s);

    // The warning goes as soon as the field changes.
    retype(endpoint, u"http://127.0.0.1:7071/api/hook"_s);
    QVERIFY(!warning->isVisible());
}

void TestSubscriptionEditor::existingNameIsReadOnly()
{
    SubscriptionEditor editor;
    editor.setSubscription(makeTopic(), minimalSubscription(), false);
    QVERIFY(child<QLineEdit>(&editor, u"nameEdit"_s)->isReadOnly());
    QVERIFY(!editor.isModified());
    QVERIFY(!child<QPushButton>(&editor, u"saveButton"_s)->isEnabled());
}

void TestSubscriptionEditor::batchingOffByDefault()
{
    SubscriptionEditor editor;
    editor.setSubscription(makeTopic(), minimalSubscription(), true);
    auto *group = child<QGroupBox>(&editor, u"batchingGroup"_s);
    QVERIFY(group->isCheckable());
    QVERIFY(!group->isChecked());
    QVERIFY(!child<LimitSpinBox>(&editor, u"maxEventsSpin"_s)->isEnabled());
    QVERIFY(!editor.subscription().batchPolicy.enabled);
    group->setChecked(true);
    const EventSubscription subscription = editor.subscription();
    QVERIFY(subscription.batchPolicy.enabled);
    QCOMPARE(subscription.batchPolicy.maxEventsPerBatch, 1); // B2 defaults
    QCOMPARE(subscription.batchPolicy.preferredBatchSizeInKilobytes, 64);
}

void TestSubscriptionEditor::batchingRangeNamesLimit()
{
    SubscriptionEditor editor;
    editor.setSubscription(makeTopic(), minimalSubscription(), true);
    child<QGroupBox>(&editor, u"batchingGroup"_s)->setChecked(true);
    retype(child<LimitSpinBox>(&editor, u"maxEventsSpin"_s), u"5001"_s);
    auto *eventsError = child<QLabel>(&editor, u"maxEventsError"_s);
    QVERIFY2(eventsError->text().contains(u"from 1 to 5000"_s), qPrintable(eventsError->text()));
    retype(child<LimitSpinBox>(&editor, u"preferredSizeSpin"_s), u"2048"_s);
    auto *sizeError = child<QLabel>(&editor, u"preferredSizeError"_s);
    QVERIFY2(sizeError->text().contains(u"from 1 to 1024"_s), qPrintable(sizeError->text()));
    QVERIFY(!editor.isValid());
    // Turning batching off makes its settings irrelevant (B1).
    child<QGroupBox>(&editor, u"batchingGroup"_s)->setChecked(false);
    QVERIFY(editor.isValid());
}

void TestSubscriptionEditor::headerRulesRefused()
{
    SubscriptionEditor editor;
    editor.setSubscription(makeTopic(), minimalSubscription(), true);
    editor.show();
    QVERIFY(QTest::qWaitForWindowActive(&editor));
    auto *view = child<QTableView>(&editor, u"headersView"_s);
    auto *error = child<QLabel>(&editor, u"headersError"_s);
    QTest::mouseClick(child<QPushButton>(&editor, u"addHeaderButton"_s), Qt::LeftButton);
    QCOMPARE(view->model()->rowCount(), 1);

    // The name cell is being edited: type into its editor and commit with Return.
    QTRY_VERIFY(isCellEditor(view));
    QTest::keyClicks(QApplication::focusWidget(), u"aeg-custom"_s);
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Return);
    // The delegate commits on Return through a queued call.
    QTRY_COMPARE(view->model()->index(0, DeliveryHeaderModel::NameColumn).data().toString(),
                 u"aeg-custom"_s);
    QVERIFY(!editor.isValid());
    QVERIFY(error->isVisible());
    QVERIFY2(error->text().contains(u"must not start with \"aeg-\""_s), qPrintable(error->text()));
    QVERIFY(!child<QPushButton>(&editor, u"saveButton"_s)->isEnabled());

    QAbstractItemModel *model = view->model();
    QVERIFY(model->setData(model->index(0, DeliveryHeaderModel::NameColumn), u"X-Tenant"_s));
    QVERIFY(editor.isValid());

    // Values with CR or LF would split the HTTP header (H1).
    QVERIFY(model->setData(model->index(0, DeliveryHeaderModel::ValueColumn),
                           u"contoso\r\nX-Injected: 1"_s));
    QVERIFY(!editor.isValid());
    QVERIFY2(error->text().contains(u"CR, LF"_s), qPrintable(error->text()));
    QVERIFY(!model->index(0, 0).data(Qt::DecorationRole).isNull());

    QVERIFY(model->setData(model->index(0, DeliveryHeaderModel::ValueColumn), u"contoso"_s));
    QVERIFY(editor.isValid());
    QVERIFY(model->index(0, 0).data(Qt::DecorationRole).isNull());

    // A duplicate name (case-insensitive) is refused too.
    QTest::mouseClick(child<QPushButton>(&editor, u"addHeaderButton"_s), Qt::LeftButton);
    QTRY_VERIFY(isCellEditor(view));
    QTest::keyClicks(QApplication::focusWidget(), u"x-tenant"_s);
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Return);
    QTRY_COMPARE(view->model()->index(1, DeliveryHeaderModel::NameColumn).data().toString(),
                 u"x-tenant"_s);
    QVERIFY2(error->text().contains(u"Header 2 name"_s) && error->text().contains(u"duplicate"_s),
             qPrintable(error->text()));

    const QList<DeliveryHeader> headers = editor.subscription().deliveryHeaders;
    QCOMPARE(headers.size(), 2);
    QCOMPARE(headers.front().value, u"contoso"_s);
}

void TestSubscriptionEditor::headerSecretMaskedUntilRevealed()
{
    EventSubscription subscription = minimalSubscription();
    DeliveryHeader secret;
    secret.name = u"Authorization"_s;
    secret.value = u"Bearer abc"_s;
    subscription.deliveryHeaders = {secret};
    SubscriptionEditor editor;
    editor.setSubscription(makeTopic(), subscription, false);
    QAbstractItemModel *model = child<QTableView>(&editor, u"headersView"_s)->model();
    const QModelIndex value = model->index(0, DeliveryHeaderModel::ValueColumn);
    const QModelIndex secretBox = model->index(0, DeliveryHeaderModel::SecretColumn);
    QCOMPARE(value.data().toString(), u"Bearer abc"_s);
    QVERIFY(model->setData(secretBox, Qt::Checked, Qt::CheckStateRole));
    QVERIFY(!value.data().toString().contains(u"abc"_s));
    QVERIFY(value.data(MaskedEditRole).toBool());
    QVERIFY(editor.isModified());

    auto *reveal = child<QCheckBox>(&editor, u"revealSecretsCheck"_s);
    reveal->click();
    QCOMPARE(value.data().toString(), u"Bearer abc"_s);
    reveal->click();
    QVERIFY(!value.data().toString().contains(u"abc"_s));

    const EventSubscription edited = editor.subscription();
    QVERIFY(edited.deliveryHeaders.front().secret);
    QCOMPARE(edited.deliveryHeaders.front().value, u"Bearer abc"_s);

    // A dynamic header cannot be secret: switching type clears it.
    QVERIFY(model->setData(model->index(0, DeliveryHeaderModel::TypeColumn),
                           int(DeliveryHeader::Kind::Dynamic)));
    QVERIFY(secretBox.data(Qt::CheckStateRole).isNull());
    QVERIFY(!(model->flags(secretBox) & Qt::ItemIsUserCheckable));
    QVERIFY(!editor.isValid()); // Dynamic needs a source field
    QVERIFY(model->setData(value, u"data.token"_s));
    QVERIFY(editor.isValid());
    QCOMPARE(editor.subscription().deliveryHeaders.front().sourceField, u"data.token"_s);
}

void TestSubscriptionEditor::headersLimitedToTen()
{
    SubscriptionEditor editor;
    editor.setSubscription(makeTopic(), minimalSubscription(), true);
    editor.show();
    QVERIFY(QTest::qWaitForWindowActive(&editor));
    auto *add = child<QPushButton>(&editor, u"addHeaderButton"_s);
    QAbstractItemModel *model = child<QTableView>(&editor, u"headersView"_s)->model();
    for (int index = 0; index < 10; ++index) {
        QVERIFY(add->isEnabled());
        add->click();
        QVERIFY(model->setData(model->index(index, 0), u"X-Header-%1"_s.arg(index)));
    }
    QCOMPARE(model->rowCount(), 10);
    QVERIFY(!add->isEnabled());
    QCOMPARE(child<QLabel>(&editor, u"headerCountLabel"_s)->text(), u"10 of 10 headers"_s);
    add->click();
    QCOMPARE(model->rowCount(), 10);
    QVERIFY(editor.isValid());

    auto *view = child<QTableView>(&editor, u"headersView"_s);
    view->setCurrentIndex(model->index(3, 0));
    child<QPushButton>(&editor, u"removeHeaderButton"_s)->click();
    QCOMPARE(model->rowCount(), 9);
    QVERIFY(add->isEnabled());
    QCOMPARE(model->index(3, 0).data().toString(), u"X-Header-4"_s);
}

void TestSubscriptionEditor::advancedFilterValueLimit()
{
    SubscriptionEditor editor;
    editor.setSubscription(makeTopic(), minimalSubscription(), true);
    editor.show();
    QVERIFY(QTest::qWaitForWindowActive(&editor));
    auto *view = child<QTableView>(&editor, u"advancedFiltersView"_s);
    QAbstractItemModel *model = view->model();
    auto *count = child<QLabel>(&editor, u"filterCountLabel"_s);
    auto *error = child<QLabel>(&editor, u"advancedFiltersError"_s);
    QCOMPARE(count->text(), u"0 of 25 values · 0 of 25 filters"_s);

    QTest::mouseClick(child<QPushButton>(&editor, u"addFilterButton"_s), Qt::LeftButton);
    QTRY_VERIFY(isCellEditor(view));
    QTest::keyClicks(QApplication::focusWidget(), u"data.region"_s);
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Return);
    QTRY_COMPARE(model->index(0, AdvancedFilterModel::KeyColumn).data().toString(),
                 u"data.region"_s);

    QStringList values;
    for (int index = 1; index <= 12; ++index)
        values.append(u"r%1"_s.arg(index));
    QVERIFY(
        model->setData(model->index(0, AdvancedFilterModel::ValuesColumn), values.join(u", "_s)));
    QCOMPARE(count->text(), u"12 of 25 values · 1 of 25 filters"_s);
    QVERIFY(editor.isValid());

    QTest::mouseClick(child<QPushButton>(&editor, u"addFilterButton"_s), Qt::LeftButton);
    QVERIFY(model->setData(model->index(1, AdvancedFilterModel::KeyColumn), u"data.size"_s));
    QVERIFY(model->setData(model->index(1, AdvancedFilterModel::OperatorColumn),
                           int(FilterOperator::NumberIn)));
    QStringList numbers;
    for (int index = 1; index <= 14; ++index)
        numbers.append(QString::number(index));
    QVERIFY(
        model->setData(model->index(1, AdvancedFilterModel::ValuesColumn), numbers.join(u","_s)));
    QCOMPARE(count->text(), u"26 of 25 values · 2 of 25 filters"_s);
    QVERIFY(!editor.isValid());
    QVERIFY(error->isVisible());
    QVERIFY2(error->text().contains(u"at most 25 values"_s), qPrintable(error->text()));
    QVERIFY(!child<QPushButton>(&editor, u"saveButton"_s)->isEnabled());

    view->setCurrentIndex(model->index(0, 0));
    QTest::mouseClick(child<QPushButton>(&editor, u"removeFilterButton"_s), Qt::LeftButton);
    QCOMPARE(count->text(), u"14 of 25 values · 1 of 25 filters"_s);
    QVERIFY(editor.isValid());
    const QList<AdvancedFilter> filters = editor.subscription().filter.advancedFilters;
    QCOMPARE(filters.size(), 1);
    QCOMPARE(filters.front().op, FilterOperator::NumberIn);
    QCOMPARE(filters.front().numbers.size(), 14);
}

void TestSubscriptionEditor::advancedFilterParsing()
{
    SubscriptionEditor editor;
    editor.setSubscription(makeTopic(), minimalSubscription(), true);
    QAbstractItemModel *model = child<QTableView>(&editor, u"advancedFiltersView"_s)->model();
    auto *error = child<QLabel>(&editor, u"advancedFiltersError"_s);
    child<QPushButton>(&editor, u"addFilterButton"_s)->click();
    QVERIFY(model->setData(model->index(0, AdvancedFilterModel::KeyColumn), u"data.n"_s));
    QVERIFY(model->setData(model->index(0, AdvancedFilterModel::OperatorColumn),
                           int(FilterOperator::NumberInRange)));
    QVERIFY(
        model->setData(model->index(0, AdvancedFilterModel::ValuesColumn), u"1-5, 7 - 9, -3--1"_s));
    QVERIFY(editor.isValid());
    QList<AdvancedFilter> filters = editor.subscription().filter.advancedFilters;
    QCOMPARE(filters.front().ranges.size(), 3);
    QCOMPARE(filters.front().ranges.at(2), std::make_pair(-3.0, -1.0));

    QVERIFY(model->setData(model->index(0, AdvancedFilterModel::ValuesColumn), u"1-5, x"_s));
    QVERIFY(!editor.isValid());
    QVERIFY2(error->text().contains(u"\"x\" is not a range"_s), qPrintable(error->text()));

    // A range with min > max is the core's rule and names the pair.
    QVERIFY(model->setData(model->index(0, AdvancedFilterModel::ValuesColumn), u"9-1"_s));
    QVERIFY2(error->text().contains(u"min <= max"_s), qPrintable(error->text()));

    // Quoted strings may contain commas.
    QVERIFY(model->setData(model->index(0, AdvancedFilterModel::OperatorColumn),
                           int(FilterOperator::StringIn)));
    QVERIFY(model->setData(model->index(0, AdvancedFilterModel::ValuesColumn),
                           u"a, \"b, c\", \"say \"\"hi\"\"\""_s));
    filters = editor.subscription().filter.advancedFilters;
    QCOMPARE(filters.front().strings, QStringList({u"a"_s, u"b, c"_s, u"say \"hi\""_s}));
    QCOMPARE(AdvancedFilterModel::valuesText(filters.front()),
             u"a, \"b, c\", \"say \"\"hi\"\"\""_s);

    // BoolEquals uses a check box; IsNotNull takes no value.
    QVERIFY(model->setData(model->index(0, AdvancedFilterModel::OperatorColumn),
                           int(FilterOperator::BoolEquals)));
    const QModelIndex boolCell = model->index(0, AdvancedFilterModel::ValuesColumn);
    QVERIFY(model->flags(boolCell) & Qt::ItemIsUserCheckable);
    QVERIFY(model->setData(boolCell, Qt::Checked, Qt::CheckStateRole));
    QVERIFY(editor.subscription().filter.advancedFilters.front().boolValue);
    QVERIFY(model->setData(model->index(0, AdvancedFilterModel::OperatorColumn),
                           int(FilterOperator::IsNotNull)));
    QVERIFY(!(model->flags(boolCell) & Qt::ItemIsEditable));
    QCOMPARE(model->index(0, AdvancedFilterModel::CountColumn).data().toInt(), 0);
    QVERIFY(editor.isValid());
}

void TestSubscriptionEditor::deadLetterAzureFields()
{
    SubscriptionEditor editor;
    editor.setSubscription(makeTopic(), minimalSubscription(), true);
    editor.show();
    QVERIFY(QTest::qWaitForWindowActive(&editor));
    auto *combo = child<QComboBox>(&editor, u"deadLetterCombo"_s);
    auto *account = child<QLineEdit>(&editor, u"deadLetterAccountEdit"_s);
    auto *container = child<QLineEdit>(&editor, u"deadLetterContainerEdit"_s);
    QVERIFY(!account->isVisible());
    QVERIFY(!container->isVisible());

    combo->setCurrentIndex(combo->findData(int(DeadLetterDestination::Kind::AzureBlob)));
    QVERIFY(account->isVisible());
    QVERIFY(container->isVisible());
    QVERIFY(!editor.isValid());
    auto *accountError = child<QLabel>(&editor, u"deadLetterAccountError"_s);
    QVERIFY2(accountError->text().contains(u"Storage account name"_s),
             qPrintable(accountError->text()));

    retype(account, u"devstoreaccount1"_s);
    retype(container, u"Dead_Letters"_s);
    auto *containerError = child<QLabel>(&editor, u"deadLetterContainerError"_s);
    QVERIFY2(containerError->text().contains(u"3 to 63 characters"_s),
             qPrintable(containerError->text()));
    retype(container, u"dead-letters"_s);
    retype(child<QLineEdit>(&editor, u"deadLetterEndpointEdit"_s),
           u"http://127.0.0.1:10000/devstoreaccount1"_s);
    QVERIFY2(editor.isValid(), qPrintable(editor.validationMessage()));
    const DeadLetterDestination destination = editor.subscription().deadLetterDestination;
    QCOMPARE(destination.kind, DeadLetterDestination::Kind::AzureBlob);
    QCOMPARE(destination.accountName, u"devstoreaccount1"_s);
    QCOMPARE(destination.blobContainerName, u"dead-letters"_s);
    QCOMPARE(destination.blobEndpoint, QUrl(u"http://127.0.0.1:10000/devstoreaccount1"_s));
    QVERIFY(destination.resourceId.endsWith(u"/storageAccounts/devstoreaccount1"_s));
}

void TestSubscriptionEditor::deliverySchemaFollowsTopic()
{
    SubscriptionEditor editor;
    EventSubscription subscription = minimalSubscription();
    subscription.deliverySchema = EventSchema::CloudEvents10;
    editor.setSubscription(makeTopic(EventSchema::CloudEvents10), subscription, true);
    auto *combo = child<QComboBox>(&editor, u"deliverySchemaCombo"_s);
    QCOMPARE(combo->count(), 3);
    const auto enabled = [combo](EventSchema schema) {
        const QModelIndex index = combo->model()->index(combo->findData(int(schema)), 0);
        return bool(combo->model()->flags(index) & Qt::ItemIsEnabled);
    };
    // S4: a CloudEvents topic delivers CloudEvents only.
    QVERIFY(enabled(EventSchema::CloudEvents10));
    QVERIFY(!enabled(EventSchema::EventGrid));
    QVERIFY(!enabled(EventSchema::Custom));
    QVERIFY(editor.isValid());

    editor.setSubscription(makeTopic(EventSchema::EventGrid), minimalSubscription(), true);
    QVERIFY(enabled(EventSchema::EventGrid));
    QVERIFY(enabled(EventSchema::CloudEvents10));
    QVERIFY(!enabled(EventSchema::Custom));
}

void TestSubscriptionEditor::unsavedChangesTracked()
{
    SubscriptionEditor editor;
    editor.setSubscription(makeTopic(), realisticSubscription(), false);
    QVERIFY(editor.isValid());
    QVERIFY(!editor.isModified());
    QSignalSpy modified(&editor, &SubscriptionEditor::modifiedChanged);
    auto *revert = child<QPushButton>(&editor, u"revertButton"_s);
    auto *save = child<QPushButton>(&editor, u"saveButton"_s);
    QVERIFY(!revert->isEnabled());
    QVERIFY(!save->isEnabled());

    auto *endpoint = child<QLineEdit>(&editor, u"endpointEdit"_s);
    const QString original = endpoint->text();
    retype(endpoint, u"https://billing.contoso.example/api/v2"_s);
    QVERIFY(editor.isModified());
    QCOMPARE(modified.size(), 1);
    QVERIFY(revert->isEnabled());
    QVERIFY(save->isEnabled());

    // Typing the old value back is not a change.
    retype(endpoint, original);
    QVERIFY(!editor.isModified());
    QCOMPARE(modified.size(), 2);

    child<QCheckBox>(&editor, u"caseSensitiveCheck"_s)->click();
    QVERIFY(editor.isModified());
    QSignalSpy reverted(&editor, &SubscriptionEditor::revertRequested);
    QTest::mouseClick(revert, Qt::LeftButton);
    QCOMPARE(reverted.size(), 1);
    QVERIFY(!editor.isModified());
    QVERIFY(!child<QCheckBox>(&editor, u"caseSensitiveCheck"_s)->isChecked());

    // After a successful save the new values are the baseline.
    retype(child<LimitSpinBox>(&editor, u"maxAttemptsSpin"_s), u"5"_s);
    QSignalSpy saved(&editor, &SubscriptionEditor::saveRequested);
    QTest::mouseClick(save, Qt::LeftButton);
    QCOMPARE(saved.size(), 1);
    QVERIFY(editor.isModified()); // not yet confirmed by the lead
    editor.markSaved();
    QVERIFY(!editor.isModified());
    QVERIFY(!save->isEnabled());
    QCOMPARE(editor.subscription().retryPolicy.maxDeliveryAttempts, 5);
    QCOMPARE(modified.last().front().toBool(), false);

    // A new subscription counts as unsaved until saved.
    editor.setSubscription(makeTopic(), minimalSubscription(), true);
    QVERIFY(editor.isModified());
    QVERIFY(save->isEnabled());
    editor.markSaved();
    QVERIFY(!editor.isModified());
    QVERIFY(child<QLineEdit>(&editor, u"nameEdit"_s)->isReadOnly());
}

void TestSubscriptionEditor::saveErrorShown()
{
    SubscriptionEditor editor;
    editor.setSubscription(makeTopic(), minimalSubscription(), true);
    editor.show();
    QVERIFY(QTest::qWaitForWindowActive(&editor));
    auto *label = child<QLabel>(&editor, u"saveErrorLabel"_s);
    QVERIFY(!label->isVisible());
    editor.showSaveError(u"name: duplicate event subscription name \"billing\" in topic"_s);
    QVERIFY(label->isVisible());
    QVERIFY(label->text().contains(u"duplicate"_s));
    QTRY_COMPARE(QApplication::focusWidget(), child<QLineEdit>(&editor, u"nameEdit"_s));
    // The next edit clears it.
    QTest::keyClicks(child<QLineEdit>(&editor, u"nameEdit"_s), u"-2"_s);
    QVERIFY(!label->isVisible());
    QCOMPARE(editor.subscription().name, u"billing-2"_s);
}

void TestSubscriptionEditor::askToSaveReturnsChoice()
{
    QWidget parent;
    parent.show();
    QVERIFY(QTest::qWaitForWindowExposed(&parent));
    const auto answerWith = [](QMessageBox::StandardButton button) {
        QTimer::singleShot(0, qApp, [button] {
            auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
            QVERIFY(box);
            QVERIFY(box->text().contains(u"billing"_s));
            QTest::mouseClick(box->button(button), Qt::LeftButton);
        });
    };
    answerWith(QMessageBox::Discard);
    QCOMPARE(SubscriptionEditor::askToSave(&parent, u"billing"_s),
             SubscriptionEditor::DiscardChoice::Discard);
    answerWith(QMessageBox::Save);
    QCOMPARE(SubscriptionEditor::askToSave(&parent, u"billing"_s),
             SubscriptionEditor::DiscardChoice::Save);
    answerWith(QMessageBox::Cancel);
    QCOMPARE(SubscriptionEditor::askToSave(&parent, u"billing"_s),
             SubscriptionEditor::DiscardChoice::Cancel);
}

void TestSubscriptionEditor::modelsPassTester()
{
    {
        AdvancedFilterModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setFilters(realisticSubscription().filter.advancedFilters);
        QCOMPARE(model.rowCount(), 5);
        QCOMPARE(model.totalValueCount(), 1 + 3 + 2 + 1 + 0);
        QCOMPARE(model.index(1, AdvancedFilterModel::ValuesColumn).data().toString(),
                 u"eu-west, eu-north, \"Zürich, CH\""_s);
        QCOMPARE(model.index(2, AdvancedFilterModel::ValuesColumn).data().toString(),
                 u"1-5, 7-9"_s);
        const int row = model.addFilter();
        QCOMPARE(row, 5);
        QVERIFY(model.setData(model.index(row, AdvancedFilterModel::OperatorColumn),
                              int(FilterOperator::NumberLessThan)));
        QVERIFY(model.setData(model.index(row, AdvancedFilterModel::ValuesColumn), u"7"_s));
        QVERIFY(!model.setData(model.index(row, AdvancedFilterModel::CountColumn), 3));
        model.setRowErrors({{row, u"problem"_s}});
        QCOMPARE(model.index(row, 1).data(Qt::ToolTipRole).toString(), u"problem"_s);
        model.removeFilter(0);
        QCOMPARE(model.rowCount(), 5);
        for (int index = model.rowCount(); index < EventFilter::MaxAdvancedFilters; ++index)
            QVERIFY(model.addFilter() >= 0);
        QCOMPARE(model.addFilter(), -1);
        model.setFilters({});
        QCOMPARE(model.rowCount(), 0);
    }
    {
        DeliveryHeaderModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setHeaders(realisticSubscription().deliveryHeaders);
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.index(1, DeliveryHeaderModel::TypeColumn).data().toString(), u"Dynamic"_s);
        QCOMPARE(model.index(1, DeliveryHeaderModel::ValueColumn).data().toString(),
                 u"data.correlationId"_s);
        QVERIFY(model.index(2, DeliveryHeaderModel::ValueColumn).data().toString()
                != u"Bearer 3f9c2e7a"_s);
        model.setSecretsRevealed(true);
        QCOMPARE(model.index(2, DeliveryHeaderModel::ValueColumn).data().toString(),
                 u"Bearer 3f9c2e7a"_s);
        QVERIFY(model.setData(model.index(0, DeliveryHeaderModel::SecretColumn), Qt::Checked,
                              Qt::CheckStateRole));
        model.setRowErrors({{0, u"bad"_s}});
        model.removeHeader(1);
        QCOMPARE(model.rowCount(), 2);
        while (model.canAddHeader())
            model.addHeader();
        QCOMPARE(model.rowCount(), DeliveryHeader::MaxHeaders);
        QCOMPARE(model.addHeader(), -1);
        model.setHeaders({});
        QCOMPARE(model.rowCount(), 0);
    }
}

void TestSubscriptionEditor::screenshots()
{
    {
        SubscriptionEditor editor;
        editor.setSubscription(makeTopic(), realisticSubscription(), false);
        editor.retryTimelineView()->setFailureMode(RetryTimelineView::FailureMode::Always500);
        // Tall enough to show every section without scrolling.
        auto *scroll = child<QScrollArea>(&editor, u"editorScrollArea"_s);
        const int height = scroll->widget()->sizeHint().height() + 160;
        editor.resize(1000, height);
        editor.show();
        QVERIFY(QTest::qWaitForWindowActive(&editor));
        // An edit in progress: one visible problem, as a user would see it.
        retype(child<LimitSpinBox>(&editor, u"maxAttemptsSpin"_s), u"10"_s);
        QVERIFY(editor.isValid());
        // The preview's list resizes to its text; let the pending relayout happen first.
        RetryTimelineView *preview = editor.retryTimelineView();
        QTRY_VERIFY(child<QTreeWidget>(preview, u"timelineList"_s)->geometry().right()
                    < preview->width());
        saveShot(&editor, u"filled"_s);

        retype(child<LimitSpinBox>(&editor, u"maxAttemptsSpin"_s), u"31"_s);
        QVERIFY(!editor.isValid());
        editor.resize(1000, 700);
        scroll->ensureWidgetVisible(child<QLabel>(&editor, u"ttlHoursLabel"_s), 50, 200);
        saveShot(&editor, u"invalid"_s);
    }
    {
        RetryTimelineView view;
        RetryPolicy policy;
        policy.maxDeliveryAttempts = 10;
        policy.eventTimeToLiveInMinutes = 30;
        view.setPolicy(policy, true);
        view.setFailureMode(RetryTimelineView::FailureMode::Always500);
        view.resize(900, 380);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        saveShot(&view, u"preview-r9"_s);
    }
}

QTEST_MAIN(TestSubscriptionEditor)
#include "tst_subscriptioneditor.moc"
