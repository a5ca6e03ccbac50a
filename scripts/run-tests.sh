#!/usr/bin/env bash
# Installs what is missing, builds EventDesk and runs the whole test suite (the README's second
# quick-start command; CI runs exactly this through .ci/run).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${EVENTDESK_BUILD_DIR:-$root/build}

"$root/scripts/install-deps.sh"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEVENTDESK_BUILD_TESTS=ON
cmake --build "$build" --parallel "$(nproc)"
cd "$build"
ctest --output-on-failure --timeout 900
