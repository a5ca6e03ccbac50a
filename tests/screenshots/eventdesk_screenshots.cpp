// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// eventdesk_screenshots: the screenshots of docs/screenshots/, taken from the real desktop app so
// they stay current (scripts/screenshots.sh runs it under Xvfb). It writes a workspace whose
// built-in test receivers script the failures, opens it in the main window with the engine's
// time scale and without jitter, publishes a steady stream of events, waits until the engine has
// delivered, retried, put a subscription in probation and dead-lettered (conditions, not sleeps),
// and grabs each view.
//
//   eventdesk_screenshots --output DIR [--color-scheme light|dark] [--only NAME,...]

#include "common/Appearance.h"
#include "dashboard/DashboardView.h"
#include "deadletters/DeadLetterBrowser.h"
#include "editor/SubscriptionEditor.h"
#include "host/EngineHost.h"
#include "log/DeliveryLogView.h"
#include "mainwindow/MainWindow.h"
#include "mainwindow/WorkspaceTreeModel.h"
#include "send/SendEventDialog.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPainter>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>
#include <QTreeView>

#include <cstdio>
#include <functional>

using namespace Qt::StringLiterals;
using namespace EventDesk;

namespace {

[[noreturn]] void fail(const QString &message)
{
    std::fprintf(stderr, "eventdesk_screenshots: %s\n", qPrintable(message));
    std::exit(1);
}

// Runs the event loop until condition holds; fails naming what it waited for after timeoutMs.
void waitFor(const QString &what, const std::function<bool()> &condition, int timeoutMs = 120000)
{
    QDeadlineTimer deadline(timeoutMs);
    while (!condition()) {
        if (deadline.hasExpired())
            fail(u"timed out waiting for "_s + what);
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
        QThread::msleep(10);
    }
}

quint16 freePort()
{
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0))
        fail(u"no free port on 127.0.0.1"_s);
    return probe.serverPort();
}

QJsonObject subscription(const QString &name, const QString &endpoint, int maxAttempts)
{
    return QJsonObject {
        {u"name"_s, name},
        {u"properties"_s,
         QJsonObject {{u"destination"_s,
                       QJsonObject {{u"endpointType"_s, u"WebHook"_s},
                                    {u"properties"_s,
                                     QJsonObject {{u"endpointUrl"_s, endpoint},
                                                  {u"maxEventsPerBatch"_s, 1}}}}},
                      {u"retryPolicy"_s,
                       QJsonObject {{u"maxDeliveryAttempts"_s, maxAttempts},
                                    {u"eventTimeToLiveInMinutes"_s, 60}}},
                      {u"x-eventdesk"_s, QJsonObject {{u"validation"_s, false}}},
                      {u"deadLetterDestination"_s,
                       QJsonObject {{u"endpointType"_s, u"StorageBlob"_s},
                                    {u"properties"_s,
                                     QJsonObject {{u"resourceId"_s, u"local"_s},
                                                  {u"blobContainerName"_s, u"deadletters"_s}}}}}}}};
}

// orders: billing answers 200 thirty times, then 503 twelve times (probation after ten, P2);
// shipping is slow but healthy; analytics rejects every event with 400 (dead-lettered at once,
// SPEC R2). audit: audit-log fails one request in five with 503 (retried).
void writeWorkspace(const QString &directory, quint16 port)
{
    const QString base = u"http://127.0.0.1:%1/receivers/"_s.arg(port);
    QJsonArray billingSteps;
    for (int i = 0; i < 42; ++i)
        billingSteps.append(i < 30 ? 200 : 503);
    const QJsonArray topics {
        QJsonObject {{u"name"_s, u"orders"_s},
                     {u"inputSchema"_s, u"EventGridSchema"_s},
                     {u"eventSubscriptions"_s,
                      QJsonArray {subscription(u"billing"_s, base + u"billing"_s, 10),
                                  subscription(u"shipping"_s, base + u"shipping"_s, 10),
                                  subscription(u"analytics"_s, base + u"analytics"_s, 5)}}},
        QJsonObject {{u"name"_s, u"audit"_s},
                     {u"inputSchema"_s, u"EventGridSchema"_s},
                     {u"eventSubscriptions"_s,
                      QJsonArray {subscription(u"audit-log"_s, base + u"audit"_s, 10)}}}};
    const QJsonArray receivers {
        QJsonObject {{u"name"_s, u"billing"_s},
                     {u"script"_s,
                      QJsonObject {{u"mode"_s, u"sequence"_s},
                                   {u"statuses"_s, billingSteps},
                                   {u"after"_s, u"repeat"_s}}}},
        QJsonObject {{u"name"_s, u"shipping"_s}, {u"status"_s, 200}, {u"delayMs"_s, 60}},
        QJsonObject {{u"name"_s, u"analytics"_s}, {u"status"_s, 400}},
        QJsonObject {{u"name"_s, u"audit"_s},
                     {u"status"_s, 200},
                     {u"failureRate"_s, 0.2},
                     {u"seed"_s, 7},
                     {u"failureStatus"_s, 503}}};
    const QJsonObject root {
        {u"topics"_s, topics},
        {u"receivers"_s, receivers},
        {u"settings"_s,
         QJsonObject {{u"deadLetterDelaySeconds"_s, 0}, {u"probationThreshold"_s, 10}}}};
    QDir().mkpath(directory);
    QFile file(directory + u"/workspace.json"_s);
    if (!file.open(QIODevice::WriteOnly) || file.write(QJsonDocument(root).toJson()) < 0)
        fail(u"cannot write "_s + file.fileName());
}

QByteArray orderEvent(int number)
{
    const QJsonObject event {{u"id"_s, u"evt-%1"_s.arg(number)},
                             {u"subject"_s, u"/orders/%1"_s.arg(number)},
                             {u"eventType"_s, u"Contoso.Orders.OrderCreated"_s},
                             {u"eventTime"_s, u"2026-11-22T09:00:00Z"_s},
                             {u"dataVersion"_s, u"1.0"_s},
                             {u"data"_s,
                              QJsonObject {{u"orderId"_s, number},
                                           {u"amount"_s, 10 + number % 90},
                                           {u"currency"_s, u"EUR"_s}}}};
    return QJsonDocument(QJsonArray {event}).toJson(QJsonDocument::Compact);
}

void save(const QImage &image, const QString &path)
{
    if (!image.save(path))
        fail(u"cannot write "_s + path);
    std::printf("wrote %s (%dx%d)\n", qPrintable(path), image.width(), image.height());
}

// The window with its open dialogs painted where they are, as a screen would show them.
QImage grabWithDialogs(QWidget *window, const QList<QWidget *> &dialogs)
{
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    QImage image = window->grab().toImage();
    QPainter painter(&image);
    for (QWidget *dialog : dialogs) {
        const QPoint at = dialog->mapToGlobal(QPoint(0, 0)) - window->mapToGlobal(QPoint(0, 0));
        painter.drawImage(at * image.devicePixelRatio(), dialog->grab().toImage());
    }
    return image;
}

} // namespace

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(u"EventDesk-screenshots"_s);
    QApplication::setApplicationName(u"EventDesk"_s);
    QApplication::setApplicationVersion(QStringLiteral(EVENTDESK_VERSION));
    QStandardPaths::setTestModeEnabled(true); // no settings of the user's own EventDesk
    QSettings().clear();

    QCommandLineParser parser;
    parser.addHelpOption();
    const QCommandLineOption outputOption(u"output"_s, u"Directory for the PNG files."_s, u"DIR"_s);
    const QCommandLineOption schemeOption(u"color-scheme"_s, u"light or dark."_s, u"SCHEME"_s,
                                          u"light"_s);
    const QCommandLineOption onlyOption(u"only"_s, u"Comma-separated names of the shots to take."_s,
                                        u"NAMES"_s);
    const QCommandLineOption suffixOption(
        u"suffix"_s, u"Appended to every file name (\"-dark\")."_s, u"SUFFIX"_s);
    parser.addOptions({outputOption, schemeOption, onlyOption, suffixOption});
    parser.process(app);
    if (!parser.isSet(outputOption))
        fail(u"--output DIR is required"_s);
    const auto scheme = Ui::parseColorScheme(parser.value(schemeOption));
    if (!scheme || *scheme == Ui::ColorScheme::System)
        fail(u"--color-scheme: must be light or dark (got '%1')"_s.arg(parser.value(schemeOption)));
    Ui::applyColorScheme(*scheme);
    const QString output = QDir(parser.value(outputOption)).absolutePath();
    QDir().mkpath(output);
    const QStringList only = parser.value(onlyOption).split(u',', Qt::SkipEmptyParts);
    const QString suffix = parser.value(suffixOption);
    const auto wanted = [&only](const QString &name) {
        return only.isEmpty() || only.contains(name);
    };

    QTemporaryDir root;
    const QString workspace = root.filePath(u"shop"_s);
    const quint16 port = freePort();
    writeWorkspace(workspace, port);

    Ui::MainWindow::Options options;
    options.listen.port = port;
    options.timeScale = 10;
    options.jitter = false;
    Ui::MainWindow window(options);
    window.resize(1440, 900);
    window.move(0, 0);
    window.show();
    // The workspace has no secrets, so the app never asks the keychain (nor shows its prompt or its
    // absence under Xvfb): the pictures show what a user's first run shows.
    window.openWorkspace(workspace);
    waitFor(
        u"the engine to start"_s, [&] { return window.engineHost()->isRunning(); }, 60000);

    EngineSnapshot last;
    bool billingWasInProbation = false;
    QObject::connect(window.engineHost(), &EngineHost::snapshotReady, &window,
                     [&](const EngineSnapshot &snapshot) {
                         last = snapshot;
                         for (const SubscriptionSnapshot &state : snapshot.subscriptions)
                             if (state.subscription == u"billing"_s
                                 && state.probationState != ProbationTracker::State::Healthy)
                                 billingWasInProbation = true;
                     });
    const auto state = [&last](const QString &name) {
        for (const SubscriptionSnapshot &candidate : last.subscriptions)
            if (candidate.subscription == name)
                return candidate;
        return SubscriptionSnapshot();
    };
    const auto deadLettered = [&state](const QString &name) {
        quint64 total = 0;
        for (const quint64 count : state(name).deadLetteredByReason)
            total += count;
        return total;
    };

    // 5 order events and 3 audit events per second of real time, for as long as it takes.
    int published = 0;
    QTimer publisher;
    publisher.setInterval(200);
    QObject::connect(&publisher, &QTimer::timeout, &window, [&] {
        ++published;
        window.engineHost()->publish(u"orders"_s, orderEvent(published), "application/json",
                                     [](const PublishResult &) {});
        if (published % 5 < 3)
            window.engineHost()->publish(u"audit"_s, orderEvent(100000 + published),
                                         "application/json", [](const PublishResult &) {});
    });
    publisher.start();

    window.selectSubscription(u"orders"_s, u"billing"_s);
    waitFor(
        u"billing to go into probation and out again, analytics to dead-letter, audit-log to retry"_s,
        [&] {
            return billingWasInProbation
                && state(u"billing"_s).probationState == ProbationTracker::State::Healthy
                && deadLettered(u"analytics"_s) >= 40
                && state(u"audit-log"_s).failedByOutcome.value(DeliveryOutcome::Busy) >= 10
                && published >= 250; // 50 s of history on the charts
        },
        240000);
    publisher.stop();
    std::printf("published %d order events; billing delivered %llu; analytics dead-lettered %llu\n",
                published, static_cast<unsigned long long>(state(u"billing"_s).delivered),
                static_cast<unsigned long long>(deadLettered(u"analytics"_s)));

    const auto shoot
        = [&](const QString &name, QWidget *tab, const std::function<void()> &prepare = {}) {
              if (!wanted(name))
                  return;
              if (tab)
                  window.tabs()->setCurrentWidget(tab);
              if (prepare)
                  prepare();
              // Two rounds of the dashboard's redraw (4 per second) and of pending layouts.
              QDeadlineTimer settle(600);
              while (!settle.hasExpired())
                  QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
              QList<QWidget *> dialogs;
              for (QWidget *widget : QApplication::topLevelWidgets())
                  if (widget != &window && widget->isVisible() && widget->isWindow()
                      && qobject_cast<QDialog *>(widget))
                      dialogs.append(widget);
              save(grabWithDialogs(&window, dialogs), output + u'/' + name + suffix + u".png"_s);
          };

    // All subscriptions: the steady 5/s of shipping and of analytics' dead letters are flat
    // lines; billing's probation periods are on the timeline.
    shoot(u"dashboard"_s, window.dashboard(), [&] { window.dashboard()->setSelection(QString(), QString()); });
    shoot(u"subscription-editor"_s, window.editor(),
          [&] { window.selectSubscription(u"orders"_s, u"billing"_s); });
    shoot(u"delivery-log"_s, window.deliveryLog());
    shoot(u"dead-letters"_s, window.deadLetterBrowser(), [&] {
        window.selectSubscription(u"orders"_s, u"analytics"_s);
        window.deadLetterBrowser()->reload();
        auto *table = window.deadLetterBrowser()->findChild<QTableView *>();
        waitFor(u"the dead letters to load"_s, [table] { return table->model()->rowCount() > 0; });
    });
    shoot(u"send-test-event"_s, window.dashboard(), [&] {
        window.selectSubscription(u"orders"_s, u"billing"_s);
        window.showSendDialog();
        waitFor(u"the send dialog"_s, [] {
            for (QWidget *widget : QApplication::topLevelWidgets())
                if (qobject_cast<Ui::SendEventDialog *>(widget) && widget->isVisible())
                    return true;
            return false;
        });
    });
    for (QWidget *widget : QApplication::topLevelWidgets())
        if (qobject_cast<QDialog *>(widget))
            widget->close();
    window.close();
    return 0;
}
