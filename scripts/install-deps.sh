#!/usr/bin/env bash
# Installs what EventDesk needs to build and test on Debian 12 / Ubuntu (run as root).
set -euo pipefail

packages=(
    build-essential cmake ninja-build pkg-config
    qt6-base-dev qt6-base-dev-tools qt6-charts-dev
    qtkeychain-qt6-dev libgl-dev
    sqlite3 libsqlite3-dev curl # the store links SQLite's C API; sqlite3 to inspect a store
    nginx-light wrk # bench/run.sh: the receiver and the load baseline
    xvfb xauth dbus dbus-x11 gnome-keyring libsecret-1-0
    dpkg-dev qt6-qpa-plugins xdotool x11-utils imagemagick appstream desktop-file-utils # packaging test
)
# Node.js runs the conformance tests (official SDKs) and the Azurite storage emulator.
command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done

if ((${#missing[@]})); then
    if [[ $(id -u) -ne 0 ]]; then
        echo "Missing packages: ${missing[*]} — run as root (or: sudo apt-get install ${missing[*]})" >&2
        exit 1
    fi
    echo "Installing: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm packages pinned in tests/package-lock.json (official SDKs and Azurite).
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ ! -d "$root/tests/node_modules" || "$root/tests/package-lock.json" -nt "$root/tests/node_modules/.package-lock.json" ]]; then
    echo "Installing the npm packages of tests/package.json"
    (cd "$root/tests" && npm ci --no-audit --no-fund --loglevel=error)
fi
