// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// Benchmark 4: the dead-letter browser (ui/deadletters) over 1,000,000 dead letters.
//   time from opening the browser until the first rows are in the view, time until a filter by
//   reason is applied (rows of that reason shown), resident memory afterwards.
#include "BenchFill.h"

#include "deadletters/DeadLetterBrowser.h"

#include <QApplication>
#include <QComboBox>
#include <QCommandLineParser>
#include <QTableView>
#include <QTemporaryDir>

using namespace Qt::StringLiterals;

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOption({u"dead-letters"_s, u"dead letters in the store"_s, u"n"_s, u"1000000"_s});
    parser.addOption({u"fill"_s, u"(internal) fill the workspace's store and exit"_s, u"dir"_s});
    parser.process(app);
    const qint64 count = parser.value(u"dead-letters"_s).toLongLong();
    if (parser.isSet(u"fill"_s))
        return Bench::fillDeadLetters(parser.value(u"fill"_s), count) ? 0 : 1;

    QTemporaryDir directory;
    const QString workspace = directory.filePath(u"workspace"_s);
    Bench::writeWorkspace(workspace, {{u"sub0"_s, u"http://127.0.0.1:9/"_s}});
    if (!Bench::fillInChild({u"--dead-letters"_s, QString::number(count), u"--fill"_s, workspace})) {
        Bench::result(u"4 dead-letter browser"_s, u"error: fill failed"_s, u"-"_s, u"-"_s, u"-"_s, false);
        return 1;
    }

    EventDesk::EngineHost host;
    EventDesk::EngineHost::Config config;
    config.workspaceDirectory = workspace;
    config.listen.port = 0;
    if (const QString error = Bench::startHost(host, config); !error.isEmpty()) {
        Bench::result(u"4 dead-letter browser"_s, u"error: "_s + error, u"-"_s, u"-"_s, u"-"_s, false);
        return 1;
    }

    QElapsedTimer timer;
    timer.start();
    auto *browser = new EventDesk::Ui::DeadLetterBrowser(&host);
    browser->resize(1200, 800);
    browser->show();
    EventDesk::Ui::DeadLetterModel *model = browser->model();
    const bool opened = Bench::spinUntil([&] { return model->rowCount() > 0; }, 30000);
    QCoreApplication::processEvents(); // the paint of those rows
    const double firstRowsMs = double(timer.nsecsElapsed()) / 1e6;

    // Filter by reason: the combo's entry for TimeToLiveExceeded (as a user picks it).
    QComboBox *reasons = browser->reasonCombo();
    const int index = reasons->findData(int(EventDesk::DeadLetterReason::TimeToLiveExceeded));
    bool filtered = false;
    QObject::connect(model, &EventDesk::Ui::DeadLetterModel::pageLoaded, browser, [&](int rows, const QString &) {
        if (model->filter().reason == EventDesk::DeadLetterReason::TimeToLiveExceeded && rows > 0)
            filtered = true;
    });
    timer.restart();
    reasons->setCurrentIndex(index);
    const bool applied = Bench::spinUntil([&] { return filtered; }, 30000);
    QCoreApplication::processEvents();
    const double filterMs = double(timer.nsecsElapsed()) / 1e6;
    // Let the counts finish, scroll a few pages, then read the memory.
    Bench::runEventLoop(1500);
    for (int i = 0; i < 10; ++i) {
        browser->tableView()->scrollToBottom();
        Bench::runEventLoop(50);
    }
    const double rss = Bench::residentMb();
    delete browser;
    host.stop();

    Bench::result(u"4 dead-letter browser: first rows"_s,
                  opened ? Bench::number(firstRowsMs, 1) + u" ms"_s : u"not within 30 s"_s, u"-"_s, u"-"_s,
                  u"<= 500 ms"_s, opened && firstRowsMs <= 500);
    Bench::result(u"4 dead-letter browser: filter by reason"_s,
                  applied ? Bench::number(filterMs, 1) + u" ms"_s : u"not within 30 s"_s, u"-"_s, u"-"_s,
                  u"<= 1000 ms"_s, applied && filterMs <= 1000);
    Bench::result(u"4 dead-letter browser: resident memory"_s, Bench::number(rss) + u" MB"_s, u"-"_s, u"-"_s,
                  u"<= 200 MB"_s, rss <= 200);
    return 0;
}
