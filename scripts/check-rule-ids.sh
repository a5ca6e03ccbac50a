#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The EventDesk developers
# SPDX-License-Identifier: Apache-2.0
# Checks that every delivery-rule id the sources cite is defined in docs/delivery-rules.md (ctest
# runs it as rule_ids). An id is a section letter and a number - D1, R7, B5, L6, P4, S3, H2 - or a
# section number, §1 to §10; "SPEC R7" in a comment means the rule R7 of that document.
#
# Where it looks: the C++, JavaScript, shell, CMake and Markdown files under app/, core/, ui/,
# tests/ (not tests/node_modules), bench/, scripts/ and docs/ (not docs/delivery-rules.md itself),
# and README.md.
#
# What it reads as a citation (each form as the sources write it):
#   SPEC R7   SPEC §10   SPEC D6's   (R2)   // R4: ...   "R6 attempts 0" (a test row's name)
#   lists     SPEC R3/R4   SPEC P2, P3   SPEC §10, D1, D2   R3+R4+R5   SPEC D4/B1   SPEC §1/§8
#   ranges    SPEC R1–R8   SPEC P1-P4   L3–L7   SPEC §1–§9   (en dash or hyphen; every id of the
#             range is cited)
#   sections  SPEC B   SPEC D, B, H   (a section letter alone, right after SPEC)
#   tests     void r7_ttlBoundary();   tst_Engine::d6_abortAfterLateWindow()   (a test function
#             named after its rule: the id in lower case, then _ and the name)
# A token counts when it stands on its own: after the start of the line, a space, an opening
# bracket or quote, a comma, semicolon, colon, * or |, or right after another id joined to it by
# /, +, - or an en dash; and not followed by a letter, a digit, _ or a decimal point (§7.1 is
# not §7). On a line that names an RFC, a bare §n is the RFC's section and is not read; SPEC §n
# still is.
#
# What defines an id: a heading of docs/delivery-rules.md whose text before its first em dash
# holds it: "### R7 — TTL is checked when the next attempt comes due" defines R7,
# "## §4 Batching (B)" defines §4 and the section B. An id defined by two headings is an error too.
#
#   scripts/check-rule-ids.sh [ROOT]    ROOT: the source tree (default: the one holding this script)
# Exit status: 0 when every cited id is defined, 1 when one is not (each citation is listed as
# file:line: id) or docs/delivery-rules.md is missing, 2 when ROOT is not a source tree.
set -euo pipefail

script_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
root=${1:-$script_root}
if [[ ! -d $root/core ]]; then
    echo "check-rule-ids: $root is not an EventDesk source tree (no core/)" >&2
    exit 2
fi
root=$(cd "$root" && pwd)
cd "$root"

doc=docs/delivery-rules.md
if [[ ! -f $doc ]]; then
    echo "check-rule-ids: $doc is missing; it defines the rule ids the sources cite"
    echo "FAILED: no definitions"
    exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

dirs=()
for dir in app core ui tests bench scripts docs; do
    [[ -d $dir ]] && dirs+=("$dir")
done
{
    find "${dirs[@]}" -name node_modules -prune -o -type f \
        \( -name '*.h' -o -name '*.hpp' -o -name '*.cpp' -o -name '*.c' -o -name '*.mjs' \
        -o -name '*.cjs' -o -name '*.js' -o -name '*.sh' -o -name '*.cmake' \
        -o -name CMakeLists.txt -o -name '*.md' \) -print
    if [[ -f README.md ]]; then echo README.md; fi
} | awk -v doc="$doc" '$0 != doc' | LC_ALL=C sort >"$work/files"

# Bytes, not characters: the section sign, the en dash and the em dash are passed as their UTF-8
# bytes and matched as byte strings, the same in every locale and in mawk as in gawk.
LC_ALL=C awk -v doc="$doc" -v sect='§' -v endash='–' -v emdash='—' '
function isWordChar(c) { return c ~ /[A-Za-z0-9_]/ }

# The kind of an id token: its letter, or "§".
function kindOf(token) {
    return substr(token, 1, length(sect)) == sect ? sect : substr(token, 1, 1)
}
function numberOf(token) { return substr(token, length(kindOf(token)) + 1) + 0 }

function cite(id, shown) {
    citations++
    if (!(id in cited)) { cited[id] = 1; citedIds++ }
    if (!(path in citingFile)) { citingFile[path] = 1; citingFiles++ }
    if (!(id in defined)) {
        missing = missing "  " path ":" lineNo ": " id (shown != id ? " (in " shown ")" : "") "\n"
        missingCount++
        if (!(id in missingId)) { missingId[id] = 1; missingIds++ }
    }
}

# The length of the dash at position p of line (hyphen or en dash), 0 when there is none.
function dashAt(line, p) {
    if (substr(line, p, 1) == "-") return 1
    if (substr(line, p, length(endash)) == endash) return length(endash)
    return 0
}

# Every id token of a source line, with its ranges and lists.
function scanLine(line,    rfc, rest, offset, start, len, token, before, after, accept, prevEnd,
                           dash, tail, endToken, endKind, first, last, n, shown, p, s, item) {
    rfc = (line ~ /RFC/)
    prevEnd = -1 # position of the last byte of the last id (or range) taken
    offset = 0
    rest = line
    while (match(rest, idPattern)) {
        start = offset + RSTART
        len = RLENGTH
        offset = start + len - 1
        rest = substr(line, offset + 1)
        token = substr(line, start, len)
        after = substr(line, start + len, 1)
        if (isWordChar(after) || (after == "." && substr(line, start + len + 1, 1) ~ /[0-9]/))
            continue
        before = start > 1 ? substr(line, start - 1, 1) : ""
        accept = 0
        if (before == "" || index(openers, before) > 0)
            accept = 1
        else if (prevEnd >= 0 && start - 2 == prevEnd \
                 && (before == "/" || before == "+" || before == "-"))
            accept = 1
        else if (prevEnd >= 0 && start - 1 - length(endash) == prevEnd \
                 && substr(line, start - length(endash), length(endash)) == endash)
            accept = 1
        if (!accept)
            continue
        if (kindOf(token) == sect && rfc && substr(line, start - 5, 5) != "SPEC ")
            continue

        # A range: the same kind after a dash (R1–R8, R1-8, §1–§9).
        dash = dashAt(line, start + len)
        if (dash > 0) {
            tail = substr(line, start + len + dash)
            if (match(tail, rangeEndPattern)) {
                endToken = substr(tail, 1, RLENGTH)
                endKind = endToken ~ /^[0-9]/ ? kindOf(token) : kindOf(endToken)
                p = start + len + dash + RLENGTH # the byte after the range
                if (endKind == kindOf(token) && !isWordChar(substr(line, p, 1)) \
                    && !(substr(line, p, 1) == "." && substr(line, p + 1, 1) ~ /[0-9]/)) {
                    first = numberOf(token)
                    last = endToken ~ /^[0-9]/ ? endToken + 0 : numberOf(endToken)
                    shown = substr(line, start, p - start)
                    if (last >= first && last - first <= 50) {
                        for (n = first; n <= last; n++)
                            cite(kindOf(token) n, shown)
                        prevEnd = p - 1
                        offset = p - 1
                        rest = substr(line, p)
                        continue
                    }
                }
            }
        }
        cite(token, token)
        prevEnd = start + len - 1
    }

    # A test function named after its rule: r7_ttlBoundary, tst_Engine::d6_abortAfterLateWindow.
    rest = line
    offset = 0
    while (match(rest, /[drblpsh][0-9][0-9]?_[A-Za-z]/)) {
        start = offset + RSTART
        token = substr(line, start, RLENGTH - 2)
        offset = start + RLENGTH - 1
        rest = substr(line, offset + 1)
        if (start == 1 || !isWordChar(substr(line, start - 1, 1)))
            cite(toupper(token), token)
    }

    # A section letter alone, in the list that follows SPEC: SPEC B, SPEC D, B, H.
    s = line
    offset = 0
    while ((p = index(s, "SPEC ")) > 0) {
        start = offset + p
        offset = start + 4
        s = substr(line, offset + 1)
        if (start > 1 && isWordChar(substr(line, start - 1, 1)))
            continue
        item = s
        while (1) {
            if (match(item, /^[DRBLPSH]/) && !isWordChar(substr(item, 2, 1))) {
                cite(substr(item, 1, 1), substr(item, 1, 1))
                item = substr(item, 2)
            } else if (match(item, listItemPattern) && !isWordChar(substr(item, RLENGTH + 1, 1))) {
                item = substr(item, RLENGTH + 1) # an id: the scan above took it
            } else {
                break
            }
            if (match(item, /^(, and |, |,|\/| and | or |\+)/))
                item = substr(item, RLENGTH + 1)
            else
                break
        }
    }
}

BEGIN {
    idPattern = "(" sect "|[DRBLPSH])[0-9][0-9]?"
    rangeEndPattern = "^((" sect "|[DRBLPSH])?[0-9][0-9]?)"
    listItemPattern = "^" idPattern "((-|" endash ")(" sect "|[DRBLPSH])?[0-9][0-9]?)?"
    openers = " \t([{\"'"'"'`,;:*|"
    wordPattern = "^(" sect "[0-9]+|[DRBLPSH][0-9]*)$"

    # The definitions: headings of the document.
    lineNo = 0
    while ((getline line < doc) > 0) {
        lineNo++
        if (line !~ /^#+[ \t]/)
            continue
        text = line
        sub(/^#+[ \t]+/, "", text)
        cut = index(text, emdash)
        if (cut > 0)
            text = substr(text, 1, cut - 1)
        gsub("[^A-Za-z0-9_" sect "]", " ", text)
        count = split(text, words, " ")
        for (i = 1; i <= count; i++) {
            if (words[i] !~ wordPattern)
                continue
            if (words[i] in defined) {
                duplicates = duplicates "  " doc ":" lineNo ": " words[i] \
                    " (also line " defined[words[i]] ")\n"
                duplicateCount++
                continue
            }
            defined[words[i]] = lineNo
            definedIds++
        }
    }
    close(doc)

    # The citations.
    files = 0
    while ((getline path < ARGV[1]) > 0) {
        files++
        lineNo = 0
        while ((getline line < path) > 0) {
            lineNo++
            scanLine(line)
        }
        close(path)
    }
    close(ARGV[1])

    printf "rule ids: %d citations of %d ids in %d of %d files; %d ids defined in %s\n", \
        citations, citedIds, citingFiles, files, definedIds, doc
    # Defined and never cited (allowed), in the order of the document.
    unusedCount = 0
    for (id in defined)
        if (!(id in cited))
            unused[++unusedCount] = id
    for (i = 2; i <= unusedCount; i++)
        for (j = i; j > 1 && defined[unused[j - 1]] > defined[unused[j]]; j--) {
            id = unused[j]; unused[j] = unused[j - 1]; unused[j - 1] = id
        }
    if (unusedCount > 0) {
        printf "defined and not cited (allowed):"
        for (i = 1; i <= unusedCount; i++)
            printf " %s", unused[i]
        printf "\n"
    }
    if (duplicateCount > 0)
        printf "\nids defined by more than one heading:\n%s", duplicates
    if (missingCount > 0)
        printf "\ncited ids that no heading of %s defines:\n%s", doc, missing
    if (missingCount + duplicateCount == 0) {
        print "OK: every cited rule id is defined"
        exit 0
    }
    printf "\nFAILED: %d citations of %d undefined ids, %d ids defined twice\n", \
        missingCount, missingIds, duplicateCount
    exit 1
}
' "$work/files"
