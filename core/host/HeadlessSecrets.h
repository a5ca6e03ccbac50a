// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../Expected.h"
#include "../secrets/SecretStore.h"

#include <QString>

#include <memory>

namespace EventDesk {

class SecretCache;
struct Workspace;

// The secrets of a workspace that runs without a window (eventdeskd, docs/eventdeskd.md "Secrets"):
// the environment always comes first (servers and CI); the keychain, or the file the operator opted
// into, is asked only for what the environment does not provide, so a server without a keychain
// runs. Everything is loaded before the engine starts, so no delivery goes out without its secret
// headers: open() and reload() wait for the stores' answers in an event loop of their own.
class HeadlessSecrets final
{
public:
    // Where secrets not in the environment are kept (eventdeskd --secret-store).
    enum class Store { EnvironmentOnly, Keychain, File };

    ~HeadlessSecrets();

    // Moves the secret header values someone wrote into the workspace's workspace.json to the
    // store and out of the file (and out of workspace), then loads what workspace needs. Values
    // that cannot be moved stay in the file and serve this run; the log says why. An error: the
    // store cannot be used at all (a secrets file that others may read).
    static Expected<std::unique_ptr<HeadlessSecrets>> open(const QString &workspaceDirectory,
                                                           Workspace &workspace, Store store,
                                                           const QString &secretsFile);

    std::shared_ptr<SecretCache> cache() const { return m_cache; }
    // Loads the secrets of workspace (another configuration of the same instance), waiting until
    // the stores answered.
    void reload(const Workspace &workspace);
    // The workspace's workspace.json was read again (eventdeskd's SIGHUP): moves the secret header
    // values written into it as open() does (to the store chosen at start; without one they stay
    // in the file and serve this run), then loads what workspace needs.
    void reopen(const QString &workspaceDirectory, Workspace &workspace);

private:
    HeadlessSecrets() = default;

    EnvironmentSecretStore m_environment;
    std::unique_ptr<SecretStore> m_store; // the keychain or the file, when one is needed
    std::shared_ptr<SecretCache> m_cache;
};

} // namespace EventDesk
