// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// The main window's status bar shows, in a short warning with the details in its tooltip, when the
// store or a dead-letter destination cannot be written (a full disk, a read-only folder), and
// clears it once the engine writes again.

#include "mainwindow/MainStatusBar.h"

#include <QLabel>
#include <QMainWindow>
#include <QStatusBar>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace EventDesk;
using namespace EventDesk::Ui;

namespace {

// The status bar's label whose text contains needle (nullptr if none).
QLabel *labelWith(QStatusBar *bar, const QString &needle)
{
    for (QLabel *label : bar->findChildren<QLabel *>()) {
        if (label->text().contains(needle))
            return label;
    }
    return nullptr;
}

SubscriptionSnapshot subscription(const QString &name, const QString &deadLetterError = {})
{
    SubscriptionSnapshot snapshot;
    snapshot.topic = u"orders"_s;
    snapshot.subscription = name;
    snapshot.deadLetterWriteError = deadLetterError;
    return snapshot;
}

} // namespace

class tst_MainStatusBar final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void storeThatCannotBeWrittenIsShownUntilItRecovers();
    void deadLetterDestinationsThatCannotBeWrittenAreListed();
    void storeErrorShowsAtOnce();
    void endpointThatCannotAcceptIsShownUntilItRecovers();
};

void tst_MainStatusBar::storeThatCannotBeWrittenIsShownUntilItRecovers()
{
    QMainWindow window;
    MainStatusBar status(window.statusBar());
    window.resize(1000, 200);
    window.show();

    EngineSnapshot failing;
    failing.store.writable = false;
    failing.store.writeFailures = 3;
    failing.store.lastError = u"Store /w/eventdesk.db: could not commit: database or disk is full"_s;
    status.showHealth(failing);
    QLabel *warning = labelWith(window.statusBar(), u"Store cannot be written"_s);
    QVERIFY(warning);
    QVERIFY(warning->isVisible());
    QVERIFY2(warning->toolTip().contains(u"database or disk is full"_s), qPrintable(warning->toolTip()));
    QVERIFY(warning->toolTip().contains(u"503"_s));
    // Short enough for the status bar; the details are in the tooltip.
    QVERIFY2(warning->text().size() < 40, qPrintable(warning->text()));

    status.showHealth(EngineSnapshot());
    QVERIFY(!warning->isVisible());
}

void tst_MainStatusBar::deadLetterDestinationsThatCannotBeWrittenAreListed()
{
    QMainWindow window;
    MainStatusBar status(window.statusBar());
    window.show();

    EngineSnapshot snapshot;
    snapshot.subscriptions = {subscription(u"billing"_s, u"Read-only file system"_s),
                              subscription(u"audit"_s),
                              subscription(u"shipping"_s, u"No space left on device"_s)};
    status.showHealth(snapshot);
    QLabel *warning = labelWith(window.statusBar(), u"Dead letters cannot be written"_s);
    QVERIFY(warning);
    QVERIFY(warning->isVisible());
    QVERIFY2(warning->text().contains(u"2 subscription"_s), qPrintable(warning->text()));
    QVERIFY(warning->toolTip().contains(u"orders / billing: Read-only file system"_s));
    QVERIFY(warning->toolTip().contains(u"orders / shipping: No space left on device"_s));
    QVERIFY(!warning->toolTip().contains(u"audit"_s));
    QVERIFY(!warning->text().contains(u"Store"_s));

    snapshot.subscriptions = {subscription(u"billing"_s)};
    status.showHealth(snapshot);
    QVERIFY(!warning->isVisible());
}

void tst_MainStatusBar::storeErrorShowsAtOnce()
{
    QMainWindow window;
    MainStatusBar status(window.statusBar());
    window.show();
    status.showStoreError(u"disk I/O error"_s);
    QLabel *warning = labelWith(window.statusBar(), u"Store cannot be written"_s);
    QVERIFY(warning);
    QVERIFY(warning->isVisible());
    QVERIFY(warning->toolTip().contains(u"disk I/O error"_s));
}

// docs/security.md "The HTTP endpoint": accept() failing (out of file descriptors) is shown, with
// the error in the tooltip, next to the store's warning, and goes away once the endpoint accepts
// again.
void tst_MainStatusBar::endpointThatCannotAcceptIsShownUntilItRecovers()
{
    QMainWindow window;
    MainStatusBar status(window.statusBar());
    window.resize(1100, 120);
    window.show();
    EngineSnapshot snapshot;
    snapshot.endpoint.listening = true;
    snapshot.endpoint.acceptFailing = true;
    snapshot.endpoint.acceptFailures = 12;
    snapshot.endpoint.lastAcceptError = u"Insufficient resources"_s;
    status.showHealth(snapshot);
    QLabel *warning = labelWith(window.statusBar(), u"Topic endpoint cannot accept connections"_s);
    QVERIFY(warning);
    QVERIFY(warning->isVisible());
    QVERIFY2(warning->toolTip().contains(u"Insufficient resources"_s),
             qPrintable(warning->toolTip()));
    QVERIFY2(warning->toolTip().contains(u"open-file limit"_s), qPrintable(warning->toolTip()));

    snapshot.store.writable = false;
    snapshot.store.lastError = u"database or disk is full"_s;
    status.showHealth(snapshot);
    QVERIFY2(warning->text().contains(u"Store cannot be written"_s), qPrintable(warning->text()));
    QVERIFY2(warning->text().contains(u"Topic endpoint"_s), qPrintable(warning->text()));

    status.showHealth(EngineSnapshot());
    QVERIFY(!warning->isVisible());
}

QTEST_MAIN(tst_MainStatusBar)
#include "tst_mainstatusbar.moc"
