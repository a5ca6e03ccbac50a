// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "WorkspaceFolder.h"

#include "../deadletters/FolderDeadLetterSink.h"
#include "../secrets/InlineSecrets.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QStandardPaths>

using namespace Qt::StringLiterals;

namespace EventDesk {

QString WorkspaceFolder::defaultDirectory()
{
    return QDir(QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation))
        .filePath(u"EventDesk/workspaces/default"_s);
}

QString WorkspaceFolder::workspaceFile(const QString &directory)
{
    return QDir(directory).filePath(u"workspace.json"_s);
}

QString WorkspaceFolder::storeFile(const QString &directory)
{
    return QDir(directory).filePath(u"eventdesk.db"_s);
}

QString WorkspaceFolder::deadLetterRoot(const QString &directory)
{
    return QDir(directory).filePath(u"deadletters"_s);
}

QString WorkspaceFolder::lockFile(const QString &directory)
{
    return QDir(directory).filePath(u"eventdesk.lock"_s);
}

QByteArray WorkspaceFolder::defaultWorkspaceJson(const QString &listenBaseUrl)
{
    const QJsonObject subscription{
        {u"name"_s, u"demo-receiver"_s},
        {u"properties"_s,
         QJsonObject{
             {u"destination"_s,
              QJsonObject{{u"endpointType"_s, u"WebHook"_s},
                          {u"properties"_s,
                           QJsonObject{{u"endpointUrl"_s, QString(listenBaseUrl + u"/receivers/demo"_s)}}}}},
             {u"filter"_s, QJsonObject{{u"includedEventTypes"_s, QJsonArray()}}},
             {u"eventDeliverySchema"_s, u"EventGridSchema"_s},
             {u"retryPolicy"_s, QJsonObject{{u"maxDeliveryAttempts"_s, 30},
                                            {u"eventTimeToLiveInMinutes"_s, 1440}}},
             {u"deadLetterDestination"_s,
              QJsonObject{{u"endpointType"_s, u"StorageBlob"_s},
                          {u"properties"_s, QJsonObject{{u"resourceId"_s, u"local"_s},
                                                        {u"blobContainerName"_s, u"deadletters"_s}}}}},
         }}};
    const QJsonObject topic{{u"name"_s, u"demo"_s},
                            {u"inputSchema"_s, u"EventGridSchema"_s},
                            {u"eventSubscriptions"_s, QJsonArray{subscription}}};
    const QJsonObject receiver{{u"name"_s, u"demo"_s}, {u"status"_s, 200}};
    const QJsonObject root{{u"topics"_s, QJsonArray{topic}},
                           {u"receivers"_s, QJsonArray{receiver}},
                           {u"settings"_s, QJsonObject{{u"deadLetterDelaySeconds"_s, 300},
                                                       {u"probationThreshold"_s, 10}}}};
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

Expected<Workspace> WorkspaceFolder::openOrCreate(const QString &directory,
                                                  const QString &listenBaseUrl)
{
    if (!QDir().mkpath(directory))
        return Error(u"cannot create the workspace folder %1"_s.arg(directory));
    const QString path = workspaceFile(directory);
    if (!QFileInfo::exists(path)) {
        QSaveFile file(path);
        if (!file.open(QIODevice::WriteOnly) || file.write(defaultWorkspaceJson(listenBaseUrl)) < 0
            || !file.commit())
            return Error(u"cannot write %1: %2"_s.arg(path, file.errorString()));
    }
    auto workspace = read(directory);
    if (!workspace)
        return workspace;
    if (auto prepared = prepareDeadLetterContainers(directory, workspace.value()); !prepared)
        return Error(prepared.error());
    return workspace;
}

Expected<Workspace> WorkspaceFolder::read(const QString &directory)
{
    const QString path = workspaceFile(directory);
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Error(u"cannot read %1: %2"_s.arg(path, file.errorString()));
    return Workspace::fromJson(file.readAll(), path);
}

Expected<void> WorkspaceFolder::save(const QString &directory, const Workspace &workspace)
{
    const QString path = workspaceFile(directory);
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return Error(u"cannot write %1: %2"_s.arg(path, file.errorString()));
    QJsonObject root = workspace.toJson();
    // A secret header value the workspace still holds is one that could not be moved to a secret
    // store when it was opened (InlineSecrets): it stays in the file, as it was, until it is.
    InlineSecrets::keepValues(root, InlineSecrets::find(workspace));
    const QByteArray json = QJsonDocument(root).toJson(QJsonDocument::Indented);
    if (file.write(json) != json.size() || !file.commit())
        return Error(u"cannot write %1: %2"_s.arg(path, file.errorString()));
    return {};
}

Expected<void> WorkspaceFolder::prepareDeadLetterContainers(const QString &directory,
                                                            const Workspace &workspace)
{
    for (const Topic &topic : workspace.topics) {
        for (const EventSubscription &subscription : topic.eventSubscriptions) {
            const DeadLetterDestination &destination = subscription.deadLetterDestination;
            if (destination.kind != DeadLetterDestination::Kind::LocalFolder)
                continue;
            auto created = FolderDeadLetterSink::createContainer(deadLetterRoot(directory),
                                                                 destination.blobContainerName);
            if (!created)
                return Error(u"%1: subscription %2/%3: %4"_s.arg(workspaceFile(directory), topic.name,
                                                                 subscription.name, created.error()));
        }
    }
    return {};
}

} // namespace EventDesk
