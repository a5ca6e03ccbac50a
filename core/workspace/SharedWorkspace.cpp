// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "SharedWorkspace.h"

#include "../Logging.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>

using namespace Qt::StringLiterals;

namespace EventDesk::SharedWorkspace {

namespace {

// Topics as workspace.json writes them: equal exactly when every field of every topic and
// subscription is.
QJsonArray serialised(const QList<Topic> &topics)
{
    QJsonArray array;
    for (const Topic &topic : topics)
        array.append(topicToJson(topic));
    return array;
}

} // namespace

Workspace withTopics(const Workspace &local, const QList<Topic> &topics)
{
    Workspace workspace = local;
    workspace.topics = topics;
    return workspace;
}

QString describe(qint64 revision, const QList<Topic> &topics)
{
    qsizetype subscriptions = 0;
    for (const Topic &topic : topics)
        subscriptions += topic.eventSubscriptions.size();
    return u"revision %1 (%2 topics, %3 subscriptions)"_s.arg(revision)
        .arg(topics.size())
        .arg(subscriptions);
}

Expected<Adoption> adopt(SharedConfiguration &configuration, Workspace &workspace)
{
    auto snapshot = configuration.loadConfiguration();
    if (!snapshot)
        return Error(snapshot.error());
    if (snapshot->revision == 0) {
        // An edit from the empty configuration at revision 0 rather than an import: of instances
        // starting together, a later one does not wipe what the first one wrote.
        auto written = configuration.saveConfiguration({}, workspace.topics, 0);
        if (written) {
            qCInfo(lcStore).noquote()
                << "the shared store had no configuration: imported this workspace.json's topics as"
                << describe(written.value(), workspace.topics);
            return Adoption {written.value(), true};
        }
        // Another instance was first: use what it wrote.
        qCInfo(lcStore).noquote() << "not importing this workspace.json's topics:"
                                  << written.error();
        snapshot = configuration.loadConfiguration();
        if (!snapshot)
            return Error(snapshot.error());
    }
    qCInfo(lcStore).noquote() << "using the shared configuration,"
                              << describe(snapshot->revision, snapshot->topics);
    if (serialised(workspace.topics) != serialised(snapshot->topics))
        qCInfo(lcStore).noquote()
            << "this workspace.json's topics differ from the shared configuration's and are ignored"
               " (they stay in the file; --import-workspace makes a file the shared configuration)";
    workspace.topics = snapshot->topics;
    return Adoption {snapshot->revision, false};
}

Expected<SharedConfigurationSnapshot> importFile(SharedConfiguration &configuration,
                                                 const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Error(u"cannot read %1: %2"_s.arg(path, file.errorString()));
    auto workspace = Workspace::fromJson(file.readAll(), path);
    if (!workspace)
        return Error(workspace.error());
    auto revision = configuration.replaceConfiguration(workspace->topics);
    if (!revision)
        return Error(revision.error());
    return SharedConfigurationSnapshot {revision.value(), workspace->topics};
}

Expected<SharedConfigurationSnapshot> exportFile(SharedConfiguration &configuration,
                                                 const Workspace &local, const QString &path)
{
    auto snapshot = configuration.loadConfiguration();
    if (!snapshot)
        return Error(snapshot.error());
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return Error(u"cannot write %1: %2"_s.arg(path, file.errorString()));
    // The store never holds a secret value (SPEC H2), so neither does the file.
    const QByteArray json = QJsonDocument(withTopics(local, snapshot->topics).toJson())
                                .toJson(QJsonDocument::Indented);
    if (file.write(json) != json.size() || !file.commit())
        return Error(u"cannot write %1: %2"_s.arg(path, file.errorString()));
    return snapshot;
}

} // namespace EventDesk::SharedWorkspace
