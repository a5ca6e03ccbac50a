#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The EventDesk developers
# SPDX-License-Identifier: Apache-2.0
# Installs what is missing, builds EventDesk and runs the whole test suite (the README's second
# quick-start command; CI runs exactly this through .ci/run). Arguments are passed to ctest, e.g.
# `scripts/run-tests.sh -L conformance` or `scripts/run-tests.sh -R tst_engine`.
#
# --sanitize (first argument): the same suite built with AddressSanitizer and
# UndefinedBehaviorSanitizer in build-sanitize/ (EVENTDESK_SANITIZE_BUILD_DIR), every memory error,
# leak or undefined behaviour failing its test. The packaging test is left out: it builds and
# installs the release package.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${EVENTDESK_BUILD_DIR:-$root/build}
configure=()
sanitize=0
if [[ ${1:-} == --sanitize ]]; then
    shift
    sanitize=1
    build=${EVENTDESK_SANITIZE_BUILD_DIR:-$root/build-sanitize}
    configure=(-DEVENTDESK_SANITIZE=address,undefined)
    suppressions=$root/tests/sanitizers
    # Leaks are checked at exit; what Qt's plugins and the system libraries keep for the
    # process's life is listed in lsan.supp.
    export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:check_initialization_order=1:strict_init_order=1}
    export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$suppressions/lsan.supp:print_suppressions=0}
    export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
fi

# Each step announces itself on a line of its own (scripts/check-fresh-machine.sh times them).
echo "==> install-deps"
"$root/scripts/install-deps.sh"
echo "==> configure"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEVENTDESK_BUILD_TESTS=ON "${configure[@]}"
echo "==> build"
cmake --build "$build" --parallel "$(nproc)"
echo "==> test"
cd "$build"
if ((sanitize)); then
    ctest --output-on-failure --timeout 900 -LE packaging "$@"
else
    ctest --output-on-failure --timeout 900 "$@"
fi
