#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The EventDesk developers
# SPDX-License-Identifier: Apache-2.0
# The Linux packages as a user gets them (ctest test packaging_deb, registered by
# packaging/CMakeLists.txt only on Linux with dpkg, as root):
#   1. cpack -G DEB: name, version, Depends (every library the binaries load comes from a listed
#      package; the plugin packages; adduser), Recommends, the files it holds (the systemd unit,
#      /etc/default/eventdeskd as a conffile of mode 0600, the manual page), its maintainer
#      scripts; lintian reports no error (its warnings and the rest are kept in lintian.log);
#   2. apt-get install of the .deb (dependencies resolve from the installed packages, offline);
#      the installed .desktop and metainfo validate with no warning (appstreamcli --strict,
#      desktop-file-validate silent); the copyright file is machine-readable and names Apache-2.0;
#      the system user eventdesk exists; the installed unit passes systemd-analyze verify and is
#      not enabled; `man eventdeskd` finds the page;
#   3. /usr/bin/eventdesk --version and /usr/bin/eventdeskd --version print the project version;
#      the unit's own ExecStart line, with /etc/default/eventdeskd's options, runs the installed
#      eventdeskd as the user eventdesk until it listens, and SIGTERM stops it cleanly;
#   4. the installed GUI starts under Xvfb in a fresh HOME and shows its window; a screenshot of
#      the screen is kept in <build>/packaging-test/eventdesk-installed.png;
#   5. dpkg -r removes it: no file of the package is left but the conffile, which dpkg --purge
#      then removes, and dpkg no longer knows the package (the user eventdesk stays, as its
#      files in /var/lib/eventdesk would);
#   6. cpack -G TGZ: the archive holds bin/eventdesk, bin/eventdeskd and the desktop files, and
#      none of the system files (the unit, /etc/default/eventdeskd).
# Usage: test-deb.sh BUILD_DIR CPACK VERSION
set -euo pipefail

app_id=io.eventdesk.EventDesk

# --- inside the Xvfb session (step 4): start the installed app, wait for its window ----------
if [[ ${1:-} == --in-xvfb ]]; then
    workspace=$2 screenshot=$3 log=$4
    if [[ -n ${DBUS_SESSION_BUS_ADDRESS:-} ]] && command -v gnome-keyring-daemon >/dev/null; then
        # As after a desktop login: the login keyring exists and is unlocked (a throw-away one,
        # HOME is temporary). Otherwise the keyring would prompt for a password over the window.
        printf 'eventdesk-test' | gnome-keyring-daemon --unlock --components=secrets --daemonize >/dev/null
    fi
    /usr/bin/eventdesk --workspace "$workspace" --listen 127.0.0.1:0 >"$log" 2>&1 &
    pid=$!
    window=""
    for _ in $(seq 1 120); do
        if ! kill -0 "$pid" 2>/dev/null; then
            wait "$pid" && status=0 || status=$?
            echo "FAIL: eventdesk exited (status $status) before showing a window" >&2
            exit 1
        fi
        window=$(xdotool search --onlyvisible --name 'EventDesk' 2>/dev/null | head -n 1 || true)
        [[ -n $window ]] && break
        sleep 0.5
    done
    if [[ -z $window ]]; then
        echo "FAIL: no visible window named EventDesk within 60 s" >&2
        kill -KILL "$pid" 2>/dev/null || true
        exit 1
    fi
    sleep 3 # let the first frames (workspace tree, dashboard) paint before the screenshot
    echo "window $window: '$(xdotool getwindowname "$window")'," \
        "$(xwininfo -id "$window" | awk '/Map State:/ {print $3} /Width:/ {w=$2} /Height:/ {h=$2} END {print w "x" h}' | paste -sd ' ')"
    xwininfo -id "$window" | grep -q 'Map State: IsViewable' || { echo "FAIL: window is not viewable" >&2; exit 1; }
    import -window root "$screenshot"
    kill -0 "$pid" 2>/dev/null || { echo "FAIL: eventdesk exited while its window was shown" >&2; exit 1; }
    kill -TERM "$pid"
    wait "$pid" || true
    exit 0
fi

build=$(cd "$1" && pwd)
cpack=$2
version=$3

fail() {
    echo "FAIL: $*" >&2
    exit 1
}
check() { echo "ok   $*"; }

for tool in dpkg dpkg-deb apt-get ldd readelf xvfb-run xdotool xwininfo import identify convert \
    desktop-file-validate appstreamcli tar lintian systemd-analyze systemctl man pkg-config curl \
    setpriv; do
    command -v "$tool" >/dev/null || fail "'$tool' is missing: run scripts/install-deps.sh"
done

# One package test at a time on a machine: it installs into the system.
exec 9>/var/lock/eventdesk-packaging-test.lock
flock --wait 1200 9 || fail "another packaging test holds /var/lock/eventdesk-packaging-test.lock"

work=$build/packaging-test
rm -rf "$work"
mkdir -p "$work"
tmp=$(mktemp -d)
installed_by_us=0
daemon_pid=""
cleanup() {
    [[ -n $daemon_pid ]] && kill -KILL "$daemon_pid" 2>/dev/null
    if ((installed_by_us)) && dpkg -s eventdesk >/dev/null 2>&1; then
        dpkg --purge eventdesk >/dev/null 2>&1 || true
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT

if dpkg -s eventdesk >/dev/null 2>&1; then
    echo "note: purging the eventdesk package left installed by an earlier run"
    dpkg --purge eventdesk >/dev/null
fi

# --- 1. the .deb -----------------------------------------------------------------------------
(cd "$build" && "$cpack" -G DEB -B "$work/deb") >"$work/cpack-deb.log" 2>&1 \
    || { cat "$work/cpack-deb.log" >&2; fail "cpack -G DEB failed"; }
shopt -s nullglob
debs=("$work"/deb/eventdesk_"$version"_*.deb)
((${#debs[@]} == 1)) || fail "expected one eventdesk_${version}_<arch>.deb in $work/deb, found: ${debs[*]:-none}"
deb=${debs[0]}
check "built $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB)"

field() { dpkg-deb --field "$deb" "$1"; }
[[ $(field Package) == eventdesk ]] || fail "Package: $(field Package)"
[[ $(field Version) == "$version" ]] || fail "Version: $(field Version), expected $version"
depends=$(field Depends)
recommends=$(field Recommends)
echo "     Depends: $depends"
echo "     Recommends: $recommends"
# The package names of a relationship field, one a line (alternatives and versions dropped).
names() { tr ',|' '\n' <<<"$1" | sed -e 's/(.*)//' -e 's/[[:space:]]//g' -e '/^$/d'; }
# Ubuntu 24.04 renamed some library packages for the 64-bit time_t transition (libqt6core6t64).
has() { names "$1" | grep -qx -e "$2" -e "${2}t64"; }
for package in libqt6core6 libqt6gui6 libqt6widgets6 libqt6network6 libqt6charts6 libsqlite3-0 \
    qt6-qpa-plugins; do
    has "$depends" "$package" || fail "Depends lacks $package"
done
# The store links SQLite itself; a Qt SQL driver would bring a second SQLite into the process.
for package in libqt6sql6 libqt6sql6-sqlite; do
    if has "$depends" "$package"; then fail "Depends names $package, which nothing uses"; fi
done
for package in libsecret-1-0 gnome-keyring; do
    has "$recommends" "$package" || fail "Recommends lacks $package"
done
has "$depends" adduser || fail "Depends lacks adduser (postinst creates the user eventdesk)"
check "Depends names the Qt 6 libraries, SQLite, the plugin packages and adduser; Recommends libsecret-1-0, gnome-keyring"

unit_dir=$(pkg-config --variable=systemdsystemunitdir systemd)
[[ -n $unit_dir ]] || fail "pkg-config names no systemd unit directory (is systemd installed?)"
unit=$unit_dir/eventdeskd.service
contents=$(dpkg-deb --contents "$deb" | awk '{print $NF}')
expected_files=(
    ./usr/bin/eventdesk ./usr/bin/eventdeskd
    "./usr/share/applications/$app_id.desktop"
    "./usr/share/metainfo/$app_id.metainfo.xml"
    "./usr/share/icons/hicolor/scalable/apps/$app_id.svg"
    ./usr/share/doc/eventdesk/copyright
    ./usr/share/man/man1/eventdeskd.1.gz
    ".$unit"
    ./etc/default/eventdeskd
)
for size in 16 24 32 48 64 128 256 512; do
    expected_files+=("./usr/share/icons/hicolor/${size}x${size}/apps/$app_id.png")
done
for file in "${expected_files[@]}"; do
    grep -qx -- "$file" <<<"$contents" || fail "the .deb lacks $file"
done
check "the .deb holds both binaries, the .desktop file, the metainfo, the hicolor icons (16-512 px, scalable), the copyright file, the manual page, $unit and /etc/default/eventdeskd"

# /etc/default/eventdeskd may hold secrets: root's alone, and a conffile (the administrator's
# edits survive upgrades). The maintainer scripts are there and executable.
default_entry=$(dpkg-deb --contents "$deb" | awk '$NF == "./etc/default/eventdeskd" {print $1, $2}')
[[ $default_entry == "-rw------- root/root" ]] || fail "/etc/default/eventdeskd in the .deb: $default_entry, expected -rw------- root/root"
mkdir -p "$tmp/control"
dpkg-deb --control "$deb" "$tmp/control"
[[ $(cat "$tmp/control/conffiles") == /etc/default/eventdeskd ]] || fail "conffiles: $(cat "$tmp/control/conffiles")"
for script in postinst prerm postrm; do
    [[ -x $tmp/control/$script ]] || fail "the .deb has no executable $script"
    sh -n "$tmp/control/$script" || fail "$script is not valid sh"
done
grep -v '^[[:space:]]*#' "$tmp/control/postinst" | grep -q 'enable' && fail "postinst enables the service"
check "/etc/default/eventdeskd: -rw------- root/root, the one conffile; postinst, prerm, postrm executable sh; the service is not enabled"

# lintian: no error. Its other findings are listed in the log and counted here.
lintian --fail-on error --tag-display-limit 0 --display-info "$deb" >"$work/lintian.log" 2>&1 \
    && lintian_status=0 || lintian_status=$?
if grep -E '^E: ' "$work/lintian.log" >&2; then fail "lintian reports the errors above (all findings: $work/lintian.log)"; fi
((lintian_status == 0)) || { cat "$work/lintian.log" >&2; fail "lintian exited with status $lintian_status"; }
check "lintian $(lintian --version | awk '{print $2}'): no error; $(grep -c '^W: ' "$work/lintian.log" || true) warning(s), $(grep -c '^I: ' "$work/lintian.log" || true) info(s) in $work/lintian.log"

# Every shared library the packaged binaries link (their DT_NEEDED entries; the libraries those
# need are their packages' business) must come from a package Depends lists.
direct_libraries() {
    local ldd_output soname
    ldd_output=$(ldd "$1")
    for soname in $(readelf --dynamic "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
        awk -v soname="$soname" '$1 == soname && $2 == "=>" {print $3}' <<<"$ldd_output"
    done
}
# The package that owns a library ldd names. With a merged /usr, ldd and dpkg's file lists may
# disagree about /lib versus /usr/lib, and about the symlink versus the file it points to.
owner_of() {
    local path candidate real
    real=$(readlink -f "$1")
    for path in "$1" "$real"; do
        for candidate in "$path" "${path#/usr}" "/usr$path"; do
            if dpkg -S "$candidate" >/dev/null 2>&1; then
                dpkg -S "$candidate" | head -n 1 | cut -d: -f1
                return
            fi
        done
    done
}
mkdir -p "$tmp/extract"
dpkg-deb --extract "$deb" "$tmp/extract"
for binary in eventdesk eventdeskd; do
    while read -r library; do
        owner=$(owner_of "$library")
        [[ -n $owner ]] || fail "$binary loads $library, which no installed package owns"
        has "$depends" "$owner" || fail "$binary loads $library from $owner, which Depends lacks"
    done < <(direct_libraries "$tmp/extract/usr/bin/$binary")
done
check "every library eventdesk and eventdeskd link comes from a package in Depends"

# --- 2. install ------------------------------------------------------------------------------
export DEBIAN_FRONTEND=noninteractive
apt-get install --yes --no-install-recommends -o DPkg::Lock::Timeout=600 "$deb" \
    >"$work/apt-install.log" 2>&1 || { cat "$work/apt-install.log" >&2; fail "apt-get install of the .deb failed"; }
installed_by_us=1
[[ $(dpkg-query -W -f='${Status} ${Version}' eventdesk) == "install ok installed $version" ]] \
    || fail "dpkg does not report eventdesk $version installed"
check "apt-get install ./$(basename "$deb"): $(dpkg-query -W -f='${Status} ${Version}' eventdesk)"
for file in "${expected_files[@]}"; do
    [[ -e ${file#.} ]] || fail "${file#.} is not installed"
done
[[ -x /usr/bin/eventdesk && -x /usr/bin/eventdeskd ]] || fail "the installed binaries are not executable"
desktop_output=$(desktop-file-validate "/usr/share/applications/$app_id.desktop" 2>&1) \
    || { echo "$desktop_output" >&2; fail "desktop-file-validate"; }
# It exits 0 on warnings and hints: any output fails the test.
[[ -z $desktop_output ]] || { echo "$desktop_output" >&2; fail "desktop-file-validate reports warnings"; }
# --strict fails on every issue above "pedantic" (warnings and infos too).
# shellcheck source=appstream-validate.sh
source "$(dirname "${BASH_SOURCE[0]}")/appstream-validate.sh"
appstream_validate "/usr/share/metainfo/$app_id.metainfo.xml" "$work/appstream.log" \
    || { cat "$work/appstream.log" >&2; fail "appstreamcli validate --strict --no-net"; }
grep -q '<project_license>Apache-2.0</project_license>' "/usr/share/metainfo/$app_id.metainfo.xml" \
    || fail "the installed metainfo does not name Apache-2.0"
copyright=/usr/share/doc/eventdesk/copyright
[[ $(head -n 1 "$copyright") == 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' ]] \
    || fail "$copyright is not in the machine-readable format"
grep -qx 'License: Apache-2.0' "$copyright" || fail "$copyright does not name Apache-2.0"
check "installed files present; desktop-file-validate silent, appstreamcli validate --strict --no-net passes; copyright: Apache-2.0"

# The service's user, unit and manual page, as installed.
account=$(getent passwd eventdesk) || fail "postinst did not create the user eventdesk"
IFS=: read -r _ _ uid gid _ home shell <<<"$account"
((uid < 1000)) || fail "eventdesk is not a system user (uid $uid)"
[[ $(getent group eventdesk | cut -d: -f3) == "$gid" ]] || fail "eventdesk's group is not its own group eventdesk"
[[ $home == /var/lib/eventdesk && $shell == */nologin ]] || fail "eventdesk: home $home, shell $shell"
[[ $(stat -c '%a %U:%G' /etc/default/eventdeskd) == "600 root:root" ]] \
    || fail "/etc/default/eventdeskd is $(stat -c '%a %U:%G' /etc/default/eventdeskd)"
verify=$(SYSTEMD_LOG_COLOR=0 systemd-analyze verify "$unit" 2>&1) || { echo "$verify" >&2; fail "systemd-analyze verify $unit"; }
[[ -z $verify ]] || { echo "$verify" >&2; fail "systemd-analyze verify $unit reports the lines above"; }
enabled=$(SYSTEMD_OFFLINE=1 systemctl is-enabled eventdeskd.service 2>&1 || true)
[[ $enabled == disabled ]] || fail "systemctl is-enabled eventdeskd.service: $enabled (the package must not enable it)"
[[ $(man -w eventdeskd) == /usr/share/man/man1/eventdeskd.1.gz ]] || fail "man -w eventdeskd: $(man -w eventdeskd 2>&1)"
check "user eventdesk (system uid $uid, own group, home /var/lib/eventdesk, nologin); $unit passes systemd-analyze verify, is $enabled; man eventdeskd finds the page"

# --- 3. the installed binaries, outside the build tree -------------------------------------
mkdir -p "$tmp/home" "$tmp/runtime"
chmod 700 "$tmp/runtime"
clean_env=(env -i PATH=/usr/bin:/bin HOME="$tmp/home" XDG_RUNTIME_DIR="$tmp/runtime" LANG=C.UTF-8)
for binary in eventdesk eventdeskd; do
    if ldd "/usr/bin/$binary" | grep -E 'not found|'"$build" >/dev/null; then
        ldd "/usr/bin/$binary" >&2
        fail "/usr/bin/$binary resolves a library from the build tree or not at all"
    fi
done
gui_version=$("${clean_env[@]}" QT_QPA_PLATFORM=offscreen /usr/bin/eventdesk --version)
[[ $gui_version == "EventDesk $version" ]] || fail "eventdesk --version printed '$gui_version', expected 'EventDesk $version'"
daemon_version=$("${clean_env[@]}" /usr/bin/eventdeskd --version)
[[ $daemon_version == "eventdeskd $version" ]] || fail "eventdeskd --version printed '$daemon_version', expected 'eventdeskd $version'"
check "/usr/bin/eventdesk --version: $gui_version; /usr/bin/eventdeskd --version: $daemon_version"

# The unit's ExecStart, as systemd would run it: %S is the state directory's parent, here a
# temporary one owned by eventdesk as systemd would make /var/lib/eventdesk; EVENTDESKD_OPTIONS
# from /etc/default/eventdeskd, and a free port so that nothing of this machine is in the way.
state=$tmp/state
chmod 0711 "$tmp" # eventdesk may pass through to its own folder, and see nothing else
install -d -o eventdesk -g eventdesk -m 0750 "$state" "$state/eventdesk"
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
EVENTDESKD_OPTIONS=""
# shellcheck source=/dev/null
. /etc/default/eventdeskd
EVENTDESKD_OPTIONS="$EVENTDESKD_OPTIONS --listen 127.0.0.1:0"
exec_start=${exec_start//%S/$state}
exec_start=${exec_start//\$EVENTDESKD_OPTIONS/$EVENTDESKD_OPTIONS}
read -r -a command <<<"$exec_start"
[[ ${command[0]} == /usr/bin/eventdeskd ]] || fail "ExecStart runs ${command[0]}"
# setpriv, not runuser: it becomes eventdeskd itself, which then gets the signals as under systemd.
(cd "$state/eventdesk" && exec setpriv --reuid=eventdesk --regid=eventdesk --init-groups \
    env -i PATH=/usr/bin:/bin HOME=/var/lib/eventdesk LANG=C.UTF-8 QT_ENABLE_REGEXP_JIT=0 \
    "${command[@]}") >"$work/service-stdout.log" 2>"$work/service-stderr.log" &
daemon_pid=$!
listening=""
for _ in $(seq 1 120); do
    listening=$(sed -n 's|^EventDesk listening on \(http://127.0.0.1:[0-9]*\)$|\1|p' "$work/service-stdout.log")
    [[ -n $listening ]] && break
    kill -0 "$daemon_pid" 2>/dev/null || break
    sleep 0.5
done
[[ -n $listening ]] || { cat "$work/service-stderr.log" >&2; fail "the unit's ExecStart did not listen: ${command[*]}"; }
[[ $(curl -s -o /dev/null -w '%{http_code}' "$listening/metrics") == 200 ]] || fail "$listening/metrics did not answer 200"
[[ $(stat -c %U "$state/eventdesk/workspace/workspace.json") == eventdesk ]] || fail "the workspace is not the user eventdesk's"
kill -TERM "$daemon_pid"
wait "$daemon_pid" && stopped=0 || stopped=$?
daemon_pid=""
((stopped == 0)) || { cat "$work/service-stderr.log" >&2; fail "eventdeskd exited with status $stopped after SIGTERM"; }
check "the unit's ExecStart ran as eventdesk: ${command[*]}: listened on $listening, /metrics 200, stopped cleanly"

# --- 4. the installed GUI under Xvfb ---------------------------------------------------------
screenshot=$work/eventdesk-installed.png
mkdir "$tmp/workspace" # eventdesk opens the default workspace instead of a --workspace that does not exist
session=(bash "${BASH_SOURCE[0]}" --in-xvfb "$tmp/workspace" "$screenshot" "$work/eventdesk-gui.log")
if command -v dbus-run-session >/dev/null; then
    session=(dbus-run-session -- "${session[@]}") # a desktop session has a session bus
fi
"${clean_env[@]}" timeout 180 xvfb-run --auto-servernum --server-args='-screen 0 1920x1080x24' \
    "${session[@]}" 2>"$work/xvfb-session.log" || {
    cat "$work/xvfb-session.log" "$work/eventdesk-gui.log" >&2
    fail "the installed GUI did not show its window"
}
[[ -f $tmp/workspace/workspace.json ]] || fail "the GUI did not create the workspace it was given"
[[ $(identify -format '%wx%h' "$screenshot") == 1920x1080 ]] || fail "the screenshot is not of the 1920x1080 screen"
colours=$(convert "$screenshot" -format '%k' info:)
((colours > 64)) || fail "the screenshot has only $colours colours: nothing was drawn"
check "installed GUI showed its window under Xvfb; screenshot $screenshot ($colours colours)"

# --- 5. remove, purge ------------------------------------------------------------------------
mapfile -t package_files < <(dpkg -L eventdesk)
dpkg -r eventdesk >"$work/dpkg-remove.log" 2>&1 || { cat "$work/dpkg-remove.log" >&2; fail "dpkg -r eventdesk failed"; }
[[ $(dpkg-query -W -f='${Status}' eventdesk) == "deinstall ok config-files" ]] \
    || fail "after dpkg -r: $(dpkg-query -W -f='${Status}' eventdesk), expected its conffile kept"
for file in "${package_files[@]}"; do
    [[ -d $file ]] && continue # directories shared with other packages stay
    [[ $file == /etc/default/eventdeskd ]] && continue # a conffile stays until the purge
    [[ ! -e $file ]] || fail "$file is left after dpkg -r eventdesk"
done
[[ -f /etc/default/eventdeskd ]] || fail "dpkg -r removed the conffile /etc/default/eventdeskd"
[[ ! -e /usr/bin/eventdesk && ! -e /usr/bin/eventdeskd ]] || fail "a binary is left after removal"
dpkg --purge eventdesk >"$work/dpkg-purge.log" 2>&1 || { cat "$work/dpkg-purge.log" >&2; fail "dpkg --purge eventdesk failed"; }
installed_by_us=0
if dpkg -s eventdesk >/dev/null 2>&1; then
    fail "dpkg -s eventdesk still succeeds after dpkg --purge: $(dpkg-query -W -f='${Status}' eventdesk)"
fi
[[ ! -e /etc/default/eventdeskd ]] || fail "/etc/default/eventdeskd is left after dpkg --purge"
check "dpkg -r eventdesk removed all ${#package_files[@]} paths of the package but its conffile; dpkg --purge removed that; dpkg -s eventdesk fails"

# --- 6. the .tar.gz --------------------------------------------------------------------------
(cd "$build" && "$cpack" -G TGZ -B "$work/tgz") >"$work/cpack-tgz.log" 2>&1 \
    || { cat "$work/cpack-tgz.log" >&2; fail "cpack -G TGZ failed"; }
archives=("$work"/tgz/eventdesk-"$version"-*.tar.gz)
((${#archives[@]} == 1)) || fail "expected one eventdesk-$version-<system>.tar.gz in $work/tgz"
archive=${archives[0]}
listing=$(tar -tzf "$archive")
top=$(basename "$archive" .tar.gz)
for file in bin/eventdesk bin/eventdeskd share/applications/$app_id.desktop \
    share/metainfo/$app_id.metainfo.xml share/icons/hicolor/256x256/apps/$app_id.png; do
    grep -qx -- "$top/$file" <<<"$listing" || fail "$(basename "$archive") lacks $top/$file"
done
mkdir -p "$tmp/tgz"
tar -xzf "$archive" -C "$tmp/tgz"
[[ $("${clean_env[@]}" "$tmp/tgz/$top/bin/eventdeskd" --version) == "eventdeskd $version" ]] \
    || fail "eventdeskd from the .tar.gz does not run"
if grep -E 'eventdeskd\.service$|etc/default' <<<"$listing" >&2; then
    fail "$(basename "$archive") holds system files (above), which belong to a package manager's install"
fi
check "$(basename "$archive") holds bin/eventdesk, bin/eventdeskd and the desktop files, no system files; its eventdeskd runs"

echo "packaging_deb: all checks passed"
