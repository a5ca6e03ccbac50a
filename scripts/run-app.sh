#!/usr/bin/env bash
# Installs what is missing, builds EventDesk and starts it on the default workspace (the README's
# first quick-start command). Until the desktop app lands this is the headless engine eventdeskd;
# extra arguments are passed on (e.g. --workspace DIR --listen 127.0.0.1:5170 --time-scale 60).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${EVENTDESK_BUILD_DIR:-$root/build}

"$root/scripts/install-deps.sh"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEVENTDESK_BUILD_TESTS=OFF
cmake --build "$build" --parallel "$(nproc)" --target eventdeskd
exec "$build/app/eventdeskd/eventdeskd" "$@"
