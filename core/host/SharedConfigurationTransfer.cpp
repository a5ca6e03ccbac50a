// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "SharedConfigurationTransfer.h"

#include "../workspace/SharedWorkspace.h"
#include "../workspace/WorkspaceFolder.h"
#include "StoreOpener.h"

#include <QFileInfo>

using namespace Qt::StringLiterals;

namespace EventDesk::SharedConfigurationTransfer {

Expected<QString> importFile(const QString &storeLocation, const QString &file)
{
    auto opened = openDeliveryStore(storeLocation, QString());
    if (!opened)
        return Error(opened.error());
    auto imported = SharedWorkspace::importFile(*opened.value()->sharedConfiguration(), file);
    if (!imported)
        return Error(u"--import-workspace: %1"_s.arg(imported.error()));
    return u"imported the topics of %1 into the shared configuration of %2: %3"_s.arg(
        file, redactedStoreLocation(storeLocation),
        SharedWorkspace::describe(imported->revision, imported->topics));
}

Expected<QString> exportFile(const QString &storeLocation, const QString &file,
                             const QString &workspaceDirectory)
{
    auto opened = openDeliveryStore(storeLocation, QString());
    if (!opened)
        return Error(opened.error());
    Workspace local;
    if (QFileInfo::exists(WorkspaceFolder::workspaceFile(workspaceDirectory))) {
        auto read = WorkspaceFolder::read(workspaceDirectory);
        if (!read)
            return Error(u"--export-workspace: %1"_s.arg(read.error()));
        local = std::move(read).value();
    }
    auto exported
        = SharedWorkspace::exportFile(*opened.value()->sharedConfiguration(), local, file);
    if (!exported)
        return Error(u"--export-workspace: %1"_s.arg(exported.error()));
    return u"exported the shared configuration of %1 to %2: %3"_s.arg(
        redactedStoreLocation(storeLocation), file,
        SharedWorkspace::describe(exported->revision, exported->topics));
}

} // namespace EventDesk::SharedConfigurationTransfer
