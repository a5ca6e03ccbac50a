// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "SharedConfigurationWatcher.h"

#include "../Logging.h"
#include "../workspace/SharedWorkspace.h"

#include <QPointer>

using namespace Qt::StringLiterals;

namespace EventDesk {

SharedConfigurationWatcher::SharedConfigurationWatcher(SharedConfiguration *configuration,
                                                       qint64 appliedRevision,
                                                       const QString &storeName, Apply apply,
                                                       QObject *parent)
    : QObject(parent)
    , m_configuration(configuration)
    , m_storeName(storeName)
    , m_apply(std::move(apply))
    , m_appliedRevision(appliedRevision)
{
    connect(&m_timer, &QTimer::timeout, this, &SharedConfigurationWatcher::poll);
}

void SharedConfigurationWatcher::start(int intervalMs)
{
    m_timer.start(intervalMs);
}

void SharedConfigurationWatcher::stop()
{
    m_timer.stop();
}

void SharedConfigurationWatcher::poll()
{
    if (m_applying)
        return;
    const auto revision = m_configuration->configurationRevision();
    if (!revision) {
        if (!m_unreachable)
            qCWarning(lcStore).noquote()
                << "cannot read the shared configuration's revision (trying again every"
                << m_timer.interval() << "ms; the instance keeps revision" << m_appliedRevision
                << "meanwhile):" << revision.error();
        m_unreachable = true;
        return;
    }
    if (m_unreachable) {
        qCInfo(lcStore).noquote() << "the shared configuration of" << m_storeName
                                  << "answers again";
        m_unreachable = false;
    }
    if (revision.value() == m_appliedRevision || revision.value() == m_refusedRevision)
        return;

    auto snapshot = m_configuration->loadConfiguration();
    if (!snapshot) {
        // Loaded again at the next poll (the connection may have broken in between), but logged
        // only once while the same problem lasts: an invalid row stays until someone fixes it.
        if (snapshot.error() != m_loadError)
            qCWarning(lcStore).noquote()
                << u"cannot load the shared configuration's revision %1 (this instance keeps "
                   "revision %2): %3"_s.arg(revision.value())
                       .arg(m_appliedRevision)
                       .arg(snapshot.error());
        m_loadError = snapshot.error();
        Q_EMIT refused(revision.value(), snapshot.error());
        return;
    }
    m_loadError.clear();
    m_applying = true;
    const qint64 loaded = snapshot->revision;
    const QString description = SharedWorkspace::describe(loaded, snapshot->topics);
    QPointer<SharedConfigurationWatcher> self(this);
    m_apply(snapshot.value(), [self, loaded, description](const Expected<void> &result) {
        if (self)
            self->finish(loaded, description, result);
    });
}

void SharedConfigurationWatcher::finish(qint64 revision, const QString &description,
                                        const Expected<void> &result)
{
    m_applying = false;
    if (!result) {
        // Logged once per revision: the next poll finds the same revision and skips it.
        if (revision != m_refusedRevision)
            qCWarning(lcStore).noquote()
                << "the shared configuration's" << description
                << "was not applied; this instance keeps revision" << m_appliedRevision << "until"
                << "a later one applies:" << result.error();
        m_refusedRevision = revision;
        Q_EMIT refused(revision, result.error());
        return;
    }
    m_appliedRevision = revision;
    qCInfo(lcStore).noquote() << "applied the shared configuration," << description;
    Q_EMIT applied(revision);
}

} // namespace EventDesk
