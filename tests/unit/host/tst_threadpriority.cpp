// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// The engine's threads below the window's (EngineHost::Config::backgroundPriority): a lowered
// thread and the threads it starts, and an engine started so, read from /proc as the scheduler
// sees them.

#include "host/EngineHost.h"
#include "host/ThreadPriority.h"

#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <atomic>

using namespace Qt::StringLiterals;
using namespace EventDesk;

namespace {

// Every thread of this process whose name starts with prefix, and its nice value (Linux).
QHash<QString, int> threadNices(const QString &prefix)
{
    QHash<QString, int> nices;
    const QDir tasks(u"/proc/self/task"_s);
    for (const QString &task : tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile comm(tasks.filePath(task + u"/comm"_s));
        QFile stat(tasks.filePath(task + u"/stat"_s));
        if (!comm.open(QIODevice::ReadOnly) || !stat.open(QIODevice::ReadOnly))
            continue;
        const QString name = QString::fromUtf8(comm.readAll()).trimmed();
        if (!name.startsWith(prefix))
            continue;
        // "pid (comm) state ppid ...": nice is the 19th field, the 17th after the name.
        const QByteArray line = stat.readAll();
        const QList<QByteArray> fields = line.mid(line.lastIndexOf(')') + 2).split(' ');
        if (fields.size() > 16)
            nices.insert(name + u'/' + task, fields.at(16).toInt());
    }
    return nices;
}

} // namespace

class TestThreadPriority final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void loweredThreadAndItsChildren();
    void engineThreadsRunBelowTheWindow_data();
    void engineThreadsRunBelowTheWindow();
};

void TestThreadPriority::loweredThreadAndItsChildren()
{
#ifndef Q_OS_LINUX
    QSKIP("nice values are Linux's; elsewhere QThread's priorities apply");
#else
    const int mine = currentThreadNice();
    std::atomic<int> lowered = -100;
    std::atomic<int> child = -100;
    std::atomic<bool> ok = false;
    QThread *thread = QThread::create([&] {
        ok = lowerCurrentThreadPriority();
        lowered = currentThreadNice();
        // Started after the lowering: as low as its creator.
        QThread *grandChild = QThread::create([&] { child = currentThreadNice(); });
        grandChild->start();
        grandChild->wait();
        delete grandChild;
    });
    thread->start();
    QVERIFY(thread->wait(10'000));
    delete thread;
    QVERIFY(ok);
    QCOMPARE(lowered.load(), std::min(mine + BackgroundNiceIncrement, 19));
    QCOMPARE(child.load(), lowered.load());
    // The calling thread is not touched.
    QCOMPARE(currentThreadNice(), mine);
#endif
}

void TestThreadPriority::engineThreadsRunBelowTheWindow_data()
{
    QTest::addColumn<bool>("background");
    QTest::newRow("as the app runs it") << true;
    QTest::newRow("as benchmarks and tests run it") << false;
}

void TestThreadPriority::engineThreadsRunBelowTheWindow()
{
#ifndef Q_OS_LINUX
    QSKIP("reads the threads' nice values from /proc");
#else
    QFETCH(bool, background);
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    QFile workspace(directory.filePath(u"workspace.json"_s));
    QVERIFY(workspace.open(QIODevice::WriteOnly));
    workspace.write(R"({"topics":[{"name":"orders","inputSchema":"EventGridSchema",)"
                    R"("eventSubscriptions":[]}],"receivers":[]})");
    workspace.close();

    EngineHost host;
    QSignalSpy started(&host, &EngineHost::started);
    EngineHost::Config config;
    config.workspaceDirectory = directory.path();
    config.listen.port = 0;
    config.backgroundPriority = background;
    host.start(config);
    QVERIFY(started.wait(30'000));
    QVERIFY2(started.constFirst().at(0).toBool(), qPrintable(started.constFirst().at(1).toString()));

    const int window = currentThreadNice();
    const int expected = background ? std::min(window + BackgroundNiceIncrement, 19) : window;
    const QHash<QString, int> engine = threadNices(u"EventDesk"_s);
    // The engine thread and its delivery lanes at least.
    QVERIFY2(engine.size() >= 2, qPrintable(QStringList(engine.keyBegin(), engine.keyEnd()).join(u", "_s)));
    for (auto it = engine.cbegin(); it != engine.cend(); ++it)
        QVERIFY2(it.value() == expected,
                 qPrintable(u"%1 runs at nice %2, not %3"_s.arg(it.key()).arg(it.value()).arg(expected)));
    QCOMPARE(currentThreadNice(), window);
    host.stop();
#endif
}

QTEST_GUILESS_MAIN(TestThreadPriority)
#include "tst_threadpriority.moc"
