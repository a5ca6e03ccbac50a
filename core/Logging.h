// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QJsonObject>
#include <QLoggingCategory>
#include <QString>
#include <QStringList>

#include <optional>

Q_DECLARE_LOGGING_CATEGORY(lcModel)
Q_DECLARE_LOGGING_CATEGORY(lcDelivery)
Q_DECLARE_LOGGING_CATEGORY(lcScheduler)
Q_DECLARE_LOGGING_CATEGORY(lcStore)
Q_DECLARE_LOGGING_CATEGORY(lcEndpoint)
Q_DECLARE_LOGGING_CATEGORY(lcDeadLetter)
Q_DECLARE_LOGGING_CATEGORY(lcDaemon)
Q_DECLARE_LOGGING_CATEGORY(lcSecrets)

namespace EventDesk::Logging {

// How a process that installs the log output (eventdeskd) writes its messages to stderr, one a
// line: Text is Qt's own line ("category: message", QT_MESSAGE_PATTERN applies); Json is one
// object a line with time, level, category, message and the message's structured fields, for log
// collectors. Under systemd's journal either line starts with its syslog priority ("<4>"), which
// the journal takes off and keeps as the entry's priority.
enum class Format { Text, Json };
// The least severe messages written: Debug writes EventDesk's debug messages too (never Qt's own,
// which QT_LOGGING_RULES can still turn on); Error writes errors and fatal messages only.
enum class Level { Debug, Info, Warning, Error };

std::optional<Format> formatFromName(const QString &name);
std::optional<Level> levelFromName(const QString &name);
QStringList formatNames(); // as the command line takes them: "text", "json"
QStringList levelNames(); // "debug", "info", "warning", "error"

// Routes every message of the process to stderr in format. Call once, before anything logs.
void installOutput(Format format);
// Enables the messages of every category at level and above. QT_LOGGING_RULES, when set, still
// has the last word (Qt reads it after these rules).
void setLevel(Level level);

// A message with structured fields: in the Json format they are members of the line's object
// (besides time, level, category and message, which they must not name); the text format writes
// the message alone, so the message must say in words what the fields hold. Nothing is built when
// category is not enabled for type.
void write(QtMsgType type, const QLoggingCategory &category, const QString &message,
           const QJsonObject &fields);

} // namespace EventDesk::Logging
