#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The EventDesk developers
# SPDX-License-Identifier: Apache-2.0
# eventdeskd(1) as the build writes it (ctest eventdeskd_manpage):
#   - it is what `eventdeskd --print-manpage DATE` prints, the same bytes at every run, and the
#     .gz the packages install holds exactly it;
#   - `man -l` renders it with no warning from man or groff (as lintian checks pages), and man-db's
#     lexgrog reads its NAME section (the whatis entry);
#   - every option `eventdeskd --help` lists is in the rendered page, with its value's name; the
#     hidden --print-manpage is in neither;
#   - --print-manpage refuses a date that is not YYYY-MM-DD.
# Usage: check-manpage.sh EVENTDESKD MANUAL_PAGE DATE
set -euo pipefail

eventdeskd=$1 page=$2 date=$3
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
check() { echo "ok   $*"; }
for tool in man lexgrog gzip; do
    command -v "$tool" >/dev/null || fail "'$tool' is missing: run scripts/install-deps.sh (package man-db)"
done
[[ -f $page && -f $page.gz ]] || fail "$page or $page.gz is not built"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$eventdeskd" --print-manpage "$date" >"$tmp/first.1"
"$eventdeskd" --print-manpage "$date" >"$tmp/second.1"
cmp -s "$tmp/first.1" "$tmp/second.1" || fail "two runs of --print-manpage differ"
cmp -s "$tmp/first.1" "$page" || fail "$page is not what --print-manpage $date prints (a stale build?)"
gzip -dc "$page.gz" | cmp -s - "$page" || fail "$page.gz does not hold $page"
grep -q "^\.TH EVENTDESKD 1 \"$date\"" "$page" || fail "the page is not dated $date"
check "the page is --print-manpage's output, reproducible; the .gz holds it"

# man and groff report problems on stderr; any is a failure.
export LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80
warnings=$(man --warnings -E UTF-8 -l -Tutf8 -Z "$page" 2>&1 >/dev/null) || fail "man -l failed: $warnings"
[[ -z $warnings ]] || { echo "$warnings" >&2; fail "man --warnings -l reports the lines above"; }
rendered=$(man -l "$page" 2>/dev/null)
whatis=$(lexgrog "$page") || fail "lexgrog cannot read the NAME section: $whatis"
[[ $whatis == *'"eventdeskd - '* ]] || fail "whatis entry: $whatis"
check "man --warnings -l: no warning; whatis: ${whatis#*: }"

help=$("$eventdeskd" --help)
# The option column of --help: "  -h, --help", "  --listen <HOST:PORT>  ..."
options=$(grep -E '^  -' <<<"$help" | sed -E 's/^  (.*[^ ])  .*/\1/; s/^  //')
count=0
while IFS= read -r entry; do
    for name in $(grep -oE -- '(^|[ ,])--?[a-zA-Z][a-zA-Z-]*' <<<"$entry" | tr -d ' ,'); do
        grep -qE -- "(^|[^a-z-])$name([^a-z-]|\$)" <<<"$rendered" || fail "$name of --help is not in the manual page"
        count=$((count + 1))
    done
    value=$(grep -oE '<[^>]+>' <<<"$entry" | tr -d '<>' || true)
    if [[ -n $value ]]; then
        long=$(grep -oE -- '--[a-zA-Z][a-zA-Z-]*' <<<"$entry" | head -n 1)
        grep -qE -- "$long $value" <<<"$rendered" || fail "the page does not show $long $value"
    fi
done <<<"$options"
((count >= 18)) || fail "only $count options found in --help: the parsing above is wrong"
if grep -q -- '--print-manpage' <<<"$help"; then fail "--help lists the hidden --print-manpage"; fi
if grep -q -- 'print-manpage' <<<"$rendered"; then fail "the page lists the hidden --print-manpage"; fi
for section in NAME SYNOPSIS DESCRIPTION OPTIONS SIGNALS LOGGING ENVIRONMENT FILES 'EXIT STATUS' 'SEE ALSO'; do
    grep -qx "$section" <<<"$rendered" || fail "the page has no section $section"
done
check "all $count option names of --help are in the rendered page, with their values' names; --print-manpage in neither"

for bad in 2026-02-30 20261122 yesterday ''; do
    if "$eventdeskd" --print-manpage "$bad" >"$tmp/out" 2>"$tmp/err"; then fail "--print-manpage '$bad' succeeded"; fi
    grep -qF "eventdeskd: --print-manpage: must be a date YYYY-MM-DD (got '$bad')" "$tmp/err" \
        || fail "--print-manpage '$bad': $(cat "$tmp/err")"
    [[ ! -s $tmp/out ]] || fail "--print-manpage '$bad' printed a page"
done
check "--print-manpage refuses dates that are not YYYY-MM-DD"
echo "eventdeskd_manpage: all checks passed"
