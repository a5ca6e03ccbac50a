// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#include "HeadlessSecrets.h"

#include "../Logging.h"
#include "../keychain/KeychainSecretStore.h"
#include "../secrets/InlineSecrets.h"
#include "../secrets/SecretCache.h"
#include "../workspace/WorkspaceFolder.h"

#include <QEventLoop>

#include <optional>

using namespace Qt::StringLiterals;

namespace EventDesk {

namespace {

// Moves the secret header values of workspace.json to store, waiting until done. When they cannot
// be moved the file stays as it is and the values serve this run through the cache; when they
// were moved, the workspace forgets them.
void moveInlineSecrets(const QString &workspaceDirectory, Workspace &workspace, SecretStore *store,
                       SecretCache &cache)
{
    const QList<InlineSecret> secrets = InlineSecrets::find(workspace);
    if (secrets.isEmpty())
        return;
    QEventLoop loop;
    std::optional<Expected<void>> moved;
    InlineSecrets::move(WorkspaceFolder::workspaceFile(workspaceDirectory), secrets, store,
                        [&loop, &moved](const Expected<void> &result) {
                            moved = result;
                            loop.quit();
                        });
    if (!moved)
        loop.exec();
    if (!moved->hasValue()) {
        qCCritical(lcSecrets).noquote() << moved->error();
        cache.setWorkspaceValues(InlineSecrets::values(secrets));
        return;
    }
    qCInfo(lcSecrets).noquote() << u"moved %1 secret header value(s) from workspace.json into %2"_s
                                       .arg(secrets.size())
                                       .arg(store->description());
    InlineSecrets::clearValues(workspace);
}

// The workspace needs a store beside the environment: a required secret the environment lacks,
// or a value in workspace.json to move (it needs a store to go to, even when the environment has
// it too).
bool needsStore(const Workspace &workspace)
{
    if (!InlineSecrets::find(workspace).isEmpty())
        return true;
    for (const SecretRequirement &requirement : SecretCache::requirements(workspace)) {
        if (requirement.required
            && EnvironmentSecretStore::processValue(
                   SecretKeys::environmentVariable(requirement.key))
                   .isEmpty())
            return true;
    }
    return false;
}

} // namespace

HeadlessSecrets::~HeadlessSecrets() = default;

Expected<std::unique_ptr<HeadlessSecrets>> HeadlessSecrets::open(const QString &workspaceDirectory,
                                                                 Workspace &workspace, Store store,
                                                                 const QString &secretsFile)
{
    std::unique_ptr<HeadlessSecrets> secrets(new HeadlessSecrets);
    QList<SecretStore *> sources {&secrets->m_environment};
    if (store != Store::EnvironmentOnly && needsStore(workspace)) {
        if (store == Store::File) {
            auto file = std::make_unique<FileSecretStore>(
                secretsFile.isEmpty() ? FileSecretStore::defaultFilePath() : secretsFile);
            // A secrets file others may read is refused outright: it must not look safe to use.
            if (file->availability() == SecretStore::Availability::Unavailable)
                return Error(file->unavailabilityReason());
            qCWarning(lcSecrets).noquote() << file->warning();
            secrets->m_store = std::move(file);
        } else {
            auto keychain = std::make_unique<KeychainSecretStore>();
            keychain->checkAvailability();
            secrets->m_store = std::move(keychain);
        }
        sources.append(secrets->m_store.get());
    }
    secrets->m_cache = std::make_shared<SecretCache>(sources);
    // Without a store of its own the environment takes the values, and says it is read-only.
    moveInlineSecrets(workspaceDirectory, workspace,
                      secrets->m_store ? secrets->m_store.get() : &secrets->m_environment,
                      *secrets->m_cache);
    secrets->reload(workspace); // logs every secret that is unavailable
    return secrets;
}

void HeadlessSecrets::reopen(const QString &workspaceDirectory, Workspace &workspace)
{
    moveInlineSecrets(workspaceDirectory, workspace, m_store ? m_store.get() : &m_environment,
                      *m_cache);
    reload(workspace);
}

void HeadlessSecrets::reload(const Workspace &workspace)
{
    QEventLoop loop;
    bool done = false;
    m_cache->load(workspace, [&loop, &done](const QList<SecretProblem> &) {
        done = true;
        loop.quit();
    });
    if (!done)
        loop.exec();
}

} // namespace EventDesk
