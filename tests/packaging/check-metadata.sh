#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The EventDesk developers
# SPDX-License-Identifier: Apache-2.0
# The licence and the desktop metadata, without installing anything (ctest packaging_metadata):
#   - LICENSE is the Apache License 2.0 text exactly (Debian's copy, where there is one);
#   - the metainfo the build configured, and the same with every address set (home page, bug
#     tracker, screenshots), pass `appstreamcli validate --strict --no-net` with no issue above
#     pedantic, name Apache-2.0 and list each screenshot of docs/screenshots/ that the README shows
#     (AppStream 1.0's url-homepage-missing is the one issue allowed, and only for a metainfo that
#     names no home page: appstream-validate.sh);
#   - the .desktop file passes desktop-file-validate with no warning;
#   - the copyright file is in Debian's machine-readable format and names Apache-2.0;
#   - no metadata names a .invalid address.
# Usage: check-metadata.sh SOURCE_DIR BUILD_METAINFO VERSION RELEASE_DATE
set -euo pipefail

source_dir=$1 build_metainfo=$2 version=$3 release_date=$4
app_id=io.eventdesk.EventDesk
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
check() { echo "ok   $*"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [[ -f /usr/share/common-licenses/Apache-2.0 ]]; then
    cmp -s "$source_dir/LICENSE" /usr/share/common-licenses/Apache-2.0 \
        || fail "LICENSE differs from /usr/share/common-licenses/Apache-2.0"
    check "LICENSE is the Apache License 2.0 text"
else
    head -n 3 "$source_dir/LICENSE" | grep -q 'Apache License' || fail "LICENSE is not the Apache License"
    check "LICENSE starts as the Apache License (no Debian copy to compare with)"
fi

# Every issue appstreamcli reports above "pedantic" fails --strict; print them when it does.
# shellcheck source=appstream-validate.sh
source "$source_dir/tests/packaging/appstream-validate.sh"
validate_metainfo() {
    local file=$1 what=$2
    appstream_validate "$file" "$tmp/appstream.log" \
        || { cat "$tmp/appstream.log" >&2; fail "appstreamcli validate --strict --no-net: $what"; }
    grep -q '<project_license>Apache-2.0</project_license>' "$file" || fail "$what: project_license is not Apache-2.0"
    grep -q '<metadata_license>CC0-1.0</metadata_license>' "$file" || fail "$what: metadata_license is not CC0-1.0"
    grep -q "<release version=\"$version\" date=\"$release_date\">" "$file" || fail "$what: no release $version of $release_date"
    grep -q '<content_rating type="oars-1.1"' "$file" || fail "$what: no content_rating"
    if grep -n '\.invalid' "$file" >&2; then fail "$what names a .invalid address"; fi
}
[[ -f $build_metainfo ]] || fail "$build_metainfo was not configured"
validate_metainfo "$build_metainfo" "the metainfo of this build"
check "$(basename "$build_metainfo") of this build: valid (strict), Apache-2.0, release $version"

full=$tmp/$app_id.metainfo.xml
cmake -DSOURCE_DIR="$source_dir" -DOUTPUT="$full" -DPROJECT_VERSION="$version" \
    -DEVENTDESK_RELEASE_DATE="$release_date" -DHOMEPAGE=https://eventdesk.example.org/ \
    -DBUGTRACKER=https://eventdesk.example.org/issues \
    -DSCREENSHOT_BASE=https://eventdesk.example.org/docs/screenshots/ \
    -P "$source_dir/tests/packaging/configure-metainfo.cmake"
validate_metainfo "$full" "the metainfo with addresses"
grep -q '<url type="homepage">https://eventdesk.example.org/</url>' "$full" || fail "no homepage url"
# The README's screenshots are all listed, and each exists in docs/screenshots/.
readme_shots=$(grep -o 'docs/screenshots/[a-z-]*\.png' "$source_dir/README.md" | sort -u)
[[ -n $readme_shots ]] || fail "the README shows no screenshot"
for shot in $readme_shots; do
    [[ -f $source_dir/$shot ]] || fail "the README shows $shot, which does not exist"
    grep -q "<image>https://eventdesk.example.org/$shot</image>" "$full" || fail "the metainfo does not list $shot"
done
for image in $(grep -o '<image>[^<]*' "$full" | sed 's|<image>https://eventdesk.example.org/||'); do
    [[ -f $source_dir/$image ]] || fail "the metainfo lists $image, which does not exist"
done
check "the metainfo with addresses: valid (strict); lists $(wc -w <<<"$readme_shots") README screenshots, all in docs/screenshots/"

desktop=$source_dir/packaging/linux/$app_id.desktop
output=$(desktop-file-validate "$desktop" 2>&1) || { echo "$output" >&2; fail "desktop-file-validate"; }
[[ -z $output ]] || { echo "$output" >&2; fail "desktop-file-validate reports warnings or hints"; }
check "$app_id.desktop: desktop-file-validate reports nothing"

copyright=$source_dir/packaging/linux/copyright
[[ $(head -n 1 "$copyright") == 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' ]] \
    || fail "copyright: not in the machine-readable format"
grep -qx 'License: Apache-2.0' "$copyright" || fail "copyright: no stand-alone License: Apache-2.0 paragraph"
grep -q '/usr/share/common-licenses/Apache-2.0' "$copyright" || fail "copyright: does not point to the licence text"
check "copyright: machine-readable (DEP-5), Apache-2.0"

for file in "$source_dir/CMakeLists.txt" "$source_dir/packaging/CMakeLists.txt" "$desktop" "$copyright" \
    "$source_dir/packaging/linux/$app_id.metainfo.xml.in"; do
    if grep -n '\.invalid' "$file" >&2; then fail "$file names a .invalid address"; fi
done
check "no .invalid address in the build files and the metadata"
echo "packaging_metadata: all checks passed"
