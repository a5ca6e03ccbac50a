#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The EventDesk developers
# SPDX-License-Identifier: Apache-2.0
# Takes the screenshots of docs/screenshots/ from the real desktop app, so they show what the
# current code draws: builds eventdesk_screenshots (tests/screenshots), runs it under Xvfb on a
# 1440x900 screen (the light shots, then the dashboard with the dark palette), and writes
#   docs/screenshots/{dashboard,subscription-editor,delivery-log,dead-letters,send-test-event}.png
#   docs/screenshots/dashboard-dark.png
# The engine runs with --time-scale 10 and no jitter against built-in test receivers that script
# the failures (probation, retries, dead letters); the program waits for those states, not for
# fixed times. Takes about a minute and a half.
#
#   scripts/screenshots.sh [BUILD_DIR]    BUILD_DIR: a configured build tree (default: build)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
out=$root/docs/screenshots

for tool in xvfb-run cmake; do
    command -v "$tool" >/dev/null || { echo "screenshots.sh: '$tool' is missing (scripts/install-deps.sh)" >&2; exit 1; }
done
[[ -f $build/CMakeCache.txt ]] || { echo "screenshots.sh: $build is not a configured build tree" >&2; exit 1; }

nice -n 10 cmake --build "$build" --target eventdesk_screenshots --parallel 2
program=$build/tests/screenshots/eventdesk_screenshots

# A clean session: its own HOME and runtime directory (no settings, no keyring prompts), the
# Fusion style and the C locale so the shots do not depend on the machine taking them.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/home" "$tmp/runtime"
chmod 700 "$tmp/runtime"
run() {
    env -i PATH=/usr/bin:/bin HOME="$tmp/home" XDG_RUNTIME_DIR="$tmp/runtime" LANG=C.UTF-8 \
        QT_QPA_PLATFORM=xcb QT_STYLE_OVERRIDE=Fusion TZ=UTC \
        xvfb-run --auto-servernum --server-args='-screen 0 1440x900x24 -dpi 96' "$program" "$@"
}
run --output "$out" --color-scheme light
run --output "$out" --color-scheme dark --suffix -dark --only dashboard
echo "screenshots.sh: docs/screenshots/ is up to date; look at every PNG before committing it"
