// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// The desktop app's first run when the system is not ready: the usual port is taken and the
// keychain never answers its prompt. The workspace opens anyway on the next free port, what needs
// no secret is delivered, and the window says both whole in its banners while the status bar stays
// short. Set EVENTDESK_SCREENSHOTS=DIR to keep a picture of the window.

#include "mainwindow/Banner.h"
#include "mainwindow/MainStatusBar.h"
#include "mainwindow/MainWindow.h"
#include "mainwindow/WindowNotices.h"
#include "mainwindow/WorkspaceTreeModel.h"
#include "secrets/SecretCache.h"
#include "secrets/SecretStore.h"

#include <QFile>
#include <QInputDialog>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMainWindow>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTimer>
#include <QToolButton>
#include <QtTest>

using namespace Qt::StringLiterals;
using namespace EventDesk;

namespace {

constexpr int Timeout = 20'000;

// A keychain whose password prompt nobody answers: it takes every read and answers none.
class SilentKeychain final : public SecretStore
{
public:
    void read(const QString &, ReadCallback done) override { m_waiting.append(std::move(done)); }
    void write(const QString &, const QString &, DoneCallback) override { }
    void remove(const QString &, DoneCallback) override { }
    QString description() const override { return u"system keychain"_s; }
    bool mayPrompt() const override { return true; }

private:
    QList<ReadCallback> m_waiting;
};

QJsonObject subscriptionJson(const QString &name, const QString &endpoint,
                             const QJsonArray &headers = {})
{
    QJsonObject destination {{u"endpointUrl"_s, endpoint}};
    if (!headers.isEmpty())
        destination.insert(u"deliveryAttributeMappings"_s, headers);
    return QJsonObject {{u"name"_s, name},
                        {u"properties"_s,
                         QJsonObject {{u"destination"_s,
                                       QJsonObject {{u"endpointType"_s, u"WebHook"_s},
                                                    {u"properties"_s, destination}}},
                                      {u"x-eventdesk"_s, QJsonObject {{u"validation"_s, false}}}}}};
}

// "plain" needs no secret, "signed" a secret header; both name the receivers at port.
void writeWorkspace(const QString &directory, quint16 port)
{
    const QString base = u"http://127.0.0.1:%1/receivers/"_s.arg(port);
    const QJsonArray secretHeader {
        QJsonObject {{u"name"_s, u"X-Api-Key"_s},
                     {u"type"_s, u"Static"_s},
                     {u"properties"_s, QJsonObject {{u"isSecret"_s, true}}}}};
    const QJsonObject orders {
        {u"name"_s, u"orders"_s},
        {u"inputSchema"_s, u"EventGridSchema"_s},
        {u"eventSubscriptions"_s,
         QJsonArray {subscriptionJson(u"plain"_s, base + u"demo"_s),
                     subscriptionJson(u"signed"_s, base + u"demo"_s, secretHeader)}}};
    const QJsonObject root {
        {u"topics"_s, QJsonArray {orders}},
        {u"receivers"_s, QJsonArray {QJsonObject {{u"name"_s, u"demo"_s}, {u"status"_s, 200}}}}};
    QFile file(directory + u"/workspace.json"_s);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QJsonDocument(root).toJson());
}

QByteArray oneEvent(const QString &id)
{
    return QJsonDocument(QJsonArray {QJsonObject {{u"id"_s, id},
                                                  {u"subject"_s, u"/orders/1"_s},
                                                  {u"eventType"_s, u"Order.Created"_s},
                                                  {u"eventTime"_s, u"2026-01-01T00:00:00Z"_s},
                                                  {u"dataVersion"_s, u"1.0"_s},
                                                  {u"data"_s, QJsonObject {{u"amount"_s, 5}}}}})
        .toJson(QJsonDocument::Compact);
}

// The status bar's label showing the listen URL.
QLabel *listenLabel(QStatusBar *bar)
{
    const auto labels = bar->findChildren<QLabel *>();
    for (QLabel *label : labels) {
        if (label->text().startsWith(u"http://"_s))
            return label;
    }
    return nullptr;
}

QString stateText(Ui::MainWindow &window, const QString &subscription)
{
    return window.treeModel()
        ->subscriptionIndex(u"orders"_s, subscription)
        .siblingAtColumn(Ui::WorkspaceTreeModel::StateColumn)
        .data()
        .toString();
}

void keepScreenshot(QWidget &window, const QString &name)
{
    const QString directory = qEnvironmentVariable("EVENTDESK_SCREENSHOTS");
    if (directory.isEmpty())
        return;
    // The layout that follows a banner shown or hidden is done before the picture is taken.
    QCoreApplication::processEvents();
    QVERIFY(window.grab().save(directory + u'/' + name));
}

} // namespace

class tst_WindowNotices : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void demoWorkspaceNeverTouchesTheKeychain();
    void busyPortAndSilentKeychain();
    void listenOnRemembersThePort();
    void statusBarStaysShort();
};

void tst_WindowNotices::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
}

void tst_WindowNotices::demoWorkspaceNeverTouchesTheKeychain()
{
    // A first run: the demo workspace references no secret, so the system keychain is neither
    // probed (which would show "Choose password for new keyring" where none exists) nor read.
    QTemporaryDir directory;
    QTcpServer probe;
    QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
    Ui::MainWindow::Options options;
    options.listen.port = probe.serverPort();
    probe.close();
    Ui::MainWindow window(options);
    SecretStore *keychain = window.activeSecretStore();
    QCOMPARE(keychain->description(), u"system keychain"_s);
    QSignalSpy probed(keychain, &SecretStore::availabilityChanged);
    QSignalSpy snapshots(window.engineHost(), &EngineHost::snapshotReady);
    window.openWorkspace(directory.path() + u"/default"_s);
    QTRY_VERIFY_WITH_TIMEOUT(window.engineHost()->isRunning(), Timeout);
    QVERIFY(snapshots.wait(Timeout));
    QCOMPARE(probed.count(), 0);
    QCOMPARE(keychain->availability(), SecretStore::Availability::Available);
    QVERIFY(window.notices()->secretsBanner()->isHidden());
    const QModelIndex demo = window.treeModel()->subscriptionIndex(u"demo"_s, u"demo-receiver"_s);
    QTRY_COMPARE_WITH_TIMEOUT(
        demo.siblingAtColumn(Ui::WorkspaceTreeModel::StateColumn).data().toString(), u"Healthy"_s,
        Timeout);
}

void tst_WindowNotices::busyPortAndSilentKeychain()
{
    QTcpServer other; // another EventDesk holds the usual port
    QVERIFY(other.listen(QHostAddress::LocalHost, 0));
    const quint16 busy = other.serverPort();
    QTemporaryDir directory;
    writeWorkspace(directory.path(), busy);

    Ui::MainWindow::Options options;
    options.listen.port = busy;
    options.jitter = false;
    Ui::MainWindow window(options);
    window.useSecretStore(std::make_unique<SilentKeychain>());
    window.resize(1280, 720);
    window.show();
    window.openWorkspace(directory.path());
    QTRY_VERIFY_WITH_TIMEOUT(window.engineHost()->isRunning(), Timeout);

    // Opened anyway, on another port, and every place that shows the URL shows that one.
    const QString listenUrl = window.engineHost()->listenUrl();
    QVERIFY(QUrl(listenUrl).port() != busy);
    QLabel *listen = listenLabel(window.statusBar());
    QVERIFY(listen);
    QCOMPARE(listen->text(), listenUrl);
    Ui::Banner *port = window.notices()->portBanner();
    QVERIFY(port->isVisible());
    QVERIFY2(port->label()->text().contains(u"127.0.0.1:%1 is in use"_s.arg(busy)),
             qPrintable(port->label()->text()));
    QVERIFY(port->label()->text().contains(listenUrl));
    QVERIFY(port->button(u"listenOn"_s)->isVisible());

    // What needs no secret is delivered; "signed" waits for the keychain, visibly.
    int status = 0;
    window.engineHost()->publish(
        u"orders"_s, oneEvent(u"1"_s), "application/json",
        [&status](const PublishResult &result) { status = result.httpStatus; });
    QTRY_COMPARE_WITH_TIMEOUT(status, 200, Timeout);
    QTRY_COMPARE_WITH_TIMEOUT(stateText(window, u"plain"_s), u"Healthy"_s, Timeout);
    QTRY_COMPARE_WITH_TIMEOUT(stateText(window, u"signed"_s),
                              u"Waiting for the keychain · 1 held"_s, Timeout);
    Ui::Banner *secrets = window.notices()->secretsBanner();
    QTRY_VERIFY_WITH_TIMEOUT(secrets->isVisible(), Timeout);
    QVERIFY2(secrets->label()->text().contains(u"Waiting for the system keychain"_s),
             qPrintable(secrets->label()->text()));
    QVERIFY(secrets->label()->text().contains(u"orders / signed"_s));
    QVERIFY(!secrets->label()->text().contains(u"orders / plain"_s));
    QVERIFY(!other.hasPendingConnections()); // nothing went to the other process
    keepScreenshot(window, u"busy-port-silent-keychain.png"_s);

    // Dismissed, a banner stays closed while its message is the same.
    QTest::mouseClick(port->closeButton(), Qt::LeftButton);
    QVERIFY(!port->isVisible());
    QVERIFY(port->isDismissed());
    window.notices()->showListening(window.engineHost()->busyPort(), listenUrl,
                                    u"http://127.0.0.1:%1"_s.arg(busy));
    QVERIFY(!port->isVisible());
    QTest::mouseClick(secrets->closeButton(), Qt::LeftButton);
    QVERIFY(!secrets->isVisible());
    keepScreenshot(window, u"banners-dismissed.png"_s);
}

void tst_WindowNotices::listenOnRemembersThePort()
{
    QTcpServer other;
    QVERIFY(other.listen(QHostAddress::LocalHost, 0));
    QTemporaryDir directory;
    writeWorkspace(directory.path(), other.serverPort());
    // A port of the user's choosing that is free now.
    QTcpServer probe;
    QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
    const quint16 chosen = probe.serverPort();
    probe.close();

    Ui::MainWindow::Options options;
    options.listen.port = other.serverPort();
    {
        Ui::MainWindow window(options);
        window.useSecretStore(std::make_unique<MemorySecretStore>());
        window.show();
        window.openWorkspace(directory.path());
        QTRY_VERIFY_WITH_TIMEOUT(window.engineHost()->isRunning(), Timeout);
        QVERIFY(window.notices()->portBanner()->isVisible());

        // Listen On… on the banner asks for the port, the current one preselected.
        bool asked = false;
        QTimer::singleShot(0, &window, [&] {
            auto *dialog = window.findChild<QInputDialog *>(u"listenOnDialog"_s);
            if (!dialog)
                return;
            asked = dialog->intValue() == QUrl(window.engineHost()->listenUrl()).port();
            keepScreenshot(*dialog, u"listen-on-dialog.png"_s);
            dialog->setIntValue(chosen);
            dialog->accept();
        });
        QTest::mouseClick(window.notices()->portBanner()->button(u"listenOn"_s), Qt::LeftButton);
        QVERIFY2(asked, "Listen On did not ask for the port, the current one preselected");
        QTRY_COMPARE_WITH_TIMEOUT(window.engineHost()->listenUrl(),
                                  u"http://127.0.0.1:%1"_s.arg(chosen), Timeout);
        QVERIFY(window.engineHost()->isRunning());
        // The port asked for was had: nothing to warn about.
        QVERIFY(!window.notices()->portBanner()->isVisible());
        QCOMPARE(listenLabel(window.statusBar())->text(), u"http://127.0.0.1:%1"_s.arg(chosen));
    }
    // Remembered for this workspace: the next window opens it on the chosen port.
    Ui::MainWindow again(options);
    again.useSecretStore(std::make_unique<MemorySecretStore>());
    again.openWorkspace(directory.path());
    QTRY_VERIFY_WITH_TIMEOUT(again.engineHost()->isRunning(), Timeout);
    QCOMPARE(again.engineHost()->listenUrl(), u"http://127.0.0.1:%1"_s.arg(chosen));
}

void tst_WindowNotices::statusBarStaysShort()
{
    // A keychain that cannot be used: its long reason goes to the banner whole, the status bar
    // says it in two words (the reason in its tooltip).
    QMainWindow window;
    Ui::MainStatusBar status(window.statusBar());
    Ui::WindowNotices notices;
    MemorySecretStore store;
    const QString reason
        = u"the system keychain has no usable (unlocked) default keyring: Object does not exist at "
          u"path /org/freedesktop/secrets/collection/login. Start and unlock your keyring"_s;
    store.simulateUnavailable(reason);
    SecretProblem problem;
    problem.key = u"header/orders/signed/X-Api-Key"_s;
    problem.purpose = u"secret header 'X-Api-Key' of subscription 'signed' (topic 'orders')"_s;
    problem.reason = u"memory unavailable: "_s + reason;
    problem.storeUnavailable = true;
    status.showSecrets(store, {problem});
    notices.showSecrets(store, {problem}, {u"orders / signed"_s});

    QLabel *secretsLabel = nullptr;
    const auto labels = window.statusBar()->findChildren<QLabel *>();
    for (QLabel *label : labels) {
        if (label->text().contains(u"Keychain unavailable"_s))
            secretsLabel = label;
    }
    QVERIFY(secretsLabel);
    QVERIFY(!secretsLabel->text().contains(u"does not exist"_s));
    QVERIFY(secretsLabel->toolTip().contains(reason));
    const QString banner = notices.secretsBanner()->label()->text();
    QVERIFY2(banner.contains(reason.toHtmlEscaped()), qPrintable(banner));
    QVERIFY(banner.contains(u"orders / signed"_s));
    QVERIFY(!notices.secretsBanner()->isHidden());

    // Nothing to say: no banner.
    MemorySecretStore fine;
    notices.showSecrets(fine, {}, {});
    QVERIFY(notices.secretsBanner()->isHidden());
}

QTEST_MAIN(tst_WindowNotices)
#include "tst_windownotices.moc"
