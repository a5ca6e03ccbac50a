#!/bin/sh
# SPDX-FileCopyrightText: 2026 The EventDesk developers
# SPDX-License-Identifier: Apache-2.0
# Runs a test binary in a private D-Bus session with an unlocked GNOME Keyring (Secret Service),
# with HOME and the XDG folders in a temporary directory so the user's own keyring is never
# touched. Usage: run-with-keyring.sh <test binary> [arguments...]
set -eu
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export HOME="$scratch/home" XDG_DATA_HOME="$scratch/data" XDG_CONFIG_HOME="$scratch/config" \
       XDG_CACHE_HOME="$scratch/cache" XDG_RUNTIME_DIR="$scratch/runtime"
mkdir -p "$HOME" "$XDG_DATA_HOME" "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
dbus-run-session -- sh -c '
    # The password on stdin creates and unlocks the "login" keyring (a throw-away one: HOME is
    # temporary). An empty password would make the daemon prompt for one, which fails headless.
    printf "eventdesk-test" | gnome-keyring-daemon --unlock --components=secrets --daemonize >/dev/null
    exec "$@"' run-with-keyring "$@" && status=0 || status=$?
exit "$status"
