// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// Benchmark 5: GUI responsiveness while the engine runs benchmark 1's load.
//   The whole desktop window (MainWindow: tree, editor, dashboard charts, delivery log, dead-letter
//   browser) on a workspace whose subscription delivers to nginx; a 1 ms timer on the GUI thread
//   records the longest gap between its ticks (the stall) while events are published through
//   EngineHost and delivered. The same probe on the idle window is the baseline (machine noise).
#include "BenchCommon.h"

#include "mainwindow/MainWindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QMetaEnum>
#include <QTemporaryDir>
#include <QThread>

using namespace Qt::StringLiterals;

namespace {

// Times every event the GUI thread handles (outermost only) and keeps the slowest few while
// recording: what a stall was made of.
class TimedApplication final : public QApplication
{
public:
    using QApplication::QApplication;

    struct Slow
    {
        double ms = 0;
        QString what;
    };

    void record(bool on)
    {
        m_recording = on;
        if (on)
            m_slowest.clear();
    }
    QList<Slow> slowest() const { return m_slowest; }

    bool notify(QObject *receiver, QEvent *event) override
    {
        if (!m_recording || m_depth > 0 || QThread::currentThread() != thread())
            return QApplication::notify(receiver, event);
        ++m_depth;
        QElapsedTimer timer;
        timer.start();
        const bool result = QApplication::notify(receiver, event);
        const double ms = double(timer.nsecsElapsed()) / 1e6;
        --m_depth;
        if (ms >= 2.0 && (m_slowest.size() < 8 || ms > m_slowest.constLast().ms)) {
            QStringList owners;
            for (const QObject *object = receiver; object && owners.size() < 4;
                 object = object->parent())
                owners.append(QString::fromLatin1(object->metaObject()->className())
                              + (object->objectName().isEmpty() ? QString()
                                                                : u'#' + object->objectName()));
            const QString what = u"%1 %2"_s.arg(
                owners.join(u" < "_s),
                QString::fromLatin1(QMetaEnum::fromType<QEvent::Type>().valueToKey(event->type())));
            m_slowest.append({ms, what});
            std::sort(m_slowest.begin(), m_slowest.end(),
                      [](const Slow &a, const Slow &b) { return a.ms > b.ms; });
            if (m_slowest.size() > 8)
                m_slowest.removeLast();
        }
        return result;
    }

private:
    bool m_recording = false;
    int m_depth = 0;
    QList<Slow> m_slowest;
};

} // namespace

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    TimedApplication app(argc, argv);
    QApplication::setOrganizationName(u"EventDeskBench"_s);
    QApplication::setApplicationName(u"EventDeskBench"_s);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOption({u"port"_s, u"nginx port answering 204"_s, u"port"_s});
    parser.addOption({u"requests"_s, u"deliveries"_s, u"n"_s, u"20000"_s});
    parser.process(app);
    const int port = parser.value(u"port"_s).toInt();
    const qint64 events = parser.value(u"requests"_s).toLongLong();
    if (port <= 0) {
        std::fprintf(stderr, "--port is required\n");
        return 2;
    }

    QTemporaryDir directory;
    const QString workspace = directory.filePath(u"workspace"_s);
    Bench::writeWorkspace(workspace, {{u"sub0"_s, u"http://127.0.0.1:%1/"_s.arg(port)}});
    EventDesk::Ui::MainWindow::Options options;
    options.listen.port = 0;
    EventDesk::Ui::MainWindow window(options);
    window.resize(1400, 900);
    window.show();
    EventDesk::EngineHost *host = window.engineHost();
    bool started = false;
    QObject::connect(host, &EventDesk::EngineHost::started, &window, [&](bool ok) { started = ok; });
    window.openWorkspace(workspace);
    if (!Bench::spinUntil([&] { return started; }, 60000)) {
        Bench::result(u"5 GUI stall under benchmark 1 load"_s, u"error: engine did not start"_s, u"-"_s,
                      u"-"_s, u"<= 50 ms"_s, false);
        return 1;
    }
    quint64 delivered = 0;
    QObject::connect(host, &EventDesk::EngineHost::snapshotReady, &window,
                     [&](const EventDesk::EngineSnapshot &snapshot) { delivered = Bench::deliveredTotal(snapshot); });
    Bench::runEventLoop(500);

    Bench::LagProbe probe;
    probe.start();
    Bench::runEventLoop(3000);
    const double idleStall = probe.stopMs();

    // The dashboard is the busiest view under load: show it.
    const QList<QByteArray> bodies = Bench::publishBodies(events, 1024, 1024 * 1024);
    app.record(true);
    probe.start();
    QElapsedTimer timer;
    timer.start();
    for (const QByteArray &body : bodies)
        host->publish(u"bench"_s, body, QByteArrayLiteral("application/json"), [](const EventDesk::PublishResult &) {});
    const bool complete = Bench::spinUntil([&] { return delivered >= quint64(events); }, 120000);
    const double loadSeconds = timer.elapsed() / 1000.0;
    const double stall = probe.stopMs();
    app.record(false);
    for (const auto &slow : app.slowest())
        Bench::info(u"slow GUI event: %1 ms %2"_s.arg(Bench::number(slow.ms, 1), slow.what));
    Bench::info(u"GUI stall probe: %1 deliveries in %2 s (%3/s) with the window open"_s.arg(delivered)
                    .arg(Bench::number(loadSeconds, 2)).arg(Bench::number(delivered / loadSeconds)));
    host->stop();
    Bench::result(u"5 GUI stall under benchmark 1 load"_s,
                  complete ? Bench::number(stall, 1) + u" ms"_s : u"error: load incomplete"_s,
                  Bench::number(idleStall, 1) + u" ms (same probe, idle window)"_s, u"-"_s, u"<= 50 ms"_s,
                  complete && stall <= 50);
    return 0;
}
