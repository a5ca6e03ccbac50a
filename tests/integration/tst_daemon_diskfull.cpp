// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// eventdeskd on a disk that fills up (SPEC D1, L4): the workspace, or its dead-letter folder, lies
// on a small tmpfs this test mounts (as root; skipped where mounting is not allowed) and removes.
//
// - Publishes that no longer fit are refused whole with 503 and Retry-After, in Event Grid's error
//   shape; the daemon stays up; every event answered 200 is in the store, none of a refused
//   request is, and the store passes integrity_check; once space is freed it accepts again.
// - Deliveries go on while the disk is full; once space is back the store catches up, and a
//   restart delivers nothing twice.
// - A dead-letter folder that cannot be written keeps its dead letters pending, retried (L4),
//   and shown in /metrics; once writable again they are written.

#include "DaemonProcess.h"
#include "DeadLetterFiles.h"
#include "ScriptedReceiver.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <cerrno>
#include <cstring>
#include <sys/mount.h>

using namespace Qt::StringLiterals;
using namespace EventDesk::Testing;

namespace {

// A tmpfs of a given size mounted on a folder for the length of a test.
class SmallFilesystem final
{
public:
    explicit SmallFilesystem(QString path) : m_path(std::move(path)) {}
    ~SmallFilesystem()
    {
        if (m_mounted)
            ::umount2(m_path.toLocal8Bit().constData(), MNT_DETACH);
    }
    SmallFilesystem(const SmallFilesystem &) = delete;
    SmallFilesystem &operator=(const SmallFilesystem &) = delete;

    // Empty on success, else why not.
    QString mount(int kilobytes)
    {
        QDir().mkpath(m_path);
        if (::mount("tmpfs", m_path.toLocal8Bit().constData(), "tmpfs", MS_NOSUID | MS_NODEV,
                    options(kilobytes).constData()) != 0) {
            return u"mount tmpfs on %1: %2"_s.arg(m_path, QString::fromLocal8Bit(std::strerror(errno)));
        }
        m_mounted = true;
        return {};
    }
    QString remount(int kilobytes, bool readOnly = false)
    {
        const unsigned long flags = MS_REMOUNT | MS_NOSUID | MS_NODEV | (readOnly ? MS_RDONLY : 0);
        if (::mount("tmpfs", m_path.toLocal8Bit().constData(), "tmpfs", flags,
                    options(kilobytes).constData()) != 0) {
            return u"remount %1: %2"_s.arg(m_path, QString::fromLocal8Bit(std::strerror(errno)));
        }
        return {};
    }

private:
    static QByteArray options(int kilobytes) { return "size=" + QByteArray::number(kilobytes) + "k"; }

    QString m_path;
    bool m_mounted = false;
};

// Fills the filesystem holding folder with a file of zeros until a write fails; returns its path.
QString fillUp(const QString &folder)
{
    const QString path = QDir(folder).filePath(u"filler.bin"_s);
    QFile filler(path);
    if (!filler.open(QIODevice::WriteOnly))
        return path;
    const QByteArray block(4096, '\0');
    while (filler.write(block) == block.size() && filler.flush()) {
    }
    return path;
}

QByteArray sizedBatch(const QStringList &ids)
{
    QJsonArray events;
    const QString padding(900, u'x');
    for (const QString &id : ids)
        events.append(eventGridEvent(id, QJsonObject {{u"padding"_s, padding}}));
    return QJsonDocument(events).toJson(QJsonDocument::Compact);
}

// The value of one sample line of /metrics (-1 when absent).
double metric(DaemonProcess &daemon, const QString &sample)
{
    const HttpResult result = daemon.get(QUrl(daemon.baseUrl().toString() + u"/metrics"_s));
    for (const QByteArray &line : result.body.split('\n')) {
        if (line.startsWith(QByteArray(sample.toUtf8() + ' ')))
            return line.mid(sample.size() + 1).toDouble();
    }
    return -1;
}

} // namespace

class DaemonDiskFullTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void d1_fullDiskRefusesPublishesAndKeepsWhatItAccepted();
    void l4_unwritableDeadLetterFolderKeepsDeadLettersPending();
};

void DaemonDiskFullTest::initTestCase()
{
    QVERIFY2(QFileInfo(DaemonProcess::executablePath()).isExecutable(),
             qPrintable(DaemonProcess::executablePath()));
}

void DaemonDiskFullTest::d1_fullDiskRefusesPublishesAndKeepsWhatItAccepted()
{
    QTemporaryDir scratch;
    QVERIFY(scratch.isValid());
    const QString workspace = scratch.filePath(u"workspace"_s);
    SmallFilesystem filesystem(workspace);
    if (const QString failed = filesystem.mount(3 * 1024); !failed.isEmpty())
        QSKIP(qPrintable(u"needs a tmpfs of its own (root): "_s + failed));

    // Nothing is delivered while the disk fills: every accepted event stays in the store.
    const quint16 port = closedLoopbackPort();
    QVERIFY(port != 0);
    WorkspaceJson::SubscriptionOptions subscription;
    subscription.endpointUrl = QUrl(u"http://127.0.0.1:%1/hook"_s.arg(port));
    QVERIFY(WorkspaceJson::write(workspace, WorkspaceJson::workspace({WorkspaceJson::topic(
                                                u"orders"_s, {WorkspaceJson::subscription(subscription)})})));

    QSet<QString> accepted;
    int requests = 0;
    const auto publishNext = [&](DaemonProcess &daemon) {
        QStringList ids;
        for (int index = 0; index < 20; ++index)
            ids.append(u"full-%1-%2"_s.arg(requests).arg(index));
        ++requests;
        const HttpResult result = daemon.publish(u"orders"_s, sizedBatch(ids));
        if (result.status == 200) {
            for (const QString &id : std::as_const(ids))
                accepted.insert(id);
        }
        return result;
    };

    {
        DaemonProcess daemon(workspace);
        daemon.setTimeScale(100);
        QVERIFY2(daemon.start(), qPrintable(daemon.standardError()));
        HttpResult refused;
        while (requests < 2000) {
            refused = publishNext(daemon);
            if (refused.status != 200)
                break;
        }
        qInfo("%lld events accepted before the first refusal, request %d", qint64(accepted.size()), requests);
        QVERIFY2(!accepted.isEmpty(), "the first publish already failed");
        // Publishers retry 503 (and wait for Retry-After): the request was not accepted, and
        // nothing of it is kept.
        QCOMPARE(refused.status, 503);
        QCOMPARE(refused.errorCode(), u"ServiceUnavailable"_s);
        QVERIFY2(refused.errorMessage().contains(u"could not be stored"_s), qPrintable(refused.errorMessage()));
        QVERIFY2(refused.errorMessage().contains(u"full"_s), qPrintable(refused.errorMessage()));
        QVERIFY(refused.header("Retry-After").toInt() > 0);

        // Still up, still refusing, and it says so in /metrics.
        for (int again = 0; again < 5; ++again)
            QCOMPARE(publishNext(daemon).status, 503);
        QVERIFY(daemon.isRunning());
        QVERIFY(metric(daemon, u"eventdesk_store_write_failures_total"_s) >= 6);
        QCOMPARE(metric(daemon, u"eventdesk_store_writable"_s), 0.0);

        // Space is freed: publishes are accepted again (a publisher's retry succeeds).
        QVERIFY2(filesystem.remount(64 * 1024).isEmpty(), "could not grow the tmpfs");
        const qsizetype before = accepted.size();
        QCOMPARE(publishNext(daemon).status, 200);
        QCOMPARE(accepted.size(), before + 20);
        QCOMPARE(metric(daemon, u"eventdesk_store_writable"_s), 1.0);
        QVERIFY2(daemon.terminate(), qPrintable(daemon.standardError().right(4000)));
        QVERIFY2(daemon.standardError().contains(u"not stored"_s), "the refusals are not in the log");
    }

    // Every event answered 200 is in the store, none of a refused request, and the file is sound.
    QCOMPARE(storeScalar(workspace, u"SELECT COUNT(*) FROM events WHERE event_id LIKE 'full-%'"_s),
             qint64(accepted.size()));
    QCOMPARE(storeScalar(workspace, u"SELECT COUNT(DISTINCT event_seq) FROM deliveries"_s),
             qint64(accepted.size()));
    QCOMPARE(storeScalar(workspace,
                         u"SELECT COUNT(*) FROM pragma_integrity_check WHERE integrity_check = 'ok'"_s),
             qint64(1));

    // Deliveries go on while the disk is full again (their state changes wait for space), and
    // once space is back the store catches up: a restart delivers nothing twice.
    ScriptedReceiver receiver;
    {
        DaemonProcess daemon(workspace);
        daemon.setTimeScale(1000);
        QVERIFY2(daemon.start(), qPrintable(daemon.standardError()));
        const QString filler = fillUp(workspace);
        QVERIFY(receiver.listen(port));
        QTRY_VERIFY2_WITH_TIMEOUT(receiver.acceptedEventIds().contains(accepted),
                                  qPrintable(u"%1 of %2 delivered"_s.arg(
                                      (receiver.acceptedEventIds() & accepted).size()).arg(accepted.size())),
                                  120'000);
        qInfo("all %lld events delivered with the disk full; %g store writes failed meanwhile",
              qint64(accepted.size()), metric(daemon, u"eventdesk_store_write_failures_total"_s));
        QVERIFY(QFile::remove(filler));
        QTRY_COMPARE_WITH_TIMEOUT(metric(daemon, u"eventdesk_store_writable"_s), 1.0, 30'000);
        QVERIFY2(daemon.terminate(), qPrintable(daemon.standardError().right(4000)));
    }
    QCOMPARE(storeScalar(workspace, u"SELECT COUNT(*) FROM deliveries"_s), qint64(0));
    QCOMPARE(storeScalar(workspace,
                         u"SELECT COUNT(*) FROM pragma_integrity_check WHERE integrity_check = 'ok'"_s),
             qint64(1));
    const qsizetype deliveredRequests = receiver.requestCount();
    {
        DaemonProcess daemon(workspace);
        daemon.setTimeScale(1000);
        QVERIFY2(daemon.start(), qPrintable(daemon.standardError()));
        QCOMPARE(metric(daemon, u"eventgrid_pending_deliveries{topic=\"orders\",subscription=\"sub-one\"}"_s), 0.0);
        QVERIFY2(daemon.terminate(), qPrintable(daemon.standardError().right(4000)));
    }
    QCOMPARE(receiver.requestCount(), deliveredRequests);
}

void DaemonDiskFullTest::l4_unwritableDeadLetterFolderKeepsDeadLettersPending()
{
    QTemporaryDir workspace;
    QVERIFY(workspace.isValid());
    const QString deadLetters = QDir(workspace.path()).filePath(u"deadletters"_s);
    SmallFilesystem filesystem(deadLetters);
    if (const QString failed = filesystem.mount(1024); !failed.isEmpty())
        QSKIP(qPrintable(u"needs a tmpfs of its own (root): "_s + failed));

    // 400 is a no-retry answer (R2): each event is dead-lettered after its one attempt.
    ScriptedReceiver receiver;
    receiver.setDefaultAction(ScriptedReceiver::Action::respond(400));
    QVERIFY(receiver.listen());
    WorkspaceJson::SubscriptionOptions subscription;
    subscription.endpointUrl = receiver.url();
    QVERIFY(WorkspaceJson::write(workspace.path(),
                                 WorkspaceJson::workspace({WorkspaceJson::topic(
                                     u"orders"_s, {WorkspaceJson::subscription(subscription)})})));

    DaemonProcess daemon(workspace.path());
    daemon.setTimeScale(100); // L4's minute between write tries takes 0.6 s
    QVERIFY2(daemon.start(), qPrintable(daemon.standardError()));
    // The daemon made the container folder; now nothing more can be written there.
    QVERIFY2(filesystem.remount(1024, true).isEmpty(), "could not make the folder read-only");

    QStringList ids;
    for (int index = 0; index < 5; ++index)
        ids.append(u"dl-%1"_s.arg(index));
    QCOMPARE(daemon.publish(u"orders"_s, eventBatch(ids)).status, 200);
    const QString labels = u"{topic=\"orders\",subscription=\"sub-one\"}"_s;
    QTRY_COMPARE_WITH_TIMEOUT(metric(daemon, u"eventgrid_dead_letter_pending_deliveries"_s + labels), 5.0, 30'000);
    QTRY_COMPARE_WITH_TIMEOUT(metric(daemon, u"eventgrid_dead_letter_destination_unavailable"_s + labels), 1.0, 30'000);
    // Retried (several write tries fail), and nothing is dropped before L4's 4 h.
    QTRY_VERIFY_WITH_TIMEOUT(daemon.standardError().count(u"dead-letter write for"_s) >= 3, 30'000);
    QCOMPARE(metric(daemon, u"eventgrid_dead_letter_pending_deliveries"_s + labels), 5.0);
    QVERIFY(deadLetterRecordsBelow(deadLetters).isEmpty());

    QVERIFY2(filesystem.remount(1024, false).isEmpty(), "could not make the folder writable again");
    QTRY_COMPARE_WITH_TIMEOUT(deadLetterRecordsBelow(deadLetters).size(), qsizetype(5), 30'000);
    QTRY_COMPARE_WITH_TIMEOUT(metric(daemon, u"eventgrid_dead_letter_pending_deliveries"_s + labels), 0.0, 30'000);
    QCOMPARE(metric(daemon, u"eventgrid_dead_letter_destination_unavailable"_s + labels), 0.0);
    QSet<QString> written;
    for (const QJsonObject &record : deadLetterRecordsBelow(deadLetters))
        written.insert(record.value(u"id"_s).toString());
    QCOMPARE(written, QSet<QString>(ids.cbegin(), ids.cend()));
    QVERIFY2(daemon.terminate(), qPrintable(daemon.standardError().right(4000)));
}

QTEST_GUILESS_MAIN(DaemonDiskFullTest)
#include "tst_daemon_diskfull.moc"
