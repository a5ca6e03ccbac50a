// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// eventdeskd: the EventDesk delivery engine without a GUI, for CI pipelines and servers.

#include "Logging.h"
#include "engine/Clock.h"
#include "engine/Engine.h"
#include "host/SharedConfigurationWatcher.h"
#include "io/AzureBlobDeadLetterSink.h"
#include "io/DeadLetterSink.h"
#include "io/InlineSecrets.h"
#include "io/ProvisioningFile.h"
#include "io/SecretCache.h"
#include "io/SharedWorkspace.h"
#include "io/TopicEndpoint.h"
#include "io/WorkspaceFolder.h"
#include "io/WorkspaceLock.h"
#include "keychain/KeychainSecretStore.h"
#include "secrets/SecretStore.h"
#include "store/DeliveryStores.h"
#include "store/StoreLocation.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QEventLoop>
#include <QHostAddress>
#include <QLoggingCategory>
#include <QNetworkAccessManager>
#include <QStandardPaths>
#include <QUrl>

#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#ifdef Q_OS_UNIX
#include <QSocketNotifier>
#include <csignal>
#include <climits>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#endif
#ifdef Q_OS_WIN
#include <windows.h>
#endif

using namespace Qt::StringLiterals;
using namespace EventDesk;

namespace {

constexpr quint16 DefaultPort = 5170;
// Exit status when another engine owns the workspace (docs/user-guide.md "One owner per
// workspace"); 2 is any other start-up error.
constexpr int WorkspaceInUseExitCode = 3;

void printError(const QString &message)
{
    std::fprintf(stderr, "eventdeskd: %s\n", qPrintable(message));
}

#ifdef Q_OS_UNIX
int s_signalPipe[2] = {-1, -1};

void onTerminationSignal(int)
{
    const char byte = 1;
    // Only async-signal-safe work here: wake the event loop through the pipe.
    [[maybe_unused]] const auto written = ::write(s_signalPipe[0], &byte, 1);
}

void installSignalHandlers(QCoreApplication &app)
{
    if (::socketpair(AF_UNIX, SOCK_STREAM, 0, s_signalPipe) != 0)
        return;
    auto *notifier = new QSocketNotifier(s_signalPipe[1], QSocketNotifier::Read, &app);
    QObject::connect(notifier, &QSocketNotifier::activated, &app, [&app, notifier] {
        notifier->setEnabled(false);
        char byte;
        [[maybe_unused]] const auto read = ::read(s_signalPipe[1], &byte, 1);
        qCInfo(lcDaemon) << "termination signal received, shutting down";
        app.quit();
    });
    struct sigaction action = {};
    action.sa_handler = onTerminationSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
}
#elif defined(Q_OS_WIN)
BOOL WINAPI onConsoleControl(DWORD)
{
    QMetaObject::invokeMethod(QCoreApplication::instance(), &QCoreApplication::quit,
                              Qt::QueuedConnection);
    return TRUE;
}

void installSignalHandlers(QCoreApplication &)
{
    SetConsoleCtrlHandler(onConsoleControl, TRUE);
}
#else
void installSignalHandlers(QCoreApplication &) {}
#endif

// Every connection of the endpoint holds a file descriptor, and the usual soft limit (1024 on
// Linux, 256 on macOS) is far below what the connection cap allows; the hard limit is what the
// administrator granted. Raises the soft limit to the hard one and returns it (0: no limit known).
quint64 raiseOpenFileLimit()
{
#ifdef Q_OS_UNIX
    rlimit limit = {};
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0)
        return 0;
    rlim_t wanted = limit.rlim_max;
#ifdef Q_OS_MACOS
    wanted = std::min<rlim_t>(wanted, OPEN_MAX); // macOS refuses more than OPEN_MAX
#endif
    if (limit.rlim_cur < wanted) {
        const rlim_t before = limit.rlim_cur;
        limit.rlim_cur = wanted;
        if (::setrlimit(RLIMIT_NOFILE, &limit) == 0)
            qCInfo(lcDaemon) << "raised the open-file limit from" << quint64(before) << "to" << quint64(wanted);
        else
            ::getrlimit(RLIMIT_NOFILE, &limit);
    }
    return limit.rlim_cur == RLIM_INFINITY ? 0 : quint64(limit.rlim_cur);
#else
    return 0;
#endif
}

// "--header-timeout 2.5": seconds, as a decimal number, to milliseconds.
Expected<int> parseTimeout(const QString &option, const QString &text)
{
    bool ok = false;
    const double seconds = text.toDouble(&ok);
    if (!ok || !(seconds >= 0.05 && seconds <= 3600))
        return Error(u"--%1: must be a number of seconds from 0.05 to 3600 (got '%2')"_s.arg(option, text));
    return int(std::lround(seconds * 1000));
}

struct ListenAddress
{
    QHostAddress address;
    QString host;
    quint16 port = DefaultPort;
};

Expected<ListenAddress> parseListen(const QString &text)
{
    const QUrl url(u"http://"_s + text);
    const int port = url.port(-1);
    if (!url.isValid() || url.host().isEmpty() || port < 0 || port > 65535 || !url.path().isEmpty())
        return Error(u"--listen: expected HOST:PORT with a port from 0 to 65535 (got '%1')"_s.arg(text));
    ListenAddress result;
    result.host = url.host();
    result.port = quint16(port);
    if (result.host.compare(u"localhost"_s, Qt::CaseInsensitive) == 0) {
        result.address = QHostAddress::LocalHost;
    } else if (!result.address.setAddress(result.host)) {
        return Error(u"--listen: '%1' is not an IP address (use 127.0.0.1, ::1, 0.0.0.0 or localhost)"_s
                         .arg(result.host));
    }
    return result;
}

QString urlHost(const QString &host)
{
    return host.contains(u':') ? u'[' + host + u']' : host;
}

// Moves secret header values someone wrote into workspace.json to store, blocking until done
// (docs/eventdeskd.md "Secrets"). When they cannot be moved, the file stays as it is, the error is
// logged, and the values serve this run through the cache; when they were moved, the workspace
// forgets them.
void moveInlineSecrets(const QString &workspaceDir, Workspace &workspace, SecretStore *store,
                       SecretCache &cache)
{
    const QList<InlineSecret> secrets = InlineSecrets::find(workspace);
    if (secrets.isEmpty())
        return;
    QEventLoop loop;
    std::optional<Expected<void>> moved;
    InlineSecrets::move(WorkspaceFolder::workspaceFile(workspaceDir), secrets, store,
                        [&loop, &moved](const Expected<void> &result) {
                            moved = result;
                            loop.quit();
                        });
    if (!moved)
        loop.exec();
    if (!moved->hasValue()) {
        qCCritical(lcSecrets).noquote() << moved->error();
        cache.setWorkspaceValues(InlineSecrets::values(secrets));
        return;
    }
    qCInfo(lcSecrets).noquote() << u"moved %1 secret header value(s) from workspace.json into %2"_s
                                       .arg(secrets.size())
                                       .arg(store->description());
    InlineSecrets::clearValues(workspace);
}

// Loads the secrets of workspace into cache, blocking until the secret stores answered.
void loadSecretsBlocking(SecretCache &cache, const Workspace &workspace)
{
    QEventLoop loop;
    bool done = false;
    cache.load(workspace, [&loop, &done](const QList<SecretProblem> &) {
        done = true;
        loop.quit();
    });
    if (!done)
        loop.exec();
}

// Loads the secrets the workspace needs into the cache before the engine starts, so that no
// delivery goes out without its secret headers. The environment always comes first (servers and
// CI, docs/eventdeskd.md "Secrets"); the keychain (or the opted-in file) is asked only for what the
// environment does not provide, so eventdeskd runs where no keychain exists. Secret header values
// found in workspace.json are moved into the keychain (or the file) first.
Expected<std::unique_ptr<SecretCache>> loadSecrets(const QString &workspaceDir,
                                                   Workspace &workspace, const QString &storeKind,
                                                   const QString &secretsFile,
                                                   EnvironmentSecretStore *environment,
                                                   std::unique_ptr<SecretStore> *secondary)
{
    const auto loadBlocking = [&workspace](SecretCache &cache) { loadSecretsBlocking(cache, workspace); };
    // A value in workspace.json needs a store to go to, even when the environment has it too.
    bool missing = !InlineSecrets::find(workspace).isEmpty();
    for (const SecretRequirement &requirement : SecretCache::requirements(workspace)) {
        if (requirement.required
            && qEnvironmentVariableIsEmpty(
                SecretKeys::environmentVariable(requirement.key).toLatin1().constData()))
            missing = true;
    }
    auto cache = std::make_unique<SecretCache>(QList<SecretStore *>{environment});
    if (!missing || storeKind == "none"_L1) {
        moveInlineSecrets(workspaceDir, workspace, environment, *cache); // read-only: says so
        loadBlocking(*cache); // logs any secret that is unavailable
        return cache;
    }
    if (storeKind == "file"_L1) {
        auto file = std::make_unique<FileSecretStore>(
            secretsFile.isEmpty() ? FileSecretStore::defaultFilePath() : secretsFile);
        // A secrets file others may read is refused outright: it must not look safe to use.
        if (file->availability() == SecretStore::Availability::Unavailable)
            return Error(file->unavailabilityReason());
        qCWarning(lcSecrets).noquote() << file->warning();
        *secondary = std::move(file);
    } else {
        auto keychain = std::make_unique<KeychainSecretStore>();
        keychain->checkAvailability();
        *secondary = std::move(keychain);
    }
    cache = std::make_unique<SecretCache>(QList<SecretStore *>{environment, secondary->get()});
    moveInlineSecrets(workspaceDir, workspace, secondary->get(), *cache);
    loadBlocking(*cache);
    return cache;
}

// --import-workspace / --export-workspace: one action on the shared configuration of a PostgreSQL
// store, then the process ends (0: done, 2: the error is printed).
int runConfigurationAction(const QString &storeLocation, const QString &importFile,
                           const QString &exportFile, const QString &workspaceDir)
{
    const QString store = redactedStoreLocation(storeLocation);
    auto opened = openDeliveryStore(storeLocation, QString());
    if (!opened) {
        printError(opened.error());
        return 2;
    }
    SharedConfiguration *configuration = opened.value()->sharedConfiguration();
    if (!importFile.isEmpty()) {
        auto imported = SharedWorkspace::importFile(*configuration, importFile);
        if (!imported) {
            printError(u"--import-workspace: %1"_s.arg(imported.error()));
            return 2;
        }
        std::printf("imported the topics of %s into the shared configuration of %s: %s\n",
                    qPrintable(importFile), qPrintable(store),
                    qPrintable(SharedWorkspace::describe(imported->revision, imported->topics)));
        return 0;
    }
    // The settings and test receivers of this instance's workspace.json, when it has one.
    Workspace local;
    if (QFileInfo::exists(WorkspaceFolder::workspaceFile(workspaceDir))) {
        auto read = WorkspaceFolder::read(workspaceDir);
        if (!read) {
            printError(u"--export-workspace: %1"_s.arg(read.error()));
            return 2;
        }
        local = std::move(read).value();
    }
    auto exported = SharedWorkspace::exportFile(*configuration, local, exportFile);
    if (!exported) {
        printError(u"--export-workspace: %1"_s.arg(exported.error()));
        return 2;
    }
    std::printf("exported the shared configuration of %s to %s: %s\n", qPrintable(store),
                qPrintable(exportFile),
                qPrintable(SharedWorkspace::describe(exported->revision, exported->topics)));
    return 0;
}

} // namespace

int main(int argc, char *argv[])
{
    // Debug output of the engine is opt-in (QT_LOGGING_RULES="eventdesk.*.debug=true").
    if (qEnvironmentVariableIsEmpty("QT_LOGGING_RULES"))
        QLoggingCategory::setFilterRules(u"eventdesk.*.debug=false"_s);
    QCoreApplication app(argc, argv);
    QCoreApplication::setOrganizationName(u"EventDesk"_s);
    QCoreApplication::setApplicationName(u"eventdeskd"_s);
    QCoreApplication::setApplicationVersion(QStringLiteral(EVENTDESK_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        u"EventDesk headless engine: Azure Event Grid delivery and retry semantics, durable, "
        "with the topic endpoint POST /topics/<topic>/api/events."_s);
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption workspaceOption(
        u"workspace"_s,
        u"Workspace folder (workspace.json, store, deadletters/). Created with a demo topic if "
        "missing. Default: the user's EventDesk data folder."_s,
        u"DIR"_s);
    const QCommandLineOption storeOption(
        u"store"_s,
        u"Where the deliveries are kept: postgresql://USER@HOST:PORT/DATABASE (also postgres://; a "
        "password may follow the user as USER:PASSWORD@, or come from ~/.pgpass or PGPASSWORD) for "
        "an empty PostgreSQL database or one EventDesk created. Default: the workspace's own SQLite "
        "file, of one eventdeskd. Several eventdeskd (each with its own workspace folder and port) "
        "may share a PostgreSQL store: each delivers the events it accepted, and takes over those "
        "of an instance whose lease ran out (see --instance-lease). On a PostgreSQL store the "
        "topics and event subscriptions are the store's: the first instance imports its "
        "workspace.json's, the others use the store's and follow its changes (see "
        "--import-workspace)."_s,
        u"URL"_s);
    const QCommandLineOption listenOption(
        u"listen"_s, u"Address of the topic endpoint (default 127.0.0.1:%1; port 0 picks a free one)."_s.arg(DefaultPort),
        u"HOST:PORT"_s, u"127.0.0.1:%1"_s.arg(DefaultPort));
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
    const QCommandLineOption seedOption(u"jitter-seed"_s, u"Seed the retry jitter (reproducible runs)."_s,
                                        u"SEED"_s);
    const QCommandLineOption secretStoreOption(
        u"secret-store"_s,
        u"Where secrets the environment does not provide come from: keychain (default, the "
        "system keychain), file (a JSON file readable only by you, see --secrets-file) or none."_s,
        u"KIND"_s, u"keychain"_s);
    const QCommandLineOption secretsFileOption(
        u"secrets-file"_s, u"The file of --secret-store file (default: %1)."_s.arg(
                               FileSecretStore::defaultFilePath()),
        u"FILE"_s);
    const HttpConnectionLimits defaultLimits;
    const QCommandLineOption headerTimeoutOption(
        u"header-timeout"_s,
        u"Seconds a client has to send a request's head (request line and headers), from connecting "
        "or from the first byte of its next request; then 408 and closed. 0.05 to 3600, default %1."_s
            .arg(defaultLimits.headerTimeoutMs / 1000.0),
        u"SECONDS"_s, QString::number(defaultLimits.headerTimeoutMs / 1000.0));
    const QCommandLineOption bodyTimeoutOption(
        u"body-timeout"_s,
        u"Longest pause, in seconds, while a request body arrives; then 408 and closed. 0.05 to 3600, "
        "default %1."_s.arg(defaultLimits.bodyTimeoutMs / 1000.0),
        u"SECONDS"_s, QString::number(defaultLimits.bodyTimeoutMs / 1000.0));
    const QCommandLineOption idleTimeoutOption(
        u"idle-timeout"_s,
        u"Seconds a kept-alive connection may wait for its next request before it is closed. 0.05 to "
        "3600, default %1."_s.arg(defaultLimits.idleTimeoutMs / 1000.0),
        u"SECONDS"_s, QString::number(defaultLimits.idleTimeoutMs / 1000.0));
    const QCommandLineOption maxConnectionsOption(
        u"max-connections"_s,
        u"Connections served at once; one more is answered 503 and closed. 1 to 1000000, default %1 "
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
    parser.addOptions({workspaceOption, storeOption, listenOption, timeScaleOption, instanceLeaseOption,
                       importWorkspaceOption, exportWorkspaceOption, noJitterOption, seedOption,
                       secretStoreOption, secretsFileOption, headerTimeoutOption, bodyTimeoutOption,
                       idleTimeoutOption, maxConnectionsOption});
    parser.process(app);

    if (!parser.positionalArguments().isEmpty()) {
        printError(u"unexpected argument '%1' (see --help)"_s.arg(parser.positionalArguments().constFirst()));
        return 2;
    }
    const QString storeLocation = parser.value(storeOption);
    if (const QString problem = storeLocationProblem(storeLocation); !problem.isEmpty()) {
        printError(u"--store: %1 (got '%2')"_s.arg(problem, redactedStoreLocation(storeLocation)));
        return 2;
    }
    const bool configurationAction = parser.isSet(importWorkspaceOption) || parser.isSet(exportWorkspaceOption);
    if (configurationAction) {
        const QString option = parser.isSet(importWorkspaceOption) ? u"--import-workspace"_s : u"--export-workspace"_s;
        if (parser.isSet(importWorkspaceOption) && parser.isSet(exportWorkspaceOption)) {
            printError(u"--import-workspace and --export-workspace: give one of them at a time"_s);
            return 2;
        }
        if (!storeLocation.startsWith(u"postgres"_s, Qt::CaseInsensitive)) {
            printError(u"%1: needs --store postgresql://...: only a PostgreSQL store holds a shared "
                       "configuration (a SQLite store's topics are its workspace.json's)"_s.arg(option));
            return 2;
        }
        const QString file = parser.value(parser.isSet(importWorkspaceOption) ? importWorkspaceOption : exportWorkspaceOption);
        if (file.isEmpty()) {
            printError(u"%1: needs a file name"_s.arg(option));
            return 2;
        }
    }
    auto listen = parseListen(parser.value(listenOption));
    if (!listen) {
        printError(listen.error());
        return 2;
    }
    bool scaleOk = false;
    const double timeScale = parser.value(timeScaleOption).toDouble(&scaleOk);
    if (!scaleOk || timeScale < 1.0 || timeScale > 100000.0) {
        printError(u"--time-scale: must be a number from 1 to 100000 (got '%1')"_s.arg(parser.value(timeScaleOption)));
        return 2;
    }
    bool leaseOk = false;
    const double leaseSeconds = parser.value(instanceLeaseOption).toDouble(&leaseOk);
    if (!leaseOk || leaseSeconds * 1000 < MinInstanceLeaseMs || leaseSeconds * 1000 > MaxInstanceLeaseMs) {
        printError(u"--instance-lease: must be a number of seconds from %1 to %2 (got '%3')"_s.arg(MinInstanceLeaseMs / 1000)
                       .arg(MaxInstanceLeaseMs / 1000)
                       .arg(parser.value(instanceLeaseOption)));
        return 2;
    }
    const QString secretStoreKind = parser.value(secretStoreOption);
    if (secretStoreKind != "keychain"_L1 && secretStoreKind != "file"_L1 && secretStoreKind != "none"_L1) {
        printError(u"--secret-store: must be keychain, file or none (got '%1')"_s.arg(secretStoreKind));
        return 2;
    }
    quint64 seed = 0;
    if (parser.isSet(seedOption)) {
        bool seedOk = false;
        seed = parser.value(seedOption).toULongLong(&seedOk);
        if (!seedOk || seed == 0) {
            printError(u"--jitter-seed: must be a positive integer (got '%1')"_s.arg(parser.value(seedOption)));
            return 2;
        }
    }

    HttpConnectionLimits connectionLimits;
    for (const auto &[option, timeoutMs] : {std::pair{&headerTimeoutOption, &connectionLimits.headerTimeoutMs},
                                            std::pair{&bodyTimeoutOption, &connectionLimits.bodyTimeoutMs},
                                            std::pair{&idleTimeoutOption, &connectionLimits.idleTimeoutMs}}) {
        const auto parsed = parseTimeout(option->names().constFirst(), parser.value(*option));
        if (!parsed) {
            printError(parsed.error());
            return 2;
        }
        *timeoutMs = parsed.value();
    }
    if (parser.isSet(maxConnectionsOption)) {
        bool maxOk = false;
        connectionLimits.maxConnections = parser.value(maxConnectionsOption).toInt(&maxOk);
        if (!maxOk || connectionLimits.maxConnections < 1 || connectionLimits.maxConnections > 1'000'000) {
            printError(u"--max-connections: must be an integer from 1 to 1000000 (got '%1')"_s.arg(
                parser.value(maxConnectionsOption)));
            return 2;
        }
    }
    // Descriptors beyond the connections: the store, outgoing deliveries, the signal pipe.
    if (const quint64 openFiles = raiseOpenFileLimit(); openFiles > 0) {
        const quint64 available = openFiles - std::min<quint64>(256, openFiles / 4);
        if (!parser.isSet(maxConnectionsOption))
            connectionLimits.maxConnections = int(std::min<quint64>(quint64(connectionLimits.maxConnections), available));
        else if (quint64(connectionLimits.maxConnections) > available)
            qCWarning(lcDaemon) << "--max-connections" << connectionLimits.maxConnections << "is more than the"
                                << "open-file limit" << openFiles << "leaves for connections; new connections"
                                << "may fail before the cap is reached";
    }

    QString workspaceDir = parser.value(workspaceOption);
    if (workspaceDir.isEmpty()) {
        workspaceDir = QDir(QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation))
                           .filePath(u"EventDesk/workspaces/default"_s);
    }
    workspaceDir = QDir(workspaceDir).absolutePath();
    if (configurationAction)
        return runConfigurationAction(storeLocation, parser.value(importWorkspaceOption),
                                      parser.value(exportWorkspaceOption), workspaceDir);

    // One owner per workspace: taken before the store hands over the unfinished deliveries, which
    // a second engine would otherwise deliver as well. Released once everything is committed.
    WorkspaceLock lock(workspaceDir);
    if (auto taken = lock.acquire(); !taken) {
        printError(taken.error());
        return lock.owner() ? WorkspaceInUseExitCode : 2;
    }

    if (listen->port == 0)
        listen->port = TopicEndpoint::findFreePort(listen->address);
    const QString baseUrl = u"http://%1:%2"_s.arg(urlHost(listen->host)).arg(listen->port);
    auto workspace = WorkspaceFolder::openOrCreate(workspaceDir, baseUrl);
    if (!workspace) {
        printError(workspace.error());
        return 2;
    }

    auto openedStore = openDeliveryStore(storeLocation, WorkspaceFolder::storeFile(workspaceDir));
    if (!openedStore) {
        printError(openedStore.error());
        return 2;
    }
    const std::unique_ptr<DeliveryStore> store = std::move(openedStore).value();

    std::unique_ptr<Clock> clock;
    if (timeScale == 1.0)
        clock = std::make_unique<SystemClock>();
    else
        clock = std::make_unique<ScaledClock>(timeScale);

    EngineOptions options;
    options.jitter = !parser.isSet(noJitterOption);
    options.jitterSeed = seed;
    // --time-scale: the D6 response timeout scales with engine time, but never below 5 s of real
    // time, so a healthy local receiver does not look TimedOut at high scales; the late-success
    // window keeps its 6x ratio to the timeout.
    options.responseTimeoutMs = std::max<qint64>(30'000, qint64(5'000 * timeScale));
    options.abortAfterMs = 6 * options.responseTimeoutMs;
    options.instanceLeaseMs = qint64(leaseSeconds * 1000);

    EnvironmentSecretStore environmentSecrets;
    std::unique_ptr<SecretStore> secretStore;
    auto loadedSecrets
        = loadSecrets(workspaceDir, workspace.value(), secretStoreKind,
                      parser.value(secretsFileOption), &environmentSecrets, &secretStore);
    if (!loadedSecrets) {
        printError(loadedSecrets.error());
        return 2;
    }
    const std::unique_ptr<SecretCache> secrets = std::move(loadedSecrets.value());
    SecretCache *secretCache = secrets.get();

    // A shared store: its topics and subscriptions, not workspace.json's (docs/shared-store.md
    // "Several instances on one store"); the secrets of the store's subscriptions are loaded as
    // those of the file were.
    SharedConfiguration *sharedConfiguration = store->sharedConfiguration();
    qint64 configurationRevision = 0;
    if (sharedConfiguration) {
        auto adopted = SharedWorkspace::adopt(*sharedConfiguration, workspace.value());
        if (!adopted) {
            printError(u"cannot read the shared configuration: %1"_s.arg(adopted.error()));
            return 2;
        }
        configurationRevision = adopted->revision;
        if (!adopted->imported) {
            if (auto prepared = WorkspaceFolder::prepareDeadLetterContainers(workspaceDir, workspace.value()); !prepared) {
                printError(prepared.error());
                return 2;
            }
            loadSecretsBlocking(*secretCache, workspace.value());
        }
    }

    QNetworkAccessManager network;
    // SPEC L5: the local container folder or an Azure Blob Storage container, per subscription.
    FolderDeadLetterSink folderSink(WorkspaceFolder::deadLetterRoot(workspaceDir));
    AzureBlobDeadLetterSink azureBlobSink(&network, [secretCache](const QString &account) {
        return secretCache->storageAccountKey(account);
    });
    DeadLetterRouter deadLetterSink(&folderSink, &azureBlobSink);
    // Endpoint validation state, so a validated webhook is not validated again at each start.
    ProvisioningFile provisioningFile(ProvisioningFile::defaultPath(workspaceDir));
    Engine engine(clock.get(), &network, store.get(), &deadLetterSink, options);
    engine.setDeliveryLanes(Engine::recommendedDeliveryLanes());
    engine.setProvisioningStore(&provisioningFile);
    engine.setSecretResolver([secretCache](const QString &topic, const QString &subscription,
                                           const QString &header) {
        return secretCache->deliveryHeaderValue(topic, subscription, header);
    });
    engine.setCredentialResolver(
        [secretCache](const QString &secretKey) { return secretCache->value(secretKey); });
    if (auto started = engine.start(workspace.value()); !started) {
        printError(u"cannot start the engine: %1"_s.arg(started.error()));
        return 2;
    }

    TopicEndpoint endpoint(&engine, [secretCache](const QString &topic) {
        return secretCache->topicAccessKey(topic);
    });
    endpoint.setConnectionLimits(connectionLimits);
    auto port = endpoint.listen(listen->address, listen->port);
    if (!port) {
        // A server fails fast on a port it cannot have (the desktop app moves to the next free
        // one instead): whoever runs it chose the address.
        printError(u"%1 (is another EventDesk or an emulator using it? Choose another with "
                   u"--listen HOST:PORT, or port 0 for any free one)"_s.arg(port.error()));
        engine.shutdown();
        return 2;
    }
    if (!listen->address.isLoopback())
        qCWarning(lcDaemon) << "listening on a non-loopback address: the topic endpoint is reachable from other machines";

    // Declared after the engine, so destroyed before it.
    std::unique_ptr<SharedConfigurationWatcher> configurationWatcher;
    if (sharedConfiguration) {
        configurationWatcher = std::make_unique<SharedConfigurationWatcher>(
            sharedConfiguration, configurationRevision, redactedStoreLocation(storeLocation),
            [&engine, &workspace, &workspaceDir, secretCache](const SharedConfigurationSnapshot &snapshot,
                                                             std::function<void(const Expected<void> &)> done) {
                const Workspace next = SharedWorkspace::withTopics(workspace.value(), snapshot.topics);
                if (auto prepared = WorkspaceFolder::prepareDeadLetterContainers(workspaceDir, next); !prepared) {
                    done(Error(prepared.error()));
                    return;
                }
                // As at start: the new subscriptions' secrets are in the cache before they deliver.
                secretCache->load(next, [&engine, &workspace, next, done](const QList<SecretProblem> &) {
                    auto applied = engine.applyWorkspace(next);
                    if (applied)
                        workspace.value() = next;
                    done(applied);
                });
            });
        configurationWatcher->start();
    }

    installSignalHandlers(app);
    std::printf("EventDesk listening on http://%s:%u\n", qPrintable(urlHost(listen->host)), unsigned(port.value()));
    std::fflush(stdout);
    qCInfo(lcDaemon) << "workspace" << workspaceDir << "time scale" << timeScale;
    if (const qint64 instance = engine.instanceId(); instance > 0)
        qCInfo(lcDaemon) << "instance" << instance << "of the shared store, lease" << options.instanceLeaseMs << "ms";
    qCInfo(lcDaemon).noquote() << "requests must name this endpoint in Host:"
                               << endpoint.acceptedHosts();
    qCInfo(lcDaemon) << "at most" << connectionLimits.maxConnections << "connections; timeouts (ms): header"
                     << connectionLimits.headerTimeoutMs << "body" << connectionLimits.bodyTimeoutMs << "idle"
                     << connectionLimits.idleTimeoutMs;

    const int exitCode = app.exec();
    if (configurationWatcher)
        configurationWatcher->stop();
    engine.shutdown();
    store->close();
    lock.release();
    qCInfo(lcDaemon) << "stopped";
    return exitCode;
}
