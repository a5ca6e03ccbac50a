#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The EventDesk developers
# SPDX-License-Identifier: Apache-2.0
# Checks EventDesk's include graph (ctest runs it as include_graph). Reads every #include "..."
# of the C++ sources under app/, core/, ui/, bench/ and tests/, resolves it the way the compiler
# does - next to the including file first, then in the include directories the CMake targets
# declare with target_include_directories - and fails on
#   - an include cycle. The nodes are components: a header and the .cpp of the same name are one
#     node, so X.cpp including Y.h while Y.h includes X.h is a cycle (X is built from its own
#     dependant) although no header includes itself;
#   - an include against the layering below: a directory may include its own files and those of
#     directories of a lower layer, nothing else;
#   - a source directory the table below does not place, and an include that names two different
#     files in two include directories (the graph would be a guess).
# Includes that name no file of the tree (moc output, generated headers) are not followed.
#
#   scripts/check-include-graph.sh [ROOT]    ROOT: the source tree (default: the one holding this
#                                            script)
# Exit status: 0 when the graph is clean, 1 when it is not (every finding is listed with the file,
# line and include), 2 when ROOT is not a source tree.
set -euo pipefail

# The layers, read off the CMake targets' link dependencies (core/CMakeLists.txt and its
# subdirectories, ui/*/CMakeLists.txt, app/*/CMakeLists.txt): a target's number is above the numbers
# of the targets it links; two directories with the same number do not link each other.
#   core/engine is the delivery pipeline; it declares the interfaces its adapters implement
#   (DeadLetterSink, ProvisioningStore, SecretResolver). core/deadletters, core/endpoint and
#   core/workspace hold those adapters, and core/host wires them into the engine.
#   core/store holds the store's interfaces and rows; its backends, core/store/sqlite and
#   core/store/postgres, sit above them, and only core/host (StoreOpener) picks one.
#   core/secrets sits below the engine so that the keychain backend links the SecretStore
#   interface and not the whole engine.
# "dir/..." covers the directory and everything below it; any other row covers one directory.
layers='
core                 0   eventdesk_core_base           Expected.h, UtcTime.h, Logging
core/model           1   eventdesk_core_model          links core_base
core/http            1   eventdesk_core_http           links core_base
core/rules           2   eventdesk_core_rules          links core_model
core/azure           2   eventdesk_core_azure          links core_model
core/secrets         3   eventdesk_core_secrets        links core_azure, core_model
core/store           3   eventdesk_core_store          links core_rules
core/keychain        4   eventdesk_keychain            links core_secrets
core/store/sqlite    4   eventdesk_core_store_sqlite   links core_store
core/store/postgres  4   eventdesk_core_store_postgres links core_store
core/engine          5   eventdesk_core_engine         links core_store, core_http, core_azure, core_secrets
core/deadletters     6   eventdesk_core_deadletters    links core_engine, core_azure
core/endpoint        6   eventdesk_core_endpoint       links core_engine, core_http
core/workspace       7   eventdesk_core_workspace      links core_deadletters, core_secrets
core/host            8   eventdesk_core                links core_workspace, core_endpoint, the store backends
ui/common            9   eventdesk_ui_common           links eventdesk_core
ui/editor            10  eventdesk_ui_editor           links ui_common
ui/send              10  eventdesk_ui_send             links ui_common
ui/dashboard         10  eventdesk_ui_dashboard        links ui_common
ui/log               10  eventdesk_ui_log              links ui_common
ui/receivers         10  eventdesk_ui_receivers        links ui_common
ui/deadletters       11  eventdesk_ui_deadletters      links ui_log
ui/mainwindow        12  eventdesk_ui                  links every view and keychain
app/...              13  eventdesk, eventdeskd         link eventdesk_ui, eventdesk_core, keychain
bench/...            14  benchmark programs
tests/...            14  test programs and tests/support
'

script_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
root=${1:-$script_root}
if [[ ! -d $root/core ]]; then
    echo "check-include-graph: $root is not an EventDesk source tree (no core/)" >&2
    exit 2
fi
root=$(cd "$root" && pwd)
cd "$root"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The sources, sorted so that the report comes out in the same order every time.
source_dirs=()
for dir in app core ui bench tests; do
    [[ -d $dir ]] && source_dirs+=("$dir")
done
find "${source_dirs[@]}" -name node_modules -prune -o -type f \
    \( -name '*.h' -o -name '*.hpp' -o -name '*.cpp' \) -print \
    | LC_ALL=C sort >"$work/files"

# The include directories of every target: ${CMAKE_CURRENT_SOURCE_DIR} and ${PROJECT_SOURCE_DIR}
# paths in target_include_directories(), relative to the root (normalised by the awk below).
find . -name node_modules -prune -o -name 'build*' -prune -o -name CMakeLists.txt -print \
    | LC_ALL=C sort | while IFS= read -r cmake_file; do
        dir=${cmake_file#./}
        dir=${dir%CMakeLists.txt}
        sed 's/#.*//' "$cmake_file" | tr '\n' ' ' \
            | grep -o 'target_include_directories([^)]*)' \
            | tr ' ()"' '\n\n\n\n' \
            | sed -n -e 's/^\$<BUILD_INTERFACE:\(.*\)>$/\1/' \
                -e "s|^\${CMAKE_CURRENT_SOURCE_DIR}|./${dir}|p" \
                -e 's|^\${PROJECT_SOURCE_DIR}|.|p' \
                -e 's|^\${CMAKE_SOURCE_DIR}|.|p' || true
    done >"$work/include-dirs"

# path:line:text of every quoted include.
: >"$work/includes"
if [[ -s $work/files ]]; then
    tr '\n' '\0' <"$work/files" \
        | xargs -0 grep -H -n -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]+"' \
            >"$work/includes" || true
fi

printf '%s\n' "$layers" >"$work/layers"

awk -v table="scripts/check-include-graph.sh" '
function normalize(path,    parts, partCount, i, out, n) {
    partCount = split(path, parts, "/")
    n = 0
    for (i = 1; i <= partCount; i++) {
        if (parts[i] == "" || parts[i] == ".")
            continue
        if (parts[i] == ".." && n > 0 && kept[n] != "..") {
            n--
            continue
        }
        kept[++n] = parts[i]
    }
    out = ""
    for (i = 1; i <= n; i++)
        out = out (i > 1 ? "/" : "") kept[i]
    return out
}
function directory(path) {
    if (path !~ /\//)
        return ""
    sub(/\/[^\/]*$/, "", path)
    return path
}
function component(path) {
    sub(/\.(h|hpp|cpp)$/, "", path)
    return path
}
# The table row of a directory: its own row, or the nearest "dir/..." row above it.
function areaOf(path,    dir) {
    dir = directory(path)
    if (dir in layerOf)
        return dir
    while (dir != "") {
        if ((dir "/...") in layerOf)
            return dir "/..."
        dir = directory(dir)
    }
    return ""
}
function finding(kind, text) {
    findings[kind] = findings[kind] text "\n"
    count[kind]++
}

FILENAME == ARGV[1] { isFile[$0] = 1; fileOrder[++files] = $0; next }
FILENAME == ARGV[2] {
    dir = normalize($0)
    if (dir != "" && !(dir in isIncludeDir)) {
        isIncludeDir[dir] = 1
        includeDirs[++includeDirCount] = dir
    }
    next
}
FILENAME == ARGV[3] {
    if (NF >= 2 && $2 ~ /^[0-9]+$/)
        layerOf[$1] = $2 + 0
    next
}
{
    # path:line:text
    path = $0; sub(/:.*/, "", path)
    rest = substr($0, length(path) + 2)
    line = rest; sub(/:.*/, "", line)
    text = substr(rest, length(line) + 2)
    name = text; sub(/^[^"]*"/, "", name); sub(/".*$/, "", name)
    sub(/^[ \t]+/, "", text)
    where = path ":" line ": " text
    includes++

    target = normalize(directory(path) "/" name)
    if (!(target in isFile)) {
        target = ""
        found = ""
        for (i = 1; i <= includeDirCount; i++) {
            candidate = normalize(includeDirs[i] "/" name)
            if (!(candidate in isFile))
                continue
            if (target == "")
                target = candidate
            else if (candidate != target && index(" " found " ", " " candidate " ") == 0)
                found = found " " candidate
        }
        if (found != "")
            finding("ambiguous", "  " where "\n      names " target found)
    }
    if (target == "")
        next
    resolved++

    from = component(path); to = component(target)
    if (from != to && !((from, to) in edge)) {
        edge[from, to] = where
        adjacent[from, ++degree[from]] = to
        if (!(from in seen)) { seen[from] = 1; nodes[++nodeCount] = from }
        if (!(to in seen)) { seen[to] = 1; nodes[++nodeCount] = to }
    }

    fromArea = areaOf(path); toArea = areaOf(target)
    if (fromArea == "" || toArea == "" || fromArea == toArea)
        next
    if (layerOf[toArea] >= layerOf[fromArea]) {
        finding("layering", "  " where "\n      " fromArea " (layer " layerOf[fromArea] ") -> " \
                toArea " (layer " layerOf[toArea] ")" \
                (layerOf[toArea] == layerOf[fromArea] ? ": the same layer, neither links the other" \
                                                      : ": a higher layer"))
    }
}
END {
    for (i = 1; i <= files; i++) {
        dir = directory(fileOrder[i])
        if (areaOf(fileOrder[i]) == "" && !(dir in unplaced)) {
            unplaced[dir] = 1
            finding("unplaced", "  " dir " (" fileOrder[i] ")")
        }
    }

    # Depth-first search; a back edge closes a cycle: the path from its target down to here.
    for (n = 1; n <= nodeCount; n++) {
        start = nodes[n]
        if (color[start])
            continue
        depth = 1; pathNode[1] = start; next_[1] = 0; color[start] = 1; position[start] = 1
        while (depth > 0) {
            u = pathNode[depth]
            if (next_[depth] < degree[u]) {
                v = adjacent[u, ++next_[depth]]
                if (!color[v]) {
                    pathNode[++depth] = v; next_[depth] = 0; color[v] = 1; position[v] = depth
                } else if (color[v] == 1) {
                    cycle = ""; steps = ""
                    for (k = position[v]; k <= depth; k++) {
                        cycle = cycle pathNode[k] " -> "
                        steps = steps "\n      " edge[pathNode[k], (k < depth ? pathNode[k + 1] : v)]
                    }
                    finding("cycle", "  " cycle v steps)
                }
            } else {
                color[u] = 2
                depth--
            }
        }
    }

    printf "include graph: %d files, %d quoted includes, %d of them to files of the tree\n", \
        files, includes, resolved
    if ("cycle" in count)
        printf "\ninclude cycles (a header and its .cpp are one node):\n%s", findings["cycle"]
    if ("layering" in count)
        printf "\nincludes against the layering (the table in %s):\n%s", table, findings["layering"]
    if ("unplaced" in count)
        printf "\ndirectories with no layer (add them to the table in %s):\n%s", table, findings["unplaced"]
    if ("ambiguous" in count)
        printf "\nincludes that name different files in different include directories:\n%s", findings["ambiguous"]
    total = count["cycle"] + count["layering"] + count["unplaced"] + count["ambiguous"]
    if (total == 0) {
        print "OK: no include cycles, no includes against the layering"
        exit 0
    }
    printf "\nFAILED: %d cycles, %d includes against the layering, %d directories with no layer, %d ambiguous includes\n", \
        count["cycle"], count["layering"], count["unplaced"], count["ambiguous"]
    exit 1
}
' "$work/files" "$work/include-dirs" "$work/layers" "$work/includes"
