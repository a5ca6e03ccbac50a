// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "Logging.h"

#include <QByteArray>
#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>

#include <cstdio>
#include <iterator>
#include <mutex>
#include <utility>

#ifdef Q_OS_UNIX
#include <sys/stat.h>
#endif

using namespace Qt::StringLiterals;

Q_LOGGING_CATEGORY(lcModel, "eventdesk.model", QtInfoMsg)
Q_LOGGING_CATEGORY(lcDelivery, "eventdesk.delivery", QtInfoMsg)
Q_LOGGING_CATEGORY(lcScheduler, "eventdesk.scheduler", QtInfoMsg)
Q_LOGGING_CATEGORY(lcStore, "eventdesk.store", QtInfoMsg)
Q_LOGGING_CATEGORY(lcEndpoint, "eventdesk.endpoint", QtInfoMsg)
Q_LOGGING_CATEGORY(lcDeadLetter, "eventdesk.deadletter", QtInfoMsg)
Q_LOGGING_CATEGORY(lcDaemon, "eventdesk.daemon", QtInfoMsg)
Q_LOGGING_CATEGORY(lcSecrets, "eventdesk.secrets", QtInfoMsg)

namespace EventDesk::Logging {

namespace {

Format s_format = Format::Text;
bool s_journalPriority = false;
std::mutex s_outputMutex; // one line at a time from any thread
// The fields of the message write() is logging on this thread (none for messages logged
// otherwise): Qt's message handler has no place for them.
thread_local const QJsonObject *s_fields = nullptr;

const QString FormatNames[] = {u"text"_s, u"json"_s};
const QString LevelNames[] = {u"debug"_s, u"info"_s, u"warning"_s, u"error"_s};

QString levelName(QtMsgType type)
{
    switch (type) {
    case QtDebugMsg:
        return u"debug"_s;
    case QtInfoMsg:
        return u"info"_s;
    case QtWarningMsg:
        return u"warning"_s;
    case QtCriticalMsg:
        return u"error"_s;
    case QtFatalMsg:
        return u"fatal"_s;
    }
    return u"info"_s;
}

// sd-daemon(3)'s priority prefixes, which journald reads off a line of a service's stderr.
const char *journalPrefix(QtMsgType type)
{
    switch (type) {
    case QtDebugMsg:
        return "<7>";
    case QtInfoMsg:
        return "<6>";
    case QtWarningMsg:
        return "<4>";
    case QtCriticalMsg:
        return "<3>";
    case QtFatalMsg:
        return "<2>";
    }
    return "<6>";
}

// systemd connects a service's stderr to the journal and names that stream in JOURNAL_STREAM
// ("device:inode"): only then are the priority prefixes understood (a terminal would show them).
bool stderrIsJournal()
{
#ifdef Q_OS_UNIX
    const QByteArray stream = qgetenv("JOURNAL_STREAM");
    const qsizetype colon = stream.indexOf(':');
    if (colon <= 0)
        return false;
    bool deviceOk = false;
    bool inodeOk = false;
    const qulonglong device = stream.left(colon).toULongLong(&deviceOk);
    const qulonglong inode = stream.mid(colon + 1).toULongLong(&inodeOk);
    struct stat status = {};
    return deviceOk && inodeOk && ::fstat(2, &status) == 0 && qulonglong(status.st_dev) == device
        && qulonglong(status.st_ino) == inode;
#else
    return false;
#endif
}

// text as a JSON string, quotes and escapes included.
QByteArray jsonString(const QString &text)
{
    const QByteArray array = QJsonDocument(QJsonArray {text}).toJson(QJsonDocument::Compact);
    return array.mid(1, array.size() - 2);
}

void writeLine(const QByteArray &line)
{
    const std::lock_guard lock(s_outputMutex);
    std::fwrite(line.constData(), 1, size_t(line.size()), stderr);
    std::fflush(stderr);
}

void handleMessage(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    QByteArray line;
    if (s_journalPriority)
        line = journalPrefix(type);
    if (s_format == Format::Json) {
        // time, level, category and message first, whatever the fields are (a QJsonObject would
        // sort them in among the fields): the line reads the same for people.
        line += "{\"time\":"
            + jsonString(QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs))
            + ",\"level\":" + jsonString(levelName(type)) + ",\"category\":"
            + jsonString(QString::fromLatin1(context.category ? context.category : "default"))
            + ",\"message\":" + jsonString(message);
        if (s_fields && !s_fields->isEmpty()) {
            const QByteArray fields = QJsonDocument(*s_fields).toJson(QJsonDocument::Compact);
            line += ',' + fields.mid(1); // the fields' members, and the closing brace
        } else {
            line += '}';
        }
    } else {
        // A multi-line message stays one entry: its line breaks would split it for the journal
        // and for anyone reading the log line by line.
        QString text = qFormatLogMessage(type, context, message);
        text.replace(u'\n', u' ');
        line += text.toUtf8();
    }
    line += '\n';
    writeLine(line);
}

} // namespace

std::optional<Format> formatFromName(const QString &name)
{
    for (size_t i = 0; i < std::size(FormatNames); ++i) {
        if (name == FormatNames[i])
            return Format(i);
    }
    return std::nullopt;
}

std::optional<Level> levelFromName(const QString &name)
{
    for (size_t i = 0; i < std::size(LevelNames); ++i) {
        if (name == LevelNames[i])
            return Level(i);
    }
    return std::nullopt;
}

QStringList formatNames()
{
    return {std::begin(FormatNames), std::end(FormatNames)};
}

QStringList levelNames()
{
    return {std::begin(LevelNames), std::end(LevelNames)};
}

void installOutput(Format format)
{
    s_format = format;
    s_journalPriority = stderrIsJournal();
    qInstallMessageHandler(handleMessage);
}

void setLevel(Level level)
{
    switch (level) {
    case Level::Debug:
        QLoggingCategory::setFilterRules(u"eventdesk.*.debug=true"_s);
        break;
    case Level::Info:
        QLoggingCategory::setFilterRules(u"eventdesk.*.debug=false"_s);
        break;
    case Level::Warning:
        QLoggingCategory::setFilterRules(u"*.debug=false\n*.info=false"_s);
        break;
    case Level::Error:
        QLoggingCategory::setFilterRules(u"*.debug=false\n*.info=false\n*.warning=false"_s);
        break;
    }
}

void write(QtMsgType type, const QLoggingCategory &category, const QString &message,
           const QJsonObject &fields)
{
    if (!category.isEnabled(type))
        return;
    const QJsonObject *outer = std::exchange(s_fields, &fields);
    const QMessageLogger logger(nullptr, 0, nullptr, category.categoryName());
    switch (type) {
    case QtDebugMsg:
        logger.debug().noquote() << message;
        break;
    case QtInfoMsg:
        logger.info().noquote() << message;
        break;
    case QtWarningMsg:
        logger.warning().noquote() << message;
        break;
    case QtCriticalMsg:
    case QtFatalMsg: // never ends the process from here
        logger.critical().noquote() << message;
        break;
    }
    s_fields = outer;
}

} // namespace EventDesk::Logging
