#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The EventDesk developers
# SPDX-License-Identifier: Apache-2.0
# Runs every EventDesk benchmark and prints one table (markdown). Every figure is measured in this
# run on this machine, baselines included. Starts nginx (receiver answering 204) on loopback ports
# with a generated configuration and stops it at the end; wrk gives the receiver's own rate.
#
#   bench/run.sh [BUILD_DIR [PROGRAM...]]   (default: build, every program; the benchmarks are
#                                            built with the project)
#   e.g. bench/run.sh build bench_delivery bench_publish      benchmarks 1, 6 and 2 only
#        bench/run.sh build bench_cluster bench_postgres_insert   benchmark 8 and the PostgreSQL
#                                                                 store's insert path
#
# Needs nginx and wrk (Debian packages nginx and wrk; scripts/install-deps.sh installs them);
# benchmark 8 also the PostgreSQL server programs (Debian: postgresql) for its throwaway cluster.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
bin="$build/bench"
all_programs=(bench_delivery bench_publish bench_backlog bench_deadletters bench_gui_stall bench_resubmit_topic
    bench_cluster bench_postgres_insert)
# Benchmark 8 and the insert path need the PostgreSQL store: a build without it has no such programs.
postgres_programs=(bench_cluster bench_postgres_insert)
with_postgres=$(sed -n 's/^EVENTDESK_WITH_POSTGRESQL:BOOL=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
programs=("${@:2}")
[[ ${#programs[@]} -gt 0 ]] || programs=("${all_programs[@]}")
skipped=()
declare -A skip_reason=()
for program in "${programs[@]}"; do
    [[ " ${all_programs[*]} " == *" $program "* ]] || { echo "unknown benchmark program: $program (one of: ${all_programs[*]})" >&2; exit 2; }
    if [[ " ${postgres_programs[*]} " == *" $program "* && $with_postgres == OFF ]]; then
        skipped+=("$program")
        skip_reason[$program]="this build has no PostgreSQL store (EVENTDESK_WITH_POSTGRESQL=OFF)"
        continue
    fi
    # QtSql (for the QPSQL comparison) is optional: without it CMake does not build this one.
    if [[ $program == bench_postgres_insert && ! -x "$bin/$program" ]]; then
        skipped+=("$program")
        skip_reason[$program]="not built: CMake found no Qt6 Sql"
        continue
    fi
    [[ -x "$bin/$program" ]] || { echo "missing $bin/$program: build the project first" >&2; exit 1; }
done
nginx=$(command -v nginx || true)
[[ -n "$nginx" ]] || nginx=/usr/sbin/nginx
[[ -x "$nginx" ]] || { echo "nginx not found: apt-get install nginx (scripts/install-deps.sh)" >&2; exit 1; }
command -v wrk >/dev/null || { echo "wrk not found: apt-get install wrk (scripts/install-deps.sh)" >&2; exit 1; }

work=$(mktemp -d /tmp/eventdesk-bench.XXXXXX)
chmod 755 "$work"
cleanup() {
    if [[ -f "$work/nginx.pid" ]]; then
        kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
        for _ in $(seq 50); do [[ -f "$work/nginx.pid" ]] || break; sleep 0.1; done
    fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM # so that the EXIT trap stops nginx when interrupted

# Loopback ports for nginx: one for benchmarks 1, 2 and 5, a block of 100 for benchmark 6. They
# are taken below the ephemeral range, where no outgoing connection (of an earlier run, say) can
# hold one, and nothing may answer a connect on them. free_block COUNT prints the first of COUNT
# such consecutive ports.
ephemeral_start=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
free_block() {
    local count=$1 base candidate
    while :; do
        base=$((10000 + RANDOM % (ephemeral_start - 10000 - count)))
        for ((candidate = base; candidate < base + count; candidate++)); do
            (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null && continue 2
        done
        echo "$base"
        return
    done
}
multi_base=$(free_block 100)
port=$(free_block 1)
while ((port >= multi_base && port < multi_base + 100)); do port=$(free_block 1); done

{
    echo "worker_processes 1;"
    echo "pid $work/nginx.pid;"
    echo "error_log $work/error.log warn;"
    [[ $(id -u) -eq 0 ]] && echo "user root;"
    echo "events { worker_connections 4096; }"
    echo "http {"
    echo "  access_log off;"
    echo "  keepalive_requests 100000000;"
    echo "  keepalive_timeout 300s;"
    echo "  client_max_body_size 64m;"
    echo "  client_body_temp_path $work/body;"
    echo "  proxy_temp_path $work/proxy; fastcgi_temp_path $work/fastcgi;"
    echo "  uwsgi_temp_path $work/uwsgi; scgi_temp_path $work/scgi;"
    echo "  server { listen 127.0.0.1:$port; location / { return 204; } location /reject { return 400; } }"
    for i in $(seq 0 99); do
        echo "  server { listen 127.0.0.1:$((multi_base + i)); location / { return 204; } }"
    done
    echo "}"
} >"$work/nginx.conf"
"$nginx" -p "$work" -c "$work/nginx.conf" -e "$work/error.log"
for _ in $(seq 50); do curl -s -o /dev/null -X POST "http://127.0.0.1:$port/" && break; sleep 0.1; done

export QT_QPA_PLATFORM=offscreen
export XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data" XDG_CACHE_HOME="$work/cache"
log="$work/results.txt"
: >"$log"
run() {
    echo "== $*" >&2
    "$@" | tee -a "$log" | grep '^INFO|' | sed 's/^INFO|/   /' >&2 || true
}

# wrk: what loopback HTTP to the receiver allows for the same 1 KB POST with 8 connections (the
# engine's requests in flight): benchmark 1's baseline.
pad=$(printf '%*s' 870 '' | tr ' ' x)
body='[{"id": "0", "subject": "/bench/0", "eventType": "Bench.Event", "eventTime": "2026-01-01T00:00:00Z", "dataVersion": "1.0", "data": {"pad": "'$pad'"}}]'
printf 'wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = [==[%s]==]\n' "$body" >"$work/post.lua"
wrk_rate=$(wrk -t1 -c8 -d5s -s "$work/post.lua" "http://127.0.0.1:$port/" | awk '/Requests\/sec/ {printf "%.0f", $2}')
echo "== wrk -t1 -c8 -d5s: $wrk_rate req/s" >&2

for program in "${skipped[@]}"; do
    echo "== $program: skipped, ${skip_reason[$program]}" >&2
    echo "RESULT|$program|skipped: ${skip_reason[$program]}|-|-|-|-" >>"$log"
done
for program in "${programs[@]}"; do
    [[ " ${skipped[*]} " == *" $program "* ]] && continue
    case $program in
    bench_delivery) run "$bin/bench_delivery" --port "$port" --multi-port-base "$multi_base" --wrk-rate "$wrk_rate" --requests 10000 ;;
    bench_publish) run "$bin/bench_publish" --port "$port" --events 100000 ;;
    bench_backlog) run "$bin/bench_backlog" ;;
    bench_deadletters) run "$bin/bench_deadletters" ;;
    bench_gui_stall)
        # Both platforms count: offscreen, and xcb on a virtual X server where Xvfb is installed.
        QT_QPA_PLATFORM=offscreen run "$bin/bench_gui_stall" --port "$port" --requests 10000
        if command -v xvfb-run >/dev/null; then
            QT_QPA_PLATFORM=xcb run xvfb-run -a -s "-screen 0 1600x1000x24" "$bin/bench_gui_stall" --port "$port" --requests 10000
        else
            echo "RESULT|5 GUI stall under benchmark 1 load (xcb, worst view)|skipped: no xvfb-run (Debian: xvfb)|-|-|-|-" >>"$log"
        fi
        ;;
    bench_resubmit_topic) run "$bin/bench_resubmit_topic" --port "$port" ;;
    bench_cluster) run "$bin/bench_cluster" --port "$port" ;;
    bench_postgres_insert) run "$bin/bench_postgres_insert" ;;
    esac
done

echo
echo "| what | measured | baseline (same run) | ratio | target | met |"
echo "|---|---|---|---|---|---|"
grep '^RESULT|' "$log" | sed -e 's/^RESULT|//' -e 's/|/ | /g' -e 's/^/| /' -e 's/$/ |/'
