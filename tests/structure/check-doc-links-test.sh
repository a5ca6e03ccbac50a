#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The EventDesk developers
# SPDX-License-Identifier: Apache-2.0
# Proves that scripts/check-doc-links.sh finds what it is there to find (ctest: doc_links_check).
# It runs the check on
#   - a copy of this tree's documentation with a link to a missing file and a link to a missing
#     heading planted in it: the check must fail and name both, whatever else it reports;
#   - small generated trees whose links and headings follow (or break) GitHub's rules: headings
#     with punctuation, code and repeated names, links in code, external links, titles, reference
#     definitions, directories, paths that leave the tree.
#
#   tests/structure/check-doc-links-test.sh [CHECK]   CHECK: the script under test (default:
#                                                     scripts/check-doc-links.sh of this tree)
set -uo pipefail

source_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
check=${1:-$source_root/scripts/check-doc-links.sh}
source "$(dirname "${BASH_SOURCE[0]}")/self-check.sh"



# --- the tree's own documentation, with two broken links planted --------------------------------
# The copy holds the files the check reads; everything else of the tree is a symbolic link to the
# original, so that the links which resolve here resolve there too.
copy=$work/copy
mkdir -p "$copy/docs"
for entry in "$source_root"/* "$source_root"/.[!.]*; do
    name=${entry##*/}
    case $name in
    README.md | CONTRIBUTING.md | CHANGELOG.md | docs | .git) ;;
    *) ln -s "$entry" "$copy/$name" ;;
    esac
done
for entry in "$source_root"/docs/*; do
    name=${entry##*/}
    if [[ $name == *.md ]]; then cp "$entry" "$copy/docs/"; else ln -s "$entry" "$copy/docs/$name"; fi
done
for name in README.md CONTRIBUTING.md CHANGELOG.md; do
    [[ -f $source_root/$name ]] && cp "$source_root/$name" "$copy/"
done
guide=docs/user-guide.md
[[ -f $copy/$guide ]] || guide=README.md
printf '%s\n' '' 'A planted link to [a page that is not there](no-such-page.md).' >>"$copy/$guide"
missing_line=$(wc -l <"$copy/$guide")
printf '%s\n' 'And one to [a heading that is not there](#no-such-heading).' >>"$copy/$guide"
anchor_line=$(wc -l <"$copy/$guide")
expect "the documentation with a planted broken link and a planted broken anchor" 1 "$copy" \
    "$guide:$missing_line: no-such-page.md: no such file or directory" \
    "$guide:$anchor_line: #no-such-heading: no heading for the anchor '#no-such-heading' in $guide"

# --- generated trees ----------------------------------------------------------------------------
# A clean tree: every link resolves, and what is not a link to check is not reported.
clean_tree() {
    local tree=$work/$1
    put "$tree" README.md \
        '# Project' \
        '' \
        '## Quick start' \
        '' \
        'See [the guide](docs/guide.md), [its destinations](docs/guide.md#destinations-functions-storage-queues-service-bus-event-hubs),' \
        '[Linux](docs/guide.md#linux-deb-debian-12-debian-13-or-targz), [the disk](docs/guide.md#a-full-disk-or-an-io-error),' \
        "[the port](docs/guide.md#the-desktop-apps-listen-port), [the daemon](docs/guide.md#eventdeskd)," \
        '[notes](docs/guide.md#notes), [more notes](docs/guide.md#notes-1), [underlined](docs/guide.md#an-underlined-heading),' \
        '[this page](#quick-start), [a folder](docs/), [the root](/README.md#project) and' \
        '![a picture](docs/shot.png "with a title"), a link whose text runs [over' \
        'two lines](docs/guide.md), <https://example.org/> and [the web](https://example.org/x.md#y),' \
        '[mail](mailto:someone@example.org), [plain http](http://example.org/missing.md).' \
        '' \
        '[reference]: docs/guide.md#notes' \
        '' \
        '`[code](missing-in-a-code-span.md)` is code, and so is' \
        '' \
        '```sh' \
        'echo "[a link](missing-in-a-fence.md)"' \
        '```' \
        '' \
        '- a list item' \
        '  ```js' \
        '  client.send([{ a: 1 }]); // [text](missing-in-an-indented-fence.md)' \
        '  ```'
    put "$tree" docs/guide.md \
        '# The guide' \
        '' \
        '## Destinations: functions, Storage queues, Service Bus, Event Hubs' \
        '### Linux: `.deb` (Debian 12, Debian 13) or `.tar.gz`' \
        '### A full disk or an I/O error' \
        "## The desktop app's listen port" \
        '# `eventdeskd`' \
        '## Notes' \
        '## Notes ##' \
        '' \
        'An underlined heading' \
        '---------------------' \
        '' \
        'Back to [the start](../README.md#quick-start) and [the other page](other.md).'
    put "$tree" docs/other.md '# Other' '' '[Up](../README.md)'
    put "$tree" docs/shot.png 'not really a picture'
    echo "$tree"
}

tree=$(clean_tree clean)
expect "a clean tree passes" 0 "$tree" \
    "OK: 18 relative links in 3 files resolve"

tree=$(clean_tree missing-file)
put "$tree" CHANGELOG.md '# Changes' '' 'See [the guide](docs/guides.md).'
expect "a link to a file that does not exist" 1 "$tree" \
    "CHANGELOG.md:3: docs/guides.md: no such file or directory" \
    "FAILED: 1 of 19 relative links in 4 files do not resolve"

tree=$(clean_tree missing-anchor)
put "$tree" CONTRIBUTING.md '# Contributing' '' 'See [notes](docs/guide.md#notes-2) and [Start](README.md#Quick-Start).'
expect "anchors that name no heading: a third Notes, and the right words in the wrong case" 1 "$tree" \
    "CONTRIBUTING.md:3: docs/guide.md#notes-2: no heading for the anchor '#notes-2' in docs/guide.md" \
    "CONTRIBUTING.md:3: README.md#Quick-Start: no heading for the anchor '#Quick-Start' in README.md"

tree=$(clean_tree relative)
put "$tree" docs/other.md '# Other' '' '[Up](README.md) [guide](guide.md#no-such-part)'
expect "a link in docs/ is relative to docs/" 1 "$tree" \
    "docs/other.md:3: README.md: no such file or directory" \
    "docs/other.md:3: guide.md#no-such-part: no heading for the anchor '#no-such-part' in docs/guide.md"

tree=$(clean_tree heading-in-code)
put "$tree" docs/other.md '# Other' '' '```' '## Not a heading' '```' '' '[No](#not-a-heading)'
expect "a heading inside a code block is no heading" 1 "$tree" \
    "docs/other.md:7: #not-a-heading: no heading for the anchor '#not-a-heading' in docs/other.md"

tree=$(clean_tree outside)
put "$tree" docs/other.md '# Other' '' '[The contract](../../shared/SPEC.md)'
expect "a link out of the tree" 1 "$tree" \
    "docs/other.md:3: ../../shared/SPEC.md: outside the tree"

tree=$(clean_tree reference)
put "$tree" docs/other.md '# Other' '' '[ref]: guide.md#nowhere'
expect "a reference definition is checked as a link" 1 "$tree" \
    "docs/other.md:3: guide.md#nowhere: no heading for the anchor '#nowhere' in docs/guide.md"

mkdir -p "$work/not-a-tree"
expect "a folder without README.md" 2 "$work/not-a-tree"

finish
