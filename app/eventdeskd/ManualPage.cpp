// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "ManualPage.h"

#include <QDir>
#include <QRegularExpression>
#include <QStringList>

using namespace Qt::StringLiterals;

namespace EventDesk::ManualPage {

namespace {

// Text as roff reads it: a backslash is its escape character, every dash of an option name
// ("--secret-store") is a minus sign (\-, so that the name can be searched for and copied as
// typed), and a line may not start with a control character.
QString roff(QString text)
{
    text.replace(u'\\', "\\e"_L1);
    static const QRegularExpression option(u"(^|[\\s(\\[,'|/])(--?[A-Za-z0-9][A-Za-z0-9-]*)"_s);
    QString escaped;
    qsizetype last = 0;
    for (auto it = option.globalMatch(text); it.hasNext();) {
        const QRegularExpressionMatch match = it.next();
        escaped += QStringView(text).mid(last, match.capturedStart(2) - last);
        escaped += match.captured(2).replace(u'-', "\\-"_L1);
        last = match.capturedEnd(2);
    }
    escaped += QStringView(text).mid(last);
    if (escaped.startsWith(u'.') || escaped.startsWith(u'\''))
        escaped.prepend("\\&"_L1);
    return escaped;
}

QString bold(const QString &text)
{
    return "\\fB"_L1 + roff(text) + "\\fR"_L1;
}

QString italic(const QString &text)
{
    return "\\fI"_L1 + roff(text) + "\\fR"_L1;
}

// A description as the page shows it: the builder's home folder (the default of
// --secrets-file) as ~, whoever builds the page.
QString description(const QCommandLineOption &option)
{
    QString text = option.description();
    const QString home = QDir::homePath();
    if (home.size() > 1)
        text.replace(home + u'/', "~/"_L1);
    return roff(text);
}

QString optionItem(const QCommandLineOption &option)
{
    QStringList names;
    for (const QString &name : option.names())
        names.append(bold((name.size() == 1 ? u"-"_s : u"--"_s) + name));
    QString item = ".TP\n"_L1 + names.join(", "_L1);
    if (!option.valueName().isEmpty())
        item += u' ' + italic(option.valueName());
    return item + u'\n' + description(option) + u'\n';
}

// The sections beside the options. Each line is roff source; "\-" is a minus sign.
const char *const SignalsSection = R"(.SH SIGNALS
.TP
.BR SIGINT ", " SIGTERM
Stop cleanly: requests in flight are cancelled (their deliveries are sent again after the next
start), every state change is committed and the workspace is released; then exit with status 0.
Under systemd, STOPPING=1 is reported first.
.TP
.B SIGHUP
Read workspace.json again and apply it without a restart: topics, event subscriptions, test
receivers and settings. Deliveries of removed subscriptions are dropped, changed retry policies
apply from the next attempt, and the secrets the new configuration needs are loaded before it
delivers. A file that cannot be read or is not valid changes nothing: the error is logged and the
running configuration stays. On a PostgreSQL store the topics and subscriptions stay the store's
(change them with \-\-import\-workspace). Under systemd, RELOADING=1 and then READY=1 are reported,
so \fBsystemctl reload eventdeskd\fR waits for it.
)";

const char *const LoggingSection = R"(.SH LOGGING
Log messages go to standard error, one a line. With \fB\-\-log\-format text\fR a line is
\fIcategory\fR: \fImessage\fR (QT_MESSAGE_PATTERN changes it); with \fB\-\-log\-format json\fR
it is one JSON object with the members
.BR time " (UTC, ISO 8601 with milliseconds), " level " (debug, info, warning, error or fatal), "
.BR category " and " message ,
and, for deliveries, the fields
.BR result " (delivered, retryScheduled, failed, abandoned, deadLettered or dropped), " topic ,
.BR subscription ", " eventId " (or " eventIds " for a batch of several), " attempt ,
.BR outcome ", " httpStatus ", " durationMs ", " nextAttemptTime
(engine time, which \-\-time\-scale speeds up),
.BR reason ", " deliveryAttempts " and " blob .
Successful deliveries are logged at the debug level; failed attempts that will be retried at
info; attempts that end a delivery, dead letters and drops at warning.
.PP
When standard error is systemd's journal (JOURNAL_STREAM names it), every line starts with its
syslog priority, which the journal keeps as the entry's priority: \fBjournalctl \-p warning \-u
eventdeskd\fR shows warnings and errors only.
)";

const char *const EnvironmentSection = R"(.SH ENVIRONMENT
.TP
.BI EVENTDESK_TOPIC_KEY_ TOPIC
The access key of topic TOPIC: the topic name upper\-cased, every character other than an ASCII
letter or digit replaced by an underscore. Publishes to the topic must then carry it
(aeg\-sas\-key) or a shared access signature made with it.
.TP
.BI EVENTDESK_HEADER_ TOPIC _ SUBSCRIPTION _ HEADER
The value of a delivery header marked secret.
.TP
.BI EVENTDESK_STORAGE_KEY_ ACCOUNT
The key (or connection string) of an Azure Storage account: Azure Blob dead\-letter destinations
and Storage queue destinations.
.TP
.BI EVENTDESK_NAMESPACE_KEY_ NAMESPACE
The connection string of a Service Bus or Event Hubs namespace.
.TP
.B CREDENTIALS_DIRECTORY
Set by systemd for a unit with LoadCredential= or SetCredential=: a file in this folder named
like one of the variables above holds that secret (one trailing line break is ignored). The
environment wins when both have it.
.TP
.B NOTIFY_SOCKET
Set by systemd for a unit of Type=notify: READY=1 is sent once the topic endpoint listens,
RELOADING=1 on SIGHUP and STOPPING=1 when it stops.
.TP
.B QT_LOGGING_RULES
Qt's logging rules, applied after \-\-log\-level, e.g. \fBeventdesk.delivery.debug=true\fR.
)";

const char *const FilesSection = R"(.SH FILES
.TP
.IB DIR /workspace.json
Topics, event subscriptions (in Azure Resource Manager's JSON shape), test receivers and settings.
.TP
.IB DIR /eventdesk.db
The workspace's SQLite store: every accepted event and its deliveries.
.TP
.IB DIR /deadletters/
The local dead\-letter containers.
.TP
.IB DIR /provisioning.json
The endpoint validation state of each webhook subscription.
.TP
.B /etc/default/eventdeskd
The options and secrets of the eventdeskd.service systemd unit (readable by root only).
.TP
.B /var/lib/eventdesk/workspace
The unit's workspace folder.
)";

const char *const ExitStatusSection = R"(.SH EXIT STATUS
.TP
.B 0
Stopped by SIGINT or SIGTERM, or \-\-import\-workspace, \-\-export\-workspace, \-\-help or
\-\-version done.
.TP
.B 1
An unknown option, or an option without its value.
.TP
.B 2
An option with an invalid value (the message names the option and the values it takes), a
workspace.json that is not valid, a port that cannot be had, or another error at start\-up.
.TP
.B 3
Another EventDesk engine runs the workspace.
)";

const char *const SeeAlsoSection = R"(.SH SEE ALSO
.BR systemd.service (5),
.BR systemd.exec (5),
.BR journalctl (1)
)";

} // namespace

QByteArray render(const QString &description, const QList<QCommandLineOption> &options,
                  const QString &version, const QDate &date)
{
    QString page;
    page
        += ".\\\" eventdeskd(1), written by `eventdeskd --print-manpage` from its option table.\n"_L1;
    page += u".TH EVENTDESKD 1 \"%1\" \"EventDesk %2\" \"User Commands\"\n"_s.arg(
        date.toString(Qt::ISODate), version);
    page += ".SH NAME\neventdeskd \\- EventDesk's engine without a GUI: Azure Event Grid "
            "delivery and retry semantics, for servers and CI pipelines\n"_L1;
    page += ".SH SYNOPSIS\n"
            ".B eventdeskd\n"
            "[\\fIOPTION\\fR]...\n"
            ".br\n"
            ".B eventdeskd\n"
            "\\fB\\-\\-store\\fR \\fIpostgresql://...\\fR "
            "(\\fB\\-\\-import\\-workspace\\fR | \\fB\\-\\-export\\-workspace\\fR) \\fIFILE\\fR "
            "[\\fB\\-\\-workspace\\fR \\fIDIR\\fR]\n"_L1;
    page += ".SH DESCRIPTION\n"_L1 + roff(description) + u'\n';
    page += ".PP\n"
            "It runs the workspace folder DIR: accepts events on the topic endpoint, stores each "
            "one before it answers 200, and delivers them to the event subscriptions' endpoints "
            "with Event Grid's retry schedule, time to live, batching, endpoint validation, "
            "probation and dead\\-lettering. When it is ready it prints one line, "
            "\\fBEventDesk listening on http://\\fR\\fIHOST\\fR:\\fIPORT\\fR. "
            "The endpoint also serves the built\\-in test receivers "
            "(/receivers/\\fINAME\\fR) and Prometheus metrics (/metrics).\n"_L1;
    page += ".SH OPTIONS\n"_L1;
    for (const QCommandLineOption &option : options) {
        if (option.flags().testFlag(QCommandLineOption::HiddenFromHelp))
            continue;
        page += optionItem(option);
        // Qt's help option comes with --help-all, which QCommandLineParser does not hand out.
        if (option.names().contains("help"_L1))
            page += ".TP\n"_L1 + bold(u"--help-all"_s)
                + "\nDisplays help including Qt specific options.\n"_L1;
    }
    page += QString::fromUtf8(SignalsSection);
    page += QString::fromUtf8(LoggingSection);
    page += QString::fromUtf8(EnvironmentSection);
    page += QString::fromUtf8(FilesSection);
    page += QString::fromUtf8(ExitStatusSection);
    page += QString::fromUtf8(SeeAlsoSection);
    return page.toUtf8();
}

} // namespace EventDesk::ManualPage
