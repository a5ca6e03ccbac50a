#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The EventDesk developers
# SPDX-License-Identifier: Apache-2.0
# eventdeskd's systemd unit, without installing anything (ctest eventdeskd_service_unit):
#   - configured as an install configures it (ExecStart naming this build's eventdeskd), it passes
#     `systemd-analyze verify` with no message at all (its Documentation= page found in a MANPATH
#     holding this build's eventdeskd.1);
#   - `systemd-analyze security --offline` rates its exposure at most MAX_EXPOSURE (the hardening
#     cannot be dropped by accident);
#   - Type=notify and the settings the documentation promises are there;
#   - every option the unit and /etc/default/eventdeskd pass or suggest is one `eventdeskd --help`
#     lists; /etc/default/eventdeskd is valid shell that sets EVENTDESKD_OPTIONS to nothing.
# Usage: check-service-unit.sh SOURCE_DIR EVENTDESKD MANUAL_PAGE
set -euo pipefail

source_dir=$1 eventdeskd=$2 manual_page=$3
max_exposure=2.5
unit_in=$source_dir/packaging/linux/eventdeskd.service.in
defaults=$source_dir/packaging/linux/eventdeskd.default
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
check() { echo "ok   $*"; }
command -v systemd-analyze >/dev/null || fail "systemd-analyze is missing: run scripts/install-deps.sh (package systemd)"
[[ -x $eventdeskd ]] || fail "$eventdeskd is not built"
[[ -f $manual_page ]] || fail "$manual_page is not built"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

unit=$tmp/eventdeskd.service
sed "s|@EVENTDESKD_PATH@|$eventdeskd|" "$unit_in" >"$unit"
grep -qE '@[A-Z_]+@' "$unit" && fail "an @VARIABLE@ is left in the configured unit"
mkdir -p "$tmp/man/man1"
cp "$manual_page" "$tmp/man/man1/"

# --- verify: no message at all, exit status 0 --------------------------------------------------
output=$(cd "$tmp" && MANPATH=$tmp/man SYSTEMD_LOG_COLOR=0 systemd-analyze verify "$unit" 2>&1) \
    || { echo "$output" >&2; fail "systemd-analyze verify failed"; }
[[ -z $output ]] || { echo "$output" >&2; fail "systemd-analyze verify reports the lines above"; }
check "systemd-analyze verify: no message ($(systemd-analyze --version | head -n 1))"

# --- security: the exposure the hardening leaves --------------------------------------------
security=$(SYSTEMD_LOG_COLOR=0 systemd-analyze security --offline=true --no-pager "$unit" 2>&1) \
    || true # exits non-zero above its own threshold; the level is judged here
level=$(sed -n 's/.*Overall exposure level for eventdeskd.service: \([0-9.]*\).*/\1/p' <<<"$security")
[[ -n $level ]] || { echo "$security" >&2; fail "systemd-analyze security printed no exposure level"; }
awk -v level="$level" -v max="$max_exposure" 'BEGIN { exit !(level <= max) }' \
    || { echo "$security" >&2; fail "exposure level $level is above $max_exposure"; }
check "systemd-analyze security --offline: exposure $level (at most $max_exposure)"

# --- what the documentation promises ---------------------------------------------------------
for setting in Type=notify User=eventdesk StateDirectory=eventdesk Restart=on-failure \
    EnvironmentFile=-/etc/default/eventdeskd NoNewPrivileges=yes ProtectSystem=strict \
    ProtectHome=yes PrivateTmp=yes MemoryDenyWriteExecute=yes Environment=QT_ENABLE_REGEXP_JIT=0 \
    'ExecReload=/bin/kill -HUP $MAINPID' WantedBy=multi-user.target; do
    grep -qxF -- "$setting" "$unit" || fail "the unit lacks the line $setting"
done
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
[[ $exec_start == "$eventdeskd --workspace %S/eventdesk/workspace --secret-store none \$EVENTDESKD_OPTIONS" ]] \
    || fail "ExecStart is '$exec_start'"
check "Type=notify, own user, state directory, restart on failure, /etc/default/eventdeskd, hardening"

# --- the options named are eventdeskd's --------------------------------------------------------
help=$("$eventdeskd" --help)
named=$( { echo "$exec_start"; grep -o -- '--[a-z][a-z-]*' "$defaults"; } | grep -o -- '--[a-z][a-z-]*' | sort -u)
for option in $named; do
    grep -qE -- "(^|[ ,])$option( |\$)" <<<"$help" || fail "$option (unit or /etc/default/eventdeskd) is not an option of eventdeskd --help"
done
(set -eu; EVENTDESKD_OPTIONS=unset; . "$defaults"; [[ -z $EVENTDESKD_OPTIONS ]]) \
    || fail "$defaults is not shell that sets EVENTDESKD_OPTIONS to nothing"
grep -vE '^(#|$|EVENTDESKD_OPTIONS="")' "$defaults" && fail "$defaults sets more than EVENTDESKD_OPTIONS"
check "options named by the unit and /etc/default/eventdeskd are eventdeskd's: $(echo $named)"
echo "eventdeskd_service_unit: all checks passed"
