#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The EventDesk developers
# SPDX-License-Identifier: Apache-2.0
# Proves that scripts/check-rule-ids.sh finds what it is there to find (ctest: rule_ids_check): it
# runs the check on small generated trees - one whose every citation is defined, one citing
# undefined ids in each form the sources use, one holding things that only look like ids - and on
# a copy of this source tree with an id planted in a file and with a heading taken out of
# docs/delivery-rules.md, and compares the exit status and the report with what each must give.
#
#   tests/structure/check-rule-ids-test.sh [CHECK]   CHECK: the script under test (default:
#                                                    scripts/check-rule-ids.sh of this tree)
#
# The ids these trees cite and their small documents leave undefined (R5, P2, §8, ...) are defined
# in the real docs/delivery-rules.md, so that this file passes the real check too; the one id
# planted in the copy of the tree is built at run time for the same reason.
set -uo pipefail

check=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/check-rule-ids.sh}
check=$(cd "$(dirname "$check")" && pwd)/$(basename "$check")
source_root=$(cd "$(dirname "$check")/.." && pwd)
source "$(dirname "${BASH_SOURCE[0]}")/self-check.sh"


# A tree whose document defines §1, §3 and the section R with R1-R4, §4 and the section B with
# B1, §7 and §10, and whose one source file cites each of them but §1, in every form.
clean_tree() {
    local tree=$work/$1
    put "$tree" docs/delivery-rules.md \
        '# Rules' \
        'Text that is no heading: R5, §8.' \
        '## §1 Model' \
        '## §3 Retry (R)' \
        '### R1 — the first' \
        '### R2 — the second: B2 after the dash defines nothing' \
        '### R3 — the third' \
        '### R4 — the fourth' \
        '## §4 Batching (B)' \
        '### B1 — off by default' \
        '## §7 Outcomes' \
        '## §10 Publish limits'
    put "$tree" core/rules/Rules.cpp \
        '// SPEC R1: a citation after SPEC' \
        '// SPEC R3/R4 and (R2), a list and a bare id' \
        '// SPEC R1–R4 and SPEC R1-4: ranges' \
        '// SPEC B: the section, SPEC §3 and SPEC §4 too' \
        '// SPEC §10, R1: the publish limits' \
        "// SPEC §7's table" \
        '// R3+R4+R1' \
        '// SPEC R, B: two sections'
    put "$tree" tests/tst_rules.cpp \
        '    void r2_noRetry();' \
        'void TestRules::b1_offByDefault()' \
        '    QTest::newRow("B1 off") << 1;'
    echo "$tree"
}


tree=$(clean_tree clean)
expect "every citation defined passes, and every form is read" 0 "$tree" \
    "rule ids: 26 citations of 11 ids in 2 of 2 files; 12 ids defined in docs/delivery-rules.md" \
    "defined and not cited (allowed): §1" \
    "OK: every cited rule id is defined"

tree=$(clean_tree forms)
put "$tree" core/engine/Forms.cpp \
    '// SPEC R5: after SPEC' \
    '// SPEC R3/R6 and SPEC P2, P3: lists' \
    '// (L2) and the next line' \
    '// L1: at the start of a comment' \
    '// SPEC R1–R7: a range with an en dash' \
    '// SPEC B1-B3: a range with a hyphen' \
    '// SPEC §8 and §10, D4' \
    '// SPEC L, R: sections' \
    '    void h2_secretIsMasked();' \
    '    QTest::newRow("S3 custom mapping") << 1;' \
    '// R3+R8' \
    "// SPEC D6's timeout" \
    '// SPEC §1–§2' \
    '// R1-5 and SPEC S1–4'
expect "an undefined id is reported in each form of citation" 1 "$tree" \
    "  core/engine/Forms.cpp:1: R5" \
    "  core/engine/Forms.cpp:2: R6" \
    "  core/engine/Forms.cpp:2: P2" \
    "  core/engine/Forms.cpp:2: P3" \
    "  core/engine/Forms.cpp:3: L2" \
    "  core/engine/Forms.cpp:4: L1" \
    "  core/engine/Forms.cpp:5: R5 (in R1–R7)" \
    "  core/engine/Forms.cpp:5: R6 (in R1–R7)" \
    "  core/engine/Forms.cpp:5: R7 (in R1–R7)" \
    "  core/engine/Forms.cpp:6: B2 (in B1-B3)" \
    "  core/engine/Forms.cpp:6: B3 (in B1-B3)" \
    "  core/engine/Forms.cpp:7: §8" \
    "  core/engine/Forms.cpp:7: D4" \
    "  core/engine/Forms.cpp:8: L" \
    "  core/engine/Forms.cpp:9: H2 (in h2)" \
    "  core/engine/Forms.cpp:10: S3" \
    "  core/engine/Forms.cpp:11: R8" \
    "  core/engine/Forms.cpp:12: D6" \
    "  core/engine/Forms.cpp:13: §2 (in §1–§2)" \
    "  core/engine/Forms.cpp:14: R5 (in R1-5)" \
    "  core/engine/Forms.cpp:14: S1 (in S1–4)" \
    "  core/engine/Forms.cpp:14: S4 (in S1–4)" \
    "FAILED: 24 citations of 20 undefined ids, 0 ids defined twice"

tree=$(clean_tree lookalikes)
put "$tree" core/http/Http.cpp \
    '// RFC 9112 §6.3 and §5: an RFC section' \
    '// §8.1 of another document, and §9.2' \
    'const char *blob = "deadletters/S0/2026/1/2/0/x.json";' \
    'request.setRawHeader("X-B9-Trace", "1"); // a header name' \
    'const char *colour = "#D1D5DB"; const int mask = 0xB1;' \
    'bool sha1_ok = true; int P3x = 0; int hop_R5 = 0; // identifiers' \
    '// SPECIFIC R and SPECS B are no citations of sections' \
    '// a version 1.R5, and R2–L3 is no range: R2 and the next id are read alone'
expect "what only looks like an id is not read as one" 1 "$tree" \
    "  core/http/Http.cpp:8: L3" \
    "FAILED: 1 citations of 1 undefined ids, 0 ids defined twice"

tree=$(clean_tree duplicate)
printf '%s\n' '### R2 — defined a second time' >>"$tree/docs/delivery-rules.md"
expect "an id defined by two headings" 1 "$tree" \
    "  docs/delivery-rules.md:13: R2 (also line 6)" \
    "FAILED: 0 citations of 0 undefined ids, 1 ids defined twice"

tree=$(clean_tree no-document)
rm "$tree/docs/delivery-rules.md"
expect "a tree without the document" 1 "$tree" "FAILED: no definitions"

mkdir -p "$work/not-a-tree"
expect "a folder that is no source tree" 2 "$work/not-a-tree"

# A copy of this source tree (what the check reads of it): it passes as it is; with an id planted
# in a file, or a heading taken out of the document, it fails and names the file, the line and
# the id.
copy=$work/copy
mkdir -p "$copy"
parts=()
for part in app core ui tests bench scripts docs README.md; do
    [[ -e $source_root/$part ]] && parts+=("$part")
done
tar -C "$source_root" --exclude=node_modules --exclude='*.png' -cf - "${parts[@]}" \
    | tar -C "$copy" -xf -
cp -a "$copy" "$work/copy-without-r7"
expect "this source tree passes" 0 "$copy" "OK: every cited rule id is defined"

planted_id=R$((10 + 1))
planted_file=core/rules/RetryPlanner.cpp
planted_line=$(($(wc -l <"$copy/$planted_file") + 1))
printf '%s\n' "// SPEC $planted_id: planted" >>"$copy/$planted_file"
expect "an id planted in a copy of this tree" 1 "$copy" \
    "  $planted_file:$planted_line: $planted_id" \
    "FAILED: 1 citations of 1 undefined ids, 0 ids defined twice"

copy=$work/copy-without-r7
grep -v '^### R7 ' "$source_root/docs/delivery-rules.md" >"$copy/docs/delivery-rules.md"
expect "a heading taken out of the document" 1 "$copy" \
    "~  core/rules/RetryPlanner\\.cpp:[0-9]+: R7" \
    "~  core/engine/DeliveryScheduler\\.cpp:[0-9]+: R7" \
    "~FAILED: [0-9]+ citations of 1 undefined ids, 0 ids defined twice"

finish
