// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "common/ColumnFitter.h"

#include <QHeaderView>
#include <QStandardItemModel>
#include <QTableView>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace EventDesk::Ui;

class TestColumnFitter final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void columnsFitTheirContent();
    void longTextIsCappedAndElidedWithATooltip();
    void userWidthIsKept();
    void hiddenViewIsFittedWhenShown();
};

namespace {

// Columns: a short id, a long reason, a very long text (capped), a last stretched column.
QStandardItemModel *createModel(QObject *parent)
{
    auto *model = new QStandardItemModel(0, 4, parent);
    model->setHorizontalHeaderLabels({u"Id"_s, u"Reason"_s, u"Text"_s, u"Last"_s});
    return model;
}

void appendRow(QStandardItemModel *model, const QString &reason, const QString &text)
{
    auto *id = new QStandardItem(u"7"_s);
    id->setToolTip(u"Row seven"_s);
    auto *reasonItem = new QStandardItem(reason);
    auto *textItem = new QStandardItem(text);
    textItem->setToolTip(u"Blob a/b.json"_s);
    model->appendRow({id, reasonItem, textItem, new QStandardItem(u"x"_s)});
}

} // namespace

void TestColumnFitter::columnsFitTheirContent()
{
    QTableView view;
    QStandardItemModel *model = createModel(&view);
    view.setModel(model);
    view.resize(600, 300);
    auto *fitter = new ColumnFitter(&view);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));

    const QString reason = u"UndeliverableDueToHttpBadRequest"_s;
    appendRow(model, reason, u"short"_s);
    // The fit happens once the rows are laid out.
    QTRY_VERIFY(view.columnWidth(1) >= view.fontMetrics().horizontalAdvance(reason));
    QVERIFY(view.columnWidth(1) <= fitter->maximumWidth());
    QVERIFY(!ElidedTextToolTipDelegate::isElided(&view, model->index(0, 1)));
    // The short column is narrower than the default section size would leave it wide.
    QVERIFY(view.columnWidth(0) < view.fontMetrics().horizontalAdvance(reason));
    QVERIFY(view.columnWidth(0) >= view.horizontalHeader()->sectionSizeHint(0));
    // A cell that fits keeps the model's tooltip.
    QCOMPARE(ElidedTextToolTipDelegate::toolTip(&view, model->index(0, 0)), u"Row seven"_s);
    QVERIFY(ElidedTextToolTipDelegate::toolTip(&view, model->index(0, 1)).isEmpty());

    // A wider value in a later row widens the column again.
    const QString longer = reason + u"AndMore"_s;
    appendRow(model, longer, u"short"_s);
    QTRY_VERIFY(view.columnWidth(1) >= view.fontMetrics().horizontalAdvance(longer));
}

void TestColumnFitter::longTextIsCappedAndElidedWithATooltip()
{
    QTableView view;
    QStandardItemModel *model = createModel(&view);
    view.setModel(model);
    view.resize(900, 300);
    auto *fitter = new ColumnFitter(&view, 20);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));

    const QString text
        = u"The destination answered 400 Bad Request with a body that goes on and on"_s;
    appendRow(model, u"Busy"_s, text);
    QTRY_COMPARE(view.columnWidth(2), fitter->maximumWidth());
    QVERIFY(ElidedTextToolTipDelegate::isElided(&view, model->index(0, 2)));
    // The whole text first, then what the model says about the cell.
    QCOMPARE(ElidedTextToolTipDelegate::toolTip(&view, model->index(0, 2)),
             text + u"\nBlob a/b.json"_s);

    // Widened by hand until it fits: no longer elided, the tooltip is the model's again.
    view.setColumnWidth(2, view.fontMetrics().horizontalAdvance(text) + 40);
    QVERIFY(!ElidedTextToolTipDelegate::isElided(&view, model->index(0, 2)));
    QCOMPARE(ElidedTextToolTipDelegate::toolTip(&view, model->index(0, 2)), u"Blob a/b.json"_s);
}

void TestColumnFitter::userWidthIsKept()
{
    QTableView view;
    QStandardItemModel *model = createModel(&view);
    view.setModel(model);
    auto *fitter = new ColumnFitter(&view);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    appendRow(model, u"Busy"_s, u"short"_s);
    QTRY_VERIFY(view.columnWidth(1) < 200);

    view.setColumnWidth(1, 333); // a drag of the header handle resizes the section the same way
    QVERIFY(fitter->isUserSized(1));
    QVERIFY(!fitter->isUserSized(0));
    appendRow(model, u"UndeliverableDueToHttpBadRequest"_s, u"short"_s);
    fitter->fit();
    QCOMPARE(view.columnWidth(1), 333);
}

// A QTableView that is not on screen measures every row of its model: rows that arrive while it
// is hidden (a tab in the background) leave the columns alone until it is shown.
void TestColumnFitter::hiddenViewIsFittedWhenShown()
{
    QTableView view;
    QStandardItemModel *model = createModel(&view);
    view.setModel(model);
    view.resize(600, 300);
    new ColumnFitter(&view);
    const int unfitted = view.columnWidth(1);
    const QString reason = u"UndeliverableDueToHttpBadRequest"_s;
    QVERIFY(view.fontMetrics().horizontalAdvance(reason) > unfitted);
    appendRow(model, reason, u"short"_s);
    QTest::qWait(2 * ColumnFitter::MinimumIntervalMs);
    QCOMPARE(view.columnWidth(1), unfitted);

    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QTRY_VERIFY(view.columnWidth(1) >= view.fontMetrics().horizontalAdvance(reason));
}

QTEST_MAIN(TestColumnFitter)
#include "tst_columnfitter.moc"
