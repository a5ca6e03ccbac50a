// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "Format.h"

#include "rules/OutcomeClassifier.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QLocale>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

QString formatDuration(qint64 ms)
{
    if (ms < 0)
        ms = 0;
    if (ms < 1000)
        return ms == 0 ? u"0 s"_s : u"%1 ms"_s.arg(ms);
    qint64 seconds = ms / 1000;
    const qint64 days = seconds / 86400;
    seconds %= 86400;
    const qint64 hours = seconds / 3600;
    seconds %= 3600;
    const qint64 minutes = seconds / 60;
    seconds %= 60;
    QStringList parts;
    if (days)
        parts << u"%1 d"_s.arg(days);
    if (hours)
        parts << u"%1 h"_s.arg(hours);
    if (minutes && !days)
        parts << u"%1 min"_s.arg(minutes);
    if (seconds && !days && !hours)
        parts << u"%1 s"_s.arg(seconds);
    return parts.isEmpty() ? u"0 s"_s : parts.join(u' ');
}

EngineTimeNote engineTimeNote(double lastScale, double fastestScale)
{
    const QLocale locale;
    const auto scale = [&locale](double value) { return locale.toString(value, 'g', 6); };
    if (lastScale > 1.0) {
        return {QCoreApplication::translate("EngineTimeNote", "Engine time, ×%1 the wall clock")
                    .arg(scale(lastScale)),
                QCoreApplication::translate(
                    "EngineTimeNote",
                    "The engine that runs this workspace keeps time %1 times faster than the wall "
                    "clock (eventdeskd --time-scale): the times here are its own, and they run ahead "
                    "of this computer's clock.")
                    .arg(scale(lastScale))};
    }
    if (fastestScale > 1.0) {
        return {QCoreApplication::translate("EngineTimeNote", "Engine time: some runs went ×%1")
                    .arg(scale(fastestScale)),
                QCoreApplication::translate(
                    "EngineTimeNote",
                    "An earlier run of this workspace kept time up to %1 times faster than the wall "
                    "clock (eventdeskd --time-scale): the times of what it wrote may lie ahead of "
                    "this computer's clock.")
                    .arg(scale(fastestScale))};
    }
    return {};
}

QString destinationTypeDisplayName(DestinationType type)
{
    switch (type) {
    case DestinationType::WebHook:
        return QCoreApplication::translate("Format", "Web Hook");
    case DestinationType::AzureFunction:
        return QCoreApplication::translate("Format", "Azure Function");
    case DestinationType::StorageQueue:
        return QCoreApplication::translate("Format", "Storage Queue");
    case DestinationType::ServiceBusQueue:
        return QCoreApplication::translate("Format", "Service Bus Queue");
    case DestinationType::ServiceBusTopic:
        return QCoreApplication::translate("Format", "Service Bus Topic");
    case DestinationType::EventHub:
        return QCoreApplication::translate("Format", "Event Hubs");
    }
    return {};
}

QString formatTime(qint64 msSinceEpoch)
{
    if (msSinceEpoch <= 0)
        return {};
    return QDateTime::fromMSecsSinceEpoch(msSinceEpoch).toString(u"yyyy-MM-dd HH:mm:ss"_s);
}

QString formatClock(qint64 msSinceEpoch)
{
    if (msSinceEpoch <= 0)
        return {};
    return QDateTime::fromMSecsSinceEpoch(msSinceEpoch).toString(u"HH:mm:ss"_s);
}

QString formatLatency(qint64 ms)
{
    if (ms < 1000)
        return u"%1 ms"_s.arg(std::max<qint64>(ms, 0));
    if (ms < 10000)
        return u"%1 s"_s.arg(double(ms) / 1000.0, 0, 'f', 2);
    if (ms < 60000)
        return u"%1 s"_s.arg(double(ms) / 1000.0, 0, 'f', 1);
    return formatDuration(ms);
}

QString prettyJson(const QByteArray &json)
{
    const QByteArray input = json.trimmed();
    if (input.isEmpty() || (input.front() != '{' && input.front() != '['))
        return QString::fromUtf8(json);
    QByteArray output;
    output.reserve(input.size() * 2);
    int depth = 0;
    bool inString = false;
    bool escaped = false;
    const auto newLine = [&output, &depth] {
        output += '\n';
        output += QByteArray(std::max(depth, 0) * 4, ' ');
    };
    for (qsizetype i = 0; i < input.size(); ++i) {
        const char character = input.at(i);
        if (inString) {
            output += character;
            if (escaped)
                escaped = false;
            else if (character == '\\')
                escaped = true;
            else if (character == '"')
                inString = false;
            continue;
        }
        switch (character) {
        case '"':
            inString = true;
            output += character;
            break;
        case '{':
        case '[': {
            output += character;
            // An empty object or array stays on one line.
            qsizetype next = i + 1;
            while (next < input.size() && QChar::isSpace(uchar(input.at(next))))
                ++next;
            if (next < input.size() && (input.at(next) == '}' || input.at(next) == ']')) {
                output += input.at(next);
                i = next;
                break;
            }
            ++depth;
            newLine();
            break;
        }
        case '}':
        case ']':
            --depth;
            newLine();
            output += character;
            break;
        case ',':
            output += character;
            newLine();
            break;
        case ':':
            output += ": ";
            break;
        case ' ':
        case '\t':
        case '\n':
        case '\r':
            break;
        default:
            output += character;
            break;
        }
    }
    if (inString || depth != 0)
        return QString::fromUtf8(json); // not well-formed: show it as it came
    return QString::fromUtf8(output);
}

QColor outcomeColor(DeliveryOutcome outcome)
{
    // Red is for what retrying cannot fix: the retry rules say which outcomes those are.
    if (OutcomeClassifier::isNoRetry(outcome))
        return QColor(0xd0, 0x36, 0x36);
    switch (outcome) {
    case DeliveryOutcome::Delivered:
        return QColor(0x2e, 0xa0, 0x43);
    case DeliveryOutcome::Busy:
    case DeliveryOutcome::TimedOut:
    case DeliveryOutcome::NotFound:
    case DeliveryOutcome::GenericError:
    case DeliveryOutcome::SessionQueueNotSupported:
        return QColor(0xd9, 0x8a, 0x00);
    case DeliveryOutcome::SocketError:
    case DeliveryOutcome::ResolutionError:
    case DeliveryOutcome::Aborted:
        return QColor(0x8e, 0x44, 0xc4);
    default:
        return QColor(0x80, 0x80, 0x80);
    }
}

QColor errorTextColor(const QPalette &palette)
{
    const bool darkWindow = palette.color(QPalette::Window).lightnessF() < 0.5;
    return darkWindow ? QColor(0xff, 0x7b, 0x72) : QColor(0xc6, 0x28, 0x28);
}

} // namespace EventDesk::Ui
