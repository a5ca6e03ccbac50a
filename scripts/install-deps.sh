#!/usr/bin/env bash
# Installs what EventDesk needs to build and test on Debian 12 / Ubuntu (run as root).
set -euo pipefail

packages=(
    build-essential cmake ninja-build pkg-config
    qt6-base-dev qt6-base-dev-tools qt6-charts-dev qt6-httpserver-dev qt6-websockets-dev
    qtkeychain-qt6-dev libqt6sql6-sqlite libgl-dev
    sqlite3 curl
)

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
