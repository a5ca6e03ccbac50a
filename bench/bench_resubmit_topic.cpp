// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// Benchmark 7: resubmitting 100,000 filtered dead letters through their topic from the dead-letter
// browser (ui/deadletters), as a user does it: the filter by reason, the dry run (progress, then
// its dialog), then the resubmit it leads to (progress until done). A 1 ms timer on the GUI
// thread (Bench::LagProbe, as benchmark 5) records the longest stall of the window during each;
// the same probe on the idle browser is the baseline. The store holds 400,000 dead letters of a
// topic with two subscriptions, a quarter of them TimeToLiveExceeded (the filter): the run
// creates 200,000 deliveries, sent to nginx when --port is given (bench/run.sh) or refused by a
// closed port otherwise.
#include "BenchFill.h"

#include "deadletters/DeadLetterBrowser.h"
#include "deadletters/TopicResubmitDialog.h"

#include <QApplication>
#include <QComboBox>
#include <QCommandLineParser>
#include <QLabel>
#include <QTemporaryDir>

using namespace Qt::StringLiterals;
using EventDesk::Ui::DeadLetterBrowser;

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOption(
        {u"dead-letters"_s, u"dead letters in the store (a quarter match)"_s, u"n"_s, u"400000"_s});
    parser.addOption(
        {u"port"_s, u"nginx port answering 204 (default: a closed port)"_s, u"port"_s});
    parser.addOption({u"fill"_s, u"(internal) fill the workspace's store and exit"_s, u"dir"_s});
    parser.process(app);
    const qint64 count = parser.value(u"dead-letters"_s).toLongLong();
    if (parser.isSet(u"fill"_s))
        return Bench::fillDeadLetters(parser.value(u"fill"_s), count) ? 0 : 1;
    const QString name = u"7 resubmit through topic"_s;
    const auto fail = [&name](const QString &why) {
        Bench::result(name, u"error: "_s + why, u"-"_s, u"-"_s, u"-"_s, false);
        return 1;
    };

    QTemporaryDir directory;
    const QString workspace = directory.filePath(u"workspace"_s);
    const QString url = parser.isSet(u"port"_s)
        ? u"http://127.0.0.1:%1/"_s.arg(parser.value(u"port"_s))
        : u"http://127.0.0.1:9/"_s;
    Bench::writeWorkspace(workspace, {{u"sub0"_s, url}, {u"sub1"_s, url}});
    if (!Bench::fillInChild({u"--dead-letters"_s, QString::number(count), u"--fill"_s, workspace}))
        return fail(u"fill failed"_s);

    EventDesk::EngineHost host;
    EventDesk::EngineHost::Config config;
    config.workspaceDirectory = workspace;
    config.listen.port = 0;
    if (const QString error = Bench::startHost(host, config); !error.isEmpty())
        return fail(error);

    auto *browser = new DeadLetterBrowser(&host);
    browser->resize(1200, 800);
    browser->show();
    qint64 matching = -1;
    QObject::connect(browser, &DeadLetterBrowser::countsChanged, browser,
                     [&](qint64, qint64 counted) { matching = counted; });
    if (!Bench::spinUntil([&] { return browser->model()->rowCount() > 0 && matching >= 0; }, 60000))
        return fail(u"the browser did not open"_s);
    QComboBox *reasons = browser->reasonCombo();
    matching = -1;
    reasons->setCurrentIndex(
        reasons->findData(int(EventDesk::DeadLetterReason::TimeToLiveExceeded)));
    if (!Bench::spinUntil([&] { return matching >= 0; }, 60000))
        return fail(u"the filter was not counted"_s);
    Bench::runEventLoop(500);

    Bench::LagProbe probe;
    probe.start();
    Bench::runEventLoop(2000);
    const double idleStall = probe.stopMs();

    // The dry run: chunks of DeadLetterOperations::Chunk with progress, then its dialog.
    QDialog *dialog = nullptr;
    QObject::connect(browser, &DeadLetterBrowser::topicResubmitDialogOpened, browser,
                     [&](QDialog *opened) { dialog = opened; });
    QElapsedTimer timer;
    probe.start();
    timer.start();
    browser->resubmitThroughTopic(DeadLetterBrowser::Scope::AllMatching);
    const bool dryRunDone = Bench::spinUntil([&] { return dialog != nullptr; }, 600000);
    const double dryRunStall = probe.stopMs();
    const double dryRunSeconds = timer.elapsed() / 1000.0;
    if (!dryRunDone)
        return fail(u"the dry run did not end within 10 min"_s);
    const QString summary
        = static_cast<EventDesk::Ui::TopicResubmitDialog *>(dialog)->summaryText();
    Bench::info(
        u"dry run of %1 matching dead letters (of %2): %3 s; %4"_s.arg(matching).arg(count).arg(
            Bench::number(dryRunSeconds, 2), summary));

    int resubmitted = -1;
    QStringList errors;
    QObject::connect(browser, &DeadLetterBrowser::operationFinished, browser,
                     [&](int processed, const QStringList &problems) {
                         resubmitted = processed;
                         errors = problems;
                     });
    probe.start();
    timer.restart();
    dialog->accept();
    const bool runDone = Bench::spinUntil([&] { return resubmitted >= 0; }, 600000);
    const double runStall = probe.stopMs();
    const double runSeconds = timer.elapsed() / 1000.0;
    if (!runDone)
        return fail(u"the resubmit did not end within 10 min"_s);
    Bench::info(u"resubmitted %1 through the topic in %2 s (%3 dead letters/s), %4 problems; %5"_s
                    .arg(resubmitted)
                    .arg(Bench::number(runSeconds, 2))
                    .arg(Bench::number(resubmitted / std::max(runSeconds, 0.001)))
                    .arg(errors.size())
                    .arg(browser->statusLabel()->text()));
    delete browser;
    host.stop();

    const QString baseline = Bench::number(idleStall, 1) + u" ms (same probe, idle browser)"_s;
    Bench::result(name + u": GUI stall during the dry run of %1"_s.arg(matching),
                  Bench::number(dryRunStall, 1) + u" ms"_s, baseline, u"-"_s, u"<= 50 ms"_s,
                  dryRunStall <= 50);
    Bench::result(name + u": GUI stall during the resubmit of %1"_s.arg(matching),
                  Bench::number(runStall, 1) + u" ms"_s, baseline, u"-"_s, u"<= 50 ms"_s,
                  runStall <= 50 && resubmitted == matching);
    Bench::result(name + u": dry run, resubmit"_s,
                  Bench::number(dryRunSeconds, 1) + u" s, "_s + Bench::number(runSeconds, 1)
                      + u" s"_s,
                  u"-"_s, u"-"_s, u"-"_s, true);
    return 0;
}
