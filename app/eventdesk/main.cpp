// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// eventdesk: the desktop app.

#include "common/Appearance.h"
#include "host/ListenAddress.h"
#include "host/StoreOpener.h"
#include "mainwindow/MainWindow.h"
#include "workspace/WorkspaceFolder.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QIcon>
#include <QSettings>
#include <QStyleHints>

#include <cstdio>

using namespace Qt::StringLiterals;
using namespace EventDesk;

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(u"EventDesk"_s);
    QApplication::setApplicationName(u"EventDesk"_s);
    QApplication::setApplicationDisplayName(u"EventDesk"_s);
    QApplication::setApplicationVersion(QStringLiteral(EVENTDESK_VERSION));
    QApplication::setDesktopFileName(u"io.eventdesk.EventDesk"_s);
    QApplication::setWindowIcon(Ui::MainWindow::applicationIcon());

    QCommandLineParser parser;
    parser.setApplicationDescription(u"EventDesk: Azure Event Grid delivery and retry semantics on your desktop."_s);
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption workspaceOption(u"workspace"_s,
                                             u"Open this workspace folder (default: the last one used)."_s, u"DIR"_s);
    const QCommandLineOption listenOption(
        u"listen"_s,
        u"Address of the topic endpoint (default 127.0.0.1:5170; when the port is taken, the next free one is used)."_s,
        u"HOST:PORT"_s, u"127.0.0.1:5170"_s);
    const QCommandLineOption timeScaleOption(u"time-scale"_s, u"Run engine time N times faster (1–100000)."_s,
                                             u"N"_s, u"1"_s);
    const QCommandLineOption noJitterOption(u"no-jitter"_s, u"Disable the random 0–10 % added to retry waits."_s);
    const QCommandLineOption colorSchemeOption(
        u"color-scheme"_s, u"Light or dark palette: system (follow the desktop), light or dark."_s,
        u"SCHEME"_s, u"system"_s);
    parser.addOptions(
        {workspaceOption, listenOption, timeScaleOption, noJitterOption, colorSchemeOption});
    parser.process(app);

    Ui::MainWindow::Options options;
    const auto listen = ListenAddress::parse(parser.value(listenOption));
    if (!listen) {
        std::fprintf(stderr, "eventdesk: --listen: %s\n", qPrintable(listen.error()));
        return 2;
    }
    options.listen = listen.value();
    options.listenFromCommandLine = parser.isSet(listenOption);
    bool scaleOk = false;
    options.timeScale = parser.value(timeScaleOption).toDouble(&scaleOk);
    if (!scaleOk || options.timeScale < 1.0 || options.timeScale > 100000.0) {
        std::fprintf(stderr, "eventdesk: --time-scale: must be a number from 1 to 100000\n");
        return 2;
    }
    options.jitter = !parser.isSet(noJitterOption);

    const std::optional<Ui::ColorScheme> colorScheme
        = Ui::parseColorScheme(parser.value(colorSchemeOption));
    if (!colorScheme) {
        std::fprintf(stderr,
                     "eventdesk: --color-scheme: must be system, light or dark (got '%s')\n",
                     qPrintable(parser.value(colorSchemeOption)));
        return 2;
    }
    Ui::applyColorScheme(*colorScheme);
#if QT_VERSION >= QT_VERSION_CHECK(6, 5, 0)
    // The desktop switched between light and dark while the app runs (Qt 6.4 updates the
    // platform palette by itself, when the platform theme changes it).
    if (*colorScheme == Ui::ColorScheme::System)
        QObject::connect(QGuiApplication::styleHints(), &QStyleHints::colorSchemeChanged, &app,
                         [] { Ui::applyColorScheme(Ui::ColorScheme::System); });
#endif

    // --workspace DIR is opened (and created with the demo content when it does not exist yet);
    // without it, the last workspace if it still exists (a shared one is opened again by its URL,
    // with the password the secret store kept, if any), else the default one.
    QString workspace = parser.value(workspaceOption);
    if (workspace.isEmpty()) {
        workspace = QSettings().value(u"workspace/last"_s).toString();
        if (workspace.isEmpty() || (!isPostgresLocation(workspace) && !QDir(workspace).exists()))
            workspace = WorkspaceFolder::defaultDirectory();
    }

    Ui::MainWindow window(options);
    window.show();
    window.openWorkspace(workspace);
    return app.exec();
}
