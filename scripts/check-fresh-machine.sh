#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The EventDesk developers
# SPDX-License-Identifier: Apache-2.0
# Runs the README's two quick-start commands the way a new user does: as root on a brand-new,
# minimal Debian root (mmdebstrap --variant=minbase) holding the committed tree (git archive HEAD)
# and nothing else of this machine's — no package, no build, no node_modules. What it carries over
# is what a new machine in the same place would have too: the certificate authorities this
# machine adds (/usr/local/share/ca-certificates), its package managers' proxy settings and
# /etc/npmrc, and the DNS resolver.
#
#   scripts/check-fresh-machine.sh [--quick] [--keep] [--work DIR] [bookworm|trixie]
#
#   bookworm (default)  Debian 12: Qt 6.4, Node.js 18       trixie  Debian 13: Qt 6.8, Node.js 20
#   --quick   scripts/run-tests.sh runs only the tests that depend on what the machine has
#             installed (the official SDKs and Azurite on Node.js, the keychain, the .deb, the
#             systemd unit and the manual page); the
#             install, the configure and the build of every target are the same as without it
#   --keep    keep the root after the run (it is deleted otherwise; the logs always stay)
#   --work    where the root and the logs go (default: a new folder under /tmp)
#
# Steps (one PASS/FAIL line each, with its time and log):
#   bootstrap   the minimal root
#   install     scripts/run-tests.sh's install of the packages and the npm clients
#   configure   its CMake configure
#   build       its build of every target
#   test        its ctest run
#   app         scripts/run-app.sh --listen 127.0.0.1:5170 without a display, in a network
#               namespace of its own (nothing of this machine can answer on 5170 in its place):
#               it must print its listening line, accept a published event (200) and serve
#               /metrics, then stop cleanly on SIGTERM
# Needs root (mmdebstrap, chroot, mounts). Installs mmdebstrap if it is missing. Exit status 0
# only when every step passed. A full run takes about 11 minutes on 2 cores (Debian 12; Debian 13
# about 15).
set -uo pipefail

usage() { sed -n '/^#   scripts/,/^#   --work/p' "$0" | sed 's/^# \{0,1\}//'; }

quick=0 keep=0 work="" suite=bookworm
while (($#)); do
    case $1 in
    --quick) quick=1 ;;
    --keep) keep=1 ;;
    --work) work=${2:?--work needs a folder}; shift ;;
    bookworm | trixie) suite=$1 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "unknown argument '$1'" >&2; usage >&2; exit 2 ;;
    esac
    shift
done

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ $(id -u) -ne 0 ]]; then
    echo "fresh-machine $suite: FAIL — needs root (mmdebstrap, chroot and mounts); run it with sudo" >&2
    exit 2
fi
git -C "$repo" rev-parse --verify -q HEAD >/dev/null || { echo "fresh-machine: FAIL — $repo is not a git checkout" >&2; exit 2; }
for tool in mmdebstrap:mmdebstrap unshare:util-linux ip:iproute2; do
    command -v "${tool%%:*}" >/dev/null && continue
    echo "installing ${tool#*:} (needed by this check)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${tool#*:}" >/dev/null \
        || { echo "fresh-machine $suite: FAIL — cannot install ${tool#*:}" >&2; exit 2; }
done

[[ -n $work ]] || work=$(mktemp -d "/tmp/eventdesk-fresh-$suite.XXXXXX")
mkdir -p "$work" || exit 2
work=$(cd "$work" && pwd)
root=$work/root
started=$SECONDS
failed=0
results=()

duration() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }
report() { # STEP PASS|FAIL SECONDS LOG [DETAIL]
    local line
    line=$(printf '%-10s %s  %8s  %s%s' "$1" "$2" "$(duration "$3")" "$4" "${5:+  ($5)}")
    results+=("$line")
    echo "$line"
    [[ $2 == PASS ]] || failed=1
}

in_root_env=(/usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
    LANG=C.UTF-8 TERM=dumb)
for variable in http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY; do
    [[ -n ${!variable:-} ]] && in_root_env+=("$variable=${!variable}")
done

mounted=()
stop_root() {
    [[ -d $root ]] || return 0
    # End whatever this run started inside the root (processes whose root directory is it).
    local pid pids=()
    for pid in /proc/[0-9]*; do
        [[ $(readlink "$pid/root" 2>/dev/null) == "$root" ]] && pids+=("${pid#/proc/}")
    done
    if ((${#pids[@]})); then
        kill -TERM "${pids[@]}" 2>/dev/null
        sleep 2
        kill -KILL "${pids[@]}" 2>/dev/null
    fi
    local index
    for ((index = ${#mounted[@]} - 1; index >= 0; index--)); do
        umount "${mounted[index]}" 2>/dev/null || umount -l "${mounted[index]}"
    done
    mounted=()
}
finish() {
    stop_root
    if ((keep)) || [[ ! -d $root ]]; then
        [[ -d $root ]] && echo "root kept: $root"
    else
        rm -rf --one-file-system "$root"
    fi
}
trap finish EXIT
trap 'exit 130' INT TERM

echo "fresh-machine $suite: $(git -C "$repo" rev-parse --short HEAD) of $repo, work folder $work"
[[ -z $(git -C "$repo" status --porcelain --untracked-files=no) ]] \
    || echo "note: uncommitted changes are not part of the check (it copies HEAD)"

# --- bootstrap ----------------------------------------------------------------------------------
step_start=$SECONDS
if mmdebstrap --variant=minbase --mode=root "$suite" "$root" >"$work/bootstrap.log" 2>&1; then
    report bootstrap PASS $((SECONDS - step_start)) "$work/bootstrap.log" "minbase $suite"
else
    report bootstrap FAIL $((SECONDS - step_start)) "$work/bootstrap.log"
    tail -n 20 "$work/bootstrap.log"
    exit 1
fi

# What a new machine here would have too: the extra CAs (the ca-certificates package, once
# install-deps installs it, adds them to the system bundle), proxy settings, npm's global config.
mkdir -p "$root/usr/local/share/ca-certificates"
cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/" 2>/dev/null
cp /etc/resolv.conf "$root/etc/resolv.conf"
[[ -f /etc/npmrc ]] && cp /etc/npmrc "$root/etc/npmrc"
apt-config dump 2>/dev/null | grep -iE '^Acquire::[a-z]+::Proxy' >"$root/etc/apt/apt.conf.d/90host-proxy" \
    || rm -f "$root/etc/apt/apt.conf.d/90host-proxy"

mkdir -p "$root/src/eventdesk"
git -C "$repo" archive HEAD | tar -x -C "$root/src/eventdesk" || { echo "fresh-machine: FAIL — git archive" >&2; exit 1; }

for mount in proc sys dev dev/pts dev/shm; do
    case $mount in
    proc) mount -t proc proc "$root/proc" ;;
    sys) mount -t sysfs -o ro sysfs "$root/sys" ;;
    dev | dev/pts) mount --bind "/$mount" "$root/$mount" ;;
    dev/shm) mount -t tmpfs -o mode=1777 shm "$root/dev/shm" ;;
    esac || { echo "fresh-machine: FAIL — cannot mount $root/$mount" >&2; exit 1; }
    mounted+=("$root/$mount")
done

# Prints the command's output lines prefixed with the seconds since the epoch.
stamp() { while IFS= read -r line; do printf '%(%s)T %s\n' -1 "$line"; done; }

# --- install, configure, build, test: the README's test command ---------------------------------
test_arguments=""
((quick)) && test_arguments="-R '^(conformance_.*|tst_azurite_deadletters|tst_keychain|packaging_deb|eventdeskd_service_unit|eventdeskd_manpage)\$'"
step_start=$(printf '%(%s)T' -1)
chroot "$root" "${in_root_env[@]}" CI=true bash -c "cd /src/eventdesk && timeout 5400 scripts/run-tests.sh $test_arguments" \
    2>&1 | stamp >"$work/tests.log"
tests_status=${PIPESTATUS[0]}
tests_end=$(printf '%(%s)T' -1)

# Split the one log into its steps by run-tests.sh's "==> STEP" lines.
declare -A step_begin=()
seen=()
while read -r time marker name; do
    [[ $marker == "==>" ]] || continue
    step_begin[$name]=$time
    seen+=("$name")
done < <(grep -E '^[0-9]+ ==> ' "$work/tests.log")
for index in "${!seen[@]}"; do
    name=${seen[index]}
    next=${seen[index + 1]:-}
    end=$tests_end
    [[ -n $next ]] && end=${step_begin[$next]}
    label=$name
    [[ $name == install-deps ]] && label=install
    if [[ -n $next || $tests_status -eq 0 ]]; then
        outcome=PASS
    else
        outcome=FAIL
    fi
    detail=""
    case $name in
    install-deps) detail="node $(chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin node --version 2>/dev/null || echo missing), $(chroot "$root" dpkg-query -W -f='${Version}' qt6-base-dev 2>/dev/null | sed 's/^/qt /')" ;;
    test) detail=$(grep -oE '[0-9]+% tests passed, [0-9]+ tests failed out of [0-9]+' "$work/tests.log" | tail -n 1) ;;
    esac
    report "$label" "$outcome" $((end - step_begin[$name])) "$work/tests.log" "$detail"
done
if ((tests_status != 0)); then
    ((${#seen[@]})) || report install FAIL $((tests_end - step_start)) "$work/tests.log" "run-tests.sh did not start"
    for name in configure build test; do
        [[ -n ${step_begin[$name]:-} ]] || results+=("$(printf '%-10s %s' "$name" "NOT RUN (an earlier step failed)")")
    done
    echo "--- last lines of $work/tests.log"
    tail -n 40 "$work/tests.log" | cut -d' ' -f2-
fi

# --- app: the README's first command, headless ---------------------------------------------------
cat >"$root/src/check-app.sh" <<'EOF'
#!/bin/bash
# Runs inside the root, in a network namespace of its own: start the app command, use it, stop it.
set -u
cd /src/eventdesk
log=/src/app-output.log
scripts/run-app.sh --listen 127.0.0.1:5170 >"$log" 2>&1 &
app=$!
for _ in $(seq 1500); do
    grep -q '^EventDesk listening on http://127.0.0.1:5170$' "$log" && break
    kill -0 "$app" 2>/dev/null || { echo "the app command exited before listening"; tail -n 20 "$log"; exit 1; }
    sleep 1
done
grep -q '^EventDesk listening on http://127.0.0.1:5170$' "$log" || { echo "no listening line within 25 min"; exit 1; }
event='[{"id":"fresh-1","subject":"/fresh/1","eventType":"Fresh.Check","eventTime":"2026-01-01T00:00:00Z","dataVersion":"1.0","data":{}}]'
status=$(curl -s -o /src/publish.out -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    --data "$event" http://127.0.0.1:5170/topics/demo/api/events)
[[ $status == 200 ]] || { echo "publish to the demo topic answered $status: $(cat /src/publish.out)"; exit 1; }
metrics=$(curl -s -o /src/metrics.out -w '%{http_code}' http://127.0.0.1:5170/metrics)
[[ $metrics == 200 ]] || { echo "/metrics answered $metrics"; exit 1; }
kill -TERM "$app" # by now run-app.sh has exec'd eventdeskd
wait "$app"
stopped=$?
[[ $stopped == 0 ]] || { echo "the app exited with status $stopped after SIGTERM"; tail -n 20 "$log"; exit 1; }
echo "listening line, publish 200, /metrics 200, clean stop"
EOF
chmod +x "$root/src/check-app.sh"
step_start=$SECONDS
detail=$(unshare --net -- bash -c "ip link set lo up && exec chroot $(printf '%q ' "$root" "${in_root_env[@]}") /src/check-app.sh" \
    2>&1 | tail -n 20)
app_status=${PIPESTATUS[0]}
cp "$root/src/app-output.log" "$work/app.log" 2>/dev/null
printf '%s\n' "$detail" >>"$work/app.log"
if ((app_status == 0)); then
    report app PASS $((SECONDS - step_start)) "$work/app.log" "$(tail -n 1 <<<"$detail")"
else
    report app FAIL $((SECONDS - step_start)) "$work/app.log" "$(tail -n 1 <<<"$detail")"
    echo "--- last lines of $work/app.log"
    tail -n 15 "$work/app.log"
fi

echo
echo "fresh-machine $suite$( ((quick)) && echo " (quick)"): $( ((failed)) && echo FAIL || echo PASS) in $(duration $((SECONDS - started)))"
printf '  %s\n' "${results[@]}"
exit $failed
