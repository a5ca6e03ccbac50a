// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "FuzzSupport.h"

#include <QCoreApplication>
#include <QLoggingCategory>

#include <cstdio>
#include <cstdlib>

namespace EventDesk::Fuzz {

namespace {

void dropMessage(QtMsgType type, const QMessageLogContext &, const QString &message)
{
    // A fatal message aborts after the handler returns; show it, as it is the finding.
    if (type == QtFatalMsg)
        std::fprintf(stderr, "qFatal: %s\n", qPrintable(message));
}

} // namespace

void initialize(int *argc, char ***argv)
{
    qInstallMessageHandler(dropMessage);
    QLoggingCategory::setFilterRules(QStringLiteral("*.debug=false"));
    if (!QCoreApplication::instance())
        new QCoreApplication(*argc, *argv); // lives as long as the process
}

QByteArray bytes(const uint8_t *data, size_t size)
{
    return QByteArray(reinterpret_cast<const char *>(data), qsizetype(size));
}

void require(bool holds, const char *property, const QString &detail)
{
    if (holds)
        return;
    std::fprintf(stderr, "\n==== property broken: %s\n%s\n", property, qPrintable(detail));
    std::abort();
}

} // namespace EventDesk::Fuzz
