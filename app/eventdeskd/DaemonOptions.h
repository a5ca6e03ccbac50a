// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "Expected.h"
#include "Logging.h"
#include "host/EngineWorker.h"

#include <QCommandLineOption>
#include <QDate>
#include <QList>
#include <QString>

class QCoreApplication;

namespace EventDesk {

// What eventdeskd was asked to do, read from its command line. The option table is here and only
// here: --help prints it, and the manual page (ManualPage, eventdeskd --print-manpage) is made
// from it.
struct DaemonOptions
{
    enum class Action {
        Run, // run the workspace until SIGINT / SIGTERM
        ImportWorkspace, // --import-workspace FILE into a PostgreSQL store's shared configuration
        ExportWorkspace, // --export-workspace FILE from it
        PrintManualPage, // --print-manpage DATE: the manual page, for the build
    };
    Action action = Action::Run;
    QString configurationFile; // ImportWorkspace / ExportWorkspace
    // PrintManualPage: the page's date, and the options as --help lists them (Qt's --help and
    // --version first).
    QDate manualDate;
    QList<QCommandLineOption> documentedOptions;
    Logging::Format logFormat = Logging::Format::Text;
    Logging::Level logLevel = Logging::Level::Info;
    // Everything the workspace runs with (EngineWorker, the composition root both programs share).
    EngineWorker::Settings settings;
    // --max-connections was given: it is not lowered to fit the open-file limit.
    bool maxConnectionsGiven = false;

    // What --help says eventdeskd is, above the options.
    static QString description();
    // Every option eventdeskd takes besides --help and --version, in the order --help lists them.
    // Options hidden from --help (QCommandLineOption::HiddenFromHelp) are for the build.
    static QList<QCommandLineOption> optionTable();

    // Reads the arguments of app. --help and --version print and end the process; an invalid
    // value is an error that names the option and its valid range.
    static Expected<DaemonOptions> parse(QCoreApplication &app);
};

} // namespace EventDesk
