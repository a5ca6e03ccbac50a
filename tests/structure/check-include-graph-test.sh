#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The EventDesk developers
# SPDX-License-Identifier: Apache-2.0
# Proves that scripts/check-include-graph.sh finds what it is there to find (ctest:
# include_graph_check): it runs the check on small generated source trees, a clean one and ones
# with a planted cycle, an include against the layering or a directory the layer table does not
# know, and compares the exit status and the report with what each tree must give.
#
#   tests/structure/check-include-graph-test.sh [CHECK]   CHECK: the script under test (default:
#                                                         scripts/check-include-graph.sh of this tree)
set -uo pipefail

check=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/check-include-graph.sh}
source "$(dirname "${BASH_SOURCE[0]}")/self-check.sh"


# A clean tree in the shape of EventDesk's: core/ is an include directory (like
# eventdesk_core_base's), ui/ one (like the views' ${CMAKE_CURRENT_SOURCE_DIR}/..). It holds what
# the check must not report: includes down the layers, a .cpp including its own header, moc output,
# a commented-out include, a system include.
clean_tree() {
    local tree=$work/$1
    put "$tree" core/CMakeLists.txt \
        'qt_add_library(eventdesk_core_base STATIC Expected.h)' \
        'target_include_directories(eventdesk_core_base PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})'
    put "$tree" ui/common/CMakeLists.txt \
        'target_include_directories(eventdesk_ui_common' \
        '    PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/..) # a call over two lines'
    put "$tree" core/Expected.h '#pragma once'
    put "$tree" core/model/Topic.h '#pragma once' '#include "../Expected.h"'
    put "$tree" core/model/Topic.cpp '#include "Topic.h"' '#include <QString>' \
        '// #include "../engine/Engine.h" is what the model must never do' '#include "Topic.moc"'
    put "$tree" core/rules/RetryPlanner.h '#pragma once' '#include "../model/Topic.h"'
    put "$tree" core/engine/Engine.h '#pragma once' '#  include "../rules/RetryPlanner.h"'
    put "$tree" core/io/TopicEndpoint.cpp '#include "engine/Engine.h"'
    put "$tree" ui/common/Format.h '#pragma once' '#include "rules/RetryPlanner.h"'
    put "$tree" ui/editor/Editor.cpp '#include "common/Format.h"'
    put "$tree" tests/unit/tst_topic.cpp '#include "model/Topic.h"'
    echo "$tree"
}


tree=$(clean_tree clean)
expect "a clean tree passes" 0 "$tree" \
    "OK: no include cycles, no includes against the layering" \
    "include graph: 9 files, 9 quoted includes, 8 of them to files of the tree"

tree=$(clean_tree header-cycle)
put "$tree" core/model/Filter.h '#pragma once' '#include "Topic.h"'
put "$tree" core/model/Topic.h '#pragma once' '#include "../Expected.h"' '#include "Filter.h"'
expect "two headers including each other are a cycle" 1 "$tree" \
    "  core/model/Topic -> core/model/Filter -> core/model/Topic" \
    "      core/model/Filter.h:2: #include \"Topic.h\"" \
    "      core/model/Topic.h:3: #include \"Filter.h\""

tree=$(clean_tree twin-cycle)
put "$tree" core/io/DeadLetterSink.h '#pragma once'
put "$tree" core/io/DeadLetterSink.cpp '#include "DeadLetterSink.h"' '#include "AzureBlobSink.h"'
put "$tree" core/io/AzureBlobSink.h '#pragma once' '#include "DeadLetterSink.h"'
expect "a .cpp including a header that includes the .cpp's own header is a cycle" 1 "$tree" \
    "  core/io/AzureBlobSink -> core/io/DeadLetterSink -> core/io/AzureBlobSink" \
    "      core/io/AzureBlobSink.h:2: #include \"DeadLetterSink.h\"" \
    "      core/io/DeadLetterSink.cpp:2: #include \"AzureBlobSink.h\"" \
    "FAILED: 1 cycles, 0 includes against the layering, 0 directories with no layer, 0 ambiguous includes"

tree=$(clean_tree long-cycle)
put "$tree" core/store/A.h '#pragma once' '#include "B.h"'
put "$tree" core/store/B.h '#pragma once' '#include "C.h"'
put "$tree" core/store/C.cpp '#include "C.h"' '#include "A.h"'
put "$tree" core/store/C.h '#pragma once'
expect "a cycle through three components is reported with its path" 1 "$tree" \
    "  core/store/A -> core/store/B -> core/store/C -> core/store/A"

tree=$(clean_tree upward-relative)
put "$tree" core/model/Topic.h '#pragma once' '#include "../engine/Engine.h"'
expect "the model including the engine is against the layering" 1 "$tree" \
    "  core/model/Topic.h:2: #include \"../engine/Engine.h\"" \
    "      core/model (layer 1) -> core/engine (layer 4): a higher layer"

tree=$(clean_tree upward-include-dir)
put "$tree" core/keychain/KeychainSecretStore.h '#pragma once' '#include "io/SecretStore.h"'
put "$tree" core/io/SecretStore.h '#pragma once'
expect "an upward include found through an include directory" 1 "$tree" \
    "  core/keychain/KeychainSecretStore.h:2: #include \"io/SecretStore.h\"" \
    "      core/keychain (layer 2) -> core/io (layer 5): a higher layer"

tree=$(clean_tree engine-into-io)
put "$tree" core/engine/Engine.cpp '#include "Engine.h"' '#include "../io/TopicEndpoint.h"'
put "$tree" core/io/TopicEndpoint.h '#pragma once'
expect "the engine including io (the same CMake target, the layer above)" 1 "$tree" \
    "  core/engine/Engine.cpp:2: #include \"../io/TopicEndpoint.h\"" \
    "      core/engine (layer 4) -> core/io (layer 5): a higher layer"

tree=$(clean_tree sideways)
put "$tree" ui/send/SendEventDialog.h '#pragma once'
put "$tree" ui/editor/Editor.cpp '#include "common/Format.h"' '#include "send/SendEventDialog.h"'
expect "two views of the same layer including each other" 1 "$tree" \
    "  ui/editor/Editor.cpp:2: #include \"send/SendEventDialog.h\"" \
    "      ui/editor (layer 8) -> ui/send (layer 8): the same layer, neither links the other"

tree=$(clean_tree core-into-ui)
put "$tree" core/io/TopicEndpoint.cpp '#include "engine/Engine.h"' '#include "common/Format.h"'
expect "core including ui" 1 "$tree" \
    "      core/io (layer 5) -> ui/common (layer 7): a higher layer"

tree=$(clean_tree unplaced)
put "$tree" core/cache/Cache.h '#pragma once' '#include "../Expected.h"'
expect "a directory the table does not place" 1 "$tree" \
    "directories with no layer (add them to the table in scripts/check-include-graph.sh):" \
    "  core/cache (core/cache/Cache.h)"

tree=$(clean_tree ambiguous)
put "$tree" core/Format.h '#pragma once'
put "$tree" app/eventdesk/main.cpp '#include "Format.h"'
put "$tree" ui/editor/CMakeLists.txt 'target_include_directories(eventdesk_ui_editor PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})'
put "$tree" ui/editor/Format.h '#pragma once'
expect "an include two include directories answer differently" 1 "$tree" \
    "  app/eventdesk/main.cpp:1: #include \"Format.h\"" \
    "      names core/Format.h ui/editor/Format.h"

mkdir -p "$work/not-a-tree"
expect "a folder that is no source tree" 2 "$work/not-a-tree"

finish
