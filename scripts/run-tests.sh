#!/usr/bin/env bash
# Installs what is missing, builds EventDesk and runs the whole test suite (the README's second
# quick-start command; CI runs exactly this through .ci/run). Arguments are passed to ctest, e.g.
# `scripts/run-tests.sh -L conformance` or `scripts/run-tests.sh -R tst_engine`.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${EVENTDESK_BUILD_DIR:-$root/build}

# Each step announces itself on a line of its own (scripts/check-fresh-machine.sh times them).
echo "==> install-deps"
"$root/scripts/install-deps.sh"
echo "==> configure"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEVENTDESK_BUILD_TESTS=ON
echo "==> build"
cmake --build "$build" --parallel "$(nproc)"
echo "==> test"
cd "$build"
ctest --output-on-failure --timeout 900 "$@"
