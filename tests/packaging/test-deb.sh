#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The EventDesk developers
# SPDX-License-Identifier: Apache-2.0
# The Linux packages as a user gets them (ctest test packaging_deb, registered by
# packaging/CMakeLists.txt only on Linux with dpkg, as root):
#   1. cpack -G DEB: name, version, Depends (every library the binaries load comes from a listed
#      package; the plugin packages), Recommends, the files it holds;
#   2. apt-get install of the .deb (dependencies resolve from the installed packages, offline);
#      the installed .desktop and metainfo validate with no warning (appstreamcli --strict,
#      desktop-file-validate silent); the copyright file is machine-readable and names Apache-2.0;
#   3. /usr/bin/eventdesk --version and /usr/bin/eventdeskd --version print the project version;
#   4. the installed GUI starts under Xvfb in a fresh HOME and shows its window; a screenshot of
#      the screen is kept in <build>/packaging-test/eventdesk-installed.png;
#   5. dpkg -r removes it: no file of the package is left, dpkg no longer knows the package;
#   6. cpack -G TGZ: the archive holds bin/eventdesk, bin/eventdeskd and the desktop files.
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
    desktop-file-validate appstreamcli tar; do
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
cleanup() {
    if ((installed_by_us)) && dpkg -s eventdesk >/dev/null 2>&1; then
        dpkg -r eventdesk >/dev/null 2>&1 || true
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT

if dpkg -s eventdesk >/dev/null 2>&1; then
    echo "note: removing the eventdesk package left installed by an earlier run"
    dpkg -r eventdesk >/dev/null
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
check "Depends names the Qt 6 libraries, SQLite and the plugin packages; Recommends libsecret-1-0, gnome-keyring"

contents=$(dpkg-deb --contents "$deb" | awk '{print $NF}')
expected_files=(
    ./usr/bin/eventdesk ./usr/bin/eventdeskd
    "./usr/share/applications/$app_id.desktop"
    "./usr/share/metainfo/$app_id.metainfo.xml"
    "./usr/share/icons/hicolor/scalable/apps/$app_id.svg"
    ./usr/share/doc/eventdesk/copyright
)
for size in 16 24 32 48 64 128 256 512; do
    expected_files+=("./usr/share/icons/hicolor/${size}x${size}/apps/$app_id.png")
done
for file in "${expected_files[@]}"; do
    grep -qx -- "$file" <<<"$contents" || fail "the .deb lacks $file"
done
check "the .deb holds both binaries, the .desktop file, the metainfo, the hicolor icons (16-512 px, scalable) and the copyright file"

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

# --- 5. remove -------------------------------------------------------------------------------
mapfile -t package_files < <(dpkg -L eventdesk)
dpkg -r eventdesk >"$work/dpkg-remove.log" 2>&1 || { cat "$work/dpkg-remove.log" >&2; fail "dpkg -r eventdesk failed"; }
installed_by_us=0
if dpkg -s eventdesk >/dev/null 2>&1; then
    fail "dpkg -s eventdesk still succeeds after dpkg -r: $(dpkg-query -W -f='${Status}' eventdesk)"
fi
for file in "${package_files[@]}"; do
    [[ -d $file ]] && continue # directories shared with other packages stay
    [[ ! -e $file ]] || fail "$file is left after dpkg -r eventdesk"
done
[[ ! -e /usr/bin/eventdesk && ! -e /usr/bin/eventdeskd ]] || fail "a binary is left after removal"
check "dpkg -r eventdesk removed all ${#package_files[@]} paths of the package; dpkg -s eventdesk fails"

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
check "$(basename "$archive") holds bin/eventdesk, bin/eventdeskd and the desktop files; its eventdeskd runs"

echo "packaging_deb: all checks passed"
