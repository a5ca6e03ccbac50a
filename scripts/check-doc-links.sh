#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The EventDesk developers
# SPDX-License-Identifier: Apache-2.0
# Checks that every relative link of the documentation resolves (ctest runs it as doc_links). It
# reads README.md, CONTRIBUTING.md, CHANGELOG.md and docs/*.md, and for each markdown link
# [text](path), image ![alt](path) and reference definition "[label]: path" outside code blocks
# and code spans:
#   - the file or directory the path names must exist in the tree (paths are relative to the
#     linking file; one starting with / is relative to the tree's root, as on GitHub);
#   - a #anchor into a markdown file (or into the linking file itself: "(#anchor)") must name one
#     of its headings, by GitHub's rule: the heading's text without its markup, lower case,
#     every character but letters, digits, "_", "-" and spaces removed, spaces turned into "-";
#     a heading text seen before gets "-1", "-2", ...
# Links to http://, https:// and mailto: are not followed.
#
#   scripts/check-doc-links.sh [ROOT]    ROOT: the source tree (default: the one holding this
#                                        script)
# Exit status: 0 when every link resolves, 1 when one does not (each is listed as FILE:LINE with
# the link and what is wrong), 2 when ROOT has no README.md.
# Written for bash and the GNU and Debian shell tools (coreutils, grep, sed, mawk): it runs on a
# brand-new minimal Debian root.
set -euo pipefail
export LC_ALL=C.UTF-8

script_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
root=${1:-$script_root}
if [[ ! -f $root/README.md ]]; then
    echo "check-doc-links: $root has no README.md" >&2
    exit 2
fi
root=$(cd "$root" && pwd)
cd "$root"

files=()
for file in README.md CONTRIBUTING.md CHANGELOG.md docs/*.md; do
    [[ -f $file ]] && files+=("$file")
done

# The part of awk both readers share: fenced code blocks (``` or ~~~, indented or not) are
# skipped; FENCE holds the open fence's marker.
fence_awk='
FNR == 1 { fence = "" }
{
    if (match($0, /^[ \t]*(```+|~~~+)/)) {
        marker = substr($0, RSTART, RLENGTH)
        gsub(/[ \t]/, "", marker)
        if (fence == "") { fence = substr(marker, 1, 3); next }
        if (substr(marker, 1, 3) == fence) { fence = ""; next }
    }
    if (fence != "") next
}'

# links FILE...: "FILE<TAB>LINE<TAB>TARGET" for every link outside code.
links() {
    awk "$fence_awk"'
{
    line = $0
    gsub(/``[^`]*``/, "", line)
    gsub(/`[^`]*`/, "", line)
    if (match(line, /^ ? ? ?\[[^]]+\]:[ \t]+/)) {
        target = substr(line, RSTART + RLENGTH)
        sub(/[ \t].*/, "", target)
        print FILENAME "\t" FNR "\t" target
        next
    }
    while (match(line, /\]\([^)]*\)/)) {
        target = substr(line, RSTART + 2, RLENGTH - 3)
        line = substr(line, RSTART + RLENGTH)
        sub(/^[ \t]+/, "", target)
        if (substr(target, 1, 1) == "<") {
            sub(/^</, "", target)
            sub(/>.*/, "", target)
        } else {
            sub(/[ \t].*/, "", target)
        }
        print FILENAME "\t" FNR "\t" target
    }
}' "$@"
}

# anchors FILE: the anchors of FILE's headings (ATX "# ..." and setext, underlined with = or -),
# one per line.
anchors() {
    awk "$fence_awk"'
function heading(text) {
    sub(/^[ \t]+/, "", text)
    sub(/[ \t]+$/, "", text)
    print text
}
/^[ \t]*$/ { paragraph = ""; next }
/^ ? ? ?#+([ \t]|$)/ {
    text = $0
    sub(/^ *#+/, "", text)
    sub(/[ \t]+#+[ \t]*$/, "", text)
    heading(text)
    paragraph = ""
    next
}
/^ ? ? ?(=+|-+)[ \t]*$/ {
    if (paragraph != "") heading(paragraph)
    paragraph = ""
    next
}
{
    if (paragraph == "" && $0 ~ /^ ? ? ?([-*+>|]|[0-9]+[.)])/) next
    paragraph = (paragraph == "" ? $0 : paragraph " " $0)
}' "$1" |
        sed -E 's/!?\[([^]]*)\]\([^)]*\)/\1/g; s/<[^>]*>//g; s/[`*]//g; s/.*/\L&/; s/[^[:alnum:]_ -]//g; s/ /-/g' |
        awk '{ count = seen[$0]++; print (count ? $0 "-" count : $0) }'
}

declare -A heading_anchors=()

# normalise PATH: sets NORMALISED to the absolute PATH without "", "." and ".." segments, symbolic
# links left as they are (the tree may be a copy made of links). No subshell: it runs per link.
normalise() {
    local part parts=() out=()
    IFS=/ read -ra parts <<<"$1"
    for part in "${parts[@]}"; do
        case $part in
        "" | .) ;;
        ..) ((${#out[@]} == 0)) || unset "out[${#out[@]}-1]" ;;
        *) out+=("$part") ;;
        esac
    done
    local IFS=/
    NORMALISED="/${out[*]}"
}

problems=0
checked=0
report() { # FILE LINE TARGET WHAT
    echo "$1:$2: $3: $4"
    problems=$((problems + 1))
}

while IFS=$'\t' read -r file line target; do
    case $target in
    http://* | https://* | mailto:*) continue ;;
    esac
    checked=$((checked + 1))
    path=${target%%#*}
    anchor=""
    [[ $target == *#* ]] && anchor=${target#*#}
    path=${path//%20/ }
    if [[ -z $path ]]; then
        resolved=$root/$file
    elif [[ $path == /* ]]; then
        resolved=$root$path
    else
        resolved=$root/${file%/*}/$path
        [[ $file == */* ]] || resolved=$root/$path
    fi
    normalise "$resolved"
    resolved=$NORMALISED
    if [[ $resolved != "$root" && $resolved != "$root"/* ]]; then
        report "$file" "$line" "$target" "outside the tree"
        continue
    fi
    if [[ ! -e $resolved ]]; then
        report "$file" "$line" "$target" "no such file or directory"
        continue
    fi
    [[ -n $anchor && -f $resolved && $resolved == *.md ]] || continue
    if [[ -z ${heading_anchors[$resolved]+set} ]]; then
        heading_anchors[$resolved]=$'\n'$(anchors "$resolved")$'\n'
    fi
    if [[ ${heading_anchors[$resolved]} != *$'\n'"$anchor"$'\n'* ]]; then
        report "$file" "$line" "$target" "no heading for the anchor '#$anchor' in ${resolved#"$root"/}"
    fi
done < <(links "${files[@]}")

if ((problems)); then
    echo "FAILED: $problems of $checked relative links in ${#files[@]} files do not resolve"
    exit 1
fi
echo "OK: $checked relative links in ${#files[@]} files resolve"
