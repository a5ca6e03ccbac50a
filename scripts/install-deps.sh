#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The EventDesk developers
# SPDX-License-Identifier: Apache-2.0
# Installs everything EventDesk needs to build, test, run and benchmark on Debian 12 (bookworm) or
# Debian 13 (trixie), as root. Every package is named here: nothing may come in only as a
# Recommends of another package or because a machine happened to have it
# (scripts/check-fresh-machine.sh proves this on a brand-new root).
set -euo pipefail

packages=(
    # Build: compiler, CMake, Qt 6 (Core, Network, Gui, Widgets, Charts, Sql, Test), QtKeychain,
    # SQLite's C API. Qt6Gui's CMake files look for OpenGL (libgl-dev).
    build-essential cmake ninja-build pkg-config
    qt6-base-dev qt6-base-dev-tools qt6-charts-dev qtkeychain-qt6-dev libgl-dev libsqlite3-dev
    # The app at run time: Qt's platform plugins (xcb, offscreen), a font, the Secret Service
    # keychain and the session bus it talks over, the CAs for HTTPS destinations (Azure Blob).
    qt6-qpa-plugins fonts-dejavu-core gnome-keyring libsecret-1-0 dbus dbus-x11 ca-certificates
    # Tests: the display, the keychain session, the official SDKs and Azurite (Node.js, npm), a
    # test certificate for the webhook client's TLS case (openssl), the packaging test (cpack DEB
    # needs dpkg-dev and file; install, validate, screenshot).
    xvfb xauth curl sqlite3 openssl
    dpkg-dev file xdotool x11-utils imagemagick appstream desktop-file-utils
    # eventdeskd as a service: systemd (systemd-analyze verifies the unit; its pkg-config file
    # names the unit directory), man-db (renders the manual page), lintian (checks the .deb),
    # adduser (the .deb's postinst creates the service's user), procps (/bin/kill, the unit's
    # ExecReload).
    systemd man-db lintian adduser procps
    # Benchmarks (bench/run.sh): the receiver and the load baseline.
    nginx wrk
    # The PostgreSQL store: libpq to build against (found through pkg-config), and the server its
    # tests run as throwaway clusters (scripts/start-postgres.sh; postgresql pulls the release's
    # postgresql-NN, 15 on Debian 12 and 17 on Debian 13, and its client programs).
    libpq-dev postgresql
)

# Node.js runs the official SDKs and Azurite: Debian's nodejs and npm, unless this machine already
# has a Node.js of its own on PATH (e.g. from nodejs.org); npm ci below checks it is one the pinned
# packages support.
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)

# Packages that exist on one release only, asked of the package index:
# - Qt's OpenGL module (a dependency of Qt6Charts' CMake files) has its own -dev package up to
#   Debian 12 and is part of qt6-base-dev from Debian 13 on;
# - systemd's pkg-config file (where the .deb puts eventdeskd.service) is in package systemd up to
#   Debian 12 and in systemd-dev from Debian 13 on.
release_packages=(libqt6opengl6-dev systemd-dev)

export DEBIAN_FRONTEND=noninteractive

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
available() { [[ -n $(apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ && $2 != "(none)" {print $2}') ]]; }

as_root() {
    if [[ $(id -u) -ne 0 ]]; then
        echo "Missing packages: $* — run as root (or: sudo apt-get install --no-install-recommends $*)" >&2
        exit 1
    fi
}

# A brand-new machine may have no package index yet: without it, nothing can be told apart.
if ! available qt6-base-dev; then
    as_root qt6-base-dev
    echo "Updating the package index"
    apt-get update -qq
    updated=1
fi
for package in "${release_packages[@]}"; do
    available "$package" && packages+=("$package")
done

missing=()
for package in "${packages[@]}"; do
    installed "$package" || missing+=("$package")
done

if ((${#missing[@]})); then
    as_root "${missing[@]}"
    if [[ " ${missing[*]} " == *" postgresql "* ]]; then
        # Debian's server package creates a cluster "main" when it is installed and starts it on
        # port 5432, unless postgresql-common's createcluster.conf (which includes this folder)
        # says otherwise. EventDesk's tests start clusters of their own and need no system-wide
        # server, so none is created. Written before the packages come in; a machine that had
        # PostgreSQL already keeps what it has.
        mkdir -p /etc/postgresql-common/createcluster.d
        cat >/etc/postgresql-common/createcluster.d/eventdesk.conf <<'CONF'
# Written by EventDesk's scripts/install-deps.sh: do not create a default "main" cluster when a
# PostgreSQL server package is installed (EventDesk's tests run throwaway clusters of their own).
# Remove this file to get Debian's default behaviour back for versions installed later.
create_main_cluster = false
CONF
    fi
    echo "Installing: ${missing[*]}"
    [[ -n ${updated:-} ]] || apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm packages pinned in tests/package-lock.json (official SDKs and Azurite). The pins are chosen
# so that every package's "engines" range admits the distribution's Node.js (18 on Debian 12,
# 20 on Debian 13); --engine-strict turns a pin that does not into an install error here rather
# than a "crypto is not defined" deep inside a test.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ ! -d "$root/tests/node_modules" || "$root/tests/package-lock.json" -nt "$root/tests/node_modules/.package-lock.json" ]]; then
    echo "Installing the npm packages of tests/package.json (Node.js $(node --version))"
    (cd "$root/tests" && npm ci --engine-strict --no-audit --no-fund --loglevel=error)
fi
