// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// eventdeskd: the EventDesk delivery engine without a GUI, for CI pipelines and servers. It runs
// its workspace through EngineWorker, as the desktop app does; this file is the command line, the
// process's signals and its exit codes.

#include "DaemonOptions.h"
#include "DeliveryLog.h"
#include "Logging.h"
#include "ManualPage.h"
#include "ProcessSetup.h"
#include "ServiceManager.h"
#include "host/EngineWorker.h"
#include "host/SharedConfigurationTransfer.h"

#include <QCoreApplication>

#include <cstdio>

using namespace Qt::StringLiterals;
using namespace EventDesk;

namespace {

// Exit status when another engine owns the workspace (docs/user-guide.md "One owner per
// workspace"); 2 is any other start-up error.
constexpr int WorkspaceInUseExitCode = 3;

void printError(const QString &message)
{
    std::fprintf(stderr, "eventdeskd: %s\n", qPrintable(message));
}

// --import-workspace / --export-workspace: 0 when done, 2 with the error printed.
int transferConfiguration(const DaemonOptions &options)
{
    const EngineWorker::Settings &settings = options.settings;
    const Expected<QString> done = options.action == DaemonOptions::Action::ImportWorkspace
        ? SharedConfigurationTransfer::importFile(settings.storeLocation, options.configurationFile)
        : SharedConfigurationTransfer::exportFile(settings.storeLocation, options.configurationFile,
                                                  settings.workspaceDirectory);
    if (!done) {
        printError(done.error());
        return 2;
    }
    std::printf("%s\n", qPrintable(done.value()));
    return 0;
}

} // namespace

int main(int argc, char *argv[])
{
    // Until the command line says otherwise: EventDesk's debug messages are opt-in.
    Logging::setLevel(Logging::Level::Info);
    ProcessSetup::ignoreHangupWhileStarting();
    QCoreApplication app(argc, argv);
    QCoreApplication::setOrganizationName(u"EventDesk"_s);
    QCoreApplication::setApplicationName(u"eventdeskd"_s);
    QCoreApplication::setApplicationVersion(QStringLiteral(EVENTDESK_VERSION));

    auto options = DaemonOptions::parse(app);
    if (!options) {
        printError(options.error());
        return 2;
    }
    if (options->action == DaemonOptions::Action::PrintManualPage) {
        const QByteArray page
            = ManualPage::render(DaemonOptions::description(), options->documentedOptions,
                                 QCoreApplication::applicationVersion(), options->manualDate);
        std::fwrite(page.constData(), 1, size_t(page.size()), stdout);
        return std::fflush(stdout) == 0 ? 0 : 2;
    }
    Logging::installOutput(options->logFormat);
    Logging::setLevel(options->logLevel);
    if (options->action != DaemonOptions::Action::Run)
        return transferConfiguration(options.value());
    ProcessSetup::fitConnectionsToOpenFiles(options->settings.connectionLimits,
                                            options->maxConnectionsGiven);

    EngineWorker worker;
    const EngineWorker::StartResult started = worker.start(options->settings);
    switch (started.failure) {
    case EngineWorker::StartResult::Failure::None:
        break;
    case EngineWorker::StartResult::Failure::WorkspaceInUse:
        printError(started.error);
        return WorkspaceInUseExitCode;
    case EngineWorker::StartResult::Failure::ListenPort:
        printError(u"%1 (is another EventDesk or an emulator using it? Choose another with "
                   u"--listen HOST:PORT, or port 0 for any free one)"_s.arg(started.error));
        return 2;
    case EngineWorker::StartResult::Failure::Other:
        printError(started.error);
        return 2;
    }

    const DeliveryLog deliveryLog(&worker.engine());
    // SIGHUP: workspace.json again, without a restart. A file that is not valid leaves the
    // running configuration as it is: a typo must not take the service down.
    ProcessSetup::handleSignals(app, [&worker, listenUrl = started.listenUrl] {
        ServiceManager::notifyReloading();
        const Expected<QString> reloaded = worker.reloadWorkspace();
        if (reloaded)
            qCInfo(lcDaemon).noquote() << "reloaded workspace.json:" << reloaded.value();
        else
            qCCritical(lcDaemon).noquote()
                << "workspace.json not reloaded, the running configuration stays:"
                << reloaded.error();
        ServiceManager::notifyReady(listenUrl);
    });
    std::printf("EventDesk listening on %s\n", qPrintable(started.listenUrl));
    std::fflush(stdout);
    ServiceManager::notifyReady(started.listenUrl);
    const int exitCode = app.exec();
    ServiceManager::notifyStopping();
    worker.shutdown(); // everything committed, the workspace released
    qCInfo(lcDaemon) << "stopped";
    return exitCode;
}
