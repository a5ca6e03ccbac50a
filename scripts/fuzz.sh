#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The EventDesk developers
# SPDX-License-Identifier: Apache-2.0
# Builds EventDesk's libFuzzer targets (tests/fuzz) with Clang, AddressSanitizer and
# UndefinedBehaviorSanitizer in a build tree of their own, and runs them on their seed corpora.
#
#   scripts/fuzz.sh [--smoke | --long | --seconds N | --build-only] [TARGET...]
#
#   --smoke       every target for 60 seconds (the default; CI runs this through .ci/run)
#   --long        every target for 10,000,000 runs or 30 minutes, whichever comes first
#   --seconds N   every target for N seconds
#   --build-only  install, configure and build; run nothing
#   TARGET        run only these (fuzz_http_request fuzz_event_parser fuzz_filter fuzz_workspace)
#
# Installs what is missing first (as scripts/install-deps.sh does; root): Clang and its sanitizer
# and libFuzzer runtime for this Debian release (clang-14 + libclang-rt-14-dev on Debian 12,
# clang-19 + libclang-rt-19-dev on Debian 13), and what the core libraries need to build. The build
# tree is build-fuzz/ (EVENTDESK_FUZZ_BUILD_DIR overrides); inputs a run finds interesting go to
# build-fuzz/corpus/TARGET (the seeds under tests/fuzz/ are only read), logs to build-fuzz/logs/,
# crashes to build-fuzz/artifacts/TARGET/. A crash, a leak, a broken property or a time-out fails
# the run: the script names the reproducer and the command that replays it, and exits 1.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${EVENTDESK_FUZZ_BUILD_DIR:-$root/build-fuzz}
all_targets=(fuzz_http_request fuzz_event_parser fuzz_filter fuzz_workspace)

usage() { sed -n '/^#   scripts/,/^#   TARGET/p' "$0" | sed 's/^# \{0,1\}//'; }

mode=smoke seconds=60 targets=()
while (($#)); do
    case $1 in
    --smoke) mode=smoke; seconds=60 ;;
    --long) mode=long ;;
    --seconds) mode=seconds; seconds=${2:?--seconds needs a number}; shift ;;
    --build-only) mode=build ;;
    -h | --help) usage; exit 0 ;;
    fuzz_*) targets+=("$1") ;;
    *) echo "unknown argument '$1'" >&2; usage >&2; exit 2 ;;
    esac
    shift
done
((${#targets[@]})) || targets=("${all_targets[@]}")
for target in "${targets[@]}"; do
    [[ " ${all_targets[*]} " == *" $target "* ]] || { echo "unknown target '$target'" >&2; exit 2; }
done

started=$SECONDS
step() { echo "==> $1 ($((SECONDS - started)) s)"; }

# ---- install ------------------------------------------------------------------------------------
step "install"
export DEBIAN_FRONTEND=noninteractive
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
candidate() { apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ && $2 != "(none)" {print $2}'; }
as_root() {
    if [[ $(id -u) -ne 0 ]]; then
        echo "Missing packages: $* — run as root (or: sudo apt-get install --no-install-recommends $*)" >&2
        exit 1
    fi
}

# The release's own Clang: the major version of its "clang" package (Debian 12: 14, 13: 19).
clang_version() { candidate clang | sed -E 's/^[0-9]+://; s/^([0-9]+).*/\1/'; }
version=$(clang_version)
if [[ -z $version ]]; then
    as_root clang
    echo "Updating the package index"
    apt-get update -qq
    updated=1
    version=$(clang_version)
fi
[[ -n $version ]] || { echo "fuzz: this system offers no clang package" >&2; exit 1; }

# libclang-rt-N-dev holds the sanitizer runtimes and libFuzzer's (libclang_rt.fuzzer); clang-N only
# recommends it. The rest is what configuring the project and building the core libraries need
# (scripts/install-deps.sh has it all): CMake configures core/keychain too, hence QtKeychain.
packages=(clang-"$version" libclang-rt-"$version"-dev cmake ninja-build pkg-config
          qt6-base-dev qt6-base-dev-tools libgl-dev libsqlite3-dev qtkeychain-qt6-dev)
missing=()
for package in "${packages[@]}"; do
    installed "$package" || missing+=("$package")
done
if ((${#missing[@]})); then
    as_root "${missing[@]}"
    echo "Installing: ${missing[*]}"
    [[ -n ${updated:-} ]] || apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
compiler=clang++-$version
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf '#include <cstddef>\n#include <cstdint>\nextern "C" int LLVMFuzzerTestOneInput(const uint8_t *, size_t) { return 0; }\n' \
    >"$probe/probe.cpp"
if ! "$compiler" -fsanitize=fuzzer,address,undefined "$probe/probe.cpp" -o "$probe/probe" 2>"$probe/log"; then
    cat "$probe/log" >&2
    echo "fuzz: $compiler cannot link a libFuzzer target; is libclang-rt-$version-dev complete?" >&2
    exit 1
fi

# ---- configure and build ------------------------------------------------------------------------
step "configure ($build, $compiler)"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
# Debug, so that Qt's and EventDesk's Q_ASSERTs are checked too (an index past a QList's end that
# stays inside its allocation is no ASan finding, but is an assertion); -O1 as ASan advises.
cmake -S "$root" -B "$build" -G Ninja -Wno-dev "${launcher[@]}" \
    -DCMAKE_CXX_COMPILER="$compiler" -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_CXX_FLAGS_DEBUG="-O1 -gline-tables-only" \
    -DEVENTDESK_BUILD_FUZZERS=ON -DEVENTDESK_BUILD_TESTS=OFF -DEVENTDESK_BUILD_GUI=OFF >/dev/null
step "build"
cmake --build "$build" --target "${targets[@]}" --parallel "$(nproc)"
[[ $mode != build ]] || { step "built"; exit 0; }

# ---- run ----------------------------------------------------------------------------------------
case $mode in
smoke | seconds) limits=(-max_total_time="$seconds") ;;
long) limits=(-runs=10000000 -max_total_time=1800) ;;
esac
# Sanitizer findings stop the run with a stack; libFuzzer reports leaks as crashes too.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_stack_use_after_return=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$build/logs"
passed=0 failed=0 summary=()
for target in "${targets[@]}"; do
    name=${target#fuzz_}
    corpus=$build/corpus/$name artifacts=$build/artifacts/$name/ log=$build/logs/$name.log
    mkdir -p "$corpus" "$artifacts"
    options=("${limits[@]}" -timeout=25 -rss_limit_mb=2560 -print_final_stats=1
             -artifact_prefix="$artifacts")
    [[ -f $root/tests/fuzz/$name.dict ]] && options+=(-dict="$root/tests/fuzz/$name.dict")
    step "run $target (${limits[*]})"
    status=0
    "$build/tests/fuzz/$target" "${options[@]}" "$corpus" "$root/tests/fuzz/$name" >"$log" 2>&1 || status=$?
    # The last status line: executions, coverage (cov: edges, ft: features), corpus, speed.
    stats=$(grep -aE '^#[0-9]+' "$log" | tail -n 1 || true)
    runs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+)/\1/p' "$log")
    took=$(sed -nE 's/^Done [0-9]+ runs in ([0-9]+) second.*/\1/p' "$log")
    if ((status == 0)); then
        passed=$((passed + 1))
        summary+=("PASS $target  ${runs:-?} runs in ${took:-?} s  ${stats#*\ }")
    else
        failed=$((failed + 1))
        reproducer=$(sed -nE 's/.*Test unit written to (.*)$/\1/p' "$log" | tail -n 1)
        grep -aE '^(==[0-9]+==ERROR|SUMMARY|==== property broken|qFatal)' "$log" | head -n 5 >&2 || true
        summary+=("FAIL $target (exit $status)  reproducer: ${reproducer:-none written}  log: $log")
        [[ -z $reproducer ]] || summary+=("     replay: $build/tests/fuzz/$target $reproducer")
    fi
done
step "done"
printf '%s\n' "${summary[@]}"
echo "fuzz: $passed passed, $failed failed"
((failed == 0))
