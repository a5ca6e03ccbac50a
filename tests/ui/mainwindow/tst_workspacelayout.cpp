// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// The splitter positions remembered per workspace (WorkspaceLayout), on a window of splitters.

#include "mainwindow/WorkspaceLayout.h"

#include <QSettings>
#include <QSplitter>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;
using namespace EventDesk::Ui;

namespace {

// A stand-in for the main window: a horizontal and a vertical splitter with an object name, and
// one without (not remembered).
struct Window
{
    Window()
    {
        root.resize(1000, 700);
        auto *layout = new QVBoxLayout(&root);
        outer = new QSplitter(Qt::Horizontal);
        outer->setObjectName(u"outer"_s);
        outer->addWidget(new QWidget);
        inner = new QSplitter(Qt::Vertical);
        inner->setObjectName(u"inner"_s);
        inner->addWidget(new QWidget);
        inner->addWidget(new QWidget);
        outer->addWidget(inner);
        unnamed = new QSplitter(Qt::Horizontal);
        unnamed->addWidget(new QWidget);
        unnamed->addWidget(new QWidget);
        layout->addWidget(outer, 1);
        layout->addWidget(unnamed);
        root.show();
    }

    QWidget root;
    QSplitter *outer = nullptr;
    QSplitter *inner = nullptr;
    QSplitter *unnamed = nullptr;
};

int first(const QSplitter *splitter)
{
    return splitter->sizes().constFirst();
}

} // namespace

class TestWorkspaceLayout final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void eachWorkspaceGetsItsOwnPositions();
    void positionsSurviveANewWindow();
    void userDragIsSavedAtOnce();

private:
    QTemporaryDir m_workspaces;
    QString m_a;
    QString m_b;
};

void TestWorkspaceLayout::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_workspaces.isValid());
    m_a = m_workspaces.filePath(u"orders workspace"_s);
    m_b = m_workspaces.filePath(u"billing/ä-ö"_s); // any path makes a valid settings key
}

void TestWorkspaceLayout::init()
{
    QSettings().clear();
}

void TestWorkspaceLayout::eachWorkspaceGetsItsOwnPositions()
{
    Window window;
    QVERIFY(QTest::qWaitForWindowExposed(&window.root));
    WorkspaceLayout layout(&window.root);

    layout.switchTo(m_a);
    QVERIFY(!layout.hasSavedLayout(m_a));
    window.outer->setSizes({200, 800});
    window.inner->setSizes({500, 150});
    const int outerA = first(window.outer);
    const int innerA = first(window.inner);

    // A workspace opened for the first time keeps the window's positions.
    layout.switchTo(m_b);
    QVERIFY(layout.hasSavedLayout(m_a));
    QCOMPARE(first(window.outer), outerA);
    window.outer->setSizes({600, 400});
    window.inner->setSizes({200, 450});
    const int outerB = first(window.outer);
    const int innerB = first(window.inner);
    QVERIFY(outerB != outerA);
    QVERIFY(innerB != innerA);

    layout.switchTo(m_a);
    QCOMPARE(first(window.outer), outerA);
    QCOMPARE(first(window.inner), innerA);
    layout.switchTo(m_b);
    QCOMPARE(first(window.outer), outerB);
    QCOMPARE(first(window.inner), innerB);
    // The same folder spelled differently is the same workspace.
    layout.switchTo(m_a + u"/../orders workspace"_s);
    QCOMPARE(first(window.outer), outerA);
    QCOMPARE(layout.currentWorkspace(), m_a);
}

void TestWorkspaceLayout::positionsSurviveANewWindow()
{
    int outerA = 0;
    {
        Window window;
        QVERIFY(QTest::qWaitForWindowExposed(&window.root));
        WorkspaceLayout layout(&window.root);
        layout.switchTo(m_a);
        window.outer->setSizes({250, 750});
        outerA = first(window.outer);
        layout.save(); // as the window does when it closes
    }
    Window window;
    QVERIFY(QTest::qWaitForWindowExposed(&window.root));
    QVERIFY(first(window.outer) != outerA);
    WorkspaceLayout layout(&window.root);
    layout.switchTo(m_a);
    QCOMPARE(first(window.outer), outerA);
    // A splitter without a name is left alone.
    QSettings settings;
    settings.beginGroup(WorkspaceLayout::settingsGroup(m_a));
    QCOMPARE(settings.value(u"path"_s).toString(), m_a);
    QCOMPARE(settings.childKeys(), QStringList {u"path"_s});
    settings.beginGroup(u"splitters"_s);
    QCOMPARE(settings.childKeys(), (QStringList {u"inner"_s, u"outer"_s}));
}

void TestWorkspaceLayout::userDragIsSavedAtOnce()
{
    Window window;
    QVERIFY(QTest::qWaitForWindowExposed(&window.root));
    WorkspaceLayout layout(&window.root);
    layout.switchTo(m_b);
    QVERIFY(!layout.hasSavedLayout(m_b));
    // Drag the handle between the tree and the tabs 120 px to the left.
    QSplitterHandle *handle = window.outer->handle(1);
    const QPoint middle = handle->rect().center();
    const int before = first(window.outer);
    QTest::mousePress(handle, Qt::LeftButton, {}, middle);
    QMouseEvent move(QEvent::MouseMove, QPointF(middle - QPoint(120, 0)),
                     handle->mapToGlobal(QPointF(middle - QPoint(120, 0))), Qt::NoButton,
                     Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(handle, &move);
    QTest::mouseRelease(handle, Qt::LeftButton, {}, middle - QPoint(120, 0));
    QCOMPARE(first(window.outer), before - 120);
    QVERIFY(layout.hasSavedLayout(m_b));

    Window other;
    QVERIFY(QTest::qWaitForWindowExposed(&other.root));
    WorkspaceLayout otherLayout(&other.root);
    otherLayout.switchTo(m_b);
    QCOMPARE(first(other.outer), before - 120);
}

QTEST_MAIN(TestWorkspaceLayout)
#include "tst_workspacelayout.moc"
