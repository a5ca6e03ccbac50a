// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// Fuzz target: the two JSON files of a workspace folder - workspace.json (Workspace::fromJson:
// topics, event subscriptions in Resource Manager's shape, test receivers, settings) and
// provisioning.json (ProvisioningFile::fromJson: the endpoint validation state).
//
// Input: the bytes of a file; each input is read as both. Properties checked besides ASan/UBSan:
//   - a refused file says why, naming the file;
//   - what was read saves (as WorkspaceFolder and ProvisioningFile write the files), and the
//     saved bytes read again to the same thing: saving a workspace or its provisioning state
//     never loses or changes what it holds, nor turns it into a file that does not open.

#include "FuzzSupport.h"

#include "model/Workspace.h"
#include "workspace/ProvisioningFile.h"

#include <QJsonDocument>

using namespace Qt::StringLiterals;
using namespace EventDesk;

namespace {

void checkWorkspace(const QByteArray &json)
{
    const Expected<Workspace> workspace = Workspace::fromJson(json, u"workspace.json"_s);
    if (!workspace) {
        Fuzz::require(workspace.error().startsWith("workspace.json"_L1),
                      "a refused workspace names the file", workspace.error());
        return;
    }
    const QJsonObject saved = workspace->toJson();
    const QByteArray savedBytes = QJsonDocument(saved).toJson(QJsonDocument::Indented);
    const Expected<Workspace> reloaded = Workspace::fromJson(savedBytes, u"workspace.json"_s);
    Fuzz::require(reloaded.hasValue(), "a saved workspace opens again",
                  reloaded.error() + u"\n"_s + QString::fromUtf8(savedBytes.left(2000)));
    Fuzz::require(reloaded->toJson() == saved, "a saved workspace reads back unchanged",
                  QString::fromUtf8(savedBytes.left(2000)));
}

void checkProvisioning(const QByteArray &json)
{
    ProvisioningFile file(u"provisioning.json"_s, ProvisioningFile::Access::ReadOnly);
    const Expected<QList<ProvisioningRecord>> records = file.fromJson(json, u"provisioning.json"_s);
    if (!records) {
        Fuzz::require(records.error().startsWith("provisioning.json"_L1),
                      "a refused provisioning file names the file", records.error());
        return;
    }
    const QByteArray saved = file.toJson(records.value());
    const Expected<QList<ProvisioningRecord>> reloaded
        = file.fromJson(saved, u"provisioning.json"_s);
    Fuzz::require(reloaded.hasValue(), "a saved provisioning file opens again",
                  reloaded.error() + u"\n"_s + QString::fromUtf8(saved.left(2000)));
    Fuzz::require(reloaded.value() == records.value(),
                  "a saved provisioning file reads back unchanged",
                  QString::fromUtf8(saved.left(2000)));
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    Fuzz::initialize(argc, argv);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray json = Fuzz::bytes(data, size);
    checkWorkspace(json);
    checkProvisioning(json);
    return 0;
}
