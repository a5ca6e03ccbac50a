// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "common/SteadyLabel.h"

#include <QHBoxLayout>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace EventDesk::Ui;

namespace {

// Counts the layout passes the window is asked for.
class LayoutRequests final : public QObject
{
public:
    int count = 0;

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::LayoutRequest)
            ++count;
        return QObject::eventFilter(watched, event);
    }
};

} // namespace

class TestSteadyLabel final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void newDigitsDoNotLayTheWindowOut();
    void longerTextGrowsTheLabel();
    void muchShorterTextShrinksIt();
};

void TestSteadyLabel::newDigitsDoNotLayTheWindowOut()
{
    QWidget window;
    auto *layout = new QHBoxLayout(&window);
    auto *label = new SteadyLabel(u"1000"_s);
    layout->addWidget(label);
    layout->addStretch();
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QCoreApplication::processEvents();
    LayoutRequests requests;
    window.installEventFilter(&requests);

    const int width = label->width();
    for (int value = 1001; value < 1100; ++value)
        label->setSteadyText(QString::number(value));
    QCoreApplication::processEvents();
    QCOMPARE(requests.count, 0);
    QCOMPARE(label->width(), width);
    QCOMPARE(label->text(), u"1099"_s);

    // A plain QLabel asks for a layout pass at every change: what the steady one saves.
    auto *plain = new QLabel(u"1,000"_s);
    layout->addWidget(plain);
    QCoreApplication::processEvents();
    requests.count = 0;
    plain->setText(u"1,001"_s);
    QCoreApplication::processEvents();
    QVERIFY(requests.count > 0);
}

void TestSteadyLabel::longerTextGrowsTheLabel()
{
    QWidget window;
    auto *layout = new QHBoxLayout(&window);
    auto *label = new SteadyLabel(u"0"_s);
    layout->addWidget(label);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const QString longer = u"Published 1,234,567 · Delivered 1,234,000 · Dead-lettered 567"_s;
    label->setSteadyText(longer);
    QCoreApplication::processEvents();
    QVERIFY(label->width() >= label->fontMetrics().horizontalAdvance(longer));
    QCOMPARE(label->minimumWidth(), label->maximumWidth());
}

void TestSteadyLabel::muchShorterTextShrinksIt()
{
    SteadyLabel label(u"Could not open the workspace: the folder is read-only for this user"_s);
    const int wide = label.minimumWidth();
    label.setSteadyText(u"Could not open the workspace: the folder is gone"_s); // more than half
    QCOMPARE(label.minimumWidth(), wide);
    label.setSteadyText(u"Running"_s); // less than half: shrinks
    QVERIFY(label.minimumWidth() < wide);
    QVERIFY(label.minimumWidth() >= label.fontMetrics().horizontalAdvance(u"Running"_s));
}

QTEST_MAIN(TestSteadyLabel)
#include "tst_steadylabel.moc"
