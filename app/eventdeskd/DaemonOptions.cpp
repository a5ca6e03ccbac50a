// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "DaemonOptions.h"

#include "secrets/SecretStore.h"
#include "store/StoreLocation.h"
#include "workspace/WorkspaceFolder.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>

#include <cmath>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

// "--header-timeout 2.5": seconds, as a decimal number, to milliseconds.
Expected<int> parseTimeout(const QString &option, const QString &text)
{
    bool ok = false;
    const double seconds = text.toDouble(&ok);
    if (!ok || !(seconds >= 0.05 && seconds <= 3600))
        return Error(
            u"--%1: must be a number of seconds from 0.05 to 3600 (got '%2')"_s.arg(option, text));
    return int(std::lround(seconds * 1000));
}

} // namespace

QString DaemonOptions::description()
{
    return u"EventDesk headless engine: Azure Event Grid delivery and retry semantics, durable, "
           "with the topic endpoint POST /topics/<topic>/api/events."_s;
}

QList<QCommandLineOption> DaemonOptions::optionTable()
{
    const QCommandLineOption workspaceOption(
        u"workspace"_s,
        u"Workspace folder (workspace.json, store, deadletters/). Created with a demo topic if "
        "missing. Default: the user's EventDesk data folder."_s,
        u"DIR"_s);
    const QCommandLineOption storeOption(
        u"store"_s,
        u"Where the deliveries are kept: postgresql://USER@HOST:PORT/DATABASE (also postgres://; a "
        "password may follow the user as USER:PASSWORD@, or come from ~/.pgpass or PGPASSWORD) for "
        "an empty PostgreSQL database or one EventDesk created. Default: the workspace's own "
        "SQLite "
        "file, of one eventdeskd. Several eventdeskd (each with its own workspace folder and port) "
        "may share a PostgreSQL store: each delivers the events it accepted, and takes over those "
        "of an instance whose lease ran out (see --instance-lease). On a PostgreSQL store the "
        "topics and event subscriptions are the store's: the first instance imports its "
        "workspace.json's, the others use the store's and follow its changes (see "
        "--import-workspace)."_s,
        u"URL"_s);
    const QCommandLineOption listenOption(
        u"listen"_s,
        u"Address of the topic endpoint (default 127.0.0.1:%1; port 0 picks a free one)."_s.arg(
            ListenAddress::DefaultPort),
        u"HOST:PORT"_s, u"127.0.0.1:%1"_s.arg(ListenAddress::DefaultPort));
    const QCommandLineOption timeScaleOption(
        u"time-scale"_s,
        u"Run engine time N times faster (retry waits, TTL, probation, dead-letter delay); "
        "1 to 100000, default 1."_s,
        u"N"_s, u"1"_s);
    const QCommandLineOption instanceLeaseOption(
        u"instance-lease"_s,
        u"With a PostgreSQL --store: seconds after its last heartbeat (sent every tenth of it) at "
        "which this instance counts as dead and the others take over its deliveries. Real time, "
        "whatever --time-scale says. %1 to %2, default %3."_s.arg(MinInstanceLeaseMs / 1000)
            .arg(MaxInstanceLeaseMs / 1000)
            .arg(DefaultInstanceLeaseMs / 1000),
        u"SECONDS"_s, QString::number(DefaultInstanceLeaseMs / 1000));
    const QCommandLineOption noJitterOption(u"no-jitter"_s,
                                            u"Disable the random 0-10 % added to retry waits."_s);
    const QCommandLineOption seedOption(u"jitter-seed"_s,
                                        u"Seed the retry jitter (reproducible runs)."_s, u"SEED"_s);
    const QCommandLineOption secretStoreOption(
        u"secret-store"_s,
        u"Where secrets the environment does not provide come from: keychain (default, the "
        "system keychain), file (a JSON file readable only by you, see --secrets-file) or none."_s,
        u"KIND"_s, u"keychain"_s);
    const QCommandLineOption secretsFileOption(
        u"secrets-file"_s,
        u"The file of --secret-store file (default: %1)."_s.arg(FileSecretStore::defaultFilePath()),
        u"FILE"_s);
    const HttpConnectionLimits defaultLimits;
    const QCommandLineOption headerTimeoutOption(
        u"header-timeout"_s,
        u"Seconds a client has to send a request's head (request line and headers), from "
        u"connecting "
        "or from the first byte of its next request; then 408 and closed. 0.05 to 3600, default %1."_s
            .arg(defaultLimits.headerTimeoutMs / 1000.0),
        u"SECONDS"_s, QString::number(defaultLimits.headerTimeoutMs / 1000.0));
    const QCommandLineOption bodyTimeoutOption(
        u"body-timeout"_s,
        u"Longest pause, in seconds, while a request body arrives; then 408 and closed. 0.05 to "
        u"3600, "
        "default %1."_s.arg(defaultLimits.bodyTimeoutMs / 1000.0),
        u"SECONDS"_s, QString::number(defaultLimits.bodyTimeoutMs / 1000.0));
    const QCommandLineOption idleTimeoutOption(
        u"idle-timeout"_s,
        u"Seconds a kept-alive connection may wait for its next request before it is closed. 0.05 "
        u"to "
        "3600, default %1."_s.arg(defaultLimits.idleTimeoutMs / 1000.0),
        u"SECONDS"_s, QString::number(defaultLimits.idleTimeoutMs / 1000.0));
    const QCommandLineOption maxConnectionsOption(
        u"max-connections"_s,
        u"Connections served at once; one more is answered 503 and closed. 1 to 1000000, default "
        u"%1 "
        "(less if the open-file limit is lower)."_s.arg(defaultLimits.maxConnections),
        u"N"_s);
    const QCommandLineOption importWorkspaceOption(
        u"import-workspace"_s,
        u"With a PostgreSQL --store: make the topics and event subscriptions of the workspace.json "
        "FILE the store's shared configuration (replacing it whole; every instance on the store "
        "picks it up within a second), then exit. A file that is not valid changes nothing and "
        "exits with status 2, naming the file and the JSON path."_s,
        u"FILE"_s);
    const QCommandLineOption exportWorkspaceOption(
        u"export-workspace"_s,
        u"With a PostgreSQL --store: write the store's shared topics and event subscriptions, with "
        "the settings and test receivers of --workspace's workspace.json, to the workspace.json "
        "FILE (atomically), then exit."_s,
        u"FILE"_s);
    const QCommandLineOption logFormatOption(
        u"log-format"_s,
        u"How log messages are written to standard error: text (default: one line "
        "'category: message' each) or json (one JSON object a line with time, level, category, "
        "message and the fields of a delivery, retry or dead letter: topic, subscription, "
        "eventId, attempt, outcome, httpStatus, ...)."_s,
        u"FORMAT"_s, u"text"_s);
    const QCommandLineOption logLevelOption(
        u"log-level"_s,
        u"The least severe messages written: debug (also every successful delivery), info "
        "(default: retries, dead letters, drops and the engine's events), warning or error. "
        "QT_LOGGING_RULES refines it per category."_s,
        u"LEVEL"_s, u"info"_s);
    QCommandLineOption printManualPageOption(
        u"print-manpage"_s,
        u"Write the manual page eventdeskd(1), made from this option table and dated DATE "
        "(YYYY-MM-DD), to standard output and exit (the build does)."_s,
        u"DATE"_s);
    printManualPageOption.setFlags(QCommandLineOption::HiddenFromHelp);
    return {workspaceOption,     storeOption,           listenOption,          timeScaleOption,
            instanceLeaseOption, importWorkspaceOption, exportWorkspaceOption, noJitterOption,
            seedOption,          secretStoreOption,     secretsFileOption,     headerTimeoutOption,
            bodyTimeoutOption,   idleTimeoutOption,     maxConnectionsOption,  logFormatOption,
            logLevelOption,      printManualPageOption};
}

Expected<DaemonOptions> DaemonOptions::parse(QCoreApplication &app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(description());
    const QCommandLineOption helpOption = parser.addHelpOption();
    const QCommandLineOption versionOption = parser.addVersionOption();
    const QList<QCommandLineOption> table = optionTable();
    parser.addOptions(table);
    const auto option = [&table](QStringView name) -> const QCommandLineOption & {
        for (const QCommandLineOption &candidate : table) {
            if (candidate.names().constFirst() == name)
                return candidate;
        }
        Q_UNREACHABLE();
    };
    const QCommandLineOption &workspaceOption = option(u"workspace");
    const QCommandLineOption &storeOption = option(u"store");
    const QCommandLineOption &listenOption = option(u"listen");
    const QCommandLineOption &timeScaleOption = option(u"time-scale");
    const QCommandLineOption &instanceLeaseOption = option(u"instance-lease");
    const QCommandLineOption &importWorkspaceOption = option(u"import-workspace");
    const QCommandLineOption &exportWorkspaceOption = option(u"export-workspace");
    const QCommandLineOption &noJitterOption = option(u"no-jitter");
    const QCommandLineOption &seedOption = option(u"jitter-seed");
    const QCommandLineOption &secretStoreOption = option(u"secret-store");
    const QCommandLineOption &secretsFileOption = option(u"secrets-file");
    const QCommandLineOption &headerTimeoutOption = option(u"header-timeout");
    const QCommandLineOption &bodyTimeoutOption = option(u"body-timeout");
    const QCommandLineOption &idleTimeoutOption = option(u"idle-timeout");
    const QCommandLineOption &maxConnectionsOption = option(u"max-connections");
    const QCommandLineOption &logFormatOption = option(u"log-format");
    const QCommandLineOption &logLevelOption = option(u"log-level");
    const QCommandLineOption &printManualPageOption = option(u"print-manpage");
    parser.process(app);

    if (!parser.positionalArguments().isEmpty())
        return Error(u"unexpected argument '%1' (see --help)"_s.arg(
            parser.positionalArguments().constFirst()));
    DaemonOptions options;
    if (parser.isSet(printManualPageOption)) {
        const QString date = parser.value(printManualPageOption);
        options.manualDate = QDate::fromString(date, Qt::ISODate);
        if (!options.manualDate.isValid() || date.size() != 10)
            return Error(u"--print-manpage: must be a date YYYY-MM-DD (got '%1')"_s.arg(date));
        options.action = Action::PrintManualPage;
        options.documentedOptions = QList<QCommandLineOption> {helpOption, versionOption} + table;
        return options;
    }
    const QString logFormat = parser.value(logFormatOption);
    if (const auto format = Logging::formatFromName(logFormat))
        options.logFormat = *format;
    else
        return Error(u"--log-format: must be %1 (got '%2')"_s.arg(
            Logging::formatNames().join(" or "_L1), logFormat));
    const QString logLevel = parser.value(logLevelOption);
    if (const auto level = Logging::levelFromName(logLevel))
        options.logLevel = *level;
    else
        return Error(u"--log-level: must be %1 or %2 (got '%3')"_s.arg(
            Logging::levelNames().mid(0, Logging::levelNames().size() - 1).join(", "_L1),
            Logging::levelNames().constLast(), logLevel));
    EngineWorker::Settings &settings = options.settings;
    settings.storeLocation = parser.value(storeOption);
    if (const QString problem = storeLocationProblem(settings.storeLocation); !problem.isEmpty())
        return Error(u"--store: %1 (got '%2')"_s.arg(
            problem, redactedStoreLocation(settings.storeLocation)));
    if (parser.isSet(importWorkspaceOption) || parser.isSet(exportWorkspaceOption)) {
        const bool importing = parser.isSet(importWorkspaceOption);
        const QString option = importing ? u"--import-workspace"_s : u"--export-workspace"_s;
        if (importing && parser.isSet(exportWorkspaceOption))
            return Error(
                u"--import-workspace and --export-workspace: give one of them at a time"_s);
        if (!settings.storeLocation.startsWith(u"postgres"_s, Qt::CaseInsensitive))
            return Error(
                u"%1: needs --store postgresql://...: only a PostgreSQL store holds a shared "
                "configuration (a SQLite store's topics are its workspace.json's)"_s.arg(option));
        options.action = importing ? Action::ImportWorkspace : Action::ExportWorkspace;
        options.configurationFile
            = parser.value(importing ? importWorkspaceOption : exportWorkspaceOption);
        if (options.configurationFile.isEmpty())
            return Error(u"%1: needs a file name"_s.arg(option));
    }
    auto listen = ListenAddress::parse(parser.value(listenOption));
    if (!listen)
        return Error(u"--listen: %1"_s.arg(listen.error()));
    settings.listen = listen.value();
    bool scaleOk = false;
    settings.timeScale = parser.value(timeScaleOption).toDouble(&scaleOk);
    if (!scaleOk || settings.timeScale < 1.0 || settings.timeScale > 100000.0)
        return Error(u"--time-scale: must be a number from 1 to 100000 (got '%1')"_s.arg(
            parser.value(timeScaleOption)));
    bool leaseOk = false;
    const double leaseSeconds = parser.value(instanceLeaseOption).toDouble(&leaseOk);
    if (!leaseOk || leaseSeconds * 1000 < MinInstanceLeaseMs
        || leaseSeconds * 1000 > MaxInstanceLeaseMs)
        return Error(u"--instance-lease: must be a number of seconds from %1 to %2 (got '%3')"_s
                         .arg(MinInstanceLeaseMs / 1000)
                         .arg(MaxInstanceLeaseMs / 1000)
                         .arg(parser.value(instanceLeaseOption)));
    settings.instanceLeaseMs = qint64(leaseSeconds * 1000);
    const QString secretStore = parser.value(secretStoreOption);
    if (secretStore == "keychain"_L1)
        settings.headlessSecrets = HeadlessSecrets::Store::Keychain;
    else if (secretStore == "file"_L1)
        settings.headlessSecrets = HeadlessSecrets::Store::File;
    else if (secretStore == "none"_L1)
        settings.headlessSecrets = HeadlessSecrets::Store::EnvironmentOnly;
    else
        return Error(
            u"--secret-store: must be keychain, file or none (got '%1')"_s.arg(secretStore));
    settings.secretsFile = parser.value(secretsFileOption);
    settings.jitter = !parser.isSet(noJitterOption);
    if (parser.isSet(seedOption)) {
        bool seedOk = false;
        settings.jitterSeed = parser.value(seedOption).toULongLong(&seedOk);
        if (!seedOk || settings.jitterSeed == 0)
            return Error(u"--jitter-seed: must be a positive integer (got '%1')"_s.arg(
                parser.value(seedOption)));
    }

    HttpConnectionLimits &limits = settings.connectionLimits;
    for (const auto &[option, timeoutMs] :
         {std::pair {&headerTimeoutOption, &limits.headerTimeoutMs},
          std::pair {&bodyTimeoutOption, &limits.bodyTimeoutMs},
          std::pair {&idleTimeoutOption, &limits.idleTimeoutMs}}) {
        const auto parsed = parseTimeout(option->names().constFirst(), parser.value(*option));
        if (!parsed)
            return Error(parsed.error());
        *timeoutMs = parsed.value();
    }
    if (parser.isSet(maxConnectionsOption)) {
        bool maxOk = false;
        limits.maxConnections = parser.value(maxConnectionsOption).toInt(&maxOk);
        if (!maxOk || limits.maxConnections < 1 || limits.maxConnections > 1'000'000)
            return Error(
                u"--max-connections: must be an integer from 1 to 1000000 (got '%1')"_s.arg(
                    parser.value(maxConnectionsOption)));
        options.maxConnectionsGiven = true;
    }

    settings.workspaceDirectory = parser.value(workspaceOption);
    if (settings.workspaceDirectory.isEmpty())
        settings.workspaceDirectory = WorkspaceFolder::defaultDirectory();
    settings.workspaceDirectory = QDir(settings.workspaceDirectory).absolutePath();
    // Whoever runs a server chose its address: a port that cannot be had fails the start.
    settings.busyPort = EngineWorker::Settings::BusyPort::Fail;
    settings.snapshotIntervalMs = 0; // no window watches
    return options;
}

} // namespace EventDesk
