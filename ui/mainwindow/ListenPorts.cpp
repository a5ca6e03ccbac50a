// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "ListenPorts.h"

#include <QCoreApplication>
#include <QDir>
#include <QInputDialog>
#include <QSettings>
#include <QVariantMap>

using namespace Qt::StringLiterals;

namespace EventDesk::Ui {

namespace {

constexpr auto SettingsKey = "workspace/listenPorts"; // folder -> port

} // namespace

ListenPorts::ListenPorts(ListenAddress usual, bool fromCommandLine)
    : m_usual(std::move(usual))
    , m_fromCommandLine(fromCommandLine)
{
}

quint16 ListenPorts::portFor(const QString &directory) const
{
    const QString key = QDir(directory).absolutePath();
    if (const auto chosen = m_chosenThisRun.constFind(key); chosen != m_chosenThisRun.cend())
        return chosen.value();
    if (m_fromCommandLine)
        return m_usual.port;
    const QVariantMap chosen = QSettings().value(QLatin1StringView(SettingsKey)).toMap();
    bool ok = false;
    const uint port = chosen.value(key).toUInt(&ok);
    return ok && port >= 1 && port <= 65535 ? quint16(port) : m_usual.port;
}

void ListenPorts::choose(const QString &directory, quint16 port)
{
    QSettings settings;
    QVariantMap chosen = settings.value(QLatin1StringView(SettingsKey)).toMap();
    const QString key = QDir(directory).absolutePath();
    m_chosenThisRun.insert(key, port);
    if (port == m_usual.port)
        chosen.remove(key);
    else
        chosen.insert(key, uint(port));
    settings.setValue(QLatin1StringView(SettingsKey), chosen);
}

QString ListenPorts::usualUrl() const
{
    return m_usual.url();
}

std::optional<quint16> ListenPorts::ask(QWidget *parent, quint16 current) const
{
    QInputDialog dialog(parent);
    dialog.setObjectName(u"listenOnDialog"_s);
    dialog.setWindowTitle(QCoreApplication::translate("EventDesk::Ui::ListenPorts", "Listen On"));
    dialog.setInputMode(QInputDialog::IntInput);
    dialog.setLabelText(QCoreApplication::translate(
                            "EventDesk::Ui::ListenPorts",
                            "Port of this workspace's topic endpoint and test receivers on %1 "
                            "(1–65535; the usual one is %2).\nThe choice is remembered for this "
                            "workspace. If the port is taken, the next free one is used.")
                            .arg(m_usual.host)
                            .arg(m_usual.port));
    dialog.setIntRange(1, 65535);
    dialog.setIntValue(current == 0 ? m_usual.port : current);
    if (dialog.exec() != QDialog::Accepted)
        return std::nullopt;
    return quint16(dialog.intValue());
}

} // namespace EventDesk::Ui
