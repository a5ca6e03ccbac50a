#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The EventDesk developers
# SPDX-License-Identifier: Apache-2.0
# Installs what is missing, builds EventDesk and starts the desktop app on the last (or default)
# workspace — the README's first quick-start command. Without a display (a server, an SSH
# session) it starts the headless engine eventdeskd on the same default workspace instead.
# Extra arguments are passed on (e.g. --workspace DIR --listen 127.0.0.1:5170 --time-scale 60).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${EVENTDESK_BUILD_DIR:-$root/build}

"$root/scripts/install-deps.sh"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build" --parallel "$(nproc)" --target eventdesk eventdeskd

if [[ -n "${DISPLAY:-}" || -n "${WAYLAND_DISPLAY:-}" ]]; then
    exec "$build/app/eventdesk/eventdesk" "$@"
fi
echo "No display found: starting the headless engine eventdeskd instead (Ctrl+C stops it)." >&2
exec "$build/app/eventdeskd/eventdeskd" "$@"
