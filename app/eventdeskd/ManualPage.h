// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QByteArray>
#include <QCommandLineOption>
#include <QDate>
#include <QList>
#include <QString>

namespace EventDesk::ManualPage {

// eventdeskd(1) in roff (man(7) macros): the options section is options, the same list --help
// prints (hidden options left out), so the page and --help cannot disagree; the other sections
// (signals, logging, environment, files, exit status) are written here. The build runs
// `eventdeskd --print-manpage DATE` and installs the result; date is the release's, so that the
// page is the same whenever it is built.
QByteArray render(const QString &description, const QList<QCommandLineOption> &options,
                  const QString &version, const QDate &date);

} // namespace EventDesk::ManualPage
